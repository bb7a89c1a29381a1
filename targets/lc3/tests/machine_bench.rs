//! Instruction rate of the LC-3 hot loop on probes/lc3/bench.asm (60 M instructions), with no
//! debug sets and with 100 breakpoints and 4 watchpoints the loop does not touch: once on the bare
//! cpu (the loop hand-assembled, no OS) and once assembled and run through `Lc3Machine` with the
//! patt OS, as `asmdbg run` does. The rate tests are ignored; run them in release mode:
//! `cargo test --release -p asmdbg-lc3 --test machine_bench -- --ignored --nocapture`.

use std::time::Instant;

use asmdbg_core::{BreakpointSet, Machine, MachineOptions, StopEvent, WatchKind, WatchpointSet};
use asmdbg_lc3::cpu::Cpu;
use asmdbg_lc3::os::PATT;
use asmdbg_lc3::{load_machine, Lc3Machine};

/// Nanoseconds this thread has spent on a cpu (Linux), so that other processes competing for
/// the machine do not count against the emulator.
fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// Runs `run(burst)` until HALT; returns (wall seconds, cpu seconds of this thread).
fn time_to_halt(mut run: impl FnMut() -> Option<StopEvent>) -> (f64, f64) {
    let start = Instant::now();
    let cpu_start = thread_cpu_ns();
    loop {
        match run() {
            None => continue,
            Some(StopEvent::Halted) => break,
            Some(other) => panic!("unexpected stop {other:?}"),
        }
    }
    let wall = start.elapsed().as_secs_f64();
    let cpu = match (cpu_start, thread_cpu_ns()) {
        (Some(a), Some(b)) if b > a => (b - a) as f64 / 1e9,
        _ => wall,
    };
    (wall, cpu)
}

fn report(what: &str, instructions: u64, bare: (f64, f64), debug: (f64, f64)) {
    let rate = |seconds: f64| instructions as f64 / seconds / 1e6;
    println!(
        "{what}, {instructions} instructions: {:.0} M instr/s wall, {:.0} M instr/s cpu; \
         with 100 breakpoints + 4 watchpoints: {:.0} M instr/s wall, {:.0} M instr/s cpu \
         ({:.0}% of the cpu rate)",
        rate(bare.0),
        rate(bare.1),
        rate(debug.0),
        rate(debug.1),
        100.0 * bare.1 / debug.1
    );
}

/// 100 breakpoints at x4000..x4063, which the loop never reaches.
fn add_untouched_breakpoints(breakpoints: &mut BreakpointSet) {
    for addr in 0x4000..0x4064 {
        breakpoints.insert(addr);
    }
}

/// 4 watchpoints at x5000, x6000, x7000 and x8000, which the loop never accesses.
fn add_untouched_watchpoints(watchpoints: &mut WatchpointSet) {
    for addr in [0x5000, 0x6000, 0x7000, 0x8000] {
        watchpoints.insert(addr, 1, WatchKind::Access);
    }
}

/// bench.asm hand-assembled, with its output tail (OUT, PUTS, HALT) replaced by a store that
/// clears MCR[15], so the cpu alone (no OS image) runs it.
const BENCH_WORDS: [u16; 21] = [
    0x56E0, // AND R3,R3,#0
    0xEA35, // LEA R5,BUF (x3037)
    0x2210, // LD R1,OUTER
    0x2410, // OLOOP: LD R2,INNER
    0x16C2, // ILOOP: ADD R3,R3,R2
    0x58EF, // AND R4,R3,#15
    0x7940, // STR R4,R5,#0
    0x6940, // LDR R4,R5,#0
    0x14BF, // ADD R2,R2,#-1
    0x03FA, // BRp ILOOP
    0x127F, // ADD R1,R1,#-1
    0x03F7, // BRp OLOOP
    0xB001, // STI R0,MCR_AT (R0 = 0: stops the clock)
    0x0000, // NOP
    0xFFFE, // MCR_AT
    0, 0, 0, 0, 1000,  // OUTER (x3013)
    10000, // INNER (x3014)
];

