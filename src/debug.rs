//! `asmdbg debug`: serve one machine to gdb over TCP while its console lives on a pty, stdio or
//! a loopback TCP port (host/console.rs).
//!
//! This file is the I/O around the session, nothing more: the TCP listener, a reader task per
//! connection, the console's channels and the timers. Every decision — framing, bursts, when
//! the guest may run, flow control, stops, who is refused — is made by
//! [`asmdbg_session::RspSession`] (session/src/), which this loop only tells what happened and
//! asks what to do next.

use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;

use asmdbg_core::gdb::{Debuggee, GdbMachine};
use asmdbg_core::CheckSet;
use asmdbg_session::{
    Admission, Discipline, LineMode, Poll, Refusal, RspSession, SessionEnd, PACKET_SIZE,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::sync::mpsc::error::{TryRecvError, TrySendError};

use crate::cli::DebugArgs;
use crate::display_view::FRAME_INTERVAL;
use crate::host::{
    self,
    console::{DisplayChannel, DisplayEvent, GuestConsole, Transport},
};
use crate::load::SetupError;
use crate::pokes;
use crate::screen::{self, Screen};

/// Pause after a failed accept (out of file descriptors), so the loop does not spin.
const ACCEPT_RETRY: Duration = Duration::from_millis(50);

/// A connection accepted from the listener.
type Client = (TcpStream, SocketAddr);

/// The session and the console it is wired to.
pub struct Session<G: GdbMachine> {
    core: RspSession<G>,
    console: GuestConsole,
    /// A debugger that connected while one was attached: served next if that one ends soon.
    parked: Option<Client>,
    /// The machine's display on its own channel, when it has one.
    display: Option<DisplayTerminal>,
    /// `--speed`, for the display's status line.
    pace: Option<u64>,
}

impl<G: GdbMachine> Session<G> {
    /// `frames`: the program's debug information, for the reverse motions by line.
    pub fn new(
        target: Debuggee<G>,
        console: GuestConsole,
        discipline: Discipline,
        frames: Option<asmdbg_core::elf::ElfDebug>,
    ) -> Self {
        let mut core = RspSession::new(target, discipline);
        if let Some(debug) = frames {
            core = core.with_frames(debug);
        }
        Session {
            core,
            console,
            parked: None,
            display: None,
            pace: None,
        }
    }

    /// Holds the running program to `per_second` instructions a second (`--speed`).
    pub fn with_pace(mut self, per_second: Option<u64>) -> Self {
        self.core = self.core.with_pace(per_second);
        self.pace = per_second;
        self
    }

    /// Draws the machine's display on `channel` (see [`DisplayTerminal`]).
    pub fn with_display(mut self, pty: DisplayChannel) -> Self {
        let mut display = DisplayTerminal::new(pty);
        display.pace = self.pace;
        self.display = Some(display);
        self
    }

    /// Something happened that may have changed what the display shows (a burst, a stop, a
    /// write by gdb, a move in history).
    fn display_changed(&mut self) {
        mark_changed(&mut self.display);
    }

    /// Keys held while in the past go in, and the display is drawn if it is time.
    fn display_tick(&mut self) {
        if let Some(display) = &mut self.display {
            display.release_keys(self.core.target_mut());
            display.draw(&self.core.target().machine, Instant::now());
        }
    }

    /// When the display is next to be drawn.
    fn display_due(&self) -> Option<Instant> {
        self.display.as_ref().and_then(DisplayTerminal::due)
    }

    /// Ends the session: the console gets the guest's last output.
    pub fn finish(mut self) {
        let last = self.core.take_all_output();
        self.console.finish(last, Duration::from_secs(2));
    }

    /// Serves connections from `listener` until one ends the process (`once`).
    pub async fn serve(&mut self, listener: TcpListener, once: bool) -> io::Result<()> {
        loop {
            let (stream, peer) = match self.parked.take() {
                Some(next) => next,
                None => match self.between_connections(&listener).await {
                    Some(client) => client,
                    None => continue,
                },
            };
            log::info!("gdb connected from {peer}");
            self.core.target_mut().set_peer(peer.ip().is_loopback());
            let end = self.connection(stream, &listener).await;
            self.send_output();
            log::info!("gdb session from {peer} ended: {end}");
            if once {
                return Ok(());
            }
        }
    }

    /// Waits for a connection while the console stays served (and, after gdb detached, the
    /// machine runs on); `None` when something else happened first.
    async fn between_connections(&mut self, listener: &TcpListener) -> Option<Client> {
        self.send_output();
        self.display_tick();
        let poll = self.core.poll(Instant::now());
        write_stderr(&poll);
        let display_due = self.display_due();
        if poll.run {
            // A burst unless a debugger, the user or the terminal is waiting: the ready
            // branch comes last in a biased select.
            tokio::select! {
                biased;
                accepted = listener.accept() => match accepted {
                    Ok(client) => return Some(client),
                    Err(e) => log::warn!("accepting a gdb connection failed: {e}"),
                },
                input = self.console.input.recv(), if poll.wants_input => console_input(&mut self.core, input),
                permit = self.console.output.reserve(), if poll.output_pending => console_output(&mut self.core, permit),
                event = display_event(&mut self.display) => on_display_event(&mut self.display, &mut self.core, event),
                _ = std::future::ready(()) => {
                    self.core.run_burst(Instant::now());
                    mark_changed(&mut self.display);
                }
            }
            tokio::task::yield_now().await;
            return None;
        }
        let deadline = poll.deadline.unwrap_or_else(Instant::now);
        tokio::select! {
            _ = tokio::time::sleep_until(deadline.into()), if poll.deadline.is_some() => {}
            accepted = listener.accept() => match accepted {
                Ok(client) => return Some(client),
                Err(e) => {
                    // Out of file descriptors, a connection reset before it was accepted: the
                    // listener is still good.
                    log::warn!("accepting a gdb connection failed: {e}");
                    tokio::time::sleep(ACCEPT_RETRY).await;
                }
            },
            input = self.console.input.recv(), if poll.wants_input => console_input(&mut self.core, input),
            permit = self.console.output.reserve(), if poll.output_pending => console_output(&mut self.core, permit),
            event = display_event(&mut self.display) => on_display_event(&mut self.display, &mut self.core, event),
            _ = sleep_until(display_due), if display_due.is_some() => {}
        }
        None
    }

    async fn connection(&mut self, stream: TcpStream, listener: &TcpListener) -> SessionEnd {
        let _ = stream.set_nodelay(true);
        let (mut rd, mut wr) = stream.into_split();
        let (gdb_tx, mut gdb_rx) = mpsc::channel::<Vec<u8>>(16);
        let reader = tokio::spawn(async move {
            let mut buf = vec![0u8; PACKET_SIZE];
            loop {
                match rd.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        if gdb_tx.send(buf[..n].to_vec()).await.is_err() {
                            break;
                        }
                    }
                }
            }
        });
        self.core.on_connect(Instant::now());
        let end = self.drive(&mut gdb_rx, &mut wr, listener).await;
        reader.abort();
        let _ = wr.shutdown().await;
        end
    }

    /// Moves bytes between the connection, the console and the session until the connection
    /// ends.
    async fn drive(
        &mut self,
        gdb_rx: &mut mpsc::Receiver<Vec<u8>>,
        wr: &mut tokio::net::tcp::OwnedWriteHalf,
        listener: &TcpListener,
    ) -> SessionEnd {
        loop {
            // Whatever arrived meanwhile is taken before the next burst.
            loop {
                match gdb_rx.try_recv() {
                    Ok(bytes) => {
                        self.core.on_bytes(&bytes, Instant::now());
                        self.display_changed();
                    }
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Disconnected) => {
                        self.core.on_connection_lost();
                        break;
                    }
                }
            }
            while self.core.wants_input() {
                match self.console.input.try_recv() {
                    Ok(input) => console_input(&mut self.core, Some(input)),
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Disconnected) => console_input(&mut self.core, None),
                }
            }
            self.send_output();
            let poll = self.core.poll(Instant::now());
            write_stderr(&poll);
            // After the poll: a stop it reported (and its memory) is what gets drawn.
            self.display_tick();
            if !poll.to_gdb.is_empty() && wr.write_all(&poll.to_gdb).await.is_err() {
                self.core.on_connection_lost();
                continue;
            }
            if let Some(refusal) = poll.refuse_parked {
                if let Some(client) = self.parked.take() {
                    tokio::spawn(refuse(client, refusal));
                }
            }
            if let Some(end) = poll.ended {
                return end;
            }
            if poll.run {
                self.core.run_burst(Instant::now());
                self.display_changed();
                tokio::task::yield_now().await;
                continue;
            }
            // Nothing to run: sleep until gdb, the user, the terminal or a deadline.
            let deadline = poll.deadline.unwrap_or_else(Instant::now);
            let display_due = self.display_due();
            tokio::select! {
                bytes = gdb_rx.recv() => match bytes {
                    Some(bytes) => {
                        self.core.on_bytes(&bytes, Instant::now());
                        mark_changed(&mut self.display);
                    }
                    None => self.core.on_connection_lost(),
                },
                event = display_event(&mut self.display) => on_display_event(&mut self.display, &mut self.core, event),
                _ = sleep_until(display_due), if display_due.is_some() => {}
                input = self.console.input.recv(), if poll.wants_input => console_input(&mut self.core, input),
                permit = self.console.output.reserve(), if poll.output_pending => console_output(&mut self.core, permit),
                accepted = listener.accept() => second_client(&mut self.core, &mut self.parked, accepted).await,
                _ = tokio::time::sleep_until(deadline.into()), if poll.deadline.is_some() => {}
            }
        }
    }

    /// Hands guest output to the console as far as it takes it without waiting.
    fn send_output(&mut self) {
        loop {
            match self.console.output.try_reserve() {
                Ok(permit) => match self.core.take_output_chunk() {
                    Some(chunk) => permit.send(chunk),
                    None => return,
                },
                Err(TrySendError::Full(())) => return,
                Err(TrySendError::Closed(())) => {
                    self.core.on_console_output_gone();
                    return;
                }
            }
        }
    }
}

