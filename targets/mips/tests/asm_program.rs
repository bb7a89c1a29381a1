//! The assembler's output beyond single words: segments, symbols, line table, entry points,
//! options, diagnostics and robustness on garbage input.

use asmdbg_core::{SourceFile, SymbolKind};
use asmdbg_mips::asm::{assemble, AsmOptions};
use asmdbg_mips::{ChunkKind, Program};

fn asm(text: &str) -> Program {
    assemble(&SourceFile::new("t.asm", text), &AsmOptions::default())
        .unwrap_or_else(|d| panic!("assembly failed:\n{d}"))
}

fn asm_err(text: &str) -> String {
    match assemble(&SourceFile::new("t.asm", text), &AsmOptions::default()) {
        Ok(_) => panic!("expected errors"),
        Err(d) => d.to_string(),
    }
}

fn words_at(p: &Program, addr: u32, n: usize) -> Vec<u32> {
    let chunk = p
        .chunks
        .iter()
        .find(|c| c.addr <= addr && addr < c.addr + c.bytes.len() as u32)
        .expect("address assembled");
    let off = (addr - chunk.addr) as usize;
    chunk.bytes[off..off + 4 * n]
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

#[test]
fn segments_symbols_and_entry_points() {
    let p = asm("\t.globl main\n\
                 \t.data\n\
                 x:\t.word 1\n\
                 \t.text\n\
                 \tnop\n\
                 main:\tla $a0, x\n\
                 \t.ktext 0x80000180\n\
                 handler: eret\n\
                 \t.kdata\n\
                 kv:\t.word 2\n\
                 \t.extern ext 8\n");
    assert_eq!(p.text_start, 0x0040_0000);
    assert_eq!(p.main, Some(0x0040_0004));
    let kinds: Vec<(ChunkKind, u32, usize)> = p
        .chunks
        .iter()
        .map(|c| (c.kind, c.addr, c.bytes.len()))
        .collect();
    assert_eq!(
        kinds,
        vec![
            (ChunkKind::Text, 0x0040_0000, 12),
            (ChunkKind::Data, 0x1001_0000, 4),
            (ChunkKind::KText, 0x8000_0180, 4),
            (ChunkKind::KData, 0x9000_0000, 4),
            (ChunkKind::Extern, 0x1000_0000, 8),
        ]
    );
    let sym = |n: &str| p.debug.symbols.get(n).cloned().expect(n);
    assert_eq!(
        (sym("x").addr, sym("x").kind, sym("x").global),
        (0x1001_0000, SymbolKind::Data, false)
    );
    assert_eq!(
        (sym("main").addr, sym("main").kind, sym("main").global),
        (0x0040_0004, SymbolKind::Code, true)
    );
    assert_eq!(sym("handler").addr, 0x8000_0180);
    assert_eq!((sym("ext").addr, sym("ext").global), (0x1000_0000, true));
    assert_eq!(words_at(&p, 0x8000_0180, 1), vec![0x4200_0018]);
    // Both words of `la` belong to line 6; the data word to line 3.
    assert_eq!(p.debug.describe(0x0040_0004), Some(("t.asm".into(), 6)));
    assert_eq!(p.debug.describe(0x0040_0008), Some(("t.asm".into(), 6)));
    assert_eq!(p.debug.describe(0x1001_0000), Some(("t.asm".into(), 3)));
    assert!(p.warnings.is_empty());
}

#[test]
fn execution_starts_at_the_text_base_and_main_only_when_global() {
    let p = asm(".text 0x00400100\nmain: nop\n");
    assert_eq!(p.text_start, 0x0040_0000);
    assert_eq!(p.debug.symbols.addr("main"), Some(0x0040_0100));
    assert_eq!(p.main, None);
    assert!(
        p.debug.symbols.get("MAIN").is_none(),
        "labels are case-sensitive"
    );
}

#[test]
fn label_addresses_with_bit_15_set_round_the_high_half() {
    let p = asm(".data 0x10018000\nv: .word 5\n.text\nlw $t0, v\nla $t1, v\nlw $t0, v+4\n");
    // lw uses a signed offset, so the high half is rounded up; la uses ori and is not.
    assert_eq!(
        words_at(&p, 0x0040_0000, 6),
        vec![
            0x3c01_1002,
            0x8c28_8000,
            0x3c01_1001,
            0x3429_8000,
            0x3c01_1002,
            0x8c28_8004
        ]
    );
}

#[test]
fn delay_slot_mode_adds_nops_and_longer_branch_offsets() {
    let src = "div $t0, $t1, $t2\n";
    let plain = asm(src);
    assert_eq!(
        words_at(&plain, 0x0040_0000, 4),
        vec![0x1540_0001, 0x0000_000d, 0x012a_001a, 0x0000_4012]
    );
    let opts = AsmOptions {
        delay_slots: true,
        ..AsmOptions::default()
    };
    let p = assemble(&SourceFile::new("t.asm", src), &opts).expect("assembles");
    assert_eq!(
        words_at(&p, 0x0040_0000, 5),
        vec![
            0x1540_0002,
            0x0000_0000,
            0x0000_000d,
            0x012a_001a,
            0x0000_4012
        ]
    );
}

#[test]
fn errors_name_file_line_column_with_source_and_caret() {
    let text = asm_err("\t.text\n\tadd\t$t0, $t1\n\tli $t0, lbl\n");
    assert_eq!(
        text,
        "t.asm:2:2: error: \"add\": Too few or incorrectly formatted operands. Expected: add $t1,$t2,$t3\n\
         \tadd\t$t0, $t1\n\
         \t^~~\n\
         t.asm:3:10: error: \"lbl\": operand is of incorrect type\n\
         \tli $t0, lbl\n\
         \t        ^~~\n\
         2 errors found; nothing was assembled\n"
    );
}

#[test]
fn errors_inside_macros_name_the_definition_and_the_call() {
    let text =
        asm_err(".macro bump (%r, %v)\n\taddi %r, %r, %v\n.end_macro\n.text\n\tbump($t0, $t1)\n");
    assert!(text.contains("t.asm:2:"), "{text}");
    assert!(text.contains("operand is of incorrect type"), "{text}");
    assert!(
        text.contains("t.asm:5:2: note: in the expansion of macro \"bump\" called here"),
        "{text}"
    );
}

#[test]
fn macro_labels_are_renamed_per_expansion_and_words_map_to_the_call() {
    let p = asm(
        ".macro spin\nagain: addi $t0, $t0, -1\n\tbnez $t0, again\n.end_macro\n\
                 .text\n\tspin\n\tspin\n",
    );
    assert_eq!(p.debug.symbols.addr("again_M0"), Some(0x0040_0000));
    assert_eq!(p.debug.symbols.addr("again_M1"), Some(0x0040_0008));
    assert_eq!(p.debug.describe(0x0040_0004), Some(("t.asm".into(), 6)));
    assert_eq!(p.debug.describe(0x0040_000c), Some(("t.asm".into(), 7)));
    assert_eq!(words_at(&p, 0x0040_0008, 2), vec![0x2108_ffff, 0x1500_fffe]);
}

#[test]
fn eqv_substitutes_text_and_rejects_self_reference() {
    let p = asm(".eqv ROWS 6\n.eqv REG $t3\n.text\naddi REG, $zero, ROWS\n");
    assert_eq!(words_at(&p, 0x0040_0000, 1), vec![0x200b_0006]);
    let text = asm_err(".eqv X X\n");
    assert!(
        text.contains("Cannot substitute X for itself in .eqv directive"),
        "{text}"
    );
}

#[test]
fn includes_resolve_against_the_work_dir_and_report_failures() {
    let dir = std::env::temp_dir().join(format!("mipsasm-include-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("lib.asm"), "helper: jr $ra\n").expect("write");
    std::fs::write(dir.join("loop.asm"), ".include \"loop.asm\"\n").expect("write");
    let opts = AsmOptions {
        work_dir: Some(dir.clone()),
        ..AsmOptions::default()
    };
    let p = assemble(
        &SourceFile::new("main.asm", ".text\njal helper\n.include \"lib.asm\"\n"),
        &opts,
    )
    .expect("assembles");
    assert_eq!(p.debug.symbols.addr("helper"), Some(0x0040_0004));
    assert_eq!(words_at(&p, 0x0040_0000, 2), vec![0x0c10_0001, 0x03e0_0008]);
    let (name, line) = p
        .debug
        .describe(0x0040_0004)
        .expect("line of included code");
    assert!(name.ends_with("lib.asm") && line == 1, "{name}:{line}");

    let missing = assemble(
        &SourceFile::new("main.asm", ".include \"nope.asm\"\n"),
        &opts,
    )
    .unwrap_err();
    assert!(
        missing
            .to_string()
            .contains("Error reading include file nope.asm"),
        "{missing}"
    );
    let looped = assemble(
        &SourceFile::new("main.asm", ".include \"loop.asm\"\n"),
        &opts,
    )
    .unwrap_err();
    assert!(
        looped.to_string().contains("Recursive include of file"),
        "{looped}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unknown_directives_are_warnings_carried_by_the_program() {
    let p = asm(".text\n.rdata\nnop\n");
    let warnings: Vec<String> = p.warnings.items.iter().map(|d| d.message.clone()).collect();
    assert_eq!(
        warnings,
        vec!["MARS does not recognize the .rdata directive.  Ignored.".to_string()]
    );
}

#[test]
fn align_zero_turns_automatic_alignment_off() {
    let p = asm(".data\n.byte 1\n.align 0\nw: .word 0x11223344\n.align 2\nv: .word 5\n");
    assert_eq!(p.debug.symbols.addr("w"), Some(0x1001_0001));
    assert_eq!(p.debug.symbols.addr("v"), Some(0x1001_0008));
    let data = &p.chunks[0].bytes;
    assert_eq!(&data[..5], &[1, 0x44, 0x33, 0x22, 0x11]);
}

#[test]
fn huge_reservations_move_the_address_without_allocating() {
    let p = asm(".data\na: .space 100000000\nb: .word 7\n");
    assert_eq!(p.debug.symbols.addr("b"), Some(0x1001_0000 + 100_000_000));
    assert_eq!(p.chunks.iter().map(|c| c.bytes.len()).sum::<usize>(), 4);
    let text = asm_err(".data\n.word 0:2000000\n");
    assert!(text.contains("too many repetitions"), "{text}");
}

#[test]
fn labels_alone_on_a_line_follow_alignment() {
    let p = asm(".data\n.byte 1\nlbl:\n.word 2\n");
    assert_eq!(p.debug.symbols.addr("lbl"), Some(0x1001_0004));
}

#[test]
fn a_student_style_game_program_assembles() {
    let src = r#"
	.eqv	colSize 29
	.eqv	rowSize 13
	.macro	print_str (%label)
	la	$a0, %label
	li	$v0, 4
	syscall
	.end_macro
	.macro	read_int
	li	$v0, 5
	syscall
	.end_macro
	.data
board:	.ascii	"|   |   |   |   |   |   |   |\n"
	.asciiz	"+---+---+---+---+---+---+---+\n"
prompt:	.asciiz	"Choose a column (1-7): "
turn:	.word	0
viol:	.word	3:2
	.text
	.globl	main
main:	print_str(prompt)
	read_int
	move	$t0, $v0
	blt	$t0, 1, bad
	bgt	$t0, 7, bad
	addi	$t0, $t0, -1
	mul	$t1, $t0, 4
	addi	$t1, $t1, 2
	li	$t2, colSize
	lb	$t3, board($t1)
	li	$t4, 'X'
	sb	$t4, board($t1)
	lw	$t5, turn
	xori	$t5, $t5, 1
	sw	$t5, turn
	j	main
bad:	lw	$t6, viol
	subi	$t6, $t6, 1
	sw	$t6, viol
	li	$v0, 10
	syscall
"#;
    let p = asm(src);
    assert_eq!(p.main, Some(0x0040_0000));
    assert_eq!(p.debug.symbols.addr("prompt"), Some(0x1001_003d));
    assert_eq!(p.debug.symbols.addr("turn"), Some(0x1001_0058));
    // print_str(prompt): la = lui/ori, li, syscall.
    assert_eq!(
        words_at(&p, 0x0040_0000, 4),
        vec![0x3c01_1001, 0x3424_003d, 0x2402_0004, 0x0000_000c]
    );
}

#[test]
fn garbage_never_panics_and_every_error_has_a_place() {
    let nasty = [
        "\"unterminated",
        "'",
        "'ab'",
        "lw $t0, (",
        "lw $t0, )",
        ".word :",
        ".word 1:",
        ".word 1:-1",
        ".space -1",
        ".align 9",
        ".macro",
        ".macro m\n",
        ".end_macro",
        "x: y: z:",
        ":",
        "::",
        ".text 0xzz",
        "li $t0, 99999999999",
        "la $t0, label+",
        "$t0: nop",
        ".eqv",
        ".eqv A",
        ".byte \"s\"",
        ".ascii 5",
        "sw $t0, lbl+4($t1",
        "mtc1.d $t0, $f31",
        "lw $f0, 0($t0)",
        ".include",
        ".include 5",
        "sll $t0,$t0,-1",
        ".double x",
        ".float 3.4028235e38",
        "%x",
        "add $t0 $t1 $t2 $t3 $t4 $t5 $t6",
        "beq $t0, $t1, 12",
        "\u{0}\u{7f}\u{ff}é",
        "mfc1.d $t0, $f31",
        ".space 2000000000",
        ".word 0:100000000",
        ".data 0xfffffffe\n.word 1\n.align 30\n.half 2",
        ".text 0xfffffffc\nnop\nnop\nb -4",
        ".eqv li 5",
        ".extern big 2000000000",
    ];
    for line in nasty {
        for text in [
            line.to_string(),
            format!(".text\n{line}\n"),
            format!(".data\n{line}\n"),
        ] {
            if let Err(d) = assemble(
                &SourceFile::new("g.asm", text.as_str()),
                &AsmOptions::default(),
            ) {
                for item in &d.items {
                    assert!(item.location.is_some(), "{text:?}: {item}");
                }
            }
        }
    }
    // A deterministic stream of random lines from assembly-ish characters.
    let alphabet: Vec<char> = "$t0123456789abcdefxlwsi .,:()+-#\"'\\%\n\tmainj"
        .chars()
        .collect();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..3000 {
        let mut s = String::new();
        for _ in 0..24 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            s.push(alphabet[(seed % alphabet.len() as u64) as usize]);
        }
        let _ = assemble(&SourceFile::new("r.asm", s), &AsmOptions::default());
    }
}

#[test]
fn a_later_macro_definition_replaces_an_earlier_one() {
    let p = asm(".macro m\n\tnop\n.end_macro\n.macro m\n\tsyscall\n.end_macro\n.text\n\tm\n");
    assert_eq!(words_at(&p, 0x0040_0000, 1), vec![0x0000_000c]);
}

#[test]
fn macro_calls_with_and_without_parentheses_and_arity_overloads() {
    let p = asm(".macro put (%a)\n\tli $a0, %a\n.end_macro\n\
                 .macro put (%a, %b)\n\tli $a0, %a\n\tli $a1, %b\n.end_macro\n\
                 .text\n\tput 1\n\tput(2, 3)\n");
    assert_eq!(
        words_at(&p, 0x0040_0000, 3),
        vec![0x2404_0001, 0x2404_0002, 0x2405_0003]
    );
}

#[test]
fn labels_may_be_named_like_instructions() {
    let p = asm(".text\n\tj b\nb:\tjal mul\nmul:\tnop\n\tbeq $t0, $t1, b\n");
    assert_eq!(
        words_at(&p, 0x0040_0000, 4),
        vec![0x0810_0001, 0x0c10_0002, 0, 0x1109_fffd]
    );
    assert_eq!(p.debug.symbols.addr("mul"), Some(0x0040_0008));
}
