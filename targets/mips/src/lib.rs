//! MIPS32 as the MARS 4.5 simulator runs it: assembler (MARS dialect, pseudo-instructions,
//! macros), cpu with coprocessors 0 and 1, MARS syscalls, and the [`asmdbg_core::Machine`]
//! implementation.

pub mod program;

pub use program::{Chunk, ChunkKind, Program};
