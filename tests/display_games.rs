//! The graphical games of programs/ played by the built binary with scripted keys:
//! - programs/mips/snake.asm (MARS Bitmap Display configured by its CSC258 header, keyboard
//!   MMIO) with programs/mips/snake.keys, and programs/lc3/sketch.asm (PennSim video display,
//!   `--display`) with programs/lc3/sketch.keys: the last frame must equal the checked-in
//!   tests/frames/snake.png and tests/frames/sketch.png, compared pixel by pixel (on a
//!   mismatch the frame drawn is kept in target/tmp/ to look at);
//! - the two real-time games the same way: programs/lc3/breakout.asm (a frame loop that looks
//!   at KBSR once a frame and goes on without a key; it also runs to its own end with no input
//!   at all) and programs/mips/meteors.asm (timed by counting instructions, as games written
//!   against MARS's speed are: `--speed` holds it to a human pace and the game stays the same);
//! - MARS's memory dump after a step limit (`--max-steps 40 0x10008000-0x1000800c`), and the
//!   whole display after a game without keys, against tests/frames/snake-no-keys.mars.txt: what
//!   MARS printed for `java Mars nc 100000 snake.asm 0x10008000-0x10008ffc` (MARS from
//!   github.com/dpetersanderson/MARS at ac3d34e, its Globals.version "4.6", built with javac 17:
//!   no 4.5 jar was at hand; the simulator core is 4.5's). The game seeds random generator 0
//!   itself (syscall 40), so the food lands in the same places in MARS and here; meteors.asm
//!   likewise against tests/frames/meteors-no-keys.mars.txt (`java Mars nc meteors.asm
//!   0x10040000-0x10040ffc`, the same MARS), and its instruction count against MARS's `ic`;
//! - the display the header configures is announced on stderr;
//! - q quits and p pauses;
//! - gdb-multiarch: a watchpoint on a framebuffer word of the snake's path, `continue` to its
//!   stores, then `reverse-continue` back to the `sw` that drew the pixel (its address and
//!   source line), the word showing the colour before that store.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

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
const BREAKOUT: &str = "programs/lc3/breakout.asm";
const BREAKOUT_KEYS: &str = "programs/lc3/breakout.keys";
const METEORS: &str = "programs/mips/meteors.asm";
const METEORS_KEYS: &str = "programs/mips/meteors.keys";

/// What asmdbg says on stderr when the snake's header configures the display.
const SNAKE_ANNOUNCED: &str = "asmdbg: Bitmap Display 256x256,unit=8,base=0x10008000, as the \
                               header of programs/mips/snake.asm states (--bitmap sets another)\n";

/// What asmdbg says on stderr when the meteors' header configures the display.
const METEORS_ANNOUNCED: &str = "asmdbg: Bitmap Display 256x256,unit=8,base=0x10040000, as the \
                                 header of programs/mips/meteors.asm states (--bitmap sets \
                                 another)\n";

/// What breakout.asm prints first.
const BREAKOUT_BANNER: &str = "Breakout: a and d move the paddle, q quits\n";

/// What the patt OS's HALT prints.
const HALTED: &str = "\n----- Halting the processor ----- \n";

/// The number of instructions in a `--stats` line on stderr.
fn instructions_counted(stderr: &str) -> u64 {
    stderr
        .lines()
        .find_map(|l| l.strip_prefix("stats: "))
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no --stats line: {stderr}"))
}

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
fn breakout_played_with_keys_ends_on_the_checked_in_frame() {
    // The last frame, tests/frames/breakout.png (256x248, PennSim's window): the grey court,
    // 9 of the 40 bricks gone (one orange, 3 yellow, 5 green; the red row whole), the three
    // life marks in the top wall grey, 51 of the time bar's 84 green columns left, the cyan
    // paddle at the right (x 98-113) and no ball: the third fell past the paddle.
    // 3,887,740 instructions, 1,627 frames. The same under lc3as's rules (--strict).
    for dialect in [&["--display"][..], &["--display", "--strict"][..]] {
        let out = play_to_frame("breakout", BREAKOUT, BREAKOUT_KEYS, dialect);
        assert_eq!(
            text(&out.stdout),
            format!("{BREAKOUT_BANNER}Game over! Bricks broken: 9\n{HALTED}")
        );
    }
}

