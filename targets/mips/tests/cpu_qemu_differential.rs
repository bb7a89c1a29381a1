//! Differential test against real MIPS32 semantics: random straight-line programs of the integer
//! instructions whose results MARS and the hardware agree on (ALU, shifts, set-less-than,
//! conditional moves, HI/LO multiply-accumulate, clz/clo) run on this cpu and under `qemu-mipsel`
//! (assembled as raw words with GNU binutils), and every register they touch must end equal.
//! Skipped with a notice when qemu-user or binutils-mipsel-linux-gnu is missing.

use std::path::Path;
use std::process::Command;

use asmdbg_core::{Machine, MachineOptions, StopEvent};
use asmdbg_mips::machine::{REG_HI, REG_LO};
use asmdbg_mips::{Chunk, ChunkKind, MipsMachine, Program};

/// Registers the random code reads and writes: $t0-$t7, $s0-$s7, $t8, $t9.
const FIRST: u32 = 8;
const LAST: u32 = 25;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn reg(&mut self) -> u32 {
        FIRST + (self.next() % (LAST - FIRST + 1) as u64) as u32
    }
}

fn r_type(funct: u32, rs: u32, rt: u32, rd: u32, sa: u32) -> u32 {
    (rs << 21) | (rt << 16) | (rd << 11) | (sa << 6) | funct
}

fn random_instruction(rng: &mut Rng) -> u32 {
    let (rs, rt, rd) = (rng.reg(), rng.reg(), rng.reg());
    let imm = rng.next() as u32 & 0xffff;
    let sa = rng.next() as u32 & 31;
    match rng.next() % 24 {
        0 => r_type(0x21, rs, rt, rd, 0),  // addu
        1 => r_type(0x23, rs, rt, rd, 0),  // subu
        2 => r_type(0x24, rs, rt, rd, 0),  // and
        3 => r_type(0x25, rs, rt, rd, 0),  // or
        4 => r_type(0x26, rs, rt, rd, 0),  // xor
        5 => r_type(0x27, rs, rt, rd, 0),  // nor
        6 => r_type(0x2a, rs, rt, rd, 0),  // slt
        7 => r_type(0x2b, rs, rt, rd, 0),  // sltu
        8 => r_type(0x04, rs, rt, rd, 0),  // sllv
        9 => r_type(0x06, rs, rt, rd, 0),  // srlv
        10 => r_type(0x07, rs, rt, rd, 0), // srav
        11 => r_type(0x00, 0, rt, rd, sa), // sll
        12 => r_type(0x02, 0, rt, rd, sa), // srl
        13 => r_type(0x03, 0, rt, rd, sa), // sra
        14 => r_type(0x0b, rs, rt, rd, 0), // movn
        15 => r_type(0x0a, rs, rt, rd, 0), // movz
        16 => match rng.next() % 4 {
            0 => r_type(0x18, rs, rt, 0, 0), // mult
            1 => r_type(0x19, rs, rt, 0, 0), // multu
            2 => r_type(0x10, 0, 0, rd, 0),  // mfhi
            _ => r_type(0x12, 0, 0, rd, 0),  // mflo
        },
        17 => {
            let funct = [0x00, 0x01, 0x04, 0x05][(rng.next() % 4) as usize];
            (0x1c << 26) | r_type(funct, rs, rt, 0, 0) // madd maddu msub msubu
        }
        18 => (0x1c << 26) | r_type(0x20 + (rng.next() % 2) as u32, rs, rd, rd, 0), // clz clo
        19 => (0x09 << 26) | (rs << 21) | (rt << 16) | imm,                         // addiu
        20 => (0x0a << 26) | (rs << 21) | (rt << 16) | imm,                         // slti
        21 => (0x0b << 26) | (rs << 21) | (rt << 16) | imm,                         // sltiu
        22 => ((0x0c + (rng.next() % 3) as u32) << 26) | (rs << 21) | (rt << 16) | imm, // andi ori xori
        _ => (0x0f << 26) | (rt << 16) | imm,                                           // lui
    }
}

