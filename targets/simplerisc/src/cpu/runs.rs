//! Straight-line runs: the code a run at a time, as compact ops.
//!
//! A run starts wherever execution enters the code and ends at the first instruction that may
//! move the PC elsewhere or stop the loop (a branch, `call`, `ret`, `hlt`, a breakpoint, an
//! illegal word), at the end of the code, or after [`MAX_RUN`] instructions. The loop takes a
//! run whole when the budget allows, with no budget or bounds test per instruction, and a run
//! whose last instruction branches back to its start goes round again at once, with the rounds
//! counted against the budget up front.
//!
//! A run executes as [`RunOp`]s: the common instructions with their register numbers as a
//! 16-valued [`Reg`], immediates as the instruction uses them and branch targets resolved;
//! everything else as [`RunOp::Execute`], which hands the decoded instruction to
//! [`Core::execute`]. The ops and the runs' ends are derived from the breakpoint-patched code
//! and derived again whenever its [`asmdbg_core::PatchedCode::version`] changes.

use asmdbg_core::RunAccess;

use crate::decode::{Insn, Op};

use super::jit::{Jit, RunFn};
use super::{Core, Trap};

/// Most instructions in one run: a run is taken whole or not at all, and the debugger's slices
/// (1024 instructions) should rarely end with a run that no longer fits.
const MAX_RUN: usize = 64;

/// A register number as a type with exactly 16 values.
#[rustfmt::skip]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Reg {
    R0, R1, R2, R3, R4, R5, R6, R7, R8, R9, R10, R11, R12, R13, R14, R15,
}

impl Reg {
    /// The register a 4-bit field names (bits above the fourth are ignored).
    fn of(field: u8) -> Reg {
        #[rustfmt::skip]
        const ALL: [Reg; 16] = [
            Reg::R0, Reg::R1, Reg::R2, Reg::R3, Reg::R4, Reg::R5, Reg::R6, Reg::R7,
            Reg::R8, Reg::R9, Reg::R10, Reg::R11, Reg::R12, Reg::R13, Reg::R14, Reg::R15,
        ];
        ALL[(field & 15) as usize]
    }
}

/// One instruction as a run executes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RunOp {
    /// Everything else: the decoded instruction through [`Core::execute`].
    Execute,
    Nop,
    Add {
        rd: Reg,
        a: Reg,
        b: Reg,
    },
    Sub {
        rd: Reg,
        a: Reg,
        b: Reg,
    },
    Mul {
        rd: Reg,
        a: Reg,
        b: Reg,
    },
    And {
        rd: Reg,
        a: Reg,
        b: Reg,
    },
    Or {
        rd: Reg,
        a: Reg,
        b: Reg,
    },
    Not {
        rd: Reg,
        b: Reg,
    },
    Mov {
        rd: Reg,
        b: Reg,
    },
    /// `add` and `sub` with an immediate (`sub` as the addition of its negation).
    AddI {
        rd: Reg,
        a: Reg,
        imm: u32,
    },
    MulI {
        rd: Reg,
        a: Reg,
        imm: u32,
    },
    AndI {
        rd: Reg,
        a: Reg,
        imm: u32,
    },
    OrI {
        rd: Reg,
        a: Reg,
        imm: u32,
    },
    /// `mov` and `not` with an immediate: the value they write.
    Set {
        rd: Reg,
        value: u32,
    },
    Cmp {
        a: Reg,
        b: Reg,
    },
    CmpI {
        a: Reg,
        imm: u32,
    },
    /// Shifts by an immediate that is not negative (a negative one faults: `Execute`), by its
    /// low 5 bits as the course interpreter's C shifts on x86.
    LslI {
        rd: Reg,
        a: Reg,
        amount: u8,
    },
    LsrI {
        rd: Reg,
        a: Reg,
        amount: u8,
    },
    AsrI {
        rd: Reg,
        a: Reg,
        amount: u8,
    },
    Ld {
        rd: Reg,
        a: Reg,
        off: u32,
    },
    /// `st`: `value` is the register stored.
    St {
        value: Reg,
        a: Reg,
        off: u32,
    },
    /// Branches and `call` with the target slot resolved.
    Beq {
        target: u32,
    },
    Bgt {
        target: u32,
    },
    B {
        target: u32,
    },
    Call {
        target: u32,
    },
    Ret,
}

