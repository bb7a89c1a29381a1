//! The MARS 4.5 dialect assembler.
//!
//! Stages, in MARS's order: `.include` files are spliced in, every line is tokenized with
//! `.eqv` substitution, then one pass walks the statements (expanding macros as they are
//! called), lays out segments, defines labels and picks each instruction's form; instruction
//! words and `.word label` values are filled in once every label is known. A form is chosen
//! from operand *types* only, so sizes never depend on label values and one pass suffices.
//!
//! A program of several files ([`assemble_files`]) follows MARS 4.5's rules (read in its
//! `mars/assembler/Assembler.java`, `SymbolTable.java`, `MacroPool.java`, `Tokenizer.java`,
//! `mars/MIPSprogram.java`, `mars/ProgramStatement.java` and `mars/MarsLaunch.java`):
//!
//! - Files are assembled in the order given, each with its own `.include`s. Text and data
//!   addresses run on from the previous file: MARS keeps one text and one data address counter
//!   for the whole assembly.
//! - Each file starts in the text segment with automatic alignment on, whatever the previous
//!   file ended in. MARS resets only "in the data segment" per file, not the text counter's
//!   user/kernel choice, so a file after one whose last `.text`/`.ktext` was `.ktext` starts in
//!   `.ktext`.
//! - `.eqv` symbols and macros are per file (MARS makes a tokenizer and a macro pool per file),
//!   and so is the counter that renames labels inside macro expansions (`done_M0` again in the
//!   second file).
//! - Labels are local to their file. At the end of each file the labels it declared `.globl`
//!   join the global table; a `.globl` label the file does not define is an error
//!   (`"x" declared global label but not defined.`), and so is one another file already made
//!   global (`"x" already defined as global in a different file.`, reported at the later
//!   file's `.globl`). `.extern` labels go straight into the global table, so a file may
//!   have its own label of an `.extern`'s name (its references mean its label), and `.globl`
//!   of a name that is only an `.extern` is the "not defined" error.
//! - A reference means the file's own label if it has one, else the global one; neither is
//!   `Symbol "x" not found in symbol table.` (MARS's `getAddressLocalOrGlobal`). One quirk is
//!   kept: a label used in a data directive (`.word x`) before the file defines its own `x`
//!   takes the global `x` if one exists at that point, because MARS resolves data operands
//!   as it reads them.
//! - `main` for `--start-at-main` is the global `main` of any file, if it is in a text
//!   segment (MARS's `RegisterFile.initializeProgramCounter`).
//!
//! Not copied: MARS reports a second `.globl x` in the file that defines `x` as
//! `declared global label but not defined` (its first moved `x` out of the file's table);
//! here it is accepted, as it always was for one file.

pub mod basic;
mod directives;
mod forms;
pub mod lexer;
pub mod pseudo_table;
mod source;

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use asmdbg_core::{
    DataTable, DebugInfo, Diagnostic, Diagnostics, FileId, LineTable, SourceFile, SourceLoc,
    SourceMap, Span, Symbol, SymbolKind, SymbolTable,
};

use crate::memory::{in_ktext, in_text};
use crate::program::{Chunk, ChunkKind, Program};
use directives::DataKind;
use forms::{ExpandError, Form, Labels, Mismatch};
use lexer::{Tok, Token};
use source::{Line, Origin};

pub use basic::{BasicInstruction, EncodeError, Field, Operand, BASIC_INSTRUCTIONS};
pub use pseudo_table::PSEUDO_OPS;

#[derive(Debug, Clone, Default)]
pub struct AsmOptions {
    /// Directory `.include` paths are resolved against (MARS: the working directory); the
    /// including file's directory is tried next.
    pub work_dir: Option<PathBuf>,
    /// MARS's `db` setting: pseudo-instructions get their delay-slot `nop`s and branch offsets.
    pub delay_slots: bool,
}

/// MARS's default memory map.
pub mod layout {
    pub const TEXT: u32 = 0x0040_0000;
    pub const DATA: u32 = 0x1001_0000;
    pub const EXTERN: u32 = 0x1000_0000;
    pub const KTEXT: u32 = 0x8000_0000;
    pub const KDATA: u32 = 0x9000_0000;
}

