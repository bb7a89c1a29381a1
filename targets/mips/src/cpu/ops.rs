//! User text translated once more, for the straight-line runs (see `runs.rs`): the common
//! instructions as compact ops the run loop executes without `Instruction`'s field handling,
//! `$zero` reset or PC arithmetic; everything else as [`Op::Execute`], which hands the
//! decoded instruction to [`Cpu::execute`].
//!
//! - Registers are a [`Reg`], a type with exactly 32 values.
//! - An op never writes `$zero`: an instruction whose only effect is a write to `$zero` is
//!   [`Op::Nop`], and one that writes `$zero` besides something else (a load, which may fault;
//!   `add`, which may overflow; `mul`, which sets HI and LO) stays [`Op::Execute`], which
//!   resets `$zero` itself.
//! - Branch and jump targets are resolved, immediates widened as the instruction uses them.
//!
//! The ops are derived from the breakpoint-patched copy of the code (where a breakpoint's
//! `DebugStop` is an [`Op::Execute`]) and derived again whenever its version changes, as the
//! runs' ends are.
//!
//! Measured and dropped (cachegrind and alternated wall clock, programs/mips/bench.asm):
//! fusing `addiu`/`addi`/`slt`/`slti` with the `bne`/`beq` after them (the end of a counted
//! loop, MARS's `blt` family) into one op: 8% fewer host instructions, ×1.04 in wall clock
//! (21 alternated pairs), within this machine's noise; unrolling the dispatch loop twice:
//! ×0.93. One dispatch per guest instruction tops out near a third of `qemu-mipsel` on this
//! kind of machine; runs of integer instructions compile to machine code instead (`jit.rs`).

use asmdbg_core::RunAccess;

use crate::decode::{branch_target, jump_target, Instruction};
use crate::memory::TEXT_BASE;

use super::exec::overflow;
use super::{Cpu, Trap};

/// A general-purpose register number as a type with exactly 32 values.
#[rustfmt::skip]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Reg {
    R0, R1, R2, R3, R4, R5, R6, R7, R8, R9, R10, R11, R12, R13, R14, R15,
    R16, R17, R18, R19, R20, R21, R22, R23, R24, R25, R26, R27, R28, R29, R30, R31,
}

impl Reg {
    /// The register a 5-bit field names (bits above the fifth are ignored).
    fn of(field: u8) -> Reg {
        #[rustfmt::skip]
        const ALL: [Reg; 32] = [
            Reg::R0, Reg::R1, Reg::R2, Reg::R3, Reg::R4, Reg::R5, Reg::R6, Reg::R7,
            Reg::R8, Reg::R9, Reg::R10, Reg::R11, Reg::R12, Reg::R13, Reg::R14, Reg::R15,
            Reg::R16, Reg::R17, Reg::R18, Reg::R19, Reg::R20, Reg::R21, Reg::R22, Reg::R23,
            Reg::R24, Reg::R25, Reg::R26, Reg::R27, Reg::R28, Reg::R29, Reg::R30, Reg::R31,
        ];
        ALL[(field & 31) as usize]
    }
}

