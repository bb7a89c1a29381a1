//! Cross-checks the encoding of every basic instruction form against GNU binutils
//! (`mipsel-linux-gnu-as -march=mips32 -mno-shared -O0`, plus `-mno-fix-loongson3-llsc` because
//! Debian builds it to insert `sync` before `ll`). Skipped, with a
//! notice, when the tools are not installed (a failure under ASMDBG_REQUIRE_TOOLS=1).
//!
//! Each corpus line is MARS syntax, optionally followed by `|||` and the GNU spelling where the
//! dialects differ (`$fcc1` condition flags, `div $0,...` for the bare divide, `break 0,7`
//! because MARS keeps the break code in bits 6–25). Known encoding differences are listed in
//! `mars_differs`.

use std::path::PathBuf;
use std::process::Command;

use asmdbg_core::SourceFile;
use asmdbg_mips::asm::{assemble, AsmOptions, BASIC_INSTRUCTIONS};
use asmdbg_mips::ChunkKind;

const CORPUS: &str = r#"
top:	nop
	add	$t1, $t2, $t3
	sub	$s0, $s1, $s2
	addi	$t1, $t2, -100
	addu	$v0, $a0, $a1
	subu	$v1, $a2, $a3
	addiu	$sp, $sp, -32
	mult	$t0, $t1
	multu	$t2, $t3
	mul	$t0, $t1, $t2
	madd	$t0, $t1
	maddu	$t2, $t3
	msub	$t4, $t5
	msubu	$t6, $t7
	div	$t1, $t2 ||| div $0, $t1, $t2
	divu	$t3, $t4 ||| divu $0, $t3, $t4
	mfhi	$t0
	mflo	$t1
	mthi	$t2
	mtlo	$t3
	and	$t0, $t1, $t2
	or	$t0, $t1, $t2
	andi	$t0, $t1, 100
	ori	$t0, $t1, 65535
	nor	$t0, $t1, $t2
	xor	$t0, $t1, $t2
	xori	$t0, $t1, 0x8000
	sll	$t0, $t1, 10
	sllv	$t0, $t1, $t2
	srl	$t0, $t1, 31
	sra	$t0, $t1, 1
	srav	$t0, $t1, $t2
	srlv	$t0, $t1, $t2
	lw	$t1, -100($t2)
	ll	$t1, 4($t2)
	lwl	$t1, 3($t2)
	lwr	$t1, 0($t2)
	sw	$ra, 28($sp)
	sc	$t1, 0($t2)
	swl	$t1, 3($t2)
	swr	$t1, 0($t2)
	lui	$t1, 4097
	lb	$t1, -1($t2)
	lh	$t1, 2($t2)
	lhu	$t1, 2($t2)
	lbu	$t1, 1($t2)
	sb	$t1, 1($t2)
	sh	$t1, 2($t2)
	beq	$t1, $t2, top
	bne	$t1, $t2, top
	bgez	$t1, top
	bgezal	$t1, top
	bgtz	$t1, top
	blez	$t1, top
	bltz	$t1, top
	bltzal	$t1, top
	slt	$t0, $t1, $t2
	sltu	$t0, $t1, $t2
	slti	$t0, $t1, -100
	sltiu	$t0, $t1, 100
	movn	$t0, $t1, $t2
	movz	$t0, $t1, $t2
	movf	$t0, $t1 ||| movf $t0, $t1, $fcc0
	movf	$t0, $t1, 1 ||| movf $t0, $t1, $fcc1
	movt	$t0, $t1 ||| movt $t0, $t1, $fcc0
	movt	$t0, $t1, 7 ||| movt $t0, $t1, $fcc7
	break	7 ||| break 0, 7
	break
	syscall
	j	top
	jr	$ra
	jal	top
	jalr	$t9
	jalr	$t0, $t1
	clo	$t0, $t1
	clz	$t0, $t1
	mfc0	$t0, $12
	mtc0	$t0, $14
	add.s	$f0, $f1, $f3
	sub.s	$f0, $f1, $f3
	mul.s	$f0, $f1, $f3
	div.s	$f0, $f1, $f3
	sqrt.s	$f0, $f1
	floor.w.s $f0, $f1
	ceil.w.s $f0, $f1
	round.w.s $f0, $f1
	trunc.w.s $f0, $f1
	add.d	$f2, $f4, $f6
	sub.d	$f2, $f4, $f6
	mul.d	$f2, $f4, $f6
	div.d	$f2, $f4, $f6
	sqrt.d	$f2, $f4
	floor.w.d $f1, $f2
	ceil.w.d $f1, $f2
	round.w.d $f1, $f2
	trunc.w.d $f1, $f2
	bc1t	top
	bc1t	1, top ||| bc1t $fcc1, top
	bc1f	top
	bc1f	2, top ||| bc1f $fcc2, top
	c.eq.s	$f0, $f1
	c.eq.s	1, $f0, $f1 ||| c.eq.s $fcc1, $f0, $f1
	c.le.s	$f0, $f1
	c.le.s	2, $f0, $f1 ||| c.le.s $fcc2, $f0, $f1
	c.lt.s	$f0, $f1
	c.lt.s	3, $f0, $f1 ||| c.lt.s $fcc3, $f0, $f1
	c.eq.d	$f2, $f4
	c.eq.d	4, $f2, $f4 ||| c.eq.d $fcc4, $f2, $f4
	c.le.d	$f2, $f4
	c.le.d	5, $f2, $f4 ||| c.le.d $fcc5, $f2, $f4
	c.lt.d	$f2, $f4
	c.lt.d	6, $f2, $f4 ||| c.lt.d $fcc6, $f2, $f4
	abs.s	$f0, $f1
	abs.d	$f2, $f4
	cvt.d.s	$f2, $f1
	cvt.d.w	$f2, $f1
	cvt.s.d	$f1, $f2
	cvt.s.w	$f0, $f1
	cvt.w.d	$f1, $f2
	cvt.w.s	$f0, $f1
	mov.d	$f2, $f4
	movf.d	$f2, $f4 ||| movf.d $f2, $f4, $fcc0
	movf.d	$f2, $f4, 1 ||| movf.d $f2, $f4, $fcc1
	movt.d	$f2, $f4 ||| movt.d $f2, $f4, $fcc0
	movt.d	$f2, $f4, 3 ||| movt.d $f2, $f4, $fcc3
	movn.d	$f2, $f4, $t3
	movz.d	$f2, $f4, $t3
	mov.s	$f0, $f1
	movf.s	$f0, $f1 ||| movf.s $f0, $f1, $fcc0
	movf.s	$f0, $f1, 1 ||| movf.s $f0, $f1, $fcc1
	movt.s	$f0, $f1 ||| movt.s $f0, $f1, $fcc0
	movt.s	$f0, $f1, 2 ||| movt.s $f0, $f1, $fcc2
	movn.s	$f0, $f1, $t3
	movz.s	$f0, $f1, $t3
	mfc1	$t1, $f1
	mtc1	$t1, $f1
	neg.d	$f2, $f4
	neg.s	$f0, $f1
	lwc1	$f1, -100($t2)
	ldc1	$f2, 8($t2)
	swc1	$f1, 4($sp)
	sdc1	$f2, -8($sp)
	teq	$t1, $t2
	teqi	$t1, -100
	tne	$t1, $t2
	tnei	$t1, 5
	tge	$t1, $t2
	tgeu	$t1, $t2
	tgei	$t1, -1
	tgeiu	$t1, 7
	tlt	$t1, $t2
	tltu	$t1, $t2
	tlti	$t1, 100
	tltiu	$t1, 1
	eret
