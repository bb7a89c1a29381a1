//! Helpers shared by the integration tests.

#![allow(dead_code, reason = "each test file uses a different subset")]

use asmdbg_core::{Machine, MachineOptions, StopEvent};
use asmdbg_simplerisc::{load_machine, SrMachine};

/// The directory `tests/programs/simplerisc` of the workspace (whole programs and their
/// expected output).
pub fn programs_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/programs/simplerisc")
}

pub fn load(src: &str) -> SrMachine {
    load_with(src, &MachineOptions::default())
}

pub fn load_with(src: &str, opts: &MachineOptions) -> SrMachine {
    match load_machine("t.asm", src, opts) {
        Ok(m) => m,
        Err(e) => panic!("assembly failed:\n{e}"),
    }
}

/// Runs to the end (at most 10 M instructions) and returns the stop and the console output.
pub fn run(m: &mut SrMachine) -> (StopEvent, String) {
    let outcome = m.run(10_000_000);
    let out = String::from_utf8_lossy(&m.console().take_output()).into_owned();
    (outcome.stop.expect("program did not stop"), out)
}

/// Assembles and runs `src`; returns the machine after a normal end.
pub fn run_ok(src: &str) -> SrMachine {
    let mut m = load(src);
    let (stop, _) = run(&mut m);
    assert_eq!(stop, StopEvent::Halted, "program did not end normally");
    m
}

pub fn reg(m: &SrMachine, r: usize) -> u32 {
    m.read_register(r).expect("register") as u32
}

/// The error report of a source that must not assemble under `--strict` (by default lines that
/// do not assemble are warnings and fault only if they run: tests/dialects.rs).
pub fn errors(src: &str) -> String {
    errors_with(src, &MachineOptions::default())
}

pub fn errors_with(src: &str, opts: &MachineOptions) -> String {
    let opts = MachineOptions {
        strict: true,
        ..opts.clone()
    };
    match load_machine("t.asm", src, &opts) {
        Ok(_) => panic!("assembled but should not:\n{src}"),
        Err(e) => e.to_string(),
    }
}