/// Whether a lower-case `word` is a MARS basic instruction, pseudo-instruction or directive:
/// what ISA detection counts as a statement.
pub fn is_operation(word: &str) -> bool {
    const DIRECTIVES: &[&str] = &[
        ".text",
        ".ktext",
        ".data",
        ".kdata",
        ".byte",
        ".half",
        ".word",
        ".float",
        ".double",
        ".ascii",
        ".asciiz",
        ".space",
        ".align",
        ".globl",
        ".extern",
        ".set",
        ".eqv",
        ".macro",
        ".end_macro",
        ".include",
    ];
    DIRECTIVES.contains(&word)
        || basic::forms(word).next().is_some()
        || PSEUDO_OPS
            .iter()
            .any(|(example, _)| example.split_whitespace().next() == Some(word))
}

/// Assembles one source file (and its `.include`s), reporting every error.
pub fn assemble(file: &SourceFile, opts: &AsmOptions) -> Result<Program, Diagnostics> {
    assemble_files(std::slice::from_ref(file), opts)
}

/// Assembles a program of several source files (each with its `.include`s) with MARS's rules
/// for them (see the module header), reporting every error. The first file is the main one:
/// its code starts the text segment.
pub fn assemble_files(files: &[SourceFile], opts: &AsmOptions) -> Result<Program, Diagnostics> {
    if files.is_empty() {
        let mut diags = Diagnostics::new();
        diags.push(Diagnostic::file_error(
            "<none>",
            "no source file to assemble",
        ));
        return Err(diags);
    }
    let mut asm = Assembler::new(opts);
    for file in files {
        let id = asm.sources.add(file.clone());
        asm.begin_file(id);
        let lines = source::load(id, file, opts, &mut asm.sources, &mut asm.diags);
        let lines = asm.substitute_eqv(lines);
        asm.run(&lines, 0);
        asm.end_file();
    }
    asm.finish()
}

/// The size of each MARS memory segment.
const SEGMENT_BYTES: u32 = 4 << 20;

/// Lines macro expansion may produce in one assembly, so nested calls cannot explode.
const EXPANSION_BUDGET: usize = 1_000_000;

const SEGMENTS: [ChunkKind; 5] = [
    ChunkKind::Text,
    ChunkKind::Data,
    ChunkKind::KText,
    ChunkKind::KData,
    ChunkKind::Extern,
];

fn segment_index(kind: ChunkKind) -> usize {
    SEGMENTS.iter().position(|&k| k == kind).unwrap_or(0)
}

struct Macro {
    name: String,
    params: Vec<String>,
    body: Vec<Line>,
    labels: HashSet<String>,
}

/// An instruction whose words are written once labels are known.
struct Pending {
    /// The file (index in the order given) whose labels come first.
    unit: usize,
    chunk: usize,
    offset: usize,
    addr: u32,
    form: &'static Form,
    operands: Vec<Token>,
    line: Line,
    operator: Token,
}

/// A `.word label` waiting for the label.
struct DataFixup {
    /// The file (index in the order given) whose labels come first.
    unit: usize,
    /// MARS resolved the label when it read it, to a global label of an earlier file (or an
    /// `.extern`), because the file had not defined its own yet.
    global_only: bool,
    chunk: usize,
    offset: usize,
    /// Bytes of the item (`.byte label` keeps the low byte of the address).
    len: usize,
    token: Token,
    line: Line,
}

struct Assembler<'o> {
    opts: &'o AsmOptions,
    sources: SourceMap,
    diags: Diagnostics,
    eqv: HashMap<String, String>,
    chunks: Vec<Chunk>,
    segment: ChunkKind,
    /// `.text` or `.ktext`, whichever was chosen last: where the next file starts.
    code_space: ChunkKind,
    next: [u32; 5],
    auto_align: bool,
    /// The data directive a continuation line extends.
    last_data: Option<DataKind>,
    /// Which line owns each code word, to catch `.text ADDR` overlaps as MARS does.
    code_owner: HashMap<u32, (FileId, u32)>,
    /// Data labels defined at the current address since the last byte was laid down; MARS
    /// moves them when the next directive aligns itself.
    unplaced_labels: Vec<String>,
    /// Which file of the program is being assembled (index in the order given).
    unit: usize,
    /// Where each file is in `sources`.
    files: Vec<FileId>,
    /// Each file's labels (its globals too), in definition order.
    labels: Vec<SymbolTable>,
    /// The labels `.globl` moved out of their files' scope, and `.extern`s.
    globals: SymbolTable,
    /// The file that made each global label global.
    global_unit: HashMap<String, usize>,
    /// Every label in definition order: its file, or `None` for an `.extern`.
    defined: Vec<(Option<usize>, String)>,
    /// The current file's `.globl` declarations.
    globl: Vec<(String, Line, Token)>,
    lines: LineTable,
    /// What each data statement emitted.
    data: DataTable,
    macros: Vec<Macro>,
    macro_counter: u32,
    expanded_lines: usize,
    pending: Vec<Pending>,
    fixups: Vec<DataFixup>,
}

