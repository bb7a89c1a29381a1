//! The run loop: [`Cpu::step`] and [`Cpu::run`], blocks chained one after another with the PC
//! and the condition codes in locals, compiled blocks entered (`jit.rs`), and one instruction
//! the ordinary way wherever a block cannot run.

use asmdbg_core::code_memory::LEFT_EARLY;
use asmdbg_core::{InstructionGate, RunAccess, RunOutcome, StopEvent, Unasked};

use super::blocks::BlockCache;
use super::{cc_of, jit, Cpu, Exit};

/// How [`Cpu::run_gated_block`] ended.
enum GatedRun {
    /// The block ran (whole rounds, or up to an instruction that completed and left it).
    Ran,
    /// It did not run, or stopped before an instruction the gate must not see run here: that
    /// instruction goes one at a time.
    NotRun,
    /// It stopped as `run` stops (`None`: before an instruction that did not complete, for
    /// the caller to take the full way).
    Stopped(Option<StopEvent>),
}

/// The checks' gate asked about each load and store of a gated block; only plain memory is
/// admitted (a device register, or an address outside the access window, goes the full way
/// as on the one-at-a-time fast path).
struct GateAccess<'g, G> {
    gate: &'g mut G,
    plain_lo: u16,
    plain_len: u16,
}

impl<G: InstructionGate<Cpu>> RunAccess for GateAccess<'_, G> {
    const ASKED: bool = true;

    #[inline(always)]
    fn admits(&mut self, addr: u64, units: u64, store: bool) -> bool {
        (addr as u16).wrapping_sub(self.plain_lo) < self.plain_len
            && self.gate.admits_access(addr, units, store)
    }
}

/// How [`Cpu::run_chain`] ended.
enum Chain {
    /// The budget is used up.
    Done,
    /// The PC is on a breakpoint.
    Breakpoint,
    /// An op left the ordinary path (the PC is past it).
    Exit(Exit),
    /// The block at the PC cannot run as a block: one instruction must run the ordinary way.
    Ordinary,
}

impl Cpu {
    /// Executes one instruction (taking a due interrupt first) without checking breakpoints.
    /// A single KBSR poll reads "not ready": only a loop that keeps polling while it runs is
    /// taken to wait for a key, so a debugger's `stepi` through a wait loop always steps.
    pub fn step(&mut self) -> Option<StopEvent> {
        self.sync_debug_sets();
        self.empty_polls = 0;
        let stop = self.step_synced();
        if self.code_stale {
            self.forget_code();
        }
        stop
    }

    fn step_synced(&mut self) -> Option<StopEvent> {
        if self.halted() {
            return Some(StopEvent::Halted);
        }
        // An instruction resumed after a watch stop runs before any interrupt: the watch stop
        // interrupted it, not the other way round.
        let resuming = self.debug.watch.resuming();
        if self.irq_armed && !resuming {
            match self.poll_interrupt() {
                // Taking an interrupt is a step of its own: it stops at the routine's first
                // instruction (where a breakpoint there stops `continue` too), so gdb's
                // `stepi` shows the interrupt arrive, `step` stops in the routine and `next`
                // runs it to its RTI as it runs a called subroutine. No instruction ran.
                Ok(true) => return None,
                Ok(false) => {}
                Err(exit) => return self.resolve(self.pc, exit).1,
            }
        }
        let at = self.pc;
        self.poll_at = Some(self.executed);
        let result = if resuming {
            self.execute::<false>()
        } else {
            self.execute::<true>()
        };
        self.poll_at = None;
        self.poll_alone = false;
        let (counted, stop) = match result {
            Ok(()) => (true, None),
            Err(exit) => self.resolve(at, exit),
        };
        if counted {
            self.executed += 1;
            self.debug.watch.end_resume();
        }
        stop
    }

