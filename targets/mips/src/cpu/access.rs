//! Loads and stores with MARS's alignment and segment checks, and the watchpoint test every
//! access pays: the watch filter of [`asmdbg_core::debug_cache`] (one compare far from every
//! watchpoint), the watchpoint set's exact check only for what the filter lets through.

use asmdbg_core::AccessKind;

use crate::devices::{Watched, RECEIVER_CONTROL, RECEIVER_DATA, TRANSMITTER_DATA};
use crate::memory::{Memory, Region, MMIO_BASE};

use super::{exc, Cpu, Trap};

impl Cpu {
    /// The watchpoint test of every load and store of 1, 2 or 4 bytes: the watch filter's one
    /// compare while the access is far from every watchpoint, the set's exact check only when
    /// the filter lets it through.
    #[inline(always)]
    pub(super) fn watch(&self, addr: u32, len: u64, access: AccessKind) -> Result<(), Trap> {
        debug_assert!(len <= 4, "wider accesses go through `watch_range`");
        if self.debug.watch.near(addr as u64) {
            return self.watch_near(addr, len, access);
        }
        Ok(())
    }

    /// An access near a watchpoint: the filter's bits, then the set's exact check. Out of line,
    /// so that every load and store inlines only the span compare.
    #[cold]
    #[inline(never)]
    fn watch_near(&self, addr: u32, len: u64, access: AccessKind) -> Result<(), Trap> {
        if self.debug.watch.may_hit(addr as u64) {
            return self.watch_hit(addr, len, access);
        }
        Ok(())
    }

    #[cold]
    pub(super) fn watch_hit(&self, addr: u32, len: u64, access: AccessKind) -> Result<(), Trap> {
        match self.watchpoints.check(addr as u64, len, access) {
            Some((kind, hit)) if !self.debug.watch.resuming() => Err(Trap::Watch {
                kind,
                addr: hit as u32,
            }),
            _ => Ok(()),
        }
    }

    /// Whether an access at `addr` is one the Keyboard and Display MMIO Simulator watches
    /// (MARS notifies it of reads at exactly the receiver data word and writes at exactly the
    /// transmitter data word; with no key left to come, reads of the receiver's control word
    /// are counted as polls) and has to be executed again with the device watching.
    #[cold]
    #[inline(never)]
    fn device_access(&self, addr: u32, write: bool) -> Result<(), Trap> {
        if !self.mmio.connected {
            if addr < MMIO_BASE + 16 {
                // Noted for the advice to connect the device (the program polls it in vain).
                self.mmio_touched.set(true);
            }
            return Ok(());
        }
        if self.mmio.pass {
            return Ok(());
        }
        let watched = match (write, addr) {
            (true, TRANSMITTER_DATA) => Watched::TransmitterData,
            (false, RECEIVER_DATA) => Watched::ReceiverData,
            (false, RECEIVER_CONTROL) if self.count_receiver_polls => Watched::ReceiverPoll,
            _ => return Ok(()),
        };
        Err(Trap::Device(watched))
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
        if addr >= MMIO_BASE {
            self.device_access(addr, false)?;
        }
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
        if addr >= MMIO_BASE {
            self.device_access(addr, false)?;
        }
        self.mem
            .read_u16(addr)
            .ok_or_else(|| Self::load_fault(addr))
    }

    #[inline(always)]
    pub(crate) fn load_u8(&self, addr: u32) -> Result<u8, Trap> {
        self.watch(addr, 1, AccessKind::Read)?;
        if addr >= MMIO_BASE {
            self.device_access(addr, false)?;
        }
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
        if addr >= MMIO_BASE {
            self.device_access(addr, true)?;
        }
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
        if addr >= MMIO_BASE {
            self.device_access(addr, true)?;
        }
        if self.mem.write_u16(addr, value) {
            Ok(())
        } else {
            Err(Self::store_fault(addr))
        }
    }

    #[inline(always)]
    pub(crate) fn store_u8(&mut self, addr: u32, value: u8) -> Result<(), Trap> {
        self.watch(addr, 1, AccessKind::Write)?;
        if addr >= MMIO_BASE {
            self.device_access(addr, true)?;
        }
        if self.mem.write_u8(addr, value) {
            Ok(())
        } else {
            Err(Self::store_fault(addr))
        }
    }

    /// Checks a whole access of any length (a double, an unaligned word's part, a string, a
    /// syscall's buffer) against watchpoints before any part of it happens.
    pub(crate) fn watch_range(&self, addr: u32, len: u64, access: AccessKind) -> Result<(), Trap> {
        if self.debug.watch.may_hit_range(addr as u64, len) {
            return self.watch_hit(addr, len, access);
        }
        Ok(())
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
