//! gdb-multiarch against `asmdbg debug` on LC-3 programs (the ARM M-profile pose, gdb address
//! = 2 x word address).

mod support;

use std::time::Duration;

use asmdbg_testsupport::require_tool;
use support::{assert_in_order, Scratch, Stub};

/// x3000 AND, x3001 ADD, x3002 LOOP ADD, x3003 ST, x3004 BRp, x3005 LD, x3006 LEA, x3007 PUTS,
/// x3008 HALT, x3009 COUNT, x300A SEEN, x300B MSG.
const COUNTDOWN: &str = "\
        .ORIG x3000
        AND R1, R1, #0
        ADD R1, R1, #3
LOOP    ADD R1, R1, #-1
        ST R1, COUNT
        BRp LOOP
        LD R2, COUNT
        LEA R0, MSG
        PUTS
        HALT
COUNT   .FILL #9
SEEN    .FILL #0
MSG     .STRINGZ \"done\\n\"
        .END
";

fn countdown() -> (Scratch, Stub) {
    let dir = Scratch::new();
    let prog = dir.write("countdown.asm", COUNTDOWN);
    // The host's console: a pty on Unix, a TCP port on Windows.
    let stub = Stub::start(&prog, &[]);
    (dir, stub)
}

#[test]
fn registers_have_native_names_and_stepi_moves_one_word() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let (_dir, stub) = countdown();
    let out = stub.gdb("info registers\nstepi\ninfo registers pc\np $R1\nstepi\np $R1");
    assert_in_order(
        &out,
        &[
            "pc             0x6000",
            "R0             0x0",
            "R7             0x0",
            "PSR",
            "pc             0x6002",
            "$1 = 0",
            "$2 = 3",
        ],
    );
}

#[test]
fn breakpoint_at_an_address_stops_there() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let (_dir, stub) = countdown();
    // x3004 (BRp) = gdb 0x6008.
    let out = stub.gdb("break *0x6008\ncontinue\np/x $pc\np $R1\ncontinue\np $R1");
    assert_in_order(&out, &["Breakpoint 1, ", "$1 = 0x6008", "$2 = 2", "$3 = 1"]);
}

#[test]
fn write_watchpoint_stops_on_the_store_with_old_and_new_values() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let (_dir, stub) = countdown();
    // COUNT is x3009 = gdb 0x6012; the ST is x3003 = 0x6006. The stub reports the hit before
    // the store commits, gdb steps over it and shows the values with the PC after the store.
    let out = stub.gdb("watch *(short*)0x6012\ncontinue\np $pc\ncontinue\np $pc\np $R1");
    assert_in_order(
        &out,
        &[
            "Hardware watchpoint 1: *(short*)0x6012",
            "Old value = 9",
            "New value = 2",
            "$1 = (void (*)()) 0x6008",
            "Old value = 2",
            "New value = 1",
            "$2 = (void (*)()) 0x6008",
            "$3 = 1",
        ],
    );
}

#[test]
fn read_watchpoint_stops_only_on_the_load() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let (_dir, stub) = countdown();
    // The stores to COUNT do not trigger it; the LD at x3005 (0x600a) does.
    let out = stub.gdb("rwatch *(short*)0x6012\ncontinue\np $pc\np $R2");
    assert_in_order(
        &out,
        &[
            "Hardware read watchpoint 1: *(short*)0x6012",
            "Value = 0",
            "$1 = (void (*)()) 0x600c",
            "$2 = 0",
        ],
    );
}

#[test]
fn access_watchpoint_stops_on_reads_and_writes() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let (_dir, stub) = countdown();
    let out = stub.gdb("awatch *(short*)0x6012\ncontinue\ncontinue\ncontinue\ncontinue\np $pc");
    assert_in_order(
        &out,
        &[
            "Hardware access (read/write) watchpoint 1: *(short*)0x6012",
            "Old value = 9",
            "New value = 2",
            "Old value = 2",
            "New value = 1",
            "Old value = 1",
            "New value = 0",
            "Value = 0",
            "$1 = (void (*)()) 0x600c",
        ],
    );
}

#[test]
fn memory_reads_and_writes_are_exact() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let (_dir, stub) = countdown();
    let out = stub
        .gdb("x/4xh 0x6000\nset {short}0x6014 = 0x1234\nx/2xh 0x6014\nx/2xb 0x6014\nx/xh 0x20000\nx/xh 0x20002");
    assert_in_order(
        &out,
        &[
            ":\t0x5260\t0x1263\t0x127f\t0x3205",
            ":\t0x1234\t0x0064",
            ":\t0x34\t0x12",
            // Just past memory, the read-only shadow of the saved USP (for unwinding out of
            // routines entered through the supervisor stack), then nothing.
            "0x20000:\t0x0000",
            "Cannot access memory at address 0x20002",
        ],
    );
}

