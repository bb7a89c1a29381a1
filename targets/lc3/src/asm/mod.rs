//! The LC-3 assembler: the lenient lc3tools dialect by default, Lumetta's lc3as with `strict`.
//!
//! Students write against lc3tools (optional commas, `PUTC`, `b` binary numbers, several
//! `.ORIG`/`.END` blocks), so that is the default; `strict` applies lc3as' rules and messages
//! (isa-specs A.6). Both report *every* error, each with `file:line:col`, the source line and a
//! caret under the offending token where lc3tools puts it (lc3as itself prints only line
//! numbers, and stops after its first pass; here pass-two errors such as unknown labels are
//! reported together with pass-one errors).
//!
//! Choices where the references are silent or unhelpful:
//! - `x-1`, `#-5`, `b-101` are negative (both tools read a `-` after the prefix); `#x5` is not a
//!   number (lc3tools then rejects the operand; so does lc3as).
//! - Lenient `BR` takes its n/z/p letters in any order, each once; strict wants n, z, p order.
//! - lc3tools silently fails on `.BLKW 3 xABCD`; here that is `extraneous operand to .blkw`.
//! - A label on a `.ORIG` line names the origin (lc3tools would give it address 0).
//! - An unterminated string is accepted up to the end of the line, as lc3tools does, with a
//!   warning; strict mode rejects it as lc3as does.

mod lexer;
mod mnemonics;

use asmdbg_core::{
    DataDirective, DataItem, DataTable, DebugInfo, Diagnostics, FileId, LineTable, SourceFile,
    SourceLoc, SourceMap, Span, Symbol, SymbolKind, SymbolTable,
};

use crate::program::{Program, Segment};
use lexer::{Token, TokenKind};
use mnemonics::{Field, Form, Mnemonic};

/// Assembler dialect options.
#[derive(Debug, Clone, Copy, Default)]
pub struct AsmOptions {
    /// lc3as's rules instead of the lenient lc3tools dialect.
    pub strict: bool,
}

/// Assembles one source file, reporting every error.
/// Whether `word` is an LC-3 instruction (trap aliases and lc3tools' extras included) or one of
/// the five directives, in any case: what ISA detection counts as a statement.
pub fn is_operation(word: &str) -> bool {
    mnemonics::lookup(word, false).is_some() || Directive::parse(word).is_some()
}

pub fn assemble(file: &SourceFile, opts: &AsmOptions) -> Result<Program, Diagnostics> {
    Assembler::new(file, opts.strict).run()
}

/// Assembles source text held in memory (the OS images, tests).
pub fn assemble_str(name: &str, text: &str, opts: &AsmOptions) -> Result<Program, Diagnostics> {
    assemble(&SourceFile::new(name, text), opts)
}

/// First address lc3tools refuses to assemble into (the device registers).
const LC3TOOLS_MMIO_START: u32 = 0xFE00;
const MEMORY_WORDS: u32 = 0x1_0000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Directive {
    Orig,
    Fill,
    Blkw,
    Stringz,
    End,
}

impl Directive {
    fn parse(word: &str) -> Option<Directive> {
        Some(match word.to_ascii_uppercase().as_str() {
            ".ORIG" => Directive::Orig,
            ".FILL" => Directive::Fill,
            ".BLKW" => Directive::Blkw,
            ".STRINGZ" => Directive::Stringz,
            ".END" => Directive::End,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Directive::Orig => ".ORIG",
            Directive::Fill => ".FILL",
            Directive::Blkw => ".BLKW",
            Directive::Stringz => ".STRINGZ",
            Directive::End => ".END",
        }
    }

    /// What the directive takes, for messages.
    fn operands(self) -> &'static str {
        match self {
            Directive::Orig => ".ORIG address",
            Directive::Fill => ".FILL number or label",
            Directive::Blkw => ".BLKW count",
            Directive::Stringz => ".STRINGZ \"string\"",
            Directive::End => ".END",
        }
    }

    fn holds_data(self) -> bool {
        self.data_directive().is_some()
    }

    /// The fact the ELF writer reads (see targets/core/src/symbols.rs).
    fn data_directive(self) -> Option<DataDirective> {
        match self {
            Directive::Fill => Some(DataDirective::Fill),
            Directive::Blkw => Some(DataDirective::Blkw),
            Directive::Stringz => Some(DataDirective::Stringz),
            Directive::Orig | Directive::End => None,
        }
    }
}

