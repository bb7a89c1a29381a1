//! What the session model expects of a stop, from the oracle's trace, and the check of the
//! state the session shows there.

use std::fmt::Write as _;

use asmdbg_core::gdb::GdbMachine;
use asmdbg_core::WatchKind;
use gdbstub::arch::{Arch, Registers};

use super::oracle::{End, Ending, Trace};
use super::wire::{dap_registers, gdb_bytes, gdb_raw, Seen};
use super::{Case, Cmd, Proto, BURST, BURSTS_PER_MOTION};

/// The reverse motions by line and out of a frame (asmdbg's one rule, session/src/reverse.rs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Way {
    Next,
    Step,
    NextInstruction,
    Finish,
}

/// What the model expects of a stop.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Want {
    /// At this count, for this reason.
    At(u64, Reason),
    /// Somewhere in a range, not passing any hit: for the motions the model does not follow
    /// exactly (line steps, steps over calls, step out, reverse line steps).
    Loose,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Reason {
    Step,
    Breakpoint,
    /// The watched access, at the trace's count of it.
    Watch(WatchKind, u64),
    /// The program's end: first as the end of history, then as the end.
    EndOfHistory,
    Exit(i32),
    Fault,
    Begin,
    /// A command that does not stop.
    Quiet,
}

impl<G: GdbMachine> Case<G> {
    /// What the model expects of a motion from count `from`, seen as `seen` (used only to
    /// tell an interrupted motion).
    pub(super) fn expect(&mut self, cmd: Cmd, from: u64, seen: &Seen) -> Want {
        let interrupted = matches!(
            seen,
            Seen::Rsp {
                signal: Some(2),
                ..
            }
        ) || matches!(seen, Seen::Dap { reason, .. } if reason == "pause");
        let refused_finish = cmd == Cmd::ReverseFinish && matches!(seen, Seen::Nothing);
        if interrupted || (matches!(seen, Seen::Nothing) && !refused_finish) {
            return Want::Loose;
        }
        let (trace, _) = self.oracle.run(
            &self.watches,
            from.max(self.frontier) + BURST * u64::from(BURSTS_PER_MOTION),
            None,
        );
        let bp = |c: u64| {
            trace.pcs.get(c as usize).is_some_and(|pc| {
                self.bps
                    .contains(&self.oracle.fresh.native_code_to_gdb(*pc))
            })
        };
        let watch = |c: u64| trace.watch.get(c as usize).copied().flatten();
        let reverse = cmd.is_reverse();
        let rsp = self.proto == Proto::Rsp;
        if reverse {
            if cmd == Cmd::ReverseFinish && matches!(seen, Seen::Nothing) {
                // Refused: the forward run must be in the program's own frame.
                let outermost = trace
                    .acts
                    .get(from as usize)
                    .is_some_and(|&a| trace.calls[a as usize].parent.is_none());
                // (After a jump, or in an interrupt, the model does not know the calls the
                // frame rules show: any answer goes.)
                let unknown = trace.jumped_at.is_some_and(|j| j <= from)
                    || trace
                        .acts
                        .get(from as usize)
                        .is_some_and(|&a| trace.interrupted(a));
                return match outermost || unknown {
                    true => Want::At(from, Reason::Quiet),
                    false => Want::At(from, Reason::Begin),
                };
            }
            if from == 0 {
                return Want::At(0, Reason::Begin);
            }
            let walk = |way| self.walk(way, from, &trace, &bp, &watch);
            return match (cmd, rsp) {
                (Cmd::ReverseLine, _) | (Cmd::ReverseStepLine, false) => walk(Way::Next),
                (Cmd::ReverseStepLine, true) => walk(Way::Step),
                (Cmd::ReverseNextInstruction, true) => walk(Way::NextInstruction),
                (Cmd::ReverseFinish, _) => walk(Way::Finish),
                (Cmd::ReverseContinue, _) => {
                    let hit = (0..from).rev().find(|&c| bp(c) || watch(c).is_some());
                    match hit {
                        Some(c) if bp(c) => Want::At(c, Reason::Breakpoint),
                        Some(c) => {
                            let (kind, addr) = watch(c).expect("a watch hit");
                            // RSP: just after the access (gdb steps back over it); DAP: before.
                            Want::At(if rsp { c + 1 } else { c }, Reason::Watch(kind, addr))
                        }
                        None => Want::At(0, Reason::Begin),
                    }
                }
                (_, true) => {
                    let back = from - 1;
                    match watch(back) {
                        Some((kind, addr))
                            if !self.watches.is_empty() && self.reverse_watch_at != Some(from) =>
                        {
                            Want::At(from, Reason::Watch(kind, addr))
                        }
                        _ => Want::At(back, Reason::Step),
                    }
                }
                (Cmd::ReverseStep | Cmd::ReverseNextInstruction, false) => {
                    Want::At(from - 1, Reason::Step)
                }
                _ => Want::Loose,
            };
        }
        // Forward: the end or a fault first, if the run gets there before any hit. The end
        // is reported as the end of history first, then as the end.
        let ending = trace.ending_from(from);
        let end_reason = |e: Ending| match self.end_reported {
            false => Want::At(e.at, Reason::EndOfHistory),
            true => Want::At(e.at, Reason::Exit(e.code.unwrap_or(0))),
        };
        let fault_at = match &trace.end {
            End::Fault(f, _) => Some(*f),
            _ => None,
        };
        // DAP: going on from a fault ends the program.
        if !rsp && self.at_fault && fault_at == Some(from) {
            return Want::At(from, Reason::Exit(self.fault_exit));
        }
        let first_hit = |skip_bp_here: bool, skip_watch_here: bool| {
            (from..=trace.last()).find(|&c| {
                (bp(c) && !(skip_bp_here && c == from))
                    || (watch(c).is_some() && !(skip_watch_here && c == from))
            })
        };
        match (cmd, rsp) {
            (Cmd::Continue, _) | (Cmd::StepOut, true) => {
                let hit = if rsp {
                    first_hit(false, self.pending_watch)
                } else {
                    first_hit(true, false)
                };
                // A hit on the ending or faulting instruction or before it (a breakpoint is
                // checked, a watched access met, before it runs) comes first.
                match (hit, ending, fault_at) {
                    // A machine that has ended (a step runs nothing) reports the end, whatever
                    // breakpoint its PC is on.
                    (Some(c), Some(e), _) if c > e.by || (e.at == e.by && c >= e.by) => {
                        end_reason(e)
                    }
                    (None, Some(e), _) => end_reason(e),
                    (Some(c), _, Some(f)) if c > f => Want::At(f, Reason::Fault),
                    (None, _, Some(f)) => Want::At(f, Reason::Fault),
                    (Some(c), _, _) if bp(c) && (rsp || c != from) => {
                        Want::At(c, Reason::Breakpoint)
                    }
                    (Some(c), _, _) => {
                        let (kind, addr) = watch(c).expect("a watch hit");
                        Want::At(if rsp { c } else { c + 1 }, Reason::Watch(kind, addr))
                    }
                    (None, None, None) => Want::Loose,
                }
            }
            (Cmd::StepInstruction, _) | (_, true) => match watch(from) {
                Some((kind, addr)) if !(rsp && self.pending_watch) => {
                    Want::At(if rsp { from } else { from + 1 }, Reason::Watch(kind, addr))
                }
                // The step that ends the program, or faults, reports that.
                _ => match ending {
                    Some(e) if e.by == from => end_reason(e),
                    _ if fault_at == Some(from) => Want::At(from, Reason::Fault),
                    _ => Want::At(from + 1, Reason::Step),
                },
            },
            // The DAP's other forward motions: their first instruction, when it ends the
            // program or faults, is what they report.
            _ => match ending {
                Some(e) if e.by == from => end_reason(e),
                _ if fault_at == Some(from) => Want::At(from, Reason::Fault),
                _ => Want::Loose,
            },
        }
    }

