//! The assembler corpus: one expectation syntax for the three assemblers.
//!
//! Every file in `tests/asm/<isa>/` is `ok_NAME.asm` (must assemble) or `err_NAME.asm` (must
//! fail); `inc_NAME.asm` files are only `.include`d by others. Expectations are written in the
//! file's own comments. A comment starts at the ISA's first comment leader outside a `"string"`
//! (LC-3 `;`, MIPS `#`, SimpleRISC `@` or `//`) and is cut into parts at every further leader
//! that follows a blank; a part that starts with one of these keywords is an expectation, any
//! other part is prose:
//!
//! - `options: WORD...` — how to assemble: LC-3 `strict` (lc3as's rules), `pennsim` (PennSim's
//!   instructions too), SimpleRISC `no-mul`,
//!   MIPS `delay-slots`, `strict` (warnings MARS does not give).
//! - `= 0xHEX 0xHEX*N ...` — the units (LC-3 16-bit words, MIPS and SimpleRISC 32-bit words)
//!   at the addresses the line table gives this line, in address order; `*N` repeats.
//! - `bytes: HH HH ...` — the bytes from the line's first address (byte-addressed machines).
//! - `at: 0xHEX` — the line's first address.
//! - `error: TEXT`, `error@COL: TEXT`, `error@COL+LEN: TEXT` — an error on this line whose
//!   message contains TEXT (its caret at column COL, LEN characters wide). `warning...` is the
//!   same for a warning. `file error: TEXT` / `file warning: TEXT` — a message with no line.
//! - `obj: HEX` — the classic LC-3 `.obj` bytes of the whole file.
//!
//! A check is strict both ways: every diagnostic the assembler gives must be expected, every
//! expectation must be met, and a file with nothing to check is itself an error (so a typo in
//! a keyword cannot turn a test into one that passes without looking).

use std::fmt::Write as _;

use asmdbg_core::{Diagnostic, Diagnostics, Severity};

/// The comment leaders of an ISA's assembly language.
#[derive(Debug, Clone, Copy)]
pub struct Syntax {
    pub leaders: &'static [&'static str],
}

pub const LC3: Syntax = Syntax { leaders: &[";"] };
pub const MIPS: Syntax = Syntax { leaders: &["#"] };
pub const SIMPLERISC: Syntax = Syntax {
    leaders: &["@", "//"],
};

/// One expected diagnostic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// 0 for a whole-file message.
    pub line: u32,
    pub col: Option<u32>,
    pub len: Option<u32>,
    pub severity: Severity,
    pub text: String,
}

/// Everything a corpus file says about itself.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Expectations {
    pub options: Vec<String>,
    /// (line, units).
    pub units: Vec<(u32, Vec<u64>)>,
    /// (line, bytes).
    pub bytes: Vec<(u32, Vec<u8>)>,
    /// (line, address).
    pub at: Vec<(u32, u32)>,
    pub messages: Vec<Message>,
    /// Lowercase hex.
    pub obj: Option<String>,
}

impl Expectations {
    /// How many separate facts are checked (the options are not counted).
    pub fn count(&self) -> usize {
        self.units.len()
            + self.bytes.len()
            + self.at.len()
            + self.messages.len()
            + usize::from(self.obj.is_some())
    }

    pub fn expects_errors(&self) -> bool {
        self.messages.iter().any(|m| m.severity == Severity::Error)
    }

    /// Whether anything needs the assembled image (which a failed assembly does not have).
    fn needs_image(&self) -> bool {
        !self.units.is_empty()
            || !self.bytes.is_empty()
            || !self.at.is_empty()
            || self.obj.is_some()
    }
}

/// Where a line's comment starts: the first leader outside a double-quoted string.
fn comment_start(line: &str, syntax: Syntax) -> Option<usize> {
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_string => escaped = true,
            '"' => in_string = !in_string,
            _ if !in_string && syntax.leaders.iter().any(|l| line[i..].starts_with(l)) => {
                return Some(i)
            }
            _ => {}
        }
    }
    None
}

/// The parts of a comment: cut at every leader that follows a blank.
fn comment_parts(comment: &str, syntax: Syntax) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut prev_blank = false;
    for (i, c) in comment.char_indices() {
        if prev_blank {
            if let Some(leader) = syntax
                .leaders
                .iter()
                .find(|l| comment[i..].starts_with(**l))
            {
                parts.push(&comment[start..i]);
                start = i + leader.len();
            }
        }
        prev_blank = c == ' ' || c == '\t';
    }
    parts.push(&comment[start..]);
    parts
}

fn parse_hex(text: &str) -> Result<u64, String> {
    let digits = text
        .strip_prefix("0x")
        .ok_or_else(|| format!("`{text}`: expected 0xHEX"))?;
    u64::from_str_radix(digits, 16).map_err(|e| format!("`{text}`: {e}"))
}

