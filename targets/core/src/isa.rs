//! Which instruction set a program is written for, and telling them apart from a source file.
//!
//! An ISA's identity ([`IsaInfo`]: its `--isa` name and aliases, its title, its address
//! notation, the ISA-specific flags it accepts) is data its own crate defines, as a `pub const
//! ISA` beside its backend. Core names no ISA: whatever needs the list of them (parsing `--isa`,
//! the detect error, the foreign-flag error) is given that list, which the binary builds from
//! its backends (src/backends.rs).

use std::fmt;
use std::hash::{Hash, Hasher};

use crate::options::Flag;

/// What one ISA is called, how it writes addresses, and which ISA-specific flags it accepts.
#[derive(Debug)]
pub struct IsaInfo {
    /// The name used on the command line (`--isa NAME`), lower case; it identifies the ISA.
    pub name: &'static str,
    /// Other names `--isa` accepts (`lc-3`, `mars`), lower case.
    pub aliases: &'static [&'static str],
    /// The name people write (`LC-3`, `MIPS`, `SimpleRISC`).
    pub title: &'static str,
    /// How the command line's help names it (`MIPS (MARS 4.5)`).
    pub summary: &'static str,
    /// A native address as the ISA's tools print it (`x3000`, `0x00400000`, `12`).
    pub format_addr: fn(u64) -> String,
    /// The ISA-specific command-line flags its programs accept (see [`Flag`]).
    pub flags: &'static [Flag],
}

/// One of the machines asmdbg emulates: a handle on its [`IsaInfo`], compared by name.
#[derive(Clone, Copy)]
pub struct Isa(&'static IsaInfo);

impl Isa {
    pub const fn new(info: &'static IsaInfo) -> Isa {
        Isa(info)
    }

    pub fn info(self) -> &'static IsaInfo {
        self.0
    }

    /// The name used on the command line (`--isa NAME`).
    pub fn name(self) -> &'static str {
        self.0.name
    }

    /// The name people write (`LC-3`, `MIPS`, `SimpleRISC`).
    pub fn title(self) -> &'static str {
        self.0.title
    }

    /// A native address as the ISA's tools print it (`x3000`, `0x00400000`, `12`).
    pub fn format_addr(self, addr: u64) -> String {
        (self.0.format_addr)(addr)
    }

    /// Whether programs of this ISA accept `flag`.
    pub fn accepts(self, flag: Flag) -> bool {
        self.0.flags.contains(&flag)
    }

    /// Whether `--isa text` names this ISA (its name or an alias, in any case).
    pub fn is_named(self, text: &str) -> bool {
        let lower = text.to_ascii_lowercase();
        self.0.name == lower || self.0.aliases.contains(&lower.as_str())
    }
}

impl PartialEq for Isa {
    fn eq(&self, other: &Isa) -> bool {
        self.0.name == other.0.name
    }
}

impl Eq for Isa {}

impl Hash for Isa {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.name.hash(state);
    }
}

impl fmt::Debug for Isa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for Isa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The ISA among `isas` that `--isa text` names.
pub fn parse_isa(text: &str, isas: &[Isa]) -> Result<Isa, String> {
    isas.iter()
        .copied()
        .find(|isa| isa.is_named(text))
        .ok_or_else(|| {
            let names: Vec<&str> = isas.iter().map(|isa| isa.name()).collect();
            format!("unknown ISA '{text}': expected one of {}", names.join(", "))
        })
}

/// Parses an integer the way the three assemblers write them: `42`, `-7`, `0x2A`, `x2A`, `#42`,
/// `0b101`, with an optional sign.
pub fn parse_number(text: &str) -> Option<i64> {
    let t = text.trim();
    let (neg, body) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let body = body.strip_prefix('#').unwrap_or(body);
    let value = if let Some(hex) = body
        .strip_prefix("0x")
        .or_else(|| body.strip_prefix("0X"))
        .or_else(|| body.strip_prefix('x'))
        .or_else(|| body.strip_prefix('X'))
    {
        i64::from_str_radix(hex, 16).ok()?
    } else if let Some(bin) = body.strip_prefix("0b").or_else(|| body.strip_prefix("0B")) {
        i64::from_str_radix(bin, 2).ok()?
    } else {
        body.parse::<i64>().ok()?
    };
    Some(if neg { value.checked_neg()? } else { value })
}

