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

/// Guess the ISA of an assembly source from the marks each dialect cannot do without:
/// LC-3 has `.ORIG`; MIPS has `$` registers, `syscall` or `.text`/`.data`; SimpleRISC has
/// `.main`, `.print`/`.encode` or `rN` registers with `@` comments. A file with the marks of
/// several (or none) is an error that names `--isa`.
pub fn detect(source: &str) -> Result<Isa, DetectError> {
    let mut lc3 = false;
    let mut mips = false;
    let mut srisc = false;
    for raw in source.lines() {
        // Strip string and character literals (a `$` or `;` inside a string is text), then the
        // comment styles of all three dialects, before looking for marks.
        let unquoted = strip_literals(raw);
        let line = unquoted.split([';', '#', '@']).next().unwrap_or("");
        let line = match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        };
        let lower = line.trim().to_ascii_lowercase();
        if lower.is_empty() {
            continue;
        }
        let first = lower.split_whitespace().next().unwrap_or("");
        if lower.contains(".orig") {
            lc3 = true;
        }
        if first == ".text"
            || first == ".data"
            || first == ".globl"
            || lower.contains("syscall")
            || lower.contains('$')
        {
            mips = true;
        }
        if first == ".main:"
            || first.starts_with(".main")
            || first == ".print"
            || first == ".encode"
            || lower.contains("[sp]")
            || has_bracket_mem(&lower)
        {
            srisc = true;
        }
    }
    let found: Vec<Isa> = [(lc3, Isa::Lc3), (mips, Isa::Mips), (srisc, Isa::SimpleRisc)]
        .into_iter()
        .filter(|(hit, _)| *hit)
        .map(|(_, isa)| isa)
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

/// SimpleRISC memory operands look like `4[r2]`.
fn has_bracket_mem(line: &str) -> bool {
    line.find('[')
        .map(|i| line[i + 1..].trim_start().starts_with('r') || line[i + 1..].starts_with("sp"))
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_each_dialect() {
        assert_eq!(detect("\t.ORIG x3000\n\tHALT\n\t.END\n"), Ok(Isa::Lc3));
        assert_eq!(detect(".text\nli $v0, 10\nsyscall\n"), Ok(Isa::Mips));
        assert_eq!(
            detect(".main:\n\tmov r1, 3 @ c\n\t.print r1\n"),
            Ok(Isa::SimpleRisc)
        );
        assert_eq!(detect("main:\n\tld r1, 4[r2]\n"), Ok(Isa::SimpleRisc));
    }

    #[test]
    fn comments_do_not_count() {
        assert_eq!(
            detect("; uses $t0 in a comment\n .orig x3000\n .end\n"),
            Ok(Isa::Lc3)
        );
    }

    #[test]
    fn string_contents_do_not_count() {
        assert_eq!(
            detect("\t.ORIG x3000\nMSG .STRINGZ \"You won $100; .text\"\n\t.END\n"),
            Ok(Isa::Lc3)
        );
        assert_eq!(
            detect(".data\ns: .asciiz \"x; .orig \\\" @ [sp]\"\n.text\nsyscall\n"),
            Ok(Isa::Mips)
        );
    }

    #[test]
    fn ambiguous_and_unknown_name_the_flag() {
        let err = detect(".orig x3000\n.text\n").unwrap_err();
        assert!(err.to_string().contains("--isa"), "{err}");
        assert!(err.to_string().contains("lc3 or mips"), "{err}");
        assert!(detect("nothing here\n")
            .unwrap_err()
            .to_string()
            .contains("--isa"));
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
