//! Blocks compiled to x86-64 machine code.
//!
//! A block (see `blocks.rs`) that is worth it compiles, once the run loop has entered it often
//! enough, into a function that executes its rounds as [`super::Cpu::run_block`] does on the
//! plain path: operate instructions, LEA, and the loads and stores whose address is ordinary
//! memory. An access that is anything else (see [`AccessMap`]) leaves the code *before* its
//! instruction, with nothing of it done; the run loop then executes the rest the ordinary way
//! (the same block interpreted, or the block that starts at that instruction). Only 64-bit x86
//! Unix hosts compile; elsewhere every block is interpreted.
//!
//! Why: one dispatch per instruction costs about twenty host instructions; compiled, with the
//! guest registers the block uses held in host registers for all its rounds, an instruction
//! takes one to four, with no dispatch.
//!
//! The code lives as long as the blocks: [`super::blocks::BlockCache::flush`] clears both.

use asmdbg_core::code_memory::CompiledFn;
use asmdbg_core::x64;
use asmdbg_core::x64::{DynamicLabel, EarlyExits, Ops, Rq};

use super::blocks::{AccessMap, Block, Op, Reg, Tail};

/// What compiled code reads and writes: the registers and the condition codes' value are
/// copied in and out around the call; the rest is read.
#[repr(C)]
#[derive(Debug)]
pub(super) struct Context {
    /// Offset 0.
    pub regs: [u16; 8],
    /// Offset 16: a value whose condition codes are the current ones (see `run_chain`).
    pub last: u32,
    _pad: u32,
    /// Offset 24: memory.
    pub mem: *mut u16,
    /// Offset 32: the view of the [`AccessMap`] of the current privilege.
    pub access: *const u8,
    /// Offset 40: `max_rounds`, kept here by the code while it runs.
    max_rounds: u64,
}

impl Context {
    pub fn new(regs: [u16; 8], last: u16, mem: *mut u16, access: *const u8) -> Context {
        Context {
            regs,
            last: last.into(),
            _pad: 0,
            mem,
            access,
            max_rounds: 0,
        }
    }
}

/// A compiled block. It leaves early (see [`asmdbg_core::code_memory::LEFT_EARLY`]) before
/// an access off the plain path.
pub(super) type BlockFn = CompiledFn<Context>;

/// Offsets in [`Context`].
const LAST: i8 = 16;
const MEM: i8 = 24;
const ACCESS: i8 = 32;
const MAX_ROUNDS: i8 = 40;

/// The host registers guest registers live in while the code runs, taken in this order by the
/// guest registers a block uses. The others: `rdi` the [`Context`], `rsi` the rounds left
/// (counted down from `max_rounds`: `r8` holds a guest register here), `r9` the access map,
/// `r10` the condition codes' value (wherever they are not in a guest register), `r11`
/// memory, `eax` and `edx` scratch (`edx` the outcome's `next` at the end).
const POOL: [Rq; 8] = [
    Rq::RCX,
    Rq::R8,
    Rq::RBX,
    Rq::RBP,
    Rq::R12,
    Rq::R13,
    Rq::R14,
    Rq::R15,
];

/// Whether the SysV ABI has the callee keep `host` (then the code saves it).
fn callee_saved(host: Rq) -> bool {
    matches!(
        host,
        Rq::RBX | Rq::RBP | Rq::R12 | Rq::R13 | Rq::R14 | Rq::R15
    )
}

/// An x86 condition after `test value, value`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cond {
    /// Negative.
    S,
    /// Zero.
    E,
    /// Not zero, not negative.
    G,
    Le,
    Ne,
    Ns,
}

impl Cond {
    /// The condition a BR is taken on.
    fn of(nzp: u16) -> Cond {
        match nzp {
            4 => Cond::S,
            2 => Cond::E,
            1 => Cond::G,
            6 => Cond::Le,
            5 => Cond::Ne,
            _ => Cond::Ns,
        }
    }

    fn not(self) -> Cond {
        match self {
            Cond::S => Cond::Ns,
            Cond::E => Cond::Ne,
            Cond::G => Cond::Le,
            Cond::Le => Cond::G,
            Cond::Ne => Cond::E,
            Cond::Ns => Cond::S,
        }
    }
}

