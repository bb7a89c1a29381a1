//! Blocks compiled to x86-64 machine code.
//!
//! Every block (see `blocks.rs`) compiles, the first time the run loop enters it, into a
//! function that executes its rounds as [`super::Cpu::run_block`] does on the plain path:
//! operate instructions, LEA, and the loads and stores whose address is ordinary memory
//! (inside the access window of the current privilege, outside the watched span, and for a
//! store, not an address some block holds). An access that is anything else leaves the code
//! *before* its instruction, with nothing of it done; the run loop then executes the rest the
//! ordinary way (the same block interpreted, or the block that starts at that instruction).
//! Only 64-bit x86 Unix hosts compile; elsewhere every block is interpreted.
//!
//! Why: one dispatch per instruction costs about twenty host instructions; compiled, a block's
//! instructions take a few each, with no dispatch.
//!
//! The code lives as long as the blocks: [`super::blocks::BlockCache::flush`] clears both.

use asmdbg_core::code_memory::{CodeBuffer, CompiledFn};

use super::blocks::{Block, Op, Reg, Tail};

/// What compiled code reads and writes: the registers and the condition codes' value are
/// copied in and out around the call; the rest is read.
#[repr(C)]
#[derive(Debug)]
pub(super) struct Context {
    /// Offset 0.
    pub regs: [u16; 8],
    /// Offset 16: a value whose condition codes are the current ones (see `run_chain`).
    pub last: u32,
    /// Offsets 20 and 24: the access window (`addr - plain_lo < plain_len`, in 16 bits).
    pub plain_lo: u32,
    pub plain_len: u32,
    _pad: u32,
    /// Offset 32: memory.
    pub mem: *mut u16,
    /// Offset 40: the code map, one bit per address a block holds.
    pub code_map: *const u64,
    /// Offsets 48 and 56: accesses with `addr - watch_low < watch_span` may hit a watchpoint.
    pub watch_low: u64,
    pub watch_span: u64,
}

impl Context {
    pub fn new(
        regs: [u16; 8],
        last: u16,
        plain: (u16, u16),
        mem: *mut u16,
        code_map: *const u64,
        watch: (u64, u64),
    ) -> Context {
        Context {
            regs,
            last: last.into(),
            plain_lo: plain.0.into(),
            plain_len: plain.1.into(),
            _pad: 0,
            mem,
            code_map,
            watch_low: watch.0,
            watch_span: watch.1,
        }
    }
}

/// A compiled block. It leaves early (see [`asmdbg_core::code_memory::LEFT_EARLY`]) before
/// an access off the plain path.
pub(super) type BlockFn = CompiledFn<Context>;

/// Offsets in [`Context`].
const LAST: u8 = 16;
const PLAIN_LO: u8 = 20;
const PLAIN_LEN: u8 = 24;
const MEM: u8 = 32;
const CODE_MAP: u8 = 40;
const WATCH_LOW: u8 = 48;
const WATCH_SPAN: u8 = 56;

fn reg(r: Reg) -> u8 {
    r.index() as u8 * 2
}

/// Host registers as ModRM's `reg` field has them.
const EAX: u8 = 0;
const ECX: u8 = 1;
const EDX: u8 = 2;