/// What a statement is built around.
#[derive(Debug, Clone, Copy)]
enum Base {
    Inst(Mnemonic),
    Directive(Directive),
    /// A `.word` that is no directive (lc3tools: `invalid pseudo-op`).
    UnknownDirective,
    /// A word one edit away from a mnemonic where an instruction is expected.
    Misspelt(&'static str),
}

/// What a statement puts into memory, decided when addresses are laid out.
#[derive(Debug, Clone)]
enum Emit {
    Nothing,
    Words(Vec<u16>),
    Zeros(u32),
    FillLabel(usize),
    Inst(Mnemonic),
    /// Already reported; occupies one word so later addresses stay where lc3tools puts them.
    Invalid,
}

impl Emit {
    fn size(&self) -> u32 {
        match self {
            Emit::Nothing => 0,
            Emit::Words(w) => w.len() as u32,
            Emit::Zeros(n) => *n,
            Emit::FillLabel(_) | Emit::Inst(_) | Emit::Invalid => 1,
        }
    }
}

#[derive(Debug)]
struct Statement {
    line: u32,
    tokens: Vec<Token>,
    label: Option<usize>,
    base: Option<(usize, Base)>,
    /// Index of the first operand token.
    operands: usize,
    emit: Emit,
    addr: Option<u16>,
    segment: Option<usize>,
}

impl Statement {
    fn operand_tokens(&self) -> &[Token] {
        self.tokens.get(self.operands..).unwrap_or(&[])
    }

    /// Column after the last character of the statement (comment excluded).
    fn end_col(&self) -> u32 {
        self.tokens
            .iter()
            .map(|t| match t.kind {
                TokenKind::Str {
                    terminated: true, ..
                } => t.col + t.len + 1,
                _ => t.col + t.len,
            })
            .max()
            .unwrap_or(1)
    }
}

/// Collects diagnostics against the one source file.
struct Reporter {
    sources: SourceMap,
    file: FileId,
    name: String,
    diags: Diagnostics,
}

impl Reporter {
    fn error(&mut self, line: u32, col: u32, len: u32, msg: impl Into<String>) {
        let d = self
            .sources
            .error(Span::new(self.file, line, col, len.max(1)), msg);
        self.diags.push(d);
    }

    fn warning(&mut self, line: u32, col: u32, len: u32, msg: impl Into<String>) {
        let d = self
            .sources
            .warning(Span::new(self.file, line, col, len.max(1)), msg);
        self.diags.push(d);
    }

    fn error_at(&mut self, line: u32, tok: &Token, msg: impl Into<String>) {
        self.error(line, tok.col, tok.len, msg);
    }

    fn file_error(&mut self, msg: impl Into<String>) {
        self.diags
            .push(asmdbg_core::Diagnostic::file_error(&self.name, msg));
    }
}

/// An operand as an instruction form sees it.
#[derive(Debug, Clone, Copy)]
enum Arg<'a> {
    Reg(u16),
    Num(i64),
    Label(&'a str),
    Bad,
}

fn is_lc3as_label(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// lc3tools' range rule for signed fields.
fn lc3tools_signed(value: i64, bits: u32) -> Result<u16, String> {
    let lo = -(1i64 << (bits - 1));
    let hi = (1i64 << (bits - 1)) - 1;
    if value < lo || value > hi {
        return Err(format!(
            "cannot encode as {bits}-bit 2's complement number ({lo}..{hi}): {value}"
        ));
    }
    Ok((value & ((1 << bits) - 1)) as u16)
}

/// lc3tools' range rule for unsigned fields (trap vectors, `.ORIG`, `.BLKW`).
fn lc3tools_unsigned(value: i64, bits: u32) -> Result<u16, String> {
    let hi = (1i64 << bits) - 1;
    if !(0..=hi).contains(&value) {
        return Err(format!(
            "cannot encode as {bits}-bit unsigned number (0..{hi}): {value}"
        ));
    }
    Ok(value as u16)
}

/// lc3as' `read_val`: x8000..xFFFF count as negative, then anything from -2^(bits-1) to
/// 2^bits - 1 is accepted and wrapped into the field (`ADD R1,R1,#16` gives imm5 = -16).
fn lc3as_value(value: i64, bits: u32) -> Result<u16, String> {
    let value = if (0x8000..0x1_0000).contains(&value) {
        value - 0x1_0000
    } else {
        value
    };
    if value < -(1i64 << (bits - 1)) || value >= (1i64 << bits) {
        return Err("constant outside of allowed range".to_string());
    }
    Ok((value & ((1 << bits) - 1)) as u16)
}

struct Assembler<'a> {
    file: &'a SourceFile,
    strict: bool,
    rep: Reporter,
    symbols: SymbolTable,
    segments: Vec<Segment>,
    lines: LineTable,
    /// What each data directive emitted.
    data: DataTable,
}

impl<'a> Assembler<'a> {
    fn new(file: &'a SourceFile, strict: bool) -> Self {
        let mut sources = SourceMap::new();
        let id = sources.add(file.clone());
        Assembler {
            file,
            strict,
            rep: Reporter {
                sources,
                file: id,
                name: file.name.to_string(),
                diags: Diagnostics::new(),
            },
            symbols: SymbolTable::new(true),
            segments: Vec::new(),
            lines: LineTable::new(),
            data: DataTable::default(),
        }
    }