/// Random initial values for every register in play, then `count` random instructions.
fn random_program(rng: &mut Rng, count: usize) -> Vec<u32> {
    let mut words = Vec::new();
    for reg in FIRST..=LAST {
        let value = rng.next() as u32;
        words.push((0x0f << 26) | (reg << 16) | (value >> 16)); // lui
        words.push((0x0d << 26) | (reg << 21) | (reg << 16) | (value & 0xffff));
        // ori
    }
    words.push(r_type(0x11, FIRST, 0, 0, 0)); // mthi $t0
    words.push(r_type(0x13, FIRST + 1, 0, 0, 0)); // mtlo $t1
    words.extend((0..count).map(|_| random_instruction(rng)));
    words
}

/// Where both runs keep the bytes the memory instructions use.
const DATA: u32 = 0x1001_0000;
const DATA_BYTES: usize = 256;

fn run_here(words: &[u32], data: &[u8]) -> Vec<u32> {
    let mut chunks = vec![Chunk {
        kind: ChunkKind::Text,
        addr: 0x0040_0000,
        bytes: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
    }];
    if !data.is_empty() {
        chunks.push(Chunk {
            kind: ChunkKind::Data,
            addr: DATA,
            bytes: data.to_vec(),
        });
    }
    let program = Program {
        chunks,
        text_start: 0x0040_0000,
        ..Default::default()
    };
    let mut m =
        MipsMachine::new(program, &MachineOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.run(1 << 20).stop, Some(StopEvent::Exited(0)));
    let mut regs: Vec<u32> = (FIRST..=LAST)
        .map(|r| m.read_register(r as usize).unwrap_or_default() as u32)
        .collect();
    regs.push(m.read_register(REG_HI).unwrap_or_default() as u32);
    regs.push(m.read_register(REG_LO).unwrap_or_default() as u32);
    for i in 0..data.len() as u64 / 4 {
        regs.push(m.peek_word(DATA as u64 + 4 * i).unwrap_or_default());
    }
    regs
}

/// Runs the words under qemu-mipsel; the epilogue writes the registers and HI/LO to stdout.
fn run_qemu(dir: &Path, words: &[u32], data: &[u8], n: usize) -> Option<Vec<u32>> {
    let mut src = String::from(".set noreorder\n.set noat\n.globl __start\n.text\n__start:\n");
    for w in words {
        src.push_str(&format!(".word 0x{w:08x}\n"));
    }
    src.push_str("lui $26, %hi(buf)\naddiu $26, $26, %lo(buf)\n");
    for (i, reg) in (FIRST..=LAST).enumerate() {
        src.push_str(&format!("sw ${reg}, {}($26)\n", 4 * i));
    }
    let count = (LAST - FIRST + 1) as usize;
    src.push_str(&format!(
        "mfhi $27\nsw $27, {}($26)\nmflo $27\nsw $27, {}($26)\n",
        4 * count,
        4 * count + 4
    ));
    // The data area follows the register dump, so one write shows both.
    src.push_str(&format!(
        "li $2, 4004\nli $4, 1\nmove $5, $26\nli $6, {}\nsyscall\nli $2, 4001\nli $4, 0\nsyscall\n\
         .data\nbuf: .space {}\n",
        4 * count + 8 + data.len(),
        4 * count + 8
    ));
    for b in data {
        src.push_str(&format!(".byte {b}\n"));
    }
    let asm = dir.join(format!("p{n}.s"));
    let obj = dir.join(format!("p{n}.o"));
    let exe = dir.join(format!("p{n}"));
    std::fs::write(&asm, src).ok()?;
    let ok = Command::new("mipsel-linux-gnu-as")
        .args(["-EL", "-march=mips32r2", "-o"])
        .arg(&obj)
        .arg(&asm)
        .status()
        .ok()?
        .success()
        && Command::new("mipsel-linux-gnu-ld")
            .args(["-e", "__start"])
            .arg(format!("-Tdata=0x{:x}", DATA - 4 * (LAST - FIRST + 1) - 8))
            .arg("-o")
            .arg(&exe)
            .arg(&obj)
            .status()
            .ok()?
            .success();
    assert!(ok, "binutils failed on {}", asm.display());
    let out = Command::new("qemu-mipsel").arg(&exe).output().ok()?;
    Some(
        out.stdout
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect(),
    )
}

