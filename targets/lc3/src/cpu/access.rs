//! Loads and stores: one range compare sends device registers and protected addresses to a
//! slow path (the devices, 3rd-edition access control, the wait for a key), one compare
//! against the span of watched words the watchpoint test; the same inside a block, with the
//! condition codes written back before anything leaves the plain path. Also the debugger's
//! view of memory and devices ([`Cpu::peek`], [`Cpu::poke`]).

use asmdbg_core::AccessKind;

use super::{
    cc_of, Cpu, Exit, CLOCK_ENABLE, DDR, DSR, INTERRUPT_ENABLE, KBDR, KBSR, MCR, PSR_ADDR, READY,
};

/// Empty KBSR polls in a row (with no console I/O between them, each within [`POLL_GAP`]
/// instructions of the last) after which the program is taken to be waiting for a key: a wait
/// loop reaches it within a few thousand instructions, as lc3tools' rule does.
const POLLS_BEFORE_WAITING: u32 = 1000;
/// The most instructions between two empty polls of one wait: a poll loop is a few
/// instructions (`LDI R0, KBSR` / `BRzp` back); a program that does more between two looks at
/// the keyboard (a game drawing its next frame) is checking, not waiting, and never stops.
pub(super) const POLL_GAP: u64 = 16;

impl Cpu {
    /// A device register or memory word as the debugger sees it: no key is consumed.
    pub fn peek(&self, addr: u16) -> u16 {
        if self.semantics.pennsim {
            match addr {
                // No interrupt-enable bits; a waiting `.` is a timer tick, not a key.
                KBSR => return if self.key_waiting() { READY } else { 0 },
                DSR => return READY,
                _ => {
                    if let Some(value) = self.pennsim_peek(addr) {
                        return value;
                    }
                }
            }
        }
        match addr {
            KBSR => {
                let ready = if self.console.pending_input() > 0 {
                    READY
                } else {
                    0
                };
                ready | if self.kbsr_ie { INTERRUPT_ENABLE } else { 0 }
            }
            KBDR => self.console.peek_byte().map_or(self.kbdr, u16::from),
            DSR => READY | if self.dsr_ie { INTERRUPT_ENABLE } else { 0 },
            DDR => self.ddr,
            MCR => self.mcr,
            PSR_ADDR if self.semantics.psr_mapped => self.psr(),
            _ => self.mem[addr as usize],
        }
    }

    /// Stores a word for the debugger: device registers take the value without I/O (a DDR
    /// write prints nothing; an MCR write can stop or restart the clock).
    pub fn poke(&mut self, addr: u16, value: u16) {
        if self.semantics.pennsim && self.pennsim_store(addr, value) {
            return;
        }
        match addr {
            KBSR => self.kbsr_ie = value & INTERRUPT_ENABLE != 0,
            DSR => self.dsr_ie = value & INTERRUPT_ENABLE != 0,
            DDR => self.ddr = value,
            KBDR => {}
            MCR => self.mcr = value,
            PSR_ADDR if self.semantics.psr_mapped => self.set_psr(value),
            _ => {
                self.mem[addr as usize] = value;
                self.wrote(addr);
                // Inside `run` (a store to memory above the device registers), the run loop
                // drops the blocks itself.
                if self.code_stale && self.blocks.is_some() {
                    self.forget_code();
                }
            }
        }
        self.privilege_changed();
    }

    /// Whether a KBSR read finds a key (under PennSim, a waiting `.` is not one).
    fn key_ready(&self) -> bool {
        if self.semantics.pennsim {
            self.key_waiting()
        } else {
            self.console.pending_input() > 0
        }
    }

    #[inline(always)]
    pub(super) fn load<const WATCH: bool>(&mut self, addr: u16) -> Result<u16, Exit> {
        if WATCH {
            let watch = self
                .debug
                .watch
                .check(&self.watchpoints, addr.into(), 1, AccessKind::Read);
            if let Some((kind, at)) = watch {
                return Err(Exit::Watch(kind, at as u16));
            }
        }
        if addr.wrapping_sub(self.plain_lo) < self.plain_len {
            Ok(self.mem[addr as usize])
        } else {
            self.load_slow(addr)
        }
    }

