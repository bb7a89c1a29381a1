//! Running a machine in chunks of instructions, for the tests that compare a run loop's fast
//! path (blocks, straight-line runs) against one instruction at a time.

use std::ops::Range;

use asmdbg_core::{Machine, Snapshot, StopEvent, WatchKind};
use proptest::prelude::*;

/// A random program of `lines` (each line labelled by its index, so branches can go to any of
/// them), with breakpoints on some lines, watchpoints on some words and the budgets to run it
/// in.
#[derive(Debug, Clone)]
pub struct ChunkCase {
    pub lines: Vec<String>,
    /// Indexes into `lines`.
    pub breakpoints: Vec<usize>,
    /// A word index and a [`watch_kind`].
    pub watches: Vec<(u32, u8)>,
    pub chunks: Vec<u64>,
}

/// Cases of `count` lines drawn from `line(count)`, watchpoints on words `0..words` and budgets
/// up to `max_chunk`.
pub fn chunk_case<S: Strategy<Value = String>>(
    count: Range<usize>,
    line: fn(usize) -> S,
    words: u32,
    max_chunk: u64,
) -> impl Strategy<Value = ChunkCase> {
    count
        .prop_flat_map(move |n| {
            (
                prop::collection::vec(line(n), n),
                prop::collection::vec(0..n, 0..3),
                prop::collection::vec((0..words, 0u8..3), 0..2),
                prop::collection::vec(1..max_chunk, 1..6),
            )
        })
        .prop_map(|(lines, breakpoints, watches, chunks)| ChunkCase {
            lines,
            breakpoints,
            watches,
            chunks,
        })
}

/// The watchpoint kind a case's number stands for.
pub fn watch_kind(k: u8) -> WatchKind {
    [WatchKind::Write, WatchKind::Read, WatchKind::Access][(k % 3) as usize]
}

/// Every stop a chunked run saw, with the instruction count and PC at it.
pub type Stops = Vec<(StopEvent, u64, u64)>;

/// How [`run_paced`] runs a machine.
pub enum Pace<'a> {
    /// `run` with the budgets drawn from the function.
    Chunks(&'a mut dyn FnMut() -> u64),
    /// One instruction at a time the plain way: the breakpoint test, then `step`. A budget of
    /// one is not enough for the reference, since a fast path still takes a run or block of a
    /// single instruction (a branch) within it.
    Stepped,
}

/// Runs `machine` at `pace` until `instructions` ran or it stopped for good: a breakpoint is
/// stepped over, a watch stop resumed by the next run, anything else ends it. A loop that
/// overshoots the budget (a broken fast path) ends too, rather than running on.
pub fn run_paced<M: Machine + ?Sized>(
    machine: &mut M,
    instructions: u64,
    mut pace: Pace<'_>,
) -> Stops {
    let mut stops = Vec::new();
    let mut rounds = 0;
    while machine.instructions_executed() < instructions && rounds < 4 * instructions {
        rounds += 1;
        let left = instructions.saturating_sub(machine.instructions_executed());
        let pc = machine.pc();
        let stop = match &mut pace {
            Pace::Chunks(budget) => machine.run(budget().min(left)).stop,
            Pace::Stepped if machine.breakpoints().contains(pc) => Some(StopEvent::Breakpoint),
            Pace::Stepped => machine.step(),
        };
        let Some(stop) = stop else {
            continue;
        };
        stops.push((stop.clone(), machine.instructions_executed(), machine.pc()));
        match stop {
            StopEvent::Breakpoint => {
                if let Some(stop) = machine.step() {
                    stops.push((stop, machine.instructions_executed(), machine.pc()));
                    break;
                }
            }
            StopEvent::Watch { .. } => {}
            _ => break,
        }
    }
    stops
}

/// How a played case ended: every stop with the count and PC at it, and the machine's state
/// and output at the end.
pub type Played<S> = (Stops, S, Vec<u8>);

/// Sets `case`'s breakpoints (line `k` at `line_addr(k)`, if it has an address) and its
/// watchpoints (4-byte word `w` at `word_addr(w)`) on `machine`, then runs it at `pace` for
/// `instructions` ([`run_paced`]).
pub fn play_case<M: Machine + Snapshot>(
    mut machine: M,
    case: &ChunkCase,
    line_addr: impl Fn(usize) -> Option<u64>,
    word_addr: impl Fn(u32) -> u64,
    instructions: u64,
    pace: Pace<'_>,
) -> Played<M::State> {
    for &k in &case.breakpoints {
        if let Some(addr) = line_addr(k) {
            machine.breakpoints().insert(addr);
        }
    }
    for &(word, kind) in &case.watches {
        machine
            .watchpoints()
            .insert(word_addr(word), 4, watch_kind(kind));
    }
    let stops = run_paced(&mut machine, instructions, pace);
    let output = machine.console().take_output();
    (stops, machine.snapshot(), output)
}

/// Plays a case twice, with budgets cycling through `chunks` and one instruction at a time
/// the plain way; `None` if `play` gives nothing (the program does not load).
pub fn chunked_and_stepped<T>(
    chunks: &[u64],
    play: impl Fn(Pace<'_>) -> Option<T>,
) -> Option<(T, T)> {
    let mut chunk = chunks.iter().copied().cycle();
    let chunked = play(Pace::Chunks(&mut || chunk.next().unwrap_or(1)))?;
    let stepped = play(Pace::Stepped)?;
    Some((chunked, stepped))
}

/// Asserts that for every budget in `budgets`, one `run(budget)` of a machine fresh from
/// `load` executes exactly that many instructions and reaches the state that many `step`s
/// reach.
pub fn assert_budget_is_exact<M: Machine + asmdbg_core::Snapshot>(
    load: impl Fn() -> M,
    budgets: impl IntoIterator<Item = u64>,
) {
    for budget in budgets {
        let mut chunked = load();
        let mut single = load();
        assert_eq!(chunked.run(budget).executed, budget, "budget {budget}");
        for _ in 0..budget {
            single.step();
        }
        assert!(chunked.snapshot() == single.snapshot(), "budget {budget}");
    }
}
