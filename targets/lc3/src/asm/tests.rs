use super::dialect::{lc3as_value, lc3tools_signed, lc3tools_unsigned};
use super::*;
use asmdbg_core::{DataDirective, SymbolKind};

fn lenient(text: &str) -> Result<Program, Diagnostics> {
    assemble_str(
        "t.asm",
        text,
        &AsmOptions {
            strict: false,
            pennsim: false,
        },
    )
}

fn strict(text: &str) -> Result<Program, Diagnostics> {
    assemble_str(
        "t.asm",
        text,
        &AsmOptions {
            strict: true,
            pennsim: false,
        },
    )
}

fn words(p: &Program) -> Vec<u16> {
    p.segments.iter().flat_map(|s| s.words.clone()).collect()
}

fn messages(d: &Diagnostics) -> Vec<String> {
    d.items.iter().map(|d| d.message.clone()).collect()
}

#[test]
fn lc3tools_ranges() {
    assert_eq!(lc3tools_signed(15, 5), Ok(15));
    assert_eq!(lc3tools_signed(-16, 5), Ok(0x10));
    assert!(lc3tools_signed(16, 5)
        .unwrap_err()
        .starts_with("cannot encode as 5-bit 2's complement number"));
    assert!(lc3tools_signed(-17, 5).is_err());
    assert_eq!(lc3tools_unsigned(255, 8), Ok(255));
    assert!(lc3tools_unsigned(256, 8)
        .unwrap_err()
        .starts_with("cannot encode as 8-bit unsigned number"));
    assert!(lc3tools_unsigned(-1, 8).is_err());
}

#[test]
fn lc3as_ranges_wrap_like_read_val() {
    assert_eq!(lc3as_value(16, 5), Ok(0x10));
    assert_eq!(lc3as_value(31, 5), Ok(0x1F));
    assert!(lc3as_value(32, 5).is_err());
    assert!(lc3as_value(-17, 5).is_err());
    assert_eq!(lc3as_value(32, 6), Ok(0x20));
    assert_eq!(lc3as_value(0xFFFF, 16), Ok(0xFFFF));
    assert_eq!(lc3as_value(-32768, 16), Ok(0x8000));
    assert!(lc3as_value(-32769, 16).is_err());
    assert!(lc3as_value(0x10000, 16).is_err());
    assert_eq!(lc3as_value(-1, 8), Ok(0xFF));
    assert!(lc3as_value(0x100, 8).is_err());
}

#[test]
fn every_instruction_form() {
    let p = lenient(
        ".ORIG x3000\nL ADD R1,R2,R3\nADD R1,R2,#-1\nAND R7,R0,R1\nAND R0,R0,#0\n\
         BRn L\nBRzp L\nJMP R3\nRET\nJSR L\nJSRR R4\nLD R1,L\nLDI R2,L\nLDR R3,R4,#-2\n\
         LEA R5,L\nNOT R6,R7\nRTI\nST R1,L\nSTI R2,L\nSTR R3,R4,#31\nTRAP x26\nNOP\n.END\n",
    )
    .unwrap();
    assert_eq!(
        words(&p),
        vec![
            0x1283, 0x12BF, 0x5E01, 0x5020, 0x09FB, 0x07FA, 0xC0C0, 0xC1C0, 0x4FF7, 0x4100, 0x23F5,
            0xA5F4, 0x673E, 0xEBF2, 0x9DFF, 0x8000, 0x33EF, 0xB5EE, 0x771F, 0xF026, 0x0000
        ]
    );
    assert_eq!(p.entry(), Some(0x3000));
    assert_eq!(p.debug.symbols.addr("l"), Some(0x3000));
}

#[test]
fn every_error_is_reported() {
    let e = lenient(".ORIG x3000\nADD R1,R1,#16\nBR NOWHERE\nADD R8,R1,R2\n.END\n").unwrap_err();
    assert_eq!(e.error_count(), 3, "{e}");
    let text = e.to_string();
    assert!(
        text.contains("t.asm:2:11: error: cannot encode as 5-bit"),
        "{text}"
    );
    assert!(
        text.contains("t.asm:3:4: error: could not find label"),
        "{text}"
    );
    assert!(
        text.contains("t.asm:4:1: error: invalid usage of 'ADD' instruction"),
        "{text}"
    );
}

