//! The LC-3 processor with its memory-mapped devices (isa-specs A.1–A.3).
//!
//! What differs between the reference simulators is data ([`Semantics`]), not branches spread
//! through the code. The run loop ([`Cpu::run`]) executes decoded blocks of straight-line code
//! (`blocks.rs`): the budget, the breakpoint test (its own copy of the breakpoint set, as a
//! bitmap) and 3rd-edition fetch protection are paid once per block, the condition codes are
//! kept as the last value that set them, and a block's registers never leave `self.regs`.
//! Per load or store it pays one range compare that sends device registers and protected
//! addresses to a slow path and one compare against the span of watched words (the copies are
//! an `asmdbg_core::DebugCache`); a store also tests the map of decoded code. Whatever a block
//! cannot hold (TRAP, RTI, an armed keyboard interrupt, a budget ending inside the block) runs
//! one instruction at a time through `Cpu::execute`, which `step` uses too.
//!
//! Stops that leave an instruction uncommitted (watchpoint, waiting for a key, an unhandled
//! fault) put the PC back on that instruction; nothing else has changed yet, because every
//! instruction writes its registers only after its last memory access succeeded.

use asmdbg_core::code_memory::LEFT_EARLY;
use asmdbg_core::{
    AccessKind, BreakpointBitmap, BreakpointSet, Console, DebugCache, Fault, FaultKind, RunOutcome,
    StopEvent, WatchFilter, WatchKind, WatchpointSet,
};

mod blocks;
mod jit;

use crate::decode::{decode, Instruction};
use blocks::{AccessMap, BlockCache, Op, Tail};

pub const KBSR: u16 = 0xFE00;
pub const KBDR: u16 = 0xFE02;
pub const DSR: u16 = 0xFE04;
pub const DDR: u16 = 0xFE06;
pub const PSR_ADDR: u16 = 0xFFFC;
pub const MCR: u16 = 0xFFFE;
/// First device register; everything from here up is I/O space.
pub const DEVICE_BASE: u16 = 0xFE00;
/// First address a user-mode program may touch under 3rd-edition access control.
pub const USER_BASE: u16 = 0x3000;

/// Exception and interrupt vectors (index into the table at x0100).
pub const VEC_PRIVILEGE: u8 = 0x00;
pub const VEC_ILLEGAL: u8 = 0x01;
pub const VEC_ACCESS: u8 = 0x02;
pub const VEC_KEYBOARD: u8 = 0x80;
/// Priority the keyboard interrupts at (PL4).
pub const KEYBOARD_PRIORITY: u16 = 4;

pub const PSR_USER: u16 = 0x8000;
const PSR_PRIORITY: u16 = 0x0700;
const PSR_CC: u16 = 0x0007;
const READY: u16 = 0x8000;
const INTERRUPT_ENABLE: u16 = 0x4000;
const CLOCK_ENABLE: u16 = 0x8000;

/// How one reference simulator's LC-3 behaves where the editions differ (isa-specs A.1, A.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Semantics {
    /// 3rd edition: TRAP enters supervisor mode through the stack (R7 untouched) and the trap
    /// routines return with RTI. 2nd edition: R7 = return address, routines return with RET.
    pub trap_through_stack: bool,
    /// 2nd edition: LEA sets the condition codes from its result.
    pub lea_sets_cc: bool,
    /// 3rd edition: user-mode loads, stores and instruction fetches at x0000–x2FFF and
    /// xFE00–xFFFF raise ACV (vector x02).
    pub access_control: bool,
    /// Keyboard interrupts (KBSR bit 14, vector x80, PL4).
    pub interrupts: bool,
    /// RTI exists (lc3sim decodes it as an illegal instruction).
    pub has_rti: bool,
    /// Illegal opcodes and RTI in user mode go through the exception vectors to an OS handler;
    /// without this they stop the machine with a fault (lc3sim).
    pub exceptions: bool,
    /// The PSR is readable and writable at xFFFC (lc3tools).
    pub psr_mapped: bool,
    /// The display prints a carriage return as a newline (lc3tools).
    pub cr_is_newline: bool,
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

