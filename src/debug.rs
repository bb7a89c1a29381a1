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
use std::time::{Duration, Instant};

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
/// A burst runs in slices of this many instructions and ends early once the guest has written
/// more than OUTPUT_BACKLOG bytes, so one burst of MARS's print-string in a loop builds up a few
/// megabytes at most (not hundreds) and Ctrl-C latency stays in milliseconds.
const SLICE: u64 = 1024;
/// Guest output goes to the console in chunks of at most this size, so the bounded channel
/// bounds bytes, not just chunks.
const CHUNK: usize = 16 * 1024;
/// Pause after a failed accept (out of file descriptors), so the loop does not spin.
const ACCEPT_RETRY: Duration = Duration::from_millis(50);
/// Refusals that may wait for their client's first packet at once; past this a second
/// debugger is refused without waiting, so a flood of connections cannot pin descriptors.
const PATIENT_REFUSALS: usize = 8;
/// How long a new connection waits for the attached one to turn out closed (a debugger that
/// reconnects at once) before it is refused as a second debugger.
const HANDOVER_GRACE: Duration = Duration::from_millis(200);
/// gdb may send and receive packets this large (qSupported PacketSize).
const PACKET_SIZE: usize = 0x4000;
/// Guest output held back while the console does not keep up; the guest pauses past this.
const OUTPUT_BACKLOG: usize = 64 * 1024;
/// Typed bytes queued for a guest that does not read them; past this the console is not read
/// (the terminal's writes block, as on a real serial line) so a huge paste cannot grow memory.
const INPUT_BACKLOG: usize = 1 << 20;

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
    /// Packet framing of the current connection.
    framer: Framer,
    /// A debugger that connected as the attached one went away: served next.
    next_client: Option<(TcpStream, SocketAddr)>,
}

