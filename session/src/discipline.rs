//! The terminal's side of the guest console: what a serial line discipline does between the
//! user's keys and the guest (Enter as LF, echo and line editing in cooked mode) and between the
//! guest's output and the terminal (LF shown as CR LF). Pure byte translation, kept with the
//! session so the session's echo and output share one backlog and one order.

/// How typed characters reach the guest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineMode {
    /// Every key reaches the guest at once, without echo: LC-3's keyboard (the guest echoes
    /// what it wants echoed).
    Raw,
    /// Lines are echoed and edited (backspace) here and reach the guest on Enter, the way
    /// MARS's console input behaves in a terminal.
    Cooked,
}

/// The terminal side of a pty console. The pty itself is raw (so nothing is buffered or echoed
/// behind our back), and asmdbg does what a serial device does for the terminal program the
/// user attaches (`screen`, `picocom`, `socat`): Enter (CR) arrives as LF, guest LF is shown as
/// CR LF, and in cooked mode typed text is echoed and line-edited before the guest sees it.
#[derive(Debug, Clone)]
pub struct Discipline {
    mode: LineMode,
    /// Translate newlines for a terminal (pty); stdio leaves that to the user's own tty.
    terminal: bool,
    line: Vec<u8>,
}

impl Discipline {
    pub fn new(mode: LineMode, terminal: bool) -> Self {
        Discipline {
            mode,
            terminal,
            line: Vec::new(),
        }
    }

    /// Typed bytes: what the guest receives now, and what is echoed to the terminal.
    pub fn input(&mut self, typed: &[u8], guest: &mut Vec<u8>, echo: &mut Vec<u8>) {
        if !self.terminal {
            guest.extend_from_slice(typed);
            return;
        }
        for &b in typed {
            let b = if b == b'\r' { b'\n' } else { b };
            match self.mode {
                LineMode::Raw => guest.push(b),
                LineMode::Cooked => match b {
                    b'\n' => {
                        self.line.push(b'\n');
                        guest.append(&mut self.line);
                        echo.extend_from_slice(b"\r\n");
                    }
                    0x08 | 0x7f => {
                        if self.line.pop().is_some() {
                            echo.extend_from_slice(b"\x08 \x08");
                        }
                    }
                    _ => {
                        self.line.push(b);
                        echo.push(b);
                    }
                },
            }
        }
    }

    /// Guest output as the terminal should receive it.
    pub fn output(&self, bytes: &[u8], term: &mut Vec<u8>) {
        if !self.terminal {
            term.extend_from_slice(bytes);
            return;
        }
        for &b in bytes {
            if b == b'\n' {
                term.push(b'\r');
            }
            term.push(b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_terminal_maps_enter_and_newlines() {
        let mut d = Discipline::new(LineMode::Raw, true);
        let (mut guest, mut echo, mut term) = (Vec::new(), Vec::new(), Vec::new());
        d.input(b"a\rb", &mut guest, &mut echo);
        assert_eq!(guest, b"a\nb");
        assert!(echo.is_empty());
        d.output(b"x\ny", &mut term);
        assert_eq!(term, b"x\r\ny");
    }

    #[test]
    fn cooked_terminal_echoes_edits_and_delivers_lines() {
        let mut d = Discipline::new(LineMode::Cooked, true);
        let (mut guest, mut echo) = (Vec::new(), Vec::new());
        d.input(b"12\x7f3", &mut guest, &mut echo);
        assert!(guest.is_empty());
        d.input(b"\r", &mut guest, &mut echo);
        assert_eq!(guest, b"13\n");
        assert_eq!(echo, b"12\x08 \x083\r\n");
    }

    #[test]
    fn stdio_passes_bytes_through() {
        let mut d = Discipline::new(LineMode::Cooked, false);
        let (mut guest, mut echo, mut term) = (Vec::new(), Vec::new(), Vec::new());
        d.input(b"a\r\n", &mut guest, &mut echo);
        assert_eq!(guest, b"a\r\n");
        d.output(b"\n", &mut term);
        assert_eq!(term, b"\n");
        assert!(echo.is_empty());
    }
}
