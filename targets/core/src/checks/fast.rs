//! The checks' fast path: most instructions of a running program give the checks nothing to
//! look at (every register they read was set long ago, the memory they load was declared or
//! stored, they neither call nor return nor move the stack pointer). For those the checks
//! only have to follow the shadow state (registers written, memory stored, the current
//! function's saves), and that is what [`FastPath`] does, inside each ISA's interpreter loop,
//! from a table of what each instruction reads and writes ([`InstrEffects`], made once from
//! the ISA's decoder). Any other instruction ends the fast run and goes through the full
//! checks ([`super::Checker`]), one instruction at a time as before.
//!
//! The cpu knows nothing of this: it runs one instruction at a time as long as an
//! [`InstructionGate`] admits the next, and tells the gate each one that ran. Each ISA's
//! gate ([`TableGate`], set up in its machine's `checks.rs`) finds the instruction's entry in
//! the table, computes its memory address from the registers, and asks [`FastPath::admits`]
//! and [`FastPath::ran`]. A cpu whose interpreter runs straight-line runs (MIPS and SimpleRISC
//! runs, LC-3 blocks) also offers the gate a whole run: one whose summary has nothing for the
//! checks ([`InstructionGate::admits_run`]) runs as the ordinary loop runs it, as many rounds
//! as it loops, and asks the gate about each load and store before it makes it
//! ([`FastPath::admits_access`]); the ordinary loop asks nobody ([`Unasked`]).

use super::shadow::UnitBits;
use super::{CheckKind, CheckSet, Conventions};
use crate::flow::Flow;

/// Decides before each instruction an interpreter is about to execute whether it may execute
/// it there, and hears after each one that it did (counted as executed). `pc` is the
/// instruction's address in the ISA's native units.
/// What `admits` learnt of an admitted instruction comes back to `ran` as a [`Ticket`]
/// (kept in registers through the instruction, not in the gate's memory).
///
/// [`Ticket`]: InstructionGate::Ticket
///
/// A cpu whose interpreter runs straight-line runs of instructions (only the last may
/// transfer control: MIPS and SimpleRISC runs, LC-3 blocks) may also ask for a whole run at
/// once (`admits_run`, then `ran_run`), asking `admits_access` about each of its loads and
/// stores before it makes it ([`AskGate`]).
pub trait InstructionGate<Cpu: ?Sized> {
    type Ticket: Copy;
    fn admits(&mut self, cpu: &Cpu, pc: u64) -> Option<Self::Ticket>;
    fn ran(&mut self, ticket: Self::Ticket);

    /// Whether the run of `len` instructions at `pc` may execute whole, as many rounds as it
    /// branches back to its start, with each of its loads and stores asked of
    /// [`InstructionGate::admits_access`] before it is made (a refused one stops the run
    /// before its instruction). The default: never.
    fn admits_run(&mut self, _cpu: &Cpu, _pc: u64, _len: u64) -> bool {
        false
    }

    /// Whether a load (`store` false) or store of `units` units at `addr`, inside a run
    /// [`InstructionGate::admits_run`] let through, has nothing for the full checks to see.
    fn admits_access(&mut self, _addr: u64, _units: u64, _store: bool) -> bool {
        false
    }

    /// The run last admitted, at `pc`, executed `rounds` whole rounds, then the first
    /// `partial` instructions of one more.
    fn ran_run(&mut self, _cpu: &Cpu, _pc: u64, _len: u64, _rounds: u64, _partial: u64) {}
}

/// Who the loads and stores of a run (or block) are asked before they are made: nobody in a
/// cpu's ordinary run loop ([`Unasked`], which compiles to nothing), the checks' gate
/// ([`InstructionGate::admits_access`]) on their fast path.
pub trait RunAccess {
    const ASKED: bool;
    /// Whether the load (or store) of `units` units at `addr` may be made inside the run; if
    /// not, the run stops before its instruction, which has not executed.
    fn admits(&mut self, addr: u64, units: u64, store: bool) -> bool;
}

/// An ordinary run loop's [`RunAccess`]: every access may be made.
pub struct Unasked;

