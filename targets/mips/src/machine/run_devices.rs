//! How a MIPS machine runs with MARS's Keyboard and Display MMIO Simulator: the run cut where
//! the device acts (keys pressed, the transmitter's delay, interrupts), the accesses it
//! watches executed again with the device looking, the `--keys` schedule, and the advice when
//! a program uses a display or keyboard that nothing configured.

use asmdbg_core::{KeyFeed, KeyedMachine, RunOutcome, StopEvent};

use super::{MipsMachine, OUTPUT_PER_RUN};
use crate::devices;

impl MipsMachine {
    pub(super) fn run_devices(&mut self, budget: u64) -> RunOutcome {
        self.cpu.count_receiver_polls = self.cpu.mmio.connected && !self.keys_may_come();
        if self.host.asleep() {
            return RunOutcome {
                executed: 0,
                stop: None,
            };
        }
        let mut executed = 0;
        loop {
            let mut slice = budget - executed;
            if self.cpu.mmio.connected {
                // A run checks the breakpoint at the PC before the instruction there, and an
                // interrupt is taken at that instruction: the breakpoint comes first (as in
                // MARS, whose breakpoint stops the run where the PC arrived, before the next
                // instruction's interrupt is handled). The interrupt stays pending.
                if slice > 0
                    && self.cpu.mmio.pending_interrupt.is_some()
                    && self.cpu.breakpoints.contains(self.cpu.pc as u64)
                {
                    return RunOutcome {
                        executed,
                        stop: Some(StopEvent::Breakpoint),
                    };
                }
                let (counted, stop) = self.device_work(slice > 0);
                executed += counted as u64;
                if stop.is_some() || executed >= budget {
                    return RunOutcome {
                        executed,
                        stop: self.report(stop),
                    };
                }
                slice = budget - executed;
                if let Some(at) = self.cpu.mmio.next_event() {
                    slice = slice.min(at.saturating_sub(self.cpu.instructions).max(1));
                }
            }
            let outcome = self.cpu.run(slice);
            executed += outcome.executed;
            if outcome.stop.is_some() {
                return RunOutcome {
                    executed,
                    stop: self.report(outcome.stop),
                };
            }
            let (counted, stop) = if !self.cpu.take_syscall() {
                // The slice ended where the device acts, or the budget is used.
                if executed < budget && self.cpu.mmio.connected && outcome.executed > 0 {
                    continue;
                }
                return RunOutcome {
                    executed,
                    stop: None,
                };
            } else if let Some(access) = self.cpu.take_device_access() {
                self.device_access(access)
            } else {
                self.syscall()
            };
            executed += counted as u64;
            if stop.is_some()
                || executed >= budget
                || self.host.wake_time().is_some()
                || self.cpu.console.output().len() >= OUTPUT_PER_RUN
            {
                return RunOutcome {
                    executed,
                    stop: self.report(stop),
                };
            }
        }
    }
}

impl MipsMachine {
    /// What the Keyboard and Display MMIO Simulator does at the current count before the next
    /// instruction: keys pressed since, the transmitter's ready bit, and a pending interrupt
    /// (taken only when `may_execute`: it counts as the instruction it interrupts).
    pub(super) fn device_work(&mut self, may_execute: bool) -> (bool, Option<StopEvent>) {
        while let Some(key) = self.cpu.console.take_key() {
            devices::press_key(&mut self.cpu, key);
        }
        while self
            .cpu
            .mmio
            .transmit_until
            .is_some_and(|at| at <= self.cpu.instructions)
        {
            devices::finish_transmit(&mut self.cpu);
        }
        if !may_execute {
            return (false, None);
        }
        match self.cpu.mmio.pending_interrupt.take() {
            Some(code) => self.cpu.interrupt(code),
            None => (false, None),
        }
    }

