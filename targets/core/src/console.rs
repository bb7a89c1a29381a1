//! The guest's console as the cpu sees it: a queue of input bytes, an output buffer, and whether
//! more input can still come. The host (command line or debugger) moves bytes between this and
//! the real terminal; the cpu never touches a file descriptor.

use std::collections::VecDeque;

#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Console {
    input: VecDeque<u8>,
    /// No more input will ever be queued (end of the input file, terminal closed).
    input_closed: bool,
    output: Vec<u8>,
    /// Set by the cpu when it stopped with `NeedInput`; cleared when input is queued.
    waiting: bool,
    /// The last line read ended at a `\r` that was the last byte queued: a `\n` arriving next
    /// is that line's `\r\n`, not an empty line (Java's `BufferedReader` does the same).
    skip_lf: bool,
    /// Keys pressed on a keyboard device that is not the console (MARS's MMIO keyboard), not
    /// yet taken by the device.
    keys: VecDeque<u8>,
    /// Input will come but is not known yet ([`Console::hold_input`]): a machine stops with
    /// `NeedInput` the moment it looks at the input at all, even where it would otherwise go
    /// on without (an LC-3 keyboard poll, a keyboard interrupt that a key would raise).
    held: bool,
    /// The most output bytes kept until the host takes them; more are dropped
    /// ([`Console::limit_output`]).
    output_limit: Option<usize>,
}

impl Console {
    pub fn new() -> Self {
        Self::default()
    }

    /// Queues bytes typed by the user.
    pub fn push_input(&mut self, bytes: &[u8]) {
        self.input.extend(bytes);
        if !bytes.is_empty() {
            self.waiting = false;
            self.held = false;
        }
    }

    /// Holds the input back: it will come, but what it is is not decided yet, so the guest
    /// must not run past its first look at it. A grader runs the part of a program that all of
    /// its cases share this way (up to the first read or poll of the keyboard), then gives each
    /// case its own input from there; the run is then the same as if that input had been queued
    /// from the start. Queuing input or closing it ends the hold.
    pub fn hold_input(&mut self) {
        self.held = true;
    }

    /// Whether input is held back ([`Console::hold_input`]) and none is queued: looking at the
    /// input now must stop the machine.
    pub fn input_held(&self) -> bool {
        self.held && self.input.is_empty()
    }

    /// A key pressed on the machine's keyboard device (see [`Console::take_key`]).
    pub fn push_key(&mut self, key: u8) {
        self.keys.push_back(key);
    }

    /// The next key pressed on the keyboard device, for the device to take.
    pub fn take_key(&mut self) -> Option<u8> {
        self.keys.pop_front()
    }

    /// Whether keys pressed on the keyboard device wait to be taken.
    pub fn has_keys(&self) -> bool {
        !self.keys.is_empty()
    }

    /// Marks the end of input: a later `NeedInput` with an empty queue can never be satisfied.
    pub fn close_input(&mut self) {
        self.input_closed = true;
        self.held = false;
    }

    pub fn input_closed(&self) -> bool {
        self.input_closed
    }

    /// The input bytes not yet consumed by the guest.
    pub fn unread_input(&self) -> Vec<u8> {
        self.input.iter().copied().collect()
    }

    /// Input bytes not yet consumed by the guest.
    pub fn pending_input(&self) -> usize {
        self.input.len()
    }

    pub fn peek_byte(&self) -> Option<u8> {
        self.input.front().copied()
    }

    pub fn read_byte(&mut self) -> Option<u8> {
        self.input.pop_front()
    }

    /// Where the next line starts: past a `\n` that completes a `\r\n` already read.
    fn line_start(&self) -> usize {
        usize::from(self.skip_lf && self.input.front() == Some(&b'\n'))
    }

    /// Whether [`Console::read_line`] has a line to give: a line ending is queued, or input
    /// ended with a partial line left.
    pub fn has_line(&self) -> bool {
        let start = self.line_start();
        self.input
            .iter()
            .skip(start)
            .any(|&b| b == b'\n' || b == b'\r')
            || (self.input_closed && self.input.len() > start)
    }

    /// Takes one line without its ending, the way Java's `BufferedReader.readLine` cuts lines
    /// (MARS reads its console with it, and only the MIPS machine reads lines): a line ends at
    /// `\n`, `\r\n` or a lone `\r`, and the rest of the input once it is closed. A `\r` ends
    /// its line at once, even as the last byte queued; a `\n` that arrives after it is dropped
    /// then. `None` if no complete line is queued yet.
    pub fn read_line(&mut self) -> Option<Vec<u8>> {
        if !self.has_line() {
            return None;
        }
        if self.line_start() == 1 {
            self.input.pop_front();
        }
        self.skip_lf = false;
        let end = self
            .input
            .iter()
            .position(|&b| b == b'\n' || b == b'\r')
            .unwrap_or(self.input.len());
        let line: Vec<u8> = self.input.drain(..end).collect();
        if self.input.pop_front() == Some(b'\r') {
            match self.input.front() {
                Some(b'\n') => {
                    self.input.pop_front();
                }
                Some(_) => {}
                None => self.skip_lf = true,
            }
        }
        Some(line)
    }