/// The machine's display on its own pty (`asmdbg debug`): drawn whole when a terminal opens
/// the pty, then only what changed, after every change of the machine (a stop, a write, a move
/// in history: the frame is read from the machine each time, so the past shows its own frame)
/// and at most every [`FRAME_INTERVAL`] while it runs. Keys typed there go to the machine's
/// keyboard device ([`asmdbg_core::Machine::queue_key`]); typed while the machine is in its past, they wait
/// for it to be back at the end of its history, as console input does. Whatever the terminal
/// does (closes, stops reading) only loses drawings.
pub struct DisplayTerminal {
    pty: DisplayChannel,
    screen: Screen,
    /// The terminal's size the screen was laid out for.
    size: (u16, u16),
    /// A terminal has the pty open.
    attached: bool,
    /// Something may have changed the frame since the last drawing.
    changed: bool,
    last: Option<Instant>,
    /// Keys typed while the machine was in its past.
    held: Vec<u8>,
    /// The terminal was told it is too small (once per size).
    told_small: bool,
    /// `--speed`, for the status line.
    pace: Option<u64>,
    /// The status line on the terminal's last row, as last drawn.
    status: Option<String>,
}

/// The size assumed for a display pty whose size nobody set.
const DEFAULT_SIZE: (u16, u16) = (80, 24);