/// The labels a file's references see: its own first, then the global ones.
struct Scope<'a> {
    local: &'a SymbolTable,
    global: &'a SymbolTable,
}

impl Labels for Scope<'_> {
    fn address(&self, name: &str) -> Option<u32> {
        self.local
            .addr(name)
            .or_else(|| self.global.addr(name))
            .map(|a| a as u32)
    }
}

impl<'o> Assembler<'o> {
    fn new(opts: &'o AsmOptions) -> Self {
        Assembler {
            opts,
            sources: SourceMap::new(),
            diags: Diagnostics::new(),
            eqv: HashMap::new(),
            chunks: Vec::new(),
            segment: ChunkKind::Text,
            code_space: ChunkKind::Text,
            next: [
                layout::TEXT,
                layout::DATA,
                layout::KTEXT,
                layout::KDATA,
                layout::EXTERN,
            ],
            auto_align: true,
            last_data: None,
            code_owner: HashMap::new(),
            unplaced_labels: Vec::new(),
            unit: 0,
            files: Vec::new(),
            labels: Vec::new(),
            globals: SymbolTable::new(false),
            global_unit: HashMap::new(),
            defined: Vec::new(),
            globl: Vec::new(),
            lines: LineTable::new(),
            data: DataTable::default(),
            macros: Vec::new(),
            macro_counter: 0,
            expanded_lines: 0,
            pending: Vec::new(),
            fixups: Vec::new(),
        }
    }

    // ----- files -------------------------------------------------------------------------

    /// What MARS resets at the start of each file: the segment (text, in the address space
    /// last chosen), automatic alignment, `.eqv`s, macros and the macro label counter.
    fn begin_file(&mut self, id: FileId) {
        self.unit = self.labels.len();
        self.files.push(id);
        self.labels.push(SymbolTable::new(false));
        self.segment = self.code_space;
        self.auto_align = true;
        self.last_data = None;
        self.unplaced_labels.clear();
        self.eqv.clear();
        self.macros.clear();
        self.macro_counter = 0;
    }

    /// The current file's labels.
    fn local(&self) -> &SymbolTable {
        &self.labels[self.unit]
    }

    /// Makes the file's `.globl` labels global, as MARS does at the end of each file.
    fn end_file(&mut self) {
        let declared = std::mem::take(&mut self.globl);
        for (name, line, tok) in &declared {
            let Some(sym) = self.labels[self.unit].get_mut(name) else {
                let msg = format!("\"{name}\" declared global label but not defined.");
                self.error_at(line, tok, msg);
                continue;
            };
            if self.globals.get(name).is_some() {
                // Declared twice in this file: accepted (see the module header).
                if self.global_unit.get(name) != Some(&self.unit) {
                    let msg = format!("\"{name}\" already defined as global in a different file.");
                    self.error_at(line, tok, msg);
                }
                continue;
            }
            sym.global = true;
            let sym = sym.clone();
            self.global_unit.insert(name.clone(), self.unit);
            let _ = self.globals.insert(sym);
        }
    }

    // ----- diagnostics -------------------------------------------------------------------

    fn diagnostic(
        &self,
        line: &Line,
        col: u32,
        len: u32,
        message: String,
        error: bool,
    ) -> Diagnostic {
        let span = Span::new(line.file, line.line, col.max(1), len.max(1));
        let mut d = if error {
            self.sources.error(span, message)
        } else {
            self.sources.warning(span, message)
        };
        for call in line.calls.iter().rev() {
            let at = Span::new(call.file, call.line, call.col.max(1), call.len.max(1));
            d = d.with_note(
                self.sources.locate(at),
                format!("in the expansion of macro \"{}\" called here", call.name),
            );
        }
        d
    }

