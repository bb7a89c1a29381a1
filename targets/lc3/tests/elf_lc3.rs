//! The LC-3 ELF: structure read back with the `object` and `gimli` readers, and gdb-multiarch
//! answering source-level questions from the file alone (skipped with a notice without gdb,
//! a failure under ASMDBG_REQUIRE_TOOLS=1).

use std::process::Command;

use asmdbg_lc3::asm::{assemble_str, AsmOptions};
use asmdbg_lc3::elf::{elf_from_program, elf_image, gdb_addr};
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

/// Writes the ELF to a temporary file, removed when the returned path is dropped.
fn write_tmp(tag: &str, bytes: &[u8]) -> tempfile::TempPath {
    let mut file = tempfile::Builder::new()
        .prefix(&format!("asmdbg-elf-lc3-{tag}-"))
        .suffix(".elf")
        .tempfile()
        .expect("temp file");
    std::io::Write::write_all(&mut file, bytes).expect("write elf");
    file.into_temp_path()
}

/// gdb-multiarch's output for `cmds` in batch mode, or None (with a notice) when it is absent.
fn gdb(elf: &std::path::Path, cmds: &[&str]) -> Option<String> {
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
fn data_sections_are_what_the_assembler_emitted_as_data() {
    // A directive named in a comment or a string does not make a line data: the sections
    // come from the assembler's data items, not from the source text.
    let text = "\
        .ORIG x3000
        ADD R0, R0, #1 ; .FILL in a comment
        LEA R0, MSG
COUNT   .fill #5
MSG     .STRINGZ \".FILL;b\"
BUF     .blkw 3 ; buffer
        .END
";
    let program = assemble_str("d.asm", text, &AsmOptions::default()).expect("assembles");
    let image = elf_image(&program, None);
    let spans: Vec<(&str, u64, usize, bool)> = image
        .sections
        .iter()
        .map(|s| (s.name.as_str(), s.addr, s.data.len(), s.exec))
        .collect();
    assert_eq!(
        spans,
        [
            (".text", gdb_addr(0x3000), 4, true),
            (".data", gdb_addr(0x3002), 2 * (1 + 8 + 3), false),
        ]
    );
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
    let image = elf_image(&program, None);
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
            "info scope OUTER",
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
        "Symbol COUNT is in static storage at address 0x6018, length 2.",
    ] {
        assert!(out.contains(want), "missing {want:?} in gdb output:\n{out}");
    }
    assert!(!out.contains("No symbol table"), "{out}");
}

/// R7 saved at a fixed label, a stack adjustment, and a branch to an epilogue copy.
const FRAMES: &str = "\
        .ORIG x3000
        JSR SUBA
        HALT
SUBA    ST R7, SAVE7
        ADD R6, R6, #-2
        BRz SKIP
        JSR SUBB
        ADD R6, R6, #2
        LD R7, SAVE7
        RET
SKIP    ADD R0, R0, #0
        ADD R6, R6, #2
        LD R7, SAVE7
        RET
SUBB    RET
SAVE7   .FILL 0
        .END
";

/// The caller's sp (the CFA) and return address (gdb's lr) at gdb address `pc`, given sp and
/// lr there and the 16-bit memory words (gdb address → value) the rules read.
fn unwind(bytes: &[u8], pc: u64, sp: u64, lr: u64, mem: &[(u64, u16)]) -> (u64, Option<u64>) {
    use asmdbg_testsupport::unwind::FrameTable;
    let mem: Vec<(u64, u64)> = mem.iter().map(|&(a, v)| (a, u64::from(v))).collect();
    let caller = FrameTable::from_elf(bytes)
        .and_then(|frames| frames.unwind(pc, &[(13, sp), (14, lr)], 14, 2, &mem))
        .unwrap_or_else(|e| panic!("{e}"));
    (caller.cfa, caller.ra)
}