    fn run(mut self) -> Result<Program, Diagnostics> {
        let mut statements = self.parse();
        self.layout(&mut statements);
        self.encode(&statements);
        let mut diags = std::mem::take(&mut self.rep.diags);
        diags.sort();
        if diags.has_errors() {
            return Err(diags);
        }
        Ok(Program {
            segments: self.segments,
            debug: DebugInfo {
                sources: self.rep.sources,
                symbols: self.symbols,
                lines: self.lines,
                data: self.data,
            },
            warnings: diags,
            ..Program::default()
        })
    }

    // ---- statements ----------------------------------------------------------------------

    fn parse(&mut self) -> Vec<Statement> {
        let mut statements = Vec::new();
        for line in 1..=self.file.line_count() {
            let tokens = lexer::lex_line(self.file.line(line), self.strict);
            if tokens.is_empty() {
                continue;
            }
            let mut st = Statement {
                line,
                tokens,
                label: None,
                base: None,
                operands: 0,
                emit: Emit::Nothing,
                addr: None,
                segment: None,
            };
            let ok = if self.strict {
                self.classify_lc3as(&mut st)
            } else {
                self.classify_lc3tools(&mut st);
                true
            };
            if ok {
                statements.push(st);
            }
        }
        statements
    }

    fn base_of(&self, word: &str) -> Option<Base> {
        if word.starts_with('.') {
            return Some(match Directive::parse(word) {
                Some(d) => Base::Directive(d),
                None => Base::UnknownDirective,
            });
        }
        mnemonics::lookup(word, self.strict).map(Base::Inst)
    }

    /// lc3tools' reading of a line: an exact mnemonic or directive first is the base; otherwise
    /// the first word is a label unless it is one edit from a mnemonic and operands follow.
    fn classify_lc3tools(&self, st: &mut Statement) {
        let first = st.tokens[0].word();
        let second = st.tokens.get(1).map(|t| t.word());
        let second_base = second.flatten().and_then(|w| self.base_of(w));
        let Some(w0) = first else {
            st.label = Some(0);
            st.operands = 1;
            if let Some(b1) = second_base {
                st.base = Some((1, b1));
                st.operands = 2;
            }
            return;
        };
        if let Some(base) = self.base_of(w0) {
            if let (Base::Inst(_), Some(b1 @ (Base::Directive(_) | Base::UnknownDirective))) =
                (base, second_base)
            {
                st.label = Some(0);
                st.base = Some((1, b1));
                st.operands = 2;
            } else {
                st.base = Some((0, base));
                st.operands = 1;
            }
            return;
        }
        let (d0, name0) = mnemonics::nearest(w0, false);
        match second {
            None => {
                st.label = Some(0);
                st.operands = 1;
            }
            Some(_) if second_base.is_some() => {
                st.label = Some(0);
                st.base = second_base.map(|b| (1, b));
                st.operands = 2;
            }
            Some(Some(w1)) if mnemonics::register(w1).is_none() => {
                let (d1, name1) = mnemonics::nearest(w1, false);
                st.label = Some(0);
                st.operands = 1;
                if d1 < d0 && d1 < 2 {
                    st.base = Some((1, Base::Misspelt(name1)));
                    st.operands = 2;
                } else if d1 >= d0 && d0 < 2 {
                    st.label = None;
                    st.base = Some((0, Base::Misspelt(name0)));
                }
            }
            Some(_) => {
                if d0 < 2 {
                    st.base = Some((0, Base::Misspelt(name0)));
                } else {
                    st.label = Some(0);
                }
                st.operands = 1;
            }
        }
    }

    /// lc3as' reading of a line: a mnemonic or directive, or a label (letters, digits, `_`)
    /// followed by one. Returns false when the line was rejected outright.
    fn classify_lc3as(&mut self, st: &mut Statement) -> bool {
        let line = st.line;
        let unrecognizable = |rep: &mut Reporter, tok: &Token| {
            rep.error_at(line, tok, "contains unrecognizable characters");
            false
        };
        let Some(w0) = st.tokens[0].word() else {
            return unrecognizable(&mut self.rep, &st.tokens[0]);
        };
        let colon_label = st.tokens[0].colon_after && is_lc3as_label(w0);
        match self.base_of(w0) {
            Some(Base::UnknownDirective) => return unrecognizable(&mut self.rep, &st.tokens[0]),
            Some(base) if !colon_label => {
                st.base = Some((0, base));
                st.operands = 1;
                return true;
            }
            _ if !is_lc3as_label(w0) => return unrecognizable(&mut self.rep, &st.tokens[0]),
            _ => {}
        }
        st.label = Some(0);
        st.operands = 1;
        let Some(second) = st.tokens.get(1) else {
            return true;
        };
        match second.word().and_then(|w| self.base_of(w)) {
            Some(Base::UnknownDirective) | None => {
                self.operands_without_instruction(st);
                false
            }
            Some(base) => {
                st.base = Some((1, base));
                st.operands = 2;
                true
            }
        }
    }

