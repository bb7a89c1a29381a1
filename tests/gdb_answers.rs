//! gdb-multiarch's answers after the machine moved under it and on LC-3 addresses (issue 38):
//! a watchpoint's "Old value" after `monitor goto` (the helper script reads watchpoints again
//! after every monitor command; without it the goto says so), `monitor reset` keeping the
//! console's input (the run from the start reads it again), and a breakpoint on the odd byte of
//! an LC-3 word refused with a message instead of a stop gdb cannot explain, again and again.

mod support;

use asmdbg_testsupport::require_tool;
use support::{assert_in_order, Scratch, Stub};

/// Stores 6, 7, 8 into x, one after the other.
const STORES: &str = "\t.data
x:\t.word 5
\t.text
main:\tli $t0, 6
\tsw $t0, x
\tli $t0, 7
\tsw $t0, x
\tli $t0, 8
\tsw $t0, x
\tli $v0, 10
\tsyscall
";

#[test]
fn a_watchpoint_after_monitor_goto_shows_the_old_value_of_then() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let dir = Scratch::new();
    let prog = dir.write("stores.asm", STORES);
    let stub = Stub::start(&prog, &[]);
    // To the last store, back to just after the first one, on to the second.
    let script = "watch *(int *)&x\ncontinue\ncontinue\ncontinue\nmonitor goto 3\ncontinue";
    let out = stub.gdb_helpers(dir.path(), script);
    assert_in_order(
        &out,
        &[
            "Old value = 5",
            "New value = 6",
            "Old value = 6",
            "New value = 7",
            "Old value = 7",
            "New value = 8",
            // Back after the first store: the store that changed 6 to 7, said so (gdb read
            // its watchpoint again).
            "Old value = 6",
            "New value = 7",
        ],
    );
    // (gdb writes a monitor command's answer on stderr.)
    assert!(out.contains("at instruction 3; PC = 0x0040000c"), "{out}");
    assert!(!out.contains("gdb keeps the registers"), "{out}");
    // Without the script the goto says what gdb does not know.
    drop(stub);
    let stub = Stub::start(&prog, &[]);
    let out = stub.gdb(script);
    assert!(
        out.contains("each watchpoint's next \"Old value\" is its value before the goto"),
        "{out}"
    );
    assert!(out.contains("`maint flush register-cache`"), "{out}");
}

#[test]
fn monitor_reset_reads_the_consoles_input_again() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let dir = Scratch::new();
    let prog = dir.write(
        "echo3.asm",
        "        .ORIG x3000
MAIN    GETC
        OUT
        GETC
        OUT
        GETC
        OUT
        HALT
        .END
",
    );
    let input = dir.write("abc.txt", "abc");
    let stub = Stub::start_stdio(&prog, &[], &input);
    // Two keys read, then back to the start: all three are read again, none is missing.
    let out = stub.gdb_helpers(
        dir.path(),
        "break echo3.asm:6\ncontinue\nmonitor reset\ncontinue\np/c $R0\ncontinue\ncontinue",
    );
    assert_in_order(
        &out,
        &[
            "Breakpoint 1, MAIN () at ",
            "Breakpoint 1, MAIN () at ",
            "$1 = 98 'b'",
            "exited normally",
        ],
    );
    assert!(
        out.contains("machine reset; PC = x3000; the console's 3 byte(s) of input are read again"),
        "{out}"
    );
    let stderr = stub.stderr();
    assert!(!stderr.contains("none is left"), "{stderr}");
}

