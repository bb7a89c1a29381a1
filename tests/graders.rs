//! The grading platforms' glue (graders/): Gradescope's `run_autograder` against a fake
//! `/autograder` tree writes the results.json Gradescope reads, for a right submission and for
//! one that does not assemble; the GitHub Classroom workflow runs the spec it documents.

mod support;

use std::path::Path;
use std::process::Command;

use serde_json::Value;
use support::{text, Scratch};

const PROGRAM: &str =
    ".ORIG x3000\nAND R0, R0, #0\nADD R0, R0, #5\nST R0, ANSWER\nHALT\nANSWER .FILL 0\n.END\n";
const SPEC: &str = "[program]\nfiles = [\"answer.asm\"]\n\
    [[case]]\nname = \"answer\"\npoints = 3\n[case.expect]\nmemory = { ANSWER = 5 }\nexit = \"normal\"\n\
    [[case]]\nname = \"quick\"\nvisibility = \"hidden\"\n[case.expect]\ninstructions = { max = 1000 }\n";

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A fake /autograder: the zip's files in source/ (the spec, the scripts, bin/asmdbg) and the
/// submission.
fn autograder(submission: &str) -> Scratch {
    let root = Scratch::with_files(&[
        ("source/spec.toml", SPEC),
        ("submission/answer.asm", submission),
    ]);
    let bin = root.path().join("source/bin");
    std::fs::create_dir_all(&bin).expect("bin");
    std::fs::copy(env!("CARGO_BIN_EXE_asmdbg"), bin.join("asmdbg")).expect("copy asmdbg");
    root
}

fn script(root: &Path, name: &str) -> std::process::Output {
    Command::new(repo().join("graders/gradescope").join(name))
        .env("AUTOGRADER_ROOT", root)
        .output()
        .expect("the script runs")
}

fn results(root: &Path) -> Value {
    let path = root.join("results/results.json");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_slice(&bytes).expect("results.json is JSON")
}

#[test]
fn run_autograder_writes_gradescope_results() {
    let root = autograder(PROGRAM);
    let setup = script(root.path(), "setup.sh");
    assert!(setup.status.success(), "{}", text(&setup.stderr));
    let run = script(root.path(), "run_autograder");
    assert!(
        run.status.success(),
        "{}{}",
        text(&run.stdout),
        text(&run.stderr)
    );
    let value = results(root.path());
    assert_eq!(value["score"], 4.0);
    let tests = value["tests"].as_array().expect("tests");
    assert_eq!(tests[0]["name"], "answer");
    assert_eq!(tests[0]["max_score"], 3.0);
    assert_eq!(tests[1]["visibility"], "after_published");
}

#[test]
fn a_submission_that_does_not_assemble_gets_zero_with_the_reason() {
    let root = autograder(&PROGRAM.replace("ADD R0, R0, #5", "ADD R0, R0, R9"));
    let run = script(root.path(), "run_autograder");
    assert!(run.status.success(), "{}", text(&run.stderr));
    let value = results(root.path());
    assert_eq!(value["score"], 0.0);
    let output = value["tests"][0]["output"].as_str().unwrap_or_default();
    assert!(output.contains("answer.asm:3:"), "{output}");
}

#[test]
fn a_broken_spec_is_the_graders_failure_not_the_students() {
    let root = autograder(PROGRAM);
    std::fs::write(root.path().join("source/spec.toml"), "[program]\n").expect("spec");
    let run = script(root.path(), "run_autograder");
    assert_eq!(run.status.code(), Some(2));
    assert!(text(&run.stderr).contains("asmdbg test could not grade"));
}

#[test]
fn setup_without_asmdbg_says_what_the_zip_lacks() {
    let root = Scratch::with_files(&[("source/spec.toml", SPEC)]);
    let setup = script(root.path(), "setup.sh");
    assert!(!setup.status.success());
    assert!(text(&setup.stderr).contains("holds neither bin/asmdbg nor asmdbg's source"));
}

/// The workflow grades the way this test does: `asmdbg test tests/spec.toml .` in a student's
/// repository, writing JUnit.
#[test]
fn the_classroom_workflow_runs_what_it_documents() {
    let workflow =
        std::fs::read_to_string(repo().join("graders/github-classroom/asmdbg-autograding.yml"))
            .expect("workflow");
    let line = workflow
        .lines()
        .find_map(|l| l.trim().strip_prefix("run: asmdbg test "))
        .expect("a step runs asmdbg test");
    let args: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(args[..2], ["tests/spec.toml", "."]);
    let repo_dir = Scratch::with_files(&[("tests/spec.toml", SPEC), ("answer.asm", PROGRAM)]);
    let mut argv = vec!["test"];
    argv.extend(&args);
    let out = support::asmdbg_in(repo_dir.path(), &argv);
    assert!(
        out.status.success(),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(repo_dir.path().join("junit.xml").exists());
}