    // ---- addresses and labels ------------------------------------------------------------

    fn layout(&mut self, statements: &mut [Statement]) {
        // A label alone on its line names what the next statement emits.
        let mut next_kind = SymbolKind::Code;
        let mut kinds = vec![SymbolKind::Code; statements.len()];
        for (i, st) in statements.iter().enumerate().rev() {
            if let Some((_, base)) = st.base {
                next_kind = match base {
                    Base::Directive(d) if d.holds_data() => SymbolKind::Data,
                    _ => SymbolKind::Code,
                };
            }
            kinds[i] = next_kind;
        }

        let limit = if self.strict {
            MEMORY_WORDS
        } else {
            LC3TOOLS_MMIO_START
        };
        let mut pc: u32 = 0;
        let mut block: Option<usize> = None;
        let mut any_orig = statements
            .iter()
            .any(|s| matches!(s.base, Some((_, Base::Directive(Directive::Orig)))));
        // lc3as: 0 = no .ORIG yet, 1 = seen, 2 = gave up waiting (reported once).
        let mut lc3as_orig_state = 0;
        let mut saw_end = false;
        let mut overflow_reported = false;

        for (i, st) in statements.iter_mut().enumerate() {
            let line = st.line;
            if self.strict && saw_end {
                let end = st.end_col();
                self.rep
                    .warning(line, 1, end - 1, "all text after .END ignored");
                break;
            }
            match st.base {
                Some((tok, Base::Directive(Directive::Orig))) => {
                    if self.strict && lc3as_orig_state != 0 {
                        // After "instruction appears before .ORIG", lc3as ignores it silently.
                        if lc3as_orig_state == 1 {
                            let t = &st.tokens[tok];
                            self.rep
                                .warning(line, t.col, t.len, "multiple .ORIG directives found");
                        }
                        continue;
                    }
                    if !self.strict && block.is_some() {
                        let t = &st.tokens[tok];
                        self.rep.error(
                            line,
                            t.col,
                            t.len,
                            "new .orig found, but previous region did not have .end",
                        );
                    }
                    let origin = self.origin_operand(st, tok);
                    self.segments.push(Segment {
                        origin,
                        words: Vec::new(),
                    });
                    block = Some(self.segments.len() - 1);
                    pc = u32::from(origin);
                    overflow_reported = false;
                    lc3as_orig_state = 1;
                    if let Some(l) = st.label {
                        if self.strict {
                            let t = &st.tokens[l];
                            self.rep.error_at(line, t, "label appears before .ORIG");
                        } else {
                            self.define_label(st, l, origin, SymbolKind::Code);
                        }
                    }
                    continue;
                }
                Some((tok, Base::Directive(Directive::End))) => {
                    self.check_count(st, tok, Directive::End, 0);
                    if self.strict {
                        saw_end = true;
                    }
                    if !self.strict && !any_orig {
                        continue;
                    }
                    if let (Some(l), Some(_)) = (st.label, block) {
                        self.define_label(st, l, pc as u16, SymbolKind::Code);
                    } else if self.segments.is_empty() && !self.strict {
                        // A repeated .END is harmless to lc3tools; one before any .ORIG is not.
                        self.no_address(st);
                    }
                    block = None;
                    continue;
                }
                _ => {}
            }

            if block.is_none() {
                if self.strict {
                    if let Some(l) = st.label {
                        let t = &st.tokens[l];
                        self.rep.error_at(line, t, "label appears before .ORIG");
                    }
                    if st.base.is_none() {
                        continue;
                    }
                    if lc3as_orig_state == 0 {
                        let end = st.end_col();
                        self.rep
                            .error(line, 1, end - 1, "instruction appears before .ORIG");
                        lc3as_orig_state = 2;
                        // lc3as carries on at its default x3000 (its error blocks output anyway).
                        self.segments.push(Segment {
                            origin: 0x3000,
                            words: Vec::new(),
                        });
                        block = Some(self.segments.len() - 1);
                        pc = 0x3000;
                        any_orig = true;
                    }
                } else if st.base.is_none() && any_orig && !self.segments.is_empty() {
                    // lc3tools gives a label between blocks the address after the last block.
                    if let Some(l) = st.label {
                        self.define_label(st, l, pc as u16, kinds[i]);
                    }
                    continue;
                } else {
                    if any_orig {
                        self.no_address(st);
                    }
                    continue;
                }
            }

            st.emit = self.emit_for(st);
            let size = st.emit.size();
            if let Some(l) = st.label {
                self.define_label(st, l, pc as u16, kinds[i]);
            }
            if pc + size > limit {
                if !overflow_reported {
                    let end = st.end_col();
                    let msg = if self.strict {
                        "code extends past the end of memory (xFFFF)"
                    } else {
                        "cannot write code into memory-mapped I/O region"
                    };
                    self.rep.error(line, 1, end - 1, msg);
                    overflow_reported = true;
                }
                st.emit = Emit::Nothing;
                continue;
            }
            st.addr = Some(pc as u16);
            st.segment = block;
            pc += size;
        }

        if self.strict {
            if lc3as_orig_state == 0 {
                let msg = if !saw_end && !self.rep.diags.has_errors() {
                    "file contains only comments"
                } else if !saw_end {
                    "no .ORIG or .END directive found"
                } else {
                    "no .ORIG directive found"
                };
                self.rep.file_error(msg);
            } else if !saw_end {
                self.rep.file_error("no .END directive found");
            }
        } else if !any_orig {
            self.rep.file_error("could not find valid .orig");
        } else if block.is_some() {
            self.rep.file_error("no .end at end of file");
        }
    }

