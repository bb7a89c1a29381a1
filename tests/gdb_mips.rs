//! gdb-multiarch against `asmdbg debug` on MIPS (MARS semantics, no delay slots; gdb's
//! standard MIPS register features, pc and ra code pointers, osabi none so gdb steps with vCont;s).

mod support;

use std::time::Duration;

use asmdbg_testsupport::require_tool;
use support::{assert_in_order, Scratch, Stub};

/// 0x400000 li $t0,5 | 04 li $t1,0 | 08 loop: addu | 0c lui $at | 10 sw $t1,0($at)
/// 14 addiu $t0,-1 | 18 bgtz | 1c li $v0,5 | 20 syscall (read int) | 24 addu $t1,$t1,$v0
/// 28 lui | 2c sw | 30 li $v0,4 | 34 lui | 38 ori | 3c syscall | 40 li $v0,1 | 44 lui
/// 48 lw | 4c syscall | 50 li $v0,10 | 54 syscall
const PROGRAM: &str = "\
        .data
count:  .word 0
msg:    .asciiz \"total: \"
        .text
main:   li $t0, 5
        li $t1, 0
loop:   addu $t1, $t1, $t0
        sw $t1, count
        addiu $t0, $t0, -1
        bgtz $t0, loop
        li $v0, 5
        syscall
        addu $t1, $t1, $v0
        sw $t1, count
        li $v0, 4
        la $a0, msg
        syscall
        li $v0, 1
        lw $a0, count
        syscall
        li $v0, 10
        syscall
";

fn start() -> (Scratch, Stub) {
    let dir = Scratch::new();
    let prog = dir.write("sum.asm", PROGRAM);
    let stub = Stub::start(&prog, &[]);
    (dir, stub)
}

#[test]
fn registers_stepi_and_breakpoints() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let (_dir, stub) = start();
    let out = stub.gdb(
        "info registers\nstepi\nstepi\np $t0\np/x $pc\nbreak *0x400018\ncontinue\np $t1\nset $t0 = 1\ncontinue\np/x $pc",
    );
    assert_in_order(
        &out,
        &[
            "zero",
            "t0",
            "sp",
            "ra",
            "pc",
            "00400000",
            "$1 = 5",
            "$2 = 0x400008",
            "Breakpoint 1, ",
            "$3 = 5",
            "Breakpoint 1, ",
        ],
    );
}

#[test]
fn watchpoints_report_the_storing_instruction() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let (_dir, stub) = start();
    let mut console = stub.open_console();
    console.type_bytes(b"6\r");
    let out = stub.gdb(
        "watch *(int*)0x10010000\ncontinue\np/x $pc\ncontinue\ndelete\nrwatch *(int*)0x10010000\ncontinue\np/x $pc\nx/s 0x10010004\nx/2xw 0x10010000",
    );
    assert_in_order(
        &out,
        &[
            "Hardware watchpoint 1",
            "Old value = 0",
            "New value = 5",
            "$1 = 0x400014",
            "Old value = 5",
            "New value = 9",
            "Hardware read watchpoint 2",
            "Value = 21",
            "\"total: \"",
            ":\t0x00000015",
        ],
    );
}

#[test]
fn console_input_ctrl_c_and_exit() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let (_dir, stub) = start();
    let mut console = stub.open_console();
    // The guest blocks in read_int (syscall 5); gdb's interrupt stops it there.
    let out = stub.gdb(
        "python import threading, os, signal; threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT)).start()\ncontinue\np/x $pc\np $v0",
    );
    assert_in_order(
        &out,
        &["Program received signal SIGINT", "$1 = 0x400020", "$2 = 5"],
    );
    console.type_bytes(b"27\n");
    // The end is first the end of history (time travel), then the end.
    let out = stub.gdb("continue\ncontinue");
    assert_in_order(
        &out,
        &["No more reverse-execution history.", "exited normally"],
    );
    let text = console.wait_for("total: 42", Duration::from_secs(10));
    assert!(text.contains("total: 42"), "{text}");
}

#[test]
fn monitor_uses_mars_register_names() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let (_dir, stub) = start();
    let out = stub.gdb("monitor disas main 3\nmonitor regs");
    assert_in_order(
        &out,
        &[
            "main:",
            "=> 0x00400000: 0x24080005  addiu $t0,$zero,5",
            "0x00400004: 0x24090000  addiu $t1,$zero,0",
            "loop:",
            "0x00400008: 0x01284821  addu $t1,$t1,$t0",
            "gp",
            "0x10008000",
            "sp",
            "0x7fffeffc",
        ],
    );
}

/// `main` calls `twice` with `jal`; pc and ra are described as code pointers, so gdb prints
/// them as addresses with their symbols, not as decimal numbers.
const CALL: &str = "\
        .text
main:   li $a0, 5
        jal twice
        li $v0, 10
        syscall
twice:  addu $v0, $a0, $a0
        jr $ra
";

#[test]
fn pc_and_ra_print_as_code_addresses() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let dir = Scratch::new();
    let prog = dir.write("call.asm", CALL);
    let stub = Stub::start(&prog, &[]);
    let out = stub.gdb("p $pc\nstepi\nstepi\np $pc\np $ra\np $sp\np/x $ra\np $a0");
    assert_in_order(
        &out,
        &[
            "$1 = (void (*)()) 0x400000 <main>",
            "$2 = (void (*)()) 0x400010 <twice>",
            "$3 = (void (*)()) 0x400008 <main+8>",
            "$4 = (void *) 0x7fffeffc",
            "$5 = 0x400008",
            "$6 = 5",
        ],
    );
}
