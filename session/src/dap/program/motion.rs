//! The motions: continue, steps by line or instruction, step out and reverse, run in bursts
//! through the session core (the run loop's [`DapProgram::run_motion`]); the stops they end
//! in, and `goto`.

use super::*;

/// asmdbg's own request: out of the top frame backwards, to before its call (gdb's
/// `reverse-finish`; the DAP has stepBack by line or instruction only).
pub const STEP_OUT_BACK: &str = "asmdbgStepOutBack";

impl<G: GdbMachine> DapProgram<G> {
    /// A burst of the motion under way (none when stopped).
    pub(super) fn run_motion(&mut self, out: &mut Outbox) {
        let Some(motion) = self.motion.clone() else {
            return;
        };
        match motion {
            Motion::Continue { step_over } => {
                let event = if step_over {
                    // The instruction a stop left runs first, past any breakpoint on it; one
                    // that waits for input is stepped again when input comes.
                    match self.core.forward(true) {
                        Some(StopEvent::NeedInput) => return,
                        other => {
                            self.motion = Some(Motion::Continue { step_over: false });
                            match other {
                                None | Some(StopEvent::Breakpoint) => return,
                                other => other,
                            }
                        }
                    }
                } else {
                    self.core.forward(false)
                };
                if let Some(ev) = event {
                    self.machine_stop(&ev, out);
                }
            }
            Motion::Instruction { over_calls } => {
                let frame = self.frames().first().map(|f| self.frame_id(f, false));
                match self.single_step(out) {
                    None | Some(true) => {}
                    Some(false) => {
                        let callee = frame
                            .and_then(|f| over_calls.then(|| self.entered_callee(f)).flatten());
                        // Into a subroutine whose entry has a breakpoint: it stops there.
                        let hit = match callee {
                            Some(_) if self.machine_has_bp_here() => self.breakpoint_decides(out),
                            _ => None,
                        };
                        match callee {
                            _ if hit.is_some() => {
                                self.stopped(out, "breakpoint", None, hit.unwrap_or_default())
                            }
                            Some((return_pc, caller_cfa)) => {
                                self.motion = Some(Motion::Finish {
                                    return_pc,
                                    caller_cfa,
                                    then: Box::new(Motion::Continue { step_over: false }),
                                    report: true,
                                    step_first: true,
                                })
                            }
                            None => self.stopped(out, "step", None, Vec::new()),
                        }
                    }
                }
            }
            Motion::Line { .. } => self.line_step(out),
            Motion::Finish { .. } => self.finish(out),
            Motion::ReverseContinue => {
                if let Some(reversed) = self.core.reverse_continue() {
                    match reversed {
                        Reversed::Begin => self.stopped(
                            out,
                            "step",
                            Some("No more reverse-execution history.".to_string()),
                            Vec::new(),
                        ),
                        Reversed::Hit(StopEvent::Breakpoint) => {
                            // A false condition or a log point: the search goes on from here.
                            if let Some(ids) = self.stops_in_reverse() {
                                self.stopped(out, "breakpoint", None, ids);
                            }
                        }
                        Reversed::Hit(StopEvent::Watch { kind, addr }) => {
                            // Going back, a data breakpoint stops before the access (the old
                            // value in memory); the search leaves the machine just after it.
                            self.core.reverse_step(false);
                            self.data_breakpoint_stop(kind, addr, out);
                        }
                        Reversed::Hit(ev) => {
                            if !self.machine_stop(&ev, out) {
                                self.stopped(out, "step", None, Vec::new());
                            }
                        }
                        Reversed::Stepped => self.stopped(out, "step", None, Vec::new()),
                    }
                }
            }
            Motion::Reverse(motion) => self.reverse_motion(motion, out),
        }
    }

    pub(super) fn stopped(
        &mut self,
        out: &mut Outbox,
        reason: &str,
        description: Option<String>,
        ids: Vec<i64>,
    ) {
        self.motion = None;
        self.core.target.resume = None;
        self.core.target.reverse_search = None;
        self.fault_at = None;
        let stopped = StoppedEventBody {
            reason: reason.to_string(),
            description: description.clone(),
            thread_id: Some(1),
            text: description,
            all_threads_stopped: Some(true),
            hit_breakpoint_ids: (!ids.is_empty()).then_some(ids),
        };
        out.event("stopped", body(&stopped));
    }

