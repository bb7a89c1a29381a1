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

use asmdbg_core::code_memory::{CompiledCode, CompiledFn};
use asmdbg_core::x64;
use asmdbg_core::x64::{EarlyExits, Ops};

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
const FLAG_E: i8 = 64;
const FLAG_GT: i8 = 65;
const MEM: i8 = 72;
const MEM_WORDS: i8 = 80;
const WATCH_LOW: i8 = 88;
const WATCH_SPAN: i8 = 96;

/// The displacement of register `r` in [`Context::regs`].
fn reg(r: Reg) -> i8 {
    (r as u8 & 15) as i8 * 4
}

fn is_transfer(op: &RunOp) -> bool {
    matches!(
        op,
        RunOp::Beq { .. } | RunOp::Bgt { .. } | RunOp::B { .. } | RunOp::Call { .. } | RunOp::Ret
    )
}

/// x86-64 code for the run of `run` that starts at slot `start`, or None if an op has no
/// translation. Registers as [`asmdbg_core::x64`] has them, and `r10b` and `r11b` the flags E
/// and GT.
fn emit(start: u32, run: &[RunOp]) -> Option<Vec<u8>> {
    let fall = start.wrapping_add(run.len() as u32);
    let mut x = Asm {
        ops: x64::ops(),
        early: EarlyExits::default(),
    };
    let top = x.ops.new_dynamic_label();
    x64!(x.ops
        ; xor r8d, r8d // rounds
        ; movzx r10d, BYTE [BYTE context + FLAG_E]
        ; movzx r11d, BYTE [BYTE context + FLAG_GT]
        ; =>top
    );
    let (body, last) = match run.split_last() {
        Some((last, body)) if is_transfer(last) => (body, Some(*last)),
        _ => (run, None),
    };
    for (k, op) in body.iter().enumerate() {
        match *op {
            RunOp::Nop => {}
            RunOp::Add { rd, a, b } => x.binary(Alu::Add, rd, a, b),
            RunOp::Sub { rd, a, b } => x.binary(Alu::Sub, rd, a, b),
            RunOp::Mul { rd, a, b } => x.binary(Alu::Mul, rd, a, b),
            RunOp::And { rd, a, b } => x.binary(Alu::And, rd, a, b),
            RunOp::Or { rd, a, b } => x.binary(Alu::Or, rd, a, b),
            RunOp::Not { rd, b } => {
                x.load(b);
                x64!(x.ops; not eax);
                x.store(rd);
            }
            RunOp::Mov { rd, b } => {
                x.load(b);
                x.store(rd);
            }
            RunOp::AddI { rd, a, imm } => x.immediate(Alu::Add, rd, a, imm),
            RunOp::AndI { rd, a, imm } => x.immediate(Alu::And, rd, a, imm),
            RunOp::OrI { rd, a, imm } => x.immediate(Alu::Or, rd, a, imm),
            RunOp::MulI { rd, a, imm } => x.immediate(Alu::Mul, rd, a, imm),
            RunOp::Set { rd, value } => {
                x64!(x.ops; mov DWORD [BYTE context + reg(rd)], value as i32);
            }
            RunOp::Cmp { a, b } => {
                x.load(a);
                x64!(x.ops; cmp eax, [BYTE context + reg(b)]);
                x.set_flags();
            }
            RunOp::CmpI { a, imm } => {
                x.load(a);
                x64!(x.ops; cmp eax, DWORD imm as i32);
                x.set_flags();
            }
            RunOp::LslI { rd, a, amount } => x.shift(Shift::Left, rd, a, amount),
            RunOp::LsrI { rd, a, amount } => x.shift(Shift::Right, rd, a, amount),
            RunOp::AsrI { rd, a, amount } => x.shift(Shift::RightArithmetic, rd, a, amount),
            RunOp::Ld { rd, a, off } => {
                x.word_index(a, off, k);
                x64!(x.ops; mov eax, [rdx + rcx * 4]);
                x.store(rd);
            }
            RunOp::St { value, a, off } => {
                x.word_index(a, off, k);
                x.load(value);
                x64!(x.ops; mov [rdx + rcx * 4], eax);
            }
            _ => return None,
        }
    }
    // The slot after the round, in `pc`.
    match last {
        None => x.mov_pc(fall),
        Some(RunOp::Beq { target }) => {
            x64!(x.ops; test r10b, r10b);
            x.branch(fall, target);
        }
        Some(RunOp::Bgt { target }) => {
            x64!(x.ops; test r11b, r11b);
            x.branch(fall, target);
        }
        Some(RunOp::B { target }) => x.mov_pc(target),
        Some(RunOp::Call { target }) => {
            let ra = fall.wrapping_mul(4) as i32;
            x64!(x.ops; mov DWORD [BYTE context + reg(Reg::R15)], ra);
            x.mov_pc(target);
        }
        Some(RunOp::Ret) => {
            x.load(Reg::R15);
            x64!(x.ops; shr eax, 2);
        }
        Some(_) => return None,
    }
    x64::end_round(&mut x.ops, start, top);
    end(&mut x.ops);
    x.early.write(&mut x.ops, |ops, ()| end(ops));
    Some(x64::finish(x.ops))
}

/// The flags back into the context, `rax` the rounds completed.
fn end(ops: &mut Ops) {
    x64!(ops
        ; mov [BYTE context + FLAG_E], r10b
        ; mov [BYTE context + FLAG_GT], r11b
        ; mov rax, rounds
        ; ret
    );
}

/// An operation of `eax` with a register or an immediate.
#[derive(Clone, Copy)]
enum Alu {
    Add,
    Sub,
    Mul,
    And,
    Or,
}

