//! [`Lc3Machine`]: a [`Cpu`] with its profile's OS and a loaded program behind the
//! [`Machine`] trait, and [`load_machine`], which the command line calls for `--isa lc3`.
//!
//! Native addresses are LC-3 word addresses (x0000–xFFFF); each unit is a 16-bit word.

use asmdbg_core::display::{self, Frame, KeyFeed, KeyedMachine, ScheduledKey};
use asmdbg_core::host::{self, Replayable};
use asmdbg_core::{
    Console, DebugInfo, Isa, Journal, LoadError, Machine, MachineOptions, MemError, ProgramSource,
    RegisterInfo, RunOutcome, Snapshot, SourceFile, StopEvent,
};

mod checks;

use crate::asm::{assemble, AsmOptions};
use crate::cpu::{Cpu, CpuState, Semantics, NO_TRAP};
use crate::decode::disassemble_for;
use crate::os::{default_profile, profile, profile_names, OsImage, Profile, OS_ORIGIN};
use crate::program::{link, LoaderRules, Program, ProgramPart};

/// The registers in `monitor regs` and gdb order. The saved stack pointers are the ones R6 is
/// swapped with on a privilege change.
pub const REGISTERS: [RegisterInfo; 12] = [
    RegisterInfo {
        name: "R0",
        bits: 16,
    },
    RegisterInfo {
        name: "R1",
        bits: 16,
    },
    RegisterInfo {
        name: "R2",
        bits: 16,
    },
    RegisterInfo {
        name: "R3",
        bits: 16,
    },
    RegisterInfo {
        name: "R4",
        bits: 16,
    },
    RegisterInfo {
        name: "R5",
        bits: 16,
    },
    RegisterInfo {
        name: "R6",
        bits: 16,
    },
    RegisterInfo {
        name: "R7",
        bits: 16,
    },
    RegisterInfo {
        name: "PC",
        bits: 16,
    },
    RegisterInfo {
        name: "PSR",
        bits: 16,
    },
    RegisterInfo {
        name: "SSP",
        bits: 16,
    },
    RegisterInfo {
        name: "USP",
        bits: 16,
    },
];

pub const REG_PC: usize = 8;
pub const REG_PSR: usize = 9;
pub const REG_SAVED_SSP: usize = 10;
pub const REG_SAVED_USP: usize = 11;

/// Where a program without any `.ORIG` block would start.
const DEFAULT_ENTRY: u16 = 0x3000;

/// An LC-3 running one program under one OS profile.
#[derive(Debug, Clone)]
pub struct Lc3Machine {
    cpu: Cpu,
    profile: &'static Profile,
    /// The profile's built-in OS, loaded under the program; `None` when the program brings its
    /// own (`--profile pennsim` with the course's OS as the first file).
    os: Option<&'static OsImage>,
    program: Program,
    /// Console input is its only outside input: recorded or replayed here.
    journal: Journal,
    /// PennSim's video display at xC000-xFDFF is shown (`--display`).
    video: bool,
    /// Keys pressed at given counts (`--keys`), as console input.
    keys: KeyFeed,
    /// Looking for a video display the program draws on that nothing configured.
    unconfigured: asmdbg_core::display::Unconfigured,
}

/// The complete state of an [`Lc3Machine`] (see [`CpuState`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lc3State {
    pub cpu: CpuState,
    /// Keys of the `--keys` schedule already pressed.
    pub keys_pressed: usize,
}

impl Lc3Machine {
    /// Loads `program` on top of the profile's OS image, ready to start at its origin.
    pub fn new(program: Program, profile: &'static Profile) -> Result<Self, LoadError> {
        Self::with_semantics(program, profile, profile.semantics)
    }

    /// [`Lc3Machine::new`] with the profile's semantics changed by an option
    /// (`--ignore-privilege`).
    pub fn with_semantics(
        program: Program,
        profile: &'static Profile,
        semantics: Semantics,
    ) -> Result<Self, LoadError> {
        let os = profile
            .os_image()
            .map_err(|e| LoadError::Option(e.to_string()))?;
        Ok(Self::assemble_machine(
            program,
            profile,
            semantics,
            Some(os),
        ))
    }

