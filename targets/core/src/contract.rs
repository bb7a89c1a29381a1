//! The [`Machine`] contract as tests every machine runs: breakpoints, steps, watchpoints, run
//! budgets, input waits, reset and debugger memory access behave alike on every ISA, because the
//! command line and the one gdb stub rely on them alike.
//!
//! An ISA crate implements [`Subject`] (and [`InputSubject`] if its programs read the console)
//! with a few small programs and the facts about them (the addresses they execute, the data word
//! they store to), then emits one `#[test]` per contract function with
//! [`contract_tests!`](crate::contract_tests) (and
//! [`contract_input_tests!`](crate::contract_input_tests)) in its `tests/contract.rs`.
//!
//! Test code: every function panics on the first broken property. It is generic, so nothing of
//! it is compiled into a program that does not call it.

use crate::event::{RunOutcome, StopEvent, WatchKind};
use crate::machine::Machine;

/// A program that runs straight through `pcs` from its entry, storing to one data word and then
/// loading it, and then ends by itself without input.
pub struct StraightLine<M> {
    pub machine: M,
    /// Addresses of the first instructions executed from the entry, in order, each once; each
    /// is the previous one plus the previous one's size. At least one follows `load`.
    pub pcs: Vec<u64>,
    /// Index in `pcs` of the only instruction that writes `data`.
    pub store: usize,
    /// Index in `pcs` of the only instruction that reads `data` (after `store`).
    pub load: usize,
    /// Address of a natural data word (see [`Machine::word_units`]).
    pub data: u64,
    /// `data` as loaded, and as the store leaves it (different).
    pub old: u32,
    pub new: u32,
    /// How the program ends when run on past `pcs`.
    pub end: StopEvent,
}

/// A program that loops forever without input, storing to one data word once per pass.
pub struct Loop<M> {
    pub machine: M,
    /// An instruction executed once per pass.
    pub body: u64,
    /// The data word stored once per pass.
    pub data: u64,
    /// Instructions per pass.
    pub pass: u64,
}

/// A program that reads the console twice, echoing what it read each time, then ends.
pub struct Echo<M> {
    pub machine: M,
    /// Input that satisfies the first read, and the second.
    pub first: &'static [u8],
    pub second: &'static [u8],
    /// Console output once the first read is echoed, and once the program ended.
    pub first_output: &'static [u8],
    pub final_output: &'static [u8],
    pub end: StopEvent,
}

/// The programs an ISA provides for the contract tests.
pub trait Subject {
    type M: Machine + Send;
    fn straight_line(&self) -> StraightLine<Self::M>;
    fn endless_loop(&self) -> Loop<Self::M>;
    /// Addresses the machine does not map (debugger accesses must fail there).
    fn unmapped(&self) -> Vec<u64>;
}

/// The programs of an ISA whose programs read console input.
pub trait InputSubject: Subject {
    fn echo(&self) -> Echo<Self::M>;
}

/// Emits one `#[test]` per contract function for `$subject` (a value implementing [`Subject`]).
#[macro_export]
macro_rules! contract_tests {
    ($subject:expr) => {
        $crate::contract_tests!(@tests $subject;
            machine_is_send,
            breakpoints_stop_before_every_instruction_including_the_first,
            step_executes_exactly_one_instruction_even_on_a_breakpoint,
            write_watch_stops_before_the_store_and_resumes_without_reporting_it_again,
            step_after_a_watch_stop_completes_the_access,
            read_watch_ignores_writes,
            access_watch_reports_the_store_then_the_load,
            watch_over_part_of_a_word_reports_the_first_watched_unit,
            zero_budget_keeps_a_pending_watch_resume,
            moving_the_pc_drops_a_pending_watch_resume,
            breakpoint_and_watch_on_one_instruction,
            breakpoints_changed_between_runs_take_effect,
            watchpoints_changed_between_runs_take_effect,
            budget_executes_exactly_that_many_instructions,
            instructions_executed_counts_every_completed_instruction,
            breakpoint_in_a_loop_stops_every_pass,
            watch_in_a_loop_reports_every_pass,
            reset_restores_memory_registers_and_console,
            unmapped_debug_accesses_fail,
            peek_and_poke_words,
            registers_read_and_write_back,
            disassembly_covers_the_program,
        );
    };
    (@tests $subject:expr; $($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                $crate::contract::$name(&$subject);
            }
        )*
    };
}