    /// Where a reverse motion by line or out of the frame from count `from` stops, by the
    /// forward run's calls (followed by what each instruction does to the PC, not by frame
    /// rules) and the program's line rows: back to the start of a row in the same call; a
    /// call that call made is passed back to its beginning and one instruction more (`Next`,
    /// `NextInstruction`) or entered (`Step`); back past the call's beginning goes on in its
    /// caller; `Finish` goes back to the beginning of the call and one more. On the way, a
    /// watched access stops it (gdb: just after it, as a reverse step reports one; DAP: just
    /// before it) and so does a breakpoint.
    fn walk(
        &self,
        way: Way,
        from: u64,
        trace: &Trace,
        bp: &dyn Fn(u64) -> bool,
        watch: &dyn Fn(u64) -> Option<(WatchKind, u64)>,
    ) -> Want {
        let rsp = self.proto == Proto::Rsp;
        // Jumps and interrupts make calls the model does not follow.
        if trace.jumped_at.is_some_and(|j| j <= from) {
            return Want::Loose;
        }
        let acts = &trace.acts;
        let act = |c: u64| acts[c as usize];
        let Some(&start) = acts.get(from as usize) else {
            return Want::Loose;
        };
        if trace.interrupted(start) {
            return Want::Loose;
        }
        let gdb = |c: u64| self.oracle.fresh.native_code_to_gdb(trace.pcs[c as usize]);
        let line_start = |c: u64| {
            self.oracle
                .facts
                .row(gdb(c))
                .map_or(true, |r| r.start == gdb(c))
        };
        // A step back over instruction c, to the state at c.
        let step_hit = |c: u64| -> Option<Want> {
            if let Some((kind, addr)) = watch(c) {
                if !rsp {
                    return Some(Want::At(c, Reason::Watch(kind, addr)));
                }
                if !(c + 1 == from && self.reverse_watch_at == Some(from)) {
                    return Some(Want::At(c + 1, Reason::Watch(kind, addr)));
                }
            }
            bp(c).then_some(Want::At(c, Reason::Breakpoint))
        };
        // Back from state `at` to the beginning of call `callee` (a reverse search with a
        // breakpoint at its entry, passing other calls' entries).
        let to_entry = |callee: u32, at: u64| -> Result<u64, Want> {
            let entry = trace.pcs[trace.calls[callee as usize].begin as usize];
            if trace.pcs[at as usize] == entry && act(at) == callee {
                return Ok(at);
            }
            // The search's breakpoints (the user's, and the one at the entry) hide a watched
            // access of the same instruction, as a reverse-continue's do.
            for x in (0..at).rev() {
                if bp(x) {
                    return Err(Want::At(x, Reason::Breakpoint));
                }
                if trace.pcs[x as usize] == entry {
                    if act(x) == callee {
                        return Ok(x);
                    }
                    continue;
                }
                if let Some((kind, addr)) = watch(x) {
                    let stop = if rsp { x + 1 } else { x };
                    return Err(Want::At(stop, Reason::Watch(kind, addr)));
                }
            }
            Err(Want::At(0, Reason::Begin))
        };
        let mut frame = start;
        let mut c = from;
        if way == Way::Finish {
            c = match to_entry(start, from) {
                Ok(e) => e,
                Err(want) => return want,
            };
            if c == 0 {
                return Want::At(0, Reason::Begin);
            }
            return step_hit(c - 1).unwrap_or(Want::At(c - 1, Reason::Step));
        }
        loop {
            if c == 0 {
                return Want::At(0, Reason::Begin);
            }
            if let Some(want) = step_hit(c - 1) {
                return want;
            }
            c -= 1;
            let a = act(c);
            if trace.interrupted(a) {
                return Want::Loose;
            }
            if a != frame && trace.within(a, frame) {
                let mut callee = a;
                while trace.calls[callee as usize].parent != Some(frame) {
                    callee = trace.calls[callee as usize].parent.expect("within");
                }
                if way == Way::Step {
                    frame = a;
                } else {
                    c = match to_entry(callee, c) {
                        Ok(e) => e,
                        Err(want) => return want,
                    };
                    if c == 0 {
                        return Want::At(0, Reason::Begin);
                    }
                    if let Some(want) = step_hit(c - 1) {
                        return want;
                    }
                    c -= 1;
                    frame = act(c);
                }
            } else if a != frame {
                frame = a;
            }
            if way == Way::NextInstruction || line_start(c) {
                return Want::At(c, Reason::Step);
            }
        }
    }

