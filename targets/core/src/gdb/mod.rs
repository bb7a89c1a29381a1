//! The ONE gdbstub `Target` of asmdbg, generic over any machine that says how gdb sees it.
//!
//! Each ISA supplies only a [`GdbMachine`] impl: its `Arch` (registers as gdb lays them out), the
//! target description, and how gdb addresses map to native ones (LC-3: gdb address = 2 × word
//! address; SimpleRISC: code at a separate base). Everything else — memory access, breakpoints,
//! watchpoints, resume/step, `monitor` commands, serving the ELF — lives here once.
//!
//! The target never runs the machine itself: `resume`/`step` only record what gdb asked for,
//! and the session driver (in the binary) runs the machine in bounded bursts.

mod monitor;

use std::time::{Duration, Instant};

use gdbstub::arch::Arch;
use gdbstub::common::Pid;
use gdbstub::common::Signal;
use gdbstub::stub::SingleThreadStopReason;
use gdbstub::target::ext::base::single_register_access::{
    SingleRegisterAccess, SingleRegisterAccessOps,
};
use gdbstub::target::ext::base::singlethread::{
    SingleThreadBase, SingleThreadResume, SingleThreadResumeOps, SingleThreadSingleStep,
    SingleThreadSingleStepOps,
};
use gdbstub::target::ext::base::BaseOps;
use gdbstub::target::ext::breakpoints::{
    Breakpoints, BreakpointsOps, HwBreakpoint, HwBreakpointOps, HwWatchpoint, HwWatchpointOps,
    SwBreakpoint, SwBreakpointOps,
};
use gdbstub::target::ext::exec_file::{ExecFile, ExecFileOps};
use gdbstub::target::ext::host_io::{
    HostIo, HostIoClose, HostIoCloseOps, HostIoErrno, HostIoError, HostIoFstat, HostIoFstatOps,
    HostIoOpen, HostIoOpenFlags, HostIoOpenMode, HostIoOpenOps, HostIoOps, HostIoPread,
    HostIoPreadOps, HostIoResult, HostIoStat,
};
use gdbstub::target::ext::monitor_cmd::{ConsoleOutput, MonitorCmd, MonitorCmdOps};
use gdbstub::target::ext::target_description_xml_override::{
    TargetDescriptionXmlOverride, TargetDescriptionXmlOverrideOps,
};
use gdbstub::target::{Target, TargetError, TargetResult};
use num_traits::{FromPrimitive, ToPrimitive};

use crate::event::{FaultKind, StopEvent, WatchKind};
use crate::machine::{Machine, MemError};

/// How gdb sees one ISA's machine.
pub trait GdbMachine: Machine + Send + 'static {
    type Arch: Arch;

    /// The target description served as `target.xml`.
    fn target_xml(&self) -> &'static str;

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
}

/// The ELF gdb can fetch through `qXfer:exec-file` and host I/O.
#[derive(Debug, Clone)]
pub struct ExecImage {
    /// The name gdb is told (`target:NAME`).
    pub name: String,
    pub bytes: Vec<u8>,
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
    pub stats: RunStats,
    /// Text for the guest's console (fault messages), taken by the driver.
    pub console_notes: Vec<u8>,
    /// Words written before the program started (`--poke`): written again by `monitor reset`.
    pub pokes: Vec<(u64, u32)>,
    created: Instant,
}

