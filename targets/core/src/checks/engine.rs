//! The checks' state and their rules, applied around each instruction a machine executes.

use std::collections::HashSet;

use super::fast::{FastFrame, FastPath};
use super::{CheckKind, CheckSet, Conventions, Effects, Finding};
use crate::event::{RunOutcome, StopEvent};
use crate::flow::Flow;
use crate::machine::Machine;
use crate::symbols::SymbolKind;

/// Set (to anything) in the environment: every instruction through the full checks.
pub const FULL_PATH_VARIABLE: &str = "ASMDBG_CHECKS_FULL_PATH";

/// One call the program made and has not returned from.
#[derive(Debug, Clone)]
struct Frame {
    /// The calling instruction.
    call_site: u64,
    /// The function's first instruction.
    entry: u64,
    /// Where a return to the caller lands.
    return_to: u64,
    /// The stack pointer at the call.
    sp: u64,
    /// Every register's value at entry.
    entry_values: Vec<u64>,
    /// Registers written since entry (by the function or the calls it made).
    written: u32,
    /// Registers the function stored to memory before anything wrote them (a prologue's
    /// saves): under [`Conventions::saves_are_promises`] they must come back.
    saved: u32,
    /// The function addressed memory through the stack pointer (it uses the stack).
    stack_used: bool,
    /// The function put a value into the stack pointer that did not come from it (LC-3's R6
    /// used as any other register): not a stack, so not checked.
    stack_rebased: bool,
    /// The function copied or stored its return address (a nested call may then overwrite it).
    link_kept: bool,
    /// A nested call that overwrote the return address before it was kept.
    clobbered_at: Option<u64>,
    /// Code without source (the LC-3 OS's routine for a TRAP): not the student's to check.
    system: bool,
}

/// The debugging checks of one machine: shadow registers and memory, the frames of the calls
/// in progress, the sites already reported. Drive the machine with [`Checker::step`] or
/// [`Checker::run`] instead of its own `step`/`run`; take what was found with
/// [`Checker::take_findings`].
#[derive(Debug, Clone)]
pub struct Checker {
    set: CheckSet,
    conv: Conventions,
    /// The registers set, the memory written, the code and data, and the fast path's rules.
    fast: FastPath,
    /// Whether the program's image is known (assembled from source): without it memory is
    /// not checked (everything would look uninitialised).
    memory_known: bool,
    /// Whether `run` lets the machine run instructions on the fast path (see
    /// [`Checker::set_fast_path`]).
    fast_path: bool,
    frames: Vec<Frame>,
    /// Callee-saved registers a function returned with changed, by register: reported when
    /// the caller then uses the value (a caller that writes the register first never relied
    /// on it).
    clobbered: Vec<(usize, Finding)>,
    /// Sites (instruction and kind) reported once already.
    reported: HashSet<(u64, CheckKind)>,
    findings: Vec<Finding>,
}

impl Checker {
    /// Checks for `machine` as it is now (its start): `None` for a machine whose ISA has no
    /// conventions to check.
    pub fn new(machine: &dyn Machine, set: CheckSet) -> Option<Checker> {
        let conv = machine.check_conventions()?;
        let mut regs_set = conv.set_at_start;
        // Whatever the loader gave a value (MARS's argc/argv, an OS's boot) counts as set.
        for (i, _) in conv.names.iter().enumerate() {
            if machine.read_register(i).is_some_and(|v| v != 0) {
                regs_set |= 1 << i;
            }
        }
        let mut fast = FastPath::new(&conv, regs_set);
        for &(start, end) in &conv.initialised {
            fast.written.set_range(start, end);
        }
        let mut memory_known = false;
        if let Some(info) = machine.debug_info() {
            memory_known = !info.lines.is_empty();
            for item in info.data.iter() {
                fast.data.set_range(item.addr, item.end);
                fast.written.set_range(item.addr, item.end);
            }
            if !conv.separate_code {
                for (addr, _) in info.lines.iter() {
                    if !info.data.is_data(addr) {
                        let end = addr + conv.instruction_units;
                        fast.code.set_range(addr, end);
                        fast.written.set_range(addr, end);
                    }
                }
            }
        }
        fast.configure(set, memory_known, conv.separate_code);
        Some(Checker {
            set,
            conv,
            fast,
            memory_known,
            fast_path: std::env::var_os(FULL_PATH_VARIABLE).is_none(),
            frames: Vec::new(),
            clobbered: Vec::new(),
            reported: HashSet::new(),
            findings: Vec::new(),
        })
    }

