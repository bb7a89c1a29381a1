//! SimpleRISC's side of the debugging checks (asmdbg_core::checks), with the conventions of
//! Sarangi's course: `call` puts the return address in `ra` (r15) and `ret` returns to it,
//! `sp` (r14) is only the stack pointer (4092 at the start, word-aligned, inside data
//! memory) and must be back at its value at the call when a function returns. The course
//! fixes no callee-saved registers: a register a function saves on entry (stores before
//! writing it) must be restored when it returns. Data memory has no directives: a word is
//! initialised once stored (or `--poke`d). Code is a memory of its own: no store reaches it.

use asmdbg_core::checks::fast::TableGate;
use asmdbg_core::checks::{Conventions, Effects, FastPath, InstrEffects, MemAccess};
use asmdbg_core::host::Replayable;
use asmdbg_core::{Flow, RunOutcome};

use super::SrMachine;
use crate::cpu::Cpu;
use crate::decode::{Insn, REG_NAMES};

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

    /// Runs on the checks' fast path (`Machine::run_gated`) unless a replay has work
    /// between instructions.
    pub(super) fn run_gated(&mut self, budget: u64, fast: &mut FastPath) -> Option<RunOutcome> {
        if self.journal().is_replaying() {
            return None;
        }
        let (code, version) = self.cpu.code_version();
        fast.prepare_slot_table(version, code.len(), 0, |slot| fast_effects(&code[slot]));
        // The table by code slot; addresses from the base register.
        let mut gate = TableGate {
            fast,
            index: |_: &Cpu, pc: u64| (pc / 4) as usize,
            address: |cpu: &Cpu, _: u64, fx: &InstrEffects| {
                let base = cpu.regs[usize::from(fx.base & 15)];
                Some(u64::from(base.wrapping_add(fx.offset)))
            },
        };
        Some(self.cpu.run_gated(budget, &mut gate))
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

/// What an instruction does, for the fast path's table: `call` and `ret` go the full way.
fn fast_effects(insn: &Insn) -> InstrEffects {
    let (reads, stored, writes, mem) = insn.operands();
    // Calls and returns go the full way; a memory operand as the table needs it (its base
    // register and offset: the address is computed when the instruction is admitted).
    let fx = InstrEffects::registers(insn.flow(0), reads, stored, writes);
    match mem {
        Some(store) => fx.with_memory(insn.rs1 & 15, insn.imm, 4, store),
        None => fx,
    }
}
