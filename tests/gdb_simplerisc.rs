//! gdb-multiarch against `asmdbg debug` on SimpleRISC programs (ARM M-profile pose; data at
//! gdb address 0.., code at 0x80000000 + 4 x slot).

mod support;

use std::time::Duration;

use asmdbg_testsupport::require_tool;
use support::{assert_in_order, Scratch, Stub};

/// Slots: 0 mov r1,3 | 1 mov r2,100 | 2 loop: st r1,0[r2] | 3 sub r1,r1,1 | 4 cmp r1,0
/// 5 bgt loop | 6 ld r3,0[r2] | 7 call double | 8 .print r3, r4 | 9 b end
/// 10 double: add r4,r3,r3 | 11 ret | 12 end: nop
const PROGRAM: &str = "\
.main:
\tmov r1, 3
\tmov r2, 100
loop:
\tst r1, 0[r2]
\tsub r1, r1, 1
\tcmp r1, 0
\tbgt loop
\tld r3, 0[r2]
\tcall double
\t.print r3, r4
\tb end
double:
\tadd r4, r3, r3
\tret
end:
\tnop
";

fn start() -> (Scratch, Stub) {
    let dir = Scratch::new();
    let prog = dir.write("loop.asm", PROGRAM);
    let stub = Stub::start(&prog, &["--isa", "simplerisc"]);
    (dir, stub)
}

#[test]
fn registers_step_and_breakpoints() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let (_dir, stub) = start();
    let out = stub.gdb(
        "info registers\nstepi\np $r1\np $pc\nbreak *0x80000014\ncontinue\np $r1\nx/xw 100\nset $r1 = 0\ndelete\ncontinue\ncontinue",
    );
    assert_in_order(
        &out,
        &[
            "r0             0x0",
            "sp             0xffc",
            "pc             0x80000000",
            "r13",
            "r14            0xffc",
            "flags",
            "$1 = 3",
            "$2 = (void (*)()) 0x80000004",
            "Breakpoint 1, ",
            "$3 = 2",
            ":\t0x00000003",
            // The end of history first (time travel), then the end.
            "No more reverse-execution history.",
            "exited normally",
        ],
    );
}

#[test]
fn watchpoint_on_data_and_call_return() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let (_dir, stub) = start();
    let console = stub.open_console();
    let out = stub.gdb(
        "watch *(int*)100\ncontinue\ncontinue\ndelete\nbreak *0x80000028\ncontinue\np $lr\np $r15\ndelete\ncontinue\ncontinue",
    );
    assert_in_order(
        &out,
        &[
            "Hardware watchpoint 1: *(int*)100",
            "Old value = 0",
            "New value = 3",
            "Old value = 3",
            "New value = 2",
            "Breakpoint 2, ",
            "$1 = (void (*)()) 0x80000020",
            "$2 = (void (*)()) 0x20",
            "No more reverse-execution history.",
            "exited normally",
        ],
    );
    let text = console.wait_for("r4", Duration::from_secs(10));
    assert_in_order(&text, &["r3 : 1", "r4 : 2"]);
}

// At its end a SimpleRISC program has run off its code. gdb showed `0x80000034 in ?? ()` and a
// caller made up from the return register (`#1 ... in double ()`), and `lr 0x80000000` (slot
// 0) when r15 was 0. Now the end slot is `end_of_program`, placed at the last line, the
// outermost frame; lr is 0 when there is no return address.
#[test]
fn the_end_is_one_honest_frame() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let (_dir, stub) = start();
    let out = stub.gdb("continue\nbt\np $pc\np $r15\ncontinue");
    assert_in_order(
        &out,
        &[
            "No more reverse-execution history.",
            "0x80000034 in end_of_program () at ",
            "#0  0x80000034 in end_of_program () at ",
            "$1 = (void (*)()) 0x80000034 <end_of_program>",
            "$2 = (void (*)()) 0x20",
            "exited normally",
        ],
    );
    assert!(!out.contains("#1 "), "no caller at the end:\n{out}");
    assert!(!out.contains("?? ()"), "{out}");
    // A program that made no call: r15 is 0, and so is lr (no return address, not slot 0).
    let dir = Scratch::new();
    let prog = dir.write("flat.asm", ".main:\n\tmov r1, 1\n\tadd r1, r1, 1\n");
    let flat = Stub::start(&prog, &["--isa", "simplerisc"]);
    let out = flat.gdb("p $lr\np $r15\ncontinue\nbt\ncontinue");
    assert_in_order(
        &out,
        &[
            "$1 = (void (*)()) 0x0",
            "$2 = (void (*)()) 0x0",
            "No more reverse-execution history.",
            "#0  0x80000008 in end_of_program () at ",
            "exited normally",
        ],
    );
    assert!(!out.contains("#1 "), "{out}");
}

#[test]
fn monitor_disassembles_simplerisc() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let (_dir, stub) = start();
    let out = stub.gdb("monitor disas 0 3\nmonitor disas double 2\nmonitor regs");
    assert_in_order(
        &out,
        &[
            "=> 0:",
            "mov r1, 3",
            "4:",
            "mov r2, 100",
            "loop:",
            "st r1, 0[r2]",
            "double:",
            "add r4, r3, r3",
            "ret",
            "sp",
            "4092",
        ],
    );
}

const SPIN: &str = ".main:\nspin:\n\tadd r1, r1, 1\n\tb spin\n";

#[test]
fn ctrl_c_interrupts_a_spinning_program() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let dir = Scratch::new();
    let prog = dir.write("spin.asm", SPIN);
    let stub = Stub::start(&prog, &["--isa", "simplerisc", "--checks=off"]);
    let out = stub.gdb(
        "python import threading, os, signal; threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()\ncontinue\np $r1 > 1000",
    );
    assert_in_order(&out, &["Program received signal SIGINT", "$1 = 1"]);
}
