//! `asmdbg run`: the machine runs in bursts; between bursts its console output goes to stdout
//! and, when it waits for input, more input is read. Exit statuses are fixed by DESIGN.md:
//! 0 normal end (or the program's exit code), 2 usage or assembly error, 3 the program waits for
//! input and none is left, 4 step limit reached.

use std::io::{self, Read, Write};
use std::time::{Duration, Instant};

use asmdbg_core::{Checker, Machine, StopEvent};

/// Instructions per burst: large enough that the per-burst overhead vanishes, small enough that
/// output of a long computation appears promptly.
const BURST: u64 = 1 << 22;
/// Instructions per `Machine::run` call: output is written out after each, so a guest that
/// prints kilobytes per instruction (MARS print-string in a loop) never builds up gigabytes.
const SLICE: u64 = 1 << 12;

pub const EXIT_INPUT_EXHAUSTED: i32 = 3;
pub const EXIT_STEP_LIMIT: i32 = 4;

/// Where the guest's console input comes from. Input goes in through
/// [`Machine::queue_input`] and [`Machine::end_input`], so that a recording machine logs it.
pub trait InputSource {
    /// Queues whatever input is available now, without waiting (called before every burst,
    /// so a program that checks the keyboard between other work sees keys as they come).
    fn poll(&mut self, machine: &mut dyn Machine);
    /// Queues more input into the machine, waiting up to `wait` for some to arrive (nothing
    /// queued: none came in time); ends the machine's input at end of file.
    fn fill(&mut self, machine: &mut dyn Machine, wait: Duration) -> io::Result<()>;
    /// The instruction count at which more input arrives by itself ([`TimedInput`]): the run
    /// stops there to queue it.
    fn next_arrival(&self) -> Option<u64> {
        None
    }
}

/// All input known up front (an `--input` file or a test's script): queued before the program
/// starts, then the input is closed.
pub struct FixedInput(pub Option<Vec<u8>>);

impl InputSource for FixedInput {
    fn poll(&mut self, machine: &mut dyn Machine) {
        if let Some(bytes) = self.0.take() {
            machine.queue_input(&bytes);
            machine.end_input();
        }
    }

    fn fill(&mut self, machine: &mut dyn Machine, _: Duration) -> io::Result<()> {
        self.poll(machine);
        machine.end_input();
        Ok(())
    }
}

/// `--key-every N`: byte *i* (from 1) of the input arrives when N·*i* instructions have run,
/// as if typed while the program runs, so that interrupt-driven programs run the same way
/// every time. A program that waits for a key before its time gets the next byte at once
/// (the wait is where a user would type); the input ends after the last byte.
pub struct TimedInput {
    bytes: Vec<u8>,
    every: u64,
    /// Bytes queued so far.
    sent: usize,
}

impl TimedInput {
    pub fn new(bytes: Vec<u8>, every: u64) -> Self {
        TimedInput {
            bytes,
            every: every.max(1),
            sent: 0,
        }
    }

    fn send_next(&mut self, machine: &mut dyn Machine) {
        if let Some(&byte) = self.bytes.get(self.sent) {
            machine.queue_input(&[byte]);
            self.sent += 1;
        }
        if self.sent == self.bytes.len() {
            machine.end_input();
        }
    }
}

impl InputSource for TimedInput {
    fn poll(&mut self, machine: &mut dyn Machine) {
        while self
            .next_arrival()
            .is_some_and(|at| at <= machine.instructions_executed())
        {
            self.send_next(machine);
        }
        if self.bytes.is_empty() {
            machine.end_input();
        }
    }

    fn fill(&mut self, machine: &mut dyn Machine, _: Duration) -> io::Result<()> {
        self.send_next(machine);
        self.poll(machine);
        Ok(())
    }

    fn next_arrival(&self) -> Option<u64> {
        (self.sent < self.bytes.len()).then(|| self.every.saturating_mul(self.sent as u64 + 1))
    }
}

