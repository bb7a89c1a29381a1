//! A course's tests as one TOML file (`asmdbg test SPEC.toml`): the program a submission must
//! hold and how its machine is set up, then the cases, each with its points, its input and
//! the checks it makes. Every table refuses keys it does not know, so a misspelt check is an
//! error that names it, never a check silently skipped.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The whole spec file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    pub program: ProgramSpec,
    #[serde(default, rename = "case")]
    pub cases: Vec<Case>,
    /// Where the spec was read from: its folder resolves the spec's own files.
    #[serde(skip)]
    pub dir: PathBuf,
}

/// Which files of a submission make the program, and the machine it runs on.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProgramSpec {
    /// The program's files inside each submission (LC-3 and MIPS programs may have several).
    pub files: Vec<String>,
    /// `lc3`, `mips` or `simplerisc`; inferred from the first file when absent.
    pub isa: Option<String>,
    /// The machine's flags as the command line spells them, without dashes.
    #[serde(default)]
    pub profile: Option<String>,
    #[serde(default)]
    pub strict: bool,
    #[serde(default)]
    pub ignore_privilege: bool,
    #[serde(default)]
    pub entry: Option<String>,
    #[serde(default)]
    pub start_at_main: bool,
    #[serde(default)]
    pub delay_slots: bool,
    #[serde(default)]
    pub seed: Option<u64>,
    #[serde(default)]
    pub no_mul: bool,
    #[serde(default)]
    pub mem_size: Option<u64>,
    #[serde(default)]
    pub bitmap: Option<String>,
    #[serde(default)]
    pub mmio: bool,
    #[serde(default)]
    pub display: bool,
    #[serde(default)]
    pub args: Vec<String>,
    /// MIPS: where MARS's dialog syscalls (50-59) go: `console` (their text on the console,
    /// answers read from the case's input, as `--dialogs console`) or `stderr`.
    #[serde(default)]
    pub dialogs: Option<Dialogs>,
    /// A reference solution (relative to the spec), run once per case for the cases that
    /// compare with its output.
    #[serde(default)]
    pub reference: Option<String>,
    /// Instructions a case may run at most (a case may set its own); 10^8 when absent.
    #[serde(default)]
    pub max_steps: Option<u64>,
    /// Seconds of wall time a case may take at most; 10 when absent.
    #[serde(default)]
    pub time_limit: Option<f64>,
}

/// Where MIPS dialog syscalls go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dialogs {
    Console,
    Stderr,
}

/// One test case.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    pub name: String,
    #[serde(default = "one")]
    pub points: f64,
    #[serde(default)]
    pub visibility: Visibility,
    /// Console input, given inline or as a file (relative to the spec); the input ends after
    /// it.
    #[serde(default)]
    pub input: Option<String>,
    #[serde(default)]
    pub input_file: Option<String>,
    /// Keys on the keyboard device at instruction counts: `[[COUNT, "K"], ...]` (K one
    /// character or `0xNN`), or a `--keys` file.
    #[serde(default)]
    pub keys: Vec<(u64, String)>,
    #[serde(default)]
    pub keys_file: Option<String>,
    /// Words written before the run: `ADDR=V1,V2,...` as `--poke` takes them.
    #[serde(default)]
    pub poke: Vec<String>,
    /// Files the program finds in its folder when it starts (MIPS file syscalls): the name it
    /// opens = a file of the spec (relative to the spec), `{ "board.txt" = "data/b1.txt" }`.
    #[serde(default)]
    pub data_files: BTreeMap<String, String>,
    #[serde(default)]
    pub max_steps: Option<u64>,
    #[serde(default)]
    pub time_limit: Option<f64>,
    #[serde(default)]
    pub expect: Expect,
    /// Writes to watch during the run.
    #[serde(default)]
    pub watch: Vec<WatchCheck>,
    /// Registers to read each time the program reaches a label.
    #[serde(default)]
    pub hit: Vec<HitCheck>,
}

