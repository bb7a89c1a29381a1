//! Instruction-rate benchmark on probes/simplerisc/bench.asm with the loop bound raised ten
//! times (50 M instructions, as `scripts/bench` runs it). Not a timed test: it prints the rates
//! and only fails if the program computes the wrong result. Run in release mode:
//! `cargo test --release -p asmdbg-simplerisc --test bench -- --ignored --nocapture`.

mod common;

use std::time::Instant;

use asmdbg_core::{Machine, StopEvent, WatchKind};
use asmdbg_simplerisc::SrMachine;
use common::{load, programs_dir, reg};

/// bench.asm with 10 000 000 iterations (0x00989680) instead of 1 000 000, followed by a jump
/// over 100 `nop`s that never run (slots 11..=110: room for 100 breakpoints in the code).
fn bench_x10() -> SrMachine {
    let src = std::fs::read_to_string(programs_dir().join("bench.asm")).expect("bench.asm");
    let raised = src
        .replace("movu r3, 0x4240", "movu r3, 0x9680")
        .replace("addh r3, r3, 0x000F", "addh r3, r3, 0x0098");
    assert_ne!(raised, src, "bench.asm changed: update the loop bound edit");
    let unreachable = "\tnop\n".repeat(100);
    load(&format!("{raised}\n\tb .end\n{unreachable}.end:\n"))
}

/// One run to the end, in seconds.
fn time_run(m: &SrMachine, expected: u64) -> f64 {
    let mut m = m.clone();
    let start = Instant::now();
    let stop = m.run(u64::MAX).stop;
    let secs = start.elapsed().as_secs_f64();
    assert_eq!(stop, Some(StopEvent::Halted));
    assert_eq!(reg(&m, 2), 10_000_000);
    assert_eq!(m.instructions_executed(), expected);
    secs
}

/// Rates in M instructions/s of each machine, best of seven rounds. The rounds interleave the
/// machines, so load from other processes on this shared host hits them alike.
fn compare(cases: &[(&str, &SrMachine)], expected: u64) -> Vec<f64> {
    let mut best = vec![f64::MAX; cases.len()];
    for _ in 0..7 {
        for (i, (_, m)) in cases.iter().enumerate() {
            best[i] = best[i].min(time_run(m, expected));
        }
    }
    let rates: Vec<f64> = best.iter().map(|s| expected as f64 / s / 1e6).collect();
    for ((label, _), rate) in cases.iter().zip(&rates) {
        println!("{label}: {expected} instructions at {rate:.0} M instructions/s");
    }
    rates
}

#[test]
#[ignore = "benchmark: run in release mode with --ignored"]
fn instruction_rate() {
    let free = bench_x10();
    let mut checked = bench_x10();
    // 100 breakpoints on code that never runs and 4 watchpoints on data the loop never
    // touches: whatever the checks cost is paid without stopping.
    for slot in 11..111u64 {
        checked.breakpoints().insert(4 * slot);
    }
    for i in 0..4u64 {
        checked
            .watchpoints()
            .insert(256 + 16 * i, 4, WatchKind::Write);
    }
    let rates = compare(
        &[
            ("no breakpoints", &free),
            ("100 breakpoints + 4 watchpoints", &checked),
        ],
        4 + 5 * 10_000_000 + 2,
    );
    println!("ratio {:.2}", rates[1] / rates[0]);
}

/// A loop with a load and a store in each 6-instruction pass, for the cost of
/// `WatchpointSet::check` (not part of the benchmark).
fn memory_loop() -> SrMachine {
    load(
        ".main:\n\tmov r1, 0\n\tmov r2, 0\n\tmovu r3, 0x9680\n\taddh r3, r3, 0x0098\n\
         .loop:\n\tld r1, 64[r0]\n\tadd r1, r1, r2\n\tst r1, 64[r0]\n\tadd r2, r2, 1\n\
         \tcmp r3, r2\n\tbgt .loop\n",
    )
}

#[test]
#[ignore = "benchmark: run in release mode with --ignored"]
fn instruction_rate_with_loads_and_stores() {
    let expected = 4 + 6 * 10_000_000;
    let free = memory_loop();
    let mut other_page = memory_loop();
    let mut same_page = memory_loop();
    for i in 0..4u64 {
        other_page
            .watchpoints()
            .insert(256 + 16 * i, 4, WatchKind::Write);
        same_page
            .watchpoints()
            .insert(80 + 16 * i, 4, WatchKind::Write);
    }
    let rates = compare(
        &[
            ("ld/st loop", &free),
            ("ld/st loop, 4 watchpoints on another page", &other_page),
            ("ld/st loop, 4 watchpoints on the same page", &same_page),
        ],
        expected,
    );
    println!(
        "ratios {:.2} (other page), {:.2} (same page)",
        rates[1] / rates[0],
        rates[2] / rates[0]
    );
}