impl RunAccess for Unasked {
    const ASKED: bool = false;

    #[inline(always)]
    fn admits(&mut self, _addr: u64, _units: u64, _store: bool) -> bool {
        true
    }
}

/// A gate as a run's [`RunAccess`]: each load and store is asked of
/// [`InstructionGate::admits_access`].
pub struct AskGate<'g, G, Cpu: ?Sized> {
    gate: &'g mut G,
    cpu: std::marker::PhantomData<fn(&Cpu)>,
}

impl<'g, G: InstructionGate<Cpu>, Cpu: ?Sized> AskGate<'g, G, Cpu> {
    pub fn new(gate: &'g mut G) -> Self {
        AskGate {
            gate,
            cpu: std::marker::PhantomData,
        }
    }
}

impl<G: InstructionGate<Cpu>, Cpu: ?Sized> RunAccess for AskGate<'_, G, Cpu> {
    const ASKED: bool = true;

    #[inline(always)]
    fn admits(&mut self, addr: u64, units: u64, store: bool) -> bool {
        self.gate.admits_access(addr, units, store)
    }
}

/// What one instruction does, as far as the checks follow it on the fast path: the
/// registers it reads, stores and writes (masks as in [`super::Effects`]) and its memory
/// operand. Made by the ISA from its decoder's answer, once per instruction.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct InstrEffects {
    pub reads: u32,
    pub stored: u32,
    pub writes: u32,
    /// The memory operand's address: register `base`'s value plus `offset` (wrapping at the
    /// ISA's width), or relative to the PC when `base` is [`InstrEffects::PC_RELATIVE`]
    /// (the ISA says how).
    pub offset: u32,
    pub base: u8,
    /// Units the operand covers; 0: no memory operand.
    pub units: u8,
    flags: u8,
}

impl InstrEffects {
    /// The memory operand's address is relative to the PC.
    pub const PC_RELATIVE: u8 = 0xfe;
    const SLOW: u8 = 1;
    const STORE: u8 = 2;

    /// An instruction the fast path never runs: calls and returns (frames to push and pop),
    /// system calls, anything whose effects depend on more than its operands.
    pub const SLOW_PATH: InstrEffects = InstrEffects {
        reads: 0,
        stored: 0,
        writes: 0,
        offset: 0,
        base: 0,
        units: 0,
        flags: Self::SLOW,
    };

    /// An instruction with the given register effects and no memory operand, or
    /// [`InstrEffects::SLOW_PATH`] if `flow` calls or returns.
    pub fn registers(flow: Flow, reads: u32, stored: u32, writes: u32) -> InstrEffects {
        match flow {
            Flow::Call { .. } | Flow::Return => InstrEffects::SLOW_PATH,
            _ => InstrEffects {
                reads,
                stored,
                writes,
                ..InstrEffects::default()
            },
        }
    }

    /// The same instruction with a memory operand: `units` units at `base` + `offset`.
    pub fn with_memory(mut self, base: u8, offset: u32, units: u8, store: bool) -> InstrEffects {
        if self.flags & Self::SLOW == 0 {
            self.base = base;
            self.offset = offset;
            self.units = units;
            if store {
                self.flags |= Self::STORE;
            }
        }
        self
    }

    pub fn is_slow(&self) -> bool {
        self.flags & Self::SLOW != 0
    }

    pub fn is_store(&self) -> bool {
        self.flags & Self::STORE != 0
    }
}

/// The gate every ISA uses: the instruction's entry in the table at `index(cpu, pc)`, its
/// memory operand's address from `address(cpu, pc, effects)` (`None`: the access goes the
/// full way, as an LC-3 device register's does).
pub struct TableGate<'a, Index, Address> {
    pub fast: &'a mut FastPath,
    pub index: Index,
    pub address: Address,
}

