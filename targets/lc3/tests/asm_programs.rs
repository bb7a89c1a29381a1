//! Whole programs through the assembler and the object/symbol writers: the reference probes
//! bench.asm and sem.asm (copied verbatim as tests/programs/lc3/probe_bench.asm and
//! probe_sem.asm; the corpus holds annotated copies).

use std::path::PathBuf;

use asmdbg_core::{SourceFile, SymbolKind};
use asmdbg_lc3::asm::{assemble, AsmOptions};
use asmdbg_lc3::objfile::{read_obj, write_obj, write_sym};
use asmdbg_lc3::Program;

/// Assembles `path` (relative to the repository's `tests/` directory).
fn corpus_program(path: &str, strict: bool) -> Program {
    let name = path.rsplit('/').next().unwrap_or(path);
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests")
        .join(path);
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    match assemble(
        &SourceFile::new(name, text),
        &AsmOptions {
            strict,
            pennsim: false,
        },
    ) {
        Ok(p) => p,
        Err(d) => panic!("{name} failed to assemble:\n{d}"),
    }
}

fn word(p: &Program, addr: u16) -> Option<u16> {
    p.segments.iter().find_map(|s| {
        let i = addr.checked_sub(s.origin)? as usize;
        s.words.get(i).copied()
    })
}

#[test]
fn bench_words_and_labels() {
    for strict in [false, true] {
        let p = corpus_program("programs/lc3/probe_bench.asm", strict);
        assert_eq!(p.entry(), Some(0x3000));
        assert_eq!(word(&p, 0x3000), Some(0x56E0), "AND R3, R3, #0");
        assert_eq!(word(&p, 0x3002), Some(0x2210), "LD R1, OUTER");
        assert_eq!(word(&p, 0x3009), Some(0x03FA), "BRp ILOOP");
        assert_eq!(word(&p, 0x300B), Some(0x03F7), "BRp OLOOP");
        assert_eq!(word(&p, 0x3013), Some(1000), "OUTER");
        assert_eq!(word(&p, 0x3014), Some(10000), "INNER");
        // The string holds a ';' that must not start a comment: 32 characters and a NUL.
        assert_eq!(word(&p, 0x3016), Some(u16::from(b' ')));
        assert_eq!(word(&p, 0x3035), Some(u16::from(b'\n')));
        assert_eq!(word(&p, 0x3036), Some(0));
        let buf = p.debug.symbols.get("BUF").map(|s| (s.addr, s.kind));
        assert_eq!(buf, Some((0x3037, SymbolKind::Data)));
        let oloop = p.debug.symbols.get("oloop").map(|s| (s.addr, s.kind));
        assert_eq!(oloop, Some((0x3003, SymbolKind::Code)));
        assert_eq!(p.segments[0].words.len(), 0x38);
    }
}

#[test]
fn bench_sym_file_matches_lc3as() {
    let p = corpus_program("programs/lc3/probe_bench.asm", false);
    let sym = write_sym(&p);
    assert!(sym.starts_with(
        "// Symbol table\n// Scope level 0:\n//\tSymbol Name       Page Address\n\
         //\t----------------  ------------\n"
    ));
    assert!(sym.contains("\n//\tOLOOP             3003\n"), "{sym}");
    assert!(sym.contains("\n//\tBUF               3037\n"), "{sym}");
    assert!(sym.ends_with("3037\n\n"), "{sym}");
    assert_eq!(sym.lines().count(), 4 + 7 + 1);
}

#[test]
fn sem_words() {
    let p = corpus_program("programs/lc3/probe_sem.asm", false);
    assert_eq!(word(&p, 0x3000), Some(0x5020), "AND R0, R0, #0");
    assert_eq!(word(&p, 0x3001), Some(0x123F), "ADD R1, R0, #-1");
    assert_eq!(word(&p, 0x3002), Some(0xE417), "LEA R2, DATA");
    assert_eq!(word(&p, 0x3013), Some(0x1018), "the non-canonical ADD");
    assert_eq!(word(&p, 0x3016), Some(0xD000), "the reserved opcode");
    assert_eq!(word(&p, 0x3019), Some(0xF025), "HALT");
    assert_eq!(p.debug.symbols.addr("MAGIC"), Some(0x3022));
    assert_eq!(word(&p, 0x3022), Some(0x1234));
    assert_eq!(word(&p, 0x3023), Some(0xEDCC));
    assert_eq!(p.debug.lines.get(0x3013).map(|l| l.line), Some(21));
}

#[test]
fn obj_round_trip_keeps_every_word() {
    let p = corpus_program("programs/lc3/probe_sem.asm", true);
    let bytes = write_obj(&p).unwrap_or_default();
    assert_eq!(&bytes[..6], &[0x30, 0x00, 0x50, 0x20, 0x12, 0x3F]);
    let back = read_obj(&bytes).map(|b| b.segments).unwrap_or_default();
    assert_eq!(back, p.segments);
}

#[test]
fn directives_program_has_three_blocks() {
    let p = corpus_program("asm/lc3/ok_directives.asm", false);
    let origins: Vec<u16> = p.segments.iter().map(|s| s.origin).collect();
    assert_eq!(origins, vec![0x3000, 0x4000, 0x4003]);
    let kind = |n: &str| p.debug.symbols.get(n).map(|s| s.kind);
    assert_eq!(
        kind("MSG"),
        Some(SymbolKind::Data),
        "label alone before .STRINGZ"
    );
    assert_eq!(kind("START"), Some(SymbolKind::Code));
    assert_eq!(kind("BUF2"), Some(SymbolKind::Data));
    // x3000 and x4000 are too far apart for one classic .obj.
    assert!(write_obj(&p).is_err());
}

/// The corpus copies must stay byte-identical to the reference probes (checked where the
/// shared reference directory exists; CI machines may not have it).
#[test]
fn probe_copies_match_the_reference() {
    let shared = PathBuf::from("/work/shared/reference/probes/lc3");
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/programs/lc3");
    for (reference, copy) in [
        ("bench.asm", "probe_bench.asm"),
        ("sem.asm", "probe_sem.asm"),
    ] {
        let Ok(original) = std::fs::read_to_string(shared.join(reference)) else {
            continue;
        };
        let ours = std::fs::read_to_string(corpus.join(copy)).unwrap_or_default();
        assert_eq!(ours, original, "{copy} differs from {reference}");
    }
}
