//! The run loop under an [`InstructionGate`] (the debugging checks' fast path): user text
//! without delay slots, as `run` executes it. A straight-line run the gate admits whole runs
//! as the ops of `ops.rs` (interpreted, never compiled), as many rounds as it branches back to
//! its start, each load and store asked of the gate before it is made (a refused one stops the
//! run before its instruction, which is then asked of the gate on its own); any other
//! instruction runs on its own, admitted before it executes and reported after. A breakpoint's
//! `DebugStop`, kernel text, a PC off the text, delay slots, a resumed watch stop, a trap
//! inside a whole run, or an instruction the gate does not admit are left to the caller, one
//! `step` at a time.

use asmdbg_core::{AskGate, InstructionGate, RunOutcome};

use crate::decode::Instruction;
use crate::memory::TEXT_BASE;

use super::runs::Runs;
use super::{Cpu, Trap};

impl Cpu {
    /// Runs up to `budget` instructions while `gate` admits them; stops as `run` stops
    /// (a trap's stop, a `syscall` for the machine) and, with no stop, before an instruction
    /// the loop or the gate leaves to the caller.
    pub fn run_gated<G: InstructionGate<Cpu>>(&mut self, budget: u64, gate: &mut G) -> RunOutcome {
        self.debug.sync(&self.breakpoints, &self.watchpoints);
        if self.delay_slots || self.debug.watch.resuming() {
            return RunOutcome {
                executed: 0,
                stop: None,
            };
        }
        let code = self.debug.breakpoints.lend_patched();
        let mut runs = std::mem::take(&mut self.runs);
        runs.sync(&code, self.debug.breakpoints.version());
        let outcome = self.run_gated_in(&code, &runs, budget, gate);
        self.runs = runs;
        self.debug.breakpoints.restore_patched(code);
        self.instructions += outcome.executed;
        outcome
    }

    fn run_gated_in<G: InstructionGate<Cpu>>(
        &mut self,
        code: &[Instruction],
        runs: &Runs,
        budget: u64,
        gate: &mut G,
    ) -> RunOutcome {
        let mut executed = 0u64;
        let mut pc = self.pc;
        let mut stop = None;
        // Where a run stopped before a load or store the gate refused.
        let mut refused_at = None;
        while executed < budget {
            let slot = (pc.wrapping_sub(TEXT_BASE) >> 2) as usize;
            let instr = match code.get(slot) {
                Some(&instr) if pc & 3 == 0 && !matches!(instr, Instruction::DebugStop) => instr,
                _ => break,
            };
            let (ops, last) = runs.run_at(slot);
            let len = ops.len() as u64;
            if refused_at.take() != Some(pc)
                && len <= budget - executed
                && !matches!(code[last], Instruction::DebugStop)
                && gate.admits_run(self, u64::from(pc), len)
            {
                let max_rounds = (budget - executed) / len;
                let start = pc;
                let (rounds, result) =
                    self.run_ops(start, ops, code, max_rounds, &mut AskGate::new(gate));
                executed += rounds * len;
                match result {
                    Ok(next) => {
                        gate.ran_run(self, u64::from(start), len, rounds, 0);
                        pc = next;
                    }
                    Err((at, trap)) => {
                        // The instructions before `at` completed; the one at `at` did not (a
                        // trap leaves the state as it was before it): it runs again the full
                        // way, where its trap is handled, or on its own if the gate refused
                        // its access.
                        let partial = u64::from(at.wrapping_sub(start) >> 2);
                        executed += partial;
                        gate.ran_run(self, u64::from(start), len, rounds, partial);
                        pc = at;
                        if !matches!(trap, Trap::Refused) {
                            break;
                        }
                        refused_at = Some(pc);
                    }
                }
                continue;
            }
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
