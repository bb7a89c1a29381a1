//! MARS 4.5's Keyboard and Display MMIO Simulator (mars/tools/KeyboardAndDisplaySimulator.java)
//! as a device of the machine, connected with `--mmio` (or `--keys`, or a bitmap display).
//!
//! Four words at the bottom of MMIO, each control word with the ready flag in bit 0 and the
//! interrupt enable in bit 1:
//! - receiver control 0xffff0000, receiver data 0xffff0004: a key pressed sets the ready bit
//!   (keeping every other bit) and puts the key in the data word, overwriting one not yet read;
//!   a load at exactly the data word's address (any width) leaves only bit 1 of the control
//!   word.
//! - transmitter control 0xffff0008, transmitter data 0xffff000c: the ready bit is set when the
//!   device connects; a store at exactly the data word's address while it is set leaves only
//!   bit 1, and once [`TRANSMIT_DELAY`] more instructions have been fetched the character
//!   appears (on the console) and the ready bit comes back. A store while it is clear is kept
//!   in memory and otherwise ignored.
//! - Either event raises MARS's external interrupt when its control word has a bit other than
//!   ready set and Status has interrupts enabled and the exception level clear (checked when
//!   the event happens, never latched): Cause bit 8 (keyboard) or 9 (display), EPC the
//!   instruction not yet executed, then the handler at 0x80000180.
//!
//! Everything else at those addresses is plain memory, as in MARS (programs may write the
//! control words, ready bit included). The device's state is part of the cpu's, so snapshots
//! and time travel cover it. The cpu's loads and stores pay one compare for it: accesses at or
//! above 0xffff0000 ask [`crate::cpu::Cpu`] whether the device watches them, and a watched one
//! leaves the run to be executed again by the machine with the device looking
//! ([`crate::machine::MipsMachine`]).

use crate::cpu::Cpu;

pub const RECEIVER_CONTROL: u32 = 0xffff_0000;
pub const RECEIVER_DATA: u32 = 0xffff_0004;
pub const TRANSMITTER_CONTROL: u32 = 0xffff_0008;
pub const TRANSMITTER_DATA: u32 = 0xffff_000c;

/// Instruction fetches between a store to the transmitter and its ready bit coming back: the
/// tool's default (its slider's "Delay length: 5 instruction executions", fixed delay).
pub const TRANSMIT_DELAY: u64 = 5;

/// Cause codes of MARS's external interrupts (`Exceptions.EXTERNAL_INTERRUPT_*`); MARS shifts
/// them into Cause's bits 8 and 9.
pub const KEYBOARD_INTERRUPT: u32 = 0x40;
pub const DISPLAY_INTERRUPT: u32 = 0x80;

/// An access the device watches: the cpu stops before it and the machine executes it again
/// with the device looking.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Watched {
    /// A load at exactly the receiver's data word (it clears the ready bit).
    ReceiverData,
    /// A store at exactly the transmitter's data word.
    TransmitterData,
    /// A load of the receiver's control word while no key can come any more (the input
    /// ended, no key is queued or scheduled): a poll the idle rule counts.
    ReceiverPoll,
}

/// Empty receiver polls in a row, each within [`POLL_GAP`] instructions of the last, after
/// which a program with no key left to come is waiting for one (LC-3's rule: a loop that does
/// nothing but poll waits; one that polls once a frame between other work does not).
pub const POLLS_BEFORE_WAITING: u32 = 1000;
pub const POLL_GAP: u64 = 16;

/// The device's state beyond its four memory words.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mmio {
    /// The tool is connected: the cpu reports the accesses it watches.
    pub connected: bool,
    /// The access the cpu stopped at is being executed again: let it through.
    pub(crate) pass: bool,
    /// The last stop was a watched access ([`crate::cpu::Cpu::take_device_access`]).
    pub(crate) trapped: Option<Watched>,
    /// Receiver polls that found no key, each soon after the last (see
    /// [`POLLS_BEFORE_WAITING`]), and the count of the last.
    pub empty_polls: u32,
    pub last_empty_poll: u64,
    /// The transmitter is busy: the count at which its ready bit comes back (before the
    /// instruction at that count executes), and the word that was stored.
    pub transmit_until: Option<u64>,
    pub transmitted: u32,
    /// An external interrupt raised, to be taken before the next instruction.
    pub pending_interrupt: Option<u32>,
}

/// What a run of the machine has to do at the current instruction count before going on.
impl Mmio {
    /// The next count at which the device acts by itself (the transmitter's ready bit).
    pub fn next_event(&self) -> Option<u64> {
        self.transmit_until
    }
}