    fn error_at(&mut self, line: &Line, tok: &Token, message: impl Into<String>) {
        let d = self.diagnostic(line, tok.col, tok.width(), message.into(), true);
        self.diags.push(d);
    }

    fn error_line(&mut self, line: &Line, message: impl Into<String>) {
        let col = line
            .text
            .chars()
            .position(|c| !c.is_whitespace())
            .unwrap_or(0) as u32
            + 1;
        let d = self.diagnostic(line, col, 1, message.into(), true);
        self.diags.push(d);
    }

    fn warn_at(&mut self, line: &Line, tok: &Token, message: impl Into<String>) {
        let d = self.diagnostic(line, tok.col, tok.width(), message.into(), false);
        self.diags.push(d);
    }

    // ----- .eqv --------------------------------------------------------------------------

    /// Records `.eqv` definitions and substitutes earlier ones into later lines, one
    /// identifier at a time, re-tokenizing after each substitution as MARS does.
    fn substitute_eqv(&mut self, lines: Vec<Line>) -> Vec<Line> {
        let mut out = Vec::with_capacity(lines.len());
        for mut line in lines {
            let mut tokens = lexer::tokenize(&line.text);
            let dir = if tokens.first().is_some_and(|t| t.text.starts_with('.')) {
                Some(0)
            } else if tokens.get(1).is_some_and(|t| t.kind == Tok::Colon)
                && tokens.get(2).is_some_and(|t| t.text.starts_with('.'))
            {
                Some(2)
            } else {
                None
            };
            if let Some(d) = dir.filter(|&d| tokens[d].text.eq_ignore_ascii_case(".eqv")) {
                self.define_eqv(&line, &tokens, d);
                line.tokens = tokens;
                out.push(line);
                continue;
            }
            for _ in 0..100 {
                let Some(tok) = tokens.iter().find(|t| {
                    t.kind == Tok::Word
                        && self.eqv.contains_key(&t.text)
                        && !lexer::is_keyword(&t.text)
                }) else {
                    break;
                };
                let replacement = self.eqv.get(&tok.text).cloned().unwrap_or_default();
                let chars: Vec<char> = line.text.chars().collect();
                let start = (tok.col as usize).saturating_sub(1).min(chars.len());
                let end = (start + tok.text.chars().count()).min(chars.len());
                let mut text: String = chars[..start].iter().collect();
                text.push_str(&replacement);
                text.extend(&chars[end..]);
                line.text = text;
                tokens = lexer::tokenize(&line.text);
            }
            line.tokens = tokens;
            out.push(line);
        }
        out
    }

    fn define_eqv(&mut self, line: &Line, tokens: &[Token], d: usize) {
        let directive = &tokens[d];
        if tokens.len() < d + 3 {
            self.error_at(line, directive, "Too few operands for .eqv directive");
            return;
        }
        let name = &tokens[d + 1];
        if name.kind != Tok::Word || lexer::is_keyword(&name.text) {
            self.error_at(line, directive, "Malformed .eqv directive");
            return;
        }
        if tokens[d + 2..].iter().any(|t| t.text == name.text) {
            let msg = format!(
                "Cannot substitute {} for itself in .eqv directive",
                name.text
            );
            self.error_at(line, directive, msg);
            return;
        }
        let chars: Vec<char> = line.text.chars().collect();
        let start = (tokens[d + 2].col as usize).saturating_sub(1);
        let last = &tokens[tokens.len() - 1];
        let end = (last.col as usize - 1 + last.text.chars().count()).min(chars.len());
        let expression: String = chars[start.min(end)..end].iter().collect();
        if let Some(old) = self.eqv.get(&name.text) {
            if *old != expression {
                let msg = format!("\"{}\" is already defined", name.text);
                self.error_at(line, name, msg);
                return;
            }
        }
        self.eqv.insert(name.text.clone(), expression);
    }

    // ----- statements --------------------------------------------------------------------

    fn run(&mut self, lines: &[Line], depth: u32) {
        let mut i = 0;
        while i < lines.len() {
            let line = &lines[i];
            let is_macro = line
                .tokens
                .first()
                .is_some_and(|t| t.text.eq_ignore_ascii_case(".macro"));
            if is_macro {
                i = self.define_macro(lines, i);
                continue;
            }
            self.statement(line, depth);
            i += 1;
        }
    }