/// Why an instruction did not finish the ordinary way. Kept small and `Copy` so the hot loop
/// passes it in registers; [`Cpu::resolve`] turns it into a [`StopEvent`] off the hot path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Exit {
    /// About to access a watched word; not committed.
    Watch(WatchKind, u16),
    /// Needs a key that is not queued; not committed.
    NeedInput,
    /// The instruction completed and stopped the clock.
    Halted,
    /// A store in a block completed and changed a device register or memory outside the
    /// access window, or decoded code: what the next instructions do may differ (privilege,
    /// interrupts, the instructions themselves).
    Resync,
    /// The instruction raised the exception with this vector.
    Exception(u8),
}

/// Registers, memory and devices of one LC-3.
#[derive(Debug, Clone)]
pub struct Cpu {
    pub regs: [u16; 8],
    pub pc: u16,
    /// Privilege (bit 15) and priority (10:8); the N/Z/P bits live in `cc`, so that setting them
    /// is a store rather than a read-modify-write. Private: the access window and the interrupt
    /// arming derive from it ([`Cpu::set_psr`]).
    psr: u16,
    cc: u16,
    pub saved_ssp: u16,
    pub saved_usp: u16,
    /// Where the program's last TRAP is (`NO_TRAP` before the first): the OS routine running
    /// now was entered from there, which messages about a wait inside the OS name. TRAPs the
    /// 3rd-edition OS makes itself (IN calls PUTS, GETC and OUT in supervisor mode) leave it.
    pub trap_site: u16,
    /// Private: every write from outside the cpu goes through [`Cpu::mem_mut`] or
    /// [`Cpu::poke`], which keep the decoded blocks true to memory.
    mem: Box<[u16; 0x10000]>,
    pub semantics: Semantics,
    pub console: Console,
    pub breakpoints: BreakpointSet,
    pub watchpoints: WatchpointSet,
    /// Device registers live here rather than in `mem`, so a stray store cannot fake a ready bit.
    kbsr_ie: bool,
    /// The last key read from KBDR: the register keeps it until the next key, as on the
    /// hardware (what the debugger shows once no key is waiting).
    kbdr: u16,
    dsr_ie: bool,
    ddr: u16,
    mcr: u16,
    /// Accesses with `addr - plain_lo < plain_len` are ordinary memory; the rest are devices or
    /// protected and take the slow path.
    plain_lo: u16,
    plain_len: u16,
    /// A keyboard interrupt can happen (interrupts on and KBSR[14] set): then the run loop goes
    /// one instruction at a time and tests for it before each; otherwise blocks run.
    irq_armed: bool,
    /// KBSR reads in a row that found no key, with no console I/O in between. A program may
    /// check the keyboard once and go on (the read says "not ready"); only a loop that keeps
    /// polling is waiting for a key, and then the machine stops with `NeedInput`.
    empty_polls: u32,
    /// `breakpoints` as a bitmap indexed by a 16-bit PC (no range or alignment checks) and
    /// `watchpoints` as a filter that rejects most loads and stores with one compare, synced
    /// when `run` or `step` starts. Its resume flag marks an instruction at the PC that
    /// stopped on a watchpoint: its next execution skips the check.
    debug: DebugCache<BreakpointBitmap<1024>>,
    /// The code decoded into blocks for the run loop. `None` only while `run` has it out.
    blocks: Option<Box<BlockCache>>,
    /// The addresses the blocks hold (with what compiled code tests before an access, see
    /// [`AccessMap`]), and whether one of them was written since (by a store or a push): the
    /// blocks are dropped before the next one runs.
    code: AccessMap,
    code_stale: bool,
    executed: u64,
}

/// Empty KBSR polls in a row (with no console I/O between them) after which the program is
/// taken to be waiting for a key. A wait loop reaches it within a few thousand instructions; a
/// program that checks the keyboard between other work never does.
const POLLS_BEFORE_WAITING: u32 = 1000;

/// A fresh 64K-word memory. A fixed-size array, so that a 16-bit address needs no bounds check.
fn zeroed_memory() -> Box<[u16; 0x10000]> {
    Box::new([0; 0x10000])
}

#[inline(always)]
fn cc_of(value: u16) -> u16 {
    if value == 0 {
        2
    } else if (value as i16) < 0 {
        4
    } else {
        1
    }
}

/// [`Cpu::trap_site`] before the program's first TRAP.
pub const NO_TRAP: u16 = 0xFFFF;

