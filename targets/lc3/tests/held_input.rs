//! Held input (`Console::hold_input`, what a grader's shared prefix runs with): the machine stops
//! at its first look at the keyboard — a KBSR poll, a KBDR read, the moment a key would raise an
//! interrupt — so that input given there makes the same run, to the instruction, as that input
//! queued from the start.

use asmdbg_core::{Machine, MachineOptions, StopEvent};
use asmdbg_lc3::load_machine;

fn machine(src: &str) -> asmdbg_lc3::Lc3Machine {
    load_machine("held.asm", src.as_bytes(), &MachineOptions::default())
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Runs to the end: (instructions, output).
fn finish(m: &mut asmdbg_lc3::Lc3Machine) -> (u64, Vec<u8>) {
    let stop = m.run(1_000_000).stop;
    assert_eq!(stop, Some(StopEvent::Halted), "{stop:?}");
    (m.instructions_executed(), m.console().take_output())
}

/// The run with `input` queued from the start, and the run held at the first look with the
/// same input given there: both end at the same count with the same output.
fn held_then_given(src: &str, input: &[u8]) -> u64 {
    let mut whole = machine(src);
    whole.queue_input(input);
    whole.end_input();
    let want = finish(&mut whole);

    let mut held = machine(src);
    held.console().hold_input();
    assert_eq!(held.run(1_000_000).stop, Some(StopEvent::NeedInput));
    let looked_at = held.instructions_executed();
    held.queue_input(input);
    held.end_input();
    assert_eq!(finish(&mut held), want);
    looked_at
}

const GETC: &str = "
        .ORIG x3000
        LEA R0, HELLO
        PUTS
        GETC
        OUT
        GETC
        OUT
        HALT
HELLO   .STRINGZ \"type: \"
        .END
";

#[test]
fn a_held_run_stops_at_the_first_keyboard_poll() {
    let looked_at = held_then_given(GETC, b"ab");
    // Without the hold, the OS's GETC would poll an empty keyboard a thousand times before the
    // machine calls it a wait: those polls are not part of the run with input.
    let mut idle = machine(GETC);
    assert_eq!(idle.run(1_000_000).stop, Some(StopEvent::NeedInput));
    assert!(idle.instructions_executed() > looked_at + 100);
}

#[test]
fn a_held_run_stops_where_a_key_would_interrupt() {
    // The program enables keyboard interrupts, then counts in R1 until the routine (which reads
    // the key into R2) has run; the count at the interrupt depends on when the key came.
    let src = "
        .ORIG x3000
        AND R1, R1, #0
        AND R2, R2, #0
        LD R6, STACK
        LD R0, ISR
        STI R0, VECTOR
        LD R0, IE
        STI R0, KBSR
WAIT    ADD R1, R1, #1
        ADD R2, R2, #0
        BRz WAIT
        ADD R0, R1, #15
        ADD R0, R0, #15
        ADD R0, R0, #15
        OUT
        HALT
STACK   .FILL x4000
ISR     .FILL x3100
VECTOR  .FILL x0180
IE      .FILL x4000
KBSR    .FILL xFE00
        .END
        .ORIG x3100
        LDI R2, KBDR
        RTI
KBDR    .FILL xFE02
        .END
";
    let looked_at = held_then_given(src, b"k");
    assert_eq!(
        looked_at, 7,
        "stopped right after the interrupt was enabled"
    );
}
