//! `asmdbg debug`: serve one machine to gdb over TCP while its console lives on a pty.
//!
//! One task owns the machine and gdbstub's state machine. It runs the cpu in bounded bursts
//! (so Ctrl-C and incoming packets are seen within about a millisecond), feeds received bytes
//! to gdbstub one at a time (a read can end a packet and carry a 0x03), and exchanges bytes
//! with the socket reader and the console threads through channels. A guest blocked on console
//! input is still "running" for gdb and honours Ctrl-C. After gdb detaches or the connection
//! drops, the machine keeps its state and the next connection is accepted.

use std::io;
use std::net::SocketAddr;
use std::time::Instant;

use asmdbg_core::gdb::{Debuggee, GdbMachine, ResumeMode};
use gdbstub::common::Signal;
use gdbstub::conn::Connection;
use gdbstub::stub::state_machine::GdbStubStateMachine;
use gdbstub::stub::{DisconnectReason, GdbStubBuilder, SingleThreadStopReason};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::sync::mpsc::error::{TryRecvError, TrySendError};

use crate::console::{Discipline, GuestConsole};

/// Instructions per burst: ~0.2-0.5 ms at full speed, which bounds Ctrl-C latency.
const BURST: u64 = 100_000;
/// gdb may send and receive packets this large (qSupported PacketSize).
const PACKET_SIZE: usize = 0x4000;
/// Guest output held back while the console does not keep up; the guest pauses past this.
const OUTPUT_BACKLOG: usize = 64 * 1024;

/// gdbstub writes replies here; the session sends them with one socket write per batch
/// (gdbstub's stock TcpStream connection makes a system call per byte).
#[derive(Default)]
pub struct BufConn(Vec<u8>);

impl Connection for BufConn {
    type Error = std::convert::Infallible;

    fn write(&mut self, byte: u8) -> Result<(), Self::Error> {
        self.0.push(byte);
        Ok(())
    }

    fn write_all(&mut self, buf: &[u8]) -> Result<(), Self::Error> {
        self.0.extend_from_slice(buf);
        Ok(())
    }

    fn flush(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

type Stub<'a, G> = GdbStubStateMachine<'a, Debuggee<G>, BufConn>;
type StubError =
    gdbstub::stub::GdbStubError<asmdbg_core::gdb::DebuggeeError, std::convert::Infallible>;

fn conn<'s, G: GdbMachine>(sm: &'s mut Stub<'_, G>) -> &'s mut BufConn {
    match sm {
        GdbStubStateMachine::Idle(g) => g.borrow_conn(),
        GdbStubStateMachine::Running(g) => g.borrow_conn(),
        GdbStubStateMachine::CtrlCInterrupt(g) => g.borrow_conn(),
        GdbStubStateMachine::Disconnected(g) => g.borrow_conn(),
    }
}

/// How one gdb connection ended.
#[derive(Debug)]
pub enum SessionEnd {
    /// gdb detached or killed the session, or the program exited.
    Protocol(DisconnectReason),
    /// The socket closed (gdb died, the network dropped).
    ConnectionLost,
    /// gdbstub could not go on (a packet it cannot handle); the machine is kept.
    StubError(String),
}

impl std::fmt::Display for SessionEnd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionEnd::Protocol(reason) => write!(f, "{reason:?}"),
            SessionEnd::ConnectionLost => f.write_str("connection lost"),
            SessionEnd::StubError(e) => write!(f, "protocol error: {e}"),
        }
    }
}

/// The machine, its console, and what the console has not taken yet.
pub struct Session<G: GdbMachine> {
    pub target: Debuggee<G>,
    console: GuestConsole,
    console_closed: bool,
    discipline: Discipline,
    /// Guest output the console has not accepted yet.
    backlog: Vec<u8>,
}

impl<G: GdbMachine> Session<G> {
    pub fn new(target: Debuggee<G>, console: GuestConsole, discipline: Discipline) -> Self {
        Session {
            target,
            console,
            console_closed: false,
            discipline,
            backlog: Vec::new(),
        }
    }

    /// Ends the session: the console gets the guest's last output.
    pub fn finish(mut self) {
        let mut last = std::mem::take(&mut self.backlog);
        let out = self.target.machine.console().take_output();
        self.discipline.output(&out, &mut last);
        let notes = std::mem::take(&mut self.target.console_notes);
        self.discipline.output(&notes, &mut last);
        self.console.finish(last, std::time::Duration::from_secs(2));
    }

