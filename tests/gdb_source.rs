//! Source-level debugging through `asmdbg debug` with gdb-multiarch, on programs with nested
//! calls, for each ISA: `break FILE:LINE`, `break LABEL`, `next` over a call, `step` into it,
//! `bt`, `finish`, `watch LABEL`, `print LABEL`, `list` — symbols come from the ELF the stub
//! serves (a bare `target remote`).

mod support;

use asmdbg_testsupport::require_tool;
use support::{assert_in_order, Scratch, Stub};

fn session(name: &str, source: &str, extra: &[&str], commands: &str) -> String {
    let dir = Scratch::new();
    let prog = dir.write(name, source);
    let stub = Stub::start(&prog, extra);
    let out = stub.gdb(commands);
    assert!(!out.contains("Breakpoint address adjusted"), "{out}");
    out
}

const LC3: &str = "\
        .ORIG x3000
MAIN    LD R6, STACK
        AND R2, R2, #0
        ADD R2, R2, #3
AGAIN   JSR OUTER
        ADD R2, R2, #-1
        BRp AGAIN
        HALT
OUTER   ADD R6, R6, #-1
        STR R7, R6, #0
        JSR INNER
        LDR R7, R6, #0
        ADD R6, R6, #1
        RET
INNER   LD R0, SCORE
        ADD R0, R0, #5
        ST R0, SCORE
        RET
SCORE   .FILL #0
STACK   .FILL xFE00
        .END
";

#[test]
fn lc3_source_level_session() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let out = session(
        "nested.asm",
        LC3,
        &[],
        "break nested.asm:6\ncontinue\nprint SCORE\ndelete\nnext\nnext\nstep\nnext\nnext\nstep\nbt\nfinish\nfinish\nbreak INNER\nwatch SCORE\ncontinue\ncontinue\nlist INNER\nprint SCORE",
    );
    assert_in_order(
        &out,
        &[
            "Breakpoint 1 at ",
            "nested.asm, line 6.",
            "Breakpoint 1, MAIN () at ",
            "nested.asm:6",
            "$1 = 5",
            "7\t        BRp AGAIN",
            "5\tAGAIN   JSR OUTER",
            "OUTER () at ",
            "9\tOUTER   ADD R6, R6, #-1",
            "10\t",
            "11\t        JSR INNER",
            "INNER () at ",
            "15\tINNER   LD R0, SCORE",
            "#0  INNER () at ",
            "#1  ",
            "OUTER () at ",
            "#2  ",
            "MAIN () at ",
            "OUTER () at ",
            "12\t        LDR R7, R6, #0",
            "MAIN () at ",
            "6\t        ADD R2, R2, #-1",
            "Breakpoint 2 at ",
            "nested.asm, line 15.",
            "Hardware watchpoint 3: SCORE",
            "Breakpoint 2, INNER () at ",
            "Old value = 10",
            "New value = 15",
            "INNER () at ",
            "18\t        RET",
            "15\tINNER   LD R0, SCORE",
            "$2 = 15",
        ],
    );
}

const MIPS: &str = "\
        .data
score:  .word 0
        .text
        .globl main
main:   li $s0, 3
again:  jal outer
        addiu $s0, $s0, -1
        bgtz $s0, again
        li $v0, 10
        syscall
outer:  addiu $sp, $sp, -4
        sw $ra, 0($sp)
        jal inner
        lw $ra, 0($sp)
        addiu $sp, $sp, 4
        jr $ra
inner:  lw $t0, score
        addiu $t0, $t0, 5
        sw $t0, score
        jr $ra
";