    #[inline(always)]
    pub(super) fn store<const WATCH: bool>(&mut self, addr: u16, value: u16) -> Result<(), Exit> {
        if WATCH {
            let watch =
                (self.debug.watch).check(&self.watchpoints, addr.into(), 1, AccessKind::Write);
            if let Some((kind, at)) = watch {
                return Err(Exit::Watch(kind, at as u16));
            }
        }
        if addr.wrapping_sub(self.plain_lo) < self.plain_len {
            self.mem[addr as usize] = value;
            self.wrote(addr);
            Ok(())
        } else {
            self.store_slow(addr, value)
        }
    }

    #[cold]
    #[inline(never)]
    fn load_slow(&mut self, addr: u16) -> Result<u16, Exit> {
        if let Some(exit) = self.denied(addr) {
            return Err(exit);
        }
        if self.semantics.pennsim && addr != KBSR {
            if let Some(value) = self.pennsim_load(addr) {
                return Ok(value);
            }
        }
        match addr {
            // Input held back (a grader's shared prefix): this look at the keyboard is where
            // the program's run starts to depend on its input.
            KBSR if self.console.input_held() => Err(Exit::NeedInput),
            KBSR if !self.key_ready() => {
                let Some(now) = self.poll_at else {
                    return Err(Exit::Poll);
                };
                let tight = now.wrapping_sub(self.last_empty_poll) <= POLL_GAP;
                self.last_empty_poll = now;
                self.empty_polls = if tight { self.empty_polls + 1 } else { 1 };
                if self.empty_polls >= POLLS_BEFORE_WAITING {
                    self.empty_polls = 0;
                    Err(Exit::NeedInput)
                } else {
                    Ok(self.peek(addr))
                }
            }
            KBDR if self.console.pending_input() == 0 => Err(Exit::NeedInput),
            KBDR => {
                self.empty_polls = 0;
                self.kbdr = self.console.read_byte().map_or(0, u16::from);
                Ok(self.kbdr)
            }
            _ => Ok(self.peek(addr)),
        }
    }

    #[cold]
    #[inline(never)]
    fn store_slow(&mut self, addr: u16, value: u16) -> Result<(), Exit> {
        if let Some(exit) = self.denied(addr) {
            return Err(exit);
        }
        match addr {
            DDR => {
                self.empty_polls = 0;
                let byte = value as u8;
                let byte = if byte == b'\r' && self.semantics.cr_is_newline {
                    b'\n'
                } else {
                    byte
                };
                self.console.write_byte(byte);
                self.ddr = value;
                Ok(())
            }
            MCR => {
                self.mcr = value;
                if value & CLOCK_ENABLE == 0 {
                    Err(Exit::Halted)
                } else {
                    Ok(())
                }
            }
            _ => {
                self.poke(addr, value);
                Ok(())
            }
        }
    }

    /// A load from inside a block, as [`Cpu::load`]. Whatever leaves the plain path (a device
    /// register, the PSR, a protected address, a watchpoint) first gets the condition codes of
    /// `last` written back: it may read them, or stop the block.
    #[inline(always)]
    pub(super) fn load_in_block<const WATCH: bool>(
        &mut self,
        addr: u16,
        last: u16,
    ) -> Result<u16, Exit> {
        if WATCH && self.debug.watch.may_hit(addr.into()) {
            self.cc = cc_of(last);
            return self.load::<true>(addr);
        }
        if addr.wrapping_sub(self.plain_lo) < self.plain_len {
            Ok(self.mem[addr as usize])
        } else {
            self.cc = cc_of(last);
            self.load_slow(addr)
        }
    }

    /// A store from inside a block, as [`Cpu::store`], with the condition codes of `last`
    /// written back before anything leaves the plain path. The block ends after a store that
    /// may change what the next instructions do (a device register, the PSR, decoded code).
    #[inline(always)]
    pub(super) fn store_in_block<const WATCH: bool>(
        &mut self,
        addr: u16,
        value: u16,
        last: u16,
    ) -> Result<(), Exit> {
        if WATCH && self.debug.watch.may_hit(addr.into()) {
            self.cc = cc_of(last);
            self.store::<true>(addr, value)?;
            return Err(Exit::Resync);
        }
        if addr.wrapping_sub(self.plain_lo) < self.plain_len {
            self.mem[addr as usize] = value;
            // One test of the access map (inside a chain nothing is stale yet).
            if self.code.holds(addr) {
                self.code_stale = true;
                self.cc = cc_of(last);
                return Err(Exit::Resync);
            }
            Ok(())
        } else {
            self.cc = cc_of(last);
            self.store_slow(addr, value)?;
            Err(Exit::Resync)
        }
    }
}
