//! Straight-line runs compiled to x86-64 machine code.
//!
//! A run (see `runs.rs`) whose ops are all ALU operations without a fault (everything but
//! division, remainder and shifts by a register), `cmp`, loads and stores, ending in a branch,
//! `call`, `ret` or nothing, compiles once the loop has entered it often enough into code that
//! executes its rounds as [`super::Core::run_ops`] does. A load or store whose address is
//! unaligned, past data memory or inside the watched span leaves the code *before* its
//! instruction, with nothing of it done; the loop then executes the rest the ordinary way.
//! Only 64-bit x86 Unix hosts compile; elsewhere every run is left to the ops.
//!
//! Why: one dispatch per instruction costs about seventeen host instructions; compiled, an
//! instruction takes a few, with no dispatch.
//!
//! The code is derived from the ops and cleared whenever they are derived again.

use asmdbg_core::code_memory::{CodeBuffer, CompiledCode, CompiledFn};

use super::runs::{Reg, RunOp};

/// What compiled code reads and writes: registers and flags are copied in and out around the
/// call; the rest is read.
#[repr(C)]
#[derive(Debug)]
pub(super) struct Context {
    /// Offset 0.
    pub regs: [u32; 16],
    /// Offsets 64 and 65: `flags.E` and `flags.GT`, 0 or 1.
    pub flag_e: u8,
    pub flag_gt: u8,
    _pad: [u8; 6],
    /// Offset 72: data memory, and (80) its length in words.
    pub mem: *mut u32,
    pub mem_words: u64,
    /// Offsets 88 and 96: accesses with `addr - watch_low < watch_span` may hit a watchpoint.
    pub watch_low: u64,
    pub watch_span: u64,
}

impl Context {
    pub fn new(
        regs: [u32; 16],
        flags: (bool, bool),
        mem: &mut [u32],
        watch: (u64, u64),
    ) -> Context {
        Context {
            regs,
            flag_e: flags.0.into(),
            flag_gt: flags.1.into(),
            _pad: [0; 6],
            mem: mem.as_mut_ptr(),
            mem_words: mem.len() as u64,
            watch_low: watch.0,
            watch_span: watch.1,
        }
    }
}

/// A compiled run. It leaves early (see [`asmdbg_core::code_memory::LEFT_EARLY`]) before a
/// load or store off the plain path.
pub(super) type RunFn = CompiledFn<Context>;

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

    /// The compiled code of `run`, the ops of the run that starts at `slot`, once the run was
    /// entered often enough; None if it does not compile (or not yet).
    #[inline(always)]
    pub(super) fn code(&mut self, slot: usize, run: &[RunOp]) -> Option<RunFn> {
        // SAFETY: `emit` writes whole functions of this type.
        unsafe { self.0.function(slot, || emit(slot as u32, run)) }
    }
}

/// Offsets in [`Context`].
const FLAG_E: u8 = 64;
const FLAG_GT: u8 = 65;
const MEM: u8 = 72;
const MEM_WORDS: u8 = 80;
const WATCH_LOW: u8 = 88;
const WATCH_SPAN: u8 = 96;

fn reg(r: Reg) -> u8 {
    (r as u8 & 15) * 4
}

fn is_transfer(op: &RunOp) -> bool {
    matches!(
        op,
        RunOp::Beq { .. } | RunOp::Bgt { .. } | RunOp::B { .. } | RunOp::Call { .. } | RunOp::Ret
    )
}

