//! `asmdbg run` on a terminal, for a machine that reads single keys (LC-3's GETC, IN and
//! keyboard polling): the terminal is put into non-canonical mode without echo for the run, so
//! that each key reaches the program when it is pressed and shows only if the program echoes
//! it — as on lc3tools' and the LC-3 simulators' consoles. Ctrl-C still interrupts (ISIG stays)
//! and Enter still arrives as a newline (ICRNL stays).
//!
//! The saved settings come back on every way out: when the [`KeyMode`] guard is dropped (normal
//! end, fault, end of input, step limit, an error), from the panic hook, and on a signal.
//!
//! Ctrl-C (SIGINT), SIGTERM and SIGHUP end a run the way its end does ([`catch_endings`]): the
//! handler only notes the signal; the run stops at its next slice ([`interrupted`]), the last
//! frame, the console's text and `--stats` are printed as after any end, and then the process
//! dies of the same signal ([`die_of_interruption`]), so the shell sees the usual status. A
//! second signal while that is under way (or SIGQUIT) restores the terminal and dies at once.
//! Only async-signal-safe calls are made in the handlers (an atomic store, `tcsetattr`,
//! `write`, `signal`, `raise`), on a copy of the settings saved before the handler exists.
//!
//! Limits: Ctrl-Z (SIGTSTP) is left to the shell's default, so a suspended run keeps the key
//! mode until it is resumed and ends. SIGKILL cannot be caught.
//!
//! The machine's display ([`DisplayView`]) is drawn the same way: on the alternate screen, above
//! the console's scrolling rows, and the ordinary screen comes back on every way out (the guard's
//! drop, the panic hook, the signal handler, which writes the bytes that leave it with
//! `write`, async-signal-safe).

use std::io::{self, Write};
use std::os::fd::{AsRawFd, BorrowedFd};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use asmdbg_core::Machine;

use crate::run::RunView;
use crate::screen::{self, RunLayout, Screen};

/// The terminal settings before the run, for the signal handler and the panic hook.
static SAVED: OnceLock<(i32, libc::termios)> = OnceLock::new();

/// Signals that end the process and must not leave the terminal in key mode.
const ENDING_SIGNALS: [libc::c_int; 4] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT];

/// Key-by-key input on a terminal for as long as it lives.
pub struct KeyMode {
    fd: i32,
    saved: libc::termios,
}

impl KeyMode {
    /// Switches `input` to key mode when it is a terminal; `None` (nothing changed) when it is
    /// a file or a pipe.
    pub fn enter(input: BorrowedFd<'_>) -> io::Result<Option<KeyMode>> {
        let fd = input.as_raw_fd();
        // SAFETY: isatty only inspects the descriptor, which `input` keeps open.
        if unsafe { libc::isatty(fd) } != 1 {
            return Ok(None);
        }
        let saved = get_attributes(fd)?;
        let mut keys = saved;
        keys.c_lflag &= !(libc::ICANON | libc::ECHO | libc::ECHONL);
        keys.c_cc[libc::VMIN] = 1;
        keys.c_cc[libc::VTIME] = 0;
        // The first switch of the process wins: its settings are the user's.
        let _ = SAVED.set((fd, saved));
        install_restorers();
        set_attributes(fd, &keys)?;
        Ok(Some(KeyMode { fd, saved }))
    }
}

impl Drop for KeyMode {
    fn drop(&mut self) {
        // Nothing more can be done if the terminal went away; the process is ending anyway.
        let _ = set_attributes(self.fd, &self.saved);
    }
}

