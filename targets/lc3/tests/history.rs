//! Time travel on the LC-3 machine (core's `History`): going back to any earlier count gives
//! the state recorded going forward; reverse-continue finds the previous breakpoint or
//! watchpoint hit; input typed in the recorded run is replayed, output is not shown again.

use asmdbg_core::history::{History, ReverseStop};
use asmdbg_core::{Machine, MachineOptions, Snapshot, StopEvent, WatchKind};
use asmdbg_lc3::machine::{load_machine, Lc3Machine};

fn machine(source: &str) -> Lc3Machine {
    load_machine("history.asm", source.as_bytes(), &MachineOptions::default())
        .unwrap_or_else(|e| panic!("{e}"))
}

fn label(m: &Lc3Machine, name: &str) -> u64 {
    m.debug_info().and_then(|d| d.symbols.addr(name)).unwrap()
}

const LOOP: &str = "\
        .ORIG x3000
MAIN    AND R1, R1, #0
        AND R2, R2, #0
LOOP    ADD R1, R1, #1
        ADD R2, R2, R1
        ST R2, TOTAL
        ADD R3, R1, #-10
        BRn LOOP
        LEA R0, MSG
        PUTS
        HALT
TOTAL   .FILL 0
MSG     .STRINGZ \"done\"
        .END
";

#[test]
fn seeking_back_gives_the_state_recorded_going_forward() {
    let mut m = machine(LOOP);
    let mut h = History::start(&mut m, 1 << 30);
    let mut states = vec![m.snapshot()];
    for _ in 0..60 {
        m.step();
        h.note_progress(&m, true);
        states.push(m.snapshot());
    }
    for target in [59u64, 30, 0, 45, 1, 60] {
        assert!(h.seek(&mut m, target));
        assert_eq!(m.instructions_executed(), target);
        assert_eq!(m.snapshot(), states[target as usize], "at {target}");
    }
    assert_eq!(h.frontier(), 60);
}

#[test]
fn reverse_continue_stops_at_the_previous_breakpoint_then_watchpoint_then_the_start() {
    let mut m = machine(LOOP);
    let mut h = History::start(&mut m, 1 << 30);
    let body = label(&m, "LOOP") + 1;
    let total = label(&m, "TOTAL");
    m.breakpoints().insert(body);
    let mut hits = Vec::new();
    for _ in 0..3 {
        let out = m.run(1000);
        assert_eq!(out.stop, Some(StopEvent::Breakpoint));
        hits.push(m.instructions_executed());
        h.note_progress(&m, true);
        m.breakpoints().remove(body);
        m.step();
        m.breakpoints().insert(body);
    }
    // At the third hit's count: back to the second hit, then the first.
    assert!(h.seek(&mut m, hits[2]));
    assert_eq!(
        h.reverse_continue(&mut m),
        ReverseStop::Hit(StopEvent::Breakpoint)
    );
    assert_eq!(m.instructions_executed(), hits[1]);
    assert_eq!(m.pc(), body);
    // One instruction back, then a write watch on TOTAL: the store of the first pass.
    assert!(h.seek(&mut m, hits[1] - 1));
    m.watchpoints().insert(total, 1, WatchKind::Write);
    let stop = h.reverse_continue(&mut m);
    assert!(
        matches!(stop, ReverseStop::Hit(StopEvent::Watch { kind: WatchKind::Write, addr }) if addr == total),
        "{stop:?} at {}",
        m.instructions_executed()
    );
    // Just after the store (gdb then steps back over it, as below).
    assert_eq!(m.instructions_executed(), hits[0] + 2);
    assert_eq!(m.debug_read(total), Ok(1));
    assert!(h.seek(&mut m, hits[0] + 1));
    assert_eq!(m.debug_read(total), Ok(0), "before the store");
    assert_eq!(
        h.reverse_continue(&mut m),
        ReverseStop::Hit(StopEvent::Breakpoint)
    );
    assert_eq!(m.instructions_executed(), hits[0]);
    m.breakpoints().clear();
    m.watchpoints().clear();
    assert_eq!(h.reverse_continue(&mut m), ReverseStop::Begin);
    assert_eq!(m.instructions_executed(), 0);
}

#[test]
fn replay_serves_recorded_input_and_shows_no_output_again() {
    let echo = "\
        .ORIG x3000
        GETC
        OUT
        GETC
        OUT
        HALT
        .END
";
    let mut m = machine(echo);
    let mut h = History::start(&mut m, 1 << 30);
    m.queue_input(b"a");
    let out = m.run(10_000);
    assert_eq!(out.stop, Some(StopEvent::NeedInput));
    h.note_progress(&m, true);
    m.queue_input(b"b");
    assert_eq!(m.run(100_000).stop, Some(StopEvent::Halted));
    h.note_progress(&m, true);
    let end = m.instructions_executed();
    let shown = m.console().take_output();
    assert!(shown.starts_with(b"ab"), "{shown:?}");
    // Back to the start, then forward again through the replay: the same end, both keys
    // served from the log, no output from the replay.
    assert!(h.seek(&mut m, 0));
    assert!(h.seek(&mut m, end));
    assert!(m.console().take_output().is_empty());
    assert_eq!(m.instructions_executed(), end);
    assert_eq!(m.run(10).stop, Some(StopEvent::Halted));
}

