//! Cross-check of the decoder against the assembler's table of MARS's 155 basic instructions:
//! every form, with its operand fields filled with arbitrary values, decodes to an instruction
//! of the same mnemonic (so execution, disassembly and `monitor disas` agree with the encoder).

use asmdbg_mips::asm::basic::{Field, BASIC_INSTRUCTIONS};
use asmdbg_mips::decode::{decode, format_instruction, Instruction};

fn field_bits(field: Field, value: u32) -> u32 {
    match field {
        Field::Rs => (value & 31) << 21,
        Field::Rt | Field::Ft => (value & 31) << 16,
        Field::Rd | Field::Fs => (value & 31) << 11,
        Field::Shamt | Field::Fd => (value & 31) << 6,
        Field::Imm | Field::Branch => value & 0xffff,
        Field::Jump => value & 0x03ff_ffff,
        Field::Code20 => (value & 0xf_ffff) << 6,
        Field::CcHigh => (value & 7) << 18,
        Field::CcLow => (value & 7) << 8,
    }
}

#[test]
fn every_basic_form_decodes_to_its_mnemonic() {
    assert_eq!(BASIC_INSTRUCTIONS.len(), 155);
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for form in BASIC_INSTRUCTIONS {
        for trial in 0..32 {
            let mut word = form.bits;
            for &field in form.fields {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let value = if trial == 0 { 0 } else { seed as u32 };
                word |= field_bits(field, value);
            }
            let instr = decode(word);
            assert!(
                !matches!(instr, Instruction::Invalid(_)),
                "{} -> 0x{word:08x} does not decode",
                form.example
            );
            let text = format_instruction(instr, 0x0040_0000, None);
            let mnemonic = text.split(' ').next().unwrap_or("");
            let expected = form.mnemonic();
            let same = mnemonic == expected
                || (expected == "sll" && word == 0 && mnemonic == "nop")
                || (expected == "nop" && mnemonic == "nop");
            assert!(
                same,
                "{} -> 0x{word:08x} disassembles as {text}",
                form.example
            );
        }
    }
}

#[test]
fn words_outside_the_table_are_invalid() {
    // Reserved opcode, a SPECIAL funct MARS lacks, and a COP1 format MARS lacks.
    for word in [
        0xfc00_0000u32,
        0x0000_0005,
        0x46c0_0000,
        0x0000_0001 | (1 << 6),
    ] {
        assert!(
            matches!(decode(word), Instruction::Invalid(w) if w == word),
            "0x{word:08x}"
        );
    }
}
