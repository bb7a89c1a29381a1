//! [`MipsMachine`]: the MARS cpu behind the [`Machine`] trait, and the loader the command line
//! uses (`load_machine`, `load_machine_files`: assemble, then load).
//!
//! Registers are numbered as gdb numbers MIPS registers (0-31 general, then status, lo, hi,
//! badvaddr, cause, pc, f0-f31, fcsr, fir), with MARS's EPC appended, so the stub can serialise
//! them in order.

use asmdbg_core::display::{self, Frame, KeyFeed, KeyedMachine};
use asmdbg_core::host::{self, Replayable};
use asmdbg_core::{
    BreakpointSet, Console, DebugInfo, Isa, Journal, LoadError, Machine, MachineOptions, MemError,
    RegisterInfo, RunOutcome, Snapshot, SourceFile, StopEvent, WatchpointSet,
};

use crate::asm::{assemble_files, AsmOptions};
use crate::cpu::{Cpu, CpuState};
use crate::decode::{format_instruction, GPR_NAMES};
use crate::devices;
use crate::host::Host;
use crate::memory::{
    in_ktext, in_text, Memory, Region, KTEXT_BASE, STACK_BASE, STACK_POINTER, TEXT_BASE,
};
use crate::program::Program;
use crate::syscalls::{Syscall, SyscallState};

/// How many instruction words past the loaded code a debugger write may add.
pub const MAX_TEXT_GROWTH: usize = 16 * 1024;

/// Index of the first FP register in [`MipsMachine::registers`].
pub const REG_F0: usize = 38;
pub const REG_STATUS: usize = 32;
pub const REG_LO: usize = 33;
pub const REG_HI: usize = 34;
pub const REG_BADVADDR: usize = 35;
pub const REG_CAUSE: usize = 36;
pub const REG_PC: usize = 37;
pub const REG_FCSR: usize = 70;
pub const REG_FIR: usize = 71;
pub const REG_EPC: usize = 72;

const fn reg(name: &'static str) -> RegisterInfo {
    RegisterInfo { name, bits: 32 }
}

static REGISTERS: [RegisterInfo; 73] = {
    let mut regs = [reg(""); 73];
    let mut i = 0;
    while i < 32 {
        regs[i] = reg(GPR_NAMES[i]);
        i += 1;
    }
    regs[REG_STATUS] = reg("status");
    regs[REG_LO] = reg("lo");
    regs[REG_HI] = reg("hi");
    regs[REG_BADVADDR] = reg("badvaddr");
    regs[REG_CAUSE] = reg("cause");
    regs[REG_PC] = reg("pc");
    const F: [&str; 32] = [
        "f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9", "f10", "f11", "f12", "f13",
        "f14", "f15", "f16", "f17", "f18", "f19", "f20", "f21", "f22", "f23", "f24", "f25", "f26",
        "f27", "f28", "f29", "f30", "f31",
    ];
    let mut f = 0;
    while f < 32 {
        regs[REG_F0 + f] = reg(F[f]);
        f += 1;
    }
    regs[REG_FCSR] = reg("fcsr");
    regs[REG_FIR] = reg("fir");
    regs[REG_EPC] = reg("epc");
    regs
};

/// FCSR bit of FP condition flag `n` (flag 0 is bit 23, flags 1-7 are bits 25-31).
fn fcsr_bit(n: u32) -> u32 {
    if n == 0 {
        23
    } else {
        24 + n
    }
}

/// A run ends early, with no stop, once this much of the guest's output waits to be taken: a
/// print syscall writes a whole string (the most output per instruction of the three
/// machines), so the output a run leaves its caller to hold is bounded by this plus one
/// string, whatever the run's length.
pub const OUTPUT_PER_RUN: usize = 64 * 1024;

/// A MIPS machine running one assembled program as MARS 4.5 would: the cpu and the syscalls'
/// state (plain data, see [`MipsState`]) and the host they reach the outside world through.
#[derive(Debug)]
pub struct MipsMachine {
    cpu: Cpu,
    sys: SyscallState,
    host: Host,
    program: Program,
    opts: MachineOptions,
    /// Keys pressed at given counts (`--keys`), on the MMIO keyboard.
    sys_keys: KeyFeed,
    /// Looking for a display or keyboard the program uses that nothing configured.
    unconfigured: asmdbg_core::display::Unconfigured,
}

mod checks;
mod run_devices;

