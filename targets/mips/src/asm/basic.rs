//! The 155 basic instructions of MARS 4.5 with their MIPS32 encodings.
//!
//! Each entry is MARS's example syntax (which also decides operand types for matching: `-100`
//! is a signed 16-bit immediate, `100` an unsigned one, `10` a 5-bit one, `label` a label),
//! the fixed bits, and where each operand goes. The table is public so the decoder can be
//! cross-checked against it.
//!
//! Where MARS differs from GNU as: `break CODE` puts the code in bits 6–25 (as MARS decodes it),
//! and `clo`/`clz` leave the rt field 0 (GNU copies rd there).

/// Where an operand goes in the instruction word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// bits 21–25
    Rs,
    /// bits 16–20
    Rt,
    /// bits 11–15
    Rd,
    /// bits 6–10
    Shamt,
    /// low 16 bits
    Imm,
    /// low 16 bits: word offset from the next instruction
    Branch,
    /// low 26 bits: word address
    Jump,
    /// bits 6–25 (`break`)
    Code20,
    /// bits 11–15
    Fs,
    /// bits 16–20
    Ft,
    /// bits 6–10
    Fd,
    /// bits 18–20: condition flag of `movf`/`movt`/`bc1f`/`bc1t`
    CcHigh,
    /// bits 8–10: condition flag set by `c.eq.s` and friends
    CcLow,
}

/// One basic instruction form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BasicInstruction {
    /// MARS's example, e.g. `"lw $t1,-100($t2)"`.
    pub example: &'static str,
    /// The word with every operand field zero.
    pub bits: u32,
    /// Fields of the operands in source order (parentheses excluded).
    pub fields: &'static [Field],
}

impl BasicInstruction {
    pub fn mnemonic(&self) -> &'static str {
        self.example.split(' ').next().unwrap_or(self.example)
    }
}

use Field::{Branch, CcHigh, CcLow, Code20, Fd, Fs, Ft, Imm, Jump, Rd, Rs, Rt, Shamt};

const fn b(example: &'static str, bits: u32, fields: &'static [Field]) -> BasicInstruction {
    BasicInstruction {
        example,
        bits,
        fields,
    }
}

const RD_RS_RT: &[Field] = &[Rd, Rs, Rt];
const RT_RS_IMM: &[Field] = &[Rt, Rs, Imm];
const RS_RT: &[Field] = &[Rs, Rt];
const RD_RT_SA: &[Field] = &[Rd, Rt, Shamt];
const RD_RT_RS: &[Field] = &[Rd, Rt, Rs];
const RT_IMM_RS: &[Field] = &[Rt, Imm, Rs];
const FT_IMM_RS: &[Field] = &[Ft, Imm, Rs];
const RS_BRANCH: &[Field] = &[Rs, Branch];
const RS_IMM: &[Field] = &[Rs, Imm];
const FD_FS_FT: &[Field] = &[Fd, Fs, Ft];
const FD_FS: &[Field] = &[Fd, Fs];
const FS_FT: &[Field] = &[Fs, Ft];
const CC_FS_FT: &[Field] = &[CcLow, Fs, Ft];
const FD_FS_CC: &[Field] = &[Fd, Fs, CcHigh];
const FD_FS_RT: &[Field] = &[Fd, Fs, Rt];

