//! What every protocol's session does with the machine, whoever asks: run it forward in bounded
//! bursts (replaying while it is in the past of its history), take it back (one instruction, or
//! to the previous breakpoint or watchpoint hit), and move its console: typed input in, in
//! order and never faster than it can be kept, output out through a backlog that pauses a guest
//! nobody reads. The RSP session (rsp.rs) and the DAP session (dap/) are thin layers over it.

use std::collections::VecDeque;
use std::time::Instant;

use asmdbg_core::gdb::{Debuggee, GdbMachine, ResumeMode};
use asmdbg_core::history::ReverseStop;
use asmdbg_core::StopEvent;

use crate::discipline::Discipline;

/// Instructions per burst: ~0.2-0.5 ms at full speed, which bounds Ctrl-C latency.
pub const BURST: u64 = 100_000;
/// A burst runs in slices of this many instructions and ends early once the guest has written
/// more than OUTPUT_BACKLOG bytes, so one burst of MARS's print-string in a loop builds up a few
/// megabytes at most (not hundreds) and Ctrl-C latency stays in milliseconds.
pub const SLICE: u64 = 1024;
/// Slices double while the guest writes nothing, up to this many instructions (see
/// [`SliceSizes`]). The first slice in which a quiet guest starts to write can be this long:
/// an LC-3 instruction writes at most a byte and a SimpleRISC `.print` a line of registers,
/// and a MIPS run ends by itself once 64 KiB of output wait (`OUTPUT_PER_RUN`), so that slice
/// leaves at most a few megabytes too.
pub const MAX_SLICE: u64 = 1 << 15;

/// The sizes of a burst's slices: [`SLICE`] first and after every slice in which the guest
/// wrote, doubling (up to [`MAX_SLICE`]) after every slice in which it wrote nothing.
///
/// Why: compiled code runs a thousand instructions in well under a microsecond, so the fixed
/// cost of a `run` call (syncing the debug sets, entering the code) took a third to a half of
/// the time of a guest that only computes; the backlog bound only needs short slices while
/// output flows.
#[derive(Debug, Clone, Copy)]
pub struct SliceSizes(u64);

impl Default for SliceSizes {
    fn default() -> Self {
        SliceSizes(SLICE)
    }
}

impl SliceSizes {
    /// The size of the next slice.
    pub fn current(self) -> u64 {
        self.0
    }

    /// After a slice: whether the guest wrote during it.
    pub fn after(&mut self, wrote: bool) {
        self.0 = if wrote {
            SLICE
        } else {
            (self.0 * 2).min(MAX_SLICE)
        };
    }
}
/// Guest output is handed out in chunks of at most this size, so a bounded channel of chunks
/// bounds bytes, not just chunks.
pub const CHUNK: usize = 16 * 1024;
/// Guest output held back while the console does not keep up; the guest pauses past this.
pub const OUTPUT_BACKLOG: usize = 64 * 1024;
/// Typed bytes queued for a guest that does not read them; past this console input is not
/// wanted (the terminal's writes block, as on a real serial line) so a huge paste cannot grow
/// memory.
pub const INPUT_BACKLOG: usize = 1 << 20;
/// Typed bytes queued in the machine at a time; the rest wait in the session. The machine's
/// queue is part of its state, which time travel copies into every checkpoint, so a pasted
/// or piped megabyte must not sit there.
pub const MACHINE_INPUT_QUEUE: usize = 4096;

/// Where a reverse request left the machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reversed {
    /// One instruction back.
    Stepped,
    /// At an earlier breakpoint or watchpoint hit (the event it reports there).
    Hit(StopEvent),
    /// At the start of history (or there is no history).
    Begin,
}

/// Whether the machine can run now, and what it waits for if not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RunState {
    /// Run a burst now.
    pub run: bool,
    /// The guest is paused because its output is not being taken.
    pub output_blocked: bool,
    /// A sleeping guest wakes then.
    pub wake: Option<Instant>,
}

