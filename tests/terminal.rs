//! `asmdbg run` with its stdin and stdout on a terminal (a pty the test holds): LC-3 programs
//! read keys as they are pressed, with no echo from the terminal, and the terminal's settings
//! come back however the run ends; MIPS keeps MARS's line input.

mod support;

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use nix::pty::openpty;
use nix::sys::termios::{tcgetattr, LocalFlags};
use support::Scratch;

/// Sends `signal` to the child, as the terminal's Ctrl-C or a closing window would.
fn send(child: &Child, signal: libc::c_int) {
    let pid = libc::pid_t::try_from(child.id()).expect("pid");
    // SAFETY: kill only sends a signal to our own child process.
    assert_eq!(unsafe { libc::kill(pid, signal) }, 0, "kill");
}

/// asmdbg running on a pty: the test types on the master side and reads what the terminal
/// shows; the slave side stays open here so its settings can be read during and after the run.
struct OnTerminal {
    child: Child,
    master: File,
    slave: OwnedFd,
    shown: Arc<Mutex<Vec<u8>>>,
}

impl OnTerminal {
    fn start(args: &[&str]) -> OnTerminal {
        let pty = openpty(None, None).expect("openpty");
        let slave_in = pty.slave.try_clone().expect("clone slave");
        let slave_out = pty.slave.try_clone().expect("clone slave");
        let child = support::asmdbg()
            .args(args)
            .stdin(Stdio::from(slave_in))
            .stdout(Stdio::from(slave_out))
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn asmdbg");
        let master = File::from(pty.master);
        let mut reader = master.try_clone().expect("clone master");
        let shown = Arc::new(Mutex::new(Vec::new()));
        let sink = shown.clone();
        thread::spawn(move || {
            let mut buf = [0u8; 4096];
            // EIO once every slave handle is closed ends the loop.
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().expect("lock").extend_from_slice(&buf[..n]);
            }
        });
        OnTerminal {
            child,
            master,
            slave: pty.slave,
            shown,
        }
    }

    fn shown(&self) -> String {
        String::from_utf8_lossy(&self.shown.lock().expect("lock")).replace("\r\n", "\n")
    }

    fn wait_for(&self, needle: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let text = self.shown();
            if text.contains(needle) {
                return text;
            }
            assert!(
                Instant::now() < deadline,
                "the terminal never showed {needle:?}:\n{text}"
            );
            thread::sleep(Duration::from_millis(20));
        }
    }

    fn type_keys(&mut self, keys: &[u8]) {
        self.master.write_all(keys).expect("type");
        self.master.flush().expect("flush");
    }

    fn line_mode(&self) -> (bool, bool) {
        let attrs = tcgetattr(self.slave.as_fd()).expect("tcgetattr");
        (
            attrs.local_flags.contains(LocalFlags::ICANON),
            attrs.local_flags.contains(LocalFlags::ECHO),
        )
    }

    /// Waits for asmdbg to end: its exit code (None after a signal) and stderr.
    fn finish(self) -> (Option<i32>, Option<i32>, String, (bool, bool)) {
        let OnTerminal { child, slave, .. } = self;
        let out = child.wait_with_output().expect("wait");
        let after = {
            let attrs = tcgetattr(slave.as_fd()).expect("tcgetattr");
            (
                attrs.local_flags.contains(LocalFlags::ICANON),
                attrs.local_flags.contains(LocalFlags::ECHO),
            )
        };
        use std::os::unix::process::ExitStatusExt;
        (
            out.status.code(),
            out.status.signal(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
            after,
        )
    }
}

fn repo(path: &str) -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(path)
        .display()
        .to_string()
}

#[test]
fn lc3_nim_is_played_key_by_key_without_double_echo_and_ctrl_c_restores_the_terminal() {
    let mut term = OnTerminal::start(&["run", &repo("programs/lc3/nim.asm")]);
    assert_eq!(
        term.line_mode(),
        (true, true),
        "a fresh pty edits lines and echoes"
    );
    term.wait_for("Player 1, choose a row and number of rocks: ");
    assert_eq!(
        term.line_mode(),
        (false, false),
        "while an LC-3 program runs: no line editing, no terminal echo"
    );
    // No Enter: each key reaches the program at once.
    term.type_keys(b"A3");
    let shown = term.wait_for("Player 2, choose a row and number of rocks: ");
    assert!(
        shown.contains("Player 1, choose a row and number of rocks: A3\n\nROW A: \n"),
        "the program's own echo, once:\n{shown}"
    );
    assert!(!shown.contains("A3A3") && !shown.contains("AA"), "{shown}");
    assert!(!shown.contains("Invalid move"), "{shown}");
    send(&term.child, libc::SIGINT);
    let (code, signal, _stderr, after) = term.finish();
    assert_eq!((code, signal), (None, Some(libc::SIGINT)), "dies of SIGINT");
    assert_eq!(
        after,
        (true, true),
        "Ctrl-C gives the terminal back as it was"
    );
}

