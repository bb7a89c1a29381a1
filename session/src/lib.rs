//! The gdb session of asmdbg without any I/O: bytes and time go in, bytes and decisions come out.
//!
//! [`RspSession`] owns one machine (as a [`Debuggee`](asmdbg_core::gdb::Debuggee)), gdbstub's
//! state machine for the attached connection, the packet [`Framer`] that keeps a session alive
//! through damaged or oversized packets, the bursts that run the machine, and the console
//! backlog that pauses a guest nobody reads. It opens no socket, spawns no task or thread and
//! never sleeps: the binary's tokio glue (src/debug.rs) moves bytes between it and the world and
//! decides only *when* to call it; the fuzz target (fuzz/src/lib.rs) and the transcript tests
//! (session/tests/) drive the very same code from memory. What is not gdb's (bursts, time
//! travel, console flow) is [`RunCore`], which the DAP session shares.
//!
//! Limits: one connection at a time (others are parked for a short handover or refused, see
//! [`refusal`]); the only clock read inside is the busy time `monitor stats` reports.

pub mod arch_check;
pub mod core;
pub mod dap;
pub mod discipline;
pub mod framer;
pub mod frames;
pub mod refusal;
pub mod reverse;
mod rsp;

pub use core::{
    Reversed, RunCore, RunState, BURST, CHUNK, INPUT_BACKLOG, MACHINE_INPUT_QUEUE, MAX_SLICE,
    OUTPUT_BACKLOG, SLICE,
};
pub use discipline::{Discipline, LineMode};
pub use framer::{rsp_packet, Frame, Framer, PACKET_SIZE};
pub use refusal::{Admission, Refusal, Refusals, HANDOVER_GRACE, REFUSAL};
pub use rsp::{Poll, RspSession, SessionEnd};
