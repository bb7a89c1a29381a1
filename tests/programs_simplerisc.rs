//! programs/simplerisc/tictactoe.asm, the RISC-Tac-Toe state verifier of the course assignment:
//! board of 36 words at byte address 1000, result word at 1144 (-1 illegal, 0 draw, 1 / 2 the
//! winner).
//!
//! - every hand-made board of tests/programs/simplerisc/boards.txt through the built binary
//!   (`asmdbg run ... --no-mul --poke 1000=... --peek 1144`), exactly as an autograder runs it;
//! - the same boards through the library, with watchpoints proving that the board is never
//!   written and the result is written exactly once;
//! - 10,000 pseudo-random boards through the library (one machine, reset between boards),
//!   compared with an independent checker written here from the spec's rules.

use std::path::{Path, PathBuf};

use asmdbg_core::{Machine, MachineOptions, StopEvent, WatchKind};
use asmdbg_simplerisc::SrMachine;

const BOARD: u64 = 1000;
const RESULT: u64 = 1144;
/// Far more than the verifier needs for any board (about 25,000 instructions at most).
const STEP_LIMIT: u64 = 2_000_000;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn program_path() -> PathBuf {
    root().join("programs/simplerisc/tictactoe.asm")
}

struct Case {
    name: String,
    expected: i32,
    cells: Vec<i64>,
}

/// Reads boards.txt: `board NAME => EXPECTED` followed by 6 rows of 6 integers.
fn hand_made_boards() -> Vec<Case> {
    let path = root().join("tests/programs/simplerisc/boards.txt");
    let text = std::fs::read_to_string(&path).expect("boards.txt");
    let mut cases = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((n, line)) = lines.next() {
        let Some(header) = line.strip_prefix("board ") else {
            assert!(
                line.trim().is_empty() || line.starts_with('#'),
                "boards.txt:{}: unexpected line {line:?}",
                n + 1
            );
            continue;
        };
        let (name, expected) = header
            .split_once(" => ")
            .unwrap_or_else(|| panic!("boards.txt:{}: expected 'board NAME => N'", n + 1));
        let mut cells = Vec::new();
        for _ in 0..6 {
            let (_, row) = lines.next().expect("six rows per board");
            cells.extend(
                row.split_whitespace()
                    .map(|v| v.parse::<i64>().expect("a number")),
            );
        }
        assert_eq!(cells.len(), 36, "board {name}: 36 cells");
        cases.push(Case {
            name: name.trim().to_string(),
            expected: expected.trim().parse().expect("expected result"),
            cells,
        });
    }
    cases
}

/// The spec's rules, independently of the assembly program.
fn reference(cells: &[i64]) -> i32 {
    if cells.iter().any(|v| !(0..=2).contains(v)) {
        return -1;
    }
    let ones = cells.iter().filter(|&&v| v == 1).count() as i64;
    let twos = cells.iter().filter(|&&v| v == 2).count() as i64;
    if ones - twos != 0 && ones - twos != 1 {
        return -1;
    }
    let at = |r: i64, c: i64| -> Option<i64> {
        ((0..6).contains(&r) && (0..6).contains(&c)).then(|| cells[(6 * r + c) as usize])
    };
    // Longest run of `p` in any of the four directions.
    let longest = |p: i64| -> usize {
        let mut best = 0;
        for (dr, dc) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
            for r in 0..6 {
                for c in 0..6 {
                    // Only start where the run starts.
                    if at(r, c) != Some(p) || at(r - dr, c - dc) == Some(p) {
                        continue;
                    }
                    let mut len = 0;
                    while at(r + len as i64 * dr, c + len as i64 * dc) == Some(p) {
                        len += 1;
                    }
                    best = best.max(len);
                }
            }
        }
        best
    };
    match (longest(1) >= 3, longest(2) >= 3) {
        (true, true) => -1,
        (true, false) => 1,
        (false, true) => 2,
        (false, false) => 0,
    }
}

fn load() -> SrMachine {
    let path = program_path();
    let text = std::fs::read_to_string(&path).expect("tictactoe.asm");
    let opts = MachineOptions {
        no_mul: true,
        ..Default::default()
    };
    asmdbg_simplerisc::load_machine(&path.display().to_string(), &text, &opts)
        .unwrap_or_else(|e| panic!("tictactoe.asm must assemble with --no-mul:\n{e}"))
}

/// Pokes the board, runs to the end, returns the result word (sign-extended).
fn verify(machine: &mut SrMachine, cells: &[i64]) -> i32 {
    machine.reset();
    for (i, &v) in cells.iter().enumerate() {
        machine
            .poke_word(BOARD + 4 * i as u64, v as u32)
            .expect("poke");
    }
    // A value the program never writes, so a missing store shows.
    machine.poke_word(RESULT, 0x5555_5555).expect("poke");
    let mut executed = 0;
    loop {
        let outcome = machine.run(STEP_LIMIT - executed);
        executed += outcome.executed;
        match outcome.stop {
            Some(StopEvent::Halted) => break,
            None if executed < STEP_LIMIT => continue,
            other => panic!("board {cells:?}: unexpected stop {other:?} after {executed} steps"),
        }
    }
    machine.peek_word(RESULT).expect("peek") as i32
}

