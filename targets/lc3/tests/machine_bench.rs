//! probes/lc3/bench.asm (60 M instructions) assembled and run through `Lc3Machine` with the
//! patt OS, as `asmdbg run` does: its output, and (ignored, release mode) its rate with and
//! without 100 breakpoints and 4 watchpoints the loop does not touch.
//! Run: `cargo test --release -p asmdbg-lc3 --test machine_bench -- --ignored --nocapture`.

use std::time::Instant;

use asmdbg_core::{Machine, MachineOptions, StopEvent, WatchKind};
use asmdbg_lc3::{load_machine, Lc3Machine};

/// The repository's copy of probes/lc3/bench.asm.
const BENCH: &str = include_str!("../../../tests/asm/lc3/probe_bench.asm");

fn bench_machine(outer: Option<u16>) -> Lc3Machine {
    let source = match outer {
        Some(n) => BENCH.replace("OUTER   .FILL #1000", &format!("OUTER   .FILL #{n}")),
        None => BENCH.to_string(),
    };
    match load_machine("bench.asm", source.as_bytes(), &MachineOptions::default()) {
        Ok(m) => m,
        Err(e) => panic!("{e}"),
    }
}

/// Runs to HALT in bursts; returns (instructions, wall seconds, cpu seconds of this thread).
fn run_to_halt(m: &mut Lc3Machine) -> (u64, f64, f64) {
    let cpu_ns = || {
        std::fs::read_to_string("/proc/thread-self/schedstat")
            .ok()
            .and_then(|t| t.split_whitespace().next()?.parse::<u64>().ok())
    };
    let start = Instant::now();
    let cpu_start = cpu_ns();
    loop {
        match m.run(10_000_000).stop {
            None => continue,
            Some(StopEvent::Halted) => break,
            Some(other) => panic!("unexpected stop {other:?}"),
        }
    }
    let wall = start.elapsed().as_secs_f64();
    let cpu = match (cpu_start, cpu_ns()) {
        (Some(a), Some(b)) if b > a => (b - a) as f64 / 1e9,
        _ => wall,
    };
    (m.instructions_executed(), wall, cpu)
}

#[test]
fn bench_program_prints_its_checksum() {
    let mut m = bench_machine(Some(2));
    let (executed, _, _) = run_to_halt(&mut m);
    // acc = 2 * 50005000 mod 65536 = x0810: low nibble 0, printed as 'A' + 0.
    assert_eq!(
        String::from_utf8_lossy(&m.console().take_output()),
        "A <- checksum letter; bench done\n\n----- Halting the processor ----- \n"
    );
    assert!(executed > 2 * 60_003, "{executed}");
}

#[test]
#[ignore = "benchmark: run in release mode"]
fn bench_rate_through_the_machine() {
    let mut bare = bench_machine(None);
    let (n, wall, cpu) = run_to_halt(&mut bare);
    let out = String::from_utf8_lossy(&bare.console().take_output()).into_owned();
    assert!(
        out.starts_with("A <- checksum letter; bench done\n"),
        "{out}"
    );

    let mut debug = bench_machine(None);
    for addr in 0x4000..0x4064 {
        debug.breakpoints().insert(addr);
    }
    for addr in [0x5000, 0x6000, 0x7000, 0x8000] {
        debug.watchpoints().insert(addr, 1, WatchKind::Write);
    }
    let (n2, wall2, cpu2) = run_to_halt(&mut debug);
    assert_eq!(n, n2);
    println!(
        "bench.asm through Lc3Machine: {n} instructions; {:.0} M/s wall, {:.0} M/s cpu; \
         with 100 breakpoints + 4 watchpoints: {:.0} M/s wall, {:.0} M/s cpu ({:.0}% of cpu rate)",
        n as f64 / wall / 1e6,
        n as f64 / cpu / 1e6,
        n as f64 / wall2 / 1e6,
        n as f64 / cpu2 / 1e6,
        100.0 * cpu / cpu2
    );
}