    /// Checks a motion's stop (`want`) and the state there; updates the model.
    pub(super) fn after(
        &mut self,
        cmd: Cmd,
        from: u64,
        frontier_before: u64,
        seen: Seen,
        want: Want,
    ) -> Result<(), String> {
        if let Seen::DapExited(code) = seen {
            let _ = writeln!(self.log, "  -> exited {code}");
            let expected = match &want {
                Want::At(_, Reason::Exit(code)) => i64::from(*code),
                _ => return self.fail(format!("the program exited ({code}); expected {want:?}")),
            };
            if code != expected {
                return self.fail(format!("exit code {code}, expected {expected}"));
            }
            self.over = true;
            return Ok(());
        }
        if let Seen::Rsp {
            exit: Some(code), ..
        } = seen
        {
            let _ = writeln!(self.log, "  -> exited {code}");
            match &want {
                Want::At(_, Reason::Exit(c)) if *c as u8 == code => {}
                _ => return self.fail(format!("the program exited ({code}); expected {want:?}")),
            }
            self.over = true;
            return Ok(());
        }
        let at = self.session_count();
        let _ = writeln!(self.log, "  -> {seen:?} at {at} (from {from})");
        self.now = at;
        let forward = !cmd.is_reverse() && !matches!(cmd, Cmd::Goto(_));
        if forward && at > self.frontier {
            self.frontier = at;
        }
        if forward && at >= frontier_before {
            self.release_held();
        }
        self.release_held_if_at_frontier();
        let reason = self.reason_of(&seen);
        match &want {
            Want::At(count, expected) => {
                if at != *count || reason.as_ref() != Some(expected) {
                    return self.fail(format!(
                        "{cmd:?} from {from} stopped at {at} with {seen:?} ({reason:?}); the forward run says {count} with {expected:?}"
                    ));
                }
            }
            Want::Loose => self.check_loose(cmd, from, at, &reason)?,
        }
        if matches!(seen, Seen::Nothing) {
            // Refused (a step out of the outermost frame): nothing moved or changed.
            return self.check_state(&format!("{cmd:?}"));
        }
        // The model's flags after this stop.
        let reverse = !forward;
        // Moving back leaves the program's end; a reverse motion that could not move does not.
        if reverse && at != from {
            self.end_reported = false;
        }
        // The machine's pending access after a forward watch stop (RSP: not executed yet)
        // stays through a stop that did not move it (a breakpoint checked first, a reverse
        // motion at the start); anything that moved or restored the machine drops it.
        let watch_stop = matches!(reason, Some(Reason::Watch(..)));
        self.pending_watch = self.proto == Proto::Rsp
            && if forward {
                watch_stop || (self.pending_watch && at == from)
            } else {
                self.pending_watch && at == from && reason == Some(Reason::Begin)
            };
        self.reverse_watch_at = match (&reason, cmd) {
            (Some(Reason::Watch(..)), c)
                if c.is_reverse() && c != Cmd::ReverseContinue && self.proto == Proto::Rsp =>
            {
                Some(at)
            }
            _ => None,
        };
        if matches!(reason, Some(Reason::EndOfHistory)) {
            self.end_reported = true;
        }
        self.at_fault = matches!(reason, Some(Reason::Fault));
        // A reverse motion that could not move leaves the machine as the attempt left it.
        // Each fault stop is one more attempt of the faulting instruction (MIPS's status and
        // cause change at each).
        self.attempted = match self.at_fault {
            true if at == from && self.attempted > 0 => self.attempted + 1,
            true => 1,
            // A stop that did not move ran nothing (a breakpoint checked first, a reverse
            // motion at the start). A reverse motion that stopped where it started for a hit
            // (RSP: the watched access a reverse step would go back over, reported in place;
            // a reverse-continue's hit just after an access) went into the past and back: the
            // machine is as history has it at that count, which a forward run stepped there
            // has, without the attempts (as the pending access above).
            false if at == from && (forward || reason == Some(Reason::Begin)) => self.attempted,
            false => 0,
        };
        if self.at_fault && self.proto == Proto::Rsp {
            let (trace, _) = self.oracle.run(&[], at + 1, None);
            if let End::Fault(_, message) = trace.end {
                self.note = Some(message);
            }
        }
        self.check_state(&format!("{cmd:?}"))
    }