#[test]
fn hand_made_boards_agree_with_the_reference_rules() {
    // The expectations in boards.txt were written by hand; check them against the rules too, so
    // a typo in a board cannot hide behind a matching program bug.
    let cases = hand_made_boards();
    assert!(
        cases.len() >= 40,
        "at least 40 hand-made boards, found {}",
        cases.len()
    );
    for case in &cases {
        assert_eq!(reference(&case.cells), case.expected, "board {}", case.name);
    }
    // Every result and every direction is represented.
    for want in [-1, 0, 1, 2] {
        assert!(
            cases.iter().any(|c| c.expected == want),
            "no board with result {want}"
        );
    }
    for word in [
        "horizontal",
        "vertical",
        "main-diagonal",
        "anti-diagonal",
        "both-win",
        "value",
    ] {
        assert!(
            cases.iter().any(|c| c.name.contains(word)),
            "no board about {word}"
        );
    }
}

#[test]
fn hand_made_boards_through_the_binary() {
    let bin = env!("CARGO_BIN_EXE_asmdbg");
    let prog = program_path();
    let mut failures = Vec::new();
    for case in hand_made_boards() {
        let values: Vec<String> = case.cells.iter().map(|v| v.to_string()).collect();
        let out = asmdbg_testsupport::binary::asmdbg_command(bin)
            .arg("run")
            .arg(&prog)
            .arg("--no-mul")
            .arg(format!("--poke={}={}", BOARD, values.join(",")))
            .arg(format!("--peek={RESULT}"))
            .arg(format!("--peek={BOARD}:36"))
            .output()
            .expect("run asmdbg");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        // The result, then the board read back unchanged (peeks print signed decimal words).
        let mut want = format!("{}\n", case.expected);
        for v in &case.cells {
            want.push_str(&format!("{}\n", *v as i32));
        }
        if !out.status.success() || stdout != want {
            failures.push(format!(
                "board {}: status {:?}, stdout {:?} (want {:?}), stderr {}",
                case.name,
                out.status.code(),
                stdout,
                want,
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn hand_made_boards_write_only_the_result_and_only_once() {
    let mut machine = load();
    for case in hand_made_boards() {
        machine.reset();
        machine.watchpoints().clear();
        assert!(machine
            .watchpoints()
            .insert(BOARD, 36 * 4, WatchKind::Write));
        assert!(machine.watchpoints().insert(RESULT, 4, WatchKind::Write));
        for (i, &v) in case.cells.iter().enumerate() {
            machine.poke_word(BOARD + 4 * i as u64, v as u32).unwrap();
        }
        let mut result_writes = 0;
        let mut executed = 0;
        loop {
            let outcome = machine.run(STEP_LIMIT);
            executed += outcome.executed;
            match outcome.stop {
                Some(StopEvent::Halted) => break,
                Some(StopEvent::Watch { addr, .. }) if addr == RESULT => result_writes += 1,
                Some(StopEvent::Watch { addr, .. }) => {
                    panic!(
                        "board {}: the program writes the input at {addr}",
                        case.name
                    )
                }
                None if executed < STEP_LIMIT => {}
                other => panic!("board {}: unexpected stop {other:?}", case.name),
            }
        }
        assert_eq!(
            result_writes, 1,
            "board {}: writes of the result",
            case.name
        );
        assert_eq!(
            machine.peek_word(RESULT).unwrap() as i32,
            case.expected,
            "board {}",
            case.name
        );
    }
}

/// xorshift64*: a tiny deterministic generator (no dev-dependency needed).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random board of one of several shapes, so that every result occurs often: uniform cells
/// (mostly illegal counts), a random game of alternating moves (legal counts, any winner), a
/// short game (few marks: many draws and single wins), a game with one count nudged off by one,
/// and a game with one out-of-range value.
fn random_board(rng: &mut Rng) -> Vec<i64> {
    let shape = rng.below(10);
    if shape == 0 {
        return (0..36).map(|_| rng.below(3) as i64).collect();
    }
    let moves = match shape {
        1..=4 => rng.below(37),
        _ => 5 + rng.below(10),
    } as usize;
    let mut order: Vec<usize> = (0..36).collect();
    for i in (1..36).rev() {
        order.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let mut cells = vec![0i64; 36];
    for (k, &cell) in order.iter().take(moves).enumerate() {
        cells[cell] = if k % 2 == 0 { 1 } else { 2 };
    }
    match shape {
        8 => {
            let i = rng.below(36) as usize;
            cells[i] = [0, 1, 2][rng.below(3) as usize];
        }
        9 => {
            let i = rng.below(36) as usize;
            cells[i] = [3, -1, 7, 1 << 20, -(1 << 31)][rng.below(5) as usize];
        }
        _ => {}
    }
    cells
}

#[test]
fn ten_thousand_random_boards_match_an_independent_checker() {
    let mut machine = load();
    let mut rng = Rng(0x5eed_7ac7_0e00_0001);
    let mut seen = std::collections::BTreeMap::new();
    for n in 0..10_000 {
        let cells = random_board(&mut rng);
        let want = reference(&cells);
        let got = verify(&mut machine, &cells);
        assert_eq!(got, want, "random board #{n}: {cells:?}");
        *seen.entry(want).or_insert(0) += 1;
    }
    // The generator must exercise every outcome a fair amount.
    for want in [-1, 0, 1, 2] {
        let count = seen.get(&want).copied().unwrap_or(0);
        assert!(
            count >= 400,
            "only {count} random boards with result {want}: {seen:?}"
        );
    }
}

#[test]
fn the_program_needs_no_multiply_instruction() {
    // Assembling with --no-mul rejects mul/div/mod; the source must also say it multiplies in
    // software.
    let _ = load();
    let text = std::fs::read_to_string(program_path()).unwrap();
    assert!(
        text.contains("\nmultiply:"),
        "the software multiply subroutine"
    );
    assert!(Path::new(&program_path()).exists());
}