    pub fn set(&self) -> CheckSet {
        self.set
    }

    pub fn set_checks(&mut self, set: CheckSet) {
        self.set = set;
        self.fast
            .configure(set, self.memory_known, self.conv.separate_code);
    }

    /// Lets `run` use the machine's fast path (`on`, the default) or takes every instruction
    /// through the full checks, as `ASMDBG_CHECKS_FULL_PATH=1` does for the whole process (to
    /// rule the fast path out when a finding looks wrong; the tests compare the two).
    pub fn set_fast_path(&mut self, on: bool) {
        self.fast_path = on;
    }

    /// Every register counts as set from here (a debugger wrote one).
    pub fn assume_registers_set(&mut self) {
        self.fast.regs_set = u32::MAX;
    }

    /// Memory the host filled before the run (`--poke`): initialised.
    pub fn mark_initialised(&mut self, addr: u64, units: u64) {
        self.fast
            .written
            .set_range(addr, addr.saturating_add(units));
    }

    /// What was found since the last call, in the order found.
    pub fn take_findings(&mut self) -> Vec<Finding> {
        std::mem::take(&mut self.findings)
    }

    /// Whether something was found and not taken yet.
    pub fn has_findings(&self) -> bool {
        !self.findings.is_empty()
    }

    /// Executes one instruction of `machine` (its `step`), checking it.
    pub fn step(&mut self, machine: &mut dyn Machine) -> Option<StopEvent> {
        self.checked(machine, |m| m.step())
    }

    /// `execute` runs at most one instruction of `machine` (its `step`, or `run(1)`, which
    /// stops at a breakpoint first); the checks look at it before and after.
    fn checked(
        &mut self,
        machine: &mut dyn Machine,
        execute: impl FnOnce(&mut dyn Machine) -> Option<StopEvent>,
    ) -> Option<StopEvent> {
        let pc = machine.pc();
        let Some(effects) = machine.check_effects() else {
            return execute(machine);
        };
        let count = machine.instructions_executed();
        self.before(machine, pc, &effects);
        let stop = execute(machine);
        if machine.instructions_executed() != count {
            self.after(machine, pc, &effects);
        }
        stop
    }

    /// Executes up to `budget` instructions, checking each; stops early at the machine's own
    /// stops and, when `stop_at_finding`, after an instruction something was found at. With
    /// `breakpoints` (a debugger's run) each instruction runs as `run(1)` runs it: a
    /// breakpoint at the PC stops first.
    ///
    /// The machine runs what it can on the fast path ([`Machine::run_gated`]); the
    /// instruction that ends a fast run goes through the full checks, and so does every
    /// instruction of a machine that has no fast path at the moment.
    pub fn run(
        &mut self,
        machine: &mut dyn Machine,
        budget: u64,
        stop_at_finding: bool,
        breakpoints: bool,
    ) -> RunOutcome {
        let start = machine.instructions_executed();
        let executed = |m: &dyn Machine| m.instructions_executed().saturating_sub(start);
        let mut gated = self.fast_path;
        while executed(machine) < budget {
            let left = budget - executed(machine);
            if gated {
                self.enter_fast_path();
                let outcome = machine.run_gated(left, &mut self.fast);
                self.leave_fast_path();
                match outcome {
                    Some(RunOutcome {
                        stop: Some(stop), ..
                    }) => {
                        return RunOutcome {
                            executed: executed(machine),
                            stop: Some(stop),
                        };
                    }
                    Some(outcome) if outcome.executed >= left => break,
                    Some(_) => {}
                    None => gated = false,
                }
            }
            let count = machine.instructions_executed();
            let stop = if breakpoints {
                self.checked(machine, |m| m.run(1).stop)
            } else {
                self.step(machine)
            };
            if stop.is_some() || (stop_at_finding && self.has_findings()) {
                return RunOutcome {
                    executed: executed(machine),
                    stop,
                };
            }
            if machine.instructions_executed() == count {
                // Nothing ran (a guest's sleep): the host waits, not this loop.
                break;
            }
        }
        RunOutcome {
            executed: executed(machine),
            stop: None,
        }
    }

