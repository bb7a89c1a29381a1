//! Time travel over the GDB protocol (`bs`, `bc`) with gdb-multiarch, on each machine: a
//! loop adds 1..10 into a running total stored in memory, then prints and ends.
//! - `reverse-stepi` retraces `stepi` exactly (pc and the total's register at each step);
//! - `reverse-continue` goes back to the previous breakpoint hit, and with a write watchpoint
//!   stops on the store that last wrote the total (gdb shows old and new value reversed);
//! - going back past the start says "No more reverse-execution history.";
//! - the program's end is first reported as the end of history, then as the end;
//! - output printed once is not printed again when the run is replayed.

mod support;

use std::time::Duration;

use asmdbg_testsupport::require_tool;
use support::{assert_in_order, Scratch, Stub};

struct Case {
    name: &'static str,
    file: &'static str,
    source: &'static str,
    /// `--checks=off`: the programs count from registers the machines start at zero (a
    /// debugging check's stop is not what these tests are about).
    args: &'static [&'static str],
    /// The line of the instruction that adds into the total.
    add_line: u32,
    /// The line of the store of the total.
    store_line: u32,
    /// The total: a gdb expression, and the register holding it.
    total: &'static str,
    register: &'static str,
    /// What the program prints once, at its end.
    prints: &'static str,
}

const LC3: Case = Case {
    name: "lc3",
    file: "loop.asm",
    source: "        .ORIG x3000
MAIN    AND R1, R1, #0
        AND R2, R2, #0
LOOP    ADD R1, R1, #1
        ADD R2, R2, R1
        ST R2, TOTAL
        ADD R3, R1, #-10
        BRn LOOP
        LEA R0, MSG
        PUTS
        HALT
TOTAL   .FILL 0
MSG     .STRINGZ \"sum done\\n\"
        .END
",
    args: &["--checks=off"],
    add_line: 5,
    store_line: 6,
    total: "TOTAL",
    register: "$R2",
    prints: "sum done",
};

const MIPS: Case = Case {
    name: "mips",
    file: "loop.asm",
    source: "\t.data
total:\t.word 0
msg:\t.asciiz \"sum done\\n\"
\t.text
main:\tli $t1, 0
\tli $t2, 0
loop:\taddi $t1, $t1, 1
\tadd $t2, $t2, $t1
\tsw $t2, total
\tblt $t1, 10, loop
\tla $a0, msg
\tli $v0, 4
\tsyscall
\tli $v0, 10
\tsyscall
",
    args: &["--checks=off"],
    add_line: 8,
    store_line: 9,
    total: "*(int *)&total",
    register: "$t2",
    prints: "sum done",
};

const SIMPLERISC: Case = Case {
    name: "simplerisc",
    file: "loop.asm",
    source: ".main:
\tmov r1, 0
\tmov r2, 0
loop:
\tadd r1, r1, 1
\tadd r2, r2, r1
\tst r2, 100[r0]
\tcmp r1, 10
\tbeq done
\tb loop
done:
\t.print r2
",
    args: &["--isa", "simplerisc", "--checks=off"],
    add_line: 6,
    store_line: 7,
    total: "*(int *)100",
    register: "$r2",
    prints: "r2 : 55",
};

fn start(case: &Case) -> (Scratch, Stub) {
    let dir = Scratch::new();
    let prog = dir.write(case.file, case.source);
    let stub = Stub::start(&prog, case.args);
    (dir, stub)
}

/// gdb commands: `steps` times `stepi` then as many `reverse-stepi`, each followed by `show`.
fn there_and_back(steps: usize, show: &str) -> String {
    let forward = format!("stepi\n{show}").repeat(steps);
    let back = format!("reverse-stepi\n{show}").repeat(steps);
    forward + &back
}

/// The values printed by `p/x $pc` and `p REGISTER` lines, in order.
fn printed(out: &str) -> Vec<String> {
    out.lines()
        .filter(|l| l.starts_with('$') && l.contains(" = "))
        .map(|l| {
            l.split_once(" = ")
                .map(|(_, v)| v.to_string())
                .unwrap_or_default()
        })
        .collect()
}