    /// Collects a `.macro` definition; returns the index after its `.end_macro`.
    fn define_macro(&mut self, lines: &[Line], start: usize) -> usize {
        let header = &lines[start];
        let toks = &header.tokens;
        let Some(name) = toks.get(1) else {
            let msg = format!(
                "\"{}\" directive requires at least one argument.",
                toks[0].text
            );
            self.error_at(header, &toks[0], msg);
            return self.skip_to_end_macro(lines, start);
        };
        if name.kind != Tok::Word {
            let msg = format!("Invalid Macro name \"{}\"", name.text);
            self.error_at(header, name, msg);
            return self.skip_to_end_macro(lines, start);
        }
        let mut params = Vec::new();
        for t in &toks[2..] {
            match t.kind {
                Tok::LParen | Tok::RParen => {}
                _ if is_macro_param(t) => params.push(t.text.clone()),
                _ => {
                    let msg = format!("Invalid macro argument '{}'", t.text);
                    self.error_at(header, t, msg);
                    return self.skip_to_end_macro(lines, start);
                }
            }
        }
        let end = self.skip_to_end_macro(lines, start);
        let body: Vec<Line> = lines[start + 1..end.saturating_sub(1).max(start + 1)].to_vec();
        let labels = body
            .iter()
            .filter(|l| {
                l.tokens.len() >= 2
                    && l.tokens[0].kind == Tok::Word
                    && l.tokens[1].kind == Tok::Colon
            })
            .map(|l| l.tokens[0].text.clone())
            .collect();
        // MARS lets a later definition with the same name and arity win.
        self.macros.push(Macro {
            name: name.text.clone(),
            params,
            body,
            labels,
        });
        end
    }

    fn skip_to_end_macro(&mut self, lines: &[Line], start: usize) -> usize {
        for (j, l) in lines.iter().enumerate().skip(start + 1) {
            if l.tokens
                .first()
                .is_some_and(|t| t.text.eq_ignore_ascii_case(".end_macro"))
            {
                return j + 1;
            }
            if l.tokens
                .first()
                .is_some_and(|t| t.text.eq_ignore_ascii_case(".macro"))
            {
                self.error_at(l, &l.tokens[0], "Nested macros are not allowed");
            }
        }
        self.error_line(
            &lines[start],
            "Macro started but not ended (no .end_macro directive)",
        );
        lines.len()
    }

    fn statement(&mut self, line: &Line, depth: u32) {
        if let Some(bad) = line.tokens.iter().find(|t| t.kind == Tok::Error) {
            let msg = format!("Invalid language element: {}", bad.text);
            self.error_at(line, bad, msg);
            return;
        }
        let mut rest: &[Token] = &line.tokens;
        // One label per line, as MARS reads it.
        if rest.len() >= 2 && rest[0].kind == Tok::Word && rest[1].kind == Tok::Colon {
            self.define_label(line, &rest[0]);
            rest = &rest[2..];
        }
        let Some(op) = rest.first() else { return };
        let lower = op.text.to_ascii_lowercase();
        if op.kind == Tok::Word && lexer::DIRECTIVES.contains(&lower.as_str()) {
            self.directive(line, op, &rest[1..]);
            return;
        }
        if self.call_macro(line, op, &rest[1..], depth) {
            return;
        }
        let is_mnemonic = op.kind == Tok::Word && forms::table().contains_key(lower.as_str());
        if op.kind == Tok::Word && op.text.starts_with('.') {
            let msg = format!(
                "MARS does not recognize the {} directive.  Ignored.",
                op.text
            );
            self.warn_at(line, op, msg);
            return;
        }
        if !self.segment.is_code() {
            let continues = matches!(
                op.kind,
                Tok::Plus | Tok::Minus | Tok::Str | Tok::Int(_) | Tok::Real(_)
            ) || (op.kind == Tok::Word && !is_mnemonic);
            if continues {
                self.continuation(line, rest);
            } else if is_mnemonic {
                let msg = format!(
                    "\"{}\" is ignored: MARS drops instructions written in a data segment",
                    op.text
                );
                self.warn_at(line, op, msg);
            }
            return;
        }
        if !is_mnemonic {
            let msg = if self.macros.iter().any(|m| m.name == op.text) {
                format!(
                    "forward reference or invalid parameters for macro \"{}\"",
                    op.text
                )
            } else {
                format!("\"{}\" is not a recognized operator", op.text)
            };
            self.error_at(line, op, msg);
            return;
        }
        self.instruction(line, op, &rest[1..]);
    }

