//! Programs of several files, with MARS 4.5's rules for them (see the header of
//! `src/asm/mod.rs`): addresses run on from file to file, each file starts in `.text`, labels
//! are local unless `.globl`, `.eqv`s and macros are per file, and MARS's error texts for
//! labels that are not global or global twice, each naming the file it is in. The program in
//! tests/data/multi/ (main.asm + lib/lib.asm, each with an `.include`) runs end to end and its
//! ELF has a compile unit per file.

use std::path::PathBuf;

use asmdbg_core::elf::{gimli, object};
use asmdbg_core::{Diagnostics, Machine, MachineOptions, SourceFile, StopEvent, SymbolKind};
use asmdbg_mips::asm::{assemble, assemble_files, AsmOptions};
use asmdbg_mips::elf::elf_from_program;
use asmdbg_mips::{load_machine_files, ChunkKind, Program};
use object::{Object, ObjectSection};

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/multi")
}

/// main.asm and lib/lib.asm as `(path, text)`, by absolute path so each `.include` is found
/// beside the file that includes it.
fn two_files() -> Vec<(String, String)> {
    ["main.asm", "lib/lib.asm"]
        .iter()
        .map(|name| {
            let path = data_dir().join(name);
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
            (path.to_string_lossy().into_owned(), text)
        })
        .collect()
}

fn sources(files: &[(&str, &str)]) -> Vec<SourceFile> {
    files
        .iter()
        .map(|&(name, text)| SourceFile::new(name, text))
        .collect()
}

fn asm(files: &[(&str, &str)]) -> Program {
    assemble_files(&sources(files), &AsmOptions::default())
        .unwrap_or_else(|d| panic!("assembly failed:\n{d}"))
}

fn asm_err(files: &[(&str, &str)]) -> Diagnostics {
    match assemble_files(&sources(files), &AsmOptions::default()) {
        Ok(_) => panic!("expected errors"),
        Err(d) => d,
    }
}

/// `(file, line, message)` of each error.
fn errors(d: &Diagnostics) -> Vec<(String, u32, String)> {
    d.items
        .iter()
        .filter(|i| i.is_error())
        .map(|i| {
            let loc = i.location.as_ref().expect("located");
            (loc.file.to_string(), loc.line, i.message.clone())
        })
        .collect()
}

/// The labels called `name`, as (address, global).
fn labels(p: &Program, name: &str) -> Vec<(u64, bool)> {
    p.debug
        .symbols
        .iter()
        .filter(|s| s.name == name)
        .map(|s| (s.addr, s.global))
        .collect()
}

fn run(files: &[(String, String)], opts: &MachineOptions) -> (Option<StopEvent>, String) {
    let mut m = load_machine_files(files, opts).unwrap_or_else(|e| panic!("{e}"));
    m.console().close_input();
    let stop = m.run(1_000_000).stop;
    let out = String::from_utf8(m.console().take_output()).unwrap_or_else(|e| panic!("{e}"));
    (stop, out)
}

#[test]
fn two_files_with_globals_and_includes_run_end_to_end() {
    let expected = "sum of 5 numbers = 39\n321\nhello from lib\n";
    let files = two_files();
    for start_at_main in [false, true] {
        let opts = MachineOptions {
            start_at_main,
            ..Default::default()
        };
        let (stop, out) = run(&files, &opts);
        assert_eq!(
            stop,
            Some(StopEvent::Exited(0)),
            "start at main: {start_at_main}"
        );
        assert_eq!(out, expected, "start at main: {start_at_main}");
    }
}

