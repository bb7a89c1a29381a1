//! LC-3 object and symbol files (isa-specs A.5).
//!
//! - The classic `.obj` of lc3as, PennSim and the Windows simulator: the origin word, then one
//!   word per location, all big-endian. It holds one contiguous block, so [`write_obj`] fills a
//!   short gap between blocks with zero words (as if `.BLKW` stood there) and refuses a long gap,
//!   overlapping blocks, or a first block that is not the lowest (the origin is also the entry
//!   point): writing zeros over thousands of words would clobber memory the program does not own.
//!   Such programs can be written one file per block with [`write_block_obj`].
//! - lc3tools' own `.obj` (magic `1C 30 15 C0 01`, version `01 01`, then records of
//!   `u16 LE value, u8 is_orig, u32 LE length, length bytes of source text`) can hold several
//!   blocks; [`read_obj`] accepts it as well as the classic format.
//! - The `.sym` file is exactly lc3as': a fixed header and one `//\tNAME  ADDR` line per label.

use std::fmt::Write as _;

use thiserror::Error;

use crate::program::{Program, Segment};

/// lc3tools' object file magic.
pub const LC3TOOLS_MAGIC: [u8; 5] = [0x1C, 0x30, 0x15, 0xC0, 0x01];
/// The only lc3tools object format version there is.
pub const LC3TOOLS_VERSION: [u8; 2] = [0x01, 0x01];

/// The longest gap between two blocks that [`write_obj`] fills with zeros.
pub const MAX_FILLED_GAP: u32 = 0x100;

#[derive(Debug, Error, PartialEq, Eq)]
pub enum ObjError {
    #[error("empty object file")]
    Empty,
    #[error("object file has an odd length ({0} bytes); a classic .obj holds 16-bit words")]
    OddLength(usize),
    #[error("object file holds {words} words from x{origin:04X}, past the end of memory (xFFFF)")]
    PastEndOfMemory { origin: u16, words: usize },
    #[error("lc3tools object file is truncated: the header needs 7 bytes, the file has {0}")]
    TruncatedHeader(usize),
    #[error("unsupported lc3tools object file version {0:02x} {1:02x} (expected 01 01)")]
    BadVersion(u8, u8),
    #[error("lc3tools object file is truncated: record at byte {offset} runs past the end")]
    RecordPastEnd { offset: usize },
    #[error("lc3tools object file has a word at byte {offset} before any .ORIG record")]
    WordBeforeOrig { offset: usize },
    #[error("object file has no code or data")]
    NoSegments,
    #[error(
        "blocks x{first:04X}..x{first_end:04X} and x{second:04X}.. overlap; a classic .obj \
         holds one contiguous block"
    )]
    Overlap {
        first: u16,
        first_end: u16,
        second: u16,
    },
    #[error(
        "a classic .obj holds one contiguous block: the gap of {gap} words between x{end:04X} \
         and x{next:04X} is longer than {MAX_FILLED_GAP} words (split the program into files, \
         one .ORIG each)"
    )]
    GapTooLong { end: u16, next: u16, gap: u32 },
    #[error(
        "a classic .obj starts executing at its origin, but the first block (x{first:04X}) is \
         not the lowest (x{lowest:04X}); put the lowest block first"
    )]
    FirstNotLowest { first: u16, lowest: u16 },
}

