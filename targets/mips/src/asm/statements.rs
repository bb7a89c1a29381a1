//! The statement pass: each line's label, then its directive, macro call or instruction.

use asmdbg_core::{Symbol, SymbolKind};

use super::fixups::Pending;
use super::forms::{self, Mismatch};
use super::lexer::{self, Tok, Token};
use super::segments::segment_index;
use super::source::Line;
use super::Assembler;
use crate::program::ChunkKind;

impl Assembler<'_> {
    pub(super) fn run(&mut self, lines: &[Line], depth: u32) {
        let mut i = 0;
        while i < lines.len() {
            if self.past_deadline() || self.out_of_lines {
                return;
            }
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

    /// Whether assembly ran past its deadline (looked at every 1,024 statements: a clock read
    /// a statement would cost more than the statement).
    fn past_deadline(&mut self) -> bool {
        if self.out_of_time {
            return true;
        }
        let Some(deadline) = self.opts.deadline else {
            return false;
        };
        self.since_deadline_check += 1;
        if self.since_deadline_check >= 1024 {
            self.since_deadline_check = 0;
            self.out_of_time = std::time::Instant::now() >= deadline;
        }
        self.out_of_time
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
            } else if is_mnemonic && self.opts.strict {
                // MARS drops it without a word (issue 39): only --strict says so.
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
            self.slip(line, op);
            return;
        }
        self.instruction(line, op, &rest[1..]);
    }

    /// Beside MARS's error for a word that is no operator, what it looks like when it is one
    /// edit from an instruction (`sycall`): the program did not assemble, so MARS's output of
    /// a run is not at stake.
    fn slip(&mut self, line: &Line, op: &Token) {
        let names = forms::table().keys().copied();
        if let Some(name) = asmdbg_core::slips::one_edit_from(&op.text, names) {
            let msg = format!("`{}` looks like the instruction {name}", op.text);
            self.warn_at(line, op, msg);
        }
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
    // ----- instructions ------------------------------------------------------------------

    fn instruction(&mut self, line: &Line, op: &Token, operands: &[Token]) {
        let mnemonic = op.text.to_ascii_lowercase();
        let Some(candidates) = forms::table().get(mnemonic.as_str()) else {
            let msg = format!("\"{}\" is not a recognized operator", op.text);
            self.error_at(line, op, msg);
            self.slip(line, op);
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
}
