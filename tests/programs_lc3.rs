//! The LC-3 game programs (programs/lc3/), played end to end through the built binary exactly as
//! a user runs them: `asmdbg run programs/lc3/GAME.asm --input tests/programs/lc3/SCENARIO.in`.
//! Each scenario's stdout must equal `SCENARIO.out` byte for byte and the run must end with exit
//! status 0 (the program HALTs; the default `patt` profile prints the McGraw-Hill simulator's
//! "----- Halting the processor -----" banner, which is part of every transcript).
//!
//! The transcripts were derived from the course's assignment handouts, which are not part of this
//! repository (Nim and Connect-4: the handouts' sample runs with the PDF artefacts removed, plus
//! every invalid move the handouts list; Dots and Boxes: full games covering every rule), not
//! captured from the programs.

use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The HALT banner of the default `patt` profile, which ends every transcript.
const PATT_HALT: &str = "\n----- Halting the processor ----- \n";

/// Runs `asmdbg run programs/lc3/<program>.asm --input tests/programs/lc3/<scenario>.in` (plus
/// `extra` arguments) from the repository root and compares its stdout with `<scenario>.out`.
fn play(program: &str, scenario: &str, extra: &[&str]) {
    play_with_halt(program, scenario, extra, PATT_HALT);
}

/// `play`, for a profile whose HALT routine prints `halt_banner` instead of patt's.
fn play_with_halt(program: &str, scenario: &str, extra: &[&str], halt_banner: &str) {
    let asm = format!("programs/lc3/{program}.asm");
    let input = format!("tests/programs/lc3/{scenario}.in");
    let expected_path = root().join(format!("tests/programs/lc3/{scenario}.out"));
    let transcript = std::fs::read_to_string(&expected_path)
        .unwrap_or_else(|e| panic!("{}: {e}", expected_path.display()));
    let game = transcript
        .strip_suffix(PATT_HALT)
        .unwrap_or_else(|| panic!("{}: ends with the HALT banner", expected_path.display()));
    let expected = format!("{game}{halt_banner}").into_bytes();
    let output = asmdbg_testsupport::binary::asmdbg_command(env!("CARGO_BIN_EXE_asmdbg"))
        .current_dir(root())
        .args(["run", &asm, "--input", &input, "--max-steps", "50000000"])
        .args(extra)
        .output()
        .expect("asmdbg runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    if output.stdout != expected {
        let same = output
            .stdout
            .iter()
            .zip(&expected)
            .take_while(|(a, b)| a == b)
            .count();
        let line = expected[..same].iter().filter(|&&b| b == b'\n').count() + 1;
        panic!(
            "{scenario}: stdout differs from {} at byte {same} (line {line})\n\
             --- expected (from there) ---\n{}\n--- actual (from there) ---\n{}\n--- stderr ---\n{stderr}",
            expected_path.display(),
            excerpt(&expected[same..]),
            excerpt(&output.stdout[same..]),
        );
    }
    assert_eq!(
        output.status.code(),
        Some(0),
        "{scenario}: exit status (stderr: {stderr})"
    );
}

/// Up to 300 bytes, with escapes so that trailing spaces and newlines are visible.
fn excerpt(bytes: &[u8]) -> String {
    let shown = &bytes[..bytes.len().min(300)];
    String::from_utf8_lossy(shown).escape_debug().to_string()
}

// ---- Nim (lc3-nim.md) -------------------------------------------------------------------------

/// The spec's sample run: B2 A1 C6 G1(invalid) B3 A3(invalid) C2 A1 A*(invalid) &4(invalid) A1,
/// "Player 2 Wins.".
#[test]
fn nim_sample_run() {
    play("nim", "nim-sample", &[]);
}

/// Every invalid move of the spec's text (D4, A9, A*, &4) and more (A0, lower case, too many
/// rocks, characters just outside A-C and 1-9, a row already empty), then a game that Player 1
/// wins.
#[test]
fn nim_invalid_moves_and_player_one_wins() {
    play("nim", "nim-invalid", &[]);
}

