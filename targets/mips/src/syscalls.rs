//! MARS 4.5's syscalls as its command line runs them: console I/O a line at a time, files
//! relative to the working directory, time and sleep, `java.util.Random` streams, and the Swing
//! dialogs (50-59) rendered as text.
//!
//! The cpu stops at a `syscall` ([`crate::cpu::Cpu::run`] leaves the loop with the syscall
//! pending) and the machine wrapper performs it here, with the cpu, the syscall state (plain
//! data: heap pointer, random streams, virtual clock, open files as numbers) and the
//! [`Host`] (everything outside: files, clock, sleep, stderr), then hands the result back to
//! the cpu to finish the instruction.
//!
//! Dialogs print their message and, for the input dialogs (50-54), the answer read from the next
//! console line, each ending in a newline: `Column? 4` then `You chose 4` for 51 then 56. The
//! confirm dialog (50) shows `[0=yes 1=no 2=cancel]` and takes 0/y/yes, 1/n/no, anything else as
//! cancel; the input dialogs return MARS's status codes in $a1 (0 ok, -1 unparsable, -3 empty,
//! -4 string truncated).
//!
//! Every input syscall checks that a whole line is queued before it changes anything, so a
//! `NeedInput` stop leaves the machine exactly before the `syscall` and running again after the
//! host queues input repeats it from scratch.

use std::collections::BTreeMap;

use asmdbg_core::AccessKind;

use crate::cpu::{exc, Cpu, Trap};
use crate::host::Host;
use crate::javafmt::{double_to_string, float_to_string};
use crate::javaparse::{java_trim, parse_double, parse_float, parse_int};
use crate::memory::{DATA_LIMIT, HEAP_BASE};
use crate::random::JavaRandom;

/// MARS allows 32 open files including the three standard streams.
const MAX_FILES: usize = 32;

/// An open file as the machine knows it: numbers and a name, never a handle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenFile {
    pub name: String,
    pub writable: bool,
    pub append: bool,
    /// Bytes read or written so far (where the host's handle must stand).
    pub position: u64,
}

/// A virtual clock that moves with the instructions at `--speed`'s pace: from the count at its
/// first read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PacedClock {
    pub pace: asmdbg_core::Pace,
    pub since: u64,
}

/// The syscalls' part of the machine state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyscallState {
    /// Next address `sbrk` hands out.
    pub heap: u32,
    randoms: BTreeMap<i32, JavaRandom>,
    /// Seed for streams the program uses without seeding them (`--seed`).
    pub default_seed: Option<i64>,
    /// Sleep and time use a virtual clock that only sleeps advance.
    pub virtual_time: bool,
    /// The virtual clock: the wall clock at its first read (asked of the host then), plus
    /// every sleep, plus (with `--speed`) the time the instructions run since take at that pace.
    virtual_base: Option<i64>,
    virtual_slept: i64,
    /// `--speed`: instructions a second, and the count when the virtual clock was first read.
    pub virtual_pace: Option<crate::syscalls::PacedClock>,
    /// Dialogs (50-59) are written to the host's stderr instead of the console.
    pub dialogs_to_stderr: bool,
    /// Descriptor `n` is slot `n - 3`.
    files: Vec<Option<OpenFile>>,
}

impl SyscallState {
    pub fn new() -> Self {
        SyscallState {
            heap: HEAP_BASE,
            randoms: BTreeMap::new(),
            default_seed: None,
            virtual_time: false,
            virtual_base: None,
            virtual_slept: 0,
            virtual_pace: None,
            dialogs_to_stderr: false,
            files: Vec::new(),
        }
    }

    fn random(&mut self, id: i32, host: &mut Host, count: u64) -> &mut JavaRandom {
        let default_seed = self.default_seed;
        self.randoms
            .entry(id)
            .or_insert_with(|| JavaRandom::new(default_seed.unwrap_or_else(|| host.seed(count))))
    }

    fn now_ms(&mut self, host: &mut Host, count: u64) -> i64 {
        if self.virtual_time {
            let first_read = self.virtual_base.is_none();
            let base = *self
                .virtual_base
                .get_or_insert_with(|| host.clock_ms(count));
            let paced = match &mut self.virtual_pace {
                Some(clock) => {
                    if first_read {
                        clock.since = count;
                    }
                    clock.pace.millis(count.saturating_sub(clock.since))
                }
                None => 0,
            };
            base.wrapping_add(self.virtual_slept).wrapping_add(paced)
        } else {
            host.clock_ms(count)
        }
    }

