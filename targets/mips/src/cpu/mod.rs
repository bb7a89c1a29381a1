//! The MIPS cpu as MARS 4.5 runs it: registers, coprocessors 0 and 1, the predecoded text
//! segments, and the execution loop with MARS's runtime exceptions.
//!
//! Split by concern, as mooneye-gb splits its cpu: this file holds the registers, `step` and
//! the run loop with delay slots; `runs.rs` the run loop without them (MARS's default), a
//! straight-line run of user text at a time, executing the compact ops of `ops.rs`, or the
//! machine code `jit.rs` compiles for a run of integer instructions; `exec.rs`
//! executes integer and control instructions, `access.rs` does loads and stores with MARS's
//! checks and the watchpoint test, `fpu.rs` coprocessor 1, `traps.rs` MARS's reaction to
//! exceptions and its error texts, `text.rs` the decoded text segments and their
//! breakpoint-patched copy, `state.rs` the cpu's part of a machine snapshot. The
//! breakpoint-patched copy, the watch filter and the resume-after-watch flag are the generic
//! [`asmdbg_core::DebugCache`] the other cpus use too.
//!
//! The text segments are kept as decoded [`Instruction`]s (one per word, decoded when loaded
//! or written), so the hot loop never decodes; without delay slots it runs the ops translated
//! from them a run at a time. Without self-modifying code MARS refuses loads and stores to
//! text, so the code can only change through the debugger, which goes through
//! [`Cpu::write_text_word`].

mod access;
mod exec;
mod fpu;
mod gated;
mod jit;
mod ops;
mod runs;
mod state;
mod text;
mod traps;

pub use state::CpuState;
pub(crate) use traps::Trap;

use asmdbg_core::{
    BreakpointSet, Console, DebugCache, PatchedCode, RunOutcome, StopEvent, WatchFilter,
    WatchpointSet,
};

use crate::decode::Instruction;
use crate::memory::{Memory, GLOBAL_POINTER, STACK_POINTER, TEXT_BASE};

/// MARS's initial Coprocessor 0 Status (user mode, interrupts enabled, all masks set).
pub const INITIAL_STATUS: u32 = 0x0000_ff11;

/// MIPS exception codes MARS puts into Cause bits 2..6.
pub mod exc {
    pub const ADDRESS_LOAD: u32 = 4;
    pub const ADDRESS_STORE: u32 = 5;
    pub const SYSCALL: u32 = 8;
    pub const BREAKPOINT: u32 = 9;
    pub const RESERVED_INSTRUCTION: u32 = 10;
    pub const OVERFLOW: u32 = 12;
    pub const TRAP: u32 = 13;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Delay {
    None,
    /// A branch registered its target during this instruction.
    Registered,
    /// The delay slot is executing; jump after it.
    Triggered,
}

/// The registers, memory and code MARS simulates, with the debugger's breakpoints and
/// watchpoints and the caches derived from them. The syscalls' state and the host live in the
/// machine wrapper ([`crate::machine::MipsMachine`]).
#[derive(Debug, Clone)]
pub struct Cpu {
    pub regs: [u32; 32],
    pub hi: u32,
    pub lo: u32,
    pub pc: u32,
    /// Coprocessor 1 registers as raw bits (doubles use even/odd pairs, low word first).
    pub fpr: [u32; 32],
    /// The eight FP condition flags, bit n = flag n.
    pub fcc: u8,
    pub status: u32,
    pub cause: u32,
    pub epc: u32,
    pub badvaddr: u32,
    pub mem: Memory,
    /// The decoded user text, with the run loop's copy that has `DebugStop` over every
    /// breakpoint (so the loop needs no per-instruction breakpoint test), and the watch filter
    /// every load and store asks, with the resume-after-watch flag.
    debug: DebugCache<PatchedCode<Instruction>>,
    text_words: Vec<u32>,
    ktext: Vec<Instruction>,
    ktext_words: Vec<u32>,
    pub breakpoints: BreakpointSet,
    pub watchpoints: WatchpointSet,
    pub console: Console,
    pub delay_slots: bool,
    delay: Delay,
    delay_target: u32,
    /// Instructions completed since reset.
    pub instructions: u64,
    /// The run stopped at a `syscall` the machine has to perform (see [`Trap::Syscall`]).
    syscall_pending: bool,
    /// Where the straight-line runs of user text end, and their ops (the run loop without
    /// delay slots).
    runs: runs::Runs,
    /// MARS's Keyboard and Display MMIO Simulator ([`crate::devices`]).
    pub mmio: crate::devices::Mmio,
    /// No key can come to the MMIO keyboard any more: loads of the receiver's control word
    /// stop the run to be counted as polls (set by the machine before each run; not state).
    pub(crate) count_receiver_polls: bool,
    /// The program accessed the MMIO device's words while no device was connected (for the
    /// advice to connect it; not state).
    pub(crate) mmio_touched: std::cell::Cell<bool>,
}

impl Cpu {
    /// A cpu with empty memory and MARS's initial registers, starting at `pc`.
    pub fn new(pc: u32) -> Self {
        let mut regs = [0; 32];
        regs[28] = GLOBAL_POINTER;
        regs[29] = STACK_POINTER;
        Cpu {
            regs,
            hi: 0,
            lo: 0,
            pc,
            fpr: [0; 32],
            fcc: 0,
            status: INITIAL_STATUS,
            cause: 0,
            epc: 0,
            badvaddr: 0,
            mem: Memory::new(),
            debug: DebugCache::new(
                PatchedCode::new(Vec::new(), TEXT_BASE as u64, 2, Instruction::DebugStop),
                // Word loads and stores are the widest single accesses; doubles, strings and
                // syscall buffers ask `WatchFilter::may_hit_range`.
                WatchFilter::new(4),
            ),
            text_words: Vec::new(),
            ktext: Vec::new(),
            ktext_words: Vec::new(),
            breakpoints: BreakpointSet::new(TEXT_BASE as u64, 0, 2),
            watchpoints: WatchpointSet::new(1 << 32, 12),
            console: Console::new(),
            delay_slots: false,
            delay: Delay::None,
            delay_target: 0,
            instructions: 0,
            syscall_pending: false,
            runs: runs::Runs::default(),
            mmio: crate::devices::Mmio::default(),
            count_receiver_polls: false,
            mmio_touched: std::cell::Cell::new(false),
        }
    }