#[test]
fn symbols_and_lines() {
    let p = lenient(
        ".ORIG x3000\nSTART LD R0, V\n HALT\nV\n.FILL 5\nS .STRINGZ \"hi\"\nB .BLKW 2\n.END\n",
    )
    .unwrap();
    let sym = |n: &str| p.debug.symbols.get(n).map(|s| (s.addr, s.kind));
    assert_eq!(sym("start"), Some((0x3000, SymbolKind::Code)));
    assert_eq!(sym("V"), Some((0x3002, SymbolKind::Data)));
    assert_eq!(sym("s"), Some((0x3003, SymbolKind::Data)));
    assert_eq!(sym("B"), Some((0x3006, SymbolKind::Data)));
    assert_eq!(p.debug.lines.get(0x3001).map(|l| l.line), Some(3));
    assert_eq!(p.debug.lines.get(0x3005).map(|l| l.line), Some(6));
    assert_eq!(p.debug.lines.get(0x3007).map(|l| l.line), Some(7));
    assert_eq!(p.debug.lines.len(), 8);
}

#[test]
fn strict_requires_commas_and_rejects_lenient_forms() {
    let e = strict(".ORIG x3000\nADD R1 R1 #1\nPUTC\nADD R1,R1,b1\n.END\n").unwrap_err();
    assert_eq!(
        messages(&e),
        vec![
            "illegal operands for ADD (expected ADD reg, reg, reg or ADD reg, reg, imm5; found 'R1 R1 #1')",
            "illegal operands for ADD (expected ADD reg, reg, reg or ADD reg, reg, imm5; found 'R1,R1,b1')",
        ],
    );
    let p = strict(".ORIG x3000\nADD R1,R1,#16\nLDR R1,R2,#32\n.END\n").unwrap();
    assert_eq!(words(&p), vec![0x1270, 0x62A0]);
}

#[test]
fn several_blocks() {
    let p = lenient(".ORIG x3000\nHALT\n.END\n.ORIG x4000\n.FILL 7\n.END\n").unwrap();
    assert_eq!(p.segments.len(), 2);
    assert_eq!(
        p.segments[1],
        Segment {
            origin: 0x4000,
            words: vec![7]
        }
    );
}

#[test]
fn unterminated_strings() {
    let p = lenient(".ORIG x3000\nS .STRINGZ \"ab\n.END\n").unwrap();
    assert_eq!(words(&p), vec![0x61, 0x62, 0]);
    assert_eq!(messages(&p.warnings).len(), 1);
    assert!(p.warnings.items[0]
        .message
        .starts_with("unterminated string"));
    let e = strict(".ORIG x3000\nS .STRINGZ \"ab\n.END\n").unwrap_err();
    assert_eq!(messages(&e), vec!["unterminated string"]);
    let loc = e.items[0].location.clone().unwrap();
    assert_eq!((loc.line, loc.col), (2, 12));
}

#[test]
fn label_kinds_follow_the_next_statement() {
    let p = lenient(".ORIG x3000\nA\nB ADD R0,R0,R0\nC\n\n; comment\n.FILL 1\n.END\nD\n").unwrap();
    let kind = |n: &str| p.debug.symbols.get(n).map(|s| (s.addr, s.kind));
    assert_eq!(kind("A"), Some((0x3000, SymbolKind::Code)));
    assert_eq!(kind("B"), Some((0x3000, SymbolKind::Code)));
    assert_eq!(kind("C"), Some((0x3001, SymbolKind::Data)));
    // lc3tools gives a label after .END the address after the block.
    assert_eq!(kind("D").map(|k| k.0), Some(0x3002));
}

#[test]
fn large_programs_assemble() {
    const LARGE_N: usize = 7_500;
    let mut text = String::from(".ORIG x0000\n");
    for i in 0..LARGE_N {
        text.push_str(&format!("L{i} ADD R1, R1, #1\n BRp L{i}\n"));
    }
    text.push_str(".END\n");
    let p = lenient(&text).unwrap();
    assert_eq!(p.segments[0].words.len(), 2 * LARGE_N);
    assert_eq!(p.segments[0].words.last(), Some(&0x03FE));
    assert_eq!(p.debug.symbols.len(), LARGE_N);
    assert_eq!(p.debug.lines.len(), 2 * LARGE_N);
}

