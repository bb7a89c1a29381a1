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

use asmdbg_core::code_memory::{CodeBuffer, CompiledCode, CompiledFn};

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

    /// The compiled code of `run`, the ops of the run that starts at `slot` (address `start`),
    /// once the run was entered often enough; None if it does not compile (or not yet).
    #[inline(always)]
    pub(super) fn code(&mut self, slot: usize, start: u32, run: &[Op]) -> Option<RunFn> {
        // SAFETY: `emit` writes whole functions of this type.
        unsafe { self.0.function(slot, || emit(start, run)) }
    }
}

/// The displacement of register `r` in the register array.
fn disp(r: Reg) -> u8 {
    (r as u8 & 31) * 4
}

/// x86-64 code for a run, or None if an op has no translation. Registers of the guest live in
/// memory at `rdi`; `rsi` is `max_rounds`, `r8` the rounds completed.
fn emit(start: u32, run: &[Op]) -> Option<Vec<u8>> {
    let fall = start.wrapping_add((run.len() as u32) << 2);
    let mut x = Asm::default();
    // xor r8d, r8d
    x.bytes(&[0x45, 0x31, 0xC0]);
    let top = x.here();
    let mut overflows = Vec::new();
    let (body, last) = match run.split_last() {
        Some((last, body)) if is_transfer(last) => (body, Some(*last)),
        _ => (run, None),
    };
    for (k, op) in body.iter().enumerate() {
        match *op {
            Op::Nop => {}
            Op::Addu { rd, rs, rt } => x.binary(0x03, rd, rs, rt),
            Op::Subu { rd, rs, rt } => x.binary(0x2B, rd, rs, rt),
            Op::And { rd, rs, rt } => x.binary(0x23, rd, rs, rt),
            Op::Or { rd, rs, rt } => x.binary(0x0B, rd, rs, rt),
            Op::Xor { rd, rs, rt } => x.binary(0x33, rd, rs, rt),
            Op::Nor { rd, rs, rt } => {
                x.load(EAX, rs);
                x.with_reg(0x0B, rt);
                x.bytes(&[0xF7, 0xD0]); // not eax
                x.store(rd);
            }
            Op::Add { rd, rs, rt } | Op::Sub { rd, rs, rt } => {
                x.load(EAX, rs);
                x.with_reg(
                    if matches!(op, Op::Add { .. }) {
                        0x03
                    } else {
                        0x2B
                    },
                    rt,
                );
                overflows.push((x.jump_if(0x80), k));
                x.store(rd);
            }
            Op::Slt { rd, rs, rt } => x.compare(rd, rs, Operand::Reg(rt), 0x9C),
            Op::Sltu { rd, rs, rt } => x.compare(rd, rs, Operand::Reg(rt), 0x92),
            Op::Sll { rd, rt, sa } => x.shift(rd, rt, Some(sa), 0xE0),
            Op::Srl { rd, rt, sa } => x.shift(rd, rt, Some(sa), 0xE8),
            Op::Sra { rd, rt, sa } => x.shift(rd, rt, Some(sa), 0xF8),
            Op::Sllv { rd, rt, rs } => {
                x.load(ECX, rs);
                x.shift(rd, rt, None, 0xE0)
            }
            Op::Srlv { rd, rt, rs } => {
                x.load(ECX, rs);
                x.shift(rd, rt, None, 0xE8)
            }
            Op::Srav { rd, rt, rs } => {
                x.load(ECX, rs);
                x.shift(rd, rt, None, 0xF8)
            }
            Op::Addiu { rt, rs, imm } => x.immediate(0x05, rt, rs, imm),
            Op::Andi { rt, rs, imm } => x.immediate(0x25, rt, rs, imm),
            Op::Ori { rt, rs, imm } => x.immediate(0x0D, rt, rs, imm),
            Op::Xori { rt, rs, imm } => x.immediate(0x35, rt, rs, imm),
            Op::Addi { rt, rs, imm } => {
                x.load(EAX, rs);
                x.bytes(&[0x05]);
                x.u32(imm as u32);
                overflows.push((x.jump_if(0x80), k));
                x.store(rt);
            }
            Op::Slti { rt, rs, imm } => x.compare(rt, rs, Operand::Imm(imm as u32), 0x9C),
            Op::Sltiu { rt, rs, imm } => x.compare(rt, rs, Operand::Imm(imm), 0x92),
            Op::Lui { rt, value } => {
                // mov dword [rdi + rt], value
                x.bytes(&[0xC7, 0x47, disp(rt)]);
                x.u32(value);
            }
            _ => return None,
        }
    }
    // The PC after the round, in eax.
    match last {
        None => x.mov_eax(fall),
        Some(Op::Beq { rs, rt, target }) => x.branch(rs, Some(rt), 0x44, fall, target),
        Some(Op::Bne { rs, rt, target }) => x.branch(rs, Some(rt), 0x45, fall, target),
        Some(Op::Blez { rs, target }) => x.branch(rs, None, 0x4E, fall, target),
        Some(Op::Bgtz { rs, target }) => x.branch(rs, None, 0x4F, fall, target),
        Some(Op::Bltz { rs, target }) => x.branch(rs, None, 0x4C, fall, target),
        Some(Op::Bgez { rs, target }) => x.branch(rs, None, 0x4D, fall, target),
        Some(Op::J { target }) => x.mov_eax(target),
        Some(Op::Jal { target }) => {
            // mov dword [rdi + $ra], fall
            x.bytes(&[0xC7, 0x47, disp(Reg::R31)]);
            x.u32(fall);
            x.mov_eax(target);
        }
        Some(Op::Jr { rs }) => x.load(EAX, rs),
        Some(_) => return None,
    }
    x.end_round(start, top);
    // mov rax, r8; ret
    const END: [u8; 4] = [0x4C, 0x89, 0xC0, 0xC3];
    x.bytes(&END);
    for (jump, k) in overflows {
        x.leave_early(jump, k);
        x.bytes(&END);
    }
    Some(x.buffer.code)
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

/// Host register numbers as ModRM's `reg` field has them.
const EAX: u8 = 0;
const ECX: u8 = 1;

enum Operand {
    Reg(Reg),
    Imm(u32),
}

/// The few x86-64 encodings the runs need.
#[derive(Default)]
struct Asm {
    buffer: CodeBuffer,
}

impl std::ops::Deref for Asm {
    type Target = CodeBuffer;
    fn deref(&self) -> &CodeBuffer {
        &self.buffer
    }
}

impl std::ops::DerefMut for Asm {
    fn deref_mut(&mut self) -> &mut CodeBuffer {
        &mut self.buffer
    }
}

impl Asm {
    /// mov host, [rdi + r]
    fn load(&mut self, host: u8, r: Reg) {
        self.bytes(&[0x8B, 0x47 | (host << 3), disp(r)]);
    }

    /// mov [rdi + r], eax
    fn store(&mut self, r: Reg) {
        self.bytes(&[0x89, 0x47, disp(r)]);
    }

    /// `opcode` eax, [rdi + r] (add 03, sub 2B, and 23, or 0B, xor 33, cmp 3B).
    fn with_reg(&mut self, opcode: u8, r: Reg) {
        self.bytes(&[opcode, 0x47, disp(r)]);
    }

    fn mov_eax(&mut self, value: u32) {
        self.bytes(&[0xB8]);
        self.u32(value);
    }

    /// rd = rs `opcode` rt.
    fn binary(&mut self, opcode: u8, rd: Reg, rs: Reg, rt: Reg) {
        self.load(EAX, rs);
        self.with_reg(opcode, rt);
        self.store(rd);
    }

    /// rt = rs `opcode` imm (add 05, and 25, or 0D, xor 35: the eax forms).
    fn immediate(&mut self, opcode: u8, rt: Reg, rs: Reg, imm: u32) {
        self.load(EAX, rs);
        self.bytes(&[opcode]);
        self.u32(imm);
        self.store(rt);
    }

    /// rd = (rs < operand) as 1 or 0, with `setcc` 9C (less, signed) or 92 (below).
    fn compare(&mut self, rd: Reg, rs: Reg, operand: Operand, setcc: u8) {
        self.load(EAX, rs);
        match operand {
            Operand::Reg(rt) => self.with_reg(0x3B, rt),
            Operand::Imm(imm) => {
                self.bytes(&[0x3D]);
                self.u32(imm);
            }
        }
        // setcc al; movzx eax, al
        self.bytes(&[0x0F, setcc, 0xC0, 0x0F, 0xB6, 0xC0]);
        self.store(rd);
    }

    /// rd = rt shifted by `sa` or by cl (which x86 masks to 5 bits, as MIPS does), with the
    /// ModRM byte E0 (shl), E8 (shr) or F8 (sar).
    fn shift(&mut self, rd: Reg, rt: Reg, sa: Option<u8>, modrm: u8) {
        self.load(EAX, rt);
        match sa {
            Some(sa) => self.bytes(&[0xC1, modrm, sa & 31]),
            None => self.bytes(&[0xD3, modrm]),
        }
        self.store(rd);
    }

    /// eax = target if the condition `cmovcc` holds, else fall: for two registers compared
    /// (cmove 44, cmovne 45) or one against zero (cmovl 4C, cmovge 4D, cmovle 4E, cmovg 4F).
    fn branch(&mut self, rs: Reg, rt: Option<Reg>, cmovcc: u8, fall: u32, target: u32) {
        match rt {
            Some(rt) => {
                self.load(EAX, rs);
                self.with_reg(0x3B, rt);
            }
            // cmp dword [rdi + rs], 0
            None => self.bytes(&[0x83, 0x7F, disp(rs), 0x00]),
        }
        // mov eax, fall; mov edx, target (neither changes the flags); cmovcc eax, edx
        self.mov_eax(fall);
        self.bytes(&[0xBA]);
        self.u32(target);
        self.bytes(&[0x0F, cmovcc, 0xC2]);
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
        let (rounds, outcome) = cpu.run_ops(TEXT_BASE, &ops, &code, max_rounds);
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
