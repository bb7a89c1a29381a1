//! What an instruction does to the general registers and memory: the debugging checks' view
//! of it (asmdbg_core::checks). Coprocessor registers, HI and LO are not tracked.

use super::Instruction;

/// A load or store: `bytes` bytes at `base` + `off`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemOperand {
    pub base: u8,
    pub off: i16,
    pub bytes: u8,
    pub store: bool,
}

/// Register masks have bit *n* for `$n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Operands {
    /// Registers whose values the instruction computes with.
    pub reads: u32,
    /// Registers whose values it only stores to memory (or moves to a coprocessor).
    pub stored: u32,
    /// Registers it writes (`$zero` never counts).
    pub writes: u32,
    pub mem: Option<MemOperand>,
}

impl Instruction {
    /// The registers and memory this instruction uses. `syscall`'s depend on `$v0` at run
    /// time: the machine adds them.
    pub fn operands(self) -> Operands {
        use Instruction as I;
        let b = |r: u8| 1u32 << r;
        let op = |reads: u32, writes: u32| Operands {
            reads,
            writes: writes & !1,
            ..Operands::default()
        };
        let mem = |rt: u32, base: u8, off: i16, bytes: u8, store: bool| Operands {
            reads: b(base),
            stored: if store { rt } else { 0 },
            writes: if store { 0 } else { rt & !1 },
            mem: Some(MemOperand {
                base,
                off,
                bytes,
                store,
            }),
        };
        match self {
            I::Add { rd, rs, rt }
            | I::Addu { rd, rs, rt }
            | I::Sub { rd, rs, rt }
            | I::Subu { rd, rs, rt }
            | I::And { rd, rs, rt }
            | I::Or { rd, rs, rt }
            | I::Xor { rd, rs, rt }
            | I::Nor { rd, rs, rt }
            | I::Slt { rd, rs, rt }
            | I::Sltu { rd, rs, rt }
            | I::Mul { rd, rs, rt }
            | I::Sllv { rd, rs, rt }
            | I::Srlv { rd, rs, rt }
            | I::Srav { rd, rs, rt } => op(b(rs) | b(rt), b(rd)),
            // The destination keeps its value when the condition fails: it is read too.
            I::Movn { rd, rs, rt } | I::Movz { rd, rs, rt } => op(b(rs) | b(rt) | b(rd), b(rd)),
            I::MovCc { rd, rs, .. } => op(b(rs) | b(rd), b(rd)),
            I::Sll { rd, rt, .. } | I::Srl { rd, rt, .. } | I::Sra { rd, rt, .. } => {
                op(b(rt), b(rd))
            }
            I::Mult { rs, rt }
            | I::Multu { rs, rt }
            | I::Div { rs, rt }
            | I::Divu { rs, rt }
            | I::Madd { rs, rt }
            | I::Maddu { rs, rt }
            | I::Msub { rs, rt }
            | I::Msubu { rs, rt }
            | I::Teq { rs, rt }
            | I::Tne { rs, rt }
            | I::Tge { rs, rt }
            | I::Tgeu { rs, rt }
            | I::Tlt { rs, rt }
            | I::Tltu { rs, rt }
            | I::Beq { rs, rt, .. }
            | I::Bne { rs, rt, .. } => op(b(rs) | b(rt), 0),
            I::Mfhi { rd } | I::Mflo { rd } => op(0, b(rd)),
            I::Mthi { rs }
            | I::Mtlo { rs }
            | I::Jr { rs }
            | I::Teqi { rs, .. }
            | I::Tnei { rs, .. }
            | I::Tgei { rs, .. }
            | I::Tgeiu { rs, .. }
            | I::Tlti { rs, .. }
            | I::Tltiu { rs, .. }
            | I::Blez { rs, .. }
            | I::Bgtz { rs, .. }
            | I::Bltz { rs, .. }
            | I::Bgez { rs, .. } => op(b(rs), 0),
            I::Clz { rd, rs } | I::Clo { rd, rs } => op(b(rs), b(rd)),
            I::Jalr { rd, rs } => op(b(rs), b(rd)),
            I::Bltzal { rs, .. } | I::Bgezal { rs, .. } => op(b(rs), b(31)),
            I::Jal { .. } => op(0, b(31)),
            I::Addi { rt, rs, .. }
            | I::Addiu { rt, rs, .. }
            | I::Slti { rt, rs, .. }
            | I::Sltiu { rt, rs, .. }
            | I::Andi { rt, rs, .. }
            | I::Ori { rt, rs, .. }
            | I::Xori { rt, rs, .. } => op(b(rs), b(rt)),
            I::Lui { rt, .. } => op(0, b(rt)),
            I::Lb { rt, base, off } | I::Lbu { rt, base, off } => mem(b(rt), base, off, 1, false),
            I::Lh { rt, base, off } | I::Lhu { rt, base, off } => mem(b(rt), base, off, 2, false),
            I::Lw { rt, base, off } | I::Ll { rt, base, off } => mem(b(rt), base, off, 4, false),
            // The unaligned loads merge into the register: it is read as well.
            I::Lwl { rt, base, off } | I::Lwr { rt, base, off } => {
                let mut ops = mem(b(rt), base, off, 1, false);
                ops.reads |= b(rt);
                ops
            }
            I::Sb { rt, base, off } => mem(b(rt), base, off, 1, true),
            I::Sh { rt, base, off } => mem(b(rt), base, off, 2, true),
            I::Sw { rt, base, off } | I::Swl { rt, base, off } | I::Swr { rt, base, off } => {
                let bytes = if matches!(self, I::Sw { .. }) { 4 } else { 1 };
                mem(b(rt), base, off, bytes, true)
            }
            // `sc` stores and then writes its success flag.
            I::Sc { rt, base, off } => {
                let mut ops = mem(b(rt), base, off, 4, true);
                ops.writes = b(rt) & !1;
                ops
            }
            I::Lwc1 { base, off, .. } => mem(0, base, off, 4, false),
            I::Ldc1 { base, off, .. } => mem(0, base, off, 8, false),
            I::Swc1 { base, off, .. } => mem(0, base, off, 4, true),
            I::Sdc1 { base, off, .. } => mem(0, base, off, 8, true),
            I::Mfc0 { rt, .. } | I::Mfc1 { rt, .. } => op(0, b(rt)),
            I::Mtc0 { rt, .. } | I::Mtc1 { rt, .. } => Operands {
                stored: b(rt),
                ..Operands::default()
            },
            I::FpMovReg { rt, .. } => op(b(rt), 0),
            I::Empty
            | I::Invalid(_)
            | I::DebugStop
            | I::Syscall
            | I::Break { .. }
            | I::J { .. }
            | I::Eret
            | I::Bc1 { .. }
            | I::FpArith { .. }
            | I::FpUnary { .. }
            | I::FpCmp { .. }
            | I::FpMovCc { .. } => Operands::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::decode;

    fn ops(word: u32) -> Operands {
        decode(word).operands()
    }

    #[test]
    fn operands_of_each_group() {
        // add $t0, $t1, $t2: reads $t1, $t2, writes $t0.
        assert_eq!(
            ops(0x012a_4020),
            Operands {
                reads: 1 << 9 | 1 << 10,
                writes: 1 << 8,
                ..Default::default()
            }
        );
        // addi $zero, $t0, 1 writes nothing that counts.
        assert_eq!(ops(0x2100_0001).writes, 0);
        // lui $at, 0x1001; ori $t0, $at, 4.
        assert_eq!(
            ops(0x3c01_1001),
            Operands {
                writes: 1 << 1,
                ..Default::default()
            }
        );
        assert_eq!(ops(0x3428_0004).reads, 1 << 1);
        // lw $t0, 4($sp): reads $sp, writes $t0, 4 bytes.
        let lw = ops(0x8fa8_0004);
        assert_eq!((lw.reads, lw.writes), (1 << 29, 1 << 8));
        assert_eq!(
            lw.mem,
            Some(MemOperand {
                base: 29,
                off: 4,
                bytes: 4,
                store: false
            })
        );
        // sw $ra, 0($sp): $ra only stored, $sp used as the address.
        let sw = ops(0xafbf_0000);
        assert_eq!((sw.reads, sw.stored, sw.writes), (1 << 29, 1 << 31, 0));
        assert!(sw.mem.unwrap().store);
        // sb $t0, -1($a0).
        assert_eq!(
            ops(0xa088_ffff).mem.map(|m| (m.bytes, m.off)),
            Some((1, -1))
        );
        // jal links $ra; jr $ra reads it; jalr $t9 reads $t9 and links $ra.
        assert_eq!(ops(0x0c10_0000).writes, 1 << 31);
        assert_eq!(ops(0x03e0_0008).reads, 1 << 31);
        assert_eq!(
            ops(0x0320_f809),
            Operands {
                reads: 1 << 25,
                writes: 1 << 31,
                ..Default::default()
            }
        );
        // beq $t0, $t1 reads both; mflo $v0 writes $v0; mult reads both.
        assert_eq!(ops(0x1109_0003).reads, 1 << 8 | 1 << 9);
        assert_eq!(ops(0x0000_1012).writes, 1 << 2);
        assert_eq!(ops(0x0109_0018).reads, 1 << 8 | 1 << 9);
        // sll $t0, $t1, 2; syscall has no fixed operands.
        assert_eq!(
            ops(0x0009_4080),
            Operands {
                reads: 1 << 9,
                writes: 1 << 8,
                ..Default::default()
            }
        );
        assert_eq!(ops(0x0000_000c), Operands::default());
    }
}