impl DisplayTerminal {
    fn new(pty: DisplayChannel) -> Self {
        DisplayTerminal {
            pty,
            screen: Screen::new(1, DEFAULT_SIZE.0, DEFAULT_SIZE.1 - 1),
            size: DEFAULT_SIZE,
            attached: false,
            changed: true,
            last: None,
            held: Vec::new(),
            told_small: false,
            pace: None,
            status: None,
        }
    }

    /// The status line: how the display is scaled, the pace, keys waiting for the end of the
    /// recording.
    fn status_text(&self, frame: &asmdbg_core::Frame) -> String {
        let mut text = screen::scale_text(frame, self.size.0, self.size.1.saturating_sub(1));
        if let Some(per_second) = self.pace {
            text.push_str(&format!(
                " · {} instructions a second",
                asmdbg_core::pace::describe(per_second)
            ));
        }
        match self.held.len() {
            0 => {}
            1 => text.push_str(" · a key typed in the past: the program gets it at the end of the recording"),
            n => text.push_str(&format!(
                " · {n} keys typed in the past: the program gets them one by one at the end of the recording"
            )),
        }
        text
    }

    /// When the next drawing is due, if one is.
    fn due(&self) -> Option<Instant> {
        (self.attached && self.changed).then(|| {
            self.last
                .map_or_else(Instant::now, |last| last + FRAME_INTERVAL)
        })
    }