/// Whether qemu-user and the binutils this test drives are installed (see
/// asmdbg_testsupport::tools for when their absence fails the test instead).
fn tools_present() -> bool {
    asmdbg_testsupport::tools::require_tools(&[
        "qemu-mipsel",
        "mipsel-linux-gnu-as",
        "mipsel-linux-gnu-ld",
    ])
}

#[test]
fn random_integer_code_matches_qemu() {
    if !tools_present() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("asmdbg-mips-qemu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let mut rng = Rng(0x5eed_1234_abcd_ef01);
    for n in 0..24 {
        let words = random_program(&mut rng, 300);
        let here = run_here(&words, &[]);
        let Some(there) = run_qemu(&dir, &words, &[], n) else {
            assert!(
                !asmdbg_testsupport::tools::tools_required(),
                "qemu-mipsel is installed but did not run program {n}"
            );
            println!("skipped: qemu-mipsel is installed but did not run");
            return;
        };
        assert_eq!(here.len(), there.len(), "program {n}");
        for (i, (a, b)) in here.iter().zip(&there).enumerate() {
            assert_eq!(
                a,
                b,
                "program {n}: {} differs (0x{a:08x} here, 0x{b:08x} qemu)",
                slot_name(i)
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn slot_name(i: usize) -> String {
    match i as u32 + FIRST {
        r if r <= LAST => format!("${r}"),
        r if r == LAST + 1 => "hi".to_string(),
        r if r == LAST + 2 => "lo".to_string(),
        r => format!("data word 0x{:08x}", DATA + 4 * (r - LAST - 3)),
    }
}

/// A random load or store (all widths, aligned, and the unaligned lwl/lwr/swl/swr) off $k1,
/// which holds `DATA`.
fn random_memory_instruction(rng: &mut Rng) -> u32 {
    let rt = rng.reg();
    let offset = rng.next() as u32 % DATA_BYTES as u32;
    let (opcode, align) = [
        (0x20, 1), // lb
        (0x24, 1), // lbu
        (0x21, 2), // lh
        (0x25, 2), // lhu
        (0x23, 4), // lw
        (0x22, 1), // lwl
        (0x26, 1), // lwr
        (0x28, 1), // sb
        (0x29, 2), // sh
        (0x2b, 4), // sw
        (0x2a, 1), // swl
        (0x2e, 1), // swr
    ][(rng.next() % 12) as usize];
    (opcode << 26) | (27 << 21) | (rt << 16) | (offset & !(align - 1))
}

#[test]
fn random_memory_code_matches_qemu() {
    if !tools_present() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("asmdbg-mips-qemu-mem-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let mut rng = Rng(0x0dd_ba11_cafe_0001);
    for n in 0..16 {
        let data: Vec<u8> = (0..DATA_BYTES).map(|_| rng.next() as u8).collect();
        let mut words = random_program(&mut rng, 0);
        words.push((0x0f << 26) | (27 << 16) | (DATA >> 16)); // lui $k1, DATA
        for _ in 0..200 {
            let word = if rng.next() % 2 == 0 {
                random_memory_instruction(&mut rng)
            } else {
                random_instruction(&mut rng)
            };
            words.push(word);
        }
        let here = run_here(&words, &data);
        let Some(there) = run_qemu(&dir, &words, &data, n) else {
            assert!(
                !asmdbg_testsupport::tools::tools_required(),
                "qemu-mipsel is installed but did not run program {n}"
            );
            println!("skipped: qemu-mipsel is installed but did not run");
            return;
        };
        assert_eq!(here.len(), there.len(), "program {n}");
        for (i, (a, b)) in here.iter().zip(&there).enumerate() {
            assert_eq!(
                a,
                b,
                "program {n}: {} differs (0x{a:08x} here, 0x{b:08x} qemu)",
                slot_name(i)
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
