//! Which lines the course interpreter (ELL305 `interpreter.c`) counts as instructions, beyond
//! the ones that hold one. It cuts the program at newlines and colons, not at statements:
//!
//! - every line that still has a character once its `/* */` comments are gone takes an
//!   instruction slot: a line holding only an `@` comment, or only blanks, is an instruction
//!   that does nothing when it runs (a line holding only a `//` comment, which asmdbg's dialect
//!   takes from another course emulator and the interpreter does not, takes none);
//! - a label's line takes a slot when anything but blanks follows its colon, so `loop: @ the
//!   loop` is such an empty instruction, with the label on it;
//! - the first colon of a line makes a label wherever it is, inside an `@` comment too: what
//!   follows it (up to the next `@`) is then the line's instruction, and the code before the
//!   comment is dropped (`add r1, r2, r3 @ note: here` runs `here`).
//!
//! Slots are code addresses (`call` stores 4·(slot+1) in `ra`), so these lines move every
//! return address after them; `asm.rs` gives each such line a [`crate::program::Slot::Empty`].
//! Measured with the course's interpreter (see tests/reference/simplerisc/).
//!
//! The assembler's warnings about what the interpreter reads otherwise than asmdbg's dialect
//! live here too (`impl Assembler`): forms it rejects, a colon in a comment, and (under
//! `--strict`) a read of `ra` that the empty slots change.

use asmdbg_core::Span;

use crate::asm::{is_ident_char, is_ident_start, skip_ws, Assembler, Label, Piece, Stmt};
use crate::decode::decode;
use crate::program::Slot;

/// One source line as the interpreter sees it, in the terms `asm.rs` needs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct LineShape {
    /// No character is left once `/* */` comments are removed: no slot.
    pub empty: bool,
    /// Something other than blanks follows the line's first colon (its label's, when the line
    /// starts with one).
    pub after_first_colon: bool,
    /// The line's first colon is inside its `@` comment.
    pub comment_label: Option<CommentLabel>,
}

/// A colon inside an `@` comment, which the interpreter takes for a label's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CommentLabel {
    /// The word before the colon (the label the interpreter defines), and its 1-based column.
    pub word: String,
    pub col: u32,
    /// What the interpreter runs as the line's instruction: the text after the colon up to the
    /// next `@`, with its 1-based column; `None` when only blanks follow the colon (then the
    /// code before the comment stays the line's instruction).
    pub instruction: Option<(String, u32)>,
}

/// The shape of every line of `text` (split at `\n`, a trailing `\r` dropped), in order.
pub(crate) fn line_shapes(text: &str) -> Vec<LineShape> {
    let mut in_block = false;
    text.split('\n')
        .map(|raw| {
            // The line's characters outside `/* */`, each with its column; the interpreter
            // drops carriage returns anywhere.
            let mut kept: Vec<(char, u32)> = Vec::new();
            let chars: Vec<char> = raw.chars().collect();
            let mut i = 0;
            while i < chars.len() {
                let next = chars.get(i + 1).copied();
                if in_block {
                    if chars[i] == '*' && next == Some('/') {
                        in_block = false;
                        i += 2;
                    } else {
                        i += 1;
                    }
                    continue;
                }
                if chars[i] == '/' && next == Some('*') {
                    in_block = true;
                    i += 2;
                    continue;
                }
                if chars[i] != '\r' {
                    kept.push((chars[i], i as u32 + 1));
                }
                i += 1;
            }
            shape(&kept)
        })
        .collect()
}

