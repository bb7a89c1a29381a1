//! Straight-line runs of LC-3 code decoded once into blocks, so that the run loop pays its
//! per-instruction costs once per block: the budget test, the breakpoint test, fetch protection
//! and decoding (see [`super::Cpu::run`]).
//!
//! A block starts where execution entered it and holds the instructions that neither enter the
//! OS nor fault by themselves (operate, loads, stores, LEA), ending with at most one control
//! transfer (BR, JMP/RET, JSR, JSRR). It stops before a breakpoint other than its first
//! instruction, before TRAP, RTI and the reserved opcodes (they run the ordinary way, one at a
//! time), before the device page, and at [`MAX_BLOCK`] instructions. PC-relative addresses
//! are resolved when the block is built, so a block's instructions never need the PC.
//!
//! The blocks are only as good as the memory they were decoded from. The addresses they hold
//! are marked in an [`AccessMap`] the cpu keeps beside memory, and every way memory changes keeps
//! the blocks true:
//! - the program's stores and the hardware's own pushes (TRAP, exceptions, interrupts) test
//!   the map and mark the code stale (a store inside a block then ends the block); the run loop
//!   drops every block before it runs on;
//! - the debugger or a loader reach memory only through [`super::Cpu::mem_mut`],
//!   [`super::Cpu::poke`] and the state setters, which drop every block;
//! - a breakpoint set or cleared: [`BlockCache::sync`] drops every block when the set of
//!   addresses differs from the one the blocks were cut at.

use asmdbg_core::code_memory::CompiledCode;
use asmdbg_core::{BreakpointBitmap, WatchpointSet};

use super::jit::{self, BlockFn};
use super::{Semantics, DEVICE_BASE, USER_BASE};
use crate::decode::{decode_for, Instruction};

/// Most instructions in one block; longer straight-line code continues in the next block.
pub(super) const MAX_BLOCK: u16 = 128;

/// Most ops all blocks together hold before the cache starts afresh.
const MAX_CACHED_OPS: usize = 1 << 20;

/// `BlockCache::entry` of an address no block starts at.
const NO_BLOCK: u32 = u32::MAX;

/// A register number as a type with exactly eight values, so that indexing the register file
/// with it needs neither a bounds check nor a mask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Reg {
    R0,
    R1,
    R2,
    R3,
    R4,
    R5,
    R6,
    R7,
}

impl Reg {
    /// The register a 3-bit field names (bits above the third are ignored).
    fn of(field: u8) -> Reg {
        match field & 7 {
            0 => Reg::R0,
            1 => Reg::R1,
            2 => Reg::R2,
            3 => Reg::R3,
            4 => Reg::R4,
            5 => Reg::R5,
            6 => Reg::R6,
            _ => Reg::R7,
        }
    }

    #[inline(always)]
    pub fn index(self) -> usize {
        self as usize
    }
}

/// An instruction of a block's body: one that neither transfers control nor enters the OS,
/// with its PC-relative address (or LEA's value) already computed.
#[derive(Debug, Clone, Copy)]
pub(super) enum Op {
    AddReg {
        dr: Reg,
        sr1: Reg,
        sr2: Reg,
    },
    AddImm {
        dr: Reg,
        sr1: Reg,
        imm: u16,
    },
    AndReg {
        dr: Reg,
        sr1: Reg,
        sr2: Reg,
    },
    AndImm {
        dr: Reg,
        sr1: Reg,
        imm: u16,
    },
    Not {
        dr: Reg,
        sr: Reg,
    },
    Ld {
        dr: Reg,
        addr: u16,
    },
    Ldi {
        dr: Reg,
        addr: u16,
    },
    Ldr {
        dr: Reg,
        base: Reg,
        offset: u16,
    },
    /// LEA that leaves the condition codes alone (3rd edition).
    Lea {
        dr: Reg,
        value: u16,
    },
    /// LEA that sets the condition codes (2nd edition).
    LeaCc {
        dr: Reg,
        value: u16,
    },
    St {
        sr: Reg,
        addr: u16,
    },
    Sti {
        sr: Reg,
        addr: u16,
    },
    Str {
        sr: Reg,
        base: Reg,
        offset: u16,
    },
}

