//! The one SimpleRISC decoder. The machine decodes every code word once at load time with
//! [`decode`] and executes the resulting [`Insn`]; `Machine::disassemble` and `monitor disas`
//! print the same value with [`Insn::disasm`]; the assembler builds an [`Insn`] and turns it into
//! a word with [`encode`], the exact inverse of [`decode`]. Encodings: isa-specs.md Part B.2/B.3.

use std::fmt::Write as _;

use asmdbg_core::{Flow, SymbolTable};

/// What the cpu does with an instruction. Register and immediate forms of the ALU operations
/// are separate variants so the hot loop never tests the I bit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Cmp,
    And,
    Or,
    Not,
    Mov,
    Lsl,
    Lsr,
    Asr,
    AddI,
    SubI,
    MulI,
    DivI,
    ModI,
    CmpI,
    AndI,
    OrI,
    NotI,
    MovI,
    LslI,
    LsrI,
    AsrI,
    Nop,
    Ld,
    St,
    Beq,
    Bgt,
    B,
    Call,
    Ret,
    /// Opcode 10110: the `hlt` of the one dialect found with a halt (the web assembler of
    /// github.com/Joydeb123-Bharat/SimpleRISC-Processor-Web-Assembler, `assembler.py`, which
    /// also has `xor` = 10101, not supported here). The ELL305 interpreter, the textbook and the
    /// other course emulators have no halt: a program ends when the PC runs off the code.
    Hlt,
    /// `.print`: not an encoding, `imm` indexes the machine's table of pseudo-instructions.
    Print,
    /// `.encode`: likewise.
    Encode,
    /// Never decoded: the cpu writes it over the slots that have a breakpoint in the copy of the
    /// code its run loop executes, so breakpoints cost the loop nothing.
    Breakpoint,
    /// A word no SimpleRISC instruction encodes (opcodes 21, 23-31, modifier 11, ld/st with I=0).
    Illegal,
}

/// The immediate modifier (bits 17:16).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(u8)]
pub enum Modifier {
    /// imm16 sign-extended.
    #[default]
    Default = 0,
    /// `u`: imm16 zero-extended.
    Unsigned = 1,
    /// `h`: imm16 << 16.
    High = 2,
}

impl Modifier {
    /// The 32-bit operand an instruction sees for the 16 bits in its word.
    #[inline(always)]
    pub fn apply(self, imm16: u16) -> u32 {
        match self {
            Modifier::Default => imm16 as i16 as i32 as u32,
            Modifier::Unsigned => u32::from(imm16),
            Modifier::High => u32::from(imm16) << 16,
        }
    }

    pub fn suffix(self) -> &'static str {
        match self {
            Modifier::Default => "",
            Modifier::Unsigned => "u",
            Modifier::High => "h",
        }
    }
}

/// One decoded instruction.
///
/// - ALU register forms: `rd`, `rs1`, `rs2` (mov/not read `rs2`, cmp ignores `rd`).
/// - ALU immediate forms, ld, st: `imm` is the operand after the modifier was applied, `imm16`
///   the raw field (for disassembly and re-encoding).
/// - st: `rd` is the register stored.
/// - beq/bgt/b/call: `imm` is the signed offset in instruction words.
/// - Print/Encode: `imm` indexes the pseudo-instruction table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Insn {
    pub op: Op,
    pub rd: u8,
    pub rs1: u8,
    pub rs2: u8,
    pub modifier: Modifier,
    pub imm16: u16,
    pub imm: u32,
}

impl Insn {
    pub const ILLEGAL: Insn = Insn::bare(Op::Illegal);

    /// An instruction without operands.
    pub const fn bare(op: Op) -> Insn {
        Insn {
            op,
            rd: 0,
            rs1: 0,
            rs2: 0,
            modifier: Modifier::Default,
            imm16: 0,
            imm: 0,
        }
    }

    pub fn reg(op: Op, rd: u8, rs1: u8, rs2: u8) -> Insn {
        Insn {
            rd: rd & 15,
            rs1: rs1 & 15,
            rs2: rs2 & 15,
            ..Insn::bare(op)
        }
    }

    pub fn imm(op: Op, rd: u8, rs1: u8, modifier: Modifier, imm16: u16) -> Insn {
        Insn {
            rd: rd & 15,
            rs1: rs1 & 15,
            modifier,
            imm16,
            imm: modifier.apply(imm16),
            ..Insn::bare(op)
        }
    }