    fn no_address(&mut self, st: &Statement) {
        let end = st.end_col();
        self.rep.error(
            st.line,
            1,
            end - 1,
            "cannot determine address for statement",
        );
    }

    fn define_label(&mut self, st: &Statement, tok: usize, addr: u16, kind: SymbolKind) {
        let t = &st.tokens[tok];
        let line = st.line;
        let name = match &t.kind {
            TokenKind::Word(w) => w.clone(),
            TokenKind::Str { raw, .. } => raw.clone(),
            TokenKind::Num(_) => {
                self.rep
                    .error_at(line, t, "label cannot be a numeric value");
                return;
            }
        };
        if let Some(old) = self.symbols.get(&name) {
            let msg = if self.strict {
                format!("label {name} has already appeared")
            } else {
                format!(
                    "attempting to redefine label '{name}' from 0x{:04x} to 0x{addr:04x}",
                    old.addr
                )
            };
            self.rep.error_at(line, t, msg);
            return;
        }
        if !self.strict {
            let problem = if name.starts_with(|c: char| c.is_ascii_digit()) {
                Some("label cannot begin with number")
            } else if mnemonics::lookup(&name, false).is_some() {
                Some("label cannot be an instruction")
            } else if mnemonics::register(&name).is_some() {
                Some("label cannot be a register")
            } else {
                None
            };
            if let Some(msg) = problem {
                self.rep.error_at(line, t, msg);
                return;
            }
        }
        // The name is new (checked above), so insert cannot fail.
        let _ = self.symbols.insert(Symbol {
            name,
            addr: u64::from(addr),
            kind,
            global: false,
        });
    }

    /// Checks a directive's operand count; reports in the dialect's words.
    fn check_count(&mut self, st: &Statement, tok: usize, d: Directive, want: usize) -> bool {
        let ops = st.operand_tokens();
        let line = st.line;
        if ops.len() == want {
            return true;
        }
        if self.strict {
            if d != Directive::End {
                self.illegal_operands(st, d.name());
            }
            return d == Directive::End;
        }
        let lower = d.name().to_ascii_lowercase();
        if ops.len() < want {
            let t = &st.tokens[tok];
            self.rep.error_at(
                line,
                t,
                format!("{lower} requires {} more operand(s)", want - ops.len()),
            );
        } else {
            for extra in &ops[want..] {
                self.rep
                    .error_at(line, extra, format!("extraneous operand to {lower}"));
            }
        }
        false
    }

    /// What a statement's operands are, as written: `found 'R1, #x'` or `found no operands`.
    fn found_operands(&self, st: &Statement) -> String {
        let Some(first) = st.operand_tokens().first() else {
            return "found no operands".to_string();
        };
        // Strings start after their quote; show the quote too.
        let col = match first.kind {
            TokenKind::Str { .. } => first.col.saturating_sub(1),
            _ => first.col,
        };
        let text: String = self
            .file
            .line(st.line)
            .chars()
            .skip(col.saturating_sub(1) as usize)
            .take(st.end_col().saturating_sub(col) as usize)
            .collect();
        format!("found '{}'", text.trim())
    }

    /// lc3as' complaint, with what the instruction or directive takes and what was written.
    fn illegal_operands(&mut self, st: &Statement, name: &str) {
        let expected = match st.base {
            Some((_, Base::Inst(m))) => describe_forms(m),
            Some((_, Base::Directive(d))) => d.operands().to_string(),
            _ => String::new(),
        };
        let found = self.found_operands(st);
        let detail = if expected.is_empty() {
            format!(" ({found})")
        } else {
            format!(" (expected {expected}; {found})")
        };
        let ops = st.operand_tokens();
        let (col, end) = match (ops.first(), st.base) {
            (Some(first), _) => (first.col, st.end_col()),
            (None, Some((tok, _))) => {
                let t = &st.tokens[tok];
                (t.col, t.col + t.len)
            }
            (None, None) => (1, st.end_col()),
        };
        self.rep.error(
            st.line,
            col,
            end - col,
            format!("illegal operands for {name}{detail}"),
        );
    }

