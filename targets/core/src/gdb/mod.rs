//! The ONE gdbstub `Target` of asmdbg, generic over any machine that says how gdb sees it.
//!
//! Each ISA supplies only a [`GdbMachine`] impl: its `Arch` (registers as gdb lays them out), the
//! target description, and how gdb addresses map to native ones (LC-3: gdb address = 2 × word
//! address; SimpleRISC: code at a separate base). Everything else — memory access, breakpoints,
//! watchpoints, resume/step, `monitor` commands, serving the ELF — lives here once.
//!
//! The target never runs the machine itself: `resume`/`step` only record what gdb asked for,
//! and the session (session/src/rsp.rs) runs the machine in bounded bursts.
//!
//! One file per gdbstub extension, as gdbstub's own armv4t example is laid out: `base.rs`
//! (registers and memory), `resume.rs`, `breakpoints.rs` (and watchpoints), `target_xml.rs`,
//! `exec_file.rs`, `host_io.rs` and `monitor.rs`. This file holds the machine's side
//! ([`GdbMachine`]), the [`Debuggee`] and its [`Target`] impl, and stop translation.

pub mod arm_pose;
mod base;
mod breakpoints;
mod exec_file;
mod host_io;
mod monitor;
mod resume;
mod target_xml;

pub use monitor::run as monitor_command;
pub use target_xml::architecture;

use std::time::Duration;

use gdbstub::arch::Arch;
use gdbstub::common::Signal;
use gdbstub::stub::SingleThreadStopReason;
use gdbstub::target::ext::base::BaseOps;
use gdbstub::target::ext::breakpoints::BreakpointsOps;
use gdbstub::target::ext::exec_file::ExecFileOps;
use gdbstub::target::ext::host_io::HostIoOps;
use gdbstub::target::ext::monitor_cmd::MonitorCmdOps;
use gdbstub::target::ext::target_description_xml_override::TargetDescriptionXmlOverrideOps;
use gdbstub::target::Target;
use num_traits::{FromPrimitive, ToPrimitive};

use crate::clock::Instant;
use crate::event::{FaultKind, StopEvent};
use crate::history::History;
use crate::host::Replayable;
use crate::machine::{Machine, MemError, RegisterInfo};
use crate::snapshot::Snapshot;

/// How gdb sees one ISA's machine.
pub trait GdbMachine: Machine + Snapshot + Replayable + Send + 'static {
    type Arch: Arch;

    /// The target description served as `target.xml`.
    fn target_xml(&self) -> &'static str;

    /// `monitor regs`: one register's value in the ISA's own notation.
    fn format_register(&self, reg: &RegisterInfo, value: u64) -> String;
    /// `monitor regs`: registers shown on one line.
    fn registers_per_line(&self) -> usize {
        6
    }
    /// `monitor disas`: the encoding of the `size`-unit instruction at `addr`, as the ISA's
    /// tools print it. By default a 32-bit word in hex (blank if unreadable), nothing for
    /// other sizes.
    fn format_encoding(&self, addr: u64, size: u64) -> String {
        if size != 4 {
            return String::new();
        }
        self.peek_word(addr)
            .map(|w| format!("0x{w:08x}"))
            .unwrap_or_else(|_| " ".repeat(10))
    }

    fn gdb_read_registers(&self, regs: &mut <Self::Arch as Arch>::Registers);
    fn gdb_write_registers(&mut self, regs: &<Self::Arch as Arch>::Registers);
    /// One register (`p`): its bytes in target order; `None` for a register gdb may not read.
    fn gdb_read_register(&self, id: <Self::Arch as Arch>::RegId, buf: &mut [u8]) -> Option<usize>;
    /// One register (`P`); false for a register that cannot be written.
    fn gdb_write_register(&mut self, id: <Self::Arch as Arch>::RegId, val: &[u8]) -> bool;

    /// A gdb byte address in the data view → native address and the byte within the unit.
    fn gdb_to_native(&self, addr: u64) -> (u64, u32) {
        let unit = self.unit_bytes() as u64;
        (addr / unit, (addr % unit) as u32)
    }
    /// A native data address → gdb byte address (watchpoint reports).
    fn native_to_gdb(&self, native: u64) -> u64 {
        native * self.unit_bytes() as u64
    }
    /// A gdb code address (breakpoints) → native code address.
    fn gdb_code_to_native(&self, addr: u64) -> u64 {
        self.gdb_to_native(addr).0
    }
    /// A native code address → gdb code address (the inverse of
    /// [`GdbMachine::gdb_code_to_native`]).
    fn native_code_to_gdb(&self, native: u64) -> u64 {
        self.native_to_gdb(native)
    }
    /// Reads one byte of the gdb address space (code and data as gdb sees them).
    fn gdb_read_byte(&self, addr: u64) -> Result<u8, MemError> {
        let (native, byte) = self.gdb_to_native(addr);
        let unit = self.debug_read(native)?;
        Ok((unit >> (8 * byte)) as u8)
    }
    /// Writes one byte of the gdb address space.
    fn gdb_write_byte(&mut self, addr: u64, value: u8) -> Result<(), MemError> {
        let (native, byte) = self.gdb_to_native(addr);
        let unit = if self.unit_bytes() == 1 {
            value as u32
        } else {
            let old = self.debug_read(native)?;
            (old & !(0xff << (8 * byte))) | ((value as u32) << (8 * byte))
        };
        self.debug_write(native, unit)
    }
}

