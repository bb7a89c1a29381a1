//! The host on Unix (Linux, macOS): signals through signal-hook, the terminal's size and the
//! pseudo-terminals through rustix (safe wrappers of the same system calls).

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;

use rustix::termios::{self, Winsize};
use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM};
use tokio::sync::mpsc;

use super::console::{
    DisplayEvent, DisplayParts, SetSize, Transport, DISPLAY_CHUNKS, DISPLAY_WATCH,
};

pub const DEFAULT_CONSOLE: Transport = Transport::Pty;

/// What Ctrl-C stands for, and Ctrl-\.
pub const CTRL_C: i32 = SIGINT;
pub const QUIT: i32 = SIGQUIT;

/// A terminal in key mode no longer turns Ctrl-\ and Ctrl-Z into SIGQUIT and SIGTSTP: the
/// typed keys do it (super::TypedKeys).
pub const HAS_QUIT_AND_SUSPEND: bool = true;

pub fn window_size() -> Option<(u16, u16)> {
    let size = termios::tcgetwinsize(io::stdout().as_fd()).ok()?;
    Some((size.ws_col, size.ws_row))
}

/// The environment's TERM and COLORTERM, which say what the terminal can show.
pub fn terminal_names() -> (Option<String>, Option<String>) {
    (std::env::var("TERM").ok(), std::env::var("COLORTERM").ok())
}

/// Writes to stdout without taking std's lock (a run holds it while the signal thread restores
/// the screen).
pub fn write_stdout_unlocked(mut bytes: &[u8]) {
    while !bytes.is_empty() {
        match rustix::io::write(io::stdout().as_fd(), bytes) {
            Ok(0) | Err(_) => return,
            Ok(n) => bytes = &bytes[n..],
        }
    }
}

/// SIGINT, SIGTERM and SIGHUP end a run gently; SIGQUIT at once.
fn ends_gently(signal: i32) -> bool {
    signal != SIGQUIT
}

/// Hands the signals that end a process to `interrupt` (gentle ones) or ends the process at
/// once (SIGQUIT), on a thread of their own: signal-hook's handler only wakes it, so all that
/// is done about a signal (crossterm's restore among it) runs as ordinary code.
pub fn handle_endings(interrupt: fn(i32)) {
    let mut signals = match signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP, SIGQUIT])
    {
        Ok(signals) => signals,
        Err(e) => {
            log::warn!("signals cannot be caught ({e}): Ctrl-C ends the process at once");
            return;
        }
    };
    thread::spawn(move || {
        for signal in signals.forever() {
            if ends_gently(signal) {
                interrupt(signal);
            } else {
                super::restore_and_die(signal);
            }
        }
    });
}

pub fn describe(signal: i32) -> &'static str {
    match signal {
        SIGINT => "Ctrl-C",
        SIGTERM => "SIGTERM",
        SIGHUP => "SIGHUP",
        _ => "a signal",
    }
}

/// Ends the process of `signal`, as it would have ended without asmdbg's handler.
pub fn die_of(signal: i32) -> ! {
    let _ = signal_hook::low_level::emulate_default_handler(signal);
    // Not reached: the default action of the signals asmdbg catches is to end the process.
    std::process::exit(128 + signal)
}

/// Ctrl-Z: the process stops as SIGTSTP would stop it, until the shell continues it.
pub fn suspend() {
    let _ = signal_hook::low_level::emulate_default_handler(signal_hook::consts::SIGTSTP);
}

/// Large allocations (a MIPS machine's 12 MiB of segments, one per case) stay mapped pages of
/// their own: glibc otherwise serves them from the heap after the first is freed, and zeroes
/// all 12 MiB for each new machine (most of a grading case's time), where fresh pages are zero
/// and only those the program touches cost anything. Other C libraries map large blocks
/// anyway (musl) or need no advice.
pub fn map_large_allocations() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes the allocator's threshold; it is called before the grading
    // threads start.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
}

/// A new pseudo-terminal in raw mode (bytes pass unchanged both ways): its master and slave
/// sides and the slave's path.
fn raw_pty() -> io::Result<(File, OwnedFd, String)> {
    use rustix::pty::{grantpt, openpt, ptsname, unlockpt, OpenptFlags};
    use std::os::unix::fs::OpenOptionsExt;

    let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY)?;
    grantpt(&master)?;
    unlockpt(&master)?;
    let name = ptsname(&master, Vec::new())?
        .into_string()
        .map_err(|_| io::Error::other("the pty's name is not UTF-8"))?;
    let slave: OwnedFd = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(rustix::fs::OFlags::NOCTTY.bits() as i32)
        .open(&name)?
        .into();
    let mut attrs = termios::tcgetattr(&slave)?;
    attrs.make_raw();
    termios::tcsetattr(&slave, termios::OptionalActions::Now, &attrs)?;
    Ok((File::from(master), slave, name))
}