#[test]
fn mips_source_level_session() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let out = session(
        "nested.asm",
        MIPS,
        &[],
        // Line 8 follows a branch-free line, line 7 follows a jal: both must stay put.
        "break nested.asm:7\ncontinue\nprint score\ndelete\nnext\nnext\nstep\nnext\nnext\nstep\nbt\nfinish\nfinish\nbreak inner\nwatch score\ncontinue\ncontinue\nlist inner\nprint score",
    );
    assert_in_order(
        &out,
        &[
            "nested.asm, line 7.",
            "Breakpoint 1, main () at ",
            "nested.asm:7",
            "$1 = 5",
            "8\t        bgtz $s0, again",
            "6\tagain:  jal outer",
            "outer () at ",
            "11\touter:  addiu $sp, $sp, -4",
            "12\t",
            "13\t        jal inner",
            "inner () at ",
            "17\tinner:  lw $t0, score",
            "#0  inner () at ",
            "#1  ",
            "outer () at ",
            "#2  ",
            "main () at ",
            "outer () at ",
            "14\t        lw $ra, 0($sp)",
            "main () at ",
            "7\t        addiu $s0, $s0, -1",
            "nested.asm, line 17.",
            "Hardware watchpoint 3: score",
            "Breakpoint 2, inner () at ",
            "Old value = 10",
            "New value = 15",
            "inner () at ",
            "20\t        jr $ra",
            "17\tinner:  lw $t0, score",
            "$2 = 15",
        ],
    );
}

const SIMPLERISC: &str = "\
.main:
\tmov sp, 2000
\tmov r2, 3
again:
\tcall outer
\tsub r2, r2, 1
\tcmp r2, 0
\tbgt again
\tb end
outer:
\tsub sp, sp, 4
\tst ra, 0[sp]
\tcall inner
\tld ra, 0[sp]
\tadd sp, sp, 4
\tret
inner:
\tld r0, 100[r1]
\tadd r0, r0, 5
\tst r0, 100[r1]
\tret
end:
\tnop
";

#[test]
fn simplerisc_source_level_session() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    // r0 is the running sum; the score word lives at data address 100 (r1 = 0).
    let out = session(
        "nested.asm",
        SIMPLERISC,
        // The program reads r1 as the course machine's zero (no debugging check's stop here).
        &["--isa", "simplerisc", "--checks=off"],
        "break nested.asm:6\ncontinue\ndelete\nnext\nnext\nnext\nstep\nnext\nnext\nstep\nbt\nfinish\nfinish\nbreak inner\nwatch *(int*)100\ncontinue\ncontinue\nlist inner",
    );
    assert_in_order(
        &out,
        &[
            "nested.asm, line 6.",
            "Breakpoint 1, .main () at ",
            "nested.asm:6",
            "7\t\tcmp r2, 0",
            "8\t\tbgt again",
            "5\t\tcall outer",
            "outer () at ",
            "11\t\tsub sp, sp, 4",
            "12\t\tst ra, 0[sp]",
            "13\t\tcall inner",
            "inner () at ",
            "18\t\tld r0, 100[r1]",
            "#0  inner () at ",
            "#1  ",
            "outer () at ",
            "#2  ",
            ".main () at ",
            "outer () at ",
            "14\t\tld ra, 0[sp]",
            ".main () at ",
            "6\t\tsub r2, r2, 1",
            "nested.asm, line 18.",
            "Hardware watchpoint 3: *(int*)100",
            "Breakpoint 2, inner () at ",
            "Old value = 10",
            "New value = 15",
            "21\t\tret",
            "18\t\tld r0, 100[r1]",
        ],
    );
}

const MIPS_JALR: &str = "\
        .text
        .globl main
main:   la $t9, twice
        li $a0, 4
        jalr $t9
        move $s0, $v0
        jalr $t9
        move $s1, $v0
        li $v0, 10
        syscall
twice:  addu $v0, $a0, $a0
        jr $ra
";

#[test]
fn mips_next_and_step_over_jalr() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let out = session(
        "jalr.asm",
        MIPS_JALR,
        &[],
        "break jalr.asm:5\ncontinue\nnext\np $v0\nnext\nstep\nbt\nfinish\np $v0",
    );
    assert_in_order(
        &out,
        &[
            "jalr.asm, line 5.",
            "Breakpoint 1, main () at ",
            "5\t        jalr $t9",
            "6\t        move $s0, $v0",
            "$1 = 8",
            "7\t        jalr $t9",
            "twice () at ",
            "11\ttwice:  addu $v0, $a0, $a0",
            "#0  twice () at ",
            "#1  ",
            "main () at ",
            "8\t        move $s1, $v0",
            "$2 = 8",
        ],
    );
}
