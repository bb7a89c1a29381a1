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

/// Instructions between two checkpoints at the start, at least (doubled each time the cap
/// thins them): more for a machine whose snapshot reads much (MIPS looks at 12 MiB), so that
/// taking them costs a few percent of running. 8 Mi: with compiled code an LC-3 runs a million
/// instructions in well under a millisecond, and its checkpoints (128 KiB of memory copied
/// each) cost it a quarter of its rate at 1 Mi and a tenth at 4 Mi under DAP (scripts/bench);
/// a first reverse step replays at most this much (milliseconds), later ones far less.
pub const FIRST_INTERVAL: u64 = 1 << 23;

/// Instructions per byte a snapshot reads, in the interval between checkpoints.
const INTERVAL_PER_SNAPSHOT_BYTE: u64 = 4;

/// A stop takes a checkpoint if the newest is at least this far behind (a run of `stepi`
/// or of breakpoint hits in a loop does not snapshot at every stop).
const STOP_CHECKPOINT_GAP: u64 = 1 << 16;

/// Where a reverse-continue's search is: intervals below checkpoint `index` are left, and
/// hits must come before `until`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReverseSearch {
    index: usize,
    until: u64,
}

/// A seek replaying more than this leaves states behind it for the next one.
const SCRATCH_SPACING: u64 = 4096;
/// How many parts such a seek's replay is cut into (a state at each cut).
const SCRATCH_PER_SEEK: u64 = 8;
/// Seek states kept (those nearest the last target), and at most this part of the cap.
const SCRATCH_KEPT: usize = 32;
const SCRATCH_SHARE_OF_CAP: usize = 8;

/// What a reverse search found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReverseStop {
    /// The machine is at an earlier breakpoint or watchpoint hit (the event it reports there).
    Hit(StopEvent),
    /// No hit: the machine is at the start of history.
    Begin,
}

/// A machine state kept by history, taken at instruction `count`.
#[derive(Clone)]
struct Saved<S> {
    count: u64,
    state: S,
    /// What the state takes in memory (the machine's [`Snapshot::state_bytes`]).
    bytes: usize,
    /// The debugger changed the machine at `count` and this is the changed state: a replay
    /// arriving at `count` does not make it (the change is not in the input log), so it must
    /// take this state there, and thinning never drops it.
    edited: bool,
}

impl<S> Saved<S> {
    fn take<M>(machine: &M) -> Self
    where
        M: Machine + Snapshot<State = S> + ?Sized,
    {
        let state = machine.snapshot();
        Saved {
            count: machine.instructions_executed(),
            bytes: machine.state_bytes(&state),
            state,
            edited: false,
        }
    }
}

/// A run's history: checkpoints of the machine's state and the input log.
pub struct History<S> {
    /// Ascending by count; the first is the start of history.
    checkpoints: Vec<Saved<S>>,
    /// States taken on the way by recent seeks (ascending): a run of reverse steps finds
    /// one close behind it, so each step replays a little, not a whole interval.
    scratch: Vec<Saved<S>>,
    /// Input entries before `base`; the machine's journal holds those from `base` on.
    log_before_base: InputLog,
    base: u64,
    frontier: u64,
    interval: u64,
    cap_bytes: usize,
}

impl<S: Clone> History<S> {
    /// Starts recording at the machine's current count.
    pub fn start<M>(machine: &mut M, cap_bytes: usize) -> Self
    where
        M: Machine + Snapshot<State = S> + Replayable + ?Sized,
    {
        let now = machine.instructions_executed();
        machine.set_journal(Journal::recording());
        History {
            checkpoints: vec![Saved::take(machine)],
            scratch: Vec::new(),
            log_before_base: InputLog::new(),
            base: now,
            frontier: now,
            interval: FIRST_INTERVAL
                .max(INTERVAL_PER_SNAPSHOT_BYTE * machine.snapshot_cost_bytes() as u64),
            cap_bytes,
        }
    }

    /// The count history starts at.
    pub fn start_count(&self) -> u64 {
        self.checkpoints.first().map_or(0, |c| c.count)
    }

    /// The furthest count reached live.
    pub fn frontier(&self) -> u64 {
        self.frontier
    }

    pub fn checkpoint_count(&self) -> usize {
        self.checkpoints.len()
    }

    /// Bytes the kept states take: the checkpoints and the states recent seeks left.
    pub fn state_bytes(&self) -> usize {
        self.checkpoints
            .iter()
            .chain(&self.scratch)
            .map(|saved| saved.bytes)
            .sum()
    }

    /// Bytes the input log takes (never thinned: it is what makes the past reachable).
    pub fn log_bytes<M: Replayable + ?Sized>(&self, machine: &M) -> usize {
        self.log_before_base.bytes() + machine.journal().log().bytes()
    }

