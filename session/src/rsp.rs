//! [`RspSession`]: one machine served to one gdb connection at a time, as a state machine.
//!
//! The caller reports what happened (`on_connect`, `on_bytes`, `on_connection_lost`,
//! `on_console_input`, ...) and asks [`RspSession::poll`] what to do next: the bytes for gdb,
//! whether to run a burst, until when nothing needs doing, whether console input is wanted, and
//! whether the connection ended. [`RspSession::run_burst`] runs the machine for a bounded burst
//! (so Ctrl-C and incoming packets are seen within about a millisecond); console output is
//! taken in bounded chunks with [`RspSession::take_output_chunk`], and a guest whose output is
//! not taken pauses. A guest blocked on console input is still running for gdb and honours
//! Ctrl-C. After a connection ends the machine keeps its state for the next one: stopped, if
//! the connection was lost or gdb killed the session; running on, if gdb detached (as
//! gdbserver and QEMU let a detached program run), until the program ends or the next
//! debugger attaches and finds it stopped where it got to.

use std::time::Instant;

use asmdbg_core::gdb::{Debuggee, DebuggeeError, GdbMachine, ResumeMode};
use asmdbg_core::StopEvent;
use gdbstub::arch::Arch;
use gdbstub::common::Signal;
use gdbstub::conn::Connection;
use gdbstub::stub::state_machine::GdbStubStateMachine;
use gdbstub::stub::{DisconnectReason, GdbStubBuilder, SingleThreadStopReason};
use gdbstub::target::ext::base::reverse_exec::ReplayLogPosition;

use crate::arch_check::{self, ArchCheck};
use crate::core::{Reversed, RunCore};
use crate::discipline::Discipline;
use crate::framer::{rsp_packet, Frame, Framer, PACKET_SIZE};
use crate::frames::FrameFacts;
use crate::refusal::{Admission, Refusal, Refusals, HANDOVER_GRACE};
use crate::reverse::{Outcome, ReverseMotion, Way};

/// gdb's console, at the first reverse motion of a MIPS session without the helper script.
const HELPERS_HINT: &str = "asmdbg: gdb has not loaded the helper script in the program's ELF \
(gdb declines it until the ELF's folder is in its auto-load safe-path: add \
`add-auto-load-safe-path FOLDER` to ~/.config/gdb/gdbinit). Without it, gdb's own reverse-next, \
reverse-step and reverse-finish on MIPS can stop inside a called function; reverse-stepi and \
reverse-continue are right either way.\n";

/// Protocol errors one connection may recover from before the session gives up on it.
const MAX_RECOVERIES: u32 = 1000;

/// gdbstub writes replies here; the caller sends them with one write per batch (gdbstub's
/// stock TcpStream connection makes a system call per byte).
#[derive(Default)]
struct BufConn(Vec<u8>);

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

type Stub<G> = GdbStubStateMachine<'static, Debuggee<G>, BufConn>;
/// What gdb is told when the machine stops.
type StopReason<G> = SingleThreadStopReason<<<G as GdbMachine>::Arch as Arch>::Usize>;
type StubError = gdbstub::stub::GdbStubError<DebuggeeError, std::convert::Infallible>;

fn conn<G: GdbMachine>(sm: &mut Stub<G>) -> &mut BufConn {
    match sm {
        GdbStubStateMachine::Idle(g) => g.borrow_conn(),
        GdbStubStateMachine::Running(g) => g.borrow_conn(),
        GdbStubStateMachine::CtrlCInterrupt(g) => g.borrow_conn(),
        GdbStubStateMachine::Disconnected(g) => g.borrow_conn(),
    }
}

/// How one gdb connection ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionEnd {
    /// gdb detached or killed the session, or the program exited.
    Protocol(DisconnectReason),
    /// The connection closed (gdb died, the network dropped).
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