    fn assemble_machine(
        program: Program,
        profile: &'static Profile,
        semantics: Semantics,
        os: Option<&'static OsImage>,
    ) -> Self {
        let mut machine = Lc3Machine {
            cpu: Cpu::new(semantics),
            profile,
            os,
            program,
            journal: Journal::off(),
            video: false,
            keys: KeyFeed::default(),
            unconfigured: Default::default(),
        };
        machine.reset();
        machine
    }

    /// The built-in OS under the program, if any.
    pub fn builtin_os(&self) -> Option<&'static OsImage> {
        self.os
    }

    pub fn cpu(&self) -> &Cpu {
        &self.cpu
    }

    /// Shows PennSim's video display (`--display`) and presses `keys` at their counts.
    pub fn set_devices(&mut self, video: bool, keys: &[ScheduledKey]) {
        self.video = video;
        self.keys = KeyFeed::new(keys);
    }

    fn run_live(&mut self, budget: u64) -> RunOutcome {
        if self.journal().is_replaying() {
            return host::run_replaying(self, budget);
        }
        self.cpu.run(budget)
    }

    /// Direct access for tests and the debugger's `monitor` commands.
    pub fn cpu_mut(&mut self) -> &mut Cpu {
        &mut self.cpu
    }

    pub fn profile(&self) -> &'static Profile {
        self.profile
    }

    pub fn program(&self) -> &Program {
        &self.program
    }

    /// Labels and lines of the OS image, for disassembling inside trap routines.
    pub fn os_debug_info(&self) -> &DebugInfo {
        self.os.map_or(&self.program.debug, |os| &os.debug)
    }

    /// Where the program starts: the origin of its first block.
    pub fn entry(&self) -> u16 {
        self.program.entry().unwrap_or(DEFAULT_ENTRY)
    }
}

impl Replayable for Lc3Machine {
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
        self.cpu.instructions_executed()
    }

    fn run_inner(&mut self, budget: u64) -> RunOutcome {
        self.cpu.run(budget)
    }
}

impl KeyedMachine for Lc3Machine {
    fn key_feed(&mut self) -> &mut KeyFeed {
        &mut self.keys
    }

    fn key_count(&self) -> u64 {
        self.cpu.instructions_executed()
    }

    /// The key is typed on the keyboard: queued as console input (KBSR's ready bit).
    fn press_scheduled(&mut self, key: u8) {
        self.cpu.console.push_input(&[key]);
    }

    fn run_unscheduled(&mut self, budget: u64) -> RunOutcome {
        self.run_live(budget)
    }
}

/// PennSim's video display: 128 × 124 pixels, one word each, row-major from xC000.
pub const VIDEO_BASE: u32 = 0xC000;
pub const VIDEO_WIDTH: u32 = 128;
pub const VIDEO_HEIGHT: u32 = 124;

impl Snapshot for Lc3Machine {
    type State = Lc3State;

    fn snapshot(&self) -> Lc3State {
        Lc3State {
            cpu: self.cpu.state(),
            keys_pressed: self.keys.pressed,
        }
    }

    fn restore(&mut self, state: &Lc3State) {
        self.cpu.set_state(&state.cpu);
        self.keys.pressed = state.keys_pressed;
    }

    fn snapshot_cost_bytes(&self) -> usize {
        2 * 0x10000
    }

    fn state_bytes(&self, state: &Lc3State) -> usize {
        // The 64 Ki words of memory, and the console's queued input.
        std::mem::size_of::<Lc3State>() + 2 * 0x10000 + state.cpu.console.pending_input()
    }
}

impl Machine for Lc3Machine {
    fn isa(&self) -> Isa {
        crate::ISA
    }