    /// Executes again the instruction that stopped at a watched device access, then lets the
    /// device react.
    pub(super) fn device_access(&mut self, access: devices::Watched) -> (bool, Option<StopEvent>) {
        if access == devices::Watched::ReceiverPoll && devices::waits(&mut self.cpu) {
            // Not executed: it runs again if a key comes after all.
            self.cpu.console.set_waiting(true);
            return (false, Some(StopEvent::NeedInput));
        }
        let (counted, stop) = self.cpu.step_device_access();
        if counted && access != devices::Watched::ReceiverPoll {
            let count = self.cpu.instructions;
            let read_receiver = access == devices::Watched::ReceiverData;
            devices::after_access(&mut self.cpu, read_receiver, count);
        }
        (counted, stop)
    }

    /// Whether a key can still come to the MMIO keyboard: the input is open, a key is queued,
    /// or the `--keys` schedule has one left.
    pub(super) fn keys_may_come(&self) -> bool {
        !self.cpu.console.input_closed()
            || self.cpu.console.has_keys()
            || self.sys_keys.next_at().is_some()
    }

    /// A key pressed on the MMIO keyboard (see [`Machine::queue_key`]).
    pub(super) fn connected_keyboard(&self) -> bool {
        self.cpu.mmio.connected
    }
}

impl KeyedMachine for MipsMachine {
    fn key_feed(&mut self) -> &mut KeyFeed {
        &mut self.sys_keys
    }

    fn key_count(&self) -> u64 {
        self.cpu.instructions
    }

    /// The key goes to the MMIO keyboard when the machine next runs.
    fn press_scheduled(&mut self, key: u8) {
        if self.cpu.mmio.connected {
            devices::press_key(&mut self.cpu, key);
        } else {
            self.cpu.console.push_key(key);
        }
    }

    fn run_unscheduled(&mut self, budget: u64) -> RunOutcome {
        self.run_live(budget)
    }
}

impl MipsMachine {
    /// A program that polls or writes MARS's MMIO words without the device, or fills memory
    /// where a Bitmap Display is usually put without one: the flag that would show it.
    pub(super) fn unconfigured_advice(&mut self) -> Option<String> {
        if !self.unconfigured.due(self.cpu.instructions) {
            return None;
        }
        if !self.cpu.mmio.connected && self.cpu.mmio_touched.get() {
            self.unconfigured.said();
            return Some(
                "the program uses the Keyboard and Display MMIO words at 0xffff0000, but the device is not connected: run it with --mmio"
                    .to_string(),
            );
        }
        if self.opts.bitmap.is_some() {
            return None;
        }
        // Where MARS games put their display, each looked at for a frame's worth of pixels:
        // MARS's default ($gp), the heap while the program never asked for any, the memory map.
        // One word in eight of the first 32 KiB: a drawn frame shows in any of them.
        const LOOK: u32 = 0x8000;
        const STRIDE: usize = 32;
        const PIXELS: usize = 32;
        let mut places = vec![(0x1000_8000, "gp", "$gp")];
        if self.sys.heap == crate::memory::HEAP_BASE {
            places.push((crate::memory::HEAP_BASE, "heap", "the heap"));
        }
        places.push((0xffff_0010, "mmio", "the memory map"));
        for (base, flag, name) in places {
            let written = (base..base + LOOK)
                .step_by(STRIDE)
                .filter(|&a| self.cpu.mem.read_u32(a).is_some_and(|w| w != 0))
                .count();
            if written >= PIXELS {
                self.unconfigured.said();
                let base = if flag == "mmio" { 0xffff_0000 } else { base };
                return Some(format!(
                    "the program fills memory from {base:#010x} ({name}) as a MARS Bitmap Display shows it, but no display is configured: run it with --bitmap WIDTHxHEIGHT,unit=N,base={flag} (or put the display's settings in the program's header comment)"
                ));
            }
        }
        None
    }

    /// A key on its way to the MMIO keyboard, or there and not read (the receiver's ready bit).
    pub(super) fn key_on_its_way(&self) -> bool {
        if !self.connected_keyboard() {
            return self.cpu.console.pending_input() > 0;
        }
        let ready = self
            .cpu
            .mem
            .read_u32(devices::RECEIVER_CONTROL)
            .is_some_and(|control| control & 1 != 0);
        ready || self.cpu.console.has_keys()
    }
}