impl<Cpu, Index, Address> InstructionGate<Cpu> for TableGate<'_, Index, Address>
where
    Index: Fn(&Cpu, u64) -> usize,
    Address: Fn(&Cpu, u64, &InstrEffects) -> Option<u64>,
{
    type Ticket = (InstrEffects, u64);

    #[inline(always)]
    fn admits(&mut self, cpu: &Cpu, pc: u64) -> Option<(InstrEffects, u64)> {
        let effects = self.fast.entry((self.index)(cpu, pc));
        let addr = if effects.units != 0 {
            (self.address)(cpu, pc, &effects)?
        } else {
            0
        };
        self.fast
            .admits(&effects, pc, addr)
            .then_some((effects, addr))
    }

    #[inline(always)]
    fn ran(&mut self, (effects, addr): (InstrEffects, u64)) {
        self.fast.ran(&effects, addr);
    }

    /// The run's entries: by code slot, the `len` after `index(cpu, pc)`, summarised once
    /// and kept; by instruction word (the LC-3's table), those of the instructions at `pc`,
    /// `pc + unit`, ..., summarised afresh at each entry (a run goes its rounds on one).
    #[inline(always)]
    fn admits_run(&mut self, cpu: &Cpu, pc: u64, len: u64) -> bool {
        let run = if self.fast.by_slot() {
            self.fast.run_summary((self.index)(cpu, pc), len as usize)
        } else {
            let index = &self.index;
            self.fast
                .summarise_at(pc, len as usize, |at| index(cpu, at))
        };
        self.fast.last_run = run;
        self.fast.admits_summary(&run)
    }

    #[inline(always)]
    fn admits_access(&mut self, addr: u64, units: u64, store: bool) -> bool {
        self.fast.admits_access(addr, units, store)
    }

    fn ran_run(&mut self, cpu: &Cpu, pc: u64, len: u64, rounds: u64, partial: u64) {
        if rounds > 0 {
            let whole = self.fast.last_run;
            debug_assert_eq!(u64::from(whole.len), len);
            self.fast.ran_summary(&whole);
        }
        if partial > 0 {
            let index = &self.index;
            let part = self
                .fast
                .summarise_at(pc, partial as usize, |at| index(cpu, at));
            self.fast.ran_summary(&part);
        }
    }
}

/// What a straight-line run of instructions does as a whole, for the fast path: the
/// registers it reads before writing them, those it writes, whether it touches the return
/// address, whether it cannot run whole (an instruction that must go the full way), and what
/// its loads and stores do to the frame (whose addresses are asked of the gate one by one as
/// the run makes them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct RunSummary {
    /// Instructions summarised; 0: not yet.
    len: u32,
    exposed: u32,
    writes: u32,
    link: bool,
    blocked: bool,
    executes_data: bool,
    /// Some load or store addresses memory through the stack pointer.
    stack_memory: bool,
    /// Registers stored before the run writes them (saves, if the frame had not written
    /// them either).
    saves: u32,
}

/// The part of the current call's frame the fast path keeps up to date.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct FastFrame {
    pub written: u32,
    pub saved: u32,
    pub link_kept: bool,
    pub stack_used: bool,
    pub stack_rebased: bool,
}

/// The checks' shadow state that every instruction touches, and the rules of the fast path.
#[derive(Debug, Clone)]
pub struct FastPath {
    /// Registers something wrote (or the machine set at start).
    pub(super) regs_set: u32,
    /// Memory units something stored to or a directive declared.
    pub(super) written: UnitBits,
    /// Units holding the program's instructions.
    pub(super) code: UnitBits,
    /// Units the assembler emitted as data.
    pub(super) data: UnitBits,
    /// The current call's frame, while a fast run goes on (copied in and out).
    pub(super) frame: FastFrame,
    /// Registers whose reads or writes the full checks must see (callee-saved registers a
    /// callee returned changed, whose next use is reported).
    pub(super) pending: u32,
    /// `!0` when reads of registers nothing set are checked, else 0.
    unset_checked: u32,
    /// Writes the full checks must see: the stack pointer (its frame rules, the `stack`
    /// check) and `pending`.
    slow_writes: u32,
    return_address_bit: u32,
    stack_bit: u32,
    check_loads: bool,
    check_code_stores: bool,
    check_execution: bool,
    table: Vec<InstrEffects>,
    table_key: Option<u64>,
    /// The summary of the run that starts at each table entry, made when first asked (a
    /// table by code slot).
    runs: Vec<RunSummary>,
    /// The table is by code slot: entry `i`'s instruction is at `pc_base + i * unit`.
    by_slot: bool,
    pc_base: u64,
    /// Native units from one instruction to the next.
    unit: u64,
    /// The summary of the run last admitted ([`InstructionGate::admits_run`]).
    last_run: RunSummary,
}