/// Every basic instruction, in MARS's order (forms of one mnemonic keep their relative order,
/// which decides the error message when no form matches).
pub const BASIC_INSTRUCTIONS: &[BasicInstruction] = &[
    b("nop", 0x0000_0000, &[]),
    b("add $t1,$t2,$t3", 0x0000_0020, RD_RS_RT),
    b("sub $t1,$t2,$t3", 0x0000_0022, RD_RS_RT),
    b("addi $t1,$t2,-100", 0x2000_0000, RT_RS_IMM),
    b("addu $t1,$t2,$t3", 0x0000_0021, RD_RS_RT),
    b("subu $t1,$t2,$t3", 0x0000_0023, RD_RS_RT),
    b("addiu $t1,$t2,-100", 0x2400_0000, RT_RS_IMM),
    b("mult $t1,$t2", 0x0000_0018, RS_RT),
    b("multu $t1,$t2", 0x0000_0019, RS_RT),
    b("mul $t1,$t2,$t3", 0x7000_0002, RD_RS_RT),
    b("madd $t1,$t2", 0x7000_0000, RS_RT),
    b("maddu $t1,$t2", 0x7000_0001, RS_RT),
    b("msub $t1,$t2", 0x7000_0004, RS_RT),
    b("msubu $t1,$t2", 0x7000_0005, RS_RT),
    b("div $t1,$t2", 0x0000_001a, RS_RT),
    b("divu $t1,$t2", 0x0000_001b, RS_RT),
    b("mfhi $t1", 0x0000_0010, &[Rd]),
    b("mflo $t1", 0x0000_0012, &[Rd]),
    b("mthi $t1", 0x0000_0011, &[Rs]),
    b("mtlo $t1", 0x0000_0013, &[Rs]),
    b("and $t1,$t2,$t3", 0x0000_0024, RD_RS_RT),
    b("or $t1,$t2,$t3", 0x0000_0025, RD_RS_RT),
    b("andi $t1,$t2,100", 0x3000_0000, RT_RS_IMM),
    b("ori $t1,$t2,100", 0x3400_0000, RT_RS_IMM),
    b("nor $t1,$t2,$t3", 0x0000_0027, RD_RS_RT),
    b("xor $t1,$t2,$t3", 0x0000_0026, RD_RS_RT),
    b("xori $t1,$t2,100", 0x3800_0000, RT_RS_IMM),
    b("sll $t1,$t2,10", 0x0000_0000, RD_RT_SA),
    b("sllv $t1,$t2,$t3", 0x0000_0004, RD_RT_RS),
    b("srl $t1,$t2,10", 0x0000_0002, RD_RT_SA),
    b("sra $t1,$t2,10", 0x0000_0003, RD_RT_SA),
    b("srav $t1,$t2,$t3", 0x0000_0007, RD_RT_RS),
    b("srlv $t1,$t2,$t3", 0x0000_0006, RD_RT_RS),
    b("lw $t1,-100($t2)", 0x8c00_0000, RT_IMM_RS),
    b("ll $t1,-100($t2)", 0xc000_0000, RT_IMM_RS),
    b("lwl $t1,-100($t2)", 0x8800_0000, RT_IMM_RS),
    b("lwr $t1,-100($t2)", 0x9800_0000, RT_IMM_RS),
    b("sw $t1,-100($t2)", 0xac00_0000, RT_IMM_RS),
    b("sc $t1,-100($t2)", 0xe000_0000, RT_IMM_RS),
    b("swl $t1,-100($t2)", 0xa800_0000, RT_IMM_RS),
    b("swr $t1,-100($t2)", 0xb800_0000, RT_IMM_RS),
    b("lui $t1,100", 0x3c00_0000, &[Rt, Imm]),
    b("lb $t1,-100($t2)", 0x8000_0000, RT_IMM_RS),
    b("lh $t1,-100($t2)", 0x8400_0000, RT_IMM_RS),
    b("lhu $t1,-100($t2)", 0x9400_0000, RT_IMM_RS),
    b("lbu $t1,-100($t2)", 0x9000_0000, RT_IMM_RS),
    b("sb $t1,-100($t2)", 0xa000_0000, RT_IMM_RS),
    b("sh $t1,-100($t2)", 0xa400_0000, RT_IMM_RS),
    b("beq $t1,$t2,label", 0x1000_0000, &[Rs, Rt, Branch]),
    b("bne $t1,$t2,label", 0x1400_0000, &[Rs, Rt, Branch]),
    b("bgez $t1,label", 0x0401_0000, RS_BRANCH),
    b("bgezal $t1,label", 0x0411_0000, RS_BRANCH),
    b("bgtz $t1,label", 0x1c00_0000, RS_BRANCH),
    b("blez $t1,label", 0x1800_0000, RS_BRANCH),
    b("bltz $t1,label", 0x0400_0000, RS_BRANCH),
    b("bltzal $t1,label", 0x0410_0000, RS_BRANCH),
    b("slt $t1,$t2,$t3", 0x0000_002a, RD_RS_RT),
    b("sltu $t1,$t2,$t3", 0x0000_002b, RD_RS_RT),
    b("slti $t1,$t2,-100", 0x2800_0000, RT_RS_IMM),
    b("sltiu $t1,$t2,-100", 0x2c00_0000, RT_RS_IMM),
    b("movn $t1,$t2,$t3", 0x0000_000b, RD_RS_RT),
    b("movz $t1,$t2,$t3", 0x0000_000a, RD_RS_RT),
    b("movf $t1,$t2", 0x0000_0001, &[Rd, Rs]),
    b("movf $t1,$t2,1", 0x0000_0001, &[Rd, Rs, CcHigh]),
    b("movt $t1,$t2", 0x0001_0001, &[Rd, Rs]),
    b("movt $t1,$t2,1", 0x0001_0001, &[Rd, Rs, CcHigh]),
    b("break 100", 0x0000_000d, &[Code20]),
    b("break", 0x0000_000d, &[]),
    b("syscall", 0x0000_000c, &[]),
    b("j target", 0x0800_0000, &[Jump]),
    b("jr $t1", 0x0000_0008, &[Rs]),
    b("jal target", 0x0c00_0000, &[Jump]),
    b("jalr $t1", 0x0000_f809, &[Rs]),
    b("jalr $t1,$t2", 0x0000_0009, &[Rd, Rs]),
    b("clo $t1,$t2", 0x7000_0021, &[Rd, Rs]),
    b("clz $t1,$t2", 0x7000_0020, &[Rd, Rs]),
    b("mfc0 $t1,$8", 0x4000_0000, &[Rt, Rd]),
    b("mtc0 $t1,$8", 0x4080_0000, &[Rt, Rd]),
    b("add.s $f0,$f1,$f3", 0x4600_0000, FD_FS_FT),
    b("sub.s $f0,$f1,$f3", 0x4600_0001, FD_FS_FT),
    b("mul.s $f0,$f1,$f3", 0x4600_0002, FD_FS_FT),
    b("div.s $f0,$f1,$f3", 0x4600_0003, FD_FS_FT),
    b("sqrt.s $f0,$f1", 0x4600_0004, FD_FS),
    b("floor.w.s $f0,$f1", 0x4600_000f, FD_FS),
    b("ceil.w.s $f0,$f1", 0x4600_000e, FD_FS),
    b("round.w.s $f0,$f1", 0x4600_000c, FD_FS),
    b("trunc.w.s $f0,$f1", 0x4600_000d, FD_FS),
    b("add.d $f2,$f4,$f6", 0x4620_0000, FD_FS_FT),
    b("sub.d $f2,$f4,$f6", 0x4620_0001, FD_FS_FT),
    b("mul.d $f2,$f4,$f6", 0x4620_0002, FD_FS_FT),
    b("div.d $f2,$f4,$f6", 0x4620_0003, FD_FS_FT),
    b("sqrt.d $f2,$f4", 0x4620_0004, FD_FS),
    b("floor.w.d $f1,$f2", 0x4620_000f, FD_FS),
    b("ceil.w.d $f1,$f2", 0x4620_000e, FD_FS),
    b("round.w.d $f1,$f2", 0x4620_000c, FD_FS),
    b("trunc.w.d $f1,$f2", 0x4620_000d, FD_FS),
    b("bc1t label", 0x4501_0000, &[Branch]),
    b("bc1t 1,label", 0x4501_0000, &[CcHigh, Branch]),
    b("bc1f label", 0x4500_0000, &[Branch]),
    b("bc1f 1,label", 0x4500_0000, &[CcHigh, Branch]),
    b("c.eq.s $f0,$f1", 0x4600_0032, FS_FT),
    b("c.eq.s 1,$f0,$f1", 0x4600_0032, CC_FS_FT),
    b("c.le.s $f0,$f1", 0x4600_003e, FS_FT),
    b("c.le.s 1,$f0,$f1", 0x4600_003e, CC_FS_FT),
    b("c.lt.s $f0,$f1", 0x4600_003c, FS_FT),
    b("c.lt.s 1,$f0,$f1", 0x4600_003c, CC_FS_FT),
    b("c.eq.d $f2,$f4", 0x4620_0032, FS_FT),
    b("c.eq.d 1,$f2,$f4", 0x4620_0032, CC_FS_FT),
    b("c.le.d $f2,$f4", 0x4620_003e, FS_FT),
    b("c.le.d 1,$f2,$f4", 0x4620_003e, CC_FS_FT),
    b("c.lt.d $f2,$f4", 0x4620_003c, FS_FT),
    b("c.lt.d 1,$f2,$f4", 0x4620_003c, CC_FS_FT),
    b("abs.s $f0,$f1", 0x4600_0005, FD_FS),
    b("abs.d $f2,$f4", 0x4620_0005, FD_FS),
    b("cvt.d.s $f2,$f1", 0x4600_0021, FD_FS),
    b("cvt.d.w $f2,$f1", 0x4680_0021, FD_FS),
    b("cvt.s.d $f1,$f2", 0x4620_0020, FD_FS),
    b("cvt.s.w $f0,$f1", 0x4680_0020, FD_FS),
    b("cvt.w.d $f1,$f2", 0x4620_0024, FD_FS),
    b("cvt.w.s $f0,$f1", 0x4600_0024, FD_FS),
    b("mov.d $f2,$f4", 0x4620_0006, FD_FS),
    b("movf.d $f2,$f4", 0x4620_0011, FD_FS),
    b("movf.d $f2,$f4,1", 0x4620_0011, FD_FS_CC),
    b("movt.d $f2,$f4", 0x4621_0011, FD_FS),
    b("movt.d $f2,$f4,1", 0x4621_0011, FD_FS_CC),
    b("movn.d $f2,$f4,$t3", 0x4620_0013, FD_FS_RT),
    b("movz.d $f2,$f4,$t3", 0x4620_0012, FD_FS_RT),
    b("mov.s $f0,$f1", 0x4600_0006, FD_FS),
    b("movf.s $f0,$f1", 0x4600_0011, FD_FS),
    b("movf.s $f0,$f1,1", 0x4600_0011, FD_FS_CC),
    b("movt.s $f0,$f1", 0x4601_0011, FD_FS),
    b("movt.s $f0,$f1,1", 0x4601_0011, FD_FS_CC),
    b("movn.s $f0,$f1,$t3", 0x4600_0013, FD_FS_RT),
    b("movz.s $f0,$f1,$t3", 0x4600_0012, FD_FS_RT),
    b("mfc1 $t1,$f1", 0x4400_0000, &[Rt, Fs]),
    b("mtc1 $t1,$f1", 0x4480_0000, &[Rt, Fs]),
    b("neg.d $f2,$f4", 0x4620_0007, FD_FS),
    b("neg.s $f0,$f1", 0x4600_0007, FD_FS),
    b("lwc1 $f1,-100($t2)", 0xc400_0000, FT_IMM_RS),
    b("ldc1 $f2,-100($t2)", 0xd400_0000, FT_IMM_RS),
    b("swc1 $f1,-100($t2)", 0xe400_0000, FT_IMM_RS),
    b("sdc1 $f2,-100($t2)", 0xf400_0000, FT_IMM_RS),
    b("teq $t1,$t2", 0x0000_0034, RS_RT),
    b("teqi $t1,-100", 0x040c_0000, RS_IMM),
    b("tne $t1,$t2", 0x0000_0036, RS_RT),
    b("tnei $t1,-100", 0x040e_0000, RS_IMM),
    b("tge $t1,$t2", 0x0000_0030, RS_RT),
    b("tgeu $t1,$t2", 0x0000_0031, RS_RT),
    b("tgei $t1,-100", 0x0408_0000, RS_IMM),
    b("tgeiu $t1,-100", 0x0409_0000, RS_IMM),
    b("tlt $t1,$t2", 0x0000_0032, RS_RT),
    b("tltu $t1,$t2", 0x0000_0033, RS_RT),
    b("tlti $t1,-100", 0x040a_0000, RS_IMM),
    b("tltiu $t1,-100", 0x040b_0000, RS_IMM),
    b("eret", 0x4200_0018, &[]),
];

