//! Reverse motions by source line and out of a function, by one rule for every ISA and both
//! protocols: gdb's `reverse-next`, `reverse-step`, `reverse-nexti` and `reverse-finish` (the
//! helper script in the ELF arms one with `monitor asmdbg-reverse`, then its `bs` runs it) and
//! the DAP's `stepBack` by line and step out backwards (`asmdbgStepOutBack`).
//!
//! The rule: a frame is the function it runs (its entry, from the debug information) and its
//! CFA. Going back one instruction at a time, a step that lands in a function the frame called
//! (on the return that left it) runs back to that call's entry in that same frame — a reverse
//! search with a breakpoint at the entry, passing the entries of other calls of it (recursion)
//! — and one instruction more reaches the call. A line step ends at the start of a line row in
//! the frame; one that goes back past its function's entry goes on in the caller, at the call.
//! A step out backwards runs back to the frame's entry and one instruction more.
//!
//! Why here and not in gdb: gdb's own commands take a function's extent from the range of the
//! debug information around the pc, and asmdbg's MIPS debug information cuts functions into
//! ranges after every branch (gdb's MIPS port otherwise moves breakpoints off the instruction
//! after a branch, a delay slot for it but not for MARS), so gdb's reverse-next over a nested
//! call stopped in the callee. One implementation serves both protocols, and the session model
//! test checks it through both against a forward-only run.
//!
//! On the way, a motion stops at a breakpoint (the protocol decides whether it stops: DAP
//! conditions) and at a watched access: for gdb in place, just after the access, as a reverse
//! step reports one (gdb then steps back over it itself); for the DAP just before it.

use asmdbg_core::gdb::GdbMachine;
use asmdbg_core::StopEvent;

use crate::core::{Reversed, RunCore};
use crate::frames::{FrameFacts, FrameId};

/// Instructions a motion steps back per burst (each is a seek in history).
const STEPS_PER_BURST: u32 = 1_000;

/// Which motion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Way {
    /// Back to the start of the previous line in the frame, over calls (`reverse-next`, DAP
    /// `stepBack` by line).
    Next,
    /// The same, into a call's last line (`reverse-step`).
    Step,
    /// One instruction back, over a call (`reverse-nexti`).
    NextInstruction,
    /// Back to before the call of the frame at this level (`reverse-finish`, DAP step out
    /// backwards).
    Finish(usize),
}

impl Way {
    /// `next`, `step`, `nexti`, `finish [LEVEL]` (what `monitor asmdbg-reverse` takes).
    pub fn parse(words: &[&str]) -> Option<(Way, u32)> {
        let number = |i: usize| words.get(i).and_then(|w| w.parse::<u32>().ok());
        let way = match *words.first()? {
            "next" => Way::Next,
            "step" => Way::Step,
            "nexti" => Way::NextInstruction,
            "finish" => return Some((Way::Finish(number(1).unwrap_or(0) as usize), 1)),
            _ => return None,
        };
        Some((way, number(1).unwrap_or(1).max(1)))
    }
}

/// How a motion ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Where it goes.
    Arrived,
    /// A breakpoint at the pc (the protocol decides; the next burst goes on from there).
    Breakpoint,
    /// A watched access (gdb: just after it; DAP: just before it).
    Watch(StopEvent),
    /// The start of history.
    Begin,
}

/// What the motion does next.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Phase {
    /// One instruction back at a time.
    Stepping,
    /// Back to the entry (native address) of the call `callee`, then one instruction more.
    ToEntry { entry: u64, callee: FrameId },
    /// At a call's entry: one instruction more, to the call.
    ToCall,
}

/// A reverse motion under way.
#[derive(Debug, Clone)]
pub struct ReverseMotion {
    way: Way,
    /// Line steps still to take after this one.
    more: u32,
    /// The frame the motion is in.
    frame: FrameId,
    phase: Phase,
    /// gdb's conventions for watched accesses (see the module header).
    gdb: bool,
    /// It stopped for a breakpoint where it had yet to look at frames and lines: going on
    /// does that first.
    unexamined: bool,
}