impl FastPath {
    pub(super) fn new(conv: &Conventions, regs_set: u32) -> FastPath {
        FastPath {
            regs_set,
            written: UnitBits::default(),
            code: UnitBits::default(),
            data: UnitBits::default(),
            frame: FastFrame::default(),
            pending: 0,
            unset_checked: 0,
            slow_writes: 0,
            return_address_bit: 1 << conv.return_address,
            stack_bit: 1 << conv.stack,
            check_loads: false,
            check_code_stores: false,
            check_execution: false,
            table: Vec::new(),
            table_key: None,
            runs: Vec::new(),
            by_slot: false,
            pc_base: 0,
            unit: conv.instruction_units.max(1),
            last_run: RunSummary::default(),
        }
    }

    /// Which checks the fast path must leave to the full ones: `memory_known` as
    /// [`super::Checker`]'s.
    pub(super) fn configure(&mut self, set: CheckSet, memory_known: bool, separate_code: bool) {
        let uninitialised = set.contains(CheckKind::Uninitialised);
        let code_as_data = set.contains(CheckKind::CodeAsData) && memory_known && !separate_code;
        self.unset_checked = if uninitialised { !0 } else { 0 };
        self.check_loads = uninitialised && memory_known;
        self.check_code_stores = code_as_data;
        self.check_execution = code_as_data && !self.data.is_empty();
    }

    /// Before a fast run: the current frame (if any) and the pending registers.
    pub(super) fn enter(&mut self, frame: FastFrame, pending: u32) {
        self.frame = frame;
        self.pending = pending;
        self.slow_writes = pending | self.stack_bit;
    }

    /// The table of [`InstrEffects`] for the code identified by `key` (the ISA's choice: a
    /// version of its code, a mode), made with `effects_of` for each of `len` entries when
    /// the key is not the one it was made for.
    pub fn prepare_table(
        &mut self,
        key: u64,
        len: usize,
        effects_of: impl FnMut(usize) -> InstrEffects,
    ) {
        if self.table_key == Some(key) && self.table.len() == len {
            return;
        }
        self.table.clear();
        self.table.extend((0..len).map(effects_of));
        self.table_key = Some(key);
        if self.runs.len() != len {
            // A table by instruction word (or made afresh): no runs.
            self.runs.clear();
            self.by_slot = false;
        }
    }

    /// A table by code slot (one entry per instruction, entry 0's instruction at `pc_base`,
    /// the next an instruction's units on), as [`FastPath::prepare_table`] makes it; such a
    /// table also serves whole runs with summaries made once ([`InstructionGate::admits_run`]).
    pub fn prepare_slot_table(
        &mut self,
        key: u64,
        len: usize,
        pc_base: u64,
        effects_of: impl FnMut(usize) -> InstrEffects,
    ) {
        if self.table_key != Some(key) || self.table.len() != len || !self.by_slot {
            self.runs.clear();
            self.runs.resize(len, RunSummary::default());
        }
        self.pc_base = pc_base;
        self.by_slot = true;
        self.prepare_table(key, len, effects_of);
    }

    /// Entry `index` of the table ([`InstrEffects::SLOW_PATH`] past its end).
    #[inline(always)]
    pub fn entry(&self, index: usize) -> InstrEffects {
        self.table
            .get(index)
            .copied()
            .unwrap_or(InstrEffects::SLOW_PATH)
    }

