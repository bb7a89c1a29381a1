//! PennSim 1.2.5's LC-3 (`--profile pennsim`, [`super::Semantics::pennsim`]) where it is not
//! the book's, as its classes (`LC3`, `RegisterFile`, `Memory`, `TimerDevice`,
//! `KeyboardDevice`) define it:
//!
//! - TRAP links in R7 and enters supervisor mode without touching the stack; `JMPT R` (`RTT`
//!   is `JMPT R7`) jumps and leaves it. RTI, in supervisor mode only, pops the PC and then
//!   reads the PSR from the same stack word (PennSim's `R6` is incremented between the two
//!   reads, but both read the old `R6`).
//! - In user mode every fetch, load and store checks the memory protection register (MPR,
//!   xFE12): bit *n* lets user code touch x*n*000-x*n*FFF.
//! - Nothing goes through an exception vector: an undefined instruction, RTI in user mode or
//!   an access the MPR denies stops the machine with PennSim's exception text.
//! - Devices: the timer (TMR xFE08 reads x8000 once an interval has passed, TMI xFE0A sets
//!   the interval: 0 off, 1 a tick per `.` in the keyboard input, else milliseconds) and the
//!   MPR; KBSR and DSR have no interrupt-enable bits, KBDR keeps returning the last key, and a
//!   `.` waiting in the keyboard input is a timer tick, never a key.
//!
//! PennSim's PSR says privileged with bit 15 *set*; asmdbg keeps the book's encoding (bit 15
//! set in user mode) and converts where a PennSim PSR value enters the machine (RTI).

use asmdbg_core::{Fault, FaultKind};

use super::{Cpu, Exit, DEVICE_BASE, PSR_USER, READY};

pub const TMR: u16 = 0xFE08;
pub const TMI: u16 = 0xFE0A;
pub const MPR: u16 = 0xFE12;

/// Instructions asmdbg counts as one of the timer's milliseconds. PennSim's timer counts the
/// host's wall clock; this one counts instructions, so that a run is the same every time.
pub const INSTRUCTIONS_PER_MS: u64 = 1000;

/// The key PennSim's keyboard reads as a tick of the manual timer.
const TIMER_TICK: u8 = b'.';

/// Why PennSim stopped the machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PennSimStop {
    /// No pattern of its ISA matches the word.
    Undefined(u16),
    /// RTI in user mode.
    UserRti,
    /// The MPR does not let user mode touch the address.
    Denied(u16),
}

/// PennSim's timer device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Timer {
    enabled: bool,
    /// TMI = 1: a tick per `.` in the keyboard input.
    manual: bool,
    interval: u16,
    /// The instruction count when the timer last went off (or was set).
    last: u64,
}

/// The registers PennSim has and the book's LC-3 has not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PennSimDevices {
    pub mpr: u16,
    timer: Timer,
}

impl Default for PennSimDevices {
    /// Power-on: MPR 0, the timer on, 500 ms.
    fn default() -> Self {
        PennSimDevices {
            mpr: 0,
            timer: Timer {
                enabled: true,
                manual: false,
                interval: 500,
                last: 0,
            },
        }
    }
}

impl PennSimStop {
    /// PennSim's text for it (its exceptions' `getExceptionDescription`).
    pub(super) fn fault(self, at: u16) -> Fault {
        let (kind, message) = match self {
            PennSimStop::Undefined(word) => (
                FaultKind::IllegalInstruction,
                format!("IllegalInstructionException: Undefined instruction:  x{word:04X}"),
            ),
            PennSimStop::UserRti => (
                FaultKind::IllegalInstruction,
                "IllegalInstructionException: RTI can only be executed in privileged mode"
                    .to_string(),
            ),
            PennSimStop::Denied(addr) => (
                FaultKind::BadAddress,
                format!(
                    "IllegalMemAccessException accessing address x{addr:04X}\n\
                     (The MPR and PSR do not permit access to this address)"
                ),
            ),
        };
        Fault {
            kind,
            pc: u64::from(at),
            message,
        }
    }
}

/// The longest run of 4K pages below the device registers that `mpr` opens to user mode, as
/// (first address, length): the plain window a user-mode access takes without a check (any
/// other address goes the slow way, which checks the MPR itself).
pub(super) fn user_window(mpr: u16) -> (u16, u16) {
    let mut best = (0u32, 0u32);
    let mut page = 0u32;
    while page < 16 {
        if mpr & (1 << page) == 0 {
            page += 1;
            continue;
        }
        let first = page;
        while page < 16 && mpr & (1 << page) != 0 {
            page += 1;
        }
        let lo = first << 12;
        let hi = (page << 12).min(u32::from(DEVICE_BASE));
        if hi - lo > best.1 {
            best = (lo, hi - lo);
        }
    }
    (best.0 as u16, best.1 as u16)
}