/// 3 setup instructions, 1000 outer iterations of (LD + 10000 * 6 + 2), and the store.
const BENCH_INSTRUCTIONS: u64 = 3 + 1000 * (1 + 10000 * 6 + 2) + 1;

fn bench_cpu() -> Cpu {
    let mut cpu = Cpu::new(PATT.semantics);
    for (i, &w) in BENCH_WORDS.iter().enumerate() {
        cpu.mem_mut()[0x3000 + i] = w;
    }
    cpu.reset_state(0x3000, 0x0002, 0x3000);
    cpu
}

#[test]
fn bench_loop_counts_and_result() {
    let mut cpu = bench_cpu();
    // Smaller: OUTER = 2.
    cpu.mem_mut()[0x3013] = 2;
    let outcome = cpu.run(u64::MAX);
    assert_eq!(outcome.stop, Some(StopEvent::Halted));
    assert_eq!(outcome.executed, 3 + 2 * 60003 + 1);
    // acc = 2 * sum(1..=10000) mod 2^16
    let expected = (2u64 * 50_005_000 % 65536) as u16;
    assert_eq!(cpu.regs[3], expected);
}

#[test]
#[ignore = "benchmark: run in release mode"]
fn bench_rate_of_the_cpu() {
    let mut plain = bench_cpu();
    let bare = time_to_halt(|| plain.run(10_000_000).stop);
    assert_eq!(plain.instructions_executed(), BENCH_INSTRUCTIONS);
    let mut watched = bench_cpu();
    add_untouched_breakpoints(&mut watched.breakpoints);
    add_untouched_watchpoints(&mut watched.watchpoints);
    let debug = time_to_halt(|| watched.run(10_000_000).stop);
    assert_eq!(watched.instructions_executed(), BENCH_INSTRUCTIONS);
    assert_eq!(watched.mem()[0x3037], watched.regs[3] & 15);
    report("lc3 cpu, bench loop", BENCH_INSTRUCTIONS, bare, debug);
}

/// The repository's copy of probes/lc3/bench.asm.
const BENCH_SOURCE: &str = include_str!("../../../tests/programs/lc3/probe_bench.asm");

fn bench_machine(outer: Option<u16>) -> Lc3Machine {
    let source = match outer {
        Some(n) => BENCH_SOURCE.replace("OUTER   .FILL #1000", &format!("OUTER   .FILL #{n}")),
        None => BENCH_SOURCE.to_string(),
    };
    match load_machine("bench.asm", source.as_bytes(), &MachineOptions::default()) {
        Ok(m) => m,
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn bench_program_prints_its_checksum() {
    let mut m = bench_machine(Some(2));
    let _ = time_to_halt(|| m.run(10_000_000).stop);
    // acc = 2 * 50005000 mod 65536 = x0810: low nibble 0, printed as 'A' + 0.
    assert_eq!(
        String::from_utf8_lossy(&m.console().take_output()),
        "A <- checksum letter; bench done\n\n----- Halting the processor ----- \n"
    );
    assert!(m.instructions_executed() > 2 * 60_003);
}

#[test]
#[ignore = "benchmark: run in release mode"]
fn bench_rate_through_the_machine() {
    let mut bare = bench_machine(None);
    let bare_time = time_to_halt(|| bare.run(10_000_000).stop);
    let out = String::from_utf8_lossy(&bare.console().take_output()).into_owned();
    assert!(
        out.starts_with("A <- checksum letter; bench done\n"),
        "{out}"
    );
    let mut debug = bench_machine(None);
    add_untouched_breakpoints(debug.breakpoints());
    add_untouched_watchpoints(debug.watchpoints());
    let debug_time = time_to_halt(|| debug.run(10_000_000).stop);
    assert_eq!(bare.instructions_executed(), debug.instructions_executed());
    report(
        "bench.asm through Lc3Machine",
        bare.instructions_executed(),
        bare_time,
        debug_time,
    );
}
