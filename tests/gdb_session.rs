//! What happens to the machine between debuggers: after gdb's `detach` (and gdb's quit, which
//! detaches) the game runs on and stays playable, as under gdbserver and QEMU; a connection
//! that drops without detaching leaves the machine halted for the next debugger; a debugger
//! that attaches finds the machine stopped where it got to.

mod support;

use std::net::TcpStream;
use std::time::{Duration, Instant};

use asmdbg_testsupport::require_tool;
use support::{assert_in_order, rsp_exchange, Scratch, Stub};

/// Echoes keys until a newline, then halts; `LOOP` spins so a detached run has somewhere to
/// be when a debugger comes back.
const ECHO: &str = "\
        .ORIG x3000
AGAIN   GETC
        OUT
        ADD R1, R0, #-10   ; stop after a newline
        BRnp AGAIN
        HALT
        .END
";

/// `asmdbg debug` of [`ECHO`], halted at its entry: the scratch directory, the program, the stub.
fn echo_stub() -> (Scratch, std::path::PathBuf, Stub) {
    let dir = Scratch::new();
    let prog = dir.write("echo.asm", ECHO);
    let stub = Stub::start(&prog, &[]);
    (dir, prog, stub)
}

fn wait_for_stderr(stub: &Stub, needle: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let text = stub.stderr();
        if text.contains(needle) || Instant::now() > deadline {
            return text;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn after_detach_the_game_runs_on_and_a_new_debugger_finds_it_where_it_got_to() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let (_dir, _prog, stub) = echo_stub();
    let mut console = stub.open_console();
    let out = stub.gdb("p/x $pc\ndetach");
    assert!(out.contains("$1 = 0x6000"), "halted at the entry: {out}");
    assert!(out.contains("[Inferior 1 (process 1) detached]"), "{out}");
    // Nobody is attached: the program reads the keys and echoes them.
    console.type_bytes(b"play");
    let shown = console.wait_for("play", Duration::from_secs(10));
    assert!(
        shown.contains("play"),
        "the detached game is playable: {shown:?}"
    );
    // A debugger attaching now stops it inside GETC's wait, in the OS.
    let out = stub.gdb("p/x $pc\np $pc < 0x6000");
    assert_in_order(&out, &["$1 = 0x", "$2 = 1"]);
    // gdb's batch end detached again: the game still runs, to its end.
    console.type_bytes(b"!\n");
    let shown = console.wait_for("Halting", Duration::from_secs(10));
    assert_in_order(&shown, &["play!\n", "Halting the processor"]);
    let stderr = wait_for_stderr(&stub, "no debugger was attached");
    assert!(
        stderr.contains("asmdbg: the program halted while no debugger was attached"),
        "{stderr}"
    );
    // The next debugger finds the ended program and can still look at it.
    let out = stub.gdb("p $r1\ncontinue\ncontinue");
    // The end of history first (time travel), then the end.
    assert_in_order(
        &out,
        &[
            "$1 = 0",
            "No more reverse-execution history.",
            "exited normally",
        ],
    );
}

#[test]
fn a_dropped_connection_leaves_the_machine_halted_for_the_next_debugger() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let (_dir, _prog, stub) = echo_stub();
    let mut console = stub.open_console();
    let mut stream = TcpStream::connect(("127.0.0.1", stub.port)).expect("connect");
    let reply = rsp_exchange(&mut stream, "?");
    assert!(reply.contains("$S05") || reply.contains("$T05"), "{reply}");
    drop(stream);
    console.type_bytes(b"x\n");
    // Had it run, the keys would be echoed and the program would have halted.
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(console.output(), "", "the machine stayed halted");
    let out = stub.gdb("p/x $pc\ncontinue\ncontinue");
    assert_in_order(
        &out,
        &[
            "$1 = 0x6000",
            "No more reverse-execution history.",
            "exited normally",
        ],
    );
    let shown = console.wait_for("Halting", Duration::from_secs(10));
    assert_in_order(&shown, &["x\n", "Halting the processor"]);
}

#[test]
fn gdb_on_this_host_reads_the_elf_from_disk_without_warnings_on_every_connection() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let dir = Scratch::new();
    let prog = dir.write("echo.asm", ECHO);
    let elf = std::fs::canonicalize(prog.with_extension("elf").parent().expect("dir"))
        .expect("canonical dir")
        .join("echo.elf");
    let stub = Stub::start(&prog, &[]);
    // Two connections in one gdb: the second used to print "`target:…' has disappeared".
    let port = stub.port;
    let out = stub.gdb(&format!(
        "info symbol 0x6000\ndetach\ntarget remote 127.0.0.1:{port}\ninfo symbol 0x6000"
    ));
    assert!(
        out.contains(&format!("Reading symbols from {}...", elf.display())),
        "{out}"
    );
    assert_in_order(&out, &["AGAIN in section .text", "AGAIN in section .text"]);
    for noise in ["from remote target", "File transfers", "has disappeared"] {
        assert!(!out.contains(noise), "{noise:?} in:\n{out}");
    }
    // The one warning: gdb declines the helper script in the ELF until its folder is in the
    // auto-load safe-path (it says how), once.
    let warnings: Vec<&str> = out.lines().filter(|l| l.contains("warning")).collect();
    assert_eq!(warnings.len(), 1, "{out}");
    assert!(
        warnings[0].contains("auto-loading has been declined by your `auto-load safe-path'"),
        "{out}"
    );
    // Trusted, nothing at all.
    let dir_path = elf.parent().expect("the ELF's folder");
    let out = stub.gdb_helpers(
        dir_path,
        "info symbol 0x6000\ninfo auto-load python-scripts",
    );
    assert!(!out.contains("warning"), "{out}");
    assert_in_order(
        &out,
        &["AGAIN in section .text", "Yes", "asmdbg-helpers-lc3"],
    );
}

#[test]
fn an_elf_that_is_not_on_disk_as_served_comes_over_the_connection() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let (_dir, prog, stub) = echo_stub();
    // Someone rebuilt or removed the file since asmdbg wrote it.
    std::fs::write(prog.with_extension("elf"), b"not the program").expect("overwrite");
    let out = stub.gdb("info symbol 0x6000");
    assert_in_order(
        &out,
        &["Reading symbols from target:", "AGAIN in section .text"],
    );
}

#[test]
fn plain_gdb_that_gives_up_on_the_registers_gets_the_fix_named_on_stderr() {
    if !require_tool("gdb") || !require_tool("gdb-multiarch") {
        return;
    }
    let (_dir, _prog, stub) = echo_stub();
    // gdb-multiarch goes on after reading the registers: nothing is said.
    let out = stub.gdb("p 1");
    assert!(out.contains("$1 = 1"), "{out}");
    // Plain gdb: LC-3's registers do not fill the x86-64 ones it expects, and it hangs up.
    let out = std::process::Command::new("gdb")
        .args(["-nx", "-batch", "-ex"])
        .arg(format!("target remote 127.0.0.1:{}", stub.port))
        .output()
        .expect("run gdb");
    let printed =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    assert!(printed.contains("Truncated register"), "{printed}");
    let stderr = wait_for_stderr(&stub, "use gdb-multiarch");
    assert!(
        stderr.contains(
            "it is a gdb without ARM support, which this lc3 machine needs: use gdb-multiarch"
        ),
        "{stderr}"
    );
    assert_eq!(stderr.matches("use gdb-multiarch").count(), 1, "{stderr}");
    // (Plain gdb reads MIPS and SimpleRISC registers without an error, wrongly, and goes on:
    // nothing on the wire tells it from gdb-multiarch, so the README names that symptom.)
}