/// The classic big-endian object file: origin, then every word from there on.
///
/// Several blocks become one: they must be in ascending address order without overlap, and
/// gaps of up to [`MAX_FILLED_GAP`] words are filled with zeros.
pub fn write_obj(program: &Program) -> Result<Vec<u8>, ObjError> {
    let first = program.segments.first().ok_or(ObjError::NoSegments)?;
    let mut ordered: Vec<&Segment> = program.segments.iter().collect();
    ordered.sort_by_key(|s| s.origin);
    if ordered[0].origin != first.origin {
        return Err(ObjError::FirstNotLowest {
            first: first.origin,
            lowest: ordered[0].origin,
        });
    }
    let mut words: Vec<u16> = Vec::new();
    let mut next_addr = u32::from(first.origin);
    for (i, seg) in ordered.iter().enumerate() {
        let origin = u32::from(seg.origin);
        if i > 0 {
            if origin < next_addr {
                return Err(ObjError::Overlap {
                    first: ordered[i - 1].origin,
                    first_end: next_addr.saturating_sub(1) as u16,
                    second: seg.origin,
                });
            }
            let gap = origin - next_addr;
            if gap > MAX_FILLED_GAP {
                return Err(ObjError::GapTooLong {
                    end: next_addr.saturating_sub(1) as u16,
                    next: seg.origin,
                    gap,
                });
            }
            words.resize(words.len() + gap as usize, 0);
        }
        words.extend_from_slice(&seg.words);
        next_addr = origin + seg.words.len() as u32;
    }
    let mut bytes = Vec::with_capacity(2 + 2 * words.len());
    bytes.extend_from_slice(&first.origin.to_be_bytes());
    for w in words {
        bytes.extend_from_slice(&w.to_be_bytes());
    }
    Ok(bytes)
}

/// One block as its own classic object file (for programs whose blocks are too far apart for
/// [`write_obj`]: one file per `.ORIG`, as lc3as users would write them).
pub fn write_block_obj(segment: &Segment) -> Vec<u8> {
    std::iter::once(segment.origin)
        .chain(segment.words.iter().copied())
        .flat_map(u16::to_be_bytes)
        .collect()
}

/// The `.sym` file in lc3as' format, labels in definition order.
pub fn write_sym(program: &Program) -> String {
    let mut out = String::from(
        "// Symbol table\n// Scope level 0:\n//\tSymbol Name       Page Address\n\
         //\t----------------  ------------\n",
    );
    for sym in program.debug.symbols.iter() {
        // Writing to a String cannot fail.
        let _ = writeln!(out, "//\t{:<16}  {:04X}", sym.name, sym.addr);
    }
    out.push('\n');
    out
}

/// Reads a classic or an lc3tools object file (told apart by lc3tools' magic).
pub fn read_obj(bytes: &[u8]) -> Result<Program, ObjError> {
    if bytes.is_empty() {
        return Err(ObjError::Empty);
    }
    let segments = if bytes.starts_with(&LC3TOOLS_MAGIC) {
        read_lc3tools(bytes)?
    } else {
        vec![read_classic(bytes)?]
    };
    Ok(Program {
        segments,
        ..Program::default()
    })
}

fn read_classic(bytes: &[u8]) -> Result<Segment, ObjError> {
    if bytes.len() % 2 != 0 {
        return Err(ObjError::OddLength(bytes.len()));
    }
    let mut words = bytes
        .chunks_exact(2)
        .map(|pair| u16::from_be_bytes([pair[0], pair[1]]));
    let origin = words.next().ok_or(ObjError::Empty)?;
    let words: Vec<u16> = words.collect();
    if u32::from(origin) + words.len() as u32 > 0x1_0000 {
        return Err(ObjError::PastEndOfMemory {
            origin,
            words: words.len(),
        });
    }
    Ok(Segment { origin, words })
}

