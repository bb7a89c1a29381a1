//! Execution: one instruction decoded from memory ([`Cpu::execute`], which `step` and the run
//! loop's ordinary path use, TRAP and RTI included), or a decoded block's ops
//! ([`Cpu::run_block`]) with the condition codes kept as the last value that set them.

use asmdbg_core::RunAccess;

use crate::decode::{decode_for, Instruction};

use super::blocks::{self, Op, Tail};
use super::pennsim::PennSimStop;
use super::{cc_of, Cpu, Exit, VEC_ILLEGAL, VEC_PRIVILEGE};

impl Cpu {
    /// Fetches and executes the instruction at the PC. `self.pc` already points past it while
    /// it executes, as on the real datapath (PC-relative operands and pushed return addresses
    /// use the incremented PC).
    #[inline(always)]
    pub(super) fn execute<const WATCH: bool>(&mut self) -> Result<(), Exit> {
        if self.pc.wrapping_sub(self.plain_lo) >= self.plain_len {
            if let Some(exit) = self.denied(self.pc) {
                // Past the word, as after any fetch: whoever resolves the exit takes the
                // instruction's address as the PC before it (the run loop as `self.pc - 1`).
                self.pc = self.pc.wrapping_add(1);
                return Err(exit);
            }
        }
        let word = self.mem[self.pc as usize];
        self.pc = self.pc.wrapping_add(1);
        let next = self.pc;
        let rel = |offset: i16| next.wrapping_add(offset as u16);
        match decode_for(word, self.semantics.pennsim) {
            Instruction::AddReg { dr, sr1, sr2 } => {
                self.set_reg_cc(dr, self.reg(sr1).wrapping_add(self.reg(sr2)))
            }
            Instruction::AddImm { dr, sr1, imm } => {
                self.set_reg_cc(dr, self.reg(sr1).wrapping_add(imm as u16))
            }
            Instruction::AndReg { dr, sr1, sr2 } => {
                self.set_reg_cc(dr, self.reg(sr1) & self.reg(sr2))
            }
            Instruction::AndImm { dr, sr1, imm } => self.set_reg_cc(dr, self.reg(sr1) & imm as u16),
            Instruction::Not { dr, sr } => self.set_reg_cc(dr, !self.reg(sr)),
            Instruction::Br { nzp, offset } => {
                if u16::from(nzp) & self.cc != 0 {
                    self.pc = rel(offset);
                }
            }
            Instruction::Jmp { base } => self.pc = self.reg(base),
            Instruction::Jsr { offset } => {
                self.regs[7] = next;
                self.pc = rel(offset);
            }
            Instruction::Jsrr { base } => {
                // lc3tools links first, so its JSRR R7 calls the next instruction.
                let target = if base == 7 && self.semantics.jsrr_links_first {
                    next
                } else {
                    self.reg(base)
                };
                self.regs[7] = next;
                self.pc = target;
            }
            Instruction::Ld { dr, offset } => {
                let value = self.load::<WATCH>(rel(offset))?;
                self.set_reg_cc(dr, value);
            }
            Instruction::Ldi { dr, offset } => {
                let pointer = self.load::<WATCH>(rel(offset))?;
                let value = self.load::<WATCH>(pointer)?;
                self.set_reg_cc(dr, value);
            }
            Instruction::Ldr { dr, base, offset } => {
                let value = self.load::<WATCH>(self.reg(base).wrapping_add(offset as u16))?;
                self.set_reg_cc(dr, value);
            }
            Instruction::Lea { dr, offset } => {
                if self.semantics.lea_sets_cc {
                    self.set_reg_cc(dr, rel(offset));
                } else {
                    self.regs[(dr & 7) as usize] = rel(offset);
                }
            }
            Instruction::St { sr, offset } => self.store::<WATCH>(rel(offset), self.reg(sr))?,
            Instruction::Sti { sr, offset } => {
                let pointer = self.load::<WATCH>(rel(offset))?;
                self.store::<WATCH>(pointer, self.reg(sr))?;
            }
            Instruction::Str { sr, base, offset } => {
                let addr = self.reg(base).wrapping_add(offset as u16);
                self.store::<WATCH>(addr, self.reg(sr))?;
            }
            Instruction::Trap { vector } => {
                if self.is_user() || !self.semantics.trap_through_stack {
                    self.trap_site = next.wrapping_sub(1);
                }
                if self.semantics.pennsim {
                    self.pennsim_trap(vector, next);
                } else if self.semantics.trap_through_stack {
                    self.enter_supervisor(u16::from(vector), None);
                } else {
                    self.regs[7] = next;
                    self.pc = self.mem[vector as usize];
                }
            }
            Instruction::Rti if self.semantics.pennsim => self.pennsim_rti()?,
            Instruction::Rti => {
                if !self.semantics.has_rti {
                    return Err(Exit::Exception(VEC_ILLEGAL));
                }
                if self.is_user() {
                    return Err(Exit::Exception(VEC_PRIVILEGE));
                }
                self.return_from_interrupt();
            }
            Instruction::Sub { dr, sr1, sr2 } => {
                self.set_reg_cc(dr, self.reg(sr1).wrapping_sub(self.reg(sr2)))
            }
            Instruction::MulReg { dr, sr1, sr2 } => {
                self.set_reg_cc(dr, self.reg(sr1).wrapping_mul(self.reg(sr2)))
            }
            Instruction::MulImm { dr, sr1, imm } => {
                self.set_reg_cc(dr, self.reg(sr1).wrapping_mul(imm as u16))
            }
            Instruction::Jmpt { base } => self.jump_to_user(self.reg(base)),
            Instruction::Reserved | Instruction::Illegal if self.semantics.pennsim => {
                return Err(Exit::Stopped(PennSimStop::Undefined(word)))
            }
            Instruction::Reserved | Instruction::Illegal => {
                return Err(Exit::Exception(VEC_ILLEGAL))
            }
        }
        Ok(())
    }