    fn run(&mut self, budget: u64) -> RunOutcome {
        if !self.keys.is_empty() {
            return display::run_with_keys(self, budget);
        }
        self.run_live(budget)
    }

    fn step(&mut self) -> Option<StopEvent> {
        if self.keys.is_empty() {
            return self.cpu.step();
        }
        self.press_due_keys();
        let stop = match self.cpu.step() {
            // Waiting for a key the schedule holds for later: it comes now.
            Some(StopEvent::NeedInput) => match self.keys.take_next() {
                Some(key) => {
                    self.press_scheduled(key);
                    self.cpu.step()
                }
                None => Some(StopEvent::NeedInput),
            },
            stop => stop,
        };
        self.press_due_keys();
        stop
    }

    fn frame(&self) -> Option<Frame> {
        if !self.video {
            return None;
        }
        let mem = self.cpu.mem();
        let pixels = mem[VIDEO_BASE as usize..(VIDEO_BASE + VIDEO_WIDTH * VIDEO_HEIGHT) as usize]
            .iter()
            .map(|&word| display::pennsim_rgb(word))
            .collect();
        Some(Frame {
            width: VIDEO_WIDTH,
            height: VIDEO_HEIGHT,
            // PennSim draws each pixel as a 2 × 2 block (a 256 × 248 image).
            unit_width: 2,
            unit_height: 2,
            pixels,
        })
    }

    /// A program that draws on PennSim's video memory without `--display`: the flag that
    /// shows it.
    fn take_advice(&mut self) -> Option<String> {
        if self.video || !self.unconfigured.due(self.cpu.instructions_executed()) {
            return None;
        }
        let mem = self.cpu.mem();
        let video = &mem[VIDEO_BASE as usize..(VIDEO_BASE + VIDEO_WIDTH * VIDEO_HEIGHT) as usize];
        // One word in eight: a drawing shows in any of them.
        let drawn = video.iter().step_by(8).filter(|&&w| w != 0).count();
        (drawn >= 8 && self.unconfigured.said()).then(|| {
            "the program draws on PennSim's video display (xC000-xFDFF), but no display is shown: run it with --display".to_string()
        })
    }

    fn display_memory(&self) -> Option<(u64, u64)> {
        self.video
            .then_some((VIDEO_BASE as u64, (VIDEO_WIDTH * VIDEO_HEIGHT) as u64))
    }

    /// The LC-3 keyboard is the console; a program with a display reads it key by key.
    fn has_keyboard_device(&self) -> bool {
        self.video
    }

    fn pc(&self) -> u64 {
        self.cpu.pc as u64
    }

    fn set_pc(&mut self, pc: u64) {
        self.cpu.set_pc(pc as u16);
    }

