//! The SimpleRISC cpu: registers, flags, Harvard memory (code slots by index, data words), and
//! the interpreter loop. It knows nothing of gdb or terminals: `.print`/`.encode` output goes to
//! the [`Console`] buffer, stops are [`StopEvent`]s.
//!
//! Speed: the code is decoded once when the machine is built into 12-byte [`Insn`]s, which
//! `step` executes; `run` executes straight-line runs of them translated once more into 8-byte
//! ops (`runs.rs`), a whole run (and a loop's rounds) per budget test, or the machine code a run
//! compiles to once entered often enough (`jit.rs`). Breakpoints are written into the loop's copy of the code as [`Op::Breakpoint`] (an
//! `asmdbg_core::PatchedCode`) instead of being looked up per instruction:
//! `BreakpointSet::contains` per instruction measured 0.51 of the free-running rate with
//! breakpoints set, against the 0.9 required. Loads and stores ask an `asmdbg_core::WatchFilter`
//! first (one compare away from watched words). Stops are built outside the loop, in a cold
//! function.

use std::sync::Arc;

use asmdbg_core::{
    AccessKind, AskGate, BreakpointSet, Console, DebugCache, Fault, FaultKind, InstructionGate,
    PatchedCode, RunOutcome, StopEvent, Unasked, WatchFilter, WatchKind, WatchpointSet,
};

use crate::decode::{Insn, Op};

mod jit;
mod runs;
use runs::Runs;

/// What a `.print` or `.encode` slot does when reached.
#[derive(Debug, Clone)]
pub enum Pseudo {
    /// Print each register as `r%-2d: %d`.
    Print(Vec<u8>),
    /// Print this line (already formatted `text: 0x%08x\n`).
    Encode(Vec<u8>),
    /// A line that did not assemble: reaching it is a fault with the course interpreter's
    /// message (it is an [`Op::Illegal`] whose `imm` is this entry's index + 1).
    Reject(String),
}

/// The `rd` field of an [`Op::Illegal`] that stands for a [`crate::program::Slot::Reject`]:
/// when it faults. A decoded illegal word has 0 (always).
pub const REJECT_ALWAYS: u8 = 0;
pub const REJECT_IF_EQUAL: u8 = 1;
pub const REJECT_IF_GREATER: u8 = 2;

/// Why the loop stopped, in a form cheap to return from the hot path.
#[derive(Debug, Clone, Copy)]
enum Trap {
    RanOffCode,
    Hlt,
    Breakpoint,
    Watch(WatchKind, u32),
    DivideByZero,
    Unaligned(u32),
    OutOfRange(u32),
    NegativeShift(Op, i32),
    Illegal,
    /// A load or store of a run that the run's [`asmdbg_core::RunAccess`] refused (the
    /// debugging checks must see it); not executed.
    Refused,
}

/// The machine state the program sees, plus the debugger's breakpoints and watchpoints.
#[derive(Debug, Clone)]
pub struct Cpu {
    pub regs: [u32; 16],
    /// `flags.E`: the last `cmp` found its operands equal.
    pub flag_e: bool,
    /// `flags.GT`: the last `cmp` found the first operand greater (signed).
    pub flag_gt: bool,
    /// Index of the next instruction slot (code address / 4).
    pub pc: u32,
    /// Data memory, one element per aligned 32-bit word (byte address = 4 × index).
    pub mem: Vec<u32>,
    /// The decoded code, and a copy with [`Op::Breakpoint`] over every breakpoint (what `run`
    /// executes); the watch filter of loads and stores, with the flag that lets the instruction
    /// a watchpoint stopped run without reporting its access again.
    debug: DebugCache<PatchedCode<Insn>>,
    pseudo: Vec<Pseudo>,
    /// Source file name and line of every slot, for fault messages.
    source_name: Arc<str>,
    lines: Vec<u32>,
    pub breakpoints: BreakpointSet,
    pub watchpoints: WatchpointSet,
    pub console: Console,
    pub executed: u64,
    /// Where the straight-line runs of the patched code end.
    runs: Runs,
}

