//! The one MIPS32 decoder: every basic instruction MARS 4.5 knows (155 forms, including the
//! coprocessor-1 set, traps and `eret`), turned into a small `Copy` value that the cpu executes
//! without looking at the word again, that `Machine::disassemble` prints, and that the debugger's
//! `monitor disas` prints.
//!
//! Encodings follow MARS's `InstructionSet` masks. Where MARS differs from real MIPS32 (`clz`/`clo`
//! leave the rt field zero), both spellings decode, so binutils output runs too.

use std::fmt::Write;

use asmdbg_core::{Flow, SymbolTable};

/// MARS names of the general-purpose registers, by number.
pub const GPR_NAMES: [&str; 32] = [
    "zero", "at", "v0", "v1", "a0", "a1", "a2", "a3", "t0", "t1", "t2", "t3", "t4", "t5", "t6",
    "t7", "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "t8", "t9", "k0", "k1", "gp", "sp", "fp",
    "ra",
];

/// Two-operand FP arithmetic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FpArith {
    Add,
    Sub,
    Mul,
    Div,
}

/// One-operand FP operations (`fd <- op(fs)`), each with its source format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FpUnary {
    Sqrt,
    Abs,
    Neg,
    Mov,
    RoundW,
    TruncW,
    CeilW,
    FloorW,
    /// Convert to single.
    CvtS,
    /// Convert to double.
    CvtD,
    /// Convert to word.
    CvtW,
}

/// Source format of an FP operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FpFmt {
    S,
    D,
    W,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FpCond {
    Eq,
    Lt,
    Le,
}

