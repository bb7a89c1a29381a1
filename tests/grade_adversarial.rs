//! `asmdbg test` against what students hand in to fool or break a grader
//! (tests/grading/adversarial/, each submission with the verdict it must get in the
//! `*.verdicts.toml` beside its spec), and the shared prefix proved invisible: every spec there
//! and every game's spec in programs/ (with the broken copies of tests/grading/<game>/) gives
//! the same results — scores, every failure's text, instruction counts — with and without it.

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use serde::Deserialize;
use serde_json::Value;
use support::text;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// What a submission must get.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Verdict {
    score: f64,
    #[serde(default)]
    says: Vec<String>,
    #[serde(default)]
    says_one_of: Vec<String>,
    #[serde(default)]
    never: Vec<String>,
    note: Option<String>,
    /// The most wall time any of its cases may take.
    seconds: Option<f64>,
}

/// The corpus copied into a scratch folder, made whole: the absolute include names this copy's
/// own solution, and the macOS zip gets the `.git` folder a repository cannot hold.
fn corpus() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("scratch");
    copy_tree(&root().join("tests/grading/adversarial"), dir.path());
    let echo = dir.path().join("echo");
    let absolute = echo.join("submissions/include_absolute/echo.asm");
    let source = std::fs::read_to_string(&absolute).expect("include_absolute");
    let spec_dir = echo.display().to_string();
    std::fs::write(&absolute, source.replace("@SPEC@", &spec_dir)).expect("write");
    let git = echo.join("submissions/macos_zip/.git");
    std::fs::create_dir_all(&git).expect(".git");
    std::fs::write(git.join("config"), "[core]\n").expect("config");
    dir
}

/// Copies a folder, links as links.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("folder");
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        let kind = entry.file_type().expect("type");
        if kind.is_symlink() {
            let link = std::fs::read_link(entry.path()).expect("link");
            #[cfg(unix)]
            std::os::unix::fs::symlink(link, &target).expect("symlink");
            #[cfg(not(unix))]
            let _ = link;
        } else if kind.is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// `asmdbg test SPEC SUBMISSIONS --json` with stdin an open pipe (an include of /dev/stdin must
/// not wait for it), with or without the shared prefix: the results.
fn grade(spec: &Path, submissions: &[&Path], shared: bool) -> Value {
    let dir = spec.parent().expect("spec folder");
    let json = tempfile::NamedTempFile::new().expect("json");
    let mut command = asmdbg_testsupport::binary::asmdbg_command(env!("CARGO_BIN_EXE_asmdbg"));
    command.current_dir(dir).arg("test").arg(spec);
    command.args(submissions).arg("--json").arg(json.path());
    if !shared {
        command.arg("--no-shared-prefix");
    }
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("asmdbg test starts");
    // Held open (not written, not closed) until asmdbg is done.
    let stdin = child.stdin.take();
    let out = child.wait_with_output().expect("asmdbg test ends");
    drop(stdin);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}: {:?}\n{}{}",
        spec.display(),
        out.status,
        text(&out.stdout),
        text(&out.stderr)
    );
    let bytes = std::fs::read(json.path()).expect("results");
    serde_json::from_slice(&bytes).expect("JSON")
}

/// The results without wall times (which differ from run to run).
fn without_seconds(mut results: Value) -> Value {
    for sub in results.as_array_mut().expect("array") {
        for case in sub["cases"].as_array_mut().expect("cases") {
            case.as_object_mut().expect("case").remove("seconds");
        }
    }
    results
}

/// Runs `spec` over `submissions` shared and not, requires the same results, returns them.
fn graded_both_ways(spec: &Path, submissions: &[&Path]) -> Value {
    let shared = grade(spec, submissions, true);
    let alone = grade(spec, submissions, false);
    let (a, b) = (without_seconds(shared.clone()), without_seconds(alone));
    if a != b {
        for (x, y) in a
            .as_array()
            .into_iter()
            .flatten()
            .zip(b.as_array().into_iter().flatten())
        {
            assert_eq!(
                x,
                y,
                "{}: shared prefix on (left) and off (right)",
                spec.display()
            );
        }
        panic!("{}: the results differ", spec.display());
    }
    shared
}