fn shape(kept: &[(char, u32)]) -> LineShape {
    let blank = |c: char| c == ' ' || c == '\t';
    // A `//` comment (asmdbg's dialect takes it, from another course emulator; the interpreter
    // has none) ends what is read here, unless an `@` comment started first.
    let slashes = kept
        .windows(2)
        .position(|pair| pair[0].0 == '/' && pair[1].0 == '/');
    let at = kept.iter().position(|&(c, _)| c == '@');
    let (kept, slashed) = match (slashes, at) {
        (Some(s), Some(a)) if a < s => (kept, false),
        (Some(s), _) => (&kept[..s], true),
        _ => (kept, false),
    };
    let colon = kept.iter().position(|&(c, _)| c == ':');
    let comment = kept.iter().position(|&(c, _)| c == '@');
    let after_first_colon = colon.is_some_and(|c| kept[c + 1..].iter().any(|&(ch, _)| !blank(ch)));
    let comment_label = match (colon, comment) {
        (Some(c), Some(at)) if c > at => {
            let start = kept[..c]
                .iter()
                .rposition(|&(ch, _)| blank(ch) || ch == '\n')
                .map_or(0, |p| p + 1);
            let word: String = kept[start..c].iter().map(|&(ch, _)| ch).collect();
            let rest = &kept[c + 1..];
            let from = rest.iter().position(|&(ch, _)| !blank(ch));
            let instruction = from.map(|from| {
                let text: String = rest[from..]
                    .iter()
                    .map(|&(ch, _)| ch)
                    .take_while(|&ch| ch != '@')
                    .collect();
                (text, rest[from].1)
            });
            Some(CommentLabel {
                word,
                col: kept.get(start).map_or(1, |&(_, col)| col),
                instruction,
            })
        }
        _ => None,
    };
    LineShape {
        // A line of blanks and a `//` comment is a comment line of asmdbg's dialect: no slot.
        empty: kept.is_empty() || (slashed && kept.iter().all(|&(c, _)| blank(c))),
        after_first_colon,
        comment_label,
    }
}

/// Whether `slot` reads `ra` as a number (prints it, or computes with it), which is where the
/// empty slots show: `ret`, and `st`/`ld` that save and restore it, only move it.
pub(crate) fn reads_ra_as_data(slot: &Slot) -> bool {
    use crate::decode::Op;
    const RA: u8 = 15;
    match slot {
        Slot::Print(regs) => regs.contains(&RA),
        Slot::Word(word) => {
            let insn = decode(*word);
            match insn.op {
                Op::Add
                | Op::Sub
                | Op::Mul
                | Op::Div
                | Op::Mod
                | Op::Cmp
                | Op::And
                | Op::Or
                | Op::Lsl
                | Op::Lsr
                | Op::Asr => insn.rs1 == RA || insn.rs2 == RA,
                Op::Not | Op::Mov => insn.rs2 == RA,
                Op::AddI
                | Op::SubI
                | Op::MulI
                | Op::DivI
                | Op::ModI
                | Op::CmpI
                | Op::AndI
                | Op::OrI
                | Op::LslI
                | Op::LsrI
                | Op::AsrI => insn.rs1 == RA,
                _ => false,
            }
        }
        _ => false,
    }
}