    /// A motion the model does not follow exactly: it went the right way and passed no hit.
    pub(super) fn check_loose(
        &mut self,
        cmd: Cmd,
        from: u64,
        at: u64,
        reason: &Option<Reason>,
    ) -> Result<(), String> {
        if cmd.is_reverse() {
            // gdb is told of a watched access a reverse step would go back over in place.
            let in_place = self.proto == Proto::Rsp && matches!(reason, Some(Reason::Watch(..)));
            if at > from || (at == from && from > 0 && reason != &Some(Reason::Step) && !in_place) {
                return self.fail(format!("{cmd:?} from {from} went forward to {at}"));
            }
            return Ok(());
        }
        if at < from {
            return self.fail(format!("{cmd:?} from {from} went back to {at}"));
        }
        let (trace, _) = self.oracle.run(&self.watches, at + 1, None);
        let bp = |c: u64| {
            trace.pcs.get(c as usize).is_some_and(|pc| {
                self.bps
                    .contains(&self.oracle.fresh.native_code_to_gdb(*pc))
            })
        };
        let rsp = self.proto == Proto::Rsp;
        for c in from..at {
            let skip = c == from && (!rsp || self.pending_watch);
            if c > from && bp(c) {
                return self.fail(format!(
                    "{cmd:?} from {from} to {at} passed the breakpoint hit at {c}"
                ));
            }
            // DAP reports a data breakpoint after the access: the last instruction's may be it.
            let reported_here = !rsp && c + 1 == at && matches!(reason, Some(Reason::Watch(..)));
            if trace.watch.get(c as usize).copied().flatten().is_some()
                && !reported_here
                && !(rsp && skip && c == from)
            {
                return self.fail(format!(
                    "{cmd:?} from {from} to {at} passed the watched access at {c}"
                ));
            }
        }
        Ok(())
    }

