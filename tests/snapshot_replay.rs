//! Snapshot and replay, for the three machines: a run with scripted input is recorded, a
//! snapshot is taken at a random instruction count, the run goes on to its end; then the
//! snapshot is restored and the recorded input log replayed. The replay must end in exactly the
//! same state with exactly the same console output.
//!
//! - a game per ISA (programs/lc3/dots.asm, programs/mips/four_in_a_row.asm,
//!   programs/simplerisc/tictactoe.asm) with its scripted input, at random points;
//! - proptests at random points of random programs: LC-3 and SimpleRISC random instruction
//!   words, MIPS random sequences of syscalls that read the clock (30), use unseeded and seeded
//!   random streams (40-42), read the console, sleep, and write and read a file in a temp dir;
//! - a MIPS program whose replay without the log (live host) ends differently, so the log is
//!   what makes the replay exact.
//!
//! The random points come from a fixed seed; `SNAPSHOT_SEED=n` picks others.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};

use asmdbg_core::history::History;
use asmdbg_core::host::Replayable;
use asmdbg_core::{InputLog, Journal, Machine, MachineOptions, Snapshot, StopEvent};
use proptest::prelude::*;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// splitmix64: the random points of the game tests, reproducible from one seed.
struct Points(u64);

impl Points {
    fn new() -> Self {
        let seed = std::env::var("SNAPSHOT_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0x5eed_2026);
        Points(seed)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
enum End {
    Stop(StopEvent),
    /// The instruction limit of the test was reached.
    Limit,
}

/// The recorded run: the snapshot, the log from it on, and how the run went after it.
struct Recorded<S> {
    snapshot: S,
    /// The run ended before reaching the snapshot's count: the snapshot is its end, and a
    /// replay has nothing to run (a halted machine may be run again, but that is a new run).
    snapshot_at_end: bool,
    log: InputLog,
    output_after: Vec<u8>,
    end: End,
    final_state: S,
    final_count: u64,
}

/// Budgets of `run` calls: random sizes, so record and replay cut the run differently.
fn slice(points: &mut Points) -> u64 {
    match points.below(4) {
        0 => 1 + points.below(8),
        1 => 1 + points.below(500),
        _ => 1 + points.below(100_000),
    }
}

/// Runs `machine` live and recording, feeding `script` a chunk at a time when it waits for
/// input (and now and then before it asks), snapshotting at instruction count `at`.
fn record<M: Machine + Snapshot + Replayable>(
    machine: &mut M,
    mut script: VecDeque<Vec<u8>>,
    at: u64,
    limit: u64,
    points: &mut Points,
) -> Recorded<M::State> {
    *machine.journal_mut() = Journal::recording();
    let mut taken: Option<(M::State, usize)> = None;
    let mut output_after = Vec::new();
    let end = loop {
        let now = machine.instructions_executed();
        if taken.is_none() && now >= at {
            machine.console().take_output();
            let entries = machine.journal_mut().log().len();
            taken = Some((machine.snapshot(), entries));
        }
        if now >= limit {
            break End::Limit;
        }
        if points.below(16) == 0 {
            if let Some(chunk) = script.pop_front() {
                machine.queue_input(&chunk);
            }
        }
        let mut budget = slice(points).min(limit - now);
        if taken.is_none() {
            budget = budget.min(at - now);
        }
        let outcome = machine.run(budget);
        let output = machine.console().take_output();
        if taken.is_some() {
            output_after.extend(output);
        }
        match outcome.stop {
            None => wait_for_wake(machine),
            Some(StopEvent::NeedInput) => match script.pop_front() {
                Some(chunk) => machine.queue_input(&chunk),
                None if !machine.console().input_closed() => machine.end_input(),
                None => break End::Stop(StopEvent::NeedInput),
            },
            Some(stop) => break End::Stop(stop),
        }
    };
    let snapshot_at_end = taken.is_none();
    let (snapshot, entries) = match taken {
        Some(taken) => taken,
        None => (machine.snapshot(), machine.journal_mut().log().len()),
    };
    let log = InputLog {
        entries: machine.journal_mut().log().entries[entries..].to_vec(),
    };
    Recorded {
        snapshot,
        snapshot_at_end,
        log,
        output_after,
        end,
        final_state: machine.snapshot(),
        final_count: machine.instructions_executed(),
    }
}

/// Time travel on a run: records it with a [`History`] (checkpoints every few slices, input
/// queued as `record` queues it), keeping the state at every slice end; then seeks to those
/// counts in random order, each time comparing with the state kept going forward.
fn check_history<M: Machine + Snapshot + Replayable>(
    machine: &mut M,
    mut script: VecDeque<Vec<u8>>,
    limit: u64,
    points: &mut Points,
) -> Result<(), String> {
    let mut history = History::start(machine, 1 << 30);
    let mut kept = vec![(machine.instructions_executed(), machine.snapshot())];
    // Counts where one run has two states: where input came (the guest seen before or after
    // it asked: a flag of the console) and where the run stopped without running an
    // instruction (a MIPS fault sets cause and EPC at the same count).
    let mut input_at = std::collections::HashSet::new();
    loop {
        let now = machine.instructions_executed();
        if now >= limit {
            break;
        }
        if points.below(16) == 0 {
            if let Some(chunk) = script.pop_front() {
                machine.queue_input(&chunk);
                input_at.insert(now);
            }
        }
        let outcome = machine.run(slice(points).min(limit - now));
        machine.console().take_output();
        history.note_progress(machine, points.below(4) == 0);
        // States where the run only ran out of budget: a stop for input leaves a state (the
        // guest waiting, input queued at that count) that a seek, which reaches a count
        // before anything else happens there, does not reproduce.
        if outcome.stop.is_none() {
            kept.push((machine.instructions_executed(), machine.snapshot()));
        }
        match outcome.stop {
            None => wait_for_wake(machine),
            Some(StopEvent::NeedInput) => {
                input_at.insert(machine.instructions_executed());
                match script.pop_front() {
                    Some(chunk) => machine.queue_input(&chunk),
                    None if !machine.console().input_closed() => machine.end_input(),
                    None => break,
                }
            }
            Some(_) => {
                input_at.insert(machine.instructions_executed());
                break;
            }
        }
    }
    kept.retain(|(count, _)| !input_at.contains(count));
    for _ in 0..kept.len().min(12) {
        let (count, state) = &kept[points.below(kept.len() as u64) as usize];
        if !history.seek(machine, *count) {
            return Err(format!("seek to {count} refused"));
        }
        if machine.instructions_executed() != *count {
            return Err(format!(
                "seek to {count} reached {}",
                machine.instructions_executed()
            ));
        }
        // A count reached twice (a stop that ran nothing, e.g. waiting for input) keeps the
        // later state; compare with the last kept at that count.
        let last = kept.iter().rev().find(|(c, _)| c == count).map(|(_, s)| s);
        if machine.snapshot() != *state && Some(&machine.snapshot()) != last {
            let (a, b) = (format!("{:?}", machine.snapshot()), format!("{state:?}"));
            let at = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
            return Err(format!(
                "the state at {count} differs from the one recorded: {} ... vs {} ...",
                &a[at.saturating_sub(60)..(at + 60).min(a.len())],
                &b[at.saturating_sub(60)..(at + 60).min(b.len())]
            ));
        }
    }
    Ok(())
}

/// A real-time sleep of the guest (MIPS 32): wait for it, as `asmdbg run` does.
fn wait_for_wake<M: Machine>(machine: &M) {
    if let Some(wake) = machine.wake_time() {
        std::thread::sleep(wake.saturating_duration_since(std::time::Instant::now()));
    }
}

/// Restores the snapshot and replays the log with `journal` to the recorded run's end.
/// Returns the output, how it ended, the final state.
fn replay<M: Machine + Snapshot + Replayable>(
    machine: &mut M,
    recorded: &Recorded<M::State>,
    journal: Journal,
    limit: u64,
    points: &mut Points,
) -> (Vec<u8>, End, M::State) {
    machine.restore(&recorded.snapshot);
    *machine.journal_mut() = journal;
    let mut output = Vec::new();
    // A replay that diverges may wait for input forever: bound the calls.
    let mut calls = 0u64;
    let end = loop {
        if recorded.snapshot_at_end {
            break recorded.end.clone();
        }
        let now = machine.instructions_executed();
        if now >= limit {
            break End::Limit;
        }
        calls += 1;
        if calls > 10_000_000 {
            break End::Limit;
        }
        let outcome = machine.run(slice(points).min(limit - now));
        output.extend(machine.console().take_output());
        match outcome.stop {
            None => wait_for_wake(machine),
            Some(stop) => break End::Stop(stop),
        }
    };
    (output, end, machine.snapshot())
}

/// Records with a snapshot at `at`, replays, and checks that the replay matches.
fn check_replay<M: Machine + Snapshot + Replayable>(
    machine: &mut M,
    script: VecDeque<Vec<u8>>,
    at: u64,
    limit: u64,
    points: &mut Points,
) -> Result<(), String> {
    let recorded = record(machine, script, at, limit, points);
    let log = recorded.log.clone();
    let (output, end, state) = replay(machine, &recorded, Journal::replaying(log), limit, points);
    if output != recorded.output_after {
        return Err(format!(
            "snapshot at {at}: the replay printed {:?}, the run {:?}",
            String::from_utf8_lossy(&output),
            String::from_utf8_lossy(&recorded.output_after)
        ));
    }
    if end != recorded.end {
        return Err(format!(
            "snapshot at {at}: the replay ended {end:?}, the run {:?}",
            recorded.end
        ));
    }
    if machine.instructions_executed() != recorded.final_count {
        return Err(format!(
            "snapshot at {at}: the replay ended at {} instructions, the run at {}",
            machine.instructions_executed(),
            recorded.final_count
        ));
    }
    if state != recorded.final_state {
        return Err(format!("snapshot at {at}: the final states differ"));
    }
    Ok(())
}

/// How many instructions a run with all of `script` takes (to pick points inside it).
fn length<M: Machine>(machine: &mut M, script: &VecDeque<Vec<u8>>, limit: u64) -> u64 {
    for chunk in script {
        machine.queue_input(chunk);
    }
    machine.end_input();
    while machine.instructions_executed() < limit {
        let outcome = machine.run(1 << 20);
        machine.console().take_output();
        if outcome.stop.is_some() {
            break;
        }
        wait_for_wake(machine);
    }
    machine.instructions_executed()
}

fn lines(bytes: &[u8]) -> VecDeque<Vec<u8>> {
    bytes
        .split_inclusive(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect()
}

fn chunks(bytes: &[u8], points: &mut Points) -> VecDeque<Vec<u8>> {
    let mut rest = bytes;
    let mut out = VecDeque::new();
    while !rest.is_empty() {
        let n = (1 + points.below(3) as usize).min(rest.len());
        out.push_back(rest[..n].to_vec());
        rest = &rest[n..];
    }
    out
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

const GAME_LIMIT: u64 = 50_000_000;

#[test]
fn lc3_dots_replays_from_random_points() {
    let source = read(&root().join("programs/lc3/dots.asm"));
    let input = read(&root().join("tests/programs/lc3/dots-game.in"));
    let load = || {
        asmdbg_lc3::load_machine("dots.asm", &source, &MachineOptions::default())
            .unwrap_or_else(|e| panic!("{e}"))
    };
    let mut points = Points::new();
    let script = chunks(&input, &mut points);
    let total = length(&mut load(), &script, GAME_LIMIT);
    assert!(total > 10_000, "the game runs ({total} instructions)");
    for _ in 0..3 {
        let at = points.below(total);
        let mut machine = load();
        check_replay(&mut machine, script.clone(), at, GAME_LIMIT, &mut points)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let mut machine = load();
    check_history(&mut machine, script, GAME_LIMIT, &mut points).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn mips_four_in_a_row_replays_from_random_points() {
    let source =
        String::from_utf8(read(&root().join("programs/mips/four_in_a_row.asm"))).expect("UTF-8");
    let input = read(&root().join("tests/programs/mips/01_horizontal_win.in"));
    let load = || {
        asmdbg_mips::load_machine("four_in_a_row.asm", &source, &MachineOptions::default())
            .unwrap_or_else(|e| panic!("{e}"))
    };
    let script = lines(&input);
    let total = length(&mut load(), &script, GAME_LIMIT);
    assert!(total > 10_000, "the game runs ({total} instructions)");
    let mut points = Points::new();
    for _ in 0..3 {
        let at = points.below(total);
        let mut machine = load();
        check_replay(&mut machine, script.clone(), at, GAME_LIMIT, &mut points)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let mut machine = load();
    check_history(&mut machine, script, GAME_LIMIT, &mut points).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn simplerisc_tictactoe_replays_from_random_points() {
    let source =
        String::from_utf8(read(&root().join("programs/simplerisc/tictactoe.asm"))).expect("UTF-8");
    let opts = MachineOptions {
        no_mul: true,
        ..Default::default()
    };
    // Player 1 has a row of three; the verifier answers 1 at byte address 1144.
    let board: [u32; 36] = [
        1, 1, 1, 0, 0, 0, //
        2, 2, 0, 0, 0, 0, //
        0, 0, 0, 0, 0, 0, //
        0, 0, 0, 0, 0, 0, //
        0, 0, 0, 0, 0, 0, //
        0, 0, 0, 0, 0, 0, //
    ];
    let load = || {
        let mut m = asmdbg_simplerisc::load_machine("tictactoe.asm", &source, &opts)
            .unwrap_or_else(|e| panic!("{e}"));
        for (i, &cell) in board.iter().enumerate() {
            m.poke_word(1000 + 4 * i as u64, cell).expect("board cell");
        }
        m
    };
    // The verifier reads no console; queued input is state all the same.
    let script = lines(b"unused\ninput\n");
    let total = length(&mut load(), &script, GAME_LIMIT);
    assert!(total > 100, "the verifier runs ({total} instructions)");
    let mut points = Points::new();
    for _ in 0..3 {
        let at = points.below(total);
        let mut machine = load();
        check_replay(&mut machine, script.clone(), at, GAME_LIMIT, &mut points)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(machine.peek_word(1144), Ok(1), "player 1 wins");
    }
}

/// A MIPS program using every syscall whose answer comes from the host.
const HOST_INPUTS: &str = r#"
.data
name: .asciiz "replay.txt"
buf: .space 16
.text
main:
    li $v0, 30          # time
    syscall
    move $s0, $a0
    li $a0, 7           # unseeded stream 7
    li $a1, 1000
    li $v0, 42
    syscall
    addu $s0, $s0, $a0
    la $a0, name        # read the file
    li $a1, 0
    li $v0, 13
    syscall
    move $s1, $v0
    move $a0, $s1
    la $a1, buf
    li $a2, 8
    li $v0, 14
    syscall
    move $a0, $s1
    li $v0, 16
    syscall
    la $a0, buf
    li $v0, 4
    syscall
    move $a0, $s0
    li $v0, 1
    syscall
    li $v0, 10
    syscall
"#;

#[test]
fn mips_replay_takes_time_seeds_and_files_from_the_log_and_without_it_differs() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("replay.txt"), b"recorded").expect("file");
    let opts = MachineOptions {
        work_dir: Some(dir.path().to_path_buf()),
        ..Default::default()
    };
    let mut machine = asmdbg_mips::load_machine("h.asm", HOST_INPUTS, &opts).expect("assembles");
    let mut points = Points::new();
    let recorded = record(&mut machine, VecDeque::new(), 0, 10_000, &mut points);
    assert_eq!(recorded.end, End::Stop(StopEvent::Exited(0)));
    assert!(
        recorded.output_after.starts_with(b"recorded"),
        "{:?}",
        String::from_utf8_lossy(&recorded.output_after)
    );
    assert_eq!(
        recorded.log.len(),
        4,
        "time, seed, open, read: {:?}",
        recorded.log
    );
    // The outside world changes: a replay must not look at it.
    std::fs::write(dir.path().join("replay.txt"), b"changed!").expect("file");
    std::thread::sleep(std::time::Duration::from_millis(5));

    let replayed = replay(
        &mut machine,
        &recorded,
        Journal::replaying(recorded.log.clone()),
        10_000,
        &mut points,
    );
    assert_eq!(replayed.0, recorded.output_after);
    assert!(
        replayed.2 == recorded.final_state,
        "the replay ends in the recorded state"
    );

    let live = replay(&mut machine, &recorded, Journal::off(), 10_000, &mut points);
    assert!(
        live.0.starts_with(b"changed!"),
        "the live host reads the file again"
    );
    assert!(
        live.2 != recorded.final_state,
        "without the log the run ends elsewhere"
    );
}

#[test]
fn mips_replay_writes_no_file_and_does_not_sleep() {
    let dir = tempfile::tempdir().expect("temp dir");
    let opts = MachineOptions {
        work_dir: Some(dir.path().to_path_buf()),
        ..Default::default()
    };
    let program = r#"
.data
name: .asciiz "out.txt"
text: .asciiz "written"
.text
    la $a0, name
    li $a1, 1
    li $v0, 13
    syscall
    move $s0, $v0
    move $a0, $s0
    la $a1, text
    li $a2, 7
    li $v0, 15
    syscall
    move $a0, $s0
    li $v0, 16
    syscall
    li $a0, 300
    li $v0, 32
    syscall
    li $v0, 10
    syscall
"#;
    let mut machine = asmdbg_mips::load_machine("w.asm", program, &opts).expect("assembles");
    let mut points = Points::new();
    let recorded = record(&mut machine, VecDeque::new(), 0, 10_000, &mut points);
    let file = dir.path().join("out.txt");
    assert_eq!(std::fs::read(&file).expect("written"), b"written");
    std::fs::remove_file(&file).expect("removed");
    let started = std::time::Instant::now();
    let replayed = replay(
        &mut machine,
        &recorded,
        Journal::replaying(recorded.log.clone()),
        10_000,
        &mut points,
    );
    assert!(replayed.2 == recorded.final_state);
    assert!(!file.exists(), "the replay wrote the file again");
    assert!(
        started.elapsed() < std::time::Duration::from_millis(250),
        "the replay slept"
    );
}

/// MIPS fragments for random programs: host inputs, console reads, output and arithmetic.
fn mips_fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("li $v0, 30\nsyscall\naddu $s0, $s0, $a0\n".to_string()),
        (0..4i32).prop_map(|id| format!("li $a0, {id}\nli $v0, 41\nsyscall\nxor $s0, $s0, $a0\n")),
        (0..4i32, 1..50i32).prop_map(|(id, bound)| format!(
            "li $a0, {id}\nli $a1, {bound}\nli $v0, 42\nsyscall\naddu $s0, $s0, $a0\n"
        )),
        (0..4i32, any::<i16>())
            .prop_map(|(id, seed)| format!("li $a0, {id}\nli $a1, {seed}\nli $v0, 40\nsyscall\n")),
        Just("li $v0, 5\nsyscall\naddu $s0, $s0, $v0\n".to_string()),
        Just("li $v0, 12\nsyscall\nxor $s0, $s0, $v0\n".to_string()),
        Just("move $a0, $s0\nli $v0, 1\nsyscall\nli $a0, 10\nli $v0, 11\nsyscall\n".to_string()),
        (1..3i32).prop_map(|ms| format!("li $a0, {ms}\nli $v0, 32\nsyscall\n")),
        Just(
            "la $a0, name\nli $a1, 9\nli $v0, 13\nsyscall\nmove $s1, $v0\nmove $a0, $s1\n\
             la $a1, buf\nli $a2, 4\nli $v0, 15\nsyscall\nmove $a0, $s1\nli $v0, 16\nsyscall\n"
                .to_string()
        ),
        Just(
            "la $a0, name\nli $a1, 0\nli $v0, 13\nsyscall\nmove $s1, $v0\nmove $a0, $s1\n\
             la $a1, buf\nli $a2, 6\nli $v0, 14\nsyscall\naddu $s0, $s0, $v0\nlw $t0, buf\n\
             xor $s0, $s0, $t0\nmove $a0, $s1\nli $v0, 16\nsyscall\n"
                .to_string()
        ),
        (any::<i16>()).prop_map(|k| format!("addiu $s0, $s0, {k}\nsw $s0, buf\nsll $s0, $s0, 3\n")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn mips_random_programs_replay_from_random_points(
        fragments in proptest::collection::vec(mips_fragment(), 1..14),
        input in proptest::collection::vec(-50i32..50, 0..6),
        seed in any::<u64>(),
    ) {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("data.bin"), b"0123456789").expect("file");
        let opts = MachineOptions {
            work_dir: Some(dir.path().to_path_buf()),
            ..Default::default()
        };
        let source = format!(
            ".data\nname: .asciiz \"data.bin\"\nbuf: .space 16\n.text\nmain:\n{}li $v0, 10\nsyscall\n",
            fragments.concat()
        );
        let script: VecDeque<Vec<u8>> =
            input.iter().map(|n| format!("{n}\n").into_bytes()).collect();
        let mut points = Points(seed);
        let mut machine = asmdbg_mips::load_machine("r.asm", &source, &opts)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let total = length(&mut machine, &script, 100_000);
        // A fresh file and machine for the recorded run.
        std::fs::write(dir.path().join("data.bin"), b"0123456789").expect("file");
        let mut machine = asmdbg_mips::load_machine("r.asm", &source, &opts)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let at = points.below(total + 1);
        check_replay(&mut machine, script.clone(), at, 100_000, &mut points)
            .map_err(TestCaseError::fail)?;
        std::fs::write(dir.path().join("data.bin"), b"0123456789").expect("file");
        let mut machine = asmdbg_mips::load_machine("r.asm", &source, &opts)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        check_history(&mut machine, script, 100_000, &mut points).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn lc3_random_programs_replay_from_random_points(
        words in proptest::collection::vec(
            prop_oneof![
                3 => any::<u16>(),
                1 => Just(0xF020u16), // GETC
                1 => Just(0xF023u16), // IN
                1 => Just(0xF021u16), // OUT
                1 => Just(0x0FF0u16 | 0x0E00), // BRnzp back
            ],
            1..60,
        ),
        input in proptest::collection::vec(any::<u8>(), 0..20),
        seed in any::<u64>(),
    ) {
        let mut source = String::from(".ORIG x3000\n");
        for w in &words {
            source.push_str(&format!(".FILL x{w:04X}\n"));
        }
        source.push_str("HALT\n.END\n");
        let load = || asmdbg_lc3::load_machine("r.asm", source.as_bytes(), &MachineOptions::default());
        let mut points = Points(seed);
        let script = chunks(&input, &mut points);
        let mut machine = load().map_err(|e| TestCaseError::fail(e.to_string()))?;
        let total = length(&mut machine, &script, 20_000);
        let mut machine = load().map_err(|e| TestCaseError::fail(e.to_string()))?;
        let at = points.below(total + 1);
        check_replay(&mut machine, script.clone(), at, 20_000, &mut points)
            .map_err(TestCaseError::fail)?;
        let mut machine = load().map_err(|e| TestCaseError::fail(e.to_string()))?;
        check_history(&mut machine, script, 20_000, &mut points).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn simplerisc_random_programs_replay_from_random_points(
        words in proptest::collection::vec(any::<u32>(), 1..60),
        input in proptest::collection::vec(any::<u8>(), 0..20),
        seed in any::<u64>(),
    ) {
        let program = asmdbg_simplerisc::Program::from_words(&words);
        let load = || asmdbg_simplerisc::SrMachine::new(program.clone(), &MachineOptions::default());
        let mut points = Points(seed);
        let script = chunks(&input, &mut points);
        let mut machine = load().map_err(|e| TestCaseError::fail(e.to_string()))?;
        let total = length(&mut machine, &script, 20_000);
        let mut machine = load().map_err(|e| TestCaseError::fail(e.to_string()))?;
        let at = points.below(total + 1);
        check_replay(&mut machine, script.clone(), at, 20_000, &mut points)
            .map_err(TestCaseError::fail)?;
        let mut machine = load().map_err(|e| TestCaseError::fail(e.to_string()))?;
        check_history(&mut machine, script, 20_000, &mut points).map_err(TestCaseError::fail)?;
    }
}
