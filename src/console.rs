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

/// A new pseudo-terminal in raw mode (bytes pass unchanged both ways): its master and slave
/// sides and the slave's path.
fn raw_pty() -> io::Result<(File, OwnedFd, String)> {
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
    Ok((File::from(pty.master), pty.slave, name))
}

/// A new pseudo-terminal for the guest.
pub fn open_pty() -> io::Result<GuestConsole> {
    let (master, slave, name) = raw_pty()?;
    let reader = master.try_clone()?;
    let (in_tx, in_rx) = mpsc::channel(64);
    let (out_tx, out_rx) = mpsc::channel(OUTPUT_CHUNKS);
    spawn_reader(reader, in_tx, true);
    let writer = spawn_writer(master, out_rx);
    Ok(GuestConsole {
        input: in_rx,
        output: out_tx,
        name,
        _slave: Some(slave),
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

/// What happens on the display's pty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DisplayEvent {
    /// A terminal opened the pty (nobody had it open): it needs the whole frame.
    Attached,
    /// The last terminal closed it: nothing is drawn until one opens it again.
    Detached,
    /// Keys typed in the terminal.
    Keys(Vec<u8>),
}

/// Frames queued towards the display's terminal; when it does not keep up, drawings are
/// dropped and the next one is whole.
const DISPLAY_CHUNKS: usize = 4;

/// How often the display's pty is looked at while nobody has it open.
const DISPLAY_WATCH: Duration = Duration::from_millis(50);

/// A pseudo-terminal for the machine's display (`asmdbg debug`): whatever opens it (`asmdbg
/// console PATH`, a terminal emulator) sees the frame and sends keys.
///
/// Unlike the console's pty, asmdbg does not keep the slave side open: while nobody has it
/// open the master reports a hang-up, which is how a viewer's arrival and departure are seen
/// ([`DisplayEvent`]), and drawings are dropped rather than left in the pty for a later
/// viewer. Reading and writing are on their own threads, so a viewer that stops reading or goes
/// away never stalls the debugger.
pub struct DisplayPty {
    pub name: String,
    pub events: mpsc::Receiver<DisplayEvent>,
    drawings: mpsc::Sender<Vec<u8>>,
    /// The master side, for the terminal's size.
    master: File,
}

impl DisplayPty {
    pub fn open() -> io::Result<DisplayPty> {
        let (master, slave, name) = raw_pty()?;
        drop(slave);
        let attached = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (event_tx, events) = mpsc::channel(64);
        let (drawings, drawing_rx) = mpsc::channel(DISPLAY_CHUNKS);
        spawn_display_watcher(master.try_clone()?, event_tx, attached.clone());
        spawn_display_writer(master.try_clone()?, drawing_rx, attached);
        Ok(DisplayPty {
            name,
            events,
            drawings,
            master,
        })
    }

    /// The viewer's terminal size in columns and rows, if it was set (a pty's is 0 × 0 until
    /// someone sets it).
    pub fn size(&self) -> Option<(u16, u16)> {
        use std::os::fd::AsRawFd;
        crate::terminal::window_size(self.master.as_raw_fd()).filter(|&(c, r)| c > 0 && r > 0)
    }

    /// Hands a drawing to the writer without waiting: `false` when it was dropped (the viewer
    /// does not keep up, or the writer is gone).
    pub fn send(&self, bytes: Vec<u8>) -> bool {
        self.drawings.try_send(bytes).is_ok()
    }
}

/// Watches the master side: hang-ups (nobody has the slave open) and keys.
fn spawn_display_watcher(
    mut master: File,
    events: mpsc::Sender<DisplayEvent>,
    attached: std::sync::Arc<std::sync::atomic::AtomicBool>,
) {
    use std::os::fd::AsRawFd;
    use std::sync::atomic::Ordering;

    thread::spawn(move || {
        let mut buf = [0u8; 1024];
        let mut open = false;
        loop {
            let mut fd = libc::pollfd {
                fd: master.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd for a descriptor this thread keeps open.
            if unsafe { libc::poll(&mut fd, 1, 100) } < 0 {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                log::warn!("the display's pty cannot be watched: {e}");
                return;
            }
            let revents = fd.revents;
            let hung_up = revents & libc::POLLHUP != 0;
            if hung_up == open {
                open = !hung_up;
                attached.store(open, Ordering::SeqCst);
                let event = if open {
                    DisplayEvent::Attached
                } else {
                    DisplayEvent::Detached
                };
                log::info!("display pty: {event:?}");
                if events.blocking_send(event).is_err() {
                    return;
                }
            }
            if hung_up {
                thread::sleep(DISPLAY_WATCH);
                continue;
            }
            if revents & libc::POLLIN != 0 {
                match master.read(&mut buf) {
                    Ok(n) if n > 0 => {
                        if events
                            .blocking_send(DisplayEvent::Keys(buf[..n].to_vec()))
                            .is_err()
                        {
                            return;
                        }
                    }
                    // The viewer left between the poll and the read.
                    _ => thread::sleep(DISPLAY_WATCH),
                }
            }
        }
    });
}

/// Writes drawings while a viewer has the pty open; drops them otherwise.
fn spawn_display_writer(
    mut master: File,
    mut drawings: mpsc::Receiver<Vec<u8>>,
    attached: std::sync::Arc<std::sync::atomic::AtomicBool>,
) {
    thread::spawn(move || {
        while let Some(bytes) = drawings.blocking_recv() {
            if attached.load(std::sync::atomic::Ordering::SeqCst) {
                if let Err(e) = master.write_all(&bytes) {
                    log::info!("a drawing for the display's pty was lost: {e}");
                }
            }
        }
    });
}
