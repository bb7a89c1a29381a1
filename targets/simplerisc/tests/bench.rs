//! Instruction-rate benchmark on probes/simplerisc/bench.asm with the loop bound raised ten
//! times (50 M instructions, as `scripts/bench` runs it). Not a timed test: it prints the rates
//! and only fails if the program computes the wrong result. Run in release mode:
//! `cargo test --release -p asmdbg-simplerisc --test bench -- --ignored --nocapture`.

mod common;

use std::time::Instant;

use asmdbg_core::{Machine, StopEvent, WatchKind};
use asmdbg_simplerisc::SrMachine;
use common::{corpus_dir, load, reg};

/// bench.asm with 10 000 000 iterations (0x00989680) instead of 1 000 000, followed by a jump
/// over 100 `nop`s that never run (slots 11..=110: room for 100 breakpoints in the code).
fn bench_x10() -> SrMachine {
    let src = std::fs::read_to_string(corpus_dir().join("bench.asm")).expect("bench.asm");
    let raised = src
        .replace("movu r3, 0x4240", "movu r3, 0x9680")
        .replace("addh r3, r3, 0x000F", "addh r3, r3, 0x0098");
    assert_ne!(raised, src, "bench.asm changed: update the loop bound edit");
    let unreachable = "\tnop\n".repeat(100);
    load(&format!("{raised}\n\tb .end\n{unreachable}.end:\n"))
}

/// The best of five runs (the machine is shared with other builds; the best run is the one
/// least disturbed), in M instructions/s.
fn measure(label: &str, m: &SrMachine) -> f64 {
    let mut best = f64::MAX;
    let mut n = 0;
    for _ in 0..5 {
        let mut m = m.clone();
        let start = Instant::now();
        let stop = m.run(u64::MAX).stop;
        let secs = start.elapsed().as_secs_f64();
        assert_eq!(stop, Some(StopEvent::Halted));
        assert_eq!(reg(&m, 2), 10_000_000);
        n = m.instructions_executed();
        assert_eq!(n, 4 + 5 * 10_000_000 + 2);
        best = best.min(secs);
    }
    let rate = n as f64 / best / 1e6;
    println!("{label}: {n} instructions in {best:.3} s = {rate:.0} M instructions/s");
    rate
}

#[test]
#[ignore = "benchmark: run in release mode with --ignored"]
fn instruction_rate() {
    let free = measure("no breakpoints", &bench_x10());
    let mut m = bench_x10();
    // 100 breakpoints on code that never runs and 4 watchpoints on data the loop never
    // touches: whatever the checks cost is paid without stopping.
    for slot in 11..111u64 {
        m.breakpoints().insert(4 * slot);
    }
    for i in 0..4u64 {
        m.watchpoints().insert(256 + 16 * i, 4, WatchKind::Write);
    }
    let checked = measure("100 breakpoints + 4 watchpoints", &m);
    println!("ratio {:.2}", checked / free);
}