fn parse_units(text: &str) -> Result<Vec<u64>, String> {
    let mut units = Vec::new();
    for item in text.split_whitespace() {
        let (value, count) = match item.split_once('*') {
            Some((v, n)) => (v, n.parse::<usize>().map_err(|e| format!("`{item}`: {e}"))?),
            None => (item, 1),
        };
        let value = parse_hex(value)?;
        units.extend(std::iter::repeat(value).take(count));
    }
    if units.is_empty() {
        return Err("`=` with no units".into());
    }
    Ok(units)
}

/// `@14+3: text` or `: text` after `error`/`warning` -> (col, len, text).
fn parse_message(rest: &str) -> Result<(Option<u32>, Option<u32>, String), String> {
    let (place, text) = rest
        .split_once(':')
        .ok_or_else(|| format!("missing ':' in `{rest}`"))?;
    let (col, len) = if place.is_empty() {
        (None, None)
    } else {
        let place = place
            .strip_prefix('@')
            .ok_or_else(|| format!("expected `@COL` or `:` in `{rest}`"))?;
        let number = |s: &str| s.parse::<u32>().map_err(|e| format!("`{rest}`: {e}"));
        match place.split_once('+') {
            Some((c, l)) => (Some(number(c)?), Some(number(l)?)),
            None => (Some(number(place)?), None),
        }
    };
    let text = text.trim();
    if text.is_empty() {
        return Err(format!("`{rest}`: no message text"));
    }
    Ok((col, len, text.to_string()))
}

/// Whether `part` begins with `word` followed by one of `next` (so `errors are...` is prose).
fn keyword<'a>(part: &'a str, word: &str, next: &[char]) -> Option<&'a str> {
    let rest = part.strip_prefix(word)?;
    rest.starts_with(next).then_some(rest)
}

/// Reads the expectations of one corpus file.
pub fn parse(source: &str, syntax: Syntax) -> Result<Expectations, String> {
    let mut ex = Expectations::default();
    for (index, line) in source.lines().enumerate() {
        let line_no = index as u32 + 1;
        let Some(start) = comment_start(line, syntax) else {
            continue;
        };
        let leader = syntax
            .leaders
            .iter()
            .find(|l| line[start..].starts_with(**l))
            .map_or(0, |l| l.len());
        for part in comment_parts(&line[start + leader..], syntax) {
            let part = part.trim();
            let at_line = |e: String| format!("line {line_no}: {e}");
            if let Some(rest) = part.strip_prefix("options:") {
                ex.options
                    .extend(rest.split_whitespace().map(str::to_string));
            } else if let Some(rest) = keyword(part, "=", &[' ', '\t']) {
                ex.units
                    .push((line_no, parse_units(rest).map_err(at_line)?));
            } else if let Some(rest) = part.strip_prefix("bytes:") {
                let bytes = rest
                    .split_whitespace()
                    .map(|b| u8::from_str_radix(b, 16).map_err(|e| format!("`{b}`: {e}")))
                    .collect::<Result<Vec<u8>, String>>()
                    .map_err(at_line)?;
                ex.bytes.push((line_no, bytes));
            } else if let Some(rest) = part.strip_prefix("at:") {
                let addr = parse_hex(rest.trim()).map_err(at_line)?;
                let addr = u32::try_from(addr).map_err(|e| at_line(e.to_string()))?;
                ex.at.push((line_no, addr));
            } else if let Some(rest) = part.strip_prefix("obj:") {
                ex.obj = Some(rest.trim().to_ascii_lowercase());
            } else {
                let (severity, line, rest) = if let Some(r) = part.strip_prefix("file error:") {
                    (Severity::Error, 0, r)
                } else if let Some(r) = part.strip_prefix("file warning:") {
                    (Severity::Warning, 0, r)
                } else if let Some(r) = keyword(part, "error", &[':', '@']) {
                    (Severity::Error, line_no, r)
                } else if let Some(r) = keyword(part, "warning", &[':', '@']) {
                    (Severity::Warning, line_no, r)
                } else {
                    continue;
                };
                let (col, len, text) = if line == 0 {
                    (None, None, rest.trim().to_string())
                } else {
                    parse_message(rest).map_err(at_line)?
                };
                ex.messages.push(Message {
                    line,
                    col,
                    len,
                    severity,
                    text,
                });
            }
        }
    }
    Ok(ex)
}

/// What an assembler produced, in the terms the expectations speak of.
#[derive(Debug, Default)]
pub struct Image {
    pub warnings: Diagnostics,
    /// (line of the main file, address, unit) for every line-table entry, in address order;
    /// the unit is `None` where no whole unit starts at the address (a last odd data byte).
    pub units: Vec<(u32, u32, Option<u64>)>,
    /// `Some(byte at address)` on byte-addressed machines.
    pub byte_at: Option<std::collections::BTreeMap<u32, u8>>,
    /// The classic `.obj` file, where the ISA has one.
    pub obj: Option<Result<Vec<u8>, String>>,
}