    /// Executes up to `budget` instructions while `gate` admits them (the debugging checks'
    /// fast path): a whole block where the gate admits it, its loads and stores asked of the
    /// gate one by one, else one instruction as `run` executes it the ordinary way. Stops as
    /// `run` stops, and with no stop before an instruction the gate does not admit or `run`
    /// and `step` would not execute alike (a breakpoint at the PC, an interrupt due, a resumed
    /// watch stop, the machine halted), for the caller to take one `step` at a time.
    pub fn run_gated<G: InstructionGate<Cpu>>(&mut self, budget: u64, gate: &mut G) -> RunOutcome {
        let start = self.executed;
        self.sync_debug_sets();
        let mut blocks = self.take_blocks();
        let mut stop = None;
        while self.executed - start < budget {
            if self.halted()
                || self.irq_armed
                || self.debug.watch.resuming()
                || self.breakpoint_at(self.pc)
            {
                break;
            }
            let left = budget - (self.executed - start);
            match self.run_gated_block(&mut blocks, left, gate) {
                GatedRun::Ran => continue,
                GatedRun::Stopped(block_stop) => {
                    stop = block_stop;
                    break;
                }
                GatedRun::NotRun => {}
            }
            let Some(ticket) = gate.admits(self, u64::from(self.pc)) else {
                break;
            };
            // As `run` executes an instruction the ordinary way (no interrupt is due and no
            // watch stop resumes). Unlike `step`, the count of empty keyboard polls goes on:
            // a wait loop's poll goes the full way as `run(1)`, its branch back comes here,
            // and the wait must still be seen as one.
            let at = self.pc;
            self.poll_at = Some(self.executed);
            let result = self.execute::<true>();
            self.poll_at = None;
            self.poll_alone = false;
            let counted = match result {
                Ok(()) => true,
                Err(exit) => {
                    let (counted, exit_stop) = self.resolve(at, exit);
                    stop = exit_stop;
                    counted
                }
            };
            if counted {
                self.executed += 1;
                gate.ran(ticket);
            }
            // A store over decoded blocks: they go before any runs again.
            self.settle_code(&mut blocks);
            if stop.is_some() || !counted {
                break;
            }
        }
        self.blocks = Some(blocks);
        RunOutcome {
            executed: self.executed - start,
            stop,
        }
    }

    /// The block at the PC, interpreted as `run` interprets it (never compiled), if it can
    /// run as a block there (as in [`Cpu::run_chain`]), fits in `left` and `gate` admits it;
    /// its loads and stores are asked of the gate before they are made, and one it refuses
    /// ends the block before its instruction.
    fn run_gated_block<G: InstructionGate<Cpu>>(
        &mut self,
        blocks: &mut BlockCache,
        left: u64,
        gate: &mut G,
    ) -> GatedRun {
        if self.poll_alone || !matches!(self.cc, 1 | 2 | 4) {
            return GatedRun::NotRun;
        }
        let pc = self.pc;
        let index = blocks.index_at(pc, &self.mem, &self.debug.breakpoints, &mut self.code);
        let (block, ops) = blocks.block(index);
        let len = u64::from(block.len);
        let restricted = self.restricted();
        if len == 0
            || len > left
            || (restricted && !block.within(self.plain_lo, self.plain_len))
            || !gate.admits_run(self, u64::from(pc), len)
        {
            return GatedRun::NotRun;
        }
        let mut last: u16 = match self.cc {
            4 => 0x8000,
            2 => 0,
            _ => 1,
        };
        let mut access = GateAccess {
            gate: &mut *gate,
            plain_lo: self.plain_lo,
            plain_len: self.plain_len,
        };
        let (rounds, outcome) =
            self.run_block::<true, _>(block, ops, &mut last, left / len, &mut access);
        self.executed += rounds * len;
        match outcome {
            Ok(next) => {
                self.pc = next;
                self.cc = cc_of(last);
                gate.ran_run(self, u64::from(pc), len, rounds, 0);
                GatedRun::Ran
            }
            Err((ran, exit)) => {
                // The PC is past the op that exited and the condition codes are written
                // back; a refused access, a watch stop or a wait for input rewinds the PC to
                // its instruction, uncommitted.
                let at = self.pc.wrapping_sub(1);
                let (counted, stop) = self.resolve(at, exit);
                let partial = ran + u64::from(counted);
                self.executed += partial;
                gate.ran_run(self, u64::from(pc), len, rounds, partial);
                self.settle_code(blocks);
                match (stop, exit) {
                    (None, Exit::Refused) => GatedRun::NotRun,
                    (None, _) if counted => GatedRun::Ran,
                    (stop, _) => GatedRun::Stopped(stop),
                }
            }
        }
    }

    /// Executes up to `budget` instructions, checking breakpoints before each one.
    pub fn run(&mut self, budget: u64) -> RunOutcome {
        let start = self.executed;
        let stop = self.run_loop(budget);
        RunOutcome {
            executed: self.executed - start,
            stop,
        }
    }