/// The op for `insn` at `slot`.
fn translate(slot: u32, insn: &Insn) -> RunOp {
    let (rd, a, b, imm) = (
        Reg::of(insn.rd),
        Reg::of(insn.rs1),
        Reg::of(insn.rs2),
        insn.imm,
    );
    let target = slot.wrapping_add(imm);
    let shift = |make: fn(Reg, Reg, u8) -> RunOp| {
        if (imm as i32) < 0 {
            RunOp::Execute
        } else {
            make(rd, a, (imm & 31) as u8)
        }
    };
    match insn.op {
        Op::Add => RunOp::Add { rd, a, b },
        Op::Sub => RunOp::Sub { rd, a, b },
        Op::Mul => RunOp::Mul { rd, a, b },
        Op::And => RunOp::And { rd, a, b },
        Op::Or => RunOp::Or { rd, a, b },
        Op::Not => RunOp::Not { rd, b },
        Op::Mov => RunOp::Mov { rd, b },
        Op::AddI => RunOp::AddI { rd, a, imm },
        Op::SubI => RunOp::AddI {
            rd,
            a,
            imm: imm.wrapping_neg(),
        },
        Op::MulI => RunOp::MulI { rd, a, imm },
        Op::AndI => RunOp::AndI { rd, a, imm },
        Op::OrI => RunOp::OrI { rd, a, imm },
        Op::MovI => RunOp::Set { rd, value: imm },
        Op::NotI => RunOp::Set { rd, value: !imm },
        Op::Cmp => RunOp::Cmp { a, b },
        Op::CmpI => RunOp::CmpI { a, imm },
        Op::LslI => shift(|rd, a, amount| RunOp::LslI { rd, a, amount }),
        Op::LsrI => shift(|rd, a, amount| RunOp::LsrI { rd, a, amount }),
        Op::AsrI => shift(|rd, a, amount| RunOp::AsrI { rd, a, amount }),
        Op::Nop => RunOp::Nop,
        Op::Ld => RunOp::Ld { rd, a, off: imm },
        Op::St => RunOp::St {
            value: rd,
            a,
            off: imm,
        },
        Op::Beq => RunOp::Beq { target },
        Op::Bgt => RunOp::Bgt { target },
        Op::B => RunOp::B { target },
        Op::Call => RunOp::Call { target },
        Op::Ret => RunOp::Ret,
        Op::Div
        | Op::DivI
        | Op::Mod
        | Op::ModI
        | Op::Lsl
        | Op::Lsr
        | Op::Asr
        | Op::Hlt
        | Op::Print
        | Op::Encode
        | Op::Breakpoint
        | Op::Illegal => RunOp::Execute,
    }
}

/// Whether the slot after `insn`'s may not be the next to execute (or the loop stops on it).
fn may_transfer(insn: &Insn) -> bool {
    matches!(
        insn.op,
        Op::Beq | Op::Bgt | Op::B | Op::Call | Op::Ret | Op::Hlt | Op::Breakpoint | Op::Illegal
    )
}

/// What the loop derives from the breakpoint-patched code: its ops, and for each slot where
/// the run that starts there ends.
#[derive(Debug, Clone, Default)]
pub(super) struct Runs {
    ops: Vec<RunOp>,
    /// For each slot, the slot of the last instruction of the run that starts there.
    last: Vec<u32>,
    /// The version of the patched code both were derived from.
    version: Option<u64>,
    /// The runs compiled to machine code so far (`jit.rs`).
    jit: Jit,
}

impl Runs {
    /// Compiles no run while `off` (`Machine::set_compiled_code`).
    pub(super) fn set_compiled_off(&mut self, off: bool) {
        self.jit.set_off(off);
    }

    /// Derives the ops and the runs' ends again if `code` is not the `version` they were
    /// derived from: O(code), once per change of the breakpoints.
    pub(super) fn sync(&mut self, code: &[Insn], version: u64) {
        if self.version == Some(version) && self.last.len() == code.len() {
            return;
        }
        self.version = Some(version);
        self.ops.clear();
        self.ops.extend(
            code.iter()
                .enumerate()
                .map(|(slot, insn)| translate(slot as u32, insn)),
        );
        asmdbg_core::straight_run_ends(code, MAX_RUN, may_transfer, &mut self.last);
        self.jit.clear();
    }

