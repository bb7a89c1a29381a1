//! [`SrMachine`]: the SimpleRISC cpu behind the [`Machine`] trait.
//!
//! Addresses: debugger memory accesses (`debug_read`/`debug_write`, `--peek`/`--poke`) and
//! watchpoints use data-memory byte addresses (little endian words); the PC, breakpoints and
//! `disassemble` use code addresses, 4 × the slot index. The two spaces overlap numerically, as
//! in the course interpreter (Harvard memory).

use std::sync::Arc;

mod checks;

use asmdbg_core::host::{self, Replayable};
use asmdbg_core::{
    Console, DebugInfo, Isa, Journal, LoadError, Machine, MachineOptions, MemError, RegisterInfo,
    RunOutcome, Snapshot, StopEvent,
};

use crate::cpu::{Cpu, Pseudo, REJECT_ALWAYS, REJECT_IF_EQUAL, REJECT_IF_GREATER};
use crate::decode::{decode, Insn, Op, REG_NAMES};
use crate::program::{BranchCondition, Program, Slot};

/// Data memory of the ELL305 interpreter: `int Mem[1024]`.
pub const DEFAULT_MEM_SIZE: u64 = 4096;
/// Largest `--mem-size` accepted (the address space is 32-bit; this keeps allocation sane).
pub const MAX_MEM_SIZE: u64 = 1 << 30;

/// Register indexes beyond r0-r15.
pub const REG_PC: usize = 16;
pub const REG_FLAGS: usize = 17;
/// Bits of the flags register (as the gdb feature `org.simplerisc.core` lays them out).
pub const FLAG_E: u64 = 1;
pub const FLAG_GT: u64 = 2;

const fn reg(name: &'static str) -> RegisterInfo {
    RegisterInfo { name, bits: 32 }
}

static REGISTERS: [RegisterInfo; 18] = [
    reg("r0"),
    reg("r1"),
    reg("r2"),
    reg("r3"),
    reg("r4"),
    reg("r5"),
    reg("r6"),
    reg("r7"),
    reg("r8"),
    reg("r9"),
    reg("r10"),
    reg("r11"),
    reg("r12"),
    reg("r13"),
    reg("sp"),
    reg("ra"),
    reg("pc"),
    reg("flags"),
];

/// A loaded SimpleRISC program, ready to run.
#[derive(Debug, Clone)]
pub struct SrMachine {
    cpu: Cpu,
    program: Program,
    /// Assembled for the course variant without mul/div/mod (for `describe`).
    no_mul: bool,
    /// Console input is its only outside input: recorded or replayed here.
    journal: Journal,
}

/// The complete state of an [`SrMachine`]: registers, flags, PC (slot index), data memory,
/// console and instruction count. The code cannot change while the machine runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SrState {
    pub regs: [u32; 16],
    pub flag_e: bool,
    pub flag_gt: bool,
    pub pc: u32,
    pub mem: Vec<u32>,
    pub console: Console,
    pub executed: u64,
}

impl SrMachine {
    /// A machine for `program` with `opts.mem_size` bytes of data memory (default 4096).
    pub fn new(program: Program, opts: &MachineOptions) -> Result<SrMachine, LoadError> {
        let mem_size = opts.mem_size.unwrap_or(DEFAULT_MEM_SIZE);
        if mem_size < 4 || mem_size % 4 != 0 || mem_size > MAX_MEM_SIZE {
            return Err(LoadError::Option(format!(
                "--mem-size {mem_size}: SimpleRISC data memory must be a multiple of 4 bytes \
                 between 4 and {MAX_MEM_SIZE}"
            )));
        }
        let mut machine = SrMachine::with_mem_size(program, mem_size as u32);
        machine.no_mul = opts.no_mul;
        Ok(machine)
    }

