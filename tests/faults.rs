//! What the outside world can do to `asmdbg debug` and `asmdbg run`, and what must still hold:
//! debuggers that die mid-packet or drop the connection, a second debugger, garbage on the
//! wire, terminals that come and go, huge pastes, guests that flood output or never stop,
//! and code rewritten under a breakpoint. Mostly a raw RSP client over TcpStream (what gdb
//! cannot be made to do), gdb-multiarch where a real session matters.

mod support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::{Duration, Instant};

use asmdbg_testsupport::require_tool;
use support::{run_asmdbg, Scratch, Stub};

/// Replies must come within this; every wait in this file is bounded by it.
const REPLY_LIMIT: Duration = Duration::from_secs(20);

/// A minimal RSP client in acknowledgement mode (gdb's default before it negotiates).
struct Rsp {
    stream: TcpStream,
    /// Bytes received and not yet parsed.
    pending: Vec<u8>,
}

fn packet(payload: &[u8]) -> Vec<u8> {
    let sum = payload.iter().fold(0u8, |a, &b| a.wrapping_add(b));
    let mut p = vec![b'$'];
    p.extend_from_slice(payload);
    p.extend_from_slice(format!("#{sum:02x}").as_bytes());
    p
}

impl Rsp {
    fn connect(stub: &Stub) -> Rsp {
        let stream = TcpStream::connect(("127.0.0.1", stub.port)).expect("connect to the stub");
        stream
            .set_read_timeout(Some(Duration::from_millis(200)))
            .expect("read timeout");
        Rsp {
            stream,
            pending: Vec::new(),
        }
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).expect("send to the stub");
    }

    /// Reads until `done` says the pending bytes hold what is wanted, or the limit passes.
    fn fill_until(&mut self, done: impl Fn(&[u8]) -> bool) -> bool {
        let deadline = Instant::now() + REPLY_LIMIT;
        let mut buf = [0u8; 65536];
        while !done(&self.pending) {
            if Instant::now() > deadline {
                return false;
            }
            match self.stream.read(&mut buf) {
                Ok(0) => return done(&self.pending),
                Ok(n) => self.pending.extend_from_slice(&buf[..n]),
                Err(_) => {}
            }
        }
        true
    }

    /// The next packet's payload (acks before it are skipped; the packet is acknowledged).
    fn reply(&mut self) -> String {
        let complete = |p: &[u8]| {
            p.iter()
                .position(|&b| b == b'$')
                .and_then(|s| p[s..].iter().position(|&b| b == b'#').map(|h| s + h + 3))
                .is_some_and(|end| end <= p.len())
        };
        assert!(
            self.fill_until(complete),
            "no reply from the stub; got {:?}",
            String::from_utf8_lossy(&self.pending)
        );
        let start = self.pending.iter().position(|&b| b == b'$').unwrap_or(0);
        let hash = start
            + self.pending[start..]
                .iter()
                .position(|&b| b == b'#')
                .unwrap_or(0);
        let payload = unrle(&self.pending[start + 1..hash]);
        self.pending.drain(..hash + 3);
        // The stub may already have closed (after reporting an exit).
        let _ = self.stream.write_all(b"+");
        payload
    }

    fn request(&mut self, payload: &str) -> String {
        self.send_raw(&packet(payload.as_bytes()));
        self.reply()
    }

    /// The stub's answer is exactly the byte `b` (an ack or a nack), before any packet.
    fn expect_byte(&mut self, b: u8) {
        assert!(self.fill_until(|p| !p.is_empty()), "no byte from the stub");
        assert_eq!(
            self.pending.remove(0) as char,
            b as char,
            "rest: {:?}",
            String::from_utf8_lossy(&self.pending)
        );
    }

    /// `vCont;c`: the machine runs until a stop or an interrupt (acknowledged, no reply yet).
    fn resume(&mut self) {
        self.send_raw(&packet(b"vCont;c"));
        self.expect_byte(b'+');
    }

    /// Ctrl-C: the stop reply, which must say SIGINT.
    fn interrupt(&mut self) -> String {
        self.send_raw(&[0x03]);
        let stop = self.reply();
        assert!(stop.starts_with("T02") || stop.starts_with("S02"), "{stop}");
        stop
    }

    /// Reads `len` bytes at gdb address `addr`, as hex.
    fn mem(&mut self, addr: u64, len: u64) -> String {
        let reply = self.request(&format!("m{addr:x},{len:x}"));
        reply.trim_start_matches('+').to_string()
    }

    /// True once the peer has closed the connection (bounded wait).
    fn closed_by_peer(&mut self) -> bool {
        let deadline = Instant::now() + REPLY_LIMIT;
        let mut buf = [0u8; 4096];
        while Instant::now() < deadline {
            match self.stream.read(&mut buf) {
                Ok(0) => return true,
                Ok(n) => self.pending.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return true,
                Err(_) => {}
            }
        }
        false
    }
}