    /// Serves connections from `listener` until one ends the process (`once`).
    pub async fn serve(&mut self, listener: TcpListener, once: bool) -> io::Result<()> {
        loop {
            let (stream, peer) = tokio::select! {
                accepted = listener.accept() => accepted?,
                input = self.console.input.recv(), if !self.console_closed => {
                    queue_input(&mut self.target, &mut self.discipline, &mut self.backlog, &mut self.console_closed, input);
                    continue;
                }
            };
            log::info!("gdb connected from {peer}");
            let end = self.session(stream, &listener).await;
            self.flush_console();
            log::info!("gdb session from {peer} ended: {end}");
            if once {
                return Ok(());
            }
        }
    }

    /// Moves guest output (and fault notes) towards the console without blocking.
    fn flush_console(&mut self) {
        let diagnostics = self.target.machine.take_host_stderr();
        if !diagnostics.is_empty() {
            use std::io::Write;
            let _ = std::io::stderr().write_all(&diagnostics);
        }
        let out = self.target.machine.console().take_output();
        self.discipline.output(&out, &mut self.backlog);
        let notes = std::mem::take(&mut self.target.console_notes);
        self.discipline.output(&notes, &mut self.backlog);
        if self.backlog.is_empty() {
            return;
        }
        match self
            .console
            .output
            .try_send(std::mem::take(&mut self.backlog))
        {
            Ok(()) => {}
            Err(TrySendError::Full(chunk)) => self.backlog = chunk,
            Err(TrySendError::Closed(_)) => {}
        }
    }

    async fn session(&mut self, stream: TcpStream, listener: &TcpListener) -> SessionEnd {
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
        let end = self.drive(&mut gdb_rx, &mut wr, listener).await;
        reader.abort();
        let _ = wr.shutdown().await;
        self.target.resume = None;
        end
    }

    async fn drive(
        &mut self,
        gdb_rx: &mut mpsc::Receiver<Vec<u8>>,
        wr: &mut tokio::net::tcp::OwnedWriteHalf,
        listener: &TcpListener,
    ) -> SessionEnd {
        let stub = match GdbStubBuilder::new(BufConn::default())
            .packet_buffer_size(PACKET_SIZE)
            .build()
        {
            Ok(stub) => stub,
            Err(e) => return SessionEnd::StubError(e.to_string()),
        };
        let mut sm: Stub<'_, G> = match stub.run_state_machine(&mut self.target) {
            Ok(sm) => sm,
            Err(e) => return SessionEnd::StubError(e.to_string()),
        };
        loop {
            let out = std::mem::take(&mut conn(&mut sm).0);
            if !out.is_empty() && wr.write_all(&out).await.is_err() {
                return SessionEnd::ConnectionLost;
            }
            let next = match sm {
                GdbStubStateMachine::Idle(g) => {
                    tokio::select! {
                        bytes = gdb_rx.recv() => match bytes {
                            Some(bytes) => feed(g.into(), &mut self.target, &bytes),
                            None => return SessionEnd::ConnectionLost,
                        },
                        input = self.console.input.recv(), if !self.console_closed => {
                            queue_input(&mut self.target, &mut self.discipline, &mut self.backlog, &mut self.console_closed, input);
                            Ok(g.into())
                        }
                        accepted = listener.accept() => {
                            refuse_second_client(accepted).await;
                            Ok(g.into())
                        }
                    }
                }
                GdbStubStateMachine::Running(g) => self.running(g, gdb_rx, listener).await,
                GdbStubStateMachine::CtrlCInterrupt(g) => g
                    .interrupt_handled(&mut self.target, Some(interrupted()))
                    .map_err(Step::from),
                GdbStubStateMachine::Disconnected(g) => {
                    return SessionEnd::Protocol(g.get_reason());
                }
            };
            sm = match next {
                Ok(sm) => sm,
                Err(Step::Lost) => return SessionEnd::ConnectionLost,
                Err(Step::Stub(e)) => return SessionEnd::StubError(e),
            };
        }
    }

    /// One turn of a running machine: take gdb bytes and console input, then run a burst (or a
    /// single step), unless the guest waits for input or its output is not being read.
    async fn running<'a>(
        &mut self,
        g: gdbstub::stub::state_machine::GdbStubStateMachineInner<
            'a,
            gdbstub::stub::state_machine::state::Running,
            Debuggee<G>,
            BufConn,
        >,
        gdb_rx: &mut mpsc::Receiver<Vec<u8>>,
        listener: &TcpListener,
    ) -> Result<Stub<'a, G>, Step> {
        match gdb_rx.try_recv() {
            Ok(bytes) => return feed(g.into(), &mut self.target, &bytes),
            Err(TryRecvError::Disconnected) => return Err(Step::Lost),
            Err(TryRecvError::Empty) => {}
        }
        while let Ok(input) = self.console.input.try_recv() {
            queue_input(
                &mut self.target,
                &mut self.discipline,
                &mut self.backlog,
                &mut self.console_closed,
                Some(input),
            );
        }
        self.flush_console();

        let console = self.target.machine.console();
        let starved = console.waiting() && console.pending_input() == 0;
        let blocked = self.backlog.len() >= OUTPUT_BACKLOG;
        if starved || blocked {
            // Nothing to run: sleep until gdb, the user or the terminal does something.
            tokio::select! {
                bytes = gdb_rx.recv() => return match bytes {
                    Some(bytes) => feed(g.into(), &mut self.target, &bytes),
                    None => Err(Step::Lost),
                },
                input = self.console.input.recv(), if starved && !self.console_closed => {
                    queue_input(&mut self.target, &mut self.discipline, &mut self.backlog, &mut self.console_closed, input);
                }
                permit = self.console.output.reserve(), if !self.backlog.is_empty() => {
                    if let Ok(permit) = permit {
                        permit.send(std::mem::take(&mut self.backlog));
                    } else {
                        self.backlog.clear();
                    }
                }
                accepted = listener.accept() => refuse_second_client(accepted).await,
            }
            return Ok(g.into());
        }

        let stepping = self.target.resume == Some(ResumeMode::Step);
        let started = Instant::now();
        let before = self.target.machine.instructions_executed();
        let event = if stepping {
            self.target.machine.step()
        } else {
            self.target.machine.run(BURST).stop
        };
        self.target.stats.executed += self
            .target
            .machine
            .instructions_executed()
            .saturating_sub(before);
        self.target.stats.busy += started.elapsed();
        match self.target.stop_reason(event, stepping) {
            Some(reason) => {
                self.target.resume = None;
                self.flush_console();
                g.report_stop(&mut self.target, reason)
                    .map_err(|e| Step::Stub(e.to_string()))
            }
            None => {
                tokio::task::yield_now().await;
                Ok(g.into())
            }
        }
    }
}