#[test]
fn an_lc3_breakpoint_inside_a_word_is_refused_and_said_why() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let dir = Scratch::new();
    let prog = dir.write(
        "calls.asm",
        "        .ORIG x3000
MAIN    AND R1, R1, #0
        ADD R1, R1, #1
        ADD R1, R1, #2
        HALT
        .END
",
    );
    let stub = Stub::start(&prog, &[]);
    // (A failed insertion aborts the command: in a batch script, that would end the script.)
    let out = stub.gdb(
        "break *0x6003\npython\ntry:\n  gdb.execute('continue')\nexcept gdb.error as e:\n  \
         print(e)\nend\ndelete\nbreak *0x6002\ncontinue\np $R1\ncontinue\ncontinue",
    );
    assert_in_order(
        &out,
        &[
            "Breakpoint 1 at 0x6003",
            "Command aborted.",
            "Breakpoint 2 at 0x6002",
            "Breakpoint 2, MAIN () at ",
            "$1 = 0",
            "exited normally",
        ],
    );
    // (gdb writes its warnings, and what the stub writes on its console, on stderr.)
    assert!(out.contains("Cannot insert breakpoint 1"), "{out}");
    assert!(
        out.contains(
            "asmdbg: no breakpoint at *0x6003: that is inside the instruction at x3001 (gdb \
             address 0x6002); did you mean *0x6002?"
        ),
        "{out}"
    );
    assert!(!out.contains("SIGTRAP"), "{out}");
}

/// An LC-3 program with a word of data and a string.
const LC3_DATA: &str = "        .ORIG x3000
MAIN    LD R1, VAL
        ADD R1, R1, #1
        ST R1, VAL
        LEA R0, MSG
        PUTS
        HALT
VAL     .FILL 5
MSG     .STRINGZ \"hi\"
        .END
";

/// The helper script's LC-3 commands take LC-3 addresses: no doubling by hand.
#[test]
fn lc3_helpers_take_lc3_addresses() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let dir = Scratch::new();
    let prog = dir.write("data.asm", LC3_DATA);
    let stub = Stub::start(&prog, &[]);
    let out = stub.gdb_helpers(
        dir.path(),
        "lc3 addr x3001\nlc3 break x3002\nlc3 watch VAL\nlc3 rwatch x3007\ncontinue\n\
         continue\nlc3 x/4 x3000\nlc3 x/2d VAL\nlc3 x/s MSG\nlc3 set x3006 = x1F\nlc3 x x3006\n\
         p/x $lc3(0x3000)\np/x $lc3(\"x3001\")\ninfo breakpoints\nlc3 bogus",
    );
    assert_in_order(
        &out,
        &[
            "x3001 is gdb's 0x6002",
            "Breakpoint 1 at 0x6004: file ",
            "Hardware watchpoint 2: VAL",
            "Hardware read watchpoint 3: *(short *)0x600e",
            "Breakpoint 1, MAIN () at ",
            "Hardware watchpoint 2: VAL",
            "Old value = 5",
            "New value = 6",
            "x3000:  x2205  x1261  x3203  xE003",
            "x3006:  6  104",
            "x3007: \"hi\"",
            "x3006:  x001F",
            "$1 = 0x6000",
            "$2 = 0x6002",
        ],
    );
    assert!(out.contains("unknown lc3 command: bogus"), "{out}");
}

/// Addresses gdb is given in the LC-3's own notation (word addresses) land where nothing of
/// the program is: gdb's console says what was likely meant, once.
#[test]
fn a_breakpoint_or_watchpoint_at_an_undoubled_lc3_address_gets_a_hint() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let dir = Scratch::new();
    let prog = dir.write("data.asm", LC3_DATA);
    let stub = Stub::start(&prog, &[]);
    let out = stub.gdb(
        "break *0x3002\nwatch *(short *)0x3006\ncontinue\ndelete\nbreak *0x6004\ncontinue\n\
         continue",
    );
    for hint in [
        "asmdbg: the breakpoint at *0x3002 (x1801) is where nothing of the program is; did you \
         mean *0x6004 (x3002)?",
        "asmdbg: the watchpoint at *0x3006 (x1803) is where nothing of the program is; did you \
         mean *0x600c (x3006, VAL)?",
    ] {
        assert_eq!(out.matches(hint).count(), 1, "{hint}\n{out}");
    }
    // Where the program is, nothing is said.
    assert!(!out.contains("*0x6004 (x3002) is where"), "{out}");
}