/// x86-64 code for `block` with body `ops` (see the module's documentation and [`POOL`]).
pub(super) fn emit(block: &Block, ops: &[Op]) -> Vec<u8> {
    let mut host = [None; 8];
    let mut next = POOL.iter();
    for r in used(block, ops) {
        if host[r.index()].is_none() {
            host[r.index()] = next.next().copied();
        }
    }
    let mut code = x64::ops();
    let exit = code.new_dynamic_label();
    let top = code.new_dynamic_label();
    let mut e = Emitter {
        ops: code,
        host,
        cc: Rq::R10,
        early: EarlyExits::default(),
        exit,
    };
    e.prologue();
    x64!(e.ops; =>top);
    for (k, op) in ops.iter().enumerate() {
        e.op(k, *op);
    }
    e.tail(block, top);
    e.exit();
    x64::finish(e.ops)
}

/// The guest registers `block` reads or writes, in the order they first appear.
fn used(block: &Block, ops: &[Op]) -> Vec<Reg> {
    let mut used = Vec::new();
    for op in ops {
        match *op {
            Op::AddReg { dr, sr1, sr2 } | Op::AndReg { dr, sr1, sr2 } => {
                used.extend([dr, sr1, sr2])
            }
            Op::AddImm { dr, sr1, .. } | Op::AndImm { dr, sr1, .. } => used.extend([dr, sr1]),
            Op::Not { dr, sr } => used.extend([dr, sr]),
            Op::Lea { dr, .. } | Op::LeaCc { dr, .. } | Op::Ld { dr, .. } | Op::Ldi { dr, .. } => {
                used.push(dr)
            }
            Op::Ldr { dr, base, .. } => used.extend([dr, base]),
            Op::St { sr, .. } | Op::Sti { sr, .. } => used.push(sr),
            Op::Str { sr, base, .. } => used.extend([sr, base]),
        }
    }
    match block.tail {
        Tail::Next | Tail::Br { .. } => {}
        Tail::Jmp { base } => used.push(base),
        Tail::Jsr { .. } => used.push(Reg::R7),
        Tail::Jsrr { base } => used.extend([base, Reg::R7]),
    }
    used
}

/// AND or ADD.
#[derive(Debug, Clone, Copy)]
enum Alu {
    Add,
    And,
}

struct Emitter {
    ops: Ops,
    /// The host register of each guest register the block uses.
    host: [Option<Rq>; 8],
    /// The host register that holds the condition codes' value at this point of the code:
    /// the destination of the last instruction that set them, or `r10`.
    cc: Rq,
    /// The jumps that leave before an op, with where the condition codes' value was.
    early: EarlyExits<Rq>,
    /// The common exit.
    exit: DynamicLabel,
}

/// The masks a load's and a store's address is tested with in the [`AccessMap`].
const LOAD: u8 = AccessMap::NOT_PLAIN;
const STORE: u8 = AccessMap::NOT_PLAIN | AccessMap::CODE;

impl Emitter {
    fn h(&self, r: Reg) -> Rq {
        self.host[r.index()].expect("every register the block uses has a host register")
    }

    /// The guest registers held in host registers, with their offset in the context.
    fn held(&self) -> Vec<(i8, Rq)> {
        (0..8)
            .filter_map(|i| Some((i as i8 * 2, self.host[i]?)))
            .collect()
    }

    fn saved(&self) -> Vec<Rq> {
        self.held()
            .into_iter()
            .map(|(_, h)| h)
            .filter(|&h| callee_saved(h))
            .collect()
    }

    fn prologue(&mut self) {
        for h in self.saved() {
            x64!(self.ops; push Rq(h));
        }
        x64!(self.ops
            ; mov [BYTE context + MAX_ROUNDS], max_rounds
            ; mov r10d, [BYTE context + LAST]
            ; mov r11, [BYTE context + MEM]
            ; mov r9, [BYTE context + ACCESS]
        );
        for (offset, h) in self.held() {
            x64!(self.ops; movzx Rd(h), WORD [BYTE context + offset]);
        }
    }

