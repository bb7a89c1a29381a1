//! `--poke`, `--poke-file` and `--peek`: put a program's input in memory before it starts and
//! read its results after it ends, the way an autograder does. Works for every ISA through the
//! machine's natural data word (`Machine::poke_word`/`peek_word`).

use std::fmt;

use asmdbg_core::{Isa, Machine};

/// A poke or peek argument that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum PokeError {
    #[error("{arg}: expected {expected}")]
    Syntax { arg: String, expected: &'static str },
    #[error("{arg}: '{text}' is neither a number nor a label of the program")]
    UnknownAddress { arg: String, text: String },
    #[error("{arg}: '{text}' is not a number")]
    BadValue { arg: String, text: String },
    #[error("{arg}: {source}")]
    Memory {
        arg: String,
        #[source]
        source: asmdbg_core::MemError,
    },
    #[error("{arg}: cannot read {path}: {source}")]
    File {
        arg: String,
        path: String,
        #[source]
        source: std::io::Error,
    },
}

/// Parses an integer the way the three assemblers write them: `42`, `-7`, `0x2A`, `x2A`, `#42`,
/// `0b101`.
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
    Some(if neg { -value } else { value })
}

/// Resolves an address written as a number or a label.
fn resolve(machine: &dyn Machine, arg: &str, text: &str) -> Result<u64, PokeError> {
    if let Some(n) = parse_number(text) {
        if n >= 0 {
            return Ok(n as u64);
        }
    }
    machine
        .debug_info()
        .and_then(|d| d.symbols.addr(text.trim()))
        .ok_or_else(|| PokeError::UnknownAddress {
            arg: arg.to_string(),
            text: text.trim().to_string(),
        })
}

fn write_words(
    machine: &mut dyn Machine,
    arg: &str,
    addr: u64,
    values: impl IntoIterator<Item = i64>,
) -> Result<(), PokeError> {
    let step = machine.word_units() as u64;
    for (i, v) in values.into_iter().enumerate() {
        machine
            .poke_word(addr + i as u64 * step, v as u32)
            .map_err(|source| PokeError::Memory {
                arg: arg.to_string(),
                source,
            })?;
    }
    Ok(())
}

fn parse_values<'a>(
    arg: &str,
    items: impl Iterator<Item = &'a str>,
) -> Result<Vec<i64>, PokeError> {
    items
        .filter(|s| !s.trim().is_empty())
        .map(|s| {
            parse_number(s).ok_or_else(|| PokeError::BadValue {
                arg: arg.to_string(),
                text: s.trim().to_string(),
            })
        })
        .collect()
}

/// `ADDR=V1,V2,...`
pub fn apply_poke(machine: &mut dyn Machine, arg: &str) -> Result<(), PokeError> {
    let (addr, values) = arg.split_once('=').ok_or_else(|| PokeError::Syntax {
        arg: arg.to_string(),
        expected: "ADDR=V1,V2,...",
    })?;
    let addr = resolve(machine, arg, addr)?;
    let values = parse_values(arg, values.split(','))?;
    write_words(machine, arg, addr, values)
}

/// `ADDR=FILE` with whitespace-separated integers.
pub fn apply_poke_file(machine: &mut dyn Machine, arg: &str) -> Result<(), PokeError> {
    let (addr, path) = arg.split_once('=').ok_or_else(|| PokeError::Syntax {
        arg: arg.to_string(),
        expected: "ADDR=FILE",
    })?;
    let addr = resolve(machine, arg, addr)?;
    let text = std::fs::read_to_string(path).map_err(|source| PokeError::File {
        arg: arg.to_string(),
        path: path.to_string(),
        source,
    })?;
    let values = parse_values(arg, text.split_whitespace())?;
    write_words(machine, arg, addr, values)
}

/// One `--peek` request, resolved before the program runs so a typo fails early.
#[derive(Debug, Clone, Copy)]
pub struct Peek {
    pub addr: u64,
    pub count: u64,
}

/// `ADDR[:N]`
pub fn parse_peek(machine: &dyn Machine, arg: &str) -> Result<Peek, PokeError> {
    let (addr, count) = match arg.rsplit_once(':') {
        Some((a, n)) => {
            let n = parse_number(n)
                .filter(|&n| n > 0)
                .ok_or_else(|| PokeError::Syntax {
                    arg: arg.to_string(),
                    expected: "ADDR[:N] with N a positive count",
                })?;
            (a, n as u64)
        }
        None => (arg, 1),
    };
    Ok(Peek {
        addr: resolve(machine, arg, addr)?,
        count,
    })
}

/// Words read back after the run, one per line in signed decimal.
pub struct PeekedWords(pub Vec<i64>);

impl fmt::Display for PeekedWords {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for v in &self.0 {
            writeln!(f, "{v}")?;
        }
        Ok(())
    }
}

/// Reads the words of a peek, sign-extended from the machine's word size.
pub fn read_peek(machine: &dyn Machine, peek: Peek) -> Result<PeekedWords, asmdbg_core::MemError> {
    let step = machine.word_units() as u64;
    let bits = 8 * machine.unit_bytes() * machine.word_units();
    let mut out = Vec::new();
    for i in 0..peek.count {
        let w = machine.peek_word(peek.addr + i * step)? as u64;
        let signed = if bits >= 32 {
            w as u32 as i32 as i64
        } else {
            let shift = 64 - bits;
            ((w << shift) as i64) >> shift
        };
        out.push(signed);
    }
    Ok(PeekedWords(out))
}

/// Formats a native address the way the ISA's tools print it (`x3000`, `0x00400000`).
pub fn format_addr(isa: Isa, addr: u64) -> String {
    match isa {
        Isa::Lc3 => format!("x{addr:04X}"),
        Isa::Mips => format!("0x{addr:08x}"),
        Isa::SimpleRisc => format!("{addr}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(format_addr(Isa::Lc3, 0x3000), "x3000");
        assert_eq!(format_addr(Isa::Mips, 0x400000), "0x00400000");
        assert_eq!(format_addr(Isa::SimpleRisc, 1000), "1000");
    }
}
