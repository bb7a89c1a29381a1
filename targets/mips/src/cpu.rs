//! The MIPS cpu as MARS 4.5 runs it: registers, coprocessors 0 and 1, the predecoded text
//! segments, and the execution loop with MARS's runtime exceptions.
//!
//! The text segments are kept as decoded [`Instruction`]s (one per word, decoded when loaded or
//! written), so the hot loop does one indexed load per instruction and never decodes. Without
//! self-modifying code MARS refuses loads and stores to text, so the cache can only change through
//! the debugger, which goes through [`Cpu::write_text_word`].

use asmdbg_core::breakpoints::Watchpoint;
use asmdbg_core::{
    AccessKind, BreakpointSet, Console, Fault, FaultKind, RunOutcome, StopEvent, WatchKind,
    WatchpointSet,
};

use crate::decode::Instruction;
use crate::decode::{branch_target, decode, jump_target, FpArith, FpCond, FpFmt, FpUnary};
use crate::memory::{
    in_ktext, in_text, Memory, Region, EXCEPTION_HANDLER, GLOBAL_POINTER, KTEXT_BASE,
    STACK_POINTER, TEXT_BASE, TEXT_LIMIT,
};

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

    fn address(code: u32, text: &str, addr: u32) -> Trap {
        Trap::Exception(Box::new(Exception {
            code: Some(code),
            message: format!("{text}0x{addr:08x}"),
            badvaddr: Some(addr),
        }))
    }

    fn even(text: &str) -> Trap {
        Trap::Exception(Box::new(Exception {
            code: None,
            message: text.to_string(),
            badvaddr: None,
        }))
    }
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
    text: Vec<Instruction>,
    /// `text` with `DebugStop` over every breakpoint: what the run loop executes, so it needs
    /// no per-instruction breakpoint test.
    exec: Vec<Instruction>,
    /// The breakpoint addresses `exec` was built for.
    exec_breakpoints: Vec<u64>,
    /// Generation of `breakpoints` that `exec` was last checked against.
    synced_breakpoints: u64,
    text_words: Vec<u32>,
    ktext: Vec<Instruction>,
    ktext_words: Vec<u32>,
    pub breakpoints: BreakpointSet,
    pub watchpoints: WatchpointSet,
    pub console: Console,
    pub delay_slots: bool,
    delay: Delay,
    delay_target: u32,
    /// Copy of the watchpoints, synchronised before every `run` and `step`.
    watch_ranges: Vec<Watchpoint>,
    /// Generation of `watchpoints` that `watch_ranges` was last checked against.
    synced_watchpoints: u64,
    /// Bounds of all watched ranges, for a two-compare rejection of most accesses.
    watch_low: u64,
    watch_high: u64,
    /// Set after a watch stop: the next instruction runs without reporting watchpoints.
    watch_suppressed: bool,
    /// Instructions completed since reset.
    pub instructions: u64,
    /// The run stopped at a `syscall` the machine has to perform (see [`Trap::Syscall`]).
    syscall_pending: bool,
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
            text: Vec::new(),
            exec: Vec::new(),
            exec_breakpoints: Vec::new(),
            synced_breakpoints: 0,
            text_words: Vec::new(),
            ktext: Vec::new(),
            ktext_words: Vec::new(),
            breakpoints: BreakpointSet::new(TEXT_BASE as u64, 0, 2),
            watchpoints: WatchpointSet::new(1 << 32, 12),
            console: Console::new(),
            delay_slots: false,
            delay: Delay::None,
            delay_target: 0,
            watch_ranges: Vec::new(),
            synced_watchpoints: 0,
            watch_low: u64::MAX,
            watch_high: 0,
            watch_suppressed: false,
            instructions: 0,
            syscall_pending: false,
        }
    }

    /// Moves the PC (debugger, reset), dropping any pending delayed branch.
    pub fn set_pc(&mut self, pc: u32) {
        self.pc = pc;
        self.delay = Delay::None;
        self.watch_suppressed = false;
    }

    /// Bytes of user text holding instructions (rounded up to words).
    pub fn text_len_bytes(&self) -> u32 {
        self.text.len() as u32 * 4
    }

    fn text_slot(&mut self, addr: u32) -> Option<(&mut Vec<Instruction>, &mut Vec<u32>, usize)> {
        if addr & 3 != 0 {
            return None;
        }
        if in_text(addr) {
            Some((
                &mut self.text,
                &mut self.text_words,
                ((addr - TEXT_BASE) >> 2) as usize,
            ))
        } else if in_ktext(addr) {
            Some((
                &mut self.ktext,
                &mut self.ktext_words,
                ((addr - KTEXT_BASE) >> 2) as usize,
            ))
        } else {
            None
        }
    }

    /// Puts an instruction word into .text or .ktext (loading, or the debugger patching code).
    /// False if `addr` is not a word address in a text segment.
    pub fn write_text_word(&mut self, addr: u32, word: u32) -> bool {
        let Some((code, words, idx)) = self.text_slot(addr) else {
            return false;
        };
        if idx >= code.len() {
            code.resize(idx + 1, Instruction::Empty);
            words.resize(idx + 1, 0);
        }
        let instr = decode(word);
        code[idx] = instr;
        words[idx] = word;
        if in_text(addr) {
            match self.exec.get_mut(idx) {
                // Keep a breakpoint marker; `step` and `text` see the new instruction.
                Some(slot) if *slot != Instruction::DebugStop => *slot = instr,
                Some(_) => {}
                // The run loop rebuilds the copy (and its markers) before it next runs.
                None => self.exec.clear(),
            }
        }
        true
    }

    /// Brings `exec` up to date with `text` and the breakpoint set (the debugger may have changed
    /// either between runs).
    fn sync_breakpoints(&mut self) {
        let generation = self.breakpoints.generation();
        if generation == self.synced_breakpoints && self.exec.len() == self.text.len() {
            return;
        }
        self.synced_breakpoints = generation;
        let same = self.exec.len() == self.text.len()
            && self
                .breakpoints
                .addresses()
                .eq(self.exec_breakpoints.iter().copied());
        if !same {
            self.rebuild_exec();
        }
    }

    fn rebuild_exec(&mut self) {
        self.exec.clone_from(&self.text);
        self.exec_breakpoints = self.breakpoints.addresses().collect();
        for &addr in &self.exec_breakpoints {
            let Some(off) = addr.checked_sub(TEXT_BASE as u64) else {
                continue;
            };
            if off & 3 == 0 {
                if let Some(slot) = self.exec.get_mut((off >> 2) as usize) {
                    *slot = Instruction::DebugStop;
                }
            }
        }
    }

    /// Words of code loaded (or patched) in the text segment that holds `addr`.
    pub fn text_len(&self, addr: u32) -> usize {
        if in_ktext(addr) {
            self.ktext.len()
        } else {
            self.text.len()
        }
    }

    /// The instruction word at a text address, if an instruction is there.
    pub fn text_word(&self, addr: u32) -> Option<u32> {
        if addr & 3 != 0 {
            return None;
        }
        let (code, words, idx) = if in_text(addr) {
            (
                &self.text,
                &self.text_words,
                ((addr - TEXT_BASE) >> 2) as usize,
            )
        } else if in_ktext(addr) {
            (
                &self.ktext,
                &self.ktext_words,
                ((addr - KTEXT_BASE) >> 2) as usize,
            )
        } else {
            return None;
        };
        match code.get(idx) {
            Some(Instruction::Empty) | None => None,
            Some(_) => words.get(idx).copied(),
        }
    }

    /// The decoded instruction at a text address (`Empty` where there is none).
    pub fn instruction_at(&self, addr: u32) -> Option<Instruction> {
        self.text_word(addr).map(decode)
    }

    fn has_exception_handler(&self) -> bool {
        let idx = ((EXCEPTION_HANDLER - KTEXT_BASE) >> 2) as usize;
        !matches!(self.ktext.get(idx), None | Some(Instruction::Empty))
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

    // ----- memory accesses with MARS's checks and the watchpoint check -----

    /// The watchpoint test of every load and store: a scan of the (few) watched ranges kept
    /// in the cpu, so an access near a watchpoint costs a few compares, not a call.
    #[inline(always)]
    fn watch(&self, addr: u32, len: u64, access: AccessKind) -> Result<(), Trap> {
        let start = addr as u64;
        let end = start + len.max(1);
        // Empty set: the bounds are (MAX, 0) and every access fails the first test.
        if end <= self.watch_low || start >= self.watch_high {
            return Ok(());
        }
        for w in &self.watch_ranges {
            if start < w.addr + w.len && w.addr < end && w.kind.matches(access) {
                return self.watch_hit(addr, len, access);
            }
        }
        Ok(())
    }

    #[cold]
    fn watch_hit(&self, addr: u32, len: u64, access: AccessKind) -> Result<(), Trap> {
        match self.watchpoints.check(addr as u64, len, access) {
            Some((kind, hit)) if !self.watch_suppressed => Err(Trap::Watch {
                kind,
                addr: hit as u32,
            }),
            _ => Ok(()),
        }
    }

    /// Brings the cpu's copy of the watched ranges up to date with the watchpoint set.
    fn sync_watchpoints(&mut self) {
        let generation = self.watchpoints.generation();
        if generation == self.synced_watchpoints {
            return;
        }
        self.synced_watchpoints = generation;
        if !self.watchpoints.iter().eq(self.watch_ranges.iter()) {
            self.watch_ranges = self.watchpoints.iter().copied().collect();
            self.watch_low = self
                .watch_ranges
                .iter()
                .map(|w| w.addr)
                .min()
                .unwrap_or(u64::MAX);
            self.watch_high = self
                .watch_ranges
                .iter()
                .map(|w| w.addr.saturating_add(w.len.max(1)))
                .max()
                .unwrap_or(0);
        }
    }

    #[cold]
    fn load_fault(addr: u32) -> Trap {
        match Memory::region(addr) {
            Region::Text => Trap::address(
                exc::ADDRESS_LOAD,
                "Cannot read directly from text segment!",
                addr,
            ),
            Region::KText => Trap::address(
                exc::ADDRESS_LOAD,
                "DEVELOPER: You must use getStatement() to read from kernel text segment!",
                addr,
            ),
            _ => Trap::address(exc::ADDRESS_LOAD, "address out of range ", addr),
        }
    }

    #[cold]
    fn store_fault(addr: u32) -> Trap {
        match Memory::region(addr) {
            Region::Text => Trap::address(
                exc::ADDRESS_STORE,
                "Cannot write directly to text segment!",
                addr,
            ),
            Region::KText => Trap::address(
                exc::ADDRESS_STORE,
                "DEVELOPER: You must use setStatement() to write to kernel text segment!",
                addr,
            ),
            _ => Trap::address(exc::ADDRESS_STORE, "address out of range ", addr),
        }
    }

    #[inline(always)]
    pub(crate) fn load_u32(&self, addr: u32) -> Result<u32, Trap> {
        if addr & 3 != 0 {
            return Err(Trap::address(
                exc::ADDRESS_LOAD,
                "fetch address not aligned on word boundary ",
                addr,
            ));
        }
        self.watch(addr, 4, AccessKind::Read)?;
        self.mem
            .read_u32(addr)
            .ok_or_else(|| Self::load_fault(addr))
    }

    #[inline(always)]
    fn load_u16(&self, addr: u32) -> Result<u16, Trap> {
        if addr & 1 != 0 {
            return Err(Trap::address(
                exc::ADDRESS_LOAD,
                "fetch address not aligned on halfword boundary ",
                addr,
            ));
        }
        self.watch(addr, 2, AccessKind::Read)?;
        self.mem
            .read_u16(addr)
            .ok_or_else(|| Self::load_fault(addr))
    }

    #[inline(always)]
    pub(crate) fn load_u8(&self, addr: u32) -> Result<u8, Trap> {
        self.watch(addr, 1, AccessKind::Read)?;
        self.mem.read_u8(addr).ok_or_else(|| Self::load_fault(addr))
    }

    #[inline(always)]
    fn store_u32(&mut self, addr: u32, value: u32) -> Result<(), Trap> {
        if addr & 3 != 0 {
            return Err(Trap::address(
                exc::ADDRESS_STORE,
                "store address not aligned on word boundary ",
                addr,
            ));
        }
        self.watch(addr, 4, AccessKind::Write)?;
        if self.mem.write_u32(addr, value) {
            Ok(())
        } else {
            Err(Self::store_fault(addr))
        }
    }

    #[inline(always)]
    fn store_u16(&mut self, addr: u32, value: u16) -> Result<(), Trap> {
        if addr & 1 != 0 {
            return Err(Trap::address(
                exc::ADDRESS_STORE,
                "store address not aligned on halfword boundary ",
                addr,
            ));
        }
        self.watch(addr, 2, AccessKind::Write)?;
        if self.mem.write_u16(addr, value) {
            Ok(())
        } else {
            Err(Self::store_fault(addr))
        }
    }

    #[inline(always)]
    pub(crate) fn store_u8(&mut self, addr: u32, value: u8) -> Result<(), Trap> {
        self.watch(addr, 1, AccessKind::Write)?;
        if self.mem.write_u8(addr, value) {
            Ok(())
        } else {
            Err(Self::store_fault(addr))
        }
    }

    /// Checks a whole multi-byte access against watchpoints before any part of it happens.
    pub(crate) fn watch_range(&self, addr: u32, len: u64, access: AccessKind) -> Result<(), Trap> {
        self.watch(addr, len, access)
    }

    // ----- FP register helpers -----

    fn fp_double(&self, r: u8) -> f64 {
        let r = (r & 30) as usize;
        f64::from_bits(((self.fpr[r + 1] as u64) << 32) | self.fpr[r] as u64)
    }

    fn set_fp_double_bits(&mut self, r: u8, bits: u64) {
        let r = (r & 30) as usize;
        self.fpr[r] = bits as u32;
        self.fpr[r + 1] = (bits >> 32) as u32;
    }

    fn set_fp_double(&mut self, r: u8, value: f64) {
        // Java's doubleToLongBits collapses every NaN to one pattern.
        let bits = if value.is_nan() {
            0x7ff8_0000_0000_0000
        } else {
            value.to_bits()
        };
        self.set_fp_double_bits(r, bits);
    }

    fn fp_single(&self, r: u8) -> f32 {
        f32::from_bits(self.fpr[(r & 31) as usize])
    }

    fn set_fp_single(&mut self, r: u8, value: f32) {
        self.fpr[(r & 31) as usize] = if value.is_nan() {
            0x7fc0_0000
        } else {
            value.to_bits()
        };
    }

    fn flag(&self, cc: u8) -> bool {
        (self.fcc >> (cc & 7)) & 1 != 0
    }

    fn set_flag(&mut self, cc: u8, value: bool) {
        let bit = 1u8 << (cc & 7);
        if value {
            self.fcc |= bit;
        } else {
            self.fcc &= !bit;
        }
    }

    // ----- execution -----

    /// The instruction the run loop executes at `pc`: breakpoints appear as `DebugStop`.
    #[inline(always)]
    fn fetch(&self, pc: u32) -> Result<Instruction, Trap> {
        let idx = (pc.wrapping_sub(TEXT_BASE) >> 2) as usize;
        if pc & 3 == 0 {
            if let Some(&instr) = self.exec.get(idx) {
                return Ok(instr);
            }
        }
        if self.breakpoints.contains(pc as u64) {
            return Err(Trap::Breakpoint);
        }
        self.fetch_unmarked(pc)
    }

    /// The real instruction at `pc`, breakpoints or not.
    fn fetch_unmarked(&self, pc: u32) -> Result<Instruction, Trap> {
        let idx = (pc.wrapping_sub(TEXT_BASE) >> 2) as usize;
        if pc & 3 == 0 {
            if let Some(&instr) = self.text.get(idx) {
                return Ok(instr);
            }
        }
        self.fetch_slow(pc)
    }

    #[inline(never)]
    fn fetch_slow(&self, pc: u32) -> Result<Instruction, Trap> {
        if pc & 3 != 0 {
            return Err(Trap::InvalidPc);
        }
        if (TEXT_BASE..TEXT_LIMIT).contains(&pc) {
            return Err(Trap::Cliff);
        }
        if in_ktext(pc) {
            let idx = ((pc - KTEXT_BASE) >> 2) as usize;
            return Ok(self.ktext.get(idx).copied().unwrap_or(Instruction::Empty));
        }
        Err(Trap::InvalidPc)
    }

    /// Runs up to `budget` instructions, checking breakpoints before each one.
    /// Stops without a stop event when it reaches a `syscall`: [`Cpu::take_syscall`] then says
    /// so, and the machine performs it.
    pub fn run(&mut self, budget: u64) -> RunOutcome {
        self.sync_breakpoints();
        self.sync_watchpoints();
        let mut executed = 0;
        if budget > 0 && self.watch_suppressed {
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
            self.run_loop::<false>(budget - executed)
        };
        executed += n;
        self.instructions += executed;
        RunOutcome { executed, stop }
    }

    /// Executes exactly one instruction, ignoring breakpoints.
    pub fn step(&mut self) -> Option<StopEvent> {
        self.sync_watchpoints();
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
            self.watch_suppressed = false;
        }
    }

    /// Whether the last `run` or `step` stopped at a `syscall` for the machine to perform
    /// (the PC is on it); clears the flag.
    pub(crate) fn take_syscall(&mut self) -> bool {
        std::mem::take(&mut self.syscall_pending)
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
    fn after_execute<const DELAY: bool>(&mut self, next: u32) -> u32 {
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

    /// Turns a trap into MARS's reaction. Returns whether the instruction counts as executed and
    /// the stop to report, if any.
    #[cold]
    fn handle_trap(&mut self, pc: u32, trap: Trap) -> (bool, Option<StopEvent>) {
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
                self.watch_suppressed = true;
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
            Trap::Syscall => {
                self.pc = pc;
                self.syscall_pending = true;
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
                self.delay = Delay::None;
                if self.has_exception_handler() {
                    self.pc = EXCEPTION_HANDLER;
                    return (true, None);
                }
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

    /// A taken branch or jump: the next PC, or with delay slots the target registered for
    /// after the next instruction.
    #[inline(always)]
    fn branch<const DELAY: bool>(&mut self, pc: u32, target: u32) -> u32 {
        if DELAY {
            self.delay_target = target;
            self.delay = Delay::Registered;
            pc.wrapping_add(4)
        } else {
            target
        }
    }

    #[inline(always)]
    fn link<const DELAY: bool>(&mut self, r: u8, pc: u32) {
        let offset = if DELAY { 8 } else { 4 };
        self.set_reg(r, pc.wrapping_add(offset));
    }

    #[inline(always)]
    /// Executes `instr` at `pc` and returns the next PC.
    fn execute<const DELAY: bool>(&mut self, pc: u32, instr: Instruction) -> Result<u32, Trap> {
        use Instruction as I;
        match instr {
            I::Addu { rd, rs, rt } => self.set_reg(rd, self.reg(rs).wrapping_add(self.reg(rt))),
            I::Addiu { rt, rs, imm } => {
                self.set_reg(rt, self.reg(rs).wrapping_add(imm as i32 as u32))
            }
            I::Add { rd, rs, rt } => {
                let sum = (self.reg(rs) as i32)
                    .checked_add(self.reg(rt) as i32)
                    .ok_or_else(overflow)?;
                self.set_reg(rd, sum as u32);
            }
            I::Addi { rt, rs, imm } => {
                let sum = (self.reg(rs) as i32)
                    .checked_add(imm as i32)
                    .ok_or_else(overflow)?;
                self.set_reg(rt, sum as u32);
            }
            I::Sub { rd, rs, rt } => {
                let dif = (self.reg(rs) as i32)
                    .checked_sub(self.reg(rt) as i32)
                    .ok_or_else(overflow)?;
                self.set_reg(rd, dif as u32);
            }
            I::Subu { rd, rs, rt } => self.set_reg(rd, self.reg(rs).wrapping_sub(self.reg(rt))),
            I::And { rd, rs, rt } => self.set_reg(rd, self.reg(rs) & self.reg(rt)),
            I::Or { rd, rs, rt } => self.set_reg(rd, self.reg(rs) | self.reg(rt)),
            I::Xor { rd, rs, rt } => self.set_reg(rd, self.reg(rs) ^ self.reg(rt)),
            I::Nor { rd, rs, rt } => self.set_reg(rd, !(self.reg(rs) | self.reg(rt))),
            I::Slt { rd, rs, rt } => {
                self.set_reg(rd, ((self.reg(rs) as i32) < (self.reg(rt) as i32)) as u32)
            }
            I::Sltu { rd, rs, rt } => self.set_reg(rd, (self.reg(rs) < self.reg(rt)) as u32),
            I::Slti { rt, rs, imm } => {
                self.set_reg(rt, ((self.reg(rs) as i32) < imm as i32) as u32)
            }
            I::Sltiu { rt, rs, imm } => self.set_reg(rt, (self.reg(rs) < imm as i32 as u32) as u32),
            I::Andi { rt, rs, imm } => self.set_reg(rt, self.reg(rs) & imm as u32),
            I::Ori { rt, rs, imm } => self.set_reg(rt, self.reg(rs) | imm as u32),
            I::Xori { rt, rs, imm } => self.set_reg(rt, self.reg(rs) ^ imm as u32),
            I::Lui { rt, imm } => self.set_reg(rt, (imm as u32) << 16),
            I::Movn { rd, rs, rt } => {
                if self.reg(rt) != 0 {
                    self.set_reg(rd, self.reg(rs));
                }
            }
            I::Movz { rd, rs, rt } => {
                if self.reg(rt) == 0 {
                    self.set_reg(rd, self.reg(rs));
                }
            }
            I::MovCc {
                rd,
                rs,
                cc,
                on_true,
            } => {
                if self.flag(cc) == on_true {
                    self.set_reg(rd, self.reg(rs));
                }
            }
            I::Sll { rd, rt, sa } => self.set_reg(rd, self.reg(rt) << (sa & 31)),
            I::Srl { rd, rt, sa } => self.set_reg(rd, self.reg(rt) >> (sa & 31)),
            I::Sra { rd, rt, sa } => self.set_reg(rd, ((self.reg(rt) as i32) >> (sa & 31)) as u32),
            I::Sllv { rd, rt, rs } => self.set_reg(rd, self.reg(rt) << (self.reg(rs) & 31)),
            I::Srlv { rd, rt, rs } => self.set_reg(rd, self.reg(rt) >> (self.reg(rs) & 31)),
            I::Srav { rd, rt, rs } => {
                self.set_reg(rd, ((self.reg(rt) as i32) >> (self.reg(rs) & 31)) as u32)
            }
            I::Mul { rd, rs, rt } => {
                let product = (self.reg(rs) as i32 as i64).wrapping_mul(self.reg(rt) as i32 as i64);
                self.set_hilo(product as u64);
                self.set_reg(rd, product as u32);
            }
            I::Mult { rs, rt } => {
                let product = (self.reg(rs) as i32 as i64).wrapping_mul(self.reg(rt) as i32 as i64);
                self.set_hilo(product as u64);
            }
            I::Multu { rs, rt } => {
                let product = (self.reg(rs) as u64).wrapping_mul(self.reg(rt) as u64);
                self.set_hilo(product);
            }
            I::Madd { rs, rt } => {
                let product = (self.reg(rs) as i32 as i64).wrapping_mul(self.reg(rt) as i32 as i64);
                self.set_hilo(self.hilo().wrapping_add(product as u64));
            }
            I::Maddu { rs, rt } => {
                let product = (self.reg(rs) as u64).wrapping_mul(self.reg(rt) as u64);
                self.set_hilo(self.hilo().wrapping_add(product));
            }
            I::Msub { rs, rt } => {
                let product = (self.reg(rs) as i32 as i64).wrapping_mul(self.reg(rt) as i32 as i64);
                self.set_hilo(self.hilo().wrapping_sub(product as u64));
            }
            I::Msubu { rs, rt } => {
                let product = (self.reg(rs) as u64).wrapping_mul(self.reg(rt) as u64);
                self.set_hilo(self.hilo().wrapping_sub(product));
            }
            I::Div { rs, rt } => {
                // MARS: no exception and HI/LO untouched on a zero divisor.
                let (a, b) = (self.reg(rs) as i32, self.reg(rt) as i32);
                if b != 0 {
                    self.hi = a.wrapping_rem(b) as u32;
                    self.lo = a.wrapping_div(b) as u32;
                }
            }
            I::Divu { rs, rt } => {
                let (a, b) = (self.reg(rs), self.reg(rt));
                if b != 0 {
                    self.hi = a % b;
                    self.lo = a / b;
                }
            }
            I::Mfhi { rd } => self.set_reg(rd, self.hi),
            I::Mflo { rd } => self.set_reg(rd, self.lo),
            I::Mthi { rs } => self.hi = self.reg(rs),
            I::Mtlo { rs } => self.lo = self.reg(rs),
            I::Clz { rd, rs } => self.set_reg(rd, self.reg(rs).leading_zeros()),
            I::Clo { rd, rs } => self.set_reg(rd, self.reg(rs).leading_ones()),
            I::Beq { rs, rt, off } => {
                if self.reg(rs) == self.reg(rt) {
                    return Ok(self.branch::<DELAY>(pc, branch_target(pc, off)));
                }
            }
            I::Bne { rs, rt, off } => {
                if self.reg(rs) != self.reg(rt) {
                    return Ok(self.branch::<DELAY>(pc, branch_target(pc, off)));
                }
            }
            I::Blez { rs, off } => {
                if self.reg(rs) as i32 <= 0 {
                    return Ok(self.branch::<DELAY>(pc, branch_target(pc, off)));
                }
            }
            I::Bgtz { rs, off } => {
                if self.reg(rs) as i32 > 0 {
                    return Ok(self.branch::<DELAY>(pc, branch_target(pc, off)));
                }
            }
            I::Bltz { rs, off } => {
                if (self.reg(rs) as i32) < 0 {
                    return Ok(self.branch::<DELAY>(pc, branch_target(pc, off)));
                }
            }
            I::Bgez { rs, off } => {
                if self.reg(rs) as i32 >= 0 {
                    return Ok(self.branch::<DELAY>(pc, branch_target(pc, off)));
                }
            }
            I::Bltzal { rs, off } => {
                if (self.reg(rs) as i32) < 0 {
                    self.link::<DELAY>(31, pc);
                    return Ok(self.branch::<DELAY>(pc, branch_target(pc, off)));
                }
            }
            I::Bgezal { rs, off } => {
                if self.reg(rs) as i32 >= 0 {
                    self.link::<DELAY>(31, pc);
                    return Ok(self.branch::<DELAY>(pc, branch_target(pc, off)));
                }
            }
            I::Bc1 { cc, on_true, off } => {
                if self.flag(cc) == on_true {
                    return Ok(self.branch::<DELAY>(pc, branch_target(pc, off)));
                }
            }
            I::J { target } => return Ok(self.branch::<DELAY>(pc, jump_target(pc, target))),
            I::Jal { target } => {
                self.link::<DELAY>(31, pc);
                return Ok(self.branch::<DELAY>(pc, jump_target(pc, target)));
            }
            I::Jr { rs } => return Ok(self.branch::<DELAY>(pc, self.reg(rs))),
            I::Jalr { rd, rs } => {
                // MARS links first, then reads the target register.
                self.link::<DELAY>(rd, pc);
                return Ok(self.branch::<DELAY>(pc, self.reg(rs)));
            }
            I::Lw { rt, base, off } | I::Ll { rt, base, off } => {
                let v = self.load_u32(self.ea(base, off))?;
                self.set_reg(rt, v);
            }
            I::Lb { rt, base, off } => {
                let v = self.load_u8(self.ea(base, off))?;
                self.set_reg(rt, v as i8 as i32 as u32);
            }
            I::Lbu { rt, base, off } => {
                let v = self.load_u8(self.ea(base, off))?;
                self.set_reg(rt, v as u32);
            }
            I::Lh { rt, base, off } => {
                let v = self.load_u16(self.ea(base, off))?;
                self.set_reg(rt, v as i16 as i32 as u32);
            }
            I::Lhu { rt, base, off } => {
                let v = self.load_u16(self.ea(base, off))?;
                self.set_reg(rt, v as u32);
            }
            I::Sw { rt, base, off } => self.store_u32(self.ea(base, off), self.reg(rt))?,
            I::Sc { rt, base, off } => {
                self.store_u32(self.ea(base, off), self.reg(rt))?;
                self.set_reg(rt, 1);
            }
            I::Sh { rt, base, off } => self.store_u16(self.ea(base, off), self.reg(rt) as u16)?,
            I::Sb { rt, base, off } => self.store_u8(self.ea(base, off), self.reg(rt) as u8)?,
            I::Lwl { rt, base, off } => {
                let addr = self.ea(base, off);
                let n = addr & 3;
                self.watch_range(addr.wrapping_sub(n), n as u64 + 1, AccessKind::Read)?;
                let mut value = self.reg(rt);
                for i in 0..=n {
                    let byte = self.load_u8(addr.wrapping_sub(i))?;
                    value = set_byte(value, 3 - i, byte);
                }
                self.set_reg(rt, value);
            }
            I::Lwr { rt, base, off } => {
                let addr = self.ea(base, off);
                let n = 3 - (addr & 3);
                self.watch_range(addr, n as u64 + 1, AccessKind::Read)?;
                let mut value = self.reg(rt);
                for i in 0..=n {
                    let byte = self.load_u8(addr.wrapping_add(i))?;
                    value = set_byte(value, i, byte);
                }
                self.set_reg(rt, value);
            }
            I::Swl { rt, base, off } => {
                let addr = self.ea(base, off);
                let n = addr & 3;
                self.watch_range(addr.wrapping_sub(n), n as u64 + 1, AccessKind::Write)?;
                let source = self.reg(rt);
                for i in 0..=n {
                    self.store_u8(addr.wrapping_sub(i), (source >> (8 * (3 - i))) as u8)?;
                }
            }
            I::Swr { rt, base, off } => {
                let addr = self.ea(base, off);
                let n = 3 - (addr & 3);
                self.watch_range(addr, n as u64 + 1, AccessKind::Write)?;
                let source = self.reg(rt);
                for i in 0..=n {
                    self.store_u8(addr.wrapping_add(i), (source >> (8 * i)) as u8)?;
                }
            }
            I::Lwc1 { ft, base, off } => {
                let v = self.load_u32(self.ea(base, off))?;
                self.fpr[(ft & 31) as usize] = v;
            }
            I::Swc1 { ft, base, off } => {
                self.store_u32(self.ea(base, off), self.fpr[(ft & 31) as usize])?
            }
            I::Ldc1 { ft, base, off } => {
                if ft & 1 != 0 {
                    return Err(Trap::even("first register must be even-numbered"));
                }
                let addr = self.ea(base, off);
                if addr & 7 != 0 {
                    return Err(Trap::address(
                        exc::ADDRESS_LOAD,
                        "address not aligned on doubleword boundary ",
                        addr,
                    ));
                }
                self.watch_range(addr, 8, AccessKind::Read)?;
                let low = self.load_u32(addr)?;
                let high = self.load_u32(addr.wrapping_add(4))?;
                self.fpr[(ft & 31) as usize] = low;
                self.fpr[((ft & 31) + 1) as usize & 31] = high;
            }
            I::Sdc1 { ft, base, off } => {
                if ft & 1 != 0 {
                    return Err(Trap::even("first register must be even-numbered"));
                }
                let addr = self.ea(base, off);
                if addr & 7 != 0 {
                    return Err(Trap::address(
                        exc::ADDRESS_STORE,
                        "address not aligned on doubleword boundary ",
                        addr,
                    ));
                }
                self.watch_range(addr, 8, AccessKind::Write)?;
                self.store_u32(addr, self.fpr[(ft & 31) as usize])?;
                self.store_u32(
                    addr.wrapping_add(4),
                    self.fpr[((ft & 31) + 1) as usize & 31],
                )?;
            }
            I::Syscall => return Err(Trap::Syscall),
            I::Break { code } => {
                let message = if code == 0 {
                    "break instruction executed; no code given.".to_string()
                } else {
                    format!("break instruction executed; code = {code}.")
                };
                return Err(Trap::exception(exc::BREAKPOINT, message));
            }
            I::Teq { rs, rt } => trap_if(self.reg(rs) == self.reg(rt))?,
            I::Tne { rs, rt } => trap_if(self.reg(rs) != self.reg(rt))?,
            I::Tge { rs, rt } => trap_if(self.reg(rs) as i32 >= self.reg(rt) as i32)?,
            I::Tgeu { rs, rt } => trap_if(self.reg(rs) >= self.reg(rt))?,
            I::Tlt { rs, rt } => trap_if((self.reg(rs) as i32) < self.reg(rt) as i32)?,
            I::Tltu { rs, rt } => trap_if(self.reg(rs) < self.reg(rt))?,
            I::Teqi { rs, imm } => trap_if(self.reg(rs) as i32 == imm as i32)?,
            I::Tnei { rs, imm } => trap_if(self.reg(rs) as i32 != imm as i32)?,
            I::Tgei { rs, imm } => trap_if(self.reg(rs) as i32 >= imm as i32)?,
            I::Tgeiu { rs, imm } => trap_if(self.reg(rs) >= imm as i32 as u32)?,
            I::Tlti { rs, imm } => trap_if((self.reg(rs) as i32) < imm as i32)?,
            I::Tltiu { rs, imm } => trap_if(self.reg(rs) < imm as i32 as u32)?,
            I::Mfc0 { rt, rd } => self.set_reg(rt, self.cp0(rd)),
            I::Mtc0 { rt, rd } => self.set_cp0(rd, self.reg(rt)),
            I::Eret => {
                self.status &= !2;
                return Ok(self.epc);
            }
            I::Mfc1 { rt, fs } => self.set_reg(rt, self.fpr[(fs & 31) as usize]),
            I::Mtc1 { rt, fs } => self.fpr[(fs & 31) as usize] = self.reg(rt),
            I::FpArith {
                op,
                double,
                fd,
                fs,
                ft,
            } => self.fp_arith(op, double, fd, fs, ft)?,
            I::FpUnary { op, fmt, fd, fs } => self.fp_unary(op, fmt, fd, fs)?,
            I::FpCmp {
                cond,
                double,
                cc,
                fs,
                ft,
            } => {
                let result = if double {
                    if fs & 1 != 0 || ft & 1 != 0 {
                        return Err(Trap::even("both registers must be even-numbered"));
                    }
                    compare(cond, self.fp_double(fs), self.fp_double(ft))
                } else {
                    compare(cond, self.fp_single(fs), self.fp_single(ft))
                };
                self.set_flag(cc, result);
            }
            I::FpMovCc {
                double,
                fd,
                fs,
                cc,
                on_true,
            } => {
                if double && (fd & 1 != 0 || fs & 1 != 0) {
                    return Err(Trap::even("both registers must be even-numbered"));
                }
                if self.flag(cc) == on_true {
                    self.fp_move(double, fd, fs);
                }
            }
            I::FpMovReg {
                double,
                fd,
                fs,
                rt,
                nonzero,
            } => {
                if double && (fd & 1 != 0 || fs & 1 != 0) {
                    return Err(Trap::even("both registers must be even-numbered"));
                }
                if (self.reg(rt) != 0) == nonzero {
                    self.fp_move(double, fd, fs);
                }
            }
            I::Empty => return Err(Trap::Cliff),
            I::DebugStop => return Err(Trap::Breakpoint),
            I::Invalid(word) => {
                return Err(Trap::exception(
                    exc::RESERVED_INSTRUCTION,
                    format!("undefined instruction (0x{word:08x})"),
                ))
            }
        }
        Ok(pc.wrapping_add(4))
    }

    #[inline(always)]
    fn ea(&self, base: u8, off: i16) -> u32 {
        self.reg(base).wrapping_add(off as i32 as u32)
    }

    fn hilo(&self) -> u64 {
        ((self.hi as u64) << 32) | self.lo as u64
    }

    fn set_hilo(&mut self, value: u64) {
        self.hi = (value >> 32) as u32;
        self.lo = value as u32;
    }

    /// MARS's Coprocessor 0 has only BadVAddr (8), Status (12), Cause (13) and EPC (14).
    pub fn cp0(&self, reg: u8) -> u32 {
        match reg {
            8 => self.badvaddr,
            12 => self.status,
            13 => self.cause,
            14 => self.epc,
            _ => 0,
        }
    }

    pub fn set_cp0(&mut self, reg: u8, value: u32) {
        match reg {
            8 => self.badvaddr = value,
            12 => self.status = value,
            13 => self.cause = value,
            14 => self.epc = value,
            _ => {}
        }
    }

    fn fp_move(&mut self, double: bool, fd: u8, fs: u8) {
        let (fd, fs) = ((fd & 31) as usize, (fs & 31) as usize);
        self.fpr[fd] = self.fpr[fs];
        if double {
            self.fpr[(fd + 1) & 31] = self.fpr[(fs + 1) & 31];
        }
    }

    fn fp_arith(&mut self, op: FpArith, double: bool, fd: u8, fs: u8, ft: u8) -> Result<(), Trap> {
        if double {
            if fd & 1 != 0 || fs & 1 != 0 || ft & 1 != 0 {
                return Err(Trap::even("all registers must be even-numbered"));
            }
            let (a, b) = (self.fp_double(fs), self.fp_double(ft));
            let r = match op {
                FpArith::Add => a + b,
                FpArith::Sub => a - b,
                FpArith::Mul => a * b,
                FpArith::Div => a / b,
            };
            self.set_fp_double(fd, r);
        } else {
            let (a, b) = (self.fp_single(fs), self.fp_single(ft));
            let r = match op {
                FpArith::Add => a + b,
                FpArith::Sub => a - b,
                FpArith::Mul => a * b,
                FpArith::Div => a / b,
            };
            self.set_fp_single(fd, r);
        }
        Ok(())
    }

    fn fp_unary(&mut self, op: FpUnary, fmt: FpFmt, fd: u8, fs: u8) -> Result<(), Trap> {
        let odd = |r: u8| r & 1 != 0;
        match fmt {
            FpFmt::S => {
                let bits = self.fpr[(fs & 31) as usize];
                let v = f32::from_bits(bits);
                match op {
                    FpUnary::Sqrt => {
                        let r = if v < 0.0 {
                            f32::NAN
                        } else {
                            (v as f64).sqrt() as f32
                        };
                        self.set_fp_single(fd, r);
                    }
                    FpUnary::Abs => self.fpr[(fd & 31) as usize] = bits & 0x7fff_ffff,
                    FpUnary::Neg => self.fpr[(fd & 31) as usize] = bits ^ 0x8000_0000,
                    FpUnary::Mov => self.fpr[(fd & 31) as usize] = bits,
                    FpUnary::RoundW | FpUnary::TruncW | FpUnary::CeilW | FpUnary::FloorW => {
                        self.fpr[(fd & 31) as usize] = to_word(op, v as f64, true) as u32;
                    }
                    FpUnary::CvtD => {
                        if odd(fd) {
                            return Err(Trap::even("first register must be even-numbered"));
                        }
                        self.set_fp_double(fd, v as f64);
                    }
                    FpUnary::CvtW => self.fpr[(fd & 31) as usize] = v as i32 as u32,
                    FpUnary::CvtS => self.set_fp_single(fd, v),
                }
            }
            FpFmt::D => {
                let fd_odd = odd(fd);
                if odd(fs)
                    || (fd_odd
                        && matches!(
                            op,
                            FpUnary::Sqrt | FpUnary::Abs | FpUnary::Neg | FpUnary::Mov
                        ))
                {
                    let text = match op {
                        FpUnary::Sqrt | FpUnary::Abs | FpUnary::Neg | FpUnary::Mov => {
                            "both registers must be even-numbered"
                        }
                        _ => "second register must be even-numbered",
                    };
                    return Err(Trap::even(text));
                }
                let v = self.fp_double(fs);
                match op {
                    FpUnary::Sqrt => {
                        let r = if v < 0.0 { f64::NAN } else { v.sqrt() };
                        self.set_fp_double(fd, r);
                    }
                    FpUnary::Abs => {
                        let bits = v.to_bits() & 0x7fff_ffff_ffff_ffff;
                        self.set_fp_double_bits(fd, bits);
                    }
                    FpUnary::Neg => self.set_fp_double_bits(fd, v.to_bits() ^ (1 << 63)),
                    FpUnary::Mov => self.fp_move(true, fd, fs),
                    FpUnary::RoundW | FpUnary::TruncW | FpUnary::CeilW | FpUnary::FloorW => {
                        self.fpr[(fd & 31) as usize] = to_word(op, v, false) as u32;
                    }
                    FpUnary::CvtS => self.set_fp_single(fd, v as f32),
                    FpUnary::CvtW => self.fpr[(fd & 31) as usize] = v as i32 as u32,
                    FpUnary::CvtD => self.set_fp_double(fd, v),
                }
            }
            FpFmt::W => {
                let v = self.fpr[(fs & 31) as usize] as i32;
                match op {
                    FpUnary::CvtD => {
                        if odd(fd) {
                            return Err(Trap::even("first register must be even-numbered"));
                        }
                        self.set_fp_double(fd, v as f64);
                    }
                    _ => self.set_fp_single(fd, v as f32),
                }
            }
        }
        Ok(())
    }

    /// Reads a NUL-terminated string for a syscall (each byte is one Latin-1 character).
    pub(crate) fn read_c_string(&self, mut addr: u32) -> Result<Vec<u8>, Trap> {
        let mut bytes = Vec::new();
        loop {
            let b = self.load_u8(addr)?;
            if b == 0 {
                return Ok(bytes);
            }
            bytes.push(b);
            addr = addr.wrapping_add(1);
            // A string can never be longer than the largest segment.
            if bytes.len() > (4 << 20) {
                return Ok(bytes);
            }
        }
    }
}

/// The cpu's part of the machine state ([`crate::machine::MipsState`]): everything but the
/// breakpoints, watchpoints and the caches derived from them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuState {
    pub regs: [u32; 32],
    pub hi: u32,
    pub lo: u32,
    pub pc: u32,
    pub fpr: [u32; 32],
    pub fcc: u8,
    pub status: u32,
    pub cause: u32,
    pub epc: u32,
    pub badvaddr: u32,
    pub mem: Memory,
    /// The code as loaded or patched: decoded instructions and their words.
    text: Vec<Instruction>,
    text_words: Vec<u32>,
    ktext: Vec<Instruction>,
    ktext_words: Vec<u32>,
    pub console: Console,
    pub delay_slots: bool,
    delay: Delay,
    delay_target: u32,
    pub instructions: u64,
}

impl Cpu {
    /// A copy of the machine state the cpu holds.
    pub fn state(&self) -> CpuState {
        CpuState {
            regs: self.regs,
            hi: self.hi,
            lo: self.lo,
            pc: self.pc,
            fpr: self.fpr,
            fcc: self.fcc,
            status: self.status,
            cause: self.cause,
            epc: self.epc,
            badvaddr: self.badvaddr,
            mem: self.mem.clone(),
            text: self.text.clone(),
            text_words: self.text_words.clone(),
            ktext: self.ktext.clone(),
            ktext_words: self.ktext_words.clone(),
            console: self.console.clone(),
            delay_slots: self.delay_slots,
            delay: self.delay,
            delay_target: self.delay_target,
            instructions: self.instructions,
        }
    }

    /// Puts a state back. The breakpoints and watchpoints stay; the execution copy of the text
    /// is rebuilt from the restored code before the next run.
    pub fn set_state(&mut self, state: &CpuState) {
        self.regs = state.regs;
        self.hi = state.hi;
        self.lo = state.lo;
        self.pc = state.pc;
        self.fpr = state.fpr;
        self.fcc = state.fcc;
        self.status = state.status;
        self.cause = state.cause;
        self.epc = state.epc;
        self.badvaddr = state.badvaddr;
        self.mem.clone_from(&state.mem);
        self.text.clone_from(&state.text);
        self.text_words.clone_from(&state.text_words);
        self.ktext.clone_from(&state.ktext);
        self.ktext_words.clone_from(&state.ktext_words);
        self.console.clone_from(&state.console);
        self.delay_slots = state.delay_slots;
        self.delay = state.delay;
        self.delay_target = state.delay_target;
        self.instructions = state.instructions;
        self.watch_suppressed = false;
        self.syscall_pending = false;
        // An empty execution copy never matches the text: `sync_breakpoints` rebuilds it.
        self.exec.clear();
        self.exec_breakpoints.clear();
    }
}

#[cold]
fn overflow() -> Trap {
    Trap::exception(exc::OVERFLOW, "arithmetic overflow")
}

#[inline(always)]
fn trap_if(cond: bool) -> Result<(), Trap> {
    if cond {
        Err(Trap::exception(exc::TRAP, "trap"))
    } else {
        Ok(())
    }
}

fn set_byte(value: u32, pos: u32, byte: u8) -> u32 {
    let shift = 8 * (pos & 3);
    (value & !(0xff << shift)) | ((byte as u32) << shift)
}

fn compare<T: PartialOrd>(cond: FpCond, a: T, b: T) -> bool {
    match cond {
        FpCond::Eq => a == b,
        FpCond::Lt => a < b,
        FpCond::Le => a <= b,
    }
}

/// MARS's float-to-word conversions: 2^31-1 for NaN, infinities and out-of-range values;
/// `round` goes to the even neighbour on exact ties.
fn to_word(op: FpUnary, v: f64, single: bool) -> i32 {
    // MARS compares against (float) or (double) Integer.MAX_VALUE: 2^31 and 2^31-1.
    let limit = if single {
        2_147_483_648.0
    } else {
        i32::MAX as f64
    };
    if v.is_nan() || v.is_infinite() || v < i32::MIN as f64 || v > limit {
        return i32::MAX;
    }
    match op {
        FpUnary::FloorW => v.floor() as i32,
        FpUnary::CeilW => v.ceil() as i32,
        FpUnary::TruncW => v as i32,
        _ => {
            let (below, above) = if v < 0.0 {
                let above = v as i32 as i64;
                (above - 1, above)
            } else {
                let below = v as i32 as i64;
                (below, below + 1)
            };
            if v - below as f64 == above as f64 - v {
                (if above % 2 == 0 { above } else { below }) as i32
            } else {
                v.round() as i32
            }
        }
    }
}