/// How a block ends, with the PC after it.
#[derive(Debug, Clone, Copy)]
pub(super) enum Tail {
    /// No control transfer: execution goes on at the instruction after the body, which the
    /// block could not hold.
    Next,
    Br {
        nzp: u16,
        target: u16,
    },
    Jmp {
        base: Reg,
    },
    Jsr {
        target: u16,
    },
    Jsrr {
        base: Reg,
    },
}

#[derive(Debug, Clone)]
pub(super) struct Block {
    pub start: u16,
    /// Instructions in the block: the body, plus one for a control transfer (`after - start`,
    /// kept because the run loop reads it for every block).
    pub len: u16,
    /// The address after the block's last instruction (the fall-through of a BR, the return
    /// address of a JSR).
    pub after: u16,
    pub tail: Tail,
    /// The body's ops in [`BlockCache::ops`].
    first_op: u32,
    end_op: u32,
}

/// Blocks at least this long compile even when they do not loop: entering compiled code
/// (its context in and out) costs about what interpreting a few instructions does.
const COMPILE_STRAIGHT_FROM: u16 = 16;

impl Block {
    /// Whether compiled code can pay for its entry: the block branches back to its own start
    /// (its rounds run inside the code) or is long. Short blocks that go on elsewhere, most of
    /// a game's code and the OS's, ran a third slower compiled than interpreted.
    #[inline(always)]
    pub fn worth_compiling(&self) -> bool {
        matches!(self.tail, Tail::Br { target, .. } if target == self.start)
            || self.len >= COMPILE_STRAIGHT_FROM
    }

    /// Every instruction of the block is in the window `lo..lo + len`, where user mode may
    /// fetch under an access check (no block reaches the device page).
    #[inline(always)]
    pub fn within(&self, lo: u16, len: u16) -> bool {
        let start = u32::from(self.start);
        start >= u32::from(lo) && start + u32::from(self.len) <= u32::from(lo) + u32::from(len)
    }
}

/// What compiled code must know of an address before it loads or stores there, one byte per
/// address in two views: the supervisor's (`0..0x10000`) and the user's (`0x10000..`).
/// [`AccessMap::CODE`]: some block holds the address (a store over it must go the ordinary
/// way, which drops the blocks); [`AccessMap::NOT_PLAIN`]: an access there is not plain
/// memory (the device page, a watched word, or in the user's view outside the user window).
///
/// Why bytes: compiled code tests an address with one instruction (`test byte [map + addr],
/// mask`), where the window, the watched span and a bit string took thirteen.
#[derive(Debug, Clone)]
pub(super) struct AccessMap {
    bytes: Box<[u8; 0x20000]>,
    /// Addresses below `code_low` or from `code_end` hold no code, so that dropping the
    /// blocks clears only the span that had some.
    code_low: usize,
    code_end: usize,
    /// The [`WatchpointSet::generation`] the watched words were marked from (0: none).
    watched: u64,
    /// The user's plain window (`lo`, `len`) the user's view is marked for.
    user_window: (u16, u16),
}

impl AccessMap {
    pub const CODE: u8 = 1;
    pub const NOT_PLAIN: u8 = 2;
    /// Where the user's view starts.
    const USER_VIEW: usize = 0x10000;

    pub fn new() -> Self {
        let mut map = AccessMap {
            bytes: Box::new([0; 0x20000]),
            code_low: 0x10000,
            code_end: 0,
            watched: 0,
            user_window: (USER_BASE, DEVICE_BASE - USER_BASE),
        };
        map.mark_not_plain(&[]);
        map
    }

