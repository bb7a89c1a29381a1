//! The LC-3 ELF: structure read back with the `object` and `gimli` readers, and gdb-multiarch
//! answering source-level questions from the file alone (skipped with a notice without gdb).

use std::path::PathBuf;
use std::process::Command;

use asmdbg_lc3::asm::{assemble_str, AsmOptions};
use asmdbg_lc3::elf::{elf_from_program, elf_image, gdb_addr, is_data_line};
use object::{Object, ObjectSection, ObjectSymbol, SectionKind, SymbolKind};

const PROG: &str = "\
; prog.asm: nested subroutines
        .ORIG x3000
MAIN    LD R0, COUNT        ; line 3
        JSR OUTER
        ST R0, COUNT
        HALT
OUTER   ADD R6, R6, #-1     ; line 7
        STR R7, R6, #0
        JSR INNER
        LDR R7, R6, #0
        ADD R6, R6, #1
        RET
INNER   ADD R0, R0, #1      ; line 13
        RET
COUNT   .FILL #5            ; line 15
MSG     .STRINGZ \"hi;x\"
BUF     .BLKW 3
        .END
";

fn elf() -> Vec<u8> {
    let program = assemble_str("prog.asm", PROG, &AsmOptions::default()).expect("assembles");
    elf_from_program(&program).expect("writes")
}

/// Writes the ELF into a fresh directory and returns its path.
fn write_tmp(tag: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("asmdbg-elf-lc3-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("prog.elf");
    std::fs::write(&path, bytes).expect("write elf");
    path
}

/// gdb-multiarch's output for `cmds` in batch mode, or None (with a notice) when it is absent.
fn gdb(elf: &std::path::Path, cmds: &[&str]) -> Option<String> {
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
fn data_directives_are_recognised_before_comments_and_strings() {
    assert!(is_data_line("COUNT .FILL #5"));
    assert!(is_data_line("  .blkw 3 ; buffer"));
    assert!(is_data_line("MSG .STRINGZ \"a;b\""));
    assert!(!is_data_line("  ADD R0, R0, #1 ; .FILL in a comment"));
    assert!(!is_data_line("  LEA R0, MSG"));
    assert!(!is_data_line(""));
}

#[test]
fn sections_symbols_and_machine() {
    let bytes = elf();
    let file = object::File::parse(&*bytes).expect("parses");
    assert_eq!(file.architecture(), object::Architecture::Unknown);
    assert!(file.is_little_endian());
    assert!(!file.is_64());
    assert_eq!(file.entry(), 0x6000);
    let text = file.section_by_name(".text").expect(".text");
    assert_eq!(text.address(), 0x6000);
    assert_eq!(text.kind(), SectionKind::Text);
    // LD R0, COUNT = 0x200B, little endian.
    assert_eq!(&text.data().unwrap()[..2], &[0x0B, 0x20]);
    assert_eq!(text.size(), 12 * 2);
    let data = file.section_by_name(".data").expect(".data");
    assert_eq!(data.address(), 0x6018);
    assert_eq!(data.kind(), SectionKind::Data);
    assert_eq!(data.size(), (1 + 5 + 3) * 2);

    let sym = |name: &str| {
        file.symbols()
            .find(|s| s.name() == Ok(name))
            .unwrap_or_else(|| panic!("symbol {name}"))
    };
    let main = sym("MAIN");
    assert_eq!(
        (main.address(), main.kind(), main.size()),
        (0x6000, SymbolKind::Text, 8)
    );
    let outer = sym("OUTER");
    assert_eq!(
        (outer.address(), outer.kind(), outer.size()),
        (0x6008, SymbolKind::Text, 12)
    );
    let inner = sym("INNER");
    assert_eq!(
        (inner.address(), inner.kind(), inner.size()),
        (0x6014, SymbolKind::Text, 4)
    );
    let count = sym("COUNT");
    assert_eq!(
        (count.address(), count.kind(), count.size()),
        (0x6018, SymbolKind::Data, 2)
    );
    let msg = sym("MSG");
    assert_eq!((msg.address(), msg.size()), (0x601a, 10));
    let buf = sym("BUF");
    assert_eq!((buf.address(), buf.size()), (0x6024, 6));
    assert!(file.section_by_name(".debug_line").is_some());
    assert!(file.section_by_name(".debug_info").is_some());
    assert!(file.section_by_name(".debug_abbrev").is_some());
}

#[test]
fn image_rows_cover_code_only_and_functions_are_call_targets() {
    let program = assemble_str("prog.asm", PROG, &AsmOptions::default()).unwrap();
    let image = elf_image(&program);
    let rows: Vec<(u64, u32)> = image.debug.lines.iter().map(|r| (r.addr, r.line)).collect();
    assert_eq!(rows.first(), Some(&(0x6000, 3)));
    assert_eq!(rows.last(), Some(&(0x6016, 14)));
    assert_eq!(rows.len(), 12);
    assert_eq!(image.debug.variables.len(), 3);
    assert_eq!(image.debug.types[0].size, 2);
    assert_eq!(gdb_addr(0x300F), 0x601e);
    let funcs: Vec<&str> = image
        .symbols
        .iter()
        .filter(|s| s.kind == asmdbg_core::elf::ElfSymbolKind::Func)
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(funcs, ["MAIN", "OUTER", "INNER"]);
}

#[test]
fn empty_and_unlabelled_programs_still_write() {
    let empty = asmdbg_lc3::Program::default();
    let bytes = elf_from_program(&empty).expect("empty program writes");
    assert!(object::File::parse(&*bytes).is_ok());
    // No label at the entry, two .ORIG blocks, data first.
    let src =
        "  .ORIG x4000\n  .FILL 7\n  .END\n  .ORIG x3000\n  ADD R0, R0, #1\n  BR #-2\n  .END\n";
    let program = assemble_str("two.asm", src, &AsmOptions::default()).expect("assembles");
    let bytes = elf_from_program(&program).expect("writes");
    let file = object::File::parse(&*bytes).unwrap();
    assert_eq!(file.section_by_name(".data").unwrap().address(), 0x8000);
    assert_eq!(file.section_by_name(".text").unwrap().address(), 0x6000);
    assert_eq!(file.entry(), 0x8000);
}

#[test]
fn gdb_reads_lines_symbols_and_typed_data() {
    let path = write_tmp("gdb", &elf());
    let Some(out) = gdb(
        &path,
        &[
            "info line prog.asm:9",
            "info address COUNT",
            "ptype COUNT",
            "print COUNT",
            "print sizeof(COUNT)",
            "info symbol 0x6016",
            "info symbol 0x601a",
            "break INNER",
            "break prog.asm:5",
            "info scope prog.asm:3",
            "list 13,13",
        ],
    ) else {
        return;
    };
    for want in [
        "Line 9 of \"prog.asm\" starts at address 0x600c <OUTER+4> and ends at 0x600e <OUTER+6>.",
        "Symbol \"COUNT\" is static storage at address 0x6018.",
        "type = word",
        "$1 = 5",
        "$2 = 2",
        "INNER + 2 in section .text",
        "MSG in section .data",
        "Breakpoint 1 at 0x6014: file prog.asm, line 13.",
        "Breakpoint 2 at 0x6004: file prog.asm, line 5.",
    ] {
        assert!(out.contains(want), "missing {want:?} in gdb output:\n{out}");
    }
    assert!(!out.contains("No symbol table"), "{out}");
}