/// One machine and its console, run on behalf of a protocol session.
pub struct RunCore<G: GdbMachine> {
    pub target: Debuggee<G>,
    discipline: Discipline,
    /// Guest output (and echo, and fault notes) the console has not taken yet.
    backlog: Vec<u8>,
    /// The console's input ended.
    input_closed: bool,
    /// The console's input ended and the machine has been told (after the held bytes).
    input_end_given: bool,
    /// Nobody takes console output any more: it is dropped.
    output_gone: bool,
    /// Console input the machine has not been given yet: everything typed while it is in
    /// the past (queued once it is back at the end of its history), and otherwise what does
    /// not fit in its queue of [`MACHINE_INPUT_QUEUE`] bytes.
    held_input: VecDeque<u8>,
    /// A single step needs console input that has not come: it waits for input like a running
    /// guest (until then, stepping again would only ask again).
    pub step_waits: bool,
    burst: u64,
    /// `--speed`: bursts held to this pace while the machine runs live (a replay of the past
    /// and reverse motions go at full speed).
    pace: Option<asmdbg_core::Pace>,
    /// The paced run is under way (its reckoning started); cleared whenever it stops or waits,
    /// so that it never catches up for the time it was stopped.
    pace_running: bool,
    /// A reverse step reported the watched access it would go back over, at this count.
    reverse_watch_at: Option<u64>,
    /// Where the reverse-continue under way started, and whether the end had been reported.
    reverse_from: (u64, bool),
}

impl<G: GdbMachine> RunCore<G> {
    pub fn new(target: Debuggee<G>, discipline: Discipline) -> Self {
        RunCore {
            target,
            discipline,
            backlog: Vec::new(),
            input_closed: false,
            input_end_given: false,
            output_gone: false,
            held_input: VecDeque::new(),
            step_waits: false,
            burst: BURST,
            pace: None,
            pace_running: false,
            reverse_watch_at: None,
            reverse_from: (0, false),
        }
    }

    /// Instructions per burst (default [`BURST`]).
    pub fn set_burst(&mut self, instructions: u64) {
        self.burst = instructions.max(1);
    }

    /// Holds the live run to `per_second` instructions a second (`--speed`).
    pub fn set_pace(&mut self, per_second: u64) {
        self.pace = Some(asmdbg_core::Pace::new(per_second));
    }

    /// Bytes the user typed on the console.
    pub fn on_console_input(&mut self, typed: &[u8]) {
        let mut guest = Vec::new();
        let mut echo = Vec::new();
        self.discipline.input(typed, &mut guest, &mut echo);
        self.add_to_backlog(&echo);
        self.step_waits = false;
        self.held_input.extend(guest);
        self.release_held_input();
    }

    /// The console's input ended (stdin closed).
    pub fn on_console_input_end(&mut self) {
        self.input_closed = true;
        self.release_held_input();
    }

    /// Nobody will take console output any more: it is dropped from now on.
    pub fn on_console_output_gone(&mut self) {
        self.output_gone = true;
        self.backlog = Vec::new();
    }

    /// Whether console input is wanted now.
    pub fn wants_input(&self) -> bool {
        self.held_input.len() < INPUT_BACKLOG && !self.input_closed
    }

    /// Whether console output waits to be taken.
    pub fn output_pending(&self) -> bool {
        !self.backlog.is_empty()
    }

    /// The next chunk of console output (at most [`CHUNK`] bytes), if any.
    pub fn take_output_chunk(&mut self) -> Option<Vec<u8>> {
        self.collect_output();
        if self.backlog.is_empty() {
            None
        } else {
            Some(next_chunk(&mut self.backlog))
        }
    }

    /// Everything the console has not taken.
    pub fn take_all_output(&mut self) -> Vec<u8> {
        self.collect_output();
        std::mem::take(&mut self.backlog)
    }

    /// Moves guest output and fault notes into the backlog, as the terminal should see them.
    pub fn collect_output(&mut self) {
        let out = self.target.machine.console().take_output();
        self.add_to_backlog(&out);
        let notes = std::mem::take(&mut self.target.console_notes);
        self.add_to_backlog(&notes);
    }

    fn add_to_backlog(&mut self, bytes: &[u8]) {
        if !self.output_gone && !bytes.is_empty() {
            self.discipline.output(bytes, &mut self.backlog);
        }
    }

