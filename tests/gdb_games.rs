//! gdb-multiarch attached over TCP to `asmdbg debug` playing a game with its scripted input:
//! a breakpoint on a subroutine, the registers there, a stepi, then the game runs to its end and
//! its console holds the same bytes as `asmdbg run`'s transcript. scripts/platforms runs these
//! with the Windows build under Wine and the ARM64 build under qemu-aarch64
//! (`ASMDBG_TEST_EXE`), gdb staying on Linux.

mod support;

use std::io::Read;
use std::path::Path;
use std::time::{Duration, Instant};

use asmdbg_testsupport::require_tool;
use support::{assert_in_order, Scratch, Stub};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Serves `program` (copied into a scratch folder, where its ELF is written) to gdb with `input`
/// as the guest's console, runs `commands` in gdb, and returns gdb's output and the console's
/// bytes once the game has ended.
fn play_under_gdb(program: &str, input: &str, commands: &str) -> (String, Vec<u8>) {
    let dir = Scratch::new();
    let source = std::fs::read_to_string(root().join(program)).expect("the game's source");
    let name = Path::new(program).file_name().expect("a file name");
    let prog = dir.write(&name.to_string_lossy(), &source);
    let mut stub = Stub::start_stdio(&prog, &["--once"], &root().join(input));
    let mut stdout = stub.child.stdout.take().expect("the console's output");
    let console = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        stdout.read_to_end(&mut bytes).expect("read the console");
        bytes
    });
    let out = stub.gdb(commands);
    // gdb has detached at the game's end; with --once asmdbg then exits, closing the console.
    let deadline = Instant::now() + Duration::from_secs(60);
    while stub.child.try_wait().expect("asmdbg's status").is_none() {
        assert!(
            Instant::now() < deadline,
            "asmdbg did not end after the game; gdb:\n{out}\nstderr:\n{}",
            stub.stderr()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let bytes = console.join().expect("the console's reader");
    (out, bytes)
}

fn assert_same_bytes(got: &[u8], transcript: &str) {
    let want = std::fs::read(root().join(transcript)).expect("the transcript");
    assert!(
        got == want.as_slice(),
        "the console differs from {transcript}:\n--- got\n{}\n--- want\n{}",
        String::from_utf8_lossy(got),
        String::from_utf8_lossy(&want)
    );
}

#[test]
fn nim_under_gdb_stops_at_check_move_steps_and_plays_to_the_transcript() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let (out, console) = play_under_gdb(
        "programs/lc3/nim.asm",
        "tests/programs/lc3/nim-sample.in",
        "break CHECK_MOVE\ncontinue\ninfo registers pc R1 R2\nstepi\ninfo registers pc\n\
         delete\ncontinue",
    );
    // The first move, B2: R1 = 'B', R2 = '2'; CHECK_MOVE is at x305F (gdb: 2 x the address).
    assert_in_order(
        &out,
        &[
            "Breakpoint 1, CHECK_MOVE ()",
            "pc             0x60be",
            "R1             0x42",
            "R2             0x32",
            "pc             0x60c0",
        ],
    );
    assert_same_bytes(&console, "tests/programs/lc3/nim-sample.out");
}

#[test]
fn four_in_a_row_under_gdb_stops_at_check_win_steps_and_plays_to_the_transcript() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let (out, console) = play_under_gdb(
        "programs/mips/four_in_a_row.asm",
        "tests/programs/mips/01_horizontal_win.in",
        "break check_win\ncontinue\ninfo registers pc a0 a1\nstepi\ninfo registers pc\n\
         delete\ncontinue",
    );
    // The first drop in the centre column: row 5, column 3.
    assert_in_order(
        &out,
        &[
            "Breakpoint 1, check_win ()",
            "pc: 0x4008dc",
            "a0: 0x5",
            "a1: 0x3",
            "pc: 0x4008e0",
        ],
    );
    assert_same_bytes(&console, "tests/programs/mips/01_horizontal_win.out");
}