// ---- Connect-4 (lc3-connect4.md) --------------------------------------------------------------

/// The spec's sample run on the full 6x6 board: Player 1 wins on a rising diagonal.
#[test]
fn connect4_sample_run() {
    play("connect4", "connect4-sample", &[]);
}

/// D and 7 (the spec's examples), 0, an empty line, two keys, a lower-case letter, a full
/// column; then Player 2 wins with four in the bottom row.
#[test]
fn connect4_invalid_moves_full_column_and_horizontal_win() {
    play("connect4", "connect4-invalid", &[]);
}

/// Player 2 wins four in a column.
#[test]
fn connect4_vertical_win() {
    play("connect4", "connect4-vertical", &[]);
}

/// Player 2 wins on a falling diagonal, completed in its middle.
#[test]
fn connect4_falling_diagonal_win() {
    play("connect4", "connect4-diagonal", &[]);
}

/// All 36 cells filled without four in a row: "Tie Game.".
#[test]
fn connect4_tie_game() {
    play("connect4", "connect4-tie", &[]);
}

/// Enter as LF, CR (a terminal in raw mode, e.g. the debugger's pty) or CR LF (a DOS file): each
/// is one Enter, echoed as one newline; an empty CR LF line is one invalid move, not two.
#[test]
fn connect4_enter_as_cr_lf_or_crlf() {
    play("connect4", "connect4-crlf", &[]);
}

// ---- Dots and Boxes (lc3-dots-and-boxes.md) ---------------------------------------------------

/// A full game: invalid inputs (a dot, a box centre, column H, row 7, lower case, reversed,
/// Q as the second key, punctuation, an occupied line, an invalid move during an extra turn),
/// extra turns after completing a box, two boxes with one line, game over: Player 1 wins 7-2.
#[test]
fn dots_full_game_player_one_wins() {
    play("dots", "dots-game", &[]);
}

/// Another full game: a chain of five boxes taken in one turn, among them a '|' (C3) that
/// completes the boxes on its left and right at once (the first game's D2 is a '-' completing
/// the boxes above and below). Player 2 wins 5-4.
#[test]
fn dots_full_game_player_two_wins() {
    play("dots", "dots-p2wins", &[]);
}

/// Q quits, here during an extra turn right after a box was completed.
#[test]
fn dots_quit() {
    play("dots", "dots-quit", &[]);
}

// ---- Strict assembly --------------------------------------------------------------------------

/// Every game also assembles and plays under `--strict` (Lumetta lc3as's rules: commas
/// required, no `b` binary literals, ...), so students can use either assembler.
#[test]
fn games_play_under_strict_assembly_too() {
    play("nim", "nim-sample", &["--strict"]);
    play("connect4", "connect4-sample", &["--strict"]);
    play("dots", "dots-game", &["--strict"]);
}

/// The games rely on nothing of the 2nd-edition TRAP (R7 is saved around every TRAP and JSR),
/// so they play the same on the `lc3tools` profile: 3rd-edition TRAP through the supervisor
/// stack, user mode, and lc3tools' own HALT text.
#[test]
fn games_play_on_the_lc3tools_profile_too() {
    let halt = "\n\n--- Halting the LC-3 ---\n\n";
    let profile = ["--profile", "lc3tools"];
    play_with_halt("nim", "nim-sample", &profile, halt);
    play_with_halt("connect4", "connect4-sample", &profile, halt);
    play_with_halt("dots", "dots-game", &profile, halt);
}

// ---- Instruction counts under lc3tools ---------------------------------------------------------

