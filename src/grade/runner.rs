//! One case of a spec on one machine: its input, keys and pokes in, the run within its limits
//! (recording the writes and label hits the case watches); checks.rs then judges what
//! happened. A submission's faults, endless loops and floods of output cost it that case only.
//!
//! Runs go in bursts. The wall clock is read after every burst, and bursts shrink when
//! instructions are slow (a program doing file I/O), so a case overruns its time limit by a few
//! milliseconds at most. Output is judged only where the instruction count crosses a multiple
//! of [`SEGMENT`] (and at the end), so where a run is stopped for printing too much does not
//! depend on how fast the host ran it: the same case gives the same result every time, shared
//! prefix or not.

use std::time::{Duration, Instant};

use asmdbg_core::{Checker, Finding, Machine, StopEvent, WatchKind};

use super::spec::{Case, ExitKind};

/// Instructions between two judgements of a run's output.
pub const SEGMENT: u64 = 1 << 16;
/// The fewest instructions a burst runs, however slow they are.
const MIN_BURST: u64 = 1 << 6;
/// The wall time a burst should take at most (bursts shrink and grow to stay near it).
const BURST_TIME: Duration = Duration::from_millis(4);
/// Output (console and stderr together) a case may print before it is stopped.
pub const OUTPUT_LIMIT: usize = 1 << 20;

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum End {
    /// HALT, an exit syscall (with its code), the end of the code.
    Normal(i32),
    Fault(String),
    WaitsForInput,
    StepLimit,
    /// The wall-time limit, which the seconds spent on assembly count against.
    TimeLimit(Duration),
    OutputLimit,
}

impl End {
    /// How the run ended, with the instructions it took where that count says something (a
    /// run cut by its time or output limit stopped wherever the cut came).
    pub fn summary(&self, executed: u64) -> String {
        match self {
            End::TimeLimit(_) | End::OutputLimit => self.describe(),
            _ => format!("{} after {executed} instructions", self.describe()),
        }
    }

    pub fn describe(&self) -> String {
        match self {
            End::Normal(0) => "ended normally".to_string(),
            End::Normal(code) => format!("ended normally with exit code {code}"),
            End::Fault(message) => format!("faulted: {}", message.trim()),
            End::WaitsForInput => "waits for input and none is left".to_string(),
            End::StepLimit => "ran into the step limit".to_string(),
            End::TimeLimit(limit) => format!(
                "ran out of time (the limit is {} s, assembly included)",
                limit.as_secs_f64()
            ),
            End::OutputLimit => {
                format!("printed more than {OUTPUT_LIMIT} bytes (its console and stderr together)")
            }
        }
    }

    pub fn kind(&self) -> Option<ExitKind> {
        match self {
            End::Normal(_) => Some(ExitKind::Normal),
            End::Fault(_) => Some(ExitKind::Fault),
            End::WaitsForInput => Some(ExitKind::WaitsForInput),
            End::StepLimit => Some(ExitKind::StepLimit),
            End::TimeLimit(_) | End::OutputLimit => None,
        }
    }

    /// Whether the run was cut short by the grader's own limits (time, output): its counts
    /// and later writes are not the program's whole story.
    pub fn cut(&self) -> bool {
        matches!(self, End::TimeLimit(_) | End::OutputLimit)
    }
}

/// A watched span of memory: units `[first, first + len)`, `before` units below it and
/// `after` above it guarded.
#[derive(Debug, Clone)]
pub struct Watched {
    pub first: u64,
    pub len: u64,
    pub before: u64,
    pub after: u64,
    /// `(address, word before, word after)` of each write inside the span, in order.
    pub writes: Vec<(u64, u32, u32)>,
    /// Writes that landed in a guard.
    pub strays: Vec<u64>,
}

/// What one run did.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub output: Vec<u8>,
    pub end: End,
    pub executed: u64,
    /// Each watch check's writes, or why it could not watch (a label the program lacks): that
    /// check fails alone.
    pub watched: Vec<Result<Watched, String>>,
    /// Values of each hit check's register, in order, or why it could not be set.
    pub hits: Vec<Result<Vec<u64>, String>>,
    /// What the case's debugging checks found, in order.
    pub findings: Vec<Finding>,
}

/// A case's limits.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_steps: u64,
    /// Wall time, from the start of the case's assembly.
    pub time: Duration,
}

/// How many instructions the next `run` call may take: up to the next multiple of
/// [`SEGMENT`], and fewer while instructions are slow.
struct Pacer {
    burst: u64,
}

impl Pacer {
    fn new() -> Self {
        Pacer { burst: 1 << 12 }
    }

    fn budget(&self, executed: u64, max_steps: u64) -> u64 {
        let to_segment_end = SEGMENT - executed % SEGMENT;
        self.burst
            .min(to_segment_end)
            .min(max_steps.saturating_sub(executed))
    }

    /// Adjusts the burst to the time the last one took.
    fn took(&mut self, elapsed: Duration) {
        if elapsed > BURST_TIME {
            self.burst = (self.burst / 4).max(MIN_BURST);
        } else if elapsed < BURST_TIME / 4 {
            self.burst = (self.burst * 2).min(SEGMENT);
        }
    }