    /// Sleeps `ms` milliseconds: on the virtual clock at once, or in real time through the host.
    /// Returns whether the cpu must stop running until the host's wake-up time.
    fn sleep(&mut self, ms: i32, host: &mut Host, count: u64) -> bool {
        if ms <= 0 {
            return false;
        }
        if self.virtual_time {
            self.virtual_slept = self.virtual_slept.wrapping_add(ms as i64);
            false
        } else {
            host.sleep(count, ms)
        }
    }

    fn open(&mut self, name: &str, flags: u32, host: &mut Host, count: u64) -> i32 {
        let open_already = self.files.iter().flatten().any(|f| f.name == name);
        if open_already {
            return -1;
        }
        let entry = if flags == 0 {
            OpenFile {
                name: name.to_string(),
                writable: false,
                append: false,
                position: 0,
            }
        } else if flags & 1 != 0 {
            OpenFile {
                name: name.to_string(),
                writable: true,
                append: flags & 8 != 0,
                position: 0,
            }
        } else {
            return -1;
        };
        let slot = match self.files.iter().position(Option::is_none) {
            Some(i) => Some(i),
            None if self.files.len() + 3 >= MAX_FILES => None,
            None => Some(self.files.len()),
        };
        let fd = slot.map(|i| i as i32 + 3);
        if !host.open(count, fd, name, &entry) {
            return -1;
        }
        let Some(slot) = slot else {
            return -1;
        };
        if slot == self.files.len() {
            self.files.push(None);
        }
        self.files[slot] = Some(entry);
        slot as i32 + 3
    }

    fn file(&mut self, fd: i32, writable: bool) -> Option<&mut OpenFile> {
        let slot = usize::try_from(fd).ok()?.checked_sub(3)?;
        let f = self.files.get_mut(slot)?.as_mut()?;
        (f.writable == writable).then_some(f)
    }

    fn close(&mut self, fd: i32, host: &mut Host) {
        if let Some(slot) = usize::try_from(fd).ok().and_then(|fd| fd.checked_sub(3)) {
            if let Some(entry) = self.files.get_mut(slot) {
                *entry = None;
                host.close(fd);
            }
        }
    }
}

impl Default for SyscallState {
    fn default() -> Self {
        Self::new()
    }
}

/// Appends bytes as Latin-1 characters encoded in UTF-8 (what Java prints on a UTF-8 host).
pub fn latin1_to_utf8(out: &mut Vec<u8>, bytes: &[u8]) {
    for &b in bytes {
        if b < 0x80 {
            out.push(b);
        } else {
            out.push(0xc0 | (b >> 6));
            out.push(0x80 | (b & 0x3f));
        }
    }
}

fn latin1_string(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| b as char).collect()
}

fn syscall_error(number: u32, what: &str) -> Trap {
    Trap::exception(exc::SYSCALL, format!("{what} (syscall {number})"))
}

/// One syscall being performed: the cpu that stopped at it, the syscall state and the host.
pub(crate) struct Syscall<'a> {
    pub cpu: &'a mut Cpu,
    pub sys: &'a mut SyscallState,
    pub host: &'a mut Host,
}

