//! Diagnostics: the `Reporter` that collects them against the one source file, and the
//! complaints several passes make (the operands as written, what an instruction or directive
//! takes, a label not found, operands with no instruction before them).

use asmdbg_core::{Diagnostics, FileId, SourceMap, Span};

use super::lexer::{Token, TokenKind};
use super::mnemonics::{self, Field, Form, Mnemonic};
use super::statement::{Base, Statement};
use super::Assembler;

/// Collects diagnostics against the one source file.
pub(super) struct Reporter {
    pub(super) sources: SourceMap,
    pub(super) file: FileId,
    pub(super) name: String,
    pub(super) diags: Diagnostics,
}

impl Reporter {
    pub(super) fn error(&mut self, line: u32, col: u32, len: u32, msg: impl Into<String>) {
        let d = self
            .sources
            .error(Span::new(self.file, line, col, len.max(1)), msg);
        self.diags.push(d);
    }

    pub(super) fn warning(&mut self, line: u32, col: u32, len: u32, msg: impl Into<String>) {
        let d = self
            .sources
            .warning(Span::new(self.file, line, col, len.max(1)), msg);
        self.diags.push(d);
    }

    pub(super) fn error_at(&mut self, line: u32, tok: &Token, msg: impl Into<String>) {
        self.error(line, tok.col, tok.len, msg);
    }

    pub(super) fn file_error(&mut self, msg: impl Into<String>) {
        self.diags
            .push(asmdbg_core::Diagnostic::file_error(&self.name, msg));
    }
}

impl Assembler<'_> {
    /// What a statement's operands are, as written: `found 'R1, #x'` or `found no operands`.
    pub(super) fn found_operands(&self, st: &Statement) -> String {
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
    pub(super) fn illegal_operands(&mut self, st: &Statement, name: &str) {
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

    pub(super) fn label_missing(&mut self, line: u32, t: &Token, name: &str) {
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
    pub(super) fn operands_without_instruction(&mut self, st: &Statement) {
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
}

pub(super) fn describe_forms(m: Mnemonic) -> String {
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