    /// The common exit: everything back into the context, `rax` the rounds completed (`rdx`
    /// already holds `next`); then the stubs that leave early, which jump to it.
    fn exit(&mut self) {
        let exit = self.exit;
        x64!(self.ops
            ; =>exit
            ; mov [BYTE context + LAST], r10d
        );
        for (offset, h) in self.held() {
            x64!(self.ops; mov WORD [BYTE context + offset], Rw(h));
        }
        x64!(self.ops
            ; mov rax, [BYTE context + MAX_ROUNDS]
            ; sub rax, max_rounds
        );
        for h in self.saved().into_iter().rev() {
            x64!(self.ops; pop Rq(h));
        }
        x64!(self.ops; ret);
        std::mem::take(&mut self.early).write(&mut self.ops, |ops, cc| {
            if cc != Rq::R10 {
                x64!(ops; mov r10d, Rd(cc));
            }
            x64!(ops; jmp =>exit);
        });
    }

    /// The condition codes' value into `r10`, where the exits and the next round expect it.
    fn cc_to_r10(&mut self) {
        if self.cc != Rq::R10 {
            x64!(self.ops; mov r10d, Rd(self.cc));
            self.cc = Rq::R10;
        }
    }

    /// Before `h` is written by an instruction that does not set the condition codes.
    fn keep_cc_from(&mut self, h: Rq) {
        if self.cc == h {
            self.cc_to_r10();
        }
    }

    /// `d op= s`
    fn alu_rr(&mut self, alu: Alu, d: Rq, s: Rq) {
        match alu {
            Alu::Add => x64!(self.ops; add Rd(d), Rd(s)),
            Alu::And => x64!(self.ops; and Rd(d), Rd(s)),
        }
    }

    /// `d = a op b`, with `d` setting the condition codes.
    fn alu(&mut self, alu: Alu, d: Rq, a: Rq, b: Rq) {
        if d == a {
            self.alu_rr(alu, d, b);
        } else if d == b {
            self.alu_rr(alu, d, a);
        } else {
            x64!(self.ops; mov Rd(d), Rd(a));
            self.alu_rr(alu, d, b);
        }
        self.cc = d;
    }

    /// `d = a op imm`, with `d` setting the condition codes.
    fn alu_imm(&mut self, alu: Alu, d: Rq, a: Rq, imm: u16) {
        if d != a {
            x64!(self.ops; mov Rd(d), Rd(a));
        }
        let imm = i32::from(imm);
        match alu {
            Alu::Add => x64!(self.ops; add Rd(d), DWORD imm),
            Alu::And => x64!(self.ops; and Rd(d), DWORD imm),
        }
        self.cc = d;
    }

    /// Leaves before op `k` unless the address in `eax` passes `mask` in the access map.
    fn check(&mut self, k: usize, mask: u8) {
        let stub = self.early.before(&mut self.ops, k, self.cc);
        x64!(self.ops
            ; test BYTE [r9 + rax], mask as i8
            ; jnz =>stub
        );
    }

    /// `eax = (base + offset) & 0xffff`
    fn address(&mut self, base: Reg, offset: u16) {
        let b = self.h(base);
        if offset != 0 {
            x64!(self.ops
                ; lea eax, [DWORD Rq(b) + i32::from(offset)]
                ; movzx eax, ax
            );
        } else {
            x64!(self.ops; movzx eax, Rw(b));
        }
    }

    /// `d = mem[eax]`
    fn load(&mut self, d: Rq) {
        x64!(self.ops; movzx Rd(d), WORD [r11 + rax * 2]);
    }

    /// `mem[eax] = s`
    fn store(&mut self, s: Rq) {
        x64!(self.ops; mov WORD [r11 + rax * 2], Rw(s));
    }

    /// `d = value`
    fn mov_imm(&mut self, d: Rq, value: u16) {
        x64!(self.ops; mov Rd(d), DWORD i32::from(value));
    }