/// A resolved operand value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operand {
    /// A register number (general or floating point).
    Reg(u8),
    /// An immediate, shift amount, code or flag number; for branches a raw word offset.
    Imm(i32),
    /// An absolute address (branch or jump target).
    Addr(u32),
}

/// Why operands could not be placed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    #[error("Jump target word address beyond 26-bit range")]
    JumpOutOfRange,
    #[error("wrong number of operands")]
    OperandCount,
}

/// An instruction word, and what it cannot hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Encoded {
    pub word: u32,
    /// A branch to a label further than a 16-bit offset reaches: its whole displacement in
    /// words. MARS 4.5 gives no error for it: the word keeps the displacement's low 16 bits and
    /// the statement runs with the whole displacement (`ProgramStatement` keeps the operand).
    pub far_branch: Option<i32>,
}

impl BasicInstruction {
    /// Encodes with operands in source order; `addr` is where the word will sit (for branches).
    /// Values wider than their field are cut to it, as MARS does for generated code.
    pub fn encode(&self, operands: &[Operand], addr: u32) -> Result<Encoded, EncodeError> {
        if operands.len() != self.fields.len() {
            return Err(EncodeError::OperandCount);
        }
        let mut word = self.bits;
        let mut far_branch = None;
        for (field, op) in self.fields.iter().zip(operands) {
            let v = match *op {
                Operand::Reg(r) => r as u32,
                Operand::Imm(i) => i as u32,
                Operand::Addr(a) => a,
            };
            word |= match field {
                Rs => (v & 31) << 21,
                Rt | Ft => (v & 31) << 16,
                Rd | Fs => (v & 31) << 11,
                Shamt | Fd => (v & 31) << 6,
                Imm => v & 0xffff,
                Code20 => (v & 0xf_ffff) << 6,
                CcHigh => (v & 7) << 18,
                CcLow => (v & 7) << 8,
                Branch => {
                    let offset = match *op {
                        Operand::Addr(target) => {
                            (target.wrapping_sub(addr.wrapping_add(4)) as i32) >> 2
                        }
                        _ => v as i32,
                    };
                    if !(-32768..=32767).contains(&offset) {
                        far_branch = Some(offset);
                    }
                    offset as u32 & 0xffff
                }
                Jump => {
                    // MARS compares the region with the jump's own address, not PC+4.
                    if let Operand::Addr(target) = *op {
                        if target & 0xf000_0000 != addr & 0xf000_0000 {
                            return Err(EncodeError::JumpOutOfRange);
                        }
                    }
                    (v >> 2) & 0x03ff_ffff
                }
            };
        }
        Ok(Encoded { word, far_branch })
    }
}