    /// A numeric directive operand, or the dialect's complaint about it.
    fn numeric_operand<'s>(&mut self, st: &'s Statement, d: Directive) -> Option<(i64, &'s Token)> {
        let t = st.operand_tokens().first()?;
        match t.kind {
            TokenKind::Num(v) => Some((v, t)),
            _ => {
                if self.strict {
                    self.illegal_operands(st, d.name());
                } else {
                    let msg = format!("operand should be numeric, found {}", t.describe());
                    self.rep.error_at(st.line, t, msg);
                }
                None
            }
        }
    }

    fn origin_operand(&mut self, st: &Statement, tok: usize) -> u16 {
        const FALLBACK: u16 = 0x3000;
        if !self.check_count(st, tok, Directive::Orig, 1) {
            return FALLBACK;
        }
        let Some((v, t)) = self.numeric_operand(st, Directive::Orig) else {
            return FALLBACK;
        };
        let checked = if self.strict {
            lc3as_value(v, 16)
        } else {
            lc3tools_unsigned(v, 16)
        };
        checked.unwrap_or_else(|msg| {
            self.rep.error_at(st.line, t, msg);
            FALLBACK
        })
    }

    /// Validates a statement at a known address and decides what it emits.
    fn emit_for(&mut self, st: &Statement) -> Emit {
        let line = st.line;
        let Some((tok, base)) = st.base else {
            if !self.strict {
                self.operands_without_instruction(st);
            }
            return Emit::Nothing;
        };
        let t = &st.tokens[tok];
        match base {
            Base::Inst(m) => Emit::Inst(m),
            Base::Misspelt(name) => {
                let word = t.word().unwrap_or(name);
                self.rep.error_at(
                    line,
                    t,
                    format!("unknown instruction '{word}' (did you mean '{name}'?)"),
                );
                Emit::Invalid
            }
            Base::UnknownDirective => {
                let word = t.word().unwrap_or_default();
                self.rep.error_at(
                    line,
                    t,
                    format!("unknown directive '{word}' (expected .ORIG, .FILL, .BLKW, .STRINGZ or .END)"),
                );
                Emit::Invalid
            }
            Base::Directive(Directive::Fill) => self.fill(st, tok),
            Base::Directive(Directive::Blkw) => self.blkw(st, tok),
            Base::Directive(Directive::Stringz) => self.stringz(st, tok),
            // Handled by the layout loop.
            Base::Directive(Directive::Orig | Directive::End) => Emit::Nothing,
        }
    }

    fn fill(&mut self, st: &Statement, tok: usize) -> Emit {
        if !self.check_count(st, tok, Directive::Fill, 1) {
            return Emit::Invalid;
        }
        let line = st.line;
        let t = &st.operand_tokens()[0];
        match &t.kind {
            TokenKind::Num(v) => {
                let checked = if self.strict {
                    lc3as_value(*v, 16)
                } else if *v < 0 {
                    lc3tools_signed(*v, 16)
                } else {
                    lc3tools_unsigned(*v, 16)
                };
                match checked {
                    Ok(w) => Emit::Words(vec![w]),
                    Err(msg) => {
                        self.rep.error_at(line, t, msg);
                        Emit::Invalid
                    }
                }
            }
            TokenKind::Word(w) if mnemonics::register(w).is_some() => {
                if self.strict {
                    self.illegal_operands(st, ".FILL");
                } else {
                    let msg = format!(
                        "operand should be numeric or a string, found register {}",
                        t.describe()
                    );
                    self.rep.error_at(line, t, msg);
                }
                Emit::Invalid
            }
            TokenKind::Word(w) if self.strict && !is_lc3as_label(w) => {
                self.illegal_operands(st, ".FILL");
                Emit::Invalid
            }
            TokenKind::Str { .. } if self.strict => {
                self.illegal_operands(st, ".FILL");
                Emit::Invalid
            }
            _ => Emit::FillLabel(st.operands),
        }
    }

    fn blkw(&mut self, st: &Statement, tok: usize) -> Emit {
        if !self.check_count(st, tok, Directive::Blkw, 1) {
            return Emit::Invalid;
        }
        let Some((v, t)) = self.numeric_operand(st, Directive::Blkw) else {
            return Emit::Invalid;
        };
        let line = st.line;
        if self.strict {
            return match lc3as_value(v, 16) {
                Ok(n) => Emit::Zeros(u32::from(n)),
                Err(msg) => {
                    self.rep.error_at(line, t, msg);
                    Emit::Invalid
                }
            };
        }
        match lc3tools_unsigned(v, 16) {
            Ok(0) => {
                self.rep.error_at(line, t, "operand to .blkw must be > 0");
                Emit::Invalid
            }
            Ok(n) => Emit::Zeros(u32::from(n)),
            Err(msg) => {
                self.rep.error_at(line, t, msg);
                Emit::Invalid
            }
        }
    }