/// Expands gdbstub's run-length encoding (`c*N`: N - 29 more copies of c).
fn unrle(body: &[u8]) -> String {
    let mut out: Vec<u8> = Vec::new();
    let mut i = 0;
    while i < body.len() {
        if body[i] == b'*' && i + 1 < body.len() {
            let last = out.last().copied().unwrap_or(b'0');
            let extra = (body[i + 1] as usize).saturating_sub(29);
            out.extend(std::iter::repeat(last).take(extra));
            i += 2;
        } else {
            out.push(body[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// An LC-3 word read over RSP (gdb address = 2 x word address, little endian).
fn lc3_word(rsp: &mut Rsp, word_addr: u64) -> u16 {
    let hex = rsp.mem(2 * word_addr, 2);
    let v = u16::from_str_radix(&hex, 16).unwrap_or_else(|_| panic!("bad memory reply {hex:?}"));
    v.swap_bytes()
}

fn is_stop(reply: &str) -> bool {
    reply.starts_with('T') || reply.starts_with('S')
}

/// Waits until `f` holds (bounded).
fn eventually(what: &str, mut f: impl FnMut() -> bool) {
    let deadline = Instant::now() + REPLY_LIMIT;
    while !f() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// x3000.. counts forever in COUNT (x3004).
const LC3_COUNTER: &str = "\
        .ORIG x3000
LOOP    LD R1, COUNT
        ADD R1, R1, #1
        ST R1, COUNT
        BRnzp LOOP
COUNT   .FILL 0
        .END
";
const LC3_COUNT: u64 = 0x3004;

/// Echoes every key and counts them in COUNT (x3006).
const LC3_ECHO: &str = "\
        .ORIG x3000
LOOP    GETC
        OUT
        LD R1, COUNT
        ADD R1, R1, #1
        ST R1, COUNT
        BRnzp LOOP
COUNT   .FILL 0
        .END
";

/// The stub under load and abuse, at full speed: without the debugging checks, which run the
/// machine an instruction at a time (and would stop the self-modifying programs first).
fn start(dir: &Scratch, name: &str, source: &str) -> Stub {
    let prog = dir.write(name, source);
    Stub::start(&prog, &["--console", "pty", "--checks=off"])
}

/// The process's statistics line from /proc: (utime + stime in clock ticks).
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command name (which is in parentheses): state is field 3, utime 14.
    let rest = stat.rsplit(')').next().unwrap_or("");
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: u64 = fields.get(11).and_then(|v| v.parse().ok()).unwrap_or(0);
    let stime: u64 = fields.get(12).and_then(|v| v.parse().ok()).unwrap_or(0);
    utime + stime
}

/// Peak resident memory of a process in KiB (VmHWM).
fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

#[test]
fn half_a_packet_then_close_leaves_the_machine_for_the_next_debugger() {
    let dir = Scratch::new();
    let stub = start(&dir, "count.asm", LC3_COUNTER);
    let mut first = Rsp::connect(&stub);
    for _ in 0..3 {
        assert!(is_stop(&first.request("s")));
    }
    let pc = first.request("p0f");
    // gdb killed mid-packet: half of a memory write, then the socket closes.
    first.send_raw(b"$M6008,2:ff");
    drop(first);

    let mut second = Rsp::connect(&stub);
    assert_eq!(
        second.request("p0f"),
        pc,
        "the pc survived the broken session"
    );
    assert_eq!(
        lc3_word(&mut second, LC3_COUNT),
        1,
        "the half write changed nothing"
    );
    for _ in 0..4 {
        assert!(is_stop(&second.request("s")));
    }
    assert_eq!(lc3_word(&mut second, LC3_COUNT), 2, "the session steps on");
}

#[test]
fn a_connection_dropped_while_the_guest_runs_keeps_its_state_for_the_next_one() {
    let dir = Scratch::new();
    let stub = start(&dir, "count.asm", LC3_COUNTER);
    let mut first = Rsp::connect(&stub);
    first.resume();
    std::thread::sleep(Duration::from_millis(100));
    drop(first);

    let mut second = Rsp::connect(&stub);
    let reason = second.request("?");
    assert!(is_stop(&reason), "stopped for the new debugger: {reason}");
    let count = lc3_word(&mut second, LC3_COUNT);
    assert!(count > 0, "the guest ran before the drop");
    assert_eq!(
        lc3_word(&mut second, LC3_COUNT),
        count,
        "and does not run on its own"
    );
    // Stepping through one loop (LD, ADD, ST) adds one.
    let pc = second.request("p0f");
    let mut steps = 0;
    while lc3_word(&mut second, LC3_COUNT) == count {
        assert!(is_stop(&second.request("s")));
        steps += 1;
        assert!(steps <= 4, "one loop is four instructions (pc was {pc})");
    }
    assert_eq!(lc3_word(&mut second, LC3_COUNT), count.wrapping_add(1));
}

#[test]
fn a_connection_dropped_while_the_guest_waits_for_input_keeps_the_wait() {
    let dir = Scratch::new();
    let stub = start(&dir, "echo.asm", LC3_ECHO);
    let mut console = stub.open_console();
    let mut first = Rsp::connect(&stub);
    first.resume();
    console.type_bytes(b"a");
    console.wait_for("a", REPLY_LIMIT);
    drop(first);

    let mut second = Rsp::connect(&stub);
    assert!(is_stop(&second.request("?")));
    assert_eq!(lc3_word(&mut second, 0x3006), 1);
    second.resume();
    console.type_bytes(b"bc");
    let out = console.wait_for("abc", REPLY_LIMIT);
    assert_eq!(out, "abc");
    second.interrupt();
    assert_eq!(lc3_word(&mut second, 0x3006), 3, "every key counted once");
}

#[test]
fn a_second_debugger_is_refused_with_a_message_and_the_first_goes_on() {
    let dir = Scratch::new();
    let stub = start(&dir, "count.asm", LC3_COUNTER);
    let mut first = Rsp::connect(&stub);
    assert!(is_stop(&first.request("s")));
    let mut second = Rsp::connect(&stub);
    assert!(second.closed_by_peer(), "the second connection is closed");
    let said = String::from_utf8_lossy(&second.pending).into_owned();
    assert!(
        said.contains("another debugger is already attached"),
        "refusal: {said:?}"
    );
    assert!(is_stop(&first.request("s")));
    assert!(is_stop(&first.request("s")));
    assert_eq!(lc3_word(&mut first, LC3_COUNT), 1);
}

#[test]
fn a_flood_of_connections_while_out_of_file_descriptors_does_not_end_asmdbg() {
    let dir = Scratch::new();
    let mut stub = start(&dir, "count.asm", LC3_COUNTER);
    let pid = stub.child.id();
    let open_now = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|d| d.count())
        .unwrap_or(0);
    let limit = open_now + 6;
    if !require_tool("prlimit") {
        return;
    }
    let limited = std::process::Command::new("prlimit")
        .arg(format!("--pid={pid}"))
        .arg(format!("--nofile={limit}:{limit}"))
        .status();
    if !limited.is_ok_and(|s| s.success()) {
        eprintln!("notice: prlimit is installed but cannot limit asmdbg's file descriptors here");
        return;
    }
    let mut first = Rsp::connect(&stub);
    assert!(is_stop(&first.request("s")));
    // Far more connections than descriptors: the listener's accept fails with EMFILE.
    let flood: Vec<TcpStream> = (0..40)
        .filter_map(|_| TcpStream::connect(("127.0.0.1", stub.port)).ok())
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        is_stop(&first.request("s")),
        "the attached debugger goes on"
    );
    // The session ends while refused connections still hold descriptors and accepts fail
    // with EMFILE (asmdbg logs them and pauses instead of spinning or ending).
    drop(first);
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        matches!(stub.child.try_wait(), Ok(None)),
        "asmdbg is still running; stderr:\n{}",
        stub.stderr()
    );
    drop(flood);
    let deadline = Instant::now() + REPLY_LIMIT;
    let mut next = loop {
        let mut rsp = Rsp::connect(&stub);
        rsp.send_raw(&packet(b"?"));
        if rsp.fill_until(|p| p.contains(&b'#'))
            && !String::from_utf8_lossy(&rsp.pending).contains("another debugger")
        {
            rsp.pending.clear();
            break rsp;
        }
        assert!(Instant::now() < deadline, "no new session after the flood");
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(is_stop(&next.request("s")));
    assert_eq!(
        lc3_word(&mut next, LC3_COUNT),
        1,
        "LD, ADD, ST stepped once each"
    );
}

#[test]
fn gdb_prints_the_refusal_when_another_debugger_is_attached() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let dir = Scratch::new();
    let stub = start(&dir, "count.asm", LC3_COUNTER);
    let mut first = Rsp::connect(&stub);
    assert!(is_stop(&first.request("?")));
    let out = stub.gdb("info registers pc");
    assert!(
        out.contains("another debugger is already attached"),
        "gdb output:\n{out}"
    );
    assert!(
        is_stop(&first.request("s")),
        "the first session is unaffected"
    );
}

#[test]
fn malformed_and_unknown_packets_are_answered_and_the_session_goes_on() {
    let dir = Scratch::new();
    let stub = start(&dir, "count.asm", LC3_COUNTER);
    let mut rsp = Rsp::connect(&stub);
    assert!(is_stop(&rsp.request("s")));
    let pc = rsp.request("p0f");

    // Garbage between packets is ignored.
    rsp.send_raw(b"hello\xff\x00-garbage");
    assert_eq!(rsp.request("p0f"), pc);
    // A bad checksum is refused with a nack (gdb resends in acknowledgement mode).
    rsp.send_raw(b"$g#00");
    rsp.expect_byte(b'-');
    rsp.send_raw(b"$m6000,2#zz");
    rsp.expect_byte(b'-');
    // Unknown commands get the empty reply.
    assert_eq!(rsp.request("qAsmdbgNoSuchThing"), "");
    assert_eq!(rsp.request("vNoSuchPacket;1;2"), "");
    // A command gdbstub cannot parse gets an error reply, not a closed socket.
    let malformed = rsp.request("mzz,qq");
    assert!(malformed.starts_with('E'), "{malformed:?}");
    let malformed = rsp.request("Z0,not-an-address");
    assert!(malformed.starts_with('E'), "{malformed:?}");
    // A packet far longer than the advertised PacketSize: an error, and the session goes on.
    let mut huge = b"M6000,40000:".to_vec();
    huge.extend(std::iter::repeat(b'0').take(0x80000));
    rsp.send_raw(&packet(&huge));
    let reply = rsp.reply();
    assert!(reply.starts_with('E'), "{reply:?}");

    // The machine is as it was and the session works.
    assert_eq!(rsp.request("p0f"), pc);
    assert_eq!(lc3_word(&mut rsp, LC3_COUNT), 0);
    assert_eq!(lc3_word(&mut rsp, 0x3000), 0x2203, "code unchanged");
    assert!(is_stop(&rsp.request("s")));
    assert!(is_stop(&rsp.request("s")));
    assert_eq!(lc3_word(&mut rsp, LC3_COUNT), 1);
}

#[test]
fn garbage_in_no_ack_mode_keeps_the_mode_across_a_failed_packet() {
    let dir = Scratch::new();
    let stub = start(&dir, "count.asm", LC3_COUNTER);
    let mut rsp = Rsp::connect(&stub);
    assert_eq!(rsp.request("QStartNoAckMode"), "OK");
    let malformed = rsp.request("mzz,qq");
    assert!(malformed.starts_with('E'), "{malformed:?}");
    rsp.pending.clear();
    rsp.send_raw(&packet(b"s"));
    let stop = rsp.reply();
    assert!(is_stop(&stop), "{stop}");
    assert!(
        !rsp.pending.contains(&b'+'),
        "no acks after the restart: {:?}",
        String::from_utf8_lossy(&rsp.pending)
    );
}

#[test]
fn ctrl_c_stops_a_runaway_guest_and_it_can_run_again() {
    let dir = Scratch::new();
    let stub = start(&dir, "count.asm", LC3_COUNTER);
    let mut rsp = Rsp::connect(&stub);
    for round in 0..3 {
        rsp.resume();
        std::thread::sleep(Duration::from_millis(50));
        let sent = Instant::now();
        rsp.interrupt();
        assert!(
            sent.elapsed() < Duration::from_secs(2),
            "round {round}: Ctrl-C took {:?}",
            sent.elapsed()
        );
    }
    assert!(lc3_word(&mut rsp, LC3_COUNT) > 0);
}

#[test]
fn run_stops_runaway_programs_at_the_step_limit_on_every_machine() {
    let dir = Scratch::new();
    let cases = [
        (
            "spin.asm",
            "        .ORIG x3000\nLOOP    BRnzp LOOP\n        .END\n",
            "lc3",
        ),
        ("spin.s", "        .text\nmain:   j main\n", "mips"),
        ("spin.sr", ".main:\n    b .main\n", "simplerisc"),
    ];
    for (name, source, isa) in cases {
        let prog = dir.write(name, source);
        let path = prog.to_str().unwrap_or_default();
        let started = Instant::now();
        let out = run_asmdbg(&["run", path, "--isa", isa, "--max-steps", "1000000"], b"");
        assert_eq!(out.status.code(), Some(4), "{isa}: {out:?}");
        assert!(out.stdout.is_empty(), "{isa}: nothing on stdout");
        assert!(started.elapsed() < Duration::from_secs(20));
    }
}

/// A terminal program's handle on the guest's pty, closed for good when dropped (the support
/// console keeps a reader thread, and so the pty, open).
struct Terminal(std::fs::File);

impl Terminal {
    fn open(path: &str) -> Terminal {
        use std::os::unix::fs::OpenOptionsExt;
        let flags = nix::fcntl::OFlag::O_NONBLOCK | nix::fcntl::OFlag::O_NOCTTY;
        Terminal(
            std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .custom_flags(flags.bits())
                .open(path)
                .expect("open the guest pty"),
        )
    }

    fn type_bytes(&mut self, bytes: &[u8]) {
        self.0.write_all(bytes).expect("type into the pty");
    }

    /// What the guest printed, until `needle` shows up (bounded).
    fn read_until(&mut self, needle: &[u8]) -> Vec<u8> {
        let deadline = Instant::now() + REPLY_LIMIT;
        let mut seen = Vec::new();
        let mut buf = [0u8; 4096];
        while !seen.windows(needle.len()).any(|w| w == needle) && Instant::now() < deadline {
            match self.0.read(&mut buf) {
                Ok(n) if n > 0 => seen.extend_from_slice(&buf[..n]),
                _ => std::thread::sleep(Duration::from_millis(10)),
            }
        }
        seen
    }
}

#[test]
fn the_console_survives_its_terminal_closing_and_reopening_without_spinning() {
    let dir = Scratch::new();
    let stub = start(&dir, "echo.asm", LC3_ECHO);
    let mut rsp = Rsp::connect(&stub);
    rsp.resume();
    for round in 0..3 {
        {
            let mut term = Terminal::open(&stub.console);
            term.type_bytes(b"x");
            assert_eq!(term.read_until(b"x"), b"x", "round {round}");
        }
        // Nobody holds the terminal now: the guest waits for input, asmdbg must sleep.
        std::thread::sleep(Duration::from_millis(100));
        let pid = stub.child.id();
        let before = cpu_ticks(pid);
        std::thread::sleep(Duration::from_millis(1000));
        let used = cpu_ticks(pid) - before;
        assert!(
            used <= 20,
            "asmdbg used {used} ticks (1/100 s) of cpu in 1 s while idle"
        );
    }
    let mut term = Terminal::open(&stub.console);
    term.type_bytes(b"yz");
    assert_eq!(term.read_until(b"yz"), b"yz");
    rsp.interrupt();
    assert_eq!(lc3_word(&mut rsp, 0x3006), 5, "x three times, then y and z");
}

#[test]
fn a_megabyte_pasted_into_the_console_arrives_whole() {
    let dir = Scratch::new();
    let stub = start(&dir, "echo.asm", LC3_ECHO);
    let mut rsp = Rsp::connect(&stub);
    rsp.resume();
    let console = stub.open_console();
    // Printable bytes only: Enter and newlines are translated by the terminal discipline.
    let mut seed = 0x2545_f491u32;
    let paste: Vec<u8> = (0..1 << 20)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            b'!' + (seed % 94) as u8
        })
        .collect();
    let mut writer = std::fs::OpenOptions::new()
        .write(true)
        .open(&stub.console)
        .expect("open the pty");
    let data = paste.clone();
    let typist = std::thread::spawn(move || writer.write_all(&data).is_ok());
    let deadline = Instant::now() + Duration::from_secs(120);
    while console.output().len() < paste.len() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(typist.join().unwrap_or(false), "the paste was written");
    let echoed = console.output();
    assert_eq!(echoed.len(), paste.len(), "every byte echoed once");
    assert!(echoed.as_bytes() == paste.as_slice(), "in order, unchanged");
    rsp.interrupt();
    assert_eq!(
        lc3_word(&mut rsp, 0x3006),
        (paste.len() % 65536) as u16,
        "the guest counted every key"
    );
}

