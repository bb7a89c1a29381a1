//! The statement model: the five directives, what a statement is built around, what it puts
//! into memory, and the statement itself (one a source line with tokens on it).

use asmdbg_core::DataDirective;

use super::lexer::{Token, TokenKind};
use super::mnemonics::Mnemonic;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Directive {
    Orig,
    Fill,
    Blkw,
    Stringz,
    End,
}

impl Directive {
    pub(super) fn parse(word: &str) -> Option<Directive> {
        Some(match word.to_ascii_uppercase().as_str() {
            ".ORIG" => Directive::Orig,
            ".FILL" => Directive::Fill,
            ".BLKW" => Directive::Blkw,
            ".STRINGZ" => Directive::Stringz,
            ".END" => Directive::End,
            _ => return None,
        })
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            Directive::Orig => ".ORIG",
            Directive::Fill => ".FILL",
            Directive::Blkw => ".BLKW",
            Directive::Stringz => ".STRINGZ",
            Directive::End => ".END",
        }
    }

    /// What the directive takes, for messages.
    pub(super) fn operands(self) -> &'static str {
        match self {
            Directive::Orig => ".ORIG address",
            Directive::Fill => ".FILL number or label",
            Directive::Blkw => ".BLKW count",
            Directive::Stringz => ".STRINGZ \"string\"",
            Directive::End => ".END",
        }
    }

    pub(super) fn holds_data(self) -> bool {
        self.data_directive().is_some()
    }

    /// The fact the ELF writer reads (see targets/core/src/symbols.rs).
    pub(super) fn data_directive(self) -> Option<DataDirective> {
        match self {
            Directive::Fill => Some(DataDirective::Fill),
            Directive::Blkw => Some(DataDirective::Blkw),
            Directive::Stringz => Some(DataDirective::Stringz),
            Directive::Orig | Directive::End => None,
        }
    }
}

/// What a statement is built around.
#[derive(Debug, Clone, Copy)]
pub(super) enum Base {
    Inst(Mnemonic),
    Directive(Directive),
    /// A `.word` that is no directive (lc3tools: `invalid pseudo-op`).
    UnknownDirective,
    /// A word one edit away from a mnemonic where an instruction is expected.
    Misspelt(&'static str),
}

/// What a statement puts into memory, decided when addresses are laid out.
#[derive(Debug, Clone)]
pub(super) enum Emit {
    Nothing,
    Words(Vec<u16>),
    Zeros(u32),
    FillLabel(usize),
    Inst(Mnemonic),
    /// Already reported; occupies one word so later addresses stay where lc3tools puts them.
    Invalid,
}

impl Emit {
    pub(super) fn size(&self) -> u32 {
        match self {
            Emit::Nothing => 0,
            Emit::Words(w) => w.len() as u32,
            Emit::Zeros(n) => *n,
            Emit::FillLabel(_) | Emit::Inst(_) | Emit::Invalid => 1,
        }
    }
}

#[derive(Debug)]
pub(super) struct Statement {
    pub(super) line: u32,
    pub(super) tokens: Vec<Token>,
    pub(super) label: Option<usize>,
    pub(super) base: Option<(usize, Base)>,
    /// Index of the first operand token.
    pub(super) operands: usize,
    pub(super) emit: Emit,
    pub(super) addr: Option<u16>,
    pub(super) segment: Option<usize>,
}

impl Statement {
    pub(super) fn operand_tokens(&self) -> &[Token] {
        self.tokens.get(self.operands..).unwrap_or(&[])
    }

    /// Column after the last character of the statement (comment excluded).
    pub(super) fn end_col(&self) -> u32 {
        self.tokens
            .iter()
            .map(|t| match t.kind {
                TokenKind::Str {
                    terminated: true, ..
                } => t.col + t.len + 1,
                _ => t.col + t.len,
            })
            .max()
            .unwrap_or(1)
    }
}
