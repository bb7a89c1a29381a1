//! Why an instruction did not complete ([`Trap`]) and MARS's reaction: the exception handler
//! at 0x80000180 when one is loaded, otherwise a stop with MARS's runtime error text (the
//! machine adds the `Error in FILE line N: ` place).

use asmdbg_core::{Fault, FaultKind, StopEvent, WatchKind};

use crate::memory::EXCEPTION_HANDLER;

use super::{exc, Cpu, Delay};

/// Why an instruction did not complete normally.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Trap {
    /// A MARS runtime exception: goes to the handler at 0x80000180 if there is one. Boxed so
    /// the hot path's `Result` stays two registers wide.
    Exception(Box<Exception>),
    /// syscall 10 / 17.
    Exit(i32),
    /// No instruction at the PC: MARS ends the program silently.
    Cliff,
    /// The PC is outside both text segments or misaligned: MARS stops with an error that no
    /// handler can catch.
    InvalidPc,
    Watch {
        kind: WatchKind,
        addr: u32,
    },
    NeedInput,
    /// A breakpoint marker in the execution cache was reached.
    Breakpoint,
    /// A `syscall`: the run leaves the loop and the machine performs it
    /// ([`crate::syscalls`]), then [`Cpu::finish_syscall`] completes the instruction.
    Syscall,
    /// A load from the MMIO keyboard's data word or a store to the display's with the
    /// Keyboard and Display MMIO Simulator connected (or a poll of the keyboard when no key can
    /// come): the run leaves the loop and the machine executes the instruction again with the
    /// device watching ([`crate::devices`]).
    Device(crate::devices::Watched),
    /// A load or store of a run that the run's [`asmdbg_core::RunAccess`] refused (the
    /// debugging checks must see it); not executed.
    Refused,
}

/// A MARS runtime exception (`ProcessingException`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Exception {
    /// Cause code, or `None` for MARS errors that set no cause (odd FP register numbers).
    code: Option<u32>,
    message: String,
    badvaddr: Option<u32>,
}

impl Trap {
    pub(crate) fn exception(code: u32, message: impl Into<String>) -> Trap {
        Trap::Exception(Box::new(Exception {
            code: Some(code),
            message: message.into(),
            badvaddr: None,
        }))
    }

    pub(super) fn address(code: u32, text: &str, addr: u32) -> Trap {
        Trap::Exception(Box::new(Exception {
            code: Some(code),
            message: format!("{text}0x{addr:08x}"),
            badvaddr: Some(addr),
        }))
    }

    pub(super) fn even(text: &str) -> Trap {
        Trap::Exception(Box::new(Exception {
            code: None,
            message: text.to_string(),
            badvaddr: None,
        }))
    }
}

impl Cpu {
    /// Turns a trap into MARS's reaction. Returns whether the instruction counts as executed and
    /// the stop to report, if any.
    #[cold]
    pub(super) fn handle_trap(&mut self, pc: u32, trap: Trap) -> (bool, Option<StopEvent>) {
        match trap {
            Trap::Exit(code) => {
                self.pc = pc;
                (true, Some(StopEvent::Exited(code)))
            }
            Trap::Cliff => {
                self.pc = pc;
                (false, Some(StopEvent::Exited(0)))
            }
            Trap::InvalidPc => {
                self.pc = pc;
                self.epc = pc;
                let fault = Fault {
                    kind: if pc & 3 != 0 {
                        FaultKind::Unaligned
                    } else {
                        FaultKind::BadAddress
                    },
                    pc: pc as u64,
                    // The machine puts MARS's `Error in : ` before it.
                    message: format!(
                        "invalid program counter value: 0x{pc:08x}\n\n\
                         Processing terminated due to errors."
                    ),
                };
                (false, Some(StopEvent::Fault(fault)))
            }
            Trap::Watch { kind, addr } => {
                self.pc = pc;
                self.debug.watch.hold_for_resume();
                (
                    false,
                    Some(StopEvent::Watch {
                        kind,
                        addr: addr as u64,
                    }),
                )
            }
            Trap::NeedInput => {
                self.pc = pc;
                self.console.set_waiting(true);
                (false, Some(StopEvent::NeedInput))
            }
            Trap::Breakpoint => {
                self.pc = pc;
                (false, Some(StopEvent::Breakpoint))
            }
            Trap::Refused => {
                self.pc = pc;
                (false, None)
            }
            Trap::Syscall => {
                self.pc = pc;
                self.syscall_pending = true;
                (false, None)
            }
            Trap::Device(access) => {
                self.pc = pc;
                self.syscall_pending = true;
                self.mmio.trapped = Some(access);
                (false, None)
            }
            Trap::Exception(exception) => {
                let Exception {
                    code,
                    message,
                    badvaddr,
                } = *exception;
                if let Some(code) = code {
                    if let Some(addr) = badvaddr {
                        self.badvaddr = addr;
                    }
                    self.cause = (self.cause & 0xffff_fc83) | (code << 2);
                    self.epc = pc;
                    self.status |= 2;
                }
                if self.has_exception_handler() {
                    // MARS moves the PC to the handler and then, as after any instruction,
                    // lets a pending delayed branch land: an exception in a delay slot (or an
                    // interrupt taken there) sets Cause, EPC and Status but the branch's
                    // target runs, not the handler.
                    self.pc = if self.delay_slots {
                        self.after_execute::<true>(EXCEPTION_HANDLER)
                    } else {
                        EXCEPTION_HANDLER
                    };
                    return (true, None);
                }
                self.delay = Delay::None;
                self.pc = pc;
                let kind = match code {
                    Some(exc::ADDRESS_LOAD) | Some(exc::ADDRESS_STORE) => {
                        if message.contains("aligned") {
                            FaultKind::Unaligned
                        } else {
                            FaultKind::BadAddress
                        }
                    }
                    Some(exc::OVERFLOW) => FaultKind::Arithmetic,
                    Some(exc::BREAKPOINT) | Some(exc::TRAP) => FaultKind::Trap,
                    Some(exc::RESERVED_INSTRUCTION) => FaultKind::IllegalInstruction,
                    _ => FaultKind::Other,
                };
                let fault = Fault {
                    kind,
                    pc: pc as u64,
                    // The machine puts MARS's `Error in FILE line N: ` before it.
                    message: format!(
                        "Runtime exception at 0x{pc:08x}: {message}\n\n\
                         Processing terminated due to errors."
                    ),
                };
                (false, Some(StopEvent::Fault(fault)))
            }
        }
    }
}
