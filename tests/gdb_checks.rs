//! The debugging checks under gdb: on by default in `asmdbg debug`, a finding stops the
//! program with SIGTRAP and its warning on gdb's console; `monitor checks` lists and toggles
//! them; going back in time and forward again stops at the same place with the same warning.

mod support;

use asmdbg_testsupport::require_tool;
use support::{assert_in_order, Scratch, Stub};

/// f changes $s0 without saving it; main goes on counting with it.
const CALLEE_SAVED: &str = "\
        .text
main:   li   $s0, 10
        jal  f
        addi $s0, $s0, 1
        li   $v0, 10
        syscall
f:      li   $s0, 3
        jr   $ra
";

const WARNING: &str = "prog.asm:8:9: warning[callee-saved]: f returns with $s0 changed \
     (0x0000000a at entry, 0x00000003 now) and its caller goes on using it";

#[test]
fn a_finding_stops_with_sigtrap_and_its_warning_on_gdbs_console() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let dir = Scratch::new();
    let prog = dir.write("prog.asm", CALLEE_SAVED);
    let stub = Stub::start(&prog, &[]);
    // The stop is after the use (main's addi, at 0x00400008); continuing runs to the end.
    let out = stub.gdb("continue\np/x $pc\ncontinue");
    // gdb prints what the stub sends for its console (`O` packets) on its own stream: the
    // warning is there, in whatever order the two streams merged.
    assert!(out.contains(WARNING), "{out}");
    assert_in_order(
        &out,
        &[
            "Program received signal SIGTRAP",
            "$1 = 0x40000c",
            "No more reverse-execution history.",
        ],
    );
}

#[test]
fn monitor_checks_lists_and_toggles_them() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let dir = Scratch::new();
    let prog = dir.write("prog.asm", CALLEE_SAVED);
    let stub = Stub::start(&prog, &[]);
    let out = stub.gdb("monitor checks\nmonitor checks off callee-saved\nmonitor checks\ncontinue");
    assert_in_order(
        &out,
        &[
            "callee-saved    on ",
            "return-address  on ",
            "uninitialised   on ",
            "stack           on ",
            "code-as-data    on ",
            "callee-saved    off",
        ],
    );
    assert!(out.contains("No more reverse-execution history."), "{out}");
    assert!(!out.contains("SIGTRAP"), "{out}");
    let out = stub.gdb("monitor checks on bogus");
    assert!(out.contains("unknown check 'bogus'"), "{out}");
}

#[test]
fn back_in_time_and_forward_again_stops_at_the_same_finding() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let dir = Scratch::new();
    let prog = dir.write("prog.asm", CALLEE_SAVED);
    let stub = Stub::start(&prog, &[]);
    let out = stub.gdb(
        "continue\nmonitor when\nreverse-stepi\nreverse-stepi\nmonitor when\ncontinue\nmonitor when\ncontinue",
    );
    // gdb's own lines and what the stub sends for its console (warnings, monitor replies)
    // are two streams: each is in order.
    assert_in_order(
        &out,
        &[
            "Program received signal SIGTRAP",
            "Program received signal SIGTRAP",
            "No more reverse-execution history.",
        ],
    );
    assert_in_order(
        &out,
        &[
            WARNING,
            "instruction 5",
            "instruction 3",
            WARNING,
            "instruction 5",
        ],
    );
}

#[test]
fn checks_off_leave_the_run_alone() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let dir = Scratch::new();
    let prog = dir.write("prog.asm", CALLEE_SAVED);
    let stub = Stub::start(&prog, &["--checks=off"]);
    let out = stub.gdb("continue");
    assert!(
        !out.contains("SIGTRAP") && out.contains("No more reverse-execution history."),
        "{out}"
    );
}

#[test]
fn a_register_the_debugger_set_is_not_uninitialised() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let dir = Scratch::new();
    let prog = dir.write(
        "count.asm",
        ".text\nmain:   addi $t0, $t0, 1\n        li   $v0, 10\n        syscall\n",
    );
    // Untouched, $t0 is read before anything wrote it.
    let stub = Stub::start(&prog, &[]);
    let out = stub.gdb("continue");
    assert!(out.contains("warning[uninitialised]: $t0 is read"), "{out}");
    // Set by hand first: no warning.
    let stub = Stub::start(&prog, &[]);
    let out = stub.gdb("set $t0 = 5\ncontinue\np $t0");
    assert!(
        !out.contains("warning[") && !out.contains("SIGTRAP"),
        "{out}"
    );
    assert!(out.contains("= 6"), "{out}");
}