    /// Executes a whole block, at most `max_rounds` times (at least once) while it branches
    /// back to its start, and returns the rounds completed and the PC after the last. The
    /// registers stay in `self.regs` (a local copy costs more in store-forwarding stalls at
    /// the block's ends than it saves); the condition codes are `last`, the last value that
    /// set them. An op that leaves the ordinary path stops the block: the PC is set past that
    /// op (as [`Cpu::execute`] leaves it) and the ops completed before it in its round are
    /// returned with the exit. Each load and store is asked of `access` first (a refusal is
    /// `Exit::Refused`).
    #[inline(always)]
    pub(super) fn run_block<const WATCH: bool, A: RunAccess>(
        &mut self,
        block: &blocks::Block,
        ops: &[Op],
        last: &mut u16,
        max_rounds: u64,
        access: &mut A,
    ) -> (u64, Result<u16, (u64, Exit)>) {
        macro_rules! reg {
            ($r:expr) => {
                self.regs[$r.index()]
            };
        }
        macro_rules! set {
            ($r:expr, $value:expr) => {{
                let value = $value;
                self.regs[$r.index()] = value;
                *last = value;
            }};
        }
        let mut rounds = 0;
        loop {
            let mut body = ops.iter();
            while let Some(op) = body.next() {
                macro_rules! leave {
                    ($exit:expr) => {{
                        // The ops after this one are still in `body`.
                        let ran = (ops.len() - body.len() - 1) as u16;
                        self.pc = block.start.wrapping_add(ran + 1);
                        return (rounds, Err((u64::from(ran), $exit)));
                    }};
                }
                // A refused access: the condition codes written back, as before any exit.
                macro_rules! ask {
                    ($addr:expr, $store:expr) => {
                        if A::ASKED && !access.admits(u64::from($addr), 1, $store) {
                            self.cc = cc_of(*last);
                            leave!(Exit::Refused)
                        }
                    };
                }
                macro_rules! load {
                    ($addr:expr) => {{
                        let addr = $addr;
                        ask!(addr, false);
                        match self.load_in_block::<WATCH>(addr, *last) {
                            Ok(value) => value,
                            Err(exit) => leave!(exit),
                        }
                    }};
                }
                macro_rules! store {
                    ($addr:expr, $value:expr) => {{
                        let addr = $addr;
                        ask!(addr, true);
                        if let Err(exit) = self.store_in_block::<WATCH>(addr, $value, *last) {
                            leave!(exit)
                        }
                    }};
                }
                match *op {
                    Op::AddReg { dr, sr1, sr2 } => set!(dr, reg!(sr1).wrapping_add(reg!(sr2))),
                    Op::AddImm { dr, sr1, imm } => set!(dr, reg!(sr1).wrapping_add(imm)),
                    Op::AndReg { dr, sr1, sr2 } => set!(dr, reg!(sr1) & reg!(sr2)),
                    Op::AndImm { dr, sr1, imm } => set!(dr, reg!(sr1) & imm),
                    Op::Not { dr, sr } => set!(dr, !reg!(sr)),
                    Op::Ld { dr, addr } => set!(dr, load!(addr)),
                    Op::Ldi { dr, addr } => {
                        let pointer = load!(addr);
                        set!(dr, load!(pointer))
                    }
                    Op::Ldr { dr, base, offset } => {
                        set!(dr, load!(reg!(base).wrapping_add(offset)))
                    }
                    Op::Lea { dr, value } => reg!(dr) = value,
                    Op::LeaCc { dr, value } => set!(dr, value),
                    Op::St { sr, addr } => store!(addr, reg!(sr)),
                    Op::Sti { sr, addr } => {
                        let pointer = load!(addr);
                        store!(pointer, reg!(sr))
                    }
                    Op::Str { sr, base, offset } => {
                        store!(reg!(base).wrapping_add(offset), reg!(sr))
                    }
                }
            }
            let next = match block.tail {
                Tail::Next => block.after,
                Tail::Br { nzp, target } => {
                    if nzp & cc_of(*last) != 0 {
                        target
                    } else {
                        block.after
                    }
                }
                Tail::Jmp { base } => reg!(base),
                Tail::Jsr { target } => {
                    self.regs[7] = block.after;
                    target
                }
                Tail::Jsrr { base } => {
                    let target = reg!(base);
                    self.regs[7] = block.after;
                    target
                }
            };
            rounds += 1;
            if next != block.start || rounds == max_rounds {
                return (rounds, Ok(next));
            }
        }
    }
}
