//! The three instruction sets, and telling them apart from a source file.

use std::fmt;
use std::str::FromStr;

/// One of the machines asmdbg emulates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Isa {
    Lc3,
    Mips,
    SimpleRisc,
}

impl Isa {
    pub const ALL: [Isa; 3] = [Isa::Lc3, Isa::Mips, Isa::SimpleRisc];

    /// The name used on the command line (`--isa NAME`).
    pub fn name(self) -> &'static str {
        match self {
            Isa::Lc3 => "lc3",
            Isa::Mips => "mips",
            Isa::SimpleRisc => "simplerisc",
        }
    }
}

impl Isa {
    /// A native address as the ISA's tools print it (`x3000`, `0x00400000`, `12`).
    pub fn format_addr(self, addr: u64) -> String {
        match self {
            Isa::Lc3 => format!("x{addr:04X}"),
            Isa::Mips => format!("0x{addr:08x}"),
            Isa::SimpleRisc => format!("{addr}"),
        }
    }

    /// The name people write (`LC-3`, `MIPS`, `SimpleRISC`).
    pub fn title(self) -> &'static str {
        match self {
            Isa::Lc3 => "LC-3",
            Isa::Mips => "MIPS",
            Isa::SimpleRisc => "SimpleRISC",
        }
    }
}

impl fmt::Display for Isa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Isa {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "lc3" | "lc-3" => Ok(Isa::Lc3),
            "mips" | "mars" => Ok(Isa::Mips),
            "simplerisc" | "simple-risc" | "sr" => Ok(Isa::SimpleRisc),
            _ => Err(format!(
                "unknown ISA '{s}': expected one of lc3, mips, simplerisc"
            )),
        }
    }
}

/// Parses an integer the way the three assemblers write them: `42`, `-7`, `0x2A`, `x2A`, `#42`,
/// `0b101`, with an optional sign.
pub fn parse_number(text: &str) -> Option<i64> {
    let t = text.trim();
    let (neg, body) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let body = body.strip_prefix('#').unwrap_or(body);
    let value = if let Some(hex) = body
        .strip_prefix("0x")
        .or_else(|| body.strip_prefix("0X"))
        .or_else(|| body.strip_prefix('x'))
        .or_else(|| body.strip_prefix('X'))
    {
        i64::from_str_radix(hex, 16).ok()?
    } else if let Some(bin) = body.strip_prefix("0b").or_else(|| body.strip_prefix("0B")) {
        i64::from_str_radix(bin, 2).ok()?
    } else {
        body.parse::<i64>().ok()?
    };
    Some(if neg { value.checked_neg()? } else { value })
}

/// Why the ISA of a file could not be inferred.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DetectError {
    #[error(
        "cannot tell which ISA this file is written for; name it with --isa lc3|mips|simplerisc"
    )]
    Unknown,
    #[error("this file could be {}; name the one you mean with --isa", list(.0))]
    Ambiguous(Vec<Isa>),
}

fn list(isas: &[Isa]) -> String {
    let names: Vec<&str> = isas.iter().map(|i| i.name()).collect();
    names.join(" or ")
}

/// How to recognise one ISA's assembly source; each ISA's backend gives its own.
#[derive(Debug, Clone, Copy)]
pub struct Dialect {
    pub isa: Isa,
    /// What starts a comment in this dialect.
    pub comments: &'static [&'static str],
    /// Whether a line carries a mark this dialect cannot do without. The line is lower-case,
    /// trimmed and not empty, with string and character literals emptied and the comments of
    /// every dialect cut off; `first` is its first word.
    pub marks: fn(line: &str, first: &str) -> bool,
}