/// Emits one `#[test]` per input contract function for `$subject` ([`InputSubject`]).
#[macro_export]
macro_rules! contract_input_tests {
    ($subject:expr) => {
        $crate::contract_tests!(@tests $subject;
            need_input_consumes_nothing_and_resumes_when_input_is_queued,
            end_of_input_keeps_reporting_need_input,
            reset_drops_queued_input,
        );
    };
}

fn watch(kind: WatchKind, addr: u64) -> Option<StopEvent> {
    Some(StopEvent::Watch { kind, addr })
}

/// Units of a natural data word, as a watch length.
fn word_len<M: Machine>(m: &M) -> u64 {
    u64::from(m.word_units())
}

/// Runs until the program stops by itself (at most 10 M instructions).
fn run_to_stop<M: Machine>(m: &mut M) -> RunOutcome {
    let mut executed = 0;
    for _ in 0..10 {
        let out = m.run(1_000_000);
        executed += out.executed;
        if out.stop.is_some() {
            return RunOutcome {
                executed,
                stop: out.stop,
            };
        }
    }
    panic!("no stop after 10 M instructions");
}

pub fn machine_is_send<S: Subject>(_subject: &S) {
    fn assert_send<T: Send>() {}
    assert_send::<S::M>();
}

pub fn breakpoints_stop_before_every_instruction_including_the_first<S: Subject>(subject: &S) {
    let pcs = subject.straight_line().pcs;
    for (k, &pc) in pcs.iter().enumerate() {
        let mut m = subject.straight_line().machine;
        m.breakpoints().insert(pc);
        let out = m.run(1000);
        assert_eq!(
            (out.executed, out.stop, m.pc()),
            (k as u64, Some(StopEvent::Breakpoint), pc),
            "breakpoint at {pc:#x}"
        );
        // run checks the instruction it starts on too.
        let again = m.run(1000);
        assert_eq!(
            (again.executed, again.stop),
            (0, Some(StopEvent::Breakpoint))
        );
        assert_eq!(m.pc(), pc);
    }
}

pub fn step_executes_exactly_one_instruction_even_on_a_breakpoint<S: Subject>(subject: &S) {
    let StraightLine {
        mut machine,
        pcs,
        end,
        ..
    } = subject.straight_line();
    for &pc in &pcs {
        machine.breakpoints().insert(pc);
    }
    for (k, pair) in pcs.windows(2).enumerate() {
        assert_eq!(machine.pc(), pair[0]);
        assert_eq!(machine.step(), None, "step at {:#x}", pair[0]);
        assert_eq!(machine.pc(), pair[1], "one instruction, not more");
        assert_eq!(machine.instructions_executed(), k as u64 + 1);
    }
    machine.breakpoints().clear();
    assert_eq!(run_to_stop(&mut machine).stop, Some(end));
}

pub fn write_watch_stops_before_the_store_and_resumes_without_reporting_it_again<S: Subject>(
    subject: &S,
) {
    let p = subject.straight_line();
    let mut m = p.machine;
    let len = word_len(&m);
    m.watchpoints().insert(p.data, len, WatchKind::Write);
    let out = m.run(1000);
    assert_eq!(out.stop, watch(WatchKind::Write, p.data));
    assert_eq!(out.executed, p.store as u64, "the store is not executed");
    assert_eq!(m.pc(), p.pcs[p.store], "PC on the store");
    assert_eq!(m.peek_word(p.data), Ok(p.old), "memory unchanged");
    assert_eq!(m.instructions_executed(), p.store as u64);
    // The load is not a write; the store is not reported again.
    let rest = run_to_stop(&mut m);
    assert_eq!(rest.stop, Some(p.end));
    assert_eq!(m.peek_word(p.data), Ok(p.new));
}

