//! gdb-multiarch in the LC-3 operating system, for each profile: the OS image is in the ELF
//! with its own source file, labels and call-frame information, so `next` steps over a TRAP,
//! `step` enters the trap routine's source, `finish` comes back, and `bt` inside a routine (also
//! after Ctrl-C while the program waits for a key) shows the OS frame and then the program's
//! frames; a `stepi` in the key-wait loop steps instead of waiting for a key.

mod support;

use std::time::Duration;

use asmdbg_testsupport::require_tool;
use support::{assert_in_order, Scratch, Stub};

/// MAIN prints, then calls ASK, which reads a key and echoes it (saving R7 first: a
/// 2nd-edition TRAP returns through R7).
const PROGRAM: &str = "\
        .ORIG x3000
MAIN    LEA R0, HELLO
        PUTS
        JSR ASK
        HALT
ASK     ST R7, SAVE7
        GETC
        OUT
        LD R7, SAVE7
        RET
SAVE7   .BLKW 1
HELLO   .STRINGZ \"hi\"
        .END
";

const PROFILES: [&str; 3] = ["patt", "lc3sim", "lc3tools"];

fn start(profile: &str) -> (Scratch, Stub) {
    let dir = Scratch::new();
    let prog = dir.write("ask.asm", PROGRAM);
    let stub = Stub::start(&prog, &["--profile", profile]);
    (dir, stub)
}

#[test]
fn next_steps_over_a_trap_step_enters_it_and_finish_returns_in_every_profile() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    for profile in PROFILES {
        let (_dir, stub) = start(profile);
        // The key GETC will read, queued before anything runs.
        let mut console = stub.open_console();
        console.type_bytes(b"k");
        let out = stub.gdb("break ask.asm:3\ncontinue\nnext\nstep\nnext\nstep\nbt\nfinish\nnext");
        let os_file = format!("asmdbg/lc3-os-{profile}.asm:");
        assert_in_order(
            &out,
            &[
                "Breakpoint 1, MAIN () at ",
                "3\t        PUTS",
                // `next` over PUTS: the program's next line, not the OS.
                "4\t        JSR ASK",
                // `step` into ASK, then into GETC's routine, shown in the OS source.
                "ASK () at ",
                "6\tASK     ST R7, SAVE7",
                "7\t        GETC",
                "TRAP_GETC () at ",
                &os_file,
                // The OS frame, then the program's frames down to the entry.
                "#0  TRAP_GETC () at ",
                "#1  0x0000600c in ASK () at ",
                "ask.asm:7",
                "#2  0x00006006 in MAIN () at ",
                "ask.asm:4",
                // `finish` returns to the line after the TRAP.
                "ASK () at ",
                "8\t        OUT",
                "9\t        LD R7, SAVE7",
            ],
        );
        assert!(!out.contains("?? ()"), "{profile}: {out}");
        assert!(!out.contains("Cannot find bounds"), "{profile}: {out}");
        let shown = console.wait_for("hik", Duration::from_secs(10));
        assert!(shown.contains("hik"), "{profile}: {shown:?}");
    }
}

#[test]
fn ctrl_c_in_the_key_wait_shows_the_frames_and_stepi_steps_in_every_profile() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    for profile in PROFILES {
        let (_dir, stub) = start(profile);
        let out = stub.gdb(
            "python import threading, os, signal; threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT)).start()\ncontinue\nbt\nstepi\nstepi\nstepi\nbt\np 42",
        );
        assert_in_order(
            &out,
            &[
                "Program received signal SIGINT",
                // Somewhere in the OS's wait loop (GETC's routine or what it calls) ...
                "#0  ",
                // ... with the program's frames under it.
                "in ASK () at ",
                "ask.asm:7",
                "in MAIN () at ",
                "ask.asm:4",
                // Three steps through the loop without a key, then the same frames again.
                "in ASK () at ",
                "in MAIN () at ",
                "$1 = 42",
            ],
        );
        assert!(!out.contains("target is running"), "{profile}: {out}");
        assert!(!out.contains("?? ()"), "{profile}: {out}");
    }
}