fn check_verdicts(spec: &Path, results: &Value) {
    let verdicts_path = spec.with_extension("verdicts.toml");
    let verdicts: BTreeMap<String, Verdict> =
        toml::from_str(&std::fs::read_to_string(&verdicts_path).expect("verdicts"))
            .unwrap_or_else(|e| panic!("{}: {e}", verdicts_path.display()));
    let by_name: BTreeMap<&str, &Value> = results
        .as_array()
        .expect("array")
        .iter()
        .map(|r| (r["submission"].as_str().expect("name"), r))
        .collect();
    let names: Vec<&str> = by_name.keys().copied().collect();
    let expected: Vec<&str> = verdicts.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        expected,
        "{}: every submission has a verdict",
        spec.display()
    );
    for (name, verdict) in &verdicts {
        let result = by_name[name.as_str()];
        let whole = result.to_string();
        let failures: Vec<&str> = result["cases"]
            .as_array()
            .expect("cases")
            .iter()
            .flat_map(|c| c["failures"].as_array().expect("failures"))
            .filter_map(Value::as_str)
            .collect();
        let context = format!("{} {name}: {whole}", spec.display());
        assert_eq!(result["score"].as_f64(), Some(verdict.score), "{context}");
        for text in &verdict.says {
            assert!(
                failures.iter().any(|f| f.contains(text.as_str())),
                "{text:?} in {context}"
            );
        }
        if !verdict.says_one_of.is_empty() {
            assert!(
                failures
                    .iter()
                    .any(|f| verdict.says_one_of.iter().any(|t| f.contains(t.as_str()))),
                "one of {:?} in {context}",
                verdict.says_one_of
            );
        }
        for text in &verdict.never {
            assert!(
                !whole.contains(text.as_str()),
                "{text:?} must not be in {context}"
            );
        }
        if let Some(note) = &verdict.note {
            assert_eq!(
                result["notes"][0].as_str(),
                Some(note.as_str()),
                "{context}"
            );
        }
        if let Some(limit) = verdict.seconds {
            for case in result["cases"].as_array().expect("cases") {
                let seconds = case["seconds"].as_f64().expect("seconds");
                assert!(seconds <= limit, "{seconds} s > {limit} s: {context}");
            }
        }
    }
}

/// Every spec of the corpus: its verdicts, shared prefix on and off.
#[test]
fn adversarial_submissions_get_their_verdicts_with_and_without_the_shared_prefix() {
    let corpus = corpus();
    for spec in [
        "echo/echo.toml",
        "echo_time/echo_time.toml",
        "count/plain.toml",
        "count/with_watch.toml",
    ] {
        let spec = corpus.path().join(spec);
        let submissions = spec.parent().expect("folder").join("submissions");
        let results = graded_both_ways(&spec, &[&submissions]);
        check_verdicts(&spec, &results);
    }
}

/// The count both specs pin is the one `asmdbg run --stats` gives.
#[test]
fn the_pinned_count_is_what_run_counts() {
    let program = root().join("tests/grading/adversarial/count/submissions/honest/adder.asm");
    let input = tempfile::NamedTempFile::new().expect("input");
    std::fs::write(input.path(), "34").expect("write");
    let out = support::run_asmdbg(
        &[
            "run",
            &program.display().to_string(),
            "--input",
            &input.path().display().to_string(),
            "--stats",
        ],
        b"",
    );
    assert!(
        text(&out.stderr).contains("stats: 606 instructions"),
        "{}",
        text(&out.stderr)
    );
}

/// The games' specs over their reference programs and deliberately broken copies.
#[test]
fn the_games_graders_give_the_same_results_with_and_without_the_shared_prefix() {
    for (spec, broken) in [
        ("programs/lc3/nim.toml", "tests/grading/nim"),
        ("programs/lc3/dots.toml", "tests/grading/dots"),
        ("programs/lc3/connect4.toml", "tests/grading/connect4"),
        (
            "programs/mips/four_in_a_row.toml",
            "tests/grading/four_in_a_row",
        ),
        ("programs/simplerisc/tictactoe.toml", ""),
    ] {
        let spec = root().join(spec);
        let own = spec.parent().expect("folder").to_path_buf();
        let mut submissions = vec![own];
        if !broken.is_empty() {
            submissions.push(root().join(broken));
        }
        let refs: Vec<&Path> = submissions.iter().map(PathBuf::as_path).collect();
        let results = graded_both_ways(&spec, &refs);
        let first = &results[0];
        assert_eq!(
            first["score"],
            first["max_score"],
            "{}: the reference program gets full marks",
            spec.display()
        );
    }
}
