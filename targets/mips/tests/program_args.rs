//! Program arguments (`--args`, MARS's `pa` option) where mars/simulator/ProgramArgumentList.java
//! puts them: the strings packed down from 0x7ffffffc, a NUL word at 0x7fffeffc with the argv
//! pointers and argc below it, `$sp` at argc, `$a0` = argc, `$a1` = argv. The expected
//! addresses below are worked out from that source by hand.

use asmdbg_core::{Machine, MachineOptions};
use asmdbg_mips::load_machine;

const A0: usize = 4;
const A1: usize = 5;
const SP: usize = 29;

fn machine(args: &[&str]) -> asmdbg_mips::MipsMachine {
    let opts = MachineOptions {
        program_args: args.iter().map(|a| a.to_string()).collect(),
        ..Default::default()
    };
    load_machine(
        "args.asm",
        ".text\nmain: addi $sp, $sp, -4\nsw $zero, 4($sp)\nli $a0, 9\n",
        &opts,
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

fn word(m: &asmdbg_mips::MipsMachine, addr: u32) -> u32 {
    let bytes: Vec<u8> = (0..4)
        .map(|i| m.debug_read(u64::from(addr + i)).unwrap() as u8)
        .collect();
    u32::from_le_bytes(bytes.try_into().unwrap())
}

fn string(m: &asmdbg_mips::MipsMachine, mut addr: u32) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let b = m.debug_read(u64::from(addr)).unwrap() as u8;
        if b == 0 {
            return out;
        }
        out.push(b);
        addr += 1;
    }
}

fn regs(m: &asmdbg_mips::MipsMachine) -> [u64; 3] {
    [A0, A1, SP].map(|r| m.read_register(r).unwrap())
}

#[test]
fn strings_pointers_and_registers_sit_where_mars_puts_them() {
    let m = machine(&["one", "two", "thr ee"]);
    // "one\0" ends at 0x7ffffffc, "two\0" below it, then "thr ee\0".
    assert_eq!(string(&m, 0x7fff_fff9), b"one");
    assert_eq!(string(&m, 0x7fff_fff5), b"two");
    assert_eq!(string(&m, 0x7fff_ffee), b"thr ee");
    assert_eq!(word(&m, 0x7fff_effc), 0, "NUL word ending argv");
    assert_eq!(word(&m, 0x7fff_eff8), 0x7fff_ffee);
    assert_eq!(word(&m, 0x7fff_eff4), 0x7fff_fff5);
    assert_eq!(word(&m, 0x7fff_eff0), 0x7fff_fff9);
    assert_eq!(word(&m, 0x7fff_efec), 3, "argc at $sp");
    assert_eq!(regs(&m), [3, 0x7fff_eff0, 0x7fff_efec]);
}

#[test]
fn without_arguments_nothing_changes() {
    let m = machine(&[]);
    assert_eq!(regs(&m), [0, 0, 0x7fff_effc]);
    assert_eq!(word(&m, 0x7fff_effc), 0);
}

#[test]
fn strings_longer_than_the_gap_push_the_stack_down() {
    // 5000 characters + NUL: the lowest byte is 0x7ffffffc - 5000 = 0x7fffec74, so MARS
    // starts the words at the word below 0x7fffec73's word, minus a word: 0x7fffec6c.
    let long = "x".repeat(5000);
    let m = machine(&[&long]);
    assert_eq!(string(&m, 0x7fff_ec74).len(), 5000);
    assert_eq!(word(&m, 0x7fff_ec6c), 0);
    assert_eq!(word(&m, 0x7fff_ec68), 0x7fff_ec74);
    assert_eq!(word(&m, 0x7fff_ec64), 1);
    assert_eq!(regs(&m), [1, 0x7fff_ec68, 0x7fff_ec64]);
}

#[test]
fn a_character_is_stored_as_the_low_byte_of_its_utf16_unit() {
    // MARS stores Java chars cut to 8 bits: é (U+00E9) is 0xE9, € (U+20AC) is 0xAC.
    let m = machine(&["é€"]);
    assert_eq!(string(&m, 0x7fff_fffa), vec![0xe9, 0xac]);
}

#[test]
fn reset_restores_the_arguments() {
    let mut m = machine(&["a", "bc"]);
    let before = regs(&m);
    let argv0 = word(&m, 0x7fff_eff4);
    m.run(100);
    // The program moved $sp, overwrote argc and changed $a0.
    assert_ne!(regs(&m), before);
    m.reset();
    assert_eq!(regs(&m), before);
    assert_eq!(before, [2, 0x7fff_eff4, 0x7fff_eff0]);
    assert_eq!(word(&m, 0x7fff_eff0), 2);
    assert_eq!(word(&m, 0x7fff_eff4), argv0);
    assert_eq!(string(&m, argv0), b"a");
}
