//! The interface every emulated machine offers to the command line and the debugger.

use crate::breakpoints::{BreakpointSet, WatchpointSet};
use crate::console::Console;
use crate::event::{RunOutcome, StopEvent};
use crate::isa::Isa;
use crate::symbols::DebugInfo;

/// A register as the debugger and `monitor regs` name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegisterInfo {
    pub name: &'static str,
    pub bits: u32,
}

/// The group an IDE lists a register in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegisterScope {
    General,
    /// A floating-point unit's registers (MIPS coprocessor 1).
    Float,
}

/// A debugger access the machine cannot serve. Never answered with zeros: gdb plans its steps
/// from the code it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum MemError {
    #[error("address {0:#x} is not mapped")]
    Unmapped(u64),
    #[error("address {0:#x} cannot be written")]
    ReadOnly(u64),
}

/// An emulated machine. Addresses are native: LC-3 word addresses, MIPS and SimpleRISC byte
/// addresses (SimpleRISC data memory; its code is addressed by `4 * index`).
///
/// Contract for stops:
/// - `run` checks breakpoints before every instruction, including the first one.
/// - `step` executes exactly one instruction even if a breakpoint is set on it (gdb's `stepi`
///   and its step-over-breakpoint logic rely on that).
/// - A `Watch` stop leaves the accessing instruction unexecuted; the next `run` or `step`
///   executes it without reporting the same access again.
pub trait Machine {
    fn isa(&self) -> Isa;

    /// Executes up to `budget` instructions.
    fn run(&mut self, budget: u64) -> RunOutcome;

    /// Executes one instruction (see the trait's contract). `None`: it completed normally.
    fn step(&mut self) -> Option<StopEvent>;

    fn pc(&self) -> u64;
    fn set_pc(&mut self, pc: u64);

