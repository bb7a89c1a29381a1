//! The host: all that asmdbg's binary asks of the operating system, behind this one seam
//! (unix.rs and windows.rs implement what differs; nothing else in the binary calls an OS API):
//!
//! - **The terminal**: key-by-key input without echo for a run or an attached console
//!   ([`KeyMode`], [`TypedKeys`]), its size ([`window_size`]), whether stdin or stdout is one,
//!   and giving it back as it was on every way out: the guard's drop (normal end, fault, end
//!   of input, step limit, an error), the panic hook, Ctrl-C and the signals that end a
//!   process. The key mode is crossterm's raw mode on every OS (see [`KeyMode`]).
//! - **The endings of a run** ([`catch_endings`]): Ctrl-C, and on Unix SIGTERM and SIGHUP, on
//!   Windows Ctrl-Break, end a run as its own end does — the run stops at its next slice
//!   ([`interruption`]), the last frame, the console's text and `--stats` are shown, then the
//!   process dies of what interrupted it ([`die_of_interruption`]: the signal on Unix,
//!   `STATUS_CONTROL_C_EXIT` on Windows), so the shell sees the usual status. A second one while
//!   that is under way (or SIGQUIT, Ctrl-\) gives the terminal back and ends the process at once.
//! - **The guest's console and the display's channel** under the debugger ([`console`]): a
//!   pseudo-terminal (Unix, the default there), this process's stdio, or a loopback TCP port
//!   (every OS, the default on Windows), and `asmdbg console`, which attaches this terminal to
//!   either ([`console::attach`]).
//! - Large allocations as fresh pages ([`map_large_allocations`]), for the grader.

pub mod console;
mod telnet;

#[cfg(unix)]
#[path = "unix.rs"]
mod os;
#[cfg(windows)]
#[path = "windows.rs"]
mod os;

use std::io::{self, IsTerminal, Read, Write};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Mutex, OnceLock};

pub use os::map_large_allocations;

/// The guest console a debug session gets unless told otherwise: a pty on Unix, a loopback TCP
/// port on Windows (which has no ptys).
pub const DEFAULT_CONSOLE: console::Transport = os::DEFAULT_CONSOLE;

/// Whether this process's stdin is a terminal.
pub fn stdin_is_terminal() -> bool {
    io::stdin().is_terminal()
}

/// Whether this process's stdout is a terminal.
pub fn stdout_is_terminal() -> bool {
    io::stdout().is_terminal()
}

/// The size in columns and rows of the terminal that stdout is, when it is one that knows it.
pub fn window_size() -> Option<(u16, u16)> {
    os::window_size().filter(|&(cols, rows)| cols > 0 && rows > 0)
}

/// What the terminal says it is (TERM) and whether it has 24-bit colour (COLORTERM), for the
/// display's drawings; on Windows, a console that understands escape sequences counts as one
/// with both.
pub fn terminal_names() -> (Option<String>, Option<String>) {
    os::terminal_names()
}

/// The terminal of stdin is in key mode (crossterm's raw mode): bytes typed reach asmdbg as
/// typed, nothing echoes, and output gets no `\r` before `\n` from the terminal
/// ([`TerminalOutput`] adds it).
static RAW: AtomicBool = AtomicBool::new(false);

/// What gives the screen back (colours, cursor, the ordinary screen) when the process ends
/// while a drawing is up.
static SCREEN_RESTORE: Mutex<Option<&'static [u8]>> = Mutex::new(None);

/// Key-by-key input on the terminal of stdin for as long as it lives: each key reaches the
/// program when it is pressed and shows only if the program echoes it, as on lc3tools' and the
/// LC-3 simulators' consoles. Read the keys through [`TypedKeys`]: Enter arrives as a newline
/// and Ctrl-C ends the run (or the attached console) as the signal would.
///
/// crossterm's raw mode, the same on every OS (termios on Unix, the console's input mode on
/// Windows), instead of hand-written termios flags: the terminal's line discipline is then out
/// of the way everywhere, and the few things it did for asmdbg — Enter as a newline, Ctrl-C,
/// Ctrl-\ and Ctrl-Z, a carriage return before each newline of output — are done here, once,
/// for every OS.
pub struct KeyMode {
    _entered: (),
}

