//! One source line into tokens, plus the number and string-escape syntax of both dialects.
//!
//! The token rules follow lc3tools, because that is what student code is written against:
//! spaces, tabs, commas and colons all separate tokens, `;` starts a comment outside a string, a
//! quoted string is one token. Whether a comma preceded a token is remembered, because lc3as
//! (strict mode) requires commas between operands.

/// What a token is, as far as the lexer can tell without context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TokenKind {
    /// A number in the dialect's syntax (value not yet range-checked).
    Num(i64),
    /// A quoted string: the raw text between the quotes, escapes not applied.
    Str { raw: String, terminated: bool },
    /// Anything else: opcode, directive, register or label.
    Word(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Token {
    pub kind: TokenKind,
    /// 1-based column in characters. For strings it is the first character after the opening
    /// quote, which is where lc3tools puts its caret.
    pub col: u32,
    /// Length in characters (the string body for strings).
    pub len: u32,
    /// How many commas stood between this token and the previous one.
    pub commas_before: u8,
    /// A colon followed (possibly after spaces): lc3as' `LABEL:` form, which lets a label
    /// take an opcode's name.
    pub colon_after: bool,
}

impl Token {
    pub fn word(&self) -> Option<&str> {
        match &self.kind {
            TokenKind::Word(w) => Some(w),
            _ => None,
        }
    }

    /// The token as a message names what it found: `'R1'`, `the number 5`, `a string`.
    pub fn describe(&self) -> String {
        match &self.kind {
            TokenKind::Word(w) => format!("'{w}'"),
            TokenKind::Num(n) => format!("the number {n}"),
            TokenKind::Str { .. } => "a string".to_string(),
        }
    }
}

fn is_separator(c: char) -> bool {
    matches!(c, ' ' | '\t' | ',' | ':' | '\r')
}

/// Splits one line (without its line ending) into tokens; the comment is dropped.
pub(crate) fn lex_line(line: &str, strict: bool) -> Vec<Token> {
    let chars: Vec<char> = line.chars().collect();
    let mut tokens: Vec<Token> = Vec::new();
    let mut i = 0;
    loop {
        let mut commas_before = 0u8;
        while i < chars.len() && is_separator(chars[i]) {
            if chars[i] == ',' {
                commas_before = commas_before.saturating_add(1);
            }
            if chars[i] == ':' && commas_before == 0 {
                if let Some(previous) = tokens.last_mut() {
                    previous.colon_after = true;
                }
            }
            i += 1;
        }
        if i >= chars.len() || chars[i] == ';' {
            break;
        }
        if chars[i] == '"' {
            let start = i + 1;
            let mut j = start;
            while j < chars.len() && chars[j] != '"' {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            let end = j.min(chars.len());
            tokens.push(Token {
                kind: TokenKind::Str {
                    raw: chars[start..end].iter().collect(),
                    terminated: j < chars.len(),
                },
                col: start as u32 + 1,
                len: (end - start) as u32,
                commas_before,
                colon_after: false,
            });
            i = end + 1;
            continue;
        }
        let start = i;
        while i < chars.len() && !is_separator(chars[i]) && chars[i] != ';' {
            i += 1;
        }
        let text: String = chars[start..i].iter().collect();
        let number = if strict {
            parse_number_lc3as(&text)
        } else {
            parse_number_lc3tools(&text)
        };
        tokens.push(Token {
            kind: match number {
                Some(n) => TokenKind::Num(n),
                None => TokenKind::Word(text),
            },
            col: start as u32 + 1,
            len: (i - start) as u32,
            commas_before,
            colon_after: false,
        });
    }
    tokens
}

/// Digits in `base` to a value; saturates far outside any LC-3 range so that a huge literal is
/// reported as out of range instead of overflowing.
fn digits_value(digits: &str, base: u32) -> Option<i64> {
    if digits.is_empty() {
        return None;
    }
    let mut value: i64 = 0;
    for c in digits.chars() {
        let d = c.to_digit(base)?;
        value = value
            .saturating_mul(i64::from(base))
            .saturating_add(i64::from(d))
            .min(1 << 40);
    }
    Some(value)
}

fn signed_digits(rest: &str, base: u32) -> Option<i64> {
    match rest.strip_prefix('-') {
        Some(digits) => digits_value(digits, base).map(|v| -v),
        None => digits_value(rest, base),
    }
}

/// lc3tools: `b`/`B` binary, `x`/`X` hex, `#` decimal or bare decimal, each optionally followed
/// by `-` (so `x-10` is -16 and `#x5` is not a number).
pub(crate) fn parse_number_lc3tools(text: &str) -> Option<i64> {
    let mut chars = text.chars();
    let (base, rest) = match chars.next()? {
        'b' | 'B' => (2, chars.as_str()),
        'x' | 'X' => (16, chars.as_str()),
        '#' => (10, chars.as_str()),
        _ => (10, text),
    };
    signed_digits(rest, base)
}

/// lc3as: `x`/`X` hex or `#`-optional decimal, with an optional `-` after the prefix; no binary.
pub(crate) fn parse_number_lc3as(text: &str) -> Option<i64> {
    let mut chars = text.chars();
    match chars.next()? {
        'x' | 'X' => signed_digits(chars.as_str(), 16),
        '#' => signed_digits(chars.as_str(), 10),
        _ => signed_digits(text, 10),
    }
}

/// lc3tools' `.STRINGZ` escapes: `\n \r \t \" \\`; any other backslash is kept as is.
pub(crate) fn unescape_lc3tools(raw: &str) -> Vec<u16> {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len() + 1);
    let mut i = 0;
    while i < bytes.len() {
        let escaped = match (bytes[i], bytes.get(i + 1)) {
            (b'\\', Some(b'\\')) => Some(b'\\'),
            (b'\\', Some(b'n')) => Some(b'\n'),
            (b'\\', Some(b'r')) => Some(b'\r'),
            (b'\\', Some(b't')) => Some(b'\t'),
            (b'\\', Some(b'"')) => Some(b'"'),
            _ => None,
        };
        match escaped {
            Some(b) => {
                out.push(u16::from(b));
                i += 2;
            }
            None => {
                out.push(u16::from(bytes[i]));
                i += 1;
            }
        }
    }
    out
}

/// lc3as' `.STRINGZ` escapes: C's `\a \b \e \f \n \r \t \v \\ \"`; any other escaped character
/// stands for itself (the backslash is dropped).
pub(crate) fn unescape_lc3as(raw: &str) -> Vec<u16> {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len() + 1);
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' {
            if let Some(&next) = bytes.get(i + 1) {
                let value = match next {
                    b'a' => 7,
                    b'b' => 8,
                    b'e' => 27,
                    b'f' => 12,
                    b'n' => 10,
                    b'r' => 13,
                    b't' => 9,
                    b'v' => 11,
                    other => other,
                };
                out.push(u16::from(value));
                i += 2;
                continue;
            }
        }
        out.push(u16::from(bytes[i]));
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(line: &str, strict: bool) -> Vec<TokenKind> {
        lex_line(line, strict).into_iter().map(|t| t.kind).collect()
    }

    fn word(s: &str) -> TokenKind {
        TokenKind::Word(s.into())
    }

    #[test]
    fn lc3tools_numbers() {
        assert_eq!(parse_number_lc3tools("#10"), Some(10));
        assert_eq!(parse_number_lc3tools("#-16"), Some(-16));
        assert_eq!(parse_number_lc3tools("x1F"), Some(31));
        assert_eq!(parse_number_lc3tools("X1f"), Some(31));
        assert_eq!(parse_number_lc3tools("b1010"), Some(10));
        assert_eq!(parse_number_lc3tools("B-11"), Some(-3));
        assert_eq!(parse_number_lc3tools("10"), Some(10));
        assert_eq!(parse_number_lc3tools("-5"), Some(-5));
        assert_eq!(parse_number_lc3tools("x-1"), Some(-1));
        assert_eq!(parse_number_lc3tools("x-10"), Some(-16));
        assert_eq!(parse_number_lc3tools("xFFFF"), Some(0xFFFF));
    }

    #[test]
    fn lc3tools_non_numbers_are_words() {
        for text in [
            "#x5", "0x1F", "x", "#", "b", "b12", "BR", "xG", "1ABC", "'A'", "x-", "--1",
        ] {
            assert_eq!(parse_number_lc3tools(text), None, "{text}");
        }
    }

    #[test]
    fn lc3as_numbers() {
        assert_eq!(parse_number_lc3as("#10"), Some(10));
        assert_eq!(parse_number_lc3as("-7"), Some(-7));
        assert_eq!(parse_number_lc3as("x-1"), Some(-1));
        assert_eq!(parse_number_lc3as("xabcd"), Some(0xABCD));
        assert_eq!(parse_number_lc3as("b1010"), None);
        assert_eq!(parse_number_lc3as("#x5"), None);
        assert_eq!(parse_number_lc3as("0x1F"), None);
    }

    #[test]
    fn huge_numbers_saturate_instead_of_overflowing() {
        let v = parse_number_lc3tools("#99999999999999999999999999").unwrap_or(0);
        assert!(v > 0xFFFF);
        let v = parse_number_lc3as("x-FFFFFFFFFFFFFFFFFFFFFFFF").unwrap_or(0);
        assert!(v < -0x8000);
    }

    #[test]
    fn separators_comments_and_columns() {
        let toks = lex_line("LOOP:\tADD R1 ,R1,#-1 ; x, y", false);
        assert_eq!(
            toks.iter().map(|t| t.kind.clone()).collect::<Vec<_>>(),
            vec![
                word("LOOP"),
                word("ADD"),
                word("R1"),
                word("R1"),
                TokenKind::Num(-1)
            ]
        );
        assert_eq!(
            toks.iter().map(|t| (t.col, t.len)).collect::<Vec<_>>(),
            vec![(1, 4), (7, 3), (11, 2), (15, 2), (18, 3)]
        );
        assert_eq!(
            toks.iter().map(|t| t.commas_before).collect::<Vec<_>>(),
            vec![0, 0, 0, 1, 1]
        );
        assert_eq!(
            toks.iter().map(|t| t.colon_after).collect::<Vec<_>>(),
            vec![true, false, false, false, false]
        );
        assert!(lex_line("ADD :", true)[0].colon_after);
    }

    #[test]
    fn strings_keep_semicolons_and_escaped_quotes() {
        let toks = lex_line("S .STRINGZ \"a;\\\"b\" ; c", false);
        assert_eq!(toks.len(), 3);
        assert_eq!(
            toks[2].kind,
            TokenKind::Str {
                raw: "a;\\\"b".into(),
                terminated: true
            }
        );
        assert_eq!((toks[2].col, toks[2].len), (13, 5));
        let open = kinds(".STRINGZ \"abc", false);
        assert_eq!(
            open[1],
            TokenKind::Str {
                raw: "abc".into(),
                terminated: false
            }
        );
    }

    #[test]
    fn strict_lexing_keeps_binary_as_a_word() {
        assert_eq!(kinds("b1010", true), vec![word("b1010")]);
        assert_eq!(kinds("b1010", false), vec![TokenKind::Num(10)]);
    }

    #[test]
    fn lc3tools_escapes() {
        assert_eq!(
            unescape_lc3tools(r#"a\"b\n\t\\c"#),
            "a\"b\n\t\\c".bytes().map(u16::from).collect::<Vec<_>>()
        );
        assert_eq!(
            unescape_lc3tools(r"\e\r"),
            vec![u16::from(b'\\'), u16::from(b'e'), 13]
        );
        assert_eq!(
            unescape_lc3tools("x\\"),
            vec![u16::from(b'x'), u16::from(b'\\')]
        );
    }

    #[test]
    fn lc3as_escapes() {
        assert_eq!(unescape_lc3as(r"\e\a\q"), vec![27, 7, u16::from(b'q')]);
        assert_eq!(
            unescape_lc3as(r#"\"\\"#),
            vec![u16::from(b'"'), u16::from(b'\\')]
        );
    }
}