    /// Runs compiled runs (`on`, the default) or interprets every run
    /// (`Machine::set_compiled_code`).
    pub fn set_compiled_code(&mut self, on: bool) {
        self.runs.set_compiled_off(!on);
    }

    /// Moves the PC (debugger, reset), dropping any pending delayed branch.
    pub fn set_pc(&mut self, pc: u32) {
        self.pc = pc;
        self.delay = Delay::None;
        self.debug.watch.end_resume();
    }

    #[inline(always)]
    pub(crate) fn reg(&self, r: u8) -> u32 {
        self.regs[(r & 31) as usize]
    }

    #[inline(always)]
    pub(crate) fn set_reg(&mut self, r: u8, value: u32) {
        self.regs[(r & 31) as usize] = value;
        self.regs[0] = 0;
    }

    /// Runs up to `budget` instructions, checking breakpoints before each one.
    /// Stops without a stop event when it reaches a `syscall`: `Cpu::take_syscall` then says
    /// so, and the machine performs it.
    pub fn run(&mut self, budget: u64) -> RunOutcome {
        self.debug.sync(&self.breakpoints, &self.watchpoints);
        let mut executed = 0;
        if budget > 0 && self.debug.watch.resuming() {
            if self.breakpoints.contains(self.pc as u64) {
                return RunOutcome {
                    executed: 0,
                    stop: Some(StopEvent::Breakpoint),
                };
            }
            let (counted, stop) = self.step_inner();
            executed += counted as u64;
            if stop.is_some() || self.syscall_pending {
                self.instructions += executed;
                return RunOutcome { executed, stop };
            }
        }
        let (n, stop) = if self.delay_slots {
            self.run_loop::<true>(budget - executed)
        } else {
            self.run_straight(budget - executed)
        };
        executed += n;
        self.instructions += executed;
        RunOutcome { executed, stop }
    }

    /// Executes exactly one instruction, ignoring breakpoints.
    pub fn step(&mut self) -> Option<StopEvent> {
        self.debug.watch.sync(&self.watchpoints);
        let (counted, stop) = self.step_inner();
        self.instructions += counted as u64;
        stop
    }

    fn step_inner(&mut self) -> (bool, Option<StopEvent>) {
        let pc = self.pc;
        let result = match self.fetch_unmarked(pc) {
            Ok(instr) => {
                if self.delay_slots {
                    self.exec_at::<true>(pc, instr)
                } else {
                    self.exec_at::<false>(pc, instr)
                }
            }
            Err(trap) => Err(trap),
        };
        let outcome = match result {
            Ok(next) => {
                self.pc = next;
                (true, None)
            }
            Err(trap) => self.handle_trap(pc, trap),
        };
        self.end_instruction(&outcome);
        outcome
    }

