//! LC-3 (Patt & Patel): assembler, object files, cpu with devices and interrupts, the OS images
//! of the three reference simulators, and the [`asmdbg_core::Machine`] implementation.

pub mod asm;
pub mod backend;
pub mod cpu;
pub mod decode;
pub mod elf;
pub mod gdb;
pub mod machine;
pub mod objfile;
pub mod os;
pub mod program;

pub use backend::{BACKEND, ISA};
pub use machine::{load_machine, Lc3Machine};
pub use os::profile_names;
pub use program::{Program, Segment};
