//! The SimpleRISC assembler, accepting the dialects the course emulators accept (isa-specs.md
//! B.4 plus the list): `.main` optional, labels with or without a leading dot (alone on
//! a line or before an instruction), comments `@`, `//` and `/* ... */`, `ld r1, 4[r2]` and
//! `ld r0, [sp]`, decimal and hex immediates (spaces inside hex tolerated, as the ELL305
//! interpreter does), `.print`, `.encode`, and the `hlt`/`halt` of the dialect that has one.
//!
//! Every error is reported (not just the first), as `file:line:col` with a caret. Where the
//! course interpreter has a specific message (`The label does not exist`, `Unterminated
//! Comment`), ours starts with its wording; its catch-all `The instruction in line number N is
//! INVALID.` becomes `invalid instruction:` followed by what is wrong.

use std::collections::HashMap;

use asmdbg_core::{
    DebugInfo, Diagnostics, FileId, Severity, SourceFile, SourceLoc, SourceMap, Span, Symbol,
    SymbolKind, SymbolTable,
};

use crate::course_lines::{self, LineShape};
use crate::decode::{alu_ops, encode, Insn, Modifier, Op};
use crate::program::{BranchCondition, Program, Slot};

/// Assembler settings taken from the machine options.
#[derive(Debug, Clone, Copy, Default)]
pub struct AsmOptions {
    /// The course variant without hardware multiply/divide: mul, div and mod are errors.
    pub no_mul: bool,
    /// `--strict`: a line that does not assemble is an error, wherever it is. By default it
    /// is a warning and the line faults only if it runs, as in the course interpreter, which
    /// checks a line (and looks up a branch's label) only when it executes it.
    pub strict: bool,
}

/// The instructions' names besides the ALU's, for what a misspelt one looks like.
const OTHER_NAMES: [&str; 9] = ["nop", "ret", "hlt", "ld", "st", "beq", "bgt", "b", "call"];

/// What the warning for a line kept as [`Slot::Reject`] adds.
const REPORTED_IF_RUN: &str = "the course interpreter reports this only if the line runs";

/// Assembles `text` (named `path` in messages). On failure, every error found.
/// Whether a lower-case `word` is a SimpleRISC instruction (ALU names with their `u`/`h`
/// modifiers included) or directive: what ISA detection counts as a statement.
pub fn is_operation(word: &str) -> bool {
    let alu = |w: &str| ALU_NAMES.contains(&w);
    alu(word)
        || word.strip_suffix(['u', 'h']).is_some_and(alu)
        || matches!(
            word,
            "nop"
                | "ret"
                | "hlt"
                | "halt"
                | "ld"
                | "st"
                | "beq"
                | "bgt"
                | "b"
                | "call"
                | ".print"
                | ".encode"
        )
}