/// The complete state of a [`MipsMachine`]: registers, memory, code (as patched), console
/// queue, delay-slot state and instruction count; heap pointer, random streams, virtual clock
/// and open files as numbers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MipsState {
    pub cpu: CpuState,
    pub sys: SyscallState,
    /// Keys of the `--keys` schedule already pressed.
    pub keys_pressed: usize,
}

impl MipsMachine {
    /// Loads `program` with MARS's initial state. Fails if a chunk lies outside MARS's segments.
    pub fn new(program: Program, opts: &MachineOptions) -> Result<Self, LoadError> {
        let names: Vec<&str> = program
            .debug
            .sources
            .files()
            .iter()
            .map(|f| &*f.name)
            .collect();
        let mut host = Host::new(opts.work_dir.clone(), &names);
        if let Some(dir) = &opts.files_dir {
            host.confine_files(dir, opts.files_quota)
                .map_err(|e| LoadError::Option(format!("--files {}: {e}", dir.display())))?;
        }
        let cpu = build_cpu(&program, opts)?;
        Ok(MipsMachine {
            cpu,
            sys: syscall_state(opts),
            host,
            program,
            opts: opts.clone(),
            sys_keys: KeyFeed::new(&opts.keys),
            unconfigured: Default::default(),
        })
    }

    pub fn cpu(&self) -> &Cpu {
        &self.cpu
    }

    pub fn cpu_mut(&mut self) -> &mut Cpu {
        &mut self.cpu
    }

    pub fn program(&self) -> &Program {
        &self.program
    }

    /// Bytes the guest wrote for the host's stderr (fd 2, and dialogs with
    /// `dialogs_to_stderr`) since the last call. The machine never writes to stderr itself.
    pub fn take_stderr(&mut self) -> Vec<u8> {
        self.host.take_stderr()
    }

    /// Performs the `syscall` the cpu stopped at and finishes its instruction.
    fn syscall(&mut self) -> (bool, Option<StopEvent>) {
        // A syscall's own reads and writes (a string at the device's words) are not the
        // device's business: MARS's tool watches the cpu's loads and stores.
        self.cpu.mmio.pass = true;
        let result = Syscall {
            cpu: &mut self.cpu,
            sys: &mut self.sys,
            host: &mut self.host,
        }
        .perform();
        self.cpu.mmio.pass = false;
        self.cpu.finish_syscall(result)
    }

    /// A stop leaving the machine: MARS's runtime errors name the source file and line.
    fn report(&self, stop: Option<StopEvent>) -> Option<StopEvent> {
        match stop {
            Some(StopEvent::Fault(mut fault)) => {
                let place = self
                    .host
                    .error_place(&self.program.debug.lines, fault.pc as u32);
                fault.message.insert_str(0, &place);
                Some(StopEvent::Fault(fault))
            }
            stop => stop,
        }
    }
}

impl MipsMachine {
    fn run_live(&mut self, budget: u64) -> RunOutcome {
        if self.journal().is_replaying() {
            return host::run_replaying(self, budget);
        }
        self.run_inner(budget)
    }
}

impl Replayable for MipsMachine {
    fn journal(&self) -> &Journal {
        &self.host.journal
    }

    fn journal_mut(&mut self) -> &mut Journal {
        &mut self.host.journal
    }

    fn console_mut(&mut self) -> &mut Console {
        &mut self.cpu.console
    }

    fn instruction_count(&self) -> u64 {
        self.cpu.instructions
    }

    /// Runs the cpu, performing its syscalls and the MMIO device's work, until the budget is
    /// used, a stop, the start of a real-time sleep, or [`OUTPUT_PER_RUN`] bytes of output
    /// waiting to be taken.
    /// A machine with the MMIO device ends each run with the device's work due at its count
    /// done (keys pressed, the transmitter's ready bit), so that the state at a count is the
    /// same whether a run, a step or a stop at a breakpoint got there; only an interrupt waits
    /// for the next instruction.
    fn run_inner(&mut self, budget: u64) -> RunOutcome {
        let outcome = self.run_devices(budget);
        if self.cpu.mmio.connected {
            self.device_work(false);
        }
        outcome
    }
}

impl Snapshot for MipsMachine {
    type State = MipsState;

    fn snapshot(&self) -> MipsState {
        MipsState {
            cpu: self.cpu.state(),
            sys: self.sys.clone(),
            keys_pressed: self.sys_keys.pressed,
        }
    }

    fn restore(&mut self, state: &MipsState) {
        self.cpu.set_state(&state.cpu);
        self.sys.clone_from(&state.sys);
        self.sys_keys.pressed = state.keys_pressed;
        self.host.forget_handles();
    }

