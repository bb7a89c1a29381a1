//! The MIPS ELF: structure and DWARF read back with the `object` and `gimli` readers, and
//! gdb-multiarch on the file alone: lines, typed data, and no "Breakpoint address adjusted" on
//! lines after branches under MARS semantics (skipped with a notice without gdb,
//! a failure under ASMDBG_REQUIRE_TOOLS=1).

use std::path::Path;
use std::process::Command;

use asmdbg_core::elf::{object, ElfSymbolKind};
use asmdbg_core::SourceFile;
use asmdbg_mips::asm::{assemble, AsmOptions};
use asmdbg_mips::decode::decode;
use asmdbg_mips::elf::{elf_from_program, elf_image, gdb_assumes_delay_slot};
use asmdbg_mips::Program;
use asmdbg_testsupport::unwind::{FrameTable, RegisterRule};
use object::{Object, ObjectSection, ObjectSymbol, SectionKind, SymbolKind};

/// Line numbers are in the comments; the tests name them.
const PROG: &str = "\
# prog.s: nested calls, $ra on the stack, branches followed by breakpoint lines, jalr
        .data
count:  .word 3
msg:    .asciiz \"Tic-tac-toe\\n\"
half:   .half 7
        .text
        .globl main
main:   lw   $s0, count             # 8
loop:   move $a0, $s0               # 9
        jal  square                 # 10
        addu $s1, $s1, $v0          # 11  after jal
        addi $s0, $s0, -1           # 12
        bne  $s0, $zero, loop       # 13
        li   $t0, 5                 # 14  after bne
        beq  $t0, $zero, skip       # 15
        jal  outer                  # 16  after beq
skip:   la   $t1, twice             # 17
        jalr $t1                    # 18
        sw   $v0, count             # 19  after jalr
        li   $v0, 10                # 20
        syscall                     # 21
square: mul  $v0, $a0, $a0          # 22
        jr   $ra                    # 23
outer:  addiu $sp, $sp, -8          # 24
        sw   $ra, 4($sp)            # 25
        jal  inner                  # 26
        addi $v0, $v0, 1            # 27  after jal
        lw   $ra, 4($sp)            # 28
        addiu $sp, $sp, 8           # 29
        jr   $ra                    # 30
inner:  addiu $sp, $sp, -4          # 31
        sw   $ra, 0($sp)            # 32
        li   $a0, 9                 # 33
        jal  square                 # 34
        lw   $ra, 0($sp)            # 35  after jal
        addiu $sp, $sp, 4           # 36
        jr   $ra                    # 37
twice:  add  $v0, $v0, $v0          # 38
        jr   $ra                    # 39
";

/// A function that returns early from a branch target after a mid-function `jr $ra`, and a
/// `$fp` frame.
const FRAMES: &str = "\
        .text
main:   jal  early
        jal  framed
        li   $v0, 10
        syscall
early:  addiu $sp, $sp, -8          # 6
        sw   $ra, 4($sp)
        beq  $a0, $zero, done
        jal  framed
        lw   $ra, 4($sp)
        addiu $sp, $sp, 8
        jr   $ra
done:   li   $v0, 1                 # 13
        lw   $ra, 4($sp)
        addiu $sp, $sp, 8
        jr   $ra
framed: addiu $sp, $sp, -8          # 17
        sw   $ra, 4($sp)
        sw   $fp, 0($sp)
        move $fp, $sp
        addiu $sp, $sp, -16
        nop                         # 22
        move $sp, $fp
        lw   $fp, 0($sp)
        lw   $ra, 4($sp)
        addiu $sp, $sp, 8
        jr   $ra
";

fn program(text: &str, delay_slots: bool) -> Program {
    let file = SourceFile::new("prog.s", text);
    let opts = AsmOptions {
        delay_slots,
        ..AsmOptions::default()
    };
    assemble(&file, &opts).expect("assembles")
}