fn one() -> f64 {
    1.0
}

/// Whether students see the case (Gradescope's `visible` / `hidden`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    #[default]
    Visible,
    Hidden,
}

/// How the run must end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ExitKind {
    /// The program ended by itself: HALT, an exit syscall, the end of its code.
    Normal,
    /// A fault the program does not handle.
    Fault,
    /// It waits for input and none is left.
    WaitsForInput,
    /// It ran into the step limit.
    StepLimit,
}

/// What a case checks at the end of the run.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// The console output exactly, inline or from a file.
    #[serde(default)]
    pub output: Option<String>,
    #[serde(default)]
    pub output_file: Option<String>,
    /// The output equal after normalising: line ends to `\n`, trailing spaces cut, runs of
    /// blank space made one space, blank lines at the end dropped.
    #[serde(default)]
    pub output_normalized: Option<String>,
    #[serde(default)]
    pub output_normalized_file: Option<String>,
    /// With the normalised comparison: letters' case does not matter.
    #[serde(default)]
    pub ignore_case: bool,
    /// With the normalised comparison: punctuation does not matter (it is dropped).
    #[serde(default)]
    pub ignore_punctuation: bool,
    #[serde(default)]
    pub output_contains: Vec<String>,
    #[serde(default)]
    pub output_regex: Option<String>,
    /// The output equal to the reference program's for the same case.
    #[serde(default)]
    pub output_matches_reference: bool,
    #[serde(default)]
    pub exit: Option<ExitKind>,
    /// With `exit = "fault"`: text the fault's message contains.
    #[serde(default)]
    pub fault: Option<String>,
    /// Words at the end: `{ CURRENT_PLAYER = 2, "BOARD[0..3]" = [1, 2, 3], x4000 = 7 }`; a
    /// place ending in `:byte` or `:half` compares bytes or halfwords from it (MIPS, SimpleRISC).
    #[serde(default)]
    pub memory: BTreeMap<String, WordsOrWord>,
    /// Registers at the end, by their names (`R0`, `$v0`, `r3`).
    #[serde(default)]
    pub registers: BTreeMap<String, i64>,
    /// Bounds on the instructions executed.
    #[serde(default)]
    pub instructions: Option<Bounds>,
    /// The display's last frame equal to this PNG (relative to the spec).
    #[serde(default)]
    pub frame: Option<String>,
    /// The exit code of a program that ends normally (MIPS syscall 17; 0 for any other end).
    #[serde(default)]
    pub exit_code: Option<i32>,
    /// Files the program must leave in its folder, with their exact contents:
    /// `{ "out.txt" = "3 4\n" }`.
    #[serde(default)]
    pub files: BTreeMap<String, String>,
    /// The same with the contents in files of the spec: `{ "out.txt" = "expected/out.txt" }`.
    #[serde(default)]
    pub files_from: BTreeMap<String, String>,
    /// Debugging checks the run must pass: `["callee-saved", "uninitialised"]` (the names
    /// of `asmdbg run --checks`); each warning of these kinds fails the case.
    #[serde(default)]
    pub checks: Vec<String>,
}

/// One expected word, or several from an address.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum WordsOrWord {
    Word(i64),
    Words(Vec<i64>),
}

/// Inclusive bounds.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bounds {
    pub min: Option<u64>,
    pub max: Option<u64>,
}

/// Writes into a word or a range during the run: `at = "CURRENT_PLAYER"` (a label, an
/// address, or `LABEL..LABEL+48` / `LABEL[0..48]` for a range of units).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WatchCheck {
    pub at: String,
    /// The values written, in order (to the word; for a range, of every write in it).
    #[serde(default)]
    pub writes: Option<Vec<i64>>,
    /// How many writes.
    #[serde(default)]
    pub write_count: Option<Bounds>,
    /// No write lands in the `guard` units just before or after the range: a store past the
    /// board. `guard_before` / `guard_after` set one side (a variable kept just before the
    /// board is not a stray).
    #[serde(default)]
    pub guard: Option<u64>,
    #[serde(default)]
    pub guard_before: Option<u64>,
    #[serde(default)]
    pub guard_after: Option<u64>,
    /// Only writes that change the value count (a program may write the same value again).
    #[serde(default)]
    pub changes_only: bool,
}