    /// A branch or call `offset` instruction words away (27-bit two's complement).
    pub fn branch(op: Op, offset: i32) -> Insn {
        Insn {
            imm: sext27(offset as u32),
            ..Insn::bare(op)
        }
    }

    /// What this instruction does to registers and memory (the debugging checks' view):
    /// registers it computes with, registers it only stores, registers it writes (bit *n* for
    /// r*n*), and whether it loads or stores the word at `rs1` + `imm`. `mov rd, rs` and
    /// `not` read only their source; `.print` is the course's debugging aid, not a use.
    pub fn operands(&self) -> (u32, u32, u32, Option<bool>) {
        let b = |r: u8| 1u32 << (r & 15);
        match self.op {
            Op::Add
            | Op::Sub
            | Op::Mul
            | Op::Div
            | Op::Mod
            | Op::And
            | Op::Or
            | Op::Lsl
            | Op::Lsr
            | Op::Asr => (b(self.rs1) | b(self.rs2), 0, b(self.rd), None),
            Op::Cmp => (b(self.rs1) | b(self.rs2), 0, 0, None),
            Op::Not | Op::Mov => (b(self.rs2), 0, b(self.rd), None),
            Op::AddI
            | Op::SubI
            | Op::MulI
            | Op::DivI
            | Op::ModI
            | Op::AndI
            | Op::OrI
            | Op::LslI
            | Op::LsrI
            | Op::AsrI => (b(self.rs1), 0, b(self.rd), None),
            Op::CmpI => (b(self.rs1), 0, 0, None),
            Op::NotI | Op::MovI => (0, 0, b(self.rd), None),
            Op::Ld => (b(self.rs1), 0, b(self.rd), Some(false)),
            Op::St => (b(self.rs1), b(self.rd), 0, Some(true)),
            Op::Call => (0, 0, b(15), None),
            Op::Ret => (b(15), 0, 0, None),
            Op::Nop
            | Op::Beq
            | Op::Bgt
            | Op::B
            | Op::Hlt
            | Op::Print
            | Op::Encode
            | Op::Breakpoint
            | Op::Illegal => (0, 0, 0, None),
        }
    }

    /// Where control goes after this instruction at code byte address `addr` (4 × slot;
    /// targets likewise). `hlt` and words no instruction encodes stop the machine; `.print`
    /// and `.encode` slots go on.
    pub fn flow(&self, addr: u64) -> Flow {
        let target = || u64::from(((addr / 4) as u32).wrapping_add(self.imm)) * 4;
        match self.op {
            Op::Beq | Op::Bgt => Flow::Branch { target: target() },
            Op::B => Flow::Jump {
                target: Some(target()),
            },
            Op::Call => Flow::Call {
                target: Some(target()),
            },
            Op::Ret => Flow::Return,
            Op::Hlt | Op::Illegal => Flow::Stop,
            _ => Flow::Next,
        }
    }

    /// The instruction in the course's notation. `index` is its slot (for branch targets);
    /// labels from `symbols` replace target addresses when one names the target.
    pub fn disasm(&self, index: u32, symbols: Option<&SymbolTable>) -> String {
        let mut s = String::new();
        let name = mnemonic(self.op);
        let r = |n: u8| REG_NAMES[(n & 15) as usize];
        let m = self.modifier.suffix();
        // Writing into a String cannot fail.
        let _ = match self.op {
            Op::Add
            | Op::Sub
            | Op::Mul
            | Op::Div
            | Op::Mod
            | Op::And
            | Op::Or
            | Op::Lsl
            | Op::Lsr
            | Op::Asr => {
                write!(s, "{name} {}, {}, {}", r(self.rd), r(self.rs1), r(self.rs2))
            }
            Op::Cmp => write!(s, "{name} {}, {}", r(self.rs1), r(self.rs2)),
            Op::Not | Op::Mov => write!(s, "{name} {}, {}", r(self.rd), r(self.rs2)),
            Op::AddI
            | Op::SubI
            | Op::MulI
            | Op::DivI
            | Op::ModI
            | Op::AndI
            | Op::OrI
            | Op::LslI
            | Op::LsrI
            | Op::AsrI => write!(
                s,
                "{name}{m} {}, {}, {}",
                r(self.rd),
                r(self.rs1),
                imm_text(self.modifier, self.imm16)
            ),
            Op::CmpI => write!(
                s,
                "{name}{m} {}, {}",
                r(self.rs1),
                imm_text(self.modifier, self.imm16)
            ),
            Op::NotI | Op::MovI => write!(
                s,
                "{name}{m} {}, {}",
                r(self.rd),
                imm_text(self.modifier, self.imm16)
            ),
            Op::Ld | Op::St => write!(
                s,
                "{name} {}, {}[{}]",
                r(self.rd),
                imm_text(self.modifier, self.imm16),
                r(self.rs1)
            ),
            Op::Beq | Op::Bgt | Op::B | Op::Call => {
                let target = index.wrapping_add(self.imm);
                let addr = u64::from(target) * 4;
                let label = symbols.and_then(|t| t.at(addr).next().map(|sym| sym.name.clone()));
                match label {
                    Some(label) => write!(s, "{name} {label}"),
                    None => write!(s, "{name} {addr:#x}"),
                }
            }
            Op::Nop | Op::Ret | Op::Hlt | Op::Print | Op::Encode | Op::Breakpoint => {
                write!(s, "{name}")
            }
            Op::Illegal => write!(s, "(illegal)"),
        };
        s
    }
}