#[test]
fn setting_a_register_changes_execution() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let (_dir, stub) = countdown();
    // Skip the loop: set R1 = 1 before the countdown starts, so it ends after one pass.
    let out = stub
        .gdb("break *0x6004\ncontinue\nset $R1 = 1\nbreak *0x600a\ncontinue\np/x $pc\np $R1\nx/xh 0x6012");
    assert_in_order(
        &out,
        &["Breakpoint 2, ", "$1 = 0x600a", "$2 = 0", ":\t0x0000"],
    );
}

#[test]
fn program_output_reaches_the_console_and_exit_is_reported() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let (_dir, stub) = countdown();
    let console = stub.open_console();
    // The end is first the end of history (time travel), then the end.
    let out = stub.gdb("continue\ncontinue");
    assert_in_order(
        &out,
        &["No more reverse-execution history.", "exited normally"],
    );
    let text = console.wait_for("Halting", Duration::from_secs(10));
    assert_in_order(&text, &["done\n", "----- Halting the processor -----"]);
}

#[test]
fn monitor_commands_use_lc3_notation() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let (_dir, stub) = countdown();
    let out =
        stub.gdb("monitor disas x3000 5\nmonitor regs\nmonitor help\nmonitor stats\nmonitor bogus\nmonitor disas $pc 1");
    assert_in_order(
        &out,
        &[
            "=> x3000: x5260  AND R1, R1, #0",
            "x3001: x1263  ADD R1, R1, #3",
            "LOOP:",
            "x3002: x127F  ADD R1, R1, #-1",
            "x3003: x3205  ST R1,",
            "x3004: x03FD  BRp",
            "R0",
            "PC  x3000",
            "monitor disas",
            "instructions executed",
            "unknown monitor command 'bogus'",
            // gdb passes `$pc` through as text; the stub reads the register.
            "=> x3000: x5260  AND R1, R1, #0",
        ],
    );
}

const ECHO: &str = "\
        .ORIG x3000
AGAIN   GETC
        OUT
        ADD R1, R0, #-10   ; stop after a newline
        BRnp AGAIN
        HALT
        .END
";

#[test]
fn console_input_reaches_the_guest_and_ctrl_c_interrupts_a_blocked_guest() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let dir = Scratch::new();
    let prog = dir.write("echo.asm", ECHO);
    let stub = Stub::start(&prog, &[]);
    let mut console = stub.open_console();
    // The guest blocks in GETC; gdb's interrupt (SIGINT from a python timer) must stop it.
    let out = stub.gdb(
        "python import threading, os, signal; threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT)).start()\ncontinue\np $pc",
    );
    assert!(out.contains("Program received signal SIGINT"), "{out}");
    // Reconnect (state kept), type into the pty, and let it finish.
    console.type_bytes(b"hi\n");
    // The end is first the end of history (time travel), then the end.
    let out = stub.gdb("continue\ncontinue");
    assert_in_order(
        &out,
        &["No more reverse-execution history.", "exited normally"],
    );
    let text = console.wait_for("Halting", Duration::from_secs(10));
    assert_in_order(&text, &["hi\n", "Halting the processor"]);
}

const SPIN: &str = "\
        .ORIG x3000
        AND R1, R1, #0
SPIN    ADD R1, R1, #1
        BRnzp SPIN
        .END
";

#[test]
fn ctrl_c_stops_a_running_loop_and_detach_keeps_state() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let dir = Scratch::new();
    let prog = dir.write("spin.asm", SPIN);
    let stub = Stub::start(&prog, &[]);
    let out = stub.gdb(
        "python import threading, os, signal; threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()\ncontinue\nset $R3 = 77\ndetach",
    );
    assert_in_order(
        &out,
        &["Program received signal SIGINT, Interrupt.", "detached"],
    );
    let out = stub.gdb("p $R3\nmonitor stats");
    assert_in_order(&out, &["$1 = 77", "instructions executed"]);
}

#[test]
fn monitor_reset_restores_the_program_and_writes_pokes_again() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let dir = Scratch::new();
    let prog = dir.write("countdown.asm", COUNTDOWN);
    let stub = Stub::start(&prog, &["--poke", "SEEN=1234"]);
    // SEEN is x300A = gdb 0x6014. gdb caches registers, so it is told to read them again.
    let out = stub.gdb(
        "x/dh 0x6014\nset {short}0x6014 = 7\nset {short}0x6000 = 0\nstepi\nmonitor reset\nmaint flush register-cache\nx/dh 0x6014\nx/xh 0x6000\np/x $pc",
    );
    assert_in_order(&out, &[":\t1234", ":\t1234", ":\t0x5260", "= 0x6000"]);
    // gdb prints monitor output on stderr in batch mode (after everything else here).
    assert!(
        out.contains("machine reset; PC = x3000; 1 poked word(s) written again"),
        "{out}"
    );
}
