//! Why a machine stopped. Every cpu returns these; the command line maps them to exit statuses
//! and the gdb stub maps them to stop replies, each in exactly one place.

use std::fmt;

/// The kind of access a watchpoint waits for (gdb's `Z2`, `Z3`, `Z4`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WatchKind {
    /// Stop before a write (gdb `watch`).
    Write,
    /// Stop before a read (gdb `rwatch`).
    Read,
    /// Stop before a read or a write (gdb `awatch`).
    Access,
}

/// The kind of access a cpu is about to make, checked against [`WatchKind`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccessKind {
    Read,
    Write,
}

impl WatchKind {
    /// Whether a watchpoint of this kind fires for `access`.
    #[inline]
    pub fn matches(self, access: AccessKind) -> bool {
        matches!(
            (self, access),
            (WatchKind::Access, _)
                | (WatchKind::Write, AccessKind::Write)
                | (WatchKind::Read, AccessKind::Read)
        )
    }
}

/// A guest fault the architecture does not handle itself (no exception handler installed, or an
/// ISA without exceptions). Each kind maps to one POSIX signal for gdb.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultKind {
    /// Undecodable or reserved instruction (SIGILL).
    IllegalInstruction,
    /// Access to an address outside the machine's memory (SIGSEGV).
    BadAddress,
    /// Misaligned access (SIGBUS).
    Unaligned,
    /// Division by zero, arithmetic overflow (SIGFPE).
    Arithmetic,
    /// A `break` or trap instruction without a handler (SIGTRAP).
    Trap,
    /// Anything else the ISA defines as fatal (bad syscall, negative shift, ...) (SIGABRT).
    Other,
}

/// A fault with the guest address it happened at and the text the reference simulator prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    pub kind: FaultKind,
    /// Native address of the faulting instruction.
    pub pc: u64,
    /// The reference tool's message, without a trailing newline.
    pub message: String,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Why `Machine::run` or `Machine::step` stopped before its budget ran out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopEvent {
    /// The program ended normally (LC-3 HALT cleared the clock, SimpleRISC ran off its code).
    Halted,
    /// The program ended with an exit code (MIPS syscall 17; syscall 10 reports `Exited(0)`).
    Exited(i32),
    /// The PC reached an address in the breakpoint set; the instruction there has not executed.
    Breakpoint,
    /// The instruction at the PC is about to access `addr` in a way a watchpoint waits for. The
    /// access has not happened: memory still holds the old value and the PC is on the accessing
    /// instruction.
    Watch { kind: WatchKind, addr: u64 },
    /// The program needs console input that is not queued yet. Nothing has been consumed: queue
    /// input (or mark the console closed) and run again.
    NeedInput,
    /// A fault the guest does not handle. The machine stays stopped on the faulting instruction.
    Fault(Fault),
    /// The debugging checks found broken conventions at the instruction just executed
    /// ([`crate::checks`]); the machine goes on as it is when resumed.
    Check(Vec<crate::checks::Finding>),
}

/// What a bounded run did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOutcome {
    /// Instructions completed during this call.
    pub executed: u64,
    /// `None` when the budget ran out with the machine still running.
    pub stop: Option<StopEvent>,
}
