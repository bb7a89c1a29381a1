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

use asmdbg_core::code_memory::{CodeBuffer, CompiledFn};

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
const LAST: u8 = 16;
const MEM: u8 = 24;
const ACCESS: u8 = 32;
const MAX_ROUNDS: u8 = 40;

/// Host registers by their x86 number.
type Host = u8;
const RAX: Host = 0;
const RCX: Host = 1;
const RDX: Host = 2;
const RBX: Host = 3;
const RBP: Host = 5;
const R8: Host = 8;
const R10: Host = 10;
const R12: Host = 12;
const R13: Host = 13;
const R14: Host = 14;
const R15: Host = 15;

/// The host registers guest registers live in while the code runs, taken in this order by the
/// guest registers a block uses. The others: `rdi` the [`Context`], `rsi` the rounds left,
/// `r9` the access map, `r10` the condition codes' value (wherever they are not in a guest
/// register), `r11` memory, `eax` and `edx` scratch (`edx` the outcome's `next` at the end).
const POOL: [Host; 8] = [RCX, R8, RBX, RBP, R12, R13, R14, R15];

/// Whether the SysV ABI has the callee keep `host` (then the code saves it).
fn callee_saved(host: Host) -> bool {
    matches!(host, RBX | RBP | R12 | R13 | R14 | R15)
}

