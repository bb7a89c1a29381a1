//! `asmdbg run` on a terminal, for a machine that reads single keys (LC-3's GETC, IN and
//! keyboard polling): the terminal is put into non-canonical mode without echo for the run, so
//! that each key reaches the program when it is pressed and shows only if the program echoes
//! it — as on lc3tools' and the LC-3 simulators' consoles. Ctrl-C still interrupts (ISIG stays)
//! and Enter still arrives as a newline (ICRNL stays).
//!
//! The saved settings come back on every way out: when the [`KeyMode`] guard is dropped (normal
//! end, fault, end of input, step limit, an error), from the panic hook, and from a handler for
//! SIGINT, SIGTERM, SIGHUP and SIGQUIT, which restores the terminal and then dies of the same
//! signal, so the shell sees the usual status. Only async-signal-safe calls are made there
//! (`tcsetattr`, `signal`, `raise`), on a copy of the settings saved before the handler exists.
//!
//! Limits: Ctrl-Z (SIGTSTP) is left to the shell's default, so a suspended run keeps the key
//! mode until it is resumed and ends. SIGKILL cannot be caught.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd};
use std::sync::OnceLock;

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
    if let Some((fd, attrs)) = SAVED.get() {
        // SAFETY: tcsetattr is async-signal-safe; `attrs` was saved before any handler ran.
        unsafe {
            libc::tcsetattr(*fd, libc::TCSANOW, attrs);
        }
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

/// The signal handlers and the panic hook, once per process.
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