/// What gdb last asked the machine to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResumeMode {
    Continue,
    Step,
    /// gdb's `bs`: one instruction back in history.
    ReverseStep,
    /// gdb's `bc`: back to the previous breakpoint or watchpoint hit, or the start.
    ReverseContinue,
}

/// The ELF gdb can fetch through `qXfer:exec-file` and host I/O.
#[derive(Debug, Clone)]
pub struct ExecImage {
    /// The absolute name gdb is told (it reads `target:NAME` through host I/O).
    pub name: String,
    pub bytes: Vec<u8>,
    /// The ELF was written to disk under `name`: a debugger on this host may read it there
    /// (see [`ExecImage::name_for`]).
    pub on_disk: bool,
}

/// How many `../` make a relative name that reaches `/` from any directory gdb may run in.
const UP_TO_ROOT: usize = 64;

impl ExecImage {
    /// The name to report to a debugger. gdb opens an absolute name as `target:NAME` through
    /// host I/O (warning "File transfers from remote targets can be slow", and on a second
    /// `target remote` "`target:…' has disappeared"), but looks a relative name up in its own
    /// working directory and opens it as a local file. So a debugger on this host (a loopback
    /// connection), when the ELF on disk is the one served, is told `../../…/abs/path`: from
    /// any directory the `..`s stop at `/`, and gdb reads the file it would have fetched, with
    /// no warning. Remote debuggers, or a file changed since, get the absolute name.
    pub fn name_for(&self, local_peer: bool) -> String {
        let unchanged = || std::fs::read(&self.name).is_ok_and(|disk| disk == self.bytes);
        match self.name.strip_prefix('/') {
            Some(rest) if local_peer && self.on_disk && unchanged() => {
                format!("{}{rest}", "../".repeat(UP_TO_ROOT))
            }
            _ => self.served_name(),
        }
    }

    /// The name gdb fetches the ELF under through host I/O (`target:NAME`). A Windows name
    /// (`C:\course\nim.elf`) has no leading `/`, so gdb on Linux would take it for a relative
    /// name and look for it in its own directory; it is served as `/C:/course/nim.elf`, which
    /// gdb on any host takes for the target's absolute name.
    pub fn served_name(&self) -> String {
        if self.name.starts_with('/') {
            self.name.clone()
        } else {
            format!("/{}", self.name.replace('\\', "/"))
        }
    }

    /// Whether host I/O's `filename` names this image (its served name, or its own).
    pub fn is_named(&self, filename: &[u8]) -> bool {
        filename == self.name.as_bytes() || filename == self.served_name().as_bytes()
    }
}

/// Instructions executed while gdb let the machine run, for `monitor stats`.
#[derive(Debug, Clone, Copy, Default)]
pub struct RunStats {
    pub executed: u64,
    pub busy: Duration,
}