impl Cpu {
    /// A cpu for decoded `code` with `mem_size` bytes of data memory (a multiple of 4).
    pub fn new(
        code: Vec<Insn>,
        pseudo: Vec<Pseudo>,
        mem_size: u32,
        source_name: Arc<str>,
        lines: Vec<u32>,
    ) -> Cpu {
        let code_bytes = code.len() as u64 * 4;
        let mut cpu = Cpu {
            regs: [0; 16],
            flag_e: false,
            flag_gt: false,
            pc: 0,
            mem: vec![0; (mem_size / 4) as usize],
            debug: DebugCache::new(
                PatchedCode::new(code, 0, 2, Insn::bare(Op::Breakpoint)),
                WatchFilter::new(4),
            ),
            pseudo,
            source_name,
            lines,
            breakpoints: BreakpointSet::new(0, code_bytes, 2),
            watchpoints: WatchpointSet::new(u64::from(mem_size), 8),
            console: Console::new(),
            executed: 0,
            runs: Runs::default(),
        };
        cpu.regs[14] = mem_size.wrapping_sub(4);
        cpu
    }

    pub fn code(&self) -> &[Insn] {
        self.debug.breakpoints.code()
    }

    /// The code (breakpoints not marked) and the version of its breakpoint-patched copy,
    /// which changes whenever the code or the breakpoints do.
    pub fn code_version(&self) -> (&[Insn], u64) {
        (
            self.debug.breakpoints.code(),
            self.debug.breakpoints.version(),
        )
    }

    /// Data memory size in bytes.
    pub fn mem_size(&self) -> u32 {
        (self.mem.len() * 4) as u32
    }

    /// Runs compiled runs (`on`, the default) or interprets every run
    /// (`Machine::set_compiled_code`).
    pub fn set_compiled_code(&mut self, on: bool) {
        self.runs.set_compiled_off(!on);
    }

    pub fn set_pc_index(&mut self, index: u32) {
        self.pc = index;
        self.debug.watch.end_resume();
    }

    /// Forgets what the run loop's copies of the debug sets were built from, so the next `run`
    /// or `step` rebuilds them (after the whole cpu state was replaced).
    pub fn invalidate_debug_cache(&mut self) {
        self.debug.invalidate();
    }

    /// Registers, flags, memory and console as right after loading; execution at `entry`.
    pub fn reset(&mut self, entry: u32) {
        self.regs = [0; 16];
        self.regs[14] = self.mem_size().wrapping_sub(4);
        self.flag_e = false;
        self.flag_gt = false;
        self.mem.iter_mut().for_each(|w| *w = 0);
        self.console.reset();
        self.executed = 0;
        self.set_pc_index(entry);
    }

