//! One case of a spec on one machine: its input, keys and pokes in, the run within its limits
//! (recording the writes and label hits the case watches), then every check against what
//! happened. A submission's faults, endless loops and floods of output cost it that case only.

use std::time::{Duration, Instant};

use asmdbg_core::{Machine, StopEvent, WatchKind};

use super::spec::{Bounds, Case, ExitKind, Expect, WordsOrWord};

/// Instructions per `run` call between looks at the wall clock and the output.
const BURST: u64 = 1 << 20;
/// Output a case may print before it is stopped (bounds the grader's memory).
pub const OUTPUT_LIMIT: usize = 1 << 20;

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum End {
    /// HALT, an exit syscall (with its code), the end of the code.
    Normal(i32),
    Fault(String),
    WaitsForInput,
    StepLimit,
    TimeLimit,
    OutputLimit,
}

impl End {
    pub fn describe(&self) -> String {
        match self {
            End::Normal(0) => "ended normally".to_string(),
            End::Normal(code) => format!("ended normally with exit code {code}"),
            End::Fault(message) => format!("faulted: {}", message.trim()),
            End::WaitsForInput => "waits for input and none is left".to_string(),
            End::StepLimit => "ran into the step limit".to_string(),
            End::TimeLimit => "ran out of time".to_string(),
            End::OutputLimit => format!("printed more than {OUTPUT_LIMIT} bytes"),
        }
    }

    fn kind(&self) -> Option<ExitKind> {
        match self {
            End::Normal(_) => Some(ExitKind::Normal),
            End::Fault(_) => Some(ExitKind::Fault),
            End::WaitsForInput => Some(ExitKind::WaitsForInput),
            End::StepLimit => Some(ExitKind::StepLimit),
            End::TimeLimit | End::OutputLimit => None,
        }
    }
}

/// A watched span of memory: units `[first, first + len)`, `before` units below it and
/// `after` above it guarded.
#[derive(Debug, Clone)]
struct Watched {
    first: u64,
    len: u64,
    before: u64,
    after: u64,
    /// `(address, word before, word after)` of each write inside the span, in order.
    writes: Vec<(u64, u32, u32)>,
    /// Writes that landed in a guard.
    strays: Vec<u64>,
}

/// What one run did.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub output: Vec<u8>,
    pub end: End,
    pub executed: u64,
    watched: Vec<Watched>,
    /// Values of each hit check's register, in order.
    hits: Vec<Vec<u64>>,
}

/// A case's limits.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_steps: u64,
    pub time: Duration,
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

/// Runs the part every case of a group shares: until the program first waits for input (none
/// is queued yet), ends, or reaches `limits`. Its output stays in the console for each case
/// to take.
pub fn run_prefix(machine: &mut dyn Machine, limits: Limits) {
    let started = Instant::now();
    while machine.instructions_executed() < limits.max_steps && started.elapsed() < limits.time {
        let left = limits.max_steps - machine.instructions_executed();
        let outcome = machine.run(BURST.min(left));
        if outcome.stop.is_some() || machine.console().output().len() > OUTPUT_LIMIT {
            return;
        }
    }
}

