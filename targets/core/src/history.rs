//! Time travel: the run so far as checkpoints plus the log of everything that came in from
//! outside, so that any earlier instruction count can be reached again exactly.
//!
//! Going back to count `t` restores the newest checkpoint at or before `t` and replays the run
//! from there to `t` with the machine's [`Journal`] serving the recorded input (no output is
//! shown again, no file is written again, no sleep sleeps). A checkpoint is taken whenever the
//! run has gone `interval` instructions past the newest one, and at every stop; when the
//! checkpoints outgrow the memory cap every other one is dropped (never the first, never the
//! log) and the interval doubles, so history stays complete back to the start and only gets
//! slower to reach.
//!
//! The *frontier* is the furthest count the run has reached live. Below it the machine is in
//! the past: it replays, and output it writes was already shown. Changing the machine's state
//! there (a register or memory write, console input typed) ends that future: the history after
//! the current count is dropped and the run goes on live from here.

use crate::event::StopEvent;
use crate::host::{InputLog, Journal, Replayable};
use crate::machine::Machine;
use crate::snapshot::Snapshot;
use crate::{BreakpointSet, WatchpointSet};

/// The default memory cap of the checkpoints (`--history-mb`).
pub const DEFAULT_CAP_BYTES: usize = 256 << 20;

/// Instructions between two checkpoints at the start (doubled each time the cap thins them).
pub const FIRST_INTERVAL: u64 = 1 << 20;

/// What a reverse search found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReverseStop {
    /// The machine is at an earlier breakpoint or watchpoint hit (the event it reports there).
    Hit(StopEvent),
    /// No hit: the machine is at the start of history.
    Begin,
}

/// A run's history: checkpoints of the machine's state and the input log.
pub struct History<S> {
    /// Ascending by count; the first is the start of history.
    checkpoints: Vec<(u64, S)>,
    /// Input entries before `base`; the machine's journal holds those from `base` on.
    log_before_base: InputLog,
    base: u64,
    frontier: u64,
    interval: u64,
    cap_bytes: usize,
    state_bytes: usize,
}

impl<S: Clone> History<S> {
    /// Starts recording at the machine's current count.
    pub fn start<M>(machine: &mut M, cap_bytes: usize) -> Self
    where
        M: Machine + Snapshot<State = S> + Replayable + ?Sized,
    {
        let now = machine.instructions_executed();
        machine.set_journal(Journal::recording());
        let state = machine.snapshot();
        let state_bytes = machine.state_bytes(&state).max(1);
        History {
            checkpoints: vec![(now, state)],
            log_before_base: InputLog::new(),
            base: now,
            frontier: now,
            interval: FIRST_INTERVAL,
            cap_bytes,
            state_bytes,
        }
    }

    /// The count history starts at.
    pub fn start_count(&self) -> u64 {
        self.checkpoints.first().map_or(0, |c| c.0)
    }

    /// The furthest count reached live.
    pub fn frontier(&self) -> u64 {
        self.frontier
    }

    pub fn checkpoint_count(&self) -> usize {
        self.checkpoints.len()
    }

    /// Bytes the checkpoints take (an estimate: states are full copies).
    pub fn bytes(&self) -> usize {
        self.checkpoints.len() * self.state_bytes
    }

    /// Whether the machine at `now` is in the past (replaying, its output already shown).
    pub fn in_past(&self, now: u64) -> bool {
        now < self.frontier
    }

    /// How far a forward run from `now` may go before it crosses the frontier (`None`: live).
    pub fn budget_to_frontier(&self, now: u64) -> Option<u64> {
        self.in_past(now).then(|| self.frontier - now)
    }

    /// After the machine ran forward (live or replaying): moves the frontier and takes a
    /// checkpoint when the interval has passed (`stopped`: at a stop, always).
    pub fn note_progress<M>(&mut self, machine: &M, stopped: bool)
    where
        M: Machine + Snapshot<State = S> + Replayable + ?Sized,
    {
        let now = machine.instructions_executed();
        self.frontier = self.frontier.max(now);
        let newest_before = self
            .checkpoints
            .iter()
            .rev()
            .find(|c| c.0 <= now)
            .map_or(0, |c| c.0);
        let due = now >= newest_before.saturating_add(self.interval);
        let here = self.checkpoints.iter().any(|c| c.0 == now);
        if (due || stopped) && !here && now > newest_before {
            let at = self.checkpoints.partition_point(|c| c.0 < now);
            self.checkpoints.insert(at, (now, machine.snapshot()));
            self.thin();
        }
    }

