//! The directives' operands in each dialect's words (their count, `.ORIG`'s address, what
//! `.FILL`, `.BLKW` and `.STRINGZ` emit), and what a statement at a known address emits.

use super::dialect::{is_lc3as_label, lc3as_value, lc3tools_signed, lc3tools_unsigned};
use super::lexer::{self, Token, TokenKind};
use super::mnemonics;
use super::statement::{Base, Directive, Emit, Statement};
use super::Assembler;

impl Assembler<'_> {
    /// Checks a directive's operand count; reports in the dialect's words.
    pub(super) fn check_count(
        &mut self,
        st: &Statement,
        tok: usize,
        d: Directive,
        want: usize,
    ) -> bool {
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

    pub(super) fn origin_operand(&mut self, st: &Statement, tok: usize) -> u16 {
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
    pub(super) fn emit_for(&mut self, st: &Statement) -> Emit {
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
}
