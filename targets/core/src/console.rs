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
        }
    }

    /// Marks the end of input: a later `NeedInput` with an empty queue can never be satisfied.
    pub fn close_input(&mut self) {
        self.input_closed = true;
    }

    pub fn input_closed(&self) -> bool {
        self.input_closed
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

    /// Whether a whole line (ending in `\n`) is queued, or input ended with a partial line left.
    pub fn has_line(&self) -> bool {
        self.input.contains(&b'\n') || (self.input_closed && !self.input.is_empty())
    }

    /// Takes one line including its `\n` (or the rest of the input once it is closed).
    /// `None` if no complete line is queued yet.
    pub fn read_line(&mut self) -> Option<Vec<u8>> {
        let end = match self.input.iter().position(|&b| b == b'\n') {
            Some(i) => i + 1,
            None if self.input_closed && !self.input.is_empty() => self.input.len(),
            None => return None,
        };
        Some(self.input.drain(..end).collect())
    }

    /// Records that the guest is blocked on input (set by the cpu along with `NeedInput`).
    pub fn set_waiting(&mut self, waiting: bool) {
        self.waiting = waiting;
    }

    pub fn waiting(&self) -> bool {
        self.waiting
    }

    pub fn write(&mut self, bytes: &[u8]) {
        self.output.extend_from_slice(bytes);
    }

    pub fn write_byte(&mut self, byte: u8) {
        self.output.push(byte);
    }

    /// Bytes written by the guest and not yet taken by the host.
    pub fn output(&self) -> &[u8] {
        &self.output
    }

    /// Takes everything the guest wrote since the last call.
    pub fn take_output(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.output)
    }

    /// Forgets queued input and output and reopens the input (machine reset).
    pub fn reset(&mut self) {
        *self = Console::default();
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
        assert_eq!(c.read_line().as_deref(), Some(&b"ab\n"[..]));
        assert_eq!(c.read_line(), None);
        c.close_input();
        assert!(c.has_line());
        assert_eq!(c.read_line().as_deref(), Some(&b"cd"[..]));
        assert_eq!(c.read_line(), None);
        assert_eq!(c.read_byte(), None);
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
