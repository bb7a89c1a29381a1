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
//!
//! Where each concern lives: this file holds the public API ([`assemble`], [`assemble_files`],
//! [`AsmOptions`], [`layout`], [`is_operation`]) and the assembler's state, with what it resets
//! per file and how it reports diagnostics. `source.rs` splices `.include`s in, `lexer.rs`
//! tokenizes a line and `eqv.rs` substitutes `.eqv` symbols; `statements.rs` walks the
//! statements (labels, instructions), `macros.rs` collects and expands `.macro`s and
//! `directives.rs` carries out directives; `segments.rs` lays bytes down in the segments and
//! merges them into chunks; `forms.rs` picks an instruction's form from the tables in
//! `basic.rs` and `pseudo_table.rs` and expands it; `fixups.rs` is the second half, which
//! writes the instruction words and `.word label` values once every label is known.

pub mod basic;
mod directives;
mod eqv;
mod fixups;
mod forms;
pub mod lexer;
mod macros;
pub mod pseudo_table;
mod segments;
mod source;
mod statements;

use std::collections::HashMap;
use std::path::PathBuf;

use asmdbg_core::{
    DataTable, Diagnostic, Diagnostics, FileId, LineTable, SourceFile, SourceMap, Span, SymbolTable,
};

use crate::program::{Chunk, ChunkKind, Program};
use directives::DataKind;
use fixups::{DataFixup, Pending};
use lexer::Token;
use macros::Macro;
use source::Line;

pub use basic::{BasicInstruction, EncodeError, Field, Operand, BASIC_INSTRUCTIONS};
pub use pseudo_table::PSEUDO_OPS;

#[derive(Debug, Clone, Default)]
pub struct AsmOptions {
    /// Directory `.include` paths are resolved against (MARS: the working directory); the
    /// including file's directory is tried next.
    pub work_dir: Option<PathBuf>,
    /// MARS's `db` setting: pseudo-instructions get their delay-slot `nop`s and branch offsets.
    pub delay_slots: bool,
    /// `--strict`: also warn about what MARS accepts silently but other MIPS assemblers
    /// reject or drop (branches beyond a 16-bit offset, instructions in a data segment).
    pub strict: bool,
    /// Which files `.include` may read, and how much (a grader confines it to the submission).
    pub sources: asmdbg_core::SourceAccess,
    /// Assembly gives up at this instant (macros and includes can make a short file long).
    pub deadline: Option<std::time::Instant>,
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
    // The files given count against the program's limit too (their includes add to it).
    let mut used: u64 = files.iter().map(|f| f.text.len() as u64).sum();
    for file in files {
        let id = asm.sources.add(file.clone());
        asm.begin_file(id);
        let lines = source::load(id, file, opts, &mut asm.sources, &mut asm.diags, &mut used);
        if !asm.count_lines(lines.len(), id) {
            break;
        }
        let lines = asm.substitute_eqv(lines);
        asm.run(&lines, 0);
        asm.end_file();
        if asm.out_of_time {
            break;
        }
    }
    if asm.out_of_time {
        let mut diags = asm.diags;
        diags.push(Diagnostic::file_error(
            &files[0].name,
            "assembly did not finish in the time it was given (its macros or includes make the program too long)",
        ));
        return Err(diags);
    }
    asm.finish()
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
    /// Lines read and expanded so far, against `opts.sources`' limit.
    lines_seen: u64,
    /// Statements handled since the deadline was last looked at.
    since_deadline_check: u32,
    /// The deadline passed: the rest is skipped and assembly fails.
    out_of_time: bool,
    /// The line limit was passed (reported once).
    out_of_lines: bool,
    pending: Vec<Pending>,
    fixups: Vec<DataFixup>,
    far_branches: Vec<crate::program::FarBranch>,
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
            lines_seen: 0,
            since_deadline_check: 0,
            out_of_time: false,
            out_of_lines: false,
            pending: Vec::new(),
            fixups: Vec::new(),
            far_branches: Vec::new(),
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

    /// Counts `more` lines against the program's limit; past it, an error (at `file`) and
    /// `false`: assembly stops.
    fn count_lines(&mut self, more: usize, file: FileId) -> bool {
        self.lines_seen = self.lines_seen.saturating_add(more as u64);
        let limit = self.opts.sources.limits().lines;
        if self.lines_seen <= limit {
            return true;
        }
        if !self.out_of_lines {
            self.out_of_lines = true;
            let name = self
                .sources
                .get(file)
                .map(|f| f.name.to_string())
                .unwrap_or_default();
            self.diags.push(Diagnostic::file_error(
                &name,
                format!(
                    "the program has more than {limit} lines with its includes and macro expansions, the most asmdbg assembles in a sandbox"
                ),
            ));
        }
        false
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
}

/// The file id of the main file in a program's source map.
pub const MAIN_FILE: FileId = FileId(0);
