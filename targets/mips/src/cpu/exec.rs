//! Execution of one decoded instruction: integer arithmetic, branches and jumps (with MARS's
//! delayed branching when enabled), loads and stores through [`super::access`], coprocessor 0,
//! and dispatch to the FPU.

use asmdbg_core::AccessKind;

use crate::decode::Instruction;
use crate::decode::{branch_target, jump_target};

use super::fpu::compare;
use super::{exc, Cpu, Delay, Trap};

impl Cpu {
    /// A taken branch or jump: the next PC, or with delay slots the target registered for
    /// after the next instruction. A branch taken in another branch's delay slot keeps the
    /// first target but postpones it by one instruction, as MARS's `DelayedBranch.register`
    /// does: the instruction after the slot runs, then the first branch lands.
    #[inline(always)]
    pub(super) fn branch<const DELAY: bool>(&mut self, pc: u32, target: u32) -> u32 {
        if DELAY {
            if self.delay == Delay::None {
                self.delay_target = target;
            }
            self.delay = Delay::Registered;
            pc.wrapping_add(4)
        } else {
            target
        }
    }

    #[inline(always)]
    pub(super) fn link<const DELAY: bool>(&mut self, r: u8, pc: u32) {
        let offset = if DELAY { 8 } else { 4 };
        self.set_reg(r, pc.wrapping_add(offset));
    }