#[test]
fn addresses_run_on_from_file_to_file() {
    let files = two_files();
    let m =
        load_machine_files(&files, &MachineOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let p = m.program();
    // main.asm is 38 words of code (macro calls and pseudo-instructions expanded) and 22
    // bytes of strings; lib.asm's code and data follow, its `.word`s aligned.
    assert_eq!(labels(p, "main"), [(0x0040_0000, true)]);
    assert_eq!(labels(p, "sum"), [(0x0040_0098, true)]);
    assert_eq!(labels(p, "greet"), [(0x0040_00b8, true)]);
    assert_eq!(labels(p, "numbers"), [(0x1001_0018, true)]);
    assert_eq!(labels(p, "count"), [(0x1001_002c, true)]);
    assert_eq!(p.main, Some(0x0040_0000));
    // One text run and one data run: nothing was laid twice at the same place.
    let runs: Vec<(ChunkKind, u32)> = p.chunks.iter().map(|c| (c.kind, c.addr)).collect();
    assert_eq!(
        runs,
        [
            (ChunkKind::Text, 0x0040_0000),
            (ChunkKind::Data, 0x1001_0000)
        ]
    );
    // Each word's line is in its own file: the last word of main.asm, then lib.asm's first.
    let file_line = |addr: u64| {
        let (path, line) = p.debug.describe(addr).expect("line");
        let name = path.rsplit('/').next().unwrap_or_default().to_string();
        (name, line)
    };
    assert_eq!(file_line(0x0040_0094), ("main.asm".to_string(), 27));
    assert_eq!(file_line(0x0040_0098), ("lib.asm".to_string(), 11));
    assert_eq!(file_line(0x1001_0000), ("main.asm".to_string(), 5));
    assert_eq!(file_line(0x1001_0018), ("lib.asm".to_string(), 5));
    // The source map holds each file with its include after it.
    let names: Vec<String> = p
        .debug
        .sources
        .files()
        .iter()
        .map(|f| f.name.rsplit('/').next().unwrap_or_default().to_string())
        .collect();
    assert_eq!(names, ["main.asm", "macros.asm", "lib.asm", "say.asm"]);
    assert_eq!(p.files.iter().map(|f| f.0).collect::<Vec<_>>(), [0, 2]);
}

#[test]
fn the_same_local_label_in_two_files_is_two_labels() {
    let files = two_files();
    let m =
        load_machine_files(&files, &MachineOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let p = m.program();
    let mut loops = labels(p, "loop");
    loops.sort_unstable();
    assert_eq!(loops, [(0x0040_0068, false), (0x0040_009c, false)]);
    let mut nls = labels(p, "nl");
    nls.sort_unstable();
    assert_eq!(nls, [(0x1001_0014, false), (0x1001_0030, false)]);
    assert!(p
        .debug
        .symbols
        .iter()
        .filter(|s| s.name == "nl")
        .all(|s| s.kind == SymbolKind::Data));

    // Each file's branches reach its own label.
    let a = "\t.text\n\tli $v0, 10\nloop:\tj loop\n";
    let b = "\t.text\nloop:\tnop\n\tj loop\n";
    let p = asm(&[("a.asm", a), ("b.asm", b)]);
    let words = &p.chunks[0].bytes;
    let word = |i: usize| u32::from_le_bytes(words[4 * i..4 * i + 4].try_into().unwrap());
    assert_eq!(word(1), 0x0800_0000 | (0x0040_0004 >> 2));
    assert_eq!(word(3), 0x0800_0000 | (0x0040_0008 >> 2));
}

#[test]
fn a_label_another_file_does_not_make_global_is_not_found() {
    let a = "\t.text\n\tjal helper\n\tla $a0, table\n";
    let b = "\t.data\ntable:\t.word 1\n\t.text\nhelper:\tjr $ra\n";
    let d = asm_err(&[("a.asm", a), ("b.asm", b)]);
    assert_eq!(
        errors(&d),
        [
            (
                "a.asm".to_string(),
                2,
                "Symbol \"helper\" not found in symbol table.".to_string()
            ),
            (
                "a.asm".to_string(),
                3,
                "Symbol \"table\" not found in symbol table.".to_string()
            ),
        ]
    );
    let text = d.to_string();
    assert!(
        text.contains("a.asm:2:6: error: Symbol \"helper\" not found in symbol table."),
        "{text}"
    );
    // The same in a data directive.
    let a = "\t.data\nptr:\t.word helper\n";
    let d = asm_err(&[("a.asm", a), ("b.asm", b)]);
    assert_eq!(
        errors(&d),
        [(
            "a.asm".to_string(),
            2,
            "Symbol \"helper\" not found in symbol table.".to_string()
        )]
    );
    // With `.globl helper, table` in b.asm both resolve.
    let b = format!("\t.globl helper, table\n{b}");
    let p = asm(&[
        ("a.asm", "\t.text\n\tjal helper\n\tla $a0, table\n"),
        ("b.asm", &b),
    ]);
    assert_eq!(labels(&p, "helper"), [(0x0040_000c, true)]);
}

#[test]
fn a_global_defined_in_two_files_is_an_error_in_the_second() {
    let a = "\t.globl f\n\t.text\nf:\tjr $ra\n";
    let b = "\t.text\n\tnop\n\t.globl f\nf:\tjr $ra\n";
    let d = asm_err(&[("a.asm", a), ("b.asm", b)]);
    assert_eq!(
        errors(&d),
        [(
            "b.asm".to_string(),
            3,
            "\"f\" already defined as global in a different file.".to_string()
        )]
    );
    assert!(
        d.to_string()
            .contains("b.asm:3:9: error: \"f\" already defined as global in a different file."),
        "{d}"
    );
    // A global of one file and a local of the same name in another are fine; each file's
    // references mean its own.
    let b = "\t.text\nf:\tnop\n\tjal f\n";
    let p = asm(&[("a.asm", a), ("b.asm", b)]);
    let mut fs = labels(&p, "f");
    fs.sort_unstable();
    assert_eq!(fs, [(0x0040_0000, true), (0x0040_0004, false)]);
    assert_eq!(
        p.debug.symbols.addr("f"),
        Some(0x0040_0000),
        "the global answers"
    );
    let jal = u32::from_le_bytes(p.chunks[0].bytes[8..12].try_into().unwrap());
    assert_eq!(jal, 0x0c00_0000 | (0x0040_0004 >> 2));
}

#[test]
fn a_data_reference_before_the_files_own_label_takes_an_earlier_global() {
    // MARS resolves `.word x` as it reads it: b.asm has no `x` yet, a.asm's global `x` is
    // known, so `p` gets a.asm's; `q`, after b.asm's own `x`, and the instruction get b.asm's.
    let a = "\t.globl x\n\t.data\nx:\t.word 1\n";
    let b = "\t.data\np:\t.word x\nx:\t.word 2\nq:\t.word x\n\t.text\n\tla $t0, x\n";
    let p = asm(&[("a.asm", a), ("b.asm", b)]);
    let data = p
        .chunks
        .iter()
        .find(|c| c.kind == ChunkKind::Data)
        .expect("data");
    let word = |i: usize| u32::from_le_bytes(data.bytes[4 * i..4 * i + 4].try_into().unwrap());
    assert_eq!(
        [word(0), word(1), word(2), word(3)],
        [1, 0x1001_0000, 2, 0x1001_0008]
    );
    let text = &p.chunks[0].bytes;
    let ori = u32::from_le_bytes(text[4..8].try_into().unwrap());
    assert_eq!(ori & 0xffff, 0x0008, "la takes b.asm's x");
}

#[test]
fn a_globl_of_a_label_the_file_does_not_define_is_an_error() {
    // b.asm cannot make a.asm's label global.
    let a = "\t.text\nmain:\tnop\n";
    let b = "\t.globl main\n\t.text\n\tnop\n";
    let d = asm_err(&[("a.asm", a), ("b.asm", b)]);
    assert_eq!(
        errors(&d),
        [(
            "b.asm".to_string(),
            1,
            "\"main\" declared global label but not defined.".to_string()
        )]
    );
}

#[test]
fn an_extern_is_in_the_global_table_only() {
    // A file's own `x` is no clash with `.extern x` and its references mean its own; b.asm
    // sees the extern.
    let a = "\t.extern x 4\n\t.data\nx:\t.word 1\n\t.text\n\tla $t0, x\n";
    let b = "\t.text\n\tla $t1, x\n";
    let p = asm(&[("a.asm", a), ("b.asm", b)]);
    let text = &p.chunks[0].bytes;
    // `la` is `lui $at, hi` + `ori ..., lo`: the immediates of words 0-1 and 2-3.
    let imm = |i: usize| u32::from_le_bytes(text[4 * i..4 * i + 4].try_into().unwrap()) & 0xffff;
    assert_eq!((imm(0), imm(1)), (0x1001, 0x0000), "a.asm's own x");
    assert_eq!((imm(2), imm(3)), (0x1000, 0x0000), "the extern");
    // `.globl` of a name that is only an extern: MARS finds no label in the file.
    let d = asm_err(&[("a.asm", "\t.extern y 4\n\t.globl y\n")]);
    assert_eq!(
        errors(&d),
        [(
            "a.asm".to_string(),
            2,
            "\"y\" declared global label but not defined.".to_string()
        )]
    );
}

#[test]
fn main_is_the_global_main_of_any_file() {
    let a = "\t.text\n\tli $v0, 1\n\tli $v0, 10\n\tsyscall\n";
    let b = "\t.globl main\n\t.text\nmain:\tli $a0, 7\n\tli $v0, 17\n\tsyscall\n";
    let p = asm(&[("a.asm", a), ("b.asm", b)]);
    assert_eq!(p.main, Some(0x0040_000c));
    assert_eq!(p.text_start, 0x0040_0000);
    let files = [
        ("a.asm".to_string(), a.to_string()),
        ("b.asm".to_string(), b.to_string()),
    ];
    let at_main = MachineOptions {
        start_at_main: true,
        ..Default::default()
    };
    assert_eq!(run(&files, &at_main).0, Some(StopEvent::Exited(7)));
    assert_eq!(
        run(&files, &MachineOptions::default()).0,
        Some(StopEvent::Exited(0))
    );
    // A `main` that no file makes global does not count.
    let b = "\t.text\nmain:\tnop\n";
    assert_eq!(asm(&[("a.asm", a), ("b.asm", b)]).main, None);
}

#[test]
fn each_file_starts_in_text_with_its_own_eqvs_and_macros() {
    // a.asm ends in .data; b.asm's first lines are code, after a.asm's code. Both define N
    // and the macro m differently, which one file could not.
    let a = "\t.eqv N 1\n\t.macro m\n\tli $t0, N\n\t.end_macro\n\t.text\n\tm\n\t.data\n\t.word 9\n";
    let b = "\t.eqv N 2\n\t.macro m\n\tli $t1, N\n\t.end_macro\n\tm\n";
    let p = asm(&[("a.asm", a), ("b.asm", b)]);
    let text = &p.chunks[0];
    assert_eq!((text.kind, text.addr), (ChunkKind::Text, 0x0040_0000));
    let words: Vec<u32> = text
        .bytes
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
        .collect();
    // addiu $t0, $zero, 1 then addiu $t1, $zero, 2
    assert_eq!(words, [0x2408_0001, 0x2409_0002]);
    // The same definitions in one file are errors.
    let one = format!("{a}{b}");
    let d = assemble(&SourceFile::new("one.asm", one), &AsmOptions::default()).expect_err("errors");
    assert!(d.to_string().contains("\"N\" is already defined"), "{d}");
    // A macro of another file is unknown here.
    let b = "\t.text\n\tm\n";
    let d = asm_err(&[("a.asm", a), ("b.asm", b)]);
    let errs = errors(&d);
    assert_eq!(errs.len(), 1, "{d}");
    assert_eq!((errs[0].0.as_str(), errs[0].1), ("b.asm", 2));
}

#[test]
fn macro_labels_are_numbered_per_file() {
    let m = "\t.macro spin\nagain:\tj again\n\t.end_macro\n";
    let a = format!("{m}\t.text\n\tspin\n\tspin\n");
    let b = format!("{m}\t.text\n\tspin\n");
    let p = asm(&[("a.asm", &a), ("b.asm", &b)]);
    let mut got = labels(&p, "again_M0");
    got.sort_unstable();
    assert_eq!(got, [(0x0040_0000, false), (0x0040_0008, false)]);
    assert_eq!(labels(&p, "again_M1"), [(0x0040_0004, false)]);
}

#[test]
fn a_file_after_ktext_starts_in_ktext() {
    // MARS resets only "in the data segment" per file; the text counter stays in the kernel
    // space the last `.ktext` chose, even across a `.data`.
    let a = "\t.text\n\tnop\n\t.ktext\n\teret\n\t.data\n\t.word 1\n";
    let b = "\tnop\n";
    let p = asm(&[("a.asm", a), ("b.asm", b)]);
    let runs: Vec<(ChunkKind, u32, usize)> = p
        .chunks
        .iter()
        .map(|c| (c.kind, c.addr, c.bytes.len()))
        .collect();
    assert_eq!(
        runs,
        [
            (ChunkKind::Text, 0x0040_0000, 4),
            (ChunkKind::Data, 0x1001_0000, 4),
            (ChunkKind::KText, 0x8000_0000, 8),
        ]
    );
}

#[test]
fn one_file_is_the_same_through_either_entry_point() {
    let text =
        "\t.globl main\n\t.data\nx:\t.word 1\n\t.text\nmain:\tla $a0, x\n\tli $v0, 10\n\tsyscall\n";
    let file = SourceFile::new("t.asm", text);
    let one = assemble(&file, &AsmOptions::default()).expect("assembles");
    let many =
        assemble_files(std::slice::from_ref(&file), &AsmOptions::default()).expect("assembles");
    assert_eq!(one.chunks, many.chunks);
    assert_eq!(one.main, many.main);
    assert_eq!(one.files, many.files);
    assert!(assemble_files(&[], &AsmOptions::default()).is_err());
}

type R<'a> = gimli::EndianSlice<'a, gimli::LittleEndian>;

/// Each compile unit's name and the functions and line rows' files in it.
fn compile_units(elf: &[u8]) -> Vec<(String, Vec<String>, Vec<String>)> {
    let file = object::File::parse(elf).expect("ELF");
    let owned = gimli::DwarfSections::load(|id| -> Result<Vec<u8>, gimli::Error> {
        Ok(file
            .section_by_name(id.name())
            .and_then(|s| s.data().ok())
            .map(|d| d.to_vec())
            .unwrap_or_default())
    })
    .expect("DWARF");
    let dw = owned.borrow(|s| R::new(s, gimli::LittleEndian));
    let mut out = Vec::new();
    let mut units = dw.units();
    while let Some(header) = units.next().expect("unit") {
        let unit = dw.unit(header).expect("unit");
        let text = |v| {
            dw.attr_string(&unit, v)
                .expect("string")
                .to_string_lossy()
                .into_owned()
        };
        let mut name = String::new();
        let mut functions = Vec::new();
        let mut entries = unit.entries();
        while let Some((_, e)) = entries.next_dfs().expect("entry") {
            let Some(value) = e.attr_value(gimli::DW_AT_name).expect("attr") else {
                continue;
            };
            match e.tag() {
                gimli::DW_TAG_compile_unit => name = text(value),
                gimli::DW_TAG_subprogram => functions.push(text(value)),
                _ => {}
            }
        }
        let program = unit.line_program.clone().expect("lines");
        let mut rows = program.rows();
        let mut files: Vec<String> = Vec::new();
        while let Some((header, row)) = rows.next_row().expect("row") {
            if row.end_sequence() {
                continue;
            }
            let f = row.file(header).expect("file");
            let base = text(f.path_name());
            if !files.contains(&base) {
                files.push(base);
            }
        }
        let base = name.rsplit('/').next().unwrap_or_default().to_string();
        out.push((base, functions, files));
    }
    out
}

#[test]
fn the_elf_has_a_compile_unit_per_file() {
    let files = two_files();
    let m =
        load_machine_files(&files, &MachineOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let elf = elf_from_program(m.program(), false).expect("ELF");
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert_eq!(
        compile_units(&elf),
        [
            ("main.asm".to_string(), s(&["main"]), s(&["main.asm"])),
            ("lib.asm".to_string(), s(&["sum", "greet"]), s(&["lib.asm"])),
        ]
    );
}