/// Why the ISA of a file could not be inferred.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DetectError {
    /// No dialect's marks; the ISAs that were tried, for the message.
    #[error(
        "cannot tell which ISA this file is written for; name it with --isa {}",
        list(.0, "|")
    )]
    Unknown(Vec<Isa>),
    #[error("this file could be {}; name the one you mean with --isa", list(.0, " or "))]
    Ambiguous(Vec<Isa>),
    /// Fewer than half of the lines are instructions, directives or labels of any dialect
    /// (a README, a C file, a binary): naming an ISA would not help.
    #[error("not an assembly program ({why})")]
    NotAssembly { why: String },
}

fn list(isas: &[Isa], separator: &str) -> String {
    let names: Vec<&str> = isas.iter().map(|i| i.name()).collect();
    names.join(separator)
}

/// How to recognise one ISA's assembly source; each ISA's backend gives its own.
#[derive(Debug, Clone, Copy)]
pub struct Dialect {
    pub isa: Isa,
    /// What starts a comment in this dialect.
    pub comments: &'static [&'static str],
    /// Whether a line carries a mark this dialect cannot do without. The line is lower-case,
    /// trimmed and not empty, with string and character literals emptied and the comments of
    /// every dialect cut off; `first` is its first word.
    pub marks: fn(line: &str, first: &str) -> bool,
    /// Whether a lower-case word is one of this dialect's instructions or directives: a line
    /// that starts with one (after an optional label) is a statement. Files without marks
    /// whose lines are mostly not statements are not assembly programs at all.
    pub operation: fn(word: &str) -> bool,
}

/// Guess the ISA of an assembly source from the marks each dialect cannot do without. A file
/// with the marks of several dialects (or none) is an error that names `--isa`; several are
/// listed in the order of `dialects`.
pub fn detect(source: &str, dialects: &[Dialect]) -> Result<Isa, DetectError> {
    let mut found = vec![false; dialects.len()];
    let mut code_lines = 0usize;
    let mut statements = 0usize;
    let mut first_other: Option<(usize, &str)> = None;
    for (number, raw) in source.lines().enumerate() {
        // Strip string and character literals (a `$` or `;` inside a string is text), then the
        // comment styles of all dialects, before looking for marks.
        let unquoted = strip_literals(raw);
        let end = dialects
            .iter()
            .flat_map(|d| d.comments)
            .filter_map(|c| unquoted.find(c))
            .min()
            .unwrap_or(unquoted.len());
        let lower = unquoted[..end].trim().to_ascii_lowercase();
        if lower.is_empty() {
            continue;
        }
        let first = lower.split_whitespace().next().unwrap_or("");
        for (hit, dialect) in found.iter_mut().zip(dialects) {
            *hit |= (dialect.marks)(&lower, first);
        }
        code_lines += 1;
        if is_statement(&lower, dialects) {
            statements += 1;
        } else if first_other.is_none() {
            first_other = Some((number + 1, raw.trim()));
        }
    }
    let found: Vec<Isa> = dialects
        .iter()
        .zip(found)
        .filter(|(_, hit)| *hit)
        .map(|(d, _)| d.isa)
        .collect();
    if found.len() == 1 {
        return Ok(found[0]);
    }
    let tried: Vec<Isa> = dialects.iter().map(|d| d.isa).collect();
    if let Some(why) = not_assembly(source, code_lines, statements, first_other, &tried) {
        return Err(DetectError::NotAssembly { why });
    }
    match found.len() {
        0 => Err(DetectError::Unknown(tried)),
        _ => Err(DetectError::Ambiguous(found)),
    }
}