/// A register read each time the program reaches `label`: `values` in order.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HitCheck {
    pub label: String,
    pub register: String,
    pub values: Vec<i64>,
}

/// A spec that cannot be used: the file and what is wrong.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    #[error("{path}: {source}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Invalid { path: String, message: String },
}

impl Spec {
    /// Reads and checks a spec file.
    pub fn load(path: &Path) -> Result<Spec, SpecError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| SpecError::Read {
            path: name.clone(),
            source,
        })?;
        let mut spec = Spec::parse(&name, &text)?;
        spec.dir = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        Ok(spec)
    }

    /// Parses and checks a spec's text (`name` for messages).
    pub fn parse(name: &str, text: &str) -> Result<Spec, SpecError> {
        let invalid = |message: String| SpecError::Invalid {
            path: name.to_string(),
            message,
        };
        let spec: Spec = toml::from_str(text).map_err(|e| invalid(e.to_string()))?;
        if spec.program.files.is_empty() {
            return Err(invalid("[program] files names no file".to_string()));
        }
        if spec.cases.is_empty() {
            return Err(invalid("the spec has no [[case]]".to_string()));
        }
        let mut seen = std::collections::HashSet::new();
        for case in &spec.cases {
            let what = |message: &str| invalid(format!("case '{}': {message}", case.name));
            if !seen.insert(case.name.as_str()) {
                return Err(what("a second case of the same name"));
            }
            if case.input.is_some() && case.input_file.is_some() {
                return Err(what("give input or input_file, not both"));
            }
            if !case.keys.is_empty() && case.keys_file.is_some() {
                return Err(what("give keys or keys_file, not both"));
            }
            let e = &case.expect;
            if e.output.is_some() && e.output_file.is_some() {
                return Err(what("give expect.output or expect.output_file, not both"));
            }
            if e.output_normalized.is_some() && e.output_normalized_file.is_some() {
                return Err(what(
                    "give expect.output_normalized or expect.output_normalized_file, not both",
                ));
            }
            if e.output_matches_reference && spec.program.reference.is_none() {
                return Err(what(
                    "expect.output_matches_reference needs [program] reference",
                ));
            }
            if e.fault.is_some() && e.exit.is_some_and(|k| k != ExitKind::Fault) {
                return Err(what("expect.fault goes with exit = \"fault\""));
            }
            if let Some(re) = &e.output_regex {
                regex::Regex::new(re)
                    .map_err(|err| what(&format!("expect.output_regex: {err}")))?;
            }
            if let Some(name) = e
                .checks
                .iter()
                .find(|n| asmdbg_core::CheckKind::parse(n).is_none())
            {
                return Err(what(&format!(
                    "expect.checks: unknown check '{name}' (the checks are callee-saved, \
                     return-address, uninitialised, stack and code-as-data)"
                )));
            }
            if !(case.points.is_finite() && case.points >= 0.0) {
                return Err(what("points must be a number of at least 0"));
            }
            let plain = |name: &str| {
                !name.is_empty()
                    && Path::new(name)
                        .components()
                        .all(|c| matches!(c, std::path::Component::Normal(_)))
            };
            for name in case
                .data_files
                .keys()
                .chain(e.files.keys())
                .chain(e.files_from.keys())
            {
                if !plain(name) {
                    return Err(what(&format!(
                        "'{name}': a file of the program's folder is named by a relative path without '..'"
                    )));
                }
            }
            if let Some(name) = e.files.keys().find(|n| e.files_from.contains_key(*n)) {
                return Err(what(&format!(
                    "'{name}' is in expect.files and expect.files_from"
                )));
            }
            for watch in &case.watch {
                if watch.writes.is_none() && watch.write_count.is_none() && watch.guard.is_none() {
                    return Err(what(&format!(
                        "watch at '{}' checks nothing: give writes, write_count or guard",
                        watch.at
                    )));
                }
            }
        }
        Ok(spec)
    }

    /// A file the spec names, relative to its folder.
    pub fn file(&self, name: &str) -> PathBuf {
        let path = Path::new(name);
        if path.is_absolute() {
            path.to_path_buf()
        } else {
            self.dir.join(path)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &str = r#"
[program]
files = ["nim.asm"]
isa = "lc3"
max_steps = 1000000

[[case]]
name = "first move"
points = 2
input = "A3\n"
[case.expect]
output_contains = ["Player 1"]
exit = "waits-for-input"
memory = { CURRENT_PLAYER = 2, "ROWS[0..2]" = [3, 5, 8] }

[[case.watch]]
at = "CURRENT_PLAYER"
writes = [2]

[[case]]
name = "hidden"
visibility = "hidden"
[case.expect]
exit = "normal"
"#;

    #[test]
    fn a_spec_reads_its_program_and_cases() {
        let spec = Spec::parse("s.toml", SPEC).unwrap();
        assert_eq!(spec.program.files, ["nim.asm"]);
        assert_eq!(spec.cases.len(), 2);
        let first = &spec.cases[0];
        assert_eq!(first.points, 2.0);
        assert_eq!(first.expect.exit, Some(ExitKind::WaitsForInput));
        assert_eq!(
            first.expect.memory.get("ROWS[0..2]"),
            Some(&WordsOrWord::Words(vec![3, 5, 8]))
        );
        assert_eq!(first.watch[0].writes, Some(vec![2]));
        assert_eq!(spec.cases[1].visibility, Visibility::Hidden);
        assert_eq!(spec.cases[1].points, 1.0);
    }

    #[test]
    fn mistakes_are_named() {
        for (text, says) in [
            (SPEC.replace("output_contains", "output_contain"), "unknown field `output_contain`"),
            (SPEC.replace("\"hidden\"\nvisibility", "\"first move\"\nvisibility"), "a second case of the same name"),
            (SPEC.replace("exit = \"normal\"", "exit = \"crash\""), "unknown variant `crash`"),
            ("[program]\nfiles = []\n[[case]]\nname = \"a\"\n".to_string(), "names no file"),
            ("[program]\nfiles = [\"a\"]\n".to_string(), "no [[case]]"),
            (
                "[program]\nfiles = [\"a\"]\n[[case]]\nname = \"a\"\n[case.expect]\noutput_matches_reference = true\n".to_string(),
                "needs [program] reference",
            ),
            (
                "[program]\nfiles = [\"a\"]\n[[case]]\nname = \"a\"\n[case.expect]\noutput_regex = \"(\"\n".to_string(),
                "expect.output_regex",
            ),
            (
                "[program]\nfiles = [\"a\"]\n[[case]]\nname = \"a\"\n[[case.watch]]\nat = \"X\"\n".to_string(),
                "checks nothing",
            ),
            (
                "[program]\nfiles = [\"a\"]\n[[case]]\nname = \"a\"\n[case.expect]\nchecks = [\"callee-save\"]\n".to_string(),
                "unknown check 'callee-save'",
            ),
            (
                "[program]\nfiles = [\"a\"]\n[[case]]\nname = \"a\"\ndata_files = { \"../x\" = \"y\" }\n".to_string(),
                "without '..'",
            ),
            (
                "[program]\nfiles = [\"a\"]\ndialogs = \"popup\"\n[[case]]\nname = \"a\"\n".to_string(),
                "unknown variant `popup`",
            ),
        ] {
            let err = Spec::parse("s.toml", &text).unwrap_err().to_string();
            assert!(err.contains(says), "{says}: {err}");
            assert!(err.starts_with("s.toml: "), "{err}");
        }
    }
}