/// Sets up the case's watches and hits on `machine`, runs it within `limits`, and returns what
/// happened. `Err`: the case names something the program does not have.
pub fn run(machine: &mut dyn Machine, case: &Case, limits: Limits) -> Result<Outcome, String> {
    let unit = machine.word_units() as u64;
    let mut watched = Vec::new();
    for check in &case.watch {
        let (first, len) = resolve_span(machine, &check.at)?;
        let len = len.unwrap_or(unit);
        let guard = check.guard.unwrap_or(0);
        let before = check.guard_before.unwrap_or(guard);
        let after = check.guard_after.unwrap_or(guard);
        let low = first.saturating_sub(before);
        machine
            .watchpoints()
            .insert(low, len + (first - low) + after, WatchKind::Write);
        watched.push(Watched {
            first,
            len,
            before,
            after,
            writes: Vec::new(),
            strays: Vec::new(),
        });
    }
    let mut hit_at = Vec::new();
    for check in &case.hit {
        let (addr, _) = resolve_span(machine, &check.label)?;
        let register = register_index(machine, &check.register)
            .ok_or_else(|| format!("'{}' is not a register", check.register))?;
        machine.breakpoints().insert(addr);
        hit_at.push((addr, register));
    }
    let mut hits = vec![Vec::new(); hit_at.len()];
    let started = Instant::now();
    let mut output = Vec::new();
    // A shared prefix (see grade::Group) counts as the case's.
    let mut executed = machine.instructions_executed();
    let mut starved = 0;
    let end = loop {
        if executed >= limits.max_steps {
            break End::StepLimit;
        }
        if started.elapsed() > limits.time {
            break End::TimeLimit;
        }
        let outcome = machine.run(BURST.min(limits.max_steps - executed));
        executed += outcome.executed;
        output.extend(machine.console().take_output());
        if output.len() > OUTPUT_LIMIT {
            output.truncate(OUTPUT_LIMIT);
            break End::OutputLimit;
        }
        let mut stop = outcome.stop;
        // A watched write or a hit: note it, then the instruction runs (`step` executes it
        // without the same stop) and the run goes on.
        while let Some(event) = stop.clone() {
            match event {
                StopEvent::Watch { addr, .. } => {
                    let word_addr = addr - addr % unit;
                    let old = machine.peek_word(word_addr).unwrap_or(0);
                    let step = machine.step();
                    executed += 1;
                    let value = machine.peek_word(word_addr).unwrap_or(0);
                    for w in &mut watched {
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
                    for (values, &(addr, register)) in hits.iter_mut().zip(&hit_at) {
                        if addr == pc {
                            values.push(machine.read_register(register).unwrap_or(0));
                        }
                    }
                    executed += 1;
                    stop = machine.step();
                }
                _ => break,
            }
        }
        output.extend(machine.console().take_output());
        match stop {
            None | Some(StopEvent::Watch { .. }) | Some(StopEvent::Breakpoint) => {
                // A run that cannot move (a MIPS sleep under virtual time moves; nothing else
                // stops without a stop) would loop here until the time limit.
                starved = 0;
            }
            Some(StopEvent::NeedInput) => {
                let console = machine.console();
                starved = if outcome.executed == 0 {
                    starved + 1
                } else {
                    0
                };
                if console.input_closed() && (console.pending_input() == 0 || starved > 1) {
                    break End::WaitsForInput;
                }
                if !console.input_closed() {
                    machine.end_input();
                }
            }
            Some(StopEvent::Halted) => break End::Normal(0),
            Some(StopEvent::Exited(code)) => break End::Normal(code),
            Some(StopEvent::Fault(fault)) => break End::Fault(fault.message),
        }
    };
    Ok(Outcome {
        output,
        end,
        executed,
        watched,
        hits,
    })
}

/// Every check of `case` against `outcome` and the machine after it: the failures, each a
/// line a student can act on. `reference`: the reference program's output for this case.
#[allow(clippy::too_many_arguments)]
pub fn check(
    machine: &dyn Machine,
    case: &Case,
    expect_output: Option<&str>,
    expect_normalized: Option<&str>,
    outcome: &Outcome,
    reference: Option<&[u8]>,
    frame: Option<&(u32, u32, Vec<u32>)>,
) -> Vec<String> {
    let mut failures = Vec::new();
    let e: &Expect = &case.expect;
    let output = String::from_utf8_lossy(&outcome.output);
    if let Some(want) = expect_output {
        if output != want {
            failures.push(first_difference("output", want, &output));
        }
    }
    if let Some(want) = expect_normalized {
        let (want, got) = (
            normalize_with(want, e.ignore_case, e.ignore_punctuation),
            normalize_with(&output, e.ignore_case, e.ignore_punctuation),
        );
        if want != got {
            failures.push(first_difference("output (normalised)", &want, &got));
        }
    }
    for text in &e.output_contains {
        if !output.contains(text.as_str()) {
            failures.push(format!("the output does not contain {text:?}"));
        }
    }
    if let Some(re) = &e.output_regex {
        // Checked when the spec was read.
        if let Ok(re) = regex::Regex::new(re) {
            if !re.is_match(&output) {
                failures.push(format!("the output does not match /{re}/"));
            }
        }
    }
    if e.output_matches_reference {
        match reference {
            Some(want) => {
                let want = String::from_utf8_lossy(want);
                if output != want {
                    failures.push(first_difference("output (reference)", &want, &output));
                }
            }
            None => failures.push("the reference program gave no output to compare".into()),
        }
    }
    let want_kind = e.exit.or(e.fault.as_ref().map(|_| ExitKind::Fault));
    match want_kind {
        Some(kind) if outcome.end.kind() != Some(kind) => failures.push(format!(
            "the program should have {} but {}",
            describe_kind(kind),
            outcome.end.describe()
        )),
        None if matches!(
            outcome.end,
            End::TimeLimit | End::OutputLimit | End::StepLimit
        ) =>
        {
            failures.push(format!("the program {}", outcome.end.describe()));
        }
        _ => {}
    }
    if let (Some(text), End::Fault(message)) = (&e.fault, &outcome.end) {
        if !message.contains(text.as_str()) {
            failures.push(format!(
                "the fault's message does not say {text:?}: {message}"
            ));
        }
    }
    let bits = 8 * machine.unit_bytes() * machine.word_units();
    let mask = if bits >= 32 {
        u32::MAX
    } else {
        (1 << bits) - 1
    };
    let same = |want: i64, got: u64| (want as u64 as u32 & mask) == (got as u32 & mask);
    for (place, want) in &e.memory {
        let words: Vec<i64> = match want {
            WordsOrWord::Word(w) => vec![*w],
            WordsOrWord::Words(ws) => ws.clone(),
        };
        let (spot, width) = match place.rsplit_once(':') {
            Some((spot, "byte")) => (spot, Width::Byte),
            Some((spot, "half")) => (spot, Width::Half),
            _ => (place.as_str(), Width::Word),
        };
        if width != Width::Word && machine.unit_bytes() != 1 {
            failures.push(format!(
                "memory {place}: this machine's memory is words, not bytes"
            ));
            continue;
        }
        match resolve_span(machine, spot) {
            Err(msg) => failures.push(format!("memory {place}: {msg}")),
            Ok((addr, span)) => {
                let unit = match width {
                    Width::Byte => 1,
                    Width::Half => 2,
                    Width::Word => machine.word_units() as u64,
                };
                let bits = match width {
                    Width::Byte => 8,
                    Width::Half => 16,
                    Width::Word => bits,
                };
                let mask = if bits >= 32 {
                    u32::MAX
                } else {
                    (1 << bits) - 1
                };
                let same = |want: i64, got: u64| (want as u64 as u32 & mask) == (got as u32 & mask);
                let count = span.map_or(words.len() as u64, |s| s / unit);
                if count != words.len() as u64 && count + 1 != words.len() as u64 {
                    failures.push(format!(
                        "memory {place}: the range holds {count} words and {} are expected",
                        words.len()
                    ));
                    continue;
                }
                for (i, &w) in words.iter().enumerate() {
                    let at = addr + i as u64 * unit;
                    let read = match width {
                        Width::Word => machine.peek_word(at),
                        Width::Byte => machine.debug_read(at),
                        Width::Half => machine
                            .debug_read(at)
                            .and_then(|low| machine.debug_read(at + 1).map(|high| low | high << 8)),
                    };
                    match read {
                        Ok(got) if same(w, got as u64) => {}
                        Ok(got) => failures.push(format!(
                            "memory {place}: word {i} ({}) is {} where {w} is expected",
                            machine.isa().format_addr(at),
                            signed(got, bits)
                        )),
                        Err(err) => failures.push(format!("memory {place}: {err}")),
                    }
                }
            }
        }
    }
    for (name, &want) in &e.registers {
        match register_index(machine, name).and_then(|i| machine.read_register(i)) {
            Some(got) if same(want, got) => {}
            Some(got) => failures.push(format!(
                "register {name} is {} where {want} is expected",
                signed(got as u32, 32)
            )),
            None => failures.push(format!("'{name}' is not a register")),
        }
    }
    if let Some(bounds) = e.instructions {
        if let Some(message) = out_of(bounds, outcome.executed) {
            failures.push(format!("{} instructions ran: {message}", outcome.executed));
        }
    }
    for (check, watched) in case.watch.iter().zip(&outcome.watched) {
        let values: Vec<u64> = watched
            .writes
            .iter()
            .filter(|&&(_, old, new)| !check.changes_only || old != new)
            .map(|&(_, _, v)| v as u64)
            .collect();
        if let Some(want) = &check.writes {
            let matches =
                want.len() == values.len() && want.iter().zip(&values).all(|(&w, &g)| same(w, g));
            if !matches {
                let got: Vec<String> = values.iter().map(|&v| signed(v as u32, bits)).collect();
                failures.push(format!(
                    "writes to {}: [{}] where {want:?} is expected",
                    check.at,
                    got.join(", ")
                ));
            }
        }
        if let Some(bounds) = check.write_count {
            if let Some(message) = out_of(bounds, values.len() as u64) {
                failures.push(format!(
                    "{} writes to {}: {message}",
                    values.len(),
                    check.at
                ));
            }
        }
        if let Some(&first) = watched.strays.first() {
            let n = watched.strays.len();
            failures.push(format!(
                "a write at {} lands outside {} ({n} such write{})",
                machine.isa().format_addr(first),
                check.at,
                if n == 1 { "" } else { "s" }
            ));
        }
    }
    for (check, values) in case.hit.iter().zip(&outcome.hits) {
        let matches = check.values.len() == values.len()
            && check.values.iter().zip(values).all(|(&w, &g)| same(w, g));
        if !matches {
            let got: Vec<String> = values.iter().map(|&v| signed(v as u32, bits)).collect();
            failures.push(format!(
                "{} at each arrival at {}: [{}] where {:?} is expected",
                check.register,
                check.label,
                got.join(", "),
                check.values
            ));
        }
    }
    if let Some((w, h, want)) = frame {
        match machine.frame() {
            None => failures.push("the machine has no display to compare".into()),
            Some(got) => match asmdbg_core::display::read_png(&got.to_png()) {
                Ok((gw, gh, pixels)) if (gw, gh) == (*w, *h) => {
                    let differ = pixels.iter().zip(want).filter(|(a, b)| a != b).count();
                    if differ > 0 {
                        failures.push(format!("the last frame differs in {differ} pixels"));
                    }
                }
                Ok((gw, gh, _)) => failures.push(format!(
                    "the last frame is {gw}x{gh} pixels where {w}x{h} is expected"
                )),
                Err(err) => failures.push(format!("the last frame: {err}")),
            },
        }
    }
    failures
}

fn describe_kind(kind: ExitKind) -> &'static str {
    match kind {
        ExitKind::Normal => "ended normally",
        ExitKind::Fault => "faulted",
        ExitKind::WaitsForInput => "waited for more input",
        ExitKind::StepLimit => "run into the step limit",
    }
}