/// x86-64 code for the run of `run` that starts at slot `start`, or None if an op has no
/// translation. `rdi` is the [`Context`], `rsi` `max_rounds`, `r8` the rounds completed,
/// `r10b` and `r11b` the flags E and GT.
fn emit(start: u32, run: &[RunOp]) -> Option<Vec<u8>> {
    let fall = start.wrapping_add(run.len() as u32);
    let mut x = CodeBuffer::default();
    // xor r8d, r8d; movzx r10d, byte [rdi + FLAG_E]; movzx r11d, byte [rdi + FLAG_GT]
    x.bytes(&[0x45, 0x31, 0xC0, 0x44, 0x0F, 0xB6, 0x57, FLAG_E]);
    x.bytes(&[0x44, 0x0F, 0xB6, 0x5F, FLAG_GT]);
    let top = x.here();
    let mut early: Vec<(usize, usize)> = Vec::new();
    let (body, last) = match run.split_last() {
        Some((last, body)) if is_transfer(last) => (body, Some(*last)),
        _ => (run, None),
    };
    for (k, op) in body.iter().enumerate() {
        match *op {
            RunOp::Nop => {}
            RunOp::Add { rd, a, b } => binary(&mut x, &[0x03], rd, a, b),
            RunOp::Sub { rd, a, b } => binary(&mut x, &[0x2B], rd, a, b),
            RunOp::Mul { rd, a, b } => binary(&mut x, &[0x0F, 0xAF], rd, a, b),
            RunOp::And { rd, a, b } => binary(&mut x, &[0x23], rd, a, b),
            RunOp::Or { rd, a, b } => binary(&mut x, &[0x0B], rd, a, b),
            RunOp::Not { rd, b } => {
                load(&mut x, b);
                x.bytes(&[0xF7, 0xD0]); // not eax
                store(&mut x, rd);
            }
            RunOp::Mov { rd, b } => {
                load(&mut x, b);
                store(&mut x, rd);
            }
            RunOp::AddI { rd, a, imm } => immediate(&mut x, 0x05, rd, a, imm),
            RunOp::AndI { rd, a, imm } => immediate(&mut x, 0x25, rd, a, imm),
            RunOp::OrI { rd, a, imm } => immediate(&mut x, 0x0D, rd, a, imm),
            RunOp::MulI { rd, a, imm } => {
                // imul eax, [rdi + a], imm
                x.bytes(&[0x69, 0x47, reg(a)]);
                x.u32(imm);
                store(&mut x, rd);
            }
            RunOp::Set { rd, value } => {
                // mov dword [rdi + rd], value
                x.bytes(&[0xC7, 0x47, reg(rd)]);
                x.u32(value);
            }
            RunOp::Cmp { a, b } => {
                load(&mut x, a);
                x.bytes(&[0x3B, 0x47, reg(b)]); // cmp eax, [rdi + b]
                set_flags(&mut x);
            }
            RunOp::CmpI { a, imm } => {
                load(&mut x, a);
                x.bytes(&[0x3D]); // cmp eax, imm
                x.u32(imm);
                set_flags(&mut x);
            }
            RunOp::LslI { rd, a, amount } => shift(&mut x, 0xE0, rd, a, amount),
            RunOp::LsrI { rd, a, amount } => shift(&mut x, 0xE8, rd, a, amount),
            RunOp::AsrI { rd, a, amount } => shift(&mut x, 0xF8, rd, a, amount),
            RunOp::Ld { rd, a, off } => {
                word_index(&mut x, a, off, k, &mut early);
                // mov eax, [rdx + rcx*4]
                x.bytes(&[0x8B, 0x04, 0x8A]);
                store(&mut x, rd);
            }
            RunOp::St { value, a, off } => {
                word_index(&mut x, a, off, k, &mut early);
                load(&mut x, value);
                // mov [rdx + rcx*4], eax
                x.bytes(&[0x89, 0x04, 0x8A]);
            }
            _ => return None,
        }
    }
    // The slot after the round, in eax.
    match last {
        None => mov_eax(&mut x, fall),
        // test r10b, r10b / test r11b, r11b; mov eax, fall; mov edx, target; cmovne eax, edx
        Some(RunOp::Beq { target }) => branch(&mut x, &[0x45, 0x84, 0xD2], fall, target),
        Some(RunOp::Bgt { target }) => branch(&mut x, &[0x45, 0x84, 0xDB], fall, target),
        Some(RunOp::B { target }) => mov_eax(&mut x, target),
        Some(RunOp::Call { target }) => {
            // mov dword [rdi + ra], fall * 4
            x.bytes(&[0xC7, 0x47, reg(Reg::R15)]);
            x.u32(fall.wrapping_mul(4));
            mov_eax(&mut x, target);
        }
        Some(RunOp::Ret) => {
            load(&mut x, Reg::R15);
            x.bytes(&[0xC1, 0xE8, 0x02]); // shr eax, 2
        }
        Some(_) => return None,
    }
    x.end_round(start, top);
    end(&mut x);
    for (jump, k) in early {
        x.leave_early(jump, k);
        end(&mut x);
    }
    Some(x.code)
}

