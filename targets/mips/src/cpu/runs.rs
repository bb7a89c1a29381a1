//! The run loop without delay slots (MARS's default): user text a straight-line run at a time.
//!
//! A run starts where execution enters user text and ends at the first instruction that may
//! move the PC elsewhere (a branch, a jump, `eret`, a breakpoint's `DebugStop`, the end of the
//! code), or after [`MAX_RUN`] instructions. It executes as the ops of `ops.rs`, one after
//! another from the breakpoint-patched copy, with no fetch, alignment or budget test each (the
//! budget is tested once per run), and a run whose last instruction branches back to its start
//! goes round again at once. The ops and where the runs end are derived from the patched code
//! and derived again whenever [`asmdbg_core::PatchedCode::version`] changes (a breakpoint set
//! or cleared, code patched or restored). Anything else (kernel text, a PC off the text, a
//! budget ending inside the run) executes one instruction the ordinary way.

use asmdbg_core::code_memory::LEFT_EARLY;
use asmdbg_core::StopEvent;

use crate::decode::Instruction;
use crate::memory::TEXT_BASE;

use super::jit::Jit;
use super::ops::{translate, Op};
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

/// Most instructions in one run: a run is taken whole or not at all, and the debugger's slices
/// (1024 instructions) should rarely end with a run that no longer fits.
const MAX_RUN: usize = 64;

/// What the run loop derives from the patched code: its ops, and for each slot where the run
/// that starts there ends.
#[derive(Debug, Clone, Default)]
pub(super) struct Runs {
    ops: Vec<Op>,
    /// For each slot, the slot of the last instruction of the run that starts there.
    last: Vec<u32>,
    /// The version of the patched code both were derived from.
    version: Option<u64>,
    /// The runs compiled to machine code so far (`jit.rs`).
    jit: Jit,
}

impl Runs {
    /// The ops of the run that starts at `slot`, and the slot of its last instruction.
    pub(super) fn run_at(&self, slot: usize) -> (&[Op], usize) {
        let last = self.last[slot] as usize;
        (&self.ops[slot..=last], last)
    }

    /// Compiles no run while `off` (`Machine::set_compiled_code`).
    pub(super) fn set_compiled_off(&mut self, off: bool) {
        self.jit.set_off(off);
    }

    /// Derives the ops and the runs' ends again if `code` is not the `version` they were
    /// derived from: O(code), once per change of the breakpoints or the code.
    pub(super) fn sync(&mut self, code: &[Instruction], version: u64) {
        if self.version == Some(version) && self.ops.len() == code.len() {
            return;
        }
        self.version = Some(version);
        self.ops.clear();
        let pcs = (TEXT_BASE..).step_by(4);
        self.ops
            .extend(pcs.zip(code).map(|(pc, &instr)| translate(pc, instr)));
        asmdbg_core::straight_run_ends(code, MAX_RUN, |&instr| may_transfer(instr), &mut self.last);
        self.jit.clear();
    }
}

impl Cpu {
    /// Runs up to `budget` instructions without delay slots; the result as `run_loop`'s.
    pub(super) fn run_straight(&mut self, budget: u64) -> (u64, Option<StopEvent>) {
        let code = self.debug.breakpoints.lend_patched();
        let mut runs = std::mem::take(&mut self.runs);
        runs.sync(&code, self.debug.breakpoints.version());
        let outcome = self.run_straight_in(&code, &mut runs, budget);
        self.runs = runs;
        self.debug.breakpoints.restore_patched(code);
        outcome
    }

    #[inline(never)]
    fn run_straight_in(
        &mut self,
        code: &[Instruction],
        runs: &mut Runs,
        budget: u64,
    ) -> (u64, Option<StopEvent>) {
        let mut executed = 0u64;
        let mut pc = self.pc;
        while executed < budget {
            let slot = (pc.wrapping_sub(TEXT_BASE) >> 2) as usize;
            if pc & 3 == 0 && slot < code.len() {
                let last = runs.last[slot] as usize;
                let len = (last - slot + 1) as u64;
                if len <= budget - executed {
                    let start = pc;
                    let run = &runs.ops[slot..=last];
                    let max_rounds = (budget - executed) / len;
                    let (rounds, outcome) = match runs.jit.code(slot, start, run) {
                        Some(compiled) => {
                            // SAFETY: the code was compiled from these ops; it reads and
                            // writes only the 32 registers, and `max_rounds` is at least 1.
                            let out = unsafe { compiled(self.regs.as_mut_ptr(), max_rounds) };
                            let outcome = if out.next & LEFT_EARLY == 0 {
                                Ok(out.next as u32)
                            } else {
                                let at = start.wrapping_add((out.next as u32) << 2);
                                Err((at, super::exec::overflow()))
                            };
                            (out.rounds, outcome)
                        }
                        None => {
                            self.run_ops(start, run, code, max_rounds, &mut asmdbg_core::Unasked)
                        }
                    };
                    executed += rounds * len;
                    match outcome {
                        Ok(next) => pc = next,
                        Err((at, trap)) => {
                            // The instructions before `at` completed.
                            executed += u64::from(at.wrapping_sub(start) >> 2);
                            if let Some(stop) = self.trapped(at, trap, &mut executed) {
                                return stop;
                            }
                            pc = self.pc;
                        }
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
                    Some(&instr) => self.execute_outlined(pc, instr),
                    None => self
                        .fetch_unmarked(pc)
                        .and_then(|instr| self.execute_outlined(pc, instr)),
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