/// Whether a line (lower-case, comments cut) starts with an instruction or directive of some
/// dialect, after an optional label (`name:`, or a bare first word as LC-3 writes labels), or
/// is a label alone.
fn is_statement(line: &str, dialects: &[Dialect]) -> bool {
    let mut words = line
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty());
    let Some(first) = words.next() else {
        return false;
    };
    let is_operation = |word: &str| dialects.iter().any(|d| (d.operation)(word));
    let (label, rest) = match first.split_once(':') {
        Some((label, rest)) => (label, rest),
        None => (first, ""),
    };
    let is_name = |w: &str| {
        !w.is_empty()
            && w.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$'))
    };
    if is_operation(first) {
        return true;
    }
    if !is_name(label) {
        return false;
    }
    match (rest.is_empty(), words.next()) {
        // `name: op ...` written without a space after the colon.
        (false, _) => is_operation(rest),
        (true, Some(second)) => is_operation(second),
        // A label alone on its line.
        (true, None) => first.ends_with(':') || is_name(first),
    }
}

/// Why `source` is not an assembly program, when fewer than half of its lines are statements;
/// `None` when it may well be one.
fn not_assembly(
    source: &str,
    code_lines: usize,
    statements: usize,
    first_other: Option<(usize, &str)>,
    tried: &[Isa],
) -> Option<String> {
    if source.contains('\0') {
        return Some("it is a binary file".to_string());
    }
    if code_lines == 0 {
        return Some(if source.trim().is_empty() {
            "the file is empty".to_string()
        } else {
            "it has only comments".to_string()
        });
    }
    if statements * 2 >= code_lines {
        return None;
    }
    let isas = list(tried, ", ");
    let mut why = if statements == 0 {
        format!("none of its {code_lines} lines is an instruction, directive or label of {isas}")
    } else {
        format!(
            "only {statements} of its {code_lines} lines are instructions, directives or labels of {isas}"
        )
    };
    if let Some((number, text)) = first_other {
        let shown: String = text.chars().take(40).collect();
        let more = if shown.len() < text.len() { "…" } else { "" };
        why.push_str(&format!("; line {number}: `{shown}{more}`"));
    }
    Some(why)
}