pub fn assemble(path: &str, text: &str, opts: AsmOptions) -> Result<Program, Diagnostics> {
    let mut sources = SourceMap::new();
    // A UTF-8 byte order mark is no part of the program (SourceFile drops it too).
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let file = sources.add(SourceFile::new(path, text));
    let mut asm = Assembler {
        file,
        sources,
        diags: Diagnostics::new(),
        opts,
        labels: HashMap::new(),
        label_order: Vec::new(),
    };
    asm.course_interpreter_rejects(text);
    let lines = asm.strip_comments(text);
    let stmts = asm.collect_statements(&lines, &course_lines::line_shapes(text));
    let mut slots = Vec::with_capacity(stmts.len());
    let mut warnings = Diagnostics::new();
    for (index, stmt) in stmts.iter().enumerate() {
        let before = asm.diags.items.len();
        let slot = asm.assemble_statement(index as u32, stmt);
        if slot.is_some() || opts.strict || asm.diags.items.len() == before {
            slots.push(slot);
            continue;
        }
        // The statement's errors become warnings; the line faults if it runs.
        let errors = asm.diags.items.split_off(before);
        let unknown_label = errors
            .iter()
            .any(|d| d.message.starts_with("The label does not exist"));
        // Only the label is wrong: the branch itself is sound.
        let only_label = unknown_label && errors.len() == 1;
        for mut d in errors {
            d.severity = Severity::Warning;
            d.message = format!("{} ({REPORTED_IF_RUN})", d.message);
            warnings.push(d);
        }
        let message = if unknown_label {
            "The label does not exist !!!".to_string()
        } else {
            format!("The instruction in line number {} is INVALID.", stmt.line)
        };
        let only_if = match stmt.mnemonic.text.to_ascii_lowercase().as_str() {
            "beq" if only_label => Some(BranchCondition::Equal),
            "bgt" if only_label => Some(BranchCondition::Greater),
            _ => None,
        };
        slots.push(Some(Slot::Reject { message, only_if }));
    }
    if asm.diags.has_errors() {
        asm.diags.sort();
        return Err(asm.diags);
    }
    asm.warn_reads_of_ra(&stmts, &slots);
    // What is left are warnings (course_interpreter_rejects).
    warnings.items.append(&mut asm.diags.items);
    warnings.sort();
    let entry = [".main", "main"]
        .iter()
        .find_map(|name| asm.labels.get(*name).map(|l| l.slot))
        .unwrap_or(0);
    let mut debug = DebugInfo {
        sources: std::mem::take(&mut asm.sources),
        symbols: SymbolTable::new(false),
        ..DebugInfo::default()
    };
    for name in &asm.label_order {
        if let Some(label) = asm.labels.get(name) {
            // Names are unique here: duplicates were reported above.
            let _ = debug.symbols.insert(Symbol {
                name: name.clone(),
                addr: u64::from(label.slot) * 4,
                kind: SymbolKind::Code,
                global: false,
            });
        }
    }
    for (index, stmt) in stmts.iter().enumerate() {
        debug.lines.insert(
            index as u64 * 4,
            SourceLoc {
                file,
                line: stmt.line,
            },
        );
    }
    Ok(Program {
        slots: slots.into_iter().flatten().collect(),
        entry,
        debug,
        warnings,
    })
}

pub(crate) struct Label {
    pub(crate) slot: u32,
    pub(crate) line: u32,
    /// Read from a colon in an `@` comment, as the course interpreter does (not a symbol).
    pub(crate) in_comment: bool,
}

/// A piece of a line: its characters and the 1-based column of the first one.
#[derive(Debug, Clone)]
pub(crate) struct Piece {
    pub(crate) text: String,
    pub(crate) col: u32,
}

impl Piece {
    pub(crate) fn len(&self) -> u32 {
        self.text.chars().count().max(1) as u32
    }
}

/// One statement: a mnemonic and the rest of its line. An empty mnemonic is a line the
/// course interpreter counts as an instruction that holds none ([`Slot::Empty`]).
pub(crate) struct Stmt {
    pub(crate) line: u32,
    pub(crate) mnemonic: Piece,
    /// Everything after the mnemonic, comments blanked out.
    pub(crate) rest: Piece,
}

impl Stmt {
    pub(crate) fn empty(line: u32) -> Stmt {
        let nothing = Piece {
            text: String::new(),
            col: 1,
        };
        Stmt {
            line,
            mnemonic: nothing.clone(),
            rest: nothing,
        }
    }
}

pub(crate) struct Assembler {
    pub(crate) file: FileId,
    pub(crate) sources: SourceMap,
    pub(crate) diags: Diagnostics,
    pub(crate) opts: AsmOptions,
    pub(crate) labels: HashMap<String, Label>,
    label_order: Vec<String>,
}

const ALU_NAMES: [&str; 13] = [
    "add", "sub", "mul", "div", "mod", "cmp", "and", "or", "not", "mov", "lsl", "lsr", "asr",
];