    /// The slot of the last instruction of the run that starts at `slot` (None past the
    /// code).
    #[inline(always)]
    pub(super) fn last(&self, slot: usize) -> Option<usize> {
        self.last.get(slot).map(|&end| end as usize)
    }

    /// The machine code of the run `from..=to`, once it was entered often enough (None: not
    /// yet, or it does not compile).
    #[inline(always)]
    pub(super) fn compiled(&mut self, from: usize, to: usize) -> Option<RunFn> {
        self.jit.code(from, &self.ops[from..=to])
    }

    /// The ops of the slots `from..=to`.
    #[inline(always)]
    pub(super) fn ops(&self, from: usize, to: usize) -> &[RunOp] {
        &self.ops[from..=to]
    }
}

impl Core<'_> {
    #[inline(always)]
    fn get(&self, r: Reg) -> u32 {
        // The mask never changes the index; without it LLVM keeps a bounds check.
        self.regs[r as usize & 15]
    }

    #[inline(always)]
    fn put(&mut self, r: Reg, value: u32) {
        self.regs[r as usize & 15] = value;
    }

    /// The word index of a load or store at `addr`, after its alignment, range and watch
    /// checks.
    #[inline(always)]
    fn access(&self, addr: u32, kind: asmdbg_core::AccessKind) -> Result<usize, Trap> {
        let index = self.word_index(addr)?;
        match self.watch.check(self.watchpoints, addr.into(), 4, kind) {
            Some((kind, at)) => Err(Trap::Watch(kind, at as u32)),
            None => Ok(index),
        }
    }

    /// Executes `run`, the ops of the straight-line run of `code` that starts at the PC, at
    /// most `max_rounds` times (at least once) while it branches back to its start. Returns
    /// the rounds completed, and the trap if an instruction trapped: the PC is then on it, and
    /// the instructions of its round before it completed.
    ///
    /// Only a run's last instruction may transfer control, so the slot after the run is also
    /// where a branch not taken goes and what `call` links. Each load and store is asked of
    /// `access` first (a refusal is [`Trap::Refused`]).
    #[inline(always)]
    pub(super) fn run_ops<A: RunAccess>(
        &mut self,
        run: &[RunOp],
        code: &[Insn],
        max_rounds: u64,
        access: &mut A,
    ) -> (u64, Result<(), Trap>) {
        let start = self.pc;
        let fall = start.wrapping_add(run.len() as u32);
        // The slot of the op `ops.next()` gave last (the ops after it are still in `ops`).
        let slot_of = |ops: &std::slice::Iter<RunOp>| fall.wrapping_sub(ops.len() as u32 + 1);
        let mut rounds = 0;
        let mut ops = run.iter();
        // An op's result: its value, or out of the run with its trap and the PC on it.
        macro_rules! done {
            ($result:expr) => {
                match $result {
                    Ok(value) => value,
                    Err(trap) => {
                        self.pc = slot_of(&ops);
                        return (rounds, Err(trap));
                    }
                }
            };
        }
        // The end of a round at `next`: round again at once if the run branched back to its
        // start and may go round once more.
        macro_rules! jump {
            ($next:expr) => {{
                self.pc = $next;
                rounds += 1;
                if self.pc != start || rounds == max_rounds {
                    return (rounds, Ok(()));
                }
                ops = run.iter();
                continue;
            }};
        }
        loop {
            let Some(op) = ops.next() else { jump!(fall) };
            match *op {
                RunOp::Execute => {
                    let at = slot_of(&ops);
                    self.pc = at;
                    let insn = code[at.wrapping_sub(start) as usize];
                    done!(self.execute_outlined(insn));
                    // Every branch, `call` and `ret` has an op; what is left either traps
                    // (`hlt`, a breakpoint, a taken illegal word) or goes on to the next slot.
                    debug_assert_eq!(self.pc, at.wrapping_add(1));
                }
                RunOp::Nop => {}
                RunOp::Add { rd, a, b } => self.put(rd, self.get(a).wrapping_add(self.get(b))),
                RunOp::Sub { rd, a, b } => self.put(rd, self.get(a).wrapping_sub(self.get(b))),
                RunOp::Mul { rd, a, b } => self.put(rd, self.get(a).wrapping_mul(self.get(b))),
                RunOp::And { rd, a, b } => self.put(rd, self.get(a) & self.get(b)),
                RunOp::Or { rd, a, b } => self.put(rd, self.get(a) | self.get(b)),
                RunOp::Not { rd, b } => self.put(rd, !self.get(b)),
                RunOp::Mov { rd, b } => self.put(rd, self.get(b)),
                RunOp::AddI { rd, a, imm } => self.put(rd, self.get(a).wrapping_add(imm)),
                RunOp::MulI { rd, a, imm } => self.put(rd, self.get(a).wrapping_mul(imm)),
                RunOp::AndI { rd, a, imm } => self.put(rd, self.get(a) & imm),
                RunOp::OrI { rd, a, imm } => self.put(rd, self.get(a) | imm),
                RunOp::Set { rd, value } => self.put(rd, value),
                RunOp::Cmp { a, b } => {
                    let (x, y) = (self.get(a), self.get(b));
                    self.flag_e = x == y;
                    self.flag_gt = (x as i32) > (y as i32);
                }
                RunOp::CmpI { a, imm } => {
                    let x = self.get(a);
                    self.flag_e = x == imm;
                    self.flag_gt = (x as i32) > (imm as i32);
                }
                RunOp::LslI { rd, a, amount } => self.put(rd, self.get(a) << (amount & 31)),
                RunOp::LsrI { rd, a, amount } => self.put(rd, self.get(a) >> (amount & 31)),
                RunOp::AsrI { rd, a, amount } => {
                    self.put(rd, ((self.get(a) as i32) >> (amount & 31)) as u32)
                }
                RunOp::Ld { rd, a, off } => {
                    let addr = self.get(a).wrapping_add(off);
                    if A::ASKED && !access.admits(u64::from(addr), 4, false) {
                        done!(Err(Trap::Refused));
                    }
                    let index = done!(self.access(addr, asmdbg_core::AccessKind::Read));
                    self.put(rd, self.mem[index]);
                }
                RunOp::St { value, a, off } => {
                    let addr = self.get(a).wrapping_add(off);
                    if A::ASKED && !access.admits(u64::from(addr), 4, true) {
                        done!(Err(Trap::Refused));
                    }
                    let index = done!(self.access(addr, asmdbg_core::AccessKind::Write));
                    self.mem[index] = self.get(value);
                }
                RunOp::Beq { target } => jump!(if self.flag_e { target } else { fall }),
                RunOp::Bgt { target } => jump!(if self.flag_gt { target } else { fall }),
                RunOp::B { target } => jump!(target),
                RunOp::Call { target } => {
                    self.regs[15] = fall.wrapping_mul(4);
                    jump!(target)
                }
                RunOp::Ret => jump!(self.regs[15] / 4),
            }
        }
    }

    /// Runs a compiled run (see `jit.rs`) that starts at the PC, at most `max_rounds` times:
    /// the rounds completed, and if the code left early, the index in the run of the
    /// instruction it left before (the PC is then on it).
    #[inline(always)]
    pub(super) fn run_compiled(&mut self, compiled: RunFn, max_rounds: u64) -> (u64, Option<u32>) {
        let mut context = super::jit::Context::new(
            *self.regs,
            (self.flag_e, self.flag_gt),
            self.mem,
            self.watch.near_bounds(),
        );
        // SAFETY: the code was compiled from the run at the PC; it reads and writes the
        // context, and data memory only below the `mem_words` words `mem` points at;
        // `max_rounds` is at least 1.
        let out = unsafe { compiled(&mut context, max_rounds) };
        asmdbg_core::code_memory::copy_one_by_one(&context.regs, self.regs);
        self.flag_e = context.flag_e != 0;
        self.flag_gt = context.flag_gt != 0;
        if out.next & asmdbg_core::code_memory::LEFT_EARLY == 0 {
            self.pc = out.next as u32;
            (out.rounds, None)
        } else {
            let k = out.next as u32;
            self.pc = self.pc.wrapping_add(k);
            (out.rounds, Some(k))
        }
    }

    /// [`Core::execute`] out of line: for the instructions the ops leave to it and for the
    /// loop's ordinary path (one copy of `execute` serves both).
    #[inline(never)]
    pub(super) fn execute_outlined(&mut self, insn: Insn) -> Result<(), Trap> {
        self.execute(insn, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::decode;

    fn op(word: u32, slot: u32) -> RunOp {
        translate(slot, &decode(word))
    }

    #[test]
    fn immediates_and_targets_are_resolved() {
        // add r1, r2, -5 sign-extends; addu r1, r2, 65535 zero-extends; movh r5, 0x1234 shifts.
        let (r1, r2, r5) = (Reg::R1, Reg::R2, Reg::R5);
        assert_eq!(
            op(0x0448_fffb, 0),
            RunOp::AddI {
                rd: r1,
                a: r2,
                imm: -5i32 as u32
            }
        );
        assert_eq!(
            op(0x0449_ffff, 0),
            RunOp::AddI {
                rd: r1,
                a: r2,
                imm: 0xffff
            }
        );
        assert_eq!(
            op(0x4d42_1234, 0),
            RunOp::Set {
                rd: r5,
                value: 0x1234_0000
            }
        );
        // st r1, -8[sp]: the stored register, the base, the offset.
        assert_eq!(
            op(0x7c78_fff8, 0),
            RunOp::St {
                value: r1,
                a: Reg::R14,
                off: -8i32 as u32
            }
        );
        // b -2 and call +3 from slot 10.
        assert_eq!(op(0x97ff_fffe, 10), RunOp::B { target: 8 });
        assert_eq!(op(0x9800_0003, 10), RunOp::Call { target: 13 });
    }

    #[test]
    fn sub_and_not_with_an_immediate_become_their_equivalents() {
        // sub r1, r2, 3 adds -3; not r5, 100 writes !100.
        let sub = Insn {
            op: Op::SubI,
            ..decode(0x0448_0003)
        };
        assert_eq!(
            translate(0, &sub),
            RunOp::AddI {
                rd: Reg::R1,
                a: Reg::R2,
                imm: -3i32 as u32
            }
        );
        let not = Insn {
            op: Op::NotI,
            ..decode(0x4d40_0064)
        };
        assert_eq!(
            translate(0, &not),
            RunOp::Set {
                rd: Reg::R5,
                value: !100
            }
        );
    }

    #[test]
    fn what_may_fault_or_stop_goes_to_execute() {
        let negative_shift = Insn {
            op: Op::LslI,
            ..decode(0x0448_fffb)
        };
        for insn in [
            negative_shift,
            Insn {
                op: Op::DivI,
                ..decode(0x0448_0003)
            },
            Insn {
                op: Op::Mod,
                ..decode(0x0048_c000)
            },
            Insn {
                op: Op::Lsr,
                ..decode(0x0048_c000)
            },
            Insn::bare(Op::Hlt),
            Insn::bare(Op::Print),
            Insn::bare(Op::Breakpoint),
            Insn::ILLEGAL,
        ] {
            assert_eq!(translate(0, &insn), RunOp::Execute, "{insn:?}");
        }
        // A shift by 3 is an op.
        let lsl = Insn {
            op: Op::LslI,
            ..decode(0x0448_0003)
        };
        assert_eq!(
            translate(0, &lsl),
            RunOp::LslI {
                rd: Reg::R1,
                a: Reg::R2,
                amount: 3
            }
        );
    }

    #[test]
    fn runs_end_at_transfers_the_end_of_the_code_and_the_cap() {
        let add = decode(0x0048_c000);
        let b = decode(0x97ff_fffe);
        let mut code = vec![add, add, b, add];
        code.extend(std::iter::repeat(add).take(100));
        let mut runs = Runs::default();
        runs.sync(&code, 1);
        assert_eq!(runs.last(0), Some(2));
        assert_eq!(runs.last(2), Some(2));
        assert_eq!(runs.last(3), Some(3 + MAX_RUN - 1));
        assert_eq!(runs.last(code.len() - 1), Some(code.len() - 1));
        assert_eq!(runs.last(code.len()), None);
    }

    #[test]
    fn an_op_is_as_small_as_an_encoded_instruction_pair() {
        assert_eq!(std::mem::size_of::<RunOp>(), 8);
    }
}