    /// Whether some block holds the instruction at `addr`.
    #[inline(always)]
    pub fn holds(&self, addr: u16) -> bool {
        self.bytes[addr as usize] & Self::CODE != 0
    }

    /// The view compiled code tests addresses in: the user's when `user`.
    pub fn view(&self, user: bool) -> *const u8 {
        let offset = if user { Self::USER_VIEW } else { 0 };
        self.bytes[offset..].as_ptr()
    }

    /// Marks the watched words again if `watchpoints` changed since they were marked.
    pub fn sync_watched(&mut self, watchpoints: &WatchpointSet) {
        if watchpoints.generation() != self.watched {
            self.watched = watchpoints.generation();
            let spans: Vec<(u64, u64)> = watchpoints.iter().map(|w| (w.addr, w.len)).collect();
            self.mark_not_plain(&spans);
        }
    }

    /// Marks the user's view for the plain window `lo..lo + len` if it was marked for another
    /// (PennSim's MPR opens other pages than 3rd-edition access control's x3000-xFDFF).
    pub fn set_user_window(&mut self, lo: u16, len: u16, watchpoints: &WatchpointSet) {
        if self.user_window != (lo, len) {
            self.user_window = (lo, len);
            self.watched = watchpoints.generation();
            let spans: Vec<(u64, u64)> = watchpoints.iter().map(|w| (w.addr, w.len)).collect();
            self.mark_not_plain(&spans);
        }
    }

    /// Forgets which watched words are marked: the next sync marks them again.
    pub fn invalidate_watched(&mut self) {
        self.watched = 0;
    }

    /// Sets [`AccessMap::NOT_PLAIN`] exactly where an access is not plain memory, with the
    /// words of `watched` (address, length) watched.
    fn mark_not_plain(&mut self, watched: &[(u64, u64)]) {
        let (supervisor, user) = self.bytes.split_at_mut(Self::USER_VIEW);
        for (addr, (s, u)) in supervisor.iter_mut().zip(user.iter_mut()).enumerate() {
            let device = addr >= usize::from(DEVICE_BASE);
            *s = (*s & Self::CODE) | if device { Self::NOT_PLAIN } else { 0 };
            let (lo, len) = (
                usize::from(self.user_window.0),
                usize::from(self.user_window.1),
            );
            let outside = device || addr < lo || addr >= lo + len;
            *u = (*u & Self::CODE) | if outside { Self::NOT_PLAIN } else { 0 };
        }
        for &(addr, len) in watched {
            let end = addr.saturating_add(len.max(1)).min(0x10000);
            for addr in addr.min(0x10000)..end {
                supervisor[addr as usize] |= Self::NOT_PLAIN;
                user[addr as usize] |= Self::NOT_PLAIN;
            }
        }
    }

    fn mark(&mut self, addr: u16) {
        let addr = usize::from(addr);
        self.bytes[addr] |= Self::CODE;
        self.bytes[Self::USER_VIEW + addr] |= Self::CODE;
        self.code_low = self.code_low.min(addr);
        self.code_end = self.code_end.max(addr + 1);
    }

    fn clear(&mut self) {
        for addr in self.code_low..self.code_end {
            self.bytes[addr] &= !Self::CODE;
            self.bytes[Self::USER_VIEW + addr] &= !Self::CODE;
        }
        self.code_low = 0x10000;
        self.code_end = 0;
    }
}

/// The blocks decoded so far, found by their first address.
#[derive(Debug, Clone)]
pub(super) struct BlockCache {
    /// Index into `blocks` of the block starting at each address, or `NO_BLOCK`.
    entry: Box<[u32; 0x10000]>,
    blocks: Vec<Block>,
    ops: Vec<Op>,
    /// The [`BreakpointBitmap::version`] the blocks were cut at.
    breakpoints_version: u64,
    /// The semantics the blocks were decoded with (LEA's condition codes, JSRR's order).
    semantics: Semantics,
    /// The blocks compiled to machine code so far, by index (`jit.rs`).
    compiled: CompiledCode,
}