/// The checks every file name promises: `ok_` assembles with something to check, `err_`
/// expects an error and nothing that only an assembled image could show.
pub fn check_name(name: &str, ex: &Expectations) -> Result<(), String> {
    if ex.count() == 0 {
        return Err(format!("{name}: no expectations; nothing would be checked"));
    }
    if name.starts_with("ok_") {
        if ex.expects_errors() {
            return Err(format!(
                "{name}: an ok_ file expects an error; name it err_"
            ));
        }
        Ok(())
    } else if name.starts_with("err_") {
        if !ex.expects_errors() {
            return Err(format!(
                "{name}: an err_ file expects no error; name it ok_"
            ));
        }
        if ex.needs_image() {
            return Err(format!(
                "{name}: `=`, `bytes:`, `at:` or `obj:` in an err_ file cannot be checked"
            ));
        }
        Ok(())
    } else {
        Err(format!(
            "{name}: corpus files are named ok_*.asm or err_*.asm"
        ))
    }
}

fn location(d: &Diagnostic) -> (u32, u32, u32) {
    d.location
        .as_ref()
        .map_or((0, 0, 0), |l| (l.line, l.col, l.len))
}

/// Matches every diagnostic to one unmet expectation; reports the rest.
fn check_messages(ex: &Expectations, diags: &Diagnostics, problems: &mut String) {
    let mut seen = vec![false; ex.messages.len()];
    for d in &diags.items {
        let (line, col, len) = location(d);
        let found = ex.messages.iter().enumerate().position(|(i, m)| {
            !seen[i]
                && m.line == line
                && m.severity == d.severity
                && d.message.contains(&m.text)
                && m.col.map_or(true, |c| c == col)
                && m.len.map_or(true, |l| l == len)
        });
        match found {
            Some(i) => seen[i] = true,
            None => {
                let _ = writeln!(
                    problems,
                    "unexpected (line {line}, col {col}, len {len}):\n{d}"
                );
            }
        }
    }
    for (m, _) in ex.messages.iter().zip(&seen).filter(|(_, seen)| !**seen) {
        let _ = writeln!(problems, "missing: {m:?}");
    }
}

/// The failed assembly's report names each expected line and ends with the count.
fn check_report(name: &str, ex: &Expectations, diags: &Diagnostics, problems: &mut String) {
    let report = diags.to_string();
    for m in ex.messages.iter().filter(|m| m.line > 0) {
        if !report.contains(&format!("{name}:{}:", m.line)) {
            let _ = writeln!(problems, "the report does not name {name}:{}:", m.line);
        }
    }
    if ex.messages.iter().any(|m| m.line > 0) && !report.contains('^') {
        let _ = writeln!(problems, "the report draws no caret");
    }
    let errors = diags.error_count();
    let ending = format!(
        "{errors} error{} found; nothing was assembled\n",
        if errors == 1 { "" } else { "s" }
    );
    if !report.ends_with(&ending) {
        let _ = writeln!(
            problems,
            "the report does not end with `{}`",
            ending.trim_end()
        );
    }
}

fn check_image(ex: &Expectations, image: &Image, problems: &mut String) {
    let addresses = |line: u32| -> Vec<(u32, Option<u64>)> {
        image
            .units
            .iter()
            .filter(|(l, _, _)| *l == line)
            .map(|&(_, a, u)| (a, u))
            .collect()
    };
    for (line, want) in &ex.units {
        let got: Vec<u64> = addresses(*line)
            .into_iter()
            .filter_map(|(_, u)| u)
            .collect();
        if &got != want {
            let _ = writeln!(
                problems,
                "line {line}: units {got:#x?}, expected {want:#x?}"
            );
        }
    }
    for (line, want) in &ex.at {
        let got = addresses(*line).first().map(|&(a, _)| a);
        if got != Some(*want) {
            let _ = writeln!(problems, "line {line}: at {got:#x?}, expected {want:#x}");
        }
    }
    for (line, want) in &ex.bytes {
        let Some(memory) = &image.byte_at else {
            let _ = writeln!(
                problems,
                "line {line}: `bytes:` on a word-addressed machine"
            );
            continue;
        };
        let start = addresses(*line).first().map(|&(a, _)| a);
        let got: Vec<u8> = start
            .map(|start| {
                (0..want.len() as u32)
                    .map_while(|i| memory.get(&start.wrapping_add(i)).copied())
                    .collect()
            })
            .unwrap_or_default();
        if &got != want {
            let _ = writeln!(
                problems,
                "line {line}: bytes {got:02x?}, expected {want:02x?}"
            );
        }
    }
    if let Some(want) = &ex.obj {
        match &image.obj {
            None => problems.push_str("`obj:` on an ISA without .obj files\n"),
            Some(Err(e)) => {
                let _ = writeln!(problems, "no .obj: {e}");
            }
            Some(Ok(bytes)) => {
                let got: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
                if &got != want {
                    let _ = writeln!(problems, "obj {got}, expected {want}");
                }
            }
        }
    }
}

