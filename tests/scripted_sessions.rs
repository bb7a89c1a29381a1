//! The scripted debugging sessions users run on the games (scripts/*.gdb), each run here
//! against `asmdbg debug` with moves typed into the game's pty.

mod support;

use std::path::Path;

use asmdbg_testsupport::require_tool;
use support::{assert_in_order, Stub};

fn repo(path: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// Dots and Boxes under `asmdbg debug --once` with `moves` typed into its console; the scratch
/// directory, the stub, and the line of the store to CURRENT_PLAYER.
fn dots_with_moves(moves: &[u8]) -> (support::Scratch, Stub, usize) {
    let dir = support::Scratch::new();
    let program = scratch_copy(&dir, "programs/lc3/dots.asm");
    let stub = Stub::start(&program, &["--once"]);
    stub.open_console().type_bytes(moves);
    let source = std::fs::read_to_string(&program).unwrap();
    let store_line = source
        .lines()
        .position(|l| l.trim_start().starts_with("ST R1, CURRENT_PLAYER"))
        .expect("the store in UPDATE_STATE")
        + 1;
    (dir, stub, store_line)
}

/// Copies a program into a scratch directory (debug writes its ELF beside the program).
fn scratch_copy(dir: &support::Scratch, program: &str) -> std::path::PathBuf {
    let text = std::fs::read_to_string(repo(program)).expect("program source");
    let name = Path::new(program).file_name().expect("file name");
    dir.write(name.to_str().expect("utf-8 name"), &text)
}

#[test]
fn watch_current_player_stops_on_every_change_of_turn_and_never_for_a_box() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    // P1 B0 (1->2), P2 A1 (2->1), P1 C1 (1->2), P2 B2 completes the box at B1 (P2 again, no
    // change), P2 F6 (2->1), P1 quits.
    let (_dir, stub, store_line) = dots_with_moves(b"B0A1C1B2F6Q");
    let script = repo("scripts/watch-current-player.gdb");
    let out = stub.gdb(&format!("source {}", script.display()));

    // gdb names the file as the ELF records it (the path given to asmdbg).
    let at_store = format!("Line {store_line} of \"");
    let hit = |old: u32, new: u32, p1: u32, p2: u32| {
        vec![
            "Hardware watchpoint 1: CURRENT_PLAYER".to_string(),
            format!("Old value = {old}"),
            format!("New value = {new}"),
            at_store.clone(),
            format!("= {p1}"),
            format!("= {p2}"),
        ]
    };
    let mut expected: Vec<String> = Vec::new();
    expected.extend(hit(1, 2, 0, 0));
    expected.extend(hit(2, 1, 0, 0));
    expected.extend(hit(1, 2, 0, 0));
    // The box: player 2 scores 1 and keeps the turn, so the next stop is 2 -> 1 after F6.
    expected.extend(hit(2, 1, 0, 1));
    expected.push("No more reverse-execution history.".to_string());
    expected.push("exited normally".to_string());
    let needles: Vec<&str> = expected.iter().map(String::as_str).collect();
    assert_in_order(&out, &needles);
    assert_eq!(
        out.matches("Old value").count(),
        4,
        "four changes of turn:\n{out}"
    );
}

#[test]
fn step_check_win_walks_the_mips_win_check_and_returns_to_the_caller() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let dir = support::Scratch::new();
    let program = scratch_copy(&dir, "programs/mips/four_in_a_row.asm");
    let stub = Stub::start(&program, &["--once"]);
    let mut console = stub.open_console();
    console.type_bytes(b"Alice\rBob\r1\r4\r");
    let script = repo("scripts/step-check-win.gdb");
    let out = stub.gdb(&format!("source {}", script.display()));
    assert!(!out.contains("Breakpoint address adjusted"), "{out}");
    let source = std::fs::read_to_string(&program).unwrap();
    let line_of = |needle: &str| {
        source
            .lines()
            .position(|l| l.trim_start().starts_with(needle))
            .unwrap_or_else(|| panic!("{needle} in the program"))
            + 1
    };
    let caller = line_of("jal check_win") + 1;
    let horizontal = line_of("check_horizontal:");
    let vertical = line_of("check_vertical:");
    assert_in_order(
        &out,
        &[
            "Breakpoint 1, check_win (",
            "#0  check_win (",
            "#1  ",
            "in main (",
            &format!("{}\t", horizontal + 1),
            &format!("{}\t", horizontal + 7),
            &format!("{}\t", vertical + 1),
            "#0  check_win (",
            "main () at ",
            &format!("four_in_a_row.asm:{caller}"),
            "|   |   |   | X |   |   |   |",
        ],
    );
    // `next` never stopped inside count_line.
    assert!(!out.contains("count_line () at"), "{out}");
}

/// scripts/who-wrote.gdb on Dots and Boxes after three moves: reverse-continue with a watch on
/// CURRENT_PLAYER stops on the store that last changed it (1 -> 2 by the third move, seen
/// backwards), in UPDATE_STATE called from MAIN; the game then goes on live.
#[test]
fn who_wrote_current_player_answers_by_reverse_continue() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let (_dir, stub, store_line) = dots_with_moves(b"B0A1C1");
    let script = repo("scripts/who-wrote.gdb");
    let out = stub.gdb(&format!(
        "python import threading, os, signal; threading.Timer(1.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()\n\
         continue\nsource {}\nprint CURRENT_PLAYER",
        script.display()
    ));
    assert_in_order(
        &out,
        &[
            "Program received signal SIGINT",
            "Hardware watchpoint 1: CURRENT_PLAYER",
            "Old value = 2",
            "New value = 1",
            &format!("Line {store_line} of \""),
            "#0  UPDATE_STATE () at ",
            "in MAIN () at ",
            "$1 = 1",
        ],
    );
}