    fn stringz(&mut self, st: &Statement, tok: usize) -> Emit {
        let line = st.line;
        let ops = st.operand_tokens();
        if self.strict {
            return match ops {
                [Token {
                    kind:
                        TokenKind::Str {
                            raw,
                            terminated: true,
                        },
                    ..
                }] => {
                    let mut words = lexer::unescape_lc3as(raw);
                    words.push(0);
                    Emit::Words(words)
                }
                [first @ Token {
                    kind: TokenKind::Str { .. },
                    ..
                }, ..] => {
                    let end = st.end_col();
                    self.rep.error(
                        line,
                        first.col - 1,
                        end - first.col + 1,
                        "unterminated string",
                    );
                    Emit::Invalid
                }
                _ => {
                    self.illegal_operands(st, ".STRINGZ");
                    Emit::Invalid
                }
            };
        }
        if !self.check_count(st, tok, Directive::Stringz, 1) {
            return Emit::Invalid;
        }
        let t = &ops[0];
        let mut words = match &t.kind {
            TokenKind::Str { raw, terminated } => {
                if !terminated {
                    self.rep.warning(
                        line,
                        t.col.saturating_sub(1),
                        t.len + 1,
                        "unterminated string (taken up to the end of the line)",
                    );
                }
                lexer::unescape_lc3tools(raw)
            }
            // lc3tools takes a bare word as the string itself.
            TokenKind::Word(w) if mnemonics::register(w).is_none() => lexer::unescape_lc3tools(w),
            _ => {
                let msg = format!("operand should be a string, found {}", t.describe());
                self.rep.error_at(line, t, msg);
                return Emit::Invalid;
            }
        };
        words.push(0);
        Emit::Words(words)
    }

    // ---- encoding ------------------------------------------------------------------------

    fn encode(&mut self, statements: &[Statement]) {
        for st in statements {
            let (Some(addr), Some(seg)) = (st.addr, st.segment) else {
                continue;
            };
            let words: Vec<u16> = match &st.emit {
                Emit::Nothing => Vec::new(),
                Emit::Words(w) => w.clone(),
                Emit::Zeros(n) => vec![0; *n as usize],
                Emit::Invalid => vec![0],
                Emit::FillLabel(i) => vec![self.fill_label(st, *i)],
                Emit::Inst(m) => vec![self.instruction(st, *m, addr).unwrap_or(0)],
            };
            if let Some((_, Base::Directive(d))) = st.base {
                if let Some(directive) = d.data_directive() {
                    self.data.insert(DataItem {
                        addr: u64::from(addr),
                        end: u64::from(addr) + words.len() as u64,
                        directive,
                        elem_size: 2,
                        count: words.len() as u64,
                    });
                }
            }
            for (i, w) in words.into_iter().enumerate() {
                let at = u64::from(addr) + i as u64;
                self.lines.insert(
                    at,
                    SourceLoc {
                        file: self.rep.file,
                        line: st.line,
                    },
                );
                if let Some(segment) = self.segments.get_mut(seg) {
                    segment.words.push(w);
                }
            }
        }
    }

    fn label_missing(&mut self, line: u32, t: &Token, name: &str) {
        let msg = if self.strict {
            format!("unknown label \"{name}\"")
        } else {
            format!("could not find label '{name}'")
        };
        self.rep.error_at(line, t, msg);
    }

    /// A line whose first word is no instruction or directive but is followed by operands
    /// (lc3tools reads the word as a label and rejects each operand). An indented word or one
    /// a typo away from a mnemonic was meant as an instruction (`JRS R1`); a word in the first
    /// column was meant as a label, and the instruction after it is what is missing.
    fn operands_without_instruction(&mut self, st: &Statement) {
        let (Some(label), Some(first_operand)) = (st.label, st.operand_tokens().first()) else {
            return;
        };
        let token = &st.tokens[label];
        let Some(word) = token.word() else {
            return;
        };
        let suggestion = mnemonics::suggestion(word, self.strict);
        if token.col > 1 || suggestion.is_some() {
            let hint = suggestion
                .map(|name| format!(" (did you mean '{name}'?)"))
                .unwrap_or_default();
            self.rep.error_at(
                st.line,
                token,
                format!("unknown instruction '{word}'{hint}"),
            );
        } else {
            let found = first_operand.describe();
            self.rep.error_at(
                st.line,
                first_operand,
                format!(
                    "expected an instruction or directive after the label '{word}', found {found}"
                ),
            );
        }
    }

    fn fill_label(&mut self, st: &Statement, index: usize) -> u16 {
        let t = &st.tokens[index];
        let name = match &t.kind {
            TokenKind::Word(w) => w.as_str(),
            TokenKind::Str { raw, .. } => raw.as_str(),
            TokenKind::Num(_) => return 0,
        };
        match self.symbols.addr(name) {
            Some(a) => a as u16,
            None => {
                self.label_missing(st.line, t, name);
                0
            }
        }
    }