pub(crate) fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || c == '.' || c == '$'
}

pub(crate) fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$'
}

/// A register name as the course writes it: r0-r15, sp (r14), ra (r15). Case-insensitive.
pub fn parse_register(text: &str) -> Option<u8> {
    let lower = text.to_ascii_lowercase();
    match lower.as_str() {
        "sp" => return Some(14),
        "ra" => return Some(15),
        _ => {}
    }
    let digits = lower.strip_prefix('r')?;
    if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u8 = digits.parse().ok()?;
    (n < 16).then_some(n)
}

/// Why a number did not parse.
enum NumError {
    NotANumber,
    TooLarge,
}

/// Decimal or `0x` hex, optionally signed; whitespace inside a hex number is ignored (the
/// ELL305 interpreter accepts `0x a25`).
fn parse_number(text: &str) -> Result<i64, NumError> {
    let t = text.trim();
    let (negative, body) = match t.strip_prefix('-') {
        Some(b) => (true, b.trim_start()),
        None => (false, t.strip_prefix('+').unwrap_or(t).trim_start()),
    };
    let value = if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        let digits: String = hex.chars().filter(|c| !c.is_whitespace()).collect();
        if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_hexdigit()) {
            return Err(NumError::NotANumber);
        }
        let digits = digits.trim_start_matches('0');
        if digits.len() > 12 {
            return Err(NumError::TooLarge);
        }
        if digits.is_empty() {
            0
        } else {
            i64::from_str_radix(digits, 16).map_err(|_| NumError::NotANumber)?
        }
    } else {
        if body.is_empty() || !body.bytes().all(|b| b.is_ascii_digit()) {
            return Err(NumError::NotANumber);
        }
        let digits = body.trim_start_matches('0');
        if digits.len() > 12 {
            return Err(NumError::TooLarge);
        }
        if digits.is_empty() {
            0
        } else {
            digits.parse::<i64>().map_err(|_| NumError::NotANumber)?
        }
    };
    Ok(if negative { -value } else { value })
}

/// The operand of an ALU instruction that may be a register or an immediate.
enum Operand2 {
    Reg(u8),
    Imm(u16),
}

impl Assembler {
    fn error(&mut self, line: u32, col: u32, len: u32, message: impl Into<String>) {
        let d = self
            .sources
            .error(Span::new(self.file, line, col, len), message);
        self.diags.push(d);
    }

    fn error_at(&mut self, line: u32, piece: &Piece, message: impl Into<String>) {
        self.error(line, piece.col, piece.len(), message);
    }

    /// The lines of `text` with every comment replaced by spaces, character for character, so
    /// columns stay those of the source.
    fn strip_comments(&mut self, text: &str) -> Vec<Vec<char>> {
        let mut lines: Vec<Vec<char>> = text
            .split('\n')
            .map(|l| l.trim_end_matches('\r').chars().collect())
            .collect();
        let mut in_block: Option<(u32, u32)> = None;
        for (li, line) in lines.iter_mut().enumerate() {
            let mut i = 0;
            while i < line.len() {
                if in_block.is_some() {
                    if line[i] == '*' && line.get(i + 1) == Some(&'/') {
                        line[i] = ' ';
                        line[i + 1] = ' ';
                        i += 2;
                        in_block = None;
                    } else {
                        line[i] = ' ';
                        i += 1;
                    }
                    continue;
                }
                let next = line.get(i + 1).copied();
                if line[i] == '@' || (line[i] == '/' && next == Some('/')) {
                    line[i..].iter_mut().for_each(|c| *c = ' ');
                    break;
                }
                if line[i] == '/' && next == Some('*') {
                    in_block = Some((li as u32 + 1, i as u32 + 1));
                    line[i] = ' ';
                    line[i + 1] = ' ';
                    i += 2;
                    continue;
                }
                i += 1;
            }
        }
        if let Some((line, col)) = in_block {
            self.error(
                line,
                col,
                2,
                "Unterminated Comment: this `/*` has no closing `*/`",
            );
        }
        lines
    }

