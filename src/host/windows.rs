//! The host on Windows: the console's control events (Ctrl-C, Ctrl-Break, the window closing)
//! through SetConsoleCtrlHandler, the console's size and escape sequences through crossterm, and
//! no pseudo-terminals: the guest's console and the display are on loopback TCP ports.

use std::io;

use windows_sys::Win32::System::Console::{
    GetStdHandle, SetConsoleCtrlHandler, WriteConsoleA, CTRL_BREAK_EVENT, CTRL_CLOSE_EVENT,
    CTRL_C_EVENT, STD_OUTPUT_HANDLE,
};

use super::console::{DisplayParts, SetSize, Transport};

pub const DEFAULT_CONSOLE: Transport = Transport::Tcp;

/// Endings are the console's control events plus one (0 is "none").
pub const CTRL_C: i32 = CTRL_C_EVENT as i32 + 1;
const CTRL_BREAK: i32 = CTRL_BREAK_EVENT as i32 + 1;
const CLOSE: i32 = CTRL_CLOSE_EVENT as i32 + 1;
/// Windows has no Ctrl-\ (QUIT is never typed, see HAS_QUIT_AND_SUSPEND).
pub const QUIT: i32 = CTRL_BREAK;

/// The console has no Ctrl-\ or Ctrl-Z signals: those keys reach the program.
pub const HAS_QUIT_AND_SUSPEND: bool = false;

/// The exit status of a process that Ctrl-C ended (what cmd.exe and PowerShell show for one).
const STATUS_CONTROL_C_EXIT: u32 = 0xC000_013A;

pub fn window_size() -> Option<(u16, u16)> {
    crossterm::terminal::size().ok()
}

/// The display is drawn with escape sequences and 24-bit colour: the Windows console has both
/// once asked for them (Windows 10 and later; crossterm asks). Windows sets no TERM, so a
/// console that understands them is named here as one that does.
pub fn terminal_names() -> (Option<String>, Option<String>) {
    let term = std::env::var("TERM").ok();
    let colorterm = std::env::var("COLORTERM").ok();
    if crossterm::ansi_support::supports_ansi() {
        return (
            term.or(Some("windows-console".to_string())),
            colorterm.or(Some("truecolor".to_string())),
        );
    }
    (term, colorterm)
}

/// Writes to the console without std's lock (a run holds it while the control handler
/// restores the screen).
pub fn write_stdout_unlocked(bytes: &[u8]) {
    // SAFETY: GetStdHandle has no preconditions; WriteConsoleA reads `bytes` within its
    // length and writes the count to a local. A handle that is not a console only makes it fail.
    unsafe {
        let handle = GetStdHandle(STD_OUTPUT_HANDLE);
        let mut written = 0u32;
        WriteConsoleA(
            handle,
            bytes.as_ptr(),
            bytes.len() as u32,
            &mut written,
            std::ptr::null(),
        );
    }
}

/// The function the control handler hands Ctrl-C and Ctrl-Break to.
static INTERRUPT: std::sync::OnceLock<fn(i32)> = std::sync::OnceLock::new();

unsafe extern "system" fn on_control(event: u32) -> windows_sys::core::BOOL {
    let ending = event as i32 + 1;
    match ending {
        CTRL_C | CTRL_BREAK => {
            if let Some(interrupt) = INTERRUPT.get() {
                interrupt(ending);
            }
            1
        }
        // The window is closing: nobody will see the end of the run.
        CLOSE => super::restore_and_die(ending),
        // Log-off and shut-down: the default (end the process).
        _ => 0,
    }
}

/// Ctrl-C and Ctrl-Break (when the console is not in key mode, where Ctrl-C is a typed key)
/// go to `interrupt`; the window closing ends the process with the terminal given back.
pub fn handle_endings(interrupt: fn(i32)) {
    let _ = INTERRUPT.set(interrupt);
    // SAFETY: on_control is a valid handler for the life of the process.
    if unsafe { SetConsoleCtrlHandler(Some(on_control), 1) } == 0 {
        log::warn!(
            "Ctrl-C cannot be caught ({}): it ends the process at once",
            io::Error::last_os_error()
        );
    }
}

pub fn describe(ending: i32) -> &'static str {
    match ending {
        CTRL_C => "Ctrl-C",
        CTRL_BREAK => "Ctrl-Break",
        _ => "the console closing",
    }
}

/// Ends the process as Ctrl-C ends a console program.
pub fn die_of(_ending: i32) -> ! {
    std::process::exit(STATUS_CONTROL_C_EXIT as i32)
}

/// Ctrl-Z is a key on Windows (see HAS_QUIT_AND_SUSPEND).
pub fn suspend() {}

/// The allocator needs no advice on Windows.
pub fn map_large_allocations() {}

fn no_ptys() -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        "Windows has no pseudo-terminals: use --console tcp (the default) or --console stdio",
    )
}

pub fn console_pty() -> io::Result<(std::fs::File, std::fs::File, std::fs::File, String)> {
    Err(no_ptys())
}

pub fn display_pty() -> io::Result<DisplayParts> {
    Err(no_ptys())
}

pub fn open_console_pty(_path: &str) -> io::Result<(std::fs::File, SetSize)> {
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        "not a TCP address",
    ))
}

/// How `asmdbg console TARGET` names what it attaches to.
pub const CONSOLE_TARGETS: &str = "a TCP address, 127.0.0.1:PORT, as `asmdbg debug` prints it";