#[test]
fn a_change_in_the_past_drops_the_future() {
    let mut m = machine(LOOP);
    let mut h = History::start(&mut m, 1 << 30);
    assert_eq!(m.run(40).stop, None);
    h.note_progress(&m, true);
    assert!(h.seek(&mut m, 10));
    assert!(h.in_past(10));
    m.write_register(1, 7);
    assert!(h.truncate_future(&mut m));
    assert_eq!(h.frontier(), 10);
    assert!(!h.in_past(10));
    assert!(h.seek(&mut m, 5), "the past before the change stays");
    assert!(!h.truncate_future(&mut m) || h.frontier() == 5);
}

#[test]
fn the_cap_thins_checkpoints_but_keeps_the_start() {
    let mut m = machine(
        LOOP.replace("#-10", "#-1")
            .replace("BRn LOOP", "BRnzp LOOP")
            .as_str(),
    );
    // Room for 4 checkpoints of ~128 KiB.
    let mut h = History::start(&mut m, 4 * 140_000);
    for _ in 0..40 {
        m.run(1 << 20);
        h.note_progress(&m, false);
    }
    assert!(h.checkpoint_count() <= 4, "{}", h.checkpoint_count());
    assert!(h.bytes(&m) <= 4 * 140_000);
    let now = m.instructions_executed();
    let s = m.snapshot();
    assert!(h.seek(&mut m, 3));
    assert_eq!(m.instructions_executed(), 3);
    assert!(h.seek(&mut m, now));
    assert_eq!(m.snapshot(), s);
    // Seeks far into a long interval leave states behind them: those count too.
    for target in [now - 1, now / 2, now / 3 + 17] {
        assert!(h.seek(&mut m, target));
        assert!(h.bytes(&m) <= 4 * 140_000, "{} after a seek", h.bytes(&m));
    }
}

/// What history takes is the checkpoints, the states seeks left and the input log; the cap
/// holds for their sum, and the log is never thinned.
#[test]
fn the_cap_counts_the_input_log_and_the_seeks_states() {
    let echo_forever = "\
        .ORIG x3000
AGAIN   GETC
        OUT
        BRnzp AGAIN
        .END
";
    let mut m = machine(echo_forever);
    let cap = 6 * 140_000;
    let mut h = History::start(&mut m, cap);
    let mut keys = 0u64;
    for round in 0..3000u32 {
        m.queue_input(&[b'a' + (round % 26) as u8; 3]);
        keys += 3;
        // The OS's GETC and OUT poll the devices: a few hundred instructions a key.
        assert_eq!(m.run(1 << 20).stop, Some(StopEvent::NeedInput));
        h.note_progress(&m, round % 50 == 0);
        let _ = m.console().take_output();
    }
    let log = h.log_bytes(&m);
    assert!(log >= keys as usize, "{log} bytes of log for {keys} keys");
    assert!(h.bytes(&m) <= cap, "{} > {cap}", h.bytes(&m));
    assert_eq!(h.bytes(&m), h.state_bytes() + log);
    // Every key is still there: back to the start and forward again ends where the run
    // ended, with the last key in R0. (The state is compared by registers: at a stop for
    // input the console's waiting flag depends on whether the guest has polled yet.)
    let end = m.instructions_executed();
    let registers = |m: &Lc3Machine| (0..10).map(|r| m.read_register(r)).collect::<Vec<_>>();
    let before = registers(&m);
    assert!(h.seek(&mut m, 1));
    assert!(h.seek(&mut m, end));
    assert_eq!(registers(&m), before);
    assert_eq!(
        m.read_register(0),
        Some(u64::from(b'a' + (2999 % 26) as u8))
    );
    assert!(h.bytes(&m) <= cap);
}

/// A run of reverse steps from far past the last checkpoint: the seeks leave states behind
/// them, and every step still lands exactly (the states recorded going forward).
#[test]
fn a_run_of_reverse_steps_lands_exactly() {
    let endless = LOOP.replace("BRn LOOP", "BRnzp LOOP");
    let mut m = machine(&endless);
    let mut h = History::start(&mut m, 1 << 30);
    let mut recorded = std::collections::HashMap::new();
    let checks = [99_999u64, 99_998, 99_500, 90_001, 50_000, 12_345];
    let mut now = 0;
    for &at in checks.iter().rev() {
        m.run(at - now);
        now = at;
        recorded.insert(at, m.snapshot());
    }
    m.run(100_000 - now);
    h.note_progress(&m, true);
    let mut target = 100_000;
    while target > 12_345 {
        target -= 1;
        if target > 99_000 || recorded.contains_key(&target) || target % 997 == 0 {
            assert!(h.seek(&mut m, target));
            assert_eq!(m.instructions_executed(), target);
            if let Some(state) = recorded.get(&target) {
                assert_eq!(&m.snapshot(), state, "at {target}");
            }
        }
    }
}
