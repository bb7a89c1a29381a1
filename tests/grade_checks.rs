//! `asmdbg test` with `checks = [...]` in a case's expect: each warning of those debugging
//! checks fails the case, named in the feedback as `asmdbg run --checks` prints it; checks the
//! case does not name are not run.

mod support;

use std::path::Path;

use serde_json::Value;
use support::{asmdbg_in, Scratch};

/// Reads a digit key and prints the digit after it (a subroutine adds one, keeping R1 as the
/// textbook says: saved on entry, restored before RET).
const NEXT_DIGIT: &str = "\
        .ORIG x3000
        AND R3, R3, #0
        GETC
        AND R1, R1, #0
        JSR PLUS_ONE
        ADD R3, R3, R1
        OUT
        HALT
PLUS_ONE
        ST R1, SAVE_R1
        AND R1, R1, #0
        ADD R1, R1, #1
        ADD R0, R0, R1
        LD R1, SAVE_R1
        RET
SAVE_R1 .BLKW 1
        .END
";

const SPEC: &str = r#"[program]
files = ["next.asm"]
max_steps = 10000

[[case]]
name = "clean"
input = "3"
[case.expect]
output_contains = ["4"]
checks = ["uninitialised", "callee-saved", "return-address", "stack", "code-as-data"]

[[case]]
name = "only the stack"
input = "3"
[case.expect]
output_contains = ["4"]
checks = ["stack"]
"#;

fn failures(path: &Path) -> Vec<(String, Vec<String>)> {
    let result: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    result[0]["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| {
            let list = c["failures"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f.as_str().unwrap().to_string())
                .collect();
            (c["name"].as_str().unwrap().to_string(), list)
        })
        .collect()
}

#[test]
fn a_clean_program_passes_its_checks() {
    let dir = Scratch::with_files(&[("next.asm", NEXT_DIGIT), ("spec.toml", SPEC)]);
    let out = asmdbg_in(dir.path(), &["test", "spec.toml", "--json", "r.json"]);
    let got = failures(&dir.path().join("r.json"));
    assert_eq!(out.status.code(), Some(0), "{got:?}");
    assert!(got.iter().all(|(_, f)| f.is_empty()), "{got:?}");
}

#[test]
fn each_warning_of_a_named_check_fails_the_case() {
    // R3 never cleared, and R1 not restored (the LD dropped): two checks broken.
    let wrong = NEXT_DIGIT
        .replace("        AND R3, R3, #0\n", "        ADD R2, R2, #0\n")
        .replace("        LD R1, SAVE_R1\n", "");
    let dir = Scratch::with_files(&[("next.asm", &wrong), ("spec.toml", SPEC)]);
    let out = asmdbg_in(dir.path(), &["test", "spec.toml", "--json", "r.json"]);
    assert_eq!(out.status.code(), Some(1));
    let got = failures(&dir.path().join("r.json"));
    assert_eq!(got[0].0, "clean");
    let reasons = got[0].1.join("\n");
    assert!(
        reasons.contains(
            "next.asm:2:9: warning[uninitialised]: R2 is read before anything was written to it"
        ),
        "{reasons}"
    );
    assert!(reasons.contains("debugging check: "), "{reasons}");
    assert!(
        reasons.contains("next.asm:14:9: warning[callee-saved]: PLUS_ONE returns with R1 changed"),
        "{reasons}"
    );
    // Not named in the second case: its checks pass.
    assert_eq!(got[1], ("only the stack".to_string(), Vec::new()));
}

#[test]
fn an_unknown_check_is_a_spec_error() {
    let spec = SPEC.replace("checks = [\"stack\"]", "checks = [\"stak\"]");
    let dir = Scratch::with_files(&[("next.asm", NEXT_DIGIT), ("spec.toml", &spec)]);
    let out = asmdbg_in(dir.path(), &["test", "spec.toml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("unknown check 'stak'"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