pub fn step_after_a_watch_stop_completes_the_access<S: Subject>(subject: &S) {
    let p = subject.straight_line();
    let mut m = p.machine;
    let len = word_len(&m);
    m.watchpoints().insert(p.data, len, WatchKind::Write);
    // step reports watch hits like run does.
    for _ in 0..p.store {
        assert_eq!(m.step(), None);
    }
    assert_eq!(m.step(), watch(WatchKind::Write, p.data));
    assert_eq!(m.pc(), p.pcs[p.store]);
    assert_eq!(m.peek_word(p.data), Ok(p.old));
    assert_eq!(m.step(), None, "the resumed store is not reported again");
    assert_eq!(m.pc(), p.pcs[p.store + 1]);
    assert_eq!(m.peek_word(p.data), Ok(p.new));
    assert_eq!(m.instructions_executed(), p.store as u64 + 1);
}

pub fn read_watch_ignores_writes<S: Subject>(subject: &S) {
    let p = subject.straight_line();
    let mut m = p.machine;
    let len = word_len(&m);
    m.watchpoints().insert(p.data, len, WatchKind::Read);
    let out = m.run(1000);
    assert_eq!(out.stop, watch(WatchKind::Read, p.data));
    assert_eq!(m.pc(), p.pcs[p.load], "stopped on the load, not the store");
    assert_eq!(out.executed, p.load as u64);
    assert_eq!(m.peek_word(p.data), Ok(p.new), "the store went through");
    assert_eq!(run_to_stop(&mut m).stop, Some(p.end));
}

pub fn access_watch_reports_the_store_then_the_load<S: Subject>(subject: &S) {
    let p = subject.straight_line();
    let mut m = p.machine;
    // A one-unit watch inside the word: any access overlapping it counts.
    m.watchpoints().insert(p.data, 1, WatchKind::Access);
    let hit = watch(WatchKind::Access, p.data);
    assert_eq!(m.run(1000).stop, hit);
    assert_eq!(m.pc(), p.pcs[p.store]);
    let out = m.run(1000);
    assert_eq!(out.stop, hit, "the load is a new access");
    assert_eq!(out.executed, (p.load - p.store) as u64);
    assert_eq!(m.pc(), p.pcs[p.load]);
    assert_eq!(run_to_stop(&mut m).stop, Some(p.end));
}

pub fn watch_over_part_of_a_word_reports_the_first_watched_unit<S: Subject>(subject: &S) {
    let p = subject.straight_line();
    let mut m = p.machine;
    let last_unit = p.data + u64::from(m.word_units()) - 1;
    // The word's last unit only.
    m.watchpoints().insert(last_unit, 1, WatchKind::Read);
    assert_eq!(m.run(1000).stop, watch(WatchKind::Read, last_unit));
    assert_eq!(m.pc(), p.pcs[p.load]);
    // A range that starts before the word: the access is reported at the word's start.
    let mut m = subject.straight_line().machine;
    m.watchpoints().insert(p.data - 1, 2, WatchKind::Access);
    assert_eq!(m.run(1000).stop, watch(WatchKind::Access, p.data));
    assert_eq!(m.pc(), p.pcs[p.store]);
    // A range that ends just before the word is never touched.
    let mut m = subject.straight_line().machine;
    m.watchpoints().insert(p.data - 1, 1, WatchKind::Access);
    assert_eq!(run_to_stop(&mut m).stop, Some(p.end));
}

