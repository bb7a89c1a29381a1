//! Splits one source line into tokens the way MARS 4.5 does, because which pseudo-instruction
//! template matches depends on how MARS classifies each operand (a 5-bit, 16-bit, unsigned
//! 16-bit or 32-bit integer, a register, a label, ...).
//!
//! MARS's rules kept here: space, tab and comma separate tokens; `(`, `)` and `:` are tokens of
//! their own; `+`/`-` start a signed number only when a digit follows and the previous token is
//! not an identifier (so `label+4` is three tokens and `-4` is one); `#` starts a comment
//! outside strings; a string ends at a `"` not preceded by a backslash; character literals
//! become integers.

use std::collections::HashSet;
use std::sync::OnceLock;

use super::basic::BASIC_INSTRUCTIONS;
use super::pseudo_table::PSEUDO_OPS;
use crate::javaparse::{decode_int, java_digit, parse_double};

/// What a token is. Registers keep their number; integers their 32-bit value.
#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    /// An identifier, mnemonic or directive name (directives start with `.`).
    Word,
    /// A general register (`$t0` or `$8`).
    Reg(u8),
    /// A floating-point register (`$f0`).
    FpReg(u8),
    Int(i32),
    Real(f64),
    /// A quoted string, quotes included in the token text.
    Str,
    LParen,
    RParen,
    Plus,
    Minus,
    Colon,
    /// `%name` inside a macro body.
    MacroParam,
    /// Nothing MARS recognises (`Invalid language element`).
    Error,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    pub kind: Tok,
    pub text: String,
    /// 1-based column (in characters) where the token starts.
    pub col: u32,
}

impl Token {
    pub fn is_word(&self, text: &str) -> bool {
        self.kind == Tok::Word && self.text == text
    }

    /// Length in characters, for the caret under an error.
    pub fn width(&self) -> u32 {
        self.text.chars().count().max(1) as u32
    }
}

const REGISTER_NAMES: [&str; 32] = [
    "zero", "at", "v0", "v1", "a0", "a1", "a2", "a3", "t0", "t1", "t2", "t3", "t4", "t5", "t6",
    "t7", "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "t8", "t9", "k0", "k1", "gp", "sp", "fp",
    "ra",
];

/// The MARS name of general register `n` (`$t0`), for messages and disassembly.
pub fn register_name(n: u8) -> &'static str {
    REGISTER_NAMES.get(n as usize).copied().unwrap_or("?")
}

/// `$t0`, `$8` → 8.
pub fn parse_register(text: &str) -> Option<u8> {
    let body = text.strip_prefix('$')?;
    if let Some(i) = REGISTER_NAMES.iter().position(|&n| n == body) {
        return Some(i as u8);
    }
    parse_small_decimal(body)
}

/// `$f12` → 12.
pub fn parse_fp_register(text: &str) -> Option<u8> {
    parse_small_decimal(text.strip_prefix("$f")?)
}

fn parse_small_decimal(digits: &str) -> Option<u8> {
    if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // MARS accepts `$08`? It looks names up as written, so only canonical spellings count.
    if digits.len() == 2 && digits.starts_with('0') {
        return None;
    }
    let n: u8 = digits.parse().ok()?;
    (n < 32).then_some(n)
}

/// MARS's `Binary.stringToInt`: Java's `Integer.decode` (decimal, `0x`/`#` hex, leading-0 octal,
/// optional sign, any Unicode decimal digit); failing that, two fallbacks of MARS's own:
/// `0x` and exactly eight ASCII hex digits are a 32-bit two's complement pattern
/// (`0xFFFFFFFF` = -1), and a text of ASCII decimal digits only is accumulated in Java's
/// wrapping `int` arithmetic. The second one is what makes `4294967295` the pattern 0xffffffff
/// (-1, which then fits a 16-bit immediate) and `3000000000` the pattern 0xb2d05e00; it also
/// takes `08` as 8 and `4294967296` as 0. A sign defeats both fallbacks, so `-2147483649` and
/// `+2147483648` stay invalid.
pub fn parse_int(text: &str) -> Option<i32> {
    if let Some(v) = decode_int(text) {
        return Some(v);
    }
    let lower = text.to_ascii_lowercase();
    if let Some(hex) = lower.strip_prefix("0x") {
        if hex.len() == 8 && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return u32::from_str_radix(hex, 16).ok().map(|v| v as i32);
        }
        return None;
    }
    // MARS would take an empty text as 0; a token is never empty, so say no.
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(text.bytes().fold(0i32, |acc, b| {
        acc.wrapping_mul(10).wrapping_add(i32::from(b - b'0'))
    }))
}

/// Java's `Double.parseDouble`, which MARS tries on a token that is not an integer.
pub fn parse_real(text: &str) -> Option<f64> {
    parse_double(text)
}

/// MARS's identifier rule: a letter, `_`, `.` or `$`, then letters, digits, `_`, `.`, `$`.
pub fn is_identifier(text: &str) -> bool {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) if c.is_alphabetic() || matches!(c, '_' | '.' | '$') => {}
        _ => return false,
    }
    chars.all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '$'))
}

