//! The graphical games of programs/ played by the built binary with scripted keys:
//! - programs/mips/snake.asm (MARS Bitmap Display configured by its CSC258 header, keyboard
//!   MMIO) with programs/mips/snake.keys, and programs/lc3/sketch.asm (PennSim video display,
//!   `--display`) with programs/lc3/sketch.keys: the last frame must equal the checked-in
//!   tests/frames/snake.png and tests/frames/sketch.png, compared pixel by pixel (on a
//!   mismatch the frame drawn is kept in target/tmp/ to look at);
//! - MARS's memory dump after a step limit (`--max-steps 40 0x10008000-0x1000800c`), and the
//!   whole display after a game without keys, against tests/frames/snake-no-keys.mars.txt: what
//!   MARS printed for `java Mars nc 100000 snake.asm 0x10008000-0x10008ffc` (MARS from
//!   github.com/dpetersanderson/MARS at ac3d34e, its Globals.version "4.6", built with javac 17:
//!   no 4.5 jar was at hand; the simulator core is 4.5's). The game seeds random generator 0
//!   itself (syscall 40), so the food lands in the same places in MARS and here;
//! - the display the header configures is announced on stderr;
//! - q quits and p pauses;
//! - gdb-multiarch: a watchpoint on a framebuffer word of the snake's path, `continue` to its
//!   stores, then `reverse-continue` back to the `sw` that drew the pixel (its address and
//!   source line), the word showing the colour before that store.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use asmdbg_testsupport::require_tool;
use support::{asmdbg, assert_in_order, text, Scratch, Stub};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `asmdbg ARGS` in the repository's folder (so that paths in messages are relative), without
/// input.
fn run(args: &[&str]) -> Output {
    asmdbg()
        .current_dir(root())
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("asmdbg runs")
}

const SNAKE: &str = "programs/mips/snake.asm";
const SNAKE_KEYS: &str = "programs/mips/snake.keys";
const SKETCH: &str = "programs/lc3/sketch.asm";
const SKETCH_KEYS: &str = "programs/lc3/sketch.keys";

/// What asmdbg says on stderr when the snake's header configures the display.
const SNAKE_ANNOUNCED: &str = "asmdbg: Bitmap Display 256x256,unit=8,base=0x10008000, as the \
                               header of programs/mips/snake.asm states (--bitmap sets another)\n";

