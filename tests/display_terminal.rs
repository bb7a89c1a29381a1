//! The display drawn in a terminal, read back through a terminal emulator (the `vt100` crate):
//! `asmdbg run` on a real pty shows PennSim's video display in 24-bit colour half blocks above
//! the console's output, and a terminal that cannot show it gets one line on stderr instead;
//! `asmdbg debug` draws the display on a pty of its own, after a continue and after a move back
//! in history.

mod support;

use std::io::Read;
use std::net::TcpStream;
use std::os::fd::AsRawFd;
use std::process::Stdio;
use std::thread;
use std::time::{Duration, Instant};

use support::{rsp_exchange, Scratch, Stub};

/// Fills the first row of the video display (xC000-xC07F) with red, puts one green pixel at
/// column 5 of row 10, prints a line and halts.
const DRAWING: &str = "\
        .ORIG x3000
        LD R1, VIDEO
        LD R2, RED
        LD R3, COUNT
ROW     STR R2, R1, #0
        ADD R1, R1, #1
        ADD R3, R3, #-1
        BRp ROW
        LD R1, SPOT
        LD R2, GREEN
        STR R2, R1, #0
        LEA R0, MSG
        PUTS
        HALT
VIDEO   .FILL xC000
RED     .FILL x7C00
GREEN   .FILL x03E0
COUNT   .FILL #128
SPOT    .FILL xC505
MSG     .STRINGZ \"drawn\\n\"
        .END
";

/// PennSim's x7C00 and x03E0: each 5-bit channel at the top of its byte.
const RED: u32 = 0xf80000;
const GREEN: u32 = 0x00f800;

/// What the terminal's cell at `row`, `col` shows: its text and its colours (`None` for the
/// terminal's default colour).
fn cell(parser: &vt100::Parser, row: u16, col: u16) -> (String, Option<u32>, Option<u32>) {
    let cell = parser
        .screen()
        .cell(row, col)
        .expect("a cell on the screen");
    let rgb = |c: vt100::Color| match c {
        vt100::Color::Rgb(r, g, b) => Some(u32::from(r) << 16 | u32::from(g) << 8 | u32::from(b)),
        vt100::Color::Default => None,
        other => panic!("a colour that is not 24-bit: {other:?}"),
    };
    (
        cell.contents().to_string(),
        rgb(cell.fgcolor()),
        rgb(cell.bgcolor()),
    )
}

fn half_block(upper: u32, lower: u32) -> (String, Option<u32>, Option<u32>) {
    ("\u{2580}".to_string(), Some(upper), Some(lower))
}