/// Console bytes typed by the user go to the guest; `None` means the input ended.
fn queue_input<G: GdbMachine>(
    target: &mut Debuggee<G>,
    discipline: &mut Discipline,
    echo: &mut Vec<u8>,
    closed: &mut bool,
    input: Option<Vec<u8>>,
) {
    match input {
        Some(bytes) => {
            let mut guest = Vec::new();
            discipline.input(&bytes, &mut guest, echo);
            target.machine.console().push_input(&guest);
        }
        None => {
            *closed = true;
            target.machine.console().close_input();
        }
    }
}

/// Why a session turn could not go on.
enum Step {
    Lost,
    Stub(String),
}

impl From<StubError> for Step {
    fn from(e: StubError) -> Self {
        Step::Stub(e.to_string())
    }
}

fn interrupted<U>() -> SingleThreadStopReason<U> {
    SingleThreadStopReason::Signal(Signal::SIGINT)
}

/// Feeds bytes to gdbstub one at a time, handling an interrupt as soon as it appears.
fn feed<'a, G: GdbMachine>(
    mut sm: Stub<'a, G>,
    target: &mut Debuggee<G>,
    bytes: &[u8],
) -> Result<Stub<'a, G>, Step> {
    for &byte in bytes {
        sm = match sm {
            GdbStubStateMachine::Idle(g) => g.incoming_data(target, byte)?,
            GdbStubStateMachine::Running(g) => g.incoming_data(target, byte)?,
            GdbStubStateMachine::CtrlCInterrupt(g) => {
                match g.interrupt_handled(target, Some(interrupted()))? {
                    GdbStubStateMachine::Idle(g) => g.incoming_data(target, byte)?,
                    GdbStubStateMachine::Running(g) => g.incoming_data(target, byte)?,
                    other => other,
                }
            }
            GdbStubStateMachine::Disconnected(g) => return Ok(g.into()),
        };
        if let GdbStubStateMachine::CtrlCInterrupt(g) = sm {
            target.resume = None;
            sm = g.interrupt_handled(target, Some(interrupted()))?;
        }
    }
    Ok(sm)
}

/// A second debugger while one is attached: tell it plainly and close.
async fn refuse_second_client(accepted: io::Result<(TcpStream, SocketAddr)>) {
    if let Ok((mut stream, peer)) = accepted {
        log::warn!("refused a second gdb connection from {peer}: one is already attached");
        // An RSP error reply gdb prints as the reason the connection failed.
        let text = "another debugger is already attached to this asmdbg";
        let packet = rsp_packet(&format!("E.{text}"));
        let _ = stream.write_all(packet.as_bytes()).await;
        let _ = stream.shutdown().await;
    }
}

/// `$payload#checksum`.
pub fn rsp_packet(payload: &str) -> String {
    let sum = payload.bytes().fold(0u8, |a, b| a.wrapping_add(b));
    format!("${payload}#{sum:02x}")
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packets_carry_their_checksum() {
        assert_eq!(rsp_packet("OK"), "$OK#9a");
        assert_eq!(rsp_packet(""), "$#00");
    }
}
