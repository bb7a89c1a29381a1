//! Straight-line runs of integer ops compiled to x86-64 machine code.
//!
//! A run (see `runs.rs`) whose ops are all register and immediate arithmetic, logic, shifts,
//! comparisons and `lui`, ending in a conditional branch, `j`, `jal` or `jr` (or in nothing),
//! compiles, once the loop has entered it often enough, into a function that executes the
//! run's rounds as the interpreter's ops would: the same registers in `Cpu::regs`, the rounds counted
//! against the same `max_rounds`, `add`/`addi`/`sub` leaving at the overflow with the index of
//! the op. Runs with anything else (loads, stores, `mul`, syscalls, breakpoint stops) stay with
//! the ops. Only 64-bit x86 Linux and the other Unixes get machine code; elsewhere every run is
//! left to the ops.
//!
//! Why: one dispatch per guest instruction tops out near a third of `qemu-mipsel` on this kind
//! of machine (see ops.rs); compiled runs execute the guest's instructions with no dispatch at
//! all, a few host instructions each.
//!
//! The compiled code is derived from the ops, which are derived from the breakpoint-patched
//! text: [`Jit::clear`] forgets it whenever they are derived again. A copied cpu (a snapshot)
//! starts with nothing compiled.

use asmdbg_core::code_memory::{CompiledCode, CompiledFn};
use asmdbg_core::x64;
use asmdbg_core::x64::{EarlyExits, Ops};

use super::ops::{Op, Reg};

/// A compiled run: its state is the cpu's registers (`$zero` reads 0 there and is never
/// written). It leaves early only at an overflow.
type RunFn = CompiledFn<u32>;

/// The compiled runs of the current ops, by the slot each starts at.
#[derive(Debug, Clone, Default)]
pub(super) struct Jit(CompiledCode);

impl Jit {
    /// Forgets every compiled run (the ops they came from changed).
    pub(super) fn clear(&mut self) {
        self.0.clear();
    }

    /// Compiles nothing while `off` (`Machine::set_compiled_code`).
    pub(super) fn set_off(&mut self, off: bool) {
        self.0.set_off(off);
    }

    /// The compiled code of `run`, the ops of the run that starts at `slot` (address `start`),
    /// once the run was entered often enough; None if it does not compile (or not yet).
    #[inline(always)]
    pub(super) fn code(&mut self, slot: usize, start: u32, run: &[Op]) -> Option<RunFn> {
        // SAFETY: `emit` writes whole functions of this type.
        unsafe { self.0.function(slot, || emit(start, run)) }
    }
}

/// The displacement of register `r` in the register array.
fn disp(r: Reg) -> i8 {
    (r as u8 & 31) as i8 * 4
}