fn read_lc3tools(bytes: &[u8]) -> Result<Vec<Segment>, ObjError> {
    const HEADER: usize = LC3TOOLS_MAGIC.len() + LC3TOOLS_VERSION.len();
    const RECORD_HEAD: usize = 2 + 1 + 4;
    let version = bytes
        .get(LC3TOOLS_MAGIC.len()..HEADER)
        .ok_or(ObjError::TruncatedHeader(bytes.len()))?;
    if version != LC3TOOLS_VERSION {
        return Err(ObjError::BadVersion(version[0], version[1]));
    }
    let mut segments: Vec<Segment> = Vec::new();
    let mut offset = HEADER;
    while offset < bytes.len() {
        let head = bytes
            .get(offset..offset + RECORD_HEAD)
            .ok_or(ObjError::RecordPastEnd { offset })?;
        let value = u16::from_le_bytes([head[0], head[1]]);
        let is_orig = head[2] != 0;
        let text_len = u32::from_le_bytes([head[3], head[4], head[5], head[6]]) as usize;
        let next = (offset + RECORD_HEAD)
            .checked_add(text_len)
            .filter(|&n| n <= bytes.len())
            .ok_or(ObjError::RecordPastEnd { offset })?;
        if is_orig {
            segments.push(Segment {
                origin: value,
                words: Vec::new(),
            });
        } else {
            let seg = segments
                .last_mut()
                .ok_or(ObjError::WordBeforeOrig { offset })?;
            if u32::from(seg.origin) + seg.words.len() as u32 >= 0x1_0000 {
                return Err(ObjError::PastEndOfMemory {
                    origin: seg.origin,
                    words: seg.words.len() + 1,
                });
            }
            seg.words.push(value);
        }
        offset = next;
    }
    if segments.is_empty() {
        return Err(ObjError::NoSegments);
    }
    Ok(segments)
}

#[cfg(test)]
mod tests {
    use super::*;
    use asmdbg_core::{Symbol, SymbolKind, SymbolTable};

    fn program(segments: &[(u16, &[u16])]) -> Program {
        Program {
            segments: segments
                .iter()
                .map(|&(origin, words)| Segment {
                    origin,
                    words: words.to_vec(),
                })
                .collect(),
            ..Program::default()
        }
    }

    fn lc3tools_record(value: u16, is_orig: bool, text: &str) -> Vec<u8> {
        let mut r = value.to_le_bytes().to_vec();
        r.push(u8::from(is_orig));
        r.extend_from_slice(&(text.len() as u32).to_le_bytes());
        r.extend_from_slice(text.as_bytes());
        r
    }

    fn lc3tools_file(records: &[(u16, bool)]) -> Vec<u8> {
        let mut bytes = LC3TOOLS_MAGIC.to_vec();
        bytes.extend_from_slice(&LC3TOOLS_VERSION);
        for &(v, o) in records {
            bytes.extend(lc3tools_record(v, o, "\tHALT"));
        }
        bytes
    }

    #[test]
    fn classic_round_trip() {
        let p = program(&[(0x3000, &[0xF025, 0x1234])]);
        let bytes = write_obj(&p).unwrap();
        assert_eq!(bytes, vec![0x30, 0x00, 0xF0, 0x25, 0x12, 0x34]);
        let back = read_obj(&bytes).unwrap();
        assert_eq!(back.segments, p.segments);
        assert_eq!(back.entry(), Some(0x3000));
    }

    #[test]
    fn short_gaps_are_filled_long_ones_refused() {
        let p = program(&[(0x3000, &[1, 2]), (0x3004, &[3])]);
        assert_eq!(
            write_obj(&p).unwrap(),
            vec![0x30, 0, 0, 1, 0, 2, 0, 0, 0, 0, 0, 3]
        );
        let far = program(&[(0x3000, &[1]), (0x4000, &[2])]);
        assert_eq!(
            write_obj(&far),
            Err(ObjError::GapTooLong {
                end: 0x3000,
                next: 0x4000,
                gap: 0xFFF
            })
        );
        let overlap = program(&[(0x3000, &[1, 2]), (0x3001, &[3])]);
        assert!(matches!(write_obj(&overlap), Err(ObjError::Overlap { .. })));
        let backwards = program(&[(0x3010, &[1]), (0x3000, &[2])]);
        assert!(matches!(
            write_obj(&backwards),
            Err(ObjError::FirstNotLowest { .. })
        ));
        assert_eq!(write_obj(&program(&[])), Err(ObjError::NoSegments));
    }

