//! The run loop's decoded blocks (src/cpu/blocks.rs) against the ordinary path: a run of many
//! instructions must end in exactly the state that the same instructions reach one `step` at
//! a time (which never runs a block), with
//! the same stops, whatever the code does to itself, to the devices or to the debugger's sets.

use asmdbg_core::{StopEvent, WatchKind};
use asmdbg_lc3::cpu::{Cpu, CpuState, Semantics, DDR, DEVICE_BASE, DSR, MCR, PSR_USER};
use asmdbg_lc3::os::{LC3SIM, LC3TOOLS, PATT};
use proptest::prelude::*;

mod common;

/// A supervisor-mode cpu with `words` at x3000 and the PC there.
fn cpu_with(semantics: Semantics, words: &[u16]) -> Cpu {
    common::cpu_at_x3000(semantics, 0x0002, words)
}

const ADD_R2_5: u16 = 0x14A5; // ADD R2, R2, #5
const ADD_R2_1: u16 = 0x14A1; // ADD R2, R2, #1
const NOP: u16 = 0x0000; // BR with no condition: never taken

#[test]
fn a_store_over_the_next_instructions_of_its_block_runs_the_new_code() {
    let words = [
        0x2204,   // x3000 LD R1, x3005
        0x3201,   // x3001 ST R1, x3003
        0x16E0,   // x3002 ADD R3, R3, #0
        ADD_R2_5, // x3003: decoded into the block before the store replaces it
        NOP,      // x3004
        ADD_R2_1, // x3005: the new instruction
    ];
    let mut cpu = cpu_with(PATT.semantics, &words);
    let outcome = cpu.run(5);
    assert_eq!((outcome.executed, outcome.stop), (5, None));
    assert_eq!(
        cpu.regs[2], 1,
        "the stored instruction ran, not the decoded one"
    );
    assert_eq!(cpu.pc, 0x3005);
}

#[test]
fn a_loop_that_rewrites_its_own_first_word_runs_each_new_word() {
    let words = [
        ADD_R2_1, // x3000 LOOP: ADD R2, R2, #1, after the first turn ADD R2, R2, #2
        0x2203,   // x3001 LD R1, x3005
        0x33FD,   // x3002 ST R1, x3000
        0x0FFC,   // x3003 BRnzp LOOP
        NOP,      // x3004
        0x14A2,   // x3005 ADD R2, R2, #2
    ];
    let mut cpu = cpu_with(PATT.semantics, &words);
    assert_eq!(cpu.run(40).executed, 40);
    assert_eq!((cpu.pc, cpu.regs[2]), (0x3000, 1 + 2 * 9));
    let by_steps = {
        let mut cpu = cpu_with(PATT.semantics, &words);
        for _ in 0..40 {
            cpu.step();
        }
        cpu.state()
    };
    assert_eq!(cpu.state(), by_steps);
    // The debugger puts a different instruction over the loop's first word between runs.
    cpu.poke(0x3000, ADD_R2_5);
    cpu.run(4);
    assert_eq!(cpu.regs[2], 19 + 5);
    // And through the whole memory, as a loader writes it.
    cpu.mem_mut()[0x3000] = ADD_R2_1;
    cpu.run(4);
    assert_eq!(cpu.regs[2], 24 + 1);
}

#[test]
fn a_breakpoint_set_inside_a_decoded_block_stops_there() {
    let words = [ADD_R2_1, ADD_R2_1, ADD_R2_1, 0x0FFC]; // LOOP: 3 × ADD; BRnzp LOOP
    let mut cpu = cpu_with(PATT.semantics, &words);
    assert_eq!(cpu.run(40).executed, 40);
    cpu.breakpoints.insert(0x3002);
    let outcome = cpu.run(1000);
    assert_eq!(outcome.stop, Some(StopEvent::Breakpoint));
    assert_eq!(cpu.pc, 0x3002);
    assert_eq!(outcome.executed, 2);
    cpu.breakpoints.remove(0x3002);
    assert_eq!(cpu.run(8).executed, 8);
    assert_eq!(cpu.pc, 0x3002);
    assert_eq!(cpu.regs[2], 30 + 2 + 6);
}

