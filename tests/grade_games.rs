//! The graders of the five games (`programs/<isa>/<game>.toml`, run by `asmdbg test`): each
//! gives its reference program full marks, and each deliberately broken copy under
//! `tests/grading/<game>/<flaw>/` loses exactly the points of the cases its flaw should fail:
//!
//! - nim/wrong_winner: the loser is announced at the end of a game, so the cases that finish
//!   a game fail and those that stop before the end pass;
//! - nim/assembly_error: every case fails, each naming the file and line of the error;
//! - dots/store_past_board: a store 8 words past the board at the end of a game, seen only by
//!   the cases that guard the board and finish a game;
//! - connect4/endless_loop: a move into a full column loops for ever, so the one game with
//!   such a move runs into its step limit;
//! - four_in_a_row/reads_passwd: opens /etc/passwd (and ../../etc/passwd) and prints what it
//!   reads; the sandbox makes every open fail, so it reads and prints nothing and keeps full
//!   marks, while outside the sandbox the same program does print the file.

mod support;

use std::path::{Path, PathBuf};

use serde_json::Value;
use support::{asmdbg, text, Scratch};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

const SPECS: [&str; 5] = [
    "programs/lc3/nim.toml",
    "programs/lc3/dots.toml",
    "programs/lc3/connect4.toml",
    "programs/mips/four_in_a_row.toml",
    "programs/simplerisc/tictactoe.toml",
];

/// What one `asmdbg test` run gave: its exit status, its table, and its JSON results.
struct Graded {
    status: Option<i32>,
    table: String,
    json_text: String,
    result: Value,
}

impl Graded {
    fn score(&self) -> (f64, f64) {
        let score = self.result["score"].as_f64().expect("score");
        let max = self.result["max_score"].as_f64().expect("max_score");
        (score, max)
    }

    fn cases(&self) -> &[Value] {
        self.result["cases"].as_array().expect("cases")
    }

    /// The names of the cases that failed, in the spec's order.
    fn failed(&self) -> Vec<&str> {
        self.cases()
            .iter()
            .filter(|c| c["passed"] == Value::Bool(false))
            .map(|c| c["name"].as_str().expect("name"))
            .collect()
    }
}

/// `asmdbg test SPEC [SUBMISSION] --json FILE`, run from the repository's root.
fn grade(spec: &str, submission: Option<&str>) -> Graded {
    let scratch = Scratch::new();
    let json_path = scratch.path().join("out.json");
    let mut cmd = asmdbg();
    cmd.current_dir(root()).arg("test").arg(spec);
    if let Some(sub) = submission {
        cmd.arg(sub);
    }
    let out = cmd
        .arg("--json")
        .arg(&json_path)
        .output()
        .expect("asmdbg test runs");
    let table = format!("{}{}", text(&out.stdout), text(&out.stderr));
    let json_text = std::fs::read_to_string(&json_path)
        .unwrap_or_else(|e| panic!("{spec}: no JSON results ({e}):\n{table}"));
    let all: Value = serde_json::from_str(&json_text).expect("JSON results");
    let subs = all.as_array().expect("one entry a submission");
    assert_eq!(subs.len(), 1, "{spec}: one submission expected:\n{table}");
    Graded {
        status: out.status.code(),
        table,
        result: subs[0].clone(),
        json_text,
    }
}

#[test]
fn every_spec_gives_its_reference_full_marks() {
    for spec in SPECS {
        let graded = grade(spec, None);
        let (score, max) = graded.score();
        assert_eq!(graded.status, Some(0), "{spec}:\n{}", graded.table);
        assert_eq!((score, max), (100.0, 100.0), "{spec}:\n{}", graded.table);
        assert!(graded.failed().is_empty(), "{spec}:\n{}", graded.table);
        // Every spec hides some of its cases from students.
        let hidden = graded
            .cases()
            .iter()
            .filter(|c| c["hidden"] == Value::Bool(true))
            .count();
        assert!(hidden > 0 && hidden < graded.cases().len(), "{spec}");
    }
}

/// Grades a broken copy and checks its score and exactly which cases it failed.
fn broken(spec: &str, folder: &str, score: f64, failed: &[&str]) -> Graded {
    let graded = grade(spec, Some(folder));
    assert_eq!(graded.status, Some(1), "{folder}:\n{}", graded.table);
    assert_eq!(
        graded.score(),
        (score, 100.0),
        "{folder}:\n{}",
        graded.table
    );
    assert_eq!(graded.failed(), failed, "{folder}:\n{}", graded.table);
    graded
}

/// The failures of the case `name`.
fn failures<'a>(graded: &'a Graded, name: &str) -> Vec<&'a str> {
    graded
        .cases()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no case {name}"))["failures"]
        .as_array()
        .expect("failures")
        .iter()
        .map(|f| f.as_str().expect("a failure is text"))
        .collect()
}

