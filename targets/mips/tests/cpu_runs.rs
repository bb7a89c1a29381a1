//! The run loop's straight-line runs (src/cpu/runs.rs) against the ordinary path: a program run
//! in chunks of many instructions must end in exactly the state, with the same stops, that the
//! same instructions reach one `step` at a time (which never takes the runs: a budget of one still
//! takes a run of a single branch), whatever the program branches to, traps on, or prints.

use asmdbg_core::{Machine, MachineOptions, Snapshot, StopEvent};
use asmdbg_mips::{load_machine, MipsMachine};
use asmdbg_testsupport::chunks::{
    assert_budget_is_exact, chunk_case, chunked_and_stepped, play_case, ChunkCase, Pace, Played,
};
use proptest::prelude::*;

/// One line of a random program. Labels `L0`.. stand before every line, so branches and jumps
/// can go anywhere in it, forward or back.
fn line(lines: usize) -> impl Strategy<Value = String> {
    let reg = || prop::sample::select(vec!["$t0", "$t1", "$t2", "$t3", "$s1", "$zero"]);
    let label = move || (0..lines).prop_map(|k| format!("L{k}"));
    prop_oneof![
        6 => (prop::sample::select(vec!["addu", "subu", "xor", "or", "and", "nor", "slt", "sltu", "add", "sub", "mul", "sllv", "srlv", "srav"]), reg(), reg(), reg())
            .prop_map(|(op, d, s, t)| format!("{op} {d}, {s}, {t}")),
        4 => (prop::sample::select(vec!["addiu", "addi", "andi", "ori", "xori", "slti", "sltiu"]), reg(), reg(), -40i32..40)
            .prop_map(|(op, d, s, imm)| format!("{op} {d}, {s}, {imm}")),
        // Values near the ends of the signed range, so that add, sub and addi overflow.
        1 => (reg(), prop::sample::select(vec![0x7fffu32, 0x8000, 0xffff, 0])).prop_map(|(d, v)| format!("lui {d}, {v}")),
        2 => (prop::sample::select(vec!["sll", "srl", "sra"]), reg(), reg(), 0u32..32)
            .prop_map(|(op, d, t, sa)| format!("{op} {d}, {t}, {sa}")),
        3 => (prop::sample::select(vec!["lw", "sw", "lb", "lbu", "sb", "lh", "lhu", "sh"]), reg(), 0i32..16)
            .prop_map(|(op, r, k)| format!("{op} {r}, {}($s0)", k * 4)),
        1 => (prop::sample::select(vec!["lw", "lh", "sh", "sw"]), reg()).prop_map(|(op, r)| format!("{op} {r}, 3($s0)")),
        3 => (prop::sample::select(vec!["beq", "bne"]), reg(), reg(), label())
            .prop_map(|(op, s, t, l)| format!("{op} {s}, {t}, {l}")),
        2 => (prop::sample::select(vec!["bgtz", "blez", "bltz", "bgez"]), reg(), label())
            .prop_map(|(op, s, l)| format!("{op} {s}, {l}")),
        1 => label().prop_map(|l| format!("j {l}")),
        1 => label().prop_map(|l| format!("jal {l}")),
        1 => Just("jr $ra".to_string()),
        1 => (prop::sample::select(vec!["bltzal", "bgezal"]), reg(), label()).prop_map(|(op, s, l)| format!("{op} {s}, {l}")),
        1 => label().prop_map(|l| format!("la $t3, {l}\njalr $t3")),
        1 => (reg(), reg()).prop_map(|(s, t)| format!("div {s}, {t}")),
        1 => (reg(), reg()).prop_map(|(s, t)| format!("teq {s}, {t}")),
        1 => (32u8..127).prop_map(|c| format!("li $v0, 11\nli $a0, {c}\nsyscall")),
        1 => Just("li $v0, 10\nsyscall".to_string()),
    ]
}

type Case = ChunkCase;

fn case() -> impl Strategy<Value = Case> {
    chunk_case(6usize..40, line, 16, 200)
}

/// The program: `case.lines` after a prelude, and an exception handler that resumes after the
/// instruction that raised the exception (kernel text: the ordinary path, and `eret`).
fn source(case: &Case) -> String {
    let mut src = String::from(
        ".ktext 0x80000180\nmfc0 $k0, $14\naddiu $k0, $k0, 4\nmtc0 $k0, $14\neret\n\
         .data\nbuf: .word 0x8000ffff, -2, 0x7fff8081, 3\n.space 48\n.text\nmain: la $s0, buf\nli $t1, 3\nla $ra, L0\n",
    );
    for (k, line) in case.lines.iter().enumerate() {
        src.push_str(&format!("L{k}: {line}\n"));
    }
    src
}

const INSTRUCTIONS: u64 = 1500;