    fn define_label(&mut self, line: &Line, label: &Token) {
        let addr = self.next[segment_index(self.segment)];
        let kind = if self.segment.is_code() {
            SymbolKind::Code
        } else {
            SymbolKind::Data
        };
        let sym = Symbol {
            name: label.text.clone(),
            addr: addr as u64,
            kind,
            global: false,
        };
        if self.labels[self.unit].insert(sym).is_err() {
            let msg = format!("label \"{}\" already defined", label.text);
            self.error_at(line, label, msg);
        } else {
            self.defined.push((Some(self.unit), label.text.clone()));
            if !self.segment.is_code() {
                self.unplaced_labels.push(label.text.clone());
            }
        }
    }

    /// Expands a macro call; false if `op` names no macro.
    fn call_macro(&mut self, line: &Line, op: &Token, args: &[Token], depth: u32) -> bool {
        let args: &[Token] = match (args.first(), args.last()) {
            (Some(f), Some(l))
                if f.kind == Tok::LParen && l.kind == Tok::RParen && args.len() >= 2 =>
            {
                &args[1..args.len() - 1]
            }
            _ => args,
        };
        let Some(index) = self
            .macros
            .iter()
            .rposition(|m| m.name == op.text && m.params.len() == args.len())
        else {
            return false;
        };
        let looped = line
            .calls
            .iter()
            .any(|c| c.file == line.file && c.line == line.line);
        self.expanded_lines += self.macros[index].body.len();
        if self.expanded_lines > EXPANSION_BUDGET {
            self.error_at(line, op, "macro expansion produces too many lines");
            return true;
        }
        if looped || depth >= 64 {
            self.error_at(
                line,
                op,
                "Detected a macro expansion loop (recursive reference). ",
            );
            return true;
        }
        let counter = self.macro_counter;
        self.macro_counter = self.macro_counter.wrapping_add(1);
        let mut calls = line.calls.clone();
        calls.push(Origin {
            file: line.file,
            line: line.line,
            col: op.col,
            len: op.width(),
            name: op.text.clone(),
        });
        let mut expanded = Vec::new();
        let mut unknown = Vec::new();
        {
            let m = &self.macros[index];
            for body_line in &m.body {
                let mut text: Vec<char> = body_line.text.chars().collect();
                let mut tokens: Vec<&Token> = body_line.tokens.iter().collect();
                tokens.sort_by_key(|t| std::cmp::Reverse(t.col));
                for t in tokens {
                    let param = m.params.iter().position(|p| *p == t.text);
                    let replacement = if is_macro_param(t) {
                        match param {
                            Some(p) => args[p].text.clone(),
                            None if t.kind == Tok::MacroParam => {
                                unknown.push((body_line.clone(), t.clone()));
                                continue;
                            }
                            None => continue,
                        }
                    } else if t.kind == Tok::Word && m.labels.contains(&t.text) {
                        format!("{}_M{counter}", t.text)
                    } else {
                        continue;
                    };
                    let start = (t.col as usize).saturating_sub(1).min(text.len());
                    let end = (start + t.text.chars().count()).min(text.len());
                    text.splice(start..end, replacement.chars());
                }
                let text: String = text.into_iter().collect();
                expanded.push(Line {
                    file: body_line.file,
                    line: body_line.line,
                    tokens: lexer::tokenize(&text),
                    text,
                    calls: calls.clone(),
                });
            }
        }
        for (l, t) in unknown {
            let l = Line {
                calls: calls.clone(),
                ..l
            };
            self.error_at(&l, &t, "Unknown macro parameter");
        }
        let expanded = self.substitute_eqv(expanded);
        self.run(&expanded, depth + 1);
        true
    }

    // ----- layout ------------------------------------------------------------------------

    fn here(&self) -> u32 {
        self.next[segment_index(self.segment)]
    }

    /// Lays `bytes` down at the current address; returns where they went.
    fn emit(&mut self, bytes: &[u8]) -> (usize, usize) {
        let kind = self.segment;
        let addr = self.here();
        self.unplaced_labels.clear();
        let found = self
            .chunks
            .iter()
            .rposition(|c| c.kind == kind && c.addr.wrapping_add(c.bytes.len() as u32) == addr);
        let index = match found {
            Some(i) => i,
            None => {
                self.chunks.push(Chunk {
                    kind,
                    addr,
                    bytes: Vec::new(),
                });
                self.chunks.len() - 1
            }
        };
        let chunk = &mut self.chunks[index];
        let offset = chunk.bytes.len();
        chunk.bytes.extend_from_slice(bytes);
        self.next[segment_index(kind)] = addr.wrapping_add(bytes.len() as u32);
        (index, offset)
    }