#[test]
fn a_store_to_the_machine_control_register_inside_a_block_halts_after_it() {
    let words = [
        ADD_R2_1, // x3000
        0xB202,   // x3001 STI R1, [x3004] -> MCR (R1 = 0 clears the clock)
        ADD_R2_1, // x3002: not run
        NOP,      // x3003
        MCR,      // x3004
    ];
    let mut cpu = cpu_with(PATT.semantics, &words);
    let outcome = cpu.run(100);
    assert_eq!(
        (outcome.executed, outcome.stop),
        (2, Some(StopEvent::Halted))
    );
    assert_eq!(cpu.regs[2], 1);
    assert_eq!(cpu.pc, 0x3002);
}

/// A loop of one block that stores R2 to x3005, and the stop of a write watchpoint there.
const STORE_LOOP: [u16; 4] = [
    ADD_R2_1, // x3000
    0x3403,   // x3001 ST R2, x3005
    ADD_R2_1, // x3002
    0x0FFC,   // x3003 BRnzp x3000
];
const STORE_WATCH: StopEvent = StopEvent::Watch {
    kind: WatchKind::Write,
    addr: 0x3005,
};

#[test]
fn a_watchpoint_inside_a_block_stops_before_the_access_and_resumes_after_it() {
    let words = STORE_LOOP;
    let mut cpu = cpu_with(PATT.semantics, &words);
    cpu.watchpoints.insert(0x3005, 1, WatchKind::Write);
    let outcome = cpu.run(100);
    let watch = Some(STORE_WATCH);
    assert_eq!((outcome.executed, &outcome.stop), (1, &watch));
    assert_eq!((cpu.pc, cpu.mem()[0x3005]), (0x3001, 0));
    let outcome = cpu.run(100);
    assert_eq!((outcome.executed, &outcome.stop), (4, &watch));
    assert_eq!((cpu.pc, cpu.mem()[0x3005]), (0x3001, 1));
}

/// A program whose inner loop, a block that branches back to itself (the kind that compiles,
/// src/cpu/jit.rs), is entered once per outer round, two rounds each time: compiled after a
/// few entries, its store walks through thirteen scratch words and in the seventh (last) outer
/// round writes `ADD R4, R4, #2` over SUB's `ADD R4, R4, #1`.
const WALKING_STORE: [u16; 31] = [
    0x240E, // x3000 LD R2, NEWADD
    0xEA0E, // x3001 LEA R5, SCRATCH
    0x5920, // x3002 AND R4, R4, #0
    0x5DA0, // x3003 AND R6, R6, #0
    0x1DA7, // x3004 ADD R6, R6, #7
    0x5260, // x3005 OUTER: AND R1, R1, #0
    0x1262, // x3006 ADD R1, R1, #2
    0x7540, // x3007 INNER: STR R2, R5, #0
    0x1B61, // x3008 ADD R5, R5, #1
    0x127F, // x3009 ADD R1, R1, #-1
    0x03FC, // x300A BRp INNER
    0x4811, // x300B JSR SUB
    0x1DBF, // x300C ADD R6, R6, #-1
    0x03F7, // x300D BRp OUTER
    0x0FFF, // x300E BRnzp x300E
    0x1922, // x300F NEWADD: ADD R4, R4, #2
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,      // x3010 SCRATCH
    0x1921, // x301D SUB: ADD R4, R4, #1
    0xC1C0, // x301E RET
];

#[test]
fn a_compiled_store_over_code_runs_the_new_code() {
    // Five instructions, seven outer rounds of fifteen, then the loop at the end.
    let budget = 5 + 7 * 15 + 5;
    let mut cpu = cpu_with(PATT.semantics, &WALKING_STORE);
    assert_eq!(cpu.run(budget).executed, budget);
    let mut by_steps = cpu_with(PATT.semantics, &WALKING_STORE);
    for _ in 0..budget {
        by_steps.step();
    }
    assert_eq!((cpu.pc, cpu.regs[4]), (0x300E, 6 + 2));
    assert_eq!(cpu.state(), by_steps.state());
}

