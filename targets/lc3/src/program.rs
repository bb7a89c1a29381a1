//! An assembled or loaded LC-3 program: memory blocks plus what the assembler knew about them.

use asmdbg_core::{DebugInfo, Diagnostics};

/// Consecutive words starting at `origin` (one `.ORIG` block).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    pub origin: u16,
    pub words: Vec<u16>,
}

#[derive(Debug, Clone, Default)]
pub struct Program {
    /// In source order; the first one's origin is the entry point.
    pub segments: Vec<Segment>,
    /// Labels (word addresses) and the source line of every word; empty for object files.
    pub debug: DebugInfo,
    /// Warnings the assembler printed (errors make assembly fail instead).
    pub warnings: Diagnostics,
}

impl Program {
    /// Where execution starts: the origin of the first block.
    pub fn entry(&self) -> Option<u16> {
        self.segments.first().map(|s| s.origin)
    }
}