/// mov [rdi + FLAG_E], r10b; mov [rdi + FLAG_GT], r11b; mov rax, r8; ret
fn end(x: &mut CodeBuffer) {
    x.bytes(&[0x44, 0x88, 0x57, FLAG_E, 0x44, 0x88, 0x5F, FLAG_GT]);
    x.bytes(&[0x4C, 0x89, 0xC0, 0xC3]);
}

/// mov eax, [rdi + r]
fn load(x: &mut CodeBuffer, r: Reg) {
    x.bytes(&[0x8B, 0x47, reg(r)]);
}

/// mov [rdi + r], eax
fn store(x: &mut CodeBuffer, r: Reg) {
    x.bytes(&[0x89, 0x47, reg(r)]);
}

fn mov_eax(x: &mut CodeBuffer, value: u32) {
    x.bytes(&[0xB8]);
    x.u32(value);
}

/// rd = a `opcode` b (opcode: add 03, sub 2B, imul 0F AF, and 23, or 0B).
fn binary(x: &mut CodeBuffer, opcode: &[u8], rd: Reg, a: Reg, b: Reg) {
    load(x, a);
    x.bytes(opcode);
    x.bytes(&[0x47, reg(b)]);
    store(x, rd);
}

/// rd = a `opcode` imm (the eax forms: add 05, and 25, or 0D).
fn immediate(x: &mut CodeBuffer, opcode: u8, rd: Reg, a: Reg, imm: u32) {
    load(x, a);
    x.bytes(&[opcode]);
    x.u32(imm);
    store(x, rd);
}

/// rd = a shifted by `amount` (ModRM E0 shl, E8 shr, F8 sar).
fn shift(x: &mut CodeBuffer, modrm: u8, rd: Reg, a: Reg, amount: u8) {
    load(x, a);
    x.bytes(&[0xC1, modrm, amount & 31]);
    store(x, rd);
}

/// The flags of the `cmp` just done: sete r10b; setg r11b
fn set_flags(x: &mut CodeBuffer) {
    x.bytes(&[0x41, 0x0F, 0x94, 0xC2, 0x41, 0x0F, 0x9F, 0xC3]);
}

/// eax = target if the flag `test` looks at is set, else fall.
fn branch(x: &mut CodeBuffer, test: &[u8], fall: u32, target: u32) {
    x.bytes(test);
    mov_eax(x, fall);
    x.bytes(&[0xBA]);
    x.u32(target);
    x.bytes(&[0x0F, 0x45, 0xC2]);
}

/// rcx = the word index of a load or store at a + off, rdx = memory; leaves before op `k`
/// (through `early`) if the address is unaligned, past memory or in the watched span.
fn word_index(x: &mut CodeBuffer, a: Reg, off: u32, k: usize, early: &mut Vec<(usize, usize)>) {
    load(x, a);
    x.bytes(&[0x05]); // add eax, off
    x.u32(off);
    // test al, 3; jnz
    x.bytes(&[0xA8, 0x03]);
    early.push((x.jump_if(0x85), k));
    // mov ecx, eax; shr ecx, 2; cmp rcx, [rdi + MEM_WORDS]; jae
    x.bytes(&[0x89, 0xC1, 0xC1, 0xE9, 0x02, 0x48, 0x3B, 0x4F, MEM_WORDS]);
    early.push((x.jump_if(0x83), k));
    // mov edx, eax; sub rdx, [rdi + WATCH_LOW]; cmp rdx, [rdi + WATCH_SPAN]; jb
    x.bytes(&[
        0x89, 0xC2, 0x48, 0x2B, 0x57, WATCH_LOW, 0x48, 0x3B, 0x57, WATCH_SPAN,
    ]);
    early.push((x.jump_if(0x82), k));
    // mov rdx, [rdi + MEM]
    x.bytes(&[0x48, 0x8B, 0x57, MEM]);
}