    fn draw<G: GdbMachine>(&mut self, machine: &G, now: Instant) {
        let early = self.last.is_some_and(|last| last + FRAME_INTERVAL > now);
        if !self.attached || !self.changed || early {
            return;
        }
        self.last = Some(now);
        let size = self.pty.size().unwrap_or(DEFAULT_SIZE);
        if size != self.size {
            self.size = size;
            // The last row is the status line.
            self.screen = Screen::new(1, size.0, size.1.saturating_sub(1));
            self.told_small = false;
            self.status = None;
        }
        let mut bytes = Vec::new();
        if let Some(why) = screen::unfit_reason(
            Some("xterm"),
            Some("truecolor"),
            Some(size),
            "make it larger",
        ) {
            if !self.told_small {
                bytes.extend_from_slice(b"\x1b[0m\x1b[H\x1b[2J");
                bytes.extend_from_slice(why.as_bytes());
                bytes.extend_from_slice(b"\r\n");
                self.told_small = self.pty.send(bytes);
                self.screen.forget();
            }
            self.changed = false;
            return;
        }
        let Some(frame) = machine.frame() else {
            self.changed = false;
            return;
        };
        if self.screen.shown().is_none() {
            bytes.extend_from_slice(b"\x1b[0m\x1b[?25l\x1b[H\x1b[2J");
            self.status = None;
        }
        bytes.extend(self.screen.draw(&frame));
        let status = self.status_text(&frame);
        let new_status = self.status.as_deref() != Some(status.as_str());
        if new_status {
            bytes.extend(screen::status_line(&status, self.size.1, self.size.0));
        }
        if bytes.is_empty() || self.pty.send(bytes) {
            self.changed = false;
            if new_status {
                self.status = Some(status);
            }
        } else {
            // Dropped: the terminal no longer shows what the screen thinks; the next drawing
            // is whole.
            self.screen.forget();
        }
    }

    /// Keys typed while in the past are new input at the end of the recording: once the
    /// machine is back there they go in one at a time, each when the program has taken the one
    /// before (as typed live), so that none overwrites another on a one-key keyboard device.
    fn release_keys<G: GdbMachine>(&mut self, target: &mut Debuggee<G>) {
        if self.held.is_empty() {
            return;
        }
        let now = target.machine.instructions_executed();
        if target.history.as_ref().is_some_and(|h| h.in_past(now)) {
            return;
        }
        if target.machine.key_unread() {
            return;
        }
        let key = self.held.remove(0);
        target.machine.queue_key(key);
        self.changed = true;
    }
}

/// Something may have changed what the display shows.
fn mark_changed(display: &mut Option<DisplayTerminal>) {
    if let Some(display) = display {
        display.changed = true;
    }
}

/// The next event of the display's pty (never, without one).
async fn display_event(display: &mut Option<DisplayTerminal>) -> Option<DisplayEvent> {
    match display {
        Some(display) => display.pty.events.recv().await,
        None => std::future::pending().await,
    }
}