    /// The registers in `monitor regs` order (index = position in this slice).
    fn registers(&self) -> &'static [RegisterInfo];
    fn read_register(&self, index: usize) -> Option<u64>;
    fn write_register(&mut self, index: usize, value: u64) -> bool;
    /// Where an IDE lists register `index` (the DAP session's scopes).
    fn register_scope(&self, _index: usize) -> RegisterScope {
        RegisterScope::General
    }
    /// The name an IDE shows for register `index`, as the ISA's assembly writes it (MIPS's
    /// `$t0`).
    fn register_label(&self, index: usize) -> String {
        self.registers()
            .get(index)
            .map_or_else(String::new, |r| r.name.to_string())
    }
    /// Other names users give registers (SimpleRISC's `sp` for r14), as indexes into
    /// [`Machine::registers`]; addresses may be written as registers ([`resolve_address`]).
    fn register_aliases(&self) -> &'static [(&'static str, usize)] {
        &[]
    }

    /// Bytes per addressable unit: 2 for LC-3 (16-bit words), 1 for byte-addressed machines.
    fn unit_bytes(&self) -> u32;
    /// Units per natural data word (`--poke`/`--peek`): 1 for LC-3, 4 for MIPS and SimpleRISC.
    fn word_units(&self) -> u32;
    /// Reads one unit without side effects (no device reads, no watchpoints).
    fn debug_read(&self, addr: u64) -> Result<u32, MemError>;
    /// Writes one unit without side effects other than the store itself.
    fn debug_write(&mut self, addr: u64, value: u32) -> Result<(), MemError>;

    fn breakpoints(&mut self) -> &mut BreakpointSet;
    fn watchpoints(&mut self) -> &mut WatchpointSet;
    fn console(&mut self) -> &mut Console;

    /// Queues console input from outside (the user, an input file). Hosts feed input this way
    /// rather than through [`Machine::console`], so that a recording machine logs it with the
    /// instruction count at which it came (see [`crate::host`]).
    fn queue_input(&mut self, bytes: &[u8]) {
        self.console().push_input(bytes);
    }

    /// Marks the end of console input, logged like [`Machine::queue_input`].
    fn end_input(&mut self) {
        self.console().close_input();
    }

    /// What the machine's display shows now (MARS's Bitmap Display, PennSim's video), read
    /// from memory without side effects; `None` for a machine without one.
    fn frame(&self) -> Option<crate::display::Frame> {
        None
    }

    /// The memory the display shows: its first address and how many units it spans (what a
    /// watchpoint on a pixel covers).
    fn display_memory(&self) -> Option<(u64, u64)> {
        None
    }

    /// Whether keys typed by the user go to a keyboard device (MARS's MMIO keyboard, the
    /// LC-3 keyboard of a program with a display) rather than to the console's line input.
    fn has_keyboard_device(&self) -> bool {
        false
    }

    /// A key pressed on the machine's keyboard device, logged like console input. Machines
    /// whose keyboard is the console (LC-3) queue it as console input.
    /// Whether a key given with [`Machine::queue_key`] has not been taken by the program yet
    /// (a host giving keys one at a time waits for it).
    fn key_unread(&mut self) -> bool {
        self.console().pending_input() > 0
    }

    fn queue_key(&mut self, key: u8) {
        self.queue_input(&[key]);
    }

    /// Instructions completed since the machine was created or reset.
    fn instructions_executed(&self) -> u64;

    /// Lets this machine's cpu run the machine code it compiles for hot guest code (`on`, the
    /// default), or makes it interpret everything, as `--interpret` does for the whole process
    /// (which wins over `on`). Forgets what was compiled; the guest's state is untouched. The
    /// differential tests run one machine each way. A no-op for a machine that compiles nothing.
    fn set_compiled_code(&mut self, _on: bool) {}

    /// Back to the state right after loading: memory image, registers, console.
    fn reset(&mut self);

    /// The ISA's calling conventions and what the machine fills in by itself, for the
    /// debugging checks ([`crate::checks`]); `None`: the machine offers no checks.
    fn check_conventions(&self) -> Option<crate::checks::Conventions> {
        None
    }

    /// What the instruction at the PC is about to do (registers, memory, flow), from the
    /// ISA's decoder, for the debugging checks; `None` when there is no instruction to decode.
    fn check_effects(&self) -> Option<crate::checks::Effects> {
        None
    }

    /// Runs up to `budget` instructions as `run` does (breakpoints and watchpoints stop it),
    /// one at a time on the debugging checks' fast path ([`crate::checks::fast`]): it stops,
    /// without a stop event, before the first instruction `fast` does not admit, and before
    /// one `run` and `step` would not execute alike (a breakpoint at the PC, an interrupt, a
    /// resumed watch stop). `None`: the machine has no fast path in its present state (a
    /// device, keys or a replay to serve between instructions) and every instruction goes
    /// through the full checks.
    fn run_gated(
        &mut self,
        _budget: u64,
        _fast: &mut crate::checks::FastPath,
    ) -> Option<RunOutcome> {
        None
    }

    /// The instruction at `addr` in the ISA's own notation, and its size in units.
    fn disassemble(&self, addr: u64) -> Option<(String, u64)>;

    /// Labels and source lines of the loaded program, when it was assembled from source.
    fn debug_info(&self) -> Option<&DebugInfo>;

    /// Exit status of `asmdbg run` after an unhandled fault. MARS exits 0 after a runtime
    /// error; the other machines report failure.
    fn fault_exit_status(&self) -> i32 {
        1
    }

    /// What `asmdbg run` writes on stderr before the program starts. MARS's command line
    /// prints the assembler's warnings there; the other machines print nothing.
    fn start_of_run_stderr(&self) -> String {
        String::new()
    }

    /// What `asmdbg run` writes on stderr after a program that ended by itself (normally, by an
    /// exit call or by an unhandled fault), after any fault message. MARS's command line ends
    /// every such run with an empty line; the other machines print nothing.
    fn end_of_run_stderr(&self) -> &'static str {
        ""
    }

    /// Whether the program reads its console key by key (LC-3's GETC, IN and keyboard
    /// polling) rather than a line at a time (MARS's syscalls): `asmdbg run` then turns off the
    /// terminal's line editing and echo, as the ISA's own simulators do.
    fn console_reads_keys(&self) -> bool {
        false
    }

    /// When the PC is in system code the program called (the LC-3 OS's routine for a TRAP):
    /// the address of the program's call, so that messages can name the program's line and
    /// not only an address in code the student never wrote. `None` elsewhere.
    fn system_call_site(&self) -> Option<u64> {
        None
    }

    /// The message `asmdbg run --max-steps LIMIT` prints when the limit stops the program, for a
    /// machine that copies its simulator's wording; `None` for asmdbg's own.
    fn step_limit_message(&self, _limit: u64) -> Option<String> {
        None
    }

    /// Bytes the guest wrote for the host's stderr (MIPS fd 2, dialogs with
    /// `--dialogs stderr`) since the last call. The machine never writes to stderr itself.
    fn take_host_stderr(&mut self) -> Vec<u8> {
        Vec::new()
    }

    /// Something the user should be told once, by the host, about how the program is run: a
    /// display or keyboard device the program uses that nothing configured, and the flag that
    /// would show it. Cheap to call after every slice: machines look only now and then.
    fn take_advice(&mut self) -> Option<String> {
        None
    }

    /// Keeps at most `limit` bytes of each output channel (the console, and the host's stderr
    /// where the guest writes to it) until the host takes them ([`Console::limit_output`]).
    fn limit_output(&mut self, limit: usize) {
        self.console().limit_output(limit);
    }

    /// When a real-time sleep of the guest (MARS syscall 32) ends. Until then `run` executes
    /// nothing; the host waits for this instant instead of calling `run` in a loop.
    fn wake_time(&self) -> Option<crate::clock::Instant> {
        None
    }

    /// One line describing the machine for `monitor profile`: ISA, OS profile, options.
    fn describe(&self) -> String {
        self.isa().to_string()
    }

    /// Reads a natural data word (little endian across units).
    fn peek_word(&self, addr: u64) -> Result<u32, MemError> {
        let units = self.word_units() as u64;
        let bits = 8 * self.unit_bytes();
        let mut value: u64 = 0;
        for i in (0..units).rev() {
            // A word that is partly unmapped is reported by its own address.
            let a = addr.checked_add(i).ok_or(MemError::Unmapped(addr))?;
            let unit = self.debug_read(a).map_err(|_| MemError::Unmapped(addr))?;
            value = (value << bits) | unit as u64;
        }
        Ok(value as u32)
    }

    /// Writes a natural data word (little endian across units).
    fn poke_word(&mut self, addr: u64, value: u32) -> Result<(), MemError> {
        let units = self.word_units() as u64;
        let bits = 8 * self.unit_bytes();
        let mask = if bits >= 32 {
            u32::MAX
        } else {
            (1u32 << bits) - 1
        };
        // Check every unit first so a failed poke writes nothing.
        for i in 0..units {
            let a = addr.checked_add(i).ok_or(MemError::Unmapped(addr))?;
            self.debug_read(a)?;
        }
        for i in 0..units {
            let shift = bits as u64 * i;
            let v = if shift >= 32 { 0 } else { value >> shift };
            self.debug_write(addr + i, v & mask)?;
        }
        Ok(())
    }
}