/// What the caller should do next, from [`RspSession::poll`].
#[derive(Debug, Default)]
pub struct Poll {
    /// Bytes for gdb, to be written before anything else happens.
    pub to_gdb: Vec<u8>,
    /// What the machine wrote for the host's stderr (MARS's diagnostics).
    pub diagnostics: Vec<u8>,
    /// The machine is running and can run: call [`RspSession::run_burst`] (after taking any
    /// bytes that arrived meanwhile), without waiting.
    pub run: bool,
    /// Nothing needs doing before this time unless something arrives (a sleeping guest wakes,
    /// a parked connection's grace ends). `None`: wait for an arrival only.
    pub deadline: Option<Instant>,
    /// Console input is wanted now (the console is open and the guest's queue is not full).
    pub wants_input: bool,
    /// Console output waits in [`RspSession::take_output_chunk`].
    pub output_pending: bool,
    /// The running guest is paused because its output is not being taken.
    pub output_blocked: bool,
    /// The parked connection did not turn into a handover: refuse it with this.
    pub refuse_parked: Option<Refusal>,
    /// The connection ended; a parked connection, if any, is the next one to serve.
    pub ended: Option<SessionEnd>,
}

/// The attached connection: gdbstub's state machine and the framing of its byte stream.
struct Attached<G: GdbMachine> {
    sm: Stub<G>,
    framer: Framer,
    arch: ArchCheck,
}

/// One machine under gdb's control, with its console, served to one connection at a time.
pub struct RspSession<G: GdbMachine> {
    core: RunCore<G>,
    attached: Option<Attached<G>>,
    /// How the attached connection ended, reported by the next poll.
    end: Option<SessionEnd>,
    /// A connection parked for a handover, and when its grace ends.
    parked_until: Option<Instant>,
    refusals: Refusals,
    /// gdb detached: the machine runs with no debugger until it ends or one attaches.
    free_running: bool,
    /// asmdbg's own lines for its stderr (how a detached run ended), for the next poll.
    notices: Vec<u8>,
    /// This connection was told that gdb's own reverse motions need the helper script.
    helpers_hint_given: bool,
    /// The program's frames and lines (for the reverse motions by line).
    facts: Option<FrameFacts>,
    /// The reverse motion by line a `bs` is running (armed by `monitor asmdbg-reverse`).
    reverse: Option<ReverseMotion>,
}

impl<G: GdbMachine> RspSession<G> {
    pub fn new(mut target: Debuggee<G>, discipline: Discipline) -> Self {
        target.served_to_gdb = true;
        RspSession {
            core: RunCore::new(target, discipline),
            attached: None,
            end: None,
            parked_until: None,
            refusals: Refusals::default(),
            free_running: false,
            notices: Vec::new(),
            helpers_hint_given: false,
            facts: None,
            reverse: None,
        }
    }

    /// The program's debug information: the helper script's reverse motions by line
    /// (reverse.rs) follow its frames and lines.
    pub fn with_frames(mut self, debug: asmdbg_core::elf::ElfDebug) -> Self {
        self.facts = Some(FrameFacts::new(debug));
        self
    }

    /// Instructions per burst (default [`BURST`](crate::BURST)); the fuzz harness uses short bursts.
    pub fn with_burst(mut self, instructions: u64) -> Self {
        self.core.set_burst(instructions);
        self
    }

    /// Holds the running program to `per_second` instructions a second (`--speed`).
    pub fn with_pace(mut self, per_second: Option<u64>) -> Self {
        if let Some(per_second) = per_second {
            self.core.set_pace(per_second);
        }
        self
    }

    pub fn target(&self) -> &Debuggee<G> {
        &self.core.target
    }

    pub fn target_mut(&mut self) -> &mut Debuggee<G> {
        &mut self.core.target
    }

    /// Whether a connection is attached.
    pub fn attached(&self) -> bool {
        self.attached.is_some()
    }

    /// Whether the machine runs on after gdb detached, with no debugger attached.
    pub fn free_running(&self) -> bool {
        self.free_running
    }

    /// A new connection is served (any previous one counts as lost).
    pub fn on_connect(&mut self, _now: Instant) {
        // A detached run stops here: gdb finds the machine where it got to.
        self.free_running = false;
        self.attached = None;
        self.end = None;
        self.core.target.helpers_loaded = false;
        self.core.target.gdb_watched = false;
        self.core.target.slips_told.clear();
        self.helpers_hint_given = false;
        self.parked_until = None;
        let built = GdbStubBuilder::new(BufConn::default())
            .packet_buffer_size(PACKET_SIZE)
            .build()
            .map_err(|e| e.to_string())
            .and_then(|stub| {
                stub.run_state_machine(&mut self.core.target)
                    .map_err(|e| e.to_string())
            });
        match built {
            Ok(sm) => {
                self.attached = Some(Attached {
                    sm,
                    framer: Framer::default(),
                    arch: ArchCheck::default(),
                })
            }
            Err(e) => self.end = Some(SessionEnd::StubError(e)),
        }
    }

