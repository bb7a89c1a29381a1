//! The run loop against one instruction at a time: a program run in chunks of many
//! instructions must end in exactly the state, with the same stops and output, that the same
//! instructions reach one `step` at a time. (The LC-3 and MIPS loops, which run blocks, have
//! the same test.) The reference is `step`, which executes the decoded instruction, while the
//! loop executes straight-line runs as ops.

use asmdbg_core::{Machine, MachineOptions, Snapshot, StopEvent, WatchKind};
use asmdbg_simplerisc::{load_machine, SrMachine};
use asmdbg_testsupport::chunks::{
    assert_budget_is_exact, chunk_case, chunked_and_stepped, play_case, ChunkCase, Pace, Played,
};
use proptest::prelude::*;

/// One line of a random program. Labels `.L0`.. stand before every line, so branches and
/// calls can go anywhere in it.
fn line(lines: usize) -> impl Strategy<Value = String> {
    let reg = || prop::sample::select(vec!["r1", "r2", "r3", "r4", "r0"]);
    let label = move || (0..lines).prop_map(|k| format!(".L{k}"));
    prop_oneof![
        6 => (prop::sample::select(vec!["add", "sub", "mul", "and", "or", "lsl", "asr"]), reg(), reg(), reg())
            .prop_map(|(op, d, s, t)| format!("{op} {d}, {s}, {t}")),
        5 => (prop::sample::select(vec!["add", "sub", "mul", "mod", "div", "and", "or", "lsl", "lsr", "asr"]), reg(), reg(), -9i32..40)
            .prop_map(|(op, d, s, imm)| format!("{op} {d}, {s}, {imm}")),
        1 => (prop::sample::select(vec!["addu", "addh", "subu", "subh", "oru", "orh"]), reg(), reg(), 0u32..0x10000)
            .prop_map(|(op, d, s, imm)| format!("{op} {d}, {s}, {imm}")),
        2 => (prop::sample::select(vec!["mov", "not"]), reg(), prop_oneof![reg().prop_map(str::to_string), (-9i32..9).prop_map(|i| i.to_string())])
            .prop_map(|(op, d, s)| format!("{op} {d}, {s}")),
        3 => (reg(), prop_oneof![reg().prop_map(str::to_string), (-5i32..5).prop_map(|i| i.to_string())])
            .prop_map(|(s, t)| format!("cmp {s}, {t}")),
        2 => (reg(), -8i32..8).prop_map(|(r, v)| format!("mov {r}, {v}")),
        3 => (prop::sample::select(vec!["ld", "st"]), reg(), 0i32..8)
            .prop_map(|(op, r, k)| format!("{op} {r}, {}[r5]", 4 * k)),
        4 => (prop::sample::select(vec!["beq", "bgt", "b"]), label()).prop_map(|(op, l)| format!("{op} {l}")),
        1 => label().prop_map(|l| format!("call {l}")),
        1 => Just("ret".to_string()),
        1 => reg().prop_map(|r| format!(".print {r}")),
    ]
}

type Case = ChunkCase;

fn case() -> impl Strategy<Value = Case> {
    chunk_case(4usize..30, line, 8, 150)
}

/// The program: r5 points at scratch words low in memory, r1 starts at 3, then the lines.
fn source(case: &Case) -> String {
    let mut src = String::from("mov r5, 256\nmov r1, 3\n");
    for (k, line) in case.lines.iter().enumerate() {
        src.push_str(&format!(".L{k}: {line}\n"));
    }
    src
}

const INSTRUCTIONS: u64 = 1500;

fn play(case: &Case, pace: Pace<'_>) -> Option<Played<<SrMachine as Snapshot>::State>> {
    let m = load_machine("runs.asm", &source(case), &MachineOptions::default()).ok()?;
    // The prelude is two instructions: line k is at slot k + 2, byte address 4 * (k + 2).
    let line_addr = |k: usize| Some(4 * (k as u64 + 2));
    let word_addr = |word: u32| 256 + 4 * u64::from(word);
    Some(play_case(m, case, line_addr, word_addr, INSTRUCTIONS, pace))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn runs_end_where_single_instructions_end(case in case()) {
        let played = chunked_and_stepped(&case.chunks, |pace| play(&case, pace));
        prop_assume!(played.is_some(), "the program does not assemble");
        let (in_runs, one_by_one) = played.unwrap_or_else(|| unreachable!());
        prop_assert!(in_runs == one_by_one, "{}", source(&case));
    }
}

#[test]
fn a_loop_stops_exactly_at_the_budget() {
    let src = "mov r2, 12\n.loop: add r1, r1, 3\nsub r2, r2, 1\ncmp r2, 0\nbgt .loop\n.print r1\n";
    let load = || load_machine("loop.asm", src, &MachineOptions::default()).unwrap();
    assert_budget_is_exact(load, 1..=50);
}

#[test]
fn a_breakpoint_set_after_a_loop_ran_stops_inside_it() {
    let src = "mov r2, 12\n.loop: add r1, r1, 3\nsub r2, r2, 1\ncmp r2, 0\nbgt .loop\n.print r1\n";
    let mut m = load_machine("loop.asm", src, &MachineOptions::default()).unwrap();
    assert_eq!(m.run(21).executed, 21, "mov, then 5 turns of the loop");
    m.breakpoints().insert(4 * 3); // `cmp r2, 0`
    let outcome = m.run(1000);
    assert_eq!(outcome.stop, Some(StopEvent::Breakpoint));
    assert_eq!((outcome.executed, m.pc()), (2, 12));
}

#[test]
fn a_compiled_loop_that_walks_near_a_watchpoint_stops_exactly_at_the_budget() {
    // The inner loop's run [ld, add, add, cmp, bgt] is entered once per outer round, four
    // rounds each time, and compiled after a few entries (src/cpu/jit.rs). Its load walks up
    // in steps of 8 from 8; watchpoints on 500 and 900 make 504.. near the watched span
    // without hitting it. In the 16th entry the code leaves before the load in the third
    // round (at 504), and the rest of the entry runs as ops, with the rounds left.
    let src = "mov r5, 8\nmov r6, 4\nmov r7, 100\nmov r3, 0\n\
               .outer: mov r2, 0\n\
               .inner: ld r1, 0[r5]\nadd r5, r5, 8\nadd r2, r2, 1\ncmp r6, r2\nbgt .inner\n\
               add r3, r3, 1\ncmp r7, r3\nbgt .outer\n";
    let load = || {
        let mut m = load_machine("walk.asm", src, &MachineOptions::default()).unwrap();
        m.watchpoints().insert(500, 4, WatchKind::Read);
        m.watchpoints().insert(900, 4, WatchKind::Read);
        m
    };
    // Four instructions, then 24 per outer round: the 16th inner entry starts after 364.
    assert_budget_is_exact(load, (364..=390).chain([500, 1000]));
}