    /// Pass 1: labels and statements (one slot each), and the lines the course interpreter
    /// counts as instructions without one (`course_lines.rs`).
    fn collect_statements(&mut self, lines: &[Vec<char>], shapes: &[LineShape]) -> Vec<Stmt> {
        let mut stmts = Vec::new();
        for (li, chars) in lines.iter().enumerate() {
            let line = li as u32 + 1;
            let shape = shapes.get(li).cloned().unwrap_or_default();
            let mut labelled = false;
            let mut pos = skip_ws(chars, 0);
            // Labels: `name:` (possibly several) before an optional statement.
            loop {
                if pos >= chars.len() || !is_ident_start(chars[pos]) {
                    break;
                }
                let mut end = pos;
                while end < chars.len() && is_ident_char(chars[end]) {
                    end += 1;
                }
                let after = skip_ws(chars, end);
                if chars.get(after) != Some(&':') {
                    break;
                }
                let name: String = chars[pos..end].iter().collect();
                self.define_label(name, stmts.len() as u32, line, pos as u32 + 1);
                labelled = true;
                pos = skip_ws(chars, after + 1);
            }
            if let Some(comment_label) = &shape.comment_label {
                let slot = stmts.len() as u32;
                if let Some(stmt) = self.comment_label(line, comment_label, slot) {
                    stmts.push(stmt);
                    continue;
                }
            }
            if pos >= chars.len() {
                let empty_slot = if labelled {
                    shape.after_first_colon
                } else {
                    !shape.empty
                };
                if empty_slot {
                    stmts.push(Stmt::empty(line));
                }
                continue;
            }
            let mut end = pos;
            while end < chars.len() && !chars[end].is_whitespace() {
                end += 1;
            }
            let mnemonic = Piece {
                text: chars[pos..end].iter().collect(),
                col: pos as u32 + 1,
            };
            let rest = Piece {
                text: chars[end..].iter().collect(),
                col: end as u32 + 1,
            };
            stmts.push(Stmt {
                line,
                mnemonic,
                rest,
            });
        }
        stmts
    }

    fn define_label(&mut self, name: String, slot: u32, line: u32, col: u32) {
        let len = name.chars().count() as u32;
        if let Some(previous) = self.labels.get(&name) {
            let first = previous.line;
            if previous.in_comment {
                self.label_in_comment_first(&name, first, line, col);
                return;
            }
            self.error(
                line,
                col,
                len,
                format!("label `{name}` is already defined on line {first}"),
            );
            return;
        }
        let in_comment = false;
        self.labels.insert(
            name.clone(),
            Label {
                slot,
                line,
                in_comment,
            },
        );
        self.label_order.push(name);
    }

    /// Pass 2: one slot. `None` only after an error was reported.
    fn assemble_statement(&mut self, index: u32, stmt: &Stmt) -> Option<Slot> {
        let line = stmt.line;
        let name = stmt.mnemonic.text.to_ascii_lowercase();
        match name.as_str() {
            "" => Some(Slot::Empty),
            ".print" => {
                let operands = Self::split_operands(&stmt.rest);
                if operands.is_empty() {
                    self.error_at(
                        line,
                        &stmt.mnemonic,
                        "`.print` needs at least one register, e.g. `.print r1, sp`",
                    );
                    return None;
                }
                let mut regs = Vec::with_capacity(operands.len());
                for op in &operands {
                    regs.push(self.register(line, op)?);
                }
                Some(Slot::Print(regs))
            }
            ".encode" => {
                let text = stmt.rest.text.trim().to_string();
                let inner = self.split_statement(line, &stmt.rest);
                let Some(inner) = inner else {
                    self.error_at(
                        line,
                        &stmt.mnemonic,
                        "`.encode` needs an instruction, e.g. `.encode add r1, r2, r3`",
                    );
                    return None;
                };
                if inner.mnemonic.text.starts_with('.') {
                    self.error_at(
                        line,
                        &inner.mnemonic,
                        "`.encode` takes a machine instruction, not a directive",
                    );
                    return None;
                }
                let insn = self.instruction(index, &inner)?;
                Some(Slot::Encode {
                    text,
                    word: encode(&insn),
                })
            }
            _ => self
                .instruction(index, stmt)
                .map(|insn| Slot::Word(encode(&insn))),
        }
    }