impl Cpu {
    /// Whether the MPR keeps user mode from `addr`.
    #[cold]
    pub(super) fn mpr_denies(&self, addr: u16) -> bool {
        self.is_user() && self.pennsim.mpr & (1 << (addr >> 12)) == 0
    }

    /// TRAP: R7 = the return address, supervisor mode, PC = the vector's word.
    pub(super) fn pennsim_trap(&mut self, vector: u8, next: u16) {
        self.regs[7] = next;
        self.psr &= !PSR_USER;
        self.pc = self.mem[usize::from(vector)];
        self.privilege_changed();
    }

    /// JMPT and RTT: jump to `target` in user mode.
    pub(super) fn jump_to_user(&mut self, target: u16) {
        self.psr |= PSR_USER;
        self.pc = target;
        self.privilege_changed();
    }

    /// RTI as PennSim has it (see the module's notes).
    pub(super) fn pennsim_rti(&mut self) -> Result<(), Exit> {
        if self.is_user() {
            return Err(Exit::Stopped(PennSimStop::UserRti));
        }
        let sp = self.regs[6];
        let word = self.mem[usize::from(sp)];
        self.regs[6] = sp.wrapping_add(1);
        self.pc = word;
        // PennSim's privileged bit is the book's user bit, inverted.
        self.set_psr(word ^ PSR_USER);
        Ok(())
    }

    /// A load from one of PennSim's own registers, or from the keyboard as PennSim reads it.
    pub(super) fn pennsim_load(&mut self, addr: u16) -> Option<u16> {
        Some(match addr {
            TMR => {
                if self.timer_gone_off() {
                    READY
                } else {
                    0
                }
            }
            TMI => self.pennsim.timer.interval,
            MPR => self.pennsim.mpr,
            super::KBDR => {
                self.empty_polls = 0;
                if self.key_waiting() {
                    self.kbdr = self.console.read_byte().map_or(self.kbdr, u16::from);
                }
                self.kbdr
            }
            _ => return None,
        })
    }

    /// A store to one of PennSim's own registers; false for any other address.
    pub(super) fn pennsim_store(&mut self, addr: u16, value: u16) -> bool {
        match addr {
            TMI => {
                let timer = &mut self.pennsim.timer;
                timer.interval = value;
                timer.enabled = value != 0;
                timer.manual = value == 1;
                timer.last = self.executed;
            }
            MPR => {
                self.pennsim.mpr = value;
                self.privilege_changed();
            }
            _ => return false,
        }
        // PennSim keeps the word in memory too.
        self.mem[usize::from(addr)] = value;
        true
    }

    /// A key is waiting and it is not a timer tick.
    pub(super) fn key_waiting(&self) -> bool {
        self.console
            .peek_byte()
            .is_some_and(|byte| byte != TIMER_TICK)
    }

    fn timer_gone_off(&mut self) -> bool {
        let timer = self.pennsim.timer;
        if !timer.enabled {
            return false;
        }
        if timer.manual {
            if self.console.peek_byte() == Some(TIMER_TICK) {
                let _ = self.console.read_byte();
                return true;
            }
            return false;
        }
        let now = self.executed;
        if now.saturating_sub(timer.last) > u64::from(timer.interval) * INSTRUCTIONS_PER_MS {
            self.pennsim.timer.last = now;
            return true;
        }
        false
    }

    /// PennSim's registers as the debugger sees them (no timer tick is consumed).
    pub(super) fn pennsim_peek(&self, addr: u16) -> Option<u16> {
        match addr {
            TMI => Some(self.pennsim.timer.interval),
            MPR => Some(self.pennsim.mpr),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_user_window_is_the_longest_run_of_open_pages() {
        assert_eq!(user_window(0xFFFF), (0x0000, DEVICE_BASE));
        // The course OS's x0FF8: x3000-xBFFF.
        assert_eq!(user_window(0x0FF8), (0x3000, 0x9000));
        assert_eq!(user_window(0x0000), (0x0000, 0));
        assert_eq!(user_window(0x8001), (0x0000, 0x1000));
        assert_eq!(user_window(0xF000), (0xC000, DEVICE_BASE - 0xC000));
    }
}