    fn snapshot_cost_bytes(&self) -> usize {
        // The pages ever written are looked at for non-zero bytes, and copied.
        self.cpu.mem.written_bytes()
    }

    fn state_bytes(&self, state: &MipsState) -> usize {
        // The memory's non-zero pages, the text decoded and as words, queued input.
        state.cpu.mem.bytes() + state.cpu.text_bytes() + state.cpu.console.pending_input()
    }
}

fn bad_program(message: String) -> LoadError {
    LoadError::BadObject {
        path: "<program>".to_string(),
        message,
    }
}

fn syscall_state(opts: &MachineOptions) -> SyscallState {
    let mut sys = SyscallState::new();
    sys.default_seed = opts.seed.map(|s| s as i64);
    sys.virtual_time = opts.virtual_time;
    sys.virtual_pace = opts.speed.map(|per_second| crate::syscalls::PacedClock {
        pace: asmdbg_core::Pace::new(per_second),
        since: 0,
    });
    sys.dialogs_to_stderr = opts.dialogs_to_stderr;
    sys
}

fn build_cpu(program: &Program, opts: &MachineOptions) -> Result<Cpu, LoadError> {
    let start = match (opts.start_at_main, program.main) {
        (true, Some(main)) => main,
        _ => program.text_start,
    };
    let mut cpu = Cpu::new(start);
    cpu.delay_slots = opts.delay_slots;
    for chunk in &program.chunks {
        let end = chunk.addr as u64 + chunk.bytes.len() as u64;
        if chunk.kind.is_code() {
            for (i, word) in chunk.bytes.chunks(4).enumerate() {
                let mut b = [0u8; 4];
                b[..word.len()].copy_from_slice(word);
                let addr = chunk.addr.wrapping_add(4 * i as u32);
                if !cpu.write_text_word(addr, u32::from_le_bytes(b)) {
                    return Err(bad_program(format!(
                        "code at 0x{addr:08x} is outside the text segments"
                    )));
                }
            }
        } else {
            for (i, &byte) in chunk.bytes.iter().enumerate() {
                let addr = chunk.addr.wrapping_add(i as u32);
                if Memory::region(addr) != Region::Data || !cpu.mem.write_u8(addr, byte) {
                    return Err(bad_program(format!(
                        "data at 0x{addr:08x} (chunk 0x{:08x}..0x{end:08x}) is outside the data segments",
                        chunk.addr
                    )));
                }
            }
        }
    }
    for far in &program.far_branches {
        cpu.load_far_branch(far.addr, far.displacement);
    }
    store_program_args(&mut cpu, &opts.program_args)?;
    // A game with a screen or scripted keys reads the keyboard: MARS's students connect both
    // tools.
    if opts.mmio || opts.bitmap.is_some() || !opts.keys.is_empty() {
        devices::connect(&mut cpu);
    }
    let text_bytes = (cpu.text_len_bytes() as u64).max(4).next_multiple_of(256);
    cpu.breakpoints = BreakpointSet::new(TEXT_BASE as u64, text_bytes, 2);
    cpu.watchpoints = WatchpointSet::new(1 << 32, 12);
    Ok(cpu)
}

/// Places program arguments where MARS's `pa` option puts them
/// (mars/simulator/ProgramArgumentList.java): each string, NUL-terminated, packed downwards from
/// the top of the stack segment ([`STACK_BASE`]) in argument order; below `$sp`'s usual start
/// (or, when the strings reach below it, the word under them with a word of room), a NUL
/// word, the argv pointers above it and argc below them. `$sp` points at argc, `$a1` at argv[0],
/// `$a0` holds argc. Each character is a UTF-16 unit cut to its low byte, as MARS stores Java
/// chars. Without arguments nothing changes.
fn store_program_args(cpu: &mut Cpu, args: &[String]) -> Result<(), LoadError> {
    if args.is_empty() {
        return Ok(());
    }
    let too_long =
        || LoadError::Option("the program arguments do not fit in the stack segment".into());
    let mut high = STACK_BASE;
    let mut starts = Vec::with_capacity(args.len());
    for arg in args {
        let units: Vec<u16> = arg.encode_utf16().collect();
        if !cpu.mem.write_u8(high, 0) {
            return Err(too_long());
        }
        high = high.checked_sub(1).ok_or_else(too_long)?;
        for &unit in units.iter().rev() {
            if !cpu.mem.write_u8(high, unit as u8) {
                return Err(too_long());
            }
            high = high.checked_sub(1).ok_or_else(too_long)?;
        }
        starts.push(high + 1);
    }
    let mut slot = if high < STACK_POINTER {
        // The strings overlap the usual stack: start one word below the word they reach.
        (high - high % 4).checked_sub(4).ok_or_else(too_long)?
    } else {
        STACK_POINTER
    };
    let mut push = |cpu: &mut Cpu, value: u32| -> Result<(), LoadError> {
        if !cpu.mem.write_u32(slot, value) {
            return Err(too_long());
        }
        slot = slot.checked_sub(4).ok_or_else(too_long)?;
        Ok(())
    };
    push(cpu, 0)?;
    for &start in starts.iter().rev() {
        push(cpu, start)?;
    }
    let argc = starts.len() as u32;
    push(cpu, argc)?;
    let sp = slot + 4;
    cpu.set_reg(29, sp);
    cpu.set_reg(4, argc);
    cpu.set_reg(5, sp + 4);
    Ok(())
}

