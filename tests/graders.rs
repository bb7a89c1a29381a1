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
    autograder_with(&[("answer.asm", submission)])
}

/// A fake /autograder whose submission folder holds `files` (paths relative to it).
fn autograder_with(files: &[(&str, &str)]) -> Scratch {
    let root = Scratch::with_files(&[("source/spec.toml", SPEC)]);
    let submission = root.path().join("submission");
    std::fs::create_dir_all(&submission).expect("submission");
    for (name, text) in files {
        root.write(&format!("submission/{name}"), text);
    }
    let bin = root.path().join("source/bin");
    std::fs::create_dir_all(&bin).expect("bin");
    // The build under test: scripts/platforms ships the static musl build here, as courses do.
    let exe = asmdbg_testsupport::binary::asmdbg_file(env!("CARGO_BIN_EXE_asmdbg"));
    std::fs::copy(&exe, bin.join("asmdbg")).expect("copy asmdbg");
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

/// The workflow grades the way this test does: the student's repository checked out in
/// `submission/`, the course's private grading repository in `grading/`, `asmdbg test` writing
/// GitHub Classroom's results with points, which the reporter step reads from the runner id the
/// workflow names.
#[test]
fn the_classroom_workflow_runs_what_it_documents() {
    let workflow =
        std::fs::read_to_string(repo().join("graders/github-classroom/asmdbg-autograding.yml"))
            .expect("workflow");
    let line = workflow
        .lines()
        .find_map(|l| l.trim().strip_prefix("asmdbg test "))
        .expect("a step runs asmdbg test");
    let command = line.split("||").next().expect("command");
    let args: Vec<&str> = command.split_whitespace().collect();
    assert_eq!(args[..2], ["grading/spec.toml", "submission"]);
    assert!(
        workflow.contains("runners: asmdbg") && workflow.contains("ASMDBG_RESULTS:"),
        "the reporter reads the runner's results from <ID>_RESULTS"
    );
    assert!(
        workflow.contains("cache-hit != 'true'"),
        "asmdbg is built once per version"
    );
    let checkout = Scratch::with_files(&[
        ("grading/spec.toml", SPEC),
        ("submission/answer.asm", PROGRAM),
        ("submission/README.md", "# lab"),
    ]);
    let mut argv = vec!["test"];
    argv.extend(&args);
    let out = support::asmdbg_in(checkout.path(), &argv);
    assert!(
        out.status.success(),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(checkout.path().join("junit.xml").exists());
    let bytes = std::fs::read(checkout.path().join("classroom.json")).expect("classroom.json");
    let value: Value = serde_json::from_slice(&bytes).expect("JSON");
    assert_eq!(value["version"], 1);
    assert_eq!(value["status"], "pass");
    assert_eq!(value["max_score"], 4.0);
    assert_eq!(value["tests"][0]["score"], 3.0);
    assert_eq!(value["tests"][1]["message"], "a hidden case");
}

/// What students really upload: every shape gets a results.json with a score and a reason,
/// never "the autograder failed".
#[test]
fn every_upload_shape_gets_results_with_a_reason() {
    for (files, score, says) in [
        (vec![("Answer.asm", PROGRAM)], 0.0, "it holds Answer.asm (Answer.asm differs only in the case of its letters: name it answer.asm)"),
        (vec![], 0.0, "the submission has no answer.asm; it is empty"),
        (vec![("notes.txt", "hi")], 0.0, "the submission has no answer.asm; it holds notes.txt"),
        (
            vec![
                ("lab4/answer.asm", PROGRAM),
                ("__MACOSX/lab4/._answer.asm", "\u{5}\u{16}Mac OS X"),
                (".git/config", "[core]"),
            ],
            4.0,
            "",
        ),
    ] {
        let root = autograder_with(&files);
        let run = script(root.path(), "run_autograder");
        assert!(run.status.success(), "{files:?}: {}", text(&run.stderr));
        let value = results(root.path());
        assert_eq!(value["score"], score, "{files:?}: {value}");
        assert!(value.to_string().contains(says), "{files:?}: {says} in {value}");
    }
    // A byte order mark (Notepad's UTF-8) is fine.
    let root = autograder(&format!("\u{feff}{PROGRAM}"));
    script(root.path(), "run_autograder");
    assert_eq!(results(root.path())["score"], 4.0);
    let root = autograder_with(&[
        ("lab4/answer.asm", PROGRAM),
        ("__MACOSX/lab4/._answer.asm", "x"),
    ]);
    script(root.path(), "run_autograder");
    assert_eq!(
        results(root.path())["output"],
        "the program's files were found in the folder lab4/ of the submission"
    );
}

#[cfg(unix)]
#[test]
fn setup_takes_a_binary_that_lost_its_executable_bit() {
    use std::os::unix::fs::PermissionsExt;
    let root = autograder(PROGRAM);
    let bin = root.path().join("source/bin/asmdbg");
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let setup = script(root.path(), "setup.sh");
    assert!(setup.status.success(), "{}", text(&setup.stderr));
    assert!(text(&setup.stdout).contains("using the asmdbg binary shipped in the zip (asmdbg "));
    let run = script(root.path(), "run_autograder");
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert_eq!(results(root.path())["score"], 4.0);
    // A binary for another system says so.
    std::fs::write(&bin, "not a program").expect("write");
    let setup = script(root.path(), "setup.sh");
    assert!(!setup.status.success());
    assert!(
        text(&setup.stderr).contains("bin/asmdbg is in the zip but does not run on this image"),
        "{}",
        text(&setup.stderr)
    );
}

/// The workflow's `run: |` script of the step named `step`, unindented.
fn workflow_step_script(workflow: &str, step: &str) -> String {
    let mut lines = workflow
        .lines()
        .skip_while(|l| l.trim() != format!("- name: {step}"))
        .skip_while(|l| l.trim() != "run: |")
        .skip(1)
        .peekable();
    let indent = lines
        .peek()
        .map(|l| l.len() - l.trim_start().len())
        .expect("the step has a script");
    lines
        .take_while(|l| l.trim().is_empty() || l.len() - l.trim_start().len() >= indent)
        .map(|l| format!("{}\n", l.get(indent..).unwrap_or("")))
        .collect()
}

/// With ASMDBG_RELEASE set, the classroom workflow takes the static binary from the release's
/// linux-x64 archive (laid out as .github/workflows/release.yml makes it) after checking it
/// against SHA256SUMS, and refuses an archive whose checksum does not match.
#[test]
fn the_classroom_workflow_takes_the_release_binary_when_its_checksum_matches() {
    let workflow =
        std::fs::read_to_string(repo().join("graders/github-classroom/asmdbg-autograding.yml"))
            .expect("workflow");
    let script = workflow_step_script(
        &workflow,
        "asmdbg from its release (the static linux-x64 binary, checksum checked)",
    );
    // The release as .github/workflows/release.yml makes it: its Archive step (the linux-x64
    // job), then its Checksums step, run as written.
    let release_workflow =
        std::fs::read_to_string(repo().join(".github/workflows/release.yml")).expect("release.yml");
    let archive = workflow_step_script(&release_workflow, "Archive")
        .replace("${{ matrix.platform }}", "linux-x64");
    let checksums = workflow_step_script(&release_workflow, "Checksums");
    let release = Scratch::new();
    let job = release.path().join("job");
    std::fs::create_dir_all(&job).expect("the job's folder");
    std::fs::copy(repo().join("README.md"), job.join("README.md")).expect("README.md");
    let exe = asmdbg_testsupport::binary::asmdbg_file(env!("CARGO_BIN_EXE_asmdbg"));
    std::fs::copy(&exe, job.join("asmdbg")).expect("copy asmdbg");
    let made = Command::new("bash")
        .args(["-euo", "pipefail", "-c", &archive])
        .current_dir(&job)
        .env("GITHUB_REF_NAME", "v9.8.7")
        .env("exe", "asmdbg")
        .output()
        .expect("bash runs the Archive step");
    assert!(made.status.success(), "{}", text(&made.stderr));
    let summed = Command::new("bash")
        .args(["-euo", "pipefail", "-c", &checksums])
        .current_dir(&job)
        .output()
        .expect("bash runs the Checksums step");
    assert!(summed.status.success(), "{}", text(&summed.stderr));
    let download = release.path().join("releases/download/v9.8.7");
    std::fs::create_dir_all(download.parent().expect("a parent")).expect("release folder");
    std::fs::rename(job.join("dist"), &download).expect("the job's dist/ is the release");
    let run_step = |home: &Path| {
        Command::new("bash")
            .args(["-euo", "pipefail", "-c", &script])
            .current_dir(home)
            .env("HOME", home)
            .env("ASMDBG_RELEASE", "v9.8.7")
            .env(
                "ASMDBG_SOURCE",
                format!("file://{}", release.path().display()),
            )
            .output()
            .expect("bash runs the step")
    };
    let home = Scratch::new();
    let out = run_step(home.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let installed = home.path().join(".cargo/bin/asmdbg");
    let version = Command::new(&installed)
        .arg("--version")
        .output()
        .expect("the installed asmdbg runs");
    assert!(text(&version.stdout).starts_with("asmdbg "), "{version:?}");
    // Checksums that do not match the archive: nothing is installed.
    let wrong = format!("{}  asmdbg-9.8.7-linux-x64.tar.gz\n", "0".repeat(64));
    std::fs::write(download.join("SHA256SUMS"), wrong).expect("sums");
    let home = Scratch::new();
    let out = run_step(home.path());
    assert!(!out.status.success(), "a wrong checksum is refused");
    assert!(!home.path().join(".cargo/bin/asmdbg").exists());
}