"#;

fn mars_lines() -> String {
    CORPUS
        .lines()
        .map(|l| l.split("|||").next().unwrap_or(l).trim_end())
        .collect::<Vec<_>>()
        .join("\n")
}

fn gnu_lines() -> String {
    CORPUS
        .lines()
        .map(|l| match l.split_once("|||") {
            Some((mars, gnu)) => {
                let label = if mars.starts_with("top:") { "top:" } else { "" };
                format!("{label}\t{}", gnu.trim())
            }
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// GNU's words, or `None` when the tools cannot be run or their output read. `name` keeps the
/// files of tests running at the same time apart.
fn gnu_words(name: &str, source: &str) -> Option<Vec<u32>> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("binutils-{name}"));
    std::fs::create_dir_all(&dir).ok()?;
    let s = dir.join("corpus.s");
    let o = dir.join("corpus.o");
    let bin = dir.join("corpus.bin");
    std::fs::write(&s, format!(".set noreorder\n.set noat\n.text\n{source}\n")).ok()?;
    let status = Command::new("mipsel-linux-gnu-as")
        .args([
            "-march=mips32",
            "-mno-shared",
            "-O0",
            "-mno-fix-loongson3-llsc",
            "-o",
        ])
        .arg(&o)
        .arg(&s)
        .status()
        .ok()?;
    assert!(status.success(), "mipsel-linux-gnu-as rejected the corpus");
    let status = Command::new("mipsel-linux-gnu-objcopy")
        .args(["-O", "binary", "--only-section=.text"])
        .arg(&o)
        .arg(&bin)
        .status()
        .ok()?;
    assert!(status.success(), "objcopy failed");
    let bytes = std::fs::read(&bin).ok()?;
    Some(
        bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
    )
}

/// MARS encodes `clo`/`clz` with rt = 0 where GNU repeats rd (MIPS32 requires rt = rd; both
/// decode alike). Returns the GNU word as MARS writes it.
fn mars_differs(gnu: u32) -> u32 {
    if matches!(gnu >> 26, 2 | 3) {
        // `j`/`jal` targets are relocations in GNU's object file (0 here): compare opcodes.
        return gnu & 0xfc00_0000;
    }
    let special2 = gnu >> 26 == 0x1c;
    let count_leading = matches!(gnu & 0x3f, 0x20 | 0x21);
    if special2 && count_leading {
        gnu & !(0x1f << 16)
    } else {
        gnu
    }
}

#[test]
fn every_basic_form_matches_gnu_as() {
    let program = assemble(
        &SourceFile::new("corpus.asm", mars_lines()),
        &AsmOptions::default(),
    )
    .unwrap_or_else(|d| panic!("corpus does not assemble:\n{d}"));
    let text = program
        .chunks
        .iter()
        .find(|c| c.kind == ChunkKind::Text)
        .expect("text chunk");
    let ours: Vec<u32> = text
        .bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    // Every form of the table appears in the corpus.
    assert_eq!(
        ours.len(),
        BASIC_INSTRUCTIONS.len(),
        "one corpus line per basic form"
    );

    if !asmdbg_testsupport::tools::require_tools(&[
        "mipsel-linux-gnu-as",
        "mipsel-linux-gnu-objcopy",
    ]) {
        return;
    }
    let Some(theirs) = gnu_words("crosscheck", &gnu_lines()) else {
        panic!("binutils are installed but could not assemble the corpus");
    };
    assert!(
        theirs.len() >= ours.len(),
        "GNU produced {} words",
        theirs.len()
    );
    let source = mars_lines();
    let lines: Vec<&str> = source
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let mismatches: Vec<String> = ours
        .iter()
        .zip(&theirs)
        .enumerate()
        .filter(|(_, (o, t))| {
            let ours = if matches!(**o >> 26, 2 | 3) {
                **o & 0xfc00_0000
            } else {
                **o
            };
            ours != mars_differs(**t)
        })
        .map(|(i, (o, t))| {
            format!(
                "{}: ours 0x{o:08x}, GNU 0x{t:08x}",
                lines.get(i).unwrap_or(&"?")
            )
        })
        .collect();
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn gnu_and_mars_disagree_only_on_clz_clo() {
    // The one documented difference is visible in GNU's own word.
    assert_eq!(mars_differs(0x7128_4020), 0x7120_4020);
    assert_eq!(mars_differs(0x0128_4020), 0x0128_4020);
}

/// Decimal literals from 2^31 up, which MARS reads as the 32-bit pattern of their value mod
/// 2^32 (`Binary.stringToInt`), in the basic forms that take a signed 16-bit immediate: each
/// must encode exactly as GNU encodes the signed value (GNU itself rejects the unsigned text).
const UNSIGNED_CORPUS: &str = r#"
	addi	$t1, $t2, 4294967196 ||| addi $t1, $t2, -100
	addiu	$sp, $sp, 4294967264 ||| addiu $sp, $sp, -32
	slti	$t0, $t1, 4294934528 ||| slti $t0, $t1, -32768
	sltiu	$t0, $t1, 4294967295 ||| sltiu $t0, $t1, -1
	lw	$t1, 4294967196($t2) ||| lw $t1, -100($t2)
	sw	$ra, 4294967292($sp) ||| sw $ra, -4($sp)
	lb	$t1, 4294967295($t2) ||| lb $t1, -1($t2)
	lhu	$t1, 4294967294($t2) ||| lhu $t1, -2($t2)
	sh	$t1, 4294934528($t2) ||| sh $t1, -32768($t2)
	lwc1	$f1, 4294967196($t2) ||| lwc1 $f1, -100($t2)
	sdc1	$f2, 4294967288($sp) ||| sdc1 $f2, -8($sp)
	teqi	$t1, 4294967196 ||| teqi $t1, -100
	tgei	$t1, 4294967295 ||| tgei $t1, -1
"#;

#[test]
fn unsigned_decimal_immediates_match_gnu_signed_ones() {
    let mars: String = UNSIGNED_CORPUS
        .lines()
        .map(|l| l.split("|||").next().unwrap_or(l).trim_end())
        .collect::<Vec<_>>()
        .join("\n");
    let gnu: String = UNSIGNED_CORPUS
        .lines()
        .filter_map(|l| l.split_once("|||").map(|(_, g)| format!("\t{}", g.trim())))
        .collect::<Vec<_>>()
        .join("\n");
    let program = assemble(
        &SourceFile::new("unsigned.asm", mars.clone()),
        &AsmOptions::default(),
    )
    .unwrap_or_else(|d| panic!("unsigned literals do not assemble:\n{d}"));
    let text = program
        .chunks
        .iter()
        .find(|c| c.kind == ChunkKind::Text)
        .expect("text chunk");
    let ours: Vec<u32> = text
        .bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let lines: Vec<&str> = mars
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(ours.len(), lines.len(), "one basic instruction per line");
    if !asmdbg_testsupport::tools::require_tools(&[
        "mipsel-linux-gnu-as",
        "mipsel-linux-gnu-objcopy",
    ]) {
        return;
    }
    let Some(theirs) = gnu_words("unsigned", &gnu) else {
        panic!("binutils are installed but could not assemble the corpus");
    };
    // GNU pads the section to 16 bytes.
    assert!(
        theirs.len() >= ours.len(),
        "GNU produced {} words",
        theirs.len()
    );
    for ((line, o), t) in lines.iter().zip(&ours).zip(&theirs) {
        assert_eq!(o, t, "{line}: ours 0x{o:08x}, GNU 0x{t:08x}");
    }
}
