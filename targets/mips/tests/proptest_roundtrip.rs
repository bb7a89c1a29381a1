//! Round trip of every MIPS instruction MARS can assemble: a random word's disassembly
//! assembles (at the same address), the assembled word decodes to the same instruction, and
//! its own disassembly assembles to the same word again.
//!
//! Branch and jump targets: the disassembler prints them as absolute addresses
//! (`bltz $a1,0x00400004`, or `j 0x00400000 <main>` with symbols, objdump style), and MARS
//! accepts only a label in that operand ("operand is of incorrect type"; "Invalid language
//! element: <main>"). The round trip puts a label at the target and writes it in place of the
//! printed address; everything else is assembled exactly as disassembled.
//!
//! `break N`: the decoder reads the whole 20-bit code field, while MARS types the operand of
//! `break 100` as a 16-bit unsigned number, so `break 352406` (0x0158258d) is "operand is out of
//! range". The round trip keeps break codes to 16 bits.

use asmdbg_core::SourceFile;
use asmdbg_mips::asm::{assemble, AsmOptions};
use asmdbg_mips::decode::{decode, disassemble};
use proptest::prelude::*;

/// Where .text starts and ends (MARS: 4 MiB).
const TEXT: u32 = 0x0040_0000;
const TEXT_END: u32 = 0x0080_0000;

/// The target printed by a branch or jump (`0x%08x` as its last operand).
fn target(word: u32, text: &str) -> Option<u32> {
    let opcode = word >> 26;
    let rs = (word >> 21) & 31;
    let transfers = matches!(opcode, 1..=7) || (opcode == 0x11 && rs == 8);
    if !transfers {
        return None;
    }
    let last = text.rsplit([',', ' ']).next()?;
    u32::from_str_radix(last.strip_prefix("0x")?, 16).ok()
}

/// `text` with its printed target address replaced by the label `target`.
fn with_label(text: &str, to: Option<u32>) -> String {
    match to {
        Some(t) => text.replace(&format!("0x{t:08x}"), "target"),
        None => text.to_string(),
    }
}

/// The first word `text` assembles to at `addr` in .text (with `target` defined at `to`), or
/// the assembler's report.
fn assemble_at(addr: u32, to: Option<u32>, text: &str) -> Result<u32, String> {
    let label = if to == Some(addr) { "target: " } else { "" };
    let mut source = format!("        .text 0x{addr:08x}\n{label}{text}\n");
    if let Some(t) = to.filter(|&t| t != addr) {
        source.push_str(&format!("        .text 0x{t:08x}\ntarget: nop\n"));
    }
    let file = SourceFile::new("roundtrip.s", source.as_str());
    let program = assemble(&file, &AsmOptions::default()).map_err(|d| format!("{source}{d}"))?;
    program
        .chunks
        .iter()
        .find(|c| c.kind.is_code() && c.addr == addr)
        .and_then(|c| c.bytes.get(..4))
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or_else(|| "no word assembled".to_string())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 4000,
        failure_persistence: None,
        max_global_rejects: 1 << 20,
        ..ProptestConfig::default()
    })]

    #[test]
    fn disassembly_assembles_to_the_same_instruction(word: u32, slot in 0x8000u32..0xF8000) {
        // Branches reach +-128 KiB: start far enough inside .text for every target to be there.
        let addr = TEXT + 4 * slot;
        // j/jal: aim the 26-bit target into .text too.
        let word = if matches!(word >> 26, 2 | 3) {
            (word & 0xfc00_0000) | ((TEXT >> 2) + (word & 0xfffff))
        } else {
            word
        };
        let is_break = word >> 26 == 0 && word & 0x3f == 0x0d;
        let word = if is_break { word & 0x003f_ffff } else { word };
        let plain = disassemble(word, addr, None);
        prop_assume!(!plain.starts_with('.') && !plain.starts_with('('));
        let to = target(word, &plain);
        if let Some(t) = to {
            prop_assert!((TEXT..TEXT_END).contains(&t), "{} at {:#x}", plain, addr);
        }
        let text = with_label(&plain, to);
        let assembled = assemble_at(addr, to, &text).map_err(|e| {
            TestCaseError::fail(format!("{word:#010x} at {addr:#x}: {text:?} does not assemble:\n{e}"))
        })?;
        prop_assert_eq!(decode(assembled), decode(word), "{} at {:#x}", text, addr);
        let again = disassemble(assembled, addr, None);
        prop_assert_eq!(&again, &plain);
        prop_assert_eq!(assemble_at(addr, to, &with_label(&again, to)), Ok(assembled));
    }
}

#[test]
fn a_break_code_past_16_bits_is_not_accepted_back() {
    assert_eq!(disassemble(0x0158_258d, TEXT, None), "break 352406");
    assert!(assemble_at(TEXT, None, "break 352406").is_err());
    assert_eq!(assemble_at(TEXT, None, "break 65535"), Ok(0x003f_ffcd));
}

#[test]
fn an_absolute_branch_target_is_not_accepted_back() {
    // What the round trip works around (see the module doc).
    assert_eq!(disassemble(0x04a0_0000, TEXT, None), "bltz $a1,0x00400004");
    assert!(assemble_at(TEXT, None, "bltz $a1,0x00400004").is_err());
}