/// A decoded instruction. Register fields are 0..=31 by construction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Instruction {
    /// No instruction at this text address (execution ends here, as MARS does).
    Empty,
    /// A word no MARS basic instruction matches.
    Invalid(u32),
    /// Never produced by [`decode`]: the cpu puts it over instructions that have a breakpoint in
    /// the copy of the code its run loop executes.
    DebugStop,
    // R-type arithmetic and logic: rd <- rs op rt.
    Add {
        rd: u8,
        rs: u8,
        rt: u8,
    },
    Addu {
        rd: u8,
        rs: u8,
        rt: u8,
    },
    Sub {
        rd: u8,
        rs: u8,
        rt: u8,
    },
    Subu {
        rd: u8,
        rs: u8,
        rt: u8,
    },
    And {
        rd: u8,
        rs: u8,
        rt: u8,
    },
    Or {
        rd: u8,
        rs: u8,
        rt: u8,
    },
    Xor {
        rd: u8,
        rs: u8,
        rt: u8,
    },
    Nor {
        rd: u8,
        rs: u8,
        rt: u8,
    },
    Slt {
        rd: u8,
        rs: u8,
        rt: u8,
    },
    Sltu {
        rd: u8,
        rs: u8,
        rt: u8,
    },
    Movn {
        rd: u8,
        rs: u8,
        rt: u8,
    },
    Movz {
        rd: u8,
        rs: u8,
        rt: u8,
    },
    Mul {
        rd: u8,
        rs: u8,
        rt: u8,
    },
    /// Variable shifts: rd <- rt shifted by rs.
    Sllv {
        rd: u8,
        rt: u8,
        rs: u8,
    },
    Srlv {
        rd: u8,
        rt: u8,
        rs: u8,
    },
    Srav {
        rd: u8,
        rt: u8,
        rs: u8,
    },
    Sll {
        rd: u8,
        rt: u8,
        sa: u8,
    },
    Srl {
        rd: u8,
        rt: u8,
        sa: u8,
    },
    Sra {
        rd: u8,
        rt: u8,
        sa: u8,
    },
    Mult {
        rs: u8,
        rt: u8,
    },
    Multu {
        rs: u8,
        rt: u8,
    },
    Div {
        rs: u8,
        rt: u8,
    },
    Divu {
        rs: u8,
        rt: u8,
    },
    Madd {
        rs: u8,
        rt: u8,
    },
    Maddu {
        rs: u8,
        rt: u8,
    },
    Msub {
        rs: u8,
        rt: u8,
    },
    Msubu {
        rs: u8,
        rt: u8,
    },
    Mfhi {
        rd: u8,
    },
    Mflo {
        rd: u8,
    },
    Mthi {
        rs: u8,
    },
    Mtlo {
        rs: u8,
    },
    Clz {
        rd: u8,
        rs: u8,
    },
    Clo {
        rd: u8,
        rs: u8,
    },
    /// `movf`/`movt`: rd <- rs if FP flag `cc` equals `on_true`.
    MovCc {
        rd: u8,
        rs: u8,
        cc: u8,
        on_true: bool,
    },
    Jr {
        rs: u8,
    },
    Jalr {
        rd: u8,
        rs: u8,
    },
    Syscall,
    /// `break code`; code 0 is MARS's plain `break` (its message says "no code given").
    Break {
        code: u32,
    },
    Teq {
        rs: u8,
        rt: u8,
    },
    Tne {
        rs: u8,
        rt: u8,
    },
    Tge {
        rs: u8,
        rt: u8,
    },
    Tgeu {
        rs: u8,
        rt: u8,
    },
    Tlt {
        rs: u8,
        rt: u8,
    },
    Tltu {
        rs: u8,
        rt: u8,
    },
    Teqi {
        rs: u8,
        imm: i16,
    },
    Tnei {
        rs: u8,
        imm: i16,
    },
    Tgei {
        rs: u8,
        imm: i16,
    },
    Tgeiu {
        rs: u8,
        imm: i16,
    },
    Tlti {
        rs: u8,
        imm: i16,
    },
    Tltiu {
        rs: u8,
        imm: i16,
    },
    // I-type arithmetic.
    Addi {
        rt: u8,
        rs: u8,
        imm: i16,
    },
    Addiu {
        rt: u8,
        rs: u8,
        imm: i16,
    },
    Slti {
        rt: u8,
        rs: u8,
        imm: i16,
    },
    Sltiu {
        rt: u8,
        rs: u8,
        imm: i16,
    },
    Andi {
        rt: u8,
        rs: u8,
        imm: u16,
    },
    Ori {
        rt: u8,
        rs: u8,
        imm: u16,
    },
    Xori {
        rt: u8,
        rs: u8,
        imm: u16,
    },
    Lui {
        rt: u8,
        imm: u16,
    },
    // Branches: target = address of the branch + 4 + 4 * off.
    Beq {
        rs: u8,
        rt: u8,
        off: i16,
    },
    Bne {
        rs: u8,
        rt: u8,
        off: i16,
    },
    Blez {
        rs: u8,
        off: i16,
    },
    Bgtz {
        rs: u8,
        off: i16,
    },
    Bltz {
        rs: u8,
        off: i16,
    },
    Bgez {
        rs: u8,
        off: i16,
    },
    Bltzal {
        rs: u8,
        off: i16,
    },
    Bgezal {
        rs: u8,
        off: i16,
    },
    Bc1 {
        cc: u8,
        on_true: bool,
        off: i16,
    },
    /// 26-bit word index within the current 256 MB region.
    J {
        target: u32,
    },
    Jal {
        target: u32,
    },
    // Loads and stores: address = base + off.
    Lb {
        rt: u8,
        base: u8,
        off: i16,
    },
    Lbu {
        rt: u8,
        base: u8,
        off: i16,
    },
    Lh {
        rt: u8,
        base: u8,
        off: i16,
    },
    Lhu {
        rt: u8,
        base: u8,
        off: i16,
    },
    Lw {
        rt: u8,
        base: u8,
        off: i16,
    },
    Ll {
        rt: u8,
        base: u8,
        off: i16,
    },
    Lwl {
        rt: u8,
        base: u8,
        off: i16,
    },
    Lwr {
        rt: u8,
        base: u8,
        off: i16,
    },
    Sb {
        rt: u8,
        base: u8,
        off: i16,
    },
    Sh {
        rt: u8,
        base: u8,
        off: i16,
    },
    Sw {
        rt: u8,
        base: u8,
        off: i16,
    },
    Sc {
        rt: u8,
        base: u8,
        off: i16,
    },
    Swl {
        rt: u8,
        base: u8,
        off: i16,
    },
    Swr {
        rt: u8,
        base: u8,
        off: i16,
    },
    Lwc1 {
        ft: u8,
        base: u8,
        off: i16,
    },
    Swc1 {
        ft: u8,
        base: u8,
        off: i16,
    },
    Ldc1 {
        ft: u8,
        base: u8,
        off: i16,
    },
    Sdc1 {
        ft: u8,
        base: u8,
        off: i16,
    },
    // Coprocessors.
    Mfc0 {
        rt: u8,
        rd: u8,
    },
    Mtc0 {
        rt: u8,
        rd: u8,
    },
    Eret,
    Mfc1 {
        rt: u8,
        fs: u8,
    },
    Mtc1 {
        rt: u8,
        fs: u8,
    },
    FpArith {
        op: FpArith,
        double: bool,
        fd: u8,
        fs: u8,
        ft: u8,
    },
    FpUnary {
        op: FpUnary,
        fmt: FpFmt,
        fd: u8,
        fs: u8,
    },
    FpCmp {
        cond: FpCond,
        double: bool,
        cc: u8,
        fs: u8,
        ft: u8,
    },
    /// `movf.fmt`/`movt.fmt`.
    FpMovCc {
        double: bool,
        fd: u8,
        fs: u8,
        cc: u8,
        on_true: bool,
    },
    /// `movn.fmt` (`nonzero`) / `movz.fmt`.
    FpMovReg {
        double: bool,
        fd: u8,
        fs: u8,
        rt: u8,
        nonzero: bool,
    },
}

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
            0x00 => I::Bltz { rs, off: simm },
            0x01 => I::Bgez { rs, off: simm },
            0x10 => I::Bltzal { rs, off: simm },
            0x11 => I::Bgezal { rs, off: simm },
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
        0x04 => I::Beq { rs, rt, off: simm },
        0x05 => I::Bne { rs, rt, off: simm },
        0x06 if rt == 0 => I::Blez { rs, off: simm },
        0x07 if rt == 0 => I::Bgtz { rs, off: simm },
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
                off: word as u16 as i16,
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

