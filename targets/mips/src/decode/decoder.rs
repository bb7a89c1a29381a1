//! The decoder: one instruction word to an [`Instruction`], with MARS's field masks.

use super::{FpArith, FpCond, FpFmt, FpUnary, Instruction};

#[inline(always)]
fn field(word: u32, shift: u32) -> u8 {
    ((word >> shift) & 31) as u8
}

/// Decodes one instruction word.
pub fn decode(word: u32) -> Instruction {
    use Instruction as I;
    let rs = field(word, 21);
    let rt = field(word, 16);
    let rd = field(word, 11);
    let sa = field(word, 6);
    let funct = word & 0x3f;
    let imm = word as u16;
    let simm = imm as i16;
    match word >> 26 {
        0x00 => decode_special(word, rs, rt, rd, sa, funct),
        0x01 => match rt {
            0x00 => I::Bltz {
                rs,
                off: simm.into(),
            },
            0x01 => I::Bgez {
                rs,
                off: simm.into(),
            },
            0x10 => I::Bltzal {
                rs,
                off: simm.into(),
            },
            0x11 => I::Bgezal {
                rs,
                off: simm.into(),
            },
            0x08 => I::Tgei { rs, imm: simm },
            0x09 => I::Tgeiu { rs, imm: simm },
            0x0a => I::Tlti { rs, imm: simm },
            0x0b => I::Tltiu { rs, imm: simm },
            0x0c => I::Teqi { rs, imm: simm },
            0x0e => I::Tnei { rs, imm: simm },
            _ => I::Invalid(word),
        },
        0x02 => I::J {
            target: word & 0x03ff_ffff,
        },
        0x03 => I::Jal {
            target: word & 0x03ff_ffff,
        },
        0x04 => I::Beq {
            rs,
            rt,
            off: simm.into(),
        },
        0x05 => I::Bne {
            rs,
            rt,
            off: simm.into(),
        },
        0x06 if rt == 0 => I::Blez {
            rs,
            off: simm.into(),
        },
        0x07 if rt == 0 => I::Bgtz {
            rs,
            off: simm.into(),
        },
        0x08 => I::Addi { rt, rs, imm: simm },
        0x09 => I::Addiu { rt, rs, imm: simm },
        0x0a => I::Slti { rt, rs, imm: simm },
        0x0b => I::Sltiu { rt, rs, imm: simm },
        0x0c => I::Andi { rt, rs, imm },
        0x0d => I::Ori { rt, rs, imm },
        0x0e => I::Xori { rt, rs, imm },
        0x0f if rs == 0 => I::Lui { rt, imm },
        0x10 => decode_cop0(word, rs, rt, rd),
        0x11 => decode_cop1(word, rs, rt, rd, sa, funct),
        0x1c => decode_special2(word, rs, rt, rd, sa, funct),
        0x20 => I::Lb {
            rt,
            base: rs,
            off: simm,
        },
        0x21 => I::Lh {
            rt,
            base: rs,
            off: simm,
        },
        0x22 => I::Lwl {
            rt,
            base: rs,
            off: simm,
        },
        0x23 => I::Lw {
            rt,
            base: rs,
            off: simm,
        },
        0x24 => I::Lbu {
            rt,
            base: rs,
            off: simm,
        },
        0x25 => I::Lhu {
            rt,
            base: rs,
            off: simm,
        },
        0x26 => I::Lwr {
            rt,
            base: rs,
            off: simm,
        },
        0x28 => I::Sb {
            rt,
            base: rs,
            off: simm,
        },
        0x29 => I::Sh {
            rt,
            base: rs,
            off: simm,
        },
        0x2a => I::Swl {
            rt,
            base: rs,
            off: simm,
        },
        0x2b => I::Sw {
            rt,
            base: rs,
            off: simm,
        },
        0x2e => I::Swr {
            rt,
            base: rs,
            off: simm,
        },
        0x30 => I::Ll {
            rt,
            base: rs,
            off: simm,
        },
        0x31 => I::Lwc1 {
            ft: rt,
            base: rs,
            off: simm,
        },
        0x35 => I::Ldc1 {
            ft: rt,
            base: rs,
            off: simm,
        },
        0x38 => I::Sc {
            rt,
            base: rs,
            off: simm,
        },
        0x39 => I::Swc1 {
            ft: rt,
            base: rs,
            off: simm,
        },
        0x3d => I::Sdc1 {
            ft: rt,
            base: rs,
            off: simm,
        },
        _ => I::Invalid(word),
    }
}