impl ReverseMotion {
    /// A motion from where `core`'s machine is; `Err` when it cannot go (a step out of the
    /// outermost frame, or of a frame whose function is not known).
    pub fn start<G: GdbMachine>(
        way: Way,
        count: u32,
        gdb: bool,
        core: &RunCore<G>,
        facts: &FrameFacts,
    ) -> Result<Self, String> {
        let machine = &core.target.machine;
        let frames = facts.frames(machine);
        let ids = facts.ids(&frames);
        let pc = machine.native_code_to_gdb(machine.pc());
        let mut motion = ReverseMotion {
            way,
            more: count.saturating_sub(1),
            frame: ids.first().copied().unwrap_or((None, None)),
            phase: Phase::Stepping,
            gdb,
            unexamined: false,
        };
        if let Way::Finish(level) = way {
            if frames.len() <= level + 1 {
                return Err("\"finish\" not meaningful in the outermost frame.".to_string());
            }
            let callee = ids[level];
            let Some(entry) = callee.0 else {
                return Err("Cannot find bounds of current function".to_string());
            };
            motion.phase = if level == 0 && pc == entry {
                Phase::ToCall
            } else {
                Phase::ToEntry {
                    entry: machine.gdb_code_to_native(entry),
                    callee,
                }
            };
        }
        Ok(motion)
    }

    /// Runs the motion for one burst; `None` while it goes on. After a
    /// [`Outcome::Breakpoint`] that does not stop the protocol (a false condition) the next
    /// burst goes on from there.
    pub fn burst<G: GdbMachine>(
        &mut self,
        core: &mut RunCore<G>,
        facts: &FrameFacts,
    ) -> Option<Outcome> {
        if std::mem::take(&mut self.unexamined) {
            if let Some(outcome) = self.examine(core, facts) {
                return Some(outcome);
            }
        }
        match self.phase.clone() {
            Phase::ToEntry { entry, callee } => self.back_to_entry(core, facts, entry, callee),
            Phase::ToCall => {
                if let Some(outcome) = self.step(core) {
                    return Some(outcome);
                }
                self.phase = Phase::Stepping;
                if let Some(stop) = self.breakpoint_here(core) {
                    return Some(stop);
                }
                match self.way {
                    Way::Finish(_) | Way::NextInstruction => Some(Outcome::Arrived),
                    Way::Next | Way::Step => {
                        self.frame = Self::innermost(core, facts);
                        self.line_step_ends(core, facts)
                    }
                }
            }
            Phase::Stepping => {
                for _ in 0..STEPS_PER_BURST {
                    if let Some(outcome) = self.step(core) {
                        return Some(outcome);
                    }
                    if let Some(stop) = self.breakpoint_here(core) {
                        return Some(stop);
                    }
                    if let Some(outcome) = self.examine(core, facts) {
                        return Some(outcome);
                    }
                    if self.phase != Phase::Stepping {
                        return None;
                    }
                }
                None
            }
        }
    }

    /// One instruction back; an outcome when that is where the motion stops (the start of
    /// history, a watched access).
    fn step<G: GdbMachine>(&self, core: &mut RunCore<G>) -> Option<Outcome> {
        match core.reverse_step(true) {
            Reversed::Begin => Some(Outcome::Begin),
            Reversed::Hit(event @ StopEvent::Watch { .. }) => {
                // gdb: in place. DAP: before the access (a second request at this count goes
                // back over it).
                if !self.gdb && core.reverse_step(true) == Reversed::Begin {
                    return Some(Outcome::Begin);
                }
                Some(Outcome::Watch(event))
            }
            Reversed::Hit(_) | Reversed::Stepped => None,
        }
    }

    /// A breakpoint at the pc stops the motion (the frames and lines there are looked at when
    /// it goes on).
    fn breakpoint_here<G: GdbMachine>(&mut self, core: &mut RunCore<G>) -> Option<Outcome> {
        let machine = &mut core.target.machine;
        let pc = machine.pc();
        if machine.breakpoints().contains(pc) {
            self.unexamined = self.phase == Phase::Stepping;
            return Some(Outcome::Breakpoint);
        }
        None
    }

