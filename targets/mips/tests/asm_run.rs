//! Assembled programs run on the machine: pseudo-instruction expansions must not only match
//! MARS's words but compute what their names promise, and macros, `.eqv` and `.include`
//! must produce working code. Also checks that the decoder names every basic form the way the
//! assembler spells it.

use asmdbg_core::{Machine, MachineOptions, Snapshot, SourceFile, StopEvent};
use asmdbg_mips::asm::{assemble, AsmOptions, BASIC_INSTRUCTIONS, PSEUDO_OPS};
use asmdbg_mips::decode::disassemble;
use asmdbg_mips::load_machine;

fn run(src: &str, opts: &MachineOptions) -> (Option<StopEvent>, String) {
    let mut m = load_machine("run.asm", src, opts).unwrap_or_else(|e| panic!("{e}"));
    m.console().close_input();
    let stop = m.run(1_000_000).stop;
    let out = String::from_utf8(m.console().take_output()).unwrap_or_else(|e| panic!("{e}"));
    (stop, out)
}

#[test]
fn pseudo_instructions_compute_what_they_promise() {
    let src = r#"
	.eqv	SPACE 32
	.macro	p (%r)
	move	$a0, %r
	li	$v0, 1
	syscall
	li	$a0, SPACE
	li	$v0, 11
	syscall
	.end_macro
	.data
buf:	.space	16
	.text
	li	$t0, 7
	li	$t1, -3
	seq	$s0, $t0, 7
	p($s0)
	sne	$s0, $t0, $t1
	p($s0)
	sge	$s0, $t1, $t0
	p($s0)
	sgt	$s0, $t0, -100000
	p($s0)
	sle	$s0, $t0, 7
	p($s0)
	sgeu	$s0, $t1, $t0
	p($s0)
	sleu	$s0, $t1, 100
	p($s0)
	abs	$s0, $t1
	p($s0)
	neg	$s0, $t0
	p($s0)
	rol	$s0, $t0, 30
	p($s0)
	ror	$s0, $t0, 1
	p($s0)
	rem	$s0, $t0, 3
	p($s0)
	div	$s0, $t1, 2
	p($s0)
	remu	$s0, $t1, 10
	p($s0)
	mulu	$s0, $t0, 100000
	p($s0)
	li	$t2, 0x12345678
	usw	$t2, buf+1
	ulw	$s0, buf+1
	p($s0)
	ush	$t1, buf+6
	ulh	$s0, buf+6
	p($s0)
	ulhu	$s0, buf+6
	p($s0)
	li	$t4, 11
	li	$t5, 22
	sd	$t4, buf+8
	ld	$t6, buf+8
	p($t7)
	li	$s0, 0
	bge	$t0, 8, b1
	li	$s0, 1
b1:	p($s0)
	li	$s0, 0
	bgtu	$t1, 5, b2
	li	$s0, 1
b2:	p($s0)
	li	$s0, 0
	blt	$t1, -2, b3
	li	$s0, 1
b3:	p($s0)
	li	$s0, 0
	ble	$t0, 100000, b4
	li	$s0, 1
b4:	p($s0)
	li	$a0, 3
	li	$v0, 17
	syscall
"#;
    let (stop, out) = run(src, &MachineOptions::default());
    assert_eq!(
        out,
        "1 1 0 1 1 1 0 3 -7 -1073741823 -2147483645 1 -1 3 700000 305419896 -3 65533 22 1 0 0 0 "
    );
    assert_eq!(stop, Some(StopEvent::Exited(3)));
}

