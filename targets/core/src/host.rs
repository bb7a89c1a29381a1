//! Everything that enters a machine from outside, as a log that can be replayed.
//!
//! A machine is deterministic except where the outside world answers: console input (and its
//! end), and for MIPS the wall clock, seeds of unseeded random streams, file opens, reads and
//! writes, and real-time sleeps. Each answer passes through a [`Journal`] owned by the machine
//! wrapper, which is in one of three modes:
//! - off: answers come from the outside world and nothing is kept (the default);
//! - recording: they come from the outside world and are appended to an [`InputLog`] with the
//!   instruction count at which they came;
//! - replaying: they come from the log and the outside world is not touched (no file is written
//!   again, no sleep sleeps). Console entries are queued by the wrapper's `run` when the count
//!   reaches theirs; the other entries are served in order as the guest asks.
//!
//! Recording and replaying cost nothing per instruction: the journal is consulted only when
//! input is queued, when a syscall asks the host, and once per `run` call while replaying.
//!
//! A replay ends when the log is used up, when the guest asks for something other than the next
//! entry (the run diverged, e.g. the debugger changed a register), or when input is queued from
//! outside; the journal then drops the entries not served and records from there on.

use crate::console::Console;
use crate::event::{RunOutcome, StopEvent};

/// One answer of the outside world.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostInput {
    /// Bytes queued at the console. `guest_waiting`: the guest had stopped for input
    /// (`NeedInput`) when they came, so a replay lets it stop there first.
    Console { bytes: Vec<u8>, guest_waiting: bool },
    /// The end of console input.
    ConsoleClosed { guest_waiting: bool },
    /// A key pressed on a keyboard device other than the console (MARS's MMIO keyboard).
    Key(u8),
    /// A wall-clock read, milliseconds since the Unix epoch (MARS syscall 30, the base of the
    /// virtual clock).
    Clock(i64),
    /// The seed of a random stream the program used without seeding it (MARS 40-44).
    Seed(i64),
    /// Whether a file open succeeded (MARS 13).
    FileOpened(bool),
    /// The bytes a file read returned, or `None` for a failed read (MARS 14).
    FileRead(Option<Vec<u8>>),
    /// Whether a file write succeeded (MARS 15).
    FileWritten(bool),
    /// A real-time sleep of this many milliseconds began (MARS 32, 33); a replay does not wait.
    Slept(i32),
}

impl HostInput {
    /// Console entries are queued by the wrapper at their count; the others are asked for.
    pub fn is_console(&self) -> bool {
        matches!(
            self,
            HostInput::Console { .. } | HostInput::ConsoleClosed { .. } | HostInput::Key(_)
        )
    }
}

/// What came in during a run: `(instruction count, input)` in the order it came.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InputLog {
    pub entries: Vec<(u64, HostInput)>,
}

impl InputLog {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries from instruction count `count` on: the log to replay from a snapshot taken
    /// at `count`.
    /// What the log takes in memory: its entries and the bytes they hold.
    pub fn bytes(&self) -> usize {
        let payload: usize = self
            .entries
            .iter()
            .map(|(_, input)| match input {
                HostInput::Console { bytes, .. } => bytes.capacity(),
                HostInput::FileRead(Some(bytes)) => bytes.capacity(),
                _ => 0,
            })
            .sum();
        self.entries.capacity() * std::mem::size_of::<(u64, HostInput)>() + payload
    }