/// Input read from a stream (stdin) on its own thread as it arrives, so an interactive user
/// sees each prompt before typing and a polling program sees keys without blocking.
pub struct StreamInput {
    chunks: std::sync::mpsc::Receiver<io::Result<Vec<u8>>>,
    /// What arrives while the program runs goes to its keyboard device
    /// ([`Machine::queue_key`]), byte by byte; what the program waits for goes to its console.
    keys: bool,
}

impl StreamInput {
    pub fn new<R: Read + Send + 'static>(mut reader: R) -> Self {
        let (tx, rx) = std::sync::mpsc::sync_channel(16);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            loop {
                let chunk = match reader.read(&mut buf) {
                    Ok(n) => Ok(buf[..n].to_vec()),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => Err(e),
                };
                let end = !matches!(&chunk, Ok(bytes) if !bytes.is_empty());
                if tx.send(chunk).is_err() || end {
                    return;
                }
            }
        });
        StreamInput {
            chunks: rx,
            keys: false,
        }
    }

    /// Keys typed while the program runs go to its keyboard device (a machine with one).
    pub fn keys_to_keyboard(mut self, keys: bool) -> Self {
        self.keys = keys;
        self
    }

    fn take(machine: &mut dyn Machine, chunk: io::Result<Vec<u8>>, keys: bool) -> io::Result<()> {
        match chunk? {
            bytes if bytes.is_empty() => machine.end_input(),
            bytes if keys => bytes.iter().for_each(|&key| machine.queue_key(key)),
            bytes => machine.queue_input(&bytes),
        }
        Ok(())
    }
}

impl InputSource for StreamInput {
    fn poll(&mut self, machine: &mut dyn Machine) {
        while let Ok(chunk) = self.chunks.try_recv() {
            if Self::take(machine, chunk, self.keys).is_err() {
                machine.end_input();
            }
        }
    }

    fn fill(&mut self, machine: &mut dyn Machine, wait: Duration) -> io::Result<()> {
        // The program waits on its console (a syscall's read, LC-3's GETC): what is typed
        // now is console input.
        match self.chunks.recv_timeout(wait) {
            Ok(chunk) => Self::take(machine, chunk, false),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Ok(()),
            // The reader thread ended: no more input will come.
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                machine.end_input();
                Ok(())
            }
        }
    }
}

/// What a run shows besides its console output: the terminal's view of the machine's display
/// ([`crate::display_view::DisplayView`]).
pub trait RunView {
    /// Called after every slice of the run with the console output of the slice (already
    /// written to `out`); `now`: the machine stopped (for input or at its end), so draw now
    /// rather than when it is time to.
    fn update(
        &mut self,
        machine: &dyn Machine,
        output: &[u8],
        out: &mut dyn Write,
        now: bool,
    ) -> io::Result<()>;
}

/// No view: console output only.
pub struct NoView;