    #[inline(always)]
    /// Executes `instr` at `pc` and returns the next PC.
    pub(super) fn execute<const DELAY: bool>(
        &mut self,
        pc: u32,
        instr: Instruction,
    ) -> Result<u32, Trap> {
        use Instruction as I;
        match instr {
            I::Addu { rd, rs, rt } => self.set_reg(rd, self.reg(rs).wrapping_add(self.reg(rt))),
            I::Addiu { rt, rs, imm } => {
                self.set_reg(rt, self.reg(rs).wrapping_add(imm as i32 as u32))
            }
            I::Add { rd, rs, rt } => {
                let sum = (self.reg(rs) as i32)
                    .checked_add(self.reg(rt) as i32)
                    .ok_or_else(overflow)?;
                self.set_reg(rd, sum as u32);
            }
            I::Addi { rt, rs, imm } => {
                let sum = (self.reg(rs) as i32)
                    .checked_add(imm as i32)
                    .ok_or_else(overflow)?;
                self.set_reg(rt, sum as u32);
            }
            I::Sub { rd, rs, rt } => {
                let dif = (self.reg(rs) as i32)
                    .checked_sub(self.reg(rt) as i32)
                    .ok_or_else(overflow)?;
                self.set_reg(rd, dif as u32);
            }
            I::Subu { rd, rs, rt } => self.set_reg(rd, self.reg(rs).wrapping_sub(self.reg(rt))),
            I::And { rd, rs, rt } => self.set_reg(rd, self.reg(rs) & self.reg(rt)),
            I::Or { rd, rs, rt } => self.set_reg(rd, self.reg(rs) | self.reg(rt)),
            I::Xor { rd, rs, rt } => self.set_reg(rd, self.reg(rs) ^ self.reg(rt)),
            I::Nor { rd, rs, rt } => self.set_reg(rd, !(self.reg(rs) | self.reg(rt))),
            I::Slt { rd, rs, rt } => {
                self.set_reg(rd, ((self.reg(rs) as i32) < (self.reg(rt) as i32)) as u32)
            }
            I::Sltu { rd, rs, rt } => self.set_reg(rd, (self.reg(rs) < self.reg(rt)) as u32),
            I::Slti { rt, rs, imm } => {
                self.set_reg(rt, ((self.reg(rs) as i32) < imm as i32) as u32)
            }
            I::Sltiu { rt, rs, imm } => self.set_reg(rt, (self.reg(rs) < imm as i32 as u32) as u32),
            I::Andi { rt, rs, imm } => self.set_reg(rt, self.reg(rs) & imm as u32),
            I::Ori { rt, rs, imm } => self.set_reg(rt, self.reg(rs) | imm as u32),
            I::Xori { rt, rs, imm } => self.set_reg(rt, self.reg(rs) ^ imm as u32),
            I::Lui { rt, imm } => self.set_reg(rt, (imm as u32) << 16),
            I::Movn { rd, rs, rt } => {
                if self.reg(rt) != 0 {
                    self.set_reg(rd, self.reg(rs));
                }
            }
            I::Movz { rd, rs, rt } => {
                if self.reg(rt) == 0 {
                    self.set_reg(rd, self.reg(rs));
                }
            }
            I::MovCc {
                rd,
                rs,
                cc,
                on_true,
            } => {
                if self.flag(cc) == on_true {
                    self.set_reg(rd, self.reg(rs));
                }
            }
            I::Sll { rd, rt, sa } => self.set_reg(rd, self.reg(rt) << (sa & 31)),
            I::Srl { rd, rt, sa } => self.set_reg(rd, self.reg(rt) >> (sa & 31)),
            I::Sra { rd, rt, sa } => self.set_reg(rd, ((self.reg(rt) as i32) >> (sa & 31)) as u32),
            I::Sllv { rd, rt, rs } => self.set_reg(rd, self.reg(rt) << (self.reg(rs) & 31)),
            I::Srlv { rd, rt, rs } => self.set_reg(rd, self.reg(rt) >> (self.reg(rs) & 31)),
            I::Srav { rd, rt, rs } => {
                self.set_reg(rd, ((self.reg(rt) as i32) >> (self.reg(rs) & 31)) as u32)
            }
            I::Mul { rd, rs, rt } => {
                let product = (self.reg(rs) as i32 as i64).wrapping_mul(self.reg(rt) as i32 as i64);
                self.set_hilo(product as u64);
                self.set_reg(rd, product as u32);
            }
            I::Mult { rs, rt } => {
                let product = (self.reg(rs) as i32 as i64).wrapping_mul(self.reg(rt) as i32 as i64);
                self.set_hilo(product as u64);
            }
            I::Multu { rs, rt } => {
                let product = (self.reg(rs) as u64).wrapping_mul(self.reg(rt) as u64);
                self.set_hilo(product);
            }
            I::Madd { rs, rt } => {
                let product = (self.reg(rs) as i32 as i64).wrapping_mul(self.reg(rt) as i32 as i64);
                self.set_hilo(self.hilo().wrapping_add(product as u64));
            }
            I::Maddu { rs, rt } => {
                let product = (self.reg(rs) as u64).wrapping_mul(self.reg(rt) as u64);
                self.set_hilo(self.hilo().wrapping_add(product));
            }
            I::Msub { rs, rt } => {
                let product = (self.reg(rs) as i32 as i64).wrapping_mul(self.reg(rt) as i32 as i64);
                self.set_hilo(self.hilo().wrapping_sub(product as u64));
            }
            I::Msubu { rs, rt } => {
                let product = (self.reg(rs) as u64).wrapping_mul(self.reg(rt) as u64);
                self.set_hilo(self.hilo().wrapping_sub(product));
            }
            I::Div { rs, rt } => {
                // MARS: no exception and HI/LO untouched on a zero divisor.
                let (a, b) = (self.reg(rs) as i32, self.reg(rt) as i32);
                if b != 0 {
                    self.hi = a.wrapping_rem(b) as u32;
                    self.lo = a.wrapping_div(b) as u32;
                }
            }
            I::Divu { rs, rt } => {
                let (a, b) = (self.reg(rs), self.reg(rt));
                if b != 0 {
                    self.hi = a % b;
                    self.lo = a / b;
                }
            }
            I::Mfhi { rd } => self.set_reg(rd, self.hi),
            I::Mflo { rd } => self.set_reg(rd, self.lo),
            I::Mthi { rs } => self.hi = self.reg(rs),
            I::Mtlo { rs } => self.lo = self.reg(rs),
            I::Clz { rd, rs } => self.set_reg(rd, self.reg(rs).leading_zeros()),
            I::Clo { rd, rs } => self.set_reg(rd, self.reg(rs).leading_ones()),
            I::Beq { rs, rt, off } => {
                if self.reg(rs) == self.reg(rt) {
                    return Ok(self.branch::<DELAY>(pc, branch_target(pc, off)));
                }
            }
            I::Bne { rs, rt, off } => {
                if self.reg(rs) != self.reg(rt) {
                    return Ok(self.branch::<DELAY>(pc, branch_target(pc, off)));
                }
            }
            I::Blez { rs, off } => {
                if self.reg(rs) as i32 <= 0 {
                    return Ok(self.branch::<DELAY>(pc, branch_target(pc, off)));
                }
            }
            I::Bgtz { rs, off } => {
                if self.reg(rs) as i32 > 0 {
                    return Ok(self.branch::<DELAY>(pc, branch_target(pc, off)));
                }
            }
            I::Bltz { rs, off } => {
                if (self.reg(rs) as i32) < 0 {
                    return Ok(self.branch::<DELAY>(pc, branch_target(pc, off)));
                }
            }
            I::Bgez { rs, off } => {
                if self.reg(rs) as i32 >= 0 {
                    return Ok(self.branch::<DELAY>(pc, branch_target(pc, off)));
                }
            }
            I::Bltzal { rs, off } => {
                if (self.reg(rs) as i32) < 0 {
                    self.link::<DELAY>(31, pc);
                    return Ok(self.branch::<DELAY>(pc, branch_target(pc, off)));
                }
            }
            I::Bgezal { rs, off } => {
                if self.reg(rs) as i32 >= 0 {
                    self.link::<DELAY>(31, pc);
                    return Ok(self.branch::<DELAY>(pc, branch_target(pc, off)));
                }
            }
            I::Bc1 { cc, on_true, off } => {
                if self.flag(cc) == on_true {
                    return Ok(self.branch::<DELAY>(pc, branch_target(pc, off)));
                }
            }
            I::J { target } => return Ok(self.branch::<DELAY>(pc, jump_target(pc, target))),
            I::Jal { target } => {
                self.link::<DELAY>(31, pc);
                return Ok(self.branch::<DELAY>(pc, jump_target(pc, target)));
            }
            I::Jr { rs } => return Ok(self.branch::<DELAY>(pc, self.reg(rs))),
            I::Jalr { rd, rs } => {
                // MARS links first, then reads the target register.
                self.link::<DELAY>(rd, pc);
                return Ok(self.branch::<DELAY>(pc, self.reg(rs)));
            }
            I::Lw { rt, base, off } | I::Ll { rt, base, off } => {
                let v = self.load_u32(self.ea(base, off))?;
                self.set_reg(rt, v);
            }
            I::Lb { rt, base, off } => {
                let v = self.load_u8(self.ea(base, off))?;
                self.set_reg(rt, v as i8 as i32 as u32);
            }
            I::Lbu { rt, base, off } => {
                let v = self.load_u8(self.ea(base, off))?;
                self.set_reg(rt, v as u32);
            }
            I::Lh { rt, base, off } => {
                let v = self.load_u16(self.ea(base, off))?;
                self.set_reg(rt, v as i16 as i32 as u32);
            }
            I::Lhu { rt, base, off } => {
                let v = self.load_u16(self.ea(base, off))?;
                self.set_reg(rt, v as u32);
            }
            I::Sw { rt, base, off } => self.store_u32(self.ea(base, off), self.reg(rt))?,
            I::Sc { rt, base, off } => {
                self.store_u32(self.ea(base, off), self.reg(rt))?;
                self.set_reg(rt, 1);
            }
            I::Sh { rt, base, off } => self.store_u16(self.ea(base, off), self.reg(rt) as u16)?,
            I::Sb { rt, base, off } => self.store_u8(self.ea(base, off), self.reg(rt) as u8)?,
            I::Lwl { rt, base, off } => {
                let addr = self.ea(base, off);
                let n = addr & 3;
                self.watch_range(addr.wrapping_sub(n), n as u64 + 1, AccessKind::Read)?;
                let mut value = self.reg(rt);
                for i in 0..=n {
                    let byte = self.load_u8(addr.wrapping_sub(i))?;
                    value = set_byte(value, 3 - i, byte);
                }
                self.set_reg(rt, value);
            }
            I::Lwr { rt, base, off } => {
                let addr = self.ea(base, off);
                let n = 3 - (addr & 3);
                self.watch_range(addr, n as u64 + 1, AccessKind::Read)?;
                let mut value = self.reg(rt);
                for i in 0..=n {
                    let byte = self.load_u8(addr.wrapping_add(i))?;
                    value = set_byte(value, i, byte);
                }
                self.set_reg(rt, value);
            }
            I::Swl { rt, base, off } => {
                let addr = self.ea(base, off);
                let n = addr & 3;
                self.watch_range(addr.wrapping_sub(n), n as u64 + 1, AccessKind::Write)?;
                let source = self.reg(rt);
                for i in 0..=n {
                    self.store_u8(addr.wrapping_sub(i), (source >> (8 * (3 - i))) as u8)?;
                }
            }
            I::Swr { rt, base, off } => {
                let addr = self.ea(base, off);
                let n = 3 - (addr & 3);
                self.watch_range(addr, n as u64 + 1, AccessKind::Write)?;
                let source = self.reg(rt);
                for i in 0..=n {
                    self.store_u8(addr.wrapping_add(i), (source >> (8 * i)) as u8)?;
                }
            }
            I::Lwc1 { ft, base, off } => {
                let v = self.load_u32(self.ea(base, off))?;
                self.fpr[(ft & 31) as usize] = v;
            }
            I::Swc1 { ft, base, off } => {
                self.store_u32(self.ea(base, off), self.fpr[(ft & 31) as usize])?
            }
            I::Ldc1 { ft, base, off } => {
                if ft & 1 != 0 {
                    return Err(Trap::even("first register must be even-numbered"));
                }
                let addr = self.ea(base, off);
                if addr & 7 != 0 {
                    return Err(Trap::address(
                        exc::ADDRESS_LOAD,
                        "address not aligned on doubleword boundary ",
                        addr,
                    ));
                }
                self.watch_range(addr, 8, AccessKind::Read)?;
                let low = self.load_u32(addr)?;
                let high = self.load_u32(addr.wrapping_add(4))?;
                self.fpr[(ft & 31) as usize] = low;
                self.fpr[((ft & 31) + 1) as usize & 31] = high;
            }
            I::Sdc1 { ft, base, off } => {
                if ft & 1 != 0 {
                    return Err(Trap::even("first register must be even-numbered"));
                }
                let addr = self.ea(base, off);
                if addr & 7 != 0 {
                    return Err(Trap::address(
                        exc::ADDRESS_STORE,
                        "address not aligned on doubleword boundary ",
                        addr,
                    ));
                }
                self.watch_range(addr, 8, AccessKind::Write)?;
                self.store_u32(addr, self.fpr[(ft & 31) as usize])?;
                self.store_u32(
                    addr.wrapping_add(4),
                    self.fpr[((ft & 31) + 1) as usize & 31],
                )?;
            }
            I::Syscall => syscall_trap()?,
            I::Break { code } => {
                let message = if code == 0 {
                    "break instruction executed; no code given.".to_string()
                } else {
                    format!("break instruction executed; code = {code}.")
                };
                return Err(Trap::exception(exc::BREAKPOINT, message));
            }
            I::Teq { rs, rt } => trap_if(self.reg(rs) == self.reg(rt))?,
            I::Tne { rs, rt } => trap_if(self.reg(rs) != self.reg(rt))?,
            I::Tge { rs, rt } => trap_if(self.reg(rs) as i32 >= self.reg(rt) as i32)?,
            I::Tgeu { rs, rt } => trap_if(self.reg(rs) >= self.reg(rt))?,
            I::Tlt { rs, rt } => trap_if((self.reg(rs) as i32) < self.reg(rt) as i32)?,
            I::Tltu { rs, rt } => trap_if(self.reg(rs) < self.reg(rt))?,
            I::Teqi { rs, imm } => trap_if(self.reg(rs) as i32 == imm as i32)?,
            I::Tnei { rs, imm } => trap_if(self.reg(rs) as i32 != imm as i32)?,
            I::Tgei { rs, imm } => trap_if(self.reg(rs) as i32 >= imm as i32)?,
            I::Tgeiu { rs, imm } => trap_if(self.reg(rs) >= imm as i32 as u32)?,
            I::Tlti { rs, imm } => trap_if((self.reg(rs) as i32) < imm as i32)?,
            I::Tltiu { rs, imm } => trap_if(self.reg(rs) < imm as i32 as u32)?,
            I::Mfc0 { rt, rd } => self.set_reg(rt, self.cp0(rd)),
            I::Mtc0 { rt, rd } => self.set_cp0(rd, self.reg(rt)),
            I::Eret => {
                self.status &= !2;
                return Ok(self.epc);
            }
            I::Mfc1 { rt, fs } => self.set_reg(rt, self.fpr[(fs & 31) as usize]),
            I::Mtc1 { rt, fs } => self.fpr[(fs & 31) as usize] = self.reg(rt),
            I::FpArith {
                op,
                double,
                fd,
                fs,
                ft,
            } => self.fp_arith(op, double, fd, fs, ft)?,
            I::FpUnary { op, fmt, fd, fs } => self.fp_unary(op, fmt, fd, fs)?,
            I::FpCmp {
                cond,
                double,
                cc,
                fs,
                ft,
            } => {
                let result = if double {
                    if fs & 1 != 0 || ft & 1 != 0 {
                        return Err(Trap::even("both registers must be even-numbered"));
                    }
                    compare(cond, self.fp_double(fs), self.fp_double(ft))
                } else {
                    compare(cond, self.fp_single(fs), self.fp_single(ft))
                };
                self.set_flag(cc, result);
            }
            I::FpMovCc {
                double,
                fd,
                fs,
                cc,
                on_true,
            } => {
                if double && (fd & 1 != 0 || fs & 1 != 0) {
                    return Err(Trap::even("both registers must be even-numbered"));
                }
                if self.flag(cc) == on_true {
                    self.fp_move(double, fd, fs);
                }
            }
            I::FpMovReg {
                double,
                fd,
                fs,
                rt,
                nonzero,
            } => {
                if double && (fd & 1 != 0 || fs & 1 != 0) {
                    return Err(Trap::even("both registers must be even-numbered"));
                }
                if (self.reg(rt) != 0) == nonzero {
                    self.fp_move(double, fd, fs);
                }
            }
            I::Empty => return Err(Trap::Cliff),
            I::DebugStop => return Err(Trap::Breakpoint),
            I::Invalid(word) => {
                return Err(Trap::exception(
                    exc::RESERVED_INSTRUCTION,
                    format!("undefined instruction (0x{word:08x})"),
                ))
            }
        }
        Ok(pc.wrapping_add(4))
    }

