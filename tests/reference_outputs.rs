//! `asmdbg run` against what the reference tools printed for the same programs: every case of
//! tests/reference/<tool>/ must give the recorded stdout, stderr and exit status byte for byte
//! (and, where the tool counts instructions, the same count, read from `--stats`).
//!
//! A case is NAME.cmd (line 1 the asmdbg command, line 2 the reference tool's command that
//! produced the expectations), the program files it names, NAME.in (optional stdin) and the
//! recordings NAME.stdout, NAME.stderr, NAME.status (and NAME.count) written by
//! tests/reference/record; `{dir}` in them stands for the case's folder. Which tool, version and
//! build made them: tests/reference/README.md.

mod support;

use std::path::{Path, PathBuf};
use std::process::Stdio;

use support::{asmdbg, text};

fn folder(tool: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/reference")
        .join(tool)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `--stats` lines, which the reference's count stands in for.
fn is_stats_line(line: &str) -> bool {
    ["stats: ", "startup: ", "compiled code: "]
        .iter()
        .any(|p| line.starts_with(p))
}

/// The instructions `--stats` reported, and stderr without its lines.
fn split_stats(stderr: &str) -> (Option<u64>, String) {
    let mut count = None;
    let mut rest = String::new();
    for line in stderr.split_inclusive('\n') {
        if let Some(n) = line.strip_prefix("stats: ") {
            count = n.split_whitespace().next().and_then(|n| n.parse().ok());
        }
        if !is_stats_line(line) {
            rest.push_str(line);
        }
    }
    (count, rest)
}

/// What differs for one case, or None.
fn check(dir: &Path, name: &str) -> Option<String> {
    let cmd = read(&dir.join(format!("{name}.cmd")));
    let line = cmd.lines().next().unwrap_or("");
    let args: Vec<&str> = line
        .strip_prefix("asmdbg ")
        .unwrap_or_else(|| panic!("{name}.cmd: line 1 is the asmdbg command"))
        .split_whitespace()
        .collect();
    let expected = |ext: &str| {
        read(&dir.join(format!("{name}.{ext}"))).replace("{dir}", &dir.display().to_string())
    };
    let count_file = dir.join(format!("{name}.count"));
    let want_count: Option<u64> = count_file
        .exists()
        .then(|| read(&count_file).trim().parse().expect("a count"));
    let mut command = asmdbg();
    command.current_dir(dir).args(&args);
    if want_count.is_some() {
        command.arg("--stats");
    }
    let input = dir.join(format!("{name}.in"));
    command.stdin(if input.exists() {
        Stdio::from(std::fs::File::open(&input).expect("input"))
    } else {
        Stdio::null()
    });
    let out = command.output().expect("asmdbg runs");
    let (count, stderr) = split_stats(&text(&out.stderr));
    let mut problems = Vec::new();
    let stdout = text(&out.stdout);
    if stdout != expected("stdout") {
        problems.push(format!(
            "stdout {stdout:?}\n   reference {:?}",
            expected("stdout")
        ));
    }
    if stderr != expected("stderr") {
        problems.push(format!(
            "stderr {stderr:?}\n   reference {:?}",
            expected("stderr")
        ));
    }
    let status = out.status.code().map_or("signal".into(), |c| c.to_string());
    if status != expected("status").trim() {
        problems.push(format!(
            "status {status}, reference {}",
            expected("status").trim()
        ));
    }
    if want_count.is_some() && count != want_count {
        problems.push(format!("{count:?} instructions, reference {want_count:?}"));
    }
    (!problems.is_empty()).then(|| format!("{name} ({line}):\n  {}", problems.join("\n  ")))
}

/// Checks every case of a tool's folder; fails naming each case that differs.
fn all_cases_match(tool: &str) {
    let dir = folder(tool);
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            e.file_name()
                .to_str()
                .and_then(|n| n.strip_suffix(".cmd"))
                .map(String::from)
        })
        .collect();
    names.sort();
    assert!(!names.is_empty(), "no cases in {}", dir.display());
    for name in &names {
        for ext in ["stdout", "stderr", "status"] {
            assert!(
                dir.join(format!("{name}.{ext}")).exists(),
                "{tool}/{name}: no recorded {ext} (tests/reference/record)"
            );
        }
    }
    let failures: Vec<String> = names.iter().filter_map(|n| check(&dir, n)).collect();
    assert!(
        failures.is_empty(),
        "{} of {} {tool} cases differ from the reference:\n{}",
        failures.len(),
        names.len(),
        failures.join("\n")
    );
}

#[test]
fn mips_runs_as_mars_4_5_printed() {
    all_cases_match("mars");
}

#[test]
fn lc3_under_profile_lc3tools_runs_as_lc3tools_printed() {
    all_cases_match("lc3tools");
}

#[test]
fn simplerisc_runs_as_the_course_interpreter_printed() {
    all_cases_match("simplerisc");
}

#[test]
fn lc3_under_profile_pennsim_runs_as_pennsim_1_2_5() {
    all_cases_match("pennsim");
}