    pub fn since(&self, count: u64) -> InputLog {
        InputLog {
            entries: self
                .entries
                .iter()
                .filter(|(at, _)| *at >= count)
                .cloned()
                .collect(),
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Mode {
    #[default]
    Off,
    Recording,
    Replaying,
}

/// The record/replay side of a machine's host boundary (see the module header).
#[derive(Debug, Clone, Default)]
pub struct Journal {
    mode: Mode,
    log: InputLog,
    /// Replay: index of the next console entry not yet queued.
    next_console: usize,
    /// Replay: index of the next non-console entry not yet served.
    next_host: usize,
}

impl Journal {
    /// Answers from the outside world, nothing kept.
    pub fn off() -> Self {
        Self::default()
    }

    /// Answers from the outside world, kept in a log.
    pub fn recording() -> Self {
        Journal {
            mode: Mode::Recording,
            ..Self::default()
        }
    }

    /// Answers from `log`; recording once it is used up.
    pub fn replaying(log: InputLog) -> Self {
        let mut journal = Journal {
            mode: Mode::Replaying,
            log,
            next_console: 0,
            next_host: 0,
        };
        journal.end_replay_if_done();
        journal
    }

    pub fn is_recording(&self) -> bool {
        self.mode == Mode::Recording
    }

    pub fn is_replaying(&self) -> bool {
        self.mode == Mode::Replaying
    }

    /// The log recorded so far (while replaying: the log being replayed).
    pub fn log(&self) -> &InputLog {
        &self.log
    }

    pub fn into_log(self) -> InputLog {
        self.log
    }

    /// Keeps an answer of the outside world (when recording).
    pub fn record(&mut self, count: u64, input: HostInput) {
        if self.mode == Mode::Recording {
            self.log.entries.push((count, input));
        }
    }

    /// Console input queued from outside: while replaying this ends the replay (the log's
    /// future no longer happens); when recording it is kept.
    pub fn outside_console(&mut self, count: u64, input: HostInput) {
        if self.mode == Mode::Replaying {
            self.go_live();
        }
        self.record(count, input);
    }

    /// Replay: the next non-console entry, if `pick` accepts it. `None` when not replaying, or
    /// when the log has no such entry or `pick` refuses it; the replay then ends and the caller
    /// asks the outside world (and records its answer).
    pub fn replay_host<T>(&mut self, pick: impl FnOnce(&HostInput) -> Option<T>) -> Option<T> {
        if self.mode != Mode::Replaying {
            return None;
        }
        let next =
            (self.next_host..self.log.entries.len()).find(|&i| !self.log.entries[i].1.is_console());
        let answer = next.and_then(|i| pick(&self.log.entries[i].1).map(|v| (i, v)));
        match answer {
            Some((i, value)) => {
                self.next_host = i + 1;
                self.end_replay_if_done();
                Some(value)
            }
            None => {
                self.go_live();
                None
            }
        }
    }

    /// Replay: the count of the next console entry not yet queued.
    pub fn next_console_count(&self) -> Option<u64> {
        self.next_console_entry().map(|(at, _)| *at)
    }

    fn next_console_entry(&self) -> Option<&(u64, HostInput)> {
        if self.mode != Mode::Replaying {
            return None;
        }
        self.log.entries[self.next_console.min(self.log.entries.len())..]
            .iter()
            .find(|(_, input)| input.is_console())
    }

    /// Replay: the next console entry if it is due at `count` (or overdue).
    fn take_console(&mut self, count: u64) -> Option<HostInput> {
        if self.mode != Mode::Replaying {
            return None;
        }
        let i = (self.next_console..self.log.entries.len())
            .find(|&i| self.log.entries[i].1.is_console())?;
        let (at, input) = &self.log.entries[i];
        if *at > count {
            return None;
        }
        let input = input.clone();
        self.next_console = i + 1;
        self.end_replay_if_done();
        Some(input)
    }

    fn end_replay_if_done(&mut self) {
        let rest = |from: usize, console: bool| {
            self.log.entries[from.min(self.log.entries.len())..]
                .iter()
                .any(|(_, input)| input.is_console() == console)
        };
        if !rest(self.next_console, true) && !rest(self.next_host, false) {
            self.mode = Mode::Recording;
        }
    }

    /// Ends a replay: keeps the entries already served and records from here on.
    fn go_live(&mut self) {
        let (next_console, next_host) = (self.next_console, self.next_host);
        let mut index = 0;
        self.log.entries.retain(|(_, input)| {
            let served = if input.is_console() {
                index < next_console
            } else {
                index < next_host
            };
            index += 1;
            served
        });
        self.mode = Mode::Recording;
    }
}

/// What [`run_replaying`] needs of a machine wrapper.
pub trait Replayable {
    fn journal(&self) -> &Journal;
    fn journal_mut(&mut self) -> &mut Journal;
    fn console_mut(&mut self) -> &mut Console;
    fn instruction_count(&self) -> u64;
    /// The wrapper's own run, console input aside.
    fn run_inner(&mut self, budget: u64) -> RunOutcome;

    /// How answers of the outside world are taken: live, recorded, or replayed from a log.
    /// Returns the journal it replaces.
    fn set_journal(&mut self, journal: Journal) -> Journal {
        std::mem::replace(self.journal_mut(), journal)
    }

    /// Replays `log` from here on: what the guest asks of the host is served from it.
    fn replay(&mut self, log: InputLog) {
        self.set_journal(Journal::replaying(log));
    }
}

/// The part of an `impl Machine` that is the same for every machine wrapper whose cpu owns its
/// breakpoint and watchpoint sets and its console (the field path given, e.g. `cpu`), and whose
/// console input goes through its [`Journal`] ([`queue_console`]): expands to `breakpoints`,
/// `watchpoints`, `console`, `queue_input` and `end_input`. The wrapper implements
/// [`Replayable`].
#[macro_export]
macro_rules! machine_ports {
    ($($cpu:ident).+) => {
        fn breakpoints(&mut self) -> &mut $crate::BreakpointSet {
            &mut self.$($cpu).+.breakpoints
        }

        fn watchpoints(&mut self) -> &mut $crate::WatchpointSet {
            &mut self.$($cpu).+.watchpoints
        }

        fn console(&mut self) -> &mut $crate::Console {
            &mut self.$($cpu).+.console
        }

        fn queue_input(&mut self, bytes: &[u8]) {
            $crate::host::queue_console(self, Some(bytes));
        }

        fn end_input(&mut self) {
            $crate::host::queue_console(self, None);
        }
    };
}

/// Queues console input from outside through the journal (recorded with the count at which it
/// came). `None`: end of input.
pub fn queue_console<M: Replayable + ?Sized>(machine: &mut M, bytes: Option<&[u8]>) {
    // Nothing to queue: no entry either.
    let closed = machine.console_mut().input_closed();
    if bytes.is_some_and(<[u8]>::is_empty) || (bytes.is_none() && closed) {
        return;
    }
    let count = machine.instruction_count();
    // A replay that arrived here may still hold input recorded at this count (it is queued
    // when the run goes on): that came first. Live input ends the replay, which would drop it.
    while let Some(recorded) = machine.journal_mut().take_console(count) {
        apply_console(machine.console_mut(), &recorded);
    }
    let guest_waiting = machine.console_mut().waiting();
    let input = match bytes {
        Some(bytes) => HostInput::Console {
            bytes: bytes.to_vec(),
            guest_waiting,
        },
        None => HostInput::ConsoleClosed { guest_waiting },
    };
    apply_console(machine.console_mut(), &input);
    machine.journal_mut().outside_console(count, input);
}

fn apply_console(console: &mut Console, input: &HostInput) {
    match input {
        HostInput::Key(key) => console.push_key(*key),
        HostInput::Console { bytes, .. } => console.push_input(bytes),
        HostInput::ConsoleClosed { .. } => console.close_input(),
        _ => {}
    }
}

/// A key pressed on the machine's keyboard device from outside, through the journal like
/// console input (recorded with its count; it ends a replay). The device takes it from the
/// console's key queue when the machine next runs.
pub fn queue_key<M: Replayable + ?Sized>(machine: &mut M, key: u8) {
    let count = machine.instruction_count();
    while let Some(recorded) = machine.journal_mut().take_console(count) {
        apply_console(machine.console_mut(), &recorded);
    }
    let input = HostInput::Key(key);
    apply_console(machine.console_mut(), &input);
    machine.journal_mut().outside_console(count, input);
}

/// `Machine::run` of a wrapper while its journal replays: the run is cut at the count of each
/// console entry, which is queued there. Wrappers call it only while replaying, so that their
/// live `run` stays the cpu's run behind one branch (see `Lc3Machine::run`).
#[inline(never)]
pub fn run_replaying<M: Replayable + ?Sized>(machine: &mut M, budget: u64) -> RunOutcome {
    let mut executed = 0;
    loop {
        let now = machine.instruction_count();
        // Queue every entry due now. One that came while the guest was stopped for input comes
        // after that stop here too, so the state matches the recorded run's exactly.
        while let Some(next) = machine.journal_mut().next_console_count() {
            if next > now {
                break;
            }
            let waited = matches!(
                machine.journal_mut().next_console_entry(),
                Some((
                    _,
                    HostInput::Console {
                        guest_waiting: true,
                        ..
                    } | HostInput::ConsoleClosed {
                        guest_waiting: true
                    }
                ))
            );
            if waited && !machine.console_mut().waiting() && budget > executed {
                let outcome = machine.run_inner(1);
                executed += outcome.executed;
                match outcome.stop {
                    Some(StopEvent::NeedInput) if outcome.executed == 0 => {}
                    // The replay diverged from the recording: report what happened.
                    stop if outcome.executed > 0 || stop.is_some() => {
                        return RunOutcome { executed, stop };
                    }
                    _ => {}
                }
            }
            if let Some(input) = machine.journal_mut().take_console(now) {
                apply_console(machine.console_mut(), &input);
            }
        }
        if executed >= budget {
            return RunOutcome {
                executed,
                stop: None,
            };
        }
        let mut slice = budget - executed;
        if let Some(next) = machine.journal_mut().next_console_count() {
            slice = slice.min(next - now);
        }
        let outcome = machine.run_inner(slice);
        executed += outcome.executed;
        match outcome.stop {
            // Waiting for input the log holds for later: run on (a polling guest advances).
            Some(StopEvent::NeedInput)
                if machine
                    .journal_mut()
                    .next_console_count()
                    .is_some_and(|next| {
                        next == machine.instruction_count() || outcome.executed > 0
                    }) => {}
            None if executed < budget && machine.journal_mut().next_console_count().is_some() => {}
            stop => return RunOutcome { executed, stop },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recording_keeps_counts_and_replay_serves_them_in_order() {
        let mut j = Journal::recording();
        j.record(5, HostInput::Clock(100));
        j.outside_console(
            7,
            HostInput::Console {
                bytes: b"x".to_vec(),
                guest_waiting: true,
            },
        );
        j.record(9, HostInput::Seed(42));
        let log = j.into_log();
        assert_eq!(log.len(), 3);
        assert_eq!(log.since(7).len(), 2);

        let mut r = Journal::replaying(log);
        assert!(r.is_replaying());
        assert_eq!(r.next_console_count(), Some(7));
        assert_eq!(
            r.replay_host(|i| match i {
                HostInput::Clock(ms) => Some(*ms),
                _ => None,
            }),
            Some(100)
        );
        assert_eq!(r.take_console(6), None, "not due yet");
        assert!(r.take_console(7).is_some());
        assert!(r.is_replaying(), "the seed is still to come");
        assert_eq!(
            r.replay_host(|i| match i {
                HostInput::Seed(s) => Some(*s),
                _ => None,
            }),
            Some(42)
        );
        assert!(r.is_recording(), "a used-up replay records from there on");
    }

    #[test]
    fn a_diverging_request_ends_the_replay_and_drops_the_rest() {
        let mut log = InputLog::new();
        log.entries.push((1, HostInput::Clock(1)));
        log.entries.push((2, HostInput::Seed(2)));
        let mut r = Journal::replaying(log);
        let asked = r.replay_host(|i| match i {
            HostInput::Seed(s) => Some(*s),
            _ => None,
        });
        assert_eq!(asked, None, "the next entry is a clock read");
        assert!(r.is_recording());
        assert!(r.log().is_empty());
        r.record(3, HostInput::Seed(9));
        assert_eq!(r.log().entries, vec![(3, HostInput::Seed(9))]);
    }

    /// A wrapper with a console and a counter, to test what `Replayable` provides.
    struct Toy {
        journal: Journal,
        console: Console,
        count: u64,
    }

    impl Replayable for Toy {
        fn journal(&self) -> &Journal {
            &self.journal
        }
        fn journal_mut(&mut self) -> &mut Journal {
            &mut self.journal
        }
        fn console_mut(&mut self) -> &mut Console {
            &mut self.console
        }
        fn instruction_count(&self) -> u64 {
            self.count
        }
        fn run_inner(&mut self, budget: u64) -> RunOutcome {
            self.count += budget;
            RunOutcome {
                executed: budget,
                stop: None,
            }
        }
    }

    #[test]
    fn a_wrapper_records_queued_input_and_replays_a_log() {
        let mut toy = Toy {
            journal: Journal::off(),
            console: Console::new(),
            count: 12,
        };
        let old = toy.set_journal(Journal::recording());
        assert!(!old.is_recording() && !old.is_replaying(), "it was off");
        queue_console(&mut toy, Some(b"ab"));
        queue_console(&mut toy, Some(b""));
        queue_console(&mut toy, None);
        queue_console(&mut toy, None);
        assert_eq!(toy.console.pending_input(), 2);
        assert!(toy.console.input_closed());
        let log = toy.journal().log().clone();
        assert_eq!(
            log.entries,
            vec![
                (
                    12,
                    HostInput::Console {
                        bytes: b"ab".to_vec(),
                        guest_waiting: false
                    }
                ),
                (
                    12,
                    HostInput::ConsoleClosed {
                        guest_waiting: false
                    }
                ),
            ],
            "empty input and a second end are not entries"
        );
        toy.replay(log);
        assert!(toy.journal().is_replaying());
        assert_eq!(toy.journal().next_console_count(), Some(12));
    }

    #[test]
    fn off_keeps_nothing() {
        let mut j = Journal::off();
        j.record(1, HostInput::Clock(1));
        assert!(j.log().is_empty());
        assert_eq!(j.replay_host(|_| Some(())), None);
    }
}