    /// What a stop event of the machine means for the IDE; `true` when the motion ended.
    pub(super) fn machine_stop(&mut self, event: &StopEvent, out: &mut Outbox) -> bool {
        match event {
            StopEvent::NeedInput => false,
            StopEvent::Breakpoint => match self.breakpoint_decides(out) {
                Some(ids) => {
                    self.stopped(out, "breakpoint", None, ids);
                    true
                }
                None => {
                    self.motion = Some(Motion::Continue { step_over: true });
                    false
                }
            },
            StopEvent::Watch { kind, addr } => {
                // As gdb shows a watchpoint: after the access, the new value in memory. The
                // instruction runs first (the machine does not report its access again).
                match self.core.forward(true) {
                    None | Some(StopEvent::NeedInput | StopEvent::Breakpoint) => {}
                    Some(ev) => return self.machine_stop(&ev, out),
                }
                self.data_breakpoint_stop(*kind, *addr, out);
                true
            }
            StopEvent::Fault(fault) => {
                self.exception = Some(fault.message.clone());
                // The message goes where `asmdbg run` puts it: stderr, not the console.
                out.output("stderr", &format!("{}\n", fault.message));
                self.stopped(out, "exception", Some(fault.message.clone()), Vec::new());
                self.fault_at = Some(self.machine().instructions_executed());
                true
            }
            StopEvent::Halted | StopEvent::Exited(_) => {
                let code = match event {
                    StopEvent::Exited(c) => *c,
                    _ => 0,
                };
                if self.core.end_of_history(&Some(event.clone())) {
                    self.stopped(
                        out,
                        "exit",
                        Some(format!(
                            "The program ended (exit code {code}): step back to see how, or continue to end the session"
                        )),
                        Vec::new(),
                    );
                } else {
                    self.end_program(code, out);
                }
                true
            }
        }
    }

    /// The program is over: `exited` with its exit code, then `terminated`.
    pub(super) fn end_program(&mut self, code: i32, out: &mut Outbox) {
        self.motion = None;
        self.terminated = true;
        let thread = ThreadEventBody {
            reason: "exited".to_string(),
            thread_id: 1,
        };
        out.event("thread", body(&thread));
        out.event(
            "exited",
            body(&ExitedEventBody {
                exit_code: i64::from(code),
            }),
        );
        out.event("terminated", json!({}));
    }

    /// One instruction forward; `true` when a stop ended the motion.
    pub(super) fn single_step(&mut self, out: &mut Outbox) -> Option<bool> {
        let event = self.core.forward(true);
        match event {
            None => Some(false),
            Some(StopEvent::NeedInput) => None,
            Some(StopEvent::Breakpoint) => Some(false),
            Some(ev) => Some(self.machine_stop(&ev, out)),
        }
    }

    /// Whether the machine stepped into a subroutine of the frame `from` (its caller is that
    /// frame): the return address and the caller's CFA if so.
    pub(super) fn entered_callee(&self, from: FrameId) -> Option<(u64, Option<u64>)> {
        let frames = self.frames();
        let here = self.frame_id(frames.first()?, false);
        if here == from {
            return None;
        }
        let caller = frames.get(1)?;
        (self.frame_id(caller, true) == from).then_some((caller.pc, caller.cfa))
    }

    pub(super) fn line_step(&mut self, out: &mut Outbox) {
        let Some(Motion::Line {
            start,
            frame,
            over_calls,
            mut ran,
        }) = self.motion.clone()
        else {
            return;
        };
        for _ in 0..STEPS_PER_BURST {
            match self.single_step(out) {
                None => return,
                Some(true) => return,
                Some(false) => {}
            }
            ran += 1;
            if let Some(Motion::Continue { .. }) = self.motion {
                // A breakpoint's log message: the step goes on.
                self.motion = Some(Motion::Line {
                    start,
                    frame,
                    over_calls,
                    ran,
                });
            }
            let here = self.current_line();
            // A step that lands on a breakpoint stops there, as gdb's does: the entry of a
            // subroutine the line calls too (stepping over the call would run past it).
            if self.machine_has_bp_here() {
                if let Some(ids) = self.breakpoint_decides(out) {
                    self.stopped(out, "breakpoint", None, ids);
                    return;
                }
            }
            // A call leaves the line: frames are compared only then (not at every
            // instruction of a line that loops).
            if over_calls && here != start {
                if let Some((return_pc, caller_cfa)) = self.entered_callee(frame) {
                    self.motion = Some(Motion::Finish {
                        return_pc,
                        caller_cfa,
                        then: Box::new(Motion::Line {
                            start,
                            frame,
                            over_calls,
                            ran,
                        }),
                        report: false,
                        step_first: true,
                    });
                    return;
                }
            }
            if here != start && here.is_some() && self.facts.is_line_start(self.pc_gdb()) {
                self.stopped(out, "step", None, Vec::new());
                return;
            }
            if ran >= LINE_STEP_LIMIT {
                self.stopped(
                    out,
                    "step",
                    Some(
                        "the step ran 50,000,000 instructions without reaching another line"
                            .to_string(),
                    ),
                    Vec::new(),
                );
                return;
            }
        }
        self.motion = Some(Motion::Line {
            start,
            frame,
            over_calls,
            ran,
        });
    }

