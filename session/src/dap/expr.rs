//! The expressions the IDE sends: breakpoint conditions, log message holes, hovers, watch
//! expressions and debug-console input. C's operators and precedence over the machine's names:
//! registers (`R1`, `$t0`, `r14`, `pc`, with or without `$`), labels (a label is the word stored
//! there, as gdb prints a variable; `&LABEL` is its address), `*ADDR` for the word at an address,
//! and numbers in the notations of all three assemblers (`42`, `-1`, `0x1F`, `x3000`, `#12`,
//! `0b101`).
//!
//! Values are signed 64-bit; registers and words are sign-extended from their width, so
//! `R1 == -1` holds for an LC-3 R1 of xFFFF as a student means it.

/// What names mean, from the stopped machine.
pub trait ExprContext {
    /// A register's value (sign-extended), by any of its names, without `$`.
    fn register(&self, name: &str) -> Option<i64>;
    /// A label's native address.
    fn label(&self, name: &str) -> Option<u64>;
    /// The natural word at a native address (sign-extended).
    fn word(&self, addr: u64) -> Option<i64>;
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Num(i64),
    Name(String),
    Op(&'static str),
    Open,
    Close,
}

const OPS: &[&str] = &[
    "||", "&&", "==", "!=", "<=", ">=", "<<", ">>", "|", "^", "&", "<", ">", "+", "-", "*", "/",
    "%", "!", "~",
];

fn tokens(text: &str) -> Result<Vec<Token>, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i] as char;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c == '(' || c == '[' {
            // `[ADDR]` reads like `*(ADDR)`.
            if c == '[' {
                out.push(Token::Op("*"));
            }
            out.push(Token::Open);
            i += 1;
            continue;
        }
        if c == ')' || c == ']' {
            out.push(Token::Close);
            i += 1;
            continue;
        }
        if c == '#' || c.is_ascii_digit() {
            let start = i + usize::from(c == '#');
            let mut end = start;
            while end < bytes.len() && (bytes[end] as char).is_ascii_alphanumeric() {
                end += 1;
            }
            let word = &text[start..end];
            out.push(Token::Num(
                number(word).ok_or_else(|| format!("{word:?} is not a number"))?,
            ));
            i = end;
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' || c == '$' || c == '.' {
            let mut end = i + 1;
            while end < bytes.len() {
                let d = bytes[end] as char;
                if d.is_ascii_alphanumeric() || d == '_' || d == '.' || d == '$' {
                    end += 1;
                } else {
                    break;
                }
            }
            out.push(Token::Name(text[i..end].to_string()));
            i = end;
            continue;
        }
        match OPS.iter().find(|op| text[i..].starts_with(**op)) {
            Some(op) => {
                out.push(Token::Op(op));
                i += op.len();
            }
            None => return Err(format!("unexpected {c:?} in {text:?}")),
        }
    }
    Ok(out)
}

/// A number in any of the assemblers' notations (no sign).
pub fn number(word: &str) -> Option<i64> {
    let lower = word.to_ascii_lowercase();
    let (digits, radix) = if let Some(h) = lower.strip_prefix("0x") {
        (h, 16)
    } else if let Some(b) = lower.strip_prefix("0b") {
        (b, 2)
    } else if let Some(h) = lower.strip_prefix('x') {
        (h, 16)
    } else {
        (lower.as_str(), 10)
    };
    if digits.is_empty() {
        return None;
    }
    i64::from_str_radix(digits, radix).ok()
}

struct Parser<'a> {
    tokens: Vec<Token>,
    at: usize,
    ctx: &'a dyn ExprContext,
    /// Nesting so far: a typed expression cannot overflow the stack.
    depth: usize,
}

/// Deepest nesting of parentheses and unary operators accepted.
const MAX_DEPTH: usize = 200;

/// Binary operators by precedence, loosest first.
const LEVELS: &[&[&str]] = &[
    &["||"],
    &["&&"],
    &["|"],
    &["^"],
    &["&"],
    &["==", "!="],
    &["<", "<=", ">", ">="],
    &["<<", ">>"],
    &["+", "-"],
    &["*", "/", "%"],
];

