//! The guest's console while it runs under the debugger, and the channel of the machine's
//! display: a pseudo-terminal (Unix), this process's stdin/stdout, or a loopback TCP port
//! (every OS; `console: 127.0.0.1:PORT`, attached with `asmdbg console 127.0.0.1:PORT`).
//!
//! Reading and writing happen on their own threads and reach the session through channels, so
//! a terminal that stops reading can never stall the debugger, and a terminal that detaches
//! does not make anything spin. A console whose terminal is away holds the guest's output (its
//! channel fills and the session pauses the guest, as a pty nobody reads does) until one
//! attaches; a display draws for nobody while nobody looks.

use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::Duration;

use tokio::sync::mpsc;

use super::{os, telnet};

/// Guest output chunks buffered towards a terminal before the guest is paused; bounds memory
/// when nobody reads the console.
const OUTPUT_CHUNKS: usize = 64;

/// Frames queued towards the display's terminal; when it does not keep up, drawings are
/// dropped and the next one is whole.
pub(super) const DISPLAY_CHUNKS: usize = 4;

/// How often the display's pty is looked at while nobody has it open.
pub(super) const DISPLAY_WATCH: Duration = Duration::from_millis(50);

/// The parts of a display channel (made by a transport): its name, its events, where drawings
/// go, and the viewer's terminal size.
pub(super) type DisplayParts = (
    String,
    mpsc::Receiver<DisplayEvent>,
    mpsc::Sender<Vec<u8>>,
    Box<dyn Fn() -> Option<(u16, u16)> + Send>,
);

/// Sets the size of a pty that `asmdbg console` attached to.
pub(super) type SetSize = Box<dyn Fn((u16, u16)) + Send>;

/// Where a console (or display) goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// A new pseudo-terminal, named by its path (Unix only).
    Pty,
    /// This process's stdin and stdout.
    Stdio,
    /// A port on the loopback interface, named `127.0.0.1:PORT`.
    Tcp,
}

/// The two directions of a guest console.
pub struct GuestConsole {
    /// Bytes typed by the user. `None` from `recv` means the input ended (stdin closed).
    pub input: mpsc::Receiver<Vec<u8>>,
    /// Bytes for the user (bounded: `try_send` fails when the terminal does not keep up).
    pub output: mpsc::Sender<Vec<u8>>,
    /// What the readiness line names: the pty's path, `stdio` or the TCP address.
    pub name: String,
    /// Echo what the user types: a pty or a TCP console is raw, with nobody else to echo.
    pub echoes: bool,
    /// Kept open for the whole session (the pty's slave side).
    _keep: Option<Box<dyn Send>>,
    writer: Option<thread::JoinHandle<()>>,
}

impl GuestConsole {
    /// A new console of the kind asked for.
    pub fn open(transport: Transport) -> io::Result<GuestConsole> {
        match transport {
            Transport::Pty => {
                let (reader, writer, slave, name) = os::console_pty()?;
                Ok(GuestConsole::new(
                    reader,
                    writer,
                    name,
                    Some(Box::new(slave)),
                    true,
                ))
            }
            Transport::Stdio => Ok(GuestConsole::new(
                io::stdin(),
                io::stdout(),
                "stdio".to_string(),
                None,
                false,
            )),
            Transport::Tcp => tcp_console(),
        }
    }

    fn new(
        reader: impl Read + Send + 'static,
        writer: impl Write + Send + 'static,
        name: String,
        keep: Option<Box<dyn Send>>,
        echoes: bool,
    ) -> GuestConsole {
        let (in_tx, input) = mpsc::channel(64);
        let (output, out_rx) = mpsc::channel(OUTPUT_CHUNKS);
        // A pty's master reads nothing (or EIO) while no terminal holds it: retry, never end.
        spawn_reader(reader, in_tx, keep.is_some());
        let writer = spawn_writer(writer, out_rx);
        GuestConsole {
            input,
            output,
            name,
            echoes,
            _keep: keep,
            writer: Some(writer),
        }
    }

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

/// A listener on a free loopback port, and its `127.0.0.1:PORT` name.
fn loopback_listener() -> io::Result<(TcpListener, String)> {
    let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))?;
    let name = listener.local_addr()?.to_string();
    Ok((listener, name))
}