#[test]
fn a_watchpoint_set_once_a_block_is_compiled_stops_before_the_access() {
    let words = STORE_LOOP;
    let mut cpu = cpu_with(PATT.semantics, &words);
    // Ten rounds, one at a time: the block is entered ten times and compiled.
    for _ in 0..10 {
        assert_eq!(cpu.run(4).executed, 4);
    }
    cpu.watchpoints.insert(0x3005, 1, WatchKind::Write);
    let outcome = cpu.run(100);
    let watch = Some(STORE_WATCH);
    assert_eq!((outcome.executed, &outcome.stop), (1, &watch));
    assert_eq!((cpu.pc, cpu.regs[2], cpu.mem()[0x3005]), (0x3001, 21, 19));
}

#[test]
fn compiled_loads_and_stores_through_pointers_leave_for_devices_and_code() {
    // LOOP: ADD R2, R2, #1; LDI or STI through the pointer at x3004; BRnzp LOOP.
    const LDI_R1: u16 = 0xA202; // x3001 LDI R1, [x3004]
    const STI_R2: u16 = 0xB402; // x3001 STI R2, [x3004]
    let cases = [
        (LDI_R1, DSR),    // a device register
        (LDI_R1, 0x3005), // a plain word
        (STI_R2, DDR),    // the display: prints
        (STI_R2, 0x3000), // over the loop's own first word
        (STI_R2, 0x3005), // a plain word
    ];
    for (op, pointer) in cases {
        let words = [ADD_R2_1, op, 0x0FFD, NOP, pointer];
        let mut cpu = cpu_with(PATT.semantics, &words);
        // Twenty entries of the loop's block: compiled after a few.
        for _ in 0..20 {
            assert_eq!(cpu.run(3).executed, 3);
        }
        let mut by_steps = cpu_with(PATT.semantics, &words);
        for _ in 0..60 {
            by_steps.step();
        }
        assert!(
            cpu.state() == by_steps.state(),
            "{op:04x} through {pointer:04x}"
        );
    }
}

/// A word of a random program around x3000: mostly instructions a block holds, with control
/// transfers, loads and stores that reach the code itself, and now and then anything at all.
fn program_word() -> impl Strategy<Value = u16> {
    let reg = || 0u16..8;
    prop_oneof![
        6 => (0u16..2, reg(), reg(), any::<u16>()).prop_map(|(and, dr, sr, low)| {
            let opcode = if and == 1 { 0x5000 } else { 0x1000 };
            opcode | dr << 9 | sr << 6 | (low & 0x3F)
        }),
        1 => (reg(), reg()).prop_map(|(dr, sr)| 0x903F | dr << 9 | sr << 6),
        // LD, ST, LDI, STI, LEA with an offset near the code.
        4 => (prop::sample::select(vec![0x2000u16, 0x3000, 0xA000, 0xB000, 0xE000]), reg(), -24i16..24)
            .prop_map(|(opcode, r, offset)| opcode | r << 9 | (offset as u16 & 0x1FF)),
        // LDR, STR off a register.
        3 => (0u16..2, reg(), reg(), -8i16..8).prop_map(|(store, r, base, offset)| {
            let opcode = if store == 1 { 0x7000 } else { 0x6000 };
            opcode | r << 9 | base << 6 | (offset as u16 & 0x3F)
        }),
        3 => (0u16..8, -12i16..12).prop_map(|(nzp, offset)| nzp << 9 | (offset as u16 & 0x1FF)),
        1 => (-12i16..12).prop_map(|offset| 0x4800 | (offset as u16 & 0x7FF)),
        1 => reg().prop_map(|base| 0xC000 | base << 6),
        1 => reg().prop_map(|base| 0x4000 | base << 6),
        1 => prop::sample::select(vec![0xF025u16, 0xF021, 0x8000, 0xD000]),
        1 => any::<u16>(),
    ]
}