impl KeyMode {
    /// Switches the terminal of stdin to key mode; `None` (nothing changed) when stdin is a
    /// file or a pipe.
    pub fn enter() -> io::Result<Option<KeyMode>> {
        if !stdin_is_terminal() {
            return Ok(None);
        }
        install_restorers();
        crossterm::terminal::enable_raw_mode()?;
        RAW.store(true, Ordering::SeqCst);
        Ok(Some(KeyMode { _entered: () }))
    }
}

impl Drop for KeyMode {
    fn drop(&mut self) {
        leave_key_mode();
    }
}

fn leave_key_mode() {
    if RAW.swap(false, Ordering::SeqCst) {
        // Nothing more can be done if the terminal went away; the process is ending anyway.
        let _ = crossterm::terminal::disable_raw_mode();
    }
}

/// Back in key mode after a suspension (Unix: Ctrl-Z, then `fg`).
fn reenter_key_mode() {
    if crossterm::terminal::enable_raw_mode().is_ok() {
        RAW.store(true, Ordering::SeqCst);
    }
}

/// Keys typed on a terminal in [`KeyMode`], as the program should get them: Enter (`\r`) as a
/// newline, and Ctrl-C (`0x03`) not as a key but as the end of the run (as SIGINT would, see
/// [`catch_endings`]); on Unix Ctrl-\ ends the process at once and Ctrl-Z suspends it, as the
/// terminal's own line discipline does outside key mode.
pub struct TypedKeys<R> {
    keys: R,
}

impl<R: Read> TypedKeys<R> {
    pub fn new(keys: R) -> Self {
        TypedKeys { keys }
    }
}

/// What one typed byte stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Typed {
    Key(u8),
    Interrupt,
    Quit,
    Suspend,
}

fn typed(byte: u8) -> Typed {
    match byte {
        b'\r' => Typed::Key(b'\n'),
        0x03 => Typed::Interrupt,
        0x1c if os::HAS_QUIT_AND_SUSPEND => Typed::Quit,
        0x1a if os::HAS_QUIT_AND_SUSPEND => Typed::Suspend,
        key => Typed::Key(key),
    }
}

impl<R: Read> Read for TypedKeys<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let n = self.keys.read(buf)?;
            if n == 0 {
                return Ok(0);
            }
            let mut kept = 0;
            for i in 0..n {
                match typed(buf[i]) {
                    Typed::Key(key) => {
                        buf[kept] = key;
                        kept += 1;
                    }
                    Typed::Interrupt => interrupt(os::CTRL_C),
                    Typed::Quit => restore_and_die(os::QUIT),
                    Typed::Suspend => {
                        restore_terminal();
                        os::suspend();
                        reenter_key_mode();
                    }
                }
            }
            // Only control keys came: wait for more rather than report the end of input.
            if kept > 0 {
                return Ok(kept);
            }
        }
    }
}

/// Output to the terminal: while it is in [`KeyMode`], each `\n` is written as `\r\n`, as the
/// terminal itself does outside key mode (so lines start at the left edge).
pub struct TerminalOutput<W> {
    out: W,
}

impl<W: Write> TerminalOutput<W> {
    pub fn new(out: W) -> Self {
        TerminalOutput { out }
    }
}

impl<W: Write> Write for TerminalOutput<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if !RAW.load(Ordering::SeqCst) || !buf.contains(&b'\n') {
            return self.out.write(buf);
        }
        let mut lines = Vec::with_capacity(buf.len() + 16);
        for &byte in buf {
            if byte == b'\n' {
                lines.push(b'\r');
            }
            lines.push(byte);
        }
        self.out.write_all(&lines)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// While a drawing is up on stdout's terminal, `restore` is written there if the process ends
/// (the panic hook, a signal, Ctrl-C); `None` once the screen is back.
pub fn restore_screen_with(restore: Option<&'static [u8]>) {
    install_restorers();
    if let Ok(mut screen) = SCREEN_RESTORE.lock() {
        *screen = restore;
    }
}