    fn with_mem_size(program: Program, mem_size: u32) -> SrMachine {
        let mut code = Vec::with_capacity(program.slots.len());
        let mut pseudo = Vec::new();
        for slot in &program.slots {
            code.push(match slot {
                Slot::Word(w) => decode(*w),
                Slot::Empty => Insn::bare(Op::Nop),
                Slot::Print(regs) => {
                    pseudo.push(Pseudo::Print(regs.clone()));
                    Insn {
                        imm: pseudo.len() as u32 - 1,
                        ..Insn::bare(Op::Print)
                    }
                }
                Slot::Encode { text, word } => {
                    pseudo.push(Pseudo::Encode(
                        format!("{text}: {word:#010x}\n").into_bytes(),
                    ));
                    Insn {
                        imm: pseudo.len() as u32 - 1,
                        ..Insn::bare(Op::Encode)
                    }
                }
                // An illegal instruction that knows its message (imm = pseudo index + 1; a
                // decoded illegal word has 0).
                Slot::Reject { message, only_if } => {
                    pseudo.push(Pseudo::Reject(message.clone()));
                    Insn {
                        imm: pseudo.len() as u32,
                        rd: match only_if {
                            None => REJECT_ALWAYS,
                            Some(BranchCondition::Equal) => REJECT_IF_EQUAL,
                            Some(BranchCondition::Greater) => REJECT_IF_GREATER,
                        },
                        ..Insn::bare(Op::Illegal)
                    }
                }
            });
        }
        let source_name: Arc<str> = match program.debug.sources.files().first() {
            Some(f) => f.name.clone(),
            None => Arc::from("<program>"),
        };
        let lines = (0..program.slots.len() as u64)
            .map(|i| program.debug.lines.get(i * 4).map_or(0, |l| l.line))
            .collect();
        let mut cpu = Cpu::new(code, pseudo, mem_size, source_name, lines);
        cpu.set_pc_index(program.entry);
        SrMachine {
            cpu,
            program,
            no_mul: false,
            journal: Journal::off(),
        }
    }

    pub fn program(&self) -> &Program {
        &self.program
    }

    pub fn cpu(&self) -> &Cpu {
        &self.cpu
    }

    pub fn cpu_mut(&mut self) -> &mut Cpu {
        &mut self.cpu
    }
}

impl Replayable for SrMachine {
    fn journal(&self) -> &Journal {
        &self.journal
    }

    fn journal_mut(&mut self) -> &mut Journal {
        &mut self.journal
    }

    fn console_mut(&mut self) -> &mut Console {
        &mut self.cpu.console
    }

    fn instruction_count(&self) -> u64 {
        self.cpu.executed
    }

    fn run_inner(&mut self, budget: u64) -> RunOutcome {
        self.cpu.run(budget)
    }
}

impl Snapshot for SrMachine {
    type State = SrState;

    fn snapshot(&self) -> SrState {
        let cpu = &self.cpu;
        SrState {
            regs: cpu.regs,
            flag_e: cpu.flag_e,
            flag_gt: cpu.flag_gt,
            pc: cpu.pc,
            mem: cpu.mem.clone(),
            console: cpu.console.clone(),
            executed: cpu.executed,
        }
    }

    fn restore(&mut self, state: &SrState) {
        let cpu = &mut self.cpu;
        cpu.regs = state.regs;
        cpu.flag_e = state.flag_e;
        cpu.flag_gt = state.flag_gt;
        cpu.mem.clone_from(&state.mem);
        cpu.console.clone_from(&state.console);
        cpu.executed = state.executed;
        // Also drops a pending watch resume, which belonged to the interrupted run.
        cpu.set_pc_index(state.pc);
    }

    fn state_bytes(&self, state: &SrState) -> usize {
        std::mem::size_of::<SrState>() + state.mem.len() * 4 + state.console.pending_input()
    }
}

/// Assembles `text` (named `path` in messages) and builds the machine: what `asmdbg run` and
/// `asmdbg debug` call for `--isa simplerisc`.
pub fn load_machine(path: &str, text: &str, opts: &MachineOptions) -> Result<SrMachine, LoadError> {
    let asm_opts = crate::asm::AsmOptions {
        no_mul: opts.no_mul,
        strict: opts.strict,
    };
    let program = crate::asm::assemble(path, text, asm_opts).map_err(LoadError::Assembly)?;
    SrMachine::new(program, opts)
}

impl Machine for SrMachine {
    fn isa(&self) -> Isa {
        crate::ISA
    }

    fn run(&mut self, budget: u64) -> RunOutcome {
        if self.journal().is_replaying() {
            return host::run_replaying(self, budget);
        }
        self.cpu.run(budget)
    }

    fn step(&mut self) -> Option<StopEvent> {
        self.cpu.step()
    }

    fn check_conventions(&self) -> Option<asmdbg_core::checks::Conventions> {
        Some(self.conventions())
    }

    fn check_effects(&self) -> Option<asmdbg_core::checks::Effects> {
        self.effects()
    }

    fn run_gated(
        &mut self,
        budget: u64,
        fast: &mut asmdbg_core::checks::FastPath,
    ) -> Option<RunOutcome> {
        SrMachine::run_gated(self, budget, fast)
    }