fn set_size(fd: i32, cols: u16, rows: u16) {
    let size = libc::winsize {
        ws_row: rows,
        ws_col: cols,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCSWINSZ reads one valid winsize; `fd` is an open terminal.
    assert_eq!(unsafe { libc::ioctl(fd, libc::TIOCSWINSZ, &size) }, 0);
}

/// Runs `asmdbg run ARGS` with stdin and stdout on a new pty of `cols × rows` cells, in an
/// environment with `colorterm`: everything the terminal received, and stderr.
fn run_on_terminal(
    args: &[&str],
    cols: u16,
    rows: u16,
    colorterm: Option<&str>,
) -> (Vec<u8>, String) {
    let (shown, status, stderr) = run_on_terminal_until(args, cols, rows, colorterm, None);
    assert!(status.success(), "{status:?}: {stderr}");
    (shown, stderr)
}

/// The same, sending `signal` to asmdbg once its terminal has shown something.
fn run_on_terminal_until(
    args: &[&str],
    cols: u16,
    rows: u16,
    colorterm: Option<&str>,
    signal: Option<libc::c_int>,
) -> (Vec<u8>, std::process::ExitStatus, String) {
    let pty = nix::pty::openpty(None, None).expect("openpty");
    set_size(pty.slave.as_raw_fd(), cols, rows);
    let mut command = support::asmdbg();
    command
        .args(args)
        .env("TERM", "xterm-256color")
        .env_remove("COLORTERM")
        .stdin(Stdio::from(pty.slave.try_clone().expect("clone")))
        .stdout(Stdio::from(pty.slave.try_clone().expect("clone")))
        .stderr(Stdio::piped());
    if let Some(value) = colorterm {
        command.env("COLORTERM", value);
    }
    let child = command.spawn().expect("spawn asmdbg");
    // Only the child holds the slave now: the reader sees EIO when it ends.
    drop(command);
    drop(pty.slave);
    let mut master = std::fs::File::from(pty.master);
    let (first_tx, first_rx) = std::sync::mpsc::channel();
    let reader = thread::spawn(move || {
        let mut shown = Vec::new();
        let mut buf = [0u8; 4096];
        // EIO once the child's handles on the slave are closed.
        while let Ok(n) = master.read(&mut buf) {
            if n == 0 {
                break;
            }
            shown.extend_from_slice(&buf[..n]);
            let _ = first_tx.send(());
        }
        shown
    });
    if let Some(signal) = signal {
        first_rx
            .recv_timeout(Duration::from_secs(5))
            .expect("the terminal shows something");
        thread::sleep(Duration::from_millis(200));
        let pid = libc::pid_t::try_from(child.id()).expect("pid");
        // SAFETY: kill only sends a signal to our own child process.
        assert_eq!(unsafe { libc::kill(pid, signal) }, 0);
    }
    let out = child.wait_with_output().expect("wait");
    let shown = reader.join().expect("reader");
    (
        shown,
        out.status,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn run_on_a_terminal_draws_the_display_above_the_console_in_24_bit_colour() {
    let dir = Scratch::with_files(&[("red.asm", DRAWING)]);
    let program = dir.path().join("red.asm");
    let program = program.to_str().expect("path");
    let (shown, stderr) =
        run_on_terminal(&["run", program, "--display"], 140, 70, Some("truecolor"));
    assert!(!stderr.contains("cannot show"), "{stderr}");
    // While the program ran: the alternate screen, the frame at its own size (140 x 70 cells
    // hold 128 x 124 pixels as 128 x 62 cells), the console's rows below it.
    let leave = b"\x1b[?1049l";
    let end = shown
        .windows(leave.len())
        .position(|w| w == leave)
        .expect("the ordinary screen comes back");
    let mut live = vt100::Parser::new(70, 140, 0);
    live.process(&shown[..end]);
    assert!(live.screen().alternate_screen());
    assert_eq!(cell(&live, 0, 0), half_block(RED, 0));
    assert_eq!(cell(&live, 0, 127), half_block(RED, 0));
    assert_eq!(cell(&live, 0, 128).0, "", "nothing right of the frame");
    // Pixel (5, 10): the upper half of the cell in row 5.
    assert_eq!(cell(&live, 5, 5), half_block(GREEN, 0));
    assert_eq!(cell(&live, 5, 4), half_block(0, 0));
    assert_eq!(cell(&live, 61, 127), half_block(0, 0));
    let console: Vec<String> = live.screen().rows(0, 140).skip(62).collect();
    assert!(
        console.iter().any(|row| row == "drawn"),
        "the console's text below the frame: {console:?}"
    );
    // Between them, the status line: how the display is scaled, how to end the run.
    assert_eq!(
        console[0], "128×124 display, ×1 · Ctrl-C ends the run",
        "{console:?}"
    );
    // After the run, on the ordinary screen: the last frame, then the console's output.
    let mut after = vt100::Parser::new(70, 140, 0);
    after.process(&shown);
    assert!(!after.screen().alternate_screen());
    assert_eq!(cell(&after, 0, 0), half_block(RED, 0));
    assert_eq!(cell(&after, 5, 5), half_block(GREEN, 0));
    let text = after.screen().contents();
    assert!(
        text.contains("drawn") && text.contains("Halting the processor"),
        "{text}"
    );
    assert!(!after.screen().hide_cursor(), "the cursor is back");
}

#[test]
fn a_terminal_without_24_bit_colour_or_room_gets_one_line_and_the_plain_run() {
    let dir = Scratch::with_files(&[("red.asm", DRAWING)]);
    let program = dir.path().join("red.asm");
    let program = program.to_str().expect("path");
    let plain = "drawn\r\n\r\n----- Halting the processor ----- \r\n";
    for (cols, rows, colorterm, says) in [
        (140, 70, None, "24-bit colour"),
        (19, 30, Some("24bit"), "of 19x30 cells"),
    ] {
        let (shown, stderr) =
            run_on_terminal(&["run", program, "--display"], cols, rows, colorterm);
        assert_eq!(String::from_utf8_lossy(&shown), plain, "no drawing at all");
        let lines: Vec<&str> = stderr.lines().filter(|l| l.contains("display")).collect();
        assert_eq!(lines.len(), 1, "{stderr}");
        assert!(
            lines[0].starts_with("asmdbg: the terminal")
                && lines[0].contains("cannot show the display")
                && lines[0].contains(says)
                && lines[0].ends_with("use --display-png FILE"),
            "{stderr}"
        );
    }
    // Not a terminal: exactly the output of today, whatever the environment says.
    let out = support::asmdbg()
        .args(["run", program, "--display"])
        .env("TERM", "xterm-256color")
        .env("COLORTERM", "truecolor")
        .stdin(Stdio::null())
        .output()
        .expect("run");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "drawn\n\n----- Halting the processor ----- \n"
    );
    assert!(!String::from_utf8_lossy(&out.stderr).contains("display"));
}

#[test]
fn an_interrupted_run_gives_the_ordinary_screen_back() {
    // Says hello, then draws for ever.
    let dir = Scratch::with_files(&[(
        "forever.asm",
        ".ORIG x3000\nLEA R0, HI\nPUTS\nLD R1, VIDEO\nLD R2, BLUE\nLOOP STR R2, R1, #0\nBR LOOP\n\
         VIDEO .FILL xC000\nBLUE .FILL x001F\nHI .STRINGZ \"hello from the console\\n\"\n.END\n",
    )]);
    let program = dir.path().join("forever.asm");
    for signal in [libc::SIGINT, libc::SIGTERM] {
        let (shown, status, stderr) = run_on_terminal_until(
            &[
                "run",
                program.to_str().expect("path"),
                "--display",
                "--stats",
            ],
            100,
            40,
            Some("truecolor"),
            Some(signal),
        );
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(signal), "{status:?}");
        let mut term = vt100::Parser::new(40, 100, 0);
        term.process(&shown);
        assert!(
            !term.screen().alternate_screen(),
            "the ordinary screen is back"
        );
        // As after any end: the last frame (the blue pixel at the top left) and the console's
        // text on the ordinary screen, the message and --stats on stderr.
        let contents = term.screen().contents();
        assert!(contents.contains("hello from the console"), "{contents}");
        let left = shown
            .windows(8)
            .rposition(|w| w == b"\x1b[?1049l")
            .expect("the alternate screen was left");
        let after = String::from_utf8_lossy(&shown[left..]);
        let blue = format!("{:?}", {
            let c = asmdbg_core::display::pennsim_rgb(0x001f);
            (c >> 16, (c >> 8) & 0xff, c & 0xff)
        });
        assert!(
            after.contains('\u{2580}') && after.contains("38;2;"),
            "the last frame printed on the ordinary screen ({blue}): {after:?}"
        );
        let by = if signal == libc::SIGINT {
            "Ctrl-C"
        } else {
            "SIGTERM"
        };
        assert!(
            stderr.contains(&format!("the run was ended by {by} at PC x3005")),
            "{stderr}"
        );
        assert!(stderr.contains("stats: "), "{stderr}");
    }
    let (shown, status, _) = run_on_terminal_until(
        &["run", program.to_str().expect("path"), "--display"],
        100,
        40,
        Some("truecolor"),
        Some(libc::SIGINT),
    );
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(libc::SIGINT), "{status:?}");
    let mut term = vt100::Parser::new(40, 100, 0);
    term.process(&shown);
    assert!(
        shown.windows(8).any(|w| w == b"\x1b[?1049h"),
        "the view was up"
    );
    assert!(
        !term.screen().alternate_screen(),
        "the ordinary screen is back"
    );
    assert!(!term.screen().hide_cursor(), "with its cursor");
    // The scrolling region is the whole screen again: a line feed at the bottom scrolls it.
    term.process(b"\x1b[40;1Hbottom\r\n");
    assert!(term.screen().contents().lines().any(|l| l == "bottom"));
    assert_eq!(term.screen().cursor_position(), (39, 0));
}