impl Cpu {
    pub fn new(semantics: Semantics) -> Self {
        let mut cpu = Cpu {
            regs: [0; 8],
            pc: 0x3000,
            psr: 0,
            cc: 0x0002,
            saved_ssp: 0x3000,
            saved_usp: 0,
            trap_site: NO_TRAP,
            mem: zeroed_memory(),
            semantics,
            console: Console::new(),
            breakpoints: BreakpointSet::new(0, 0x10000, 0),
            watchpoints: WatchpointSet::new(0x10000, 8),
            kbsr_ie: false,
            kbdr: 0,
            dsr_ie: false,
            ddr: 0,
            mcr: CLOCK_ENABLE,
            plain_lo: 0,
            plain_len: DEVICE_BASE,
            irq_armed: false,
            debug: DebugCache::new(BreakpointBitmap::new(), WatchFilter::new(1)),
            blocks: Some(Box::new(BlockCache::new(semantics.lea_sets_cc))),
            code: AccessMap::new(),
            code_stale: false,
            executed: 0,
            empty_polls: 0,
        };
        cpu.privilege_changed();
        cpu
    }

    /// Registers, devices and counters back to power-on; memory, console and debug sets are
    /// left to the caller.
    pub fn reset_state(&mut self, pc: u16, psr: u16, saved_ssp: u16) {
        self.regs = [0; 8];
        self.pc = pc;
        self.psr = psr & !PSR_CC;
        self.cc = psr & PSR_CC;
        self.saved_ssp = saved_ssp;
        self.saved_usp = 0;
        self.trap_site = NO_TRAP;
        self.kbsr_ie = false;
        self.kbdr = 0;
        self.dsr_ie = false;
        self.ddr = 0;
        self.mcr = CLOCK_ENABLE;
        self.debug.watch.end_resume();
        self.empty_polls = 0;
        self.executed = 0;
        self.privilege_changed();
    }

    /// The whole memory (device registers read as zero here; see [`Cpu::peek`]).
    pub fn mem(&self) -> &[u16; 0x10000] {
        &self.mem
    }

    /// The whole memory, to change at will (loaders, tests): the decoded blocks are dropped,
    /// since any word may change.
    pub fn mem_mut(&mut self) -> &mut [u16; 0x10000] {
        self.forget_code();
        &mut self.mem
    }

    /// Runs compiled blocks (`on`, the default) or interprets every block
    /// (`Machine::set_compiled_code`).
    pub fn set_compiled_code(&mut self, on: bool) {
        if let Some(blocks) = &mut self.blocks {
            blocks.set_compiled_off(!on);
        }
    }

    /// Drops the blocks decoded from memory (after memory changed behind them).
    fn forget_code(&mut self) {
        if let Some(blocks) = &mut self.blocks {
            blocks.flush(&mut self.code);
        }
        self.code_stale = false;
    }

    /// A plain memory word changed: the blocks must go if one holds it.
    #[inline(always)]
    fn wrote(&mut self, addr: u16) {
        if self.code.holds(addr) {
            self.code_stale = true;
        }
    }

    pub fn instructions_executed(&self) -> u64 {
        self.executed
    }

    /// Whether HALT (or a store to the MCR) stopped the clock.
    pub fn halted(&self) -> bool {
        self.mcr & CLOCK_ENABLE == 0
    }

    pub fn psr(&self) -> u16 {
        self.psr | self.cc
    }

    pub fn is_user(&self) -> bool {
        self.psr & PSR_USER != 0
    }

    /// Sets the PSR as a whole (debugger, PSR device register), keeping the derived state right.
    pub fn set_psr(&mut self, psr: u16) {
        self.psr = psr & !PSR_CC;
        self.cc = psr & PSR_CC;
        self.privilege_changed();
    }

    /// Moves the PC (debugger): a pending watch resume belongs to the old instruction.
    pub fn set_pc(&mut self, pc: u16) {
        self.pc = pc;
        self.debug.watch.end_resume();
    }

    /// Recomputes what depends on the privilege level and the interrupt enable.
    fn privilege_changed(&mut self) {
        if self.semantics.access_control && self.is_user() {
            self.plain_lo = USER_BASE;
            self.plain_len = DEVICE_BASE - USER_BASE;
        } else {
            self.plain_lo = 0;
            self.plain_len = DEVICE_BASE;
        }
        self.irq_armed = self.semantics.interrupts && self.kbsr_ie;
    }

