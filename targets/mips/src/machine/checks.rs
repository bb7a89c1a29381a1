//! MIPS's side of the debugging checks (asmdbg_core::checks), with the conventions MARS's
//! courses teach (Patterson & Hennessy, MARS's help):
//!
//! - `$s0`-`$s7`, `$gp` and `$fp` are callee-saved: a function gives them back as it got them;
//!   `$sp` must be back at its value at the call (the `stack` check) and `$ra` is the return
//!   address (`return-address`).
//! - `$sp` stays word-aligned and inside the stack segment, from the heap's base
//!   (0x10040000) to the stack's base (0x7ffffffc).
//! - `$zero`, `$sp` and `$gp` hold values from the start (and whatever the loader set, as
//!   `--args` does `$a0` and `$a1`).
//! - Declared data, the program's text, the memory-mapped devices, the bitmap display and
//!   what the loader put above the stack (argv) are initialised; the heap is not until stored.
//! - `syscall` reads `$v0` and the arguments of its service and writes its results.

use asmdbg_core::checks::fast::TableGate;
use asmdbg_core::checks::{Conventions, Effects, FastPath, InstrEffects, MemAccess};
use asmdbg_core::host::Replayable;
use asmdbg_core::{Flow, RunOutcome};

use super::MipsMachine;
use crate::cpu::Cpu;
use crate::decode::{Instruction, GPR_NAMES};
use crate::memory::{HEAP_BASE, MMIO_BASE, STACK_BASE, TEXT_BASE};

const NAMES: [&str; 32] = [
    "$zero", "$at", "$v0", "$v1", "$a0", "$a1", "$a2", "$a3", "$t0", "$t1", "$t2", "$t3", "$t4",
    "$t5", "$t6", "$t7", "$s0", "$s1", "$s2", "$s3", "$s4", "$s5", "$s6", "$s7", "$t8", "$t9",
    "$k0", "$k1", "$gp", "$sp", "$fp", "$ra",
];

const V0: u8 = 2;
const A0: u8 = 4;
const A1: u8 = 5;
const A2: u8 = 6;
const A3: u8 = 7;

/// `$s0`-`$s7`, `$gp`, `$fp`.
pub const CALLEE_SAVED: u32 = 0xff << 16 | 1 << 28 | 1 << 30;

impl MipsMachine {
    pub(super) fn conventions(&self) -> Conventions {
        debug_assert_eq!(NAMES[31].trim_start_matches('$'), GPR_NAMES[31]);
        let sp = u64::from(self.cpu.regs[29]);
        let mut initialised = vec![
            (u64::from(MMIO_BASE), 1 << 32),
            (sp.min(u64::from(STACK_BASE)), u64::from(STACK_BASE) + 4),
        ];
        if let Some(config) = self.opts.bitmap {
            initialised.push((
                config.base as u64,
                config.base as u64 + config.bytes() as u64,
            ));
        }
        Conventions {
            names: &NAMES,
            callee_saved: CALLEE_SAVED,
            saves_are_promises: false,
            stack_reserved: true,
            set_at_start: 1 | 1 << 28 | 1 << 29,
            stack: 29,
            return_address: 31,
            stack_alignment: 4,
            stack_segment: Some((u64::from(HEAP_BASE), u64::from(STACK_BASE))),
            initialised,
            instruction_units: 4,
            separate_code: false,
        }
    }

    pub(super) fn effects(&self) -> Option<Effects> {
        let pc = self.cpu.pc;
        let instruction = self.cpu.instruction_at(pc)?;
        let ops = instruction.operands();
        let mut flow = instruction.flow(pc);
        if flow == Flow::Stop {
            flow = Flow::Next;
        }
        let mut effects = Effects::new(flow, 4);
        effects.reads = ops.reads;
        effects.stored = ops.stored;
        effects.writes = ops.writes;
        if let Some(mem) = ops.mem {
            let addr = self.cpu.regs[usize::from(mem.base)].wrapping_add(mem.off as i32 as u32);
            let access = MemAccess {
                addr: u64::from(addr),
                units: u64::from(mem.bytes),
            };
            if mem.store {
                effects.store = Some(access);
            } else {
                effects.loads[0] = Some(access);
            }
        }
        if instruction == crate::decode::Instruction::Syscall {
            self.syscall_effects(&mut effects);
        }
        Some(effects)
    }

