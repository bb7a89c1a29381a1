//! Checking the keyboard is not waiting for it, end to end: with no input at all (stdin
//! /dev/null, as a test script runs a game) an LC-3 frame loop that looks at KBSR once a frame
//! runs to its end, while a loop that only polls ends with status 3; a MIPS program polling
//! its MMIO keyboard with no key left to come ends with status 3 instead of spinning for ever.

mod support;

use std::process::Stdio;

use support::{asmdbg, text, Scratch};

fn run_without_input(dir: &Scratch, args: &[&str]) -> std::process::Output {
    asmdbg()
        .current_dir(dir.path())
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("asmdbg runs")
}

#[test]
fn an_lc3_frame_loop_runs_without_input_and_a_poll_loop_waits() {
    let dir = Scratch::with_files(&[
        (
            "frames.asm",
            ".ORIG x3000\nLD R3, N\nF LDI R0, KBSR\nBRn K\nAND R1, R1, #0\nADD R1, R1, #10\n\
             D ST R1, P\nADD R1, R1, #-1\nBRp D\nADD R3, R3, #-1\nBRp F\nLEA R0, DONE\nPUTS\n\
             K HALT\nN .FILL #5000\nKBSR .FILL xFE00\nP .FILL 0\nDONE .STRINGZ \"5000 frames\"\n.END\n",
        ),
        ("wait.asm", ".ORIG x3000\nW LDI R0, KBSR\nBRzp W\nHALT\nKBSR .FILL xFE00\n.END\n"),
    ]);
    let out = run_without_input(&dir, &["run", "frames.asm"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("5000 frames"));
    let out = run_without_input(&dir, &["run", "wait.asm"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(text(&out.stderr)
        .contains("the program waits for input at PC x3000 (wait.asm:2) and none is left"));
}

#[test]
fn a_mips_program_waiting_on_its_mmio_keyboard_with_no_key_left_ends() {
    let src = "        lui $s0, 0xffff\npoll:   lw $t0, 0($s0)\n        andi $t0, $t0, 1\n        beqz $t0, poll\n        li $v0, 10\n        syscall\n";
    let dir = Scratch::with_files(&[("mmio.asm", src), ("typed.txt", "ab")]);
    let out = run_without_input(&dir, &["run", "mmio.asm", "--mmio"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    // Console input the program never reads is no key.
    let out = asmdbg()
        .current_dir(dir.path())
        .args(["run", "mmio.asm", "--mmio", "--input", "typed.txt"])
        .output()
        .expect("asmdbg runs");
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("on its keyboard device (input from a file or a pipe goes to the console's reads; give keys with --keys)"),
        "{}",
        text(&out.stderr)
    );
}
