//! The disassembler: a decoded instruction in MARS notation.

use std::fmt::Write;

use asmdbg_core::SymbolTable;

use super::{
    branch_target, decode, jump_target, FpArith, FpCond, FpFmt, FpUnary, Instruction, GPR_NAMES,
};

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
    let branch = |m: String, off: i32| {
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
