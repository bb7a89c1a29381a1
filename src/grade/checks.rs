//! Every check of a case against what its run did and the machine after it: each failure a
//! line a student can act on.

use std::path::Path;

use asmdbg_core::Machine;

use super::runner::{register_index, resolve_span, End, Outcome};
use super::spec::{Bounds, Case, ExitKind, Expect, WordsOrWord};

/// What a case's checks compare against, read from the spec's files once.
pub struct Expected {
    pub output: Option<String>,
    pub normalized: Option<String>,
    pub frame: Option<(u32, u32, Vec<u32>)>,
    /// The files the program must leave in its folder, by name, with their contents.
    pub files: Vec<(String, Vec<u8>)>,
}

/// One case's run, for checking.
pub struct Ran<'a> {
    pub machine: &'a dyn Machine,
    pub case: &'a Case,
    pub outcome: &'a Outcome,
    /// The case's own folder, with the files the program wrote.
    pub files_dir: &'a Path,
}

/// At most this many of the debugging checks' warnings are named in a case's feedback.
const FINDINGS_SHOWN: usize = 5;

/// `checks = [...]`: each warning of the checks the case names fails it, named as `asmdbg run
/// --checks` prints it (file, line and column, the check, what broke, the call that led
/// there).
fn check_findings(findings: &[asmdbg_core::Finding]) -> Vec<String> {
    let mut failures: Vec<String> = findings
        .iter()
        .take(FINDINGS_SHOWN)
        .map(|f| format!("debugging check: {}", f.warning_line()))
        .collect();
    if findings.len() > FINDINGS_SHOWN {
        failures.push(format!(
            "debugging checks: {} more warnings (asmdbg run --checks shows them all)",
            findings.len() - FINDINGS_SHOWN
        ));
    }
    failures
}

/// Every check of the case against its run: the failures, each a line a student can act on.
/// `reference`: the reference program's output for this case.
pub fn check(ran: &Ran, want: &Expected, reference: Option<&[u8]>) -> Vec<String> {
    let Ran {
        machine,
        case,
        outcome,
        files_dir,
    } = *ran;
    let (expect_output, expect_normalized, frame) = (
        want.output.as_deref(),
        want.normalized.as_deref(),
        want.frame.as_ref(),
    );
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
        None if outcome.end.cut() || outcome.end == End::StepLimit => {
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
    if let Some(want) = e.exit_code {
        match outcome.end {
            End::Normal(code) if code == want => {}
            End::Normal(code) => failures.push(format!(
                "the program ended with exit code {code} where {want} is expected"
            )),
            _ => {} // How it ended instead is said above.
        }
    }
    failures.extend(check_files(&want.files, files_dir));
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
    if let Some(bounds) = e.instructions.filter(|_| !outcome.end.cut()) {
        if let Some(message) = out_of(bounds, outcome.executed) {
            failures.push(format!("{} instructions ran: {message}", outcome.executed));
        }
    }
    // A run cut by a limit stopped wherever the cut came: what its watches and hits collected
    // is only part of the story (the limit is the failure reported), but a stray write seen
    // before the cut is a fact.
    let whole = !outcome.end.cut();
    for (check, watched) in case.watch.iter().zip(&outcome.watched) {
        let watched = match watched {
            Ok(watched) => watched,
            Err(message) => {
                failures.push(format!("watch {}: {message}", check.at));
                continue;
            }
        };
        let values: Vec<u64> = watched
            .writes
            .iter()
            .filter(|&&(_, old, new)| !check.changes_only || old != new)
            .map(|&(_, _, v)| v as u64)
            .collect();
        if let Some(want) = check.writes.as_ref().filter(|_| whole) {
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
        if let Some(bounds) = check.write_count.filter(|_| whole) {
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
                place_of(machine, first),
                check.at,
                if n == 1 { "" } else { "s" }
            ));
        }
    }
    for (check, values) in case.hit.iter().zip(&outcome.hits) {
        let values = match values {
            Ok(values) => values,
            Err(message) => {
                failures.push(format!("hit {}: {message}", check.label));
                continue;
            }
        };
        if !whole {
            continue;
        }
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
    failures.extend(check_findings(&outcome.findings));
    failures
}

/// An address as the student knows it: `x4010 (BOARD+16)`, with the nearest label at or below
/// it (data labels first, as strays land in data); the address alone where no label is.
fn place_of(machine: &dyn Machine, addr: u64) -> String {
    let text = machine.isa().format_addr(addr);
    let label = machine.debug_info().and_then(|info| {
        use asmdbg_core::SymbolKind;
        let data = info.symbols.nearest_below(addr, SymbolKind::Data);
        let code = info.symbols.nearest_below(addr, SymbolKind::Code);
        match (data, code) {
            (Some(d), Some(c)) => Some(if c.addr > d.addr { c } else { d }),
            (d, c) => d.or(c),
        }
    });
    match label {
        Some(sym) if sym.addr == addr => format!("{text} ({})", sym.name),
        Some(sym) => format!("{text} ({}+{})", sym.name, addr - sym.addr),
        None => text,
    }
}

/// The files the program must have left in its folder, each compared byte for byte.
fn check_files(files: &[(String, Vec<u8>)], dir: &Path) -> Vec<String> {
    let mut failures = Vec::new();
    for (name, want) in files {
        match std::fs::read(dir.join(name)) {
            Err(_) => failures.push(format!("the program did not write the file {name}")),
            Ok(got) if &got == want => {}
            Ok(got) => failures.push(first_difference(
                &format!("the file {name}"),
                &String::from_utf8_lossy(want),
                &String::from_utf8_lossy(&got),
            )),
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