/// What the course interpreter accepts or reads differently from asmdbg's dialect: warned
/// about (errors under `--strict`, where said).
impl Assembler {
    /// Forms asmdbg accepts but the course interpreter rejects: warnings, so a student learns
    /// before submitting (errors under `--strict`, the interpreter's acceptance). A space
    /// before a label's colon (`.loop :`); a `/* */` comment after a label in a file with CRLF
    /// line ends; `//` right after a hex immediate (the interpreter has no `//` comments, and
    /// its hex reader, which skips spaces, takes the rest of the line as digits).
    pub(crate) fn course_interpreter_rejects(&mut self, text: &str) {
        let crlf = text.contains("\r\n");
        for (li, raw) in text.split('\n').enumerate() {
            let line = li as u32 + 1;
            let chars: Vec<char> = raw.trim_end_matches('\r').chars().collect();
            // Up to an `@` comment (a `//` or `/*` inside it is just text).
            let end = chars.iter().position(|&c| c == '@').unwrap_or(chars.len());
            let code = &chars[..end];
            let start = skip_ws(code, 0);
            let mut name_end = start;
            while name_end < code.len() && is_ident_char(code[name_end]) {
                name_end += 1;
            }
            let colon = skip_ws(code, name_end);
            let is_label =
                name_end > start && is_ident_start(code[start]) && code.get(colon) == Some(&':');
            if is_label && colon > name_end {
                let len = (colon + 1 - start) as u32;
                self.reject(line, start as u32 + 1, len, "a space before a label's `:`");
            }
            if is_label && crlf {
                let after = skip_ws(code, colon + 1);
                if code[after..].starts_with(&['/', '*']) {
                    let what = "a `/* */` comment after a label in a file with CRLF line ends";
                    self.reject(line, after as u32 + 1, 2, what);
                }
            }
            if let Some(slash) =
                (0..code.len().saturating_sub(1)).find(|&i| code[i] == '/' && code[i + 1] == '/')
            {
                let before: String = code[..slash].iter().collect();
                let last = before
                    .trim_end()
                    .rsplit(|c: char| c.is_whitespace() || c == ',')
                    .next()
                    .unwrap_or("");
                let hex = last.get(..2).is_some_and(|p| p.eq_ignore_ascii_case("0x"));
                if hex && last.len() > 2 {
                    self.reject(
                        line,
                        slash as u32 + 1,
                        2,
                        "`//` right after a hex immediate",
                    );
                }
            }
        }
    }

    /// One form the course interpreter rejects (see [`Self::course_interpreter_rejects`]).
    fn reject(&mut self, line: u32, col: u32, len: u32, what: &str) {
        let span = Span::new(self.file, line, col, len);
        let d = if self.opts.strict {
            self.sources.error(
                span,
                format!("the course interpreter rejects this line: {what}"),
            )
        } else {
            self.sources.warning(
                span,
                format!("the course interpreter rejects this line: {what} (asmdbg accepts it)"),
            )
        };
        self.diags.push(d);
    }

    /// A colon in an `@` comment, which the interpreter reads as a label: with text after it,
    /// that text is the line's instruction there (warned about; an error under `--strict`).
    /// The label is defined too (first definition wins, as in the interpreter's lookups): on
    /// this line's slot `slot` when text follows the colon, else on the next slot (the line's
    /// code before the comment keeps this one).
    pub(crate) fn comment_label(
        &mut self,
        line: u32,
        label: &CommentLabel,
        slot: u32,
    ) -> Option<Stmt> {
        let at = if label.instruction.is_some() {
            slot
        } else {
            slot + 1
        };
        self.labels.entry(label.word.clone()).or_insert(Label {
            slot: at,
            line,
            in_comment: true,
        });
        let (text, col) = label.instruction.clone()?;
        let what = format!(
            "the course interpreter reads `{}:` in this comment as a label and runs `{}` as \
             the line's instruction, not the code before the comment",
            label.word,
            text.trim_end()
        );
        let span = Span::new(
            self.file,
            line,
            label.col,
            label.word.chars().count() as u32 + 1,
        );
        let d = if self.opts.strict {
            self.sources.error(span, what)
        } else {
            self.sources
                .warning(span, format!("{what} (as asmdbg does)"))
        };
        self.diags.push(d);
        let chars: Vec<char> = text.chars().collect();
        let pos = skip_ws(&chars, 0);
        if pos >= chars.len() {
            return Some(Stmt::empty(line));
        }
        let mut end = pos;
        while end < chars.len() && !chars[end].is_whitespace() {
            end += 1;
        }
        Some(Stmt {
            line,
            mnemonic: Piece {
                text: chars[pos..end].iter().collect(),
                col: col + pos as u32,
            },
            rest: Piece {
                text: chars[end..].iter().collect(),
                col: col + end as u32,
            },
        })
    }