/// One instruction of user text as the straight-line runs execute it.
#[rustfmt::skip]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Op {
    /// Everything else: the decoded instruction through [`Cpu::execute`].
    Execute,
    /// An instruction whose only effect is a write to `$zero`.
    Nop,
    Addu { rd: Reg, rs: Reg, rt: Reg },
    Subu { rd: Reg, rs: Reg, rt: Reg },
    /// `add` and `sub` trap on signed overflow.
    Add { rd: Reg, rs: Reg, rt: Reg },
    Sub { rd: Reg, rs: Reg, rt: Reg },
    And { rd: Reg, rs: Reg, rt: Reg },
    Or { rd: Reg, rs: Reg, rt: Reg },
    Xor { rd: Reg, rs: Reg, rt: Reg },
    Nor { rd: Reg, rs: Reg, rt: Reg },
    Slt { rd: Reg, rs: Reg, rt: Reg },
    Sltu { rd: Reg, rs: Reg, rt: Reg },
    /// `mul` also sets HI and LO.
    Mul { rd: Reg, rs: Reg, rt: Reg },
    Sll { rd: Reg, rt: Reg, sa: u8 },
    Srl { rd: Reg, rt: Reg, sa: u8 },
    Sra { rd: Reg, rt: Reg, sa: u8 },
    Sllv { rd: Reg, rt: Reg, rs: Reg },
    Srlv { rd: Reg, rt: Reg, rs: Reg },
    Srav { rd: Reg, rt: Reg, rs: Reg },
    /// The immediate forms, with the immediate sign- or zero-extended as the instruction does.
    Addiu { rt: Reg, rs: Reg, imm: u32 },
    Addi { rt: Reg, rs: Reg, imm: i32 },
    Slti { rt: Reg, rs: Reg, imm: i32 },
    Sltiu { rt: Reg, rs: Reg, imm: u32 },
    Andi { rt: Reg, rs: Reg, imm: u32 },
    Ori { rt: Reg, rs: Reg, imm: u32 },
    Xori { rt: Reg, rs: Reg, imm: u32 },
    /// `lui`, with the value already shifted.
    Lui { rt: Reg, value: u32 },
    /// Loads and stores, with the offset sign-extended.
    Lw { rt: Reg, base: Reg, off: u32 },
    Lb { rt: Reg, base: Reg, off: u32 },
    Lbu { rt: Reg, base: Reg, off: u32 },
    Lh { rt: Reg, base: Reg, off: u32 },
    Lhu { rt: Reg, base: Reg, off: u32 },
    Sw { rt: Reg, base: Reg, off: u32 },
    Sb { rt: Reg, base: Reg, off: u32 },
    Sh { rt: Reg, base: Reg, off: u32 },
    /// Branches and jumps, with the target resolved.
    Beq { rs: Reg, rt: Reg, target: u32 },
    Bne { rs: Reg, rt: Reg, target: u32 },
    Blez { rs: Reg, target: u32 },
    Bgtz { rs: Reg, target: u32 },
    Bltz { rs: Reg, target: u32 },
    Bgez { rs: Reg, target: u32 },
    J { target: u32 },
    Jal { target: u32 },
    Jr { rs: Reg },
}