    /// Bytes from gdb, as they were read (a read may end one packet, carry a 0x03 and start
    /// the next).
    pub fn on_bytes(&mut self, bytes: &[u8], _now: Instant) {
        let Some(Attached {
            sm,
            mut framer,
            mut arch,
        }) = self.attached.take()
        else {
            return;
        };
        let received = receive(sm, &mut self.core.target, &mut framer, &mut arch, bytes);
        match received {
            Ok(sm) => self.attached = Some(Attached { sm, framer, arch }),
            Err(e) => self.end = Some(SessionEnd::StubError(e)),
        }
    }

    /// The connection closed or cannot be written any more.
    pub fn on_connection_lost(&mut self) {
        if let Some(attached) = self.attached.take() {
            if attached.arch.hung_up_after_first_register_read() {
                let xml = self.core.target.machine.target_xml();
                let name = asmdbg_core::gdb::architecture(xml).unwrap_or("its");
                let isa = self.core.target.machine.isa();
                self.notices
                    .extend_from_slice(arch_check::notice(name, isa.name()).as_bytes());
            }
            self.end = Some(SessionEnd::ConnectionLost);
        }
    }

    /// Another connection arrived while one is attached.
    pub fn on_second_client(&mut self, now: Instant) -> Admission {
        if self.parked_until.is_some() {
            return Admission::Refuse(self.refusals.refuse());
        }
        self.parked_until = Some(now + HANDOVER_GRACE);
        Admission::Park
    }

    /// Bytes the user typed on the console.
    pub fn on_console_input(&mut self, typed: &[u8]) {
        self.core.on_console_input(typed);
    }

    /// The console's input ended (stdin closed).
    pub fn on_console_input_end(&mut self) {
        self.core.on_console_input_end();
    }

    /// Nobody will take console output any more: it is dropped from now on.
    pub fn on_console_output_gone(&mut self) {
        self.core.on_console_output_gone();
    }

    /// The next chunk of console output (at most [`CHUNK`](crate::CHUNK) bytes), if any.
    pub fn take_output_chunk(&mut self) -> Option<Vec<u8>> {
        self.core.take_output_chunk()
    }

    /// Everything the console has not taken, for the last write when asmdbg ends.
    pub fn take_all_output(&mut self) -> Vec<u8> {
        self.core.take_all_output()
    }

    /// Whether console input is wanted now.
    pub fn wants_input(&self) -> bool {
        self.core.wants_input()
    }

    /// What to do next (see [`Poll`]). An ended connection is reported once; the machine then
    /// waits, stopped, for the next one.
    pub fn poll(&mut self, now: Instant) -> Poll {
        self.core.settle();
        let mut poll = Poll {
            diagnostics: self.core.target.machine.take_host_stderr(),
            ..Poll::default()
        };
        poll.diagnostics.append(&mut self.notices);
        if let Some(mut attached) = self.attached.take() {
            poll.to_gdb = std::mem::take(&mut conn(&mut attached.sm).0);
            match settle(attached.sm, &mut self.core.target) {
                Ok(GdbStubStateMachine::Disconnected(g)) => {
                    self.end = Some(SessionEnd::Protocol(g.get_reason()));
                }
                Ok(mut sm) => {
                    poll.to_gdb.append(&mut conn(&mut sm).0);
                    self.attached = Some(Attached {
                        sm,
                        framer: attached.framer,
                        arch: attached.arch,
                    });
                }
                Err(e) => self.end = Some(SessionEnd::StubError(e)),
            }
        }
        if let Some(end) = self.end.take() {
            self.attached = None;
            self.parked_until = None;
            self.core.target.resume = None;
            if end == SessionEnd::Protocol(DisconnectReason::Disconnect) {
                self.run_detached();
            }
            poll.ended = Some(end);
        }
        poll.wants_input = self.wants_input();
        poll.output_pending = self.core.output_pending();
        if let Some(until) = self.parked_until {
            if until <= now {
                self.parked_until = None;
                poll.refuse_parked = Some(self.refusals.refuse());
            } else {
                poll.deadline = Some(until);
            }
        }
        if self.running() || self.free_running {
            let state = self.core.run_state(self.core.target.resume, now);
            poll.output_blocked = state.output_blocked;
            if let Some(wake) = state.wake {
                poll.deadline = Some(poll.deadline.map_or(wake, |d| d.min(wake)));
            }
            // A guest that waits for input that can never come is stopped (run_burst says so).
            poll.run = state.run || (self.running() && self.core.input_exhausted());
        }
        poll
    }

