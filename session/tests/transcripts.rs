//! The session from memory: gdb's bytes go in as the socket would deliver them, replies and
//! decisions come out, and real machines (LC-3, MIPS) run small programs. No socket, no task:
//! what tests/faults.rs checks through TCP is checked here on the session's own logic.

use std::time::{Duration, Instant};

use asmdbg_core::gdb::{Debuggee, GdbMachine, ResumeMode};
use asmdbg_core::{Machine, MachineOptions};
use asmdbg_session::{
    rsp_packet, Admission, Discipline, LineMode, Poll, RspSession, SessionEnd, HANDOVER_GRACE,
    MACHINE_INPUT_QUEUE, MAX_SLICE, OUTPUT_BACKLOG, PACKET_SIZE, SLICE,
};

/// Counts forever in COUNT (x3004).
const LC3_COUNTER: &str = "\
        .ORIG x3000
LOOP    LD R1, COUNT
        ADD R1, R1, #1
        ST R1, COUNT
        BRnzp LOOP
COUNT   .FILL 0
        .END
";

/// Echoes every key.
const LC3_ECHO: &str = "\
        .ORIG x3000
LOOP    GETC
        OUT
        BRnzp LOOP
        .END
";

/// Prints forever.
const LC3_FLOOD: &str = "\
        .ORIG x3000
LOOP    LEA R0, MSG
        PUTS
        BRnzp LOOP
MSG     .STRINGZ \"flood flood flood flood\"
        .END
";

/// Computes silently for 60,000 instructions (the slices grow), then floods as LC3_FLOOD does.
const LC3_QUIET_THEN_FLOOD: &str = "\
        .ORIG x3000
        LD R1, COUNT
WAIT    ADD R1, R1, #-1
        BRp WAIT
LOOP    LEA R0, MSG
        PUTS
        BRnzp LOOP
COUNT   .FILL #30000
MSG     .STRINGZ \"flood flood flood flood\"
        .END
";

/// Sleeps five seconds of real time (MARS syscall 32), then exits.
const MIPS_SLEEPER: &str = "
        .text
main:   li $a0, 5000
        li $v0, 32
        syscall
        li $v0, 10
        syscall
";

fn lc3(source: &str) -> asmdbg_lc3::Lc3Machine {
    asmdbg_lc3::load_machine("t.asm", source.as_bytes(), &MachineOptions::default())
        .expect("the test program assembles")
}

/// One gdb connection to a session, in memory.
struct Wire<G: GdbMachine> {
    session: RspSession<G>,
    /// What the session sent to gdb and the test has not read yet.
    from_stub: Vec<u8>,
}

impl<G: GdbMachine> Wire<G> {
    fn connect(machine: G) -> Self {
        Self::connect_to(Debuggee::new(machine))
    }

    /// A session whose machine records its run for time travel, as `asmdbg debug` does.
    fn connect_recording(machine: G) -> Self {
        let mut target = Debuggee::new(machine);
        target.record_history(64 << 20);
        Self::connect_to(target)
    }

    fn connect_to(target: Debuggee<G>) -> Self {
        let mut session = RspSession::new(target, Discipline::new(LineMode::Raw, false));
        session.on_connect(Instant::now());
        Wire {
            session,
            from_stub: Vec::new(),
        }
    }

    fn poll(&mut self) -> Poll {
        let poll = self.session.poll(Instant::now());
        self.from_stub.extend_from_slice(&poll.to_gdb);
        poll
    }

    fn send(&mut self, bytes: &[u8]) -> Poll {
        self.session.on_bytes(bytes, Instant::now());
        self.poll()
    }

    /// Everything sent to gdb so far, taken.
    fn take(&mut self) -> String {
        String::from_utf8_lossy(&std::mem::take(&mut self.from_stub)).into_owned()
    }

    /// The payload of the first whole packet sent to gdb (what precedes it is dropped).
    fn reply(&mut self) -> Option<String> {
        let start = self.from_stub.iter().position(|&b| b == b'$')?;
        let hash = start + self.from_stub[start..].iter().position(|&b| b == b'#')?;
        if self.from_stub.len() < hash + 3 {
            return None;
        }
        let payload = expand_runs(&self.from_stub[start + 1..hash]);
        self.from_stub.drain(..hash + 3);
        Some(payload)
    }

    fn request(&mut self, payload: &str) -> String {
        self.send(rsp_packet(payload).as_bytes());
        self.reply()
            .unwrap_or_else(|| panic!("no reply to {payload}"))
    }

