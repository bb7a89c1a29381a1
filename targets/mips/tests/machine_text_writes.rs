//! Debugger writes into the text segment: a patch just past the program works (code may grow a
//! little), a stray write near the top of the 4 MiB segment is refused instead of allocating it,
//! a rewritten slot keeps its breakpoint, and a restored snapshot's code is what the run loop's
//! breakpoint-patched copy is rebuilt from.

use asmdbg_core::{Machine, MachineOptions, MemError, Snapshot, StopEvent};
use asmdbg_mips::load_machine;

fn machine() -> asmdbg_mips::machine::MipsMachine {
    load_machine(
        "t.asm",
        ".text\nmain: li $v0, 10\nsyscall\n",
        &MachineOptions::default(),
    )
    .expect("assembles")
}

#[test]
fn a_patch_just_past_the_program_is_accepted() {
    let mut m = machine();
    // nop right after the last instruction, then read it back.
    m.poke_word(0x0040_0008, 0).expect("writable");
    assert_eq!(m.peek_word(0x0040_0008), Ok(0));
    assert_eq!(
        m.disassemble(0x0040_0008).map(|d| d.0).as_deref(),
        Some("nop")
    );
}

#[test]
fn a_write_near_the_top_of_text_is_refused() {
    let mut m = machine();
    assert_eq!(
        m.debug_write(0x007f_fffc, 0),
        Err(MemError::Unmapped(0x007f_fffc))
    );
    // Unwritten text still reads as zero words, as in MARS.
    assert_eq!(m.peek_word(0x007f_fffc), Ok(0));
    // The program still runs to its end.
    let out = m.run(100);
    assert_eq!(out.stop, Some(asmdbg_core::StopEvent::Exited(0)));
}

/// `addiu $t0, $zero, 7`.
const LI_T0_7: u32 = 0x2408_0007;
const T0: usize = 8;

fn counting_machine() -> asmdbg_mips::machine::MipsMachine {
    load_machine(
        "t.asm",
        ".text\nmain: li $t0, 1\nli $t1, 2\nli $v0, 10\nsyscall\n",
        &MachineOptions::default(),
    )
    .expect("assembles")
}

#[test]
fn a_patched_slot_keeps_its_breakpoint_and_runs_the_new_code() {
    let mut m = counting_machine();
    assert!(m.breakpoints().insert(0x0040_0000));
    // The run loop's patched copy is built, then the slot under the breakpoint is rewritten.
    assert_eq!(m.run(100).stop, Some(StopEvent::Breakpoint));
    m.poke_word(0x0040_0000, LI_T0_7).expect("writable");
    assert_eq!(
        m.run(100).stop,
        Some(StopEvent::Breakpoint),
        "the stop stays"
    );
    assert_eq!(m.pc(), 0x0040_0000);
    assert_eq!(m.step(), None);
    assert_eq!(
        m.read_register(T0),
        Some(7),
        "stepping runs the new instruction"
    );
}

#[test]
fn a_restored_snapshot_runs_its_own_code_under_the_current_breakpoints() {
    let mut m = counting_machine();
    let before = m.snapshot();
    // Patch the first instruction and grow the code past the program, and run over both.
    m.poke_word(0x0040_0000, LI_T0_7).expect("writable");
    m.poke_word(0x0040_0010, 0).expect("writable");
    assert_eq!(m.run(2).stop, None);
    assert_eq!(m.read_register(T0), Some(7));
    // A breakpoint set after the snapshot applies to the restored code.
    assert!(m.breakpoints().insert(0x0040_0008));
    m.restore(&before);
    assert_eq!(m.disassemble(0x0040_0010), None, "the grown slot is gone");
    assert_eq!(m.run(100).stop, Some(StopEvent::Breakpoint));
    assert_eq!(m.pc(), 0x0040_0008);
    assert_eq!(m.read_register(T0), Some(1), "the restored instruction ran");
    assert!(m.breakpoints().remove(0x0040_0008));
    assert_eq!(m.run(100).stop, Some(StopEvent::Exited(0)));
}
