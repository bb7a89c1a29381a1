//! Software and hardware breakpoints and hardware watchpoints, all checked by the emulator
//! (gdb never writes trap instructions into guest memory).

use gdbstub::arch::Arch;
use gdbstub::target::ext::breakpoints::{
    Breakpoints, HwBreakpoint, HwBreakpointOps, HwWatchpoint, HwWatchpointOps, SwBreakpoint,
    SwBreakpointOps,
};
use gdbstub::target::TargetResult;

use super::{to_u64, Debuggee, GdbMachine};
use crate::event::WatchKind;

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
        let gdb = to_u64(addr);
        let native = self.machine.gdb_code_to_native(gdb);
        let start = self.machine.native_code_to_gdb(native);
        if start != gdb {
            // Inside an instruction (LC-3: the odd byte of a word): no instruction starts
            // there, so it would never be hit, and a stop at its word is not gdb's breakpoint
            // (gdb would report a stray SIGTRAP and stop there again at every continue). gdb
            // says it cannot insert it; its console is told why at the next resume.
            self.debugger_notes.push_str(&format!(
                "asmdbg: no breakpoint at *{gdb:#x}: that is inside the instruction at {} \
                 (gdb address {start:#x}); did you mean *{start:#x}?\n",
                self.machine.isa().format_addr(native)
            ));
            return Ok(false);
        }
        self.hint_slip(gdb, 1, "breakpoint");
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
    /// Whether the program has something at native address `native`: an instruction or data
    /// of its source, or a label. (Unknown without debug information: yes.)
    fn program_has(&self, native: u64) -> bool {
        let Some(info) = self.machine.debug_info() else {
            return true;
        };
        info.lines.get(native).is_some()
            || info.symbols.at(native).next().is_some()
            || info.data.at(native).is_some()
    }

    /// A breakpoint or watchpoint at gdb address `gdb` (`units` native units long) where
    /// nothing of the program is, while the address read in the ISA's own notation (LC-3:
    /// half of gdb's; SimpleRISC code: after 0x80000000), or doubled, holds something: gdb's
    /// console is told what was likely meant, once per address and connection.
    fn hint_slip(&mut self, gdb: u64, units: u64, what: &str) {
        let (native, _) = self.machine.gdb_to_native(gdb);
        if (0..units.max(1)).any(|u| self.program_has(native.wrapping_add(u)))
            || self.slips_told.contains(&gdb)
        {
            return;
        }
        let m = &self.machine;
        let mut candidates = vec![m.native_code_to_gdb(gdb), m.native_to_gdb(gdb)];
        if m.unit_bytes() > 1 && gdb % 2 == 0 {
            candidates.push(gdb / 2);
        }
        let meant = candidates.into_iter().find(|&c| {
            c != gdb && {
                let (n, byte) = m.gdb_to_native(c);
                byte == 0 && self.program_has(n)
            }
        });
        if let Some(c) = meant {
            let (n, _) = m.gdb_to_native(c);
            let place = m.isa().format_addr(n);
            let label = m
                .debug_info()
                .and_then(|i| i.symbols.at(n).next())
                .map(|s| format!(", {}", s.name))
                .unwrap_or_default();
            let (here, _) = m.gdb_to_native(gdb);
            self.debugger_notes.push_str(&format!(
                "asmdbg: the {what} at *{gdb:#x} ({}) is where nothing of the program is; did \
                 you mean *{c:#x} ({place}{label})?\n",
                m.isa().format_addr(here)
            ));
            self.slips_told.push(gdb);
        }
    }

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
        self.gdb_watched = true;
        self.hint_slip(to_u64(addr), units, "watchpoint");
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

pub(super) fn to_gdb_watch(kind: WatchKind) -> gdbstub::target::ext::breakpoints::WatchKind {
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