/// The op for `instr` at `pc`, for the run loop without delay slots.
#[rustfmt::skip]
pub(super) fn translate(pc: u32, instr: Instruction) -> Op {
    use Instruction as I;
    let r = Reg::of;
    // Writes to `$zero` that are all an instruction does.
    let pure = |d: u8, op: Op| if d & 31 == 0 { Op::Nop } else { op };
    // Writes to `$zero` beside a trap, HI and LO, or a memory access.
    let guarded = |d: u8, op: Op| if d & 31 == 0 { Op::Execute } else { op };
    let sext = |imm: i16| imm as i32 as u32;
    match instr {
        I::Addu { rd, rs, rt } => pure(rd, Op::Addu { rd: r(rd), rs: r(rs), rt: r(rt) }),
        I::Subu { rd, rs, rt } => pure(rd, Op::Subu { rd: r(rd), rs: r(rs), rt: r(rt) }),
        I::Add { rd, rs, rt } => guarded(rd, Op::Add { rd: r(rd), rs: r(rs), rt: r(rt) }),
        I::Sub { rd, rs, rt } => guarded(rd, Op::Sub { rd: r(rd), rs: r(rs), rt: r(rt) }),
        I::And { rd, rs, rt } => pure(rd, Op::And { rd: r(rd), rs: r(rs), rt: r(rt) }),
        I::Or { rd, rs, rt } => pure(rd, Op::Or { rd: r(rd), rs: r(rs), rt: r(rt) }),
        I::Xor { rd, rs, rt } => pure(rd, Op::Xor { rd: r(rd), rs: r(rs), rt: r(rt) }),
        I::Nor { rd, rs, rt } => pure(rd, Op::Nor { rd: r(rd), rs: r(rs), rt: r(rt) }),
        I::Slt { rd, rs, rt } => pure(rd, Op::Slt { rd: r(rd), rs: r(rs), rt: r(rt) }),
        I::Sltu { rd, rs, rt } => pure(rd, Op::Sltu { rd: r(rd), rs: r(rs), rt: r(rt) }),
        I::Mul { rd, rs, rt } => guarded(rd, Op::Mul { rd: r(rd), rs: r(rs), rt: r(rt) }),
        I::Sll { rd, rt, sa } => pure(rd, Op::Sll { rd: r(rd), rt: r(rt), sa: sa & 31 }),
        I::Srl { rd, rt, sa } => pure(rd, Op::Srl { rd: r(rd), rt: r(rt), sa: sa & 31 }),
        I::Sra { rd, rt, sa } => pure(rd, Op::Sra { rd: r(rd), rt: r(rt), sa: sa & 31 }),
        I::Sllv { rd, rt, rs } => pure(rd, Op::Sllv { rd: r(rd), rt: r(rt), rs: r(rs) }),
        I::Srlv { rd, rt, rs } => pure(rd, Op::Srlv { rd: r(rd), rt: r(rt), rs: r(rs) }),
        I::Srav { rd, rt, rs } => pure(rd, Op::Srav { rd: r(rd), rt: r(rt), rs: r(rs) }),
        I::Addiu { rt, rs, imm } => pure(rt, Op::Addiu { rt: r(rt), rs: r(rs), imm: sext(imm) }),
        I::Addi { rt, rs, imm } => guarded(rt, Op::Addi { rt: r(rt), rs: r(rs), imm: imm.into() }),
        I::Slti { rt, rs, imm } => pure(rt, Op::Slti { rt: r(rt), rs: r(rs), imm: imm.into() }),
        I::Sltiu { rt, rs, imm } => pure(rt, Op::Sltiu { rt: r(rt), rs: r(rs), imm: sext(imm) }),
        I::Andi { rt, rs, imm } => pure(rt, Op::Andi { rt: r(rt), rs: r(rs), imm: imm.into() }),
        I::Ori { rt, rs, imm } => pure(rt, Op::Ori { rt: r(rt), rs: r(rs), imm: imm.into() }),
        I::Xori { rt, rs, imm } => pure(rt, Op::Xori { rt: r(rt), rs: r(rs), imm: imm.into() }),
        I::Lui { rt, imm } => pure(rt, Op::Lui { rt: r(rt), value: u32::from(imm) << 16 }),
        I::Lw { rt, base, off } => guarded(rt, Op::Lw { rt: r(rt), base: r(base), off: sext(off) }),
        I::Lb { rt, base, off } => guarded(rt, Op::Lb { rt: r(rt), base: r(base), off: sext(off) }),
        I::Lbu { rt, base, off } => guarded(rt, Op::Lbu { rt: r(rt), base: r(base), off: sext(off) }),
        I::Lh { rt, base, off } => guarded(rt, Op::Lh { rt: r(rt), base: r(base), off: sext(off) }),
        I::Lhu { rt, base, off } => guarded(rt, Op::Lhu { rt: r(rt), base: r(base), off: sext(off) }),
        I::Sw { rt, base, off } => Op::Sw { rt: r(rt), base: r(base), off: sext(off) },
        I::Sb { rt, base, off } => Op::Sb { rt: r(rt), base: r(base), off: sext(off) },
        I::Sh { rt, base, off } => Op::Sh { rt: r(rt), base: r(base), off: sext(off) },
        I::Beq { rs, rt, off } => Op::Beq { rs: r(rs), rt: r(rt), target: branch_target(pc, off) },
        I::Bne { rs, rt, off } => Op::Bne { rs: r(rs), rt: r(rt), target: branch_target(pc, off) },
        I::Blez { rs, off } => Op::Blez { rs: r(rs), target: branch_target(pc, off) },
        I::Bgtz { rs, off } => Op::Bgtz { rs: r(rs), target: branch_target(pc, off) },
        I::Bltz { rs, off } => Op::Bltz { rs: r(rs), target: branch_target(pc, off) },
        I::Bgez { rs, off } => Op::Bgez { rs: r(rs), target: branch_target(pc, off) },
        I::J { target } => Op::J { target: jump_target(pc, target) },
        I::Jal { target } => Op::Jal { target: jump_target(pc, target) },
        I::Jr { rs } => Op::Jr { rs: r(rs) },
        _ => Op::Execute,
    }
}