impl<G: GdbMachine> Session<G> {
    pub fn new(target: Debuggee<G>, console: GuestConsole, discipline: Discipline) -> Self {
        Session {
            target,
            console,
            console_closed: false,
            discipline,
            backlog: Vec::new(),
            framer: Framer::default(),
            next_client: None,
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
            let (stream, peer) = match self.next_client.take() {
                Some(next) => next,
                None => tokio::select! {
                    accepted = listener.accept() => match accepted {
                        Ok(client) => client,
                        Err(e) => {
                            // Out of file descriptors, a connection reset before it was
                            // accepted: the listener is still good.
                            log::warn!("accepting a gdb connection failed: {e}");
                            tokio::time::sleep(ACCEPT_RETRY).await;
                            continue;
                        }
                    },
                    input = self.console.input.recv(), if self.takes_input() => {
                        queue_input(&mut self.target, &mut self.discipline, &mut self.backlog, &mut self.console_closed, input);
                        continue;
                    }
                },
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

    /// Whether typed bytes are taken from the console now (it is open and the guest's queue is
    /// not full).
    fn takes_input(&mut self) -> bool {
        !self.console_closed && self.target.machine.console().pending_input() < INPUT_BACKLOG
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
        while !self.backlog.is_empty() {
            match self.console.output.try_send(next_chunk(&mut self.backlog)) {
                Ok(()) => {}
                Err(TrySendError::Full(mut chunk)) => {
                    chunk.append(&mut self.backlog);
                    self.backlog = chunk;
                    return;
                }
                Err(TrySendError::Closed(_)) => {
                    self.backlog.clear();
                    return;
                }
            }
        }
    }

    async fn session(&mut self, stream: TcpStream, listener: &TcpListener) -> SessionEnd {
        let _ = stream.set_nodelay(true);
        self.framer = Framer::default();
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
                            Some(bytes) => receive(g.into(), &mut self.target, &mut self.framer, &bytes),
                            None => return SessionEnd::ConnectionLost,
                        },
                        input = self.console.input.recv(), if self.takes_input() => {
                            queue_input(&mut self.target, &mut self.discipline, &mut self.backlog, &mut self.console_closed, input);
                            Ok(g.into())
                        }
                        accepted = listener.accept() => {
                            second_client(accepted, gdb_rx, &mut self.next_client).await;
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
            Ok(bytes) => return receive(g.into(), &mut self.target, &mut self.framer, &bytes),
            Err(TryRecvError::Disconnected) => return Err(Step::Lost),
            Err(TryRecvError::Empty) => {}
        }
        while self.takes_input() {
            let Ok(input) = self.console.input.try_recv() else {
                break;
            };
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
        // A guest in a real-time sleep (MARS syscall 32) runs nothing until it wakes.
        let wake = self
            .target
            .machine
            .wake_time()
            .filter(|&w| w > Instant::now());
        if starved || blocked || wake.is_some() {
            // Nothing to run: sleep until gdb, the user or the terminal does something.
            tokio::select! {
                bytes = gdb_rx.recv() => return match bytes {
                    Some(bytes) => receive(g.into(), &mut self.target, &mut self.framer, &bytes),
                    None => Err(Step::Lost),
                },
                input = self.console.input.recv(), if starved && !self.console_closed => {
                    queue_input(&mut self.target, &mut self.discipline, &mut self.backlog, &mut self.console_closed, input);
                }
                permit = self.console.output.reserve(), if !self.backlog.is_empty() => {
                    if let Ok(permit) = permit {
                        permit.send(next_chunk(&mut self.backlog));
                    } else {
                        self.backlog.clear();
                    }
                }
                accepted = listener.accept() => second_client(accepted, gdb_rx, &mut self.next_client).await,
                _ = tokio::time::sleep_until(wake.unwrap_or_else(Instant::now).into()), if wake.is_some() => {}
            }
            return Ok(g.into());
        }

        let stepping = self.target.resume == Some(ResumeMode::Step);
        let started = Instant::now();
        let before = self.target.machine.instructions_executed();
        let event = if stepping {
            self.target.machine.step()
        } else {
            self.burst()
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

impl<G: GdbMachine> Session<G> {
    /// Runs up to BURST instructions in slices, ending early when the guest has written a lot.
    fn burst(&mut self) -> Option<asmdbg_core::StopEvent> {
        let mut left = BURST;
        while left > 0 {
            let slice = left.min(SLICE);
            let outcome = self.target.machine.run(slice);
            if outcome.stop.is_some() {
                return outcome.stop;
            }
            // A run that ends early without a stop (a guest's sleep began) hands control back.
            if outcome.executed < slice {
                break;
            }
            left -= slice;
            if self.target.machine.console().output().len() > OUTPUT_BACKLOG {
                break;
            }
        }
        None
    }
}

/// The first CHUNK bytes of `backlog` (all of it when shorter), taken out of it.
fn next_chunk(backlog: &mut Vec<u8>) -> Vec<u8> {
    if backlog.len() <= CHUNK {
        std::mem::take(backlog)
    } else {
        // A fresh allocation of CHUNK bytes: a chunk that kept the backlog's capacity would
        // park megabytes in the channel.
        backlog.drain(..CHUNK).collect()
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
            target.machine.queue_input(&guest);
        }
        None => {
            *closed = true;
            target.machine.end_input();
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

/// What arrives from gdb after framing: a checksum-valid packet or an interrupt for gdbstub, or
/// an answer the session gives itself.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    /// `$...#xx` with a correct checksum, or the single byte 0x03.
    Feed(Vec<u8>),
    /// A packet that cannot be served (bad checksum, too long): this goes back to gdb.
    Reply(Vec<u8>),
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum FrameState {
    #[default]
    Between,
    Body,
    Checksum1,
    Checksum2,
}

/// Frames the byte stream from gdb before gdbstub sees it. gdbstub ends the session on any
/// byte outside a packet other than `$`, `+` and 0x03, on a bad checksum, on a `-` and on a
/// packet longer than its buffer; a debugger on a noisy line or a client that sends garbage
/// must keep its session instead. Acks are dropped here (asmdbg never resends).
#[derive(Debug, Default)]
pub struct Framer {
    state: FrameState,
    packet: Vec<u8>,
    /// The packet grew past the buffer: its bytes are skipped up to its checksum.
    oversized: bool,
    /// gdb switched acknowledgements off (replayed when gdbstub is restarted).
    pub no_ack: bool,
    /// Bytes dropped, for the log.
    pub dropped: u64,
    /// Packets gdbstub failed on in this connection.
    recoveries: u32,
}

/// `-`: the packet arrived damaged; in acknowledgement mode gdb sends it again.
const NACK: &[u8] = b"-";

impl Framer {
    /// Splits `bytes` into frames, keeping an unfinished packet for the next call.
    pub fn push(&mut self, bytes: &[u8], frames: &mut Vec<Frame>) {
        for &b in bytes {
            match self.state {
                FrameState::Between => match b {
                    b'$' => {
                        self.packet.clear();
                        self.packet.push(b);
                        self.oversized = false;
                        self.state = FrameState::Body;
                    }
                    0x03 => frames.push(Frame::Feed(vec![b])),
                    b'+' => {}
                    _ => self.dropped += 1,
                },
                FrameState::Body => {
                    if b == b'#' {
                        self.state = FrameState::Checksum1;
                    }
                    self.keep(b);
                }
                FrameState::Checksum1 => {
                    self.keep(b);
                    self.state = FrameState::Checksum2;
                }
                FrameState::Checksum2 => {
                    self.keep(b);
                    self.state = FrameState::Between;
                    frames.push(self.finish());
                }
            }
        }
    }

    fn keep(&mut self, b: u8) {
        // Room for the checksum gdbstub's buffer must also hold.
        if self.packet.len() < PACKET_SIZE {
            self.packet.push(b);
        } else {
            self.oversized = true;
        }
    }

    fn finish(&mut self) -> Frame {
        let packet = std::mem::take(&mut self.packet);
        if self.oversized {
            self.dropped += packet.len() as u64;
            log::warn!("gdb sent a packet longer than {PACKET_SIZE} bytes; answered E01");
            return Frame::Reply(rsp_packet("E01").into_bytes());
        }
        let n = packet.len();
        let payload = &packet[1..n - 3];
        let sum = payload.iter().fold(0u8, |a, &b| a.wrapping_add(b));
        let given = std::str::from_utf8(&packet[n - 2..])
            .ok()
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        if given != Some(sum) {
            self.dropped += n as u64;
            if self.no_ack {
                // Without acknowledgements gdb will not resend: answer the packet it thinks it
                // sent with an error instead of a `-` it does not expect.
                log::warn!("gdb sent a packet with a bad checksum; answered E01");
                return Frame::Reply(rsp_packet("E01").into_bytes());
            }
            log::warn!("gdb sent a packet with a bad checksum; asked for it again");
            return Frame::Reply(NACK.to_vec());
        }
        if payload == b"QStartNoAckMode" {
            self.no_ack = true;
        }
        Frame::Feed(packet)
    }
}

/// Protocol errors one connection may recover from before asmdbg gives up on it.
const MAX_RECOVERIES: u32 = 1000;

/// Frames `bytes` and feeds the packets to gdbstub. A packet gdbstub cannot parse or serve
/// ends its state machine; a fresh one takes over the same connection (acknowledgement mode
/// and a pending resume replayed), and gdb gets an error reply instead of a closed socket.
fn receive<'a, G: GdbMachine>(
    mut sm: Stub<'a, G>,
    target: &mut Debuggee<G>,
    framer: &mut Framer,
    bytes: &[u8],
) -> Result<Stub<'a, G>, Step> {
    let mut frames = Vec::new();
    framer.push(bytes, &mut frames);
    for frame in frames {
        let packet = match frame {
            Frame::Reply(reply) => {
                conn(&mut sm).0.extend_from_slice(&reply);
                continue;
            }
            Frame::Feed(packet) => packet,
        };
        let resume = target.resume;
        sm = match feed(sm, target, &packet) {
            Ok(sm) => sm,
            Err(Step::Stub(e)) if framer.recoveries < MAX_RECOVERIES => {
                framer.recoveries += 1;
                log::warn!(
                    "gdb packet {:?} failed ({e}); the session goes on",
                    String::from_utf8_lossy(&packet[..packet.len().min(64)])
                );
                let mut sm = restart(target, framer.no_ack, resume)?;
                let out = &mut conn(&mut sm).0;
                // The failed state machine's `+` for this packet went with it.
                if !framer.no_ack {
                    out.push(b'+');
                }
                if resume.is_none() {
                    out.extend_from_slice(rsp_packet("E01").as_bytes());
                }
                sm
            }
            Err(e) => return Err(e),
        };
    }
    Ok(sm)
}

/// A new gdbstub state machine for a connection that is already set up: acknowledgements as
/// gdb negotiated them, and running again if gdb had resumed the machine.
fn restart<'a, G: GdbMachine>(
    target: &mut Debuggee<G>,
    no_ack: bool,
    resume: Option<ResumeMode>,
) -> Result<Stub<'a, G>, Step> {
    let stub = GdbStubBuilder::new(BufConn::default())
        .packet_buffer_size(PACKET_SIZE)
        .build()
        .map_err(|e| Step::Stub(e.to_string()))?;
    let mut sm = stub.run_state_machine(target)?;
    if no_ack {
        sm = feed(sm, target, rsp_packet("QStartNoAckMode").as_bytes())?;
    }
    match resume {
        Some(ResumeMode::Continue) => sm = feed(sm, target, rsp_packet("vCont;c").as_bytes())?,
        Some(ResumeMode::Step) => sm = feed(sm, target, rsp_packet("vCont;s").as_bytes())?,
        None => {}
    }
    conn(&mut sm).0.clear();
    Ok(sm)
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

/// A connection while one is attached. A debugger that reconnects right after its old
/// connection dropped is served next (`next`) rather than refused, even when the old socket's
/// end has not been read yet; a real second debugger is refused.
async fn second_client(
    accepted: io::Result<(TcpStream, SocketAddr)>,
    gdb_rx: &mpsc::Receiver<Vec<u8>>,
    next: &mut Option<(TcpStream, SocketAddr)>,
) {
    let (stream, peer) = match accepted {
        Ok(client) => client,
        Err(e) => {
            log::warn!("accepting a second gdb connection failed: {e}");
            tokio::time::sleep(ACCEPT_RETRY).await;
            return;
        }
    };
    let deadline = Instant::now() + HANDOVER_GRACE;
    while !gdb_rx.is_closed() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    if gdb_rx.is_closed() && next.is_none() {
        *next = Some((stream, peer));
    } else {
        tokio::spawn(refuse_second_client(stream, peer));
    }
}

/// The refusal a second debugger gets.
pub const REFUSAL: &str = "another debugger is already attached to this asmdbg";

/// Whether `bytes` hold a whole `$...#xx` packet.
fn has_packet(bytes: &[u8]) -> bool {
    let Some(start) = bytes.iter().position(|&b| b == b'$') else {
        return false;
    };
    bytes[start..]
        .iter()
        .position(|&b| b == b'#')
        .is_some_and(|hash| start + hash + 3 <= bytes.len())
}

/// A second debugger while one is attached: tell it plainly and close. gdb sends its first
/// packet right after connecting; the answer waits for it, so gdb reads the refusal as the
/// reply to `qSupported` (and prints it) instead of failing on a reset connection.
async fn refuse_second_client(mut stream: TcpStream, peer: SocketAddr) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static WAITING: AtomicUsize = AtomicUsize::new(0);
    log::warn!("refused a second gdb connection from {peer}: one is already attached");
    let patience = if WAITING.fetch_add(1, Ordering::Relaxed) < PATIENT_REFUSALS {
        Duration::from_secs(2)
    } else {
        Duration::ZERO
    };
    let mut seen = Vec::new();
    let mut buf = [0u8; 1024];
    let _ = tokio::time::timeout(patience, async {
        while !has_packet(&seen) {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => seen.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    let ack = if has_packet(&seen) { "+" } else { "" };
    let reply = format!("{ack}{}", rsp_packet(&format!("E.{REFUSAL}")));
    let _ = stream.write_all(reply.as_bytes()).await;
    let _ = stream.shutdown().await;
    // Let the peer read the reply before the socket goes away.
    let _ = tokio::time::timeout(patience, async {
        while let Ok(n) = stream.read(&mut buf).await {
            if n == 0 {
                break;
            }
        }
    })
    .await;
    WAITING.fetch_sub(1, Ordering::Relaxed);
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

    fn frames(framer: &mut Framer, bytes: &[u8]) -> Vec<Frame> {
        let mut out = Vec::new();
        framer.push(bytes, &mut out);
        out
    }

    #[test]
    fn framer_passes_valid_packets_and_interrupts_across_reads() {
        let mut f = Framer::default();
        assert_eq!(frames(&mut f, b"+$g#6"), vec![]);
        assert_eq!(
            frames(&mut f, b"7\x03$?#3f"),
            vec![
                Frame::Feed(b"$g#67".to_vec()),
                Frame::Feed(vec![0x03]),
                Frame::Feed(b"$?#3f".to_vec()),
            ]
        );
        assert_eq!(f.dropped, 0);
        assert!(!f.no_ack);
        let noack = rsp_packet("QStartNoAckMode");
        assert_eq!(
            frames(&mut f, noack.as_bytes()),
            vec![Frame::Feed(noack.into_bytes())]
        );
        assert!(f.no_ack);
    }

    #[test]
    fn framer_drops_garbage_and_nacks_bad_checksums() {
        let mut f = Framer::default();
        assert_eq!(
            frames(&mut f, b"hello-\xff$g#00$g#zz$m0,4#fd"),
            vec![
                Frame::Reply(b"-".to_vec()),
                Frame::Reply(b"-".to_vec()),
                Frame::Feed(b"$m0,4#fd".to_vec()),
            ]
        );
        assert_eq!(f.dropped, 7 + 5 + 5);
    }

    #[test]
    fn framer_answers_bad_checksums_with_an_error_once_acks_are_off() {
        let mut f = Framer::default();
        let _ = frames(&mut f, b"$QStartNoAckMode#b0");
        assert_eq!(
            frames(&mut f, b"$g#00"),
            vec![Frame::Reply(rsp_packet("E01").into_bytes())]
        );
    }

    #[test]
    fn framer_answers_an_oversized_packet_with_an_error_and_goes_on() {
        let mut f = Framer::default();
        let mut huge = vec![b'$'];
        huge.extend(std::iter::repeat(b'M').take(3 * PACKET_SIZE));
        huge.extend_from_slice(b"#00$g#67");
        assert_eq!(
            frames(&mut f, &huge),
            vec![
                Frame::Reply(rsp_packet("E01").into_bytes()),
                Frame::Feed(b"$g#67".to_vec()),
            ]
        );
    }

    #[test]
    fn output_goes_out_in_bounded_chunks() {
        let mut backlog: Vec<u8> = (0..CHUNK * 2 + 5).map(|i| i as u8).collect();
        let first = next_chunk(&mut backlog);
        assert_eq!(first.len(), CHUNK);
        assert!(first.capacity() < 2 * CHUNK, "no hidden megabytes");
        assert_eq!(first[1], 1);
        assert_eq!(backlog.len(), CHUNK + 5);
        assert_eq!(backlog[0], CHUNK as u8);
        assert_eq!(next_chunk(&mut backlog).len(), CHUNK);
        assert_eq!(next_chunk(&mut backlog).len(), 5);
        assert!(backlog.is_empty());
    }

    #[test]
    fn a_packet_is_whole_with_its_checksum() {
        assert!(has_packet(b"+$qSupported:x#12"));
        assert!(!has_packet(b"+$qSupported:x#1"));
        assert!(!has_packet(b"+"));
    }

    #[test]
    fn packets_carry_their_checksum() {
        assert_eq!(rsp_packet("OK"), "$OK#9a");
        assert_eq!(rsp_packet(""), "$#00");
    }
}