/// The PC, its program line, and for a PC in system code (the LC-3 OS) the program's call
/// that led there: `PC x0251 (the OS's GETC, called at x3010, nim.asm:96)`.
pub fn location<M: Machine + ?Sized>(machine: &M) -> String {
    let pc = machine.pc();
    let isa = machine.isa();
    let mut text = format!("PC {}", isa.format_addr(pc));
    let line_of = |addr| machine.debug_info().and_then(|d| d.describe(addr));
    if let Some((file, line)) = line_of(pc) {
        text.push_str(&format!(" ({file}:{line})"));
    } else if let Some(site) = machine.system_call_site() {
        let call = machine
            .disassemble(site)
            .map(|(text, _)| text)
            .unwrap_or_else(|| "call".to_string());
        text.push_str(&format!(
            " (the OS's {call}, called at {}",
            isa.format_addr(site)
        ));
        if let Some((file, line)) = line_of(site) {
            text.push_str(&format!(", {file}:{line}"));
        }
        text.push(')');
    }
    text
}

/// Why a program could not be turned into a machine: assembly errors (every one, rendered with
/// carets), an unreadable object file, or an option the ISA does not support.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{0}")]
    Assembly(crate::diag::Diagnostics),
    #[error("{path}: {message}")]
    BadObject { path: String, message: String },
    #[error("{0}")]
    Option(String),
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

/// An address written by a user: a non-negative number in any of the ISAs' notations, a label
/// of the loaded program, or a register holding the address (`$pc`, `pc`, `$ra`, `R7`, `$31`,
/// gdb's spelling with `$` or the ISA's own without). Without `$` a label wins over a register
/// of the same name (MIPS allows a label `ra`); with `$` the register does.
pub fn resolve_address<M: Machine + ?Sized>(machine: &M, text: &str) -> Option<u64> {
    let text = text.trim();
    if let Some(n) = crate::isa::parse_number(text) {
        return u64::try_from(n).ok();
    }
    let label = || machine.debug_info().and_then(|d| d.symbols.addr(text));
    match text.strip_prefix('$') {
        Some(name) => register_by_name(machine, name, true).or_else(label),
        None => label().or_else(|| register_by_name(machine, text, false)),
    }
}

/// The index (into [`Machine::registers`]) of the register called `name`: any case, or one of
/// the ISA's aliases.
pub fn register_index<M: Machine + ?Sized>(machine: &M, name: &str) -> Option<usize> {
    machine
        .registers()
        .iter()
        .position(|r| !r.name.is_empty() && r.name.eq_ignore_ascii_case(name))
        .or_else(|| {
            machine
                .register_aliases()
                .iter()
                .find(|(alias, _)| alias.eq_ignore_ascii_case(name))
                .map(|&(_, index)| index)
        })
}

/// The value of the register called `name` (any case; `pc`; the ISA's aliases; with `$`, also a
/// register number).
fn register_by_name<M: Machine + ?Sized>(machine: &M, name: &str, dollar: bool) -> Option<u64> {
    if name.eq_ignore_ascii_case("pc") {
        return Some(machine.pc());
    }
    let by_number = || {
        name.bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| name.parse::<usize>().ok())
            .flatten()
            .filter(|_| dollar)
    };
    let index = register_index(machine, name).or_else(by_number)?;
    machine.read_register(index)
}
