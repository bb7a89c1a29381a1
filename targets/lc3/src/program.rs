//! An assembled or loaded LC-3 program: memory blocks plus what the assembler knew about them,
//! and how the files of a program of several are put into one machine ([`link`]).

use asmdbg_core::{DebugInfo, Diagnostics, SourceLoc};

/// Consecutive words starting at `origin` (one `.ORIG` block).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    pub origin: u16,
    pub words: Vec<u16>,
}

impl Segment {
    /// The addresses the block covers (it stops at the top of memory, as the loaders do).
    pub fn span(&self) -> std::ops::Range<u32> {
        let start = u32::from(self.origin);
        start..(start + self.words.len() as u32).min(0x1_0000)
    }
}

#[derive(Debug, Clone, Default)]
pub struct Program {
    /// In load order (source order within a file, files in the order given); where two
    /// overlap, the later one's words are in memory.
    pub segments: Vec<Segment>,
    /// Labels (word addresses) and the source line of every word, of every file (one source
    /// file each); empty for object files.
    pub debug: DebugInfo,
    /// Warnings the assembler printed (errors make assembly fail instead).
    pub warnings: Diagnostics,
    /// Where the program starts when that is not the first block's origin: several files
    /// ([`link`]) or `--entry`.
    pub start: Option<u16>,
    /// What loading several files had to say (files that overlap under lc3tools' loader),
    /// shown when the program starts.
    pub load_notes: Vec<String>,
}

impl Program {
    /// Where execution starts: [`Program::start`], else the origin of the first block.
    pub fn entry(&self) -> Option<u16> {
        self.start
            .or_else(|| self.segments.first().map(|s| s.origin))
    }
}

/// One file of a program, assembled or read on its own (lc3as and lc3tools assemble each
/// file alone: a label is visible only in its own file).
#[derive(Debug, Clone)]
pub struct ProgramPart {
    pub path: String,
    pub program: Program,
}

/// How a simulator puts several object files into one machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoaderRules {
    /// lc3tools (`LoadObjFileEvent`): files are written in the order given, a later file
    /// overwriting an earlier one where they overlap (asmdbg says so when the program starts);
    /// the program starts at the first `.ORIG` of the last file whose first `.ORIG` is not
    /// x0000 (a file at x0000 is taken for an OS and leaves the start alone).
    Lc3tools,
    /// asmdbg's rule for the patt and lc3sim profiles: files that overlap are an error naming
    /// both and the range; the program starts at the first `.ORIG` of the last file, since
    /// loading a file sets the PC to its origin in both simulators (lc3sim's `file` command;
    /// the McGraw-Hill simulator's Load Program).
    Strict,
    /// PennSim (`ld`): files are written in the order given, later over earlier (asmdbg says
    /// so when the program starts); loading leaves the PC at x0200, where the machine boots.
    Pennsim,
}

/// Why the files of a program cannot be loaded together.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LinkError {
    #[error("{second} overlaps {first} at {range}: each file is loaded at its own .ORIG, and two files cannot share memory")]
    Overlap {
        first: String,
        second: String,
        range: String,
    },
}

/// `x3000` or `x3000-x3004`.
fn range_text(range: &std::ops::Range<u32>) -> String {
    if range.end - range.start == 1 {
        format!("x{:04X}", range.start)
    } else {
        format!("x{:04X}-x{:04X}", range.start, range.end - 1)
    }
}

/// The first range where a block of `a` and a block of `b` share addresses.
fn overlap(a: &Program, b: &Program) -> Option<std::ops::Range<u32>> {
    let mut found: Option<std::ops::Range<u32>> = None;
    for x in &a.segments {
        for y in &b.segments {
            let (xs, ys) = (x.span(), y.span());
            let range = xs.start.max(ys.start)..xs.end.min(ys.end);
            if range.start < range.end && found.as_ref().map_or(true, |f| range.start < f.start) {
                found = Some(range);
            }
        }
    }
    found
}