    /// A device register or memory word as the debugger sees it: no key is consumed.
    pub fn peek(&self, addr: u16) -> u16 {
        match addr {
            KBSR => {
                let ready = if self.console.pending_input() > 0 {
                    READY
                } else {
                    0
                };
                ready | if self.kbsr_ie { INTERRUPT_ENABLE } else { 0 }
            }
            KBDR => self.console.peek_byte().map_or(self.kbdr, u16::from),
            DSR => READY | if self.dsr_ie { INTERRUPT_ENABLE } else { 0 },
            DDR => self.ddr,
            MCR => self.mcr,
            PSR_ADDR if self.semantics.psr_mapped => self.psr(),
            _ => self.mem[addr as usize],
        }
    }

    /// Stores a word for the debugger: device registers take the value without I/O (a DDR
    /// write prints nothing; an MCR write can stop or restart the clock).
    pub fn poke(&mut self, addr: u16, value: u16) {
        match addr {
            KBSR => self.kbsr_ie = value & INTERRUPT_ENABLE != 0,
            DSR => self.dsr_ie = value & INTERRUPT_ENABLE != 0,
            DDR => self.ddr = value,
            KBDR => {}
            MCR => self.mcr = value,
            PSR_ADDR if self.semantics.psr_mapped => self.set_psr(value),
            _ => {
                self.mem[addr as usize] = value;
                self.wrote(addr);
                // Inside `run` (a store to memory above the device registers), the run loop
                // drops the blocks itself.
                if self.code_stale && self.blocks.is_some() {
                    self.forget_code();
                }
            }
        }
        self.privilege_changed();
    }

    #[inline(always)]
    fn reg(&self, r: u8) -> u16 {
        self.regs[(r & 7) as usize]
    }

    #[inline(always)]
    fn set_reg_cc(&mut self, r: u8, value: u16) {
        self.regs[(r & 7) as usize] = value;
        self.cc = cc_of(value);
    }

    #[inline(always)]
    fn breakpoint_at(&self, pc: u16) -> bool {
        self.debug.breakpoints.contains(usize::from(pc))
    }

    /// Brings the hot loop's copies of the breakpoint and watchpoint sets up to date: the
    /// debugger can change the sets between any two calls of `run` or `step`.
    fn sync_debug_sets(&mut self) {
        self.debug.sync(&self.breakpoints, &self.watchpoints);
        self.code.sync_watched(&self.watchpoints);
    }

    /// Forgets what the hot loop's copies of the debug sets were built from, so the next `run`
    /// or `step` rebuilds them (after the whole cpu state was replaced).
    pub fn invalidate_debug_cache(&mut self) {
        self.debug.invalidate();
        self.code.invalidate_watched();
    }

    #[inline(always)]
    fn load<const WATCH: bool>(&mut self, addr: u16) -> Result<u16, Exit> {
        if WATCH {
            let watch = self
                .debug
                .watch
                .check(&self.watchpoints, addr.into(), 1, AccessKind::Read);
            if let Some((kind, at)) = watch {
                return Err(Exit::Watch(kind, at as u16));
            }
        }
        if addr.wrapping_sub(self.plain_lo) < self.plain_len {
            Ok(self.mem[addr as usize])
        } else {
            self.load_slow(addr)
        }
    }

    #[inline(always)]
    fn store<const WATCH: bool>(&mut self, addr: u16, value: u16) -> Result<(), Exit> {
        if WATCH {
            let watch =
                (self.debug.watch).check(&self.watchpoints, addr.into(), 1, AccessKind::Write);
            if let Some((kind, at)) = watch {
                return Err(Exit::Watch(kind, at as u16));
            }
        }
        if addr.wrapping_sub(self.plain_lo) < self.plain_len {
            self.mem[addr as usize] = value;
            self.wrote(addr);
            Ok(())
        } else {
            self.store_slow(addr, value)
        }
    }

    #[cold]
    fn protected(&self, addr: u16) -> bool {
        self.semantics.access_control && self.is_user() && !(USER_BASE..DEVICE_BASE).contains(&addr)
    }