    /// The model's reading of what the protocol reported.
    pub(super) fn reason_of(&self, seen: &Seen) -> Option<Reason> {
        match seen {
            Seen::Nothing => Some(Reason::Quiet),
            Seen::Rsp { signal, pairs, .. } => {
                let key = |k: &str| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
                if let Some(pos) = key("replaylog") {
                    return Some(if pos == "begin" {
                        Reason::Begin
                    } else {
                        Reason::EndOfHistory
                    });
                }
                for (name, kind) in [
                    ("watch", WatchKind::Write),
                    ("rwatch", WatchKind::Read),
                    ("awatch", WatchKind::Access),
                ] {
                    if let Some(addr) = key(name) {
                        let gdb = u64::from_str_radix(addr, 16).unwrap_or(u64::MAX);
                        return Some(Reason::Watch(kind, gdb / self.unit_bytes));
                    }
                }
                if key("swbreak").is_some() || key("hwbreak").is_some() {
                    return Some(Reason::Breakpoint);
                }
                match signal {
                    Some(5) => Some(Reason::Step),
                    Some(2) => None,
                    Some(_) => Some(Reason::Fault),
                    None => None,
                }
            }
            Seen::Dap {
                reason,
                description,
            } => match reason.as_str() {
                "breakpoint" | "instruction breakpoint" => Some(Reason::Breakpoint),
                "data breakpoint" => {
                    // The kind and word the DAP names are checked as the state: the model
                    // takes them from the trace at the count reached.
                    let kind_addr = self.dap_watch_of(description.as_deref());
                    kind_addr.map(|(k, a)| Reason::Watch(k, a))
                }
                "exception" => Some(Reason::Fault),
                "exit" => Some(Reason::EndOfHistory),
                "step"
                    if description
                        .as_deref()
                        .is_some_and(|d| d.contains("No more reverse-execution history")) =>
                {
                    Some(Reason::Begin)
                }
                "step" | "goto" => Some(if reason == "goto" {
                    Reason::Quiet
                } else {
                    Reason::Step
                }),
                _ => None,
            },
            Seen::DapExited(_) => None,
        }
    }

    /// A DAP data breakpoint's description names the access and the word ("write to LAST
    /// (x3013)"): as the trace's (kind, native address).
    pub(super) fn dap_watch_of(&self, description: Option<&str>) -> Option<(WatchKind, u64)> {
        let d = description?;
        let kind = if d.starts_with("write") {
            WatchKind::Write
        } else if d.starts_with("read") {
            WatchKind::Read
        } else {
            WatchKind::Access
        };
        let m = &self.oracle.fresh;
        // The access's kind as the trace records it is the watchpoint's kind; the word is one
        // of the program's.
        let addr = self
            .data
            .iter()
            .copied()
            .find(|&a| d.contains(&m.isa().format_addr(a)))?;
        Some((kind, addr))
    }