fn on_display_event<G: GdbMachine>(
    display: &mut Option<DisplayTerminal>,
    core: &mut RspSession<G>,
    event: Option<DisplayEvent>,
) {
    let Some(terminal) = display else {
        return;
    };
    match event {
        Some(DisplayEvent::Attached) => {
            terminal.attached = true;
            terminal.changed = true;
            terminal.screen.forget();
        }
        Some(DisplayEvent::Detached) => {
            terminal.attached = false;
            terminal.screen.forget();
        }
        Some(DisplayEvent::Keys(keys)) => {
            terminal.held.extend(keys);
            terminal.release_keys(core.target_mut());
        }
        None => {
            log::warn!("the display's pty is no longer watched: the display is not drawn any more");
            *display = None;
        }
    }
}

/// Sleeps until `at` (never, without it).
async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at.into()).await,
        None => std::future::pending().await,
    }
}

/// A connection while one is attached: parked for a handover or refused, as the session
/// decides.
async fn second_client<G: GdbMachine>(
    core: &mut RspSession<G>,
    parked: &mut Option<Client>,
    accepted: io::Result<Client>,
) {
    let client = match accepted {
        Ok(client) => client,
        Err(e) => {
            log::warn!("accepting a second gdb connection failed: {e}");
            tokio::time::sleep(ACCEPT_RETRY).await;
            return;
        }
    };
    match core.on_second_client(Instant::now()) {
        Admission::Park => *parked = Some(client),
        Admission::Refuse(refusal) => {
            tokio::spawn(refuse(client, refusal));
        }
    }
}

/// Console bytes typed by the user; `None` means the input ended.
fn console_input<G: GdbMachine>(core: &mut RspSession<G>, input: Option<Vec<u8>>) {
    match input {
        Some(bytes) => core.on_console_input(&bytes),
        None => core.on_console_input_end(),
    }
}

/// The terminal has room for output: one chunk of the guest's output goes to it.
fn console_output<G: GdbMachine>(
    core: &mut RspSession<G>,
    permit: Result<mpsc::Permit<'_, Vec<u8>>, mpsc::error::SendError<()>>,
) {
    match permit {
        Ok(permit) => {
            if let Some(chunk) = core.take_output_chunk() {
                permit.send(chunk);
            }
        }
        Err(_) => core.on_console_output_gone(),
    }
}

/// MARS's diagnostics go to asmdbg's own stderr.
fn write_stderr(poll: &Poll) {
    if !poll.diagnostics.is_empty() {
        use std::io::Write;
        let _ = std::io::stderr().write_all(&poll.diagnostics);
    }
}

/// Tells a second debugger that one is attached, then closes its connection.
async fn refuse((mut stream, peer): Client, mut refusal: Refusal) {
    log::warn!("refused a second gdb connection from {peer}: one is already attached");
    let patience = refusal.patience();
    let mut buf = [0u8; 1024];
    let _ = tokio::time::timeout(patience, async {
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if refusal.on_bytes(&buf[..n]) {
                        break;
                    }
                }
            }
        }
    })
    .await;
    let _ = stream.write_all(&refusal.answer()).await;
    let _ = stream.shutdown().await;
    // Let the peer read the answer before the socket goes away.
    let _ = tokio::time::timeout(patience, async {
        while let Ok(n) = stream.read(&mut buf).await {
            if n == 0 {
                break;
            }
        }
    })
    .await;
    drop(refusal);
}

/// Binds the listener and prints the readiness line (and the warning for non-loopback).
pub async fn listen(addr: SocketAddr) -> io::Result<TcpListener> {
    let listener = TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    eprintln!("gdb: listening on {local}");
    if !local.ip().is_loopback() {
        eprintln!(
            "warning: {local} is not a loopback address: anyone who can reach it can control this machine and read its memory"
        );
    }
    Ok(listener)
}