    /// Runs bursts while the session asks for them (at most `bursts`); the last poll.
    fn run(&mut self, bursts: usize) -> Poll {
        for _ in 0..bursts {
            let poll = self.poll();
            if !poll.run {
                return poll;
            }
            self.session.run_burst(Instant::now());
        }
        self.poll()
    }

    fn machine(&mut self) -> &mut G {
        &mut self.session.target_mut().machine
    }
}

/// A reply body with gdbstub's run-length encoding (`X*n`: n - 29 more copies of X) undone.
fn expand_runs(body: &[u8]) -> String {
    let mut out = Vec::new();
    let mut bytes = body.iter().copied();
    while let Some(b) = bytes.next() {
        if b == b'*' {
            let (Some(&last), Some(count)) = (out.last(), bytes.next()) else {
                break;
            };
            out.extend(std::iter::repeat(last).take(usize::from(count).saturating_sub(29)));
        } else {
            out.push(b);
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn is_sigint(reply: &str) -> bool {
    reply.starts_with("T02") || reply.starts_with("S02")
}

#[test]
fn handshake_negotiates_packet_size_and_turns_acks_off() {
    let mut gdb = Wire::connect(lc3(LC3_COUNTER));
    gdb.send(b"+");
    let supported = gdb.request("qSupported:multiprocess+;swbreak+;hwbreak+;xmlRegisters=i386");
    assert!(
        supported.contains(&format!("PacketSize={PACKET_SIZE:x}")),
        "{supported}"
    );
    assert!(supported.contains("QStartNoAckMode+"), "{supported}");
    gdb.send(rsp_packet("QStartNoAckMode").as_bytes());
    assert_eq!(
        gdb.take(),
        format!("+{}", rsp_packet("OK")),
        "acked once more"
    );
    gdb.send(rsp_packet("?").as_bytes());
    let stop = gdb.take();
    assert!(stop.starts_with('$'), "no acks any more: {stop:?}");
}

#[test]
fn a_packet_split_across_reads_with_an_interrupt_in_the_same_read() {
    let mut gdb = Wire::connect(lc3(LC3_COUNTER));
    gdb.request("?");
    let continue_packet = rsp_packet("vCont;c");
    let (head, tail) = continue_packet.split_at(continue_packet.len() - 1);
    let poll = gdb.send(head.as_bytes());
    assert!(!poll.run, "half a packet does nothing");
    assert_eq!(gdb.session.target().resume, None);
    let mut rest = tail.as_bytes().to_vec();
    rest.push(0x03);
    gdb.send(&rest);
    let stop = gdb.reply().expect("a stop reply");
    assert!(is_sigint(&stop), "{stop}");
    assert_eq!(gdb.session.target().resume, None);
    assert!(!gdb.poll().run, "stopped");
}

#[test]
fn a_bad_checksum_is_nacked_and_the_next_packet_served() {
    let mut gdb = Wire::connect(lc3(LC3_COUNTER));
    gdb.send(b"$g#00");
    assert_eq!(gdb.take(), "-");
    assert_eq!(
        gdb.request("m6000,2"),
        "0322",
        "LD R1, COUNT at x3000 (gdb addresses are 2 × LC-3 word addresses)"
    );
}

#[test]
fn an_oversized_packet_is_answered_with_an_error() {
    let mut gdb = Wire::connect(lc3(LC3_COUNTER));
    let mut huge = b"$M6000,8000:".to_vec();
    huge.extend(std::iter::repeat(b'0').take(4 * PACKET_SIZE));
    huge.extend_from_slice(b"#00");
    // As the socket delivers it: in reads of at most one packet buffer.
    for read in huge.chunks(PACKET_SIZE) {
        gdb.send(read);
    }
    assert_eq!(gdb.take(), rsp_packet("E01"));
    assert_eq!(
        gdb.request("m6008,2"),
        "0000",
        "COUNT at x3004 untouched, session alive"
    );
}

#[test]
fn a_packet_gdbstub_cannot_parse_gets_an_error_and_the_session_goes_on() {
    let mut gdb = Wire::connect(lc3(LC3_COUNTER));
    gdb.request("?");
    gdb.take();
    gdb.send(rsp_packet("mzz,qq").as_bytes());
    let answer = gdb.take();
    assert!(
        answer.starts_with("+$E"),
        "acknowledged, then an error: {answer:?}"
    );
    let poll = gdb.poll();
    assert!(poll.ended.is_none(), "the connection stays");
    gdb.send(rsp_packet("s").as_bytes());
    gdb.run(1);
    let stop = gdb.reply().expect("the step's stop reply");
    assert!(stop.starts_with('T') || stop.starts_with('S'), "{stop}");
}

#[test]
fn ctrl_c_stops_a_running_guest_with_sigint() {
    let mut gdb = Wire::connect(lc3(LC3_COUNTER));
    gdb.request("?");
    let poll = gdb.send(rsp_packet("vCont;c").as_bytes());
    assert!(poll.run, "running");
    let poll = gdb.run(3);
    assert!(poll.run, "a counter never stops on its own");
    assert!(gdb.machine().instructions_executed() > 1000);
    assert!(gdb.reply().is_none(), "no stop yet");
    gdb.send(&[0x03]);
    let stop = gdb.reply().expect("a stop reply");
    assert!(is_sigint(&stop), "{stop}");
    let executed = gdb.machine().instructions_executed();
    assert!(!gdb.run(3).run);
    assert_eq!(
        gdb.machine().instructions_executed(),
        executed,
        "stays stopped"
    );
}

#[test]
fn a_guest_waiting_for_input_is_still_running_and_honours_ctrl_c() {
    let mut gdb = Wire::connect(lc3(LC3_ECHO));
    gdb.request("?");
    gdb.send(rsp_packet("vCont;c").as_bytes());
    let poll = gdb.run(100);
    assert!(!poll.run, "the guest waits for a key");
    assert!(poll.wants_input);
    assert_eq!(poll.deadline, None, "nothing to wake up for");
    assert_eq!(gdb.session.target().resume, Some(ResumeMode::Continue));
    assert!(gdb.reply().is_none(), "still running for gdb");

    gdb.session.on_console_input(b"k");
    assert!(gdb.poll().run, "a key lets it run");
    gdb.run(100);
    assert_eq!(gdb.session.take_all_output(), b"k");

    gdb.send(&[0x03]);
    let stop = gdb.reply().expect("a stop reply");
    assert!(is_sigint(&stop), "{stop}");
}

// `asmdbg debug --console stdio < keys.txt`: once the file is read, a guest that waits for
// more can never go on. The continue used to wait silently for ever; it stops (SIGTTIN, "stopped
// for tty input") and stderr says why, as `asmdbg run` does (which exits with status 3 there).
#[test]
fn a_guest_waiting_for_input_after_the_console_input_ended_stops_and_says_so() {
    let mut gdb = Wire::connect(lc3(LC3_ECHO));
    gdb.request("?");
    gdb.session.on_console_input(b"ab");
    gdb.session.on_console_input_end();
    gdb.send(rsp_packet("vCont;c").as_bytes());
    let mut diagnostics = Vec::new();
    for _ in 0..100 {
        let poll = gdb.poll();
        diagnostics.extend(poll.diagnostics);
        if !poll.run {
            break;
        }
        gdb.session.run_burst(Instant::now());
    }
    diagnostics.extend(gdb.poll().diagnostics);
    assert_eq!(gdb.session.take_all_output(), b"ab", "the keys there were");
    let stop = gdb.reply().expect("a stop reply");
    assert!(stop.starts_with("T15") || stop.starts_with("S15"), "{stop}");
    let said = String::from_utf8_lossy(&diagnostics);
    assert!(
        said.contains("asmdbg: the program waits for input at PC x")
            && said.contains("and none is left"),
        "{said}"
    );
    // It stays stopped: gdb may look around, and a new continue says so again.
    assert_eq!(gdb.session.target().resume, None);
    gdb.send(rsp_packet("vCont;c").as_bytes());
    gdb.run(10);
    let again = gdb.reply().expect("a stop reply");
    assert!(
        again.starts_with("T15") || again.starts_with("S15"),
        "{again}"
    );
}

#[test]
fn a_guest_whose_output_is_not_taken_pauses_and_resumes_when_it_is() {
    let mut gdb = Wire::connect(lc3(LC3_FLOOD));
    gdb.request("?");
    gdb.send(rsp_packet("vCont;c").as_bytes());
    let poll = gdb.run(10_000);
    assert!(poll.output_blocked, "the backlog filled up");
    assert!(!poll.run, "and the guest pauses");
    assert!(poll.output_pending);
    let executed = gdb.machine().instructions_executed();
    assert!(!gdb.run(10).run);
    assert_eq!(gdb.machine().instructions_executed(), executed);

    let mut taken = 0;
    while let Some(chunk) = gdb.session.take_output_chunk() {
        assert!(!chunk.is_empty());
        taken += chunk.len();
    }
    assert!(taken >= OUTPUT_BACKLOG, "{taken}");
    assert!(gdb.poll().run, "drained: it runs again");
    gdb.run(1);
    assert!(gdb.machine().instructions_executed() > executed);
}

#[test]
fn slices_grown_while_the_guest_was_quiet_shrink_once_it_writes() {
    // A burst's slices grow while the guest writes nothing; once it writes they are back to
    // SLICE instructions, so a burst that ends on the backlog's bound overshoots it by what a
    // short slice writes (PUTS takes several instructions a character), not by what a grown
    // one would. One long burst, so that all of it is one burst's output.
    let mut session = RspSession::new(
        Debuggee::new(lc3(LC3_QUIET_THEN_FLOOD)),
        Discipline::new(LineMode::Raw, false),
    )
    .with_burst(u64::MAX);
    session.on_connect(Instant::now());
    let mut gdb = Wire {
        session,
        from_stub: Vec::new(),
    };
    gdb.request("?");
    gdb.send(rsp_packet("vCont;c").as_bytes());
    assert!(gdb.run(1).output_blocked, "one burst filled the backlog");
    assert!(gdb.machine().instructions_executed() > 60_000);
    let mut taken = 0;
    while let Some(chunk) = gdb.session.take_output_chunk() {
        taken += chunk.len();
    }
    assert!(taken > OUTPUT_BACKLOG, "{taken}");
    assert!(
        taken <= OUTPUT_BACKLOG + SLICE as usize,
        "{taken} bytes: slices of up to {MAX_SLICE} instructions went on while it wrote"
    );
}

#[test]
fn a_sleeping_mips_guest_gives_a_deadline_instead_of_asking_to_run() {
    let machine = asmdbg_mips::load_machine("t.s", MIPS_SLEEPER, &MachineOptions::default())
        .expect("the test program assembles");
    let mut gdb = Wire::connect(machine);
    gdb.request("?");
    let sent = Instant::now();
    gdb.send(rsp_packet("vCont;c").as_bytes());
    let poll = gdb.run(10);
    assert!(!poll.run, "asleep");
    let deadline = poll.deadline.expect("a wake-up time");
    assert!(deadline > sent + Duration::from_secs(4), "{deadline:?}");
    assert!(deadline < sent + Duration::from_secs(6), "{deadline:?}");
    assert!(gdb.reply().is_none(), "running for gdb");
    gdb.send(&[0x03]);
    assert!(is_sigint(&gdb.reply().expect("a stop reply")));
}

#[test]
fn a_second_client_is_parked_for_the_handover_then_refused() {
    let mut gdb = Wire::connect(lc3(LC3_COUNTER));
    let arrived = Instant::now();
    assert!(matches!(
        gdb.session.on_second_client(arrived),
        Admission::Park
    ));
    assert!(
        matches!(gdb.session.on_second_client(arrived), Admission::Refuse(_)),
        "one parked at a time"
    );
    let poll = gdb.poll();
    assert!(poll.refuse_parked.is_none());
    assert_eq!(poll.deadline, Some(arrived + HANDOVER_GRACE));
    let poll = gdb.session.poll(arrived + HANDOVER_GRACE);
    assert!(poll.refuse_parked.is_some(), "the grace is over");
    assert!(poll.ended.is_none(), "the attached one goes on");
}

#[test]
fn a_parked_client_is_next_when_the_attached_one_drops() {
    let mut gdb = Wire::connect(lc3(LC3_COUNTER));
    gdb.request("?");
    gdb.send(rsp_packet("vCont;c").as_bytes());
    gdb.run(2);
    assert!(matches!(
        gdb.session.on_second_client(Instant::now()),
        Admission::Park
    ));
    gdb.session.on_connection_lost();
    let poll = gdb.poll();
    assert_eq!(poll.ended, Some(SessionEnd::ConnectionLost));
    assert!(poll.refuse_parked.is_none(), "served next, not refused");
    assert!(
        !poll.run,
        "the machine waits, stopped, for the next debugger"
    );
    assert_eq!(gdb.session.target().resume, None);

    gdb.session.on_connect(Instant::now());
    let stop = gdb.request("?");
    assert!(stop.starts_with('T') || stop.starts_with('S'), "{stop}");
    assert!(gdb.machine().instructions_executed() > 0, "state kept");
}

#[test]
fn detach_ends_the_connection_with_its_reason() {
    let mut gdb = Wire::connect(lc3(LC3_COUNTER));
    let poll = gdb.send(rsp_packet("D").as_bytes());
    assert_eq!(gdb.reply().as_deref(), Some("OK"));
    assert!(
        matches!(poll.ended, Some(SessionEnd::Protocol(_))),
        "{:?}",
        poll.ended
    );
    assert!(!gdb.session.attached());
}

#[test]
fn after_detach_the_machine_runs_on_until_a_debugger_attaches() {
    let mut gdb = Wire::connect(lc3(LC3_COUNTER));
    assert_eq!(
        gdb.request("Z0,6002,2"),
        "OK",
        "a breakpoint inside the loop"
    );
    gdb.send(rsp_packet("D").as_bytes());
    assert_eq!(gdb.reply().as_deref(), Some("OK"));
    assert!(gdb.session.free_running());
    // No debugger: polls ask for bursts, and the count goes up past the breakpoint gdb left.
    let poll = gdb.run(3);
    assert!(poll.run, "still running");
    let count = gdb.machine().peek_word(0x3004).expect("COUNT");
    assert!(count > 100, "the program ran on: COUNT = {count}");
    // A debugger attaches: the machine stops where it got to.
    gdb.session.on_connect(Instant::now());
    assert!(!gdb.session.free_running());
    let poll = gdb.poll();
    assert!(!poll.run, "stopped for the new debugger");
    let after = gdb.machine().peek_word(0x3004).expect("COUNT");
    gdb.session.run_burst(Instant::now());
    assert_eq!(gdb.machine().peek_word(0x3004).expect("COUNT"), after);
}

#[test]
fn a_detached_program_that_ends_stops_with_a_note_for_stderr() {
    let mut gdb = Wire::connect(lc3(".ORIG x3000\nAND R0, R0, #0\nHALT\n.END\n"));
    gdb.send(rsp_packet("D").as_bytes());
    let mut notes = Vec::new();
    for _ in 0..5 {
        let poll = gdb.poll();
        notes.extend_from_slice(&poll.diagnostics);
        if !poll.run {
            break;
        }
        gdb.session.run_burst(Instant::now());
    }
    assert!(!gdb.session.free_running());
    assert_eq!(
        String::from_utf8_lossy(&notes),
        "asmdbg: the program halted while no debugger was attached\n"
    );
}

#[test]
fn a_lost_connection_or_a_kill_leaves_the_machine_stopped() {
    let mut gdb = Wire::connect(lc3(LC3_COUNTER));
    gdb.session.on_connection_lost();
    let poll = gdb.poll();
    assert_eq!(poll.ended, Some(SessionEnd::ConnectionLost));
    assert!(!poll.run && !gdb.session.free_running());

    let mut gdb = Wire::connect(lc3(LC3_COUNTER));
    gdb.send(rsp_packet("vKill;1").as_bytes());
    let poll = gdb.run(2);
    assert!(!poll.run && !gdb.session.free_running());
}

// ---- Time travel ------------------------------------------------------------------------

/// Runs the session until it reports a stop (at most `bursts` bursts); the stop's payload.
fn stop_after<G: GdbMachine>(gdb: &mut Wire<G>, bursts: usize) -> String {
    gdb.run(bursts);
    gdb.reply().expect("a stop reply")
}

#[test]
fn reverse_requests_without_history_say_history_begins_here() {
    let mut gdb = Wire::connect(lc3(LC3_COUNTER));
    gdb.send(b"+");
    gdb.send(rsp_packet("bs").as_bytes());
    let stop = stop_after(&mut gdb, 4);
    assert!(stop.contains("replaylog:begin"), "{stop}");
    gdb.send(rsp_packet("bc").as_bytes());
    let stop = stop_after(&mut gdb, 4);
    assert!(stop.contains("replaylog:begin"), "{stop}");
}

#[test]
fn reverse_step_retraces_steps_and_stops_at_the_start() {
    let mut gdb = Wire::connect_recording(lc3(LC3_COUNTER));
    gdb.send(b"+");
    let mut pcs = vec![gdb.machine().pc()];
    for _ in 0..6 {
        gdb.send(rsp_packet("vCont;s").as_bytes());
        let stop = stop_after(&mut gdb, 4);
        assert!(stop.starts_with("T05") || stop.starts_with("S05"), "{stop}");
        pcs.push(gdb.machine().pc());
    }
    for expected in pcs.iter().rev().skip(1) {
        gdb.send(rsp_packet("bs").as_bytes());
        let stop = stop_after(&mut gdb, 4);
        assert!(!stop.contains("replaylog"), "{stop}");
        assert_eq!(gdb.machine().pc(), *expected);
    }
    assert_eq!(gdb.machine().instructions_executed(), 0);
    gdb.send(rsp_packet("bs").as_bytes());
    let stop = stop_after(&mut gdb, 4);
    assert!(stop.contains("replaylog:begin"), "{stop}");
}

#[test]
fn keys_typed_in_the_past_wait_for_the_end_of_history_and_writes_there_drop_the_future() {
    let mut gdb = Wire::connect_recording(lc3(LC3_ECHO));
    gdb.send(b"+");
    gdb.session.on_console_input(b"ab");
    gdb.send(rsp_packet("vCont;c").as_bytes());
    gdb.run(8);
    // Both keys echoed; the guest waits for the next one.
    let shown = gdb.session.take_all_output();
    assert_eq!(shown, b"ab");
    let end = gdb.machine().instructions_executed();
    gdb.send(&[0x03]);
    assert!(gdb.reply().is_some_and(|r| is_sigint(&r)));
    // Back to the start: a key typed now is held, not given to the replay.
    let said = gdb.request("qRcmd,676f746f2030"); // monitor goto 0
    assert!(
        said.starts_with('O') && said.contains(&gdb_hex("at instruction 0")),
        "{said}"
    );
    assert_eq!(gdb.reply().as_deref(), Some("OK"));
    gdb.session.on_console_input(b"c");
    gdb.send(rsp_packet("vCont;c").as_bytes());
    gdb.run(8);
    // The replay showed nothing again; at the end the held key was echoed.
    assert_eq!(gdb.session.take_all_output(), b"c");
    assert!(gdb.machine().instructions_executed() > end);
    let _ = gdb.reply();
    // In the past a register write drops the future: gdb's console says so (with the next
    // resume), the program's console shows nothing of it.
    gdb.send(&[0x03]);
    let _ = gdb.reply();
    let _ = gdb.request("qRcmd,676f746f2032"); // monitor goto 2
    assert_eq!(gdb.reply().as_deref(), Some("OK"));
    assert_eq!(gdb.request("P1=05000000"), "OK");
    assert_eq!(gdb.session.take_all_output(), b"");
    gdb.send(rsp_packet("vCont;s").as_bytes());
    gdb.run(1);
    let note = gdb.reply().expect("console output");
    assert!(
        note.starts_with('O') && note.contains(&gdb_hex("after instruction 2 (up to ")),
        "{note}"
    );
    assert!(note.contains(&gdb_hex("was discarded")), "{note}");
}

/// Text as hex, as gdbstub sends a monitor command's output in `O` packets.
fn gdb_hex(text: &str) -> String {
    text.bytes().map(|b| format!("{b:02x}")).collect()
}

/// A paste or piped file of 100 KB: the machine's own queue (which every time-travel
/// checkpoint copies) never holds more than MACHINE_INPUT_QUEUE bytes, the rest waits in the
/// session, every byte reaches the guest in order, and the end of input comes after the last.
#[test]
fn a_long_paste_waits_in_the_session_and_reaches_the_guest_in_order() {
    let mut gdb = Wire::connect_recording(lc3(LC3_ECHO));
    gdb.request("?");
    gdb.send(rsp_packet("vCont;c").as_bytes());
    let paste: Vec<u8> = (0..100_000u32).map(|i| b'a' + (i % 26) as u8).collect();
    gdb.session.on_console_input(&paste);
    gdb.session.on_console_input_end();
    let mut echoed = Vec::new();
    for _ in 0..10_000 {
        assert!(
            gdb.machine().console().pending_input() <= MACHINE_INPUT_QUEUE,
            "{} bytes queued in the machine",
            gdb.machine().console().pending_input()
        );
        echoed.extend(gdb.session.take_all_output());
        if echoed.len() >= paste.len() {
            break;
        }
        let poll = gdb.poll();
        assert!(poll.run, "the guest has input to run on");
        assert!(!poll.wants_input, "the input ended");
        gdb.session.run_burst(Instant::now());
    }
    assert_eq!(echoed.len(), paste.len());
    assert!(echoed == paste, "the echo is the paste, in order");
    // All of it was taken and then the end came: the guest waits on no input, for good.
    let poll = gdb.run(100);
    assert!(!poll.run);
    assert_eq!(gdb.machine().console().pending_input(), 0);
    assert!(gdb.machine().console().input_closed());
}