impl Cpu {
    #[inline(always)]
    fn get(&self, r: Reg) -> u32 {
        // LLVM forgets `Reg`'s range when it loads an op's fields; the mask (one AND, never
        // changing the index) spares the bounds check it would keep.
        self.regs[r as usize & 31]
    }

    /// Writes a register other than `$zero` (ops never name it as a destination).
    #[inline(always)]
    fn put(&mut self, r: Reg, value: u32) {
        debug_assert!(r != Reg::R0, "ops never write $zero");
        self.regs[r as usize & 31] = value;
    }

    /// Executes `run`, the ops of a straight-line run of the patched user text `code` that
    /// starts at `start`, at most `max_rounds` times (at least once) while it branches back to
    /// its start. Returns the rounds completed and the PC after the last; or with the rounds
    /// completed before it, the address of the instruction that trapped and its trap (the
    /// instructions before it completed).
    ///
    /// Only a run's last instruction may transfer control, so the address after the run is
    /// also where a branch not taken goes and what `jal` links.
    ///
    /// Each load and store is asked of `access` first (a refusal is [`Trap::Refused`]), an
    /// instruction left to `execute` included.
    #[inline(always)]
    pub(super) fn run_ops<A: RunAccess>(
        &mut self,
        start: u32,
        run: &[Op],
        code: &[Instruction],
        max_rounds: u64,
        access: &mut A,
    ) -> (u64, Result<u32, (u32, Trap)>) {
        let fall = start.wrapping_add((run.len() as u32) << 2);
        // The address of the op `ops.next()` gave last (the ops after it are still in `ops`).
        let pc_of = |ops: &std::slice::Iter<Op>| fall.wrapping_sub(((ops.len() + 1) as u32) << 2);
        let mut rounds = 0;
        let mut ops = run.iter();
        // An op's result: its value, or out of the run with its trap.
        macro_rules! done {
            ($result:expr) => {
                match $result {
                    Ok(value) => value,
                    Err(trap) => break (pc_of(&ops), trap),
                }
            };
        }
        // The address of a load or store of `bytes` bytes, once `access` admits it.
        macro_rules! ask {
            ($base:expr, $off:expr, $bytes:expr, $store:expr) => {{
                let addr = self.get($base).wrapping_add($off);
                if A::ASKED && !access.admits(u64::from(addr), $bytes, $store) {
                    break (pc_of(&ops), Trap::Refused);
                }
                addr
            }};
        }
        // The end of a round at `next`: round again at once if the run branched back to its
        // start and may go round once more.
        macro_rules! jump {
            ($next:expr) => {{
                let next = $next;
                rounds += 1;
                if next != start || rounds == max_rounds {
                    return (rounds, Ok(next));
                }
                ops = run.iter();
                continue;
            }};
        }
        let trapped = loop {
            let Some(op) = ops.next() else { jump!(fall) };
            match *op {
                Op::Execute => {
                    let at = pc_of(&ops);
                    let instr = code[(at.wrapping_sub(TEXT_BASE) >> 2) as usize];
                    if A::ASKED {
                        if let Some(mem) = instr.operands().mem {
                            let base = self.regs[usize::from(mem.base & 31)];
                            let addr = base.wrapping_add(mem.off as i32 as u32);
                            if !access.admits(u64::from(addr), u64::from(mem.bytes), mem.store) {
                                break (at, Trap::Refused);
                            }
                        }
                    }
                    let next = done!(self.execute_outlined(at, instr));
                    if next != at.wrapping_add(4) {
                        jump!(next)
                    }
                }
                Op::Nop => {}
                Op::Addu { rd, rs, rt } => self.put(rd, self.get(rs).wrapping_add(self.get(rt))),
                Op::Subu { rd, rs, rt } => self.put(rd, self.get(rs).wrapping_sub(self.get(rt))),
                Op::Add { rd, rs, rt } => {
                    let sum = (self.get(rs) as i32).checked_add(self.get(rt) as i32);
                    self.put(rd, done!(sum.ok_or_else(overflow)) as u32);
                }
                Op::Sub { rd, rs, rt } => {
                    let dif = (self.get(rs) as i32).checked_sub(self.get(rt) as i32);
                    self.put(rd, done!(dif.ok_or_else(overflow)) as u32);
                }
                Op::And { rd, rs, rt } => self.put(rd, self.get(rs) & self.get(rt)),
                Op::Or { rd, rs, rt } => self.put(rd, self.get(rs) | self.get(rt)),
                Op::Xor { rd, rs, rt } => self.put(rd, self.get(rs) ^ self.get(rt)),
                Op::Nor { rd, rs, rt } => self.put(rd, !(self.get(rs) | self.get(rt))),
                Op::Slt { rd, rs, rt } => {
                    self.put(rd, ((self.get(rs) as i32) < (self.get(rt) as i32)) as u32)
                }
                Op::Sltu { rd, rs, rt } => self.put(rd, (self.get(rs) < self.get(rt)) as u32),
                Op::Mul { rd, rs, rt } => {
                    let product =
                        (self.get(rs) as i32 as i64).wrapping_mul(self.get(rt) as i32 as i64);
                    self.set_hilo(product as u64);
                    self.put(rd, product as u32);
                }
                Op::Sll { rd, rt, sa } => self.put(rd, self.get(rt) << (sa & 31)),
                Op::Srl { rd, rt, sa } => self.put(rd, self.get(rt) >> (sa & 31)),
                Op::Sra { rd, rt, sa } => self.put(rd, ((self.get(rt) as i32) >> (sa & 31)) as u32),
                Op::Sllv { rd, rt, rs } => self.put(rd, self.get(rt) << (self.get(rs) & 31)),
                Op::Srlv { rd, rt, rs } => self.put(rd, self.get(rt) >> (self.get(rs) & 31)),
                Op::Srav { rd, rt, rs } => {
                    self.put(rd, ((self.get(rt) as i32) >> (self.get(rs) & 31)) as u32)
                }
                Op::Addiu { rt, rs, imm } => self.put(rt, self.get(rs).wrapping_add(imm)),
                Op::Addi { rt, rs, imm } => {
                    let sum = (self.get(rs) as i32).checked_add(imm);
                    self.put(rt, done!(sum.ok_or_else(overflow)) as u32);
                }
                Op::Slti { rt, rs, imm } => self.put(rt, ((self.get(rs) as i32) < imm) as u32),
                Op::Sltiu { rt, rs, imm } => self.put(rt, (self.get(rs) < imm) as u32),
                Op::Andi { rt, rs, imm } => self.put(rt, self.get(rs) & imm),
                Op::Ori { rt, rs, imm } => self.put(rt, self.get(rs) | imm),
                Op::Xori { rt, rs, imm } => self.put(rt, self.get(rs) ^ imm),
                Op::Lui { rt, value } => self.put(rt, value),
                Op::Lw { rt, base, off } => {
                    let v = done!(self.load_u32(ask!(base, off, 4, false)));
                    self.put(rt, v);
                }
                Op::Lb { rt, base, off } => {
                    let v = done!(self.load_u8(ask!(base, off, 1, false)));
                    self.put(rt, v as i8 as i32 as u32);
                }
                Op::Lbu { rt, base, off } => {
                    let v = done!(self.load_u8(ask!(base, off, 1, false)));
                    self.put(rt, v as u32);
                }
                Op::Lh { rt, base, off } => {
                    let v = done!(self.load_u16(ask!(base, off, 2, false)));
                    self.put(rt, v as i16 as i32 as u32);
                }
                Op::Lhu { rt, base, off } => {
                    let v = done!(self.load_u16(ask!(base, off, 2, false)));
                    self.put(rt, v as u32);
                }
                Op::Sw { rt, base, off } => {
                    done!(self.store_u32(ask!(base, off, 4, true), self.get(rt)))
                }
                Op::Sb { rt, base, off } => {
                    done!(self.store_u8(ask!(base, off, 1, true), self.get(rt) as u8))
                }
                Op::Sh { rt, base, off } => {
                    done!(self.store_u16(ask!(base, off, 2, true), self.get(rt) as u16))
                }
                Op::Beq { rs, rt, target } => jump!(if self.get(rs) == self.get(rt) {
                    target
                } else {
                    fall
                }),
                Op::Bne { rs, rt, target } => jump!(if self.get(rs) != self.get(rt) {
                    target
                } else {
                    fall
                }),
                Op::Blez { rs, target } => jump!(if self.get(rs) as i32 <= 0 {
                    target
                } else {
                    fall
                }),
                Op::Bgtz { rs, target } => jump!(if self.get(rs) as i32 > 0 {
                    target
                } else {
                    fall
                }),
                Op::Bltz { rs, target } => jump!(if (self.get(rs) as i32) < 0 {
                    target
                } else {
                    fall
                }),
                Op::Bgez { rs, target } => jump!(if self.get(rs) as i32 >= 0 {
                    target
                } else {
                    fall
                }),
                Op::J { target } => jump!(target),
                Op::Jal { target } => {
                    self.put(Reg::R31, fall);
                    jump!(target)
                }
                Op::Jr { rs } => jump!(self.get(rs)),
            }
        };
        (rounds, Err(trapped))
    }

