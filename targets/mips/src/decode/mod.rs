//! The one MIPS32 decoder: every basic instruction MARS 4.5 knows (155 forms, including the
//! coprocessor-1 set, traps and `eret`), turned into a small `Copy` value that the cpu executes
//! without looking at the word again, that `Machine::disassemble` prints, and that the debugger's
//! `monitor disas` prints.
//!
//! Encodings follow MARS's `InstructionSet` masks. Where MARS differs from real MIPS32 (`clz`/`clo`
//! leave the rt field zero), both spellings decode, so binutils output runs too.
//!
//! The files: this one holds the [`Instruction`] value and its FP operation kinds;
//! `decoder.rs` turns a word into one ([`decode`]), `flow.rs` says where control goes after
//! it ([`Instruction::flow`], the delay-slot rules, branch and jump targets) and `disasm.rs`
//! prints it in MARS notation ([`disassemble`], [`format_instruction`]).

mod decoder;
mod disasm;
mod flow;

pub use decoder::decode;
pub use disasm::{disassemble, format_instruction};
pub use flow::{branch_target, gdb_assumes_delay_slot, jump_target};

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
    // Branches: target = address of the branch + 4 + 4 * off. The decoder gives the word's
    // 16-bit offset; a branch MARS assembled further than that keeps its whole displacement
    // (see `Cpu::load_far_branch`).
    Beq {
        rs: u8,
        rt: u8,
        off: i32,
    },
    Bne {
        rs: u8,
        rt: u8,
        off: i32,
    },
    Blez {
        rs: u8,
        off: i32,
    },
    Bgtz {
        rs: u8,
        off: i32,
    },
    Bltz {
        rs: u8,
        off: i32,
    },
    Bgez {
        rs: u8,
        off: i32,
    },
    Bltzal {
        rs: u8,
        off: i32,
    },
    Bgezal {
        rs: u8,
        off: i32,
    },
    Bc1 {
        cc: u8,
        on_true: bool,
        off: i32,
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

#[cfg(test)]
mod tests;