#[cfg(all(test, target_arch = "x86_64", unix))]
mod tests {
    use std::sync::Arc;

    use asmdbg_core::code_memory::ENTRIES_BEFORE_COMPILING;

    use super::*;
    use crate::cpu::Cpu;
    use crate::decode::{Insn, Modifier, Op};

    /// Values at the edges: signs, shift amounts past 31, addresses unaligned, past the 256
    /// bytes of data memory, or wrapping.
    const EDGES: [u32; 9] = [0, 1, 2, 8, 31, 33, 252, 0x8000_0000, u32::MAX];

    fn insn(op: Op, rd: u8, rs1: u8, rs2: u8, imm: u32) -> Insn {
        Insn {
            op,
            rd,
            rs1,
            rs2,
            modifier: Modifier::Default,
            imm16: imm as u16,
            imm,
        }
    }

    /// A cpu with `code`, 256 bytes of data memory holding their own addresses, r1 and r2
    /// set, the return address 8 (slot 2), and the flags.
    fn cpu(code: &[Insn], r1: u32, r2: u32, flags: (bool, bool)) -> Cpu {
        let mut cpu = Cpu::new(code.to_vec(), Vec::new(), 256, Arc::from("t"), Vec::new());
        cpu.regs[1] = r1;
        cpu.regs[2] = r2;
        cpu.regs[15] = 8;
        (cpu.flag_e, cpu.flag_gt) = flags;
        for (k, word) in cpu.mem.iter_mut().enumerate() {
            *word = 4 * k as u32;
        }
        cpu
    }

    /// Runs `code` (one run) compiled and as ops from the same state and checks they end
    /// alike: the code leaves before an instruction exactly where the ops trap on it.
    fn compare(code: &[Insn], r1: u32, r2: u32, flags: (bool, bool), max_rounds: u64) {
        let mut compiled = cpu(code, r1, r2, flags);
        let mut interpreted = cpu(code, r1, r2, flags);
        compiled.runs.sync(code, 0);
        let end = code.len() - 1;
        assert_eq!(compiled.runs.last(0), Some(end), "one run");
        let ops = compiled.runs.ops(0, end).to_vec();
        let mut jit = Jit::default();
        let function = (0..=ENTRIES_BEFORE_COMPILING)
            .find_map(|_| jit.code(0, &ops))
            .expect("the run compiles");
        let (rounds, left_at) = {
            let (mut core, _, _) = compiled.split();
            let outcome = core.run_compiled(function, max_rounds);
            let kept = core.kept();
            compiled.settle(kept);
            outcome
        };
        let (their_rounds, trapped) = {
            let (mut core, _, _) = interpreted.split();
            let outcome = core.run_ops(&ops, code, max_rounds);
            let kept = core.kept();
            interpreted.settle(kept);
            outcome
        };
        let context = format!("{code:?} from r1 {r1:#x} r2 {r2:#x} {flags:?}");
        assert_eq!(rounds, their_rounds, "{context}");
        assert_eq!(left_at.is_some(), trapped.is_err(), "{context}");
        assert_eq!(compiled.pc, interpreted.pc, "{context}");
        assert_eq!(compiled.regs, interpreted.regs, "{context}");
        assert_eq!(
            (compiled.flag_e, compiled.flag_gt),
            (interpreted.flag_e, interpreted.flag_gt),
            "{context}"
        );
        assert_eq!(compiled.mem, interpreted.mem, "{context}");
    }