#[test]
fn frame_info_finds_r7_on_the_stack_and_at_a_label() {
    // The test program: OUTER pushes R7 on the R6 stack.
    let bytes = elf();
    // At OUTER's JSR INNER (x3006): CFA = R6 + 1, return address = 2 × mem[R6].
    let sp = 0x4000u64;
    let (cfa, ra) = unwind(&bytes, 0x600c, sp, 0, &[(2 * sp, 0x3002)]);
    assert_eq!((cfa, ra), (sp + 1, Some(0x6004)));
    // INNER is a leaf: the return address is lr.
    assert_eq!(unwind(&bytes, 0x6014, sp, 0x6010, &[]), (sp, Some(0x6010)));
    // MAIN is outermost.
    assert_eq!(unwind(&bytes, 0x6000, sp, 0, &[]).1, None);

    let program = assemble_str("frames.asm", FRAMES, &AsmOptions::default()).unwrap();
    let bytes = elf_from_program(&program).unwrap();
    let save7 = gdb_addr(0x300E);
    // SUBA after JSR SUBB (x3006), and SKIP (x3009) reached only by the BRz: R6 moved by 2,
    // R7 at SAVE7.
    for pc in [gdb_addr(0x3006), gdb_addr(0x3009)] {
        let (cfa, ra) = unwind(&bytes, pc, sp, 0, &[(save7, 0x3001)]);
        assert_eq!((cfa, ra), (sp + 2, Some(0x6002)), "at {pc:#x}");
    }
    // After LD R7 the return address is back in R7.
    assert_eq!(
        unwind(&bytes, gdb_addr(0x3008), sp, 0x6002, &[]).1,
        Some(0x6002)
    );
    // The unlabelled entry is still the outermost function.
    assert_eq!(unwind(&bytes, gdb_addr(0x3000), sp, 0, &[]).1, None);
}

#[test]
fn functions_are_subprograms_so_next_steps_over_jsr() {
    // gdb recognises "stepped into a subroutine" by find_pc_function, which needs DWARF
    // subprograms (measured: without them `next` over JSR in the entry function stops inside).
    let program = assemble_str("prog.asm", PROG, &AsmOptions::default()).unwrap();
    let image = elf_image(&program, None);
    type Sub<'a> = (&'a str, u64, Vec<(u64, u64)>);
    let subs: Vec<Sub> = image
        .debug
        .functions
        .iter()
        .map(|f| (f.name.as_str(), f.entry, f.ranges.clone()))
        .collect();
    assert_eq!(
        subs,
        [
            ("MAIN", 0x6000, vec![(0x6000, 0x6008)]),
            ("OUTER", 0x6008, vec![(0x6008, 0x6014)]),
            ("INNER", 0x6014, vec![(0x6014, 0x6018)]),
        ]
    );
}

#[test]
fn gdb_puts_every_line_of_the_repository_programs_on_its_first_word() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../programs/lc3");
    let mut seen = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "asm"))
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let Ok(program) = assemble_str(&name, &text, &AsmOptions::default()) else {
            continue;
        };
        seen += 1;
        let image = elf_image(&program, None);
        let bytes = elf_from_program(&program).expect("writes");
        let mut first: Vec<(u32, u64)> = Vec::new();
        for row in &image.debug.lines {
            let code = image
                .sections
                .iter()
                .any(|s| s.exec && row.addr >= s.addr && row.addr < s.addr + s.data.len() as u64);
            if code && !first.iter().any(|f| f.0 == row.line) {
                first.push((row.line, row.addr));
            }
        }
        let path = write_tmp(&name.replace('.', "_"), &bytes);
        let cmds: Vec<String> = first
            .iter()
            .map(|(l, _)| format!("break {name}:{l}"))
            .collect();
        let refs: Vec<&str> = cmds.iter().map(String::as_str).collect();
        let Some(out) = gdb(&path, &refs) else {
            return;
        };
        for (n, (l, a)) in first.iter().enumerate() {
            let want = format!("Breakpoint {} at {a:#x}: file {name}, line {l}.", n + 1);
            assert!(out.contains(&want), "{name}: missing {want:?}");
        }
    }
    assert!(seen >= 3, "the LC-3 games assemble");
}

/// xorshift64*: deterministic pseudo-random numbers for the robustness test.
fn rng(seed: &mut u64) -> u64 {
    *seed ^= *seed >> 12;
    *seed ^= *seed << 25;
    *seed ^= *seed >> 27;
    seed.wrapping_mul(0x2545_f491_4f6c_dd1d)
}

