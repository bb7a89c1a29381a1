//! Instruction rate of the MIPS machine on the `scripts/bench` loop (sum of i xor j over
//! i, j < 5000: 4 instructions in the inner loop, about 100 M in all), with no breakpoints and
//! with 100 breakpoints and 4 watchpoints set. Run with
//! `cargo test --release -p asmdbg-mips --test machine_bench -- --ignored --nocapture`.

use std::time::Instant;

use asmdbg_core::{Machine, MachineOptions, StopEvent, WatchKind};
use asmdbg_mips::load_machine;

const XOR_SUM: &str = "
    .text
    main: li $t0, 0
    li $t2, 0
    li $t3, 5000
    outer: li $t1, 0
    inner: xor $t4, $t0, $t1
    addu $t2, $t2, $t4
    addiu $t1, $t1, 1
    bne $t1, $t3, inner
    addiu $t0, $t0, 1
    bne $t0, $t3, outer
    move $a0, $t2
    li $v0, 1
    syscall
    li $v0, 10
    syscall
";

/// CPU time of this thread in seconds (Linux), so the rate is meaningful on a shared machine.
fn thread_cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = text.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}

/// The same sum kept in memory: a load and a store in every inner iteration, so the watchpoint
/// check runs on a third of the instructions.
const XOR_SUM_MEMORY: &str = "
    .data
    acc: .word 0
    .text
    main: li $t0, 0
    la $s0, acc
    li $t3, 5000
    outer: li $t1, 0
    inner: lw $t2, 0($s0)
    xor $t4, $t0, $t1
    addu $t2, $t2, $t4
    sw $t2, 0($s0)
    addiu $t1, $t1, 1
    bne $t1, $t3, inner
    addiu $t0, $t0, 1
    bne $t0, $t3, outer
    lw $a0, 0($s0)
    li $v0, 1
    syscall
    li $v0, 10
    syscall
";

/// The best of three runs: the machine is shared, and other processes only ever slow a run down.
fn best_of_three(run: impl Fn() -> f64) -> f64 {
    (0..3).map(|_| run()).fold(0.0, f64::max)
}

fn measure(breakpoints: u64, watchpoints: u64) -> f64 {
    best_of_three(|| measure_program("xor-sum", XOR_SUM, 100_015_008, breakpoints, watchpoints))
}

fn measure_program(
    name: &str,
    src: &str,
    instructions: u64,
    breakpoints: u64,
    watchpoints: u64,
) -> f64 {
    let mut m = load_machine("bench.asm", src, &MachineOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    for i in 0..breakpoints {
        m.breakpoints().insert(0x0040_1000 + 4 * i);
    }
    for i in 0..watchpoints {
        // Same page as the accumulator, so every access takes the exact check.
        m.watchpoints()
            .insert(0x1001_0100 + 8 * i, 4, WatchKind::Write);
    }
    let started = Instant::now();
    let cpu_started = thread_cpu_seconds();
    let mut executed = 0;
    let stop = loop {
        // Bounded bursts, as the debugger runs the machine.
        let out = m.run(1 << 20);
        executed += out.executed;
        if let Some(stop) = out.stop {
            break stop;
        }
    };
    let seconds = started.elapsed().as_secs_f64();
    let cpu_seconds = match (cpu_started, thread_cpu_seconds()) {
        (Some(a), Some(b)) if b > a => b - a,
        _ => seconds,
    };
    assert_eq!(stop, StopEvent::Exited(0));
    assert_eq!(m.console().take_output(), b"-1345370912");
    assert_eq!(executed, instructions);
    let wall_rate = executed as f64 / seconds / 1e6;
    let rate = executed as f64 / cpu_seconds / 1e6;
    println!(
        "mips {name}: {executed} instructions, {rate:.0} M instr/s of cpu time \
         ({cpu_seconds:.3} s; wall {seconds:.3} s = {wall_rate:.0} M/s) \
         with {breakpoints} breakpoints, {watchpoints} watchpoints"
    );
    rate
}

#[test]
#[ignore = "benchmark: run in release mode"]
fn xor_sum_rate() {
    let plain = measure(0, 0);
    let loaded = measure(100, 4);
    println!(
        "mips xor-sum: best {plain:.0} M instr/s, {:.0}% of it kept with 100 breakpoints + 4 watchpoints",
        100.0 * loaded / plain
    );
}

#[test]
#[ignore = "benchmark: run in release mode"]
fn xor_sum_memory_rate() {
    let plain = best_of_three(|| measure_program("xor-sum-mem", XOR_SUM_MEMORY, 150_015_009, 0, 0));
    let loaded =
        best_of_three(|| measure_program("xor-sum-mem", XOR_SUM_MEMORY, 150_015_009, 100, 4));
    println!(
        "mips xor-sum-mem: best {plain:.0} M instr/s, {:.0}% of it kept with 100 breakpoints + 4 watchpoints",
        100.0 * loaded / plain
    );
}

#[test]
fn xor_sum_small_is_correct() {
    let src = XOR_SUM.replace("5000", "50");
    let mut m = load_machine("bench.asm", &src, &MachineOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.run(1 << 20).stop, Some(StopEvent::Exited(0)));
    let expected: i32 = (0..50).flat_map(|i| (0..50).map(move |j| i ^ j)).sum();
    assert_eq!(m.console().take_output(), expected.to_string().as_bytes());
}