    /// Everything that came in from outside since history began, in order.
    pub fn input_log<M: Replayable + ?Sized>(&self, machine: &M) -> InputLog {
        let mut entries = self.log_before_base.entries.clone();
        entries.extend(machine.journal().log().entries.iter().cloned());
        InputLog { entries }
    }

    /// All the memory history takes, what `--history-mb` caps.
    pub fn bytes<M: Replayable + ?Sized>(&self, machine: &M) -> usize {
        self.state_bytes() + self.log_bytes(machine)
    }

    /// The cap in bytes.
    pub fn cap_bytes(&self) -> usize {
        self.cap_bytes
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
            .find(|c| c.count <= now)
            .map_or(0, |c| c.count);
        let due = now >= newest_before.saturating_add(self.interval);
        let stop_due = stopped && now >= newest_before.saturating_add(STOP_CHECKPOINT_GAP);
        let here = self.checkpoints.iter().any(|c| c.count == now);
        if (due || stop_due) && !here && now > newest_before {
            let at = self.checkpoints.partition_point(|c| c.count < now);
            self.checkpoints.insert(at, Saved::take(machine));
            self.thin(self.log_bytes(machine));
        }
    }

    /// While over the cap: drops the seeks' states, then every other checkpoint (keeping the
    /// first and the newest), doubling the interval each time.
    fn thin(&mut self, log_bytes: usize) {
        let over = |h: &Self| h.state_bytes() + log_bytes > h.cap_bytes;
        while over(self) && !self.scratch.is_empty() {
            self.scratch.clear();
        }
        while over(self) && self.checkpoints.len() > 2 {
            let last = self.checkpoints.len() - 1;
            let mut index = 0;
            self.checkpoints.retain(|c| {
                let keep = index == 0 || index == last || index % 2 == 0 || c.edited;
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
        let saved = self.checkpoints[index].clone();
        self.restore_state(machine, saved.count, &saved.state);
    }

    /// Puts the machine in `state` (taken at `count`), replaying the log from there.
    fn restore_state<M>(&mut self, machine: &mut M, count: u64, state: &S)
    where
        M: Machine + Snapshot<State = S> + Replayable + ?Sized,
    {
        let full = self.full_log(machine);
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
        let index = self.checkpoints.partition_point(|c| c.count <= target) - 1;
        let mut from = self.checkpoints[index].count;
        let near = self.scratch.partition_point(|c| c.count <= target);
        let scratch = near
            .checked_sub(1)
            .filter(|&i| self.scratch[i].count > from);
        if let Some(i) = scratch {
            from = self.scratch[i].count;
        }
        let now = machine.instructions_executed();
        // Already between the nearest state and the target: run on from here.
        if !(from <= now && now <= target) {
            match scratch {
                Some(i) => {
                    let saved = self.scratch[i].clone();
                    self.restore_state(machine, saved.count, &saved.state);
                }
                None => self.restore_checkpoint(machine, index),
            }
        }
        let start = machine.instructions_executed();
        let (bps, wps) = take_traps(machine);
        // A long replay leaves states behind it for the next seek back (a run of `bs`).
        let distance = target - start;
        if distance > SCRATCH_SPACING {
            for i in 1..SCRATCH_PER_SEEK {
                let mark = start + distance * i / SCRATCH_PER_SEEK;
                run_to(machine, mark);
                let here = machine.instructions_executed();
                if here == mark && !self.scratch.iter().any(|c| c.count == here) {
                    let at = self.scratch.partition_point(|c| c.count < here);
                    self.scratch.insert(at, Saved::take(machine));
                }
            }
            // Keep the states nearest the target, within their share of the cap.
            while self.scratch.len() > SCRATCH_KEPT
                || (self.scratch.len() > 1
                    && self.scratch.iter().map(|s| s.bytes).sum::<usize>()
                        > self.cap_bytes / SCRATCH_SHARE_OF_CAP)
            {
                let farthest = (0..self.scratch.len())
                    .max_by_key(|&i| self.scratch[i].count.abs_diff(target))
                    .unwrap_or(0);
                self.scratch.remove(farthest);
            }
        }
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
        let mut search = self.begin_reverse(machine);
        loop {
            if let Some(stop) = self.reverse_search_step(machine, &mut search) {
                return stop;
            }
        }
    }

    /// A reverse-continue from the machine's current count, to be advanced one interval at a
    /// time by [`History::reverse_search_step`] (so a long search can be interrupted between
    /// intervals: the machine is then at a point of its history).
    pub fn begin_reverse<M>(&self, machine: &mut M) -> ReverseSearch
    where
        M: Machine + ?Sized,
    {
        let until = machine.instructions_executed();
        let nothing_set = machine.breakpoints().is_empty() && machine.watchpoints().is_empty();
        ReverseSearch {
            until,
            index: if nothing_set {
                0
            } else {
                self.checkpoints.partition_point(|c| c.count < until)
            },
        }
    }

    /// Searches the next interval (newest first) for the last hit; `Some` when the search is
    /// over (the machine is at the hit, or at the start of history).
    pub fn reverse_search_step<M>(
        &mut self,
        machine: &mut M,
        search: &mut ReverseSearch,
    ) -> Option<ReverseStop>
    where
        M: Machine + Snapshot<State = S> + Replayable + ?Sized,
    {
        if search.index == 0 {
            let start = self.start_count();
            self.seek(machine, start);
            return Some(ReverseStop::Begin);
        }
        search.index -= 1;
        let index = search.index;
        self.restore_checkpoint(machine, index);
        let Some(hit) = last_hit_before(machine, search.until) else {
            search.until = self.checkpoints[index].count;
            return None;
        };
        let (bps, wps) = take_traps(machine);
        // Back to the checkpoint, then to the hit: the hit's stop comes again there, from
        // the same state.
        self.restore_checkpoint(machine, index);
        run_to(machine, hit);
        put_traps(machine, bps, wps);
        let _ = machine.console().take_output();
        let event = machine.run(1).stop;
        let _ = machine.console().take_output();
        if let Some(event) = event.filter(is_trap) {
            if matches!(event, StopEvent::Watch { .. }) {
                // Going backwards, a watched access is met just after it: gdb (whose
                // watchpoints stop before the access, as these do) then steps back over the
                // access and compares the values.
                let (bps, wps) = take_traps(machine);
                let _ = machine.run(1);
                put_traps(machine, bps, wps);
                let _ = machine.console().take_output();
                // Just after the access may be where the debugger changed the machine.
                self.take_edit(machine);
            }
            return Some(ReverseStop::Hit(event));
        }
        // Not reproduced (should not happen): settle at the hit's count.
        self.seek(machine, hit);
        Some(ReverseStop::Hit(StopEvent::Breakpoint))
    }

    /// The machine was changed at `now` (a register, memory, the PC): every state history
    /// kept from `now` on shows the machine before the change, so they go, and the changed
    /// machine becomes the state at `now` (at the start of history too); in the past, that
    /// also ends the future: the history after `now` goes and the run continues live from
    /// here. Returns whether a recorded future was dropped.
    pub fn truncate_future<M>(&mut self, machine: &mut M) -> bool
    where
        M: Machine + Snapshot<State = S> + Replayable + ?Sized,
    {
        let now = machine.instructions_executed();
        let dropped_future = now < self.frontier;
        // What came in at `now` (keys typed while the machine was here) is part of the state
        // at `now`: a replay that arrived here has it pending until the run goes on.
        if machine.journal().is_replaying() {
            let _ = machine.run(0);
        }
        self.checkpoints.retain(|c| c.count < now);
        self.scratch.retain(|c| c.count < now);
        // Input logged at `now` is in the machine's state now (its console queue), which the
        // new checkpoint keeps: replayed from there it would come twice.
        let mut log = self.full_log(machine);
        log.entries.retain(|(at, _)| *at < now);
        // The journal records from here; entries before `now` stay in the log.
        self.log_before_base = log;
        self.base = now;
        machine.set_journal(Journal::recording());
        self.checkpoints.push(Saved {
            edited: true,
            ..Saved::take(machine)
        });
        self.frontier = now;
        dropped_future
    }

    /// How far a forward run from `now` may replay before it reaches the count of a change
    /// the debugger made (see [`History::take_edit`]), if one is ahead in the recorded run.
    pub fn budget_to_edit(&self, now: u64) -> Option<u64> {
        self.checkpoints
            .iter()
            .find(|c| c.edited && c.count > now)
            .map(|c| c.count - now)
    }

    /// At the count of a change the debugger made, a replay that arrived there takes the
    /// changed state (the replay made the state before the change). Returns whether it did.
    pub fn take_edit<M>(&mut self, machine: &mut M) -> bool
    where
        M: Machine + Snapshot<State = S> + Replayable + ?Sized,
    {
        let now = machine.instructions_executed();
        let Some(saved) = self
            .checkpoints
            .iter()
            .find(|c| c.edited && c.count == now)
            .cloned()
        else {
            return false;
        };
        self.restore_state(machine, saved.count, &saved.state);
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
            // The recorded run went on past an end that ran (a MIPS exit runs again at each
            // resume, and a jump may bring an ended program back): so does the replay.
            Some(_) if outcome.executed > 0 => idle = 0,
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
                // Past the breakpoint: run its instruction with the traps taken out. (A watched
                // access of the same instruction is a hit at the same count; left in, it stopped
                // the run, and the breakpoint met again made the search go round for ever.)
                let (bps, wps) = take_traps(machine);
                let _ = machine.run(1);
                put_traps(machine, bps, wps);
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
            // Past an end that ran, as in run_to.
            Some(_) if outcome.executed > 0 => idle = 0,
            Some(_) => break,
        }
    }
    last
}