    fn running(&self) -> bool {
        matches!(
            self.attached,
            Some(Attached {
                sm: GdbStubStateMachine::Running(_),
                ..
            })
        )
    }

    /// Runs the machine for one burst (or one single step, if gdb asked for that), and reports
    /// a stop to gdb. Does nothing unless the machine is running.
    pub fn run_burst(&mut self, _now: Instant) {
        let Some(Attached { sm, framer, arch }) = self.attached.take() else {
            if self.free_running {
                self.run_burst_detached();
            }
            return;
        };
        let GdbStubStateMachine::Running(mut g) = sm else {
            self.attached = Some(Attached { sm, framer, arch });
            return;
        };
        let mode = self.core.target.resume;
        if std::mem::take(&mut self.core.target.new_request) {
            // A motion under way belongs to the request that started it.
            self.reverse = None;
        }
        if mode != Some(ResumeMode::ReverseStep) {
            // A motion armed for a `bs` is for that `bs` only.
            self.core.target.armed_reverse = None;
            self.reverse = None;
        }
        if matches!(
            mode,
            Some(ResumeMode::ReverseStep | ResumeMode::ReverseContinue)
        ) {
            self.hint_helpers();
        }
        // gdb's console: lines are sent as `O` packets, which gdb reads while the target runs.
        let notes = std::mem::take(&mut self.core.target.debugger_notes);
        if !notes.is_empty() {
            let hex: String = notes.bytes().map(|b| format!("{b:02x}")).collect();
            let _ = g
                .borrow_conn()
                .write_all(rsp_packet(&format!("O{hex}")).as_bytes());
        }
        let stepping = mode == Some(ResumeMode::Step);
        // The busy time of `monitor stats`: the one clock read of the session.
        let started = Instant::now();
        let before = self.core.target.machine.instructions_executed();
        let reason = match mode {
            // The console's input ended and the guest waits for more: it cannot go on. gdb is
            // told it stopped for terminal input; stderr says why, as `asmdbg run` does (which
            // ends with status 3 there).
            Some(ResumeMode::Continue) | Some(ResumeMode::Step)
                if (mode == Some(ResumeMode::Continue) || self.core.step_waits)
                    && self.core.input_exhausted() =>
            {
                let machine = &self.core.target.machine;
                self.notices.extend_from_slice(
                    format!(
                        "asmdbg: the program waits for input at {} and none is left (the console's input ended)\n",
                        asmdbg_core::machine::location(machine)
                    )
                    .as_bytes(),
                );
                Some(SingleThreadStopReason::Signal(Signal::SIGTTIN))
            }
            Some(ResumeMode::ReverseStep) => match (self.reverse_motion(), &self.facts) {
                (Some(mut motion), Some(facts)) => match motion.burst(&mut self.core, facts) {
                    Some(outcome) => Some(self.reverse_outcome(outcome)),
                    None => {
                        self.reverse = Some(motion);
                        None
                    }
                },
                _ => {
                    let reversed = self.core.reverse_step(true);
                    Some(self.reversed(reversed))
                }
            },
            Some(ResumeMode::ReverseContinue) => {
                self.core.reverse_continue().map(|r| self.reversed(r))
            }
            _ => {
                let event = self.core.forward(stepping);
                if self.core.end_of_history(&event) {
                    Some(replay_log(ReplayLogPosition::End))
                } else {
                    self.core.target.stop_reason(event, stepping)
                }
            }
        };
        self.core.target.stats.executed += self
            .core
            .target
            .machine
            .instructions_executed()
            .saturating_sub(before);
        self.core.target.stats.busy += started.elapsed();
        let sm = match reason {
            Some(reason) => {
                self.core.step_waits = false;
                self.core.target.resume = None;
                match g.report_stop(&mut self.core.target, reason) {
                    Ok(sm) => sm,
                    Err(e) => {
                        self.end = Some(SessionEnd::StubError(e.to_string()));
                        return;
                    }
                }
            }
            None => g.into(),
        };
        self.attached = Some(Attached { sm, framer, arch });
    }