    fn registers(&self) -> &'static [RegisterInfo] {
        &REGISTERS
    }

    fn read_register(&self, index: usize) -> Option<u64> {
        let value = match index {
            0..=7 => self.cpu.regs[index],
            REG_PC => self.cpu.pc,
            REG_PSR => self.cpu.psr(),
            REG_SAVED_SSP => self.cpu.saved_ssp,
            REG_SAVED_USP => self.cpu.saved_usp,
            _ => return None,
        };
        Some(value as u64)
    }

    /// R6 is the stack pointer by convention (gdb shows it as `$sp`).
    fn register_aliases(&self) -> &'static [(&'static str, usize)] {
        &[("sp", 6)]
    }

    fn write_register(&mut self, index: usize, value: u64) -> bool {
        let value = value as u16;
        match index {
            0..=7 => self.cpu.regs[index] = value,
            REG_PC => self.cpu.set_pc(value),
            REG_PSR => self.cpu.set_psr(value),
            REG_SAVED_SSP => self.cpu.saved_ssp = value,
            REG_SAVED_USP => self.cpu.saved_usp = value,
            _ => return false,
        }
        true
    }

    fn unit_bytes(&self) -> u32 {
        2
    }

    fn word_units(&self) -> u32 {
        1
    }

    fn debug_read(&self, addr: u64) -> Result<u32, MemError> {
        let addr = u16::try_from(addr).map_err(|_| MemError::Unmapped(addr))?;
        Ok(self.cpu.peek(addr) as u32)
    }

    fn debug_write(&mut self, addr: u64, value: u32) -> Result<(), MemError> {
        let addr = u16::try_from(addr).map_err(|_| MemError::Unmapped(addr))?;
        self.cpu.poke(addr, value as u16);
        Ok(())
    }

    asmdbg_core::machine_ports!(cpu);

    fn instructions_executed(&self) -> u64 {
        self.cpu.instructions_executed()
    }

    fn set_compiled_code(&mut self, on: bool) {
        self.cpu.set_compiled_code(on);
    }

    /// Reloads the OS and the program and restarts at the origin. Breakpoints and watchpoints
    /// stay: they belong to the debugging session, not to the machine state.
    fn reset(&mut self) {
        let mem = self.cpu.mem_mut();
        mem.fill(0);
        let os = self.os.map_or(&[][..], |os| &os.segments[..]);
        for segment in os.iter().chain(&self.program.segments) {
            let mut addr = segment.origin;
            for &word in &segment.words {
                mem[addr as usize] = word;
                addr = addr.wrapping_add(1);
            }
        }
        self.cpu.console.reset();
        self.keys.pressed = 0;
        let entry = self.entry();
        let user_space = (0x3000..0xFE00).contains(&entry);
        if self.profile.supervisor_outside_user_space && !user_space {
            // lc3tools starts such a program in supervisor mode, R6 on the supervisor stack.
            self.cpu.reset_state(entry, 0x0002, 0);
            self.cpu.regs[6] = self.profile.initial_ssp;
        } else {
            self.cpu
                .reset_state(entry, self.profile.initial_psr, self.profile.initial_ssp);
        }
        // A new run: counts start again at 0, so a log goes on as a new one.
        if self.journal.is_recording() || self.journal.is_replaying() {
            self.journal = Journal::recording();
        }
    }

    fn disassemble(&self, addr: u64) -> Option<(String, u64)> {
        let addr = u16::try_from(addr).ok()?;
        let word = self.cpu.peek(addr);
        let os_code = self.os.filter(|os| {
            os.segments
                .iter()
                .filter(|s| s.origin >= OS_ORIGIN)
                .any(|s| addr >= s.origin && ((addr - s.origin) as usize) < s.words.len())
        });
        let symbols = match os_code {
            Some(os) => &os.debug.symbols,
            None => &self.program.debug.symbols,
        };
        let pennsim = self.cpu.semantics.pennsim;
        Some((disassemble_for(word, addr, Some(symbols), pennsim), 1))
    }

    fn debug_info(&self) -> Option<&DebugInfo> {
        Some(&self.program.debug)
    }

    fn describe(&self) -> String {
        format!("lc3, profile {}", self.profile.name)
    }

    fn start_of_run_stderr(&self) -> String {
        // The assembler's slips (a lone label that looks like an instruction) are worth
        // saying before the run, which they spoil; its other warnings `asm` shows.
        let slips = self
            .program
            .warnings
            .items
            .iter()
            .filter(|d| d.message.contains("looks like the instruction"))
            .map(ToString::to_string);
        self.program
            .load_notes
            .iter()
            .map(|note| format!("{note}\n"))
            .chain(slips)
            .collect()
    }

    fn console_reads_keys(&self) -> bool {
        true
    }

    fn check_conventions(&self) -> Option<asmdbg_core::checks::Conventions> {
        Some(self.conventions())
    }

    fn check_effects(&self) -> Option<asmdbg_core::checks::Effects> {
        Some(self.effects())
    }

    fn run_gated(
        &mut self,
        budget: u64,
        fast: &mut asmdbg_core::checks::FastPath,
    ) -> Option<RunOutcome> {
        Lc3Machine::run_gated(self, budget, fast)
    }

    fn system_call_site(&self) -> Option<u64> {
        let in_program = self.program.debug.describe(self.pc()).is_some();
        let site = self.cpu.trap_site;
        (!in_program && site != NO_TRAP).then_some(u64::from(site))
    }
}