    /// A label defined after the interpreter read the same name from a comment: the
    /// comment's comes first in its lookups, so branches (and `.main`) go there.
    pub(crate) fn label_in_comment_first(&mut self, name: &str, first: u32, line: u32, col: u32) {
        let span = Span::new(self.file, line, col, name.chars().count() as u32);
        let d = self.sources.warning(
            span,
            format!(
                "the course interpreter already read `{name}:` in the comment on line {first}: \
                 its lookups find that one first, and so do asmdbg's"
            ),
        );
        self.diags.push(d);
    }

    /// Where the course interpreter's empty slots change what a program computes: a line
    /// that reads `ra` as a number sees them counted in the return address. Said under
    /// `--strict` only: a plain run's stderr stays the interpreter's (empty).
    pub(crate) fn warn_reads_of_ra(&mut self, stmts: &[Stmt], slots: &[Option<Slot>]) {
        if !self.opts.strict {
            return;
        }
        let empty: Vec<String> = stmts
            .iter()
            .zip(slots)
            .filter(|(_, slot)| matches!(slot, Some(Slot::Empty)))
            .map(|(stmt, _)| stmt.line.to_string())
            .collect();
        if empty.is_empty() {
            return;
        }
        for (stmt, slot) in stmts.iter().zip(slots) {
            if slot.as_ref().is_some_and(reads_ra_as_data) {
                let message = format!(
                    "`ra` holds a code address, which counts the lines the course interpreter \
                     takes for instructions without one (comment or blank lines, a label's \
                     line with a comment: line {}); asmdbg counts them too",
                    empty.join(", ")
                );
                let span = Span::new(self.file, stmt.line, stmt.mnemonic.col, stmt.mnemonic.len());
                let d = self.sources.warning(span, message);
                self.diags.push(d);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(line: &str) -> LineShape {
        line_shapes(line).remove(0)
    }

    #[test]
    fn blank_and_comment_lines_are_not_empty_but_block_comments_vanish() {
        assert!(one("").empty);
        assert!(!one("   ").empty);
        assert!(!one("@ a comment").empty);
        assert!(one("/* gone */").empty);
        assert!(!one("  /* gone */").empty);
        assert!(one("\r").empty);
        assert!(one("  // asmdbg's comment").empty);
        assert!(!one("add r1, r1, r1 // asmdbg's comment").empty);
        let lines = line_shapes("/* one\ntwo */\nadd r1, r2, r3\n");
        assert!(lines[0].empty && lines[1].empty && !lines[2].empty);
    }

    #[test]
    fn a_label_takes_a_slot_when_anything_follows_its_colon() {
        assert!(!one("loop:").after_first_colon);
        assert!(!one("loop: \t").after_first_colon);
        assert!(!one("loop: /* c */").after_first_colon);
        assert!(one("loop: @ the loop").after_first_colon);
        assert!(one("loop: add r1, r1, 1").after_first_colon);
        assert_eq!(one("loop: @ x: y").comment_label, None);
    }

    #[test]
    fn a_colon_in_a_comment_is_a_label_and_what_follows_runs() {
        let shape = one("\tmov r1, 5 @ note: here");
        assert_eq!(
            shape.comment_label,
            Some(CommentLabel {
                word: "note".into(),
                col: 14,
                instruction: Some(("here".into(), 20)),
            })
        );
        // After a `//` comment (asmdbg's), a colon or an `@` is the comment's text.
        assert_eq!(one("\tmov r1, 5 // note: x").comment_label, None);
        assert_eq!(one("\tmov r1, 5 // a@b: x").comment_label, None);
        assert!(one("\tmov r1, 5 @ a // b: x").comment_label.is_some());
        let shape = one("\tmov r1, 5 @ see:");
        assert_eq!(shape.comment_label.map(|c| c.instruction), Some(None));
        let shape = one("@ step 1: nop @ then");
        assert_eq!(
            shape.comment_label.and_then(|c| c.instruction),
            Some(("nop ".into(), 11))
        );
    }
}