#[derive(Clone, Copy)]
enum Shift {
    Left,
    Right,
    RightArithmetic,
}

/// A run being written.
struct Asm {
    ops: Ops,
    /// The loads and stores off the plain path, which leave before their op.
    early: EarlyExits,
}

impl Asm {
    /// eax = r
    fn load(&mut self, r: Reg) {
        x64!(self.ops; mov eax, [BYTE context + reg(r)]);
    }

    /// r = eax
    fn store(&mut self, r: Reg) {
        x64!(self.ops; mov [BYTE context + reg(r)], eax);
    }

    fn mov_pc(&mut self, value: u32) {
        x64!(self.ops; mov pc, DWORD value as i32);
    }

    /// rd = a `alu` b
    fn binary(&mut self, alu: Alu, rd: Reg, a: Reg, b: Reg) {
        self.load(a);
        let b = reg(b);
        match alu {
            Alu::Add => x64!(self.ops; add eax, [BYTE context + b]),
            Alu::Sub => x64!(self.ops; sub eax, [BYTE context + b]),
            Alu::Mul => x64!(self.ops; imul eax, [BYTE context + b]),
            Alu::And => x64!(self.ops; and eax, [BYTE context + b]),
            Alu::Or => x64!(self.ops; or eax, [BYTE context + b]),
        }
        self.store(rd);
    }

    /// rd = a `alu` imm
    fn immediate(&mut self, alu: Alu, rd: Reg, a: Reg, imm: u32) {
        let imm = imm as i32;
        match alu {
            Alu::Mul => x64!(self.ops; imul eax, [BYTE context + reg(a)], DWORD imm),
            Alu::Add => {
                self.load(a);
                x64!(self.ops; add eax, DWORD imm);
            }
            Alu::Sub => {
                self.load(a);
                x64!(self.ops; sub eax, DWORD imm);
            }
            Alu::And => {
                self.load(a);
                x64!(self.ops; and eax, DWORD imm);
            }
            Alu::Or => {
                self.load(a);
                x64!(self.ops; or eax, DWORD imm);
            }
        }
        self.store(rd);
    }

    /// rd = a shifted by `amount` (x86 masks it to 5 bits as the ops do).
    fn shift(&mut self, shift: Shift, rd: Reg, a: Reg, amount: u8) {
        self.load(a);
        let amount = (amount & 31) as i8;
        match shift {
            Shift::Left => x64!(self.ops; shl eax, amount),
            Shift::Right => x64!(self.ops; shr eax, amount),
            Shift::RightArithmetic => x64!(self.ops; sar eax, amount),
        }
        self.store(rd);
    }

    /// The flags of the `cmp` just done.
    fn set_flags(&mut self) {
        x64!(self.ops
            ; sete r10b
            ; setg r11b
        );
    }

    /// pc = target if the flag just tested is set, else fall.
    fn branch(&mut self, fall: u32, target: u32) {
        // Neither mov changes the flags.
        self.mov_pc(fall);
        x64!(self.ops
            ; mov next_d, DWORD target as i32
            ; cmovne pc, next_d
        );
    }

    /// rcx = the word index of a load or store at a + off, rdx = memory; leaves before op `k`
    /// if the address is unaligned, past memory or in the watched span.
    fn word_index(&mut self, a: Reg, off: u32, k: usize) {
        self.load(a);
        let stub = self.early.before(&mut self.ops, k, ());
        x64!(self.ops
            ; add eax, DWORD off as i32
            ; test al, 3
            ; jnz =>stub
            ; mov ecx, eax
            ; shr ecx, 2
            ; cmp rcx, [BYTE context + MEM_WORDS]
            ; jae =>stub
            ; mov edx, eax
            ; sub rdx, [BYTE context + WATCH_LOW]
            ; cmp rdx, [BYTE context + WATCH_SPAN]
            ; jb =>stub
            ; mov rdx, [BYTE context + MEM]
        );
    }
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
            let outcome = core.run_ops(&ops, code, max_rounds, &mut asmdbg_core::Unasked);
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
    fn a_run_reads_back_as_written() {
        let code = [
            insn(Op::MulI, 3, 1, 0, (-3i32) as u32),
            insn(Op::Cmp, 0, 1, 2, 0),
            insn(Op::St, 2, 1, 0, 4),
            insn(Op::Beq, 0, 0, 0, (-4i32) as u32),
        ];
        let mut runs = super::super::runs::Runs::default();
        runs.sync(&code, 0);
        let code = emit(0, runs.ops(0, 3)).expect("the run compiles");
        let Some(listing) = asmdbg_testsupport::x64::objdump(&code) else {
            return;
        };
        let text = listing.join("\n");
        for expected in [
            "movzx r10d,BYTE PTR [rdi+0x40]",
            "movzx r11d,BYTE PTR [rdi+0x41]",
            "imul eax,DWORD PTR [rdi+0x4],0xfffffffd",
            "mov DWORD PTR [rdi+0xc],eax",
            "cmp eax,DWORD PTR [rdi+0x8]",
            "sete r10b",
            "setg r11b",
            "add eax,0x4",
            "test al,0x3",
            "cmp rcx,QWORD PTR [rdi+0x50]",
            "sub rdx,QWORD PTR [rdi+0x58]",
            "cmp rdx,QWORD PTR [rdi+0x60]",
            "mov rdx,QWORD PTR [rdi+0x48]",
            "mov DWORD PTR [rdx+rcx*4],eax",
            "test r10b,r10b",
            "cmovne eax,edx",
            "mov BYTE PTR [rdi+0x40],r10b",
            "mov edx,0x2",
            "bts rdx,0x20",
        ] {
            assert!(text.contains(expected), "{expected} in\n{text}");
        }
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