    /// Whether the instruction at `pc` with effects `fx` and memory operand at `addr` has
    /// nothing for the full checks to see before it runs, nor would have after.
    #[inline(always)]
    pub fn admits(&mut self, fx: &InstrEffects, pc: u64, addr: u64) -> bool {
        if fx.flags & InstrEffects::SLOW != 0
            || fx.reads & (self.pending | (!self.regs_set & self.unset_checked)) != 0
            || fx.writes & self.slow_writes != 0
        {
            return false;
        }
        if self.check_execution && self.data.get(pc) && !self.code.get(pc) {
            return false;
        }
        if fx.units != 0 {
            let units = u64::from(fx.units);
            if fx.flags & InstrEffects::STORE != 0 {
                if self.check_code_stores && self.code.any(addr, units) {
                    return false;
                }
            } else if self.check_loads && !self.written.all(addr, units) {
                return false;
            }
        }
        true
    }

    /// Whether the table is by code slot ([`FastPath::prepare_slot_table`]): its runs'
    /// summaries are made once and kept.
    #[inline(always)]
    pub(super) fn by_slot(&self) -> bool {
        self.by_slot
    }

    /// Whether a run summarised as `run` has nothing for the full checks to see before it
    /// runs, given the registers' state now (as [`FastPath::admits`] asks of each of its
    /// instructions), but for its loads and stores (each asked of
    /// [`FastPath::admits_access`] as it comes).
    #[inline(always)]
    pub(super) fn admits_summary(&self, run: &RunSummary) -> bool {
        let executes_data = self.check_execution && run.executes_data;
        !run.blocked
            && !executes_data
            && run.exposed & (self.pending | (!self.regs_set & self.unset_checked)) == 0
            && run.writes & self.slow_writes == 0
    }

    /// Whether a load (or a store) of `units` units at `addr` inside an admitted run has
    /// nothing for the full checks to see: a load of memory nothing declared or stored is
    /// theirs (the uninitialised check), a store into code is theirs, and so is a store to
    /// memory nothing declared or stored, though it is no finding: a run does not report its
    /// stores, so the first store to each unit goes the full way, which marks it written
    /// (after that it is written for good, and a check turned on later sees it so).
    #[inline(always)]
    pub fn admits_access(&mut self, addr: u64, units: u64, store: bool) -> bool {
        if store {
            self.written.all(addr, units) && !(self.check_code_stores && self.code.any(addr, units))
        } else {
            !self.check_loads || self.written.all(addr, units)
        }
    }

    /// The summary of the run of `len` entries from `start` (a table by code slot), kept for
    /// the next time.
    #[inline(always)]
    fn run_summary(&mut self, start: usize, len: usize) -> RunSummary {
        match self.runs.get(start) {
            Some(run) if run.len as usize == len => *run,
            Some(_) => {
                let run = self.summarise(start, len);
                self.runs[start] = run;
                run
            }
            None => RunSummary {
                blocked: true,
                ..RunSummary::default()
            },
        }
    }

    /// The summary of the `len` entries from `start` (a table by code slot).
    fn summarise(&mut self, start: usize, len: usize) -> RunSummary {
        let (base, unit) = (self.pc_base, self.unit);
        let mut run = RunSummary::default();
        for index in start..start + len {
            self.summarise_one(&mut run, index, base + index as u64 * unit);
        }
        run
    }

    /// The summary of the `len` instructions at `pc`, `pc + unit`, ..., whose table entries
    /// `index_at` finds from their PCs.
    #[inline(always)]
    fn summarise_at(&mut self, pc: u64, len: usize, index_at: impl Fn(u64) -> usize) -> RunSummary {
        let mut run = RunSummary::default();
        for i in 0..len as u64 {
            let at = pc.wrapping_add(i * self.unit);
            self.summarise_one(&mut run, index_at(at), at);
        }
        run
    }

    /// Adds entry `index`, the instruction at `pc`, to the end of `run`.
    #[inline(always)]
    fn summarise_one(&mut self, run: &mut RunSummary, index: usize, pc: u64) {
        let fx = self.entry(index);
        run.len += 1;
        run.blocked |= fx.flags & InstrEffects::SLOW != 0;
        run.exposed |= fx.reads & !run.writes;
        run.link |= (fx.reads | fx.stored) & self.return_address_bit != 0;
        if fx.units != 0 {
            run.stack_memory |= fx.reads & self.stack_bit != 0;
            if fx.flags & InstrEffects::STORE != 0 {
                run.saves |= fx.stored & !run.writes;
            }
        }
        run.writes |= fx.writes;
        run.executes_data |= self.data.get(pc) && !self.code.get(pc);
    }