    /// Hands the current frame and the pending registers to the fast path.
    fn enter_fast_path(&mut self) {
        let frame = self
            .frames
            .last()
            .map_or(FastFrame::default(), |f| FastFrame {
                written: f.written,
                saved: f.saved,
                link_kept: f.link_kept,
                stack_used: f.stack_used,
                stack_rebased: f.stack_rebased,
            });
        let pending = self
            .clobbered
            .iter()
            .fold(0u32, |mask, (reg, _)| mask | 1 << reg);
        self.fast.enter(frame, pending);
    }

    /// Takes back what the fast path did to the current frame.
    fn leave_fast_path(&mut self) {
        let fast = self.fast.frame;
        if let Some(frame) = self.frames.last_mut() {
            frame.written = fast.written;
            frame.saved = fast.saved;
            frame.link_kept = fast.link_kept;
            frame.stack_used = fast.stack_used;
        }
    }

    fn name(&self, reg: usize) -> &'static str {
        self.conv.names.get(reg).copied().unwrap_or("?")
    }

    fn names(&self, mask: u32) -> String {
        let names: Vec<&str> = (0..32)
            .filter(|i| mask & (1 << i) != 0)
            .map(|i| self.name(i))
            .collect();
        names.join(", ")
    }

    /// What the instruction at `pc` reads, checked before it runs.
    fn before(&mut self, machine: &dyn Machine, pc: u64, effects: &Effects) {
        if !self.clobbered.is_empty() {
            // A use computes with the value; a store only copies it (a later prologue's save
            // is no use).
            let uses = effects.reads;
            let mut i = 0;
            while i < self.clobbered.len() {
                let reg = self.clobbered[i].0;
                if uses & (1 << reg) != 0 {
                    let (_, finding) = self.clobbered.swap_remove(i);
                    self.push(finding);
                } else {
                    i += 1;
                }
            }
        }
        if self.set.contains(CheckKind::Uninitialised) {
            let unset = effects.reads & !self.fast.regs_set;
            if unset != 0 {
                let plural = unset.count_ones() > 1;
                let message = format!(
                    "{} {} read before anything was written to {}",
                    self.names(unset),
                    if plural { "are" } else { "is" },
                    if plural { "them" } else { "it" },
                );
                // Reported once: from here on the register counts as set.
                self.fast.regs_set |= unset;
                self.report(machine, CheckKind::Uninitialised, pc, message);
            }
            if self.memory_known {
                for access in effects.loads.iter().flatten() {
                    // Memory that is not there is the machine's fault to report, not a check's.
                    if !self.fast.written.all(access.addr, access.units)
                        && machine.debug_read(access.addr).is_ok()
                    {
                        let message = format!(
                            "reads {}, which no directive declares and nothing stored to",
                            machine.isa().format_addr(access.addr)
                        );
                        self.fast
                            .written
                            .set_range(access.addr, access.addr + access.units);
                        self.report(machine, CheckKind::Uninitialised, pc, message);
                    }
                }
            }
        }
        if self.set.contains(CheckKind::CodeAsData) && self.memory_known && !self.conv.separate_code
        {
            if self.fast.data.get(pc) && !self.fast.code.get(pc) {
                let message = format!(
                    "executes {}, which was assembled as data{}",
                    machine.isa().format_addr(pc),
                    describe_data(machine, pc)
                );
                self.report(machine, CheckKind::CodeAsData, pc, message);
            }
            if let Some(store) = effects.store {
                if self.fast.code.any(store.addr, store.units) {
                    let line = machine
                        .debug_info()
                        .and_then(|d| d.describe(store.addr))
                        .map(|(file, line)| format!(" ({file}:{line})"))
                        .unwrap_or_default();
                    let message = format!(
                        "stores into the program's instructions at {}{line}",
                        machine.isa().format_addr(store.addr)
                    );
                    self.report(machine, CheckKind::CodeAsData, pc, message);
                }
            }
        }
    }

    /// The instruction at `pc` ran: the shadow state follows it, calls and returns are
    /// matched.
    fn after(&mut self, machine: &dyn Machine, pc: u64, effects: &Effects) {
        self.fast.regs_set |= effects.writes;
        if !self.clobbered.is_empty() {
            self.clobbered
                .retain(|(reg, _)| effects.writes & (1 << reg) == 0);
        }
        if let Some(store) = effects.store {
            self.fast
                .written
                .set_range(store.addr, store.addr + store.units);
        }
        let ra = self.conv.return_address;
        let ra_bit = 1u32 << ra;
        let pc_after = machine.pc();
        let sp_bit = 1u32 << self.conv.stack;
        if let Some(top) = self.frames.last_mut() {
            if (effects.reads | effects.stored) & ra_bit != 0 && effects.flow != Flow::Return {
                top.link_kept = true;
            }
            if effects.writes & sp_bit != 0 && effects.reads & sp_bit == 0 {
                top.stack_rebased = true;
            }
            if effects.reads & sp_bit != 0
                && (effects.loads[0].is_some() || effects.store.is_some())
                && !top.stack_rebased
            {
                top.stack_used = true;
            }
            if effects.store.is_some() {
                top.saved |= effects.stored & !top.written;
            }
            top.written |= effects.writes;
        }
        match effects.flow {
            Flow::Call { .. } if pc_after != pc + effects.size && !effects.system => {
                if let Some(top) = self.frames.last_mut() {
                    if effects.writes & ra_bit != 0 && !top.link_kept && top.clobbered_at.is_none()
                    {
                        top.clobbered_at = Some(pc);
                    }
                }
                let system = machine
                    .debug_info()
                    .is_some_and(|d| d.lines.get(pc_after).is_none());
                let entry_values = (0..self.conv.names.len())
                    .map(|i| machine.read_register(i).unwrap_or(0))
                    .collect();
                self.frames.push(Frame {
                    call_site: pc,
                    entry: pc_after,
                    return_to: pc + effects.size,
                    sp: machine.read_register(self.conv.stack).unwrap_or(0),
                    entry_values,
                    written: 0,
                    saved: 0,
                    stack_used: self.conv.stack_reserved,
                    stack_rebased: false,
                    link_kept: false,
                    clobbered_at: None,
                    system,
                });
            }
            Flow::Return => self.returned(machine, pc, pc_after),
            _ => {}
        }
        if effects.writes & (1 << self.conv.stack) != 0 && self.set.contains(CheckKind::Stack) {
            self.check_stack_pointer(machine, pc);
        }
    }

    fn returned(&mut self, machine: &dyn Machine, pc: u64, pc_after: u64) {
        match self.frames.iter().rposition(|f| f.return_to == pc_after) {
            Some(i) if i + 1 == self.frames.len() => {
                let frame = &self.frames[i];
                let written = frame.written;
                let mut found = Vec::new();
                let mut clobbered = Vec::new();
                if !frame.system {
                    let function = self.function_name(machine, frame.entry);
                    if self.set.contains(CheckKind::CalleeSaved) {
                        let mut promised = self.conv.callee_saved;
                        if self.conv.saves_are_promises {
                            let special = (1 << self.conv.stack) | (1 << self.conv.return_address);
                            promised |= frame.saved & !special;
                        }
                        for (reg, &was) in frame.entry_values.iter().enumerate() {
                            if promised & (1 << reg) == 0 {
                                continue;
                            }
                            let now = machine.read_register(reg).unwrap_or(was);
                            if now != was {
                                clobbered.push((
                                    reg,
                                    format!(
                                        "{function} returns with {} changed ({} at entry, {} now) \
                                         and its caller goes on using it: {}",
                                        self.name(reg),
                                        self.value(machine, was),
                                        self.value(machine, now),
                                        if self.conv.callee_saved & (1 << reg) != 0 {
                                            "it is callee-saved, so save it on entry and restore \
                                             it before returning"
                                        } else {
                                            "it saved it on entry, so restore it before returning"
                                        }
                                    ),
                                ));
                            }
                        }
                    }
                    let sp = machine.read_register(self.conv.stack).unwrap_or(frame.sp);
                    if self.set.contains(CheckKind::Stack) && frame.stack_used && sp != frame.sp {
                        found.push((
                            CheckKind::Stack,
                            format!(
                                "{function} returns with {} = {}, not {} as at the call: the \
                                 stack is not restored",
                                self.name(self.conv.stack),
                                self.value(machine, sp),
                                self.value(machine, frame.sp)
                            ),
                        ));
                    }
                }
                for (kind, message) in found {
                    self.report(machine, kind, pc, message);
                }
                for (reg, message) in clobbered {
                    let finding = self.finding(machine, CheckKind::CalleeSaved, pc, message);
                    self.clobbered.retain(|(r, _)| *r != reg);
                    self.clobbered.push((reg, finding));
                }
                self.frames.pop();
                if let Some(caller) = self.frames.last_mut() {
                    caller.written |= written;
                }
            }
            // Frames above it were left without returning (a longjmp, an exception).
            Some(i) => self.frames.truncate(i),
            None => {
                let Some(top) = self.frames.last() else {
                    return;
                };
                if let (Some(inner), false) = (top.clobbered_at, top.system) {
                    if self.set.contains(CheckKind::ReturnAddress) {
                        let function = self.function_name(machine, top.entry);
                        let caller = self.call_description(machine, top.call_site);
                        let return_line = machine
                            .debug_info()
                            .and_then(|d| d.describe(pc))
                            .map(|(file, line)| format!(" at {file}:{line}"))
                            .unwrap_or_default();
                        let message = format!(
                            "this call overwrites {}, which holds {function}'s return address and \
                             was not saved: {function}'s return{return_line} goes to {} instead \
                             of back to {caller}",
                            self.name(self.conv.return_address),
                            machine.isa().format_addr(pc_after),
                        );
                        self.report(machine, CheckKind::ReturnAddress, inner, message);
                    }
                }
            }
        }
    }

    fn check_stack_pointer(&mut self, machine: &dyn Machine, pc: u64) {
        let Some(sp) = machine.read_register(self.conv.stack) else {
            return;
        };
        let name = self.name(self.conv.stack);
        let align = self.conv.stack_alignment.max(1);
        if sp % align != 0 {
            let message = format!(
                "{name} = {} is not a multiple of {align}",
                self.value(machine, sp)
            );
            self.report(machine, CheckKind::Stack, pc, message);
        } else if let Some((lo, hi)) = self.conv.stack_segment {
            if sp < lo || sp > hi {
                let message = format!(
                    "{name} = {} is outside the stack's segment ({}-{})",
                    self.value(machine, sp),
                    machine.isa().format_addr(lo),
                    machine.isa().format_addr(hi)
                );
                self.report(machine, CheckKind::Stack, pc, message);
            }
        }
    }

    fn value(&self, machine: &dyn Machine, value: u64) -> String {
        machine.isa().format_addr(value)
    }

    /// The label of the function that starts at `entry`.
    fn function_name(&self, machine: &dyn Machine, entry: u64) -> String {
        machine
            .debug_info()
            .and_then(|d| {
                d.symbols
                    .at(entry)
                    .next()
                    .or_else(|| d.symbols.nearest_below(entry, SymbolKind::Code))
            })
            .map(|s| s.name.clone())
            .unwrap_or_else(|| format!("the function at {}", machine.isa().format_addr(entry)))
    }

    /// "main at game.asm:12": the function a call site is in and its line.
    fn call_description(&self, machine: &dyn Machine, site: u64) -> String {
        let info = machine.debug_info();
        let function = info
            .and_then(|d| d.symbols.nearest_below(site, SymbolKind::Code))
            .map(|s| s.name.clone());
        let line = info
            .and_then(|d| d.describe(site))
            .map(|(file, line)| format!("{file}:{line}"))
            .unwrap_or_else(|| machine.isa().format_addr(site));
        match function {
            Some(name) => format!("{name} at {line}"),
            None => line,
        }
    }

    fn report(&mut self, machine: &dyn Machine, kind: CheckKind, pc: u64, message: String) {
        let finding = self.finding(machine, kind, pc, message);
        self.push(finding);
    }

    /// Records `finding` unless its site was reported before or its check is off.
    fn push(&mut self, finding: Finding) {
        if self.set.contains(finding.kind) && self.reported.insert((finding.pc, finding.kind)) {
            self.findings.push(finding);
        }
    }

    fn finding(&self, machine: &dyn Machine, kind: CheckKind, pc: u64, message: String) -> Finding {
        let (location, origin) = match machine
            .system_call_site()
            .filter(|_| machine.debug_info().and_then(|d| d.describe(pc)).is_none())
        {
            Some(site) => {
                let call = machine
                    .disassemble(site)
                    .map(|(text, _)| text)
                    .unwrap_or_else(|| "call".to_string());
                (
                    source_location(machine, site),
                    format!(
                        "in the OS's code for {call}, called at {}",
                        machine.isa().format_addr(site)
                    ),
                )
            }
            None => {
                let origin = self
                    .frames
                    .iter()
                    .rev()
                    .find(|f| !f.system)
                    .map(|f| {
                        format!(
                            "in {}, called from {}",
                            self.function_name(machine, f.entry),
                            self.call_description(machine, f.call_site)
                        )
                    })
                    .unwrap_or_default();
                (source_location(machine, pc), origin)
            }
        };
        Finding {
            kind,
            pc,
            message,
            origin,
            location,
        }
    }
}

