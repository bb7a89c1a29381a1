//! Traps, exceptions and interrupts: supervisor mode entered through a vector table with PSR
//! and PC pushed on the supervisor stack (3rd-edition TRAP, exceptions, the keyboard
//! interrupt), RTI's return, and how an instruction that left the ordinary path ends: a stop,
//! an exception taken, or a fault.

use asmdbg_core::{Fault, FaultKind, StopEvent};

use super::{Cpu, Exit, KEYBOARD_PRIORITY, PSR_CC, PSR_PRIORITY, PSR_USER, VEC_KEYBOARD};

impl Cpu {
    /// Switches to supervisor mode and pushes PSR and PC on the supervisor stack, then jumps
    /// through `table_entry` (3rd-edition TRAP, exceptions, interrupts). The pushes are plain
    /// memory writes: neither watchpoints nor access control apply to the hardware's own stack.
    pub(super) fn enter_supervisor(&mut self, table_entry: u16, priority: Option<u16>) {
        let old_psr = self.psr();
        if self.is_user() {
            self.saved_usp = self.regs[6];
            self.regs[6] = self.saved_ssp;
        }
        self.psr &= !PSR_USER;
        if let Some(level) = priority {
            self.psr = (self.psr & !PSR_PRIORITY) | (level << 8);
        }
        let sp = self.regs[6].wrapping_sub(1);
        self.mem[sp as usize] = old_psr;
        self.wrote(sp);
        let sp = sp.wrapping_sub(1);
        self.mem[sp as usize] = self.pc;
        self.wrote(sp);
        self.regs[6] = sp;
        self.pc = self.mem[table_entry as usize];
        self.privilege_changed();
    }

    pub(super) fn return_from_interrupt(&mut self) {
        let sp = self.regs[6];
        self.pc = self.mem[sp as usize];
        let psr = self.mem[sp.wrapping_add(1) as usize];
        self.regs[6] = sp.wrapping_add(2);
        self.psr = psr & !PSR_CC;
        self.cc = psr & PSR_CC;
        if self.is_user() {
            self.saved_ssp = self.regs[6];
            self.regs[6] = self.saved_usp;
        }
        self.privilege_changed();
    }

    /// Takes the keyboard interrupt if a key is waiting and the cpu runs below PL4: `Ok(true)`
    /// when it did. With the input held back (a grader's shared prefix) a key could be there,
    /// so the machine must stop here: `Err(Exit::NeedInput)`.
    #[cold]
    #[inline(never)]
    pub(super) fn poll_interrupt(&mut self) -> Result<bool, Exit> {
        let priority = (self.psr & PSR_PRIORITY) >> 8;
        if priority >= KEYBOARD_PRIORITY {
            return Ok(false);
        }
        if self.console.input_held() {
            return Err(Exit::NeedInput);
        }
        let due = self.console.pending_input() > 0;
        if due {
            self.enter_supervisor(0x0100 + VEC_KEYBOARD as u16, Some(KEYBOARD_PRIORITY));
        }
        Ok(due)
    }

    /// Finishes an instruction that left the ordinary path. Returns whether it counts as
    /// executed, and the stop to report (if any).
    #[cold]
    #[inline(never)]
    pub(super) fn resolve(&mut self, at: u16, exit: Exit) -> (bool, Option<StopEvent>) {
        match exit {
            Exit::Watch(kind, addr) => {
                self.pc = at;
                self.debug.watch.hold_for_resume();
                let stop = StopEvent::Watch {
                    kind,
                    addr: addr as u64,
                };
                (false, Some(stop))
            }
            Exit::NeedInput => {
                self.pc = at;
                self.console.set_waiting(true);
                (false, Some(StopEvent::NeedInput))
            }
            Exit::Halted => (true, Some(StopEvent::Halted)),
            Exit::Resync => (true, None),
            Exit::Refused => {
                self.pc = at;
                (false, None)
            }
            Exit::Poll => {
                self.pc = at;
                self.poll_alone = true;
                (false, None)
            }
            Exit::Exception(vector) if self.semantics.exceptions => {
                // lc3tools pushes the faulting instruction's own address, not the next one.
                self.pc = at;
                self.enter_supervisor(0x0100 + u16::from(vector), None);
                (true, None)
            }
            Exit::Stopped(stop) => {
                self.pc = at;
                (false, Some(StopEvent::Fault(stop.fault(at))))
            }
            Exit::Exception(_) => {
                self.pc = at;
                let fault = Fault {
                    kind: FaultKind::IllegalInstruction,
                    pc: at as u64,
                    message: format!("Illegal instruction at x{at:04X}!"),
                };
                (false, Some(StopEvent::Fault(fault)))
            }
        }
    }
}