/// A machine under gdb's control.
pub struct Debuggee<G: GdbMachine> {
    pub machine: G,
    /// Set by gdb's resume or step request; taken by the driver.
    pub resume: Option<ResumeMode>,
    pub exec: Option<ExecImage>,
    /// What `qXfer:exec-file` answers on the current connection ([`Debuggee::set_peer`]).
    exec_reply: String,
    pub stats: RunStats,
    /// Text for the guest's console (fault messages), taken by the driver.
    pub console_notes: Vec<u8>,
    /// Words written before the program started (`--poke`): written again by `monitor reset`.
    pub pokes: Vec<(u64, u32)>,
    /// Time travel: the run's checkpoints and input log (`None`: `--no-history`).
    pub history: Option<History<G::State>>,
    /// The memory cap of the history's checkpoints.
    pub history_cap: usize,
    /// The program's end was reported as the end of history (`replaylog:end`): a resume from
    /// there (before any move back in history or change) reports the end itself.
    pub end_reported: bool,
    /// A reverse-continue under way: the session searches one interval of history per
    /// burst; a new request or Ctrl-C drops it.
    pub reverse_search: Option<crate::history::ReverseSearch>,
    /// Lines for the debugger's own console, not the program's: gdb's (sent with the next
    /// resume: a stub may write to it only while the target runs), or the IDE's Debug Console.
    pub debugger_notes: String,
    /// gdb runs asmdbg's helper script (it said so with `monitor asmdbg-helpers`) on this
    /// connection.
    pub helpers_loaded: bool,
    /// gdb is the client (the RSP session), not an IDE through the DAP.
    pub served_to_gdb: bool,
    /// gdb set a watchpoint on this connection (it takes them out at every stop: the set
    /// does not say whether it has any).
    pub gdb_watched: bool,
    /// Breakpoint and watchpoint addresses gdb's console was told a likely slip about, on
    /// this connection (gdb inserts them again at every resume).
    pub slips_told: Vec<u64>,
    /// `monitor asmdbg-reverse ...`'s words: the motion gdb's next `bs` runs (the helper
    /// script's reverse-next, reverse-step, reverse-nexti and reverse-finish; the session
    /// knows the motions).
    pub armed_reverse: Option<String>,
    /// gdb made a new resume request (set by every one; the session takes it).
    pub new_request: bool,
    /// The debugging checks (`monitor checks`, the IDE's exception filters): on unless the
    /// machine has none.
    pub checks: Option<crate::checks::SessionChecks>,
    created: Instant,
}

/// What the debugger's console says when a change in the past drops the recorded future.
pub fn discarded_note(now: u64, frontier: u64) -> String {
    format!(
        "asmdbg: the machine was changed at instruction {now}: the recorded future after \
         instruction {now} (up to {frontier}) was discarded; the program runs live from here, \
         and going back shows the change\n"
    )
}

/// Errors of the target that end a gdb session. Memory and register problems are answered with
/// an error code instead and never end a session.
#[derive(Debug, thiserror::Error)]
pub enum DebuggeeError {
    #[error("the machine is in a state gdb cannot use: {0}")]
    Internal(&'static str),
}

/// EFAULT: gdb shows "Cannot access memory at address ...".
pub(crate) const EFAULT: u8 = 14;
/// EINVAL: a register or request the machine does not have.
pub(crate) const EINVAL: u8 = 22;

impl<G: GdbMachine> Debuggee<G> {
    pub fn new(machine: G) -> Self {
        Debuggee {
            machine,
            resume: None,
            exec: None,
            exec_reply: String::new(),
            stats: RunStats::default(),
            console_notes: Vec::new(),
            pokes: Vec::new(),
            history: None,
            history_cap: crate::history::DEFAULT_CAP_BYTES,
            end_reported: false,
            reverse_search: None,
            debugger_notes: String::new(),
            helpers_loaded: false,
            served_to_gdb: false,
            gdb_watched: false,
            slips_told: Vec::new(),
            armed_reverse: None,
            new_request: false,
            checks: None,
            created: Instant::now(),
        }
    }

    /// Turns the debugging checks on (`set`), from the machine as it is now (its start, the
    /// pokes written).
    pub fn enable_checks(&mut self, set: crate::checks::CheckSet) {
        self.checks = crate::checks::SessionChecks::new(&self.machine, set, &self.pokes);
    }

    /// Starts recording the run for time travel, checkpoints capped at `cap_bytes`.
    pub fn record_history(&mut self, cap_bytes: usize) {
        self.history_cap = cap_bytes;
        self.history = Some(History::start(&mut self.machine, cap_bytes));
        self.end_reported = false;
    }