/// A pty for the guest's console: what is read from its master, what is written to it, the
/// slave side to keep open for the whole session (so the master never sees end-of-file or EIO
/// while no terminal has it), and its path.
pub fn console_pty() -> io::Result<(File, File, OwnedFd, String)> {
    let (master, slave, name) = raw_pty()?;
    Ok((master.try_clone()?, master, slave, name))
}

/// A pseudo-terminal for the machine's display (`asmdbg debug`): whatever opens it (`asmdbg
/// console PATH`, a terminal emulator) sees the frame and sends keys.
///
/// Unlike the console's pty, asmdbg does not keep the slave side open: while nobody has it
/// open the master reports a hang-up, which is how a viewer's arrival and departure are seen
/// ([`DisplayEvent`]), and drawings are dropped rather than left in the pty for a later
/// viewer. Reading and writing are on their own threads, so a viewer that stops reading or goes
/// away never stalls the debugger.
pub fn display_pty() -> io::Result<DisplayParts> {
    let (master, slave, name) = raw_pty()?;
    drop(slave);
    let attached = Arc::new(AtomicBool::new(false));
    let (event_tx, events) = mpsc::channel(64);
    let (drawings, drawing_rx) = mpsc::channel(DISPLAY_CHUNKS);
    spawn_display_watcher(master.try_clone()?, event_tx, attached.clone());
    spawn_display_writer(master.try_clone()?, drawing_rx, attached);
    // A pty's size is 0 × 0 until someone sets it.
    let size = Box::new(move || {
        termios::tcgetwinsize(&master)
            .ok()
            .map(|size| (size.ws_col, size.ws_row))
            .filter(|&(c, r)| c > 0 && r > 0)
    });
    Ok((name, events, drawings, size))
}

/// Watches the master side: hang-ups (nobody has the slave open) and keys.
fn spawn_display_watcher(
    mut master: File,
    events: mpsc::Sender<DisplayEvent>,
    attached: Arc<AtomicBool>,
) {
    use rustix::event::{poll, PollFd, PollFlags, Timespec};

    thread::spawn(move || {
        let mut buf = [0u8; 1024];
        let mut open = false;
        let timeout = Timespec {
            tv_sec: 0,
            tv_nsec: 100_000_000,
        };
        loop {
            let mut fds = [PollFd::new(&master, PollFlags::IN)];
            match poll(&mut fds, Some(&timeout)) {
                Ok(_) => {}
                Err(rustix::io::Errno::INTR) => continue,
                Err(e) => {
                    log::warn!("the display's pty cannot be watched: {e}");
                    return;
                }
            }
            let revents = fds[0].revents();
            let hung_up = revents.contains(PollFlags::HUP);
            if hung_up == open {
                open = !hung_up;
                attached.store(open, Ordering::SeqCst);
                let event = if open {
                    DisplayEvent::Attached
                } else {
                    DisplayEvent::Detached
                };
                log::info!("display pty: {event:?}");
                if events.blocking_send(event).is_err() {
                    return;
                }
            }
            if hung_up {
                thread::sleep(DISPLAY_WATCH);
                continue;
            }
            if revents.contains(PollFlags::IN) {
                match master.read(&mut buf) {
                    Ok(n) if n > 0 => {
                        if events
                            .blocking_send(DisplayEvent::Keys(buf[..n].to_vec()))
                            .is_err()
                        {
                            return;
                        }
                    }
                    // The viewer left between the poll and the read.
                    _ => thread::sleep(DISPLAY_WATCH),
                }
            }
        }
    });
}

/// Writes drawings while a viewer has the pty open; drops them otherwise.
fn spawn_display_writer(
    mut master: File,
    mut drawings: mpsc::Receiver<Vec<u8>>,
    attached: Arc<AtomicBool>,
) {
    thread::spawn(move || {
        while let Some(bytes) = drawings.blocking_recv() {
            if attached.load(Ordering::SeqCst) {
                if let Err(e) = master.write_all(&bytes) {
                    log::info!("a drawing for the display's pty was lost: {e}");
                }
            }
        }
    });
}

/// `asmdbg console PTY`: the pty opened for reading and writing, and a way to keep its size
/// the terminal's (so that a display drawn on it fits the window it is viewed in).
pub fn open_console_pty(path: &str) -> io::Result<(File, SetSize)> {
    let pty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)?;
    let sized = pty.try_clone()?;
    let resize = Box::new(move |(cols, rows): (u16, u16)| {
        let size = Winsize {
            ws_row: rows,
            ws_col: cols,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        if let Err(e) = termios::tcsetwinsize(&sized, size) {
            log::info!("the console's pty keeps its size: {e}");
        }
    });
    Ok((pty, resize))
}

/// How a pty path is told from a TCP address in `asmdbg console TARGET`.
pub const CONSOLE_TARGETS: &str = "a pty path (/dev/pts/N) or a TCP address (127.0.0.1:PORT)";

#[cfg(test)]
mod tests {
    #[test]
    fn a_raw_pty_has_a_path_that_opens() {
        let (_master, _slave, name) = super::raw_pty().expect("a pty");
        assert!(name.starts_with("/dev/"), "{name}");
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&name)
            .expect("the slave opens by its name");
    }
}