impl Instruction {
    /// Where control goes after this instruction at `addr`, ignoring delay slots. Conditional
    /// calls (`bgezal`, `bltzal`) are calls; `eret` returns from the exception handler;
    /// `syscall` and the conditional traps go on; `break` and words the machine rejects stop.
    pub fn flow(self, addr: u32) -> Flow {
        use Instruction as I;
        let rel = |off: i16| u64::from(branch_target(addr, off));
        match self {
            I::Beq { off, .. }
            | I::Bne { off, .. }
            | I::Blez { off, .. }
            | I::Bgtz { off, .. }
            | I::Bltz { off, .. }
            | I::Bgez { off, .. }
            | I::Bc1 { off, .. } => Flow::Branch { target: rel(off) },
            I::Bltzal { off, .. } | I::Bgezal { off, .. } => Flow::Call {
                target: Some(rel(off)),
            },
            I::J { target } => Flow::Jump {
                target: Some(u64::from(jump_target(addr, target))),
            },
            I::Jal { target } => Flow::Call {
                target: Some(u64::from(jump_target(addr, target))),
            },
            I::Jr { rs: 31 } | I::Eret => Flow::Return,
            I::Jr { .. } => Flow::Jump { target: None },
            I::Jalr { .. } => Flow::Call { target: None },
            I::Break { .. } | I::Invalid(_) | I::Empty | I::DebugStop => Flow::Stop,
            _ => Flow::Next,
        }
    }

