//! Guest faults under the debugger: gdb sees the matching signal, the guest's console shows the
//! reference tool's message, and the machine stays on the faulting instruction.

mod support;

use std::time::Duration;

use asmdbg_testsupport::require_tool;
use support::{assert_in_order, Scratch, Stub};

fn fault_session(name: &str, source: &str, extra: &[&str], signal: &str, message: &str) {
    let dir = Scratch::new();
    let prog = dir.write(name, source);
    // The programs break conventions on the way to their faults (registers never set, data
    // executed): the debugging checks, which would stop first, are not what is tested here.
    let mut args = extra.to_vec();
    args.push("--checks=off");
    let stub = Stub::start(&prog, &args);
    let console = stub.open_console();
    let out = stub.gdb("continue\np/x $pc");
    assert_in_order(&out, &[&format!("Program received signal {signal}")]);
    let text = console.wait_for(message, Duration::from_secs(10));
    assert!(text.contains(message), "console: {text:?}\ngdb: {out}");
}

#[test]
fn mips_bad_address_unaligned_and_overflow() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    fault_session(
        "segv.asm",
        ".text\nmain: li $t0, 0\nlw $t1, 0($t0)\n",
        &[],
        "SIGSEGV",
        "Runtime exception at 0x00400004: address out of range 0x00000000",
    );
    fault_session(
        "bus.asm",
        ".data\nw: .word 1\n.text\nmain: la $t0, w\nlw $t1, 1($t0)\n",
        &[],
        "SIGBUS",
        "fetch address not aligned on word boundary 0x10010001",
    );
    fault_session(
        "fpe.asm",
        ".text\nmain: li $t0, 0x7fffffff\naddi $t0, $t0, 1\n",
        &[],
        "SIGFPE",
        "arithmetic overflow",
    );
}

#[test]
fn simplerisc_division_by_zero() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    fault_session(
        "div.asm",
        ".main:\n\tmov r1, 5\n\tdiv r2, r1, r0\n",
        &["--isa", "simplerisc"],
        "SIGFPE",
        "Cannot divide by a 0",
    );
}

#[test]
fn lc3sim_illegal_instruction() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    fault_session(
        "ill.asm",
        "\t.ORIG x3000\n\t.FILL xD000\n\t.END\n",
        &["--profile", "lc3sim"],
        "SIGILL",
        "Illegal instruction at x3000!",
    );
}

#[test]
fn simplerisc_branch_to_a_missing_label_faults_when_it_runs() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    // It assembles with a warning (the course interpreter checks the label only then).
    fault_session(
        "nolabel.asm",
        ".main:\n\tmov r1, 5\n\tb .exit4\n",
        &["--isa", "simplerisc"],
        "SIGILL",
        "The label does not exist !!!",
    );
}

// `asmdbg debug --console stdio < keys.txt`: once the file is read, a program that waits for
// more can never go on. gdb's continue used to wait silently for ever; now it stops with
// SIGTTIN ("Stopped (tty input)") where the program waits, and asmdbg's stderr says why, as
// `asmdbg run` does (which exits with status 3 there).
#[test]
fn a_program_waiting_for_input_that_ended_stops_and_says_so() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let dir = Scratch::new();
    let prog = dir.write(
        "echo.asm",
        "        .ORIG x3000\nLOOP    GETC\n        OUT\n        BRnzp LOOP\n        .END\n",
    );
    let keys = dir.write("keys.txt", "ab");
    let stub = Stub::start_stdio(&prog, &[], &keys);
    let out = stub.gdb("continue\ninfo registers pc\nkill");
    assert_in_order(&out, &["Program received signal SIGTTIN", "pc"]);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !stub.stderr().contains("none is left") && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let said = stub.stderr();
    assert!(
        said.contains("asmdbg: the program waits for input at PC x")
            && said.contains("and none is left"),
        "{said}"
    );
}
