//! Release-mode rate of the cpu's hot loop on the loop of probes/lc3/bench.asm (60 M
//! instructions), with no debug sets and with 100 breakpoints and 4 watchpoints the loop does
//! not touch. Run: `cargo test --release -p asmdbg-lc3 --test cpu_bench -- --ignored --nocapture`.

use std::time::Instant;

use asmdbg_core::{StopEvent, WatchKind};
use asmdbg_lc3::cpu::Cpu;
use asmdbg_lc3::os::PATT;

/// bench.asm hand-assembled, with its output tail (OUT, PUTS, HALT) replaced by a store that
/// clears MCR[15], so the cpu alone (no OS image) runs it.
const BENCH: [u16; 21] = [
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
    for (i, &w) in BENCH.iter().enumerate() {
        cpu.mem[0x3000 + i] = w;
    }
    cpu.reset_state(0x3000, 0x0002, 0x3000);
    cpu
}

/// Nanoseconds this thread has spent on a cpu (Linux), so that other processes competing for
/// the machine do not count against the emulator.
fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// Runs the benchmark in bursts like the command line does; returns millions of instructions
/// per second of wall time and of this thread's cpu time.
fn rate(cpu: &mut Cpu) -> (f64, f64) {
    let start = Instant::now();
    let cpu_start = thread_cpu_ns();
    let mut executed = 0;
    loop {
        let outcome = cpu.run(10_000_000);
        executed += outcome.executed;
        match outcome.stop {
            None => continue,
            Some(StopEvent::Halted) => break,
            Some(other) => panic!("unexpected stop {other:?}"),
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    let cpu_seconds = match (cpu_start, thread_cpu_ns()) {
        (Some(a), Some(b)) if b > a => (b - a) as f64 / 1e9,
        _ => seconds,
    };
    assert_eq!(executed, BENCH_INSTRUCTIONS);
    assert_eq!(cpu.mem[0x3037], cpu.regs[3] & 15);
    let millions = executed as f64 / 1e6;
    (millions / seconds, millions / cpu_seconds)
}

#[test]
fn bench_loop_counts_and_result() {
    let mut cpu = bench_cpu();
    // Smaller: OUTER = 2.
    cpu.mem[0x3013] = 2;
    let outcome = cpu.run(u64::MAX);
    assert_eq!(outcome.stop, Some(StopEvent::Halted));
    assert_eq!(outcome.executed, 3 + 2 * 60003 + 1);
    // acc = 2 * sum(1..=10000) mod 2^16
    let expected = (2u64 * 50_005_000 % 65536) as u16;
    assert_eq!(cpu.regs[3], expected);
}

#[test]
#[ignore = "benchmark: run in release mode"]
fn bench_rate() {
    let mut plain = bench_cpu();
    let bare = rate(&mut plain);
    let mut watched = bench_cpu();
    for addr in 0x4000..0x4064 {
        watched.breakpoints.insert(addr);
    }
    for addr in [0x5000, 0x6000, 0x7000, 0x8000] {
        watched.watchpoints.insert(addr, 1, WatchKind::Access);
    }
    let debug = rate(&mut watched);
    println!(
        "lc3 bench, {BENCH_INSTRUCTIONS} instructions: {:.0} M instr/s wall, {:.0} M instr/s cpu; \
         with 100 breakpoints + 4 watchpoints: {:.0} M instr/s wall, {:.0} M instr/s cpu ({:.0}% of cpu rate)",
        bare.0,
        bare.1,
        debug.0,
        debug.1,
        100.0 * debug.1 / bare.1
    );
}