impl Syscall<'_> {
    fn print(&mut self, text: &str) {
        self.cpu.console.write(text.as_bytes());
    }

    fn print_latin1(&mut self, bytes: &[u8]) {
        let mut out = Vec::with_capacity(bytes.len());
        latin1_to_utf8(&mut out, bytes);
        self.cpu.console.write(&out);
    }

    /// Dialog text goes to the console or, with `dialogs_to_stderr`, to the stderr buffer.
    fn dialog_output(&mut self, bytes: &[u8]) {
        if self.sys.dialogs_to_stderr {
            let mut text = Vec::with_capacity(bytes.len());
            latin1_to_utf8(&mut text, bytes);
            self.host.write_stderr(&text);
        } else {
            self.print_latin1(bytes);
        }
    }

    /// The next input line without its line ending (`\n`, `\r\n` or a lone `\r`, as Java's
    /// `readLine` cuts them), or `NeedInput` with nothing consumed.
    fn take_line(&mut self) -> Result<String, Trap> {
        if !self.cpu.console.has_line() {
            return Err(Trap::NeedInput);
        }
        let line = self.cpu.console.read_line().unwrap_or_default();
        Ok(String::from_utf8_lossy(&line).into_owned())
    }

    fn set_double_f0(&mut self, value: f64) {
        let bits = if value.is_nan() {
            0x7ff8_0000_0000_0000
        } else {
            value.to_bits()
        };
        self.cpu.fpr[0] = bits as u32;
        self.cpu.fpr[1] = (bits >> 32) as u32;
    }

    fn double_f12(&self) -> f64 {
        f64::from_bits(((self.cpu.fpr[13] as u64) << 32) | self.cpu.fpr[12] as u64)
    }

    /// Stores `text` (one byte per UTF-16 unit, as MARS's `setByte(charAt(i))`) fgets-style:
    /// at most `max_len` units, a newline if shorter, then NUL if `nul`.
    fn store_line(&mut self, buf: u32, text: &str, max_len: u32, nul: bool) -> Result<(), Trap> {
        let units: Vec<u16> = text.encode_utf16().take(max_len as usize).collect();
        let mut addr = buf;
        for &u in &units {
            self.cpu.store_u8(addr, u as u8)?;
            addr = addr.wrapping_add(1);
        }
        if (units.len() as u32) < max_len {
            self.cpu.store_u8(addr, b'\n')?;
            addr = addr.wrapping_add(1);
        }
        if nul {
            self.cpu.store_u8(addr, 0)?;
        }
        Ok(())
    }

    /// Executes the syscall selected by $v0.
    pub(crate) fn perform(&mut self) -> Result<(), Trap> {
        let number = self.cpu.reg(2);
        let a0 = self.cpu.reg(4);
        let a1 = self.cpu.reg(5);
        let a2 = self.cpu.reg(6);
        match number {
            1 => self.print(&(a0 as i32).to_string()),
            2 => self.print(&float_to_string(f32::from_bits(self.cpu.fpr[12]))),
            3 => self.print(&double_to_string(self.double_f12())),
            4 => {
                let bytes = self.cpu.read_c_string(a0)?;
                self.print_latin1(&bytes);
            }
            5 => {
                let line = self.take_line()?;
                // `new Integer(line.trim())`: Java's trim, then `Integer.parseInt`.
                let value = parse_int(java_trim(&line))
                    .ok_or_else(|| syscall_error(5, "invalid integer input"))?;
                self.cpu.set_reg(2, value as u32);
            }
            6 => {
                let line = self.take_line()?;
                let value =
                    parse_float(&line).ok_or_else(|| syscall_error(6, "invalid float input"))?;
                self.cpu.fpr[0] = if value.is_nan() {
                    0x7fc0_0000
                } else {
                    value.to_bits()
                };
            }
            7 => {
                let line = self.take_line()?;
                let value =
                    parse_double(&line).ok_or_else(|| syscall_error(7, "invalid double input"))?;
                self.set_double_f0(value);
            }
            8 => {
                let max_len = (a1 as i32).wrapping_sub(1);
                // A watched buffer must stop the syscall before it consumes the line.
                self.cpu
                    .watch_range(a0, (a1 as i32).max(0) as u64, AccessKind::Write)?;
                let line = self.take_line()?;
                self.store_line(a0, &line, max_len.max(0) as u32, max_len >= 0)?;
            }
            9 => {
                let amount = a0 as i32;
                if amount < 0 {
                    return Err(syscall_error(
                        9,
                        &format!("request ({amount}) is negative heap amount"),
                    ));
                }
                let start = self.sys.heap;
                let mut next = start as u64 + amount as u64;
                next = (next + 3) & !3;
                if next >= DATA_LIMIT as u64 {
                    return Err(syscall_error(
                        9,
                        &format!("request ({amount}) exceeds available heap storage"),
                    ));
                }
                self.sys.heap = next as u32;
                self.cpu.set_reg(2, start);
            }
            10 => return Err(Trap::Exit(0)),
            11 => self.print_latin1(&[a0 as u8]),
            12 => {
                let line = self.take_line()?;
                let first = line
                    .encode_utf16()
                    .next()
                    .ok_or_else(|| syscall_error(12, "invalid char input"))?;
                self.cpu.set_reg(2, first as u32);
            }
            13 => {
                let name = latin1_string(&self.cpu.read_c_string(a0)?);
                let count = self.cpu.instructions;
                let fd = self.sys.open(&name, a1, self.host, count);
                self.cpu.set_reg(2, fd as u32);
            }
            14 => self.sys_read(a0 as i32, a1, a2 as i32)?,
            15 => self.sys_write(a0 as i32, a1, a2 as i32)?,
            16 => self.sys.close(a0 as i32, self.host),
            17 => return Err(Trap::Exit(a0 as i32)),
            30 => {
                let now = self.sys.now_ms(self.host, self.cpu.instructions);
                self.cpu.set_reg(4, now as u32);
                self.cpu.set_reg(5, (now >> 32) as u32);
            }
            31 => {}
            32 => {
                // A real-time sleep sets the host\'s wake-up time; the machine ends the run.
                self.sys.sleep(a0 as i32, self.host, self.cpu.instructions);
            }
            // Synchronous MIDI blocks for the note's duration.
            33 => {
                // A real-time sleep sets the host\'s wake-up time; the machine ends the run.
                self.sys.sleep(a1 as i32, self.host, self.cpu.instructions);
            }
            34 => self.print(&format!("0x{a0:08x}")),
            35 => self.print(&format!("{a0:032b}")),
            36 => self.print(&a0.to_string()),
            40 => {
                self.sys
                    .randoms
                    .insert(a0 as i32, JavaRandom::new(a1 as i32 as i64));
            }
            41 => {
                let value = self
                    .sys
                    .random(a0 as i32, self.host, self.cpu.instructions)
                    .next_int();
                self.cpu.set_reg(4, value as u32);
            }
            42 => {
                let value = self
                    .sys
                    .random(a0 as i32, self.host, self.cpu.instructions)
                    .next_int_bounded(a1 as i32)
                    .ok_or_else(|| syscall_error(42, "Upper bound of range cannot be negative"))?;
                self.cpu.set_reg(4, value as u32);
            }
            43 => {
                let value = self
                    .sys
                    .random(a0 as i32, self.host, self.cpu.instructions)
                    .next_float();
                self.cpu.fpr[0] = value.to_bits();
            }
            44 => {
                let value = self
                    .sys
                    .random(a0 as i32, self.host, self.cpu.instructions)
                    .next_double();
                self.set_double_f0(value);
            }
            50..=54 => self.input_dialog(number, a0, a1, a2)?,
            55..=59 => self.message_dialog(number, a0, a1)?,
            _ => {
                return Err(Trap::exception(
                    exc::SYSCALL,
                    format!(
                        "invalid or unimplemented syscall service: {} ",
                        number as i32
                    ),
                ))
            }
        }
        Ok(())
    }

    fn sys_read(&mut self, fd: i32, buf: u32, len: i32) -> Result<(), Trap> {
        if len < 0 {
            self.cpu.set_reg(2, -1i32 as u32);
            return Ok(());
        }
        self.cpu.watch_range(buf, len as u64, AccessKind::Write)?;
        let bytes = if fd == 0 {
            if self.cpu.console.pending_input() == 0 {
                if !self.cpu.console.input_closed() {
                    return Err(Trap::NeedInput);
                }
                Vec::new()
            } else {
                let n = (len as usize).min(self.cpu.console.pending_input());
                (0..n)
                    .filter_map(|_| self.cpu.console.read_byte())
                    .collect()
            }
        } else {
            let count = self.cpu.instructions;
            let Some(file) = self.sys.file(fd, false) else {
                self.cpu.set_reg(2, -1i32 as u32);
                return Ok(());
            };
            match self.host.read(count, fd, file, (len as usize).min(1 << 24)) {
                Some(data) => {
                    file.position += data.len() as u64;
                    data
                }
                None => {
                    self.cpu.set_reg(2, -1i32 as u32);
                    return Ok(());
                }
            }
        };
        for (i, &b) in bytes.iter().enumerate() {
            self.cpu.store_u8(buf.wrapping_add(i as u32), b)?;
        }
        self.cpu.set_reg(2, bytes.len() as u32);
        Ok(())
    }

    fn sys_write(&mut self, fd: i32, buf: u32, len: i32) -> Result<(), Trap> {
        if len < 0 {
            self.cpu.set_reg(2, -1i32 as u32);
            return Ok(());
        }
        // MARS reads one byte past the requested length (its string terminator slot).
        let mut data = Vec::with_capacity((len as usize).min(1 << 20));
        let mut addr = buf;
        for i in 0..=len {
            let b = self.cpu.load_u8(addr)?;
            if i < len {
                data.push(b);
            }
            addr = addr.wrapping_add(1);
        }
        let written = match fd {
            1 => {
                self.cpu.console.write(&data);
                len
            }
            2 => {
                self.host.write_stderr(&data);
                len
            }
            _ => {
                let count = self.cpu.instructions;
                match self.sys.file(fd, true) {
                    Some(file) if self.host.write(count, fd, file, &data) => {
                        file.position += data.len() as u64;
                        len
                    }
                    _ => -1,
                }
            }
        };
        self.cpu.set_reg(2, written as u32);
        Ok(())
    }

    /// 50-54: the message, then the answer read from the console and echoed.
    fn input_dialog(&mut self, number: u32, msg: u32, a1: u32, a2: u32) -> Result<(), Trap> {
        let message = self.cpu.read_c_string(msg)?;
        if number == 54 {
            self.cpu
                .watch_range(a1, (a2 as i32).max(0) as u64, AccessKind::Write)?;
        }
        let answer = self.take_line()?;
        let mut shown = message;
        if number == 50 {
            shown.extend_from_slice(b" [0=yes 1=no 2=cancel] ");
        } else {
            shown.push(b' ');
        }
        shown.extend(answer.chars().map(|c| c as u32 as u8));
        shown.push(b'\n');
        self.dialog_output(&shown);
        let trimmed = answer.trim();
        match number {
            50 => {
                let choice = match trimmed.to_ascii_lowercase().as_str() {
                    "0" | "y" | "yes" => 0,
                    "1" | "n" | "no" => 1,
                    _ => 2,
                };
                self.cpu.set_reg(4, choice);
            }
            51..=53 if trimmed.is_empty() => self.cpu.set_reg(5, -3i32 as u32),
            51 => match parse_int(trimmed) {
                Some(v) => {
                    self.cpu.set_reg(4, v as u32);
                    self.cpu.set_reg(5, 0);
                }
                None => self.cpu.set_reg(5, -1i32 as u32),
            },
            52 => match parse_float(trimmed) {
                Some(v) => {
                    self.cpu.fpr[0] = v.to_bits();
                    self.cpu.set_reg(5, 0);
                }
                None => self.cpu.set_reg(5, -1i32 as u32),
            },
            53 => match parse_double(trimmed) {
                Some(v) => {
                    self.set_double_f0(v);
                    self.cpu.set_reg(5, 0);
                }
                None => self.cpu.set_reg(5, -1i32 as u32),
            },
            _ => {
                let max = (a2 as i32).saturating_sub(1).max(0) as u32;
                let too_long = answer.encode_utf16().count() as u32 > max;
                if answer.is_empty() {
                    self.cpu.set_reg(5, -3i32 as u32);
                } else {
                    self.store_line(a1, &answer, max, a2 as i32 > 0)?;
                    self.cpu.set_reg(5, if too_long { -4i32 as u32 } else { 0 });
                }
            }
        }
        Ok(())
    }

    /// 55-59: the message followed by its value.
    fn message_dialog(&mut self, number: u32, msg: u32, a1: u32) -> Result<(), Trap> {
        let mut shown = self.cpu.read_c_string(msg)?;
        match number {
            56 => shown.extend_from_slice((a1 as i32).to_string().as_bytes()),
            57 => shown
                .extend_from_slice(float_to_string(f32::from_bits(self.cpu.fpr[12])).as_bytes()),
            58 => shown.extend_from_slice(double_to_string(self.double_f12()).as_bytes()),
            59 => {
                let text = self.cpu.read_c_string(a1)?;
                shown.extend_from_slice(&text);
            }
            _ => {}
        }
        shown.push(b'\n');
        self.dialog_output(&shown);
        Ok(())
    }
}
