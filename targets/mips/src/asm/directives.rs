//! Directives, with MARS 4.5's rules and messages: data directives only in data segments,
//! automatic alignment per item (moving labels that sat on the old address), `value:count`
//! only as a directive's single operand, labels allowed in `.word`/`.half`/`.byte` (cut to the
//! item size), continuation lines that extend the previous data directive, `.data`/`.kdata`
//! switching automatic alignment back on.

use asmdbg_core::{DataDirective, DataItem, Symbol, SymbolKind};

use super::fixups::DataFixup;
use super::lexer::{parse_real, Tok, Token};
use super::segments::segment_index;
use super::source::Line;
use super::Assembler;
use crate::program::ChunkKind;

/// The numeric and string directives a continuation line can extend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum DataKind {
    Byte,
    Half,
    Word,
    Float,
    Double,
    Ascii,
    Asciiz,
}

impl DataKind {
    fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            ".byte" => DataKind::Byte,
            ".half" => DataKind::Half,
            ".word" => DataKind::Word,
            ".float" => DataKind::Float,
            ".double" => DataKind::Double,
            ".ascii" => DataKind::Ascii,
            ".asciiz" => DataKind::Asciiz,
            _ => return None,
        })
    }

    fn size(self) -> u32 {
        match self {
            DataKind::Byte | DataKind::Ascii | DataKind::Asciiz => 1,
            DataKind::Half => 2,
            DataKind::Word | DataKind::Float => 4,
            DataKind::Double => 8,
        }
    }

    /// The fact the ELF writer reads (see targets/core/src/symbols.rs).
    fn directive(self) -> DataDirective {
        match self {
            DataKind::Byte => DataDirective::Byte,
            DataKind::Half => DataDirective::Half,
            DataKind::Word => DataDirective::Word,
            DataKind::Float => DataDirective::Float,
            DataKind::Double => DataDirective::Double,
            DataKind::Ascii => DataDirective::Ascii,
            DataKind::Asciiz => DataDirective::Asciiz,
        }
    }

    fn is_integer(self) -> bool {
        matches!(self, DataKind::Byte | DataKind::Half | DataKind::Word)
    }

    fn is_string(self) -> bool {
        matches!(self, DataKind::Ascii | DataKind::Asciiz)
    }
}

fn is_int(t: &Token) -> bool {
    matches!(t.kind, Tok::Int(_))
}

