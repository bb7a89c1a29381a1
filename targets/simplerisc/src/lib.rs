//! SimpleRISC (Sarangi, *Computer Organisation and Architecture*): assembler, cpu, and the
//! [`asmdbg_core::Machine`] implementation, compatible with the course emulators (the ELL305
//! interpreter's encodings, `.print` and `.encode`; isa-specs.md Part B).

pub mod asm;
pub mod backend;
mod course_lines;
pub mod cpu;
pub mod decode;
pub mod elf;
pub mod gdb;
pub mod machine;
pub mod program;

pub use asm::{assemble, AsmOptions};
pub use backend::{BACKEND, ISA};
pub use machine::{load_machine, SrMachine};
pub use program::{Program, Slot};