/// MARS's directives: they, like mnemonics, are not identifiers to the tokenizer.
pub const DIRECTIVES: &[&str] = &[
    ".align",
    ".ascii",
    ".asciiz",
    ".byte",
    ".data",
    ".double",
    ".end_macro",
    ".eqv",
    ".extern",
    ".float",
    ".globl",
    ".half",
    ".include",
    ".kdata",
    ".ktext",
    ".macro",
    ".set",
    ".space",
    ".text",
    ".word",
];

/// A directive or an instruction mnemonic (MARS's DIRECTIVE and OPERATOR tokens).
pub fn is_keyword(text: &str) -> bool {
    static MNEMONICS: OnceLock<HashSet<String>> = OnceLock::new();
    let lower = text.to_ascii_lowercase();
    if DIRECTIVES.contains(&lower.as_str()) {
        return true;
    }
    MNEMONICS
        .get_or_init(|| {
            let basic = BASIC_INSTRUCTIONS.iter().map(|b| b.example);
            let pseudo = PSEUDO_OPS.iter().map(|p| p.0);
            basic
                .chain(pseudo)
                .map(|e| e.split(' ').next().unwrap_or(e).to_string())
                .collect()
        })
        .contains(&lower)
}

fn classify(text: &str) -> Tok {
    if text.len() > 1 && text.starts_with('%') {
        return Tok::MacroParam;
    }
    if let Some(n) = parse_register(text) {
        return Tok::Reg(n);
    }
    if let Some(n) = parse_fp_register(text) {
        return Tok::FpReg(n);
    }
    if let Some(v) = parse_int(text) {
        return Tok::Int(v);
    }
    if let Some(v) = parse_real(text) {
        return Tok::Real(v);
    }
    if text.starts_with('"') {
        return Tok::Str;
    }
    if is_identifier(text) {
        return Tok::Word;
    }
    Tok::Error
}

/// The value of a character literal body (between the quotes), or `None` if MARS rejects it.
fn char_literal(body: &[char]) -> Option<i32> {
    match body {
        [c] if *c != '\\' => Some(*c as i32),
        ['\\', e] => {
            let v = match e {
                '\'' => 39,
                '"' => 34,
                '\\' => 92,
                'n' => 10,
                't' => 9,
                'b' => 8,
                'r' => 13,
                'f' => 12,
                '0' => 0,
                _ => return None,
            };
            Some(v)
        }
        ['\\', a, b, c] => {
            let s: String = [*a, *b, *c].iter().collect();
            let v = i32::from_str_radix(&s, 8).ok()?;
            (0..=255).contains(&v).then_some(v)
        }
        _ => None,
    }
}

struct Lexer {
    tokens: Vec<Token>,
    current: String,
    start: usize,
}

impl Lexer {
    fn flush(&mut self) {
        if self.current.is_empty() {
            return;
        }
        let text = std::mem::take(&mut self.current);
        let kind = if text.len() == 1 {
            match text.as_str() {
                "+" => Tok::Plus,
                "-" => Tok::Minus,
                _ => classify(&text),
            }
        } else {
            classify(&text)
        };
        self.tokens.push(Token {
            kind,
            text,
            col: self.start as u32 + 1,
        });
    }

    fn push_char(&mut self, pos: usize, c: char) {
        if self.current.is_empty() {
            self.start = pos;
        }
        self.current.push(c);
    }

    fn single(&mut self, pos: usize, c: char, kind: Tok) {
        self.flush();
        self.tokens.push(Token {
            kind,
            text: c.to_string(),
            col: pos as u32 + 1,
        });
    }
}