    /// Runs one burst (under the case's debugging checks, when it has them).
    fn run(
        &mut self,
        machine: &mut dyn Machine,
        max_steps: u64,
        checker: Option<&mut Checker>,
    ) -> asmdbg_core::RunOutcome {
        let budget = self.budget(machine.instructions_executed(), max_steps);
        let started = Instant::now();
        let outcome = match checker {
            Some(checker) => checker.run(machine, budget, false, true),
            None => machine.run(budget),
        };
        self.took(started.elapsed());
        outcome
    }
}

/// Reads the address (and units) a spec names: a number, a label, `LABEL+N`, `LABEL[K]`,
/// `LABEL[A..B]` (units A to B-1), `LABEL..LABEL+N`.
pub fn resolve_span(machine: &dyn Machine, text: &str) -> Result<(u64, Option<u64>), String> {
    let text = text.trim();
    let point = |t: &str| -> Result<u64, String> {
        let t = t.trim();
        if let Some((base, offset)) = t.split_once('+') {
            let offset = asmdbg_core::isa::parse_number(offset)
                .and_then(|n| u64::try_from(n).ok())
                .ok_or_else(|| format!("'{t}': the offset is not a number"))?;
            return Ok(point_of(machine, base)? + offset);
        }
        point_of(machine, t)
    };
    if let Some((a, b)) = text.split_once("..").filter(|_| !text.contains('[')) {
        let (first, end) = (point(a)?, point(b)?);
        if end <= first {
            return Err(format!("'{text}' is an empty range"));
        }
        return Ok((first, Some(end - first)));
    }
    if let Some((base, index)) = text.strip_suffix(']').and_then(|t| t.split_once('[')) {
        let base = point(base)?;
        let unit = machine.word_units() as u64;
        let number = |t: &str| {
            asmdbg_core::isa::parse_number(t)
                .and_then(|n| u64::try_from(n).ok())
                .ok_or_else(|| format!("'{text}': '{t}' is not an index"))
        };
        return match index.split_once("..") {
            Some((a, b)) => {
                let (a, b) = (number(a)?, number(b)?);
                if b <= a {
                    return Err(format!("'{text}' is an empty range"));
                }
                Ok((base + a * unit, Some((b - a) * unit)))
            }
            None => Ok((base + number(index)? * unit, None)),
        };
    }
    Ok((point(text)?, None))
}

fn point_of(machine: &dyn Machine, text: &str) -> Result<u64, String> {
    asmdbg_core::resolve_address(machine, text)
        .filter(|_| !text.starts_with('$'))
        .ok_or_else(|| format!("'{text}' is not an address or a label of the program"))
}

/// The register `name` names (any case, with or without `$`; the ISA's aliases).
pub fn register_index(machine: &dyn Machine, name: &str) -> Option<usize> {
    asmdbg_core::machine::register_index(machine, name.trim().trim_start_matches('$'))
}

/// Runs the part every case of a group shares, with the input held back
/// ([`asmdbg_core::Console::hold_input`]): until the program first looks at its input. Returns
/// the bytes it wrote to stderr if it stopped there; `None` for a run that ended any other way
/// (the program ended without reading input, a limit came first, it printed too much), which
/// is no shared prefix: the caller discards it. Its console output stays in the console for each
/// case to take.
pub fn run_prefix(machine: &mut dyn Machine, max_steps: u64, deadline: Instant) -> Option<usize> {
    machine.console().hold_input();
    let mut pacer = Pacer::new();
    let mut stderr_bytes = 0;
    loop {
        let executed = machine.instructions_executed();
        if executed % SEGMENT == 0 {
            stderr_bytes += machine.take_host_stderr().len();
            if machine.console().output().len() + stderr_bytes > OUTPUT_LIMIT {
                return None;
            }
        }
        if executed >= max_steps || Instant::now() >= deadline {
            return None;
        }
        match pacer.run(machine, max_steps, None).stop {
            None => {}
            Some(StopEvent::NeedInput) if machine.console().input_held() => {
                return Some(stderr_bytes + machine.take_host_stderr().len());
            }
            Some(_) => return None,
        }
    }
}

/// What a case's output channels took so far.
#[derive(Default)]
struct Printed {
    output: Vec<u8>,
    stderr_bytes: usize,
}

impl Printed {
    /// Takes what the machine printed since the last look (output past the limit is dropped:
    /// the run stops for it at the next look).
    fn take(&mut self, machine: &mut dyn Machine) {
        let out = machine.console().take_output();
        let room = (OUTPUT_LIMIT + 1).saturating_sub(self.output.len());
        self.output.extend_from_slice(&out[..out.len().min(room)]);
        self.stderr_bytes += machine.take_host_stderr().len();
    }

    fn too_much(&self) -> bool {
        self.output.len() + self.stderr_bytes > OUTPUT_LIMIT
    }
}