/// A terminal on the display's pty, read without threads (non-blocking) so that dropping it
/// really closes the pty.
struct Viewer {
    file: std::fs::File,
    seen: Vec<u8>,
}

impl Viewer {
    fn open(path: &str) -> Viewer {
        use std::os::unix::fs::OpenOptionsExt;
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
            .open(path)
            .expect("open the display pty");
        Viewer {
            file,
            seen: Vec::new(),
        }
    }

    /// Waits until the terminal shows `expected` at `row`, `col` (a terminal of 140 x 70).
    fn wait_for_cell(&mut self, row: u16, col: u16, expected: (String, Option<u32>, Option<u32>)) {
        let deadline = Instant::now() + Duration::from_secs(4);
        let mut buf = [0u8; 1 << 16];
        loop {
            while let Ok(n) = self.file.read(&mut buf) {
                if n == 0 {
                    break;
                }
                self.seen.extend_from_slice(&buf[..n]);
            }
            let mut parser = vt100::Parser::new(70, 140, 0);
            parser.process(&self.seen);
            let shown = cell(&parser, row, col);
            if shown == expected {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "the display shows {shown:?} at ({row}, {col}), not {expected:?}"
            );
            thread::sleep(Duration::from_millis(20));
        }
    }
}

#[test]
fn debug_draws_the_display_on_its_own_pty_and_follows_history() {
    let dir = Scratch::with_files(&[("red.asm", DRAWING)]);
    let stub = Stub::start(&dir.path().join("red.asm"), &["--display"]);
    let deadline = Instant::now() + Duration::from_secs(5);
    let path = loop {
        let stderr = stub.stderr();
        if let Some(path) = stderr.lines().find_map(|l| l.strip_prefix("display: ")) {
            assert!(
                stderr.find("console: ") < stderr.find("display: "),
                "{stderr}"
            );
            break path.to_string();
        }
        assert!(Instant::now() < deadline, "no display line: {stderr}");
        thread::sleep(Duration::from_millis(20));
    };
    let mut display = Viewer::open(&path);
    set_size(display.file.as_raw_fd(), 140, 70);
    // The whole frame as soon as it is opened: black before the program ran.
    display.wait_for_cell(0, 0, half_block(0, 0));
    let mut gdb = TcpStream::connect(("127.0.0.1", stub.port)).expect("connect");
    rsp_exchange(&mut gdb, "?");
    let stop = rsp_exchange(&mut gdb, "c");
    assert!(stop.contains("$T05") || stop.contains("$S05"), "{stop}");
    display.wait_for_cell(0, 0, half_block(RED, 0));
    display.wait_for_cell(5, 5, half_block(GREEN, 0));
    // Back to the start of history: the frame of then, black again.
    let back = rsp_exchange(&mut gdb, "bc");
    assert!(back.contains("replaylog:begin"), "{back}");
    display.wait_for_cell(0, 0, half_block(0, 0));
    display.wait_for_cell(5, 5, half_block(0, 0));
    // The viewer goes away; the debugger goes on, and a new viewer gets the whole frame.
    drop(display);
    thread::sleep(Duration::from_millis(200));
    let again = rsp_exchange(&mut gdb, "c");
    assert!(again.contains("$T05") || again.contains("$S05"), "{again}");
    let mut display = Viewer::open(&path);
    display.wait_for_cell(0, 0, half_block(RED, 0));
    display.wait_for_cell(5, 5, half_block(GREEN, 0));
}