    /// Executes up to `budget` instructions (see `Machine::run`).
    pub fn run(&mut self, budget: u64) -> RunOutcome {
        self.debug.sync(&self.breakpoints, &self.watchpoints);
        // A zero budget executes nothing, so it must not use up the resume either; nor does a
        // breakpoint on the held instruction (run checks breakpoints before every instruction,
        // and the breakpoint stop below leaves it unexecuted).
        let on_breakpoint = matches!(
            self.debug.breakpoints.patched().get(self.pc as usize),
            Some(insn) if insn.op == Op::Breakpoint
        );
        let resume = budget > 0 && !on_breakpoint && self.debug.watch.take_resume();
        let patched = &self.debug.breakpoints;
        self.runs.sync(patched.patched(), patched.version());
        let (mut core, breakpoints, runs) = self.split();
        let mut executed = 0u64;
        let mut trap = None;
        // After a watch stop the instruction at the PC runs first, without re-reporting its
        // access.
        if resume {
            match breakpoints.code().get(core.pc as usize) {
                Some(&insn) => match core.execute(insn, true) {
                    Ok(()) => executed = 1,
                    Err(t) => {
                        executed = u64::from(matches!(t, Trap::Hlt));
                        trap = Some(t);
                    }
                },
                None => trap = Some(Trap::RanOffCode),
            }
        }
        let code = breakpoints.patched();
        if trap.is_none() {
            while executed < budget {
                let slot = core.pc as usize;
                let Some(end) = runs.last(slot) else {
                    trap = Some(Trap::RanOffCode);
                    break;
                };
                let len = (end - slot + 1) as u64;
                let left = budget - executed;
                let result = if len <= left {
                    let mut max_rounds = left / len;
                    if let Some(compiled) = runs.compiled(slot, end) {
                        let (rounds, left_at) = core.run_compiled(compiled, max_rounds);
                        executed += rounds * len;
                        match left_at {
                            None => continue,
                            // The instructions before `k` completed; the run that starts at
                            // `k` takes it from there.
                            Some(k) if k > 0 => {
                                executed += u64::from(k);
                                continue;
                            }
                            // The first instruction leaves the plain path: the same run, as
                            // ops, from the round the code stopped in.
                            Some(_) => max_rounds -= rounds,
                        }
                    }
                    let (rounds, result) = core.run_ops(
                        runs.ops(slot, end),
                        &code[slot..=end],
                        max_rounds,
                        &mut Unasked,
                    );
                    executed += rounds * len;
                    result
                } else {
                    // The budget ends inside the run: one instruction the ordinary way.
                    core.execute_outlined(code[slot]).map(|()| executed += 1)
                };
                if let Err(t) = result {
                    // The instructions of the round before the one that trapped completed
                    // (the PC is on it; a round starts at `slot`); so did `hlt`.
                    executed += u64::from(core.pc.wrapping_sub(slot as u32));
                    if matches!(t, Trap::Hlt) {
                        executed += 1;
                    }
                    trap = Some(t);
                    break;
                }
            }
        }
        let kept = core.kept();
        self.settle(kept);
        self.executed += executed;
        RunOutcome {
            executed,
            stop: trap.map(|t| self.stop_event(t)),
        }
    }

    /// Executes up to `budget` instructions one at a time as `step` does, while `gate`
    /// admits each (the debugging checks' fast path); stops as `run` stops, and with no stop
    /// before an instruction the gate does not admit or `run` and `step` would not execute
    /// alike (a breakpoint at the PC, a resumed watch stop), for the caller to take one
    /// `step` at a time.
    pub fn run_gated<G: InstructionGate<Cpu>>(&mut self, budget: u64, gate: &mut G) -> RunOutcome {
        self.debug.sync(&self.breakpoints, &self.watchpoints);
        let mut executed = 0u64;
        let mut trap = None;
        if self.debug.watch.resuming() {
            return RunOutcome {
                executed,
                stop: None,
            };
        }
        let patched = &self.debug.breakpoints;
        self.runs.sync(patched.patched(), patched.version());
        // Where a run stopped before a load or store the gate refused: that instruction is
        // asked of the gate on its own.
        let mut refused_at = None;
        while executed < budget {
            let slot = self.pc as usize;
            let insn = match self.debug.breakpoints.patched().get(slot) {
                Some(&insn) if insn.op != Op::Breakpoint => insn,
                _ => break,
            };
            // A whole run, as `run` interprets it, with each load and store asked of the gate
            // before it is made.
            let whole = refused_at.take() != Some(self.pc);
            if let Some(end) = self.runs.last(slot).filter(|_| whole) {
                let len = (end - slot + 1) as u64;
                let ends_on_breakpoint = self.debug.breakpoints.patched()[end].op == Op::Breakpoint;
                if len <= budget - executed
                    && !ends_on_breakpoint
                    && gate.admits_run(self, u64::from(self.pc) * 4, len)
                {
                    let start = self.pc;
                    let max_rounds = (budget - executed) / len;
                    let (mut core, breakpoints, runs) = self.split();
                    let (rounds, result) = core.run_ops(
                        runs.ops(slot, end),
                        &breakpoints.patched()[slot..=end],
                        max_rounds,
                        &mut AskGate::new(gate),
                    );
                    let kept = core.kept();
                    self.settle(kept);
                    executed += rounds * len;
                    let partial = if result.is_ok() {
                        0
                    } else {
                        // The instruction at the PC did not complete (a trap leaves the state
                        // as it was before it): it runs again the full way, where its trap is
                        // handled.
                        u64::from(self.pc.wrapping_sub(start))
                    };
                    executed += partial;
                    gate.ran_run(self, u64::from(start) * 4, len, rounds, partial);
                    match result {
                        Ok(()) => {}
                        Err(Trap::Refused) => refused_at = Some(self.pc),
                        Err(_) => break,
                    }
                    continue;
                }
            }
            let Some(ticket) = gate.admits(self, u64::from(self.pc) * 4) else {
                break;
            };
            match self.execute_one(insn, false) {
                Ok(()) => {
                    executed += 1;
                    gate.ran(ticket);
                }
                Err(t) => {
                    if matches!(t, Trap::Hlt) {
                        executed += 1;
                        gate.ran(ticket);
                    }
                    trap = Some(t);
                    break;
                }
            }
        }
        self.executed += executed;
        RunOutcome {
            executed,
            stop: trap.map(|t| self.stop_event(t)),
        }
    }