/// The terminal as it was: the ordinary screen back and key mode left. For the ways out that
/// skip the guards (the panic hook, signals, Ctrl-C).
fn restore_terminal() {
    let restore = SCREEN_RESTORE.lock().ok().and_then(|mut s| s.take());
    if let Some(bytes) = restore {
        // Not through io::stdout(): the run may hold its lock.
        os::write_stdout_unlocked(bytes);
    }
    leave_key_mode();
}

/// What asked the run to end (0: nothing yet): a signal number on Unix, a console control
/// event (plus one) on Windows.
static INTERRUPTION: AtomicI32 = AtomicI32::new(0);

/// The run catches its endings ([`catch_endings`]); before that they end the process at once.
static CATCHING: AtomicBool = AtomicBool::new(false);

/// Ctrl-C or a signal that ends the process: noted, for the run to end at its next slice, when
/// a run catches its endings and nothing else came first; otherwise the terminal is given back
/// and the process ends at once.
fn interrupt(ending: i32) {
    if CATCHING.load(Ordering::SeqCst)
        && INTERRUPTION
            .compare_exchange(0, ending, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    {
        return;
    }
    restore_and_die(ending);
}

fn restore_and_die(ending: i32) -> ! {
    restore_terminal();
    os::die_of(ending)
}

/// Catches Ctrl-C (and SIGTERM, SIGHUP; Windows: Ctrl-Break) for the rest of the process: they
/// end the run at its next slice instead of the process at once (see the module header).
pub fn catch_endings() {
    install_restorers();
    CATCHING.store(true, Ordering::SeqCst);
}

/// What asked the run to end, as the user knows it (`Ctrl-C`, `SIGTERM`), if anything did.
pub fn interruption() -> Option<&'static str> {
    match INTERRUPTION.load(Ordering::SeqCst) {
        0 => None,
        ending => Some(os::describe(ending)),
    }
}

/// After an interrupted run has shown its end: the terminal back as it was, then the process
/// ends of what interrupted it. Does nothing when nothing did.
pub fn die_of_interruption() {
    let ending = INTERRUPTION.load(Ordering::SeqCst);
    if ending != 0 {
        let _ = io::stdout().flush();
        restore_and_die(ending);
    }
}

/// The panic hook and the OS's ending handlers, once per process.
fn install_restorers() {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        os::handle_endings(interrupt);
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore_terminal();
            previous(info);
        }));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tests that set the process's key-mode flag take turns.
    static KEY_MODE_FLAG: Mutex<()> = Mutex::new(());

    #[test]
    fn enter_is_a_newline_and_other_keys_pass_unchanged() {
        let mut keys = TypedKeys::new(&b"ab\r\n\x1b[A\x7f"[..]);
        let mut got = Vec::new();
        keys.read_to_end(&mut got).unwrap();
        assert_eq!(got, b"ab\n\n\x1b[A\x7f");
        assert_eq!(typed(0x03), Typed::Interrupt);
    }

    #[test]
    fn output_in_key_mode_starts_each_line_at_the_left_edge() {
        let _turn = KEY_MODE_FLAG.lock().unwrap_or_else(|e| e.into_inner());
        let mut shown = Vec::new();
        RAW.store(true, Ordering::SeqCst);
        let written = TerminalOutput::new(&mut shown).write(b"a\nb\n").unwrap();
        RAW.store(false, Ordering::SeqCst);
        assert_eq!(written, 4);
        TerminalOutput::new(&mut shown).write_all(b"c\n").unwrap();
        assert_eq!(shown, b"a\r\nb\r\nc\n");
    }

    #[test]
    fn a_panic_gives_the_terminal_back_before_unwinding() {
        let _turn = KEY_MODE_FLAG.lock().unwrap_or_else(|e| e.into_inner());
        install_restorers();
        // As if key mode were on (crossterm has nothing saved to restore, so nothing changes
        // on the terminal this test runs on).
        RAW.store(true, Ordering::SeqCst);
        let result = std::panic::catch_unwind(|| panic!("a bug in asmdbg"));
        assert!(result.is_err());
        assert!(
            !RAW.load(Ordering::SeqCst),
            "the panic hook left key mode while the guard still lives"
        );
    }
}