    fn run_loop(&mut self, budget: u64) -> Option<StopEvent> {
        if self.halted() {
            return Some(StopEvent::Halted);
        }
        self.sync_debug_sets();
        let mut left = budget;
        if self.debug.watch.resuming() && left > 0 {
            if self.breakpoint_at(self.pc) {
                return Some(StopEvent::Breakpoint);
            }
            left -= 1;
            if let Some(stop) = self.step_synced() {
                return Some(stop);
            }
        }
        let mut blocks = self.take_blocks();
        let mut done: u64 = 0;
        let stop = if self.watchpoints.is_empty() {
            self.run_blocks::<false>(&mut blocks, left, &mut done)
        } else {
            self.run_blocks::<true>(&mut blocks, left, &mut done)
        };
        self.blocks = Some(blocks);
        self.executed += done;
        stop
    }

    /// The run loop: blocks chained one after another where it can ([`Cpu::run_chain`]), else
    /// one instruction the ordinary way (an interrupt could come between any two
    /// instructions, the PSR holds condition codes other than one of N, Z, P, the budget ends
    /// inside the block, the block would fetch outside the access window, or the instruction
    /// at the PC enters the OS). Counts executed instructions in `done`.
    #[inline(always)]
    fn run_blocks<const WATCH: bool>(
        &mut self,
        blocks: &mut BlockCache,
        left: u64,
        done: &mut u64,
    ) -> Option<StopEvent> {
        loop {
            if *done == left {
                return None;
            }
            if !self.irq_armed && !self.poll_alone && matches!(self.cc, 1 | 2 | 4) {
                match self.run_chain::<WATCH>(blocks, left, done) {
                    Chain::Done => return None,
                    Chain::Breakpoint => return Some(StopEvent::Breakpoint),
                    Chain::Exit(exit) => {
                        if let Some(stop) = self.finish_exit(exit, done, blocks) {
                            return Some(stop);
                        }
                        continue;
                    }
                    Chain::Ordinary => {}
                }
            }
            if let Some(stop) = self.run_ordinary(done, blocks) {
                return Some(stop);
            }
        }
    }

    /// One instruction the ordinary way, after a due interrupt and the breakpoint test.
    #[inline(never)]
    fn run_ordinary(&mut self, done: &mut u64, blocks: &mut BlockCache) -> Option<StopEvent> {
        if self.irq_armed {
            if let Err(exit) = self.poll_interrupt() {
                // Before the instruction: nothing ran, the PC is where it was.
                return self.resolve(self.pc, exit).1;
            }
        }
        if self.breakpoint_at(self.pc) {
            return Some(StopEvent::Breakpoint);
        }
        self.poll_at = Some(self.executed + *done);
        let result = self.execute::<true>();
        self.poll_at = None;
        self.poll_alone = false;
        match result {
            Ok(()) => {
                *done += 1;
                self.settle_code(blocks);
                None
            }
            Err(exit) => self.finish_exit(exit, done, blocks),
        }
    }

    /// The blocks, out of `self` while a run loop uses them, cut at the current breakpoints
    /// and true to memory (the held instruction a watch stop resumed may have written over
    /// code).
    fn take_blocks(&mut self) -> Box<BlockCache> {
        let mut blocks = self
            .blocks
            .take()
            .unwrap_or_else(|| Box::new(BlockCache::new(self.semantics)));
        blocks.sync(&self.debug.breakpoints, self.semantics, &mut self.code);
        self.settle_code(&mut blocks);
        blocks
    }

    /// Drops the blocks if an instruction wrote over code they hold.
    #[inline(always)]
    fn settle_code(&mut self, blocks: &mut BlockCache) {
        if self.code_stale {
            self.code_stale = false;
            blocks.flush(&mut self.code);
        }
    }

    /// Completes an instruction that left the ordinary path (`self.pc` is past it).
    #[inline(never)]
    fn finish_exit(
        &mut self,
        exit: Exit,
        done: &mut u64,
        blocks: &mut BlockCache,
    ) -> Option<StopEvent> {
        let at = self.pc.wrapping_sub(1);
        let (counted, stop) = self.resolve(at, exit);
        *done += u64::from(counted);
        self.settle_code(blocks);
        stop
    }