    #[cold]
    #[inline(never)]
    fn load_slow(&mut self, addr: u16) -> Result<u16, Exit> {
        if self.protected(addr) {
            return Err(Exit::Exception(VEC_ACCESS));
        }
        match addr {
            KBSR if self.console.pending_input() == 0 => {
                self.empty_polls += 1;
                if self.empty_polls >= POLLS_BEFORE_WAITING {
                    self.empty_polls = 0;
                    Err(Exit::NeedInput)
                } else {
                    Ok(self.peek(addr))
                }
            }
            KBDR if self.console.pending_input() == 0 => Err(Exit::NeedInput),
            KBDR => {
                self.empty_polls = 0;
                self.kbdr = self.console.read_byte().map_or(0, u16::from);
                Ok(self.kbdr)
            }
            _ => Ok(self.peek(addr)),
        }
    }

    #[cold]
    #[inline(never)]
    fn store_slow(&mut self, addr: u16, value: u16) -> Result<(), Exit> {
        if self.protected(addr) {
            return Err(Exit::Exception(VEC_ACCESS));
        }
        match addr {
            DDR => {
                self.empty_polls = 0;
                let byte = value as u8;
                let byte = if byte == b'\r' && self.semantics.cr_is_newline {
                    b'\n'
                } else {
                    byte
                };
                self.console.write_byte(byte);
                self.ddr = value;
                Ok(())
            }
            MCR => {
                self.mcr = value;
                if value & CLOCK_ENABLE == 0 {
                    Err(Exit::Halted)
                } else {
                    Ok(())
                }
            }
            _ => {
                self.poke(addr, value);
                Ok(())
            }
        }
    }