    /// The machine's delay-slot rule (`--delay-slots`): every branch, jump and call runs the
    /// next instruction before it takes effect; `eret` does not.
    pub fn has_delay_slot(self) -> bool {
        self.flow(0).transfers() && self != Instruction::Eret
    }
}

/// gdb's rule, not the machine's: gdb 13's `mips32_instruction_has_delay_slot` says the word
/// after this one is a delay slot, so gdb moves a breakpoint there back onto this instruction
/// (see targets/mips/src/elf.rs). For what MARS decodes that is [`Instruction::has_delay_slot`];
/// gdb also knows encodings MARS does not (branch-likely, `jalx`, `bc1any2/4`, `bposge`), so
/// for an undecodable word its own test on the raw fields applies.
pub fn gdb_assumes_delay_slot(instr: &Instruction) -> bool {
    match *instr {
        Instruction::Invalid(word) => {
            let op = word >> 26;
            let rs = (word >> 21) & 31;
            let rt = (word >> 16) & 31;
            match op {
                0 => matches!(word & 63, 8 | 9),
                1 => (rt & 0xc) == 0 || ((rt & 0x1e) == 0x1c && rs == 0),
                2..=7 | 20..=23 | 29 => true,
                17 => rs == 8 || ((rs == 9 || rs == 10) && (rt & 2) == 0),
                _ => false,
            }
        }
        other => other.has_delay_slot(),
    }
}

/// Target of a branch at `addr` with word offset `off`.
#[inline(always)]
pub fn branch_target(addr: u32, off: i16) -> u32 {
    addr.wrapping_add(4).wrapping_add((off as i32 as u32) << 2)
}

/// Target of `j`/`jal` at `addr`.
#[inline(always)]
pub fn jump_target(addr: u32, target: u32) -> u32 {
    (addr.wrapping_add(4) & 0xf000_0000) | (target << 2)
}

fn gpr(r: u8) -> String {
    format!("${}", GPR_NAMES[(r & 31) as usize])
}

fn fpr(r: u8) -> String {
    format!("$f{}", r & 31)
}

fn code_addr(out: &mut String, addr: u32, symbols: Option<&SymbolTable>) {
    let _ = write!(out, "0x{addr:08x}");
    if let Some(sym) = symbols.and_then(|s| s.at(addr as u64).next()) {
        let _ = write!(out, " <{}>", sym.name);
    }
}

fn fp_suffix(double: bool) -> &'static str {
    if double {
        "d"
    } else {
        "s"
    }
}

/// The instruction `word` at `addr` in MARS notation (`addiu $v0,$zero,4`, `lw $t0,8($sp)`,
/// branch targets as absolute addresses with their label).
pub fn disassemble(word: u32, addr: u32, symbols: Option<&SymbolTable>) -> String {
    format_instruction(decode(word), addr, symbols)
}