#[test]
fn reverse_stepi_retraces_stepi() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    for case in [LC3, MIPS, SIMPLERISC] {
        let (_dir, stub) = start(&case);
        let steps = 40;
        let show = format!("p/x $pc\np {}\n", case.register);
        let mut script = show.clone();
        script.push_str(&there_and_back(steps, &show));
        script.push_str("reverse-stepi\n");
        let out = stub.gdb(&script);
        let values = printed(&out);
        assert_eq!(values.len(), 2 * (2 * steps + 1), "{}: {out}", case.name);
        let forward: Vec<&[String]> = values[..2 * (steps + 1)].chunks(2).collect();
        let mut back: Vec<&[String]> = values[2 * steps..].chunks(2).collect();
        back.reverse();
        assert_eq!(forward, back, "{}: reverse-stepi retraces stepi", case.name);
        assert!(
            out.contains("No more reverse-execution history."),
            "{}: {out}",
            case.name
        );
    }
}

#[test]
fn reverse_continue_to_breakpoints_watchpoints_the_start_and_from_the_end() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    for case in [LC3, MIPS, SIMPLERISC] {
        let (_dir, stub) = start(&case);
        let r = case.register;
        let script = format!(
            "break {file}:{add}\ncontinue\ncontinue\ncontinue\np {r}\nreverse-continue\np {r}\n\
             reverse-stepi\nwatch {total}\nreverse-continue\np {total}\ndelete\n\
             reverse-continue\ncontinue\nreverse-continue\np {total}\ncontinue\ncontinue\n",
            file = case.file,
            add = case.add_line,
            total = case.total,
        );
        let out = stub.gdb(&script);
        let store = format!("{}\t", case.store_line);
        assert_in_order(
            &out,
            &[
                // Third hit: 1 + 2 in the total; back to the second: 1.
                "$1 = 3",
                "$2 = 1",
                // The store of the first pass wrote 1 over 0: seen backwards.
                "Old value = 1",
                "New value = 0",
                &store,
                "$3 = 0",
                // Back to the start, then forward to the end: the end of history first.
                "No more reverse-execution history.",
                "No more reverse-execution history.",
                // From the end back to the start (no breakpoints left), the total is 0 again.
                "No more reverse-execution history.",
                "$4 = 0",
                // Forward to the end again: the end of history, then the end itself.
                "No more reverse-execution history.",
                "exited normally",
            ],
        );
        // The program printed once, though its end was reached three times.
        let shown = stub
            .open_console()
            .wait_for(case.prints, Duration::from_secs(10));
        assert_eq!(
            shown.matches(case.prints).count(),
            1,
            "{}: {shown:?}",
            case.name
        );
    }
}

/// Nim played through the console while gdb goes back two moves and forward again: input
/// typed in the recorded run is replayed (keys typed while in the past wait for the end of
/// history), and the console shows the game exactly as without time travel, every line once.
#[test]
fn a_game_reversed_across_moves_and_continued_shows_every_line_once() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    nim_reversed_then("delete\ncontinue\ncontinue\n");
}

/// The same, but gdb detaches while the machine is in the past: it replays to where the
/// recording ended, showing nothing twice, then plays on live.
#[test]
fn a_game_left_in_the_past_by_detach_shows_every_line_once() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    nim_reversed_then("delete\ndetach\n");
}

/// Nim: three moves typed and played to a breakpoint, two reverse-continues, the rest of the
/// moves typed, then `finish` (gdb commands); the console must show the sample transcript.
fn nim_reversed_then(finish: &str) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = Scratch::new();
    let source = std::fs::read_to_string(root.join("programs/lc3/nim.asm")).unwrap();
    let prog = dir.write("nim.asm", &source);
    let stub = Stub::start(&prog, &[]);
    let console = stub.open_console();
    let apply_line = source
        .lines()
        .position(|l| l.contains("JSR APPLY_MOVE"))
        .unwrap()
        + 1;
    let typing = |keys: &str| {
        format!(
            "python import os; fd = os.open('{}', os.O_WRONLY); os.write(fd, b'{keys}'); os.close(fd)\n",
            stub.console
        )
    };
    let mut script = format!("break nim.asm:{apply_line}\n");
    for keys in ["B2", "A1", "C6"] {
        script.push_str(&typing(keys));
        script.push_str("continue\n");
    }
    script.push_str("monitor when\nreverse-continue\nreverse-continue\nmonitor when\n");
    script.push_str(&typing("G1B3A3C2A1A*&4A1"));
    script.push_str(finish);
    let out = stub.gdb(&script);
    assert_eq!(
        out.matches("Breakpoint 1, ").count(),
        5,
        "three moves forward, two back:\n{out}"
    );
    if finish.contains("continue") {
        assert_in_order(
            &out,
            &["No more reverse-execution history.", "exited normally"],
        );
    }
    let expected = std::fs::read_to_string(root.join("tests/programs/lc3/nim-sample.out")).unwrap();
    let shown = console.wait_for("Halting the processor", Duration::from_secs(20));
    assert_eq!(shown, expected);
}