    /// Switches to supervisor mode and pushes PSR and PC on the supervisor stack, then jumps
    /// through `table_entry` (3rd-edition TRAP, exceptions, interrupts). The pushes are plain
    /// memory writes: neither watchpoints nor access control apply to the hardware's own stack.
    fn enter_supervisor(&mut self, table_entry: u16, priority: Option<u16>) {
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

    fn return_from_interrupt(&mut self) {
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

    /// Takes the keyboard interrupt if a key is waiting and the cpu runs below PL4.
    #[cold]
    #[inline(never)]
    fn poll_interrupt(&mut self) -> bool {
        let priority = (self.psr & PSR_PRIORITY) >> 8;
        let due = self.console.pending_input() > 0 && priority < KEYBOARD_PRIORITY;
        if due {
            self.enter_supervisor(0x0100 + VEC_KEYBOARD as u16, Some(KEYBOARD_PRIORITY));
        }
        due
    }

    /// Fetches and executes the instruction at the PC. `self.pc` already points past it while
    /// it executes, as on the real datapath (PC-relative operands and pushed return addresses
    /// use the incremented PC).
    #[inline(always)]
    fn execute<const WATCH: bool>(&mut self) -> Result<(), Exit> {
        if self.pc.wrapping_sub(self.plain_lo) >= self.plain_len && self.protected(self.pc) {
            // Past the word, as after any fetch: whoever resolves the exit takes the
            // instruction's address as the PC before it (the run loop as `self.pc - 1`).
            self.pc = self.pc.wrapping_add(1);
            return Err(Exit::Exception(VEC_ACCESS));
        }
        let word = self.mem[self.pc as usize];
        self.pc = self.pc.wrapping_add(1);
        let next = self.pc;
        let rel = |offset: i16| next.wrapping_add(offset as u16);
        match decode(word) {
            Instruction::AddReg { dr, sr1, sr2 } => {
                self.set_reg_cc(dr, self.reg(sr1).wrapping_add(self.reg(sr2)))
            }
            Instruction::AddImm { dr, sr1, imm } => {
                self.set_reg_cc(dr, self.reg(sr1).wrapping_add(imm as u16))
            }
            Instruction::AndReg { dr, sr1, sr2 } => {
                self.set_reg_cc(dr, self.reg(sr1) & self.reg(sr2))
            }
            Instruction::AndImm { dr, sr1, imm } => self.set_reg_cc(dr, self.reg(sr1) & imm as u16),
            Instruction::Not { dr, sr } => self.set_reg_cc(dr, !self.reg(sr)),
            Instruction::Br { nzp, offset } => {
                if u16::from(nzp) & self.cc != 0 {
                    self.pc = rel(offset);
                }
            }
            Instruction::Jmp { base } => self.pc = self.reg(base),
            Instruction::Jsr { offset } => {
                self.regs[7] = next;
                self.pc = rel(offset);
            }
            Instruction::Jsrr { base } => {
                let target = self.reg(base);
                self.regs[7] = next;
                self.pc = target;
            }
            Instruction::Ld { dr, offset } => {
                let value = self.load::<WATCH>(rel(offset))?;
                self.set_reg_cc(dr, value);
            }
            Instruction::Ldi { dr, offset } => {
                let pointer = self.load::<WATCH>(rel(offset))?;
                let value = self.load::<WATCH>(pointer)?;
                self.set_reg_cc(dr, value);
            }
            Instruction::Ldr { dr, base, offset } => {
                let value = self.load::<WATCH>(self.reg(base).wrapping_add(offset as u16))?;
                self.set_reg_cc(dr, value);
            }
            Instruction::Lea { dr, offset } => {
                if self.semantics.lea_sets_cc {
                    self.set_reg_cc(dr, rel(offset));
                } else {
                    self.regs[(dr & 7) as usize] = rel(offset);
                }
            }
            Instruction::St { sr, offset } => self.store::<WATCH>(rel(offset), self.reg(sr))?,
            Instruction::Sti { sr, offset } => {
                let pointer = self.load::<WATCH>(rel(offset))?;
                self.store::<WATCH>(pointer, self.reg(sr))?;
            }
            Instruction::Str { sr, base, offset } => {
                let addr = self.reg(base).wrapping_add(offset as u16);
                self.store::<WATCH>(addr, self.reg(sr))?;
            }
            Instruction::Trap { vector } => {
                if self.is_user() || !self.semantics.trap_through_stack {
                    self.trap_site = next.wrapping_sub(1);
                }
                if self.semantics.trap_through_stack {
                    self.enter_supervisor(u16::from(vector), None);
                } else {
                    self.regs[7] = next;
                    self.pc = self.mem[vector as usize];
                }
            }
            Instruction::Rti => {
                if !self.semantics.has_rti {
                    return Err(Exit::Exception(VEC_ILLEGAL));
                }
                if self.is_user() {
                    return Err(Exit::Exception(VEC_PRIVILEGE));
                }
                self.return_from_interrupt();
            }
            Instruction::Reserved | Instruction::Illegal => {
                return Err(Exit::Exception(VEC_ILLEGAL))
            }
        }
        Ok(())
    }

    /// Finishes an instruction that left the ordinary path. Returns whether it counts as
    /// executed, and the stop to report (if any).
    #[cold]
    #[inline(never)]
    fn resolve(&mut self, at: u16, exit: Exit) -> (bool, Option<StopEvent>) {
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
            Exit::Exception(vector) if self.semantics.exceptions => {
                // lc3tools pushes the faulting instruction's own address, not the next one.
                self.pc = at;
                self.enter_supervisor(0x0100 + u16::from(vector), None);
                (true, None)
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
        if self.irq_armed && !resuming && self.poll_interrupt() {
            // Taking an interrupt is a step of its own: it stops at the routine's first
            // instruction (where a breakpoint there stops `continue` too), so gdb's `stepi`
            // shows the interrupt arrive, `step` stops in the routine and `next` runs it to
            // its RTI as it runs a called subroutine. No instruction ran.
            return None;
        }
        let at = self.pc;
        let result = if resuming {
            self.execute::<false>()
        } else {
            self.execute::<true>()
        };
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
        let mut blocks = self
            .blocks
            .take()
            .unwrap_or_else(|| Box::new(BlockCache::new(self.semantics.lea_sets_cc)));
        blocks.sync(
            &self.debug.breakpoints,
            self.semantics.lea_sets_cc,
            &mut self.code,
        );
        // The held instruction a watch stop resumed above may have written over code.
        self.settle_code(&mut blocks);
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
            if !self.irq_armed && matches!(self.cc, 1 | 2 | 4) {
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
            let _ = self.poll_interrupt();
        }
        if self.breakpoint_at(self.pc) {
            return Some(StopEvent::Breakpoint);
        }
        match self.execute::<true>() {
            Ok(()) => {
                *done += 1;
                self.settle_code(blocks);
                None
            }
            Err(exit) => self.finish_exit(exit, done, blocks),
        }
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
        // Under 3rd-edition access control a user-mode block must lie in user space; in
        // supervisor mode every block may run (none reaches the device page).
        let user_fetch_only = self.semantics.access_control && self.is_user();
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
            if len == 0 || len > left - *done || (user_fetch_only && !block.in_user_space()) {
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
            let (rounds, outcome) = self.run_block::<WATCH>(block, ops, &mut last, max_rounds);
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
        let user = self.plain_lo != 0;
        debug_assert_eq!(user, self.plain_lo == USER_BASE);
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

    /// Executes a whole block, at most `max_rounds` times (at least once) while it branches
    /// back to its start, and returns the rounds completed and the PC after the last. The
    /// registers stay in `self.regs` (a local copy costs more in store-forwarding stalls at
    /// the block's ends than it saves); the condition codes are `last`, the last value that
    /// set them. An op that leaves the ordinary path stops the block: the PC is set past that
    /// op (as [`Cpu::execute`] leaves it) and the ops completed before it in its round are
    /// returned with the exit.
    #[inline(always)]
    fn run_block<const WATCH: bool>(
        &mut self,
        block: &blocks::Block,
        ops: &[Op],
        last: &mut u16,
        max_rounds: u64,
    ) -> (u64, Result<u16, (u64, Exit)>) {
        macro_rules! reg {
            ($r:expr) => {
                self.regs[$r.index()]
            };
        }
        macro_rules! set {
            ($r:expr, $value:expr) => {{
                let value = $value;
                self.regs[$r.index()] = value;
                *last = value;
            }};
        }
        let mut rounds = 0;
        loop {
            let mut body = ops.iter();
            while let Some(op) = body.next() {
                macro_rules! leave {
                    ($exit:expr) => {{
                        // The ops after this one are still in `body`.
                        let ran = (ops.len() - body.len() - 1) as u16;
                        self.pc = block.start.wrapping_add(ran + 1);
                        return (rounds, Err((u64::from(ran), $exit)));
                    }};
                }
                macro_rules! load {
                    ($addr:expr) => {
                        match self.load_in_block::<WATCH>($addr, *last) {
                            Ok(value) => value,
                            Err(exit) => leave!(exit),
                        }
                    };
                }
                macro_rules! store {
                    ($addr:expr, $value:expr) => {
                        if let Err(exit) = self.store_in_block::<WATCH>($addr, $value, *last) {
                            leave!(exit)
                        }
                    };
                }
                match *op {
                    Op::AddReg { dr, sr1, sr2 } => set!(dr, reg!(sr1).wrapping_add(reg!(sr2))),
                    Op::AddImm { dr, sr1, imm } => set!(dr, reg!(sr1).wrapping_add(imm)),
                    Op::AndReg { dr, sr1, sr2 } => set!(dr, reg!(sr1) & reg!(sr2)),
                    Op::AndImm { dr, sr1, imm } => set!(dr, reg!(sr1) & imm),
                    Op::Not { dr, sr } => set!(dr, !reg!(sr)),
                    Op::Ld { dr, addr } => set!(dr, load!(addr)),
                    Op::Ldi { dr, addr } => {
                        let pointer = load!(addr);
                        set!(dr, load!(pointer))
                    }
                    Op::Ldr { dr, base, offset } => {
                        set!(dr, load!(reg!(base).wrapping_add(offset)))
                    }
                    Op::Lea { dr, value } => reg!(dr) = value,
                    Op::LeaCc { dr, value } => set!(dr, value),
                    Op::St { sr, addr } => store!(addr, reg!(sr)),
                    Op::Sti { sr, addr } => {
                        let pointer = load!(addr);
                        store!(pointer, reg!(sr))
                    }
                    Op::Str { sr, base, offset } => {
                        store!(reg!(base).wrapping_add(offset), reg!(sr))
                    }
                }
            }
            let next = match block.tail {
                Tail::Next => block.after,
                Tail::Br { nzp, target } => {
                    if nzp & cc_of(*last) != 0 {
                        target
                    } else {
                        block.after
                    }
                }
                Tail::Jmp { base } => reg!(base),
                Tail::Jsr { target } => {
                    self.regs[7] = block.after;
                    target
                }
                Tail::Jsrr { base } => {
                    let target = reg!(base);
                    self.regs[7] = block.after;
                    target
                }
            };
            rounds += 1;
            if next != block.start || rounds == max_rounds {
                return (rounds, Ok(next));
            }
        }
    }

    /// A load from inside a block, as [`Cpu::load`]. Whatever leaves the plain path (a device
    /// register, the PSR, a protected address, a watchpoint) first gets the condition codes of
    /// `last` written back: it may read them, or stop the block.
    #[inline(always)]
    fn load_in_block<const WATCH: bool>(&mut self, addr: u16, last: u16) -> Result<u16, Exit> {
        if WATCH && self.debug.watch.may_hit(addr.into()) {
            self.cc = cc_of(last);
            return self.load::<true>(addr);
        }
        if addr.wrapping_sub(self.plain_lo) < self.plain_len {
            Ok(self.mem[addr as usize])
        } else {
            self.cc = cc_of(last);
            self.load_slow(addr)
        }
    }

    /// A store from inside a block, as [`Cpu::store`], with the condition codes of `last`
    /// written back before anything leaves the plain path. The block ends after a store that
    /// may change what the next instructions do (a device register, the PSR, decoded code).
    #[inline(always)]
    fn store_in_block<const WATCH: bool>(
        &mut self,
        addr: u16,
        value: u16,
        last: u16,
    ) -> Result<(), Exit> {
        if WATCH && self.debug.watch.may_hit(addr.into()) {
            self.cc = cc_of(last);
            self.store::<true>(addr, value)?;
            return Err(Exit::Resync);
        }
        if addr.wrapping_sub(self.plain_lo) < self.plain_len {
            self.mem[addr as usize] = value;
            // One test of the access map (inside a chain nothing is stale yet).
            if self.code.holds(addr) {
                self.code_stale = true;
                self.cc = cc_of(last);
                return Err(Exit::Resync);
            }
            Ok(())
        } else {
            self.cc = cc_of(last);
            self.store_slow(addr, value)?;
            Err(Exit::Resync)
        }
    }
}

/// The cpu's part of the machine state ([`crate::machine::Lc3Machine`]'s snapshots): registers,
/// memory, devices, console and counters; not the breakpoints, watchpoints or the caches and
/// resume flag derived for them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuState {
    pub regs: [u16; 8],
    pub pc: u16,
    pub psr: u16,
    pub saved_ssp: u16,
    pub saved_usp: u16,
    pub trap_site: u16,
    pub mem: Box<[u16; 0x10000]>,
    pub console: Console,
    kbsr_ie: bool,
    kbdr: u16,
    dsr_ie: bool,
    ddr: u16,
    mcr: u16,
    empty_polls: u32,
    executed: u64,
}

impl CpuState {
    /// The state with the count of empty keyboard polls left out. [`Cpu::step`] starts that
    /// count afresh by design (a debugger's `stepi` through a wait loop always steps) and
    /// [`Cpu::run`] carries it from one call to the next, so the same instructions executed
    /// by steps and by runs can end in states that differ in it alone.
    pub fn without_poll_count(mut self) -> CpuState {
        self.empty_polls = 0;
        self
    }
}

impl Cpu {
    /// A copy of the machine state the cpu holds.
    pub fn state(&self) -> CpuState {
        CpuState {
            regs: self.regs,
            pc: self.pc,
            psr: self.psr(),
            saved_ssp: self.saved_ssp,
            saved_usp: self.saved_usp,
            trap_site: self.trap_site,
            mem: self.mem.clone(),
            console: self.console.clone(),
            kbsr_ie: self.kbsr_ie,
            kbdr: self.kbdr,
            dsr_ie: self.dsr_ie,
            ddr: self.ddr,
            mcr: self.mcr,
            empty_polls: self.empty_polls,
            executed: self.executed,
        }
    }

    /// Puts a state back; the breakpoints and watchpoints stay (their caches depend on nothing
    /// restored), a pending watch resume is dropped with the instruction it belonged to.
    pub fn set_state(&mut self, state: &CpuState) {
        self.regs = state.regs;
        self.pc = state.pc;
        self.saved_ssp = state.saved_ssp;
        self.saved_usp = state.saved_usp;
        self.trap_site = state.trap_site;
        self.mem.copy_from_slice(&state.mem[..]);
        self.forget_code();
        self.console.clone_from(&state.console);
        self.kbsr_ie = state.kbsr_ie;
        self.kbdr = state.kbdr;
        self.dsr_ie = state.dsr_ie;
        self.ddr = state.ddr;
        self.mcr = state.mcr;
        self.empty_polls = state.empty_polls;
        self.executed = state.executed;
        self.debug.watch.end_resume();
        // Also re-derives the access window and the interrupt arming.
        self.set_psr(state.psr);
    }
}