    /// Executes one instruction even if a breakpoint is set on it (see `Machine::step`).
    pub fn step(&mut self) -> Option<StopEvent> {
        self.debug.watch.sync(&self.watchpoints);
        let resume = self.debug.watch.take_resume();
        let Some(&insn) = self.debug.breakpoints.code().get(self.pc as usize) else {
            return Some(self.stop_event(Trap::RanOffCode));
        };
        match self.execute_one(insn, resume) {
            Ok(()) => {
                self.executed += 1;
                None
            }
            Err(t) => {
                if matches!(t, Trap::Hlt) {
                    self.executed += 1;
                }
                Some(self.stop_event(t))
            }
        }
    }

    /// Executes `insn` at the PC (`step`'s and the gated loop's one instruction), keeping the
    /// PC and flags it left.
    #[inline(always)]
    fn execute_one(&mut self, insn: Insn, resume: bool) -> Result<(), Trap> {
        let (mut core, _, _) = self.split();
        let result = core.execute(insn, resume);
        let kept = core.kept();
        self.settle(kept);
        result
    }

    /// The parts one instruction touches, and the code the loop reads, borrowed apart.
    #[inline(always)]
    fn split(&mut self) -> (Core<'_>, &PatchedCode<Insn>, &mut Runs) {
        let core = Core {
            regs: &mut self.regs,
            mem: &mut self.mem,
            watchpoints: &self.watchpoints,
            watch: &self.debug.watch,
            console: &mut self.console,
            pseudo: &self.pseudo,
            pc: self.pc,
            flag_e: self.flag_e,
            flag_gt: self.flag_gt,
        };
        (core, &self.debug.breakpoints, &mut self.runs)
    }

    /// Takes back the PC and flags that [`Core`] kept in locals while it ran.
    #[inline(always)]
    fn settle(&mut self, (pc, flag_e, flag_gt): (u32, bool, bool)) {
        self.pc = pc;
        self.flag_e = flag_e;
        self.flag_gt = flag_gt;
    }

    /// `file line N` of the slot at the PC, for fault messages.
    fn location(&self) -> String {
        match self.lines.get(self.pc as usize) {
            Some(line) => format!("{} line {line}", self.source_name),
            None => format!("code address {:#x}", u64::from(self.pc) * 4),
        }
    }