#[test]
fn breakout_runs_on_without_any_input_until_its_own_end() {
    // No keys and stdin /dev/null: every frame looks at KBSR, finds no key and goes on. 1,147
    // empty checks in a row: more than the 1,000 after which a program that checks the
    // keyboard used to count as waiting for input (exit status 3). The paddle stays in the
    // middle; three balls fall past it, the game ends by itself.
    let out = run(&["run", BREAKOUT, "--display", "--peek", "FRAMES"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        format!("{BREAKOUT_BANNER}Game over! Bricks broken: 5\n{HALTED}1147\n")
    );
}

#[test]
fn breakout_paddle_moves_with_a_and_d_carrying_the_waiting_ball_and_q_quits() {
    // Keys 3,000 instructions apart (a frame is about 2,400): a, a, d move the paddle from
    // x 56 to 52; the new ball, still waiting, sits on its middle (x 59); q quits.
    let dir = Scratch::new();
    let keys = dir.write("keys", "3000 a\n6000 a\n9000 d\n9500 x\n12000 q\n");
    let out = run(&[
        "run",
        BREAKOUT,
        "--display",
        "--keys",
        keys.to_str().expect("utf-8 path"),
        "--peek",
        "PADDLE_X",
        "--peek",
        "BALL_X",
        "--peek",
        "READY_LEFT",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let (said, peeked) = stdout
        .split_once(HALTED)
        .unwrap_or_else(|| panic!("{stdout}"));
    assert_eq!(said, format!("{BREAKOUT_BANNER}Bye! Bricks broken: 0\n"));
    let peeked: Vec<i64> = peeked.lines().map(|l| l.parse().expect("a word")).collect();
    assert_eq!(peeked[..2], [52, 59]);
    assert!(peeked[2] > 0, "the ball still waits: {peeked:?}");
}

#[test]
fn meteors_played_with_keys_ends_on_the_checked_in_frame() {
    // The last frame, tests/frames/meteors.png (256x256): two green lives at the top left
    // (the third lost to a rock at frame 91), the gold bar full (56 rocks dodged), sixteen
    // brown rocks falling and the blue ship at x 22. 20,791,270 instructions, 171 frames.
    let out = play_to_frame("meteors", METEORS, METEORS_KEYS, &["--stats"]);
    assert_eq!(text(&out.stdout), "You made it! Rocks dodged: 56\n");
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with(&format!("{METEORS_ANNOUNCED}\nstats: ")),
        "{stderr}"
    );
    assert_eq!(instructions_counted(&stderr), 20_791_270);
}

#[test]
fn meteors_without_keys_draws_and_counts_what_mars_does() {
    // No keys: the ship stays in the middle until the third rock hits it. MARS printed the
    // program's text then the dump (stdout only); asmdbg prints the dump on stderr. MARS's
    // `ic` counted 19,512,338 instructions.
    let out = run(&["run", METEORS, "--stats", "0x10040000-0x10040ffc"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    let rest = stderr
        .strip_prefix(METEORS_ANNOUNCED)
        .unwrap_or_else(|| panic!("the display is announced first: {stderr}"));
    let (dump, stats) = rest
        .split_once("stats: ")
        .unwrap_or_else(|| panic!("no --stats line: {stderr}"));
    let got = format!("{}{dump}", text(&out.stdout));
    let want = std::fs::read_to_string(root().join("tests/frames/meteors-no-keys.mars.txt"))
        .expect("tests/frames/meteors-no-keys.mars.txt");
    assert!(
        got == want,
        "the display after the game differs from MARS's:\n{got}"
    );
    assert_eq!(instructions_counted(&format!("stats: {stats}")), 19_512_338);
}

#[test]
fn meteors_held_to_a_speed_takes_its_time_and_plays_the_same_game() {
    // Its timing is instruction counting: at 40 M instructions a second the 20.8 M of the
    // scripted game take at least 0.52 s, and the game is the same as at full speed. (A lower
    // bound only: a busy machine can only make a run slower.)
    let per_second = 40_000_000u64;
    let started = Instant::now();
    let out = run(&[
        "run",
        METEORS,
        "--keys",
        METEORS_KEYS,
        "--speed",
        "40M",
        "--stats",
    ]);
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "You made it! Rocks dodged: 56\n");
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("M instructions/s, held to 40 M instructions a second)"),
        "{stderr}"
    );
    let executed = instructions_counted(&stderr);
    let at_pace = Duration::from_secs_f64(executed as f64 / per_second as f64);
    assert!(
        took >= at_pace.mul_f64(0.9),
        "{executed} instructions at {per_second} a second took {took:?}"
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

    // Paused at instruction 600: 5000 instructions in, and at the end, the same frame number.
    // The paused game polls for its next p with none left to come: it waits for input (exit
    // status 3, once 1,000 polls found no key) instead of spinning to the step limit.
    let pause = dir.write("pause.keys", "600 p\n");
    let frames_at = |steps: &str, status: i32| {
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
        assert_eq!(out.status.code(), Some(status), "{}", text(&out.stderr));
        (text(&out.stdout), text(&out.stderr))
    };
    let (early, _) = frames_at("5000", 4);
    assert!(early.starts_with("1\n"), "PAUSED is 1: {early:?}");
    let (late, said) = frames_at("50000", 3);
    assert_eq!(late, early);
    assert!(
        said.contains("the program waits for input at PC 0x004001bc (programs/mips/snake.asm:198)"),
        "{said}"
    );
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