    /// Runs on the checks' fast path (`Machine::run_gated`): user text without delay slots,
    /// while no device, scheduled key or replay has work between instructions.
    pub(super) fn run_gated(&mut self, budget: u64, fast: &mut FastPath) -> Option<RunOutcome> {
        if !self.sys_keys.is_empty()
            || self.cpu.mmio.connected
            || self.cpu.delay_slots
            || self.journal().is_replaying()
        {
            return None;
        }
        let (code, version) = self.cpu.user_text();
        fast.prepare_slot_table(version, code.len(), u64::from(TEXT_BASE), |slot| {
            fast_effects(code[slot])
        });
        // The table by text slot; addresses from the base register.
        let mut gate = TableGate {
            fast,
            index: |_: &Cpu, pc: u64| ((pc as u32).wrapping_sub(TEXT_BASE) >> 2) as usize,
            address: |cpu: &Cpu, _: u64, fx: &InstrEffects| {
                let base = cpu.regs[usize::from(fx.base & 31)];
                Some(u64::from(base.wrapping_add(fx.offset)))
            },
        };
        let outcome = self.cpu.run_gated(budget, &mut gate);
        let mut stop = outcome.stop;
        // The gate admits no `syscall` and no device is connected; should the cpu stop for
        // the machine all the same, it does what `step` does.
        if stop.is_none() && self.cpu.take_syscall() {
            stop = match self.cpu.take_device_access() {
                Some(access) => self.device_access(access).1,
                None => self.syscall().1,
            };
        }
        Some(RunOutcome {
            executed: outcome.executed,
            stop: self.report(stop),
        })
    }

    /// The registers a `syscall` reads and writes, by the service in `$v0` (MARS's table),
    /// and the buffer the read services fill.
    fn syscall_effects(&self, effects: &mut Effects) {
        let b = |r: u8| 1u32 << r;
        let reg = |r: u8| self.cpu.regs[usize::from(r)];
        let (reads, writes) = match reg(V0) {
            1 | 4 | 9 | 11 | 16 | 17 | 32 | 34..=36 => (b(A0), 0),
            5 | 12 => (0, b(V0)),
            8 => (b(A0) | b(A1), 0),
            13..=15 => (b(A0) | b(A1) | b(A2), b(V0)),
            30 => (0, b(A0) | b(A1)),
            31 | 33 => (b(A0) | b(A1) | b(A2) | b(A3), 0),
            40 | 55 | 56 | 59 => (b(A0) | b(A1), 0),
            41 | 43 | 44 | 50 | 57 | 58 => (b(A0), b(A0)),
            42 => (b(A0) | b(A1), b(A0)),
            51 => (b(A0), b(A0) | b(A1)),
            52 | 53 => (b(A0), b(A1)),
            54 => (b(A0) | b(A1) | b(A2), b(A1)),
            _ => (0, 0),
        };
        effects.reads = b(V0) | reads;
        effects.writes = writes;
        let buffer = |addr: u32, len: u32| MemAccess {
            addr: u64::from(addr),
            units: u64::from(len.min(1 << 20)),
        };
        effects.store = match reg(V0) {
            8 => Some(buffer(reg(A0), reg(A1))),
            14 | 54 => Some(buffer(reg(A1), reg(A2))),
            _ => None,
        };
    }
}

/// What an instruction of user text does, for the fast path's table: `syscall` (whose
/// effects depend on `$v0`), calls and returns go the full way.
fn fast_effects(instruction: Instruction) -> InstrEffects {
    if instruction == Instruction::Syscall {
        return InstrEffects::SLOW_PATH;
    }
    let ops = instruction.operands();
    // Calls and returns go the full way; a memory operand as the table needs it (its base
    // register and offset: the address is computed when the instruction is admitted).
    let fx = InstrEffects::registers(
        instruction.flow(TEXT_BASE),
        ops.reads,
        ops.stored,
        ops.writes,
    );
    match ops.mem {
        Some(mem) => fx.with_memory(mem.base, mem.off as i32 as u32, mem.bytes, mem.store),
        None => fx,
    }
}