    /// [`Cpu::execute`] out of line: for the instructions the ops leave to it and for the run
    /// loop's ordinary path (one copy of `execute` serves both).
    #[inline(never)]
    pub(super) fn execute_outlined(&mut self, pc: u32, instr: Instruction) -> Result<u32, Trap> {
        self.execute::<false>(pc, instr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::decode;

    const PC: u32 = 0x0040_0010;

    #[test]
    fn writes_to_zero_are_nops_unless_the_instruction_does_more() {
        // addu $zero, $t0, $t1; sll $zero, $zero, 0 (nop); lui $zero, 1.
        for word in [0x0109_0021, 0x0000_0000, 0x3c00_0001] {
            assert_eq!(translate(PC, decode(word)), Op::Nop, "{word:08x}");
        }
        // add $zero, $t0, $t1 may overflow; lw $zero, 0($sp) may fault: both stay with
        // `execute`, which keeps $zero at 0.
        for word in [0x0109_0020, 0x8fa0_0000] {
            assert_eq!(translate(PC, decode(word)), Op::Execute, "{word:08x}");
        }
    }

    #[test]
    fn targets_and_immediates_are_resolved() {
        // bne $t0, $t1, -2 words back from the next instruction.
        assert_eq!(
            translate(PC, decode(0x1509_fffe)),
            Op::Bne {
                rs: Reg::R8,
                rt: Reg::R9,
                target: PC + 4 - 8
            }
        );
        // j 0x00400000 and jal 0x00400020.
        assert_eq!(
            translate(PC, decode(0x0810_0000)),
            Op::J {
                target: 0x0040_0000
            }
        );
        assert_eq!(
            translate(PC, decode(0x0c10_0008)),
            Op::Jal {
                target: 0x0040_0020
            }
        );
        // addiu $t0, $t0, -1 sign-extends; ori $t0, $t0, 0xffff zero-extends; lui shifts.
        assert_eq!(
            translate(PC, decode(0x2508_ffff)),
            Op::Addiu {
                rt: Reg::R8,
                rs: Reg::R8,
                imm: u32::MAX
            }
        );
        assert_eq!(
            translate(PC, decode(0x3508_ffff)),
            Op::Ori {
                rt: Reg::R8,
                rs: Reg::R8,
                imm: 0xffff
            }
        );
        assert_eq!(
            translate(PC, decode(0x3c08_1234)),
            Op::Lui {
                rt: Reg::R8,
                value: 0x1234_0000
            }
        );
        // lw $t0, -4($sp).
        assert_eq!(
            translate(PC, decode(0x8fa8_fffc)),
            Op::Lw {
                rt: Reg::R8,
                base: Reg::R29,
                off: (-4i32) as u32
            }
        );
    }

    #[test]
    fn the_rest_and_breakpoint_stops_go_to_execute() {
        for instr in [
            Instruction::DebugStop,
            Instruction::Empty,
            Instruction::Syscall,
            Instruction::Eret,
            decode(0x0109_001a), // div $t0, $t1
            decode(0x0100_f809), // jalr $t0
        ] {
            assert_eq!(translate(PC, instr), Op::Execute, "{instr:?}");
        }
    }

    #[test]
    fn an_op_is_as_small_as_an_instruction() {
        assert_eq!(std::mem::size_of::<Op>(), 8);
    }
}