    /// The watched access stays excused until its instruction completes: a syscall that
    /// stopped at a watchpoint may next wait for input before it runs.
    fn end_instruction(&mut self, outcome: &(bool, Option<StopEvent>)) {
        if !self.syscall_pending
            && !matches!(
                outcome.1,
                Some(StopEvent::Watch { .. }) | Some(StopEvent::NeedInput)
            )
        {
            self.debug.watch.end_resume();
        }
    }

    /// Whether the last `run` or `step` stopped at a `syscall` for the machine to perform
    /// (the PC is on it), or at an access of the MMIO device ([`Cpu::take_device_access`]);
    /// clears the flag.
    pub(crate) fn take_syscall(&mut self) -> bool {
        std::mem::take(&mut self.syscall_pending)
    }

    /// Whether the stop [`Cpu::take_syscall`] reported was a device access ([`Trap::Device`]):
    /// `Some(true)` a store, `Some(false)` a load; clears it.
    pub(crate) fn take_device_access(&mut self) -> Option<crate::devices::Watched> {
        self.mmio.trapped.take()
    }

    /// Executes the instruction at the PC that stopped at a device access, letting the access
    /// through; the result as [`Cpu::finish_syscall`]'s.
    pub(crate) fn step_device_access(&mut self) -> (bool, Option<StopEvent>) {
        self.mmio.pass = true;
        let outcome = self.step_inner();
        self.mmio.pass = false;
        self.instructions += outcome.0 as u64;
        outcome
    }

    /// MARS's external interrupt (`code` 0x40 keyboard, 0x80 display) taken at the
    /// instruction at the PC, before it executes: Cause, EPC and Status as for an exception,
    /// then the handler at 0x80000180, or MARS's runtime error when none is loaded. The result
    /// as [`Cpu::finish_syscall`]'s.
    pub(crate) fn interrupt(&mut self, code: u32) -> (bool, Option<StopEvent>) {
        let pc = self.pc;
        let outcome = self.handle_trap(pc, Trap::exception(code, "External Interrupt"));
        self.instructions += outcome.0 as u64;
        outcome
    }

    /// Completes the `syscall` at the PC with the machine's result: the next PC (after a delay
    /// slot's branch, if any) or the trap's stop. Returns whether it counts as executed.
    pub(crate) fn finish_syscall(&mut self, result: Result<(), Trap>) -> (bool, Option<StopEvent>) {
        let pc = self.pc;
        let outcome = match result {
            Ok(()) => {
                let next = pc.wrapping_add(4);
                self.pc = if self.delay_slots {
                    self.after_execute::<true>(next)
                } else {
                    next
                };
                (true, None)
            }
            Err(trap) => self.handle_trap(pc, trap),
        };
        self.end_instruction(&outcome);
        self.instructions += outcome.0 as u64;
        outcome
    }

    fn run_loop<const DELAY: bool>(&mut self, budget: u64) -> (u64, Option<StopEvent>) {
        let mut executed = 0u64;
        let mut pc = self.pc;
        while executed < budget {
            let result = match self.fetch(pc) {
                Ok(instr) => self.exec_at::<DELAY>(pc, instr),
                Err(trap) => Err(trap),
            };
            match result {
                Ok(next) => {
                    pc = next;
                    executed += 1;
                }
                Err(trap) => {
                    let (counted, stop) = self.handle_trap(pc, trap);
                    executed += counted as u64;
                    pc = self.pc;
                    if stop.is_some() || self.syscall_pending {
                        return (executed, stop);
                    }
                }
            }
        }
        self.pc = pc;
        (executed, None)
    }

    #[inline(always)]
    fn exec_at<const DELAY: bool>(&mut self, pc: u32, instr: Instruction) -> Result<u32, Trap> {
        let next = self.execute::<DELAY>(pc, instr)?;
        Ok(self.after_execute::<DELAY>(next))
    }

    /// The delay-slot bookkeeping after an instruction completed with `next` as its next PC.
    #[inline(always)]
    pub(super) fn after_execute<const DELAY: bool>(&mut self, next: u32) -> u32 {
        if DELAY {
            match self.delay {
                Delay::None => {}
                Delay::Registered => self.delay = Delay::Triggered,
                Delay::Triggered => {
                    self.delay = Delay::None;
                    return self.delay_target;
                }
            }
        }
        next
    }
}