/// x86-64 code for a run, or None if an op has no translation. Registers of the guest live in
/// memory at `context`; the rounds are counted up in `rounds` (see [`asmdbg_core::x64`]).
fn emit(start: u32, run: &[Op]) -> Option<Vec<u8>> {
    let fall = start.wrapping_add((run.len() as u32) << 2);
    let mut x = Asm {
        ops: x64::ops(),
        overflows: EarlyExits::default(),
    };
    let top = x.ops.new_dynamic_label();
    x64!(x.ops
        ; xor r8d, r8d // rounds
        ; =>top
    );
    let (body, last) = match run.split_last() {
        Some((last, body)) if is_transfer(last) => (body, Some(*last)),
        _ => (run, None),
    };
    for (k, op) in body.iter().enumerate() {
        match *op {
            Op::Nop => {}
            Op::Addu { rd, rs, rt } => x.binary(Alu::Add, rd, rs, rt),
            Op::Subu { rd, rs, rt } => x.binary(Alu::Sub, rd, rs, rt),
            Op::And { rd, rs, rt } => x.binary(Alu::And, rd, rs, rt),
            Op::Or { rd, rs, rt } => x.binary(Alu::Or, rd, rs, rt),
            Op::Xor { rd, rs, rt } => x.binary(Alu::Xor, rd, rs, rt),
            Op::Nor { rd, rs, rt } => {
                x.load(rs);
                x.with_reg(Alu::Or, rt);
                x64!(x.ops; not eax);
                x.store(rd);
            }
            Op::Add { rd, rs, rt } => {
                x.load(rs);
                x.with_reg(Alu::Add, rt);
                x.overflow(k);
                x.store(rd);
            }
            Op::Sub { rd, rs, rt } => {
                x.load(rs);
                x.with_reg(Alu::Sub, rt);
                x.overflow(k);
                x.store(rd);
            }
            Op::Slt { rd, rs, rt } => x.compare(rd, rs, Operand::Reg(rt), Less::Signed),
            Op::Sltu { rd, rs, rt } => x.compare(rd, rs, Operand::Reg(rt), Less::Unsigned),
            Op::Sll { rd, rt, sa } => x.shift(rd, rt, Amount::Imm(sa), Shift::Left),
            Op::Srl { rd, rt, sa } => x.shift(rd, rt, Amount::Imm(sa), Shift::Right),
            Op::Sra { rd, rt, sa } => x.shift(rd, rt, Amount::Imm(sa), Shift::RightArithmetic),
            Op::Sllv { rd, rt, rs } => x.shift(rd, rt, Amount::Reg(rs), Shift::Left),
            Op::Srlv { rd, rt, rs } => x.shift(rd, rt, Amount::Reg(rs), Shift::Right),
            Op::Srav { rd, rt, rs } => x.shift(rd, rt, Amount::Reg(rs), Shift::RightArithmetic),
            Op::Addiu { rt, rs, imm } => x.immediate(Alu::Add, rt, rs, imm),
            Op::Andi { rt, rs, imm } => x.immediate(Alu::And, rt, rs, imm),
            Op::Ori { rt, rs, imm } => x.immediate(Alu::Or, rt, rs, imm),
            Op::Xori { rt, rs, imm } => x.immediate(Alu::Xor, rt, rs, imm),
            Op::Addi { rt, rs, imm } => {
                x.load(rs);
                x64!(x.ops; add eax, DWORD imm);
                x.overflow(k);
                x.store(rt);
            }
            Op::Slti { rt, rs, imm } => x.compare(rt, rs, Operand::Imm(imm as u32), Less::Signed),
            Op::Sltiu { rt, rs, imm } => x.compare(rt, rs, Operand::Imm(imm), Less::Unsigned),
            Op::Lui { rt, value } => {
                x64!(x.ops; mov DWORD [BYTE context + disp(rt)], value as i32);
            }
            _ => return None,
        }
    }
    // The PC after the round, in `pc`.
    match last {
        None => x.mov_pc(fall),
        Some(Op::Beq { rs, rt, target }) => x.branch(rs, Some(rt), Taken::Equal, fall, target),
        Some(Op::Bne { rs, rt, target }) => x.branch(rs, Some(rt), Taken::NotEqual, fall, target),
        Some(Op::Blez { rs, target }) => x.branch(rs, None, Taken::LessOrEqual, fall, target),
        Some(Op::Bgtz { rs, target }) => x.branch(rs, None, Taken::Greater, fall, target),
        Some(Op::Bltz { rs, target }) => x.branch(rs, None, Taken::Less, fall, target),
        Some(Op::Bgez { rs, target }) => x.branch(rs, None, Taken::GreaterOrEqual, fall, target),
        Some(Op::J { target }) => x.mov_pc(target),
        Some(Op::Jal { target }) => {
            x64!(x.ops; mov DWORD [BYTE context + disp(Reg::R31)], fall as i32);
            x.mov_pc(target);
        }
        Some(Op::Jr { rs }) => x.load(rs),
        Some(_) => return None,
    }
    x64::end_round(&mut x.ops, start, top);
    let end = |ops: &mut Ops| x64!(ops; mov rax, rounds; ret);
    end(&mut x.ops);
    x.overflows.write(&mut x.ops, |ops, ()| end(ops));
    Some(x64::finish(x.ops))
}

fn is_transfer(op: &Op) -> bool {
    matches!(
        op,
        Op::Beq { .. }
            | Op::Bne { .. }
            | Op::Blez { .. }
            | Op::Bgtz { .. }
            | Op::Bltz { .. }
            | Op::Bgez { .. }
            | Op::J { .. }
            | Op::Jal { .. }
            | Op::Jr { .. }
    )
}

enum Operand {
    Reg(Reg),
    Imm(u32),
}

/// An operation of `eax` with a guest register or an immediate.
#[derive(Clone, Copy)]
enum Alu {
    Add,
    Sub,
    And,
    Or,
    Xor,
}

/// `slt` or `sltu`.
#[derive(Clone, Copy)]
enum Less {
    Signed,
    Unsigned,
}

/// A shift's amount.
#[derive(Clone, Copy)]
enum Amount {
    Imm(u8),
    Reg(Reg),
}

#[derive(Clone, Copy)]
enum Shift {
    Left,
    Right,
    RightArithmetic,
}