/// The terminal attached to a TCP console or display: the latest connection (a terminal that
/// attaches replaces one that may have died without a word).
#[derive(Default)]
struct Attached {
    stream: Mutex<(Option<TcpStream>, u64)>,
    changed: Condvar,
}

impl Attached {
    /// A new terminal; the one before it (if any) is let go. Its number, to tell it from later
    /// ones when it leaves.
    fn attach(&self, stream: TcpStream) -> u64 {
        let mut current = self.stream.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(old) = current.0.take() {
            let _ = old.shutdown(std::net::Shutdown::Both);
        }
        current.1 += 1;
        current.0 = Some(stream);
        self.changed.notify_all();
        current.1
    }

    /// Terminal `number` left (if it is still the one attached).
    fn detach(&self, number: u64) -> bool {
        let mut current = self.stream.lock().unwrap_or_else(|e| e.into_inner());
        if current.1 != number || current.0.is_none() {
            return false;
        }
        current.0 = None;
        true
    }

    /// Writes `bytes` to the attached terminal; `wait`: until one is attached (and again if it
    /// leaves before taking them), otherwise they are dropped when nobody is.
    fn write(&self, bytes: &[u8], wait: bool) -> bool {
        loop {
            let stream = {
                let mut current = self.stream.lock().unwrap_or_else(|e| e.into_inner());
                while wait && current.0.is_none() {
                    current = self
                        .changed
                        .wait(current)
                        .unwrap_or_else(|e| e.into_inner());
                }
                match current.0.as_ref().map(TcpStream::try_clone) {
                    Some(Ok(stream)) => stream,
                    _ => return false,
                }
            };
            if (&stream).write_all(bytes).is_ok() {
                return true;
            }
            if !wait {
                return false;
            }
            // That terminal went away: the bytes wait for the next one.
            thread::sleep(DISPLAY_WATCH);
        }
    }
}

/// The guest's console on a loopback TCP port: what the attached terminal sends is the guest's
/// input; the guest's output waits for a terminal.
fn tcp_console() -> io::Result<GuestConsole> {
    let (listener, name) = loopback_listener()?;
    let attached = Arc::new(Attached::default());
    let (in_tx, input) = mpsc::channel(64);
    let (output, mut out_rx) = mpsc::channel::<Vec<u8>>(OUTPUT_CHUNKS);
    let readers = attached.clone();
    thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let Ok(mut reader) = stream.try_clone() else {
                continue;
            };
            log::info!("a terminal attached to the console");
            let number = readers.attach(stream);
            let (tx, readers) = (in_tx.clone(), readers.clone());
            thread::spawn(move || {
                let mut buf = vec![0u8; 16 * 1024];
                while let Ok(n) = reader.read(&mut buf) {
                    if n == 0 || tx.blocking_send(buf[..n].to_vec()).is_err() {
                        break;
                    }
                }
                readers.detach(number);
            });
        }
    });
    let writers = attached.clone();
    let writer = thread::spawn(move || {
        while let Some(chunk) = out_rx.blocking_recv() {
            writers.write(&chunk, true);
        }
    });
    Ok(GuestConsole {
        input,
        output,
        name,
        echoes: true,
        _keep: None,
        writer: Some(writer),
    })
}

/// What happens on the display's channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DisplayEvent {
    /// A terminal attached (nobody had been): it needs the whole frame.
    Attached,
    /// The terminal went away: nothing is drawn until one attaches again.
    Detached,
    /// Keys typed in the terminal.
    Keys(Vec<u8>),
}

/// The machine's display under the debugger, for `asmdbg console NAME` (or a terminal
/// emulator, or a telnet client) to view: it sees the frame and sends keys.
pub struct DisplayChannel {
    pub name: String,
    pub events: mpsc::Receiver<DisplayEvent>,
    drawings: mpsc::Sender<Vec<u8>>,
    size: Box<dyn Fn() -> Option<(u16, u16)> + Send>,
}

