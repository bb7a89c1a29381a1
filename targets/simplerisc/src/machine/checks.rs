//! SimpleRISC's side of the debugging checks (asmdbg_core::checks), with the conventions of
//! Sarangi's course: `call` puts the return address in `ra` (r15) and `ret` returns to it,
//! `sp` (r14) is only the stack pointer (4092 at the start, word-aligned, inside data
//! memory) and must be back at its value at the call when a function returns. The course
//! fixes no callee-saved registers: a register a function saves on entry (stores before
//! writing it) must be restored when it returns. Data memory has no directives: a word is
//! initialised once stored (or `--poke`d). Code is a memory of its own: no store reaches it.

use asmdbg_core::checks::{Conventions, Effects, MemAccess};
use asmdbg_core::Flow;

use super::SrMachine;
use crate::decode::REG_NAMES;

impl SrMachine {
    pub(super) fn conventions(&self) -> Conventions {
        Conventions {
            names: &REG_NAMES,
            callee_saved: 0,
            saves_are_promises: true,
            stack_reserved: true,
            set_at_start: 1 << 14,
            stack: 14,
            return_address: 15,
            stack_alignment: 4,
            stack_segment: Some((0, u64::from(self.cpu.mem_size()))),
            initialised: Vec::new(),
            instruction_units: 4,
            separate_code: true,
        }
    }

    pub(super) fn effects(&self) -> Option<Effects> {
        let insn = *self.cpu.code().get(self.cpu.pc as usize)?;
        let pc = u64::from(self.cpu.pc) * 4;
        let mut flow = insn.flow(pc);
        if flow == Flow::Stop {
            flow = Flow::Next;
        }
        let (reads, stored, writes, mem) = insn.operands();
        let mut effects = Effects::new(flow, 4);
        effects.reads = reads;
        effects.stored = stored;
        effects.writes = writes;
        if let Some(store) = mem {
            let addr = self.cpu.regs[usize::from(insn.rs1 & 15)].wrapping_add(insn.imm);
            let access = MemAccess {
                addr: u64::from(addr),
                units: 4,
            };
            if store {
                effects.store = Some(access);
            } else {
                effects.loads[0] = Some(access);
            }
        }
        Some(effects)
    }
}