/// Checks one assembled (or failed) corpus file against its expectations.
pub fn check(
    name: &str,
    ex: &Expectations,
    result: &Result<Image, Diagnostics>,
) -> Result<(), String> {
    check_name(name, ex)?;
    let mut problems = String::new();
    match result {
        Ok(image) => {
            if ex.expects_errors() {
                problems.push_str("assembled although errors were expected\n");
            }
            check_messages(ex, &image.warnings, &mut problems);
            check_image(ex, image, &mut problems);
        }
        Err(diags) => {
            if !ex.expects_errors() {
                let _ = writeln!(problems, "assembly failed:\n{diags}");
            }
            check_messages(ex, diags, &mut problems);
            check_report(name, ex, diags, &mut problems);
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{name}:\n{problems}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_expectation_is_read() {
        let ex = parse(
            "; options: strict\n ADD R1 ; = 0x1261 0x0000*2\n X ; error@3+2: bad ; error: worse\n\
             .STRINGZ \"a;b\" ; warning: w ; a remark\n; file error: f\n; obj: 3000F025\n\
             x ; at: 0x3000 ; bytes: 01 ff\n",
            LC3,
        );
        let ex = ex.unwrap_or_default();
        assert_eq!(ex.options, vec!["strict".to_string()]);
        assert_eq!(ex.units, vec![(2, vec![0x1261, 0, 0])]);
        assert_eq!(ex.at, vec![(7, 0x3000)]);
        assert_eq!(ex.bytes, vec![(7, vec![1, 0xff])]);
        let msgs: Vec<(u32, Option<u32>, Option<u32>, &str)> = ex
            .messages
            .iter()
            .map(|m| (m.line, m.col, m.len, m.text.as_str()))
            .collect();
        assert_eq!(
            msgs,
            vec![
                (3, Some(3), Some(2), "bad"),
                (3, None, None, "worse"),
                (4, None, None, "w"),
                (0, None, None, "f"),
            ]
        );
        assert_eq!(ex.obj.as_deref(), Some("3000f025"));
        assert_eq!(ex.count(), 8);
    }

    #[test]
    fn simplerisc_leaders_do_not_cut_a_column() {
        let ex = parse("mov r1 // = 0x1 @ error@4+2: e @ x = y\n", SIMPLERISC).unwrap_or_default();
        assert_eq!(ex.units, vec![(1, vec![1])]);
        assert_eq!(ex.messages.len(), 1);
        assert_eq!((ex.messages[0].col, ex.messages[0].len), (Some(4), Some(2)));
    }

    #[test]
    fn prose_is_not_an_expectation_and_malformed_ones_are_errors() {
        let ex = parse("# errors are reported\n# warnings too\n", MIPS).unwrap_or_default();
        assert_eq!(ex.count(), 0);
        assert!(parse("nop # = 12\n", MIPS).is_err());
        assert!(parse("nop # error@x: y\n", MIPS).is_err());
        assert!(parse("nop # bytes: zz\n", MIPS).is_err());
    }

    #[test]
    fn a_file_without_expectations_fails() {
        let ex = Expectations::default();
        let ok: Result<Image, Diagnostics> = Ok(Image::default());
        assert!(check("ok_empty.asm", &ex, &ok).is_err());
    }

    #[test]
    fn names_must_agree_with_the_expectations() {
        let error = parse("x ; error: e\n", LC3).unwrap_or_default();
        let words = parse("x ; = 0x1\n", LC3).unwrap_or_default();
        let both = parse("x ; = 0x1\ny ; error: e\n", LC3).unwrap_or_default();
        assert!(check_name("ok_a.asm", &error).is_err());
        assert!(check_name("err_a.asm", &words).is_err());
        assert!(check_name("err_a.asm", &both).is_err());
        assert!(check_name("a.asm", &words).is_err());
        assert!(check_name("ok_a.asm", &words).is_ok());
        assert!(check_name("err_a.asm", &error).is_ok());
    }

    #[test]
    fn unexpected_and_missing_things_are_reported() {
        let ex = parse("x ; = 0x1\ny ; warning: w\n", LC3).unwrap_or_default();
        let image = Image {
            units: vec![(1, 0x3000, Some(2))],
            ..Image::default()
        };
        let report = check("ok_a.asm", &ex, &Ok(image)).err().unwrap_or_default();
        assert!(report.contains("line 1: units"), "{report}");
        assert!(report.contains("missing"), "{report}");
    }
}