/// Errors of the target that end a gdb session. Memory and register problems are answered with
/// an error code instead and never end a session.
#[derive(Debug, thiserror::Error)]
pub enum DebuggeeError {
    #[error("the machine is in a state gdb cannot use: {0}")]
    Internal(&'static str),
}

/// EFAULT: gdb shows "Cannot access memory at address ...".
const EFAULT: u8 = 14;
/// EINVAL: a register or request the machine does not have.
const EINVAL: u8 = 22;

impl<G: GdbMachine> Debuggee<G> {
    pub fn new(machine: G) -> Self {
        Debuggee {
            machine,
            resume: None,
            exec: None,
            stats: RunStats::default(),
            console_notes: Vec::new(),
            pokes: Vec::new(),
            created: Instant::now(),
        }
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
                        kind: to_gdb_watch(kind),
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

fn to_gdb_watch(kind: WatchKind) -> gdbstub::target::ext::breakpoints::WatchKind {
    use gdbstub::target::ext::breakpoints::WatchKind as G;
    match kind {
        WatchKind::Write => G::Write,
        WatchKind::Read => G::Read,
        WatchKind::Access => G::ReadWrite,
    }
}

fn from_gdb_watch(kind: gdbstub::target::ext::breakpoints::WatchKind) -> WatchKind {
    use gdbstub::target::ext::breakpoints::WatchKind as G;
    match kind {
        G::Write => WatchKind::Write,
        G::Read => WatchKind::Read,
        G::ReadWrite => WatchKind::Access,
    }
}

fn to_u64<U: ToPrimitive>(v: U) -> u64 {
    v.to_u64().unwrap_or(u64::MAX)
}

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

impl<G: GdbMachine> SingleThreadBase for Debuggee<G> {
    fn read_registers(
        &mut self,
        regs: &mut <Self::Arch as Arch>::Registers,
    ) -> TargetResult<(), Self> {
        self.machine.gdb_read_registers(regs);
        Ok(())
    }

    fn write_registers(
        &mut self,
        regs: &<Self::Arch as Arch>::Registers,
    ) -> TargetResult<(), Self> {
        self.machine.gdb_write_registers(regs);
        Ok(())
    }

    #[inline(always)]
    fn support_single_register_access(&mut self) -> Option<SingleRegisterAccessOps<'_, (), Self>> {
        Some(self)
    }

    fn read_addrs(
        &mut self,
        start_addr: <Self::Arch as Arch>::Usize,
        data: &mut [u8],
    ) -> TargetResult<usize, Self> {
        let start = to_u64(start_addr);
        for (i, slot) in data.iter_mut().enumerate() {
            match self.machine.gdb_read_byte(start.wrapping_add(i as u64)) {
                Ok(b) => *slot = b,
                // A short read tells gdb where memory ends; nothing readable is an error.
                Err(_) if i > 0 => return Ok(i),
                Err(_) => return Err(TargetError::Errno(EFAULT)),
            }
        }
        Ok(data.len())
    }

    fn write_addrs(
        &mut self,
        start_addr: <Self::Arch as Arch>::Usize,
        data: &[u8],
    ) -> TargetResult<(), Self> {
        let start = to_u64(start_addr);
        for (i, &b) in data.iter().enumerate() {
            self.machine
                .gdb_write_byte(start.wrapping_add(i as u64), b)
                .map_err(|_| TargetError::Errno(EFAULT))?;
        }
        Ok(())
    }

    #[inline(always)]
    fn support_resume(&mut self) -> Option<SingleThreadResumeOps<'_, Self>> {
        Some(self)
    }
}

impl<G: GdbMachine> SingleRegisterAccess<()> for Debuggee<G> {
    fn read_register(
        &mut self,
        _tid: (),
        reg_id: <Self::Arch as Arch>::RegId,
        buf: &mut [u8],
    ) -> TargetResult<usize, Self> {
        self.machine
            .gdb_read_register(reg_id, buf)
            .ok_or(TargetError::Errno(EINVAL))
    }

    fn write_register(
        &mut self,
        _tid: (),
        reg_id: <Self::Arch as Arch>::RegId,
        val: &[u8],
    ) -> TargetResult<(), Self> {
        if self.machine.gdb_write_register(reg_id, val) {
            Ok(())
        } else {
            Err(TargetError::Errno(EINVAL))
        }
    }
}

impl<G: GdbMachine> SingleThreadResume for Debuggee<G> {
    fn resume(&mut self, _signal: Option<Signal>) -> Result<(), Self::Error> {
        self.resume = Some(ResumeMode::Continue);
        Ok(())
    }

    #[inline(always)]
    fn support_single_step(&mut self) -> Option<SingleThreadSingleStepOps<'_, Self>> {
        Some(self)
    }
}

impl<G: GdbMachine> SingleThreadSingleStep for Debuggee<G> {
    fn step(&mut self, _signal: Option<Signal>) -> Result<(), Self::Error> {
        self.resume = Some(ResumeMode::Step);
        Ok(())
    }
}

impl<G: GdbMachine> Breakpoints for Debuggee<G> {
    #[inline(always)]
    fn support_sw_breakpoint(&mut self) -> Option<SwBreakpointOps<'_, Self>> {
        Some(self)
    }

    #[inline(always)]
    fn support_hw_breakpoint(&mut self) -> Option<HwBreakpointOps<'_, Self>> {
        Some(self)
    }

    #[inline(always)]
    fn support_hw_watchpoint(&mut self) -> Option<HwWatchpointOps<'_, Self>> {
        Some(self)
    }
}