pub fn zero_budget_keeps_a_pending_watch_resume<S: Subject>(subject: &S) {
    let p = subject.straight_line();
    let mut m = p.machine;
    let len = word_len(&m);
    m.watchpoints().insert(p.data, len, WatchKind::Write);
    assert_eq!(m.run(1000).stop, watch(WatchKind::Write, p.data));
    assert_eq!(
        m.run(0),
        RunOutcome {
            executed: 0,
            stop: None
        }
    );
    assert_eq!(m.pc(), p.pcs[p.store]);
    let out = m.run(1);
    assert_eq!(
        out,
        RunOutcome {
            executed: 1,
            stop: None
        },
        "the resume survived"
    );
    assert_eq!(m.peek_word(p.data), Ok(p.new));
}

pub fn moving_the_pc_drops_a_pending_watch_resume<S: Subject>(subject: &S) {
    let p = subject.straight_line();
    let mut m = p.machine;
    let len = word_len(&m);
    m.watchpoints().insert(p.data, len, WatchKind::Write);
    assert_eq!(m.run(1000).stop, watch(WatchKind::Write, p.data));
    // The debugger moves the PC (here: onto the same instruction): the excuse was for the
    // stopped execution, not for whatever runs next.
    m.set_pc(p.pcs[p.store]);
    let out = m.run(1000);
    assert_eq!(
        (out.executed, out.stop),
        (0, watch(WatchKind::Write, p.data))
    );
}

pub fn breakpoint_and_watch_on_one_instruction<S: Subject>(subject: &S) {
    let p = subject.straight_line();
    let mut m = p.machine;
    let len = word_len(&m);
    let at = p.pcs[p.store];
    m.breakpoints().insert(at);
    m.watchpoints().insert(p.data, len, WatchKind::Write);
    assert_eq!(
        m.run(1000).stop,
        Some(StopEvent::Breakpoint),
        "the breakpoint first"
    );
    assert_eq!(m.step(), watch(WatchKind::Write, p.data), "then the access");
    assert_eq!(m.pc(), at);
    // run checks breakpoints before every instruction, the held one included.
    let out = m.run(1000);
    assert_eq!((out.executed, out.stop), (0, Some(StopEvent::Breakpoint)));
    assert_eq!(m.peek_word(p.data), Ok(p.old));
    assert_eq!(m.step(), None, "the held access is still excused");
    assert_eq!(m.pc(), p.pcs[p.store + 1]);
    assert_eq!(m.peek_word(p.data), Ok(p.new));
}

pub fn breakpoints_changed_between_runs_take_effect<S: Subject>(subject: &S) {
    let p = subject.straight_line();
    let n = p.pcs.len();
    assert!(n >= 4, "the straight line is too short for this test");
    let mut m = p.machine;
    m.breakpoints().insert(p.pcs[1]);
    assert_eq!(m.run(1000).stop, Some(StopEvent::Breakpoint));
    assert_eq!(m.pc(), p.pcs[1]);
    // Removed: the next run goes on to the one added meanwhile.
    m.breakpoints().remove(p.pcs[1]);
    m.breakpoints().insert(p.pcs[3]);
    let out = m.run(1000);
    assert_eq!((out.executed, out.stop), (2, Some(StopEvent::Breakpoint)));
    assert_eq!(m.pc(), p.pcs[3]);
    // Added and removed again before any run: never stops there.
    m.breakpoints().remove(p.pcs[3]);
    m.breakpoints().insert(p.pcs[n - 1]);
    m.breakpoints().remove(p.pcs[n - 1]);
    assert_eq!(run_to_stop(&mut m).stop, Some(p.end.clone()));
    // Inserted twice and removed once: still there (after a reset).
    m.reset();
    m.breakpoints().insert(p.pcs[2]);
    m.breakpoints().insert(p.pcs[2]);
    m.breakpoints().remove(p.pcs[2]);
    assert_eq!(m.run(1000).stop, Some(StopEvent::Breakpoint));
    assert_eq!(m.pc(), p.pcs[2]);
}