    /// The statement inside `.encode`'s operand text.
    fn split_statement(&self, line: u32, rest: &Piece) -> Option<Stmt> {
        let chars: Vec<char> = rest.text.chars().collect();
        let pos = skip_ws(&chars, 0);
        if pos >= chars.len() {
            return None;
        }
        let mut end = pos;
        while end < chars.len() && !chars[end].is_whitespace() {
            end += 1;
        }
        Some(Stmt {
            line,
            mnemonic: Piece {
                text: chars[pos..end].iter().collect(),
                col: rest.col + pos as u32,
            },
            rest: Piece {
                text: chars[end..].iter().collect(),
                col: rest.col + end as u32,
            },
        })
    }

    /// Splits operand text at commas; each piece trimmed, with its column. No text: no operands.
    fn split_operands(rest: &Piece) -> Vec<Piece> {
        let chars: Vec<char> = rest.text.chars().collect();
        if chars.iter().all(|c| c.is_whitespace()) {
            return Vec::new();
        }
        let mut pieces = Vec::new();
        let mut start = 0;
        for i in 0..=chars.len() {
            if i == chars.len() || chars[i] == ',' {
                let mut a = start;
                let mut b = i;
                while a < b && chars[a].is_whitespace() {
                    a += 1;
                }
                while b > a && chars[b - 1].is_whitespace() {
                    b -= 1;
                }
                // An empty operand is shown at the comma that delimits it.
                let at = if a < b {
                    a
                } else if start > 0 {
                    start - 1
                } else {
                    i
                };
                pieces.push(Piece {
                    text: chars[a..b].iter().collect(),
                    col: rest.col + at as u32,
                });
                start = i + 1;
            }
        }
        pieces
    }