    fn op(&mut self, k: usize, op: Op) {
        match op {
            Op::AddReg { dr, sr1, sr2 } => self.alu(Alu::Add, self.h(dr), self.h(sr1), self.h(sr2)),
            Op::AddImm { dr, sr1, imm } => self.alu_imm(Alu::Add, self.h(dr), self.h(sr1), imm),
            Op::AndReg { dr, sr1, sr2 } => self.alu(Alu::And, self.h(dr), self.h(sr1), self.h(sr2)),
            Op::AndImm { dr, sr1, imm } => self.alu_imm(Alu::And, self.h(dr), self.h(sr1), imm),
            Op::Not { dr, sr } => {
                let (d, a) = (self.h(dr), self.h(sr));
                if d != a {
                    x64!(self.ops; mov Rd(d), Rd(a));
                }
                x64!(self.ops; not Rd(d));
                self.cc = d;
            }
            Op::Lea { dr, value } => {
                let d = self.h(dr);
                self.keep_cc_from(d);
                self.mov_imm(d, value);
            }
            Op::LeaCc { dr, value } => {
                let d = self.h(dr);
                self.mov_imm(d, value);
                self.cc = d;
            }
            Op::Ld { dr, addr } => {
                self.mov_imm(Rq::RAX, addr);
                self.check(k, LOAD);
                self.load(self.h(dr));
                self.cc = self.h(dr);
            }
            Op::Ldi { dr, addr } => {
                self.mov_imm(Rq::RAX, addr);
                self.check(k, LOAD);
                self.load(Rq::RAX);
                self.check(k, LOAD);
                self.load(self.h(dr));
                self.cc = self.h(dr);
            }
            Op::Ldr { dr, base, offset } => {
                self.address(base, offset);
                self.check(k, LOAD);
                self.load(self.h(dr));
                self.cc = self.h(dr);
            }
            Op::St { sr, addr } => {
                self.mov_imm(Rq::RAX, addr);
                self.check(k, STORE);
                self.store(self.h(sr));
            }
            Op::Sti { sr, addr } => {
                self.mov_imm(Rq::RAX, addr);
                self.check(k, LOAD);
                self.load(Rq::RAX);
                self.check(k, STORE);
                self.store(self.h(sr));
            }
            Op::Str { sr, base, offset } => {
                self.address(base, offset);
                self.check(k, STORE);
                self.store(self.h(sr));
            }
        }
    }

    /// The flags of the condition codes' value (16 bits).
    fn test_cc(&mut self) {
        let c = self.cc;
        x64!(self.ops; test Rw(c), Rw(c));
    }

    /// `eax = edx` if `cond` holds.
    fn cmov(&mut self, cond: Cond) {
        match cond {
            Cond::S => x64!(self.ops; cmovs eax, edx),
            Cond::E => x64!(self.ops; cmove eax, edx),
            Cond::G => x64!(self.ops; cmovg eax, edx),
            Cond::Le => x64!(self.ops; cmovle eax, edx),
            Cond::Ne => x64!(self.ops; cmovne eax, edx),
            Cond::Ns => x64!(self.ops; cmovns eax, edx),
        }
    }

    /// Jumps to `to` if `cond` holds.
    fn jump_if(&mut self, cond: Cond, to: DynamicLabel) {
        match cond {
            Cond::S => x64!(self.ops; js =>to),
            Cond::E => x64!(self.ops; je =>to),
            Cond::G => x64!(self.ops; jg =>to),
            Cond::Le => x64!(self.ops; jle =>to),
            Cond::Ne => x64!(self.ops; jne =>to),
            Cond::Ns => x64!(self.ops; jns =>to),
        }
    }

