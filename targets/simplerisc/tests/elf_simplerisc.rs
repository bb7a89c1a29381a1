//! The SimpleRISC ELF: structure read back with the `object` reader, and gdb-multiarch
//! answering source-level questions from the file alone (skipped with a notice without gdb,
//! a failure under ASMDBG_REQUIRE_TOOLS=1).

use std::path::{Path, PathBuf};
use std::process::Command;

use asmdbg_core::elf::object::{
    self, Object, ObjectSection, ObjectSymbol, SectionKind, SymbolKind,
};
use asmdbg_simplerisc::elf::{elf_from_program, elf_image, gdb_code_addr, CODE_BASE, NOP_WORD};
use asmdbg_simplerisc::{assemble, AsmOptions, Program};

// The header is a block comment: an `@` comment line would be an instruction slot of its own,
// as in the course interpreter.
const PROG: &str = "\
/* prog.asm: nested calls */
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
    if !asmdbg_testsupport::require_tool("gdb-multiarch") {
        return None;
    }
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
        Err(e) => panic!("gdb-multiarch: {e}"),
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
    // The 14 slots, and the end slot where a program that runs off its code stops.
    assert_eq!(text.size(), 15 * 4);
    let data = text.data().unwrap();
    let word = |i: usize| u32::from_le_bytes(data[4 * i..4 * i + 4].try_into().unwrap());
    assert_eq!(word(3), NOP_WORD, ".print reads as nop");
    assert_eq!(word(0), p.word(0).unwrap());
    let sym = |name: &str| file.symbols().find(|s| s.name() == Ok(name)).unwrap();
    // `.main` spans its tail after the subroutines too (`.end`, reached by its `b .end`).
    let main = sym(".main");
    assert_eq!(
        (main.address(), main.kind(), main.size()),
        (CODE_BASE, SymbolKind::Text, 56)
    );
    let outer = sym("outer");
    assert_eq!((outer.address(), outer.size()), (gdb_code_addr(20), 24));
    let inner = sym("inner");
    assert_eq!((inner.address(), inner.size()), (gdb_code_addr(44), 8));
    assert_eq!(sym(".end").size(), 0);
    let end = sym("end_of_program");
    assert_eq!(
        (end.address(), end.kind(), end.size()),
        (gdb_code_addr(56), SymbolKind::Text, 4)
    );
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
    let names: Vec<&str> = image.symbols.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["end_of_program"], "no function, only the end slot");
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

/// The caller's sp (the CFA) and return address (gdb's lr) at gdb address `pc`, given sp and
/// lr there and the 32-bit data words the rules read.
fn unwind(bytes: &[u8], pc: u64, sp: u64, lr: u64, mem: &[(u64, u32)]) -> (u64, Option<u64>) {
    use asmdbg_testsupport::unwind::FrameTable;
    let mem: Vec<(u64, u64)> = mem.iter().map(|&(a, v)| (a, u64::from(v))).collect();
    let caller = FrameTable::from_elf(bytes)
        .and_then(|frames| frames.unwind(pc, &[(13, sp), (14, lr)], 14, 4, &mem))
        .unwrap_or_else(|e| panic!("{e}"));
    (caller.cfa, caller.ra)
}

#[test]
fn frame_info_finds_ra_saved_on_the_stack() {
    let bytes = elf_from_program(&program()).unwrap();
    let sp = 4088u64;
    // outer's `call inner` (slot 7): CFA = sp + 4, return address = CODE_BASE + mem[sp].
    let (cfa, ra) = unwind(&bytes, gdb_code_addr(28), sp, 0, &[(sp, 8)]);
    assert_eq!((cfa, ra), (sp + 4, Some(gdb_code_addr(8))));
    // inner is a leaf; .main is outermost.
    let lr = gdb_code_addr(32);
    assert_eq!(
        unwind(&bytes, gdb_code_addr(44), sp, lr, &[]),
        (sp, Some(lr))
    );
    assert_eq!(unwind(&bytes, CODE_BASE, sp, 0, &[]).1, None);
    // After `ld ra` the return address is back in ra.
    assert_eq!(
        unwind(&bytes, gdb_code_addr(36), sp, lr, &[]),
        (sp + 4, Some(lr))
    );
}