#[test]
fn random_images_never_panic() {
    use asmdbg_core::{SourceFile, SourceLoc, Symbol, SymbolKind};
    let mut seed = 0x1234_5678_9abc_def1u64;
    let mut written = 0;
    for _ in 0..300 {
        let mut program = asmdbg_lc3::Program::default();
        let file = program.debug.sources.add(SourceFile::new(
            "r.asm",
            "ADD R0, R0, #1\nX .FILL 3\n RET\n",
        ));
        for _ in 0..(rng(&mut seed) % 3) {
            let origin = (rng(&mut seed) % 0x1_0000) as u16;
            let len = (rng(&mut seed) % 40) as usize;
            let words: Vec<u16> = (0..len).map(|_| rng(&mut seed) as u16).collect();
            for i in 0..len {
                let line = (rng(&mut seed) % 5) as u32;
                program
                    .debug
                    .lines
                    .insert(u64::from(origin) + i as u64, SourceLoc { file, line });
            }
            program.segments.push(asmdbg_lc3::Segment { origin, words });
        }
        for k in 0..(rng(&mut seed) % 6) {
            let _ = program.debug.symbols.insert(Symbol {
                name: format!("L{k}"),
                addr: rng(&mut seed) % 0x1_0002,
                kind: if rng(&mut seed) % 2 == 0 {
                    SymbolKind::Code
                } else {
                    SymbolKind::Data
                },
                global: false,
            });
        }
        // Overlapping segments are an error, never a panic.
        written += usize::from(elf_from_program(&program).is_ok());
    }
    assert!(written > 250, "{written} of 300 written");
}

#[test]
fn the_file_comes_from_the_assemblers_facts_not_the_source_text() {
    // Blank out every source line: the ELF must not change, as nothing re-reads the text.
    let program = assemble_str("prog.asm", PROG, &AsmOptions::default()).expect("assembles");
    let mut blind = program.clone();
    blind.debug.sources = asmdbg_core::SourceMap::new();
    for file in program.debug.sources.files() {
        let blank = "\n".repeat(file.line_count() as usize);
        blind
            .debug
            .sources
            .add(asmdbg_core::SourceFile::new(file.name.to_string(), blank));
    }
    assert_eq!(
        elf_from_program(&blind).unwrap(),
        elf_from_program(&program).unwrap()
    );
}

/// The OS under a program, for each profile: vector tables as data, OS code, trap routines as
/// functions in a compile unit of their own, and the frame rules of how each is entered.
#[test]
fn the_os_is_a_second_unit_with_trap_routines_as_functions() {
    use asmdbg_core::elf::{CfaOp, ElfSymbolKind};
    use asmdbg_lc3::elf::{elf_with_os, OsPart};
    use asmdbg_lc3::os::profile;

    let text = "        .ORIG x3000\nMAIN    GETC\n        HALT\n        .END\n";
    let program = assemble_str("p.asm", text, &AsmOptions::default()).expect("assembles");
    for (name, through_stack) in [("patt", false), ("lc3sim", false), ("lc3tools", true)] {
        let image_of_os = profile(name)
            .expect("profile")
            .os_image()
            .expect("OS assembles");
        let os = OsPart {
            image: image_of_os,
            source_path: "/cache/lc3-os.asm",
            trap_through_stack: through_stack,
        };
        let image = elf_image(&program, Some(os));
        assert_eq!(image.debug.files, ["p.asm", "/cache/lc3-os.asm"], "{name}");
        assert_eq!(
            image.debug.unit_starts,
            [1],
            "{name}: the OS is a unit of its own"
        );
        let vectors = image
            .sections
            .iter()
            .find(|s| s.addr == 0)
            .expect("vector table");
        assert!(!vectors.exec, "{name}: trap vectors are data");
        let getc = image
            .symbols
            .iter()
            .find(|s| s.name == "TRAP_GETC")
            .expect("TRAP_GETC symbol");
        assert_eq!(getc.kind, ElfSymbolKind::Func, "{name}");
        assert!(image.debug.functions.iter().any(|f| f.name == "TRAP_GETC"));
        assert!(image.debug.functions.iter().any(|f| f.name == "MAIN"));
        let fde = image
            .debug
            .frames
            .iter()
            .find(|f| f.start == getc.addr)
            .expect("TRAP_GETC has a frame description");
        let enters_through_stack = fde
            .ops
            .iter()
            .any(|(at, op)| *at == getc.addr && matches!(op, CfaOp::DefCfaLoad { .. }));
        assert_eq!(enters_through_stack, through_stack, "{name}: {:?}", fde.ops);
        // The whole file still writes.
        assert!(elf_with_os(&program, os).is_ok(), "{name}");
    }
}