    #[cold]
    #[inline(never)]
    fn stop_event(&mut self, trap: Trap) -> StopEvent {
        let fault = |kind, message: String| {
            StopEvent::Fault(Fault {
                kind,
                pc: u64::from(self.pc) * 4,
                message,
            })
        };
        match trap {
            Trap::RanOffCode | Trap::Hlt => StopEvent::Halted,
            // A refusal never gets here (the checks' loop asks about that instruction alone);
            // it is a stop before the instruction, as a breakpoint's is.
            Trap::Breakpoint | Trap::Refused => StopEvent::Breakpoint,
            Trap::Watch(kind, addr) => {
                self.debug.watch.hold_for_resume();
                StopEvent::Watch {
                    kind,
                    addr: u64::from(addr),
                }
            }
            Trap::DivideByZero => fault(
                FaultKind::Arithmetic,
                format!("Cannot divide by a 0! ({})", self.location()),
            ),
            Trap::Unaligned(addr) => fault(
                FaultKind::Unaligned,
                format!(
                    "Cannot access a memory location which is not a multiple of 4 !!! \
                     (address {} = {addr:#x}, {})",
                    addr as i32,
                    self.location()
                ),
            ),
            Trap::OutOfRange(addr) => fault(
                FaultKind::BadAddress,
                format!(
                    "Cannot access memory location {} = {addr:#x}: data memory is {} bytes \
                     (0..{}) ({})",
                    addr as i32,
                    self.mem_size(),
                    self.mem_size().wrapping_sub(1),
                    self.location()
                ),
            ),
            Trap::NegativeShift(op, amount) => {
                let what = match op {
                    Op::Lsl | Op::LslI => "logical left shift",
                    Op::Lsr | Op::LsrI => "logical right shift",
                    _ => "arithmetic right shift",
                };
                fault(
                    FaultKind::Other,
                    format!(
                        "Cannot perform {what} by a negative number (shift amount {amount}, {})",
                        self.location()
                    ),
                )
            }
            Trap::Illegal => {
                let rejected = self
                    .code()
                    .get(self.pc as usize)
                    .and_then(|insn| insn.imm.checked_sub(1))
                    .and_then(|i| match self.pseudo.get(i as usize) {
                        Some(Pseudo::Reject(message)) => Some(message.clone()),
                        _ => None,
                    });
                let text = rejected.unwrap_or_else(|| "Illegal instruction".to_string());
                fault(
                    FaultKind::IllegalInstruction,
                    format!("{text} ({})", self.location()),
                )
            }
        }
    }
}

/// The parts of the cpu one instruction touches, borrowed apart so the loop keeps the PC and
/// flags in registers.
struct Core<'a> {
    regs: &'a mut [u32; 16],
    mem: &'a mut [u32],
    watchpoints: &'a WatchpointSet,
    watch: &'a WatchFilter,
    console: &'a mut Console,
    pseudo: &'a [Pseudo],
    pc: u32,
    flag_e: bool,
    flag_gt: bool,
}