    /// gdb changed a register or memory: in the past, that ends the recorded future.
    pub fn state_written(&mut self) {
        if let Some(checks) = &mut self.checks {
            checks.debugger_wrote();
        }
        if let Some(history) = &mut self.history {
            let now = self.machine.instructions_executed();
            let frontier = history.frontier();
            if history.truncate_future(&mut self.machine) {
                self.debugger_notes.push_str(&discarded_note(now, frontier));
            }
        }
        self.end_reported = false;
    }

    /// A new debugger connected, from this host (`local`) or not: fixes the exec-file name
    /// it is told for the whole connection.
    pub fn set_peer(&mut self, local: bool) {
        self.exec_reply = self
            .exec
            .as_ref()
            .map(|exec| exec.name_for(local))
            .unwrap_or_default();
    }

    pub fn uptime(&self) -> Duration {
        self.created.elapsed()
    }

    /// Translates what the machine reported into what gdb is told. `None` from a single step is
    /// a completed step; `None` from a run is not a stop. `NeedInput` is never a stop for gdb
    /// (the guest is still running while it waits), so it returns `None`.
    pub fn stop_reason(
        &mut self,
        event: Option<StopEvent>,
        stepping: bool,
    ) -> Option<SingleThreadStopReason<<G::Arch as Arch>::Usize>> {
        let usize_of = |v: u64| <<G::Arch as Arch>::Usize as FromPrimitive>::from_u64(v);
        Some(match event {
            None if stepping => SingleThreadStopReason::DoneStep,
            None | Some(StopEvent::NeedInput) => return None,
            Some(StopEvent::Halted) => SingleThreadStopReason::Exited(0),
            Some(StopEvent::Exited(code)) => SingleThreadStopReason::Exited(code as u8),
            Some(StopEvent::Breakpoint) => SingleThreadStopReason::SwBreak(()),
            Some(StopEvent::Watch { kind, addr }) => {
                let gdb_addr = self.machine.native_to_gdb(addr);
                match usize_of(gdb_addr) {
                    Some(addr) => SingleThreadStopReason::Watch {
                        tid: (),
                        kind: breakpoints::to_gdb_watch(kind),
                        addr,
                    },
                    None => SingleThreadStopReason::Signal(Signal::SIGTRAP),
                }
            }
            Some(StopEvent::Fault(fault)) => {
                self.console_notes
                    .extend_from_slice(fault.message.as_bytes());
                self.console_notes.push(b'\n');
                SingleThreadStopReason::Signal(fault_signal(fault.kind))
            }
            // gdb's console gets the warnings (sent before the stop reply).
            Some(StopEvent::Check(findings)) => {
                for finding in findings {
                    self.debugger_notes.push_str(&finding.warning_line());
                    self.debugger_notes.push('\n');
                }
                SingleThreadStopReason::Signal(Signal::SIGTRAP)
            }
        })
    }
}

/// The POSIX signal gdb shows for a guest fault.
pub fn fault_signal(kind: FaultKind) -> Signal {
    match kind {
        FaultKind::IllegalInstruction => Signal::SIGILL,
        FaultKind::BadAddress => Signal::SIGSEGV,
        FaultKind::Unaligned => Signal::SIGBUS,
        FaultKind::Arithmetic => Signal::SIGFPE,
        FaultKind::Trap => Signal::SIGTRAP,
        FaultKind::Other => Signal::SIGABRT,
    }
}

pub(crate) fn to_u64<U: ToPrimitive>(v: U) -> u64 {
    v.to_u64().unwrap_or(u64::MAX)
}

// Every `support_*` method (here and in the extension files) is `#[inline(always)]`: inlined,
// the compiler sees which extensions answer `None` and drops their protocol handlers from the
// binary, which is how gdbstub's extension traits are meant to stay free when unused.
impl<G: GdbMachine> Target for Debuggee<G> {
    type Arch = G::Arch;
    type Error = DebuggeeError;

    #[inline(always)]
    fn base_ops(&mut self) -> BaseOps<'_, Self::Arch, Self::Error> {
        BaseOps::SingleThread(self)
    }