#[derive(Debug, Clone)]
struct Case {
    profile: usize,
    user: bool,
    words: Vec<u16>,
    regs: Vec<u16>,
    breakpoints: Vec<u16>,
    watches: Vec<(u16, u8)>,
    chunks: Vec<u64>,
    /// Keys queued before the run: KBSR reads ready, and a store that sets KBSR's interrupt
    /// enable brings the keyboard interrupt.
    input: Vec<u8>,
}

fn case() -> impl Strategy<Value = Case> {
    case_from(
        prop::collection::vec(program_word(), 8..48),
        prop_oneof![3 => 0x3000u16..0x3040, 1 => any::<u16>()],
        prop::collection::vec(0x3000u16..0x3030, 0..3),
        prop::collection::vec((0x3000u16..0x3040, 0u8..3), 0..2),
        prop::collection::vec(1u64..300, 1..8),
        prop::collection::vec(any::<u8>(), 0..4),
    )
}

/// A case of any profile and privilege from its parts: the program, a register's value,
/// breakpoints, watches (address, kind), the run budgets and the keys.
fn case_from(
    words: impl Strategy<Value = Vec<u16>>,
    reg: impl Strategy<Value = u16>,
    breakpoints: impl Strategy<Value = Vec<u16>>,
    watches: impl Strategy<Value = Vec<(u16, u8)>>,
    chunks: impl Strategy<Value = Vec<u64>>,
    input: impl Strategy<Value = Vec<u8>>,
) -> impl Strategy<Value = Case> {
    (
        0usize..3,
        any::<bool>(),
        words,
        prop::collection::vec(reg, 8),
        breakpoints,
        watches,
        chunks,
        input,
    )
        .prop_map(
            |(profile, user, words, regs, breakpoints, watches, chunks, input)| Case {
                profile,
                user,
                words,
                regs,
                breakpoints,
                watches,
                chunks,
                input,
            },
        )
}

/// What a harness saw: every stop with the instruction count and PC at it, the registers,
/// the output, and the whole state (compared separately: its memory prints long).
#[derive(Debug, PartialEq, Eq)]
struct Trace {
    stops: Vec<(StopEvent, u64, u16)>,
    regs: [u16; 8],
    pc: u16,
    psr: u16,
    executed: u64,
    output: Vec<u8>,
}

const INSTRUCTIONS: u64 = 1500;

/// Runs `case` with budgets from `budget` until `INSTRUCTIONS` ran or the machine stopped for
/// good. Breakpoints are stepped over; a watch stop is resumed by the next run.
/// Plays `case` with budgets drawn from `budget`, or without one (`None`) one instruction at a
/// time the plain way: the breakpoint test, then `step`. (A budget of one is no reference: a
/// block of a single branch fits in it.)
fn play(case: &Case, mut budget: Option<&mut dyn FnMut() -> u64>) -> (Trace, CpuState) {
    let profiles = [&PATT, &LC3TOOLS, &LC3SIM];
    let semantics = profiles[case.profile].semantics;
    let mut cpu = cpu_with(semantics, &case.words);
    // Vectors and trap table point into the program, so faults and TRAPs come back to it.
    for vector in 0..0x200u16 {
        cpu.poke(vector, 0x3000 + vector % 0x30);
    }
    cpu.regs.copy_from_slice(&case.regs);
    if case.user {
        cpu.set_psr(PSR_USER | 0x0002);
        cpu.saved_ssp = 0x2F00;
    }
    cpu.console.push_input(&case.input);
    for &addr in &case.breakpoints {
        cpu.breakpoints.insert(addr.into());
    }
    for &(addr, kind) in &case.watches {
        let kind = [WatchKind::Write, WatchKind::Read, WatchKind::Access][kind as usize];
        cpu.watchpoints.insert(addr.into(), 1, kind);
    }
    let mut stops = Vec::new();
    let mut rounds = 0;
    while cpu.instructions_executed() < INSTRUCTIONS && rounds < 4 * INSTRUCTIONS {
        rounds += 1;
        let left = INSTRUCTIONS.saturating_sub(cpu.instructions_executed());
        let stop = match budget.as_mut() {
            Some(budget) => cpu.run(budget().min(left)).stop,
            None if cpu.breakpoints.contains(cpu.pc.into()) => Some(StopEvent::Breakpoint),
            None => cpu.step(),
        };
        let Some(stop) = stop else {
            continue;
        };
        stops.push((stop.clone(), cpu.instructions_executed(), cpu.pc));
        match stop {
            StopEvent::Breakpoint => {
                if let Some(stop) = cpu.step() {
                    stops.push((stop, cpu.instructions_executed(), cpu.pc));
                    break;
                }
            }
            StopEvent::Watch { .. } => {}
            _ => break,
        }
    }
    let trace = Trace {
        stops,
        regs: cpu.regs,
        pc: cpu.pc,
        psr: cpu.psr(),
        executed: cpu.instructions_executed(),
        output: cpu.console.output().to_vec(),
    };
    (trace, cpu.state())
}