// gdb sends the breakpoint kind it thinks the ISA needs (2 for the Thumb pose, 4 for MIPS);
// the emulator checks addresses, so every kind is accepted.
impl<G: GdbMachine> SwBreakpoint for Debuggee<G> {
    fn add_sw_breakpoint(
        &mut self,
        addr: <Self::Arch as Arch>::Usize,
        _kind: <Self::Arch as Arch>::BreakpointKind,
    ) -> TargetResult<bool, Self> {
        let native = self.machine.gdb_code_to_native(to_u64(addr));
        Ok(self.machine.breakpoints().insert(native))
    }

    fn remove_sw_breakpoint(
        &mut self,
        addr: <Self::Arch as Arch>::Usize,
        _kind: <Self::Arch as Arch>::BreakpointKind,
    ) -> TargetResult<bool, Self> {
        let native = self.machine.gdb_code_to_native(to_u64(addr));
        Ok(self.machine.breakpoints().remove(native))
    }
}

impl<G: GdbMachine> HwBreakpoint for Debuggee<G> {
    fn add_hw_breakpoint(
        &mut self,
        addr: <Self::Arch as Arch>::Usize,
        kind: <Self::Arch as Arch>::BreakpointKind,
    ) -> TargetResult<bool, Self> {
        self.add_sw_breakpoint(addr, kind)
    }

    fn remove_hw_breakpoint(
        &mut self,
        addr: <Self::Arch as Arch>::Usize,
        kind: <Self::Arch as Arch>::BreakpointKind,
    ) -> TargetResult<bool, Self> {
        self.remove_sw_breakpoint(addr, kind)
    }
}

impl<G: GdbMachine> Debuggee<G> {
    /// A gdb byte range → native (start, units).
    fn native_range(&self, addr: u64, len: u64) -> (u64, u64) {
        let (first, _) = self.machine.gdb_to_native(addr);
        let (last, _) = self
            .machine
            .gdb_to_native(addr.saturating_add(len.max(1) - 1));
        (first, last - first + 1)
    }
}

impl<G: GdbMachine> HwWatchpoint for Debuggee<G> {
    fn add_hw_watchpoint(
        &mut self,
        addr: <Self::Arch as Arch>::Usize,
        len: <Self::Arch as Arch>::Usize,
        kind: gdbstub::target::ext::breakpoints::WatchKind,
    ) -> TargetResult<bool, Self> {
        let (start, units) = self.native_range(to_u64(addr), to_u64(len));
        Ok(self
            .machine
            .watchpoints()
            .insert(start, units, from_gdb_watch(kind)))
    }

    fn remove_hw_watchpoint(
        &mut self,
        addr: <Self::Arch as Arch>::Usize,
        len: <Self::Arch as Arch>::Usize,
        kind: gdbstub::target::ext::breakpoints::WatchKind,
    ) -> TargetResult<bool, Self> {
        let (start, units) = self.native_range(to_u64(addr), to_u64(len));
        Ok(self
            .machine
            .watchpoints()
            .remove(start, units, from_gdb_watch(kind)))
    }
}

impl<G: GdbMachine> TargetDescriptionXmlOverride for Debuggee<G> {
    fn target_description_xml(
        &self,
        annex: &[u8],
        offset: u64,
        length: usize,
        buf: &mut [u8],
    ) -> TargetResult<usize, Self> {
        if annex != b"target.xml" {
            return Err(TargetError::Errno(EINVAL));
        }
        Ok(copy_range(
            self.machine.target_xml().as_bytes(),
            offset,
            length,
            buf,
        ))
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

// The program's ELF (symbols, lines, DWARF) is served to gdb so that a bare `target remote`
// loads it ("Reading symbols from target:..."): gdb asks for the executable's name, then reads
// it through host I/O. Only that one file can be opened, read-only.

/// The only host I/O file descriptor: the ELF.
const EXEC_FD: u32 = 1;

impl<G: GdbMachine> ExecFile for Debuggee<G> {
    fn get_exec_file(
        &self,
        _pid: Option<Pid>,
        offset: u64,
        length: usize,
        buf: &mut [u8],
    ) -> TargetResult<usize, Self> {
        let name = self.exec.as_ref().map(|e| e.name.as_bytes()).unwrap_or(b"");
        Ok(copy_range(name, offset, length, buf))
    }
}

impl<G: GdbMachine> HostIo for Debuggee<G> {
    #[inline(always)]
    fn support_open(&mut self) -> Option<HostIoOpenOps<'_, Self>> {
        Some(self)
    }

    #[inline(always)]
    fn support_close(&mut self) -> Option<HostIoCloseOps<'_, Self>> {
        Some(self)
    }

