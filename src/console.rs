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

pub use asmdbg_session::{Discipline, LineMode};

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