/// Writes the program's ELF for IDEs (beside the program, or `--elf PATH`) and names it for
/// gdb. A program without an ELF, or a directory that cannot be written, is still debuggable:
/// gdb then gets the image from memory under the same name.
fn exec_image(
    args: &DebugArgs,
    elf: Result<Vec<u8>, asmdbg_core::elf::ElfError>,
) -> Option<asmdbg_core::gdb::ExecImage> {
    let bytes = match elf {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("warning: no ELF for gdb: {e}");
            return None;
        }
    };
    let path = args
        .elf
        .clone()
        .or_else(|| args.machine.files.first().map(|f| f.with_extension("elf")))
        .unwrap_or_else(|| PathBuf::from("program.elf"));
    let on_disk = match std::fs::write(&path, &bytes) {
        Ok(()) => true,
        Err(e) => {
            eprintln!(
                "warning: cannot write {} ({e}); gdb still gets the ELF over the connection",
                path.display()
            );
            false
        }
    };
    let name = std::path::absolute(&path).unwrap_or(path);
    Some(asmdbg_core::gdb::ExecImage {
        name: name.display().to_string(),
        bytes,
        on_disk,
    })
}

/// The machine as `debug` and `dap` serve it: the `--poke`s applied (and kept, for `monitor
/// reset`), and history recorded from there unless `--no-history` (the pokes are part of the
/// start of history).
pub fn debuggee<G: asmdbg_core::gdb::GdbMachine>(
    mut machine: G,
    args: &DebugArgs,
) -> Result<asmdbg_core::gdb::Debuggee<G>, pokes::PokeError> {
    let written = pokes::apply_all(&mut machine, &args.machine.poke, &args.machine.poke_file)?;
    let mut debuggee = asmdbg_core::gdb::Debuggee::new(machine);
    debuggee.pokes = written;
    if !matches!(args.checks.as_str(), "off" | "none") {
        let set = CheckSet::parse(&args.checks).map_err(|_| pokes::PokeError::Syntax {
            arg: format!("--checks={}", args.checks),
            expected: "checks among callee-saved, return-address, uninitialised, stack and \
                       code-as-data, or off",
        })?;
        debuggee.enable_checks(set);
    }
    if !args.no_history {
        debuggee.record_history((args.history_mb as usize) << 20);
    }
    Ok(debuggee)
}

/// Serves one machine to gdb until the process is told to stop (`--once`) or killed.
pub fn serve<G: asmdbg_core::gdb::GdbMachine>(
    machine: G,
    args: &DebugArgs,
    line_mode: LineMode,
    elf: Result<Vec<u8>, asmdbg_core::elf::ElfError>,
    frames: Option<asmdbg_core::elf::ElfDebug>,
) -> anyhow::Result<ExitCode> {
    let mut debuggee = debuggee(machine, args).map_err(SetupError::from)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    // The ELF is on disk before the readiness line, so an IDE that starts gdb on seeing it
    // finds the file.
    let exec = exec_image(args, elf);
    runtime.block_on(async {
        let listener = listen(args.gdb)
            .await
            .with_context(|| format!("cannot listen on {}", args.gdb))?;
        let transport = args.console.transport();
        let guest_console = GuestConsole::open(transport)
            .with_context(|| format!("cannot open the console ({})", args.console))?;
        let discipline = Discipline::new(line_mode, guest_console.echoes);
        eprintln!("console: {}", guest_console.name);
        // The machine's display on a channel of its own (a pty, or a TCP port with a TCP
        // console or where there are no ptys), for `asmdbg console NAME` to view. Without one
        // the debugger still works: a warning says why.
        let display = if debuggee.machine.frame().is_some() {
            let transport = match transport {
                Transport::Tcp => Transport::Tcp,
                _ => host::DEFAULT_CONSOLE,
            };
            match DisplayChannel::open(transport) {
                Ok(channel) => {
                    eprintln!("display: {}", channel.name);
                    Some(channel)
                }
                Err(e) => {
                    eprintln!(
                        "warning: no channel for the display ({e}): use `monitor` or the IDE to see it"
                    );
                    None
                }
            }
        } else {
            None
        };
        debuggee.exec = exec;
        let mut session = Session::new(debuggee, guest_console, discipline, frames)
            .with_pace(args.machine.speed);
        if let Some(channel) = display {
            session = session.with_display(channel);
        }
        session.serve(listener, args.once).await?;
        session.finish();
        Ok(ExitCode::SUCCESS)
    })
}