/// x86 condition codes after `test value, value`, by the BR condition they are taken on.
fn condition(nzp: u16) -> u8 {
    match nzp {
        4 => 0x8, // n: s
        2 => 0x4, // z: e
        1 => 0xF, // p: g (not zero, not negative)
        6 => 0xE, // nz: le
        5 => 0x5, // np: ne
        _ => 0x9, // zp: ns
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
    let mut e = Emitter {
        x: CodeBuffer::default(),
        host,
        cc: R10,
        early: Vec::new(),
        to_exit: Vec::new(),
    };
    e.prologue();
    let top = e.x.here();
    for (k, op) in ops.iter().enumerate() {
        e.op(k, *op);
    }
    e.tail(block, top);
    e.exit();
    e.x.code
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

struct Emitter {
    x: CodeBuffer,
    /// The host register of each guest register the block uses.
    host: [Option<Host>; 8],
    /// The host register that holds the condition codes' value at this point of the code:
    /// the destination of the last instruction that set them, or `r10`.
    cc: Host,
    /// Jumps that leave before op `k`, with where the condition codes' value was.
    early: Vec<(usize, usize, Host)>,
    /// Jumps to the common exit.
    to_exit: Vec<usize>,
}

/// The masks a load's and a store's address is tested with in the [`AccessMap`].
const LOAD: u8 = AccessMap::NOT_PLAIN;
const STORE: u8 = AccessMap::NOT_PLAIN | AccessMap::CODE;

impl Emitter {
    fn h(&self, r: Reg) -> Host {
        self.host[r.index()].expect("every register the block uses has a host register")
    }

    /// The guest registers held in host registers, with their offset in the context.
    fn held(&self) -> Vec<(u8, Host)> {
        (0..8)
            .filter_map(|i| Some((i as u8 * 2, self.host[i]?)))
            .collect()
    }

    fn saved(&self) -> Vec<Host> {
        self.held()
            .into_iter()
            .map(|(_, h)| h)
            .filter(|&h| callee_saved(h))
            .collect()
    }

    fn prologue(&mut self) {
        for h in self.saved() {
            push(&mut self.x, h);
        }
        // mov [rdi + MAX_ROUNDS], rsi; mov r10d, [rdi + LAST]; mov r11, [rdi + MEM];
        // mov r9, [rdi + ACCESS]
        self.x
            .bytes(&[0x48, 0x89, 0x77, MAX_ROUNDS, 0x44, 0x8B, 0x57, LAST]);
        self.x
            .bytes(&[0x4C, 0x8B, 0x5F, MEM, 0x4C, 0x8B, 0x4F, ACCESS]);
        for (offset, h) in self.held() {
            // movzx h, word [rdi + offset]
            rex(&mut self.x, false, h, 0);
            self.x.bytes(&[0x0F, 0xB7, 0x47 | ((h & 7) << 3), offset]);
        }
    }

    /// The common exit: everything back into the context, `rax` the rounds completed (`rdx`
    /// already holds `next`).
    fn exit(&mut self) {
        let exit = self.x.here();
        for jump in std::mem::take(&mut self.to_exit) {
            self.x.patch(jump, exit);
        }
        // mov [rdi + LAST], r10d
        self.x.bytes(&[0x44, 0x89, 0x57, LAST]);
        for (offset, h) in self.held() {
            // mov word [rdi + offset], h
            self.x.bytes(&[0x66]);
            rex(&mut self.x, false, h, 0);
            self.x.bytes(&[0x89, 0x47 | ((h & 7) << 3), offset]);
        }
        // mov rax, [rdi + MAX_ROUNDS]; sub rax, rsi
        self.x
            .bytes(&[0x48, 0x8B, 0x47, MAX_ROUNDS, 0x48, 0x29, 0xF0]);
        for h in self.saved().into_iter().rev() {
            pop(&mut self.x, h);
        }
        self.x.bytes(&[0xC3]);
        for (jump, k, cc) in std::mem::take(&mut self.early) {
            self.x.leave_early(jump, k);
            if cc != R10 {
                mov(&mut self.x, R10, cc);
            }
            let to_exit = self.x.jump();
            self.x.patch(to_exit, exit);
        }
    }

    /// The condition codes' value into `r10`, where the exits and the next round expect it.
    fn cc_to_r10(&mut self) {
        if self.cc != R10 {
            mov(&mut self.x, R10, self.cc);
            self.cc = R10;
        }
    }

    /// Before `h` is written by an instruction that does not set the condition codes.
    fn keep_cc_from(&mut self, h: Host) {
        if self.cc == h {
            self.cc_to_r10();
        }
    }

    /// `d = a op b` (op: 0x01 add, 0x21 and), with `d` setting the condition codes.
    fn alu(&mut self, opcode: u8, d: Host, a: Host, b: Host) {
        if d == a {
            alu_rr(&mut self.x, opcode, d, b);
        } else if d == b {
            alu_rr(&mut self.x, opcode, d, a);
        } else {
            mov(&mut self.x, d, a);
            alu_rr(&mut self.x, opcode, d, b);
        }
        self.cc = d;
    }

    /// `d = a op imm` (ext: 0 add, 4 and), with `d` setting the condition codes.
    fn alu_imm(&mut self, ext: u8, d: Host, a: Host, imm: u16) {
        if d != a {
            mov(&mut self.x, d, a);
        }
        rex(&mut self.x, false, 0, d);
        self.x.bytes(&[0x81, 0xC0 | (ext << 3) | (d & 7)]);
        self.x.u32(imm.into());
        self.cc = d;
    }

    /// Leaves before op `k` unless the address in `eax` passes `mask` in the access map:
    /// `test byte [r9 + rax], mask; jnz`.
    fn check(&mut self, k: usize, mask: u8) {
        self.x.bytes(&[0x41, 0xF6, 0x04, 0x01, mask]);
        let jump = self.x.jump_if(0x85);
        self.early.push((jump, k, self.cc));
    }

    /// `eax = (base + offset) & 0xffff`
    fn address(&mut self, base: Reg, offset: u16) {
        let b = self.h(base);
        if offset != 0 {
            // lea eax, [b + offset]
            rex(&mut self.x, false, 0, b);
            self.x.bytes(&[0x8D, 0x80 | (b & 7)]);
            if b & 7 == 4 {
                self.x.bytes(&[0x24]);
            }
            self.x.u32(offset.into());
            movzx16(&mut self.x, RAX, RAX);
        } else {
            movzx16(&mut self.x, RAX, b);
        }
    }

    /// `d = mem[eax]`: movzx d, word [r11 + rax*2]
    fn load(&mut self, d: Host) {
        rex(&mut self.x, false, d, 11);
        self.x.bytes(&[0x0F, 0xB7, 0x04 | ((d & 7) << 3), 0x43]);
    }

    /// `mem[eax] = s`: mov word [r11 + rax*2], s
    fn store(&mut self, s: Host) {
        self.x.bytes(&[0x66]);
        rex(&mut self.x, false, s, 11);
        self.x.bytes(&[0x89, 0x04 | ((s & 7) << 3), 0x43]);
    }

    fn op(&mut self, k: usize, op: Op) {
        match op {
            Op::AddReg { dr, sr1, sr2 } => self.alu(0x01, self.h(dr), self.h(sr1), self.h(sr2)),
            Op::AddImm { dr, sr1, imm } => self.alu_imm(0, self.h(dr), self.h(sr1), imm),
            Op::AndReg { dr, sr1, sr2 } => self.alu(0x21, self.h(dr), self.h(sr1), self.h(sr2)),
            Op::AndImm { dr, sr1, imm } => self.alu_imm(4, self.h(dr), self.h(sr1), imm),
            Op::Not { dr, sr } => {
                let (d, a) = (self.h(dr), self.h(sr));
                if d != a {
                    mov(&mut self.x, d, a);
                }
                rex(&mut self.x, false, 0, d);
                self.x.bytes(&[0xF7, 0xD0 | (d & 7)]);
                self.cc = d;
            }
            Op::Lea { dr, value } => {
                let d = self.h(dr);
                self.keep_cc_from(d);
                mov_imm(&mut self.x, d, value);
            }
            Op::LeaCc { dr, value } => {
                let d = self.h(dr);
                mov_imm(&mut self.x, d, value);
                self.cc = d;
            }
            Op::Ld { dr, addr } => {
                mov_imm(&mut self.x, RAX, addr);
                self.check(k, LOAD);
                self.load(self.h(dr));
                self.cc = self.h(dr);
            }
            Op::Ldi { dr, addr } => {
                mov_imm(&mut self.x, RAX, addr);
                self.check(k, LOAD);
                self.load(RAX);
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
                mov_imm(&mut self.x, RAX, addr);
                self.check(k, STORE);
                self.store(self.h(sr));
            }
            Op::Sti { sr, addr } => {
                mov_imm(&mut self.x, RAX, addr);
                self.check(k, LOAD);
                self.load(RAX);
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

    /// `test cc, cc` (16 bits): the flags of the condition codes' value.
    fn test_cc(&mut self) {
        let c = self.cc;
        self.x.bytes(&[0x66]);
        rex(&mut self.x, false, c, c);
        self.x.bytes(&[0x85, 0xC0 | ((c & 7) << 3) | (c & 7)]);
    }

    /// The control transfer and the end of the round.
    fn tail(&mut self, block: &Block, top: usize) {
        let (start, after) = (block.start, block.after);
        match block.tail {
            Tail::Next => mov_imm(&mut self.x, RAX, after),
            Tail::Br { nzp, target } => match nzp & 7 {
                0 => mov_imm(&mut self.x, RAX, after),
                7 => mov_imm(&mut self.x, RAX, target),
                nzp if target == start && after != start => {
                    return self.self_loop(condition(nzp), start, after, top);
                }
                nzp => {
                    // mov eax, after; mov edx, target; cmovcc eax, edx
                    self.test_cc();
                    mov_imm(&mut self.x, RAX, after);
                    mov_imm(&mut self.x, RDX, target);
                    self.x.bytes(&[0x0F, 0x40 | condition(nzp), 0xC2]);
                }
            },
            Tail::Jmp { base } => {
                let b = self.h(base);
                movzx16(&mut self.x, RAX, b);
            }
            Tail::Jsr { target } => {
                let link = self.h(Reg::R7);
                self.keep_cc_from(link);
                mov_imm(&mut self.x, link, after);
                mov_imm(&mut self.x, RAX, target);
            }
            Tail::Jsrr { base } => {
                // The target first: JSRR R7 jumps to R7's old value.
                let b = self.h(base);
                movzx16(&mut self.x, RAX, b);
                let link = self.h(Reg::R7);
                self.keep_cc_from(link);
                mov_imm(&mut self.x, link, after);
            }
        }
        // The PC after the round is in eax. dec rsi; cmp eax, start; jne exit; test rsi, rsi;
        // jnz top; exit: mov edx, eax
        self.cc_to_r10();
        self.x.bytes(&[0x48, 0xFF, 0xCE, 0x3D]);
        self.x.u32(start.into());
        let other = self.x.jump_if(0x85);
        self.x.bytes(&[0x48, 0x85, 0xF6]);
        let again = self.x.jump_if(0x85);
        self.x.patch(again, top);
        let here = self.x.here();
        self.x.patch(other, here);
        self.x.bytes(&[0x89, 0xC2]);
    }

    /// The end of a block that branches back to its start on condition `taken` (x86 `cc`):
    /// two fused compare-and-branch pairs a round.
    fn self_loop(&mut self, taken: u8, start: u16, after: u16, top: usize) {
        self.test_cc();
        self.cc_to_r10();
        // j!taken fall; dec rsi; jnz top; mov edx, start; jmp exit; fall: dec rsi;
        // mov edx, after
        let fall = self.x.jump_if(0x80 | (taken ^ 1));
        self.x.bytes(&[0x48, 0xFF, 0xCE]);
        let again = self.x.jump_if(0x85);
        self.x.patch(again, top);
        mov_imm(&mut self.x, RDX, start);
        let jump = self.x.jump();
        self.to_exit.push(jump);
        let here = self.x.here();
        self.x.patch(fall, here);
        self.x.bytes(&[0x48, 0xFF, 0xCE]);
        mov_imm(&mut self.x, RDX, after);
    }
}

/// A REX prefix for `reg` (ModRM's reg field) and `rm` (its r/m or base field), if needed.
fn rex(x: &mut CodeBuffer, wide: bool, reg: Host, rm: Host) {
    let rex = 0x40 | (u8::from(wide) << 3) | ((reg >> 3) << 2) | (rm >> 3);
    if rex != 0x40 {
        x.bytes(&[rex]);
    }
}

/// mov d, s (32 bits)
fn mov(x: &mut CodeBuffer, d: Host, s: Host) {
    alu_rr(x, 0x89, d, s);
}

/// `opcode d, s` of the `r/m32, r32` form (0x01 add, 0x21 and, 0x89 mov)
fn alu_rr(x: &mut CodeBuffer, opcode: u8, d: Host, s: Host) {
    rex(x, false, s, d);
    x.bytes(&[opcode, 0xC0 | ((s & 7) << 3) | (d & 7)]);
}

/// mov d, value (32 bits)
fn mov_imm(x: &mut CodeBuffer, d: Host, value: u16) {
    rex(x, false, 0, d);
    x.bytes(&[0xB8 | (d & 7)]);
    x.u32(value.into());
}

/// movzx d, s (the low 16 bits of `s`)
fn movzx16(x: &mut CodeBuffer, d: Host, s: Host) {
    rex(x, false, d, s);
    x.bytes(&[0x0F, 0xB7, 0xC0 | ((d & 7) << 3) | (s & 7)]);
}

fn push(x: &mut CodeBuffer, h: Host) {
    rex(x, false, 0, h);
    x.bytes(&[0x50 | (h & 7)]);
}

fn pop(x: &mut CodeBuffer, h: Host) {
    rex(x, false, 0, h);
    x.bytes(&[0x58 | (h & 7)]);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The encodings against what an assembler gives for them (GNU as, Intel syntax).
    #[test]
    fn encodings_match_the_assembler() {
        let cases: Vec<(Box<dyn Fn(&mut CodeBuffer)>, &[u8])> = vec![
            (Box::new(|x| mov(x, R8, RCX)), &[0x41, 0x89, 0xC8]), // mov r8d, ecx
            (Box::new(|x| mov(x, R10, R15)), &[0x45, 0x89, 0xFA]), // mov r10d, r15d
            (Box::new(|x| alu_rr(x, 0x01, RBX, R12)), &[0x44, 0x01, 0xE3]), // add ebx, r12d
            (Box::new(|x| alu_rr(x, 0x21, RCX, RBP)), &[0x21, 0xE9]), // and ecx, ebp
            (
                Box::new(|x| mov_imm(x, R13, 0x3000)),
                &[0x41, 0xBD, 0, 0x30, 0, 0],
            ), // mov r13d, 0x3000
            (
                Box::new(|x| movzx16(x, RAX, R14)),
                &[0x41, 0x0F, 0xB7, 0xC6],
            ), // movzx eax, r14w
            (Box::new(|x| movzx16(x, RAX, RAX)), &[0x0F, 0xB7, 0xC0]), // movzx eax, ax
            (Box::new(|x| push(x, R12)), &[0x41, 0x54]),
            (Box::new(|x| pop(x, RBX)), &[0x5B]),
        ];
        for (i, (emit, expected)) in cases.iter().enumerate() {
            let mut x = CodeBuffer::default();
            emit(&mut x);
            assert_eq!(x.code, *expected, "case {i}");
        }
    }
}