    pub(super) fn hilo(&self) -> u64 {
        ((self.hi as u64) << 32) | self.lo as u64
    }

    pub(super) fn set_hilo(&mut self, value: u64) {
        self.hi = (value >> 32) as u32;
        self.lo = value as u32;
    }

    /// MARS's Coprocessor 0 has only BadVAddr (8), Status (12), Cause (13) and EPC (14).
    pub fn cp0(&self, reg: u8) -> u32 {
        match reg {
            8 => self.badvaddr,
            12 => self.status,
            13 => self.cause,
            14 => self.epc,
            _ => 0,
        }
    }

    pub fn set_cp0(&mut self, reg: u8, value: u32) {
        match reg {
            8 => self.badvaddr = value,
            12 => self.status = value,
            13 => self.cause = value,
            14 => self.epc = value,
            _ => {}
        }
    }
}

/// The trap that hands a `syscall` to the machine ([`Trap::Syscall`]): an opaque, cold call.
/// The dispatch loop's speed depends on how LLVM lays it out; with a plain `return Err(..)` in
/// this arm the shipped binary's MIPS loop (scripts/bench) lost 7-13%, with this call it runs as
/// fast as when the cpu performed syscalls itself.
#[cold]
#[inline(never)]
fn syscall_trap() -> Result<(), Trap> {
    std::hint::black_box(Err(Trap::Syscall))
}

#[cold]
pub(super) fn overflow() -> Trap {
    Trap::exception(exc::OVERFLOW, "arithmetic overflow")
}

#[inline(always)]
fn trap_if(cond: bool) -> Result<(), Trap> {
    if cond {
        Err(Trap::exception(exc::TRAP, "trap"))
    } else {
        Ok(())
    }
}

fn set_byte(value: u32, pos: u32, byte: u8) -> u32 {
    let shift = 8 * (pos & 3);
    (value & !(0xff << shift)) | ((byte as u32) << shift)
}