impl DisplayChannel {
    /// A pty (Unix) or a loopback TCP port.
    pub fn open(transport: Transport) -> io::Result<DisplayChannel> {
        let (name, events, drawings, size) = match transport {
            Transport::Pty => os::display_pty()?,
            Transport::Tcp => tcp_display()?,
            Transport::Stdio => {
                return Err(io::Error::new(
                    io::ErrorKind::Unsupported,
                    "the display has no stdio channel",
                ))
            }
        };
        Ok(DisplayChannel {
            name,
            events,
            drawings,
            size,
        })
    }

    /// The viewer's terminal size in columns and rows, if it told it.
    pub fn size(&self) -> Option<(u16, u16)> {
        (self.size)()
    }

    /// Hands a drawing to the writer without waiting: `false` when it was dropped (the viewer
    /// does not keep up, or the writer is gone).
    pub fn send(&self, bytes: Vec<u8>) -> bool {
        self.drawings.try_send(bytes).is_ok()
    }
}

/// The display on a loopback TCP port: one viewer at a time (a new one replaces the last), its
/// size told as telnet tells it (telnet.rs).
fn tcp_display() -> io::Result<DisplayParts> {
    let (listener, name) = loopback_listener()?;
    let attached = Arc::new(Attached::default());
    let size = Arc::new(Mutex::new(None));
    let (events_tx, events) = mpsc::channel(64);
    let (drawings, mut drawing_rx) = mpsc::channel::<Vec<u8>>(DISPLAY_CHUNKS);
    let (viewers, told) = (attached.clone(), size.clone());
    thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            if stream.write_all(&telnet::ASK_SIZE).is_err() {
                continue;
            }
            let Ok(mut reader) = stream.try_clone() else {
                continue;
            };
            *told.lock().unwrap_or_else(|e| e.into_inner()) = None;
            let number = viewers.attach(stream);
            if events_tx.blocking_send(DisplayEvent::Attached).is_err() {
                return;
            }
            let (events, viewers, told) = (events_tx.clone(), viewers.clone(), told.clone());
            thread::spawn(move || {
                let mut viewer = telnet::ViewerBytes::default();
                let mut buf = [0u8; 1024];
                while let Ok(n) = reader.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    let (keys, size) = viewer.take(&buf[..n]);
                    if let Some(size) = size {
                        *told.lock().unwrap_or_else(|e| e.into_inner()) = Some(size);
                        // Laid out anew for the new size: as for a new viewer.
                        if events.blocking_send(DisplayEvent::Attached).is_err() {
                            return;
                        }
                    }
                    if !keys.is_empty() && events.blocking_send(DisplayEvent::Keys(keys)).is_err() {
                        return;
                    }
                }
                if viewers.detach(number) {
                    let _ = events.blocking_send(DisplayEvent::Detached);
                }
            });
        }
    });
    thread::spawn(move || {
        while let Some(bytes) = drawing_rx.blocking_recv() {
            attached.write(&bytes, false);
        }
    });
    let size = Box::new(move || {
        let told = *size.lock().unwrap_or_else(|e| e.into_inner());
        told.filter(|&(c, r): &(u16, u16)| c > 0 && r > 0)
    });
    Ok((name, events, drawings, size))
}