    /// A machine instruction at slot `index`.
    fn instruction(&mut self, index: u32, stmt: &Stmt) -> Option<Insn> {
        let line = stmt.line;
        let lower = stmt.mnemonic.text.to_ascii_lowercase();
        let operands = Self::split_operands(&stmt.rest);
        for op in &operands {
            if op.text.is_empty() {
                self.error(line, op.col, 1, "invalid instruction: missing operand");
                return None;
            }
        }
        let (alu, modifier) = match ALU_NAMES.iter().position(|n| *n == lower) {
            Some(i) => (Some(i as u32), Modifier::Default),
            None => {
                let with_modifier = [('u', Modifier::Unsigned), ('h', Modifier::High)]
                    .iter()
                    .find_map(|&(suffix, m)| Some((lower.strip_suffix(suffix)?, m)));
                match with_modifier
                    .and_then(|(base, m)| Some((ALU_NAMES.iter().position(|n| *n == base)?, m)))
                {
                    Some((i, m)) => (Some(i as u32), m),
                    None => (None, Modifier::Default),
                }
            }
        };
        if let Some(code) = alu {
            if self.opts.no_mul && (2..=4).contains(&code) {
                self.error_at(
                    line,
                    &stmt.mnemonic,
                    format!(
                        "`{}` does not exist in this course variant: --no-mul selects the \
                         SimpleRISC without hardware multiply/divide (no mul, div or mod); \
                         compute it with a loop or a subroutine",
                        stmt.mnemonic.text
                    ),
                );
                return None;
            }
            let (reg_op, imm_op) = alu_ops(code)?;
            return self.alu(line, stmt, &operands, reg_op, imm_op, modifier);
        }
        match lower.as_str() {
            "nop" | "ret" | "hlt" | "halt" => {
                self.expect_count(line, stmt, &operands, 0, "no operands")?;
                let op = match lower.as_str() {
                    "nop" => Op::Nop,
                    "ret" => Op::Ret,
                    _ => Op::Hlt,
                };
                Some(Insn::bare(op))
            }
            "ld" | "st" => {
                self.expect_count(
                    line,
                    stmt,
                    &operands,
                    2,
                    "a register and `offset[register]`",
                )?;
                let rd = self.register(line, &operands[0]);
                let mem = self.memory(line, &operands[1]);
                let op = if lower == "ld" { Op::Ld } else { Op::St };
                let (rd, (imm16, base)) = (rd?, mem?);
                Some(Insn::imm(op, rd, base, Modifier::Default, imm16))
            }
            "beq" | "bgt" | "b" | "call" => {
                self.expect_count(line, stmt, &operands, 1, "a label")?;
                let op = match lower.as_str() {
                    "beq" => Op::Beq,
                    "bgt" => Op::Bgt,
                    "b" => Op::B,
                    _ => Op::Call,
                };
                let target = self.label_target(line, &operands[0])?;
                Some(Insn::branch(op, target.wrapping_sub(index) as i32))
            }
            _ => {
                let text = &stmt.mnemonic.text;
                let message = if lower.starts_with('.') {
                    format!(
                        "invalid instruction: unknown directive `{text}` (SimpleRISC has only \
                         `.print` and `.encode`)"
                    )
                } else {
                    match asmdbg_core::slips::one_edit_from(
                        text,
                        ALU_NAMES.into_iter().chain(OTHER_NAMES),
                    ) {
                        Some(name) => format!(
                            "invalid instruction: unknown instruction `{text}`, which looks like \
                             the instruction {name}"
                        ),
                        None => format!("invalid instruction: unknown instruction `{text}`"),
                    }
                };
                self.error_at(line, &stmt.mnemonic, message);
                None
            }
        }
    }

    fn expect_count(
        &mut self,
        line: u32,
        stmt: &Stmt,
        operands: &[Piece],
        count: usize,
        what: &str,
    ) -> Option<()> {
        if operands.len() == count {
            return Some(());
        }
        let name = &stmt.mnemonic.text;
        let found = operands.len();
        let piece = operands.get(count).unwrap_or(&stmt.mnemonic).clone();
        self.error_at(
            line,
            &piece,
            format!(
                "invalid instruction: `{name}` takes {what} ({count} operand{}), found {found}",
                if count == 1 { "" } else { "s" }
            ),
        );
        None
    }

    fn alu(
        &mut self,
        line: u32,
        stmt: &Stmt,
        operands: &[Piece],
        reg_op: Op,
        imm_op: Op,
        modifier: Modifier,
    ) -> Option<Insn> {
        let (count, what) = match reg_op {
            Op::Cmp => (2, "a register and a register or immediate"),
            Op::Mov | Op::Not => (2, "a destination and a register or immediate"),
            _ => (3, "a destination, a register, and a register or immediate"),
        };
        self.expect_count(line, stmt, operands, count, what)?;
        let (rd, rs1) = match reg_op {
            Op::Cmp => (Some(0), self.register(line, &operands[0])),
            Op::Mov | Op::Not => (self.register(line, &operands[0]), Some(0)),
            _ => (
                self.register(line, &operands[0]),
                self.register(line, &operands[1]),
            ),
        };
        let second = self.operand2(line, &operands[count - 1]);
        let (rd, rs1, second) = (rd?, rs1?, second?);
        Some(match second {
            Operand2::Reg(rs2) => Insn::reg(reg_op, rd, rs1, rs2),
            Operand2::Imm(imm16) => Insn::imm(imm_op, rd, rs1, modifier, imm16),
        })
    }