fn decode_special(word: u32, rs: u8, rt: u8, rd: u8, sa: u8, funct: u32) -> Instruction {
    use Instruction as I;
    // Fields MARS's masks require to be zero; a word with them set is no MARS instruction.
    let zero_sa = sa == 0;
    let r3 = |f: fn(u8, u8, u8) -> Instruction| {
        if zero_sa {
            f(rd, rs, rt)
        } else {
            I::Invalid(word)
        }
    };
    let two = |f: fn(u8, u8) -> Instruction| {
        if rd == 0 && zero_sa {
            f(rs, rt)
        } else {
            I::Invalid(word)
        }
    };
    match funct {
        0x00 if rs == 0 => I::Sll { rd, rt, sa },
        0x01 if zero_sa && rt & 2 == 0 => I::MovCc {
            rd,
            rs,
            cc: rt >> 2,
            on_true: rt & 1 != 0,
        },
        0x02 if rs == 0 => I::Srl { rd, rt, sa },
        0x03 if rs == 0 => I::Sra { rd, rt, sa },
        0x04 => r3(|rd, rs, rt| I::Sllv { rd, rt, rs }),
        0x06 => r3(|rd, rs, rt| I::Srlv { rd, rt, rs }),
        0x07 => r3(|rd, rs, rt| I::Srav { rd, rt, rs }),
        0x08 if rt == 0 && rd == 0 && zero_sa => I::Jr { rs },
        0x09 if rt == 0 && zero_sa => I::Jalr { rd, rs },
        0x0a => r3(|rd, rs, rt| I::Movz { rd, rs, rt }),
        0x0b => r3(|rd, rs, rt| I::Movn { rd, rs, rt }),
        0x0c if word >> 6 == 0 => I::Syscall,
        0x0d => I::Break {
            code: (word >> 6) & 0xf_ffff,
        },
        0x10 if rs == 0 && rt == 0 && zero_sa => I::Mfhi { rd },
        0x11 if rt == 0 && rd == 0 && zero_sa => I::Mthi { rs },
        0x12 if rs == 0 && rt == 0 && zero_sa => I::Mflo { rd },
        0x13 if rt == 0 && rd == 0 && zero_sa => I::Mtlo { rs },
        0x18 => two(|rs, rt| I::Mult { rs, rt }),
        0x19 => two(|rs, rt| I::Multu { rs, rt }),
        0x1a => two(|rs, rt| I::Div { rs, rt }),
        0x1b => two(|rs, rt| I::Divu { rs, rt }),
        0x20 => r3(|rd, rs, rt| I::Add { rd, rs, rt }),
        0x21 => r3(|rd, rs, rt| I::Addu { rd, rs, rt }),
        0x22 => r3(|rd, rs, rt| I::Sub { rd, rs, rt }),
        0x23 => r3(|rd, rs, rt| I::Subu { rd, rs, rt }),
        0x24 => r3(|rd, rs, rt| I::And { rd, rs, rt }),
        0x25 => r3(|rd, rs, rt| I::Or { rd, rs, rt }),
        0x26 => r3(|rd, rs, rt| I::Xor { rd, rs, rt }),
        0x27 => r3(|rd, rs, rt| I::Nor { rd, rs, rt }),
        0x2a => r3(|rd, rs, rt| I::Slt { rd, rs, rt }),
        0x2b => r3(|rd, rs, rt| I::Sltu { rd, rs, rt }),
        // Trap fields 6..15 hold a code MARS ignores.
        0x30 => I::Tge { rs, rt },
        0x31 => I::Tgeu { rs, rt },
        0x32 => I::Tlt { rs, rt },
        0x33 => I::Tltu { rs, rt },
        0x34 => I::Teq { rs, rt },
        0x36 => I::Tne { rs, rt },
        _ => I::Invalid(word),
    }
}

