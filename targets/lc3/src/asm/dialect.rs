//! Where the two dialects differ in reading a line: lc3tools takes an exact mnemonic or
//! directive first as the base, else the first word as a label unless it is a typo of a
//! mnemonic; lc3as wants a mnemonic or directive, or a label of letters, digits and `_` before
//! one. Also the value checks of both (lc3tools' signed and unsigned ranges, lc3as' `read_val`).

use super::lexer::{self, Token};
use super::mnemonics;
use super::report::Reporter;
use super::statement::{Base, Directive, Emit, Statement};
use super::Assembler;

pub(super) fn is_lc3as_label(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// lc3tools' range rule for signed fields.
pub(super) fn lc3tools_signed(value: i64, bits: u32) -> Result<u16, String> {
    let lo = -(1i64 << (bits - 1));
    let hi = (1i64 << (bits - 1)) - 1;
    if value < lo || value > hi {
        return Err(format!(
            "cannot encode as {bits}-bit 2's complement number ({lo}..{hi}): {value}"
        ));
    }
    Ok((value & ((1 << bits) - 1)) as u16)
}

/// lc3tools' range rule for unsigned fields (trap vectors, `.ORIG`, `.BLKW`).
pub(super) fn lc3tools_unsigned(value: i64, bits: u32) -> Result<u16, String> {
    let hi = (1i64 << bits) - 1;
    if !(0..=hi).contains(&value) {
        return Err(format!(
            "cannot encode as {bits}-bit unsigned number (0..{hi}): {value}"
        ));
    }
    Ok(value as u16)
}

/// lc3as' `read_val`: x8000..xFFFF count as negative, then anything from -2^(bits-1) to
/// 2^bits - 1 is accepted and wrapped into the field (`ADD R1,R1,#16` gives imm5 = -16).
pub(super) fn lc3as_value(value: i64, bits: u32) -> Result<u16, String> {
    let value = if (0x8000..0x1_0000).contains(&value) {
        value - 0x1_0000
    } else {
        value
    };
    if value < -(1i64 << (bits - 1)) || value >= (1i64 << bits) {
        return Err("constant outside of allowed range".to_string());
    }
    Ok((value & ((1 << bits) - 1)) as u16)
}

impl Assembler<'_> {
    pub(super) fn parse(&mut self) -> Vec<Statement> {
        let mut statements = Vec::new();
        for line in 1..=self.file.line_count() {
            let tokens = lexer::lex_line(self.file.line(line), self.strict);
            if tokens.is_empty() {
                continue;
            }
            let mut st = Statement {
                line,
                tokens,
                label: None,
                base: None,
                operands: 0,
                emit: Emit::Nothing,
                addr: None,
                segment: None,
            };
            let ok = if self.strict {
                self.classify_lc3as(&mut st)
            } else {
                self.classify_lc3tools(&mut st);
                true
            };
            if ok {
                statements.push(st);
            }
        }
        statements
    }

    fn base_of(&self, word: &str) -> Option<Base> {
        if word.starts_with('.') {
            return Some(match Directive::parse(word) {
                Some(d) => Base::Directive(d),
                None => Base::UnknownDirective,
            });
        }
        mnemonics::lookup(word, self.strict)
            .or_else(|| self.pennsim.then(|| mnemonics::pennsim(word)).flatten())
            .map(Base::Inst)
    }

    /// lc3tools' reading of a line: an exact mnemonic or directive first is the base; otherwise
    /// the first word is a label unless it is one edit from a mnemonic and operands follow.
    fn classify_lc3tools(&self, st: &mut Statement) {
        let first = st.tokens[0].word();
        let second = st.tokens.get(1).map(|t| t.word());
        let second_base = second.flatten().and_then(|w| self.base_of(w));
        let Some(w0) = first else {
            st.label = Some(0);
            st.operands = 1;
            if let Some(b1) = second_base {
                st.base = Some((1, b1));
                st.operands = 2;
            }
            return;
        };
        if let Some(base) = self.base_of(w0) {
            if let (Base::Inst(_), Some(b1 @ (Base::Directive(_) | Base::UnknownDirective))) =
                (base, second_base)
            {
                st.label = Some(0);
                st.base = Some((1, b1));
                st.operands = 2;
            } else {
                st.base = Some((0, base));
                st.operands = 1;
            }
            return;
        }
        let (d0, name0) = mnemonics::nearest(w0, false);
        match second {
            None => {
                st.label = Some(0);
                st.operands = 1;
            }
            Some(_) if second_base.is_some() => {
                st.label = Some(0);
                st.base = second_base.map(|b| (1, b));
                st.operands = 2;
            }
            Some(Some(w1)) if mnemonics::register(w1).is_none() => {
                let (d1, name1) = mnemonics::nearest(w1, false);
                st.label = Some(0);
                st.operands = 1;
                if d1 < d0 && d1 < 2 {
                    st.base = Some((1, Base::Misspelt(name1)));
                    st.operands = 2;
                } else if d1 >= d0 && d0 < 2 {
                    st.label = None;
                    st.base = Some((0, Base::Misspelt(name0)));
                }
            }
            Some(_) => {
                if d0 < 2 {
                    st.base = Some((0, Base::Misspelt(name0)));
                } else {
                    st.label = Some(0);
                }
                st.operands = 1;
            }
        }
    }

    /// lc3as' reading of a line: a mnemonic or directive, or a label (letters, digits, `_`)
    /// followed by one. Returns false when the line was rejected outright.
    fn classify_lc3as(&mut self, st: &mut Statement) -> bool {
        let line = st.line;
        let unrecognizable = |rep: &mut Reporter, tok: &Token| {
            rep.error_at(line, tok, "contains unrecognizable characters");
            false
        };
        let Some(w0) = st.tokens[0].word() else {
            return unrecognizable(&mut self.rep, &st.tokens[0]);
        };
        let colon_label = st.tokens[0].colon_after && is_lc3as_label(w0);
        match self.base_of(w0) {
            Some(Base::UnknownDirective) => return unrecognizable(&mut self.rep, &st.tokens[0]),
            Some(base) if !colon_label => {
                st.base = Some((0, base));
                st.operands = 1;
                return true;
            }
            _ if !is_lc3as_label(w0) => return unrecognizable(&mut self.rep, &st.tokens[0]),
            _ => {}
        }
        st.label = Some(0);
        st.operands = 1;
        let Some(second) = st.tokens.get(1) else {
            return true;
        };
        match second.word().and_then(|w| self.base_of(w)) {
            Some(Base::UnknownDirective) | None => {
                self.operands_without_instruction(st);
                false
            }
            Some(base) => {
                st.base = Some((1, base));
                st.operands = 2;
                true
            }
        }
    }
}
