//! An assembled MIPS program: the bytes of each segment, where execution starts, and what the
//! assembler knew (labels, the source line of every word). The assembler produces it; the
//! machine loads it.

use asmdbg_core::{DebugInfo, Diagnostics, FileId};

/// Which MARS segment a chunk belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChunkKind {
    /// `.text` (user code, 0x00400000 by default).
    Text,
    /// `.ktext` (kernel code, 0x80000000; the exception handler lives at 0x80000180).
    KText,
    /// `.data` (0x10010000 by default).
    Data,
    /// `.kdata` (0x90000000).
    KData,
    /// `.extern` (0x10000000).
    Extern,
}

impl ChunkKind {
    pub fn is_code(self) -> bool {
        matches!(self, ChunkKind::Text | ChunkKind::KText)
    }
}

/// Consecutive bytes at `addr` (little endian words for code).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    pub kind: ChunkKind,
    pub addr: u32,
    pub bytes: Vec<u8>,
}

#[derive(Debug, Clone, Default)]
pub struct Program {
    pub chunks: Vec<Chunk>,
    /// The address of the first `.text` statement (MARS's default start).
    pub text_start: u32,
    /// The address of the global label `main`, if declared `.globl` (for `--start-at-main`).
    pub main: Option<u32>,
    /// Labels (byte addresses, `global` set for `.globl`) and the source line of every word of
    /// code and data; pseudo-instructions and macro expansions map every word they produce to
    /// the line that wrote them.
    pub debug: DebugInfo,
    /// Warnings MARS would print (unknown directives, ...).
    pub warnings: Diagnostics,
    /// Where each file given to the assembler is in `debug.sources`, in the order given; the
    /// files a file `.include`s follow it there. One entry for a one-file program; empty for a
    /// program that was not assembled.
    pub files: Vec<FileId>,
    /// Branches to labels further than a 16-bit offset reaches, in address order.
    pub far_branches: Vec<FarBranch>,
}

/// A branch whose word holds only the low 16 bits of its displacement. MARS 4.5 assembles it
/// without an error and runs it with the whole displacement (its `ProgramStatement` keeps the
/// operand), so a program that branches over a long stretch of code runs; the machine loads
/// the branch with its whole displacement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FarBranch {
    pub addr: u32,
    /// In words, from the instruction after the branch.
    pub displacement: i32,
}