fn get_attributes(fd: i32) -> io::Result<libc::termios> {
    // SAFETY: termios is plain data; tcgetattr fills it or fails without touching it.
    let mut attrs: libc::termios = unsafe { std::mem::zeroed() };
    // SAFETY: `fd` is open (checked by isatty) and `attrs` is a valid termios.
    if unsafe { libc::tcgetattr(fd, &mut attrs) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(attrs)
}

fn set_attributes(fd: i32, attrs: &libc::termios) -> io::Result<()> {
    // SAFETY: `attrs` is a valid termios from tcgetattr; a closed fd only makes this fail.
    // TCSADRAIN: the program's last output is written in the mode it was written for.
    if unsafe { libc::tcsetattr(fd, libc::TCSADRAIN, attrs) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Restores the saved settings; safe to call from a signal handler.
fn restore_saved() {
    let screen = SCREEN_FD.swap(-1, Ordering::SeqCst);
    if screen >= 0 {
        // SAFETY: write is async-signal-safe; LEAVE is a static byte string.
        unsafe {
            libc::write(screen, screen::LEAVE.as_ptr().cast(), screen::LEAVE.len());
        }
    }
    if let Some((fd, attrs)) = SAVED.get() {
        // SAFETY: tcsetattr is async-signal-safe; `attrs` was saved before any handler ran.
        unsafe {
            libc::tcsetattr(*fd, libc::TCSANOW, attrs);
        }
    }
}

/// The signal that asked the run to end (0: none).
static INTERRUPTION: AtomicI32 = AtomicI32::new(0);

/// Signals that end a run as its end does (see the module header).
const GENTLE_SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

extern "C" fn note_interruption(signal: libc::c_int) {
    // A second signal: the run did not stop in time (or the user insists).
    if INTERRUPTION.swap(signal, Ordering::SeqCst) != 0 {
        restore_and_die(signal);
    }
}

/// Catches Ctrl-C, SIGTERM and SIGHUP for the rest of the process: they end the run at its next
/// slice instead of the process at once (see the module header).
pub fn catch_endings() {
    static CAUGHT: OnceLock<()> = OnceLock::new();
    install_restorers();
    CAUGHT.get_or_init(|| {
        for signal in GENTLE_SIGNALS {
            // SAFETY: the handler makes only async-signal-safe calls (an atomic swap, and
            // restore_and_die's).
            unsafe {
                libc::signal(
                    signal,
                    note_interruption as extern "C" fn(libc::c_int) as libc::sighandler_t,
                );
            }
        }
    });
}

/// The signal that asked the run to end, if one did.
pub fn interrupted() -> Option<i32> {
    match INTERRUPTION.load(Ordering::SeqCst) {
        0 => None,
        signal => Some(signal),
    }
}

/// What asked the run to end, as the user knows it (`Ctrl-C`, `SIGTERM`), if anything did.
pub fn interruption() -> Option<&'static str> {
    interrupted().map(|signal| match signal {
        libc::SIGINT => "Ctrl-C",
        libc::SIGTERM => "SIGTERM",
        libc::SIGHUP => "SIGHUP",
        _ => "a signal",
    })
}

/// After an interrupted run has shown its end: the terminal back as it was, then the process
/// ends of the signal that interrupted it (the shell sees the usual status). Does nothing when
/// no signal came.
pub fn die_of_interruption() {
    if let Some(signal) = interrupted() {
        let _ = io::stdout().flush();
        restore_and_die(signal);
    }
}

extern "C" fn restore_and_die(signal: libc::c_int) {
    restore_saved();
    // SAFETY: signal and raise are async-signal-safe; with the default action back, the
    // process ends of `signal` as it would have without the handler.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
}

/// The signal handlers and the panic hook, once per process (the gentle signals get their own
/// handler from [`catch_endings`] when a run catches them).
fn install_restorers() {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        for signal in ENDING_SIGNALS {
            // SAFETY: the handler only makes async-signal-safe calls (see restore_and_die).
            unsafe {
                libc::signal(
                    signal,
                    restore_and_die as extern "C" fn(libc::c_int) as libc::sighandler_t,
                );
            }
        }
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore_saved();
            previous(info);
        }));
    });
}

/// The terminal that shows the display on its alternate screen (-1: none), for the signal
/// handler and the panic hook.
static SCREEN_FD: AtomicI32 = AtomicI32::new(-1);

/// The least time between two drawings of the display: about 30 a second.
pub const FRAME_INTERVAL: Duration = Duration::from_millis(33);

/// Console output kept to be shown again on the ordinary screen after the run.
const CONSOLE_TAIL: usize = 256 << 10;