#[test]
fn included_recursive_factorial_with_eqv_runs() {
    let dir = std::env::temp_dir().join(format!("mipsasm-run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(
        dir.join("fact.asm"),
        "# n in $a0, n! in $v0\n\
         fact:\taddi $sp, $sp, -8\n\
         \tsw $ra, 4($sp)\n\
         \tsw $a0, 0($sp)\n\
         \tbgt $a0, 1, recur\n\
         \tli $v0, 1\n\
         \taddi $sp, $sp, 8\n\
         \tjr $ra\n\
         recur:\tsubi $a0, $a0, 1\n\
         \tjal fact\n\
         \tlw $a0, 0($sp)\n\
         \tlw $ra, 4($sp)\n\
         \taddi $sp, $sp, 8\n\
         \tmul $v0, $v0, $a0\n\
         \tjr $ra\n",
    )
    .expect("write include");
    let src = ".eqv N 5\n\t.text\n\t.globl main\nmain:\tli $a0, N\n\tjal fact\n\tmove $a0, $v0\n\
               \tli $v0, 1\n\tsyscall\n\tli $v0, 10\n\tsyscall\n\t.include \"fact.asm\"\n";
    let opts = MachineOptions {
        work_dir: Some(dir.clone()),
        ..MachineOptions::default()
    };
    let (stop, out) = run(src, &opts);
    assert_eq!(out, "120");
    assert_eq!(stop, Some(StopEvent::Exited(0)));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_decoder_names_every_basic_form_as_the_assembler_spells_it() {
    // One line per form, with distinct operands, from the forms' own examples.
    let mut src = String::from("\t.text\nlabel:\n");
    for form in BASIC_INSTRUCTIONS {
        let line = form.example.replace("target", "label");
        src.push_str(&format!("\t{line}\n"));
    }
    let program = assemble(&SourceFile::new("forms.asm", src), &AsmOptions::default())
        .unwrap_or_else(|d| panic!("{d}"));
    let text = &program.chunks[0];
    let mut wrong = Vec::new();
    for (i, (form, word)) in BASIC_INSTRUCTIONS
        .iter()
        .zip(text.bytes.chunks_exact(4))
        .enumerate()
    {
        let word = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
        let addr = text.addr + 4 * i as u32;
        let shown = disassemble(word, addr, None);
        let mnemonic = shown.split_whitespace().next().unwrap_or("");
        if mnemonic != form.mnemonic() {
            wrong.push(format!("{}: 0x{word:08x} shown as `{shown}`", form.example));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_pseudo_example_assembles_to_words_the_decoder_knows() {
    let mut failures = Vec::new();
    for &(example, templates) in PSEUDO_OPS {
        let src = format!(".text\nlabel: nop\n{example}\n");
        let program = match assemble(&SourceFile::new("p.asm", src), &AsmOptions::default()) {
            Ok(p) => p,
            Err(d) => {
                failures.push(format!("{example}: {d}"));
                continue;
            }
        };
        let text = program
            .chunks
            .iter()
            .find(|c| c.kind == asmdbg_mips::ChunkKind::Text)
            .expect("text chunk");
        let words = text.bytes.len() / 4 - 1;
        let most = templates.split(';').filter(|t| t.trim() != "DBNOP").count();
        if words == 0 || words > most.max(3) {
            failures.push(format!("{example}: {words} words"));
        }
        for (i, w) in text.bytes.chunks_exact(4).enumerate().skip(1) {
            let word = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
            let shown = disassemble(word, text.addr + 4 * i as u32, None);
            if shown.starts_with(".word") {
                failures.push(format!("{example}: word {i} 0x{word:08x} does not decode"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A loop whose back branch spans 40,000 instructions: MARS 4.5 runs it with the whole
/// displacement though the word holds only 16 bits of it (tests/reference/mars/far_branch_*).
/// Twenty rounds, so the compiled run takes the branch too; then with delay slots. The word
/// in memory is the truncated one, the disassembly names the real target, and a snapshot
/// brings the branch back with its displacement.
#[test]
fn branches_beyond_16_bits_run_with_their_whole_displacement() {
    let nops = "\tnop\n".repeat(40_000);
    let src = format!(
        "\tli $t0, 20\ntop:\taddi $t0, $t0, -1\n\tj body\n{nops}body:\tbne $t0, $zero, top\n\
         \tli $v0, 1\n\tli $a0, 99\n\tsyscall\n"
    );
    let (stop, out) = run(&src, &MachineOptions::default());
    assert_eq!((stop, out.as_str()), (Some(StopEvent::Exited(0)), "99"));
    let delay = MachineOptions {
        delay_slots: true,
        ..MachineOptions::default()
    };
    let (stop, out) = run(&src, &delay);
    assert_eq!((stop, out.as_str()), (Some(StopEvent::Exited(0)), "99"));

    let program = assemble(
        &SourceFile::new("far.s", src.as_str()),
        &AsmOptions::default(),
    )
    .unwrap();
    let bne: u32 = 0x0040_0000 + 4 * 40_003;
    let far = &program.far_branches;
    assert_eq!(
        far.iter()
            .map(|f| (f.addr, f.displacement))
            .collect::<Vec<_>>(),
        [(bne, -40_003)]
    );
    let mut m = load_machine("far.s", &src, &MachineOptions::default()).unwrap();
    // bne $t0, $zero with -40003's low 16 bits.
    assert_eq!(m.peek_word(u64::from(bne)), Ok(0x1500_63bd));
    let (text, _) = m.disassemble(u64::from(bne)).expect("disassembles");
    assert!(text.ends_with("0x00400004 <top>"), "{text}");
    let start = m.snapshot();
    m.console().close_input();
    assert_eq!(m.run(1_000_000).stop, Some(StopEvent::Exited(0)));
    m.restore(&start);
    m.console().close_input();
    assert_eq!(m.run(1_000_000).stop, Some(StopEvent::Exited(0)));
    assert_eq!(m.console().take_output(), b"99");
}
