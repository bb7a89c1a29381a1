//! The run loop one instruction at a time under an [`InstructionGate`] (the debugging checks'
//! fast path): user text without delay slots, as `run` executes it (a breakpoint's
//! `DebugStop` ends the loop before it, for the caller to treat), each instruction admitted
//! by the gate before it executes and reported to it after. Anything else (kernel text, a PC
//! off the text, delay slots, a resumed watch stop) is left to the caller, one `step` at a
//! time.

use asmdbg_core::{InstructionGate, RunOutcome};

use crate::decode::Instruction;
use crate::memory::TEXT_BASE;

use super::Cpu;

impl Cpu {
    /// Runs up to `budget` instructions while `gate` admits them; stops as `run` stops
    /// (a trap's stop, a `syscall` for the machine) and, with no stop, before an instruction
    /// the loop or the gate leaves to the caller.
    pub fn run_gated<G: InstructionGate<Cpu>>(&mut self, budget: u64, gate: &mut G) -> RunOutcome {
        self.debug.sync(&self.breakpoints, &self.watchpoints);
        let mut executed = 0u64;
        if self.delay_slots || self.debug.watch.resuming() {
            return RunOutcome {
                executed,
                stop: None,
            };
        }
        let mut pc = self.pc;
        let mut stop = None;
        while executed < budget {
            let slot = (pc.wrapping_sub(TEXT_BASE) >> 2) as usize;
            let instr = match self.debug.breakpoints.patched().get(slot) {
                Some(&instr) if pc & 3 == 0 && !matches!(instr, Instruction::DebugStop) => instr,
                _ => break,
            };
            let Some(ticket) = gate.admits(self, u64::from(pc)) else {
                break;
            };
            match self.execute::<false>(pc, instr) {
                Ok(next) => {
                    pc = next;
                    executed += 1;
                    gate.ran(ticket);
                }
                Err(trap) => {
                    let (counted, trap_stop) = self.handle_trap(pc, trap);
                    if counted {
                        executed += 1;
                        gate.ran(ticket);
                    }
                    pc = self.pc;
                    if trap_stop.is_some() || self.syscall_pending {
                        stop = trap_stop;
                        break;
                    }
                }
            }
        }
        self.pc = pc;
        self.instructions += executed;
        RunOutcome { executed, stop }
    }

    /// The decoded user text (breakpoints not marked) and the version of its breakpoint-patched
    /// copy, which changes whenever the code or the breakpoints do.
    pub(crate) fn user_text(&self) -> (&[Instruction], u64) {
        (
            self.debug.breakpoints.code(),
            self.debug.breakpoints.version(),
        )
    }
}