    #[test]
    fn every_operation_matches_the_ops_at_the_edges() {
        // Each writes r3 from r1 and r2 (or r1 and an immediate); loads and stores address
        // r1 + 4 (st stores r2).
        let ops = [
            insn(Op::Add, 3, 1, 2, 0),
            insn(Op::Sub, 3, 1, 2, 0),
            insn(Op::Mul, 3, 1, 2, 0),
            insn(Op::And, 3, 1, 2, 0),
            insn(Op::Or, 3, 1, 2, 0),
            insn(Op::Not, 3, 0, 2, 0),
            insn(Op::Mov, 3, 0, 2, 0),
            insn(Op::AddI, 3, 1, 0, (-5i32) as u32),
            insn(Op::SubI, 3, 1, 0, 7),
            insn(Op::MulI, 3, 1, 0, (-3i32) as u32),
            insn(Op::AndI, 3, 1, 0, 0xff0f),
            insn(Op::OrI, 3, 1, 0, 0x1_0000),
            insn(Op::MovI, 3, 0, 0, 0x8000_0001),
            insn(Op::NotI, 3, 0, 0, 5),
            insn(Op::Cmp, 0, 1, 2, 0),
            insn(Op::CmpI, 0, 1, 0, (-1i32) as u32),
            insn(Op::LslI, 3, 1, 0, 3),
            insn(Op::LsrI, 3, 1, 0, 31),
            insn(Op::AsrI, 3, 1, 0, 33),
            insn(Op::Ld, 3, 1, 0, 4),
            insn(Op::St, 2, 1, 0, 4),
        ];
        for op in ops {
            for r1 in EDGES {
                for r2 in EDGES {
                    for flags in [(false, false), (true, false), (false, true)] {
                        compare(&[op], r1, r2, flags, 1);
                    }
                }
            }
        }
    }

    #[test]
    fn every_branch_matches_the_ops_and_loops_up_to_the_rounds_allowed() {
        // add r1, r1, 1 first, so rounds differ; then the transfer back to slot 0 (or on).
        let add = insn(Op::AddI, 1, 1, 0, 1);
        let cmp = insn(Op::Cmp, 0, 2, 1, 0);
        let tails = [
            insn(Op::Beq, 0, 0, 0, (-2i32) as u32),
            insn(Op::Bgt, 0, 0, 0, (-2i32) as u32),
            insn(Op::B, 0, 0, 0, (-2i32) as u32),
            insn(Op::Call, 0, 0, 0, (-2i32) as u32),
            insn(Op::Ret, 0, 0, 0, 0),
        ];
        for tail in tails {
            for r2 in [0, 3, 5, u32::MAX] {
                for max_rounds in [1, 2, 7] {
                    // `ret` goes to slot 2, itself.
                    compare(&[add, cmp, tail], 0, r2, (false, false), max_rounds);
                }
            }
        }
    }

    #[test]
    fn a_load_in_a_later_round_that_leaves_counts_the_rounds_before_it() {
        // ld r3, 0[r1]; add r1, r1, 64; b back: the fifth address is past memory.
        let code = [
            insn(Op::Ld, 3, 1, 0, 0),
            insn(Op::AddI, 1, 1, 0, 64),
            insn(Op::B, 0, 0, 0, (-2i32) as u32),
        ];
        compare(&code, 0, 0, (false, false), 100);
    }

    #[test]
    fn runs_that_may_fault_otherwise_do_not_compile() {
        for op in [
            insn(Op::Div, 3, 1, 2, 0),
            insn(Op::ModI, 3, 1, 0, 3),
            insn(Op::Lsl, 3, 1, 2, 0),
            insn(Op::LslI, 3, 1, 0, (-1i32) as u32),
            Insn::bare(Op::Hlt),
            Insn::bare(Op::Print),
        ] {
            let mut runs = super::super::runs::Runs::default();
            runs.sync(&[op], 0);
            assert!(emit(0, runs.ops(0, 0)).is_none(), "{op:?}");
        }
    }
}