impl BlockCache {
    pub fn new(semantics: Semantics) -> Self {
        BlockCache {
            entry: Box::new([NO_BLOCK; 0x10000]),
            blocks: Vec::new(),
            ops: Vec::new(),
            breakpoints_version: 0,
            semantics,
            compiled: CompiledCode::default(),
        }
    }

    /// Drops every block, and their marks in `code`.
    pub fn flush(&mut self, code: &mut AccessMap) {
        if self.blocks.is_empty() {
            return;
        }
        for block in &self.blocks {
            self.entry[block.start as usize] = NO_BLOCK;
        }
        self.blocks.clear();
        self.ops.clear();
        self.compiled.clear();
        code.clear();
    }

    /// Drops every block if the breakpoints moved since the blocks were cut at them, or the
    /// semantics changed. `breakpoints` must be synced with the set first.
    pub fn sync(
        &mut self,
        breakpoints: &BreakpointBitmap<1024>,
        semantics: Semantics,
        code: &mut AccessMap,
    ) {
        if semantics != self.semantics || breakpoints.version() != self.breakpoints_version {
            self.semantics = semantics;
            self.breakpoints_version = breakpoints.version();
            self.flush(code);
        }
    }

    /// The index of the block starting at `pc`, decoded from `mem` now if there is none yet.
    #[inline(always)]
    pub fn index_at(
        &mut self,
        pc: u16,
        mem: &[u16; 0x10000],
        breakpoints: &BreakpointBitmap<1024>,
        code: &mut AccessMap,
    ) -> usize {
        let index = self.entry[pc as usize];
        if index == NO_BLOCK {
            self.build(pc, mem, breakpoints, code) as usize
        } else {
            index as usize
        }
    }

    /// A block and its body's ops.
    #[inline(always)]
    pub fn block(&self, index: usize) -> (&Block, &[Op]) {
        let block = &self.blocks[index];
        (
            block,
            &self.ops[block.first_op as usize..block.end_op as usize],
        )
    }

    /// Turns this cpu's compiled code off or back on (`Machine::set_compiled_code`).
    pub fn set_compiled_off(&mut self, off: bool) {
        self.compiled.set_off(off);
    }

    /// The machine code of the block at `index`, compiled now if it was not yet (None where
    /// this host runs no compiled code).
    #[inline(always)]
    pub fn compiled(&mut self, index: usize) -> Option<BlockFn> {
        let block = &self.blocks[index];
        let ops = &self.ops[block.first_op as usize..block.end_op as usize];
        // SAFETY: `jit::emit` writes whole functions of this type (the code is cleared with
        // the blocks).
        unsafe {
            self.compiled
                .function(index, || Some(jit::emit(block, ops)))
        }
    }