    fn align(&mut self, to: u32) {
        let i = segment_index(self.segment);
        let old = self.next[i];
        let new = old.wrapping_add(to - 1) & !(to - 1);
        if new == old {
            return;
        }
        let moved = std::mem::take(&mut self.unplaced_labels);
        self.reserve(new.wrapping_sub(old));
        for name in &moved {
            if let Some(sym) = self.labels[self.unit].get_mut(name) {
                sym.addr = new as u64;
            }
        }
        self.unplaced_labels = moved;
    }

    /// Zero bytes (`.space`, alignment, `.extern`). Beyond a segment's 4 MiB nothing could
    /// hold them, so the address just moves on and memory stays zero.
    fn reserve(&mut self, bytes: u32) {
        if bytes <= SEGMENT_BYTES {
            self.emit(&vec![0u8; bytes as usize]);
        } else {
            let i = segment_index(self.segment);
            self.next[i] = self.next[i].wrapping_add(bytes);
            self.unplaced_labels.clear();
        }
    }

    fn record_line(&mut self, addr: u32, line: &Line) {
        let (file, number) = match line.calls.first() {
            Some(call) => (call.file, call.line),
            None => (line.file, line.line),
        };
        self.lines
            .insert(addr as u64, SourceLoc { file, line: number });
    }

    // ----- instructions ------------------------------------------------------------------

    fn instruction(&mut self, line: &Line, op: &Token, operands: &[Token]) {
        let mnemonic = op.text.to_ascii_lowercase();
        let Some(candidates) = forms::table().get(mnemonic.as_str()) else {
            let msg = format!("\"{}\" is not a recognized operator", op.text);
            self.error_at(line, op, msg);
            return;
        };
        if let Some(bad) = operands.iter().find(|t| t.kind == Tok::Error) {
            let msg = format!("Invalid language element: {}", bad.text);
            self.error_at(line, bad, msg);
            return;
        }
        let form = match forms::select(candidates, operands) {
            Ok(f) => f,
            Err(m) => {
                let msg = m.message(op, operands);
                match m {
                    Mismatch::OutOfRange(i) | Mismatch::WrongType(i) => {
                        self.error_at(line, &operands[i], msg)
                    }
                    _ => self.error_at(line, op, msg),
                }
                return;
            }
        };
        let words = form.word_count(self.opts.delay_slots);
        let addr = self.here();
        let (chunk, offset) = self.emit(&vec![0u8; 4 * words as usize]);
        for k in 0..words {
            let at = addr.wrapping_add(4 * k);
            self.record_line(at, line);
            let owner = (line.file, line.line);
            if let Some(&(file, first)) = self.code_owner.get(&at) {
                let name = self
                    .sources
                    .get(file)
                    .map(|f| f.name.to_string())
                    .unwrap_or_default();
                let which = if self.segment == ChunkKind::Text {
                    ".text"
                } else {
                    ".ktext"
                };
                let msg = format!(
                    "Duplicate text segment address: 0x{at:08x} already occupied by {name} line {first} (caused by use of {which} operand)"
                );
                self.error_at(line, op, msg);
            } else {
                self.code_owner.insert(at, owner);
            }
        }
        self.pending.push(Pending {
            unit: self.unit,
            chunk,
            offset,
            addr,
            form,
            operands: operands.to_vec(),
            line: line.clone(),
            operator: op.clone(),
        });
    }

    // ----- second half: words ------------------------------------------------------------