    /// On MIPS, gdb's own reverse-next, reverse-step and reverse-finish take a function's
    /// extent from the ranges the ELF cuts after every branch for its delay-slot rule, and
    /// stop in called functions; asmdbg's helper script (in the ELF) replaces them. Without it
    /// gdb is told so once per connection, at its first reverse motion.
    fn hint_helpers(&mut self) {
        let target = &mut self.core.target;
        if self.helpers_hint_given || target.helpers_loaded || target.machine.isa().name() != "mips"
        {
            return;
        }
        self.helpers_hint_given = true;
        target.debugger_notes.push_str(HELPERS_HINT);
    }

    /// The reverse motion by line this `bs` runs: the one under way, or the one the helper
    /// script armed (gdb's console says why one cannot start; the `bs` then goes back one
    /// instruction).
    fn reverse_motion(&mut self) -> Option<ReverseMotion> {
        if let Some(motion) = self.reverse.take() {
            return Some(motion);
        }
        let words = self.core.target.armed_reverse.take()?;
        let facts = self.facts.as_ref()?;
        let parts: Vec<&str> = words.split_whitespace().collect();
        let Some((way, count)) = Way::parse(&parts) else {
            self.core
                .target
                .debugger_notes
                .push_str(&format!("asmdbg: no reverse motion `{words}`\n"));
            return None;
        };
        match ReverseMotion::start(way, count, true, &self.core, facts) {
            Ok(motion) => Some(motion),
            Err(e) => {
                self.core
                    .target
                    .debugger_notes
                    .push_str(&format!("asmdbg: {e}\n"));
                None
            }
        }
    }

    /// What gdb is told when a reverse motion by line ends.
    fn reverse_outcome(&mut self, outcome: Outcome) -> StopReason<G> {
        match outcome {
            Outcome::Arrived => SingleThreadStopReason::DoneStep,
            Outcome::Begin => replay_log(ReplayLogPosition::Begin),
            Outcome::Breakpoint => SingleThreadStopReason::SwBreak(()),
            Outcome::Watch(event) => self.reversed(Reversed::Hit(event)),
        }
    }

    /// What gdb is told after a reverse request.
    fn reversed(&mut self, reversed: Reversed) -> StopReason<G> {
        match reversed {
            Reversed::Stepped => SingleThreadStopReason::DoneStep,
            Reversed::Begin => replay_log(ReplayLogPosition::Begin),
            Reversed::Hit(event) => self
                .core
                .target
                .stop_reason(Some(event), false)
                .unwrap_or(SingleThreadStopReason::DoneStep),
        }
    }

    /// gdb detached: its breakpoints and watchpoints go (gdb removes its own first; any left
    /// would stop a program nobody watches) and the machine runs on, unless it has ended.
    fn run_detached(&mut self) {
        self.core.target.machine.breakpoints().clear();
        self.core.target.machine.watchpoints().clear();
        self.free_running = true;
    }

    /// One burst with no debugger attached. The program's end stops the free run, with a note
    /// on asmdbg's stderr; the machine then waits, ended, for the next debugger.
    fn run_burst_detached(&mut self) {
        // Left in the past, the machine replays up to where the recording ended (showing
        // nothing twice), then runs live.
        let event = self.core.forward(false);
        let ended = match event {
            None | Some(StopEvent::NeedInput) => return,
            Some(StopEvent::Halted) => "halted".to_string(),
            Some(StopEvent::Exited(code)) => format!("exited with status {code}"),
            Some(StopEvent::Fault(fault)) => format!("stopped: {}", fault.message),
            // Nothing is set any more; should one be hit, the run goes on past it.
            Some(_) => return,
        };
        self.free_running = false;
        self.notices.extend_from_slice(
            format!("asmdbg: the program {ended} while no debugger was attached\n").as_bytes(),
        );
    }
}

/// The stop at either end of the recorded history ("No more reverse-execution history.").
fn replay_log<U>(pos: ReplayLogPosition) -> SingleThreadStopReason<U> {
    SingleThreadStopReason::ReplayLog { tid: None, pos }
}

fn interrupted<U>() -> SingleThreadStopReason<U> {
    SingleThreadStopReason::Signal(Signal::SIGINT)
}