pub fn watchpoints_changed_between_runs_take_effect<S: Subject>(subject: &S) {
    let p = subject.straight_line();
    let mut m = p.machine;
    let len = word_len(&m);
    // Inserted and removed before the run: no stop.
    m.watchpoints().insert(p.data, len, WatchKind::Write);
    m.watchpoints().remove(p.data, len, WatchKind::Write);
    m.breakpoints().insert(p.pcs[p.store]);
    assert_eq!(m.run(1000).stop, Some(StopEvent::Breakpoint));
    // Inserted while stopped just before the store: the store now reports.
    m.breakpoints().clear();
    m.watchpoints().insert(p.data, len, WatchKind::Access);
    assert_eq!(m.run(1000).stop, watch(WatchKind::Access, p.data));
    assert_eq!(m.pc(), p.pcs[p.store]);
    // Removed while stopped: the load no longer reports.
    m.watchpoints().clear();
    assert_eq!(run_to_stop(&mut m).stop, Some(p.end));
}

pub fn budget_executes_exactly_that_many_instructions<S: Subject>(subject: &S) {
    let pcs = subject.straight_line().pcs;
    for (n, &pc) in pcs.iter().enumerate() {
        let mut m = subject.straight_line().machine;
        let out = m.run(n as u64);
        assert_eq!((out.executed, out.stop), (n as u64, None), "budget {n}");
        assert_eq!(m.pc(), pc);
        assert_eq!(m.instructions_executed(), n as u64);
    }
    let mut l = subject.endless_loop().machine;
    for budget in [1, 2, 3, 1000, 12_345, 100_003] {
        let before = l.instructions_executed();
        assert_eq!(
            l.run(budget),
            RunOutcome {
                executed: budget,
                stop: None
            }
        );
        assert_eq!(l.instructions_executed(), before + budget);
    }
}

pub fn instructions_executed_counts_every_completed_instruction<S: Subject>(subject: &S) {
    let p = subject.straight_line();
    let mut uninterrupted = subject.straight_line().machine;
    let whole = run_to_stop(&mut uninterrupted);
    assert_eq!(whole.stop, Some(p.end.clone()));
    assert_eq!(uninterrupted.instructions_executed(), whole.executed);

    // The same run cut by a breakpoint, a watch stop, steps and small budgets.
    let mut m = p.machine;
    let len = word_len(&m);
    let mut counted = 0;
    m.breakpoints().insert(p.pcs[1]);
    m.watchpoints().insert(p.data, len, WatchKind::Write);
    counted += m.run(1000).executed;
    assert_eq!(m.step(), None);
    counted += 1;
    m.breakpoints().clear();
    let out = m.run(1000);
    assert_eq!(out.stop, watch(WatchKind::Write, p.data));
    counted += out.executed;
    m.watchpoints().clear();
    counted += m.run(1).executed;
    let rest = run_to_stop(&mut m);
    counted += rest.executed;
    assert_eq!(rest.stop, Some(p.end));
    assert_eq!(m.instructions_executed(), counted);
    assert_eq!(
        counted, whole.executed,
        "stops neither add nor lose instructions"
    );
}

pub fn breakpoint_in_a_loop_stops_every_pass<S: Subject>(subject: &S) {
    let l = subject.endless_loop();
    let mut m = l.machine;
    m.breakpoints().insert(l.body);
    assert_eq!(m.run(10_000).stop, Some(StopEvent::Breakpoint));
    for _ in 0..5 {
        assert_eq!(m.pc(), l.body);
        assert_eq!(m.step(), None);
        let out = m.run(10_000);
        assert_eq!(
            (out.executed, out.stop),
            (l.pass - 1, Some(StopEvent::Breakpoint))
        );
    }
}