    /// Runs to a callee's return (a temporary breakpoint at the return address).
    pub(super) fn finish(&mut self, out: &mut Outbox) {
        let Some(Motion::Finish {
            return_pc,
            caller_cfa,
            then,
            report,
            step_first,
        }) = self.motion.clone()
        else {
            return;
        };
        let native = self.machine().gdb_code_to_native(return_pc);
        let had = self.core.target.machine.breakpoints().contains(native);
        self.core.target.machine.breakpoints().insert(native);
        let mut stepped = !step_first;
        let event = match step_first {
            true => match self.core.forward(true) {
                None => {
                    stepped = true;
                    self.core.forward(false)
                }
                other => other,
            },
            false => self.core.forward(false),
        };
        // The set counts breakpoints at one address: this takes out the one added above (the
        // user's, if there is one, stays).
        self.core.target.machine.breakpoints().remove(native);
        // The motion as it goes on: stepping first again only from a stop it did not end on.
        let going_on = |step_first: bool| Motion::Finish {
            return_pc,
            caller_cfa,
            then: then.clone(),
            report,
            step_first,
        };
        match event {
            None | Some(StopEvent::NeedInput) => self.motion = Some(going_on(!stepped)),
            Some(StopEvent::Breakpoint) if self.machine().pc() == native => {
                let frames = self.frames();
                let back = frames.first().map(|f| f.cfa) == Some(caller_cfa);
                if had {
                    // The user's own breakpoint at the return address.
                    if let Some(ids) = self.breakpoint_decides(out) {
                        self.stopped(out, "breakpoint", None, ids);
                        return;
                    }
                }
                if back || caller_cfa.is_none() {
                    let line_start = self.facts.is_line_start(self.pc_gdb());
                    match *then {
                        // Back after the call: a new line starts here, or the step goes on.
                        Motion::Line { start, .. }
                            if report || (line_start && self.current_line() != start) =>
                        {
                            self.stopped(out, "step", None, Vec::new())
                        }
                        _ if report => self.stopped(out, "step", None, Vec::new()),
                        then => self.motion = Some(then),
                    }
                } else {
                    // The return address, reached in a deeper call: on past it.
                    self.motion = Some(going_on(true));
                }
            }
            Some(ev) => {
                if !self.machine_stop(&ev, out) {
                    // A breakpoint that did not stop (condition false, log message).
                    self.motion = Some(going_on(true));
                }
            }
        }
    }

    /// A burst of a reverse motion by line or out of the frame (reverse.rs), and its stop.
    pub(super) fn reverse_motion(&mut self, mut motion: ReverseMotion, out: &mut Outbox) {
        let Some(outcome) = motion.burst(&mut self.core, &self.facts) else {
            self.motion = Some(Motion::Reverse(motion));
            return;
        };
        match outcome {
            Outcome::Arrived => self.stopped(out, "step", None, Vec::new()),
            Outcome::Begin => self.stopped(
                out,
                "step",
                Some("No more reverse-execution history.".to_string()),
                Vec::new(),
            ),
            Outcome::Watch(StopEvent::Watch { kind, addr }) => {
                self.data_breakpoint_stop(kind, addr, out)
            }
            Outcome::Watch(_) => self.stopped(out, "step", None, Vec::new()),
            Outcome::Breakpoint => match self.stops_in_reverse() {
                Some(ids) if !ids.is_empty() => self.stopped(out, "breakpoint", None, ids),
                // A false condition, a log point, or no breakpoint of the IDE's: on back.
                _ => self.motion = Some(Motion::Reverse(motion)),
            },
        }
    }

    pub(super) fn resume(&mut self, motion: Motion) {
        self.exception = None;
        self.core.target.resume = Some(match motion {
            Motion::ReverseContinue | Motion::Reverse(_) => ResumeMode::ReverseContinue,
            Motion::Instruction { .. } | Motion::Line { .. } => ResumeMode::Step,
            _ => ResumeMode::Continue,
        });
        self.motion = Some(motion);
    }

