//! `asmdbg run`'s view of the machine's display on the terminal: on the alternate screen,
//! above the console's scrolling rows, and the ordinary screen comes back on every way out (the
//! view's drop, and through the host's restorers the panic hook, signals and Ctrl-C).

use std::io::{self, Write};
use std::time::{Duration, Instant};

use asmdbg_core::Machine;

use crate::host;
use crate::run::RunView;
use crate::screen::{self, RunLayout, Screen};

/// The least time between two drawings of the display: about 30 a second.
pub const FRAME_INTERVAL: Duration = Duration::from_millis(33);

/// Console output kept to be shown again on the ordinary screen after the run.
const CONSOLE_TAIL: usize = 256 << 10;

/// `asmdbg run`'s view of the machine's display on the terminal of stdout: the display at the
/// top of the alternate screen, redrawn (what changed) at most every [`FRAME_INTERVAL`], the
/// console's output scrolling in the rows below. When the run ends, [`DisplayView::finish`]
/// goes back to the ordinary screen and prints the last frame and the console's output there,
/// so both stay in the terminal's history.
pub struct DisplayView {
    /// The view is up (false once [`DisplayView::finish`] has given the screen back).
    up: bool,
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
        let Some(frame) = machine.frame() else {
            return Ok(None);
        };
        if !host::stdout_is_terminal() {
            return Ok(None);
        }
        let size = host::window_size();
        let (term, colorterm) = host::terminal_names();
        if let Some(why) =
            screen::unfit_reason(term.as_deref(), colorterm.as_deref(), size, screen::USE_PNG)
        {
            eprintln!("{why}");
            return Ok(None);
        }
        let (cols, rows) = size.unwrap_or((80, 24));
        let layout = RunLayout::new(&frame, cols, rows);
        host::restore_screen_with(Some(screen::LEAVE));
        let view = DisplayView {
            up: true,
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
        let Some((cols, rows)) = host::window_size() else {
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
        host::restore_screen_with(None);
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
        self.up = false;
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
        if self.up {
            // An error ended the run: the ordinary screen comes back all the same.
            host::restore_screen_with(None);
            let mut stdout = io::stdout();
            let _ = stdout.write_all(screen::LEAVE).and_then(|_| stdout.flush());
        }
    }
}
