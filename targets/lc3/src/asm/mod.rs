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
//!
//! One file per concern:
//! - `mod.rs`: the public API ([`AsmOptions`], [`is_operation`], [`assemble`],
//!   [`assemble_str`]) and the `Assembler`, whose `run` makes the passes in order: the lines
//!   read into statements, addresses and labels laid out, then the words encoded.
//! - `lexer.rs`: one line's tokens; `mnemonics.rs`: the instruction forms, registers and the
//!   nearest mnemonic to a typo.
//! - `statement.rs`: the statement model: the directives, what a statement is built around
//!   and what it emits.
//! - `dialect.rs`: where lc3tools and lc3as differ in reading a line (which word is the label,
//!   which the mnemonic), the lc3as label rule, and the value checks of both.
//! - `layout.rs`: pass one's addresses: `.ORIG`/`.END` blocks, labels defined, the end of the
//!   memory each dialect fills.
//! - `directives.rs`: the directives' operands and what each statement emits.
//! - `encode.rs`: pass two: instructions encoded, `.FILL` labels resolved, the words, their
//!   lines and the data directives' facts recorded.
//! - `report.rs`: `Reporter`, which collects the diagnostics, and the complaints several
//!   passes make.
//! - `slips.rs`: a lone label one edit from an instruction (`PUST`) is warned about.

mod dialect;
mod directives;
mod encode;
mod layout;
mod lexer;
mod mnemonics;
mod report;
mod slips;
mod statement;

use asmdbg_core::{
    DataTable, DebugInfo, Diagnostics, LineTable, SourceFile, SourceMap, SymbolTable,
};

use crate::program::{Program, Segment};
use report::Reporter;
use statement::Directive;

/// Assembler dialect options.
#[derive(Debug, Clone, Copy, Default)]
pub struct AsmOptions {
    /// lc3as's rules instead of the lenient lc3tools dialect.
    pub strict: bool,
    /// PennSim's instructions too (`--profile pennsim`): SUB, MUL, JMPT and RTT. Off, they
    /// are not mnemonics, so programs for the other simulators may use the names as labels.
    pub pennsim: bool,
}

/// Whether `word` is an LC-3 instruction (trap aliases and lc3tools' extras included) or one of
/// the five directives, in any case: what ISA detection counts as a statement.
pub fn is_operation(word: &str) -> bool {
    mnemonics::lookup(word, false).is_some() || Directive::parse(word).is_some()
}

/// Assembles one source file, reporting every error.
pub fn assemble(file: &SourceFile, opts: &AsmOptions) -> Result<Program, Diagnostics> {
    let mut assembler = Assembler::new(file, opts.strict);
    assembler.pennsim = opts.pennsim;
    assembler.run()
}

/// Assembles source text held in memory (the OS images, tests).
pub fn assemble_str(name: &str, text: &str, opts: &AsmOptions) -> Result<Program, Diagnostics> {
    assemble(&SourceFile::new(name, text), opts)
}

struct Assembler<'a> {
    file: &'a SourceFile,
    strict: bool,
    pennsim: bool,
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
            pennsim: false,
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
        self.warn_slips(&statements);
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
}

#[cfg(test)]
mod tests;