/// The width, height and pixels of a PNG file.
fn decode(path: &Path) -> (u32, u32, Vec<u32>) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    asmdbg_core::display::read_png(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The frame in `drawn` must equal the checked-in `golden` (tests/frames/NAME.png), pixel for
/// pixel. Otherwise the drawn frame is kept as target/tmp/NAME-actual.png and the test fails
/// naming the first pixel that differs.
fn assert_frame(name: &str, drawn: &Path) {
    let golden = root().join(format!("tests/frames/{name}.png"));
    let (gw, gh, want) = decode(&golden);
    let (w, h, got) = decode(drawn);
    if (w, h, &got) == (gw, gh, &want) {
        return;
    }
    let kept = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-actual.png"));
    let saved = std::fs::copy(drawn, &kept)
        .map(|_| format!("the frame drawn is {}", kept.display()))
        .unwrap_or_else(|e| format!("(could not keep the frame drawn: {e})"));
    let detail = if (w, h) != (gw, gh) {
        format!("it is {w}x{h} pixels, the golden frame {gw}x{gh}")
    } else {
        let differ = got.iter().zip(&want).filter(|(g, w)| g != w).count();
        let first = got.iter().zip(&want).position(|(g, w)| g != w).unwrap_or(0);
        format!(
            "{differ} pixels differ, the first at ({}, {}): {:#08x} where {} has {:#08x}",
            first as u32 % w,
            first as u32 / w,
            got[first],
            golden.display(),
            want[first]
        )
    };
    panic!("the last frame of {name} is not the checked-in one: {detail}; {saved}");
}

/// `asmdbg run PROGRAM --keys KEYS OPTIONS --display-png F` to its end (exit status 0); then
/// its last frame must be tests/frames/NAME.png. Returns what the run printed.
fn play_to_frame(name: &str, program: &str, keys: &str, options: &[&str]) -> Output {
    let dir = Scratch::new();
    let png = dir.path().join(format!("{name}.png"));
    let mut args = vec!["run", program, "--keys", keys];
    args.extend_from_slice(options);
    args.extend_from_slice(&["--display-png", png.to_str().expect("utf-8 path")]);
    let out = run(&args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_frame(name, &png);
    out
}

#[test]
fn snake_played_with_keys_ends_on_the_checked_in_frame() {
    let out = play_to_frame("snake", SNAKE, SNAKE_KEYS, &["--virtual-time"]);
    assert_eq!(text(&out.stdout), "Game over! Score: 8\n");
    // MARS's command line ends a run with a newline; asmdbg writes it on stderr.
    assert_eq!(text(&out.stderr), format!("{SNAKE_ANNOUNCED}\n"));
}

#[test]
fn sketch_drawn_with_keys_ends_on_the_checked_in_frame() {
    let out = play_to_frame("sketch", SKETCH, SKETCH_KEYS, &["--display"]);
    assert_eq!(
        text(&out.stdout),
        "Etch-a-sketch: w a s d draw, c changes colour, x clears, q quits\n\
         Bye!\n\n----- Halting the processor ----- \n"
    );
}

#[test]
fn the_snake_header_configures_the_display_and_says_so() {
    // The header's configuration, announced; the flag takes over without a word.
    let out = run(&["run", SNAKE, "--max-steps", "40"]);
    assert_eq!(out.status.code(), Some(4));
    assert_in_order(&text(&out.stderr), &[SNAKE_ANNOUNCED]);
    let out = run(&[
        "run",
        SNAKE,
        "--bitmap",
        "256x256,unit=8,base=gp",
        "--max-steps",
        "40",
    ]);
    assert_eq!(out.status.code(), Some(4));
    assert!(
        !text(&out.stderr).contains("header"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn mars_dump_of_the_first_pixels_after_a_step_limit() {
    // 40 instructions: the wall loop has drawn units 0-2 of the top row, not unit 3 yet.
    let out = run(&[
        "run",
        SNAKE,
        "--keys",
        SNAKE_KEYS,
        "--virtual-time",
        "--max-steps",
        "40",
        "0x10008000-0x1000800c",
    ]);
    assert_eq!(out.status.code(), Some(4));
    assert_eq!(text(&out.stdout), "");
    assert_eq!(
        text(&out.stderr),
        format!(
            "{SNAKE_ANNOUNCED}\nProgram terminated when maximum step limit 40 reached.\n\n\
             Mem[0x10008000]\t0x00808080\t0x00808080\t0x00808080\t0x00000000\t\n"
        )
    );
}

#[test]
fn a_game_without_keys_draws_what_mars_draws() {
    // No keys: the snake runs right into the wall. MARS's own output (stdout only) is the
    // program's text then the dump; asmdbg prints the dump on stderr.
    let out = run(&[
        "run",
        SNAKE,
        "--virtual-time",
        "--max-steps",
        "100000",
        "0x10008000-0x10008ffc",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    let dump = stderr
        .strip_prefix(SNAKE_ANNOUNCED)
        .unwrap_or_else(|| panic!("the display is announced first: {stderr}"));
    let got = format!("{}{dump}", text(&out.stdout));
    let want = std::fs::read_to_string(root().join("tests/frames/snake-no-keys.mars.txt"))
        .expect("tests/frames/snake-no-keys.mars.txt");
    if got != want {
        let line = got
            .lines()
            .zip(want.lines())
            .position(|(g, w)| g != w)
            .map_or_else(
                || "one is a prefix of the other".to_string(),
                |n| {
                    format!(
                        "line {}: got {:?}, MARS {:?}",
                        n + 1,
                        got.lines().nth(n).unwrap_or(""),
                        want.lines().nth(n).unwrap_or("")
                    )
                },
            );
        panic!("the display after the game differs from MARS's: {line}");
    }
}

#[test]
fn q_quits_and_p_pauses_the_snake() {
    let dir = Scratch::new();
    let quit = dir.write("quit.keys", "600 q\n");
    let out = run(&[
        "run",
        SNAKE,
        "--keys",
        quit.to_str().expect("utf-8 path"),
        "--virtual-time",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "Bye! Score: 0\n");

    // Paused at instruction 600 with no key left to come: the paused game does nothing but
    // poll the keyboard. 5000 instructions in it is still polling (the step limit, status 4);
    // by 50000 it is taken to wait for input that cannot come (status 3). The same frame
    // number both times.
    let pause = dir.write("pause.keys", "600 p\n");
    let frames_at = |steps: &str| {
        let out = run(&[
            "run",
            SNAKE,
            "--keys",
            pause.to_str().expect("utf-8 path"),
            "--virtual-time",
            "--max-steps",
            steps,
            "--peek",
            "PAUSED",
            "--peek",
            "FRAME_COUNT",
        ]);
        (out.status.code(), text(&out.stdout), text(&out.stderr))
    };
    let (status, early, stderr) = frames_at("5000");
    assert_eq!(status, Some(4), "{stderr}");
    assert!(early.starts_with("1\n"), "PAUSED is 1: {early:?}");
    let (status, late, stderr) = frames_at("50000");
    assert_eq!(status, Some(3), "{stderr}");
    assert!(stderr.contains("the program waits for input"), "{stderr}");
    assert_eq!(late, early);
}

/// Unit (9, 17) of the display: the snake's second move (down, the keys' first 's') draws
/// its head there, the third turns it into body, and the tail erases it later.
const WATCHED: &str = "0x100088a4";

#[test]
fn gdb_watches_a_pixel_and_reverse_continues_to_the_store_that_drew_it() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let source = std::fs::read_to_string(root().join(SNAKE)).expect("snake.asm");
    // The two stores of move_snake that draw the unit: the old head as body, the new head.
    let line_of = |needle: &str| {
        let lines: Vec<usize> = source
            .lines()
            .enumerate()
            .filter(|(_, l)| l.trim_start().starts_with(needle))
            .map(|(n, _)| n + 1)
            .collect();
        assert_eq!(lines.len(), 1, "one line {needle:?} in snake.asm");
        lines[0]
    };
    let body_line = line_of("sw   $t7, 0($t6)");
    let head_line = line_of("sw   $t7, 0($s2)");

    let dir = Scratch::new();
    let prog = dir.write("snake.asm", &source);
    let keys = root().join(SNAKE_KEYS);
    let stub = Stub::start(
        &prog,
        &[
            "--keys",
            keys.to_str().expect("utf-8 path"),
            "--virtual-time",
        ],
    );
    let out = stub.gdb(&format!(
        "break snake.asm:{body_line}\n\
         break snake.asm:{head_line}\n\
         delete\n\
         watch *(int*){WATCHED}\n\
         continue\n\
         p/x $pc\n\
         continue\n\
         p/x $pc\n\
         stepi 40\n\
         echo BACK\\n\n\
         reverse-continue\n\
         p/x $pc\n\
         p/x *(int*){WATCHED}\n\
         reverse-stepi\n\
         p/x $pc\n\
         p/x *(int*){WATCHED}\n\
         reverse-continue\n\
         p/x $pc\n\
         p/x *(int*){WATCHED}\n\
         info line *$pc"
    ));
    // Where gdb put the two breakpoints: the stores' addresses.
    let address = |line: usize| -> u32 {
        let at = format!("snake.asm, line {line}.");
        let found = out
            .lines()
            .find(|l| l.starts_with("Breakpoint ") && l.ends_with(&at))
            .and_then(|l| l.split(" at 0x").nth(1))
            .and_then(|rest| rest.split(':').next())
            .and_then(|hex| u32::from_str_radix(hex, 16).ok());
        found.unwrap_or_else(|| panic!("no breakpoint address for line {line}:\n{out}"))
    };
    let (body, head) = (address(body_line), address(head_line));
    let printed: Vec<String> = out
        .lines()
        .filter(|l| l.starts_with('$') && l.contains(" = "))
        .filter_map(|l| l.split_once(" = ").map(|(_, v)| v.to_string()))
        .collect();
    let hex = |n: u32| format!("{n:#x}");
    assert_eq!(
        printed,
        [
            // Forward: stopped after the head's store, then after the body's.
            hex(head + 4),
            hex(body + 4),
            // Back: on the body's store, the unit still the head's green.
            hex(body),
            "0xff00".to_string(),
            // One more back: the li before it.
            hex(body - 4),
            "0xff00".to_string(),
            // Back again: on the head's store, the unit black as before the snake came.
            hex(head),
            "0x0".to_string(),
        ],
        "{out}"
    );
    assert_in_order(
        &out,
        &[
            "atchpoint",
            "Old value = 0",
            "New value = 65280",
            "Old value = 65280",
            "New value = 34816",
            "BACK",
            // Going back, gdb shows the store's values reversed, and the store's line.
            "Old value = 34816",
            "New value = 65280",
            &format!("{body_line}\t\tsw   $t7, 0($t6)"),
            "Old value = 65280",
            "New value = 0",
            &format!("{head_line}\t\tsw   $t7, 0($s2)"),
            &format!("Line {head_line} of \""),
            "snake.asm\" starts at address",
        ],
    );
}
