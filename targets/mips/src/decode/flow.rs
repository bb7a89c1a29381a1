//! Where control goes after an instruction: its [`Flow`], the machine's and gdb's delay-slot
//! rules, and branch and jump targets.

use asmdbg_core::Flow;

use super::Instruction;

impl Instruction {
    /// Where control goes after this instruction at `addr`, ignoring delay slots. Conditional
    /// calls (`bgezal`, `bltzal`) are calls; `eret` returns from the exception handler;
    /// `syscall` and the conditional traps go on; `break` and words the machine rejects stop.
    pub fn flow(self, addr: u32) -> Flow {
        use Instruction as I;
        let rel = |off: i32| u64::from(branch_target(addr, off));
        match self {
            I::Beq { off, .. }
            | I::Bne { off, .. }
            | I::Blez { off, .. }
            | I::Bgtz { off, .. }
            | I::Bltz { off, .. }
            | I::Bgez { off, .. }
            | I::Bc1 { off, .. } => Flow::Branch { target: rel(off) },
            I::Bltzal { off, .. } | I::Bgezal { off, .. } => Flow::Call {
                target: Some(rel(off)),
            },
            I::J { target } => Flow::Jump {
                target: Some(u64::from(jump_target(addr, target))),
            },
            I::Jal { target } => Flow::Call {
                target: Some(u64::from(jump_target(addr, target))),
            },
            I::Jr { rs: 31 } | I::Eret => Flow::Return,
            I::Jr { .. } => Flow::Jump { target: None },
            I::Jalr { .. } => Flow::Call { target: None },
            I::Break { .. } | I::Invalid(_) | I::Empty | I::DebugStop => Flow::Stop,
            _ => Flow::Next,
        }
    }

    /// This branch with word offset `off` instead of its own; any other instruction as it is.
    pub fn with_branch_offset(self, off: i32) -> Instruction {
        use Instruction as I;
        match self {
            I::Beq { rs, rt, .. } => I::Beq { rs, rt, off },
            I::Bne { rs, rt, .. } => I::Bne { rs, rt, off },
            I::Blez { rs, .. } => I::Blez { rs, off },
            I::Bgtz { rs, .. } => I::Bgtz { rs, off },
            I::Bltz { rs, .. } => I::Bltz { rs, off },
            I::Bgez { rs, .. } => I::Bgez { rs, off },
            I::Bltzal { rs, .. } => I::Bltzal { rs, off },
            I::Bgezal { rs, .. } => I::Bgezal { rs, off },
            I::Bc1 { cc, on_true, .. } => I::Bc1 { cc, on_true, off },
            other => other,
        }
    }

    /// The machine's delay-slot rule (`--delay-slots`): every branch, jump and call runs the
    /// next instruction before it takes effect; `eret` does not.
    pub fn has_delay_slot(self) -> bool {
        self.flow(0).transfers() && self != Instruction::Eret
    }
}

/// gdb's rule, not the machine's: gdb 13's `mips32_instruction_has_delay_slot` says the word
/// after this one is a delay slot, so gdb moves a breakpoint there back onto this instruction
/// (see targets/mips/src/elf.rs). For what MARS decodes that is [`Instruction::has_delay_slot`];
/// gdb also knows encodings MARS does not (branch-likely, `jalx`, `bc1any2/4`, `bposge`), so
/// for an undecodable word its own test on the raw fields applies.
pub fn gdb_assumes_delay_slot(instr: &Instruction) -> bool {
    match *instr {
        Instruction::Invalid(word) => {
            let op = word >> 26;
            let rs = (word >> 21) & 31;
            let rt = (word >> 16) & 31;
            match op {
                0 => matches!(word & 63, 8 | 9),
                1 => (rt & 0xc) == 0 || ((rt & 0x1e) == 0x1c && rs == 0),
                2..=7 | 20..=23 | 29 => true,
                17 => rs == 8 || ((rs == 9 || rs == 10) && (rt & 2) == 0),
                _ => false,
            }
        }
        other => other.has_delay_slot(),
    }
}

/// Target of a branch at `addr` with word offset `off`.
#[inline(always)]
pub fn branch_target(addr: u32, off: i32) -> u32 {
    addr.wrapping_add(4).wrapping_add((off as u32) << 2)
}

/// Target of `j`/`jal` at `addr`.
#[inline(always)]
pub fn jump_target(addr: u32, target: u32) -> u32 {
    (addr.wrapping_add(4) & 0xf000_0000) | (target << 2)
}