#[test]
fn functions_are_subprograms_so_next_steps_over_call() {
    let image = elf_image(&program());
    let subs: Vec<(&str, Vec<(u64, u64)>)> = image
        .debug
        .functions
        .iter()
        .map(|f| (f.name.as_str(), f.ranges.clone()))
        .collect();
    // A function is the code its flow reaches: `.end` after `inner` is `.main`'s.
    assert_eq!(
        subs,
        [
            (
                ".main",
                vec![
                    (CODE_BASE, gdb_code_addr(20)),
                    (gdb_code_addr(52), gdb_code_addr(56))
                ]
            ),
            ("outer", vec![(gdb_code_addr(20), gdb_code_addr(44))]),
            ("inner", vec![(gdb_code_addr(44), gdb_code_addr(52))]),
        ]
    );
}

#[test]
fn gdb_puts_every_line_of_the_tictactoe_verifier_on_its_slot() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../programs/simplerisc/tictactoe.asm");
    let text = std::fs::read_to_string(&path).expect("the verifier is in the repository");
    let program = assemble(
        "tictactoe.asm",
        &text,
        AsmOptions {
            no_mul: true,
            strict: false,
        },
    )
    .expect("assembles");
    let image = elf_image(&program);
    assert!(image
        .symbols
        .iter()
        .any(|s| s.name == "haswin" && s.size > 0));
    let elf = write_tmp("ttt", &elf_from_program(&program).unwrap());
    let mut first: Vec<(u32, u64)> = Vec::new();
    for row in &image.debug.lines {
        if !first.iter().any(|f| f.0 == row.line) {
            first.push((row.line, row.addr));
        }
    }
    let cmds: Vec<String> = first
        .iter()
        .map(|(l, _)| format!("break tictactoe.asm:{l}"))
        .collect();
    let refs: Vec<&str> = cmds.iter().map(String::as_str).collect();
    let Some(out) = gdb(&elf, &refs) else {
        return;
    };
    for (n, (l, a)) in first.iter().enumerate() {
        let want = format!(
            "Breakpoint {} at {a:#x}: file tictactoe.asm, line {l}.",
            n + 1
        );
        assert!(out.contains(&want), "missing {want:?}");
    }
}

#[test]
fn random_images_never_panic() {
    let mut seed = 0x0ddc_0ffe_e123_4567u64;
    let mut next = move || {
        seed ^= seed >> 12;
        seed ^= seed << 25;
        seed ^= seed >> 27;
        seed.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    for _ in 0..300 {
        let len = (next() % 64) as usize;
        // Bias towards calls, branches and stack instructions.
        let words: Vec<u32> = (0..len)
            .map(|_| {
                let w = next() as u32;
                match next() % 4 {
                    0 => (19 << 27) | (w & 0x07ff_ffff),
                    1 => (16 << 27) | (w & 0x07ff_ffff),
                    2 => (15 << 27) | (1 << 26) | (15 << 22) | (14 << 18) | (w & 0xffff),
                    _ => w,
                }
            })
            .collect();
        let mut p = Program::from_words(&words);
        p.entry = (next() % 70) as u32;
        for k in 0..(next() % 5) {
            let _ = p.debug.symbols.insert(asmdbg_core::Symbol {
                name: format!("l{k}"),
                addr: next() % 300,
                kind: asmdbg_core::SymbolKind::Code,
                global: false,
            });
        }
        let bytes = elf_from_program(&p).expect("always writes");
        assert!(object::File::parse(&*bytes).is_ok());
    }
}

#[test]
fn the_assembler_records_every_label_as_code_and_no_data() {
    // SimpleRISC has no data directives: the facts the ELF writer reads say every slot is
    // code (`.print` included), so the file has one executable section and no variables.
    let p = program();
    assert!(p.debug.data.is_empty());
    assert!(p
        .debug
        .symbols
        .iter()
        .all(|s| s.kind == asmdbg_core::SymbolKind::Code));
    let image = elf_image(&p);
    assert_eq!(image.sections.len(), 1);
    assert!(image.sections[0].exec);
    assert!(image.debug.variables.is_empty());
}