    /// The session shows what the forward run shows at the machine's count: registers,
    /// memory, the PC, and the console output up to the frontier, each byte once.
    pub(super) fn check_state(&mut self, after: &str) -> Result<(), String> {
        let at = self.session_count();
        self.now = at;
        let upto = self.frontier.max(at);
        // At a fault stop the machine has tried the faulting instruction (MIPS keeps the
        // exception's cause and EPC): the forward run's machine after that attempt.
        let (trace, probed) = if self.attempted > 0 {
            let (trace, mut m) = self.oracle.run_to(&[], at + 1);
            let faulted = matches!(trace.end, End::Fault(f, _) if f == at);
            for _ in 1..self.attempted {
                let _ = m.step();
            }
            (trace, faulted.then_some(m))
        } else {
            self.oracle.run(&[], upto, Some(at))
        };
        let Some(expected) = probed else {
            return self.fail(format!(
                "after {after}: the session is at instruction {at}, which the forward run never reaches ({:?})",
                trace.end
            ));
        };
        // Output: what the forward run wrote up to the frontier, counted once.
        if self.frontier > self.shown_upto {
            let from = trace
                .out_len
                .get(self.shown_upto as usize)
                .copied()
                .unwrap_or(0);
            let to = trace
                .out_len
                .get(self.frontier as usize)
                .copied()
                .unwrap_or(trace.output.len());
            self.expected_shown
                .extend_from_slice(&trace.output[from.min(to)..to]);
            self.shown_upto = self.frontier;
        }
        if let Some(note) = self.note.take() {
            self.expected_shown.extend_from_slice(note.as_bytes());
            self.expected_shown.push(b'\n');
        }
        self.collect_shown();
        // DAP's output events are JSON strings: bytes that are not UTF-8 arrive as U+FFFD.
        let expected_shown = match self.proto {
            Proto::Rsp => self.expected_shown.clone(),
            Proto::Dap => String::from_utf8_lossy(&self.expected_shown)
                .into_owned()
                .into_bytes(),
        };
        if self.shown != expected_shown {
            return self.fail(format!(
                "after {after} at {at} (frontier {}): the console showed {:?}; the forward run wrote {:?}",
                self.frontier,
                String::from_utf8_lossy(&self.shown),
                String::from_utf8_lossy(&self.expected_shown)
            ));
        }
        // The notes of changes in the past: on the debugger's console, in order (gdb's gets
        // them with its next resume).
        let console = match (&self.rsp, &self.dap) {
            (Some(rsp), _) => rsp.gdb_console.clone(),
            (_, Some(dap)) => dap.debugger_console.clone(),
            _ => String::new(),
        };
        let shown: Vec<&str> = console
            .lines()
            .filter(|l| l.contains("was discarded"))
            .collect();
        let made: Vec<&str> = self.discards.iter().map(|n| n.trim_end()).collect();
        let lagging = self.proto == Proto::Rsp && !self.notes_sent;
        if !(shown == made || (lagging && made.starts_with(&shown))) {
            return self.fail(format!(
                "after {after}: the debugger's console said {shown:?}; the changes in the past make {made:?}"
            ));
        }
        let regions = self.regions.clone();
        match (&mut self.rsp, &mut self.dap) {
            (Some(rsp), _) => {
                let mut regs = <G::Arch as Arch>::Registers::default();
                expected.gdb_read_registers(&mut regs);
                let mut want = String::new();
                regs.gdb_serialize(|b| match b {
                    Some(b) => {
                        let _ = write!(want, "{b:02x}");
                    }
                    None => want.push_str("xx"),
                });
                let got = rsp.request("g")?;
                if got != want {
                    return Err(format!(
                        "{:?} over RSP after {after} at {at}: registers {got}, the forward run has {want}\n{}",
                        self.p.isa, self.log
                    ));
                }
                for &(start, end) in &regions {
                    let got = rsp.request(&format!("m{start:x},{:x}", end - start))?;
                    let want = gdb_bytes(&expected, start, end);
                    if got != want {
                        return Err(format!(
                            "{:?} over RSP after {after} at {at}: memory {start:#x}..{end:#x} is {got}, the forward run has {want}\n{}",
                            self.p.isa, self.log
                        ));
                    }
                }
            }
            (_, Some(dap)) => {
                let pc = dap.top_pc()?;
                let want_pc = expected.isa().format_addr(expected.pc());
                let regs = dap.registers()?;
                let want_regs = dap_registers(&expected);
                let mut mem = Vec::new();
                for &(start, end) in &regions {
                    mem.push((
                        dap.memory(start, end - start)?,
                        gdb_raw(&expected, start, end),
                    ));
                }
                if pc != want_pc || regs != want_regs || mem.iter().any(|(a, b)| a != b) {
                    return Err(format!(
                        "{:?} over DAP after {after} at {at}: pc {pc} registers {regs:?} memory {:?}; the forward run has pc {want_pc} registers {want_regs:?}\n{}",
                        self.p.isa, mem, self.log
                    ));
                }
            }
            _ => {}
        }
        Ok(())
    }
}