    /// The guest waits, live, for console input that can never come: the console's input
    /// ended and every byte of it was taken (what `asmdbg run` ends with status 3).
    pub fn input_exhausted(&mut self) -> bool {
        if !self.input_end_given || !self.held_input.is_empty() || self.in_past() {
            return false;
        }
        let console = self.target.machine.console();
        console.waiting() && console.pending_input() == 0
    }

    /// Whether the machine is in the past of its recorded run (time travel).
    pub fn in_past(&self) -> bool {
        let now = self.target.machine.instructions_executed();
        self.target.history.as_ref().is_some_and(|h| h.in_past(now))
    }

    /// Brings the console up to date before a protocol looks at it: held input into the
    /// machine as far as it has room, its output into the backlog.
    pub fn settle(&mut self) {
        self.release_held_input();
        self.collect_output();
    }

    /// Whether the machine, resumed in `mode`, can run a burst now (at `now`). Call after
    /// [`RunCore::settle`].
    pub fn run_state(&mut self, mode: Option<ResumeMode>, now: Instant) -> RunState {
        let console = self.target.machine.console();
        let starved = console.waiting() && console.pending_input() == 0;
        // A guest stopped while it waited for a key still takes a single step: the step runs
        // the instruction (a poll of the keyboard reads "not ready").
        let stepping = mode == Some(ResumeMode::Step) && !self.step_waits;
        // Going back in history needs no input.
        let reverse = matches!(
            mode,
            Some(ResumeMode::ReverseStep | ResumeMode::ReverseContinue)
        );
        // In the past the replay brings the recorded input itself.
        let starved = starved && !stepping && !reverse && !self.in_past();
        let output_blocked = self.backlog.len() >= OUTPUT_BACKLOG;
        // A guest in a real-time sleep (MARS syscall 32) runs nothing until it wakes.
        let mut wake = self.target.machine.wake_time().filter(|&w| w > now);
        let live = mode == Some(ResumeMode::Continue) && !self.in_past();
        let waiting = starved || output_blocked || wake.is_some();
        match &mut self.pace {
            Some(pace) if live && !waiting => {
                let count = self.target.machine.instructions_executed();
                if !self.pace_running {
                    pace.restart(now, count);
                    self.pace_running = true;
                }
                // Ahead of the pace: wait as for a sleeping guest.
                let ahead = pace.wait(now, count);
                if !ahead.is_zero() {
                    wake = Some(now + ahead);
                }
            }
            _ => self.pace_running = false,
        }
        RunState {
            run: reverse || (!starved && !output_blocked && wake.is_none()),
            output_blocked,
            wake,
        }
    }

    /// Runs forward one burst or one step. In the past (below the history's frontier) the run
    /// replays: it stops at the frontier and its output, shown when it was made, is dropped.
    pub fn forward(&mut self, stepping: bool) -> Option<StopEvent> {
        self.reverse_watch_at = None;
        let now = self.target.machine.instructions_executed();
        // A replay stops at the frontier, and where the debugger changed the machine in the
        // recorded run (the change is taken there: the replay alone would not make it).
        let past = self.target.history.as_ref().and_then(|h| {
            let frontier = h.budget_to_frontier(now)?;
            Some(h.budget_to_edit(now).map_or(frontier, |e| e.min(frontier)))
        });
        let event = match (stepping, past) {
            (true, None) => {
                // Back at the frontier by a replay, input recorded at this count may still be
                // pending (a run queues it when it goes on; a step does not): it came first.
                if self.target.machine.journal().is_replaying() {
                    let _ = self.target.machine.run(0);
                }
                self.target.machine.step()
            }
            // A step in the past goes through the replay, which queues the recorded input.
            // A step runs its instruction even on a breakpoint (as `step` does live); the
            // replay's run checks the breakpoint at the PC first, so it is taken out meanwhile.
            (true, Some(_)) => {
                // Every one there: the set counts breakpoints at one address (the IDE's of two
                // kinds, a step out's own at a return address).
                let pc = self.target.machine.pc();
                let mut there = 0;
                while self.target.machine.breakpoints().remove(pc) {
                    there += 1;
                }
                let stop = self.target.machine.run(1).stop;
                for _ in 0..there {
                    self.target.machine.breakpoints().insert(pc);
                }
                stop
            }
            (false, limit) => self.burst_limited(limit),
        };
        if event.is_some() {
            // A stop ends the paced run; the next resume starts its reckoning afresh.
            self.pace_running = false;
        }
        if let Some(advice) = self.target.machine.take_advice() {
            self.target
                .console_notes
                .extend_from_slice(format!("[asmdbg: {advice}]\n").as_bytes());
        }
        if past.is_some() {
            let _ = self.target.machine.console().take_output();
        }
        if let Some(history) = &mut self.target.history {
            // Only on arriving there: a stop at that count (before its instruction) keeps
            // the state it stopped in (a watch stop's pending access with it).
            if past.is_some() && self.target.machine.instructions_executed() != now {
                history.take_edit(&mut self.target.machine);
            }
            history.note_progress(&self.target.machine, event.is_some() || stepping);
        }
        if stepping && event == Some(StopEvent::NeedInput) {
            self.step_waits = true;
        }
        self.release_held_input();
        event
    }