/// lc3tools' object-file magic.
const LC3TOOLS_MAGIC: [u8; 5] = [0x1C, 0x30, 0x15, 0xC0, 0x01];

/// Whether `bytes` are an object file: lc3tools' magic, or control bytes no assembly source
/// contains. Invalid UTF-8 alone is not enough: students' comments are often in Latin-1.
pub fn is_object_file(bytes: &[u8]) -> bool {
    bytes.starts_with(&LC3TOOLS_MAGIC)
        || bytes
            .iter()
            .any(|&b| b < 0x20 && !matches!(b, b'\n' | b'\r' | b'\t' | 0x0C))
}

/// Options of other ISAs that would silently do nothing here.
/// The profile `opts` names, or the default.
pub fn select_profile(opts: &MachineOptions) -> Result<&'static Profile, LoadError> {
    match &opts.profile {
        None => Ok(default_profile()),
        Some(name) => profile(name).ok_or_else(|| {
            LoadError::Option(format!(
                "unknown LC-3 profile '{name}': expected one of {}",
                profile_names().join(", ")
            ))
        }),
    }
}

/// Builds a machine from a file named on the command line: assembly source (assembled with
/// `opts.strict`) or an object file (classic or lc3tools format), under `opts.profile`.
pub fn load_machine(
    path: &str,
    bytes: &[u8],
    opts: &MachineOptions,
) -> Result<Lc3Machine, LoadError> {
    load_machine_files(
        &[ProgramSource {
            path: path.to_string(),
            bytes: bytes.to_vec(),
        }],
        opts,
    )
}

/// One file of a program, assembled (or read) on its own as lc3as and lc3tools do.
fn load_part(file: &ProgramSource, opts: &MachineOptions) -> Result<Program, LoadError> {
    if is_object_file(&file.bytes) {
        return crate::objfile::read_obj(&file.bytes).map_err(|e| LoadError::BadObject {
            path: file.path.clone(),
            message: e.to_string(),
        });
    }
    let text = String::from_utf8_lossy(&file.bytes);
    let source = SourceFile::new(file.path.as_str(), text.as_ref());
    let asm_opts = AsmOptions {
        strict: opts.strict,
        pennsim: select_profile(opts)?.semantics.pennsim,
    };
    assemble(&source, &asm_opts).map_err(LoadError::Assembly)
}

/// What the start-in-data note needs to know of one file of a program.
struct FileShape {
    path: String,
    origins: Vec<u16>,
    /// Whether any word is an instruction (an object file, without debug info, counts as code).
    code: bool,
}

impl FileShape {
    fn of(part: &ProgramPart) -> FileShape {
        let program = &part.program;
        let data = &program.debug.data;
        let addresses = || program.segments.iter().flat_map(|s| s.span());
        let code = data.is_empty() || addresses().any(|a| !data.is_data(u64::from(a)));
        FileShape {
            path: part.path.clone(),
            origins: program.segments.iter().map(|s| s.origin).collect(),
            code,
        }
    }
}

/// A program of several files whose start (the last file's `.ORIG`, as the reference
/// simulators load it) is in a file that holds only data — a game given before its sprites —
/// runs its data silently: the note says so, and names the file that looks like the program
/// (the one at x3000 with code, else the first with code) and `--entry`.
fn start_in_data(files: &[FileShape], start: u16) -> Option<String> {
    if files.len() < 2 {
        return None;
    }
    let here = files.iter().rev().find(|f| f.origins.contains(&start))?;
    if here.code {
        return None;
    }
    let program = files
        .iter()
        .find(|f| f.code && f.origins.first() == Some(&0x3000))
        .or_else(|| files.iter().find(|f| f.code))?;
    let origin = program.origins.first().copied().unwrap_or(0x3000);
    Some(format!(
        "the program starts at x{start:04X}, the .ORIG of {} (the last file: the simulators start there), which holds only data; {} has code at x{origin:04X}: give --entry x{origin:04X}, or name {} last",
        here.path, program.path, program.path
    ))
}