    /// Drops every other checkpoint (keeping the first and the newest) while over the cap.
    fn thin(&mut self) {
        while self.bytes() > self.cap_bytes && self.checkpoints.len() > 2 {
            let last = self.checkpoints.len() - 1;
            let mut index = 0;
            self.checkpoints.retain(|_| {
                let keep = index == 0 || index == last || index % 2 == 0;
                index += 1;
                keep
            });
            self.interval = self.interval.saturating_mul(2);
        }
    }

    /// The whole input log: entries before `base` and the journal's.
    fn full_log<M: Replayable + ?Sized>(&self, machine: &M) -> InputLog {
        let mut log = self.log_before_base.clone();
        log.entries
            .extend(machine.journal().log().entries.iter().cloned());
        log
    }

    /// Puts the machine at checkpoint `index`, replaying the log from there.
    fn restore_checkpoint<M>(&mut self, machine: &mut M, index: usize)
    where
        M: Machine + Snapshot<State = S> + Replayable + ?Sized,
    {
        let full = self.full_log(machine);
        let (count, state) = &self.checkpoints[index];
        let count = *count;
        machine.restore(state);
        self.log_before_base = InputLog {
            entries: full
                .entries
                .iter()
                .filter(|(at, _)| *at < count)
                .cloned()
                .collect(),
        };
        self.base = count;
        machine.set_journal(Journal::replaying(full.since(count)));
        // The console's output so far was shown when it was made.
        let _ = machine.console().take_output();
    }

    /// Moves the machine to count `target` (within history), as it was then. Breakpoints and
    /// watchpoints do not stop the replay; output made on the way is dropped. Returns false if
    /// `target` is before the start of history.
    pub fn seek<M>(&mut self, machine: &mut M, target: u64) -> bool
    where
        M: Machine + Snapshot<State = S> + Replayable + ?Sized,
    {
        if target < self.start_count() {
            return false;
        }
        let index = self.checkpoints.partition_point(|c| c.0 <= target) - 1;
        let now = machine.instructions_executed();
        // Already between that checkpoint and the target: run on from here.
        if !(self.checkpoints[index].0 <= now && now <= target) {
            self.restore_checkpoint(machine, index);
        }
        let (bps, wps) = take_traps(machine);
        run_to(machine, target);
        put_traps(machine, bps, wps);
        let _ = machine.console().take_output();
        true
    }

    /// Reverse execution until the newest breakpoint or watchpoint hit before the current
    /// count, or the start of history. A breakpoint hit leaves the machine before the
    /// breakpoint's instruction; a watchpoint hit just after the access. Each interval between checkpoints, newest first, is
    /// replayed once to find its last hit; the machine then goes to that hit.
    pub fn reverse_continue<M>(&mut self, machine: &mut M) -> ReverseStop
    where
        M: Machine + Snapshot<State = S> + Replayable + ?Sized,
    {
        let mut until = machine.instructions_executed();
        let nothing_set = machine.breakpoints().is_empty() && machine.watchpoints().is_empty();
        if !nothing_set {
            let mut index = self.checkpoints.partition_point(|c| c.0 < until);
            while index > 0 {
                index -= 1;
                self.restore_checkpoint(machine, index);
                if let Some(hit) = last_hit_before(machine, until) {
                    let (bps, wps) = take_traps(machine);
                    // Back to the checkpoint, then to the hit: the hit's stop comes again
                    // there, from the same state.
                    self.restore_checkpoint(machine, index);
                    run_to(machine, hit);
                    put_traps(machine, bps, wps);
                    let _ = machine.console().take_output();
                    let event = machine.run(1).stop;
                    let _ = machine.console().take_output();
                    if let Some(event) = event.filter(is_trap) {
                        if matches!(event, StopEvent::Watch { .. }) {
                            // Going backwards, a watched access is met just after it: gdb
                            // (whose watchpoints stop before the access, as these do) then
                            // steps back over the access and compares the values.
                            let (bps, wps) = take_traps(machine);
                            let _ = machine.run(1);
                            put_traps(machine, bps, wps);
                            let _ = machine.console().take_output();
                        }
                        return ReverseStop::Hit(event);
                    }
                    // Not reproduced (should not happen): settle at the hit's count.
                    self.seek(machine, hit);
                    return ReverseStop::Hit(StopEvent::Breakpoint);
                }
                until = self.checkpoints[index].0;
            }
        }
        let start = self.start_count();
        self.seek(machine, start);
        ReverseStop::Begin
    }