/// `asmdbg console TARGET`: this terminal becomes the program's console (or the display's
/// viewer), TARGET being what `asmdbg debug` printed — a pty's path or `127.0.0.1:PORT` — until
/// either side ends. Keys go to the program as they are typed; the program (or asmdbg) echoes
/// them.
pub fn attach(target: &str) -> io::Result<()> {
    let (from, to, resize): (Box<dyn Read + Send>, Box<dyn Write + Send>, Option<Resize>) =
        match target.parse::<SocketAddr>() {
            Ok(addr) => {
                let stream = TcpStream::connect(addr)?;
                stream.set_nodelay(true)?;
                let reader = stream.try_clone()?;
                let resize = stream.try_clone()?;
                let resize = tcp_resize(resize);
                (Box::new(reader), Box::new(stream), Some(resize))
            }
            Err(_) => {
                let (pty, resize) = os::open_console_pty(target).map_err(|e| {
                    io::Error::new(
                        e.kind(),
                        format!("{e} (the console is {})", os::CONSOLE_TARGETS),
                    )
                })?;
                (
                    Box::new(pty.try_clone()?),
                    Box::new(pty),
                    Some(Resize::Always(resize)),
                )
            }
        };
    let keys = super::KeyMode::enter()?;
    let on_terminal = super::stdout_is_terminal();
    if on_terminal {
        // A display's drawings hide the cursor: it comes back however this ends.
        super::restore_screen_with(Some(SHOW_CURSOR));
    }
    let reader = spawn_shower(from, resize.filter(|_| on_terminal));
    let mut to = to;
    thread::spawn(move || {
        let mut buf = [0u8; 4096];
        let mut input = super::TypedKeys::new(io::stdin());
        while let Ok(n) = input.read(&mut buf) {
            if n == 0 || to.write_all(&buf[..n]).and_then(|_| to.flush()).is_err() {
                break;
            }
        }
    });
    // The program's side closes the pty (or the connection) when the debug session ends.
    let _ = reader.join();
    if on_terminal {
        super::restore_screen_with(None);
        // Colours off, the cursor shown, on a line of its own.
        let mut out = super::TerminalOutput::new(io::stdout());
        let _ = out.write_all(SHOW_CURSOR).and_then(|_| out.flush());
    }
    drop(keys);
    Ok(())
}

/// What gives `asmdbg console`'s terminal back after drawings: colours off, the cursor shown,
/// on a line of its own.
const SHOW_CURSOR: &[u8] = b"\x1b[0m\x1b[?25h\r\n";

/// How the viewer's window size reaches the program's side.
enum Resize {
    /// A pty: its size is set, always.
    Always(SetSize),
    /// A TCP display asks for it (telnet.rs); the first size answers, later ones follow.
    Asked(Box<dyn Fn((u16, u16), bool) + Send>),
}

fn tcp_resize(stream: TcpStream) -> Resize {
    Resize::Asked(Box::new(move |size, first| {
        let _ = (&stream).write_all(&telnet::tell_size(size, first));
    }))
}

/// Shows what the program's side sends, and keeps the far side's size this terminal's: now,
/// and whenever the window changes (looked at four times a second). A TCP channel's size is
/// told only when it asks (the display's does, the console's does not).
fn spawn_shower(mut from: Box<dyn Read + Send>, resize: Option<Resize>) -> thread::JoinHandle<()> {
    let asked = Arc::new(std::sync::atomic::AtomicBool::new(false));
    if let Some(resize) = resize {
        let asked = asked.clone();
        thread::spawn(move || follow_window_size(resize, &asked));
    }
    thread::spawn(move || {
        let mut buf = [0u8; 4096];
        let mut out = super::TerminalOutput::new(io::stdout());
        let mut first = true;
        while let Ok(n) = from.read(&mut buf) {
            if n == 0 {
                break;
            }
            let mut shown = &buf[..n];
            if first {
                first = false;
                if let Some(rest) = shown.strip_prefix(&telnet::ASK_SIZE[..]) {
                    asked.store(true, std::sync::atomic::Ordering::SeqCst);
                    shown = rest;
                }
            }
            if out.write_all(shown).and_then(|_| out.flush()).is_err() {
                break;
            }
        }
    })
}

fn follow_window_size(resize: Resize, asked: &std::sync::atomic::AtomicBool) {
    let mut last = None;
    loop {
        let size = super::window_size();
        if let Some(size) = size.filter(|&s| Some(s) != last) {
            match &resize {
                Resize::Always(set) => set(size),
                Resize::Asked(tell) if asked.load(std::sync::atomic::Ordering::SeqCst) => {
                    tell(size, last.is_none())
                }
                Resize::Asked(_) => {
                    thread::sleep(Duration::from_millis(50));
                    continue;
                }
            }
            last = Some(size);
        }
        thread::sleep(Duration::from_millis(250));
    }
}
