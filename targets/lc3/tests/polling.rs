//! Checking the keyboard is not waiting for it: a real-time loop that looks at KBSR once a
//! frame and goes on when no key is there runs for as long as it likes with no input at all;
//! only a loop that does nothing but poll is waiting (the machine stops with `NeedInput`, and
//! `asmdbg run` exits with status 3 when no input is left), after the 1,000 polls lc3tools'
//! rule takes.

use asmdbg_core::{Machine, MachineOptions, StopEvent};
use asmdbg_lc3::load_machine;

fn machine(src: &str) -> asmdbg_lc3::Lc3Machine {
    let mut m = load_machine("poll.asm", src.as_bytes(), &MachineOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    m.end_input();
    m
}

#[test]
fn a_frame_loop_that_checks_the_keyboard_runs_to_its_end_without_input() {
    // 3,000 frames: look at KBSR, then "draw" (a 20-step loop storing into FRAME), then again.
    let src = "
        .ORIG x3000
        LD R3, FRAMES
FRAME   LDI R0, KBSR
        BRn KEY
        AND R1, R1, #0
        ADD R1, R1, #10
DRAW    ST R1, PIXEL
        ADD R1, R1, #-1
        BRp DRAW
        ADD R3, R3, #-1
        BRp FRAME
KEY     HALT
FRAMES  .FILL #3000
KBSR    .FILL xFE00
PIXEL   .FILL 0
        .END
";
    let mut m = machine(src);
    assert_eq!(m.run(10_000_000).stop, Some(StopEvent::Halted));
    assert!(m.instructions_executed() > 3000 * 30);
}

#[test]
fn a_loop_that_only_polls_waits_for_input() {
    let src = "
        .ORIG x3000
POLL    LDI R0, KBSR
        BRzp POLL
        HALT
KBSR    .FILL xFE00
        .END
";
    let mut m = machine(src);
    assert_eq!(m.run(10_000_000).stop, Some(StopEvent::NeedInput));
    // 1,000 polls of two instructions each (the last poll is not counted: it runs again when
    // a key comes).
    assert_eq!(m.instructions_executed(), 1998);
    // The OS's GETC waits the same way.
    let getc = ".ORIG x3000\nGETC\nHALT\n.END\n";
    let mut m = machine(getc);
    assert_eq!(m.run(10_000_000).stop, Some(StopEvent::NeedInput));
}

#[test]
fn a_wait_loop_with_a_little_work_between_polls_still_waits() {
    // A wait that also counts how long it waited: still nothing but polling.
    let src = "
        .ORIG x3000
        AND R2, R2, #0
POLL    ADD R2, R2, #1
        LDI R0, KBSR
        BRzp POLL
        HALT
KBSR    .FILL xFE00
        .END
";
    let mut m = machine(src);
    assert_eq!(m.run(10_000_000).stop, Some(StopEvent::NeedInput));
}