/// The line without the contents of `"..."` and `'.'` literals (escapes honoured).
fn strip_literals(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for ch in line.chars() {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if ch == '\\' {
                    escaped = true;
                } else if ch == q {
                    quote = None;
                    out.push(ch);
                }
            }
            None => {
                if ch == '"' || ch == '\'' {
                    quote = Some(ch);
                }
                out.push(ch);
            }
        }
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Two toy ISAs for core's tests: one accepts `--strict`, the other `--seed`.
    pub(crate) const KW: Isa = Isa::new(&IsaInfo {
        name: "kw",
        aliases: &["kw-1", "k"],
        title: "KW-1",
        summary: "KW-1",
        format_addr: |addr| format!("k{addr:03X}"),
        flags: &[Flag::Strict],
    });
    pub(crate) const OP: Isa = Isa::new(&IsaInfo {
        name: "op",
        aliases: &[],
        title: "OP",
        summary: "OP (toy)",
        format_addr: |addr| format!("{addr}"),
        flags: &[Flag::Seed],
    });

    /// Their dialects: `!` comments and `kw` lines, `%` comments and `op` lines.
    const TOYS: [Dialect; 2] = [
        Dialect {
            isa: KW,
            comments: &["!"],
            marks: |line, _| line.contains("kw"),
            operation: |word| matches!(word, "kw" | "nop" | ".data"),
        },
        Dialect {
            isa: OP,
            comments: &["%"],
            marks: |_, first| first == "op",
            operation: |word| matches!(word, "op" | "nop"),
        },
    ];

    #[test]
    fn marks_outside_comments_and_literals_decide() {
        assert_eq!(detect("  KW x\n", &TOYS), Ok(KW));
        assert_eq!(
            detect("op 1 ! kw\n", &TOYS),
            Ok(OP),
            "any dialect's comment"
        );
        assert_eq!(detect("x \"kw\" % kw\nop\n", &TOYS), Ok(OP));
        assert_eq!(
            detect("kw\nop\n", &TOYS),
            Err(DetectError::Ambiguous(vec![KW, OP]))
        );
        assert_eq!(
            detect("nop\n", &TOYS),
            Err(DetectError::Unknown(vec![KW, OP]))
        );
    }

    #[test]
    fn files_that_are_mostly_not_statements_are_not_assembly() {
        let why = |source: &str| match detect(source, &TOYS) {
            Err(DetectError::NotAssembly { why }) => why,
            other => panic!("{source:?}: {other:?}"),
        };
        // Prose that mentions both dialects' marks.
        assert_eq!(
            why("Use the kw word.\nop\nand more text here\nstill more text\nthe end\n"),
            "only 1 of its 5 lines are instructions, directives or labels of kw, op; line 1: `Use the kw word.`"
        );
        assert_eq!(
            why("hello world\n"),
            "none of its 1 lines is an instruction, directive or label of kw, op; line 1: `hello world`"
        );
        assert_eq!(why(""), "the file is empty");
        assert_eq!(why("! a comment\n% another\n"), "it has only comments");
        assert_eq!(why("nop\0\x01\n"), "it is a binary file");
        let long = format!("{} text", "x".repeat(100));
        assert!(why(&long).ends_with(&format!("line 1: `{}…`", "x".repeat(40))));
        // Labels, labels before operations and `name:op` count as statements.
        assert_eq!(
            detect("start: nop\nloop:\nagain nop\nend:nop\nop kw\n", &TOYS),
            Err(DetectError::Ambiguous(vec![KW, OP]))
        );
        assert_eq!(
            detect("nothing\n", &TOYS),
            Err(DetectError::Unknown(vec![KW, OP])),
            "a lone word may be a label"
        );
        assert_eq!(
            DetectError::NotAssembly { why: "x".into() }.to_string(),
            "not an assembly program (x)"
        );
    }

    #[test]
    fn ambiguous_and_unknown_name_the_flag() {
        let err = detect("kw\nop\n", &TOYS).unwrap_err();
        assert_eq!(
            err.to_string(),
            "this file could be kw or op; name the one you mean with --isa"
        );
        assert_eq!(
            detect("nothing\n", &TOYS).unwrap_err().to_string(),
            "cannot tell which ISA this file is written for; name it with --isa kw|op"
        );
    }

    #[test]
    fn numbers_in_every_notation() {
        assert_eq!(parse_number("42"), Some(42));
        assert_eq!(parse_number("-7"), Some(-7));
        assert_eq!(parse_number("0x2A"), Some(42));
        assert_eq!(parse_number("x2a"), Some(42));
        assert_eq!(parse_number("#42"), Some(42));
        assert_eq!(parse_number("-x10"), Some(-16));
        assert_eq!(parse_number("0b101"), Some(5));
        assert_eq!(parse_number("label"), None);
        assert_eq!(parse_number(""), None);
    }

    #[test]
    fn identity_is_the_isa_crates_data() {
        assert_eq!(KW.format_addr(0x30), "k030");
        assert_eq!(OP.format_addr(1000), "1000");
        assert_eq!(
            (KW.name(), KW.title(), KW.to_string()),
            ("kw", "KW-1", "kw".into())
        );
        assert!(KW.accepts(Flag::Strict) && !KW.accepts(Flag::Seed));
        assert_ne!(KW, OP);
        // Compared by name, not by where the description lives.
        let copy = Isa::new(Box::leak(Box::new(IsaInfo {
            flags: &[],
            ..*KW.info()
        })));
        assert_eq!(copy, KW);
    }

    #[test]
    fn parses_names_and_aliases() {
        let isas = [KW, OP];
        assert_eq!(parse_isa("KW", &isas), Ok(KW));
        assert_eq!(parse_isa("kw-1", &isas), Ok(KW));
        assert_eq!(parse_isa("Op", &isas), Ok(OP));
        assert_eq!(
            parse_isa("z80", &isas),
            Err("unknown ISA 'z80': expected one of kw, op".to_string())
        );
    }
}