    /// The program ended live under time travel: the first time, the protocol reports the end
    /// of history, so the student can go back from there; a resume at the same point then
    /// reports the end itself.
    pub fn end_of_history(&mut self, event: &Option<StopEvent>) -> bool {
        if self.target.history.is_none() {
            return false;
        }
        match event {
            Some(StopEvent::Halted | StopEvent::Exited(_)) if !self.target.end_reported => {
                self.target.end_reported = true;
                true
            }
            _ => false,
        }
    }

    /// The machine as it was one instruction earlier. With `report_watch` (gdb), when the
    /// instruction to go back over makes an access a watchpoint waits for, the machine stays
    /// where it is, just after the access, and the watch is reported, as a reverse-continue
    /// reports one: gdb (whose MIPS and ARM watchpoints are not steppable) then takes its
    /// watchpoints out, steps back over the access itself and shows the value change
    /// reversed. Without the report gdb keeps the value it saw after the access, and a
    /// forward run over the same access changes nothing it would report. A second request at
    /// the same count right after such a report goes back (a client that keeps its
    /// watchpoints in is not stuck).
    pub fn reverse_step(&mut self, report_watch: bool) -> Reversed {
        let reported_here = self.reverse_watch_at.take();
        let Some(history) = &mut self.target.history else {
            return Reversed::Begin;
        };
        let machine = &mut self.target.machine;
        let now = machine.instructions_executed();
        if now <= history.start_count() || !history.seek(machine, now - 1) {
            return Reversed::Begin;
        }
        if report_watch && reported_here != Some(now) && !machine.watchpoints().is_empty() {
            // The instruction again, watchpoints in (a breakpoint on it is no access).
            let pc = machine.pc();
            let had = machine.breakpoints().remove(pc);
            let stop = machine.run(1).stop;
            if had {
                machine.breakpoints().insert(pc);
            }
            let _ = machine.console().take_output();
            if let Some(watch @ StopEvent::Watch { .. }) = stop {
                // Back where it was, just after the access (as history has it there: the
                // debugger may have changed the machine at that count).
                history.seek(machine, now);
                self.reverse_watch_at = Some(now);
                return Reversed::Hit(watch);
            }
            history.seek(machine, now - 1);
        }
        // Moving back leaves the program's end (a watch reported in place does not move).
        self.target.end_reported = false;
        Reversed::Stepped
    }

    /// A watched access was reported here as a reverse step reports one (the machine just
    /// after it): the next reverse step goes back over it.
    pub fn watch_reported_here(&mut self) {
        self.reverse_watch_at = Some(self.target.machine.instructions_executed());
    }

    /// Back to the previous breakpoint or watchpoint hit, or to the start of history. One
    /// interval of history is searched per call, so an interrupt stops a long search (the
    /// machine is then at a point of its history); `None` while the search goes on.
    pub fn reverse_continue(&mut self) -> Option<Reversed> {
        self.reverse_watch_at = None;
        let Some(history) = &mut self.target.history else {
            return Some(Reversed::Begin);
        };
        let machine = &mut self.target.machine;
        let mut search = match self.target.reverse_search.take() {
            Some(search) => search,
            None => {
                self.reverse_from = (machine.instructions_executed(), self.target.end_reported);
                history.begin_reverse(machine)
            }
        };
        // Moving back leaves the program's end (an interrupted search too).
        self.target.end_reported = false;
        let stop = match history.reverse_search_step(machine, &mut search) {
            None => {
                self.target.reverse_search = Some(search);
                return None;
            }
            Some(ReverseStop::Begin) => Reversed::Begin,
            Some(ReverseStop::Hit(event)) => Reversed::Hit(event),
        };
        // A search that found nothing to go back to left the machine where it was.
        let (from, end_reported) = self.reverse_from;
        if machine.instructions_executed() == from {
            self.target.end_reported = end_reported;
        }
        Some(stop)
    }

