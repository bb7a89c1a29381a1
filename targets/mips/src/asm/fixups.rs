//! The second half: instruction words and `.word label` values written once every label is
//! known, each reference resolved in its file's scope; then the program is put together.

use asmdbg_core::{DebugInfo, Diagnostics, SymbolTable};

use super::basic::EncodeError;
use super::forms::{self, ExpandError, Form, Labels};
use super::lexer::Token;
use super::segments::merge_chunks;
use super::source::Line;
use super::{layout, Assembler};
use crate::memory::{in_ktext, in_text};
use crate::program::{FarBranch, Program};

/// An instruction whose words are written once labels are known.
pub(super) struct Pending {
    /// The file (index in the order given) whose labels come first.
    pub(super) unit: usize,
    pub(super) chunk: usize,
    pub(super) offset: usize,
    pub(super) addr: u32,
    pub(super) form: &'static Form,
    pub(super) operands: Vec<Token>,
    pub(super) line: Line,
    pub(super) operator: Token,
}

/// A `.word label` waiting for the label.
pub(super) struct DataFixup {
    /// The file (index in the order given) whose labels come first.
    pub(super) unit: usize,
    /// MARS resolved the label when it read it, to a global label of an earlier file (or an
    /// `.extern`), because the file had not defined its own yet.
    pub(super) global_only: bool,
    pub(super) chunk: usize,
    pub(super) offset: usize,
    /// Bytes of the item (`.byte label` keeps the low byte of the address).
    pub(super) len: usize,
    pub(super) token: Token,
    pub(super) line: Line,
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

impl Assembler<'_> {
    pub(super) fn finish(mut self) -> Result<Program, Diagnostics> {
        let pending = std::mem::take(&mut self.pending);
        for p in &pending {
            let scope = Scope {
                local: &self.labels[p.unit],
                global: &self.globals,
            };
            match forms::expand(p.form, &p.operands, p.addr, &scope, self.opts.delay_slots) {
                Ok(expansion) => {
                    for &(addr, displacement) in &expansion.far_branches {
                        self.far_branch(p, addr, displacement);
                    }
                    let bytes: Vec<u8> = expansion
                        .words
                        .iter()
                        .flat_map(|w| w.to_le_bytes())
                        .collect();
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
            far_branches: self.far_branches,
        })
    }

    /// A branch further than 16 bits: MARS 4.5 assembles and runs it without a word, so only
    /// `--strict` says that the instruction word cannot hold it.
    fn far_branch(&mut self, p: &Pending, addr: u32, displacement: i32) {
        self.far_branches.push(FarBranch { addr, displacement });
        if self.opts.strict {
            let tok = p.operands.last().unwrap_or(&p.operator).clone();
            let msg = format!(
                "branch target is {displacement} words away, beyond a 16-bit offset: the \
                 instruction word keeps its low 16 bits (MARS runs the whole displacement; \
                 other assemblers reject it)"
            );
            self.warn_at(&p.line, &tok, msg);
        }
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