    /// Runs blocks one after another, with the PC and the condition codes in locals, until
    /// the budget is used up, a breakpoint is reached, an instruction leaves the ordinary path
    /// or the next block cannot run as a block. Only called with no interrupt armed and the
    /// condition codes one of N, Z, P; nothing inside a block can change either without
    /// leaving it (a store to a device register ends the block).
    #[inline(never)]
    fn run_chain<const WATCH: bool>(
        &mut self,
        blocks: &mut BlockCache,
        left: u64,
        done: &mut u64,
    ) -> Chain {
        // A value whose condition codes are the current ones.
        let mut last: u16 = match self.cc {
            4 => 0x8000,
            2 => 0,
            _ => 1,
        };
        // Under an access check (3rd-edition access control, PennSim's MPR) a user-mode block
        // must lie in the user's plain window (elsewhere each fetch is checked the ordinary
        // way); in supervisor mode every block may run (none reaches the device page).
        let restricted = self.restricted();
        let (window_lo, window_len) = (self.plain_lo, self.plain_len);
        let mut pc = self.pc;
        let end = loop {
            if *done == left {
                break Chain::Done;
            }
            if self.breakpoint_at(pc) {
                break Chain::Breakpoint;
            }
            let index = blocks.index_at(pc, &self.mem, &self.debug.breakpoints, &mut self.code);
            let (block, ops) = blocks.block(index);
            let len = u64::from(block.len);
            if len == 0
                || len > left - *done
                || (restricted && !block.within(window_lo, window_len))
            {
                break Chain::Ordinary;
            }
            // A block that branches back to its own start (a loop of one block) runs again
            // at once, as long as the budget allows another round: its start was tested for a
            // breakpoint and nothing else changed.
            let mut max_rounds = (left - *done) / len;
            let (block, ops) = if block.worth_compiling() {
                // Out of line, so that the loop over short blocks stays as tight as it was.
                let start = block.start;
                match self.run_compiled(blocks, index, &mut last, max_rounds) {
                    None => {}
                    Some((rounds, Ok(next))) => {
                        *done += rounds * len;
                        pc = next;
                        continue;
                    }
                    // The first instruction leaves the plain path: the same block,
                    // interpreted, from the round the code stopped in.
                    Some((rounds, Err(0))) => {
                        *done += rounds * len;
                        max_rounds -= rounds;
                    }
                    // The instructions before `k` completed; the block that starts at `k`
                    // takes it from there.
                    Some((rounds, Err(k))) => {
                        *done += rounds * len + u64::from(k);
                        pc = start.wrapping_add(k);
                        continue;
                    }
                }
                blocks.block(index)
            } else {
                (block, ops)
            };
            let (rounds, outcome) =
                self.run_block::<WATCH, _>(block, ops, &mut last, max_rounds, &mut Unasked);
            *done += rounds * len;
            match outcome {
                Ok(next) => pc = next,
                Err((ran, exit)) => {
                    // `run_block` left the PC past the op that exited, and the condition
                    // codes written back (or set by a store to the PSR).
                    *done += ran;
                    return Chain::Exit(exit);
                }
            }
        };
        self.pc = pc;
        self.cc = cc_of(last);
        end
    }

    /// Runs the block at `index` compiled (see `jit.rs`) from the registers and `last`, at
    /// most `max_rounds` times: the rounds completed, and the PC after the last or the index of
    /// the instruction the code left before; None if the block has no code (yet).
    #[inline(never)]
    fn run_compiled(
        &mut self,
        blocks: &mut BlockCache,
        index: usize,
        last: &mut u16,
        max_rounds: u64,
    ) -> Option<(u64, Result<u16, u16>)> {
        let compiled = blocks.compiled(index)?;
        // The user's view of the access map exactly when the window is the user's.
        let user = self.restricted();
        if user {
            self.code
                .set_user_window(self.plain_lo, self.plain_len, &self.watchpoints);
        }
        let mut context = jit::Context::new(
            self.regs,
            *last,
            self.mem.as_mut_ptr(),
            self.code.view(user),
        );
        // SAFETY: the code was compiled from this block; it reads and writes the context, and
        // memory only inside the 64 K words `mem` points at and the 64 K bytes of the view
        // `access` points at (addresses are 16 bits); `max_rounds` is at least 1.
        let out = unsafe { compiled(&mut context, max_rounds) };
        asmdbg_core::code_memory::copy_one_by_one(&context.regs, &mut self.regs);
        *last = context.last as u16;
        let outcome = if out.next & LEFT_EARLY == 0 {
            Ok(out.next as u16)
        } else {
            Err(out.next as u16)
        };
        Some((out.rounds, outcome))
    }
}