/// Register names as the course writes them.
pub const REG_NAMES: [&str; 16] = [
    "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "r13", "sp",
    "ra",
];

fn imm_text(modifier: Modifier, imm16: u16) -> String {
    match modifier {
        Modifier::Default => (imm16 as i16).to_string(),
        Modifier::Unsigned => imm16.to_string(),
        Modifier::High => format!("{imm16:#x}"),
    }
}

/// The mnemonic without modifier suffix.
pub fn mnemonic(op: Op) -> &'static str {
    match op {
        Op::Add | Op::AddI => "add",
        Op::Sub | Op::SubI => "sub",
        Op::Mul | Op::MulI => "mul",
        Op::Div | Op::DivI => "div",
        Op::Mod | Op::ModI => "mod",
        Op::Cmp | Op::CmpI => "cmp",
        Op::And | Op::AndI => "and",
        Op::Or | Op::OrI => "or",
        Op::Not | Op::NotI => "not",
        Op::Mov | Op::MovI => "mov",
        Op::Lsl | Op::LslI => "lsl",
        Op::Lsr | Op::LsrI => "lsr",
        Op::Asr | Op::AsrI => "asr",
        Op::Nop => "nop",
        Op::Ld => "ld",
        Op::St => "st",
        Op::Beq => "beq",
        Op::Bgt => "bgt",
        Op::B => "b",
        Op::Call => "call",
        Op::Ret => "ret",
        Op::Hlt => "hlt",
        Op::Print => ".print",
        Op::Encode => ".encode",
        Op::Breakpoint => "(breakpoint)",
        Op::Illegal => ".word",
    }
}

/// The ALU operations in opcode order (opcodes 0..=12), register form and immediate form.
const ALU: [(Op, Op); 13] = [
    (Op::Add, Op::AddI),
    (Op::Sub, Op::SubI),
    (Op::Mul, Op::MulI),
    (Op::Div, Op::DivI),
    (Op::Mod, Op::ModI),
    (Op::Cmp, Op::CmpI),
    (Op::And, Op::AndI),
    (Op::Or, Op::OrI),
    (Op::Not, Op::NotI),
    (Op::Mov, Op::MovI),
    (Op::Lsl, Op::LslI),
    (Op::Lsr, Op::LsrI),
    (Op::Asr, Op::AsrI),
];

/// The 5-bit opcode of `op`, and whether it is an immediate form; `None` for pseudo-ops.
pub fn opcode(op: Op) -> Option<(u32, bool)> {
    if let Some(i) = ALU.iter().position(|&(r, _)| r == op) {
        return Some((i as u32, false));
    }
    if let Some(i) = ALU.iter().position(|&(_, imm)| imm == op) {
        return Some((i as u32, true));
    }
    let code = match op {
        Op::Nop => 13,
        Op::Ld => 14,
        Op::St => 15,
        Op::Beq => 16,
        Op::Bgt => 17,
        Op::B => 18,
        Op::Call => 19,
        Op::Ret => 20,
        Op::Hlt => 22,
        _ => return None,
    };
    Some((code, matches!(op, Op::Ld | Op::St)))
}

/// The register and immediate forms of ALU opcode `opcode` (0..=12).
pub fn alu_ops(opcode: u32) -> Option<(Op, Op)> {
    ALU.get(opcode as usize).copied()
}

#[inline(always)]
fn sext27(v: u32) -> u32 {
    (((v << 5) as i32) >> 5) as u32
}

