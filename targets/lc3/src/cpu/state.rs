//! The cpu's part of a machine snapshot.

use asmdbg_core::Console;

use super::Cpu;

/// The cpu's part of the machine state ([`crate::machine::Lc3Machine`]'s snapshots): registers,
/// memory, devices, console and counters; not the breakpoints, watchpoints or the caches and
/// resume flag derived for them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuState {
    pub regs: [u16; 8],
    pub pc: u16,
    pub psr: u16,
    pub saved_ssp: u16,
    pub saved_usp: u16,
    pub trap_site: u16,
    pub mem: Box<[u16; 0x10000]>,
    pub console: Console,
    kbsr_ie: bool,
    kbdr: u16,
    dsr_ie: bool,
    ddr: u16,
    mcr: u16,
    pennsim: super::PennSimDevices,
    empty_polls: u32,
    last_empty_poll: u64,
    executed: u64,
}

impl CpuState {
    /// The state with the count of empty keyboard polls left out. [`Cpu::step`] starts that
    /// count afresh by design (a debugger's `stepi` through a wait loop always steps) and
    /// [`Cpu::run`] carries it from one call to the next, so the same instructions executed
    /// by steps and by runs can end in states that differ in it alone.
    pub fn without_poll_count(mut self) -> CpuState {
        self.empty_polls = 0;
        self.last_empty_poll = 0;
        self
    }
}

impl Cpu {
    /// A copy of the machine state the cpu holds.
    pub fn state(&self) -> CpuState {
        CpuState {
            regs: self.regs,
            pc: self.pc,
            psr: self.psr(),
            saved_ssp: self.saved_ssp,
            saved_usp: self.saved_usp,
            trap_site: self.trap_site,
            mem: self.mem.clone(),
            console: self.console.clone(),
            kbsr_ie: self.kbsr_ie,
            kbdr: self.kbdr,
            dsr_ie: self.dsr_ie,
            ddr: self.ddr,
            mcr: self.mcr,
            pennsim: self.pennsim,
            empty_polls: self.empty_polls,
            last_empty_poll: self.last_empty_poll,
            executed: self.executed,
        }
    }

    /// Puts a state back; the breakpoints and watchpoints stay (their caches depend on nothing
    /// restored), a pending watch resume is dropped with the instruction it belonged to.
    pub fn set_state(&mut self, state: &CpuState) {
        self.regs = state.regs;
        self.pc = state.pc;
        self.saved_ssp = state.saved_ssp;
        self.saved_usp = state.saved_usp;
        self.trap_site = state.trap_site;
        self.mem.copy_from_slice(&state.mem[..]);
        self.forget_code();
        self.console.clone_from(&state.console);
        self.kbsr_ie = state.kbsr_ie;
        self.kbdr = state.kbdr;
        self.dsr_ie = state.dsr_ie;
        self.ddr = state.ddr;
        self.mcr = state.mcr;
        self.pennsim = state.pennsim;
        self.empty_polls = state.empty_polls;
        self.last_empty_poll = state.last_empty_poll;
        self.poll_alone = false;
        self.executed = state.executed;
        self.debug.watch.end_resume();
        // Also re-derives the access window and the interrupt arming.
        self.set_psr(state.psr);
    }
}
