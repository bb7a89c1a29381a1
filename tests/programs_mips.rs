//! programs/mips/four_in_a_row.asm played end to end by the built binary: every scripted game
//! `tests/programs/mips/NAME.in` (one input line per MARS read syscall) must print exactly
//! `NAME.out`, byte for byte. The transcripts were derived from the rules of the assignment
//! (../shared/specs/mips-four-in-a-row.md) by `four_in_a_row_model.py`, a second, independent
//! implementation of the game in Python, not by recording the program.
//!
//! Together the games cover: the centre rule for both players' first move (an off-centre drop and
//! a remove as first move), menu and yes/no questions asked again on other numbers, drops out of
//! range and into a full column, three violations allowed and the fourth losing, undo of a drop
//! and of a remove, the undo limit, block (the opponent skips a turn) and a second block, remove
//! once (a second remove, an empty or own cell), a remove that lets a piece fall into a win, a
//! win in each of the four directions, a draw on a full board, and a name longer than the 31
//! characters syscall 8 keeps.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn program() -> PathBuf {
    root().join("programs/mips/four_in_a_row.asm")
}

fn games() -> Vec<PathBuf> {
    let dir = root().join("tests/programs/mips");
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/programs/mips")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "in"))
        .collect();
    inputs.sort();
    inputs
}

/// First line where two transcripts differ, for a readable failure.
fn first_difference(got: &str, want: &str) -> String {
    for (n, (g, w)) in got.split_inclusive('\n').zip(want.split_inclusive('\n')).enumerate() {
        if g != w {
            return format!("line {}:\n  got:  {g:?}\n  want: {w:?}", n + 1);
        }
    }
    format!(
        "one is a prefix of the other ({} vs {} bytes); tail got {:?}",
        got.len(),
        want.len(),
        &got[got.len().saturating_sub(200)..]
    )
}

fn play(input: &Path) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_asmdbg"))
        .arg("run")
        .arg(program())
        .arg("--input")
        .arg(input)
        .arg("--max-steps")
        .arg("50000000")
        .output()
        .expect("run asmdbg");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn scripted_games_print_their_transcripts() {
    let inputs = games();
    assert!(inputs.len() >= 8, "the scripted games are missing");
    let mut failures = Vec::new();
    for input in &inputs {
        let want = std::fs::read_to_string(input.with_extension("out")).expect("transcript");
        let (status, got, stderr) = play(input);
        let name = input.file_name().unwrap().to_string_lossy();
        if status != Some(0) {
            failures.push(format!("{name}: exit status {status:?}, stderr: {stderr}"));
        } else if got != want {
            failures.push(format!("{name}: {}", first_difference(&got, &want)));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_rule_is_exercised_by_some_game() {
    let all: String = games()
        .iter()
        .map(|p| std::fs::read_to_string(p.with_extension("out")).unwrap())
        .collect();
    for text in [
        "First move: drop a piece in the centre column (4).",
        "Your first move must be in the centre column. Violation!",
        "Your first move must be a drop in the centre column. Violation!",
        "Column out of range. Violation!",
        "Column is full. Violation!",
        "You have already used your remove. Violation!",
        "That cell does not hold a piece of your opponent. Violation!",
        "You have no undos left. Violation!",
        "You have already used your block. Violation!",
        "/3\n",
        "has violated the rules more than 3 times.",
        "Move undone.",
        "is blocked and skips this turn.",
        "The board is full: it's a draw!",
        "(X) wins!",
        "(O) wins!",
    ] {
        assert!(all.contains(text), "no scripted game shows {text:?}");
    }
}

#[test]
fn a_game_that_runs_out_of_input_stops_with_status_3() {
    // Only the names and the first move: the program then waits for input that never comes.
    let dir = std::env::temp_dir().join(format!("asmdbg-four-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("short.in");
    std::fs::write(&input, "Ann\nBen\n1\n4\n0\n").unwrap();
    let (status, got, _) = play(&input);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(status, Some(3), "exit status when input runs out");
    assert!(got.ends_with("Ben (O) to move - violations: 0/3, undos left: 3, removes left: 1, blocks left: 1\nFirst move: drop a piece in the centre column (4).\n1 = drop a piece, 2 = remove an opponent's piece: "), "{got}");
}

#[test]
fn the_source_keeps_to_the_assignment() {
    let text = std::fs::read_to_string(program()).unwrap();
    // check_win and its four parts, as the report describes them.
    for label in [
        "check_win:",
        "check_horizontal:",
        "check_vertical:",
        "check_right_diagonal:",
        "check_left_diagonal:",
        "board:",
        "turn:",
    ] {
        assert!(text.lines().any(|l| l.starts_with(label)), "label {label} missing");
    }
    // Console syscalls only: the service number in $v0 at every `syscall` is one of them.
    let mut service: Option<i32> = None;
    for line in text.lines() {
        let code = line.split('#').next().unwrap().trim();
        if let Some(n) = code.strip_prefix("li $v0, ") {
            service = n.trim().parse().ok();
        } else if code == "syscall" {
            let n = service.expect("a service number before every syscall");
            assert!([4, 5, 8, 10, 11, 12].contains(&n), "syscall {n}");
        } else if code.ends_with(':') || code.starts_with("jal ") || code.starts_with("j ") {
            service = None; // a new block: $v0 must be set again
        }
    }
    // check_win keeps $ra on the stack (the debugger scripts `finish` out of it).
    let body = text.split("\ncheck_win:").nth(1).expect("the check_win label");
    assert!(body.contains("sw $ra,"), "check_win saves $ra");
}