/// Puts the files of one program into one: blocks in load order, the debug information of
/// every file (each its own source file; a label defined in two files keeps the first file's
/// address for the debugger, each file's code having used its own), and where it starts.
pub fn link(parts: Vec<ProgramPart>, rules: LoaderRules) -> Result<Program, LinkError> {
    let mut notes = Vec::new();
    for (j, later) in parts.iter().enumerate() {
        for earlier in &parts[..j] {
            let Some(range) = overlap(&earlier.program, &later.program) else {
                continue;
            };
            match rules {
                LoaderRules::Strict => {
                    return Err(LinkError::Overlap {
                        first: earlier.path.clone(),
                        second: later.path.clone(),
                        range: range_text(&range),
                    })
                }
                LoaderRules::Lc3tools | LoaderRules::Pennsim => notes.push(format!(
                    "warning: {} overlaps {} at {}; as {} loads them, the later file's words are in memory",
                    later.path,
                    earlier.path,
                    range_text(&range),
                    if rules == LoaderRules::Pennsim { "PennSim" } else { "lc3tools" }
                )),
            }
        }
    }
    let start = parts
        .iter()
        .rev()
        .filter_map(|p| p.program.entry())
        .find(|&origin| rules == LoaderRules::Strict || origin != 0);
    let mut linked = Program {
        start,
        load_notes: notes,
        ..Program::default()
    };
    linked.debug.symbols = asmdbg_core::SymbolTable::new(true);
    for part in parts {
        let program = part.program;
        linked.segments.extend(program.segments);
        linked.warnings.items.extend(program.warnings.items);
        linked.load_notes.extend(program.load_notes);
        let debug = program.debug;
        let ids: Vec<_> = debug
            .sources
            .files()
            .iter()
            .map(|f| linked.debug.sources.add(f.clone()))
            .collect();
        for (addr, loc) in debug.lines.iter() {
            if let Some(&file) = ids.get(loc.file.0 as usize) {
                linked.debug.lines.insert(
                    addr,
                    SourceLoc {
                        file,
                        line: loc.line,
                    },
                );
            }
        }
        for symbol in debug.symbols.iter() {
            let _ = linked.debug.symbols.insert(symbol.clone());
        }
        for item in debug.data.iter() {
            linked.debug.data.insert(*item);
        }
    }
    Ok(linked)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(path: &str, blocks: &[(u16, usize)]) -> ProgramPart {
        ProgramPart {
            path: path.to_string(),
            program: Program {
                segments: blocks
                    .iter()
                    .map(|&(origin, len)| Segment {
                        origin,
                        words: vec![origin; len],
                    })
                    .collect(),
                ..Program::default()
            },
        }
    }

    #[test]
    fn the_last_file_starts_and_lc3tools_skips_a_file_at_x0000() {
        let parts = || {
            vec![
                part("a.asm", &[(0x3000, 4)]),
                part("os.obj", &[(0x0000, 2)]),
            ]
        };
        assert_eq!(link(parts(), LoaderRules::Strict).unwrap().entry(), Some(0));
        let linked = link(parts(), LoaderRules::Lc3tools).unwrap();
        assert_eq!(linked.entry(), Some(0x3000));
        assert_eq!(linked.segments.len(), 2);
        assert!(linked.load_notes.is_empty());
    }

    #[test]
    fn overlaps_name_both_files_and_the_first_shared_range() {
        let parts = || {
            vec![
                part("a.asm", &[(0x3000, 4), (0x4000, 16)]),
                part("b.asm", &[(0x4008, 2), (0x3003, 2)]),
            ]
        };
        let err = link(parts(), LoaderRules::Strict).unwrap_err();
        assert_eq!(
            err,
            LinkError::Overlap {
                first: "a.asm".into(),
                second: "b.asm".into(),
                range: "x3003".into(),
            }
        );
        let linked = link(parts(), LoaderRules::Lc3tools).unwrap();
        assert_eq!(
            linked.load_notes,
            ["warning: b.asm overlaps a.asm at x3003; as lc3tools loads them, the later file's words are in memory"]
        );
        // Adjacent blocks do not overlap; a block at the top of memory stops there.
        let ok = vec![part("a.asm", &[(0xFFFE, 5)]), part("b.asm", &[(0xFFFD, 1)])];
        assert!(link(ok, LoaderRules::Strict).is_ok());
    }
}