fn out_of(bounds: Bounds, n: u64) -> Option<String> {
    match (bounds.min, bounds.max) {
        (Some(min), _) if n < min => Some(format!("at least {min} expected")),
        (_, Some(max)) if n > max => Some(format!("at most {max} expected")),
        _ => None,
    }
}

/// A word as a signed number of `bits`.
fn signed(value: u32, bits: u32) -> String {
    if bits >= 32 {
        (value as i32).to_string()
    } else {
        let shift = 32 - bits;
        (((value << shift) as i32) >> shift).to_string()
    }
}

/// How wide a memory check's values are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Width {
    Byte,
    Half,
    Word,
}

/// [`normalize`], then letters in lower case and punctuation dropped, when asked.
pub fn normalize_with(text: &str, ignore_case: bool, ignore_punctuation: bool) -> String {
    let mut text = text.to_string();
    if ignore_case {
        text = text.to_lowercase();
    }
    if ignore_punctuation {
        text.retain(|c| !c.is_ascii_punctuation());
    }
    normalize(&text)
}

/// Line ends as `\n`, each line's blank space made single spaces and trimmed at the end,
/// blank lines at the end dropped.
pub fn normalize(text: &str) -> String {
    let unified = text.replace("\r\n", "\n").replace('\r', "\n");
    let mut lines: Vec<String> = unified
        .split('\n')
        .map(|line| line.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    while lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    lines.join("\n")
}

/// `what` differs: the first line where it does, both versions.
pub fn first_difference(what: &str, want: &str, got: &str) -> String {
    // A text that ends with a line end has no line after it (not an empty one).
    let lines = |t: &str| -> Vec<String> {
        let mut v: Vec<String> = t.split('\n').map(str::to_string).collect();
        if t.ends_with('\n') {
            v.pop();
        }
        v
    };
    let (want_lines, got_lines) = (lines(want), lines(got));
    let (mut want_lines, mut got_lines) = (want_lines.iter(), got_lines.iter());
    let mut line = 1;
    loop {
        match (want_lines.next(), got_lines.next()) {
            (Some(a), Some(b)) if a == b => line += 1,
            (Some(a), Some(b)) => {
                return format!("{what} differs at line {line}: expected {a:?}, got {b:?}")
            }
            (Some(a), None) => return format!("{what} ends early at line {line}: expected {a:?}"),
            (None, Some(b)) => return format!("{what} goes on at line {line}: got {b:?}"),
            (None, None) => return format!("{what} differs"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalising_keeps_words_and_lines() {
        assert_eq!(normalize("a  b \r\nc\t d\n\n\n"), "a b\nc d");
        assert_eq!(normalize(""), "");
    }

    #[test]
    fn the_first_difference_names_its_line() {
        assert_eq!(
            first_difference("output", "a\nb\nc", "a\nx\nc"),
            "output differs at line 2: expected \"b\", got \"x\""
        );
        assert_eq!(
            first_difference("output", "a\nb", "a"),
            "output ends early at line 2: expected \"b\""
        );
        assert_eq!(
            first_difference("output", "a", "a\nz"),
            "output goes on at line 2: got \"z\""
        );
    }

    #[test]
    fn output_that_stops_after_a_line_end_ends_early() {
        assert_eq!(
            first_difference("output", "a\nb\n", "a\n"),
            "output ends early at line 2: expected \"b\""
        );
        assert_eq!(
            first_difference("output", "a\n", "a\nb\n"),
            "output goes on at line 2: got \"b\""
        );
    }

    #[test]
    fn normalising_may_ignore_case_and_punctuation() {
        assert_eq!(
            normalize_with("Player 1 Wins!\r\n", true, true),
            "player 1 wins"
        );
        assert_eq!(normalize_with("A-b", false, true), "Ab");
        assert_eq!(normalize_with("A-b", true, false), "a-b");
    }

    #[test]
    fn words_read_as_signed_numbers_of_their_width() {
        assert_eq!(signed(0xffff, 16), "-1");
        assert_eq!(signed(0x7fff, 16), "32767");
        assert_eq!(signed(0xffff_fffe, 32), "-2");
    }
}