impl RunView for NoView {
    fn update(&mut self, _: &dyn Machine, _: &[u8], _: &mut dyn Write, _: bool) -> io::Result<()> {
        Ok(())
    }
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunReport {
    pub exit_status: i32,
    pub executed: u64,
    pub elapsed: Duration,
    /// `--speed`: the instructions a second the run was held to.
    pub pace: Option<u64>,
    /// A line for stderr explaining an abnormal end (fault text, input exhausted, step limit).
    pub message: Option<String>,
    /// What stderr gets after `message` ([`Machine::end_of_run_stderr`] for the ends the
    /// machine's simulator also reaches; nothing when the input ran out, an asmdbg-only end).
    pub epilogue: &'static str,
}

/// How a run is held: its step limit, its pace, and what may end it from outside.
#[derive(Debug, Clone, Copy, Default)]
pub struct RunLimits {
    pub max_steps: Option<u64>,
    /// `--speed`: the most instructions a second (the run waits between slices when it is
    /// ahead, and never catches up for time spent waiting on input or a sleep).
    pub pace: Option<asmdbg_core::Pace>,
    /// What asked the run to end, if anything did (`Ctrl-C`; looked at between slices and while
    /// waiting): the run ends as at any end, its report saying so.
    pub interrupted: Option<fn() -> Option<&'static str>>,
}

/// Exit status of a run a signal ended (the process then dies of the signal itself).
pub const EXIT_INTERRUPTED: i32 = 130;

/// Longest wait (for input, a guest's sleep) between two looks at `RunLimits::interrupted`.
const WAIT_SLICE: Duration = Duration::from_millis(50);

/// Runs `machine` to its end, writing its console output to `out`; `view` is told after every
/// slice. With `checks` (`--checks`) the machine runs under them (`Checker::run`: the fast path
/// inside the interpreter, the rest one instruction at a time) and each finding is a
/// `warning[...]` line on stderr; with `--checks=deny` the first one ends the run as a fault
/// does.
pub fn run_to_end(
    machine: &mut dyn Machine,
    input: &mut dyn InputSource,
    out: &mut dyn Write,
    view: &mut dyn RunView,
    limits: RunLimits,
    mut checks: Option<&mut Checker>,
) -> io::Result<RunReport> {
    let RunLimits {
        max_steps,
        mut pace,
        interrupted,
    } = limits;
    let interrupted = || interrupted.and_then(|f| f());
    let start = Instant::now();
    let per_second = pace.as_ref().map(asmdbg_core::Pace::per_second);
    let mut executed: u64 = 0;
    // Two input requests in a row that consumed nothing after input ended: the machine cannot
    // make progress (guards against a loop whatever the machine's input rules are).
    let mut starved = 0;
    let report = |status, executed, message, epilogue| RunReport {
        exit_status: status,
        executed,
        elapsed: start.elapsed(),
        pace: per_second,
        message,
        epilogue,
    };
    loop {
        if let Some(by) = interrupted() {
            let output = machine.console().take_output();
            out.write_all(&output)?;
            out.flush()?;
            view.update(machine, &output, out, true)?;
            let msg = format!(
                "the run was ended by {by} at {} after {executed} instructions",
                asmdbg_core::machine::location(machine)
            );
            return Ok(report(EXIT_INTERRUPTED, executed, Some(msg), ""));
        }
        let budget = match max_steps {
            Some(limit) if executed >= limit => {
                let output = machine.console().take_output();
                out.write_all(&output)?;
                out.flush()?;
                view.update(machine, &output, out, true)?;
                let msg = machine.step_limit_message(limit).unwrap_or_else(|| {
                    format!(
                        "step limit of {limit} instructions reached at {}",
                        asmdbg_core::machine::location(machine)
                    )
                });
                let epilogue = machine.end_of_run_stderr();
                return Ok(report(EXIT_STEP_LIMIT, executed, Some(msg), epilogue));
            }
            Some(limit) => BURST.min(limit - executed),
            None => BURST,
        };
        if !machine.console().input_closed() {
            input.poll(machine);
        }
        let mut slice = budget.min(SLICE);
        if let Some(pace) = &pace {
            slice = slice.min(pace.slice());
        }
        if let Some(at) = input.next_arrival() {
            // Stop where the next input arrives, to queue it then.
            let now = machine.instructions_executed();
            slice = slice.min(at.saturating_sub(now).max(1));
        }
        let (outcome, findings) = match checks.as_deref_mut() {
            Some(checker) => {
                let outcome = checker.run(machine, slice, checker.set().deny(), false);
                (outcome, checker.take_findings())
            }
            None => (machine.run(slice), Vec::new()),
        };
        executed += outcome.executed;
        let output = machine.console().take_output();
        if !output.is_empty() {
            out.write_all(&output)?;
        }
        if let Some(first) = findings.first() {
            out.flush()?;
            if checks.as_ref().is_some_and(|c| c.set().deny()) {
                view.update(machine, &output, out, true)?;
                let status = machine.fault_exit_status();
                let epilogue = machine.end_of_run_stderr();
                return Ok(report(
                    status,
                    executed,
                    Some(first.warning_line()),
                    epilogue,
                ));
            }
            for finding in &findings {
                eprintln!("{}", finding.warning_line());
            }
        }
        view.update(machine, &output, out, outcome.stop.is_some())?;
        if let Some(advice) = machine.take_advice() {
            eprintln!("asmdbg: {advice}");
        }
        let diagnostics = machine.take_host_stderr();
        if !diagnostics.is_empty() {
            // The guest's own stderr: best effort, it must not stop the program.
            let _ = io::stderr().write_all(&diagnostics);
        }
        match outcome.stop {
            None => {
                out.flush()?;
                // A real-time sleep of the guest: wait here rather than spin on `run`.
                if let Some(wake) = machine.wake_time() {
                    let left = wake.saturating_duration_since(Instant::now());
                    std::thread::sleep(left.min(WAIT_SLICE));
                    if let Some(pace) = &mut pace {
                        pace.restart(Instant::now(), machine.instructions_executed());
                    }
                } else if let Some(pace) = &mut pace {
                    std::thread::sleep(pace.wait(Instant::now(), machine.instructions_executed()));
                }
            }
            Some(StopEvent::NeedInput) => {
                out.flush()?;
                // Wait for input, looking for a signal now and then.
                if !machine.console().input_closed() {
                    input.fill(machine, WAIT_SLICE)?;
                    while machine.console().pending_input() == 0
                        && !machine.console().input_closed()
                        && interrupted().is_none()
                    {
                        input.fill(machine, WAIT_SLICE)?;
                    }
                }
                if let Some(pace) = &mut pace {
                    pace.restart(Instant::now(), machine.instructions_executed());
                }
                let closed = machine.console().input_closed();
                starved = if closed && outcome.executed == 0 {
                    starved + 1
                } else {
                    0
                };
                if closed && (machine.console().pending_input() == 0 || starved > 1) {
                    let mut msg = format!(
                        "the program waits for input at {} and none is left",
                        asmdbg_core::machine::location(machine)
                    );
                    if machine.console().pending_input() > 0 && machine.has_keyboard_device() {
                        // It polls its keyboard device, which input from a file never reaches.
                        msg.push_str(
                            " on its keyboard device (input from a file or a pipe goes to the console's reads; give keys with --keys)",
                        );
                    }
                    return Ok(report(EXIT_INPUT_EXHAUSTED, executed, Some(msg), ""));
                }
                // A partial line at end of input: the machine takes it as the last line.
            }
            Some(StopEvent::Halted) => {
                out.flush()?;
                return Ok(report(0, executed, None, machine.end_of_run_stderr()));
            }
            Some(StopEvent::Exited(code)) => {
                out.flush()?;
                return Ok(report(code, executed, None, machine.end_of_run_stderr()));
            }
            Some(StopEvent::Fault(fault)) => {
                out.flush()?;
                let status = machine.fault_exit_status();
                let epilogue = machine.end_of_run_stderr();
                return Ok(report(status, executed, Some(fault.message), epilogue));
            }
            Some(other) => {
                // Breakpoints and watchpoints are only set by the debugger.
                out.flush()?;
                let msg = format!(
                    "unexpected stop {other:?} at {}",
                    asmdbg_core::machine::location(machine)
                );
                return Ok(report(1, executed, Some(msg), ""));
            }
        }
    }
}

/// `--stats`: instructions executed, seconds, and the rate in million instructions per second
/// (and the pace the run was held to).
pub fn stats_line(report: &RunReport) -> String {
    let paced = report.pace.map_or_else(String::new, |per_second| {
        format!(
            ", held to {} instructions a second",
            asmdbg_core::pace::describe(per_second)
        )
    });
    format!(
        "stats: {} instructions in {:.3} s ({:.1} M instructions/s{paced})",
        report.executed,
        report.elapsed.as_secs_f64(),
        asmdbg_core::rate::million_per_second(report.executed, report.elapsed)
    )
}