/// `asmdbg console DISPLAY_PTY` in a terminal: the display is drawn for the terminal's size
/// (the console passes it on to the pty) and, when the debug server goes away, the cursor the
/// drawings hid comes back.
#[test]
fn the_console_viewer_passes_its_size_on_and_shows_the_cursor_at_the_end() {
    viewer_passes_its_size_on(&[]);
}

/// With `--console tcp` the display is on a TCP port too (`display: 127.0.0.1:PORT`): the
/// viewer tells its size the way telnet does.
#[test]
fn the_viewer_of_a_tcp_display_passes_its_size_on_too() {
    viewer_passes_its_size_on(&["--console", "tcp"]);
}

fn viewer_passes_its_size_on(extra: &[&str]) {
    let dir = Scratch::with_files(&[("red.asm", DRAWING)]);
    let mut args = vec!["--display"];
    args.extend_from_slice(extra);
    let mut stub = Stub::start(&dir.path().join("red.asm"), &args);
    let deadline = Instant::now() + Duration::from_secs(5);
    let path = loop {
        if let Some(path) = stub
            .stderr()
            .lines()
            .find_map(|l| l.strip_prefix("display: "))
        {
            break path.to_string();
        }
        assert!(Instant::now() < deadline, "no display line");
        thread::sleep(Duration::from_millis(20));
    };
    let pty = nix::pty::openpty(None, None).expect("openpty");
    set_size(pty.slave.as_raw_fd(), 100, 30);
    let mut command = support::asmdbg();
    command
        .args(["console", &path])
        .stdin(Stdio::from(pty.slave.try_clone().expect("clone")))
        .stdout(Stdio::from(pty.slave.try_clone().expect("clone")))
        .stderr(Stdio::piped());
    let mut viewer = command.spawn().expect("asmdbg console");
    drop(command);
    drop(pty.slave);
    let mut master = std::fs::File::from(pty.master);
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = thread::spawn(move || {
        let mut shown = Vec::new();
        let mut buf = [0u8; 4096];
        while let Ok(n) = master.read(&mut buf) {
            if n == 0 {
                break;
            }
            shown.extend_from_slice(&buf[..n]);
            let _ = tx.send(String::from_utf8_lossy(&shown).into_owned());
        }
        shown
    });
    // 100 x 30 less the status line: 128 x 124 shrunk to 58 dots down (29 rows), 59 across.
    let want = "128×124 display, at 46%";
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let seen = rx
            .recv_timeout(Duration::from_secs(5))
            .expect("the viewer shows something");
        if seen.contains(want) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "no status line for 100 x 30: {seen:?}"
        );
    }
    // The debug server ends: the viewer ends with the cursor shown.
    let _ = stub.child.kill();
    let _ = stub.child.wait();
    let status = viewer.wait().expect("the viewer ends");
    assert!(status.success(), "{status:?}");
    let shown = reader.join().expect("reader");
    let tail = &shown[shown.len().saturating_sub(16)..];
    assert!(
        tail.windows(6).any(|w| w == b"\x1b[?25h"),
        "the cursor is shown again: {:?}",
        String::from_utf8_lossy(tail)
    );
}