    #[inline(always)]
    fn support_pread(&mut self) -> Option<HostIoPreadOps<'_, Self>> {
        Some(self)
    }

    #[inline(always)]
    fn support_fstat(&mut self) -> Option<HostIoFstatOps<'_, Self>> {
        Some(self)
    }
}

impl<G: GdbMachine> HostIoOpen for Debuggee<G> {
    fn open(
        &mut self,
        filename: &[u8],
        flags: HostIoOpenFlags,
        _mode: HostIoOpenMode,
    ) -> HostIoResult<u32, Self> {
        let Some(exec) = &self.exec else {
            return Err(HostIoError::Errno(HostIoErrno::ENOENT));
        };
        if filename != exec.name.as_bytes() {
            return Err(HostIoError::Errno(HostIoErrno::ENOENT));
        }
        if flags != HostIoOpenFlags::O_RDONLY {
            return Err(HostIoError::Errno(HostIoErrno::EACCES));
        }
        Ok(EXEC_FD)
    }
}

impl<G: GdbMachine> HostIoClose for Debuggee<G> {
    fn close(&mut self, fd: u32) -> HostIoResult<(), Self> {
        if fd == EXEC_FD {
            Ok(())
        } else {
            Err(HostIoError::Errno(HostIoErrno::EBADF))
        }
    }
}

impl<G: GdbMachine> HostIoPread for Debuggee<G> {
    fn pread(
        &mut self,
        fd: u32,
        count: usize,
        offset: u64,
        buf: &mut [u8],
    ) -> HostIoResult<usize, Self> {
        match (&self.exec, fd) {
            (Some(exec), EXEC_FD) => Ok(copy_range(&exec.bytes, offset, count, buf)),
            _ => Err(HostIoError::Errno(HostIoErrno::EBADF)),
        }
    }
}

impl<G: GdbMachine> HostIoFstat for Debuggee<G> {
    fn fstat(&mut self, fd: u32) -> HostIoResult<HostIoStat, Self> {
        match (&self.exec, fd) {
            (Some(exec), EXEC_FD) => Ok(HostIoStat {
                st_dev: 0,
                st_ino: 0,
                st_mode: HostIoOpenMode::S_IRUSR,
                st_nlink: 1,
                st_uid: 0,
                st_gid: 0,
                st_rdev: 0,
                st_size: exec.bytes.len() as u64,
                st_blksize: 4096,
                st_blocks: (exec.bytes.len() as u64).div_ceil(512),
                st_atime: 0,
                st_mtime: 0,
                st_ctime: 0,
            }),
            _ => Err(HostIoError::Errno(HostIoErrno::EBADF)),
        }
    }
}

impl<G: GdbMachine> MonitorCmd for Debuggee<G> {
    fn handle_monitor_cmd(
        &mut self,
        cmd: &[u8],
        mut out: ConsoleOutput<'_>,
    ) -> Result<(), Self::Error> {
        let text = String::from_utf8_lossy(cmd);
        let reply = monitor::run(self, text.trim());
        for line in reply.lines() {
            gdbstub::outputln!(out, "{}", line);
        }
        Ok(())
    }
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
    fn every_fault_has_its_signal() {
        assert_eq!(fault_signal(FaultKind::IllegalInstruction), Signal::SIGILL);
        assert_eq!(fault_signal(FaultKind::BadAddress), Signal::SIGSEGV);
        assert_eq!(fault_signal(FaultKind::Unaligned), Signal::SIGBUS);
        assert_eq!(fault_signal(FaultKind::Arithmetic), Signal::SIGFPE);
        assert_eq!(fault_signal(FaultKind::Trap), Signal::SIGTRAP);
        assert_eq!(fault_signal(FaultKind::Other), Signal::SIGABRT);
    }
}