impl Assembler<'_> {
    pub(super) fn directive(&mut self, line: &Line, dir: &Token, args: &[Token]) {
        let name = dir.text.to_ascii_lowercase();
        if let Some(kind) = DataKind::from_name(&name) {
            self.last_data = Some(kind);
            if !self.in_data_segment(line, dir) {
                return;
            }
            if kind.is_string() {
                self.strings(line, args, kind == DataKind::Asciiz);
            } else if !args.is_empty() {
                self.numbers(line, Some(dir), args, kind);
            }
            return;
        }
        match name.as_str() {
            ".text" | ".ktext" | ".data" | ".kdata" => self.segment_directive(&name, args),
            ".align" if self.in_data_segment(line, dir) => match self.one_count(line, dir, args) {
                Some(0) => self.auto_align = false,
                Some(n) if n < 31 => self.align(1 << n),
                _ => {}
            },
            ".space" if self.in_data_segment(line, dir) => {
                if let Some(n) = self.one_count(line, dir, args) {
                    let addr = self.here();
                    self.record_line(addr, line);
                    self.reserve(n);
                    self.record_data(addr, DataDirective::Space, 1, u64::from(n));
                }
            }
            ".extern" => self.extern_directive(line, dir, args),
            ".globl" => {
                if args.is_empty() {
                    let msg = format!("\"{}\" directive requires at least one argument.", dir.text);
                    self.error_at(line, dir, msg);
                    return;
                }
                for a in args {
                    if a.kind != Tok::Word {
                        let msg = format!("\"{}\" directive argument must be label.", dir.text);
                        self.error_at(line, dir, msg);
                        return;
                    }
                    self.globl.push((a.text.clone(), line.clone(), a.clone()));
                }
            }
            ".set" => self.warn_at(line, dir, "MARS currently ignores the .set directive."),
            ".end_macro" => {
                let msg = if args.is_empty() {
                    ".END_MACRO without .MACRO"
                } else {
                    "invalid text after .END_MACRO"
                };
                self.error_at(line, dir, msg);
            }
            // `.eqv` and `.include` did their work before this pass; `.macro` is handled by
            // the statement walker.
            _ => {}
        }
    }

    /// A line in a data segment that starts with a value extends the last data directive.
    pub(super) fn continuation(&mut self, line: &Line, tokens: &[Token]) {
        let Some(kind) = self.last_data else { return };
        if kind.is_string() {
            self.strings(line, tokens, kind == DataKind::Asciiz);
        } else {
            self.numbers(line, None, tokens, kind);
        }
    }

    fn in_data_segment(&mut self, line: &Line, dir: &Token) -> bool {
        if self.segment.is_code() {
            let msg = format!("\"{}\" directive cannot appear in text segment", dir.text);
            self.error_at(line, dir, msg);
            return false;
        }
        true
    }

    /// The single non-negative integer operand of `.align` and `.space`.
    fn one_count(&mut self, line: &Line, dir: &Token, args: &[Token]) -> Option<u32> {
        match args {
            [Token {
                kind: Tok::Int(n), ..
            }] if *n >= 0 => Some(*n as u32),
            [_] => {
                let msg = format!("\"{}\" requires a non-negative integer", dir.text);
                self.error_at(line, dir, msg);
                None
            }
            _ => {
                let msg = format!("\"{}\" requires one operand", dir.text);
                self.error_at(line, dir, msg);
                None
            }
        }
    }

    fn segment_directive(&mut self, name: &str, args: &[Token]) {
        self.segment = match name {
            ".text" => ChunkKind::Text,
            ".ktext" => ChunkKind::KText,
            ".data" => ChunkKind::Data,
            _ => ChunkKind::KData,
        };
        if self.segment.is_code() {
            self.code_space = self.segment;
        } else {
            self.auto_align = true;
        }
        self.unplaced_labels.clear();
        // A non-integer operand is ignored, as MARS does.
        if let Some(Token {
            kind: Tok::Int(v), ..
        }) = args.first()
        {
            self.next[segment_index(self.segment)] = *v as u32;
        }
    }

    fn extern_directive(&mut self, line: &Line, dir: &Token, args: &[Token]) {
        let [name, size] = args else {
            let msg = format!(
                "\"{}\" directive requires two operands (label and size).",
                dir.text
            );
            self.error_at(line, dir, msg);
            return;
        };
        let bytes = match size.kind {
            Tok::Int(n) if n >= 0 => n as u32,
            _ => {
                let msg = format!("\"{}\" requires a non-negative integer size", dir.text);
                self.error_at(line, dir, msg);
                return;
            }
        };
        if name.kind != Tok::Word {
            let msg = format!("\"{}\" is not a valid label", name.text);
            self.error_at(line, name, msg);
            return;
        }
        // MARS looks only at the global table: a file's own label of that name is no hindrance.
        if self.globals.get(&name.text).is_some() {
            return;
        }
        let i = segment_index(ChunkKind::Extern);
        let addr = self.next[i];
        let _ = self.globals.insert(Symbol {
            name: name.text.clone(),
            addr: addr as u64,
            kind: SymbolKind::Data,
            global: true,
        });
        self.defined.push((None, name.text.clone()));
        let saved = (self.segment, std::mem::take(&mut self.unplaced_labels));
        self.segment = ChunkKind::Extern;
        self.reserve(bytes);
        self.segment = saved.0;
        self.unplaced_labels = saved.1;
    }

    fn strings(&mut self, line: &Line, tokens: &[Token], terminate: bool) {
        for t in tokens {
            if t.kind != Tok::Str {
                let msg = format!("\"{}\" is not a valid character string", t.text);
                self.error_at(line, t, msg);
                continue;
            }
            let mut bytes = decode_string(&t.text);
            if terminate {
                bytes.push(0);
            }
            let addr = self.here();
            self.record_line(addr, line);
            self.emit(&bytes);
            let kind = if terminate {
                DataDirective::Asciiz
            } else {
                DataDirective::Ascii
            };
            self.record_data(addr, kind, 1, bytes.len() as u64);
        }
    }

    /// Notes what a data statement emitted, for the debug information.
    fn record_data(&mut self, addr: u32, directive: DataDirective, elem_size: u8, count: u64) {
        let addr = u64::from(addr);
        self.data.insert(DataItem {
            addr,
            end: addr + u64::from(elem_size) * count,
            directive,
            elem_size,
            count,
        });
    }

    /// Records the values one statement stored (`first`: where the first went).
    fn record_values(&mut self, first: Option<u32>, kind: DataKind, count: u64) {
        if let Some(addr) = first {
            self.record_data(addr, kind.directive(), kind.size() as u8, count);
        }
    }

    /// `.word`/`.half`/`.byte`/`.float`/`.double` operands. MARS reads `value:count` only
    /// when it is the whole operand list; otherwise every token is one value.
    fn numbers(&mut self, line: &Line, dir: Option<&Token>, items: &[Token], kind: DataKind) {
        let mut all: Vec<&Token> = dir.into_iter().collect();
        all.extend(items);
        if all.len() == 4 && all[2].kind == Tok::Colon {
            let (value, count) = (all[1], all[3]);
            let value_ok = if kind.is_integer() {
                is_int(value)
            } else {
                is_int(value) || matches!(value.kind, Tok::Real(_))
            };
            let Tok::Int(n) = count.kind else {
                self.error_at(line, value, "malformed expression");
                return;
            };
            if !value_ok {
                self.error_at(line, value, "malformed expression");
                return;
            }
            if n <= 0 {
                self.error_at(line, count, "repetition factor must be positive");
                return;
            }
            if (n as u64) * kind.size() as u64 > super::segments::SEGMENT_BYTES as u64 {
                let msg = format!(
                    "\"{}\": too many repetitions for a 4 MiB segment",
                    count.text
                );
                self.error_at(line, count, msg);
                return;
            }
            let mut first = None;
            for i in 0..n {
                let at = self.store_value(line, value, kind, i == 0);
                first = first.or(at);
            }
            self.record_values(first, kind, n as u64);
            return;
        }
        let start = usize::from(dir.is_some());
        let (mut first, mut stored) = (None, 0);
        for t in &all[start..] {
            if let Some(at) = self.store_value(line, t, kind, true) {
                first = first.or(Some(at));
                stored += 1;
            }
        }
        self.record_values(first, kind, stored);
    }

    /// Stores one value; returns its address, or `None` after an error.
    fn store_value(&mut self, line: &Line, t: &Token, kind: DataKind, record: bool) -> Option<u32> {
        let size = kind.size();
        let bytes: Vec<u8> = if kind.is_integer() {
            match t.kind {
                Tok::Int(v) => {
                    let out_of_range = match kind {
                        DataKind::Byte => !(-128..=127).contains(&v),
                        DataKind::Half => !(-32768..=32767).contains(&v),
                        _ => false,
                    };
                    if out_of_range {
                        let msg = format!(
                            "\"{}\" is out-of-range for a signed value and possibly truncated",
                            t.text
                        );
                        self.warn_at(line, t, msg);
                    }
                    v.to_le_bytes()[..size as usize].to_vec()
                }
                Tok::Word => vec![0; size as usize],
                _ => {
                    let msg = format!("\"{}\" is not a valid integer constant or label", t.text);
                    self.error_at(line, t, msg);
                    return None;
                }
            }
        } else {
            // MARS re-reads the token text with Double.parseDouble, so `0x10` is rejected.
            let value = match t.kind {
                Tok::Real(v) => Some(v),
                Tok::Int(_) => parse_real(&t.text),
                _ => None,
            };
            let Some(value) = value else {
                let msg = format!("\"{}\" is not a valid floating point constant", t.text);
                self.error_at(line, t, msg);
                return None;
            };
            if kind == DataKind::Float && value.abs() > f32::MAX as f64 {
                let msg = format!("\"{}\" is an out-of-range value", t.text);
                self.error_at(line, t, msg);
                return None;
            }
            if kind == DataKind::Float {
                (value as f32).to_le_bytes().to_vec()
            } else {
                value.to_le_bytes().to_vec()
            }
        };
        if self.auto_align {
            self.align(size);
        }
        let addr = self.here();
        if record {
            self.record_line(addr, line);
        }
        let (chunk, offset) = self.emit(&bytes);
        if t.kind == Tok::Word {
            let global_only =
                self.local().get(&t.text).is_none() && self.globals.get(&t.text).is_some();
            self.fixups.push(DataFixup {
                unit: self.unit,
                global_only,
                chunk,
                offset,
                len: size as usize,
                token: t.clone(),
                line: line.clone(),
            });
        }
        Some(addr)
    }
}

