//! Debugger writes into the text segment: a patch just past the program works (code may grow a
//! little), a stray write near the top of the 4 MiB segment is refused instead of allocating it.

use asmdbg_core::{Machine, MachineOptions, MemError};
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
