//! The cpu's part of a machine snapshot ([`crate::machine::MipsState`]).

use asmdbg_core::Console;

use crate::decode::Instruction;
use crate::memory::MemoryImage;

use super::{Cpu, Delay};

/// The cpu's part of the machine state ([`crate::machine::MipsState`]): everything but the
/// breakpoints, watchpoints and the caches derived from them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuState {
    pub regs: [u32; 32],
    pub hi: u32,
    pub lo: u32,
    pub pc: u32,
    pub fpr: [u32; 32],
    pub fcc: u8,
    pub status: u32,
    pub cause: u32,
    pub epc: u32,
    pub badvaddr: u32,
    /// The memory's non-zero pages.
    pub mem: MemoryImage,
    /// The code as loaded or patched: decoded instructions and their words.
    text: Vec<Instruction>,
    text_words: Vec<u32>,
    ktext: Vec<Instruction>,
    ktext_words: Vec<u32>,
    pub console: Console,
    pub delay_slots: bool,
    delay: Delay,
    delay_target: u32,
    pub instructions: u64,
    pub mmio: crate::devices::Mmio,
}

impl CpuState {
    /// Bytes the text and ktext copies take.
    pub fn text_bytes(&self) -> usize {
        (self.text.len() + self.ktext.len()) * std::mem::size_of::<Instruction>()
            + (self.text_words.len() + self.ktext_words.len()) * 4
    }
}

impl Cpu {
    /// A copy of the machine state the cpu holds.
    pub fn state(&self) -> CpuState {
        CpuState {
            regs: self.regs,
            hi: self.hi,
            lo: self.lo,
            pc: self.pc,
            fpr: self.fpr,
            fcc: self.fcc,
            status: self.status,
            cause: self.cause,
            epc: self.epc,
            badvaddr: self.badvaddr,
            mem: self.mem.image(),
            text: self.debug.breakpoints.code().to_vec(),
            text_words: self.text_words.clone(),
            ktext: self.ktext.clone(),
            ktext_words: self.ktext_words.clone(),
            console: self.console.clone(),
            delay_slots: self.delay_slots,
            delay: self.delay,
            delay_target: self.delay_target,
            instructions: self.instructions,
            mmio: self.mmio.clone(),
        }
    }

    /// Puts a state back. The breakpoints and watchpoints stay; the run loop's patched copy of
    /// the text and the watch filter are rebuilt before the next run.
    pub fn set_state(&mut self, state: &CpuState) {
        self.regs = state.regs;
        self.hi = state.hi;
        self.lo = state.lo;
        self.pc = state.pc;
        self.fpr = state.fpr;
        self.fcc = state.fcc;
        self.status = state.status;
        self.cause = state.cause;
        self.epc = state.epc;
        self.badvaddr = state.badvaddr;
        self.mem.restore_image(&state.mem);
        self.debug.breakpoints.replace_code(&state.text);
        self.text_words.clone_from(&state.text_words);
        self.ktext.clone_from(&state.ktext);
        self.ktext_words.clone_from(&state.ktext_words);
        self.console.clone_from(&state.console);
        self.delay_slots = state.delay_slots;
        self.delay = state.delay;
        self.delay_target = state.delay_target;
        self.instructions = state.instructions;
        self.mmio.clone_from(&state.mmio);
        // A pending watch resume belonged to the interrupted run.
        self.debug.watch.end_resume();
        self.syscall_pending = false;
        // The patched copy is rebuilt from the restored code before the next run.
        self.debug.invalidate();
    }
}