/// Assembles `text` (named `path` in messages) and loads it. Relative `.include` and file
/// names resolve against `opts.work_dir` or the working directory.
pub fn load_machine(
    path: &str,
    text: &str,
    opts: &MachineOptions,
) -> Result<MipsMachine, LoadError> {
    load_machine_files(&[(path.to_string(), text.to_string())], opts)
}

/// Assembles a program of several files, `(path, text)` each, in the order given (MARS's
/// rules: [`crate::asm::assemble_files`]) and loads it. Each path names its file in messages;
/// relative `.include` and file names resolve as for [`load_machine`].
pub fn load_machine_files(
    files: &[(String, String)],
    opts: &MachineOptions,
) -> Result<MipsMachine, LoadError> {
    let files: Vec<SourceFile> = files
        .iter()
        .map(|(path, text)| SourceFile::new(path.as_str(), text.as_str()))
        .collect();
    let asm_opts = AsmOptions {
        work_dir: opts.work_dir.clone(),
        delay_slots: opts.delay_slots,
        sources: opts.sources.clone(),
        deadline: opts.assembly_deadline,
        strict: opts.strict,
    };
    let program = assemble_files(&files, &asm_opts).map_err(LoadError::Assembly)?;
    MipsMachine::new(program, opts)
}

impl Machine for MipsMachine {
    fn take_host_stderr(&mut self) -> Vec<u8> {
        self.take_stderr()
    }

    /// A program that polls or writes MARS's MMIO words without the device, or fills memory
    /// where a Bitmap Display is usually put without one: the flag that would show it.
    fn take_advice(&mut self) -> Option<String> {
        self.unconfigured_advice()
    }

    fn limit_output(&mut self, limit: usize) {
        self.cpu.console.limit_output(limit);
        self.host.limit_stderr(limit);
    }

    fn wake_time(&self) -> Option<asmdbg_core::clock::Instant> {
        self.host.wake_time()
    }

    fn isa(&self) -> Isa {
        crate::ISA
    }

    /// MARS's Bitmap Display: one word per unit from its base, `0x00RRGGBB` (the top byte is
    /// not shown); words outside memory show black.
    fn frame(&self) -> Option<Frame> {
        let config = self.opts.bitmap?;
        let (width, height) = config.units();
        let pixels = (0..width * height)
            .map(|i| {
                let addr = config.base.wrapping_add(4 * i);
                self.cpu.mem.read_u32(addr).unwrap_or(0) & 0x00ff_ffff
            })
            .collect();
        Some(Frame {
            width,
            height,
            unit_width: config.unit_width,
            unit_height: config.unit_height,
            pixels,
        })
    }

    fn display_memory(&self) -> Option<(u64, u64)> {
        let config = self.opts.bitmap?;
        Some((config.base as u64, config.bytes() as u64))
    }

    fn run(&mut self, budget: u64) -> RunOutcome {
        if !self.sys_keys.is_empty() {
            return display::run_with_keys(self, budget);
        }
        self.run_live(budget)
    }

    fn step(&mut self) -> Option<StopEvent> {
        if !self.sys_keys.is_empty() {
            self.press_due_keys();
        }
        if self.cpu.mmio.connected {
            let (counted, stop) = self.device_work(true);
            if counted || stop.is_some() {
                return self.report(stop);
            }
        }
        let mut stop = self.cpu.step();
        if stop.is_none() && self.cpu.take_syscall() {
            stop = match self.cpu.take_device_access() {
                Some(access) => self.device_access(access).1,
                None => self.syscall().1,
            };
        }
        // The device's work due at the new count, as at the end of a run.
        if !self.sys_keys.is_empty() {
            self.press_due_keys();
        }
        if self.cpu.mmio.connected {
            self.device_work(false);
        }
        self.report(stop)
    }