/// `--profile lc3tools` executes as many instructions as lc3tools for the same game and input:
/// the OS routines are laid out and count as lc3tools' do. The numbers are lc3tools' own, from
/// lc3tools built from chiragsakhuja/lc3tools 74d5e97 and scripts/lc3tools_count.cpp (its
/// `sim::run` to the halt, then `getInstExecCount`), with the same .in files.
#[test]
fn lc3tools_profile_counts_match_lc3tools() {
    for (program, scenario, lc3tools_count) in [
        ("nim", "nim-sample", 13_432),
        ("nim", "nim-invalid", 20_955),
        ("connect4", "connect4-sample", 22_849),
        ("connect4", "connect4-tie", 72_638),
        ("dots", "dots-game", 77_194),
    ] {
        let asm = root().join(format!("programs/lc3/{program}.asm"));
        let input = root().join(format!("tests/programs/lc3/{scenario}.in"));
        let out = asmdbg_testsupport::binary::asmdbg_command(env!("CARGO_BIN_EXE_asmdbg"))
            .arg("run")
            .arg(&asm)
            .args(["--profile", "lc3tools", "--stats", "--input"])
            .arg(&input)
            .output()
            .expect("run asmdbg");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!("stats: {lc3tools_count} instructions in ")),
            "{scenario}: {stderr}"
        );
    }
}

// ---- The keyboard-interrupt lab (programs/lc3/interrupts/) -----------------------------------

/// Runs the lab's two files with the keys of `interrupts-keys.in` arriving every 2,500
/// instructions under `profile`; stdout and stderr.
fn interrupt_lab(profile: &str, extra: &[&str]) -> std::process::Output {
    asmdbg_testsupport::binary::asmdbg_command(env!("CARGO_BIN_EXE_asmdbg"))
        .current_dir(root())
        .args([
            "run",
            "programs/lc3/interrupts/isr.asm",
            "programs/lc3/interrupts/user_program.asm",
            "--input",
            "tests/programs/lc3/interrupts-keys.in",
            "--key-every",
            "2500",
            "--max-steps",
            "1000000",
            "--profile",
            profile,
        ])
        .args(extra)
        .output()
        .expect("asmdbg runs")
}

/// The interrupt service routine echoes each letter typed ten times on a line of its own while
/// the user program prints its banners, interrupting it wherever the key arrives (inside PUTS
/// under lc3tools, whose PUTS takes longer): the transcripts per profile, byte for byte.
#[test]
fn interrupt_lab_transcript_per_profile() {
    for (profile, extra) in [("patt", &[][..]), ("lc3tools", &["--ignore-privilege"][..])] {
        let output = interrupt_lab(profile, extra);
        let expected_path = root().join(format!("tests/programs/lc3/interrupts-{profile}.out"));
        let expected = std::fs::read(&expected_path).expect("transcript");
        assert_eq!(
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&expected),
            "{profile}: stderr {}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(output.status.code(), Some(0), "{profile}");
        let text = String::from_utf8_lossy(&output.stdout);
        // Every letter of "Hi, lab 5!" came back ten times; the other keys did not.
        for letter in [
            "HHHHHHHHHH",
            "iiiiiiiiii",
            "llllllllll",
            "aaaaaaaaaa",
            "bbbbbbbbbb",
        ] {
            assert_eq!(text.matches(letter).count(), 1, "{profile}: {letter}");
        }
        assert!(!text.contains(",,") && !text.contains("55") && !text.contains("!!"));
    }
}

/// lc3tools stops the user program's write of the vector table with an access violation unless
/// --ignore-privilege is given, as lc3tools does; lc3sim has no interrupts at all, so its run
/// prints the banners and never echoes.
#[test]
fn interrupt_lab_needs_privilege_on_lc3tools_and_does_nothing_on_lc3sim() {
    let output = interrupt_lab("lc3tools", &[]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("--- Access violation---"), "{text}");
    assert!(!text.contains("~~~"), "{text}");

    let output = interrupt_lab("lc3sim", &[]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        text.matches("~~~ Type a letter; it comes back ten times. ~~~\n")
            .count(),
        8,
        "{text}"
    );
    assert!(!text.contains("HHHHHHHHHH"), "{text}");
}