/// `file:line:col` of the instruction at `addr` (the column of its first word after any
/// label), or its address.
pub(crate) fn source_location(machine: &dyn Machine, addr: u64) -> String {
    let info = machine.debug_info();
    let found = info.and_then(|d| {
        let loc = d.lines.get(addr)?;
        let file = d.sources.get(loc.file)?;
        Some((
            file.name.to_string(),
            loc.line,
            file.line(loc.line).to_string(),
        ))
    });
    match found {
        Some((file, line, text)) => format!("{file}:{line}:{}", instruction_column(&text)),
        None => machine.isa().format_addr(addr),
    }
}

/// The 1-based column of a line's instruction: its first word, after a label with a colon.
fn instruction_column(text: &str) -> usize {
    let indent = text.len() - text.trim_start().len();
    let rest = &text[indent..];
    let first = rest.split_whitespace().next().unwrap_or("");
    if first.ends_with(':') && first.len() > 1 {
        let after = &rest[first.len()..];
        let gap = after.len() - after.trim_start().len();
        if !after.trim().is_empty() {
            return indent + first.len() + gap + 1;
        }
    }
    indent + 1
}

/// " (.FILL at game.asm:40)": the directive that put data at `addr`.
fn describe_data(machine: &dyn Machine, addr: u64) -> String {
    let Some(info) = machine.debug_info() else {
        return String::new();
    };
    let Some(item) = info.data.at(addr) else {
        return String::new();
    };
    match info.describe(item.addr) {
        Some((file, line)) => format!(" ({} at {file}:{line})", directive_name(item.directive)),
        None => String::new(),
    }
}

/// A data directive as the program wrote it.
fn directive_name(directive: crate::symbols::DataDirective) -> &'static str {
    use crate::symbols::DataDirective as D;
    match directive {
        D::Word => ".word",
        D::Half => ".half",
        D::Byte => ".byte",
        D::Float => ".float",
        D::Double => ".double",
        D::Ascii => ".ascii",
        D::Asciiz => ".asciiz",
        D::Space => ".space",
        D::Fill => ".FILL",
        D::Blkw => ".BLKW",
        D::Stringz => ".STRINGZ",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_instruction_column_skips_indent_and_label() {
        assert_eq!(instruction_column("\tADD R1, R1, #1"), 2);
        assert_eq!(instruction_column("loop: addi $t0, $t0, 1"), 7);
        assert_eq!(instruction_column("    jr $ra"), 5);
        assert_eq!(instruction_column("done:"), 1);
        assert_eq!(instruction_column("LOOP ADD R1, R1, #1"), 1);
    }
}