    /// The control transfer and the end of the round.
    fn tail(&mut self, block: &Block, top: DynamicLabel) {
        let (start, after) = (block.start, block.after);
        match block.tail {
            Tail::Next => self.mov_imm(Rq::RAX, after),
            Tail::Br { nzp, target } => match nzp & 7 {
                0 => self.mov_imm(Rq::RAX, after),
                7 => self.mov_imm(Rq::RAX, target),
                nzp if target == start && after != start => {
                    return self.self_loop(Cond::of(nzp), start, after, top);
                }
                nzp => {
                    self.test_cc();
                    self.mov_imm(Rq::RAX, after);
                    self.mov_imm(Rq::RDX, target);
                    self.cmov(Cond::of(nzp));
                }
            },
            Tail::Jmp { base } => {
                let b = self.h(base);
                x64!(self.ops; movzx eax, Rw(b));
            }
            Tail::Jsr { target } => {
                let link = self.h(Reg::R7);
                self.keep_cc_from(link);
                self.mov_imm(link, after);
                self.mov_imm(Rq::RAX, target);
            }
            Tail::Jsrr { base } => {
                // The target first: JSRR R7 jumps to R7's old value.
                let b = self.h(base);
                x64!(self.ops; movzx eax, Rw(b));
                let link = self.h(Reg::R7);
                self.keep_cc_from(link);
                self.mov_imm(link, after);
            }
        }
        // The PC after the round is in `pc`; `max_rounds` counts the rounds left.
        self.cc_to_r10();
        x64!(self.ops
            ; dec max_rounds
            ; cmp pc, DWORD i32::from(start)
            ; jne >exit
            ; test max_rounds, max_rounds
            ; jnz =>top
            ; exit:
            ; mov next_d, pc
        );
    }

    /// The end of a block that branches back to its start on condition `taken`: two fused
    /// compare-and-branch pairs a round.
    fn self_loop(&mut self, taken: Cond, start: u16, after: u16, top: DynamicLabel) {
        self.test_cc();
        self.cc_to_r10();
        let fall = self.ops.new_dynamic_label();
        self.jump_if(taken.not(), fall);
        let exit = self.exit;
        x64!(self.ops
            ; dec max_rounds
            ; jnz =>top
            ; mov next_d, DWORD i32::from(start)
            ; jmp =>exit
            ; =>fall
            ; dec max_rounds
            ; mov next_d, DWORD i32::from(after)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::super::blocks::BlockCache;
    use super::*;
    use asmdbg_core::BreakpointBitmap;

    /// Blocks in every form read back from GNU objdump as the instructions written: the
    /// dynamic registers (REX bits, r12 and r13 as bases) and the conditions.
    #[test]
    fn blocks_read_back_as_written() {
        // x3000: ADD R0, R1, R2; AND R3, R3, #-16; LDR R4, R4, #3; STR R5, R4, #0;
        // NOT R6, R5; BRnp x3000
        let mut mem = Box::new([0u16; 0x10000]);
        mem[0x3000..0x3006].copy_from_slice(&[0x1042, 0x56F0, 0x6903, 0x7B00, 0x9D7F, 0x0BFA]);
        let mut cache = BlockCache::new(crate::os::LC3TOOLS.semantics);
        let mut code = AccessMap::new();
        let index = cache.index_at(0x3000, &mem, &BreakpointBitmap::default(), &mut code);
        let (block, ops) = cache.block(index);
        assert_eq!(ops.len(), 5);
        let Some(listing) = asmdbg_testsupport::x64::objdump(&emit(block, ops)) else {
            return;
        };
        let text = listing.join("\n");
        for expected in [
            "push rbx",
            "push rbp",
            "push r12",
            "push r13",
            "push r14",
            "mov QWORD PTR [rdi+0x28],rsi",
            "mov r10d,DWORD PTR [rdi+0x10]",
            "movzx ecx,WORD PTR [rdi+0x0]",
            "movzx r8d,WORD PTR [rdi+0x2]",
            "mov ecx,r8d",
            "add ecx,ebx",
            "and ebp,0xfff0",
            "lea eax,[r12+0x3]",
            "movzx eax,ax",
            "test BYTE PTR [r9+rax*1],",
            "movzx r12d,WORD PTR [r11+rax*2]",
            "movzx eax,r12w",
            "mov WORD PTR [r11+rax*2],r13w",
            "mov r14d,r13d",
            "not r14d",
            "test r14w,r14w",
            "mov r10d,r14d",
            "je ",
            "dec rsi",
            "mov WORD PTR [rdi+0x8],r12w",
            "sub rax,rsi",
            "pop r12",
            "bts rdx,0x20",
        ] {
            assert!(text.contains(expected), "{expected} in\n{text}");
        }
    }
}