/// A branch's condition, after `cmp rs, rt` (or `cmp rs, 0`).
#[derive(Clone, Copy)]
enum Taken {
    Equal,
    NotEqual,
    LessOrEqual,
    Greater,
    Less,
    GreaterOrEqual,
}

/// A run being written.
struct Asm {
    ops: Ops,
    /// The overflows of `add`, `addi` and `sub`, which leave before their op.
    overflows: EarlyExits,
}

impl Asm {
    /// eax = r
    fn load(&mut self, r: Reg) {
        x64!(self.ops; mov eax, [BYTE context + disp(r)]);
    }

    /// r = eax
    fn store(&mut self, r: Reg) {
        x64!(self.ops; mov [BYTE context + disp(r)], eax);
    }

    /// eax `alu`= r
    fn with_reg(&mut self, alu: Alu, r: Reg) {
        let d = disp(r);
        match alu {
            Alu::Add => x64!(self.ops; add eax, [BYTE context + d]),
            Alu::Sub => x64!(self.ops; sub eax, [BYTE context + d]),
            Alu::And => x64!(self.ops; and eax, [BYTE context + d]),
            Alu::Or => x64!(self.ops; or eax, [BYTE context + d]),
            Alu::Xor => x64!(self.ops; xor eax, [BYTE context + d]),
        }
    }

    /// Leaves before op `k` if the last addition or subtraction overflowed.
    fn overflow(&mut self, k: usize) {
        let stub = self.overflows.before(&mut self.ops, k, ());
        x64!(self.ops; jo =>stub);
    }

    fn mov_pc(&mut self, value: u32) {
        x64!(self.ops; mov pc, DWORD value as i32);
    }

    /// rd = rs `alu` rt.
    fn binary(&mut self, alu: Alu, rd: Reg, rs: Reg, rt: Reg) {
        self.load(rs);
        self.with_reg(alu, rt);
        self.store(rd);
    }

    /// rt = rs `alu` imm.
    fn immediate(&mut self, alu: Alu, rt: Reg, rs: Reg, imm: u32) {
        self.load(rs);
        let imm = imm as i32;
        match alu {
            Alu::Add => x64!(self.ops; add eax, DWORD imm),
            Alu::Sub => x64!(self.ops; sub eax, DWORD imm),
            Alu::And => x64!(self.ops; and eax, DWORD imm),
            Alu::Or => x64!(self.ops; or eax, DWORD imm),
            Alu::Xor => x64!(self.ops; xor eax, DWORD imm),
        }
        self.store(rt);
    }

    /// rd = (rs < operand) as 1 or 0.
    fn compare(&mut self, rd: Reg, rs: Reg, operand: Operand, less: Less) {
        self.load(rs);
        match operand {
            Operand::Reg(rt) => x64!(self.ops; cmp eax, [BYTE context + disp(rt)]),
            Operand::Imm(imm) => x64!(self.ops; cmp eax, DWORD imm as i32),
        }
        match less {
            Less::Signed => x64!(self.ops; setl al),
            Less::Unsigned => x64!(self.ops; setb al),
        }
        x64!(self.ops; movzx eax, al);
        self.store(rd);
    }

    /// rd = rt shifted by `amount`: a register's goes through cl, which x86 masks to 5 bits
    /// as MIPS does.
    fn shift(&mut self, rd: Reg, rt: Reg, amount: Amount, shift: Shift) {
        let sa = match amount {
            Amount::Imm(sa) => Some((sa & 31) as i8),
            Amount::Reg(rs) => {
                x64!(self.ops; mov ecx, [BYTE context + disp(rs)]);
                None
            }
        };
        self.load(rt);
        match (sa, shift) {
            (Some(sa), Shift::Left) => x64!(self.ops; shl eax, sa),
            (Some(sa), Shift::Right) => x64!(self.ops; shr eax, sa),
            (Some(sa), Shift::RightArithmetic) => x64!(self.ops; sar eax, sa),
            (None, Shift::Left) => x64!(self.ops; shl eax, cl),
            (None, Shift::Right) => x64!(self.ops; shr eax, cl),
            (None, Shift::RightArithmetic) => x64!(self.ops; sar eax, cl),
        }
        self.store(rd);
    }