    fn innermost<G: GdbMachine>(core: &RunCore<G>, facts: &FrameFacts) -> FrameId {
        let frames = facts.frames(&core.target.machine);
        facts.ids(&frames).first().copied().unwrap_or((None, None))
    }

    /// After one instruction back: the frame and line it is in.
    fn examine<G: GdbMachine>(
        &mut self,
        core: &mut RunCore<G>,
        facts: &FrameFacts,
    ) -> Option<Outcome> {
        let frames = facts.frames(&core.target.machine);
        let ids = facts.ids(&frames);
        let here = ids.first().copied().unwrap_or((None, None));
        if here != self.frame {
            // A call of this frame, entered on its return: the callee is the frame just
            // inside this one.
            if let Some(i) = ids.iter().skip(1).position(|&id| id == self.frame) {
                let callee = ids[i];
                match self.way {
                    Way::Next | Way::NextInstruction => {
                        if let Some(entry) = callee.0 {
                            core.target.reverse_search = None;
                            self.phase = Phase::ToEntry {
                                entry: core.target.machine.gdb_code_to_native(entry),
                                callee,
                            };
                        }
                        // Without its function known, back through it one instruction at a
                        // time (its frames stay inside this one).
                        return None;
                    }
                    Way::Step | Way::Finish(_) => self.frame = here,
                }
            } else {
                // Back past the entry: the caller, at the call (or another frame).
                self.frame = here;
            }
        } else if self.way == Way::NextInstruction {
            return Some(Outcome::Arrived);
        }
        self.line_step_ends(core, facts)
    }

    /// Whether a line step ends at the machine's pc (in the motion's frame).
    fn line_step_ends<G: GdbMachine>(
        &mut self,
        core: &mut RunCore<G>,
        facts: &FrameFacts,
    ) -> Option<Outcome> {
        if self.way == Way::NextInstruction {
            return Some(Outcome::Arrived);
        }
        let machine = &core.target.machine;
        let pc = machine.native_code_to_gdb(machine.pc());
        let Some(now) = facts.row(pc) else {
            // No line here: the step ends.
            return self.arrived(core, facts);
        };
        if pc == now.start {
            return self.arrived(core, facts);
        }
        None
    }

    /// A line step arrived: another, if more were asked for.
    fn arrived<G: GdbMachine>(
        &mut self,
        core: &mut RunCore<G>,
        facts: &FrameFacts,
    ) -> Option<Outcome> {
        if self.more == 0 {
            return Some(Outcome::Arrived);
        }
        self.more -= 1;
        self.frame = Self::innermost(core, facts);
        None
    }

    /// Back to the entry `entry` (native) of `callee`: a reverse search with a breakpoint
    /// there, passing other calls' entries.
    fn back_to_entry<G: GdbMachine>(
        &mut self,
        core: &mut RunCore<G>,
        facts: &FrameFacts,
        entry: u64,
        callee: FrameId,
    ) -> Option<Outcome> {
        if core.target.machine.pc() == entry && Self::innermost(core, facts) == callee {
            self.phase = Phase::ToCall;
            return None;
        }
        let user_bp = core.target.machine.breakpoints().contains(entry);
        core.target.machine.breakpoints().insert(entry);
        let found = core.reverse_continue();
        core.target.machine.breakpoints().remove(entry);
        match found? {
            Reversed::Begin => Some(Outcome::Begin),
            Reversed::Stepped => None,
            Reversed::Hit(event @ StopEvent::Watch { .. }) => {
                if self.gdb {
                    // As a reverse step reports one: gdb's next step back goes over it.
                    core.watch_reported_here();
                } else {
                    // Before the access.
                    core.reverse_step(false);
                }
                Some(Outcome::Watch(event))
            }
            Reversed::Hit(_) => {
                let pc = core.target.machine.pc();
                let ours = pc == entry && Self::innermost(core, facts) == callee;
                if ours {
                    self.phase = Phase::ToCall;
                }
                if pc != entry || user_bp {
                    // A breakpoint of the user's.
                    return Some(Outcome::Breakpoint);
                }
                // The entry of another call (recursion), or of this one: on from here.
                None
            }
        }
    }
}