    /// Gives the machine held input, as much as its queue has room for, unless it is in
    /// the past (it replays recorded input until it is back at the end of its history; what
    /// is typed meanwhile comes after that); then the end of input, if it came.
    pub fn release_held_input(&mut self) {
        if self.in_past() {
            return;
        }
        let room =
            MACHINE_INPUT_QUEUE.saturating_sub(self.target.machine.console().pending_input());
        if !self.held_input.is_empty() && room > 0 {
            let take = room.min(self.held_input.len());
            let bytes: Vec<u8> = self.held_input.drain(..take).collect();
            // The one place typed bytes enter the machine.
            self.target.machine.queue_input(&bytes);
        }
        if self.input_closed && self.held_input.is_empty() && !self.input_end_given {
            self.input_end_given = true;
            self.target.machine.end_input();
        }
    }

    /// Runs up to one burst of instructions (no more than `limit` when given) in slices,
    /// ending early when the guest has written a lot.
    fn burst_limited(&mut self, limit: Option<u64>) -> Option<StopEvent> {
        let mut left = limit.map_or(self.burst, |l| l.min(self.burst));
        if let (Some(pace), None) = (&self.pace, limit) {
            // A paced burst is a hundredth of a second's worth, so the pace stays even.
            left = left.min(pace.slice());
        }
        let mut sizes = SliceSizes::default();
        while left > 0 {
            let slice = left.min(sizes.current());
            let written = self.target.machine.console().output().len();
            let outcome = self.target.machine.run(slice);
            if outcome.stop.is_some() {
                return outcome.stop;
            }
            // A run that ends early without a stop (a guest's sleep began) hands control back.
            if outcome.executed < slice {
                break;
            }
            left -= slice;
            let backlog = self.target.machine.console().output().len();
            if backlog > OUTPUT_BACKLOG {
                break;
            }
            sizes.after(backlog != written);
        }
        None
    }
}

/// The first CHUNK bytes of `backlog` (all of it when shorter), taken out of it.
fn next_chunk(backlog: &mut Vec<u8>) -> Vec<u8> {
    if backlog.len() <= CHUNK {
        std::mem::take(backlog)
    } else {
        // A fresh allocation of CHUNK bytes: a chunk that kept the backlog's capacity would
        // park megabytes in the caller's queue.
        backlog.drain(..CHUNK).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_double_while_the_guest_writes_nothing_and_start_over_when_it_writes() {
        let mut sizes = SliceSizes::default();
        let mut seen = vec![sizes.current()];
        for _ in 0..7 {
            sizes.after(false);
            seen.push(sizes.current());
        }
        assert_eq!(seen, [1024, 2048, 4096, 8192, 16384, 32768, 32768, 32768]);
        assert_eq!(seen.last(), Some(&MAX_SLICE));
        sizes.after(true);
        assert_eq!(sizes.current(), SLICE);
        sizes.after(false);
        assert_eq!(sizes.current(), 2 * SLICE);
    }

    #[test]
    fn output_goes_out_in_bounded_chunks() {
        let mut backlog: Vec<u8> = (0..CHUNK * 2 + 5).map(|i| i as u8).collect();
        let first = next_chunk(&mut backlog);
        assert_eq!(first.len(), CHUNK);
        assert!(first.capacity() < 2 * CHUNK, "no hidden megabytes");
        assert_eq!(first[1], 1);
        assert_eq!(backlog.len(), CHUNK + 5);
        assert_eq!(backlog[0], CHUNK as u8);
        assert_eq!(next_chunk(&mut backlog).len(), CHUNK);
        assert_eq!(next_chunk(&mut backlog).len(), 5);
        assert!(backlog.is_empty());
    }
}
