//! `--poke`, `--poke-file` and `--peek`: put a program's input in memory before it starts and
//! read its results after it ends, the way an autograder does. Works for every ISA through the
//! machine's natural data word (`Machine::poke_word`/`peek_word`).

use asmdbg_core::isa::parse_number;
use asmdbg_core::{resolve_address, Machine};

/// A poke or peek argument that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum PokeError {
    #[error("{arg}: expected {expected}")]
    Syntax { arg: String, expected: &'static str },
    #[error("{arg}: '{text}' is neither a number nor a label of the program")]
    UnknownAddress { arg: String, text: String },
    #[error("{arg}: '{text}' is not a number")]
    BadValue { arg: String, text: String },
    #[error("{arg}: {value} does not fit in a {bits}-bit word ({min}..{max})")]
    OutOfRange {
        arg: String,
        value: i64,
        bits: u32,
        min: i64,
        max: i64,
    },
    #[error("{arg}: {error}")]
    Memory {
        arg: String,
        error: asmdbg_core::MemError,
    },
    #[error("{arg}: cannot read {path}: {error}")]
    File {
        arg: String,
        path: String,
        error: std::io::Error,
    },
}

/// The words a poke wrote, so they can be written again after the machine is reset.
pub type Written = Vec<(u64, u32)>;

fn resolve(machine: &dyn Machine, arg: &str, text: &str) -> Result<u64, PokeError> {
    resolve_address(machine, text).ok_or_else(|| PokeError::UnknownAddress {
        arg: arg.to_string(),
        text: text.trim().to_string(),
    })
}

fn word_bits(machine: &dyn Machine) -> u32 {
    8 * machine.unit_bytes() * machine.word_units()
}

/// A value as a word: anything from the most negative signed to the largest unsigned value.
fn to_word(machine: &dyn Machine, arg: &str, value: i64) -> Result<u32, PokeError> {
    let bits = word_bits(machine).min(32);
    let min = -(1i64 << (bits - 1));
    let max = (1i64 << bits) - 1;
    if value < min || value > max {
        return Err(PokeError::OutOfRange {
            arg: arg.to_string(),
            value,
            bits,
            min,
            max,
        });
    }
    Ok(value as u32)
}

fn write_words(
    machine: &mut dyn Machine,
    arg: &str,
    addr: u64,
    values: Vec<i64>,
) -> Result<Written, PokeError> {
    let step = machine.word_units() as u64;
    let words = values
        .into_iter()
        .map(|v| to_word(machine, arg, v))
        .collect::<Result<Vec<u32>, _>>()?;
    let mut written = Vec::with_capacity(words.len());
    for (i, word) in words.into_iter().enumerate() {
        let at = addr.saturating_add(i as u64 * step);
        machine
            .poke_word(at, word)
            .map_err(|error| PokeError::Memory {
                arg: arg.to_string(),
                error,
            })?;
        written.push((at, word));
    }
    Ok(written)
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
pub fn apply_poke(machine: &mut dyn Machine, arg: &str) -> Result<Written, PokeError> {
    let (addr, values) = arg.split_once('=').ok_or_else(|| PokeError::Syntax {
        arg: arg.to_string(),
        expected: "ADDR=V1,V2,...",
    })?;
    let addr = resolve(machine, arg, addr)?;
    let values = parse_values(arg, values.split(','))?;
    write_words(machine, arg, addr, values)
}

/// `ADDR=FILE` with whitespace-separated integers.
pub fn apply_poke_file(machine: &mut dyn Machine, arg: &str) -> Result<Written, PokeError> {
    let (addr, path) = arg.split_once('=').ok_or_else(|| PokeError::Syntax {
        arg: arg.to_string(),
        expected: "ADDR=FILE",
    })?;
    let addr = resolve(machine, arg, addr)?;
    let text = std::fs::read_to_string(path).map_err(|error| PokeError::File {
        arg: arg.to_string(),
        path: path.to_string(),
        error,
    })?;
    let values = parse_values(arg, text.split_whitespace())?;
    write_words(machine, arg, addr, values)
}

/// Every `--poke` and `--poke-file` of the command line, in order.
pub fn apply_all(
    machine: &mut dyn Machine,
    pokes: &[String],
    poke_files: &[String],
) -> Result<Written, PokeError> {
    let mut written = Vec::new();
    for poke in pokes {
        written.extend(apply_poke(machine, poke)?);
    }
    for poke in poke_files {
        written.extend(apply_poke_file(machine, poke)?);
    }
    Ok(written)
}

/// One `--peek` request, checked before the program runs so a typo fails early.
#[derive(Debug, Clone, Copy)]
pub struct Peek {
    pub addr: u64,
    pub count: u64,
}

/// At most this many words per `--peek` (a typo like `:1000000000` must not flood stdout).
const MAX_PEEK: u64 = 1 << 20;

/// `ADDR[:N]`; every word of the range must be readable.
pub fn parse_peek(machine: &dyn Machine, arg: &str) -> Result<Peek, PokeError> {
    let (addr, count) = match arg.rsplit_once(':') {
        Some((a, n)) => {
            let n = parse_number(n)
                .filter(|&n| n > 0 && n as u64 <= MAX_PEEK)
                .ok_or(PokeError::Syntax {
                    arg: arg.to_string(),
                    expected: "ADDR[:N] with N a count from 1 to 1048576",
                })?;
            (a, n as u64)
        }
        None => (arg, 1),
    };
    let peek = Peek {
        addr: resolve(machine, arg, addr)?,
        count,
    };
    read_peek(machine, peek).map_err(|error| PokeError::Memory {
        arg: arg.to_string(),
        error,
    })?;
    Ok(peek)
}

/// Reads the words of a peek, sign-extended from the machine's word size, one per line.
pub fn read_peek(machine: &dyn Machine, peek: Peek) -> Result<String, asmdbg_core::MemError> {
    let step = machine.word_units() as u64;
    let bits = word_bits(machine);
    let mut out = String::new();
    for i in 0..peek.count {
        let addr = peek
            .addr
            .checked_add(i * step)
            .ok_or(asmdbg_core::MemError::Unmapped(peek.addr))?;
        let w = machine.peek_word(addr)? as u64;
        let signed = if bits >= 32 {
            w as u32 as i32 as i64
        } else {
            let shift = 64 - bits;
            ((w << shift) as i64) >> shift
        };
        out.push_str(&signed.to_string());
        out.push('\n');
    }
    Ok(out)
}