/// Plays `case` in runs of its chunks and one instruction at a time: the stops, registers,
/// memory and the rest of the state must agree.
fn runs_agree_with_steps(case: &Case) -> Result<(), TestCaseError> {
    let mut chunk = case.chunks.iter().copied().cycle();
    let (in_blocks, state) = play(case, Some(&mut || chunk.next().unwrap_or(1)));
    let (one_by_one, expected) = play(case, None);
    prop_assert_eq!(in_blocks, one_by_one);
    let differ: Vec<(usize, u16, u16)> = (0..0x10000)
        .filter(|&a| state.mem[a] != expected.mem[a])
        .map(|a| (a, state.mem[a], expected.mem[a]))
        .take(8)
        .collect();
    prop_assert!(
        differ.is_empty(),
        "memory differs (address, blocks, one by one): {:x?}",
        differ
    );
    // Steps start the count of empty keyboard polls afresh, runs carry it on.
    prop_assert!(
        state.without_poll_count() == expected.without_poll_count(),
        "the states differ outside registers and memory"
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn blocks_end_where_single_instructions_end(case in case()) {
        runs_agree_with_steps(&case)?;
    }
}

#[test]
fn compiled_code_keeps_every_register_in_every_role() {
    // LOOP: ADD Ri, Ri, #0 for i = 0..8 (compiled code gives the registers its host registers
    // in the order they first appear, so base register b takes the b-th); LDR Rd, Rb, #1;
    // STR Rd, Rb, #-1; ADD Rc, Rc, #-1; BRp LOOP. Run a round per call: compiled after a few.
    for b in 0..8u16 {
        let (d, c) = ((b + 1) % 8, (b + 2) % 8);
        let mut words: Vec<u16> = (0..8).map(|i| 0x1020 | i << 9 | i << 6).collect();
        words.extend([
            0x6001 | d << 9 | b << 6, // LDR Rd, Rb, #1
            0x703F | d << 9 | b << 6, // STR Rd, Rb, #-1
            0x103F | c << 9 | c << 6, // ADD Rc, Rc, #-1
            0x03F3,                   // BRp LOOP
            NOP,
            NOP,
            NOP,
            0x1234, // x300F: the data LDR reads
        ]);
        let setup = |cpu: &mut Cpu| {
            cpu.regs[b as usize] = 0x300E;
            cpu.regs[c as usize] = 30;
        };
        let mut cpu = cpu_with(PATT.semantics, &words);
        setup(&mut cpu);
        let mut by_steps = cpu.clone();
        for _ in 0..30 {
            assert_eq!(cpu.run(12).executed, 12);
        }
        for _ in 0..30 * 12 {
            by_steps.step();
        }
        assert_eq!(cpu.regs[d as usize], 0x1234, "base R{b}");
        assert_eq!(cpu.mem()[0x300D], 0x1234, "base R{b}");
        assert!(cpu.state() == by_steps.state(), "base R{b}");
    }
}

#[test]
fn compiled_control_transfers_go_where_single_instructions_go() {
    // x3000: LEA R7, x3000, then fifteen ADD R1, R1, #-3 (a block long enough to compile
    // whatever it ends in; R1 from 90 goes through positive, zero and negative values at the
    // block's end), then the transfer at x3010; x3011 ADD R3, R3, #1 (counts the ways through
    // it); x3012 BRnzp x3000.
    let mut tails: Vec<(u16, &str)> = (1..8u16).map(|nzp| (nzp << 9 | 1, "BR to x3012")).collect();
    tails.extend([
        (
            0x4800 | (0x3000u16.wrapping_sub(0x3011) & 0x7FF),
            "JSR x3000",
        ),
        (0x41C0, "JSRR R7"),
        (0x4080, "JSRR R2"),
        (0xC080, "JMP R2"),
    ]);
    for (tail, name) in tails {
        let mut words = vec![0xEFFF];
        words.extend([0x127D; 15]);
        words.extend([tail, 0x16E1, 0x0FED]);
        let mut cpu = cpu_with(PATT.semantics, &words);
        cpu.regs[1] = 90;
        cpu.regs[2] = 0x3000;
        let mut by_steps = cpu.clone();
        for _ in 0..20 {
            assert_eq!(cpu.run(1000).executed, 1000);
        }
        for _ in 0..20 * 1000 {
            by_steps.step();
        }
        assert!(cpu.state() == by_steps.state(), "{name} ({tail:04x})");
    }
}

/// A program that is one loop at x3000: a body of the instructions compiled code holds
/// (src/cpu/jit.rs) over all eight registers (so that every host register it keeps them in is
/// taken), a control transfer (BR back to the start on a random condition, JSR back, JMP or
/// JSRR through a register, or BR on past the loop), then `BRnzp x3000` (so the loop is
/// entered again and again, and compiles), then 32 words of data (pointers for LDI and STI
/// among them, and any word at all). One PC-relative access in eight and the registers based
/// accesses that stray reach the code.
fn loop_words() -> impl Strategy<Value = Vec<u16>> {
    let data = prop_oneof![
        2 => 0x3000u16..0x3040,
        1 => prop::sample::select(vec![DSR, DDR, MCR, 0x0000, 0x2FFF, 0xFDFF]),
        2 => any::<u16>(),
    ];
    (
        prop::collection::vec((0u8..10, 0u16..8, 0u16..8, any::<u16>()), 1..24),
        0u16..6,
        1u16..8,
        0u16..8,
        prop::collection::vec(data, 32),
    )
        .prop_map(|(body, tail, nzp, base, data)| {
            let n = body.len() as u16;
            let data_at = 0x3000 + n + 2;
            let mut words: Vec<u16> = body
                .iter()
                .enumerate()
                .map(|(k, &(kind, r, s, value))| {
                    let pc = 0x3000 + k as u16 + 1;
                    match kind {
                        0..=3 => {
                            let opcode = if kind % 2 == 1 { 0x5000 } else { 0x1000 };
                            opcode | r << 9 | s << 6 | (value & 0x3F)
                        }
                        4 => 0x903F | r << 9 | s << 6,
                        5 | 6 => {
                            let opcode =
                                [0x2000u16, 0x3000, 0xA000, 0xB000, 0xE000][usize::from(value % 5)];
                            let target = if value % 8 == 0 {
                                0x3000 + (value >> 3) % (n + 2)
                            } else {
                                data_at + (value >> 3) % 32
                            };
                            opcode | r << 9 | (target.wrapping_sub(pc) & 0x1FF)
                        }
                        _ => {
                            let opcode = if value % 2 == 1 { 0x7000 } else { 0x6000 };
                            opcode | r << 9 | s << 6 | (value >> 1 & 0x3F)
                        }
                    }
                })
                .collect();
            // PC-relative offsets from the instruction after the tail.
            let back = 0u16.wrapping_sub(n + 1);
            words.push(match tail {
                0 | 1 => nzp << 9 | (back & 0x1FF),
                2 => 0x4800 | (back & 0x7FF),
                3 => 0xC000 | base << 6,
                4 => 0x4000 | base << 6,
                _ => nzp << 9 | 1,
            });
            words.push(0x0E00 | (back.wrapping_sub(1) & 0x1FF));
            words.extend(data);
            words
        })
}

fn loop_case() -> impl Strategy<Value = Case> {
    case_from(
        loop_words(),
        prop_oneof![1 => Just(0x3000u16), 4 => 0x3018u16..0x3048, 1 => any::<u16>()],
        prop::collection::vec(0x3000u16..0x3020, 0..2),
        prop::collection::vec((0x3000u16..0x3040, 0u8..3), 0..3),
        prop::collection::vec(1u64..60, 1..8),
        Just(Vec::new()),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Loops entered often enough to compile, against the same instructions one at a time.
    #[test]
    fn compiled_loops_end_where_single_instructions_end(case in loop_case()) {
        runs_agree_with_steps(&case)?;
    }
}

#[test]
fn the_device_page_is_never_part_of_a_block() {
    // Code right below the device page: the block ends there, and running on into the
    // device registers goes the ordinary way (they read as 0x0000 here: a no-op BR, except
    // KBSR/KBDR, which wait for a key).
    let mut cpu = Cpu::new(PATT.semantics);
    for addr in DEVICE_BASE - 4..DEVICE_BASE {
        cpu.mem_mut()[addr as usize] = ADD_R2_1;
    }
    cpu.reset_state(DEVICE_BASE - 4, 0x0002, 0x3000);
    let outcome = cpu.run(4);
    assert_eq!((outcome.executed, outcome.stop), (4, None));
    assert_eq!((cpu.pc, cpu.regs[2]), (DEVICE_BASE, 4));
}

#[test]
fn a_loop_of_one_block_stops_exactly_at_the_budget() {
    // LOOP: ADD R2, R2, #1; ADD R3, R3, #-1; BRp LOOP; then a NOP: one block branching to its
    // own start, run again and again inside one chain.
    let words = [ADD_R2_1, 0x16FF, 0x03FD, NOP];
    for budget in 1..40 {
        let mut cpu = cpu_with(PATT.semantics, &words);
        cpu.regs[3] = 10;
        let mut one_by_one = cpu.clone();
        assert_eq!(cpu.run(budget).executed, budget, "budget {budget}");
        for _ in 0..budget {
            one_by_one.step();
        }
        assert_eq!(cpu.state(), one_by_one.state(), "budget {budget}");
    }
}

#[test]
fn entering_long_straight_code_at_many_addresses_keeps_running_right() {
    // Each entry decodes a block of up to 128 instructions; ten thousand entries decode more
    // ops than the cache keeps, so it starts afresh along the way.
    let mut cpu = Cpu::new(PATT.semantics);
    for addr in 0x3000..0xB000 {
        cpu.mem_mut()[addr] = ADD_R2_1;
    }
    cpu.reset_state(0x3000, 0x0002, 0x3000);
    for (turn, start) in (0x3000u16..0xAFF0).step_by(3).enumerate() {
        cpu.set_pc(start);
        assert_eq!(cpu.run(5).executed, 5);
        assert_eq!(cpu.regs[2] as usize, 5 * (turn + 1) % 0x10000);
        assert_eq!(cpu.pc, start + 5);
    }
}

#[test]
fn a_user_fetch_from_system_space_pushes_the_address_it_fetched_from() {
    // x3000 BRz x2FFF in user mode (lc3tools: access control and exceptions). The fetch at
    // x2FFF raises the access violation; lc3tools pushes the faulting instruction's own
    // address. `run` once pushed x2FFE (it took the PC as already past the word), which the
    // stepped reference above found.
    let words = [0x05FE];
    for by_run in [false, true] {
        let mut cpu = cpu_with(LC3TOOLS.semantics, &words);
        cpu.poke(0x0102, 0x3000); // the access-violation vector
        cpu.set_psr(PSR_USER | 0x0002);
        cpu.saved_ssp = 0x2F00;
        if by_run {
            assert_eq!(cpu.run(2).executed, 2);
        } else {
            cpu.step();
            cpu.step();
        }
        assert_eq!(cpu.pc, 0x3000, "run: {by_run}");
        assert_eq!(cpu.regs[6], 0x2EFE, "run: {by_run}");
        assert_eq!(cpu.mem()[0x2EFE], 0x2FFF, "the pushed PC; run: {by_run}");
    }
}