impl Parser<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn binary(&mut self, level: usize) -> Result<i64, String> {
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut left = self.binary(level + 1)?;
        loop {
            let op = match self.peek() {
                Some(Token::Op(op)) if LEVELS[level].contains(op) => *op,
                _ => return Ok(left),
            };
            self.at += 1;
            let right = self.binary(level + 1)?;
            left = apply(op, left, right)?;
        }
    }

    fn unary(&mut self) -> Result<i64, String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(format!("the expression nests deeper than {MAX_DEPTH}"));
        }
        let value = self.unary_inner();
        self.depth -= 1;
        value
    }

    fn unary_inner(&mut self) -> Result<i64, String> {
        match self.peek().cloned() {
            Some(Token::Op("-")) => {
                self.at += 1;
                Ok(self.unary()?.wrapping_neg())
            }
            Some(Token::Op("+")) => {
                self.at += 1;
                self.unary()
            }
            Some(Token::Op("!")) => {
                self.at += 1;
                Ok(i64::from(self.unary()? == 0))
            }
            Some(Token::Op("~")) => {
                self.at += 1;
                Ok(!self.unary()?)
            }
            Some(Token::Op("*")) => {
                self.at += 1;
                let addr = self.unary()?;
                self.ctx
                    .word(addr as u64)
                    .ok_or_else(|| format!("cannot read memory at {addr:#x}"))
            }
            Some(Token::Op("&")) => {
                self.at += 1;
                match self.peek().cloned() {
                    Some(Token::Name(name)) => {
                        self.at += 1;
                        self.ctx
                            .label(&name)
                            .map(|a| a as i64)
                            .ok_or_else(|| format!("no label {name:?}"))
                    }
                    _ => Err("& takes a label".to_string()),
                }
            }
            _ => self.primary(),
        }
    }

    fn primary(&mut self) -> Result<i64, String> {
        let token = self.peek().cloned();
        self.at += 1;
        match token {
            Some(Token::Num(n)) => Ok(n),
            Some(Token::Open) => {
                let value = self.binary(0)?;
                match self.peek() {
                    Some(Token::Close) => {
                        self.at += 1;
                        Ok(value)
                    }
                    _ => Err("a ')' is missing".to_string()),
                }
            }
            Some(Token::Name(name)) => self.name(&name),
            Some(other) => Err(format!("unexpected {other:?}")),
            None => Err("the expression ends too soon".to_string()),
        }
    }

    fn name(&self, name: &str) -> Result<i64, String> {
        let bare = name.strip_prefix('$').unwrap_or(name);
        if let Some(v) = self.ctx.register(bare) {
            return Ok(v);
        }
        if let Some(addr) = self.ctx.label(name) {
            return self
                .ctx
                .word(addr)
                .ok_or_else(|| format!("cannot read {name} at {addr:#x}"));
        }
        // An LC-3 hexadecimal number without a label of that name (`xFF`).
        if let Some(n) = number(name).filter(|_| name.starts_with(['x', 'X'])) {
            return Ok(n);
        }
        Err(format!("no register or label named {name:?}"))
    }
}

fn apply(op: &str, a: i64, b: i64) -> Result<i64, String> {
    Ok(match op {
        "||" => i64::from(a != 0 || b != 0),
        "&&" => i64::from(a != 0 && b != 0),
        "|" => a | b,
        "^" => a ^ b,
        "&" => a & b,
        "==" => i64::from(a == b),
        "!=" => i64::from(a != b),
        "<" => i64::from(a < b),
        "<=" => i64::from(a <= b),
        ">" => i64::from(a > b),
        ">=" => i64::from(a >= b),
        "<<" => a.wrapping_shl(b as u32),
        ">>" => a.wrapping_shr(b as u32),
        "+" => a.wrapping_add(b),
        "-" => a.wrapping_sub(b),
        "*" => a.wrapping_mul(b),
        "/" | "%" if b == 0 => return Err("division by zero".to_string()),
        "/" => a.wrapping_div(b),
        "%" => a.wrapping_rem(b),
        _ => return Err(format!("unknown operator {op}")),
    })
}

/// Evaluates `text` against the stopped machine.
pub fn evaluate(text: &str, ctx: &dyn ExprContext) -> Result<i64, String> {
    let tokens = tokens(text)?;
    if tokens.is_empty() {
        return Err("the expression is empty".to_string());
    }
    let mut parser = Parser {
        tokens,
        at: 0,
        ctx,
        depth: 0,
    };
    let value = parser.binary(0)?;
    match parser.peek() {
        None => Ok(value),
        Some(t) => Err(format!("unexpected {t:?} after the expression")),
    }
}

/// Sign-extends the low `bits` bits of `value`.
pub fn sign_extend(value: u64, bits: u32) -> i64 {
    if bits == 0 || bits >= 64 {
        return value as i64;
    }
    let shift = 64 - bits;
    ((value << shift) as i64) >> shift
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Lc3Like;
    impl ExprContext for Lc3Like {
        fn register(&self, name: &str) -> Option<i64> {
            match name.to_ascii_uppercase().as_str() {
                "R1" => Some(sign_extend(0xFFFF, 16)),
                "R2" => Some(7),
                "PC" => Some(0x3005),
                _ => None,
            }
        }
        fn label(&self, name: &str) -> Option<u64> {
            (name == "CURRENT_PLAYER").then_some(0x4000)
        }
        fn word(&self, addr: u64) -> Option<i64> {
            (addr == 0x4000).then_some(2)
        }
    }

    #[test]
    fn operators_names_and_notations() {
        let e = |t: &str| evaluate(t, &Lc3Like);
        assert_eq!(e("R1 == -1"), Ok(1));
        assert_eq!(e("$r2 * 2 + 1"), Ok(15));
        assert_eq!(e("CURRENT_PLAYER == 2 && R2 > #6"), Ok(1));
        assert_eq!(e("&CURRENT_PLAYER"), Ok(0x4000));
        assert_eq!(e("*x4000 + [0x4000]"), Ok(4));
        assert_eq!(e("pc - x3000"), Ok(5));
        assert_eq!(e("(1 + 2) * 3 % 4"), Ok(1));
        assert_eq!(e("0b101 | 0x10 ^ 1"), Ok(0b10101), "^ binds tighter than |");
        assert_eq!(e("!R2 || ~0 == -1"), Ok(1));
        assert!(e("R9").unwrap_err().contains("no register or label"));
        assert!(e("1 +").unwrap_err().contains("ends too soon"));
        assert!(e("(1").unwrap_err().contains("')' is missing"));
        assert!(e("1 / 0").unwrap_err().contains("division by zero"));
        assert!(e("*1").unwrap_err().contains("cannot read memory"));
        assert!(e("1 2").unwrap_err().contains("after the expression"));
        assert!(e("@").is_err());
        let deep = format!("{}1{}", "(".repeat(100_000), ")".repeat(100_000));
        assert!(e(&deep).unwrap_err().contains("nests deeper"));
        assert!(e(&"-".repeat(100_000))
            .unwrap_err()
            .contains("nests deeper"));
    }
}