/// The forms of `mnemonic` (lower case), in table order.
pub fn forms(mnemonic: &str) -> impl Iterator<Item = &'static BasicInstruction> + '_ {
    BASIC_INSTRUCTIONS
        .iter()
        .filter(move |i| i.mnemonic() == mnemonic)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn there_are_155_forms() {
        assert_eq!(BASIC_INSTRUCTIONS.len(), 155);
    }

    #[test]
    fn encodes_fields() {
        let addi = forms("addiu").next().unwrap();
        assert_eq!(
            addi.encode(&[Operand::Reg(2), Operand::Reg(0), Operand::Imm(4)], 0)
                .unwrap()
                .word,
            0x2402_0004
        );
        let beq = forms("beq").next().unwrap();
        let w = beq
            .encode(
                &[Operand::Reg(8), Operand::Reg(0), Operand::Addr(0x0040_0000)],
                0x0040_0008,
            )
            .unwrap();
        assert_eq!(
            w,
            Encoded {
                word: 0x1100_fffd,
                far_branch: None
            }
        );
        let j = forms("j").next().unwrap();
        assert_eq!(
            j.encode(&[Operand::Addr(0x0040_0010)], 0x0040_0000)
                .unwrap()
                .word,
            0x0810_0004
        );
        assert_eq!(
            beq.encode(
                &[Operand::Reg(0), Operand::Reg(0), Operand::Addr(0x0050_0000)],
                0x0040_0000
            ),
            Ok(Encoded {
                word: 0x1000_ffff,
                far_branch: Some(0x3_ffff)
            })
        );
    }
}