/// A state machine at rest: an interrupt gdbstub has seen is handled at once.
fn settle<G: GdbMachine>(sm: Stub<G>, target: &mut Debuggee<G>) -> Result<Stub<G>, String> {
    match sm {
        GdbStubStateMachine::CtrlCInterrupt(g) => {
            target.resume = None;
            target.reverse_search = None;
            g.interrupt_handled(target, Some(interrupted()))
                .map_err(|e| e.to_string())
        }
        other => Ok(other),
    }
}

/// Frames `bytes` and feeds the packets to gdbstub. A packet gdbstub cannot parse or serve
/// ends its state machine; a fresh one takes over the same connection (acknowledgement mode
/// and a pending resume replayed), and gdb gets an error reply instead of a closed socket.
/// `arch` follows the packets for [`ArchCheck`].
fn receive<G: GdbMachine>(
    mut sm: Stub<G>,
    target: &mut Debuggee<G>,
    framer: &mut Framer,
    arch: &mut ArchCheck,
    bytes: &[u8],
) -> Result<Stub<G>, String> {
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
        if let Some(payload) = packet_payload(&packet) {
            arch.on_packet(payload);
        }
        let resume = target.resume;
        // Replies gdbstub wrote before it failed still go to gdb.
        let mut earlier = std::mem::take(&mut conn(&mut sm).0);
        sm = match feed(sm, target, &packet) {
            Ok(mut sm) => {
                earlier.append(&mut conn(&mut sm).0);
                conn(&mut sm).0 = earlier;
                sm
            }
            Err(e) if framer.recoveries < MAX_RECOVERIES => {
                framer.recoveries += 1;
                log::warn!(
                    "gdb packet {:?} failed ({e}); the session goes on",
                    String::from_utf8_lossy(&packet[..packet.len().min(64)])
                );
                let mut sm = restart(target, framer.no_ack, resume)?;
                let out = &mut conn(&mut sm).0;
                out.append(&mut earlier);
                // The failed state machine's `+` for this packet went with it.
                if !framer.no_ack {
                    out.push(b'+');
                }
                if resume.is_none() {
                    out.extend_from_slice(rsp_packet("E01").as_bytes());
                }
                sm
            }
            Err(e) => return Err(e.to_string()),
        };
    }
    Ok(sm)
}

/// The payload of a framed `$payload#xx` packet; `None` for an interrupt byte.
fn packet_payload(packet: &[u8]) -> Option<&[u8]> {
    packet
        .strip_prefix(b"$")?
        .get(..packet.len().checked_sub(4)?)
}

/// A new gdbstub state machine for a connection that is already set up: acknowledgements as
/// gdb negotiated them, and running again if gdb had resumed the machine.
fn restart<G: GdbMachine>(
    target: &mut Debuggee<G>,
    no_ack: bool,
    resume: Option<ResumeMode>,
) -> Result<Stub<G>, String> {
    let stub = GdbStubBuilder::new(BufConn::default())
        .packet_buffer_size(PACKET_SIZE)
        .build()
        .map_err(|e| e.to_string())?;
    let mut sm = stub.run_state_machine(target).map_err(|e| e.to_string())?;
    let mut replay = |sm, payload: &str| {
        feed(sm, target, rsp_packet(payload).as_bytes()).map_err(|e| e.to_string())
    };
    if no_ack {
        sm = replay(sm, "QStartNoAckMode")?;
    }
    match resume {
        Some(ResumeMode::Continue) => sm = replay(sm, "vCont;c")?,
        Some(ResumeMode::Step) => sm = replay(sm, "vCont;s")?,
        Some(ResumeMode::ReverseStep) => sm = replay(sm, "bs")?,
        Some(ResumeMode::ReverseContinue) => sm = replay(sm, "bc")?,
        None => {}
    }
    conn(&mut sm).0.clear();
    Ok(sm)
}

/// Feeds bytes to gdbstub one at a time, handling an interrupt as soon as it appears.
fn feed<G: GdbMachine>(
    mut sm: Stub<G>,
    target: &mut Debuggee<G>,
    bytes: &[u8],
) -> Result<Stub<G>, StubError> {
    for &byte in bytes {
        sm = match sm {
            GdbStubStateMachine::Idle(g) => g.incoming_data(target, byte)?,
            GdbStubStateMachine::Running(g) => g.incoming_data(target, byte)?,
            GdbStubStateMachine::CtrlCInterrupt(g) => {
                target.reverse_search = None;
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
            target.reverse_search = None;
            sm = g.interrupt_handled(target, Some(interrupted()))?;
        }
    }
    Ok(sm)
}