/// The terminal's size in columns and rows, when `fd` is a terminal that knows it.
pub fn window_size(fd: i32) -> Option<(u16, u16)> {
    // SAFETY: winsize is plain data that TIOCGWINSZ fills or leaves alone.
    let mut size: libc::winsize = unsafe { std::mem::zeroed() };
    // SAFETY: `size` is a valid winsize for the ioctl to fill.
    if unsafe { libc::ioctl(fd, libc::TIOCGWINSZ, &mut size) } != 0 {
        return None;
    }
    Some((size.ws_col, size.ws_row))
}

/// Sets the size of the terminal (or pty) `fd` to `cols × rows` cells.
pub fn set_window_size(fd: i32, (cols, rows): (u16, u16)) -> io::Result<()> {
    let size = libc::winsize {
        ws_row: rows,
        ws_col: cols,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: `size` is a valid winsize the ioctl only reads.
    if unsafe { libc::ioctl(fd, libc::TIOCSWINSZ, &size) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The screen on `fd` is given back (colours, cursor, the ordinary screen) if a signal ends the
/// process: for `asmdbg console`, which shows drawings that hide the cursor.
pub fn restore_screen_on_signal(fd: i32) {
    install_restorers();
    SCREEN_FD.store(fd, Ordering::SeqCst);
}

/// Whether `fd` is a terminal.
pub fn is_terminal(fd: i32) -> bool {
    // SAFETY: isatty only inspects the descriptor.
    unsafe { libc::isatty(fd) == 1 }
}

/// `asmdbg run`'s view of the machine's display on the terminal of stdout: the display at the
/// top of the alternate screen, redrawn (what changed) at most every [`FRAME_INTERVAL`], the
/// console's output scrolling in the rows below. When the run ends, [`DisplayView::finish`]
/// goes back to the ordinary screen and prints the last frame and the console's output there,
/// so both stay in the terminal's history.
pub struct DisplayView {
    fd: i32,
    layout: RunLayout,
    screen: Screen,
    last: Option<Instant>,
    console: Vec<u8>,
    /// Console output was dropped from the front of `console`.
    cut: bool,
    /// `--speed`, for the status line.
    pace: Option<u64>,
}

impl DisplayView {
    /// The view on stdout when it is a terminal and the machine has a display: `None` when
    /// either is missing (nothing written) or the terminal cannot show it (one line on stderr
    /// says why; the run goes on without the view).
    pub fn open(
        machine: &dyn Machine,
        out: &mut dyn Write,
        pace: Option<u64>,
    ) -> io::Result<Option<DisplayView>> {
        let fd = io::stdout().as_raw_fd();
        let Some(frame) = machine.frame() else {
            return Ok(None);
        };
        if !is_terminal(fd) {
            return Ok(None);
        }
        let size = window_size(fd);
        let term = std::env::var("TERM").ok();
        let colorterm = std::env::var("COLORTERM").ok();
        if let Some(why) =
            screen::unfit_reason(term.as_deref(), colorterm.as_deref(), size, screen::USE_PNG)
        {
            eprintln!("{why}");
            return Ok(None);
        }
        let (cols, rows) = size.unwrap_or((80, 24));
        let layout = RunLayout::new(&frame, cols, rows);
        install_restorers();
        SCREEN_FD.store(fd, Ordering::SeqCst);
        let view = DisplayView {
            fd,
            layout,
            screen: layout.screen(),
            last: None,
            console: Vec::new(),
            cut: false,
            pace,
        };
        out.write_all(&layout.enter())?;
        out.write_all(&view.status(&frame))?;
        out.flush()?;
        Ok(Some(view))
    }

    /// The status line between the display and the console: how the display is scaled, the
    /// pace, how to end the run; drawn with the cursor kept where the console's is.
    fn status(&self, frame: &asmdbg_core::Frame) -> Vec<u8> {
        let mut text = screen::scale_text(frame, self.layout.cols, self.layout.display_rows);
        if let Some(per_second) = self.pace {
            text.push_str(&format!(
                " · {} instructions a second",
                asmdbg_core::pace::describe(per_second)
            ));
        }
        text.push_str(" · Ctrl-C ends the run");
        screen::keep_cursor(screen::status_line(
            &text,
            self.layout.display_rows + 1,
            self.layout.cols,
        ))
    }

    /// A change of the terminal's size: the screen is laid out again (and cleared). `false`
    /// while the terminal is too small to draw in.
    fn follow_size(&mut self, frame: &asmdbg_core::Frame, out: &mut dyn Write) -> io::Result<bool> {
        let Some((cols, rows)) = window_size(self.fd) else {
            return Ok(true);
        };
        if (cols, rows) == (self.layout.cols, self.layout.rows) {
            return Ok(true);
        }
        if cols < screen::MIN_COLS || rows < screen::MIN_ROWS {
            return Ok(false);
        }
        self.layout = RunLayout::new(frame, cols, rows);
        self.screen = self.layout.screen();
        out.write_all(&self.layout.enter())?;
        out.write_all(&self.status(frame))?;
        Ok(true)
    }

    /// Back to the ordinary screen, where the last frame (as drawn) and the console's output
    /// are printed.
    pub fn finish(mut self, machine: &dyn Machine, out: &mut dyn Write) -> io::Result<()> {
        SCREEN_FD.store(-1, Ordering::SeqCst);
        out.write_all(screen::LEAVE)?;
        if let Some(frame) = machine.frame() {
            let picture = screen::picture(&frame, self.layout.cols, self.layout.display_rows);
            out.write_all(&screen::lines(&picture))?;
        }
        if self.cut {
            out.write_all(b"[... earlier console output not repeated ...]\n")?;
        }
        out.write_all(&std::mem::take(&mut self.console))?;
        out.flush()?;
        // Nothing left for the drop to do.
        self.fd = -1;
        Ok(())
    }
}

impl RunView for DisplayView {
    fn update(
        &mut self,
        machine: &dyn Machine,
        output: &[u8],
        out: &mut dyn Write,
        now: bool,
    ) -> io::Result<()> {
        self.console.extend_from_slice(output);
        if self.console.len() > CONSOLE_TAIL {
            let extra = self.console.len() - CONSOLE_TAIL;
            self.console.drain(..extra);
            self.cut = true;
        }
        let at = Instant::now();
        if !now && self.last.is_some_and(|last| at - last < FRAME_INTERVAL) {
            return Ok(());
        }
        self.last = Some(at);
        let Some(frame) = machine.frame() else {
            return Ok(());
        };
        if !self.follow_size(&frame, out)? {
            return Ok(());
        }
        let bytes = screen::keep_cursor(self.screen.draw(&frame));
        if !bytes.is_empty() {
            out.write_all(&bytes)?;
            out.flush()?;
        }
        Ok(())
    }
}

impl Drop for DisplayView {
    fn drop(&mut self) {
        if self.fd >= 0 {
            // An error ended the run: the ordinary screen comes back all the same.
            SCREEN_FD.store(-1, Ordering::SeqCst);
            let mut stdout = io::stdout();
            let _ = stdout.write_all(screen::LEAVE).and_then(|_| stdout.flush());
        }
    }
}

#[cfg(test)]
mod tests {
    use std::os::fd::AsFd;

    use nix::sys::termios::{tcgetattr, LocalFlags};

    use super::KeyMode;

    fn edits_lines(fd: std::os::fd::BorrowedFd<'_>) -> bool {
        let attrs = tcgetattr(fd).expect("tcgetattr");
        attrs
            .local_flags
            .contains(LocalFlags::ICANON | LocalFlags::ECHO)
    }

    #[test]
    fn a_panic_gives_the_terminal_back_before_unwinding() {
        let pty = nix::pty::openpty(None, None).expect("openpty");
        let keys = KeyMode::enter(pty.slave.as_fd())
            .expect("enter")
            .expect("a pty is a terminal");
        assert!(!edits_lines(pty.slave.as_fd()));
        let result = std::panic::catch_unwind(|| panic!("a bug in asmdbg"));
        assert!(result.is_err());
        assert!(
            edits_lines(pty.slave.as_fd()),
            "the panic hook restored the terminal while the guard still lives"
        );
        drop(keys);
        assert!(edits_lines(pty.slave.as_fd()));
    }

    #[test]
    fn files_and_pipes_are_left_alone() {
        let file = std::fs::File::open("/dev/null").expect("open");
        assert!(KeyMode::enter(file.as_fd()).expect("enter").is_none());
    }
}