/// reverse-next over a call, reverse-step into the call before, reverse-finish out of it
/// (gdb 13 stops on the call instruction itself: its PR 29927).
#[test]
fn reverse_next_step_and_finish_through_a_subroutine() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let dir = Scratch::new();
    let prog = dir.write(
        "calls.asm",
        "        .ORIG x3000
MAIN    AND R1, R1, #0
        JSR BUMP
        JSR BUMP
        ADD R2, R1, #0
        HALT
BUMP    ADD R1, R1, #1
        ADD R1, R1, #1
        RET
        .END
",
    );
    let stub = Stub::start(&prog, &[]);
    let out = stub.gdb(
        "break calls.asm:5\ncontinue\nreverse-next\np $R1\nreverse-next\np $R1\nnext\n\
         reverse-step\nbt\nreverse-finish\np $R1\ninfo registers pc",
    );
    assert_in_order(
        &out,
        &[
            "Breakpoint 1, MAIN () at ",
            "5\t        ADD R2, R1, #0",
            // Back over the second call, then the first.
            "4\t        JSR BUMP",
            "$1 = 2",
            "3\t        JSR BUMP",
            "$2 = 0",
            "4\t        JSR BUMP",
            // Back into the first call's last line, BUMP called from line 3.
            "BUMP () at ",
            "9\t        RET",
            "#0  BUMP () at ",
            "#1  ",
            "MAIN () at ",
            // Out of it backwards: on the call.
            "MAIN () at ",
            "3\t        JSR BUMP",
            "$3 = 0",
            "pc             0x6002",
        ],
    );
}

/// A game and points in it: the program, its options, where to stop (a breakpoint and how
/// many of its hits to pass, each point after the one before), the keys typed, the watched word.
type GamePoints<'a> = (
    &'a str,
    &'a [&'a str],
    &'a [(&'a str, usize)],
    &'a [u8],
    &'a str,
);