/// Decodes one code word. Never fails: words no instruction encodes become [`Op::Illegal`].
pub fn decode(word: u32) -> Insn {
    let opcode = word >> 27;
    let is_imm = (word >> 26) & 1 == 1;
    let rd = ((word >> 22) & 15) as u8;
    let rs1 = ((word >> 18) & 15) as u8;
    let rs2 = ((word >> 14) & 15) as u8;
    let modifier = match (word >> 16) & 3 {
        0 => Some(Modifier::Default),
        1 => Some(Modifier::Unsigned),
        2 => Some(Modifier::High),
        _ => None,
    };
    let imm16 = word as u16;
    match opcode {
        0..=12 => {
            let Some((reg_op, imm_op)) = alu_ops(opcode) else {
                return Insn::ILLEGAL;
            };
            if is_imm {
                match modifier {
                    Some(m) => Insn::imm(imm_op, rd, rs1, m, imm16),
                    None => Insn::ILLEGAL,
                }
            } else {
                Insn::reg(reg_op, rd, rs1, rs2)
            }
        }
        13 => Insn::bare(Op::Nop),
        14 | 15 => {
            let op = if opcode == 14 { Op::Ld } else { Op::St };
            match (is_imm, modifier) {
                (true, Some(m)) => Insn::imm(op, rd, rs1, m, imm16),
                _ => Insn::ILLEGAL,
            }
        }
        16..=19 => {
            let op = [Op::Beq, Op::Bgt, Op::B, Op::Call][(opcode - 16) as usize];
            Insn {
                imm: sext27(word & 0x07ff_ffff),
                ..Insn::bare(op)
            }
        }
        20 => Insn::bare(Op::Ret),
        22 => Insn::bare(Op::Hlt),
        _ => Insn::ILLEGAL,
    }
}

