//! MARS 4.5's Keyboard and Display MMIO Simulator and Bitmap Display, rule by rule
//! (mars/tools/KeyboardAndDisplaySimulator.java, mars/tools/BitmapDisplay.java): ready bits,
//! what clears them, the transmitter's delay, external interrupts, the display's bases and
//! units, and the device's state under snapshots and replay.

use asmdbg_core::display::ScheduledKey;
use asmdbg_core::{BitmapConfig, Machine, MachineOptions, Snapshot, StopEvent};
use asmdbg_mips::{load_machine, MipsMachine};

const RC: u64 = 0xffff_0000;
const RD: u64 = 0xffff_0004;
const TC: u64 = 0xffff_0008;

fn machine(src: &str, keys: &[(u64, u8)]) -> MipsMachine {
    let opts = MachineOptions {
        mmio: true,
        keys: keys
            .iter()
            .map(|&(at, key)| ScheduledKey { at, key })
            .collect(),
        ..Default::default()
    };
    load_machine("mmio.asm", src, &opts).unwrap_or_else(|e| panic!("{e}"))
}

fn word(m: &MipsMachine, addr: u64) -> u32 {
    m.peek_word(addr).expect("mapped")
}

fn reg(m: &MipsMachine, name: &str) -> u32 {
    let index = m
        .registers()
        .iter()
        .position(|r| r.name == name)
        .unwrap_or_else(|| panic!("no register {name}"));
    m.read_register(index).expect("register") as u32
}

fn run_all(m: &mut MipsMachine) -> Option<StopEvent> {
    m.run(1_000_000).stop
}

/// Spins `n` instructions with nops (the key schedule and the delay count fetches).
fn nops(n: usize) -> String {
    "nop\n".repeat(n)
}

#[test]
fn a_key_sets_the_ready_bit_and_the_data_word_and_a_second_overwrites_it() {
    let src = format!("{}li $v0, 10\nsyscall\n", nops(20));
    let mut m = machine(&src, &[(3, b'a'), (6, b'b')]);
    assert_eq!(word(&m, RC), 0);
    m.run(4);
    assert_eq!((word(&m, RC), word(&m, RD)), (1, b'a' as u32));
    run_all(&mut m);
    assert_eq!((word(&m, RC), word(&m, RD)), (1, b'b' as u32));
}

#[test]
fn a_load_of_the_receiver_data_word_clears_ready_and_keeps_interrupt_enable() {
    // The program turns on bit 2 and 1 of receiver control; reading the data keeps only bit 1.
    let src = "
        lui $s0, 0xffff
        nop
        nop
        lw $t0, 0($s0)
        lw $t1, 4($s0)
        lw $t2, 0($s0)
        li $v0, 10
        syscall
    ";
    // MARS interrupts for any control bit besides ready (bit 2 too): keep Status's interrupt
    // enable off to look at the bits alone.
    let mut m = machine(src, &[(1, b'x')]);
    m.poke_word(RC, 4).unwrap();
    m.write_register(32, 0x0000_ff10);
    assert!(matches!(run_all(&mut m), Some(StopEvent::Exited(0))));
    assert_eq!(reg(&m, "t0"), 5);
    assert_eq!(reg(&m, "t1"), b'x' as u32);
    assert_eq!(reg(&m, "t2"), 0, "bit 2 and ready are gone");
    let mut m = machine(src, &[(1, b'x')]);
    m.poke_word(RC, 2).unwrap();
    m.write_register(32, 0x0000_ff10);
    run_all(&mut m);
    assert_eq!(reg(&m, "t2"), 2, "interrupt enable stays");
}

#[test]
fn only_an_access_at_exactly_the_data_word_clears_ready() {
    let run = |load: &str| {
        let src = format!("lui $s0, 0xffff\nnop\n{load}\nlw $t2, 0($s0)\nli $v0, 10\nsyscall\n");
        let mut m = machine(&src, &[(1, b'k')]);
        run_all(&mut m);
        reg(&m, "t2") & 1
    };
    assert_eq!(run("lb $t1, 4($s0)"), 0, "a byte load at the data word");
    assert_eq!(run("lbu $t1, 5($s0)"), 1, "a byte beyond it is not watched");
    assert_eq!(run("lw $t1, 0($s0)"), 1, "reading control leaves ready");
}