/// Differential on the games: at three points of each game, 500 `stepi` record every
/// register and a watched word of the game, and 500 `reverse-stepi` must show the same values
/// in reverse order. The run to the next point starts in the past (500 steps back), so it
/// replays first and then goes on live.
#[test]
fn reverse_stepi_retraces_500_steps_at_points_of_each_game() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let board = "1,2,0,0,0,0,2,1,0,0,0,0,1,2,1,0,0,0,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0";
    let poke = format!("1000={board}");
    let games: [GamePoints; 3] = [
        (
            "programs/lc3/dots.asm",
            &[],
            &[("UPDATE_STATE", 2), ("CHECK_BOX", 2), ("DISPLAY_BOARD", 1)],
            b"B0A1C1B2F6Q",
            "CURRENT_PLAYER",
        ),
        (
            "programs/mips/four_in_a_row.asm",
            &[],
            &[("do_drop", 2), ("check_win", 1), ("print_board", 1)],
            b"Alice\nBob\n1\n4\n0\n1\n3\n0\n1\n4\n0\n",
            "*(int *)&turn",
        ),
        (
            "programs/simplerisc/tictactoe.asm",
            &["--no-mul", "--poke", &poke],
            &[("haswin", 1), ("getcell", 3), ("haswin", 1)],
            b"",
            "*(int *)1000",
        ),
    ];
    for (game, args, points, keys, watched) in games {
        let dir = Scratch::new();
        let name = std::path::Path::new(game)
            .file_name()
            .unwrap()
            .to_str()
            .unwrap();
        let prog = dir.write(name, &std::fs::read_to_string(root.join(game)).unwrap());
        let stub = Stub::start(&prog, args);
        stub.open_console().type_bytes(keys);
        let steps = 500;
        let show = format!("echo @@STATE@@\\n\ninfo registers\np {watched}\n");
        let mut script = String::new();
        for (point, (stop_at, hits)) in points.iter().enumerate() {
            script.push_str(&format!("echo POINT {point}\\n\nbreak {stop_at}\n"));
            script.push_str(&"continue\n".repeat(*hits));
            script.push_str("delete\n");
            script.push_str(&show);
            script.push_str(&there_and_back(steps, &show));
        }
        let out = stub.gdb(&script);
        let mut pcs_at_points = Vec::new();
        for (point, text) in out.split("POINT ").skip(1).enumerate() {
            // Each state: what `info registers` printed and the watched word (without gdb's
            // value-history number), up to the `$N = ` line.
            let grouped: Vec<Vec<String>> = text
                .split("@@STATE@@\n")
                .skip(1)
                .map(|chunk| {
                    let mut lines = Vec::new();
                    for line in chunk.lines() {
                        match line.split_once(" = ") {
                            Some((_, value)) if line.starts_with('$') => {
                                lines.push(format!("= {value}"));
                                break;
                            }
                            _ => lines.push(line.to_string()),
                        }
                    }
                    lines
                })
                .collect();
            assert_eq!(
                grouped.len(),
                2 * steps + 1,
                "{game} point {point}: states printed\n{text}"
            );
            let forward = &grouped[..=steps];
            let mut back: Vec<Vec<String>> = grouped[steps..].to_vec();
            back.reverse();
            for (i, (f, b)) in forward.iter().zip(&back).enumerate() {
                assert_eq!(
                    f, b,
                    "{game} point {point}: step {i} going forward and coming back"
                );
            }
            assert!(
                forward.windows(2).any(|w| w[0] != w[1]),
                "{game} point {point}: the steps changed something\n{}",
                text.lines().take(40).collect::<Vec<_>>().join("\n")
            );
            pcs_at_points.push(forward[0].clone());
        }
        assert_eq!(
            pcs_at_points.len(),
            points.len(),
            "{game}: every point reached\n{out}"
        );
        pcs_at_points.dedup();
        assert_eq!(
            pcs_at_points.len(),
            points.len(),
            "{game}: three different states"
        );
    }
}

/// A write watchpoint, then going back over the watched store by `reverse-stepi` and by
/// `reverse-next`: gdb shows the change reversed, and continuing stops on the same store again
/// with the change forwards (the backward step used to be reported without its watch, so gdb
/// kept the new value and the forward run passed the store silently, to the end).
#[test]
fn a_watchpoint_stepped_back_over_stops_again_going_forward() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    for case in [LC3, MIPS, SIMPLERISC] {
        let (_dir, stub) = start(&case);
        let script = format!(
            "watch {total}\ncontinue\nreverse-stepi\np {total}\ncontinue\np {total}\n\
             reverse-next\np {total}\ncontinue\np {total}\ncontinue\n",
            total = case.total,
        );
        let out = stub.gdb(&script);
        let forward = ["Old value = 0", "New value = 1"];
        let back = ["Old value = 1", "New value = 0"];
        let mut want: Vec<&str> = Vec::new();
        // continue; reverse-stepi; continue; reverse-next; continue; the second pass's store.
        want.extend(forward);
        want.extend(back);
        want.push("$1 = 0");
        want.extend(forward);
        want.push("$2 = 1");
        want.extend(back);
        want.push("$3 = 0");
        want.extend(forward);
        want.push("$4 = 1");
        want.extend(["Old value = 1", "New value = 3"]);
        assert_in_order(&out, &want);
        assert_eq!(
            out.matches("Old value").count(),
            6,
            "{}: every stop shows its change once: {out}",
            case.name
        );
        assert!(!out.contains("exited"), "{}: {out}", case.name);
    }
}