#[test]
fn a_huge_paste_into_a_guest_that_never_reads_stays_bounded() {
    let dir = Scratch::new();
    // Without time travel, whose checkpoints and log keep what was queued (bounded by
    // --history-mb, tested in the machines' history tests): the bound under test is the
    // paste's own.
    let prog = dir.write("count.asm", LC3_COUNTER);
    let stub = Stub::start(&prog, &["--console", "pty", "--no-history"]);
    let mut rsp = Rsp::connect(&stub);
    rsp.resume();
    let mut term = Terminal::open(&stub.console);
    let pid = stub.child.id();
    // 32 MiB offered; the terminal's writes block once asmdbg holds its limit (the pty is
    // non-blocking here, so the typist just stops).
    // The typist goes on until the terminal has refused more for a second (asmdbg stopped
    // reading) or 20 s passed: a loaded machine may take longer than usual to read the first
    // megabyte, so no fixed short deadline decides the outcome.
    let chunk = vec![b'k'; 64 * 1024];
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut written = 0usize;
    let mut last_progress = Instant::now();
    while written < 32 << 20 && Instant::now() < deadline {
        match term.0.write(&chunk) {
            Ok(n) => {
                written += n;
                last_progress = Instant::now();
            }
            Err(_) if written >= 1 << 20 && last_progress.elapsed() > Duration::from_secs(1) => {
                break
            }
            Err(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
    let peak = peak_rss_kib(pid);
    eprintln!("paste into a guest that never reads: {written} bytes taken, VmHWM {peak} KiB");
    assert!(
        written >= 1 << 20,
        "the first megabyte is taken ({written})"
    );
    assert!(written < 8 << 20, "but not everything ({written})");
    assert!(peak < 32 * 1024, "{peak} KiB");
    rsp.interrupt();
    assert!(lc3_word(&mut rsp, LC3_COUNT) > 0, "the guest ran all along");
}

/// Fills an 8 KiB buffer with 'A', then prints it forever: the most output per instruction a
/// guest can make.
const MIPS_FLOOD: &str = "\
        .data
buf:    .space 8200
        .text
main:   la $t0, buf
        li $t1, 8192
        li $t2, 65
fill:   sb $t2, 0($t0)
        addi $t0, $t0, 1
        addi $t1, $t1, -1
        bgtz $t1, fill
loop:   li $v0, 4
        la $a0, buf
        syscall
        j loop
";

const LC3_FLOOD: &str = "\
        .ORIG x3000
LOOP    LEA R0, MSG
        PUTS
        BRnzp LOOP
MSG     .STRINGZ \"flooding the console while nobody reads it\\n\"
        .END
";

fn flood_while_nobody_reads(name: &str, source: &str) {
    let dir = Scratch::new();
    let stub = start(&dir, name, source);
    let mut rsp = Rsp::connect(&stub);
    let pid = stub.child.id();
    let base = peak_rss_kib(pid);
    rsp.resume();
    std::thread::sleep(Duration::from_millis(1500));
    let sent = Instant::now();
    rsp.interrupt();
    assert!(
        sent.elapsed() < Duration::from_secs(2),
        "interrupt took {:?}",
        sent.elapsed()
    );
    let regs = rsp.request("g");
    assert!(
        regs.len() >= 32 && !regs.starts_with('E'),
        "registers: {regs}"
    );
    let peak = peak_rss_kib(pid);
    eprintln!("{name}: VmHWM {base} KiB before the flood, {peak} KiB after");
    assert!(
        peak < 64 * 1024,
        "{name}: asmdbg grew to {peak} KiB while nobody read the console"
    );
    // Someone opens the terminal: the output flows again.
    let console = stub.open_console();
    rsp.resume();
    eventually("output after the terminal opened", || {
        console.output().len() > 100_000
    });
    rsp.interrupt();
}

#[test]
fn an_lc3_guest_flooding_an_unread_console_stays_bounded_and_interruptible() {
    flood_while_nobody_reads("flood.asm", LC3_FLOOD);
}

#[test]
fn a_mips_guest_flooding_an_unread_console_stays_bounded_and_interruptible() {
    flood_while_nobody_reads("flood.s", MIPS_FLOOD);
}

#[test]
fn run_writes_a_flood_out_as_it_goes_instead_of_holding_it() {
    let dir = Scratch::new();
    let prog = dir.write("flood.s", MIPS_FLOOD);
    let mut child = support::asmdbg()
        .args([
            "run",
            prog.to_str().unwrap_or_default(),
            "--max-steps",
            "400000",
        ])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn asmdbg run");
    let pid = child.id();
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut peak = 0;
    let status = loop {
        peak = peak.max(peak_rss_kib(pid));
        if let Ok(Some(status)) = child.try_wait() {
            break status;
        }
        assert!(Instant::now() < deadline, "asmdbg run did not stop");
        std::thread::sleep(Duration::from_millis(5));
    };
    // ~100,000 prints of 8 KiB: 800 MB went to stdout.
    assert_eq!(status.code(), Some(4));
    eprintln!("asmdbg run flood: VmHWM {peak} KiB");
    assert!(peak < 64 * 1024, "asmdbg run held {peak} KiB of output");
}

/// Sleeps 1.5 s (MARS syscall 32, real time), then prints "awake" and spins.
const MIPS_SLEEPER: &str = "\
        .data
msg:    .asciiz \"awake\\n\"
        .text
main:   li $a0, 1500
        li $v0, 32
        syscall
        li $v0, 4
        la $a0, msg
        syscall
spin:   j spin
";

#[test]
fn a_sleeping_mips_guest_costs_no_cpu_answers_ctrl_c_and_wakes_on_time() {
    let dir = Scratch::new();
    let stub = start(&dir, "sleep.s", MIPS_SLEEPER);
    let console = stub.open_console();
    let mut rsp = Rsp::connect(&stub);
    let started = Instant::now();
    rsp.resume();
    std::thread::sleep(Duration::from_millis(200));
    let pid = stub.child.id();
    let before = cpu_ticks(pid);
    std::thread::sleep(Duration::from_millis(600));
    let used = cpu_ticks(pid) - before;
    assert!(
        used <= 15,
        "asmdbg used {used} ticks of cpu in 0.6 s of guest sleep"
    );
    let sent = Instant::now();
    rsp.interrupt();
    assert!(
        sent.elapsed() < Duration::from_millis(500),
        "Ctrl-C during a sleep"
    );
    assert_eq!(console.output(), "", "still asleep");
    rsp.resume();
    assert!(console.wait_for("awake", REPLY_LIMIT).contains("awake"));
    assert!(
        started.elapsed() >= Duration::from_millis(1500),
        "slept its time"
    );
    rsp.interrupt();
}

/// Rewrites the instruction at PATCH (x3003: ADD R2, R2, #1 becomes ADD R2, R2, #7) while a
/// breakpoint is set on it.
const LC3_SELF_MODIFYING: &str = "\
        .ORIG x3000
        LD R1, NEWINS
        ST R1, PATCH
        AND R2, R2, #0
PATCH   ADD R2, R2, #1
        ST R2, RESULT
DONE    BRnzp DONE
NEWINS  ADD R2, R2, #7
RESULT  .FILL 0
        .END
";

#[test]
fn lc3_code_rewritten_under_a_breakpoint_stops_there_and_runs_the_new_instruction() {
    let dir = Scratch::new();
    let stub = start(&dir, "smc.asm", LC3_SELF_MODIFYING);
    let mut rsp = Rsp::connect(&stub);
    // PATCH = x3003 -> gdb 0x6006.
    assert_eq!(rsp.request("Z0,6006,2"), "OK");
    rsp.resume();
    let stop = rsp.reply();
    assert!(stop.starts_with("T05"), "{stop}");
    assert_eq!(
        rsp.request("p0f"),
        "06600000",
        "stopped on the rewritten word"
    );
    assert_eq!(
        lc3_word(&mut rsp, 0x3003),
        0x14a7,
        "the new instruction is in memory"
    );
    assert_eq!(rsp.request("z0,6006,2"), "OK");
    // DONE = x3005 -> gdb 0x600a.
    assert_eq!(rsp.request("Z0,600a,2"), "OK");
    rsp.resume();
    assert!(rsp.reply().starts_with("T05"));
    assert_eq!(
        lc3_word(&mut rsp, 0x3007),
        7,
        "the new instruction ran, not the old"
    );
}

/// MARS refuses guest stores into .text; the debugger can still patch code.
const MIPS_PATCHED: &str = "\
        .text
main:   li $v0, 1
target: li $v0, 2
        la $t0, target
        li $t1, 0x24020009
        sw $t1, 0($t0)
done:   j done
";

#[test]
fn mips_code_patched_under_a_breakpoint_runs_the_patch_and_guest_stores_to_text_fault() {
    let dir = Scratch::new();
    let stub = start(&dir, "patch.s", MIPS_PATCHED);
    let mut rsp = Rsp::connect(&stub);
    // target = 0x00400004: set a breakpoint, then patch it to li $v0, 7 (0x24020007).
    assert_eq!(rsp.request("Z0,400004,4"), "OK");
    assert_eq!(rsp.request("M400004,4:07000224"), "OK");
    rsp.resume();
    assert!(rsp.reply().starts_with("T05"));
    assert_eq!(rsp.request("p25"), "04004000", "pc at the patched word");
    assert_eq!(rsp.mem(0x400004, 4), "07000224");
    assert!(is_stop(&rsp.request("s")));
    assert_eq!(rsp.request("p2"), "07000000", "the patch ran");
    // The guest's own store into .text is MARS's address error; the code is unchanged.
    assert_eq!(rsp.request("z0,400004,4"), "OK");
    rsp.resume();
    let stop = rsp.reply();
    assert!(
        stop.starts_with("T0b") || stop.starts_with("S0b"),
        "SIGSEGV: {stop}"
    );
    assert_eq!(rsp.mem(0x400004, 4), "07000224");
}

/// Peak RSS of `asmdbg debug GAME` after a short gdb session (connect, step, registers,
/// memory, disassembly, detach) and a moment of play, in KiB.
fn game_peak_rss(game: &Path) -> u64 {
    let stub = Stub::start(game, &["--console", "pty"]);
    let out = stub.gdb("stepi 3\ninfo registers\nx/64x $sp\nmonitor disas\nmonitor regs\ndetach");
    assert!(
        out.contains("detached"),
        "the session ended normally:\n{out}"
    );
    // Then the game runs for a moment with a few moves typed.
    let mut console = stub.open_console();
    let mut rsp = Rsp::connect(&stub);
    rsp.resume();
    for _ in 0..4 {
        console.type_bytes(b"1\r");
        std::thread::sleep(Duration::from_millis(50));
    }
    // A game that has already ended (tictactoe plays itself out) reported W and closed.
    let _ = rsp.stream.write_all(&[0x03]);
    let reply = rsp.reply();
    assert!(is_stop(&reply) || reply.starts_with('W'), "{reply}");
    // (A game that ended under time travel reports the end of its history first.)
    if is_stop(&reply) && !reply.contains("replaylog") {
        assert!(!console.output().is_empty(), "the game printed something");
    }
    let pid = stub.child.id();
    peak_rss_kib(pid)
}

#[test]
fn every_game_stays_small_under_the_debugger() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let games = [
        "programs/lc3/connect4.asm",
        "programs/lc3/dots.asm",
        "programs/lc3/nim.asm",
        "programs/mips/four_in_a_row.asm",
        "programs/simplerisc/tictactoe.asm",
    ];
    for game in games {
        let started = Instant::now();
        let peak = game_peak_rss(&root.join(game));
        eprintln!("{game}: session took {:?}", started.elapsed());
        eprintln!("{game}: VmHWM {peak} KiB under a short gdb session");
        assert!(peak > 0, "{game}: VmHWM readable");
        assert!(peak < 64 * 1024, "{game}: {peak} KiB");
    }
}

#[test]
fn a_packet_that_fails_in_acknowledgement_mode_is_acknowledged_then_answered() {
    let dir = Scratch::new();
    let stub = start(&dir, "count.asm", LC3_COUNTER);
    let mut rsp = Rsp::connect(&stub);
    assert!(is_stop(&rsp.request("?")));
    // gdbstub cannot serve this one; the session answers for it, `+` first as gdb expects.
    rsp.send_raw(&packet(b"mzz,qq"));
    rsp.expect_byte(b'+');
    assert!(rsp.reply().starts_with('E'));
    // A damaged packet is asked for again; the next good one is served.
    rsp.send_raw(b"$g#00");
    rsp.expect_byte(b'-');
    assert!(is_stop(&rsp.request("s")));
}

/// Ctrl-C stops a reverse-continue that has a long history to search (the search goes one
/// interval of history per burst, reading gdb's bytes between them), and the machine is left
/// at a point of its history that a later request can go on from.
#[test]
fn ctrl_c_stops_a_long_reverse_continue() {
    let dir = Scratch::new();
    // 90 million instructions of counting, then a wait for a key that never comes: a history
    // of the same length however fast the machine runs (a spin for a fixed time made one that
    // compiled code filled with billions, longer than the whole search may take here).
    let spin = "        .ORIG x3000
        AND R1, R1, #0
        LD R2, ROUNDS
OUTER   LD R3, TURNS
LOOP    ADD R1, R1, #1
        ADD R3, R3, #-1
        BRp LOOP
        ADD R2, R2, #-1
        BRp OUTER
        GETC
        HALT
ROUNDS  .FILL #3000
TURNS   .FILL #10000
        .END
";
    let stub = start(&dir, "spin.asm", spin);
    let mut rsp = Rsp::connect(&stub);
    rsp.resume();
    std::thread::sleep(Duration::from_secs(2));
    rsp.interrupt();
    // A breakpoint at the entry, passed only at the very start: the search must cover all
    // of history.
    assert_eq!(rsp.request("Z0,6000,2"), "OK");
    rsp.send_raw(&packet(b"bc"));
    rsp.expect_byte(b'+');
    let stop = rsp.interrupt();
    assert!(!stop.contains("replaylog"), "{stop}");
    // From there the search can still be done to the end: the breakpoint at the start.
    rsp.send_raw(&packet(b"bc"));
    rsp.expect_byte(b'+');
    let stop = rsp.reply();
    assert!(stop.starts_with("T05"), "{stop}");
    assert!(stop.contains("swbreak"), "{stop}");
}