    #[cold]
    #[inline(never)]
    fn build(
        &mut self,
        start: u16,
        mem: &[u16; 0x10000],
        breakpoints: &BreakpointBitmap<1024>,
        code: &mut AccessMap,
    ) -> u32 {
        // Blocks entered at many addresses of long straight code overlap; past this many ops
        // (about 6 MiB) start afresh rather than grow without bound.
        if self.ops.len() >= MAX_CACHED_OPS {
            self.flush(code);
        }
        let first_op = self.ops.len() as u32;
        let mut addr = start;
        let mut tail = Tail::Next;
        while addr < DEVICE_BASE
            && addr - start < MAX_BLOCK
            && (addr == start || !breakpoints.contains(addr as usize))
        {
            let next = addr + 1;
            let rel = |offset: i16| next.wrapping_add(offset as u16);
            let op = match decode_for(mem[addr as usize], self.semantics.pennsim) {
                Instruction::AddReg { dr, sr1, sr2 } => {
                    let (dr, sr1, sr2) = (Reg::of(dr), Reg::of(sr1), Reg::of(sr2));
                    Op::AddReg { dr, sr1, sr2 }
                }
                Instruction::AddImm { dr, sr1, imm } => {
                    let (dr, sr1, imm) = (Reg::of(dr), Reg::of(sr1), imm as u16);
                    Op::AddImm { dr, sr1, imm }
                }
                Instruction::AndReg { dr, sr1, sr2 } => {
                    let (dr, sr1, sr2) = (Reg::of(dr), Reg::of(sr1), Reg::of(sr2));
                    Op::AndReg { dr, sr1, sr2 }
                }
                Instruction::AndImm { dr, sr1, imm } => {
                    let (dr, sr1, imm) = (Reg::of(dr), Reg::of(sr1), imm as u16);
                    Op::AndImm { dr, sr1, imm }
                }
                Instruction::Not { dr, sr } => Op::Not {
                    dr: Reg::of(dr),
                    sr: Reg::of(sr),
                },
                Instruction::Ld { dr, offset } => Op::Ld {
                    dr: Reg::of(dr),
                    addr: rel(offset),
                },
                Instruction::Ldi { dr, offset } => Op::Ldi {
                    dr: Reg::of(dr),
                    addr: rel(offset),
                },
                Instruction::Ldr { dr, base, offset } => {
                    let (dr, base, offset) = (Reg::of(dr), Reg::of(base), offset as u16);
                    Op::Ldr { dr, base, offset }
                }
                Instruction::Lea { dr, offset } if self.semantics.lea_sets_cc => Op::LeaCc {
                    dr: Reg::of(dr),
                    value: rel(offset),
                },
                Instruction::Lea { dr, offset } => Op::Lea {
                    dr: Reg::of(dr),
                    value: rel(offset),
                },
                Instruction::St { sr, offset } => Op::St {
                    sr: Reg::of(sr),
                    addr: rel(offset),
                },
                Instruction::Sti { sr, offset } => Op::Sti {
                    sr: Reg::of(sr),
                    addr: rel(offset),
                },
                Instruction::Str { sr, base, offset } => {
                    let (sr, base, offset) = (Reg::of(sr), Reg::of(base), offset as u16);
                    Op::Str { sr, base, offset }
                }
                Instruction::Br { nzp, offset } => {
                    tail = Tail::Br {
                        nzp: nzp.into(),
                        target: rel(offset),
                    };
                    addr = next;
                    break;
                }
                Instruction::Jmp { base } => {
                    tail = Tail::Jmp {
                        base: Reg::of(base),
                    };
                    addr = next;
                    break;
                }
                Instruction::Jsr { offset } => {
                    tail = Tail::Jsr {
                        target: rel(offset),
                    };
                    addr = next;
                    break;
                }
                // lc3tools writes R7 before it reads the base: its JSRR R7 calls the next
                // instruction.
                Instruction::Jsrr { base: 7 } if self.semantics.jsrr_links_first => {
                    tail = Tail::Jsr { target: next };
                    addr = next;
                    break;
                }
                Instruction::Jsrr { base } => {
                    tail = Tail::Jsrr {
                        base: Reg::of(base),
                    };
                    addr = next;
                    break;
                }
                // PennSim's own instructions run the ordinary way.
                Instruction::Sub { .. }
                | Instruction::MulReg { .. }
                | Instruction::MulImm { .. }
                | Instruction::Jmpt { .. }
                | Instruction::Trap { .. }
                | Instruction::Rti
                | Instruction::Reserved
                | Instruction::Illegal => break,
            };
            self.ops.push(op);
            addr = next;
        }
        for held in start..addr {
            code.mark(held);
        }
        let index = self.blocks.len() as u32;
        self.blocks.push(Block {
            start,
            len: addr - start,
            after: addr,
            tail,
            first_op,
            end_op: self.ops.len() as u32,
        });
        self.entry[start as usize] = index;
        index
    }
}
