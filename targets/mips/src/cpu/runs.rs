//! The run loop without delay slots (MARS's default): user text a straight-line run at a time.
//!
//! A run ([`asmdbg_core::StraightRuns`]) starts where execution enters user text and ends at
//! the first instruction that may move the PC elsewhere (a branch, a jump, `eret`, a
//! breakpoint's `DebugStop`, the end of the code). Its instructions execute one after another
//! from the breakpoint-patched copy with no fetch, alignment or budget test each (the budget is
//! tested once per run), and a run whose last instruction branches back to its start goes
//! round again at once. Where the runs end is derived from the patched code and recomputed whenever
//! [`asmdbg_core::PatchedCode::version`] changes (a breakpoint set or cleared, code patched
//! or restored). Anything else (kernel text, a PC off the text, a budget ending inside the
//! run) executes one instruction the ordinary way.

use asmdbg_core::{StopEvent, StraightRuns};

use crate::decode::Instruction;
use crate::memory::TEXT_BASE;

use super::{Cpu, Trap};

/// Whether the PC after `instr` may be other than the next word.
fn may_transfer(instr: Instruction) -> bool {
    use Instruction as I;
    matches!(
        instr,
        I::Beq { .. }
            | I::Bne { .. }
            | I::Blez { .. }
            | I::Bgtz { .. }
            | I::Bltz { .. }
            | I::Bgez { .. }
            | I::Bltzal { .. }
            | I::Bgezal { .. }
            | I::Bc1 { .. }
            | I::J { .. }
            | I::Jal { .. }
            | I::Jr { .. }
            | I::Jalr { .. }
            | I::Eret
            | I::DebugStop
            | I::Empty
    )
}

impl Cpu {
    /// Runs up to `budget` instructions without delay slots; the result as `run_loop`'s.
    pub(super) fn run_straight(&mut self, budget: u64) -> (u64, Option<StopEvent>) {
        let code = self.debug.breakpoints.lend_patched();
        let mut ends = std::mem::take(&mut self.run_ends);
        ends.sync(code.len(), self.debug.breakpoints.version());
        let outcome = self.run_straight_in(&code, &mut ends, budget);
        self.run_ends = ends;
        self.debug.breakpoints.restore_patched(code);
        outcome
    }

    #[inline(never)]
    fn run_straight_in(
        &mut self,
        code: &[Instruction],
        ends: &mut StraightRuns,
        budget: u64,
    ) -> (u64, Option<StopEvent>) {
        let mut executed = 0u64;
        let mut pc = self.pc;
        while executed < budget {
            let slot = (pc.wrapping_sub(TEXT_BASE) >> 2) as usize;
            if pc & 3 == 0 && slot < code.len() {
                let last = ends.last_of(slot, code, may_transfer);
                let len = (last - slot + 1) as u64;
                if len <= budget - executed {
                    let start = pc;
                    let (body, tail) = (&code[slot..last], code[last]);
                    let trapped = loop {
                        let mut at = start;
                        let mut trapped = None;
                        for &instr in body {
                            if let Err(trap) = self.execute::<false>(at, instr) {
                                trapped = Some(trap);
                                break;
                            }
                            at = at.wrapping_add(4);
                        }
                        if let Some(trap) = trapped {
                            break Some((at, trap));
                        }
                        match self.execute::<false>(at, tail) {
                            Ok(next) => {
                                executed += len;
                                pc = next;
                                // A loop of one run goes round again.
                                if next != start || len > budget - executed {
                                    break None;
                                }
                            }
                            Err(trap) => break Some((at, trap)),
                        }
                    };
                    if let Some((at, trap)) = trapped {
                        // The instructions before `at` completed.
                        executed += u64::from(at.wrapping_sub(start) >> 2);
                        if let Some(stop) = self.trapped(at, trap, &mut executed) {
                            return stop;
                        }
                        pc = self.pc;
                    }
                    continue;
                }
            }
            // One instruction the ordinary way. Kernel text has no patched copy: its
            // breakpoints are tested here.
            let result = if self.breakpoints.contains(pc as u64) {
                Err(Trap::Breakpoint)
            } else {
                match code.get(slot).filter(|_| pc & 3 == 0) {
                    Some(&instr) => self.execute::<false>(pc, instr),
                    None => self
                        .fetch_unmarked(pc)
                        .and_then(|instr| self.execute::<false>(pc, instr)),
                }
            };
            match result {
                Ok(next) => {
                    executed += 1;
                    pc = next;
                }
                Err(trap) => {
                    if let Some(stop) = self.trapped(pc, trap, &mut executed) {
                        return stop;
                    }
                    pc = self.pc;
                }
            }
        }
        self.pc = pc;
        (executed, None)
    }

    /// Handles the trap of the instruction at `at`; the run's result if the run ends there.
    #[inline(never)]
    fn trapped(
        &mut self,
        at: u32,
        trap: Trap,
        executed: &mut u64,
    ) -> Option<(u64, Option<StopEvent>)> {
        let (counted, stop) = self.handle_trap(at, trap);
        *executed += counted as u64;
        if stop.is_some() || self.syscall_pending {
            Some((*executed, stop))
        } else {
            None
        }
    }
}