/// The word for `insn`: the inverse of [`decode`] for every decodable instruction. Pseudo-ops
/// and [`Op::Illegal`] have no encoding and give 0xffffffff.
pub fn encode(insn: &Insn) -> u32 {
    let Some((code, is_imm)) = opcode(insn.op) else {
        return u32::MAX;
    };
    let head = code << 27;
    let rd = u32::from(insn.rd & 15) << 22;
    let rs1 = u32::from(insn.rs1 & 15) << 18;
    match insn.op {
        Op::Beq | Op::Bgt | Op::B | Op::Call => head | (insn.imm & 0x07ff_ffff),
        Op::Nop | Op::Ret | Op::Hlt => head,
        _ if is_imm => {
            head | 1 << 26 | rd | rs1 | (insn.modifier as u32) << 16 | u32::from(insn.imm16)
        }
        _ => head | rd | rs1 | u32::from(insn.rs2 & 15) << 14,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operands_of_each_group() {
        let insn = |op, rd, rs1, rs2, imm| Insn {
            op,
            rd,
            rs1,
            rs2,
            modifier: Modifier::Default,
            imm16: imm as u16,
            imm,
        };
        let b = |r: u32| 1u32 << r;
        // add r1, r2, r3: reads r2 and r3, writes r1.
        assert_eq!(
            insn(Op::Add, 1, 2, 3, 0).operands(),
            (b(2) | b(3), 0, b(1), None)
        );
        // mov r4, r5 reads only r5; mov r4, 7 reads nothing.
        assert_eq!(insn(Op::Mov, 4, 0, 5, 0).operands(), (b(5), 0, b(4), None));
        assert_eq!(insn(Op::MovI, 4, 0, 0, 7).operands(), (0, 0, b(4), None));
        // cmp r1, r2 writes no register (the flags).
        assert_eq!(
            insn(Op::Cmp, 0, 1, 2, 0).operands(),
            (b(1) | b(2), 0, 0, None)
        );
        // ld r1, 4[sp]: sp is the address; st ra, 0[sp]: ra only stored.
        assert_eq!(
            insn(Op::Ld, 1, 14, 0, 4).operands(),
            (b(14), 0, b(1), Some(false))
        );
        assert_eq!(
            insn(Op::St, 15, 14, 0, 0).operands(),
            (b(14), b(15), 0, Some(true))
        );
        // call links ra; ret reads it; branches and .print use no register.
        assert_eq!(insn(Op::Call, 0, 0, 0, 3).operands(), (0, 0, b(15), None));
        assert_eq!(insn(Op::Ret, 0, 0, 0, 0).operands(), (b(15), 0, 0, None));
        assert_eq!(insn(Op::Beq, 0, 0, 0, 2).operands(), (0, 0, 0, None));
        assert_eq!(insn(Op::Print, 0, 0, 0, 0).operands(), (0, 0, 0, None));
    }

    #[test]
    fn flow_of_branches_calls_returns_and_halt() {
        let at = |insn: Insn, addr: u64| decode(encode(&insn)).flow(addr);
        // Offsets count slots: beq -2 at byte 20 goes to byte 12.
        assert_eq!(
            at(Insn::branch(Op::Beq, -2), 20),
            Flow::Branch { target: 12 }
        );
        assert_eq!(at(Insn::branch(Op::Bgt, 3), 0), Flow::Branch { target: 12 });
        assert_eq!(
            at(Insn::branch(Op::B, 1), 8),
            Flow::Jump { target: Some(12) }
        );
        assert_eq!(
            at(Insn::branch(Op::Call, 5), 4),
            Flow::Call { target: Some(24) }
        );
        assert_eq!(at(Insn::bare(Op::Ret), 4), Flow::Return);
        assert_eq!(at(Insn::bare(Op::Hlt), 4), Flow::Stop);
        assert_eq!(decode(0xffff_ffff).flow(0), Flow::Stop);
        assert_eq!(at(Insn::reg(Op::Add, 1, 2, 3), 0), Flow::Next);
        assert_eq!(at(Insn::bare(Op::Nop), 0), Flow::Next);
    }

    #[test]
    fn decodes_the_verified_encodings() {
        let cases: [(u32, &str); 15] = [
            (0x0048c000, "add r1, r2, r3"),
            (0x0448fffb, "add r1, r2, -5"),
            (0x0449ffff, "addu r1, r2, 65535"),
            (0x07fa0135, "addh ra, sp, 0x135"),
            (0x280d0000, "cmp r3, r4"),
            (0x2c0c0007, "cmp r3, 7"),
            (0x41418000, "not r5, r6"),
            (0x4d400064, "mov r5, 100"),
            (0x4d421234, "movh r5, 0x1234"),
            (0x54440002, "lsl r1, r1, 2"),
            (0x64440003, "asr r1, r1, 3"),
            (0x68000000, "nop"),
            (0x74480004, "ld r1, 4[r2]"),
            (0x7c78fff8, "st r1, -8[sp]"),
            (0xa0000000, "ret"),
        ];
        for (word, text) in cases {
            let insn = decode(word);
            assert_eq!(insn.disasm(0, None), text, "{word:#010x}");
            assert_eq!(encode(&insn), word, "{text}");
        }
    }

    #[test]
    fn branch_offsets_are_27_bit_signed() {
        let beq = decode(0x87ffffe4);
        assert_eq!(beq.op, Op::Beq);
        assert_eq!(beq.imm as i32, -28);
        assert_eq!(beq.disasm(28, None), "beq 0x0");
        let call = decode(0x9ffffffe);
        assert_eq!((call.op, call.imm as i32), (Op::Call, -2));
        assert_eq!(decode(0x90000000).disasm(3, None), "b 0xc");
        assert_eq!(encode(&Insn::branch(Op::Beq, -28)), 0x87ffffe4);
        assert_eq!(encode(&Insn::branch(Op::B, 0x3ff_ffff)), 0x93ffffff);
    }

    #[test]
    fn modifiers_apply_to_the_immediate() {
        assert_eq!(decode(0x4d40ffff).imm, u32::MAX);
        assert_eq!(decode(0x4d41ffff).imm, 0xffff);
        assert_eq!(decode(0x4d42ffff).imm, 0xffff_0000);
        assert_eq!(decode(0x4d43ffff).op, Op::Illegal);
    }

    #[test]
    fn undefined_words_are_illegal() {
        assert_eq!(decode(21 << 27).op, Op::Illegal);
        assert_eq!(decode(31 << 27).op, Op::Illegal);
        assert_eq!(decode(0x70480004).op, Op::Illegal, "ld with I=0");
        assert_eq!(decode(22 << 27).op, Op::Hlt);
        assert_eq!(decode(21 << 27).disasm(0, None), "(illegal)");
        assert_eq!(encode(&decode(21 << 27)), u32::MAX);
    }

    #[test]
    fn every_decodable_word_re_encodes_to_itself_modulo_unused_bits() {
        let mut x: u32 = 0x1234_5678;
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let insn = decode(x);
            if insn.op == Op::Illegal {
                continue;
            }
            let again = decode(encode(&insn));
            assert_eq!(again, insn, "{x:#010x}");
        }
    }
}