/// xorshift64: a fixed stream of pseudo-random numbers.
fn next(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

#[test]
fn garbage_gives_diagnostics_not_panics() {
    const PIECES: &[&str] = &[
        "ADD",
        "R1",
        ",",
        "#-1",
        "x",
        "\"",
        "\\",
        ";",
        ":",
        ".ORIG",
        "x3000",
        ".END",
        ".STRINGZ",
        "\"a\\",
        ".BLKW",
        "#65535",
        ".FILL",
        "LABEL",
        "BR",
        "BRnzp",
        "b1",
        "x-",
        "-",
        "#",
        "TRAP",
        "x100",
        "\t",
        " ",
        "1ABC",
        "R8",
        "JSR",
        "LDR",
        ".ORIG xFFFF",
        "\n",
        "\n",
        "\r\n",
        "é",
        ".ORIG xFDFF",
        "NOP",
        "PUTC",
        "#-32769",
        "x7FFFFFFFFFFFFFFFFFFF",
    ];
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..3000 {
        let mut text = String::new();
        for _ in 0..next(&mut seed) % 60 {
            text.push_str(PIECES[(next(&mut seed) % PIECES.len() as u64) as usize]);
            if next(&mut seed) % 3 == 0 {
                text.push(' ');
            }
        }
        let lines = SourceFile::new("g.asm", text.as_str()).line_count();
        for strict in [false, true] {
            match assemble_str(
                "g.asm",
                &text,
                &AsmOptions {
                    strict,
                    pennsim: false,
                },
            ) {
                Ok(p) => {
                    let total: usize = p.segments.iter().map(|s| s.words.len()).sum();
                    assert!(total <= 0x1_0000, "{text:?}");
                    assert!(p.debug.lines.len() <= total, "{text:?}");
                }
                Err(d) => {
                    assert!(d.has_errors(), "{text:?}");
                    for item in &d.items {
                        let loc = item.location.as_ref().map_or(0, |l| l.line);
                        assert!(loc <= lines, "{text:?}: {item}");
                        assert!(!item.message.is_empty());
                    }
                }
            }
        }
    }
}

/// Not a timed test: `cargo test --release -p asmdbg-lc3 --lib assemble_rate -- --ignored
/// --nocapture` prints lines per second.
#[test]
#[ignore = "benchmark"]
fn assemble_rate() {
    const N: usize = 30_000;
    let mut text = String::from(".ORIG x0000\n");
    for i in 0..N {
        text.push_str(&format!("L{i} ADD R1, R1, #1 ; count\n LD R2, L{i}\n"));
    }
    text.push_str(".END\n");
    let start = std::time::Instant::now();
    let p = lenient(&text).unwrap();
    let secs = start.elapsed().as_secs_f64();
    assert_eq!(p.segments[0].words.len(), 2 * N);
    println!(
        "{} lines in {secs:.3} s: {:.0} lines/s",
        2 * N + 2,
        (2 * N) as f64 / secs
    );
}

#[test]
fn data_directives_are_recorded_as_data_items() {
    let p = lenient(
        ".ORIG x3000\nLEA R0, MSG ; .FILL in a comment\nN .FILL #5\nMSG .STRINGZ \"hi\"\nBUF .BLKW 3\n.END\n",
    )
    .unwrap();
    let items: Vec<_> = p
        .debug
        .data
        .iter()
        .map(|d| (d.addr, d.end, d.directive, d.elem_size, d.count))
        .collect();
    assert_eq!(
        items,
        [
            (0x3001, 0x3002, DataDirective::Fill, 2, 1),
            (0x3002, 0x3005, DataDirective::Stringz, 2, 3),
            (0x3005, 0x3008, DataDirective::Blkw, 2, 3),
        ]
    );
    // The instruction is code, whatever its comment says.
    assert!(!p.debug.data.is_data(0x3000));
    assert_eq!(
        p.debug.data.at(0x3006).unwrap().directive,
        DataDirective::Blkw
    );
}
