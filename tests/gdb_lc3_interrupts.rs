//! gdb-multiarch on the keyboard-interrupt lab (programs/lc3/interrupts/: an interrupt service
//! routine at x1500 in isr.asm, the user program at x3000 in user_program.asm), served as one
//! program of two files: breakpoints in both files, `bt` inside the interrupt routine down to
//! the interrupted program's frame, watchpoints on KBSR, KBDR and a label, `next` over the
//! instruction after which an interrupt arrives (the routine runs inside the step) and `step`
//! there (it stops in the routine), and a key typed on the console while the program runs.
//! For the two profiles with interrupts: patt, and lc3tools with --ignore-privilege (the user
//! program writes the vector table and KBSR).

mod support;

use std::path::PathBuf;
use std::time::Duration;

use asmdbg_testsupport::require_tool;
use support::{assert_in_order, Stub};

const PROFILES: [&[&str]; 2] = [
    &["--profile", "patt"],
    &["--profile", "lc3tools", "--ignore-privilege"],
];

fn lab(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("programs/lc3/interrupts/{file}"))
}

/// `asmdbg debug isr.asm user_program.asm` with `extra` options; the ELF goes to a scratch
/// directory.
fn start(extra: &[&str], elf_dir: &std::path::Path) -> Stub {
    let user = lab("user_program.asm");
    let elf = elf_dir.join("lab.elf");
    let mut args = vec![user.to_str().unwrap(), "--elf", elf.to_str().unwrap()];
    args.extend_from_slice(extra);
    Stub::start(&lab("isr.asm"), &args)
}

#[test]
fn breakpoints_in_both_files_bt_in_the_isr_and_watchpoints_on_the_keyboard() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    for extra in PROFILES {
        let dir = tempfile::tempdir().unwrap();
        let stub = start(extra, dir.path());
        // A key is waiting before the program turns interrupts on: the interrupt comes right
        // after the store that sets KBSR's enable bit.
        let mut console = stub.open_console();
        console.type_bytes(b"Q");
        // KBSR is xFE00, KBDR xFE02: gdb addresses 0x1fc00 and 0x1fc04.
        let out = stub.gdb(
            "break user_program.asm:27\nbreak isr.asm:12\ncontinue\n\
             watch *(short *)0x1fc00\ncontinue\ndelete 3\ncontinue\nbt\n\
             rwatch *(short *)0x1fc04\nwatch NL_SAVE\ncontinue\ncontinue\nbt\n\
             delete\nbreak user_program.asm:31\ncontinue\nbt\ncontinue",
        );
        assert_in_order(
            &out,
            &[
                "Breakpoint 1, MAIN () at ",
                "user_program.asm:27",
                // The store that turns interrupts on, with KBSR before (key ready) and after
                // (key ready and interrupt enable).
                "Hardware watchpoint 3: *(short *)0x1fc00",
                "Old value = -32768",
                "New value = -16384",
                // The key is waiting: the interrupt comes after that store.
                "Breakpoint 2, ISR () at ",
                "isr.asm:12",
                "#0  ISR () at ",
                "isr.asm:12",
                // The interrupted program, at the instruction after that store (gdb shows
                // the line of the instruction before a caller's resume address).
                "#1  0x0000600a in MAIN () at ",
                "user_program.asm:28",
                // The routine reads the key from KBDR.
                "Hardware read watchpoint 4: *(short *)0x1fc04",
                "Value = 81",
                "isr.asm:18",
                // ... and saves it in NEWLINE (a label of isr.asm).
                "Hardware watchpoint 5: NL_SAVE",
                "New value = 81",
                "#0  NEWLINE () at ",
                "#1  0x00002a26 in ISR () at ",
                "isr.asm:30",
                "#2  0x0000600a in MAIN () at ",
                "user_program.asm:28",
                // RTI: back in the program, which prints its banner.
                "Breakpoint 6, MAIN () at ",
                "user_program.asm:31",
            ],
        );
        assert!(!out.contains("?? ()"), "{extra:?}: {out}");
        let shown = console.wait_for("QQQQQQQQQQ", Duration::from_secs(20));
        assert!(shown.contains("\nQQQQQQQQQQ\n"), "{extra:?}: {shown:?}");
    }
}

#[test]
fn next_runs_an_arriving_interrupt_inside_the_step_and_step_enters_it() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    for extra in PROFILES {
        // A key is waiting when line 28 turns interrupts on: the interrupt is taken before the
        // instruction of line 29. `next` over line 28 ends on line 29 with nothing taken yet
        // (NL_SAVE still 0); `next` over line 29 runs the routine inside the step (the key
        // is read and echoed, NL_SAVE holds it) and ends on line 30...
        let dir = tempfile::tempdir().unwrap();
        let stub = start(extra, dir.path());
        let mut console = stub.open_console();
        console.type_bytes(b"n");
        let out = stub.gdb(
            "break user_program.asm:28\ncontinue\nnext\nprint NL_SAVE\nnext\ninfo registers pc\nprint NL_SAVE",
        );
        assert_in_order(
            &out,
            &[
                "Breakpoint 1, MAIN () at ",
                "user_program.asm:28",
                "29\t        LD R3, ROUNDS",
                "$1 = 0",
                "30\tLOOP    LEA R0, BANNER",
                "pc             0x600c",
                "$2 = 110",
            ],
        );
        assert!(!out.contains("ISR () at"), "{extra:?}: {out}");
        let shown = console.wait_for("nnnnnnnnnn", Duration::from_secs(20));
        assert!(shown.contains("\nnnnnnnnnnn\n"), "{extra:?}: {shown:?}");
        drop(stub);

        // ... `step` there stops at the routine's first line, the interrupted program its
        // caller; `stepi` there stops on the routine's first instruction, before it runs.
        for command in ["step", "stepi"] {
            let stub = start(extra, dir.path());
            let mut console = stub.open_console();
            console.type_bytes(b"s");
            let out = stub.gdb(&format!(
                "break user_program.asm:28\ncontinue\nnext\n{command}\ninfo registers pc\nbt"
            ));
            assert_in_order(
                &out,
                &[
                    "Breakpoint 1, MAIN () at ",
                    "user_program.asm:28",
                    "29\t        LD R3, ROUNDS",
                    "12\tISR ",
                    "pc             0x2a00",
                    "#0  ISR () at ",
                    "#1  0x0000600a in MAIN () at ",
                ],
            );
        }
    }
}

#[test]
fn a_key_typed_while_the_program_runs_raises_the_interrupt() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // Banners without end (as many as fit in a word, with a long pause), until the key.
    let stub = start(
        &["--poke", "ROUNDS=32767", "--poke", "PAUSE=32767"],
        dir.path(),
    );
    let mut console = stub.open_console();
    let port = stub.port;
    let gdb = std::thread::spawn(move || {
        let mut cmd = std::process::Command::new("gdb-multiarch");
        cmd.args(["-nx", "-batch", "-ex", "set confirm off"])
            .arg("-ex")
            .arg(format!("target remote 127.0.0.1:{port}"))
            .args(["-ex", "continue"])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        cmd.status()
    });
    console.wait_for("~~~ Type a letter", Duration::from_secs(30));
    console.type_bytes(b"k");
    let shown = console.wait_for("kkkkkkkkkk", Duration::from_secs(30));
    assert!(shown.contains("\nkkkkkkkkkk\n"), "{shown:?}");
    drop(stub);
    let _ = gdb.join();
}