/// Formats an already decoded instruction (see [`disassemble`]).
pub fn format_instruction(instr: Instruction, addr: u32, symbols: Option<&SymbolTable>) -> String {
    use Instruction as I;
    let r3 = |m: &str, a: u8, b: u8, c: u8| format!("{m} {},{},{}", gpr(a), gpr(b), gpr(c));
    let r2 = |m: &str, a: u8, b: u8| format!("{m} {},{}", gpr(a), gpr(b));
    let ri = |m: &str, a: u8, b: u8, i: i64| format!("{m} {},{},{i}", gpr(a), gpr(b));
    let mem = |m: &str, t: String, base: u8, off: i16| format!("{m} {t},{off}({})", gpr(base));
    let branch = |m: String, off: i16| {
        let mut s = m;
        code_addr(&mut s, branch_target(addr, off), symbols);
        s
    };
    match instr {
        I::Empty => "(no instruction)".to_string(),
        I::Invalid(w) => format!(".word 0x{w:08x}"),
        I::DebugStop => "(breakpoint)".to_string(),
        I::Sll {
            rd: 0,
            rt: 0,
            sa: 0,
        } => "nop".to_string(),
        I::Add { rd, rs, rt } => r3("add", rd, rs, rt),
        I::Addu { rd, rs, rt } => r3("addu", rd, rs, rt),
        I::Sub { rd, rs, rt } => r3("sub", rd, rs, rt),
        I::Subu { rd, rs, rt } => r3("subu", rd, rs, rt),
        I::And { rd, rs, rt } => r3("and", rd, rs, rt),
        I::Or { rd, rs, rt } => r3("or", rd, rs, rt),
        I::Xor { rd, rs, rt } => r3("xor", rd, rs, rt),
        I::Nor { rd, rs, rt } => r3("nor", rd, rs, rt),
        I::Slt { rd, rs, rt } => r3("slt", rd, rs, rt),
        I::Sltu { rd, rs, rt } => r3("sltu", rd, rs, rt),
        I::Movn { rd, rs, rt } => r3("movn", rd, rs, rt),
        I::Movz { rd, rs, rt } => r3("movz", rd, rs, rt),
        I::Mul { rd, rs, rt } => r3("mul", rd, rs, rt),
        I::Sllv { rd, rt, rs } => r3("sllv", rd, rt, rs),
        I::Srlv { rd, rt, rs } => r3("srlv", rd, rt, rs),
        I::Srav { rd, rt, rs } => r3("srav", rd, rt, rs),
        I::Sll { rd, rt, sa } => ri("sll", rd, rt, sa as i64),
        I::Srl { rd, rt, sa } => ri("srl", rd, rt, sa as i64),
        I::Sra { rd, rt, sa } => ri("sra", rd, rt, sa as i64),
        I::Mult { rs, rt } => r2("mult", rs, rt),
        I::Multu { rs, rt } => r2("multu", rs, rt),
        I::Div { rs, rt } => r2("div", rs, rt),
        I::Divu { rs, rt } => r2("divu", rs, rt),
        I::Madd { rs, rt } => r2("madd", rs, rt),
        I::Maddu { rs, rt } => r2("maddu", rs, rt),
        I::Msub { rs, rt } => r2("msub", rs, rt),
        I::Msubu { rs, rt } => r2("msubu", rs, rt),
        I::Mfhi { rd } => format!("mfhi {}", gpr(rd)),
        I::Mflo { rd } => format!("mflo {}", gpr(rd)),
        I::Mthi { rs } => format!("mthi {}", gpr(rs)),
        I::Mtlo { rs } => format!("mtlo {}", gpr(rs)),
        I::Clz { rd, rs } => r2("clz", rd, rs),
        I::Clo { rd, rs } => r2("clo", rd, rs),
        I::MovCc {
            rd,
            rs,
            cc,
            on_true,
        } => {
            let m = if on_true { "movt" } else { "movf" };
            format!("{m} {},{},{cc}", gpr(rd), gpr(rs))
        }
        I::Jr { rs } => format!("jr {}", gpr(rs)),
        I::Jalr { rd, rs } => r2("jalr", rd, rs),
        I::Syscall => "syscall".to_string(),
        I::Break { code: 0 } => "break".to_string(),
        I::Break { code } => format!("break {code}"),
        I::Teq { rs, rt } => r2("teq", rs, rt),
        I::Tne { rs, rt } => r2("tne", rs, rt),
        I::Tge { rs, rt } => r2("tge", rs, rt),
        I::Tgeu { rs, rt } => r2("tgeu", rs, rt),
        I::Tlt { rs, rt } => r2("tlt", rs, rt),
        I::Tltu { rs, rt } => r2("tltu", rs, rt),
        I::Teqi { rs, imm } => format!("teqi {},{imm}", gpr(rs)),
        I::Tnei { rs, imm } => format!("tnei {},{imm}", gpr(rs)),
        I::Tgei { rs, imm } => format!("tgei {},{imm}", gpr(rs)),
        I::Tgeiu { rs, imm } => format!("tgeiu {},{imm}", gpr(rs)),
        I::Tlti { rs, imm } => format!("tlti {},{imm}", gpr(rs)),
        I::Tltiu { rs, imm } => format!("tltiu {},{imm}", gpr(rs)),
        I::Addi { rt, rs, imm } => ri("addi", rt, rs, imm as i64),
        I::Addiu { rt, rs, imm } => ri("addiu", rt, rs, imm as i64),
        I::Slti { rt, rs, imm } => ri("slti", rt, rs, imm as i64),
        I::Sltiu { rt, rs, imm } => ri("sltiu", rt, rs, imm as i64),
        I::Andi { rt, rs, imm } => ri("andi", rt, rs, imm as i64),
        I::Ori { rt, rs, imm } => ri("ori", rt, rs, imm as i64),
        I::Xori { rt, rs, imm } => ri("xori", rt, rs, imm as i64),
        I::Lui { rt, imm } => format!("lui {},0x{imm:x}", gpr(rt)),
        I::Beq { rs, rt, off } => branch(format!("beq {},{},", gpr(rs), gpr(rt)), off),
        I::Bne { rs, rt, off } => branch(format!("bne {},{},", gpr(rs), gpr(rt)), off),
        I::Blez { rs, off } => branch(format!("blez {},", gpr(rs)), off),
        I::Bgtz { rs, off } => branch(format!("bgtz {},", gpr(rs)), off),
        I::Bltz { rs, off } => branch(format!("bltz {},", gpr(rs)), off),
        I::Bgez { rs, off } => branch(format!("bgez {},", gpr(rs)), off),
        I::Bltzal { rs, off } => branch(format!("bltzal {},", gpr(rs)), off),
        I::Bgezal { rs, off } => branch(format!("bgezal {},", gpr(rs)), off),
        I::Bc1 { cc, on_true, off } => {
            let m = if on_true { "bc1t" } else { "bc1f" };
            branch(format!("{m} {cc},"), off)
        }
        I::J { target } | I::Jal { target } => {
            let mut s = if matches!(instr, I::J { .. }) {
                "j ".to_string()
            } else {
                "jal ".to_string()
            };
            code_addr(&mut s, jump_target(addr, target), symbols);
            s
        }
        I::Lb { rt, base, off } => mem("lb", gpr(rt), base, off),
        I::Lbu { rt, base, off } => mem("lbu", gpr(rt), base, off),
        I::Lh { rt, base, off } => mem("lh", gpr(rt), base, off),
        I::Lhu { rt, base, off } => mem("lhu", gpr(rt), base, off),
        I::Lw { rt, base, off } => mem("lw", gpr(rt), base, off),
        I::Ll { rt, base, off } => mem("ll", gpr(rt), base, off),
        I::Lwl { rt, base, off } => mem("lwl", gpr(rt), base, off),
        I::Lwr { rt, base, off } => mem("lwr", gpr(rt), base, off),
        I::Sb { rt, base, off } => mem("sb", gpr(rt), base, off),
        I::Sh { rt, base, off } => mem("sh", gpr(rt), base, off),
        I::Sw { rt, base, off } => mem("sw", gpr(rt), base, off),
        I::Sc { rt, base, off } => mem("sc", gpr(rt), base, off),
        I::Swl { rt, base, off } => mem("swl", gpr(rt), base, off),
        I::Swr { rt, base, off } => mem("swr", gpr(rt), base, off),
        I::Lwc1 { ft, base, off } => mem("lwc1", fpr(ft), base, off),
        I::Swc1 { ft, base, off } => mem("swc1", fpr(ft), base, off),
        I::Ldc1 { ft, base, off } => mem("ldc1", fpr(ft), base, off),
        I::Sdc1 { ft, base, off } => mem("sdc1", fpr(ft), base, off),
        I::Mfc0 { rt, rd } => format!("mfc0 {},${rd}", gpr(rt)),
        I::Mtc0 { rt, rd } => format!("mtc0 {},${rd}", gpr(rt)),
        I::Eret => "eret".to_string(),
        I::Mfc1 { rt, fs } => format!("mfc1 {},{}", gpr(rt), fpr(fs)),
        I::Mtc1 { rt, fs } => format!("mtc1 {},{}", gpr(rt), fpr(fs)),
        I::FpArith {
            op,
            double,
            fd,
            fs,
            ft,
        } => {
            let m = match op {
                FpArith::Add => "add",
                FpArith::Sub => "sub",
                FpArith::Mul => "mul",
                FpArith::Div => "div",
            };
            format!(
                "{m}.{} {},{},{}",
                fp_suffix(double),
                fpr(fd),
                fpr(fs),
                fpr(ft)
            )
        }
        I::FpUnary { op, fmt, fd, fs } => {
            let src = match fmt {
                FpFmt::S => "s",
                FpFmt::D => "d",
                FpFmt::W => "w",
            };
            let m = match op {
                FpUnary::Sqrt => format!("sqrt.{src}"),
                FpUnary::Abs => format!("abs.{src}"),
                FpUnary::Neg => format!("neg.{src}"),
                FpUnary::Mov => format!("mov.{src}"),
                FpUnary::RoundW => format!("round.w.{src}"),
                FpUnary::TruncW => format!("trunc.w.{src}"),
                FpUnary::CeilW => format!("ceil.w.{src}"),
                FpUnary::FloorW => format!("floor.w.{src}"),
                FpUnary::CvtS => format!("cvt.s.{src}"),
                FpUnary::CvtD => format!("cvt.d.{src}"),
                FpUnary::CvtW => format!("cvt.w.{src}"),
            };
            format!("{m} {},{}", fpr(fd), fpr(fs))
        }
        I::FpCmp {
            cond,
            double,
            cc,
            fs,
            ft,
        } => {
            let c = match cond {
                FpCond::Eq => "eq",
                FpCond::Lt => "lt",
                FpCond::Le => "le",
            };
            format!("c.{c}.{} {cc},{},{}", fp_suffix(double), fpr(fs), fpr(ft))
        }
        I::FpMovCc {
            double,
            fd,
            fs,
            cc,
            on_true,
        } => {
            let m = if on_true { "movt" } else { "movf" };
            format!("{m}.{} {},{},{cc}", fp_suffix(double), fpr(fd), fpr(fs))
        }
        I::FpMovReg {
            double,
            fd,
            fs,
            rt,
            nonzero,
        } => {
            let m = if nonzero { "movn" } else { "movz" };
            format!(
                "{m}.{} {},{},{}",
                fp_suffix(double),
                fpr(fd),
                fpr(fs),
                gpr(rt)
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flow_of_branches_calls_returns_and_stops() {
        let flow = |word: u32, addr: u32| decode(word).flow(addr);
        // beq $t0, $t1, -2 at 0x00400010: conditional, to 0x0040000c.
        assert_eq!(
            flow(0x1109_fffe, 0x0040_0010),
            Flow::Branch {
                target: 0x0040_000c
            }
        );
        // j 0x00400020 and jal 0x00400040, within the pc's 256 MB region.
        assert_eq!(
            flow(0x0810_0008, 0x0040_0000),
            Flow::Jump {
                target: Some(0x0040_0020)
            }
        );
        assert_eq!(
            flow(0x0c10_0010, 0x0040_0000),
            Flow::Call {
                target: Some(0x0040_0040)
            }
        );
        // bgezal $t0, 4 links: a (conditional) call.
        assert_eq!(
            flow(0x0511_0004, 0x0040_0000),
            Flow::Call {
                target: Some(0x0040_0014)
            }
        );
        // jr $ra returns, jr $t0 jumps somewhere unknown, jalr $t0 calls it.
        assert_eq!(flow(0x03e0_0008, 0), Flow::Return);
        assert_eq!(flow(0x0100_0008, 0), Flow::Jump { target: None });
        assert_eq!(flow(0x0100_f809, 0), Flow::Call { target: None });
        assert_eq!(flow(0x4200_0018, 0), Flow::Return); // eret
        assert_eq!(flow(0x0000_000c, 0), Flow::Next); // syscall
        assert_eq!(flow(0x0000_000d, 0), Flow::Stop); // break
        assert_eq!(flow(0xffff_ffff, 0), Flow::Stop); // invalid
        assert_eq!(flow(0x2402_0004, 0), Flow::Next); // addiu
                                                      // The machine's delay slots follow transfers, not eret.
        assert!(decode(0x1109_fffe).has_delay_slot());
        assert!(decode(0x03e0_0008).has_delay_slot());
        assert!(!decode(0x4200_0018).has_delay_slot());
        assert!(!decode(0x0000_000c).has_delay_slot());
        // gdb's rule also covers encodings MARS does not decode (beql).
        assert!(matches!(decode(0x5109_0002), Instruction::Invalid(_)));
        assert!(gdb_assumes_delay_slot(&decode(0x5109_0002)));
        assert!(!gdb_assumes_delay_slot(&decode(0x4200_0018)));
    }

    #[test]
    fn decodes_common_words() {
        assert_eq!(
            decode(0x2402_0004),
            Instruction::Addiu {
                rt: 2,
                rs: 0,
                imm: 4
            }
        );
        assert_eq!(
            disassemble(0x2402_0004, 0x400000, None),
            "addiu $v0,$zero,4"
        );
        assert_eq!(disassemble(0x0000_000c, 0x400000, None), "syscall");
        assert_eq!(disassemble(0x8fa8_0008, 0x400000, None), "lw $t0,8($sp)");
        assert_eq!(disassemble(0x0000_0000, 0x400000, None), "nop");
        assert_eq!(
            disassemble(0x1000_ffff, 0x400004, None),
            "beq $zero,$zero,0x00400004"
        );
        assert_eq!(disassemble(0x0c10_0000, 0x400000, None), "jal 0x00400000");
        assert_eq!(disassemble(0x4200_0018, 0x400000, None), "eret");
        assert_eq!(disassemble(0xffff_ffff, 0x400000, None), ".word 0xffffffff");
    }

    #[test]
    fn instructions_stay_small_for_the_execution_cache() {
        assert!(std::mem::size_of::<Instruction>() <= 8);
    }

    #[test]
    fn clz_accepts_mars_and_mips32_encodings() {
        // MARS: rt = 0; binutils: rt = rd.
        assert_eq!(decode(0x7120_4020), Instruction::Clz { rd: 8, rs: 9 });
        assert_eq!(decode(0x7128_4020), Instruction::Clz { rd: 8, rs: 9 });
        assert!(matches!(decode(0x7127_4020), Instruction::Invalid(_)));
    }

    #[test]
    fn decodes_fp_forms() {
        // add.d $f2,$f4,$f6
        assert_eq!(disassemble(0x4626_2080, 0, None), "add.d $f2,$f4,$f6");
        // c.lt.s 1,$f0,$f1 ; bc1t 1,...
        assert_eq!(disassemble(0x4601_013c, 0, None), "c.lt.s 1,$f0,$f1");
        assert_eq!(disassemble(0x4505_0001, 0, None), "bc1t 1,0x00000008");
        assert_eq!(disassemble(0x4680_0820, 0, None), "cvt.s.w $f0,$f1");
        assert_eq!(disassemble(0x4402_0800, 0, None), "mfc1 $v0,$f1");
    }
}