/// x86-64 code for `block` with body `ops`: `rdi` is the [`Context`], `rsi` `max_rounds`, `r8`
/// the rounds completed, `r10d` the condition codes' value, `r11` memory, `r9` the code map.
pub(super) fn emit(block: &Block, ops: &[Op]) -> Vec<u8> {
    let mut x = CodeBuffer::default();
    // xor r8d, r8d; mov r10d, [rdi + LAST]; mov r11, [rdi + MEM]; mov r9, [rdi + CODE_MAP]
    x.bytes(&[0x45, 0x31, 0xC0, 0x44, 0x8B, 0x57, LAST]);
    x.bytes(&[0x4C, 0x8B, 0x5F, MEM, 0x4C, 0x8B, 0x4F, CODE_MAP]);
    let top = x.here();
    // Jumps that leave before op k.
    let mut early: Vec<(usize, usize)> = Vec::new();
    for (k, op) in ops.iter().enumerate() {
        let mut leave_if = |x: &mut CodeBuffer, cc: u8| early.push((x.jump_if(cc), k));
        match *op {
            Op::AddReg { dr, sr1, sr2 } => {
                load_reg(&mut x, EAX, sr1);
                load_reg(&mut x, ECX, sr2);
                x.bytes(&[0x01, 0xC8]); // add eax, ecx
                set(&mut x, dr);
            }
            Op::AddImm { dr, sr1, imm } => {
                load_reg(&mut x, EAX, sr1);
                x.bytes(&[0x05]);
                x.u32(imm.into());
                set(&mut x, dr);
            }
            Op::AndReg { dr, sr1, sr2 } => {
                load_reg(&mut x, EAX, sr1);
                load_reg(&mut x, ECX, sr2);
                x.bytes(&[0x21, 0xC8]); // and eax, ecx
                set(&mut x, dr);
            }
            Op::AndImm { dr, sr1, imm } => {
                load_reg(&mut x, EAX, sr1);
                x.bytes(&[0x25]);
                x.u32(imm.into());
                set(&mut x, dr);
            }
            Op::Not { dr, sr } => {
                load_reg(&mut x, EAX, sr);
                x.bytes(&[0xF7, 0xD0]); // not eax
                set(&mut x, dr);
            }
            Op::Lea { dr, value } => store_imm(&mut x, dr, value),
            Op::LeaCc { dr, value } => {
                store_imm(&mut x, dr, value);
                // mov r10d, value
                x.bytes(&[0x41, 0xBA]);
                x.u32(value.into());
            }
            Op::Ld { dr, addr } => {
                mov_eax(&mut x, addr);
                check(&mut x, false, &mut leave_if);
                load(&mut x);
                set(&mut x, dr);
            }
            Op::Ldi { dr, addr } => {
                mov_eax(&mut x, addr);
                check(&mut x, false, &mut leave_if);
                load(&mut x);
                check(&mut x, false, &mut leave_if);
                load(&mut x);
                set(&mut x, dr);
            }
            Op::Ldr { dr, base, offset } => {
                address(&mut x, base, offset);
                check(&mut x, false, &mut leave_if);
                load(&mut x);
                set(&mut x, dr);
            }
            Op::St { sr, addr } => {
                mov_eax(&mut x, addr);
                check(&mut x, true, &mut leave_if);
                store(&mut x, sr);
            }
            Op::Sti { sr, addr } => {
                mov_eax(&mut x, addr);
                check(&mut x, false, &mut leave_if);
                load(&mut x);
                check(&mut x, true, &mut leave_if);
                store(&mut x, sr);
            }
            Op::Str { sr, base, offset } => {
                address(&mut x, base, offset);
                check(&mut x, true, &mut leave_if);
                store(&mut x, sr);
            }
        }
    }
    // The PC after the round, in eax.
    let after = block.after;
    match block.tail {
        Tail::Next => mov_eax(&mut x, after),
        Tail::Br { nzp, target } => match nzp & 7 {
            0 => mov_eax(&mut x, after),
            7 => mov_eax(&mut x, target),
            nzp => {
                // test r10w, r10w; mov eax, after; mov edx, target; cmovcc eax, edx
                x.bytes(&[0x66, 0x45, 0x85, 0xD2]);
                mov_eax(&mut x, after);
                x.bytes(&[0xBA]);
                x.u32(target.into());
                let cmov = match nzp {
                    4 => 0x48, // n: cmovs
                    2 => 0x44, // z: cmove
                    1 => 0x4F, // p: cmovg (not zero, not negative)
                    6 => 0x4E, // nz: cmovle
                    5 => 0x45, // np: cmovne
                    _ => 0x49, // zp: cmovns
                };
                x.bytes(&[0x0F, cmov, 0xC2]);
            }
        },
        Tail::Jmp { base } => load_reg(&mut x, EAX, base),
        Tail::Jsr { target } => {
            store_imm(&mut x, Reg::R7, after);
            mov_eax(&mut x, target);
        }
        Tail::Jsrr { base } => {
            // The target first: JSRR R7 jumps to R7's old value.
            load_reg(&mut x, EAX, base);
            store_imm(&mut x, Reg::R7, after);
        }
    }
    x.end_round(block.start.into(), top);
    end(&mut x);
    for (jump, k) in early {
        x.leave_early(jump, k);
        end(&mut x);
    }
    x.code
}