    pub(super) fn step_request(&mut self, args: &StepArguments, over_calls: bool) {
        let instruction = args.by_instruction();
        let frame = self
            .frames()
            .first()
            .map(|f| self.frame_id(f, false))
            .unwrap_or((None, None));
        if instruction {
            self.resume(Motion::Instruction { over_calls });
        } else {
            self.resume(Motion::Line {
                start: self.current_line(),
                frame,
                over_calls,
                ran: 0,
            });
        }
    }

    pub(super) fn step_out(&mut self) -> Result<(), String> {
        let frames = self.frames();
        let caller = frames
            .get(1)
            .ok_or("this is the outermost frame: there is nothing to step out to")?;
        self.resume(Motion::Finish {
            return_pc: caller.pc,
            caller_cfa: caller.cfa,
            then: Box::new(Motion::Continue { step_over: false }),
            report: true,
            step_first: true,
        });
        Ok(())
    }

    /// `continue`.
    pub(super) fn continue_request(&mut self) -> ContinueResponseBody {
        self.resume(Motion::Continue { step_over: true });
        ContinueResponseBody {
            all_threads_continued: Some(true),
        }
    }

    /// `stepBack`: one instruction back at once, or a line back in bursts.
    pub(super) fn step_back(
        &mut self,
        args: StepArguments,
        out: &mut Outbox,
    ) -> Result<(), String> {
        if self.core.target.history.is_none() {
            return Err("time travel is off (noHistory)".to_string());
        }
        if args.by_instruction() {
            // One instruction back is one seek: done here, the stop follows at once.
            self.exception = None;
            let reversed = self.core.reverse_step(false);
            let desc = (reversed == Reversed::Begin)
                .then(|| "No more reverse-execution history.".to_string());
            self.stopped(out, "step", desc, Vec::new());
        } else {
            let motion = ReverseMotion::start(Way::Next, 1, false, &self.core, &self.facts)?;
            self.resume(Motion::Reverse(motion));
        }
        Ok(())
    }

    /// `asmdbgStepOutBack`: back to before the call of the top frame (gdb's
    /// `reverse-finish`).
    pub(super) fn step_out_back(&mut self) -> Result<(), String> {
        if self.core.target.history.is_none() {
            return Err("time travel is off (noHistory)".to_string());
        }
        let motion = ReverseMotion::start(Way::Finish(0), 1, false, &self.core, &self.facts)
            .map_err(|_| {
                "this is the outermost frame: there is nothing to step out to".to_string()
            })?;
        self.resume(Motion::Reverse(motion));
        Ok(())
    }

    /// `reverseContinue`.
    pub(super) fn reverse_continue(&mut self) -> Result<(), String> {
        if self.core.target.history.is_none() {
            return Err("time travel is off (noHistory)".to_string());
        }
        self.resume(Motion::ReverseContinue);
        Ok(())
    }

    /// `pause`: a running program stops where it is (a stopped one stays).
    pub(super) fn pause(&mut self, out: &mut Outbox) {
        if self.motion.is_some() {
            self.stopped(out, "pause", None, Vec::new());
        }
    }

    pub(super) fn goto_targets(
        &self,
        args: GotoTargetsArguments,
    ) -> Result<GotoTargetsResponseBody, String> {
        let path = args
            .source
            .as_ref()
            .and_then(|s| s.path.as_deref())
            .ok_or("gotoTargets needs source.path")?;
        let line = args.line.unwrap_or(0).max(0) as u32;
        let file = self
            .view
            .file_index(path)
            .ok_or_else(|| format!("{path} is not a file of this program"))?;
        let (actual, addrs) = self
            .view
            .line_addresses(file, line)
            .ok_or_else(|| format!("no code at or after line {line}"))?;
        let targets = addrs
            .iter()
            .map(|&gdb| {
                let native = self.machine().gdb_code_to_native(gdb);
                GotoTarget {
                    id: gdb as i64,
                    label: format!("line {actual} ({})", self.fmt_addr(native)),
                    line: i64::from(actual),
                    instruction_pointer_reference: Some(self.fmt_addr(native)),
                }
            })
            .collect();
        Ok(GotoTargetsResponseBody { targets })
    }

    pub(super) fn goto(&mut self, args: GotoArguments, out: &mut Outbox) -> Result<(), String> {
        let target = args.target_id.ok_or("goto needs a targetId")?;
        let native = self.machine().gdb_code_to_native(target as u64);
        self.core.target.machine.set_pc(native);
        self.state_written();
        self.stopped(out, "goto", None, Vec::new());
        Ok(())
    }
}
