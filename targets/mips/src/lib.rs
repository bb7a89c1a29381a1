//! MIPS32 as the MARS 4.5 simulator runs it: assembler (MARS dialect, pseudo-instructions,
//! macros), cpu with coprocessors 0 and 1, MARS syscalls, and the [`asmdbg_core::Machine`]
//! implementation.

pub mod asm;
pub mod cpu;
pub mod decode;
pub mod machine;
pub mod program;
pub mod syscalls;

pub use program::{Chunk, ChunkKind, Program};
