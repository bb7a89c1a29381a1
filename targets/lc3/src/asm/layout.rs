//! Pass one's addresses: the `.ORIG`/`.END` blocks each dialect allows, the address of every
//! statement, its label defined (with lc3tools' label rules), and the end of the memory each
//! dialect may fill.

use asmdbg_core::{Symbol, SymbolKind};

use super::lexer::TokenKind;
use super::mnemonics;
use super::statement::{Base, Directive, Emit, Statement};
use super::Assembler;
use crate::program::Segment;

/// First address lc3tools refuses to assemble into (the device registers).
const LC3TOOLS_MMIO_START: u32 = 0xFE00;
const MEMORY_WORDS: u32 = 0x1_0000;

impl Assembler<'_> {
    pub(super) fn layout(&mut self, statements: &mut [Statement]) {
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
        } else if block.is_some() && !self.pennsim {
            // PennSim's assembler ends the last block at the end of the file.
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
}
