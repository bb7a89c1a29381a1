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
//!
//! One file per concern, each with its `impl Cpu` block on the one struct defined here:
//! - `mod.rs`: [`Semantics`], the addresses and vectors, [`Cpu`] itself, its construction, the
//!   PSR and what derives from it (the access window, the interrupt arming), the registers and
//!   the hot loop's copies of the debug sets.
//! - `run.rs`: the run loop: [`Cpu::step`], [`Cpu::run`], blocks chained one after another,
//!   compiled blocks entered (`jit.rs`), one instruction the ordinary way where no block can run.
//! - `exec.rs`: execution: one decoded instruction (`Cpu::execute`, with TRAP in both
//!   editions) and the ops of a block (`Cpu::run_block`).
//! - `access.rs`: loads and stores: the plain window, device registers, 3rd-edition access
//!   control, the watchpoint test, inside a block and out, and the debugger's [`Cpu::peek`] and
//!   [`Cpu::poke`].
//! - `traps.rs`: traps, exceptions and interrupts: supervisor mode entered through a vector
//!   table and the supervisor stack, RTI, the keyboard interrupt, and how an instruction that
//!   left the ordinary path ends (`Cpu::resolve`).
//! - `state.rs`: [`CpuState`], the cpu's part of a machine snapshot.
//! - `blocks.rs`: the decoded blocks and the map of the addresses they hold; `jit.rs`: blocks
//!   compiled to machine code.

use asmdbg_core::{
    BreakpointBitmap, BreakpointSet, Console, DebugCache, WatchFilter, WatchKind, WatchpointSet,
};

mod access;
mod blocks;
mod exec;
mod jit;
mod pennsim;
mod run;
mod state;
mod traps;

pub use pennsim::{PennSimDevices, INSTRUCTIONS_PER_MS, MPR, TMI, TMR};
pub use state::CpuState;

use pennsim::PennSimStop;

use blocks::{AccessMap, BlockCache};

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
    /// JSRR writes R7 before it reads its base register, so `JSRR R7` calls the instruction
    /// after it (lc3tools' micro-ops); the book and lc3sim jump to R7's old value.
    pub jsrr_links_first: bool,
    /// PennSim 1.2.5's machine (cpu/pennsim.rs): its ISA (SUB, MUL, JMPT, RTT; undefined
    /// words stop), TRAP into supervisor mode without the stack, the MPR's page protection,
    /// its timer, and its exception texts instead of vectors.
    pub pennsim: bool,
}

/// Why an instruction did not finish the ordinary way. Kept small and `Copy` so the hot loop
/// passes it in registers; [`Cpu::resolve`] turns it into a
/// [`StopEvent`](asmdbg_core::StopEvent) off the hot path.
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
    /// A keyboard poll that found no key, inside a block (whose rounds are not counted one by
    /// one); not committed. It runs again as a single instruction, where its instruction count
    /// is known for the idle rule (see `poll_at`).
    Poll,
    /// PennSim stopped the machine (it has no exception vectors).
    Stopped(PennSimStop),
    /// A load or store inside a block that the block's [`asmdbg_core::RunAccess`] refused (the
    /// debugging checks must see it); not committed.
    Refused,
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
    /// PennSim's MPR and timer (used under [`Semantics::pennsim`] only).
    pennsim: PennSimDevices,
    /// Accesses with `addr - plain_lo < plain_len` are ordinary memory; the rest are devices or
    /// protected and take the slow path.
    plain_lo: u16,
    plain_len: u16,
    /// A keyboard interrupt can happen (interrupts on and KBSR[14] set): then the run loop goes
    /// one instruction at a time and tests for it before each; otherwise blocks run.
    irq_armed: bool,
    /// KBSR reads in a row that found no key, each within [`access::POLL_GAP`] instructions of
    /// the one before and with no console I/O in between. A program may check the keyboard and
    /// go on with other work (a game's frame); only a loop that does nothing but poll is
    /// waiting for a key, and then the machine stops with `NeedInput`.
    empty_polls: u32,
    /// The instruction count of the last KBSR read that found no key.
    last_empty_poll: u64,
    /// The count of the instruction running as a single instruction (`None` inside a block): a
    /// keyboard poll that finds no key needs it, so inside a block it leaves the block
    /// (`Exit::Poll`) and runs again alone.
    poll_at: Option<u64>,
    /// The instruction at the PC left its block as `Exit::Poll`: it runs next, alone.
    poll_alone: bool,
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
            pennsim: PennSimDevices::default(),
            plain_lo: 0,
            plain_len: DEVICE_BASE,
            irq_armed: false,
            debug: DebugCache::new(BreakpointBitmap::new(), WatchFilter::new(1)),
            blocks: Some(Box::new(BlockCache::new(semantics))),
            code: AccessMap::new(),
            code_stale: false,
            executed: 0,
            empty_polls: 0,
            last_empty_poll: 0,
            poll_at: None,
            poll_alone: false,
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
        self.pennsim = PennSimDevices::default();
        self.debug.watch.end_resume();
        self.empty_polls = 0;
        self.last_empty_poll = 0;
        self.poll_alone = false;
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

    /// User mode under an access check (3rd-edition access control, PennSim's MPR): the plain
    /// window is the user's, and fetches outside it are checked.
    fn restricted(&self) -> bool {
        self.is_user() && (self.semantics.access_control || self.semantics.pennsim)
    }

    /// The exit an access of `addr` takes if the mode and the access rules forbid it.
    #[cold]
    fn denied(&self, addr: u16) -> Option<Exit> {
        if self.semantics.access_control
            && self.is_user()
            && !(USER_BASE..DEVICE_BASE).contains(&addr)
        {
            Some(Exit::Exception(VEC_ACCESS))
        } else if self.semantics.pennsim && self.mpr_denies(addr) {
            Some(Exit::Stopped(PennSimStop::Denied(addr)))
        } else {
            None
        }
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
        } else if self.semantics.pennsim && self.is_user() {
            (self.plain_lo, self.plain_len) = pennsim::user_window(self.pennsim.mpr);
        } else {
            self.plain_lo = 0;
            self.plain_len = DEVICE_BASE;
        }
        self.irq_armed = self.semantics.interrupts && self.kbsr_ie;
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
}
