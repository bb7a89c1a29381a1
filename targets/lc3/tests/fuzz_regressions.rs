//! Inputs the fuzz targets (fuzz/, scripts/fuzz) found crashing, kept as regression tests.

use asmdbg_core::elf::ElfError;
use asmdbg_lc3::asm::{assemble_str, AsmOptions};
use asmdbg_lc3::elf::elf_from_program;

/// fuzz/findings/asm-elf-nul-label: a line holding only a NUL and a comment makes a label
/// named "\0", and writing the ELF panicked in object's string table (`!string.contains(&0)`).
#[test]
fn a_label_with_a_nul_is_an_elf_error_not_a_panic() {
    let source = "\t.ORIG x3000\n\0; mode: strict\n\t.END\n";
    let program = match assemble_str("nul.asm", source, &AsmOptions::default()) {
        Ok(p) => p,
        Err(e) => panic!("the fuzz input assembles: {e}"),
    };
    assert!(
        program.debug.symbols.get("\0").is_some(),
        "the label exists"
    );
    match elf_from_program(&program) {
        Err(ElfError::NulInName { name }) => assert_eq!(name, "\\0"),
        other => panic!("expected NulInName, got {:?}", other.map(|b| b.len())),
    }
}
