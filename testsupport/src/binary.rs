//! The asmdbg binary a test runs: the one cargo built for the test, or — with `ASMDBG_TEST_EXE`
//! set — one built for another platform and started through its emulator, e.g.
//! `wine /…/x86_64-pc-windows-gnu/release/asmdbg.exe` or
//! `qemu-aarch64 -L /usr/aarch64-linux-gnu /…/aarch64-unknown-linux-gnu/release/asmdbg`
//! (words separated by spaces), so that the same tests check that build (scripts/platforms).

use std::process::Command;

/// The environment variable that names another build of asmdbg (and its emulator) to test.
pub const TEST_EXE_VAR: &str = "ASMDBG_TEST_EXE";

/// A command that starts asmdbg: `built` (the test's `env!("CARGO_BIN_EXE_asmdbg")`) unless
/// `ASMDBG_TEST_EXE` names another.
pub fn asmdbg_command(built: &str) -> Command {
    match std::env::var(TEST_EXE_VAR) {
        Ok(words) if !words.trim().is_empty() => {
            let mut words = words.split_whitespace();
            let mut command = Command::new(words.next().unwrap_or(built));
            command.args(words);
            command
        }
        _ => Command::new(built),
    }
}

/// Whether the tests run another platform's build (`ASMDBG_TEST_EXE`).
pub fn testing_another_build() -> bool {
    std::env::var(TEST_EXE_VAR).is_ok_and(|w| !w.trim().is_empty())
}

/// The asmdbg file a test ships somewhere (a Gradescope zip's `bin/asmdbg`): the build
/// `ASMDBG_TEST_EXE` names when it runs here by itself (one word: the static musl build),
/// else `built`.
pub fn asmdbg_file(built: &str) -> std::path::PathBuf {
    let named = std::env::var(TEST_EXE_VAR).unwrap_or_default();
    let mut words = named.split_whitespace();
    match (words.next(), words.next()) {
        (Some(exe), None) => exe.into(),
        _ => built.into(),
    }
}

/// The environment variable that names the guest console a test's `asmdbg debug` uses when
/// the test names none (`tcp` under qemu-aarch64's user mode, which does not pass on a
/// pseudo-terminal's ioctls).
pub const TEST_CONSOLE_VAR: &str = "ASMDBG_TEST_CONSOLE";

/// `--console KIND` for a test that names no console, when `ASMDBG_TEST_CONSOLE` says so.
pub fn default_console_args() -> Vec<String> {
    match std::env::var(TEST_CONSOLE_VAR) {
        Ok(kind) if !kind.trim().is_empty() => vec!["--console".into(), kind.trim().into()],
        _ => Vec::new(),
    }
}
