//! The SimpleRISC ELF: structure read back with the `object` reader, and gdb-multiarch
//! answering source-level questions from the file alone (skipped with a notice without gdb).

use std::path::{Path, PathBuf};
use std::process::Command;

use asmdbg_core::elf::object::{
    self, Object, ObjectSection, ObjectSymbol, SectionKind, SymbolKind,
};
use asmdbg_simplerisc::elf::{elf_from_program, elf_image, gdb_code_addr, CODE_BASE, NOP_WORD};
use asmdbg_simplerisc::{assemble, AsmOptions, Program};

const PROG: &str = "\
@ prog.asm: nested calls
.main:
\tmov r1, 3
\tcall outer
\tmov r2, r1
\t.print r2
\tb .end
outer:
\tsub sp, sp, 4
\tst ra, 0[sp]
\tcall inner
\tld ra, 0[sp]
\tadd sp, sp, 4
\tret
inner:
\tadd r1, r1, 1
\tret
.end:
\tnop
";

fn program() -> Program {
    assemble("prog.asm", PROG, AsmOptions::default()).expect("assembles")
}

fn write_tmp(tag: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("asmdbg-elf-sr-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("prog.elf");
    std::fs::write(&path, bytes).expect("write elf");
    path
}

fn gdb(elf: &Path, cmds: &[&str]) -> Option<String> {
    let mut cmd = Command::new("gdb-multiarch");
    cmd.args(["-nx", "-batch"]);
    for c in cmds {
        cmd.args(["-ex", c]);
    }
    cmd.arg(elf);
    match cmd.output() {
        Ok(out) => Some(format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )),
        Err(_) => {
            eprintln!("notice: gdb-multiarch not found; skipping the gdb checks");
            None
        }
    }
}

#[test]
fn code_at_the_stub_base_with_call_targets_as_functions() {
    let p = program();
    let bytes = elf_from_program(&p).expect("writes");
    let file = object::File::parse(&*bytes).expect("parses");
    assert_eq!(file.architecture(), object::Architecture::Unknown);
    assert_eq!(file.entry(), CODE_BASE);
    let text = file.section_by_name(".text").unwrap();
    assert_eq!(
        (text.address(), text.kind()),
        (CODE_BASE, SectionKind::Text)
    );
    assert_eq!(text.size(), 14 * 4);
    let data = text.data().unwrap();
    let word = |i: usize| u32::from_le_bytes(data[4 * i..4 * i + 4].try_into().unwrap());
    assert_eq!(word(3), NOP_WORD, ".print reads as nop");
    assert_eq!(word(0), p.word(0).unwrap());
    let sym = |name: &str| file.symbols().find(|s| s.name() == Ok(name)).unwrap();
    let main = sym(".main");
    assert_eq!(
        (main.address(), main.kind(), main.size()),
        (CODE_BASE, SymbolKind::Text, 20)
    );
    let outer = sym("outer");
    assert_eq!((outer.address(), outer.size()), (gdb_code_addr(20), 24));
    let inner = sym("inner");
    assert_eq!((inner.address(), inner.size()), (gdb_code_addr(44), 12));
    assert_eq!(sym(".end").size(), 0);
    assert!(file.section_by_name(".data").is_none());
}

#[test]
fn every_slot_has_a_line_row() {
    let image = elf_image(&program());
    assert_eq!(image.debug.lines.len(), 14);
    assert_eq!(image.debug.lines[0].addr, CODE_BASE);
    assert_eq!(image.debug.lines[0].line, 3);
    assert!(image.debug.variables.is_empty());
}

#[test]
fn empty_program_and_raw_words_write() {
    assert!(elf_from_program(&Program::default()).is_ok());
    // A call past the end and no labels: no function, no panic.
    let p = Program::from_words(&[0x9800_0100, NOP_WORD]);
    let image = elf_image(&p);
    assert!(image.symbols.is_empty());
    assert!(elf_from_program(&p).is_ok());
}

#[test]
fn gdb_reads_lines_and_functions() {
    let path = write_tmp("gdb", &elf_from_program(&program()).unwrap());
    let Some(out) = gdb(
        &path,
        &[
            "info line prog.asm:11",
            "break inner",
            "break prog.asm:6",
            "info symbol 0x80000030",
        ],
    ) else {
        return;
    };
    for want in [
        "Line 11 of \"prog.asm\" starts at address 0x8000001c <outer+8>",
        "Breakpoint 1 at 0x8000002c: file prog.asm, line 16.",
        "Breakpoint 2 at 0x8000000c: file prog.asm, line 6.",
        "inner + 4 in section .text",
    ] {
        assert!(out.contains(want), "missing {want:?} in:\n{out}");
    }
}
