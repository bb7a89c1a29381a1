//! The LC-3's side of the debugging checks (asmdbg_core::checks): the conventions the
//! courses teach and what the instruction at the PC is about to do.
//!
//! Conventions: R7 holds the return address (JSR, JSRR, and TRAP in the 2nd edition and
//! PennSim) and R6 is the stack pointer when a program keeps a stack. The textbook's rule is
//! "the subroutine saves the registers it changes, except those it returns results in", and
//! which those are is each subroutine's choice (the games here return in R1, R3, R5 or R6),
//! so no register is callee-saved by itself: a register a subroutine saves on entry (stores
//! while it still holds its entry value) must be restored when it returns. R6 must be given
//! back by a subroutine that addressed memory through it (pushed or popped). System space (x0000-x2FFF: vector tables, the OS and its supervisor stack), the
//! device registers (xFE00-xFFFF), every word a loaded file fills and the video memory count as
//! initialised.

use asmdbg_core::checks::fast::TableGate;
use asmdbg_core::checks::{Conventions, Effects, FastPath, InstrEffects, MemAccess};
use asmdbg_core::host::Replayable;
use asmdbg_core::{Flow, RunOutcome};

use super::{Lc3Machine, VIDEO_BASE, VIDEO_HEIGHT, VIDEO_WIDTH};
use crate::cpu::Cpu;
use crate::decode::{decode_for, Address, Instruction};

/// The device registers (KBSR, KBDR, DSR, DDR, MCR, ...): their loads and stores go the full
/// way, so that a keyboard poll reads as `step` reads it.
const DEVICE_BASE: u16 = 0xFE00;

const NAMES: [&str; 8] = ["R0", "R1", "R2", "R3", "R4", "R5", "R6", "R7"];

impl Lc3Machine {
    pub(super) fn conventions(&self) -> Conventions {
        let os = self.os.map_or(&[][..], |os| &os.segments[..]);
        let mut initialised: Vec<(u64, u64)> = vec![(0, 0x3000), (0xFE00, 0x1_0000)];
        for segment in os.iter().chain(&self.program.segments) {
            let start = u64::from(segment.origin);
            initialised.push((start, start + segment.words.len() as u64));
        }
        if self.video {
            let start = u64::from(VIDEO_BASE);
            initialised.push((start, start + u64::from(VIDEO_WIDTH * VIDEO_HEIGHT)));
        }
        Conventions {
            names: &NAMES,
            callee_saved: 0,
            saves_are_promises: true,
            stack_reserved: false,
            set_at_start: 0,
            stack: 6,
            return_address: 7,
            stack_alignment: 1,
            stack_segment: None,
            initialised,
            instruction_units: 1,
            separate_code: false,
        }
    }

    /// Runs on the checks' fast path (`Machine::run_gated`) while no scheduled key or replay
    /// has work between instructions.
    pub(super) fn run_gated(&mut self, budget: u64, fast: &mut FastPath) -> Option<RunOutcome> {
        if !self.keys.is_empty() || self.journal().is_replaying() {
            return None;
        }
        // The table is by instruction word: 65,536 entries, one decoder mode.
        let pennsim = self.cpu.semantics.pennsim;
        fast.prepare_table(u64::from(pennsim), 1 << 16, |word| {
            fast_effects(decode_for(word as u16, pennsim))
        });
        // The table by instruction word; addresses from the incremented PC or a base
        // register, 16 bits.
        let mut gate = TableGate {
            fast,
            index: |cpu: &Cpu, pc: u64| usize::from(cpu.mem()[usize::from(pc as u16)]),
            address: |cpu: &Cpu, pc: u64, fx: &InstrEffects| {
                let base = match fx.base {
                    InstrEffects::PC_RELATIVE => (pc as u16).wrapping_add(1),
                    base => cpu.regs[usize::from(base & 7)],
                };
                let at = base.wrapping_add(fx.offset as u16);
                (at < DEVICE_BASE).then_some(u64::from(at))
            },
        };
        Some(self.cpu.run_gated(budget, &mut gate))
    }

    pub(super) fn effects(&self) -> Effects {
        let pc = self.cpu.pc;
        let semantics = self.cpu.semantics;
        let instruction = decode_for(self.cpu.peek(pc), semantics.pennsim);
        let ops = instruction.operands();
        let next = pc.wrapping_add(1);
        let reg = |r: u8| self.cpu.regs[usize::from(r)];
        let address = |a: Address| match a {
            Address::PcRelative(offset) | Address::Indirect(offset) => {
                next.wrapping_add(offset as u16)
            }
            Address::Base(base, offset) => reg(base).wrapping_add(offset as u16),
        };
        let word = |addr: u16| MemAccess {
            addr: u64::from(addr),
            units: 1,
        };
        let mut effects = Effects::new(instruction.flow(pc), 1);
        effects.reads = u32::from(ops.reads);
        effects.stored = u32::from(ops.stored);
        effects.writes = u32::from(ops.writes);
        match instruction {
            Instruction::Trap { .. } if semantics.pennsim || !semantics.trap_through_stack => {
                effects.writes |= 1 << 7;
            }
            // The 3rd edition's TRAP and RTI swap R6 with the other mode's stack pointer.
            Instruction::Trap { .. } | Instruction::Rti => effects.writes |= 1 << 6,
            _ => {}
        }
        if let Some(a) = ops.load {
            effects.loads[0] = Some(word(address(a)));
            if let Address::Indirect(_) = a {
                effects.loads[1] = Some(word(self.cpu.peek(address(a))));
            }
        }
        if let Some(a) = ops.store {
            match a {
                Address::Indirect(_) => {
                    effects.loads[0] = Some(word(address(a)));
                    effects.store = Some(word(self.cpu.peek(address(a))));
                }
                _ => effects.store = Some(word(address(a))),
            }
        }
        if effects.flow == Flow::Stop {
            effects.flow = Flow::Next;
        }
        effects
    }
}

/// What an instruction word does, for the fast path's table: calls (JSR, JSRR, TRAP),
/// returns (RET, RTI) and the indirect loads and stores (two accesses) go the full way.
fn fast_effects(instruction: Instruction) -> InstrEffects {
    if matches!(instruction, Instruction::Trap { .. } | Instruction::Rti) {
        return InstrEffects::SLOW_PATH;
    }
    let ops = instruction.operands();
    let fx = InstrEffects::registers(
        instruction.flow(0),
        u32::from(ops.reads),
        u32::from(ops.stored),
        u32::from(ops.writes),
    );
    let memory = |a: Address, store: bool| match a {
        Address::PcRelative(offset) => {
            fx.with_memory(InstrEffects::PC_RELATIVE, offset as u16 as u32, 1, store)
        }
        Address::Base(base, offset) => fx.with_memory(base, offset as u16 as u32, 1, store),
        Address::Indirect(_) => InstrEffects::SLOW_PATH,
    };
    match (ops.load, ops.store) {
        (Some(a), None) => memory(a, false),
        (None, Some(a)) => memory(a, true),
        (None, None) => fx,
        (Some(_), Some(_)) => InstrEffects::SLOW_PATH,
    }
}