    /// Records that the guest is blocked on input (set by the cpu along with `NeedInput`).
    pub fn set_waiting(&mut self, waiting: bool) {
        self.waiting = waiting;
    }

    pub fn waiting(&self) -> bool {
        self.waiting
    }

    pub fn write(&mut self, bytes: &[u8]) {
        match self.output_limit {
            None => self.output.extend_from_slice(bytes),
            Some(limit) => {
                let room = limit.saturating_sub(self.output.len());
                self.output
                    .extend_from_slice(&bytes[..bytes.len().min(room)]);
            }
        }
    }

    pub fn write_byte(&mut self, byte: u8) {
        match self.output_limit {
            Some(limit) if self.output.len() >= limit => {}
            _ => self.output.push(byte),
        }
    }

    /// Keeps at most `limit` bytes of output until the host takes them; the guest's further
    /// output is dropped. A host that must bound its memory (a grader) sets a limit above
    /// what it accepts and stops the run once it sees that much: a guest printing in a loop
    /// cannot fill the memory between two looks.
    pub fn limit_output(&mut self, limit: usize) {
        self.output_limit = Some(limit);
    }

    /// Bytes written by the guest and not yet taken by the host.
    pub fn output(&self) -> &[u8] {
        &self.output
    }

    /// Takes everything the guest wrote since the last call.
    pub fn take_output(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.output)
    }

    /// Forgets queued input and output and reopens the input (machine reset); an output limit
    /// stays.
    pub fn reset(&mut self) {
        *self = Console {
            output_limit: self.output_limit,
            ..Console::default()
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_bytes() {
        let mut c = Console::new();
        assert!(!c.has_line());
        c.push_input(b"ab\ncd");
        assert!(c.has_line());
        assert_eq!(c.read_line().as_deref(), Some(&b"ab"[..]));
        assert_eq!(c.read_line(), None);
        c.close_input();
        assert!(c.has_line());
        assert_eq!(c.read_line().as_deref(), Some(&b"cd"[..]));
        assert_eq!(c.read_line(), None);
        assert_eq!(c.read_byte(), None);
    }

    #[test]
    fn lines_end_at_lf_crlf_or_a_lone_cr() {
        let mut c = Console::new();
        c.push_input(b"a\nb\r\nc\rd\r\re");
        let mut lines = Vec::new();
        while let Some(line) = c.read_line() {
            lines.push(String::from_utf8(line).unwrap());
        }
        assert_eq!(lines, ["a", "b", "c", "d", ""], "`e` has no ending yet");
        c.close_input();
        assert_eq!(c.read_line().as_deref(), Some(&b"e"[..]));
        assert!(!c.has_line());
    }

    #[test]
    fn a_cr_last_in_the_queue_ends_its_line_and_claims_a_later_lf() {
        let mut c = Console::new();
        c.push_input(b"12\r");
        assert!(c.has_line(), "a CR ends the line without waiting for more");
        assert_eq!(c.read_line().as_deref(), Some(&b"12"[..]));
        c.push_input(b"\n");
        assert!(
            !c.has_line(),
            "the LF completes the CR LF, it is no empty line"
        );
        c.push_input(b"34\n");
        assert_eq!(c.read_line().as_deref(), Some(&b"34"[..]));
        // Only the very next byte is claimed: an empty line after a lone CR stays a line.
        c.push_input(b"5\r");
        assert_eq!(c.read_line().as_deref(), Some(&b"5"[..]));
        c.push_input(b"\r");
        assert_eq!(c.read_line().as_deref(), Some(&b""[..]));
        // A closed input holding only the claimed LF has no line left.
        c.push_input(b"\n");
        c.close_input();
        assert!(!c.has_line());
        assert_eq!(c.read_line(), None);
    }

    #[test]
    fn output_is_taken_once() {
        let mut c = Console::new();
        c.write(b"hi");
        c.write_byte(b'!');
        assert_eq!(c.output(), b"hi!");
        assert_eq!(c.take_output(), b"hi!");
        assert!(c.output().is_empty());
    }

    #[test]
    fn output_past_the_limit_is_dropped() {
        let mut c = Console::new();
        c.limit_output(4);
        c.write(b"abc");
        c.write(b"def");
        c.write_byte(b'g');
        assert_eq!(c.take_output(), b"abcd");
        c.write_byte(b'h');
        c.reset();
        c.write(b"12345");
        assert_eq!(c.output(), b"1234", "the limit outlives a reset");
    }

    #[test]
    fn held_input_ends_when_input_comes_or_closes() {
        let mut c = Console::new();
        assert!(!c.input_held());
        c.hold_input();
        assert!(c.input_held());
        c.push_input(b"");
        assert!(c.input_held(), "nothing came");
        c.push_input(b"x");
        assert!(!c.input_held());
        c.read_byte();
        assert!(!c.input_held(), "the hold ended with the input");
        c.hold_input();
        c.close_input();
        assert!(!c.input_held());
    }

    #[test]
    fn waiting_clears_on_input() {
        let mut c = Console::new();
        c.set_waiting(true);
        assert!(c.waiting());
        c.push_input(b"x");
        assert!(!c.waiting());
        assert_eq!(c.peek_byte(), Some(b'x'));
        assert_eq!(c.pending_input(), 1);
    }
}
