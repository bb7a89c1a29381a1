//! LC-3 (Patt & Patel): assembler, object files, cpu with devices and interrupts, the OS images
//! of the three reference simulators, and the [`asmdbg_core::Machine`] implementation.

pub mod asm;
pub mod cpu;
pub mod decode;
pub mod machine;
pub mod objfile;
pub mod os;
pub mod program;

pub use program::{Program, Segment};