    fn register(&mut self, line: u32, piece: &Piece) -> Option<u8> {
        let r = parse_register(&piece.text);
        if r.is_none() {
            self.error_at(
                line,
                piece,
                format!(
                    "invalid instruction: `{}` is not a register (r0-r15, sp, ra)",
                    piece.text
                ),
            );
        }
        r
    }

    fn operand2(&mut self, line: u32, piece: &Piece) -> Option<Operand2> {
        if let Some(r) = parse_register(&piece.text) {
            return Some(Operand2::Reg(r));
        }
        self.immediate(line, piece).map(Operand2::Imm)
    }

    /// A 16-bit immediate field: -32768..=65535, decimal or hex.
    fn immediate(&mut self, line: u32, piece: &Piece) -> Option<u16> {
        match parse_number(&piece.text) {
            Ok(v) if (-32768..=65535).contains(&v) => Some(v as u16),
            Ok(_) | Err(NumError::TooLarge) => {
                self.error_at(
                    line,
                    piece,
                    format!(
                        "invalid instruction: immediate `{}` does not fit in 16 bits \
                         (-32768..65535, or 0x0..0xFFFF); build larger constants with \
                         `movh` and `addu`",
                        piece.text
                    ),
                );
                None
            }
            Err(NumError::NotANumber) => {
                self.error_at(
                    line,
                    piece,
                    format!(
                        "invalid instruction: `{}` is neither a register nor a number",
                        piece.text
                    ),
                );
                None
            }
        }
    }

    /// `offset[reg]`, `[reg]`: the offset field and the base register.
    fn memory(&mut self, line: u32, piece: &Piece) -> Option<(u16, u8)> {
        let text = &piece.text;
        let (Some(open), true) = (text.find('['), text.ends_with(']')) else {
            self.error_at(
                line,
                piece,
                format!(
                    "invalid instruction: `{text}` is not a memory operand; write \
                     `offset[register]`, e.g. `4[r2]` or `[sp]`"
                ),
            );
            return None;
        };
        let offset_text = &text[..open];
        let reg_text = &text[open + 1..text.len() - 1];
        let chars_before = text[..open + 1].chars().count() as u32;
        let reg_piece = Piece {
            text: reg_text.trim().to_string(),
            col: piece.col + chars_before + leading_ws(reg_text),
        };
        let base = self.register(line, &reg_piece);
        let offset = if offset_text.trim().is_empty() {
            Some(0)
        } else {
            let offset_piece = Piece {
                text: offset_text.trim().to_string(),
                col: piece.col,
            };
            self.immediate(line, &offset_piece)
        };
        Some((offset?, base?))
    }

    fn label_target(&mut self, line: u32, piece: &Piece) -> Option<u32> {
        if let Some(label) = self.labels.get(&piece.text) {
            return Some(label.slot);
        }
        let name = &piece.text;
        if parse_number(name).is_ok() {
            self.error_at(
                line,
                piece,
                format!(
                    "The label does not exist: `{name}` is a number; branch and call targets \
                     are labels"
                ),
            );
            return None;
        }
        let other = match name.strip_prefix('.') {
            Some(bare) => bare.to_string(),
            None => format!(".{name}"),
        };
        let hint = if self.labels.contains_key(&other) {
            format!(" (did you mean `{other}`? the dot is part of the name)")
        } else {
            String::new()
        };
        self.error_at(
            line,
            piece,
            format!("The label does not exist: no label `{name}` is defined{hint}"),
        );
        None
    }
}

pub(crate) fn skip_ws(chars: &[char], mut pos: usize) -> usize {
    while pos < chars.len() && chars[pos].is_whitespace() {
        pos += 1;
    }
    pos
}

fn leading_ws(text: &str) -> u32 {
    text.chars().take_while(|c| c.is_whitespace()).count() as u32
}