/// Tokenizes one line (comments dropped).
pub fn tokenize(line: &str) -> Vec<Token> {
    let chars: Vec<char> = line.chars().collect();
    let mut lx = Lexer {
        tokens: Vec::new(),
        current: String::new(),
        start: 0,
    };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '#' => break,
            ' ' | '\t' | ',' | '\r' => lx.flush(),
            '+' | '-' => {
                let next_is_digit = chars
                    .get(i + 1)
                    .is_some_and(|&n| java_digit(n, 10).is_some());
                let after_exponent = !lx.current.is_empty()
                    && next_is_digit
                    && matches!(chars.get(i.wrapping_sub(1)), Some('e' | 'E'))
                    && lx
                        .current
                        .starts_with(|d: char| d.is_ascii_digit() || d == '.');
                if after_exponent {
                    lx.current.push(c);
                } else {
                    lx.flush();
                    let prev_is_identifier = lx
                        .tokens
                        .last()
                        .is_some_and(|t| t.kind == Tok::Word && !is_keyword(&t.text));
                    if next_is_digit && !prev_is_identifier {
                        lx.push_char(i, c);
                    } else {
                        lx.single(i, c, if c == '+' { Tok::Plus } else { Tok::Minus });
                    }
                }
            }
            ':' => lx.single(i, c, Tok::Colon),
            '(' => lx.single(i, c, Tok::LParen),
            ')' => lx.single(i, c, Tok::RParen),
            '"' => {
                lx.flush();
                let start = i;
                let mut text = String::from('"');
                i += 1;
                while i < chars.len() {
                    text.push(chars[i]);
                    if chars[i] == '"' && chars[i - 1] != '\\' {
                        break;
                    }
                    i += 1;
                }
                lx.tokens.push(Token {
                    kind: Tok::Str,
                    text,
                    col: start as u32 + 1,
                });
            }
            '\'' => {
                lx.flush();
                let start = i;
                // A literal is at most `'\ooo'`: find the closing quote within reach.
                let mut end = None;
                for j in (i + 2)..chars.len().min(i + 6) {
                    if chars[j] == '\'' && !(j == i + 2 && chars[i + 1] == '\\') {
                        end = Some(j);
                        break;
                    }
                }
                let stop = end.unwrap_or(chars.len().min(i + 3).saturating_sub(1));
                let text: String = chars[start..=stop.max(start)].iter().collect();
                let kind = match end {
                    Some(e) => char_literal(&chars[start + 1..e]).map_or(Tok::Error, Tok::Int),
                    None => Tok::Error,
                };
                lx.tokens.push(Token {
                    kind,
                    text,
                    col: start as u32 + 1,
                });
                i = stop;
            }
            _ => lx.push_char(i, c),
        }
        i += 1;
    }
    lx.flush();
    lx.tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(line: &str) -> Vec<Tok> {
        tokenize(line).into_iter().map(|t| t.kind).collect()
    }

    #[test]
    fn numbers_follow_java_decode_and_mars_hex() {
        assert_eq!(parse_int("10"), Some(10));
        assert_eq!(parse_int("-0x10"), Some(-16));
        assert_eq!(parse_int("0xFFFFFFFF"), Some(-1));
        assert_eq!(parse_int("0x80000000"), Some(i32::MIN));
        assert_eq!(parse_int("010"), Some(8));
        assert_eq!(parse_real("1.5e-3"), Some(0.0015));
    }

    // Expected values from MARS 4.5's Binary.stringToInt: its decimal fallback accumulates in
    // a Java int, which wraps.
    #[test]
    fn unsigned_and_overlong_decimals_wrap_like_mars() {
        assert_eq!(parse_int("2147483648"), Some(i32::MIN));
        assert_eq!(parse_int("3000000000"), Some(0xb2d0_5e00_u32 as i32));
        assert_eq!(parse_int("4294967295"), Some(-1));
        assert_eq!(parse_int("4294967296"), Some(0));
        assert_eq!(parse_int("08"), Some(8));
        assert_eq!(parse_int("-2147483648"), Some(i32::MIN));
        assert_eq!(parse_int("-2147483649"), None);
        assert_eq!(parse_int("+2147483648"), None);
        assert_eq!(parse_int("0x100000000"), None);
        assert_eq!(parse_int("0xFFFFFFFG"), None);
        assert_eq!(parse_int("-0xFFFFFFFF"), None);
        assert_eq!(parse_int("\u{FF11}\u{FF12}"), Some(12));
        assert_eq!(parse_int("\u{FF14}294967295"), None);
    }

    #[test]
    fn signs_are_unary_only_before_digits_and_not_after_labels() {
        assert_eq!(
            kinds("lw $t0, -4($sp)"),
            vec![
                Tok::Word,
                Tok::Reg(8),
                Tok::Int(-4),
                Tok::LParen,
                Tok::Reg(29),
                Tok::RParen
            ]
        );
        assert_eq!(
            kinds("la $a0, msg+4"),
            vec![Tok::Word, Tok::Reg(4), Tok::Word, Tok::Plus, Tok::Int(4)]
        );
        assert_eq!(kinds("x - 4"), vec![Tok::Word, Tok::Minus, Tok::Int(4)]);
    }

    #[test]
    fn strings_comments_and_char_literals() {
        let t = tokenize("msg: .asciiz \"a # b, c\" # comment");
        assert_eq!(t.len(), 4);
        assert_eq!(t[3].text, "\"a # b, c\"");
        assert_eq!(t[3].col, 14);
        assert_eq!(
            kinds("li $t0, 'a'"),
            vec![Tok::Word, Tok::Reg(8), Tok::Int(97)]
        );
        assert_eq!(
            kinds("li $t0, '\\n'"),
            vec![Tok::Word, Tok::Reg(8), Tok::Int(10)]
        );
        assert_eq!(
            kinds("li $t0, '\\101'"),
            vec![Tok::Word, Tok::Reg(8), Tok::Int(65)]
        );
        assert_eq!(
            kinds("li $t0, ' '"),
            vec![Tok::Word, Tok::Reg(8), Tok::Int(32)]
        );
    }

    #[test]
    fn registers_and_identifiers() {
        assert_eq!(
            kinds("$zero $31 $f31 $f32 $s8 %arg"),
            vec![
                Tok::Reg(0),
                Tok::Reg(31),
                Tok::FpReg(31),
                Tok::Word,
                Tok::Word,
                Tok::MacroParam
            ]
        );
        assert_eq!(kinds("1.5e+3"), vec![Tok::Real(1500.0)]);
    }
}
