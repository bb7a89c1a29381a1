//! Loads and stores with MARS's alignment and segment checks, and the watchpoint test every
//! access pays: two compares against the bounds of all watched ranges, a scan of the few
//! ranges only inside them.

use asmdbg_core::AccessKind;

use crate::memory::{Memory, Region};

use super::{exc, Cpu, Trap};

impl Cpu {
    /// The watchpoint test of every load and store: a scan of the (few) watched ranges kept
    /// in the cpu, so an access near a watchpoint costs a few compares, not a call.
    #[inline(always)]
    pub(super) fn watch(&self, addr: u32, len: u64, access: AccessKind) -> Result<(), Trap> {
        let start = addr as u64;
        let end = start + len.max(1);
        // Empty set: the bounds are (MAX, 0) and every access fails the first test.
        if end <= self.watch_low || start >= self.watch_high {
            return Ok(());
        }
        for w in &self.watch_ranges {
            if start < w.addr + w.len && w.addr < end && w.kind.matches(access) {
                return self.watch_hit(addr, len, access);
            }
        }
        Ok(())
    }

    #[cold]
    pub(super) fn watch_hit(&self, addr: u32, len: u64, access: AccessKind) -> Result<(), Trap> {
        match self.watchpoints.check(addr as u64, len, access) {
            Some((kind, hit)) if !self.watch_suppressed => Err(Trap::Watch {
                kind,
                addr: hit as u32,
            }),
            _ => Ok(()),
        }
    }

    /// Brings the cpu's copy of the watched ranges up to date with the watchpoint set.
    pub(super) fn sync_watchpoints(&mut self) {
        let generation = self.watchpoints.generation();
        if generation == self.synced_watchpoints {
            return;
        }
        self.synced_watchpoints = generation;
        if !self.watchpoints.iter().eq(self.watch_ranges.iter()) {
            self.watch_ranges = self.watchpoints.iter().copied().collect();
            self.watch_low = self
                .watch_ranges
                .iter()
                .map(|w| w.addr)
                .min()
                .unwrap_or(u64::MAX);
            self.watch_high = self
                .watch_ranges
                .iter()
                .map(|w| w.addr.saturating_add(w.len.max(1)))
                .max()
                .unwrap_or(0);
        }
    }

    #[cold]
    pub(super) fn load_fault(addr: u32) -> Trap {
        match Memory::region(addr) {
            Region::Text => Trap::address(
                exc::ADDRESS_LOAD,
                "Cannot read directly from text segment!",
                addr,
            ),
            Region::KText => Trap::address(
                exc::ADDRESS_LOAD,
                "DEVELOPER: You must use getStatement() to read from kernel text segment!",
                addr,
            ),
            _ => Trap::address(exc::ADDRESS_LOAD, "address out of range ", addr),
        }
    }

    #[cold]
    pub(super) fn store_fault(addr: u32) -> Trap {
        match Memory::region(addr) {
            Region::Text => Trap::address(
                exc::ADDRESS_STORE,
                "Cannot write directly to text segment!",
                addr,
            ),
            Region::KText => Trap::address(
                exc::ADDRESS_STORE,
                "DEVELOPER: You must use setStatement() to write to kernel text segment!",
                addr,
            ),
            _ => Trap::address(exc::ADDRESS_STORE, "address out of range ", addr),
        }
    }

    #[inline(always)]
    pub(crate) fn load_u32(&self, addr: u32) -> Result<u32, Trap> {
        if addr & 3 != 0 {
            return Err(Trap::address(
                exc::ADDRESS_LOAD,
                "fetch address not aligned on word boundary ",
                addr,
            ));
        }
        self.watch(addr, 4, AccessKind::Read)?;
        self.mem
            .read_u32(addr)
            .ok_or_else(|| Self::load_fault(addr))
    }

    #[inline(always)]
    pub(super) fn load_u16(&self, addr: u32) -> Result<u16, Trap> {
        if addr & 1 != 0 {
            return Err(Trap::address(
                exc::ADDRESS_LOAD,
                "fetch address not aligned on halfword boundary ",
                addr,
            ));
        }
        self.watch(addr, 2, AccessKind::Read)?;
        self.mem
            .read_u16(addr)
            .ok_or_else(|| Self::load_fault(addr))
    }

    #[inline(always)]
    pub(crate) fn load_u8(&self, addr: u32) -> Result<u8, Trap> {
        self.watch(addr, 1, AccessKind::Read)?;
        self.mem.read_u8(addr).ok_or_else(|| Self::load_fault(addr))
    }

    #[inline(always)]
    pub(super) fn store_u32(&mut self, addr: u32, value: u32) -> Result<(), Trap> {
        if addr & 3 != 0 {
            return Err(Trap::address(
                exc::ADDRESS_STORE,
                "store address not aligned on word boundary ",
                addr,
            ));
        }
        self.watch(addr, 4, AccessKind::Write)?;
        if self.mem.write_u32(addr, value) {
            Ok(())
        } else {
            Err(Self::store_fault(addr))
        }
    }

    #[inline(always)]
    pub(super) fn store_u16(&mut self, addr: u32, value: u16) -> Result<(), Trap> {
        if addr & 1 != 0 {
            return Err(Trap::address(
                exc::ADDRESS_STORE,
                "store address not aligned on halfword boundary ",
                addr,
            ));
        }
        self.watch(addr, 2, AccessKind::Write)?;
        if self.mem.write_u16(addr, value) {
            Ok(())
        } else {
            Err(Self::store_fault(addr))
        }
    }

    #[inline(always)]
    pub(crate) fn store_u8(&mut self, addr: u32, value: u8) -> Result<(), Trap> {
        self.watch(addr, 1, AccessKind::Write)?;
        if self.mem.write_u8(addr, value) {
            Ok(())
        } else {
            Err(Self::store_fault(addr))
        }
    }

    /// Checks a whole multi-byte access against watchpoints before any part of it happens.
    pub(crate) fn watch_range(&self, addr: u32, len: u64, access: AccessKind) -> Result<(), Trap> {
        self.watch(addr, len, access)
    }

    #[inline(always)]
    pub(super) fn ea(&self, base: u8, off: i16) -> u32 {
        self.reg(base).wrapping_add(off as i32 as u32)
    }

    /// Reads a NUL-terminated string for a syscall (each byte is one Latin-1 character).
    pub(crate) fn read_c_string(&self, mut addr: u32) -> Result<Vec<u8>, Trap> {
        let mut bytes = Vec::new();
        loop {
            let b = self.load_u8(addr)?;
            if b == 0 {
                return Ok(bytes);
            }
            bytes.push(b);
            addr = addr.wrapping_add(1);
            // A string can never be longer than the largest segment.
            if bytes.len() > (4 << 20) {
                return Ok(bytes);
            }
        }
    }
}
