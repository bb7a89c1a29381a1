//! `asmdbg debug`: serve one machine to gdb over TCP while its console lives on a pty.
//!
//! This file is the I/O around the session, nothing more: the TCP listener, a reader task per
//! connection, the console's channels and the timers. Every decision — framing, bursts, when
//! the guest may run, flow control, stops, who is refused — is made by
//! [`asmdbg_session::RspSession`] (session/src/), which this loop only tells what happened and
//! asks what to do next.

use std::io;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use asmdbg_core::gdb::{Debuggee, GdbMachine};
use asmdbg_session::{Admission, Discipline, Poll, Refusal, RspSession, SessionEnd, PACKET_SIZE};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::sync::mpsc::error::{TryRecvError, TrySendError};

use crate::console::GuestConsole;

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
}

impl<G: GdbMachine> Session<G> {
    pub fn new(target: Debuggee<G>, console: GuestConsole, discipline: Discipline) -> Self {
        Session {
            core: RspSession::new(target, discipline),
            console,
            parked: None,
        }
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
        let poll = self.core.poll(Instant::now());
        write_stderr(&poll);
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
                _ = std::future::ready(()) => self.core.run_burst(Instant::now()),
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
                    Ok(bytes) => self.core.on_bytes(&bytes, Instant::now()),
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
                tokio::task::yield_now().await;
                continue;
            }
            // Nothing to run: sleep until gdb, the user, the terminal or a deadline.
            let deadline = poll.deadline.unwrap_or_else(Instant::now);
            tokio::select! {
                bytes = gdb_rx.recv() => match bytes {
                    Some(bytes) => self.core.on_bytes(&bytes, Instant::now()),
                    None => self.core.on_connection_lost(),
                },
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