fn decode_special2(word: u32, rs: u8, rt: u8, rd: u8, sa: u8, funct: u32) -> Instruction {
    use Instruction as I;
    if sa != 0 {
        return I::Invalid(word);
    }
    match funct {
        0x00 if rd == 0 => I::Madd { rs, rt },
        0x01 if rd == 0 => I::Maddu { rs, rt },
        0x02 => I::Mul { rd, rs, rt },
        0x04 if rd == 0 => I::Msub { rs, rt },
        0x05 if rd == 0 => I::Msubu { rs, rt },
        // MARS encodes rt as 0, MIPS32 as a copy of rd: accept both.
        0x20 if rt == 0 || rt == rd => I::Clz { rd, rs },
        0x21 if rt == 0 || rt == rd => I::Clo { rd, rs },
        _ => I::Invalid(word),
    }
}

fn decode_cop0(word: u32, rs: u8, rt: u8, rd: u8) -> Instruction {
    use Instruction as I;
    match rs {
        0x00 if word & 0x7ff == 0 => I::Mfc0 { rt, rd },
        0x04 if word & 0x7ff == 0 => I::Mtc0 { rt, rd },
        _ if word == 0x4200_0018 => I::Eret,
        _ => I::Invalid(word),
    }
}

fn decode_cop1(word: u32, rs: u8, rt: u8, rd: u8, sa: u8, funct: u32) -> Instruction {
    use Instruction as I;
    let (fd, fs, ft) = (sa, rd, rt);
    match rs {
        0x00 if word & 0x7ff == 0 => return I::Mfc1 { rt, fs },
        0x04 if word & 0x7ff == 0 => return I::Mtc1 { rt, fs },
        0x08 if rt & 2 == 0 => {
            return I::Bc1 {
                cc: rt >> 2,
                on_true: rt & 1 != 0,
                off: (word as u16 as i16).into(),
            }
        }
        0x10 | 0x11 => {}
        0x14 => {
            return match funct {
                0x20 if ft == 0 => I::FpUnary {
                    op: FpUnary::CvtS,
                    fmt: FpFmt::W,
                    fd,
                    fs,
                },
                0x21 if ft == 0 => I::FpUnary {
                    op: FpUnary::CvtD,
                    fmt: FpFmt::W,
                    fd,
                    fs,
                },
                _ => I::Invalid(word),
            }
        }
        _ => return I::Invalid(word),
    }
    let double = rs == 0x11;
    let fmt = if double { FpFmt::D } else { FpFmt::S };
    let arith = |op| I::FpArith {
        op,
        double,
        fd,
        fs,
        ft,
    };
    let unary = |op| {
        if ft == 0 {
            I::FpUnary { op, fmt, fd, fs }
        } else {
            I::Invalid(word)
        }
    };
    let cmp = |cond| {
        if fd & 3 == 0 {
            I::FpCmp {
                cond,
                double,
                cc: fd >> 2,
                fs,
                ft,
            }
        } else {
            I::Invalid(word)
        }
    };
    match funct {
        0x00 => arith(FpArith::Add),
        0x01 => arith(FpArith::Sub),
        0x02 => arith(FpArith::Mul),
        0x03 => arith(FpArith::Div),
        0x04 => unary(FpUnary::Sqrt),
        0x05 => unary(FpUnary::Abs),
        0x06 => unary(FpUnary::Mov),
        0x07 => unary(FpUnary::Neg),
        0x0c => unary(FpUnary::RoundW),
        0x0d => unary(FpUnary::TruncW),
        0x0e => unary(FpUnary::CeilW),
        0x0f => unary(FpUnary::FloorW),
        0x11 if ft & 2 == 0 => I::FpMovCc {
            double,
            fd,
            fs,
            cc: ft >> 2,
            on_true: ft & 1 != 0,
        },
        0x12 => I::FpMovReg {
            double,
            fd,
            fs,
            rt,
            nonzero: false,
        },
        0x13 => I::FpMovReg {
            double,
            fd,
            fs,
            rt,
            nonzero: true,
        },
        0x20 if double => unary(FpUnary::CvtS),
        0x21 if !double => unary(FpUnary::CvtD),
        0x24 => unary(FpUnary::CvtW),
        0x32 => cmp(FpCond::Eq),
        0x3c => cmp(FpCond::Lt),
        0x3e => cmp(FpCond::Le),
        _ => I::Invalid(word),
    }
}
