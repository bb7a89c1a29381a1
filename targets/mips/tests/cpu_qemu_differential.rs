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

fn run_here(words: &[u32]) -> Vec<u32> {
    let program = Program {
        chunks: vec![Chunk {
            kind: ChunkKind::Text,
            addr: 0x0040_0000,
            bytes: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
        }],
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
    regs
}

/// Runs the words under qemu-mipsel; the epilogue writes the registers and HI/LO to stdout.
fn run_qemu(dir: &Path, words: &[u32], n: usize) -> Option<Vec<u32>> {
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
    src.push_str(&format!(
        "li $2, 4004\nli $4, 1\nmove $5, $26\nli $6, {}\nsyscall\nli $2, 4001\nli $4, 0\nsyscall\n\
         .data\nbuf: .space {}\n",
        4 * count + 8,
        4 * count + 8
    ));
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
            .args(["-e", "__start", "-o"])
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

fn tools_present() -> bool {
    ["qemu-mipsel", "mipsel-linux-gnu-as", "mipsel-linux-gnu-ld"]
        .iter()
        .all(|tool| Command::new(tool).arg("--version").output().is_ok())
}

#[test]
fn random_integer_code_matches_qemu() {
    if !tools_present() {
        println!("skipped: qemu-mipsel or binutils-mipsel-linux-gnu is not installed");
        return;
    }
    let dir = std::env::temp_dir().join(format!("asmdbg-mips-qemu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let mut rng = Rng(0x5eed_1234_abcd_ef01);
    for n in 0..24 {
        let words = random_program(&mut rng, 300);
        let here = run_here(&words);
        let Some(there) = run_qemu(&dir, &words, n) else {
            println!("skipped: qemu-mipsel did not run");
            return;
        };
        assert_eq!(here.len(), there.len(), "program {n}");
        for (i, (a, b)) in here.iter().zip(&there).enumerate() {
            let name = match i as u32 + FIRST {
                r if r <= LAST => format!("${r}"),
                r if r == LAST + 1 => "hi".to_string(),
                _ => "lo".to_string(),
            };
            assert_eq!(
                a, b,
                "program {n}: {name} differs (0x{a:08x} here, 0x{b:08x} qemu)"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
