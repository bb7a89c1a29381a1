//! `--speed N`: a run held to N instructions a second, as MARS's run speed slider holds a game
//! (issue 40): `run` takes at least the time its instructions take at that pace and says the
//! pace in `--stats`; a virtual clock moves with the instructions at that pace; the DAP
//! launch's `speed` holds a debugged program the same way. (Lower bounds only: a run can never
//! be faster than its pace, however busy the machine is.)

mod support;

use std::time::{Duration, Instant};

use serde_json::json;
use support::dap::DapClient;
use support::{asmdbg_in, text, Scratch};

/// 2,000,003 instructions, then the virtual clock's milliseconds since the program started.
const LOOP: &str = "
        li $v0, 30
        syscall
        move $s0, $a0
        li $t0, 1000000
l:      addiu $t0, $t0, -1
        bgtz $t0, l
        li $v0, 30
        syscall
        subu $a0, $a0, $s0
        li $v0, 1
        syscall
        li $v0, 10
        syscall
";

#[test]
fn a_paced_run_takes_its_time_and_says_its_pace() {
    let dir = Scratch::with_files(&[("loop.asm", LOOP)]);
    let started = Instant::now();
    let out = asmdbg_in(dir.path(), &["run", "loop.asm", "--speed", "4M", "--stats"]);
    let took = started.elapsed();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        took >= Duration::from_millis(450),
        "2 M instructions at 4 M a second took {took:?}"
    );
    assert!(
        text(&out.stderr).contains("M instructions/s, held to 4 M instructions a second)"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_virtual_clock_moves_at_the_pace() {
    let dir = Scratch::with_files(&[("loop.asm", LOOP)]);
    // 2,000,004 instructions between the two reads of the clock: 20 ms at 100 M a second,
    // however fast the host really ran them (and no time at all without --speed).
    let out = asmdbg_in(
        dir.path(),
        &["run", "loop.asm", "--virtual-time", "--speed", "100M"],
    );
    assert_eq!(text(&out.stdout), "20", "{}", text(&out.stderr));
    let out = asmdbg_in(dir.path(), &["run", "loop.asm", "--virtual-time"]);
    assert_eq!(text(&out.stdout), "0");
}

#[test]
fn the_dap_launch_holds_a_debugged_program_to_its_speed() {
    let dir = Scratch::with_files(&[("loop.asm", LOOP)]);
    let mut dap = DapClient::start();
    dap.launch(json!({"program": dir.path().join("loop.asm"), "speed": "4M"}));
    let started = Instant::now();
    dap.ok("continue", json!({"threadId": 1}));
    // The program's end is a stop (the recorded past stays to be visited).
    assert_eq!(dap.stopped()["reason"], "exit");
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(450),
        "2 M instructions at 4 M a second took {took:?}"
    );
    let bad = DapClient::start().fails(
        "launch",
        json!({"program": dir.path().join("loop.asm"), "speed": "fast"}),
    );
    assert!(bad.contains("'fast' is no speed"), "{bad}");
}