pub fn watch_in_a_loop_reports_every_pass<S: Subject>(subject: &S) {
    let l = subject.endless_loop();
    let mut m = l.machine;
    let len = word_len(&m);
    m.watchpoints().insert(l.data, len, WatchKind::Write);
    assert_eq!(m.run(10_000).stop, watch(WatchKind::Write, l.data));
    let at = m.pc();
    let mut last = m.peek_word(l.data);
    for _ in 0..5 {
        let out = m.run(10_000);
        assert_eq!(out.stop, watch(WatchKind::Write, l.data));
        assert_eq!(out.executed, l.pass, "the resumed store, then one pass");
        assert_eq!(m.pc(), at);
        let now = m.peek_word(l.data);
        assert_ne!(now, last, "the resumed store was executed");
        last = now;
    }
}

pub fn reset_restores_memory_registers_and_console<S: Subject>(subject: &S) {
    let p = subject.straight_line();
    let fresh = subject.straight_line().machine;
    let mut m = p.machine;
    m.breakpoints().insert(p.pcs[p.load]);
    assert_eq!(m.run(1000).stop, Some(StopEvent::Breakpoint));
    assert_eq!(m.peek_word(p.data), Ok(p.new));
    m.console().write(b"noise");
    for i in 0..m.registers().len() {
        m.write_register(i, 0x5a);
    }
    m.reset();
    assert_eq!(m.pc(), p.pcs[0]);
    assert_eq!(m.peek_word(p.data), Ok(p.old));
    assert_eq!(m.instructions_executed(), 0);
    assert!(m.console().output().is_empty());
    for i in 0..m.registers().len() {
        let name = m.registers()[i].name;
        assert_eq!(
            m.read_register(i),
            fresh.read_register(i),
            "register {name}"
        );
    }
    assert!(
        m.breakpoints().addresses().eq([p.pcs[p.load]]),
        "breakpoints survive a reset"
    );
    let out = m.run(1000);
    assert_eq!(
        (out.executed, out.stop),
        (p.load as u64, Some(StopEvent::Breakpoint))
    );
}

pub fn unmapped_debug_accesses_fail<S: Subject>(subject: &S) {
    let mut m = subject.straight_line().machine;
    let mut addrs = subject.unmapped();
    addrs.push(u64::MAX);
    for addr in addrs {
        assert!(m.debug_read(addr).is_err(), "debug_read {addr:#x}");
        assert!(m.debug_write(addr, 0).is_err(), "debug_write {addr:#x}");
        assert!(m.peek_word(addr).is_err(), "peek_word {addr:#x}");
        assert!(m.poke_word(addr, 0).is_err(), "poke_word {addr:#x}");
        assert_eq!(m.disassemble(addr), None, "disassemble {addr:#x}");
    }
}

pub fn peek_and_poke_words<S: Subject>(subject: &S) {
    let p = subject.straight_line();
    let mut m = p.machine;
    let units = u64::from(m.word_units());
    let bits = 8 * m.unit_bytes();
    let unit_mask = if bits >= 32 {
        u32::MAX
    } else {
        (1 << bits) - 1
    };
    assert_eq!(m.peek_word(p.data), Ok(p.old));
    // Little endian across units, each unit readable on its own.
    let value = 0x8765_4321u32
        & if units * u64::from(bits) >= 32 {
            u32::MAX
        } else {
            (1 << (units * u64::from(bits))) - 1
        };
    assert_eq!(m.poke_word(p.data, value), Ok(()));
    assert_eq!(m.peek_word(p.data), Ok(value));
    for i in 0..units {
        let unit = (u64::from(value) >> (u64::from(bits) * i)) as u32 & unit_mask;
        assert_eq!(m.debug_read(p.data + i), Ok(unit));
    }
    assert_eq!(m.debug_write(p.data, 0x5a), Ok(()));
    assert_eq!(m.debug_read(p.data), Ok(0x5a));
    // What the debugger wrote is what the program's store replaces.
    let len = word_len(&m);
    m.watchpoints().insert(p.data, len, WatchKind::Write);
    assert_eq!(m.run(1000).stop, watch(WatchKind::Write, p.data));
    assert_eq!(m.peek_word(p.data), Ok((value & !unit_mask) | 0x5a));
    assert_eq!(m.step(), None);
    assert_eq!(m.peek_word(p.data), Ok(p.new));
}