/// Sets up the case's watches and hits on `machine` (a check that names what the program
/// lacks is left out and reported by itself), runs it until `deadline` or its step limit, and
/// returns what happened. `prefix_stderr`: bytes a shared prefix wrote to stderr, which count as
/// the case's.
pub fn run(
    machine: &mut dyn Machine,
    case: &Case,
    max_steps: u64,
    deadline: Instant,
    time_limit: Duration,
    prefix_stderr: usize,
    mut checker: Option<&mut Checker>,
) -> Outcome {
    let unit = machine.word_units() as u64;
    let mut watched = Vec::new();
    for check in &case.watch {
        watched.push(resolve_span(machine, &check.at).map(|(first, len)| {
            let len = len.unwrap_or(unit);
            let guard = check.guard.unwrap_or(0);
            let before = check.guard_before.unwrap_or(guard);
            let after = check.guard_after.unwrap_or(guard);
            let low = first.saturating_sub(before);
            machine
                .watchpoints()
                .insert(low, len + (first - low) + after, WatchKind::Write);
            Watched {
                first,
                len,
                before,
                after,
                writes: Vec::new(),
                strays: Vec::new(),
            }
        }));
    }
    let mut hits = Vec::new();
    let mut hit_at = Vec::new();
    for check in &case.hit {
        let site = resolve_span(machine, &check.label).and_then(|(addr, _)| {
            let register = register_index(machine, &check.register)
                .ok_or_else(|| format!("'{}' is not a register", check.register))?;
            Ok((addr, register))
        });
        match site {
            Ok((addr, register)) => {
                machine.breakpoints().insert(addr);
                hit_at.push(Some((addr, register)));
                hits.push(Ok(Vec::new()));
            }
            Err(message) => {
                hit_at.push(None);
                hits.push(Err(message));
            }
        }
    }
    let mut printed = Printed {
        stderr_bytes: prefix_stderr,
        ..Printed::default()
    };
    let mut pacer = Pacer::new();
    // A shared prefix (see grade::Group) counts as the case's.
    let mut starved = 0;
    let end = loop {
        let executed = machine.instructions_executed();
        if executed % SEGMENT == 0 {
            printed.take(machine);
            if printed.too_much() {
                break End::OutputLimit;
            }
        }
        if executed >= max_steps {
            break End::StepLimit;
        }
        if Instant::now() >= deadline {
            break End::TimeLimit(time_limit);
        }
        let outcome = pacer.run(machine, max_steps, checker.as_deref_mut());
        let mut stop = outcome.stop;
        // A watched write or a hit: note it, then the instruction runs (`step` executes it
        // without the same stop) and the run goes on.
        while let Some(event) = stop.clone() {
            match event {
                StopEvent::Watch { addr, .. } => {
                    let word_addr = addr - addr % unit;
                    let old = machine.peek_word(word_addr).unwrap_or(0);
                    let step = machine.step();
                    let value = machine.peek_word(word_addr).unwrap_or(0);
                    for w in watched.iter_mut().flatten() {
                        if (w.first..w.first + w.len).contains(&addr) {
                            w.writes.push((word_addr, old, value));
                        } else if (w.first.saturating_sub(w.before)..w.first + w.len + w.after)
                            .contains(&addr)
                        {
                            w.strays.push(addr);
                        }
                    }
                    stop = step;
                }
                StopEvent::Breakpoint => {
                    let pc = machine.pc();
                    for (values, site) in hits.iter_mut().zip(&hit_at) {
                        if let (Ok(values), Some((addr, register))) = (values, site) {
                            if *addr == pc {
                                values.push(machine.read_register(*register).unwrap_or(0));
                            }
                        }
                    }
                    stop = machine.step();
                }
                _ => break,
            }
        }
        let ended = match stop {
            None
            | Some(StopEvent::Watch { .. })
            | Some(StopEvent::Breakpoint)
            | Some(StopEvent::Check(_)) => {
                // A run that cannot move (a MIPS sleep under virtual time moves; nothing else
                // stops without a stop) would loop here until the time limit.
                starved = 0;
                None
            }
            Some(StopEvent::NeedInput) => {
                let console = machine.console();
                starved = if outcome.executed == 0 {
                    starved + 1
                } else {
                    0
                };
                if console.input_closed() && (console.pending_input() == 0 || starved > 1) {
                    Some(End::WaitsForInput)
                } else {
                    if !console.input_closed() {
                        machine.end_input();
                    }
                    None
                }
            }
            Some(StopEvent::Halted) => Some(End::Normal(0)),
            Some(StopEvent::Exited(code)) => Some(End::Normal(code)),
            Some(StopEvent::Fault(fault)) => Some(End::Fault(fault.message)),
        };
        if let Some(end) = ended {
            printed.take(machine);
            break if printed.too_much() {
                End::OutputLimit
            } else {
                end
            };
        }
    };
    let mut output = printed.output;
    output.truncate(OUTPUT_LIMIT);
    Outcome {
        output,
        end,
        executed: machine.instructions_executed(),
        watched,
        hits,
        findings: checker.map(|c| c.take_findings()).unwrap_or_default(),
    }
}