    /// An admitted run's effects on the registers and the frame, as [`FastPath::ran`]
    /// applies each of its instructions' in turn (the memory its stores wrote was written
    /// before: [`FastPath::admits_access`]).
    fn ran_summary(&mut self, run: &RunSummary) {
        let frame = &mut self.frame;
        self.regs_set |= run.writes;
        frame.link_kept |= run.link;
        frame.saved |= run.saves & !frame.written;
        if run.stack_memory && !frame.stack_rebased {
            frame.stack_used = true;
        }
        frame.written |= run.writes;
    }

    /// The instruction [`FastPath::admits`] let through ran: the shadow state follows it (as
    /// `Checker::after` does for an instruction that neither calls nor returns).
    #[inline(always)]
    pub fn ran(&mut self, fx: &InstrEffects, addr: u64) {
        self.regs_set |= fx.writes;
        let frame = &mut self.frame;
        if (fx.reads | fx.stored) & self.return_address_bit != 0 {
            frame.link_kept = true;
        }
        if fx.units != 0 {
            if fx.reads & self.stack_bit != 0 && !frame.stack_rebased {
                frame.stack_used = true;
            }
            if fx.flags & InstrEffects::STORE != 0 {
                frame.saved |= fx.stored & !frame.written;
                self.written.set_range(addr, addr + u64::from(fx.units));
            }
        }
        frame.written |= fx.writes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conventions() -> Conventions {
        Conventions {
            names: &["r0", "r1", "r2", "sp", "ra"],
            callee_saved: 0,
            saves_are_promises: true,
            stack_reserved: true,
            set_at_start: 1 << 3,
            stack: 3,
            return_address: 4,
            stack_alignment: 4,
            stack_segment: None,
            initialised: Vec::new(),
            instruction_units: 4,
            separate_code: false,
        }
    }

    /// Whether the run of `len` entries of a table by code slot from `start` is admitted.
    fn admits_run(fast: &mut FastPath, start: usize, len: usize) -> bool {
        let run = fast.run_summary(start, len);
        fast.by_slot() && fast.admits_summary(&run)
    }

    #[test]
    fn unset_reads_pending_registers_and_stack_writes_go_the_full_way() {
        let mut fast = FastPath::new(&conventions(), 1 << 3);
        fast.configure(CheckSet::all(), true, false);
        fast.enter(FastFrame::default(), 1 << 2);
        let add = |reads, writes| InstrEffects::registers(Flow::Next, reads, 0, writes);
        // r1 = r0 + sp: r0 was never set.
        assert!(!fast.admits(&add(1 | 1 << 3, 1 << 1), 0, 0));
        fast.regs_set |= 1;
        assert!(fast.admits(&add(1 | 1 << 3, 1 << 1), 0, 0));
        // r2 is pending (a callee changed it): its use, and its overwriting, are the full
        // checks' to see.
        fast.regs_set |= 1 << 2;
        assert!(!fast.admits(&add(1 << 2, 1 << 1), 0, 0));
        assert!(!fast.admits(&add(1, 1 << 2), 0, 0));
        // The stack pointer's writes always.
        assert!(!fast.admits(&add(1 << 3, 1 << 3), 0, 0));
        // Calls and returns never run here.
        let call = InstrEffects::registers(Flow::Call { target: None }, 0, 0, 1 << 4);
        assert!(call.is_slow() && !fast.admits(&call, 0, 0));
        assert!(InstrEffects::registers(Flow::Return, 1 << 4, 0, 0).is_slow());
        // With the uninitialised check off, unset registers are nobody's business.
        let mut quiet = FastPath::new(&conventions(), 1 << 3);
        quiet.configure(CheckSet::parse("stack").unwrap(), true, false);
        quiet.enter(FastFrame::default(), 0);
        assert!(quiet.admits(&add(1 << 1, 1), 0, 0));
    }

    #[test]
    fn loads_stores_and_the_frame() {
        let mut fast = FastPath::new(&conventions(), 0xff);
        fast.written.set_range(0x100, 0x108);
        fast.code.set_range(0x0, 0x40);
        fast.configure(CheckSet::all(), true, false);
        fast.enter(FastFrame::default(), 0);
        let load =
            InstrEffects::registers(Flow::Next, 1 << 3, 0, 1 << 1).with_memory(3, 0, 4, false);
        assert!(fast.admits(&load, 0x10, 0x104));
        // Half of it never stored.
        assert!(!fast.admits(&load, 0x10, 0x106));
        // A store of r1 (never written in this frame: a save), through sp.
        let store =
            InstrEffects::registers(Flow::Next, 1 << 3, 1 << 1, 0).with_memory(3, 0, 4, true);
        assert!(fast.admits(&store, 0x14, 0x200));
        fast.ran(&store, 0x200);
        assert!(fast.written.all(0x200, 4));
        assert_eq!(fast.frame.saved, 1 << 1);
        assert!(fast.frame.stack_used && !fast.frame.link_kept);
        // Into the code: the full checks report it.
        assert!(!fast.admits(&store, 0x18, 0x20));
        // A copy of the return address keeps it.
        fast.ran(&InstrEffects::registers(Flow::Next, 1 << 4, 0, 1), 0);
        assert!(fast.frame.link_kept && fast.frame.written & 1 != 0);
        // Executing data.
        fast.data.set_range(0x80, 0x84);
        fast.configure(CheckSet::all(), true, false);
        let nop = InstrEffects::registers(Flow::Next, 0, 0, 0);
        assert!(fast.admits(&nop, 0x7c, 0) && !fast.admits(&nop, 0x80, 0));
    }

    #[test]
    fn a_whole_run_does_what_its_instructions_do_one_by_one() {
        let conv = conventions();
        let add = |reads, writes| InstrEffects::registers(Flow::Next, reads, 0, writes);
        // r1 = r0; r2 = r1 + ra (a copy of the return address); r0 = r2; branch on r0.
        let run = [
            add(1, 1 << 1),
            add(1 << 1 | 1 << 4, 1 << 2),
            add(1 << 2, 1),
            InstrEffects::registers(Flow::Branch { target: 0 }, 1, 0, 0),
        ];
        let table = |fast: &mut FastPath| {
            fast.prepare_slot_table(7, run.len(), 0x100, |i| run[i]);
        };
        let mut whole = FastPath::new(&conv, 1 | 1 << 3 | 1 << 4);
        whole.configure(CheckSet::all(), true, false);
        whole.enter(FastFrame::default(), 0);
        table(&mut whole);
        let mut one_by_one = whole.clone();
        // Only r0 and ra are read before the run writes them: both set, so it is admitted.
        assert!(admits_run(&mut whole, 0, 4));
        let summary = whole.run_summary(0, 4);
        assert_eq!(summary.exposed, 1 | 1 << 4);
        whole.ran_summary(&summary);
        for fx in &run {
            assert!(one_by_one.admits(fx, 0x100, 0));
            one_by_one.ran(fx, 0);
        }
        assert_eq!(whole.regs_set, one_by_one.regs_set);
        assert_eq!(whole.frame.written, one_by_one.frame.written);
        assert_eq!(whole.frame.link_kept, one_by_one.frame.link_kept);
        assert!(whole.frame.link_kept);
        // From its second instruction on, r1 is read before the run writes it: unset, not
        // admitted.
        let mut fresh = FastPath::new(&conv, 1 | 1 << 3 | 1 << 4);
        fresh.configure(CheckSet::all(), true, false);
        fresh.enter(FastFrame::default(), 0);
        table(&mut fresh);
        assert!(!admits_run(&mut fresh, 1, 3) && admits_run(&mut fresh, 0, 4));
        // A run with a load: admitted (the load is asked of `admits_access` as it comes).
        let load = add(1 << 3, 1).with_memory(3, 0, 4, false);
        fresh.prepare_slot_table(8, 2, 0x100, |i| [run[0], load][i]);
        assert!(admits_run(&mut fresh, 0, 2));
        // Past the table's end: no.
        assert!(!admits_run(&mut fresh, 1, 5));
    }

    #[test]
    fn a_run_with_memory_does_what_its_instructions_do_one_by_one() {
        let conv = conventions();
        let op = |reads, stored, writes| InstrEffects::registers(Flow::Next, reads, stored, writes);
        // sw r1, 0(sp) (a save); r1 = r0; sw r1, 4(sp) (r1 written first: no save);
        // lw r2, 0(r0); branch on r2.
        let block = [
            op(1 << 3 | 1 << 1, 1 << 1, 0).with_memory(3, 0, 4, true),
            op(1, 0, 1 << 1),
            op(1 << 3 | 1 << 1, 1 << 1, 0).with_memory(3, 4, 4, true),
            op(1, 0, 1 << 2).with_memory(0, 0, 4, false),
            InstrEffects::registers(Flow::Branch { target: 0 }, 1 << 2, 0, 0),
        ];
        let mut whole = FastPath::new(&conv, 0xff);
        whole.written.set_range(0x200, 0x208);
        whole.written.set_range(0x100, 0x104);
        // The program's instructions: code, and initialised.
        whole.code.set_range(0, 0x40);
        whole.written.set_range(0, 0x40);
        whole.configure(CheckSet::all(), true, false);
        whole.enter(FastFrame::default(), 0);
        let mut one_by_one = whole.clone();
        // A table by instruction word (the LC-3's): the entries are found from the PCs.
        whole.prepare_table(1, block.len(), |i| block[i]);
        let summary = whole.summarise_at(0x10, block.len(), |pc| ((pc - 0x10) / 4) as usize);
        assert!(summary.stack_memory && !summary.blocked);
        assert_eq!(summary.saves, 1 << 1);
        assert!(whole.admits_summary(&summary) && !whole.by_slot());
        for (fx, addr) in block.iter().zip([0x200, 0, 0x204, 0x100, 0]) {
            assert!(one_by_one.admits(fx, 0x10, addr));
            if fx.units != 0 {
                assert!(whole.admits_access(addr, 4, fx.is_store()));
            }
            one_by_one.ran(fx, addr);
        }
        whole.ran_summary(&summary);
        assert_eq!(whole.regs_set, one_by_one.regs_set);
        assert_eq!(whole.frame.saved, one_by_one.frame.saved);
        assert_eq!(whole.frame.written, one_by_one.frame.written);
        assert_eq!(whole.frame.stack_used, one_by_one.frame.stack_used);
        assert!(whole.frame.stack_used && whole.frame.saved == 1 << 1);
        // The accesses a block must not make itself: a load of memory nothing stored, a store
        // into code, and a first store anywhere (it marks the memory written the full way).
        assert!(!whole.admits_access(0x300, 4, false));
        assert!(!whole.admits_access(0x20, 4, true));
        assert!(!whole.admits_access(0x300, 4, true));
        assert!(whole.admits_access(0x20, 4, false));
        // With the uninitialised check off, loads are nobody's business; first stores still
        // go the full way, so that a check turned on later knows what was written.
        whole.configure(CheckSet::parse("stack").unwrap(), true, false);
        assert!(whole.admits_access(0x300, 4, false) && !whole.admits_access(0x300, 4, true));
        // A block that calls is never admitted.
        let call = InstrEffects::registers(Flow::Call { target: None }, 0, 0, 1 << 4);
        whole.prepare_table(2, 2, |i| [block[1], call][i]);
        let calls = whole.summarise_at(0, 2, |pc| pc as usize / 4);
        assert!(!whole.admits_summary(&calls));
    }

    #[test]
    fn the_table_is_made_again_only_for_a_new_key() {
        let mut fast = FastPath::new(&conventions(), 0);
        let mut made = 0;
        for key in [1, 1, 2, 2, 1] {
            fast.prepare_table(key, 3, |i| {
                made += 1;
                InstrEffects::registers(Flow::Next, 1 << i, 0, 0)
            });
        }
        assert_eq!(made, 9);
        assert_eq!(fast.entry(2).reads, 1 << 2);
        assert!(fast.entry(3).is_slow());
    }
}