    fn pc(&self) -> u64 {
        u64::from(self.cpu.pc) * 4
    }

    fn set_pc(&mut self, pc: u64) {
        self.cpu
            .set_pc_index((pc / 4).min(u64::from(u32::MAX)) as u32);
    }

    fn registers(&self) -> &'static [RegisterInfo] {
        &REGISTERS
    }

    fn read_register(&self, index: usize) -> Option<u64> {
        match index {
            0..=15 => Some(u64::from(self.cpu.regs[index])),
            REG_PC => Some(self.pc()),
            REG_FLAGS => Some(
                if self.cpu.flag_e { FLAG_E } else { 0 }
                    | if self.cpu.flag_gt { FLAG_GT } else { 0 },
            ),
            _ => None,
        }
    }

    /// The course names r14 and r15 sp and ra; both spellings appear in programs.
    fn register_aliases(&self) -> &'static [(&'static str, usize)] {
        &[("r14", 14), ("r15", 15)]
    }

    fn write_register(&mut self, index: usize, value: u64) -> bool {
        match index {
            0..=15 => self.cpu.regs[index] = value as u32,
            REG_PC => self.set_pc(value),
            REG_FLAGS => {
                self.cpu.flag_e = value & FLAG_E != 0;
                self.cpu.flag_gt = value & FLAG_GT != 0;
            }
            _ => return false,
        }
        true
    }

    fn unit_bytes(&self) -> u32 {
        1
    }

    fn word_units(&self) -> u32 {
        4
    }

    fn debug_read(&self, addr: u64) -> Result<u32, MemError> {
        let word = usize::try_from(addr / 4)
            .ok()
            .and_then(|i| self.cpu.mem.get(i))
            .ok_or(MemError::Unmapped(addr))?;
        Ok((word >> (8 * (addr % 4))) & 0xff)
    }

    fn debug_write(&mut self, addr: u64, value: u32) -> Result<(), MemError> {
        let word = usize::try_from(addr / 4)
            .ok()
            .and_then(|i| self.cpu.mem.get_mut(i))
            .ok_or(MemError::Unmapped(addr))?;
        let shift = 8 * (addr % 4);
        *word = (*word & !(0xff << shift)) | ((value & 0xff) << shift);
        Ok(())
    }

    asmdbg_core::machine_ports!(cpu);

    fn instructions_executed(&self) -> u64 {
        self.cpu.executed
    }

    fn set_compiled_code(&mut self, on: bool) {
        self.cpu.set_compiled_code(on);
    }

    fn reset(&mut self) {
        self.cpu.reset(self.program.entry);
        // A new run: counts start again at 0, so a log goes on as a new one.
        if self.journal.is_recording() || self.journal.is_replaying() {
            self.journal = Journal::recording();
        }
    }

    fn disassemble(&self, addr: u64) -> Option<(String, u64)> {
        if addr % 4 != 0 {
            return None;
        }
        let index = usize::try_from(addr / 4).ok()?;
        let slot = self.program.slots.get(index)?;
        let text = match slot {
            Slot::Word(w) => {
                let insn = self.cpu.code().get(index)?;
                if insn.op == Op::Illegal {
                    format!(".word {w:#010x}")
                } else {
                    insn.disasm(index as u32, Some(&self.program.debug.symbols))
                }
            }
            Slot::Print(regs) => {
                let names: Vec<&str> = regs.iter().map(|&r| REG_NAMES[(r & 15) as usize]).collect();
                format!(".print {}", names.join(", "))
            }
            Slot::Encode { text, .. } => format!(".encode {text}"),
            Slot::Empty => "(a comment line: an instruction slot in the course interpreter)".into(),
            Slot::Reject { message, .. } => format!("(does not assemble: {message})"),
        };
        Some((text, 4))
    }

    /// Lines kept to fault if they run (see [`Slot::Reject`]): warned about before the run.
    fn start_of_run_stderr(&self) -> String {
        self.program.warnings.to_string()
    }

    fn describe(&self) -> String {
        let mut text = format!(
            "simplerisc (ELL305 interpreter), data memory {} bytes",
            self.cpu.mem_size()
        );
        if self.no_mul {
            text.push_str(", no mul/div/mod");
        }
        text
    }

    fn debug_info(&self) -> Option<&DebugInfo> {
        (!self.program.debug.sources.files().is_empty()).then_some(&self.program.debug)
    }
}