    fn finish(mut self) -> Result<Program, Diagnostics> {
        let pending = std::mem::take(&mut self.pending);
        for p in &pending {
            let scope = Scope {
                local: &self.labels[p.unit],
                global: &self.globals,
            };
            match forms::expand(p.form, &p.operands, p.addr, &scope, self.opts.delay_slots) {
                Ok(words) => {
                    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
                    if let Some(dst) = self
                        .chunks
                        .get_mut(p.chunk)
                        .and_then(|c| c.bytes.get_mut(p.offset..p.offset + bytes.len()))
                    {
                        dst.copy_from_slice(&bytes);
                    }
                }
                Err(e) => self.expand_error(p, e),
            }
        }
        let fixups = std::mem::take(&mut self.fixups);
        for f in &fixups {
            let name = &f.token.text;
            let addr = if f.global_only {
                self.globals.addr(name)
            } else {
                self.labels[f.unit]
                    .addr(name)
                    .or_else(|| self.globals.addr(name))
            };
            match addr {
                Some(a) => {
                    let bytes = (a as u32).to_le_bytes();
                    if let Some(dst) = self
                        .chunks
                        .get_mut(f.chunk)
                        .and_then(|c| c.bytes.get_mut(f.offset..f.offset + f.len))
                    {
                        dst.copy_from_slice(&bytes[..f.len.min(4)]);
                    }
                }
                None => {
                    let msg = format!("Symbol \"{name}\" not found in symbol table.");
                    self.error_at(&f.line, &f.token, msg);
                }
            }
        }
        self.diags.sort();
        if self.diags.has_errors() {
            return Err(self.diags);
        }
        let main = self
            .globals
            .get("main")
            .map(|s| s.addr as u32)
            .filter(|&a| in_text(a) || in_ktext(a));
        // Every file's labels for the debugger, in definition order; names may repeat.
        let mut symbols = SymbolTable::new(false);
        for (unit, name) in &self.defined {
            let table = match unit {
                Some(u) => &self.labels[*u],
                None => &self.globals,
            };
            if let Some(sym) = table.get(name) {
                symbols.insert_scoped(sym.clone());
            }
        }
        Ok(Program {
            chunks: merge_chunks(self.chunks),
            // MARS resets the PC to the text base, not to the first `.text` statement: the two
            // differ only when the first `.text` names another address.
            text_start: layout::TEXT,
            main,
            debug: DebugInfo {
                sources: self.sources,
                symbols,
                lines: self.lines,
                data: self.data,
            },
            warnings: self.diags,
            files: self.files,
        })
    }

    fn expand_error(&mut self, p: &Pending, e: ExpandError) {
        match e {
            ExpandError::Undefined(i) => {
                let tok = p.operands.get(i).unwrap_or(&p.operator).clone();
                let msg = format!("Symbol \"{}\" not found in symbol table.", tok.text);
                self.error_at(&p.line, &tok, msg);
            }
            ExpandError::NoNextRegister(i) => {
                let tok = p.operands.get(i).unwrap_or(&p.operator).clone();
                let msg = format!(
                    "\"{}\": there is no next register for a register pair",
                    tok.text
                );
                self.error_at(&p.line, &tok, msg);
            }
            ExpandError::Encode(EncodeError::JumpOutOfRange) => {
                let op = p.operator.clone();
                self.error_at(&p.line, &op, EncodeError::JumpOutOfRange.to_string());
            }
            ExpandError::Encode(err) => {
                let tok = p.operands.last().unwrap_or(&p.operator).clone();
                let msg = format!("\"{}\": {err}", tok.text);
                self.error_at(&p.line, &tok, msg);
            }
        }
    }
}

/// One chunk per contiguous run of each segment, in address order.
fn merge_chunks(mut chunks: Vec<Chunk>) -> Vec<Chunk> {
    chunks.retain(|c| !c.bytes.is_empty());
    chunks.sort_by_key(|c| (segment_index(c.kind), c.addr));
    let mut out: Vec<Chunk> = Vec::with_capacity(chunks.len());
    for c in chunks {
        if let Some(last) = out.last_mut() {
            let end = last.addr as u64 + last.bytes.len() as u64;
            if last.kind == c.kind && (c.addr as u64) <= end {
                let start = (c.addr - last.addr) as usize;
                let needed = start + c.bytes.len();
                if last.bytes.len() < needed {
                    last.bytes.resize(needed, 0);
                }
                last.bytes[start..needed].copy_from_slice(&c.bytes);
                continue;
            }
        }
        out.push(c);
    }
    out
}

/// The file id of the main file in a program's source map.
pub const MAIN_FILE: FileId = FileId(0);

/// `%name`, or SPIM's `$name` when it is not a register.
fn is_macro_param(t: &Token) -> bool {
    t.kind == Tok::MacroParam || (t.kind == Tok::Word && t.text.starts_with('$'))
}