    fn arg<'t>(&self, t: &'t Token) -> Arg<'t> {
        match &t.kind {
            TokenKind::Num(v) => Arg::Num(*v),
            TokenKind::Word(w) => match mnemonics::register(w) {
                Some(r) => Arg::Reg(r),
                None if self.strict && !is_lc3as_label(w) => Arg::Bad,
                None => Arg::Label(w),
            },
            TokenKind::Str { .. } => Arg::Bad,
        }
    }

    fn instruction(&mut self, st: &Statement, m: Mnemonic, addr: u16) -> Option<u16> {
        let ops = st.operand_tokens();
        let args: Vec<Arg> = ops.iter().map(|t| self.arg(t)).collect();
        let commas_ok = !self.strict
            || ops
                .iter()
                .enumerate()
                .all(|(i, t)| t.commas_before == u8::from(i > 0));
        let fits = |f: &&Form| {
            f.fields.len() == args.len()
                && f.fields.iter().zip(&args).all(|(field, arg)| {
                    matches!(
                        (field, arg),
                        (Field::Reg(_), Arg::Reg(_))
                            | (Field::Imm(_) | Field::TrapVector, Arg::Num(_))
                            | (Field::PcOffset(_), Arg::Num(_) | Arg::Label(_))
                    )
                })
        };
        let form = m.forms.iter().find(fits).filter(|_| commas_ok);
        let Some(form) = form else {
            if self.strict {
                self.illegal_operands(st, m.name);
            } else if let Some((tok, _)) = st.base {
                let t = &st.tokens[tok];
                let written = self.file.line(st.line).chars().skip(t.col as usize - 1);
                let written: String = written.take(t.len as usize).collect();
                self.rep.error_at(
                    st.line,
                    t,
                    format!(
                        "invalid usage of '{written}' instruction (expected {}; {})",
                        describe_forms(m),
                        self.found_operands(st)
                    ),
                );
            }
            return None;
        };
        let mut word = form.base;
        let mut ok = true;
        for ((field, arg), t) in form.fields.iter().zip(&args).zip(ops) {
            match self.field_value(st.line, *field, *arg, t, addr) {
                Some(bits) => word |= bits,
                None => ok = false,
            }
        }
        ok.then_some(word)
    }

    fn field_value(
        &mut self,
        line: u32,
        field: Field,
        arg: Arg,
        t: &Token,
        addr: u16,
    ) -> Option<u16> {
        let number = |value: i64, bits: u32, signed: bool| {
            if self.strict {
                lc3as_value(value, bits)
            } else if signed {
                lc3tools_signed(value, bits)
            } else {
                lc3tools_unsigned(value, bits)
            }
        };
        let result = match (field, arg) {
            (Field::Reg(shift), Arg::Reg(r)) => Ok(r << shift),
            (Field::Imm(bits) | Field::PcOffset(bits), Arg::Num(v)) => {
                number(v, u32::from(bits), true)
            }
            (Field::TrapVector, Arg::Num(v)) => number(v, 8, false),
            (Field::PcOffset(bits), Arg::Label(name)) => {
                let Some(target) = self.symbols.addr(name) else {
                    self.label_missing(line, t, name);
                    return None;
                };
                let distance = target as i64 - (i64::from(addr) + 1);
                let bits = u32::from(bits);
                if self.strict {
                    let limit = 1i64 << (bits - 1);
                    if distance < -limit || distance >= limit {
                        Err(format!(
                            "label \"{name}\" at distance {distance} (allowed range is {} to {})",
                            -limit,
                            limit - 1
                        ))
                    } else {
                        Ok((distance & ((1 << bits) - 1)) as u16)
                    }
                } else {
                    lc3tools_signed(distance, bits).map_err(|_| {
                        format!(
                            "cannot encode as {bits}-bit 2's complement number \
                             (label '{name}' is {distance} words from the next instruction)"
                        )
                    })
                }
            }
            // Forms are matched before encoding, so no other pairs reach here.
            _ => Ok(0),
        };
        match result {
            Ok(bits) => Some(bits),
            Err(msg) => {
                self.rep.error_at(line, t, msg);
                None
            }
        }
    }
}

fn describe_forms(m: Mnemonic) -> String {
    let describe = |f: &Form| {
        let fields: Vec<String> = f
            .fields
            .iter()
            .map(|field| match field {
                Field::Reg(_) => "reg".to_string(),
                Field::Imm(bits) => format!("imm{bits}"),
                Field::PcOffset(_) => "label".to_string(),
                Field::TrapVector => "trapvect8".to_string(),
            })
            .collect();
        if fields.is_empty() {
            m.name.to_string()
        } else {
            format!("{} {}", m.name, fields.join(", "))
        }
    };
    m.forms
        .iter()
        .map(describe)
        .collect::<Vec<_>>()
        .join(" or ")
}

#[cfg(test)]
mod tests;