#[test]
fn the_transmitter_is_ready_once_connected_and_plain_memory_when_not() {
    let m = machine("li $v0, 10\nsyscall\n", &[]);
    assert_eq!(word(&m, TC), 1);
    let plain = load_machine("p.asm", "li $v0, 10\nsyscall\n", &MachineOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(word(&plain, TC), 0);
}

/// A store of 'Z' to transmitter data, then a loop that reads transmitter control each
/// instruction into successive registers: which read first sees ready.
#[test]
fn the_ready_bit_comes_back_for_the_fifth_instruction_fetched_after_the_store() {
    let src = "
        lui $s0, 0xffff
        li $t9, 'Z'
        sw $t9, 12($s0)
        lw $t0, 8($s0)
        lw $t1, 8($s0)
        lw $t2, 8($s0)
        lw $t3, 8($s0)
        lw $t4, 8($s0)
        lw $t5, 8($s0)
        li $v0, 10
        syscall
    ";
    let mut m = machine(src, &[]);
    m.run(6);
    assert!(
        m.console().output().is_empty(),
        "shown only after the delay"
    );
    run_all(&mut m);
    let seen: Vec<u32> = ["t0", "t1", "t2", "t3", "t4", "t5"]
        .iter()
        .map(|r| reg(&m, r) & 1)
        .collect();
    assert_eq!(seen, [0, 0, 0, 0, 1, 1]);
    assert_eq!(m.console().take_output(), b"Z");
}

#[test]
fn a_store_while_the_transmitter_is_busy_is_ignored() {
    let src = "
        lui $s0, 0xffff
        li $t9, 'A'
        sw $t9, 12($s0)
        li $t9, 'B'
        sw $t9, 12($s0)
        nop
        nop
        nop
        nop
        nop
        nop
        li $v0, 10
        syscall
    ";
    let mut m = machine(src, &[]);
    run_all(&mut m);
    assert_eq!(m.console().take_output(), b"A");
}

#[test]
fn form_feed_clears_and_bell_places_the_cursor() {
    let src = "
        lui $s0, 0xffff
        li $t9, 12
        sw $t9, 12($s0)
        nop
        nop
        nop
        nop
        nop
        li $t9, 0x00500307   # bell: column 5, row 3
        sw $t9, 12($s0)
        nop
        nop
        nop
        nop
        nop
        li $v0, 10
        syscall
    ";
    let mut m = machine(src, &[]);
    run_all(&mut m);
    assert_eq!(m.console().take_output(), b"\x1b[2J\x1b[H\x1b[4;6H");
}

/// An echo handler in .ktext: it copies the key into $s7 and returns to the interrupted
/// instruction (MARS's eret does not add 4; EPC names the instruction not executed).
const HANDLER: &str = "
        .ktext 0x80000180
        mfc0 $k0, $13
        mfc0 $k1, $14
        move $s6, $k0
        move $s5, $k1
        lui $k0, 0xffff
        lw $s7, 4($k0)
        eret
";

/// A program that enables the receiver's interrupt, runs `nops` nops, counts one in $s1 and
/// exits; with [`HANDLER`].
fn receiver_interrupts_then(nops: usize) -> String {
    format!(
        "
        .text
        lui $s0, 0xffff
        li $t0, 2
        sw $t0, 0($s0)       # receiver interrupt enable
{}        addi $s1, $s1, 1
        li $v0, 10
        syscall
        {HANDLER}",
        "        nop\n".repeat(nops)
    )
}

#[test]
fn a_key_with_interrupts_enabled_interrupts_before_the_next_instruction() {
    let src = receiver_interrupts_then(3);
    // The key comes once four instructions ran (lui, li, sw, nop).
    let mut m = machine(&src, &[(4, b'q')]);
    assert!(matches!(run_all(&mut m), Some(StopEvent::Exited(0))));
    assert_eq!(reg(&m, "s7"), b'q' as u32);
    assert_eq!(reg(&m, "s6") & 0x300, 0x100, "Cause bit 8: keyboard");
    assert_eq!(reg(&m, "s6") & 0x7c, 0, "exception code 0");
    assert_eq!(
        reg(&m, "s5"),
        0x0040_0010,
        "EPC: the fifth instruction, not executed"
    );
    assert_eq!(
        reg(&m, "s1"),
        1,
        "the interrupted instruction runs after eret"
    );
}

/// A breakpoint at the instruction an interrupt is due at stops a run there, before the
/// interrupt (the PC a step to that count shows, as in MARS, whose breakpoint stops the run
/// where the PC arrived); the next step takes the interrupt.
#[test]
fn a_breakpoint_where_an_interrupt_is_due_stops_the_run_first() {
    let src = receiver_interrupts_then(2);
    // The key comes once four instructions ran: the interrupt is due at the second nop.
    let mut stepped = machine(&src, &[(4, b'q')]);
    for _ in 0..4 {
        assert_eq!(stepped.step(), None);
    }
    assert_eq!(stepped.pc(), 0x0040_0010, "a step to count 4 is at the nop");
    let mut m = machine(&src, &[(4, b'q')]);
    m.breakpoints().insert(0x0040_0010);
    assert_eq!(m.run(1_000).stop, Some(StopEvent::Breakpoint));
    assert_eq!(m.instructions_executed(), 4);
    assert_eq!(m.pc(), 0x0040_0010);
    assert_eq!(
        m.snapshot(),
        stepped.snapshot(),
        "the same state as the steps made"
    );
    // Stepped off the breakpoint: the interrupt, as the instruction it comes before.
    assert_eq!(m.step(), None);
    assert_eq!(m.pc(), 0x8000_0180);
    assert_eq!(m.instructions_executed(), 5);
    m.breakpoints().clear();
    assert!(matches!(run_all(&mut m), Some(StopEvent::Exited(0))));
    assert_eq!(reg(&m, "s7"), b'q' as u32);
    assert_eq!(reg(&m, "s1"), 1);
}

#[test]
fn the_display_interrupts_when_its_ready_bit_comes_back() {
    let src = format!(
        "
        .text
        lui $s0, 0xffff
        li $t0, 3
        sw $t0, 8($s0)       # transmitter interrupt enable (and ready)
        li $t9, 'D'
        sw $t9, 12($s0)
        nop
        nop
        nop
        nop
        nop
        nop
        li $v0, 10
        syscall
        {HANDLER}"
    );
    let mut m = machine(&src, &[]);
    assert!(matches!(run_all(&mut m), Some(StopEvent::Exited(0))));
    assert_eq!(reg(&m, "s6") & 0x300, 0x200, "Cause bit 9: display");
    // The store is at 0x00400010; the fifth fetch after it is 0x00400024.
    assert_eq!(reg(&m, "s5"), 0x0040_0024);
    assert_eq!(m.console().take_output(), b"D");
}

#[test]
fn an_interrupt_without_a_handler_is_a_runtime_error_and_none_without_ie() {
    let src = "
        lui $s0, 0xffff
        li $t0, 2
        sw $t0, 0($s0)
        nop
        nop
        li $v0, 10
        syscall
    ";
    let mut m = machine(src, &[(3, b'q')]);
    match run_all(&mut m) {
        Some(StopEvent::Fault(f)) => {
            assert!(
                f.message
                    .contains("Runtime exception at 0x0040000c: External Interrupt"),
                "{}",
                f.message
            );
        }
        other => panic!("expected MARS's runtime error, got {other:?}"),
    }
    let mut m = machine(src, &[(3, b'q')]);
    m.write_register(32, 0x0000_ff10); // Status: interrupts off
    assert!(matches!(run_all(&mut m), Some(StopEvent::Exited(0))));
    assert_eq!(word(&m, RC), 3, "the key is there, no interrupt");
}

#[test]
fn the_device_is_part_of_a_snapshot_and_live_keys_replay() {
    let src = "
        lui $s0, 0xffff
        li $t9, 'S'
        sw $t9, 12($s0)
        nop
        nop
        nop
        nop
        nop
        nop
        li $v0, 10
        syscall
    ";
    let mut m = machine(src, &[]);
    m.run(4);
    let mid_delay = m.snapshot();
    run_all(&mut m);
    assert_eq!(m.console().take_output(), b"S");
    m.restore(&mid_delay);
    assert_eq!(word(&m, TC), 0, "busy again");
    run_all(&mut m);
    assert_eq!(
        m.console().take_output(),
        b"S",
        "the character comes once more"
    );

    // A key typed live is logged input: a replay of the log presses it at the same count.
    use asmdbg_core::host::Replayable;
    let echo = "lui $s0, 0xffff\nnop\nnop\nnop\nlw $t1, 4($s0)\nli $v0, 10\nsyscall\n";
    let mut live = machine(echo, &[]);
    live.set_journal(asmdbg_core::Journal::recording());
    let start = live.snapshot();
    live.run(2);
    live.queue_key(b'k');
    run_all(&mut live);
    assert_eq!(reg(&live, "t1"), b'k' as u32);
    let log = live.journal().log().clone();
    live.restore(&start);
    live.replay(log);
    live.write_register(9, 0);
    run_all(&mut live);
    assert_eq!(reg(&live, "t1"), b'k' as u32);
}

fn bitmap_machine(src: &str, config: &str) -> MipsMachine {
    let opts = MachineOptions {
        bitmap: Some(BitmapConfig::parse(config).expect("config")),
        ..Default::default()
    };
    load_machine("bitmap.asm", src, &opts).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn each_base_address_shows_its_words_row_major() {
    for (name, base) in [
        ("global", 0x1000_0000u32),
        ("gp", 0x1000_8000),
        ("data", 0x1001_0000),
        ("heap", 0x1004_0000),
        ("mmio", 0xffff_0000),
    ] {
        // Unit (1, 0) and unit (0, 1) of a 64x64 display of 8-pixel units (8 across).
        let src = format!(
            "li $s0, {base}\nli $t0, 0xffff0000\nsw $t0, 4($s0)\nli $t0, 0x1200ff00\nsw $t0, 32($s0)\nli $v0, 10\nsyscall\n"
        );
        let mut m = bitmap_machine(&src, &format!("64x64,unit=8,base={name}"));
        run_all(&mut m);
        let frame = m.frame().expect("a display");
        assert_eq!((frame.width, frame.height), (8, 8), "{name}");
        assert_eq!(
            frame.at(1, 0),
            0xff0000,
            "{name}: the top byte is not shown"
        );
        assert_eq!(frame.at(0, 1), 0x00ff00, "{name}");
        assert_eq!(frame.at(0, 0), 0, "{name}");
        assert_eq!(m.display_memory(), Some((base as u64, 4 * 64)));
    }
}

#[test]
fn each_unit_size_divides_the_display() {
    for unit in [1u32, 2, 4, 8, 16, 32] {
        let m = bitmap_machine("li $v0, 10\nsyscall\n", &format!("256x128,unit={unit}"));
        let frame = m.frame().expect("a display");
        assert_eq!((frame.width, frame.height), (256 / unit, 128 / unit));
        assert_eq!((frame.unit_width, frame.unit_height), (unit, unit));
        assert!(frame.to_png().len() > 50);
    }
    let m = bitmap_machine("li $v0, 10\nsyscall\n", "512x256,unit=4x8");
    let frame = m.frame().expect("a display");
    assert_eq!((frame.width, frame.height), (128, 32));
}

/// A loop that does nothing but poll the receiver, with no key left to come (the input ended,
/// none queued or scheduled): the machine stops waiting for input after 1,000 polls, so that
/// `asmdbg run` ends with status 3 instead of spinning for ever. While keys may still come it
/// polls on.
#[test]
fn a_poll_loop_with_no_key_left_to_come_waits_for_input() {
    let src = "
        lui $s0, 0xffff
poll:   lw $t0, 0($s0)
        andi $t0, $t0, 1
        beqz $t0, poll
        li $v0, 10
        syscall
";
    let mut m = machine(src, &[]);
    assert_eq!(m.run(100_000).stop, None, "input still open: it polls on");
    let mut m = machine(src, &[]);
    m.end_input();
    assert_eq!(run_all(&mut m), Some(StopEvent::NeedInput));
    assert_eq!(
        m.instructions_executed(),
        1 + 3 * 999,
        "the 1,000th poll is not executed"
    );
    // A key scheduled for later will come: no wait.
    let mut m = machine(src, &[(50_000, b'k')]);
    m.end_input();
    assert_eq!(run_all(&mut m), Some(StopEvent::Exited(0)));
}

/// A game's frame loop polls the keyboard once a frame between other work: it runs to its end
/// with no key at all.
#[test]
fn a_frame_loop_that_checks_the_keyboard_runs_to_its_end_without_keys() {
    let src = "
        lui $s0, 0xffff
        li $s1, 3000
frame:  lw $t0, 0($s0)
        andi $t0, $t0, 1
        bnez $t0, key
        li $t1, 20
draw:   sw $t1, 0($gp)
        addiu $t1, $t1, -1
        bgtz $t1, draw
        addiu $s1, $s1, -1
        bgtz $s1, frame
key:    li $v0, 10
        syscall
";
    let mut m = machine(src, &[]);
    m.end_input();
    assert_eq!(m.run(10_000_000).stop, Some(StopEvent::Exited(0)));
}