    #[inline(always)]
    fn support_breakpoints(&mut self) -> Option<BreakpointsOps<'_, Self>> {
        Some(self)
    }

    #[inline(always)]
    fn support_monitor_cmd(&mut self) -> Option<MonitorCmdOps<'_, Self>> {
        Some(self)
    }

    #[inline(always)]
    fn support_target_description_xml_override(
        &mut self,
    ) -> Option<TargetDescriptionXmlOverrideOps<'_, Self>> {
        Some(self)
    }

    #[inline(always)]
    fn support_exec_file(&mut self) -> Option<ExecFileOps<'_, Self>> {
        if self.exec.is_some() {
            Some(self)
        } else {
            None
        }
    }

    #[inline(always)]
    fn support_host_io(&mut self) -> Option<HostIoOps<'_, Self>> {
        if self.exec.is_some() {
            Some(self)
        } else {
            None
        }
    }

    // Watchpoints and breakpoints are checked by the emulator; gdb must never write trap
    // instructions into guest memory.
    #[inline(always)]
    fn guard_rail_implicit_sw_breakpoints(&self) -> bool {
        true
    }
}

/// Copies `data[offset..offset+length]` (clipped) into `buf`; returns the bytes copied.
pub fn copy_range(data: &[u8], offset: u64, length: usize, buf: &mut [u8]) -> usize {
    let start = usize::try_from(offset)
        .unwrap_or(usize::MAX)
        .min(data.len());
    let end = start.saturating_add(length).min(data.len());
    let n = (end - start).min(buf.len());
    buf[..n].copy_from_slice(&data[start..start + n]);
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_clipped() {
        let mut buf = [0u8; 4];
        assert_eq!(copy_range(b"abcdef", 2, 10, &mut buf), 4);
        assert_eq!(&buf, b"cdef");
        assert_eq!(copy_range(b"abc", 5, 2, &mut buf), 0);
        assert_eq!(copy_range(b"abc", u64::MAX, 2, &mut buf), 0);
        let mut small = [0u8; 1];
        assert_eq!(copy_range(b"abc", 0, 3, &mut small), 1);
    }

    #[test]
    fn a_local_debugger_is_told_a_relative_name_that_reaches_the_file_from_anywhere() {
        let path = std::env::temp_dir().join(format!("asmdbg-exec-{}.elf", std::process::id()));
        std::fs::write(&path, b"\x7fELF image").expect("write");
        let image = ExecImage {
            name: path.display().to_string(),
            bytes: b"\x7fELF image".to_vec(),
            on_disk: true,
        };
        let local = image.name_for(true);
        assert!(local.starts_with("../../"), "{local}");
        // From the root and from a deep directory alike, the name is the file.
        for cwd in ["/", "/usr/share/doc"] {
            let reached = std::path::Path::new(cwd).join(&local);
            assert_eq!(
                std::fs::read(&reached).ok().as_deref(),
                Some(&image.bytes[..])
            );
        }
        assert_eq!(
            image.name_for(false),
            image.name,
            "remote debuggers fetch it"
        );
        std::fs::write(&path, b"rebuilt").expect("overwrite");
        assert_eq!(
            image.name_for(true),
            image.name,
            "the disk no longer has it"
        );
        let _ = std::fs::remove_file(&path);
        let unwritten = ExecImage {
            on_disk: false,
            ..image
        };
        assert_eq!(unwritten.name_for(true), unwritten.name);
    }

    #[test]
    fn a_windows_name_is_served_as_an_absolute_name_gdb_fetches() {
        let image = ExecImage {
            name: r"Z:\tmp\game\nim.elf".to_string(),
            bytes: b"\x7fELF image".to_vec(),
            on_disk: true,
        };
        // gdb on Linux takes a name without a leading / as its own relative file.
        assert_eq!(image.name_for(true), "/Z:/tmp/game/nim.elf");
        assert_eq!(image.name_for(false), "/Z:/tmp/game/nim.elf");
        assert!(image.is_named(b"/Z:/tmp/game/nim.elf"));
        assert!(image.is_named(br"Z:\tmp\game\nim.elf"));
        assert!(!image.is_named(b"/tmp/game/nim.elf"));
    }

    #[test]
    fn every_fault_has_its_signal() {
        assert_eq!(fault_signal(FaultKind::IllegalInstruction), Signal::SIGILL);
        assert_eq!(fault_signal(FaultKind::BadAddress), Signal::SIGSEGV);
        assert_eq!(fault_signal(FaultKind::Unaligned), Signal::SIGBUS);
        assert_eq!(fault_signal(FaultKind::Arithmetic), Signal::SIGFPE);
        assert_eq!(fault_signal(FaultKind::Trap), Signal::SIGTRAP);
        assert_eq!(fault_signal(FaultKind::Other), Signal::SIGABRT);
    }
}