/// `--entry`: an address (`x3000`, `#12288`, `0x3000`, `12288`) or a label of any file.
fn entry_address(text: &str, program: &Program) -> Result<u16, LoadError> {
    if let Some(n) = asmdbg_core::isa::parse_number(text.trim()) {
        return u16::try_from(n).map_err(|_| {
            LoadError::Option(format!("--entry {text}: not an LC-3 address (x0000-xFFFF)"))
        });
    }
    program
        .debug
        .symbols
        .addr(text.trim())
        .and_then(|a| u16::try_from(a).ok())
        .ok_or_else(|| {
            LoadError::Option(format!(
                "--entry {text}: no label of that name in the program, and not an address"
            ))
        })
}

/// Builds a machine from the files of one program, each loaded at its own `.ORIG` by the
/// loader rules of the profile's simulator ([`LoaderRules`]); `--entry` overrides where it
/// starts. Every file is assembled even when one fails, so all errors are reported at once.
pub fn load_machine_files(
    files: &[ProgramSource],
    opts: &MachineOptions,
) -> Result<Lc3Machine, LoadError> {
    let profile = select_profile(opts)?;
    let mut parts = Vec::new();
    let mut errors = asmdbg_core::Diagnostics::new();
    for file in files {
        match load_part(file, opts) {
            Ok(program) => parts.push(ProgramPart {
                path: file.path.clone(),
                program,
            }),
            Err(LoadError::Assembly(diags)) => errors.items.extend(diags.items),
            Err(other) => return Err(other),
        }
    }
    if errors.has_errors() {
        return Err(LoadError::Assembly(errors));
    }
    // What each file is, for the note on a start in data (a file's span and whether it holds
    // any code).
    let shapes: Vec<FileShape> = parts.iter().map(FileShape::of).collect();
    let pennsim = profile.semantics.pennsim;
    // PennSim courses hand out their OS as a file loaded first: one that holds the boot
    // address replaces the built-in OS.
    let own_os = pennsim
        && parts.first().is_some_and(|part| {
            (part.program.segments.iter()).any(|s| s.span().contains(&u32::from(OS_ORIGIN)))
        });
    let mut program = match parts.len() {
        1 => parts.pop().map(|p| p.program).unwrap_or_default(),
        _ => {
            let rules = if pennsim {
                LoaderRules::Pennsim
            } else if profile.supervisor_outside_user_space {
                LoaderRules::Lc3tools
            } else {
                LoaderRules::Strict
            };
            link(parts, rules).map_err(|e| LoadError::Option(e.to_string()))?
        }
    };
    if pennsim {
        // Loading files leaves PennSim's PC where reset put it: the OS boots.
        program.start = Some(OS_ORIGIN);
    }
    if let Some(text) = &opts.entry {
        program.start = Some(entry_address(text, &program)?);
    } else if let Some(note) = program
        .entry()
        .and_then(|start| start_in_data(&shapes, start))
    {
        program.load_notes.push(note);
    }
    let mut semantics = profile.semantics;
    if opts.ignore_privilege {
        // lc3tools' flag turns off exactly its access-violation check on loads and stores
        // (RTI in user mode is still a privilege exception); profiles without that check have
        // nothing to turn off.
        if !semantics.access_control {
            return Err(LoadError::Option(format!(
                "--ignore-privilege applies to --profile lc3tools; the {} profile has no access violations to ignore",
                profile.name
            )));
        }
        semantics.access_control = false;
    }
    let mut machine = if own_os {
        Lc3Machine::assemble_machine(program, profile, semantics, None)
    } else {
        Lc3Machine::with_semantics(program, profile, semantics)?
    };
    machine.set_devices(opts.video, &opts.keys);
    Ok(machine)
}