pub fn registers_read_and_write_back<S: Subject>(subject: &S) {
    let mut m = subject.straight_line().machine;
    let count = m.registers().len();
    assert!(count > 0);
    for i in 0..count {
        let info = m.registers()[i];
        assert!(!info.name.is_empty() && info.bits > 0);
        let value = m
            .read_register(i)
            .unwrap_or_else(|| panic!("register {}", info.name));
        assert!(m.write_register(i, value), "register {}", info.name);
        assert_eq!(m.read_register(i), Some(value));
    }
    assert_eq!(m.read_register(count), None);
    assert!(!m.write_register(count, 0));
}

pub fn disassembly_covers_the_program<S: Subject>(subject: &S) {
    let p = subject.straight_line();
    let m = p.machine;
    for pair in p.pcs.windows(2) {
        let Some((text, size)) = m.disassemble(pair[0]) else {
            panic!("no disassembly at {:#x}", pair[0]);
        };
        assert!(!text.trim().is_empty());
        assert_eq!(pair[0] + size, pair[1], "size of {text}");
    }
}

pub fn need_input_consumes_nothing_and_resumes_when_input_is_queued<S: InputSubject>(subject: &S) {
    let e = subject.echo();
    let mut m = e.machine;
    let out = m.run(1_000_000);
    assert_eq!(out.stop, Some(StopEvent::NeedInput));
    assert!(m.console().waiting());
    let at = m.pc();
    let count = m.instructions_executed();
    // Asking again does not move on.
    assert_eq!(m.run(1_000_000).stop, Some(StopEvent::NeedInput));
    assert_eq!(m.pc(), at);
    assert!(m.console().output().is_empty());
    m.console().push_input(e.first);
    assert!(!m.console().waiting(), "queued input ends the wait");
    assert_eq!(m.console().pending_input(), e.first.len());
    assert_eq!(m.run(1_000_000).stop, Some(StopEvent::NeedInput));
    assert!(m.instructions_executed() > count);
    assert_eq!(m.console().pending_input(), 0);
    assert_eq!(m.console().output(), e.first_output);
    m.console().push_input(e.second);
    assert_eq!(run_to_stop(&mut m).stop, Some(e.end));
    assert_eq!(m.console().take_output(), e.final_output);
}

pub fn end_of_input_keeps_reporting_need_input<S: InputSubject>(subject: &S) {
    let e = subject.echo();
    let mut m = e.machine;
    m.console().push_input(e.first);
    m.console().close_input();
    assert_eq!(m.run(1_000_000).stop, Some(StopEvent::NeedInput));
    assert_eq!(m.console().output(), e.first_output);
    let at = m.pc();
    // With the input closed and empty, the read never completes: the host ends the run.
    for _ in 0..3 {
        assert_eq!(m.run(1_000_000).stop, Some(StopEvent::NeedInput));
        assert_eq!(m.pc(), at);
        assert_eq!(m.console().output(), e.first_output);
    }
    assert!(m.console().input_closed());
}

pub fn reset_drops_queued_input<S: InputSubject>(subject: &S) {
    let e = subject.echo();
    let mut m = e.machine;
    m.console().push_input(e.first);
    m.console().push_input(e.second);
    assert_eq!(run_to_stop(&mut m).stop, Some(e.end.clone()));
    m.console().push_input(e.first);
    m.reset();
    assert_eq!(m.console().pending_input(), 0);
    assert!(m.console().output().is_empty());
    assert_eq!(m.run(1_000_000).stop, Some(StopEvent::NeedInput));
}
