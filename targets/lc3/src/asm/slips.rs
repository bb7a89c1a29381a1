//! Assembly slips (targets/core/src/slips.rs): a line whose only word is one edit from an
//! instruction or trap alias (`PUST`, `HALTT`, `RETT`) is a label, legal in both dialects, so the
//! program assembles and then runs on into whatever follows. When nothing refers to that label
//! (a label that is used was meant), a warning says what it looks like.

use std::collections::HashSet;

use asmdbg_core::slips::one_edit_from;

use super::lexer::TokenKind;
use super::mnemonics::{all_names, lookup};
use super::statement::Statement;
use super::Assembler;

impl Assembler<'_> {
    pub(super) fn warn_slips(&mut self, statements: &[Statement]) {
        let used: HashSet<String> = statements
            .iter()
            .flat_map(|st| st.operand_tokens())
            .filter_map(|t| match &t.kind {
                TokenKind::Word(w) => Some(w.to_ascii_uppercase()),
                _ => None,
            })
            .collect();
        for st in statements {
            let (Some(0), None, [token]) = (st.label, &st.base, st.tokens.as_slice()) else {
                continue;
            };
            let TokenKind::Word(word) = &token.kind else {
                continue;
            };
            // lc3tools' own names (`PUTC`, `NOP`) are labels under lc3as by its rule, which
            // --strict keeps: not a slip.
            let other_dialect = lookup(word, false).is_some();
            if token.colon_after || other_dialect || used.contains(&word.to_ascii_uppercase()) {
                continue;
            }
            if let Some(name) = one_edit_from(word, all_names(self.strict)) {
                self.rep.warning(
                    st.line,
                    token.col,
                    token.len,
                    format!(
                        "label `{word}` looks like the instruction {name}: a line with only a \
                         label does nothing (nothing refers to it)"
                    ),
                );
            }
        }
    }
}