/// Guess the ISA of an assembly source from the marks each dialect cannot do without. A file
/// with the marks of several dialects (or none) is an error that names `--isa`; several are
/// listed in the order of `dialects`.
pub fn detect(source: &str, dialects: &[Dialect]) -> Result<Isa, DetectError> {
    let mut found = vec![false; dialects.len()];
    for raw in source.lines() {
        // Strip string and character literals (a `$` or `;` inside a string is text), then the
        // comment styles of all dialects, before looking for marks.
        let unquoted = strip_literals(raw);
        let end = dialects
            .iter()
            .flat_map(|d| d.comments)
            .filter_map(|c| unquoted.find(c))
            .min()
            .unwrap_or(unquoted.len());
        let lower = unquoted[..end].trim().to_ascii_lowercase();
        if lower.is_empty() {
            continue;
        }
        let first = lower.split_whitespace().next().unwrap_or("");
        for (hit, dialect) in found.iter_mut().zip(dialects) {
            *hit |= (dialect.marks)(&lower, first);
        }
    }
    let found: Vec<Isa> = dialects
        .iter()
        .zip(found)
        .filter(|(_, hit)| *hit)
        .map(|(d, _)| d.isa)
        .collect();
    match found.len() {
        0 => Err(DetectError::Unknown),
        1 => Ok(found[0]),
        _ => Err(DetectError::Ambiguous(found)),
    }
}

/// The line without the contents of `"..."` and `'.'` literals (escapes honoured).
fn strip_literals(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for ch in line.chars() {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if ch == '\\' {
                    escaped = true;
                } else if ch == q {
                    quote = None;
                    out.push(ch);
                }
            }
            None => {
                if ch == '"' || ch == '\'' {
                    quote = Some(ch);
                }
                out.push(ch);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two toy dialects: `!` comments and `kw` lines, `%` comments and `op` lines.
    const TOYS: [Dialect; 2] = [
        Dialect {
            isa: Isa::Lc3,
            comments: &["!"],
            marks: |line, _| line.contains("kw"),
        },
        Dialect {
            isa: Isa::Mips,
            comments: &["%"],
            marks: |_, first| first == "op",
        },
    ];

    #[test]
    fn marks_outside_comments_and_literals_decide() {
        assert_eq!(detect("  KW x\n", &TOYS), Ok(Isa::Lc3));
        assert_eq!(
            detect("op 1 ! kw\n", &TOYS),
            Ok(Isa::Mips),
            "any dialect's comment"
        );
        assert_eq!(detect("x \"kw\" % kw\nop\n", &TOYS), Ok(Isa::Mips));
        assert_eq!(
            detect("kw\nop\n", &TOYS),
            Err(DetectError::Ambiguous(vec![Isa::Lc3, Isa::Mips]))
        );
        assert_eq!(detect("nothing\n", &TOYS), Err(DetectError::Unknown));
    }

    #[test]
    fn ambiguous_and_unknown_name_the_flag() {
        let err = detect("kw\nop\n", &TOYS).unwrap_err();
        assert!(err.to_string().contains("--isa"), "{err}");
        assert!(err.to_string().contains("lc3 or mips"), "{err}");
        assert!(detect("", &TOYS).unwrap_err().to_string().contains("--isa"));
    }

    #[test]
    fn numbers_in_every_notation() {
        assert_eq!(parse_number("42"), Some(42));
        assert_eq!(parse_number("-7"), Some(-7));
        assert_eq!(parse_number("0x2A"), Some(42));
        assert_eq!(parse_number("x2a"), Some(42));
        assert_eq!(parse_number("#42"), Some(42));
        assert_eq!(parse_number("-x10"), Some(-16));
        assert_eq!(parse_number("0b101"), Some(5));
        assert_eq!(parse_number("label"), None);
        assert_eq!(parse_number(""), None);
    }

    #[test]
    fn addresses_print_in_isa_notation() {
        assert_eq!(Isa::Lc3.format_addr(0x3000), "x3000");
        assert_eq!(Isa::Mips.format_addr(0x400000), "0x00400000");
        assert_eq!(Isa::SimpleRisc.format_addr(1000), "1000");
    }

    #[test]
    fn parses_names() {
        assert_eq!("LC3".parse::<Isa>(), Ok(Isa::Lc3));
        assert!("z80".parse::<Isa>().is_err());
    }
}
