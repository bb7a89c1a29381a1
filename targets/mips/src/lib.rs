//! MIPS32 as the MARS 4.5 simulator runs it: assembler (MARS dialect, pseudo-instructions,
//! macros), cpu with coprocessors 0 and 1, MARS syscalls performed by the machine
//! wrapper through one host boundary ([`host`]), and the [`asmdbg_core::Machine`]
//! implementation.

pub mod asm;
pub mod backend;
pub mod cpu;
pub mod decode;
pub mod devices;
pub mod elf;
pub mod gdb;
pub mod host;
pub mod javafmt;
pub mod javaparse;
pub mod machine;
pub mod memory;
pub mod program;
pub mod random;
pub mod syscalls;

pub use backend::{BACKEND, ISA};
pub use machine::{load_machine, load_machine_files, MipsMachine, MipsState};
pub use program::{Chunk, ChunkKind, Program};
