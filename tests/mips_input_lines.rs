//! `asmdbg run` of a MIPS program reads its console lines as MARS's `BufferedReader.readLine`
//! does, whether the input is an `--input` file (known whole before the run) or piped on stdin
//! (arriving in pieces): `\n`, `\r\n` and a lone `\r` each end one line. Expected output derived
//! from MARS 4.5's syscalls 5 and 8 (mars/util/SystemIO.java), not recorded from a MARS run.

mod support;

use support::{run_asmdbg, Scratch};

/// Reads an int, prints it and a space, reads a string into a 16-byte buffer and prints it,
/// twice.
const PROGRAM: &str = "
        .data
buf:    .space 16
        .text
main:   li $s0, 2
again:  li $v0, 5
        syscall
        move $a0, $v0
        li $v0, 1
        syscall
        li $a0, 32
        li $v0, 11
        syscall
        li $v0, 8
        la $a0, buf
        li $a1, 16
        syscall
        li $v0, 4
        syscall
        addi $s0, $s0, -1
        bgtz $s0, again
        li $v0, 10
        syscall
";

const INPUT: &str = "7\rold mac\r\n\u{FF18}\r\rend\r";

#[test]
fn an_input_file_with_cr_line_endings_reads_line_by_line() {
    let dir = Scratch::new();
    let prog = dir.write("lines.asm", PROGRAM);
    let input = dir.write("lines.in", INPUT);
    let out = run_asmdbg(
        &[
            "run",
            prog.to_str().unwrap(),
            "--input",
            input.to_str().unwrap(),
        ],
        b"",
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // 7, "old mac", full-width 8, then the empty line between the two CRs; "end" is unread.
    assert_eq!(stdout, "7 old mac\n8 \n");
}

#[test]
fn piped_stdin_with_cr_line_endings_reads_the_same() {
    let dir = Scratch::new();
    let prog = dir.write("lines.asm", PROGRAM);
    let out = run_asmdbg(&["run", prog.to_str().unwrap()], INPUT.as_bytes());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "7 old mac\n8 \n");
}
