//! The guest's console while it runs under the debugger: a pseudo-terminal (default) or this
//! process's stdin/stdout. Reading and writing happen on their own threads and reach the
//! session through channels, so a terminal that stops reading can never stall the debugger,
//! and a terminal that detaches does not make anything spin (we keep our own handle on the
//! pty's slave side open, so the master never sees end-of-file or EIO).

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::OwnedFd;
use std::thread;
use std::time::Duration;

use tokio::sync::mpsc;

/// Guest output chunks buffered towards a terminal before the guest is paused; bounds memory
/// when nobody reads the console.
const OUTPUT_CHUNKS: usize = 64;

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

/// The two directions of a guest console.
pub struct GuestConsole {
    /// Bytes typed by the user. `None` from `recv` means the input ended (stdin closed).
    pub input: mpsc::Receiver<Vec<u8>>,
    /// Bytes for the user (bounded: `try_send` fails when the terminal does not keep up).
    pub output: mpsc::Sender<Vec<u8>>,
    /// What the readiness line names: the pty's path or `stdio`.
    pub name: String,
    /// Keeps the pty's slave side open for the whole session.
    _slave: Option<OwnedFd>,
    writer: Option<thread::JoinHandle<()>>,
}

impl GuestConsole {
    /// Hands the last output to the terminal and waits (at most `limit`) until it is written,
    /// so a guest's final words are not lost when asmdbg exits.
    pub fn finish(mut self, last: Vec<u8>, limit: Duration) {
        if !last.is_empty() {
            let _ = self.output.try_send(last);
        }
        let (tx, _) = mpsc::channel(1);
        drop(std::mem::replace(&mut self.output, tx));
        if let Some(writer) = self.writer.take() {
            let deadline = std::time::Instant::now() + limit;
            while !writer.is_finished() && std::time::Instant::now() < deadline {
                thread::sleep(Duration::from_millis(5));
            }
        }
    }
}

fn spawn_reader(mut source: impl Read + Send + 'static, tx: mpsc::Sender<Vec<u8>>, retry: bool) {
    thread::spawn(move || {
        let mut buf = vec![0u8; 16 * 1024];
        loop {
            match source.read(&mut buf) {
                Ok(0) if !retry => return,
                Ok(0) => thread::sleep(Duration::from_millis(50)),
                Ok(n) => {
                    if tx.blocking_send(buf[..n].to_vec()).is_err() {
                        return;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                // A pty master reports EIO while no terminal holds the slave open (cannot
                // happen while we keep ours, but never spin on it).
                Err(_) if retry => thread::sleep(Duration::from_millis(50)),
                Err(_) => return,
            }
        }
    });
}

fn spawn_writer(
    mut sink: impl Write + Send + 'static,
    mut rx: mpsc::Receiver<Vec<u8>>,
) -> thread::JoinHandle<()> {
    thread::spawn(move || {
        while let Some(chunk) = rx.blocking_recv() {
            if sink.write_all(&chunk).and_then(|_| sink.flush()).is_err() {
                // Keep draining so the session never blocks on a dead terminal.
                continue;
            }
        }
    })
}

/// A new pseudo-terminal for the guest.
pub fn open_pty() -> io::Result<GuestConsole> {
    use nix::pty::openpty;
    use nix::sys::termios::{self, SetArg};

    let pty = openpty(None, None).map_err(io::Error::from)?;
    let name = nix::unistd::ttyname(&pty.slave)
        .map_err(io::Error::from)?
        .display()
        .to_string();
    let mut attrs = termios::tcgetattr(&pty.slave).map_err(io::Error::from)?;
    termios::cfmakeraw(&mut attrs);
    termios::tcsetattr(&pty.slave, SetArg::TCSANOW, &attrs).map_err(io::Error::from)?;

    let master = File::from(pty.master);
    let reader = master.try_clone()?;
    let (in_tx, in_rx) = mpsc::channel(64);
    let (out_tx, out_rx) = mpsc::channel(OUTPUT_CHUNKS);
    spawn_reader(reader, in_tx, true);
    let writer = spawn_writer(master, out_rx);
    Ok(GuestConsole {
        input: in_rx,
        output: out_tx,
        name,
        _slave: Some(pty.slave),
        writer: Some(writer),
    })
}

/// This process's stdin and stdout as the guest's console.
pub fn stdio() -> GuestConsole {
    let (in_tx, in_rx) = mpsc::channel(64);
    let (out_tx, out_rx) = mpsc::channel(OUTPUT_CHUNKS);
    spawn_reader(io::stdin(), in_tx, false);
    let writer = spawn_writer(io::stdout(), out_rx);
    GuestConsole {
        input: in_rx,
        output: out_tx,
        name: "stdio".to_string(),
        _slave: None,
        writer: Some(writer),
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