    #[test]
    fn one_file_per_block() {
        let p = program(&[(0x3000, &[0xF025]), (0x4000, &[7, 8])]);
        let files: Vec<Vec<u8>> = p.segments.iter().map(write_block_obj).collect();
        assert_eq!(files[0], vec![0x30, 0x00, 0xF0, 0x25]);
        assert_eq!(files[1], vec![0x40, 0x00, 0, 7, 0, 8]);
        assert_eq!(read_obj(&files[1]).unwrap().segments[0], p.segments[1]);
    }

    #[test]
    fn sym_file_is_lc3as_format() {
        let mut p = program(&[(0x3000, &[0])]);
        let mut symbols = SymbolTable::new(true);
        for (name, addr) in [("OLOOP", 0x3003), ("a_long_label_name_here", 0x300A)] {
            let _ = symbols.insert(Symbol {
                name: name.into(),
                addr,
                kind: SymbolKind::Code,
                global: false,
            });
        }
        p.debug.symbols = symbols;
        assert_eq!(
            write_sym(&p),
            "// Symbol table\n// Scope level 0:\n//\tSymbol Name       Page Address\n\
             //\t----------------  ------------\n//\tOLOOP             3003\n\
             //\ta_long_label_name_here  300A\n\n"
        );
    }

    #[test]
    fn lc3tools_format_with_several_blocks() {
        let bytes = lc3tools_file(&[(0x3000, true), (0xF025, false), (0x4000, true), (7, false)]);
        let p = read_obj(&bytes).unwrap();
        assert_eq!(
            p.segments,
            program(&[(0x3000, &[0xF025]), (0x4000, &[7])]).segments
        );
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert_eq!(read_obj(&[]).unwrap_err(), ObjError::Empty);
        assert_eq!(
            read_obj(&[0x30, 0x00, 0xF0]).unwrap_err(),
            ObjError::OddLength(3)
        );
        assert_eq!(
            read_obj(&[0xFF, 0xFF, 0, 1, 0, 2]).unwrap_err(),
            ObjError::PastEndOfMemory {
                origin: 0xFFFF,
                words: 2
            }
        );
        let mut header_only = LC3TOOLS_MAGIC.to_vec();
        assert_eq!(
            read_obj(&header_only).unwrap_err(),
            ObjError::TruncatedHeader(5)
        );
        header_only.extend_from_slice(&[2, 0]);
        assert_eq!(
            read_obj(&header_only).unwrap_err(),
            ObjError::BadVersion(2, 0)
        );
        let mut cut = lc3tools_file(&[(0x3000, true), (0xF025, false)]);
        cut.truncate(cut.len() - 2);
        assert_eq!(
            read_obj(&cut).unwrap_err(),
            ObjError::RecordPastEnd { offset: 19 }
        );
        let word_first = lc3tools_file(&[(0xF025, false)]);
        assert_eq!(
            read_obj(&word_first).unwrap_err(),
            ObjError::WordBeforeOrig { offset: 7 }
        );
        assert_eq!(
            read_obj(&lc3tools_file(&[])).unwrap_err(),
            ObjError::NoSegments
        );
        // A huge length field must not overflow the offset arithmetic.
        let mut huge = lc3tools_file(&[]);
        huge.extend_from_slice(&[0, 0x30, 1, 0xFF, 0xFF, 0xFF, 0xFF]);
        assert!(matches!(
            read_obj(&huge),
            Err(ObjError::RecordPastEnd { .. })
        ));
    }

    #[test]
    fn every_short_input_is_handled() {
        // Exhaustive over all 1- and 2-byte inputs and lc3tools prefixes: never a panic.
        for a in 0..=255u8 {
            assert!(read_obj(&[a]).is_err());
            for b in 0..=255u8 {
                let r = read_obj(&[a, b]);
                assert_eq!(r.map(|p| p.entry()), Ok(Some(u16::from_be_bytes([a, b]))));
            }
        }
        let full = lc3tools_file(&[(0x3000, true), (0xF025, false)]);
        for n in 1..full.len() {
            let _ = read_obj(&full[..n]);
        }
    }
}