/// Writes the ELF to a temporary file, removed when the returned path is dropped.
fn write_tmp(tag: &str, bytes: &[u8]) -> tempfile::TempPath {
    let mut file = tempfile::Builder::new()
        .prefix(&format!("asmdbg-elf-mips-{tag}-"))
        .suffix(".elf")
        .tempfile()
        .expect("temp file");
    std::io::Write::write_all(&mut file, bytes).expect("write elf");
    file.into_temp_path()
}

fn gdb(elf: &Path, cmds: &[String]) -> Option<String> {
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

/// The address of the first word of `line`.
fn line_addr(p: &Program, line: u32) -> u64 {
    p.debug
        .lines
        .iter()
        .find(|(_, l)| l.line == line)
        .map(|(a, _)| a)
        .unwrap_or_else(|| panic!("no code on line {line}"))
}

#[test]
fn delay_slot_opcodes_match_gdb() {
    let yes = [
        0x0810_0000, // j
        0x0c10_0000, // jal
        0x1000_ffff, // beq
        0x1400_0001, // bne
        0x1800_0001, // blez
        0x1c00_0001, // bgtz
        0x03e0_0008, // jr $ra
        0x0120_f809, // jalr $t1
        0x0400_0001, // bltz
        0x0411_0001, // bgezal
        0x041c_0001, // bposge32 (rs = 0)
        0x5000_0001, // beql
        0x7400_0001, // jalx
        0x4500_0001, // bc1f
        0x4520_0001, // bc1any2f
    ];
    for w in yes {
        assert!(gdb_assumes_delay_slot(&decode(w)), "{w:#010x}");
    }
    let no = [
        0x0000_0000, // nop
        0x8fbf_0004, // lw $ra
        0x0000_000c, // syscall
        0x0404_0001, // REGIMM rt=4 (tgei-like)
        0x043c_0001, // rt=28 with rs != 0
        0x4522_0001, // bc1any2 with rt & 2
        0x3c01_1001, // lui
    ];
    for w in no {
        assert!(!gdb_assumes_delay_slot(&decode(w)), "{w:#010x}");
    }
}

/// gdb 13's `mips32_instruction_has_delay_slot`, transcribed on the raw fields: the reference
/// the decoded rule must agree with.
fn gdb_rule(word: u32) -> bool {
    let op = word >> 26;
    let rs = (word >> 21) & 31;
    let rt = (word >> 16) & 31;
    match op {
        0 => matches!(word & 63, 8 | 9),
        1 => (rt & 0xc) == 0 || ((rt & 0x1e) == 0x1c && rs == 0),
        2..=7 | 20..=23 | 29 => true,
        17 => rs == 8 || ((rs == 9 || rs == 10) && (rt & 2) == 0),
        _ => false,
    }
}

#[test]
fn gdbs_delay_slot_rule_on_decoded_instructions_matches_its_raw_test() {
    // Every opcode, rs, rt and function field (other bits in two patterns): the decoder's
    // answer plus gdb's fallback for what MARS rejects is gdb's rule exactly.
    for op in 0..64u32 {
        for rs in 0..32u32 {
            for rt in 0..32u32 {
                for low in (0..64u32).chain([0xf809, 0xfffe, 0x8000]) {
                    let w = op << 26 | rs << 21 | rt << 16 | low;
                    assert_eq!(gdb_assumes_delay_slot(&decode(w)), gdb_rule(w), "{w:#010x}");
                }
            }
        }
    }
}

#[test]
fn sections_symbols_and_machine() {
    let p = program(PROG, false);
    let bytes = elf_from_program(&p, false).expect("writes");
    let file = object::File::parse(&*bytes).expect("parses");
    assert_eq!(file.architecture(), object::Architecture::Mips);
    assert!(file.is_little_endian() && !file.is_64());
    assert_eq!(file.entry(), 0x0040_0000);
    let text = file.section_by_name(".text").unwrap();
    assert_eq!(
        (text.address(), text.kind()),
        (0x0040_0000, SectionKind::Text)
    );
    let data = file.section_by_name(".data").unwrap();
    assert_eq!(
        (data.address(), data.kind()),
        (0x1001_0000, SectionKind::Data)
    );
    let sym = |name: &str| file.symbols().find(|s| s.name() == Ok(name)).unwrap();
    let main = sym("main");
    assert_eq!(main.kind(), SymbolKind::Text);
    assert!(main.is_global());
    assert_eq!(main.size(), line_addr(&p, 22) - 0x0040_0000);
    // jal targets and the la/jalr target are functions; loop/skip are plain labels.
    for f in ["square", "outer", "inner", "twice"] {
        let s = sym(f);
        assert_eq!(s.kind(), SymbolKind::Text, "{f}");
        assert!(s.size() > 0 && !s.is_global(), "{f}");
    }
    assert_eq!(sym("twice").size(), 8);
    assert_eq!(sym("loop").size(), 0);
    assert_eq!(sym("count").kind(), SymbolKind::Data);
    for s in [
        ".debug_line",
        ".debug_info",
        ".debug_ranges",
        ".debug_frame",
    ] {
        assert!(file.section_by_name(s).is_some(), "{s}");
    }
    let image = elf_image(&p, false);
    let kinds: Vec<(&str, ElfSymbolKind)> = image
        .symbols
        .iter()
        .map(|s| (s.name.as_str(), s.kind))
        .collect();
    assert!(kinds.contains(&("skip", ElfSymbolKind::NoType)));
    assert!(kinds.contains(&("msg", ElfSymbolKind::Object)));
}

#[test]
fn ranges_split_after_every_branch_unless_delay_slots() {
    let p = program(PROG, false);
    let image = elf_image(&p, false);
    let main = image
        .debug
        .functions
        .iter()
        .find(|f| f.name == "main")
        .unwrap();
    let starts: Vec<u64> = main.ranges.iter().map(|r| r.0).collect();
    // After jal square (11), bne (14), beq (16), jal outer (17), jalr (19).
    let want: Vec<u64> = [8u32, 11, 14, 16, 17, 19]
        .iter()
        .map(|&l| {
            if l == 8 {
                0x0040_0000
            } else {
                line_addr(&p, l)
            }
        })
        .collect();
    assert_eq!(starts, want);
    let outer = image
        .debug
        .functions
        .iter()
        .find(|f| f.name == "outer")
        .unwrap();
    assert_eq!(outer.ranges.len(), 2);
    let with_slots = elf_image(&program(PROG, true), true);
    assert!(with_slots
        .debug
        .functions
        .iter()
        .all(|f| f.ranges.len() == 1));
    assert!(!with_slots.debug.frames.is_empty());
}

/// (CFA register, offset from it, $ra rule) at `addr`, from .debug_frame.
fn unwind_at(bytes: &[u8], addr: u64) -> (u16, i64, RegisterRule<usize>) {
    let row = FrameTable::from_elf(bytes)
        .and_then(|frames| frames.row(addr, 31))
        .unwrap_or_else(|e| panic!("{e}"))
        .expect("an FDE covers the address");
    (row.cfa_register, row.cfa_offset, row.ra)
}

#[test]
fn frame_info_follows_control_flow_and_fp_frames() {
    let p = program(FRAMES, false);
    let bytes = elf_from_program(&p, false).unwrap();
    // main is outermost.
    assert_eq!(unwind_at(&bytes, 0x0040_0000).2, RegisterRule::Undefined);
    // early: after the prologue, $ra at CFA-4.
    let call = line_addr(&p, 9);
    assert_eq!(unwind_at(&bytes, call), (29, 8, RegisterRule::Offset(-4)));
    // done: reached by the beq, so the frame is still there (a linear scan says otherwise).
    let done = line_addr(&p, 13);
    assert_eq!(unwind_at(&bytes, done), (29, 8, RegisterRule::Offset(-4)));
    // framed: CFA on $fp while $sp moves.
    let body = line_addr(&p, 22);
    assert_eq!(unwind_at(&bytes, body), (30, 8, RegisterRule::Offset(-4)));
    let epilogue = line_addr(&p, 24);
    assert_eq!(unwind_at(&bytes, epilogue).0, 29);
    // Leaf entry: CFA = $sp, $ra in place.
    let entry = line_addr(&p, 17);
    assert_eq!(unwind_at(&bytes, entry), (29, 0, RegisterRule::SameValue));
}

#[test]
fn strings_are_char_arrays_and_halves_shorts() {
    let p = program(PROG, false);
    let image = elf_image(&p, false);
    let msg = image
        .debug
        .variables
        .iter()
        .find(|v| v.name == "msg")
        .unwrap();
    assert_eq!(msg.count, Some(13));
    assert_eq!(image.debug.types[msg.ty].name, "char");
    let half = image
        .debug
        .variables
        .iter()
        .find(|v| v.name == "half")
        .unwrap();
    assert_eq!(image.debug.types[half.ty].name, "short");
}

#[test]
fn empty_program_and_unlabelled_entry() {
    assert!(elf_from_program(&Program::default(), false).is_ok());
    let p = program("  .text\n  li $v0, 10\n  syscall\n", false);
    let image = elf_image(&p, false);
    assert_eq!(image.debug.functions[0].name, "_start");
}

#[test]
fn gdb_breakpoints_after_branches_stay_on_their_lines() {
    let p = program(PROG, false);
    let path = write_tmp("bp", &elf_from_program(&p, false).unwrap());
    let lines = [11u32, 14, 16, 19, 27, 35, 12, 17];
    let mut cmds: Vec<String> = lines.iter().map(|l| format!("break prog.s:{l}")).collect();
    cmds.extend(
        [
            "info line prog.s:11",
            "info address count",
            "ptype count",
            "print count",
            "print msg",
            "ptype half",
            "info symbol 0x10010000",
            "break twice",
            "info scope outer",
            "break loop",
            "break skip",
        ]
        .map(String::from),
    );
    let Some(out) = gdb(&path, &cmds) else {
        return;
    };
    assert!(!out.contains("adjusted"), "{out}");
    for (n, l) in lines.iter().enumerate() {
        let want = format!(
            "Breakpoint {} at {:#x}: file prog.s, line {l}.",
            n + 1,
            line_addr(&p, *l)
        );
        assert!(out.contains(&want), "missing {want:?} in:\n{out}");
    }
    let l11 = line_addr(&p, 11);
    for want in [
        format!("Line 11 of \"prog.s\" starts at address {l11:#x} <main+16>"),
        "Symbol \"count\" is static storage at address 0x10010000.".into(),
        "type = int".into(),
        "$1 = 3".into(),
        "$2 = \"Tic-tac-toe\\n\"".into(),
        "type = short".into(),
        "count in section .data".into(),
        format!(
            "Breakpoint 9 at {:#x}: file prog.s, line 38.",
            line_addr(&p, 38)
        ),
    ] {
        assert!(out.contains(&want), "missing {want:?} in:\n{out}");
    }
}

#[test]
fn gdb_moves_breakpoints_with_delay_slots_as_it_should() {
    // The contrast: with delay slots the ranges are not split, and gdb moves a breakpoint in
    // the delay slot of `jal square` onto the jal, which is right for that machine.
    let p = program(PROG, true);
    let path = write_tmp("slots", &elf_from_program(&p, true).unwrap());
    let Some(out) = gdb(&path, &["break *0x400010".to_string()]) else {
        return;
    };
    assert!(out.contains("Breakpoint address adjusted"), "{out}");
}

/// The repository's MIPS programs (games and benchmark).
fn repo_programs() -> Vec<(String, Program)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../programs/mips");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "asm" || e == "s") {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&path).unwrap();
            let file = SourceFile::new(name.clone(), text);
            let opts = AsmOptions {
                work_dir: Some(dir.clone()),
                ..AsmOptions::default()
            };
            if let Ok(p) = assemble(&file, &opts) {
                out.push((name, p));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn gdb_puts_every_line_of_the_repository_programs_on_its_first_word() {
    let programs = repo_programs();
    assert!(
        programs.len() >= 2,
        "programs/mips holds the game and the benchmark"
    );
    for (name, p) in programs {
        for slots in [false, true] {
            assert!(
                elf_from_program(&p, slots).is_ok(),
                "{name} delay_slots={slots}"
            );
        }
        let path = write_tmp(
            &name.replace('.', "_"),
            &elf_from_program(&p, false).unwrap(),
        );
        // The first word of every line of code.
        let mut first: Vec<(u32, u64)> = Vec::new();
        let mut prev_line = None;
        for (addr, loc) in p.debug.lines.iter().filter(|(a, _)| *a < 0x1000_0000) {
            if prev_line != Some(loc.line) && !first.iter().any(|f| f.0 == loc.line) {
                first.push((loc.line, addr));
            }
            prev_line = Some(loc.line);
        }
        let cmds: Vec<String> = first
            .iter()
            .map(|(l, _)| format!("break {name}:{l}"))
            .collect();
        let Some(out) = gdb(&path, &cmds) else {
            return;
        };
        assert!(!out.contains("adjusted"), "{name}: {out}");
        for (n, (l, a)) in first.iter().enumerate() {
            let want = format!("Breakpoint {} at {a:#x}: file {name}, line {l}.", n + 1);
            assert!(out.contains(&want), "{name}: missing {want:?}");
        }
    }
}

#[test]
fn kernel_text_and_data() {
    let src = "\
        .text
main:   li   $v0, 10
        syscall
        .ktext 0x80000180
handler: mfc0 $k0, $14
        addiu $k0, $k0, 4
        mtc0 $k0, $14
        eret
        .kdata
saved:  .word 0
";
    let p = program(src, false);
    let bytes = elf_from_program(&p, false).unwrap();
    let file = object::File::parse(&*bytes).unwrap();
    let ktext = file.section_by_name(".ktext").expect(".ktext");
    assert_eq!(
        (ktext.address(), ktext.kind()),
        (0x8000_0180, SectionKind::Text)
    );
    let kdata = file.section_by_name(".kdata").expect(".kdata");
    assert_eq!(kdata.kind(), SectionKind::Data);
    let image = elf_image(&p, false);
    let names: Vec<&str> = image
        .debug
        .functions
        .iter()
        .map(|f| f.name.as_str())
        .collect();
    // Every code section starts a function.
    assert_eq!(names, ["main", "handler"]);
    assert!(image.debug.variables.iter().any(|v| v.name == "saved"));
}

#[test]
fn random_images_never_panic() {
    use asmdbg_core::{SourceLoc, Symbol, SymbolKind};
    use asmdbg_mips::{Chunk, ChunkKind};
    let mut seed = 0x5eed_1234_dead_beefu64;
    let mut next = move || {
        seed ^= seed >> 12;
        seed ^= seed << 25;
        seed ^= seed >> 27;
        seed.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    let kinds = [
        ChunkKind::Text,
        ChunkKind::KText,
        ChunkKind::Data,
        ChunkKind::KData,
        ChunkKind::Extern,
    ];
    let mut written = 0;
    for _ in 0..300 {
        let mut p = Program::default();
        let file = p
            .debug
            .sources
            .add(SourceFile::new("r.s", "x: .asciiz \"a\"\n.half 3\n"));
        let mut base = 0x0040_0000u32;
        for _ in 0..(next() % 4) {
            let kind = kinds[(next() % 5) as usize];
            let len = (next() % 80) as usize;
            // Words biased towards jal/branches/jr/stack and $ra traffic.
            let mut bytes = Vec::new();
            for _ in 0..len / 4 {
                let w = next() as u32;
                let word = match next() % 6 {
                    0 => 0x0c10_0000 | (w & 0x3ff),
                    1 => 0x1000_0000 | (w & 0x03ff_ffff),
                    2 => 0x27bd_0000 | (w & 0xfff8),
                    3 => 0xafbf_0000 | (w & 0xfffc),
                    4 => 0x03e0_0008,
                    _ => w,
                };
                bytes.extend_from_slice(&word.to_le_bytes());
            }
            bytes.extend((0..len % 4).map(|_| next() as u8));
            let addr = base;
            base = base.wrapping_add(len as u32 + (next() % 64) as u32 * 4);
            for i in 0..len as u64 / 4 {
                p.debug.lines.insert(
                    u64::from(addr) + 4 * i,
                    SourceLoc {
                        file,
                        line: (next() % 4) as u32,
                    },
                );
            }
            p.chunks.push(Chunk { kind, addr, bytes });
        }
        p.text_start = 0x0040_0000 + (next() % 16) as u32 * 4;
        for k in 0..(next() % 6) {
            let _ = p.debug.symbols.insert(Symbol {
                name: format!("l{k}"),
                addr: 0x0040_0000 + next() % 400,
                kind: SymbolKind::Code,
                global: next() % 2 == 0,
            });
        }
        for slots in [false, true] {
            written += usize::from(elf_from_program(&p, slots).is_ok());
        }
    }
    assert!(written > 500, "{written} of 600 written");
}

#[test]
fn pseudo_instructions_and_macros_map_every_word_to_the_line_that_wrote_it() {
    let src = "\
        .macro  push (%r)
        addiu   $sp, $sp, -4
        sw      %r, 0($sp)
        .end_macro
        .text
main:   li      $t0, 0x12345678
        push    ($t0)
        la      $a0, main
        li      $v0, 10
        syscall
";
    let p = program(src, false);
    let image = elf_image(&p, false);
    let lines: Vec<(u64, u32)> = image.debug.lines.iter().map(|r| (r.addr, r.line)).collect();
    assert_eq!(
        lines,
        [
            (0x40_0000, 6),
            (0x40_0004, 6),
            (0x40_0008, 7),
            (0x40_000c, 7),
            (0x40_0010, 8),
            (0x40_0014, 8),
            (0x40_0018, 9),
            (0x40_001c, 10),
        ]
    );
    let path = write_tmp("macro", &elf_from_program(&p, false).unwrap());
    let Some(out) = gdb(
        &path,
        &["info line prog.s:6", "info line prog.s:7"].map(String::from),
    ) else {
        return;
    };
    for want in [
        "Line 6 of \"prog.s\" starts at address 0x400000 <main> and ends at 0x400008 <main+8>.",
        "Line 7 of \"prog.s\" starts at address 0x400008 <main+8> and ends at 0x400010 <main+16>.",
    ] {
        assert!(out.contains(want), "missing {want:?} in:\n{out}");
    }
}

#[test]
fn the_file_comes_from_the_assemblers_facts_not_the_source_text() {
    // Blank out every source line: the ELF must not change, as nothing re-reads the text.
    for slots in [false, true] {
        let p = program(PROG, slots);
        let mut blind = p.clone();
        blind.debug.sources = asmdbg_core::SourceMap::new();
        for file in p.debug.sources.files() {
            let blank = "\n".repeat(file.line_count() as usize);
            blind
                .debug
                .sources
                .add(SourceFile::new(file.name.to_string(), blank));
        }
        assert_eq!(
            elf_from_program(&blind, slots).unwrap(),
            elf_from_program(&p, slots).unwrap()
        );
    }
}