/// MARS's string escapes: `\n \t \r \b \f \0 \\ \' \"`; any other escaped character stands
/// for itself. Every character is cut to its low 8 bits.
pub(super) fn decode_string(token: &str) -> Vec<u8> {
    let inner = token.strip_prefix('"').unwrap_or(token);
    let inner = inner.strip_suffix('"').unwrap_or(inner);
    let mut out = Vec::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        let c = if c == '\\' {
            match chars.next() {
                Some('n') => '\n',
                Some('t') => '\t',
                Some('r') => '\r',
                Some('b') => '\u{8}',
                Some('f') => '\u{c}',
                Some('0') => '\0',
                Some(other) => other,
                None => '\\',
            }
        } else {
            c
        };
        // Java strings hold UTF-16 units: a character beyond U+FFFF is two units, two bytes.
        let mut units = [0u16; 2];
        out.extend(c.encode_utf16(&mut units).iter().map(|&u| u as u8));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::decode_string;
    use crate::asm::{assemble, AsmOptions};
    use asmdbg_core::{DataDirective, SourceFile};

    #[test]
    fn data_statements_are_recorded_with_kind_size_and_count() {
        let text =
            ".data\nb: .byte 1, 2, 3\nw: .word 7\n  8, 9\nh: .half 5:4\ns: .asciiz \"hi\", \"x\"\n\
                    a: .ascii \"ab\"\nsp: .space 6\nd: .double 1.5\n.text\nmain: nop\n";
        let p = assemble(&SourceFile::new("d.s", text), &AsmOptions::default()).unwrap();
        let items: Vec<_> = p
            .debug
            .data
            .iter()
            .map(|d| {
                (
                    d.addr - 0x1001_0000,
                    d.end - d.addr,
                    d.directive,
                    d.elem_size,
                    d.count,
                )
            })
            .collect();
        use DataDirective as D;
        assert_eq!(
            items,
            [
                (0, 3, D::Byte, 1, 3),
                (4, 4, D::Word, 4, 1),
                (8, 8, D::Word, 4, 2), // the continuation line
                (16, 8, D::Half, 2, 4),
                (24, 3, D::Asciiz, 1, 3),
                (27, 2, D::Asciiz, 1, 2),
                (29, 2, D::Ascii, 1, 2),
                (31, 6, D::Space, 1, 6),
                (40, 8, D::Double, 8, 1),
            ]
        );
        // Code is not data.
        assert!(!p.debug.data.is_data(0x0040_0000));
    }

    #[test]
    fn strings_cut_each_utf16_unit_to_a_byte() {
        assert_eq!(decode_string("\"a\\n\\q\\\"\""), b"a\nq\"");
        assert_eq!(decode_string("\"é€\""), vec![0xe9, 0xac]);
        assert_eq!(decode_string("\"😀\""), vec![0x3d, 0x00]);
    }
}