/// mov [rdi + LAST], r10d; mov rax, r8; ret (rdx holds the outcome's `next`).
fn end(x: &mut CodeBuffer) {
    x.bytes(&[0x44, 0x89, 0x57, LAST, 0x4C, 0x89, 0xC0, 0xC3]);
}

/// movzx host, word [rdi + r]
fn load_reg(x: &mut CodeBuffer, host: u8, r: Reg) {
    x.bytes(&[0x0F, 0xB7, 0x47 | (host << 3), reg(r)]);
}

/// Register `dr` and the condition codes' value take ax: mov [rdi + dr], ax; movzx r10d, ax
fn set(x: &mut CodeBuffer, dr: Reg) {
    x.bytes(&[0x66, 0x89, 0x47, reg(dr), 0x44, 0x0F, 0xB7, 0xD0]);
}

/// mov word [rdi + r], value
fn store_imm(x: &mut CodeBuffer, r: Reg, value: u16) {
    x.bytes(&[0x66, 0xC7, 0x47, reg(r)]);
    x.u16(value);
}

fn mov_eax(x: &mut CodeBuffer, value: u16) {
    x.bytes(&[0xB8]);
    x.u32(value.into());
}

/// eax = (base + offset) & 0xffff
fn address(x: &mut CodeBuffer, base: Reg, offset: u16) {
    load_reg(x, EAX, base);
    x.bytes(&[0x05]);
    x.u32(offset.into());
    x.bytes(&[0x0F, 0xB7, 0xC0]); // movzx eax, ax
}

/// Leaves (through `leave_if`, before the instruction) unless the address in eax is plain
/// memory: inside the access window, outside the watched span, and for a store not code.
fn check(x: &mut CodeBuffer, store: bool, leave_if: &mut impl FnMut(&mut CodeBuffer, u8)) {
    // mov ecx, eax; sub ecx, [rdi + PLAIN_LO]; cmp ecx, [rdi + PLAIN_LEN]; jae. In 32 bits:
    // the window ends inside the 16-bit space, so an address below it, which wraps in 16
    // bits to past its end, wraps in 32 bits to past it too.
    x.bytes(&[0x89, 0xC1, 0x2B, 0x4F, PLAIN_LO, 0x3B, 0x4F, PLAIN_LEN]);
    leave_if(x, 0x83);
    // mov ecx, eax; sub rcx, [rdi + WATCH_LOW]; cmp rcx, [rdi + WATCH_SPAN]; jb
    x.bytes(&[
        0x89, 0xC1, 0x48, 0x2B, 0x4F, WATCH_LOW, 0x48, 0x3B, 0x4F, WATCH_SPAN,
    ]);
    leave_if(x, 0x82);
    if store {
        // mov edx, eax; shr edx, 6; mov rdx, [r9 + rdx*8]; bt rdx, rax; jc (`bt` on memory
        // would be microcoded)
        x.bytes(&[
            0x89, 0xC2, 0xC1, 0xEA, 0x06, 0x49, 0x8B, 0x14, 0xD1, 0x48, 0x0F, 0xA3, 0xC2,
        ]);
        leave_if(x, 0x82);
    }
}

/// eax = mem[eax]: movzx eax, word [r11 + rax*2]
fn load(x: &mut CodeBuffer) {
    x.bytes(&[0x41, 0x0F, 0xB7, 0x04, 0x43]);
}

/// mem[eax] = register `sr`: movzx edx, [rdi + sr]; mov [r11 + rax*2], dx
fn store(x: &mut CodeBuffer, sr: Reg) {
    load_reg(x, EDX, sr);
    x.bytes(&[0x66, 0x41, 0x89, 0x14, 0x43]);
}