    /// pc = target if the branch is taken, else fall: two registers compared, or one against
    /// zero.
    fn branch(&mut self, rs: Reg, rt: Option<Reg>, taken: Taken, fall: u32, target: u32) {
        match rt {
            Some(rt) => {
                self.load(rs);
                x64!(self.ops; cmp eax, [BYTE context + disp(rt)]);
            }
            None => x64!(self.ops; cmp DWORD [BYTE context + disp(rs)], 0),
        }
        // Neither mov changes the flags.
        self.mov_pc(fall);
        x64!(self.ops; mov next_d, DWORD target as i32);
        match taken {
            Taken::Equal => x64!(self.ops; cmove pc, next_d),
            Taken::NotEqual => x64!(self.ops; cmovne pc, next_d),
            Taken::LessOrEqual => x64!(self.ops; cmovle pc, next_d),
            Taken::Greater => x64!(self.ops; cmovg pc, next_d),
            Taken::Less => x64!(self.ops; cmovl pc, next_d),
            Taken::GreaterOrEqual => x64!(self.ops; cmovge pc, next_d),
        }
    }
}

#[cfg(all(test, target_arch = "x86_64", unix))]
mod tests {
    use super::*;
    use crate::cpu::Cpu;
    use crate::decode::{decode, Instruction};
    use crate::memory::TEXT_BASE;
    use asmdbg_core::code_memory::{ENTRIES_BEFORE_COMPILING, LEFT_EARLY};

    use super::super::ops::translate;

    /// Values at the edges of every operation: signs, overflow, shift amounts past 31.
    const EDGES: [u32; 8] = [
        0,
        1,
        31,
        33,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_fff0,
        u32::MAX,
    ];

    /// Runs `words` (a run) through the compiled code and through the ops from the same
    /// registers, `max_rounds` rounds at most, and checks they end alike.
    fn compare(words: &[u32], regs: [u32; 32], max_rounds: u64) {
        let code: Vec<Instruction> = words.iter().map(|&w| decode(w)).collect();
        let pcs = (TEXT_BASE..).step_by(4);
        let ops: Vec<Op> = pcs.zip(&code).map(|(pc, &i)| translate(pc, i)).collect();
        let mut jit = Jit::default();
        let compiled = compiled_now(&mut jit, &ops);
        let mut ours = regs;
        // SAFETY: compiled from `ops`; 32 registers; max_rounds >= 1.
        let out = unsafe { compiled(ours.as_mut_ptr(), max_rounds) };
        let mut cpu = Cpu::new(TEXT_BASE);
        cpu.regs = regs;
        let (rounds, outcome) = cpu.run_ops(
            TEXT_BASE,
            &ops,
            &code,
            max_rounds,
            &mut asmdbg_core::Unasked,
        );
        let theirs = match outcome {
            Ok(next) => u64::from(next),
            Err((at, _)) => LEFT_EARLY | u64::from((at - TEXT_BASE) / 4),
        };
        let words: Vec<String> = words.iter().map(|w| format!("{w:08x}")).collect();
        let context = format!("{words:?} from {regs:x?}");
        assert_eq!((out.rounds, out.next), (rounds, theirs), "{context}");
        assert_eq!(ours, cpu.regs, "{context}");
    }

    /// The code of `ops` (a run at the text's start), entered until it compiles.
    fn compiled_now(jit: &mut Jit, ops: &[Op]) -> RunFn {
        (0..=ENTRIES_BEFORE_COMPILING)
            .find_map(|_| jit.code(0, TEXT_BASE, ops))
            .expect("an integer run compiles")
    }

    /// Registers with $t0 (8) and $t1 (9) set, $zero 0.
    fn with(t0: u32, t1: u32) -> [u32; 32] {
        let mut regs = [0; 32];
        regs[8] = t0;
        regs[9] = t1;
        regs
    }

    #[test]
    fn every_operation_matches_the_ops_at_the_edges() {
        // Each writes $t2 (10) from $t0 and $t1 (or $t0 and an immediate).
        let words = [
            0x0109_5021, // addu $t2, $t0, $t1
            0x0109_5023, // subu
            0x0109_5020, // add (overflows)
            0x0109_5022, // sub (overflows)
            0x0109_5024, // and
            0x0109_5025, // or
            0x0109_5026, // xor
            0x0109_5027, // nor
            0x0109_502a, // slt
            0x0109_502b, // sltu
            0x0008_5080, // sll $t2, $t0, 2
            0x0008_57c2, // srl $t2, $t0, 31
            0x0008_5043, // sra $t2, $t0, 1
            0x0128_5004, // sllv $t2, $t0, $t1
            0x0128_5006, // srlv
            0x0128_5007, // srav
            0x250a_fff0, // addiu $t2, $t0, -16
            0x210a_7fff, // addi $t2, $t0, 0x7fff (overflows)
            0x290a_fffe, // slti $t2, $t0, -2
            0x2d0a_fffe, // sltiu $t2, $t0, -2
            0x310a_8001, // andi
            0x350a_8001, // ori
            0x390a_8001, // xori
            0x3c0a_8001, // lui $t2, 0x8001
        ];
        for word in words {
            for t0 in EDGES {
                for t1 in EDGES {
                    compare(&[word], with(t0, t1), 1);
                }
            }
        }
    }