fn play(case: &Case, pace: Pace<'_>) -> Option<Played<<MipsMachine as Snapshot>::State>> {
    // Some random lines do not assemble (a label a pseudo-instruction cannot reach): no case.
    let m = load_machine("runs.asm", &source(case), &MachineOptions::default()).ok()?;
    // Breakpoints on lines, by their labels.
    let symbols = m.debug_info()?.symbols.clone();
    let line_addr = |k: usize| symbols.addr(&format!("L{k}"));
    let word_addr = |word: u32| 0x1001_0000 + 4 * u64::from(word);
    Some(play_case(m, case, line_addr, word_addr, INSTRUCTIONS, pace))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn runs_end_where_single_instructions_end(case in case()) {
        let played = chunked_and_stepped(&case.chunks, |pace| play(&case, pace));
        prop_assume!(played.is_some(), "the program does not assemble");
        let (in_runs, one_by_one) = played.unwrap_or_else(|| unreachable!());
        prop_assert!(in_runs == one_by_one, "{}", source(&case));
    }
}

#[test]
fn a_loop_of_one_run_stops_exactly_at_the_budget() {
    let src = ".text\nmain: li $t0, 20\nloop: addiu $t1, $t1, 3\naddiu $t0, $t0, -1\nbne $t0, $zero, loop\nli $v0, 10\nsyscall\n";
    let load = || load_machine("loop.asm", src, &MachineOptions::default()).unwrap();
    assert_budget_is_exact(load, 1..=49);
}

#[test]
fn straight_code_longer_than_a_run_ends_as_one_instruction_at_a_time() {
    // 150 instructions between the loop's start and its branch: runs of at most 64, entered
    // at whatever instruction the previous one ended before.
    let mut src = String::from(".text\nmain: li $t0, 7\nloop:\n");
    for k in 0..150 {
        src.push_str(&format!(
            "addiu $t{}, $t{}, {k}\n",
            1 + k % 4,
            1 + (k + 1) % 4
        ));
    }
    src.push_str("addiu $t0, $t0, -1\nbne $t0, $zero, loop\nli $v0, 10\nsyscall\n");
    let load = || load_machine("long.asm", &src, &MachineOptions::default()).unwrap();
    assert_budget_is_exact(load, [1, 63, 64, 65, 100, 151, 152, 153, 1000]);
}

#[test]
fn a_breakpoint_set_after_the_runs_were_found_stops_inside_one() {
    let src = ".text\nmain: li $t0, 20\nloop: addiu $t1, $t1, 3\naddiu $t2, $t2, 1\nbne $t2, $t0, loop\nli $v0, 10\nsyscall\n";
    let mut m = load_machine("loop.asm", src, &MachineOptions::default()).unwrap();
    assert_eq!(m.run(31).executed, 31, "li, then 10 turns of the loop");
    // The second instruction of the loop's run: 0x00400004 is `loop`.
    m.breakpoints().insert(0x0040_0008);
    let outcome = m.run(1000);
    assert_eq!(outcome.stop, Some(StopEvent::Breakpoint));
    assert_eq!((outcome.executed, m.pc()), (1, 0x0040_0008));
}

#[test]
fn code_the_debugger_patches_inside_a_found_run_is_what_runs_next() {
    let src = ".text\nmain: li $t0, 0\nloop: addiu $t0, $t0, 1\naddiu $t1, $t1, 1\nbne $t0, $zero, loop\ndone: li $v0, 10\nsyscall\n";
    let mut m = load_machine("patch.asm", src, &MachineOptions::default()).unwrap();
    assert_eq!(m.run(31).executed, 31, "li, then 10 turns of the loop");
    // `j done` over `addiu $t1, $t1, 1`, in the middle of the loop's run.
    let j_done = 0x0800_0000 | (0x0040_0010 >> 2);
    m.poke_word(0x0040_0008, j_done).unwrap();
    let outcome = m.run(1000);
    assert_eq!(outcome.stop, Some(StopEvent::Exited(0)));
    assert_eq!(outcome.executed, 4, "addiu, j, li, syscall");
}

#[test]
fn an_overflow_in_a_compiled_loop_stops_where_one_instruction_at_a_time_stops() {
    // The loop's run is all integer ops, so it runs as machine code (src/cpu/jit.rs); `add`
    // overflows in the loop's 16th round, at the run's third instruction (0x00400010).
    let src = ".text\nmain: li $t2, 0x7ffffff0\nloop: addiu $t0, $t0, 1\naddu $t3, $t3, $t0\nadd $t1, $t2, $t0\nbne $t1, $zero, loop\nli $v0, 10\nsyscall\n";
    let load = || load_machine("overflow.asm", src, &MachineOptions::default()).unwrap();
    let mut whole = load();
    let outcome = whole.run(10_000);
    let mut single = load();
    let stop = (0..10_000).find_map(|_| single.step());
    assert!(matches!(stop, Some(StopEvent::Fault(_))), "{stop:?}");
    assert_eq!(outcome.stop, stop);
    assert_eq!(
        outcome.executed,
        2 + 15 * 4 + 2,
        "li, 15 rounds, addiu and addu"
    );
    assert_eq!((whole.pc(), single.pc()), (0x0040_0010, 0x0040_0010));
    assert!(whole.snapshot() == single.snapshot());
}