    fn has_keyboard_device(&self) -> bool {
        self.connected_keyboard()
    }

    fn queue_key(&mut self, key: u8) {
        if self.connected_keyboard() {
            host::queue_key(self, key);
        } else {
            self.queue_input(&[key]);
        }
    }

    /// A key on its way to the MMIO keyboard, or there and not read (the receiver's ready bit).
    fn key_unread(&mut self) -> bool {
        self.key_on_its_way()
    }

    fn pc(&self) -> u64 {
        self.cpu.pc as u64
    }

    fn set_pc(&mut self, pc: u64) {
        self.cpu.set_pc(pc as u32);
    }

    fn registers(&self) -> &'static [RegisterInfo] {
        &REGISTERS
    }

    fn read_register(&self, index: usize) -> Option<u64> {
        let c = &self.cpu;
        let value = match index {
            0..=31 => c.regs[index],
            REG_STATUS => c.status,
            REG_LO => c.lo,
            REG_HI => c.hi,
            REG_BADVADDR => c.badvaddr,
            REG_CAUSE => c.cause,
            REG_PC => c.pc,
            REG_FCSR => (0..8)
                .filter(|&n| (c.fcc >> n) & 1 != 0)
                .fold(0, |acc, n| acc | (1 << fcsr_bit(n))),
            REG_FIR => 0,
            REG_EPC => c.epc,
            i if (REG_F0..REG_F0 + 32).contains(&i) => c.fpr[i - REG_F0],
            _ => return None,
        };
        Some(value as u64)
    }

    /// MARS accepts `$s8` for `$fp`.
    fn register_scope(&self, index: usize) -> asmdbg_core::RegisterScope {
        if (REG_F0..REG_F0 + 32).contains(&index) || index == REG_FCSR || index == REG_FIR {
            asmdbg_core::RegisterScope::Float
        } else {
            asmdbg_core::RegisterScope::General
        }
    }

    /// MARS's names: `$t0` and `$f12` as the assembly writes them; `pc`, `hi`, `lo` and the
    /// coprocessor 0 registers bare, as its register windows show them.
    fn register_label(&self, index: usize) -> String {
        let name = REGISTERS.get(index).map_or("", |r| r.name);
        if index < 32 || (REG_F0..REG_F0 + 32).contains(&index) {
            format!("${name}")
        } else {
            name.to_string()
        }
    }

    fn register_aliases(&self) -> &'static [(&'static str, usize)] {
        &[("s8", 30)]
    }

    fn write_register(&mut self, index: usize, value: u64) -> bool {
        let v = value as u32;
        let c = &mut self.cpu;
        match index {
            0 => {}
            1..=31 => c.regs[index] = v,
            REG_STATUS => c.status = v,
            REG_LO => c.lo = v,
            REG_HI => c.hi = v,
            REG_BADVADDR => c.badvaddr = v,
            REG_CAUSE => c.cause = v,
            REG_PC => c.set_pc(v),
            REG_FCSR => {
                c.fcc = (0..8)
                    .filter(|&n| (v >> fcsr_bit(n)) & 1 != 0)
                    .fold(0, |acc, n| acc | (1 << n));
            }
            REG_FIR => {}
            REG_EPC => c.epc = v,
            i if (REG_F0..REG_F0 + 32).contains(&i) => c.fpr[i - REG_F0] = v,
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
        let a = u32::try_from(addr).map_err(|_| MemError::Unmapped(addr))?;
        if in_text(a) || in_ktext(a) {
            let word = self.cpu.text_word(a & !3).unwrap_or(0);
            return Ok((word >> (8 * (a & 3))) & 0xff);
        }
        self.cpu
            .mem
            .read_u8(a)
            .map(u32::from)
            .ok_or(MemError::Unmapped(addr))
    }

    fn debug_write(&mut self, addr: u64, value: u32) -> Result<(), MemError> {
        let a = u32::try_from(addr).map_err(|_| MemError::Unmapped(addr))?;
        if in_text(a) || in_ktext(a) {
            let base = a & !3;
            // The debugger may patch code and append a little after it, but a stray write near
            // the top of a 4 MiB text segment must not allocate the whole segment.
            let segment = if in_ktext(a) { KTEXT_BASE } else { TEXT_BASE };
            let index = ((base - segment) >> 2) as usize;
            if index >= self.cpu.text_len(base) + MAX_TEXT_GROWTH {
                return Err(MemError::Unmapped(addr));
            }
            let shift = 8 * (a & 3);
            let word = self.cpu.text_word(base).unwrap_or(0);
            let word = (word & !(0xff << shift)) | ((value & 0xff) << shift);
            return if self.cpu.write_text_word(base, word) {
                Ok(())
            } else {
                Err(MemError::Unmapped(addr))
            };
        }
        if self.cpu.mem.write_u8(a, value as u8) {
            Ok(())
        } else {
            Err(MemError::Unmapped(addr))
        }
    }

    asmdbg_core::machine_ports!(cpu);

    fn instructions_executed(&self) -> u64 {
        self.cpu.instructions
    }

    fn set_compiled_code(&mut self, on: bool) {
        self.cpu.set_compiled_code(on);
    }

    fn reset(&mut self) {
        // The same program loaded into the same options cannot fail a second time; keep the
        // current state in the impossible case that it does.
        if let Ok(mut cpu) = build_cpu(&self.program, &self.opts) {
            cpu.breakpoints =
                std::mem::replace(&mut self.cpu.breakpoints, BreakpointSet::new(0, 0, 2));
            cpu.watchpoints =
                std::mem::replace(&mut self.cpu.watchpoints, WatchpointSet::new(1 << 32, 12));
            self.cpu = cpu;
            self.sys = syscall_state(&self.opts);
            self.sys_keys.pressed = 0;
            self.host.forget_handles();
            // A new run: counts start again at 0, so a log goes on as a new one.
            if self.host.journal.is_recording() || self.host.journal.is_replaying() {
                self.host.journal = Journal::recording();
            }
        }
    }

    fn disassemble(&self, addr: u64) -> Option<(String, u64)> {
        let a = u32::try_from(addr).ok()?;
        let instr = self.cpu.instruction_at(a)?;
        Some((
            format_instruction(instr, a, Some(&self.program.debug.symbols)),
            4,
        ))
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
        MipsMachine::run_gated(self, budget, fast)
    }

    fn debug_info(&self) -> Option<&DebugInfo> {
        Some(&self.program.debug)
    }

    fn fault_exit_status(&self) -> i32 {
        0
    }

    /// MARS's warning report (mars/ErrorList.java), which its command line prints before
    /// simulating, followed by an empty line: `Warning in PATH line N column C: MESSAGE` with
    /// the file's absolute path. Limit: a warning inside a macro expansion names the line of
    /// the macro's body without MARS's `CALL->` history.
    fn start_of_run_stderr(&self) -> String {
        let mut report = String::new();
        for warning in &self.program.warnings.items {
            if warning.severity != asmdbg_core::Severity::Warning {
                continue;
            }
            report.push_str("Warning in ");
            if let Some(loc) = &warning.location {
                report.push_str(&crate::host::display_path(
                    &loc.file,
                    self.opts.work_dir.as_deref(),
                ));
                report.push_str(&format!(" line {} column {}", loc.line, loc.col));
            }
            report.push_str(&format!(": {}\n", warning.message));
        }
        if !report.is_empty() {
            report.push('\n');
        }
        report
    }

    /// MARS's command line (mars/MarsLaunch.java) prints an empty line after every run that
    /// got to simulate, whatever ended it (the post-mortem register display, empty by default).
    fn end_of_run_stderr(&self) -> &'static str {
        "\n"
    }

    /// MARS's wording for its own step limit (`Mars nc me N file`), blank line included.
    fn step_limit_message(&self, limit: u64) -> Option<String> {
        Some(format!(
            "\nProgram terminated when maximum step limit {limit} reached."
        ))
    }

    fn describe(&self) -> String {
        let mut text = "mips (MARS 4.5)".to_string();
        if self.opts.delay_slots {
            text.push_str(", delay slots");
        }
        if self.opts.start_at_main {
            text.push_str(", start at main");
        }
        if let Some(seed) = self.opts.seed {
            text.push_str(&format!(", seed {seed}"));
        }
        if self.opts.virtual_time {
            text.push_str(", virtual time");
        }
        if let Some(speed) = self.opts.speed {
            text.push_str(&format!(
                ", {} instructions a second",
                asmdbg_core::pace::describe(speed)
            ));
        }
        text
    }
}