/// One key, then the program's ending: `ENDING` replaced by HALT, a bad instruction, or a
/// loop that never ends.
fn one_key_program(ending: &str) -> String {
    format!(
        "        .ORIG x3000\n        LEA R0, ASK\n        PUTS\n        GETC\n        OUT\n{ending}\nASK     .STRINGZ \"key? \"\n        .END\n"
    )
}

#[test]
fn every_way_a_run_ends_gives_the_terminal_back() {
    let dir = Scratch::new();
    let cases: [(&str, &str, &[&str], Option<i32>); 3] = [
        ("halt", "        HALT", &[], Some(0)),
        // lc3sim has no handler for an illegal opcode: a fault, exit status 1.
        (
            "fault",
            "        .FILL xD000",
            &["--profile", "lc3sim"],
            Some(1),
        ),
        (
            "limit",
            "SPIN    BR SPIN",
            &["--max-steps", "200000"],
            Some(4),
        ),
    ];
    for (name, ending, extra, status) in cases {
        let prog = dir.write(&format!("{name}.asm"), &one_key_program(ending));
        let mut args = vec!["run", prog.to_str().expect("utf-8 path")];
        args.extend_from_slice(extra);
        let mut term = OnTerminal::start(&args);
        term.wait_for("key? ");
        assert_eq!(term.line_mode(), (false, false), "{name}: key mode");
        term.type_keys(b"k");
        let (code, _signal, stderr, after) = term.finish();
        assert_eq!(code, status, "{name}: {stderr}");
        assert_eq!(
            after,
            (true, true),
            "{name}: terminal restored; stderr {stderr}"
        );
    }
}

#[test]
fn typed_enter_is_a_newline_and_typed_ctrl_c_ends_the_run_as_sigint_does() {
    let dir = Scratch::new();
    let prog = dir.write(
        "keys.asm",
        &one_key_program("        GETC\n        OUT\n        HALT"),
    );
    let mut term = OnTerminal::start(&["run", prog.to_str().expect("utf-8 path")]);
    term.wait_for("key? ");
    // Enter sends a carriage return; the program gets a newline (and prints it as a line end).
    term.type_keys(b"\r");
    let shown = term.wait_for("key? \n");
    assert!(!shown.contains('\r'), "{shown:?}");
    // In key mode Ctrl-C is a typed byte, not the terminal's signal: it ends the run all the
    // same, with the terminal given back and the process dying of SIGINT.
    term.type_keys(b"\x03");
    let (code, signal, _stderr, after) = term.finish();
    assert_eq!((code, signal), (None, Some(libc::SIGINT)), "dies of SIGINT");
    assert_eq!(after, (true, true), "Ctrl-C gives the terminal back");
}

#[test]
fn sigterm_and_sighup_also_restore_the_terminal() {
    let dir = Scratch::new();
    let prog = dir.write("wait.asm", &one_key_program("        HALT"));
    for signal in [libc::SIGTERM, libc::SIGHUP] {
        let term = OnTerminal::start(&["run", prog.to_str().expect("utf-8 path")]);
        term.wait_for("key? ");
        assert_eq!(term.line_mode(), (false, false));
        send(&term.child, signal);
        let (code, got, _stderr, after) = term.finish();
        assert_eq!((code, got), (None, Some(signal)));
        assert_eq!(after, (true, true), "signal {signal}");
    }
}

#[test]
fn mips_keeps_line_input_with_echo() {
    let dir = Scratch::new();
    let prog = dir.write(
        "read.asm",
        ".data\nask: .asciiz \"n? \"\n.text\nmain: li $v0, 4\n      la $a0, ask\n      syscall\n      li $v0, 5\n      syscall\n      move $a0, $v0\n      li $v0, 1\n      syscall\n      li $v0, 10\n      syscall\n",
    );
    let mut term = OnTerminal::start(&["run", prog.to_str().expect("utf-8 path")]);
    term.wait_for("n? ");
    assert_eq!(term.line_mode(), (true, true), "MARS reads lines");
    // The terminal echoes and edits the line; the program sees it at Enter.
    term.type_keys(b"4x\x7f2\n");
    // The erase shows as backspace-space-backspace; the program reads 42, not 4x2.
    let shown = term.wait_for("2\n42");
    assert!(shown.starts_with("n? 4x\u{8} \u{8}2\n42"), "{shown:?}");
    let (code, _signal, stderr, after) = term.finish();
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(after, (true, true));
}