    /// Changing the machine at `now` in the past ends the future: the history after `now`
    /// goes and the run continues live from here. Returns whether anything was dropped.
    pub fn truncate_future<M>(&mut self, machine: &mut M) -> bool
    where
        M: Machine + Snapshot<State = S> + Replayable + ?Sized,
    {
        let now = machine.instructions_executed();
        if now >= self.frontier {
            return false;
        }
        self.checkpoints.retain(|c| c.0 <= now);
        let mut log = self.full_log(machine);
        log.entries.retain(|(at, _)| *at < now);
        // The journal records from here; entries before `now` stay in the log.
        self.log_before_base = log;
        self.base = now;
        machine.set_journal(Journal::recording());
        self.frontier = now;
        true
    }
}

fn is_trap(event: &StopEvent) -> bool {
    matches!(event, StopEvent::Breakpoint | StopEvent::Watch { .. })
}

/// Takes the breakpoints and watchpoints out (a replay to a count must not stop at them).
fn take_traps<M: Machine + ?Sized>(machine: &mut M) -> (BreakpointSet, WatchpointSet) {
    let mut no_bps = machine.breakpoints().clone();
    no_bps.clear();
    let mut no_wps = machine.watchpoints().clone();
    no_wps.clear();
    (
        std::mem::replace(machine.breakpoints(), no_bps),
        std::mem::replace(machine.watchpoints(), no_wps),
    )
}

fn put_traps<M: Machine + ?Sized>(machine: &mut M, bps: BreakpointSet, wps: WatchpointSet) {
    *machine.breakpoints() = bps;
    *machine.watchpoints() = wps;
}

/// Runs until the count is `target` (or the machine stops for good before it).
fn run_to<M: Machine + ?Sized>(machine: &mut M, target: u64) {
    let mut idle = 0;
    while machine.instructions_executed() < target {
        let left = target - machine.instructions_executed();
        let outcome = machine.run(left);
        let _ = machine.console().take_output();
        match outcome.stop {
            None | Some(StopEvent::NeedInput) if outcome.executed > 0 => idle = 0,
            None | Some(StopEvent::NeedInput) => {
                // Waiting for input the log does not hold: the recorded run went no further.
                idle += 1;
                if idle > 2 {
                    return;
                }
            }
            Some(_) => return,
        }
    }
}

/// Replays from the machine's state to count `until` with its breakpoints and watchpoints
/// set, and returns the count of the last hit before `until`.
fn last_hit_before<M: Machine + ?Sized>(machine: &mut M, until: u64) -> Option<u64> {
    let mut last = None;
    let mut idle = 0;
    while machine.instructions_executed() < until {
        let left = until - machine.instructions_executed();
        let outcome = machine.run(left);
        let _ = machine.console().take_output();
        let now = machine.instructions_executed();
        match outcome.stop {
            Some(StopEvent::Breakpoint) => {
                last = Some(now);
                // Past the breakpoint: run its instruction with it taken out.
                let pc = machine.pc();
                machine.breakpoints().remove(pc);
                let _ = machine.run(1);
                machine.breakpoints().insert(pc);
                idle = 0;
            }
            Some(StopEvent::Watch { .. }) => {
                last = Some(now);
                // The next run completes the access the watch stopped before.
                idle = 0;
            }
            None | Some(StopEvent::NeedInput) if outcome.executed > 0 => idle = 0,
            None | Some(StopEvent::NeedInput) => {
                idle += 1;
                if idle > 2 {
                    break;
                }
            }
            Some(_) => break,
        }
    }
    last
}