#[test]
fn a_wrong_winner_loses_the_cases_that_finish_a_game() {
    let graded = broken(
        "programs/lc3/nim.toml",
        "tests/grading/nim/wrong_winner",
        35.0,
        &[
            "sample run, whitespace aside",
            "sample run, exact",
            "every kind of invalid move",
            "player 1 wins",
        ],
    );
    let exact = failures(&graded, "sample run, exact");
    assert!(
        exact.contains(
            &"output differs at line 44: expected \"Player 2 Wins.\", got \"Player 1 Wins.\""
        ),
        "{exact:?}"
    );
    assert!(
        exact
            .iter()
            .any(|f| f.starts_with("memory CURRENT_PLAYER:")),
        "{exact:?}"
    );
    assert!(
        exact.contains(
            &"writes to CURRENT_PLAYER: [2, 1, 2, 1, 2, 1] where [2, 1, 2, 1, 2, 1, 2] is expected"
        ),
        "{exact:?}"
    );
}

#[test]
fn an_assembly_error_costs_every_case_and_names_its_line() {
    let spec = "programs/lc3/nim.toml";
    let all: Vec<String> = grade(spec, None)
        .cases()
        .iter()
        .map(|c| c["name"].as_str().expect("name").to_string())
        .collect();
    let names: Vec<&str> = all.iter().map(String::as_str).collect();
    let graded = broken(spec, "tests/grading/nim/assembly_error", 0.0, &names);
    for case in graded.cases() {
        assert_eq!(case["summary"], "did not run", "{case}");
        let message = case["failures"][0].as_str().expect("a failure");
        assert!(
            message.contains("tests/grading/nim/assembly_error/nim.asm:59:9: error:"),
            "{message}"
        );
    }
}

#[test]
fn a_store_past_the_board_is_caught_by_the_guard_only() {
    let graded = broken(
        "programs/lc3/dots.toml",
        "tests/grading/dots/store_past_board",
        65.0,
        &["player 2 wins", "stores stay on the board"],
    );
    for case in graded.failed() {
        let got = failures(&graded, case);
        assert_eq!(got.len(), 1, "{case}: {got:?}");
        assert!(
            got[0].starts_with("a write at x")
                && got[0].ends_with("lands outside CURRENT_PLAYER..BOARD_ROW6+8 (1 such write)"),
            "{case}: {got:?}"
        );
    }
}

#[test]
fn an_endless_loop_costs_only_its_case() {
    let graded = broken(
        "programs/lc3/connect4.toml",
        "tests/grading/connect4/endless_loop",
        85.0,
        &["invalid moves"],
    );
    let case = &graded.cases()[3];
    assert_eq!(case["name"], "invalid moves");
    assert_eq!(
        case["summary"], "ran into the step limit after 200000 instructions",
        "{}",
        graded.table
    );
    assert!(failures(&graded, "invalid moves")
        .contains(&"the program should have ended normally but ran into the step limit"));
}

/// Lines of the host's /etc/passwd worth looking for (empty when it cannot be read).
fn passwd_lines() -> Vec<String> {
    std::fs::read_to_string("/etc/passwd")
        .unwrap_or_default()
        .lines()
        .filter(|l| l.len() > 8)
        .map(str::to_string)
        .collect()
}

#[test]
fn a_program_that_opens_etc_passwd_reads_nothing_under_the_grader() {
    let copy = "tests/grading/four_in_a_row/reads_passwd";
    // Outside the sandbox the copy does print the file: it is the hostile program it claims.
    let lines = passwd_lines();
    if lines.iter().any(|l| l.starts_with("root:")) {
        let out = asmdbg()
            .current_dir(root())
            .args(["run", &format!("{copy}/four_in_a_row.asm"), "--input"])
            .arg(Path::new("tests/programs/mips/01_horizontal_win.in"))
            .output()
            .expect("asmdbg run");
        assert!(
            text(&out.stdout).starts_with("root:"),
            "{}",
            text(&out.stdout)
        );
    }
    // Under `asmdbg test` every open fails: nothing is read, the output is the game's alone,
    // so every case passes and every run ends by its exit syscall.
    let graded = grade("programs/mips/four_in_a_row.toml", Some(copy));
    assert_eq!(graded.status, Some(0), "{}", graded.table);
    assert_eq!(graded.score(), (100.0, 100.0), "{}", graded.table);
    for case in graded.cases() {
        let summary = case["summary"].as_str().expect("summary");
        assert!(summary.starts_with("ended normally after "), "{summary}");
    }
    for seen in [&graded.table, &graded.json_text] {
        assert!(!seen.contains("root:"), "{seen}");
        for line in &lines {
            assert!(!seen.contains(line.as_str()), "{line} in {seen}");
        }
    }
}