fn word(cpu: &Cpu, addr: u32) -> u32 {
    cpu.mem.read_u32(addr).unwrap_or(0)
}

fn set_word(cpu: &mut Cpu, addr: u32, value: u32) {
    // The four words lie in the MMIO segment, which is always mapped.
    let _ = cpu.mem.write_u32(addr, value);
}

/// Whether an event on a device whose control word is now `control` interrupts: a bit other
/// than ready set (the program's interrupt enable), and Status with interrupts enabled and
/// the exception level clear.
fn interrupts(cpu: &Cpu, control: u32) -> bool {
    control != 1 && cpu.status & 2 == 0 && cpu.status & 1 == 1
}

/// Connects the tool: the transmitter is ready.
pub fn connect(cpu: &mut Cpu) {
    cpu.mmio.connected = true;
    let control = word(cpu, TRANSMITTER_CONTROL) | 1;
    set_word(cpu, TRANSMITTER_CONTROL, control);
}

/// A poll of the receiver's control word while no key can come: whether the program is now
/// waiting (the [`POLLS_BEFORE_WAITING`]th empty poll in a row, each within [`POLL_GAP`]
/// instructions of the last). A poll that finds a key, or comes after other work, starts the
/// count again.
pub fn waits(cpu: &mut Cpu) -> bool {
    if word(cpu, RECEIVER_CONTROL) & 1 != 0 {
        cpu.mmio.empty_polls = 0;
        return false;
    }
    let now = cpu.instructions;
    let tight = now.wrapping_sub(cpu.mmio.last_empty_poll) <= POLL_GAP;
    cpu.mmio.last_empty_poll = now;
    cpu.mmio.empty_polls = if tight { cpu.mmio.empty_polls + 1 } else { 1 };
    // Once waiting, the same poll run again waits at once (nothing can change until a key
    // comes), so a host sees it make no progress.
    cpu.mmio.empty_polls >= POLLS_BEFORE_WAITING
}

/// A key pressed on the tool's keyboard.
pub fn press_key(cpu: &mut Cpu, key: u8) {
    let control = word(cpu, RECEIVER_CONTROL) | 1;
    set_word(cpu, RECEIVER_CONTROL, control);
    set_word(cpu, RECEIVER_DATA, key as u32);
    if interrupts(cpu, control) {
        cpu.mmio.pending_interrupt = Some(KEYBOARD_INTERRUPT);
    }
}

/// After the instruction that made a watched access completed (`count` instructions done):
/// the receiver's data was read, or a character was stored for the transmitter.
pub fn after_access(cpu: &mut Cpu, read_receiver: bool, count: u64) {
    if read_receiver {
        let control = word(cpu, RECEIVER_CONTROL) & 2;
        set_word(cpu, RECEIVER_CONTROL, control);
        return;
    }
    let control = word(cpu, TRANSMITTER_CONTROL);
    if control & 1 == 0 {
        return;
    }
    set_word(cpu, TRANSMITTER_CONTROL, control & 2);
    cpu.mmio.transmitted = word(cpu, TRANSMITTER_DATA);
    // The next instruction's fetch is the first of the delay: the one fetched TRANSMIT_DELAY
    // instructions after the store sees the ready bit.
    cpu.mmio.transmit_until = Some(count - 1 + TRANSMIT_DELAY);
}

/// The transmitter's delay ended at the current count: the character appears and the ready
/// bit comes back. Returns nothing; an interrupt becomes pending.
pub fn finish_transmit(cpu: &mut Cpu) {
    cpu.mmio.transmit_until = None;
    show_character(cpu, cpu.mmio.transmitted);
    let control = word(cpu, TRANSMITTER_CONTROL) | 1;
    set_word(cpu, TRANSMITTER_CONTROL, control);
    if interrupts(cpu, control) {
        cpu.mmio.pending_interrupt = Some(DISPLAY_INTERRUPT);
    }
}

/// The tool's display area is the console here. Form feed (12) clears it; bell (7) moves the
/// cursor to column bits 20-31, row bits 8-19 of the word stored: as terminal sequences.
fn show_character(cpu: &mut Cpu, stored: u32) {
    match stored as u8 {
        12 => cpu.console.write(b"\x1b[2J\x1b[H"),
        7 => {
            let column = stored >> 20;
            let row = (stored >> 8) & 0xfff;
            cpu.console
                .write(format!("\x1b[{};{}H", row + 1, column + 1).as_bytes());
        }
        byte => cpu.console.write_byte(byte),
    }
}