    #[test]
    fn every_branch_matches_the_ops_and_loops_up_to_the_rounds_allowed() {
        let words = [
            0x1109_fffe, // beq $t0, $t1, -2 (back to the run's start)
            0x1509_fffe, // bne $t0, $t1, back
            0x1900_fffe, // blez $t0, back
            0x1d00_fffe, // bgtz $t0, back
            0x0500_fffe, // bltz $t0, back
            0x0501_fffe, // bgez $t0, back
            0x0810_0000, // j 0x00400000 (the start)
            0x0c10_0000, // jal 0x00400000
            0x0100_0008, // jr $t0
        ];
        for word in words {
            for t0 in EDGES.into_iter().chain([TEXT_BASE]) {
                for t1 in [0, 1, u32::MAX] {
                    for max_rounds in [1, 2, 7] {
                        // addiu $t1, $t1, 1 first, so rounds differ.
                        compare(&[0x2529_0001, word], with(t0, t1), max_rounds);
                    }
                }
            }
        }
    }

    #[test]
    fn an_overflow_in_a_later_round_counts_the_rounds_before_it() {
        // addiu $t0, $t0, 1; add $t2, $t0, $t1; j start: overflows when $t0 + $t1 passes
        // the largest positive value.
        compare(
            &[0x2508_0001, 0x0109_5020, 0x0810_0000],
            with(0, 0x7fff_fff0),
            100,
        );
    }

    #[test]
    fn a_run_reads_back_as_written() {
        // add $t2, $t0, $t1; sllv $t2, $t0, $t1; sltiu $t2, $t0, -2; bne $t0, $t1, back
        let words = [0x0109_5020, 0x0128_5004, 0x2d0a_fffe, 0x1509_fffc];
        let pcs = (TEXT_BASE..).step_by(4);
        let ops: Vec<Op> = pcs
            .zip(words)
            .map(|(pc, w)| translate(pc, decode(w)))
            .collect();
        let code = emit(TEXT_BASE, &ops).expect("an integer run compiles");
        let Some(listing) = asmdbg_testsupport::x64::objdump(&code) else {
            return;
        };
        let text = listing.join("\n");
        for expected in [
            "xor r8d,r8d",
            "mov eax,DWORD PTR [rdi+0x20]",
            "add eax,DWORD PTR [rdi+0x24]",
            "jo ",
            "mov DWORD PTR [rdi+0x28],eax",
            "mov ecx,DWORD PTR [rdi+0x24]",
            "shl eax,cl",
            "cmp eax,0xfffffffe",
            "setb al",
            "movzx eax,al",
            "mov eax,0x400010",
            "mov edx,0x400000",
            "cmovne eax,edx",
            "inc r8",
            "mov rax,r8",
            "mov edx,0x0",
            "bts rdx,0x20",
        ] {
            assert!(text.contains(expected), "{expected} in\n{text}");
        }
    }

    #[test]
    fn runs_with_memory_or_other_instructions_do_not_compile() {
        for word in [
            0x8fa8_fffc, // lw $t0, -4($sp)
            0xafa8_fffc, // sw
            0x7109_5002, // mul
            0x0000_000c, // syscall
            0x0109_001a, // div
        ] {
            let op = translate(TEXT_BASE, decode(word));
            assert!(emit(TEXT_BASE, &[op]).is_none(), "{word:08x}");
        }
        // A breakpoint's stop is not an op either.
        let stop = translate(TEXT_BASE, Instruction::DebugStop);
        assert!(emit(TEXT_BASE, &[stop]).is_none());
    }

    #[test]
    fn a_copied_cpu_compiles_its_own_code() {
        let mut jit = Jit::default();
        let ops = [translate(TEXT_BASE, decode(0x0109_5021))];
        compiled_now(&mut jit, &ops);
        assert_eq!(format!("{jit:?}"), "Jit(CompiledCode { 1 compiled })");
        assert_eq!(
            format!("{:?}", jit.clone()),
            "Jit(CompiledCode { 0 compiled })"
        );
    }
}