impl Core<'_> {
    /// The PC and flags, for [`Cpu::settle`].
    #[inline(always)]
    fn kept(&self) -> (u32, bool, bool) {
        (self.pc, self.flag_e, self.flag_gt)
    }

    #[inline(always)]
    fn reg(&self, r: u8) -> u32 {
        self.regs[(r & 15) as usize]
    }

    #[inline(always)]
    fn set(&mut self, r: u8, value: u32) {
        self.regs[(r & 15) as usize] = value;
    }

    /// Index into `mem` for a word access at `addr`, checking alignment and range.
    #[inline(always)]
    fn word_index(&self, addr: u32) -> Result<usize, Trap> {
        if addr & 3 != 0 {
            return Err(Trap::Unaligned(addr));
        }
        let index = (addr >> 2) as usize;
        if index >= self.mem.len() {
            return Err(Trap::OutOfRange(addr));
        }
        Ok(index)
    }

    /// One instruction. On `Err` the machine state is unchanged (the PC stays on it), except
    /// that `hlt` has completed.
    #[inline(always)]
    fn execute(&mut self, insn: Insn, resume: bool) -> Result<(), Trap> {
        let a = self.reg(insn.rs1);
        let b = self.reg(insn.rs2);
        let i = insn.imm;
        let mut next = self.pc.wrapping_add(1);
        match insn.op {
            Op::Add => self.set(insn.rd, a.wrapping_add(b)),
            Op::AddI => self.set(insn.rd, a.wrapping_add(i)),
            Op::Sub => self.set(insn.rd, a.wrapping_sub(b)),
            Op::SubI => self.set(insn.rd, a.wrapping_sub(i)),
            Op::Mul => self.set(insn.rd, a.wrapping_mul(b)),
            Op::MulI => self.set(insn.rd, a.wrapping_mul(i)),
            Op::Div | Op::DivI | Op::Mod | Op::ModI => {
                let d = if matches!(insn.op, Op::Div | Op::Mod) {
                    b
                } else {
                    i
                };
                if d == 0 {
                    return Err(Trap::DivideByZero);
                }
                let (x, y) = (a as i32, d as i32);
                let r = if matches!(insn.op, Op::Div | Op::DivI) {
                    x.wrapping_div(y)
                } else {
                    x.wrapping_rem(y)
                };
                self.set(insn.rd, r as u32);
            }
            Op::Cmp | Op::CmpI => {
                let y = if insn.op == Op::Cmp { b } else { i };
                self.flag_e = a == y;
                self.flag_gt = (a as i32) > (y as i32);
            }
            Op::And => self.set(insn.rd, a & b),
            Op::AndI => self.set(insn.rd, a & i),
            Op::Or => self.set(insn.rd, a | b),
            Op::OrI => self.set(insn.rd, a | i),
            Op::Not => self.set(insn.rd, !b),
            Op::NotI => self.set(insn.rd, !i),
            Op::Mov => self.set(insn.rd, b),
            Op::MovI => self.set(insn.rd, i),
            Op::Lsl | Op::LslI | Op::Lsr | Op::LsrI | Op::Asr | Op::AsrI => {
                let amount = match insn.op {
                    Op::Lsl | Op::Lsr | Op::Asr => b,
                    _ => i,
                };
                if (amount as i32) < 0 {
                    return Err(Trap::NegativeShift(insn.op, amount as i32));
                }
                // Amounts of 32 or more: the course interpreter shifts with C's `<<`/`>>` on
                // x86, which uses the low 5 bits; `wrapping_sh*` does the same.
                let r = match insn.op {
                    Op::Lsl | Op::LslI => a.wrapping_shl(amount),
                    Op::Lsr | Op::LsrI => a.wrapping_shr(amount),
                    _ => (a as i32).wrapping_shr(amount) as u32,
                };
                self.set(insn.rd, r);
            }
            Op::Nop => {}
            Op::Ld => {
                let addr = a.wrapping_add(i);
                let index = self.word_index(addr)?;
                if !resume {
                    let watch =
                        (self.watch).check(self.watchpoints, addr.into(), 4, AccessKind::Read);
                    if let Some((kind, at)) = watch {
                        return Err(Trap::Watch(kind, at as u32));
                    }
                }
                let value = self.mem[index];
                self.set(insn.rd, value);
            }
            Op::St => {
                let addr = a.wrapping_add(i);
                let index = self.word_index(addr)?;
                if !resume {
                    let watch =
                        (self.watch).check(self.watchpoints, addr.into(), 4, AccessKind::Write);
                    if let Some((kind, at)) = watch {
                        return Err(Trap::Watch(kind, at as u32));
                    }
                }
                self.mem[index] = self.reg(insn.rd);
            }
            Op::Beq => {
                if self.flag_e {
                    next = self.pc.wrapping_add(i);
                }
            }
            Op::Bgt => {
                if self.flag_gt {
                    next = self.pc.wrapping_add(i);
                }
            }
            Op::B => next = self.pc.wrapping_add(i),
            Op::Call => {
                self.regs[15] = next.wrapping_mul(4);
                next = self.pc.wrapping_add(i);
            }
            Op::Ret => next = self.regs[15] / 4,
            Op::Hlt => return Err(Trap::Hlt),
            Op::Print | Op::Encode => self.pseudo_op(i as usize),
            Op::Breakpoint => return Err(Trap::Breakpoint),
            Op::Illegal => {
                // A kept `beq`/`bgt` to an unknown label faults only when it would branch.
                let taken = match insn.rd {
                    REJECT_IF_EQUAL => self.flag_e,
                    REJECT_IF_GREATER => self.flag_gt,
                    _ => true,
                };
                if taken {
                    return Err(Trap::Illegal);
                }
            }
        }
        self.pc = next;
        Ok(())
    }

    #[cold]
    fn pseudo_op(&mut self, index: usize) {
        match self.pseudo.get(index) {
            Some(Pseudo::Print(regs)) => {
                for &r in regs {
                    let line = format!("r{:<2}: {}\n", r, self.reg(r) as i32);
                    self.console.write(line.as_bytes());
                }
            }
            Some(Pseudo::Encode(line)) => self.console.write(line),
            // Reached only as an illegal instruction, which faults before this.
            Some(Pseudo::Reject(_)) | None => {}
        }
    }
}
