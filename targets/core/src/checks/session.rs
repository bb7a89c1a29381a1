//! The checks of a debugging session (gdb's stub, the DAP adapter): on by default, each
//! finding a stop. The checker runs live, at the end of the recorded history; what it found
//! is kept by instruction count, so that a replay of the past (a step back, then forward
//! again) stops at the same places with the same findings, and a site reported once is not
//! reported again.

use std::collections::BTreeMap;

use super::{CheckSet, Checker, Finding};
use crate::event::{RunOutcome, StopEvent};
use crate::machine::Machine;

#[derive(Debug, Clone)]
pub struct SessionChecks {
    checker: Checker,
    /// The findings of the live run, by the instruction count the machine stopped at.
    recorded: BTreeMap<u64, Vec<Finding>>,
    /// What the session was made with, for a restart.
    start_set: CheckSet,
    pokes: Vec<(u64, u32)>,
}

impl SessionChecks {
    /// Checks for `machine` at its start, `pokes` (words written before it) initialised;
    /// `None` for a machine without checks.
    pub fn new(machine: &dyn Machine, set: CheckSet, pokes: &[(u64, u32)]) -> Option<Self> {
        let mut checker = Checker::new(machine, set)?;
        let units = u64::from(machine.word_units());
        for &(addr, _) in pokes {
            checker.mark_initialised(addr, units);
        }
        Some(SessionChecks {
            checker,
            recorded: BTreeMap::new(),
            start_set: set,
            pokes: pokes.to_vec(),
        })
    }

    /// The same checks afresh for the machine back at its start (`monitor reset`, a DAP
    /// restart): what was found is forgotten.
    pub fn restart(&mut self, machine: &dyn Machine) {
        let set = self.checker.set();
        if let Some(mut fresh) = SessionChecks::new(machine, self.start_set, &self.pokes) {
            fresh.checker.set_checks(set);
            *self = fresh;
        }
    }

    /// The debugger changed a register or memory: registers count as set from here (what
    /// the user put there is no uninitialised value).
    pub fn debugger_wrote(&mut self) {
        self.checker.assume_registers_set();
    }

    pub fn set(&self) -> CheckSet {
        self.checker.set()
    }

    pub fn set_checks(&mut self, set: CheckSet) {
        self.checker.set_checks(set);
    }

    /// One instruction, live, checked.
    pub fn step(&mut self, machine: &mut dyn Machine) -> Option<StopEvent> {
        let stop = self.checker.step(machine);
        self.found(machine, stop)
    }

    /// Up to `budget` instructions, live, as `Machine::run` runs them (breakpoints first),
    /// checked: stops after an instruction something was found at.
    pub fn run(&mut self, machine: &mut dyn Machine, budget: u64) -> RunOutcome {
        let outcome = self.checker.run(machine, budget, true, true);
        let stop = self.found(machine, outcome.stop);
        RunOutcome {
            executed: outcome.executed,
            stop,
        }
    }

    fn found(&mut self, machine: &dyn Machine, stop: Option<StopEvent>) -> Option<StopEvent> {
        let findings = self.checker.take_findings();
        if findings.is_empty() {
            return stop;
        }
        let at = machine.instructions_executed();
        self.recorded
            .entry(at)
            .or_default()
            .extend(findings.clone());
        Some(StopEvent::Check(findings))
    }

    /// Replaying the past from instruction `now`: how many instructions to the next count a
    /// finding was made at (the replay stops there).
    pub fn budget_to_finding(&self, now: u64) -> Option<u64> {
        self.recorded
            .range(now + 1..)
            .next()
            .map(|(&count, _)| count - now)
    }

    /// The stop the live run made at instruction `count`, if it found something there (and
    /// its checks are still on).
    pub fn recorded_at(&self, count: u64) -> Option<StopEvent> {
        let set = self.checker.set();
        let findings: Vec<Finding> = self
            .recorded
            .get(&count)?
            .iter()
            .filter(|f| set.contains(f.kind))
            .cloned()
            .collect();
        (!findings.is_empty()).then_some(StopEvent::Check(findings))
    }
}
