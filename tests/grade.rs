//! `asmdbg test`: every kind of check passing on a right program and failing, with a message
//! a student can act on, on a wrong one; submissions found in folders; one submission's
//! assembly error, endless loop or flood of output costing it that case only; the sandbox;
//! the result files (JUnit against its schema, Gradescope's fields, JSON); `--case --debug`.

mod support;

use std::path::Path;

use asmdbg_testsupport::require_tool;
use serde_json::Value;
use support::{asmdbg_in, text, Scratch};

/// Reads two digits as keys, prints their sum's digit, keeps it in SUM, and counts turns in
/// TURN (written once per key), then halts.
const ADDER: &str = "\
        .ORIG x3000
        AND R3, R3, #0
        GETC
        LD R1, MINUS0
        ADD R2, R0, R1
        ST R3, TURN
        ADD R3, R3, #1
        GETC
        ADD R0, R0, R1
        ADD R2, R2, R0
        ST R3, TURN
        ST R2, SUM
DONE    ADD R0, R2, #0
        LD R1, PLUS0
        ADD R0, R0, R1
        OUT
        HALT
MINUS0  .FILL #-48
PLUS0   .FILL #48
SUM     .FILL 0
TURN    .FILL 0
PAD     .FILL 0
        .END
";

fn spec(body: &str) -> String {
    format!("[program]\nfiles = [\"adder.asm\"]\nmax_steps = 100000\n{body}")
}

fn json(path: &Path) -> Value {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{e}"))
}

/// The failures of each case in a JSON result, by case name.
fn failures(result: &Value) -> Vec<(String, Vec<String>)> {
    result["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| {
            let list = c["failures"]
                .as_array()
                .expect("failures")
                .iter()
                .map(|f| f.as_str().unwrap_or_default().to_string())
                .collect();
            (c["name"].as_str().unwrap_or_default().to_string(), list)
        })
        .collect()
}

#[test]
fn each_check_passes_on_the_right_program_and_names_what_is_wrong_otherwise() {
    let checks = spec(
        r#"
[[case]]
name = "output"
input = "34"
[case.expect]
output = "7\n----- Halting the processor ----- \n"
output_normalized = "7\n----- Halting   the processor -----\n\n"
output_contains = ["7"]
output_regex = "^7"
exit = "normal"
memory = { SUM = 7, "SUM..SUM+2" = [7, 1] , "TURN" = 1 }
registers = { R2 = 7, r3 = 1 }
instructions = { min = 10, max = 500 }

[[case.watch]]
at = "TURN"
writes = [0, 1]
write_count = { min = 2, max = 2 }

[[case.watch]]
at = "SUM"
guard = 1

[[case.hit]]
label = "DONE"
register = "R2"
values = [7]

[[case]]
name = "waits"
input = "3"
[case.expect]
exit = "waits-for-input"
"#,
    );
    let dir = Scratch::with_files(&[("adder.asm", ADDER), ("spec.toml", &checks)]);
    let out = asmdbg_in(dir.path(), &["test", "spec.toml", "--json", "r.json"]);
    let table = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{table}{}", text(&out.stderr));
    let result = &json(&dir.path().join("r.json"))[0];
    let got = failures(result);
    // The program is right except for the guard: TURN lies just after SUM and is written.
    assert_eq!(got[1], ("waits".to_string(), vec![]), "{table}");
    assert_eq!(got[0].0, "output");
    assert_eq!(
        got[0].1,
        ["a write at x3013 (TURN) lands outside SUM (2 such writes)"],
        "{table}"
    );
    assert!(
        table.contains("  FAIL  output (0/1): ended normally after"),
        "{table}"
    );
    assert!(table.contains("  pass  waits (1/1): waits for input and none is left"));
}

#[test]
fn a_wrong_program_fails_every_check_with_its_reason() {
    let wrong = ADDER
        .replace("ADD R2, R2, R0", "ADD R2, R2, R2")
        .replace("ADD R3, R3, #1", "ADD R3, R3, #2");
    let checks = spec(
        r#"
[[case]]
name = "all"
input = "34"
[case.expect]
output = "7\n"
output_normalized = "7"
output_contains = ["7"]
output_regex = "^7"
exit = "fault"
memory = { SUM = 7, "SUM[0..2]" = [7, 1] }
registers = { R2 = 7 }
instructions = { max = 5 }
[[case.watch]]
at = "TURN"
writes = [0, 1]
write_count = { max = 1 }
[[case.hit]]
label = "DONE"
register = "R2"
values = [7]
"#,
    );
    let dir = Scratch::with_files(&[("adder.asm", &wrong), ("spec.toml", &checks)]);
    let out = asmdbg_in(dir.path(), &["test", "spec.toml", "--json", "r.json"]);
    assert_eq!(out.status.code(), Some(1));
    let got = failures(&json(&dir.path().join("r.json"))[0]);
    let reasons = got[0].1.join("\n");
    for says in [
        "output differs at line 1: expected \"7\", got \"6\"",
        "output (normalised) differs at line 1",
        "the output does not contain \"7\"",
        "the output does not match /^7/",
        "the program should have faulted but ended normally",
        "memory SUM: word 0 (x3012) is 6 where 7 is expected",
        "memory SUM[0..2]: word 1 (x3013) is 2 where 1 is expected",
        "register R2 is 6 where 7 is expected",
        "instructions ran: at most 5 expected",
        "writes to TURN: [0, 2] where [0, 1] is expected",
        "2 writes to TURN: at most 1 expected",
        "R2 at each arrival at DONE: [6] where [7] is expected",
    ] {
        assert!(reasons.contains(says), "{says}\n---\n{reasons}");
    }
}

#[test]
fn submissions_are_folders_and_one_costs_only_its_own_cases() {
    let checks = spec(
        r#"
[[case]]
name = "sum"
points = 2
input = "34"
[case.expect]
memory = { SUM = 7 }
exit = "normal"

[[case]]
name = "hidden sum"
visibility = "hidden"
input = "11"
[case.expect]
memory = { SUM = 2 }
"#,
    );
    let endless = ADDER.replace("DONE    ADD R0, R2, #0", "DONE    BRnzp DONE");
    let broken = ADDER.replace("ADD R2, R2, R0", "ADD R2, R2, R9");
    let dir = Scratch::with_files(&[
        ("spec.toml", &checks),
        ("class/alice/adder.asm", ADDER),
        ("class/bob/adder.asm", &broken),
        ("class/carol/adder.asm", &endless),
        ("class/erin/notes.txt", "no program here"),
    ]);
    let out = asmdbg_in(
        dir.path(),
        &[
            "test",
            "spec.toml",
            "class",
            "--json",
            "r.json",
            "--jobs",
            "2",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let results = json(&dir.path().join("r.json"));
    let names: Vec<&str> = results
        .as_array()
        .expect("array")
        .iter()
        .map(|r| r["submission"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(names, ["alice", "bob", "carol", "erin"]);
    let score = |i: usize| results[i]["score"].as_f64().expect("score");
    assert_eq!(score(0), 3.0);
    for (i, name) in names.iter().enumerate().skip(1) {
        assert_eq!(score(i), 0.0, "{name}");
    }
    let reason = |i: usize| failures(&results[i])[0].1.join("\n");
    assert!(reason(1).contains("adder.asm:10:"), "{}", reason(1));
    assert!(
        reason(2).contains("ran into the step limit"),
        "{}",
        reason(2)
    );
    assert_eq!(
        reason(3),
        "the submission has no adder.asm; it holds notes.txt",
        "a folder without the program is a submission that gets its reason"
    );
    assert_eq!(results[0]["cases"][1]["hidden"], true);
}

#[test]
fn a_flood_of_output_is_cut_off() {
    let flood = ADDER.replace("DONE    ADD R0, R2, #0", "DONE    OUT\n        BRnzp DONE");
    let checks = "[program]\nfiles = [\"adder.asm\"]\nmax_steps = 100000000\n\
                  [[case]]\nname = \"f\"\ninput = \"34\"\n";
    let dir = Scratch::with_files(&[("adder.asm", &flood), ("spec.toml", checks)]);
    let out = asmdbg_in(dir.path(), &["test", "spec.toml"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stdout).contains("the program printed more than 1048576 bytes"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn time_limits_hold_an_endless_program() {
    let endless = ADDER.replace("DONE    ADD R0, R2, #0", "DONE    BRnzp DONE");
    let checks = "[program]\nfiles = [\"adder.asm\"]\nmax_steps = 100000000000\ntime_limit = 0.3\n\
                  [[case]]\nname = \"t\"\ninput = \"34\"\n";
    let dir = Scratch::with_files(&[("adder.asm", &endless), ("spec.toml", checks)]);
    let started = std::time::Instant::now();
    let out = asmdbg_in(dir.path(), &["test", "spec.toml"]);
    assert!(started.elapsed().as_secs() < 20);
    assert!(
        text(&out.stdout).contains("ran out of time"),
        "{}",
        text(&out.stdout)
    );
}

/// A MIPS submission that reads /etc/passwd, writes a file, and sleeps ten seconds.
const SNOOP: &str = r#"
        .data
passwd: .asciiz "/etc/passwd"
up:     .asciiz "../../../../../../../../etc/passwd"
mine:   .asciiz "notes.txt"
buf:    .space 64
        .text
        la $a0, passwd
        li $a1, 0
        li $v0, 13
        syscall
        move $a0, $v0
        li $v0, 1
        syscall
        la $a0, up
        li $a1, 0
        li $v0, 13
        syscall
        move $a0, $v0
        li $v0, 1
        syscall
        la $a0, mine
        li $a1, 1
        li $v0, 13
        syscall
        move $a0, $v0
        la $a1, passwd
        li $a2, 4
        li $v0, 15
        syscall
        li $a0, 10000
        li $v0, 32
        syscall
        li $v0, 10
        syscall
"#;

#[test]
fn a_submission_reaches_nothing_of_the_host() {
    let checks = "[program]\nfiles = [\"snoop.asm\"]\n[[case]]\nname = \"s\"\n\
                  [case.expect]\noutput = \"-1-1\"\nexit = \"normal\"\n";
    let dir = Scratch::with_files(&[("sub/snoop.asm", SNOOP), ("spec.toml", checks)]);
    let started = std::time::Instant::now();
    let out = asmdbg_in(dir.path(), &["test", "spec.toml", "sub"]);
    assert!(
        out.status.success(),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(started.elapsed().as_secs() < 8, "the sleep did not sleep");
    // The file it wrote went to the case's own folder, which is gone.
    assert!(!dir.path().join("sub/notes.txt").exists());
    assert!(!dir.path().join("notes.txt").exists());
}

#[test]
fn junit_follows_its_schema_and_gradescope_has_its_fields() {
    let checks = spec(
        "[[case]]\nname = \"a <&> \\\"q\\\"\"\ninput = \"34\"\n[case.expect]\nmemory = { SUM = 7 }\n\
         [[case]]\nname = \"b\"\npoints = 2.5\nvisibility = \"hidden\"\ninput = \"34\"\n[case.expect]\nmemory = { SUM = 8 }\n",
    );
    let dir = Scratch::with_files(&[("adder.asm", ADDER), ("spec.toml", &checks)]);
    let out = asmdbg_in(
        dir.path(),
        &[
            "test",
            "spec.toml",
            "--junit",
            "j.xml",
            "--gradescope",
            "g.json",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let gs = json(&dir.path().join("g.json"));
    assert_eq!(gs["score"], 1.0);
    let tests = gs["tests"].as_array().expect("tests");
    assert_eq!(tests.len(), 2);
    for test in tests {
        for field in ["name", "score", "max_score", "output", "visibility"] {
            assert!(test.get(field).is_some(), "{field} in {test}");
        }
    }
    assert_eq!(tests[1]["max_score"], 2.5);
    assert_eq!(tests[1]["score"], 0.0);
    assert_eq!(tests[1]["visibility"], "after_published");
    assert!(tests[1]["output"]
        .as_str()
        .unwrap_or_default()
        .contains("memory SUM: word 0 (x3012) is 7 where 8 is expected"));
    let xml = std::fs::read_to_string(dir.path().join("j.xml")).expect("junit");
    assert!(
        xml.contains("<testcase name=\"a &lt;&amp;&gt; &quot;q&quot;\""),
        "{xml}"
    );
    if require_tool("xmllint") {
        let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/grading/junit.xsd");
        let check = std::process::Command::new("xmllint")
            .arg("--noout")
            .arg("--schema")
            .arg(&schema)
            .arg(dir.path().join("j.xml"))
            .output()
            .expect("xmllint runs");
        assert!(check.status.success(), "{}", text(&check.stderr));
    }
    // Gradescope takes one submission's results.
    let two = Scratch::with_files(&[
        ("spec.toml", &checks),
        ("c/x/adder.asm", ADDER),
        ("c/y/adder.asm", ADDER),
    ]);
    let out = asmdbg_in(
        two.path(),
        &["test", "spec.toml", "c/x", "c/y", "--gradescope", "g.json"],
    );
    assert_eq!(out.status.code(), Some(2), "a usage error");
    assert!(
        text(&out.stderr)
            .contains("--gradescope writes one submission's results; 2 submissions are named"),
        "{}",
        text(&out.stderr)
    );
    assert!(out.stdout.is_empty(), "refused before grading");
}

#[test]
fn a_reference_program_and_a_frame_are_compared() {
    let paint = ".ORIG x3000\nLD R1, VIDEO\nLD R2, RED\nSTR R2, R1, #0\nHALT\nVIDEO .FILL xC000\nRED .FILL x7C00\n.END\n";
    let checks = "[program]\nfiles = [\"p.asm\"]\ndisplay = true\nreference = \"ref/p.asm\"\n\
                  [[case]]\nname = \"f\"\n[case.expect]\nframe = \"f.png\"\noutput_matches_reference = true\n";
    let dir = Scratch::with_files(&[
        ("p.asm", paint),
        ("ref/p.asm", &paint.replace("HALT", "OUT\nHALT")),
        ("spec.toml", checks),
    ]);
    let png = asmdbg_in(
        dir.path(),
        &["run", "p.asm", "--display", "--display-png", "f.png"],
    );
    assert!(png.status.success());
    let out = asmdbg_in(dir.path(), &["test", "spec.toml", "--json", "r.json"]);
    let got = failures(&json(&dir.path().join("r.json"))[0]);
    assert_eq!(got[0].1.len(), 1, "{:?}", got);
    assert!(
        got[0].1[0].starts_with("output (reference) differs at line 1"),
        "{:?}",
        got
    );
    // The frame matched; now a different one.
    let blue = Scratch::with_files(&[
        ("p.asm", &paint.replace("x7C00", "x001F")),
        ("ref/p.asm", paint),
        ("spec.toml", checks),
    ]);
    std::fs::copy(dir.path().join("f.png"), blue.path().join("f.png")).expect("copy");
    let out2 = asmdbg_in(blue.path(), &["test", "spec.toml", "--json", "r.json"]);
    let got = failures(&json(&blue.path().join("r.json"))[0]);
    assert!(
        got[0]
            .1
            .contains(&"the last frame differs in 4 pixels".to_string()),
        "{got:?}"
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(out2.status.code(), Some(1));
}

#[test]
fn bad_specs_and_case_debugging() {
    let dir = Scratch::with_files(&[
        ("adder.asm", ADDER),
        ("bad.toml", "[program]\nfiles = [\"adder.asm\"]\n[[case]]\nname = \"x\"\nimput = \"1\"\n"),
        ("spec.toml", &spec("[[case]]\nname = \"one\"\ninput = \"34\"\npoke = [\"SUM=5\"]\nkeys = [[100, \"a\"]]\n")),
    ]);
    let out = asmdbg_in(dir.path(), &["test", "bad.toml"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("bad.toml: "),
        "{}",
        text(&out.stderr)
    );
    assert!(text(&out.stderr).contains("unknown field `imput`"));
    let out = asmdbg_in(dir.path(), &["test", "spec.toml", "--case", "nope"]);
    assert!(text(&out.stderr).contains("no case named 'nope'"));
    let out = asmdbg_in(
        dir.path(),
        &["test", "spec.toml", "--case", "one", "--debug"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    assert!(shown.contains("asmdbg debug "), "{shown}");
    assert!(shown.contains("--poke=SUM=5"), "{shown}");
    assert!(shown.contains("--keys="), "{shown}");
    let launch: Value =
        serde_json::from_str(&shown[shown.find('{').expect("json")..]).expect("launch json");
    assert_eq!(launch["type"], "asmdbg");
    let input = launch["input"].as_str().expect("input file");
    assert_eq!(std::fs::read_to_string(input).ok().as_deref(), Some("34"));
}

/// Cases that share a machine run the part before the first input once: each still gets that
/// part's output and instructions, then its own input.
#[test]
fn cases_share_the_run_before_input_and_part_where_it_differs() {
    let echo = ".ORIG x3000\nLEA R0, ASK\nPUTS\nGETC\nOUT\nHALT\nASK .STRINGZ \"key? \"\n.END\n";
    let case = |name: &str, key: &str| {
        format!(
            "[[case]]\nname = \"{name}\"\ninput = \"{key}\"\n[case.expect]\noutput_contains = [\"key? {key}\"]\ninstructions = {{ min = 30 }}\n"
        )
    };
    let checks = format!(
        "[program]\nfiles = [\"echo.asm\"]\n{}{}{}",
        case("a", "a"),
        case("b", "b"),
        case("c", "c")
    );
    let dir = Scratch::with_files(&[("echo.asm", echo), ("spec.toml", &checks)]);
    let out = asmdbg_in(dir.path(), &["test", "spec.toml"]);
    assert!(out.status.success(), "{}", text(&out.stdout));
    // Same instructions for each: the prefix counts in every case.
    let table = text(&out.stdout);
    let counts: Vec<&str> = table
        .lines()
        .filter_map(|l| l.split("after ").nth(1))
        .collect();
    assert_eq!(counts.len(), 3);
    assert!(counts.iter().all(|c| *c == counts[0]), "{counts:?}");
}

/// A MIPS program's bytes and halfwords, writes that change a value, and a guard on one side.
#[test]
fn widths_changes_and_one_sided_guards() {
    let src = r#"
        .data
before: .word 0
board:  .word 0, 0
after:  .word 0
        .text
        li $t0, 5
        sw $t0, before
        la $t1, board
        sb $t0, 1($t1)
        li $t2, 0x1234
        sh $t2, 6($t1)
        li $t3, 0x500
        sw $t3, 0($t1)        # the same value again
        li $v0, 10
        syscall
"#;
    let checks = r#"[program]
files = ["b.asm"]
[[case]]
name = "c"
[case.expect]
memory = { "board+1:byte" = 5, "board+6:half" = 0x1234, "board+4:half" = 0, "board:byte" = 0 }
[[case.watch]]
at = "board..board+8"
guard_after = 4
guard_before = 0
changes_only = true
writes = [1280, 305397760]
"#;
    let dir = Scratch::with_files(&[("b.asm", src), ("spec.toml", checks)]);
    let out = asmdbg_in(dir.path(), &["test", "spec.toml", "--json", "r.json"]);
    let got = failures(&json(&dir.path().join("r.json"))[0]);
    assert!(out.status.success(), "{got:?}");
    // Guarded before too: the write to `before` is a stray.
    let both = checks.replace("guard_before = 0", "guard_before = 4");
    std::fs::write(dir.path().join("spec.toml"), both).expect("spec");
    asmdbg_in(dir.path(), &["test", "spec.toml", "--json", "r.json"]);
    let got = failures(&json(&dir.path().join("r.json"))[0]);
    assert_eq!(
        got[0].1,
        ["a write at 0x10010000 (before) lands outside board..board+8 (1 such write)"]
    );
}

#[test]
fn normalised_output_from_a_file_may_ignore_case_and_punctuation() {
    let checks = spec(
        "[[case]]\nname = \"n\"\ninput = \"34\"\n[case.expect]\noutput_normalized_file = \"want.txt\"\nignore_case = true\nignore_punctuation = true\n",
    );
    let dir = Scratch::with_files(&[
        ("adder.asm", ADDER),
        ("spec.toml", &checks),
        ("want.txt", "7\r\n  HALTING THE PROCESSOR\n"),
    ]);
    let out = asmdbg_in(dir.path(), &["test", "spec.toml"]);
    assert!(out.status.success(), "{}", text(&out.stdout));
}

#[test]
fn usage_errors_exit_2_before_anything_is_graded() {
    let checks =
        spec("[[case]]\nname = \"sum\"\ninput = \"34\"\n[case.expect]\nexit = \"normal\"\n");
    let dir = Scratch::with_files(&[("spec.toml", &checks), ("adder.asm", ADDER)]);
    for (args, says) in [
        (
            vec!["test", "spec.toml", "--junit", "no/such/folder/j.xml"],
            "cannot write no/such/folder/j.xml: there is no folder no/such/folder",
        ),
        (
            vec!["test", "spec.toml", "--json", "missing/r.json"],
            "cannot write missing/r.json",
        ),
        (
            vec!["test", "spec.toml", "nobody"],
            "nobody: no such folder; name a submission's folder or a folder of submissions",
        ),
        (
            vec!["test", "spec.toml", "adder.asm"],
            "adder.asm: not a folder",
        ),
        (vec!["test", "nospec.toml"], "nospec.toml: "),
        (
            vec!["test", "spec.toml", "--case", "nope"],
            "no case named 'nope'",
        ),
    ] {
        let out = asmdbg_in(dir.path(), &args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(
            text(&out.stderr).contains(says),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(out.stdout.is_empty(), "{args:?}: nothing graded");
    }
}

#[test]
fn a_check_on_a_label_the_program_lacks_fails_alone() {
    let checks = spec(
        r#"
[[case]]
name = "sum"
input = "34"
[case.expect]
output = "8\n----- Halting the processor ----- \n"
memory = { TOTAL = 7 }
[[case.watch]]
at = "COUNTER"
writes = [1]
[[case.hit]]
label = "NOWHERE"
register = "R0"
values = [1]
[[case.watch]]
at = "SUM"
writes = [7]
"#,
    );
    let dir = Scratch::with_files(&[("spec.toml", &checks), ("adder.asm", ADDER)]);
    let out = asmdbg_in(dir.path(), &["test", "spec.toml", "--json", "r.json"]);
    assert_eq!(out.status.code(), Some(1));
    let got = failures(&json(&dir.path().join("r.json"))[0]);
    assert_eq!(
        got[0].1,
        [
            "output differs at line 1: expected \"8\", got \"7\"",
            "memory TOTAL: 'TOTAL' is not an address or a label of the program",
            "watch COUNTER: 'COUNTER' is not an address or a label of the program",
            "hit NOWHERE: 'NOWHERE' is not an address or a label of the program",
        ],
        "the run happened; the SUM watch passed"
    );
}

/// A MIPS program that reads a data file the case provides, writes its own file, and ends with
/// the exit code it read from the input.
const FILES_PROGRAM: &str = r#"
        .data
inname: .asciiz "in.txt"
outname: .asciiz "out.txt"
buf:    .space 16
        .text
        la $a0, inname
        li $a1, 0
        li $v0, 13
        syscall
        move $a0, $v0
        la $a1, buf
        li $a2, 16
        li $v0, 14
        syscall
        move $s1, $v0           # bytes read (-1 without the file)
        la $a0, outname
        li $a1, 1
        li $v0, 13
        syscall
        move $a0, $v0
        la $a1, buf
        move $a2, $s1
        li $v0, 15
        syscall
        li $v0, 5
        syscall
        move $a0, $v0
        li $v0, 17
        syscall
"#;

#[test]
fn data_files_written_files_and_exit_codes_are_checked() {
    let checks = r#"[program]
files = ["f.asm"]
[[case]]
name = "copies"
input = "3\n"
data_files = { "in.txt" = "data/one.txt" }
[case.expect]
exit_code = 3
files = { "out.txt" = "first" }
[[case]]
name = "copies the other"
input = "0\n"
data_files = { "in.txt" = "data/two.txt" }
[case.expect]
exit_code = 0
files_from = { "out.txt" = "data/two.txt" }
[[case]]
name = "wrong"
input = "4\n"
data_files = { "in.txt" = "data/one.txt" }
[case.expect]
exit_code = 3
files = { "out.txt" = "second", "log.txt" = "" }
"#;
    let dir = Scratch::with_files(&[
        ("spec.toml", checks),
        ("f.asm", FILES_PROGRAM),
        ("data/one.txt", "first"),
        ("data/two.txt", "second"),
    ]);
    for shared in [true, false] {
        let mut args = vec!["test", "spec.toml", "--json", "r.json"];
        if !shared {
            args.push("--no-shared-prefix");
        }
        let out = asmdbg_in(dir.path(), &args);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
        let got = failures(&json(&dir.path().join("r.json"))[0]);
        assert_eq!(got[0].1, Vec::<String>::new(), "{shared}");
        assert_eq!(got[1].1, Vec::<String>::new(), "{shared}");
        assert_eq!(
            got[2].1,
            [
                "the program ended with exit code 4 where 3 is expected",
                "the program did not write the file log.txt",
                "the file out.txt differs at line 1: expected \"second\", got \"first\"",
            ],
            "{shared}"
        );
    }
}

/// Under the debugger (`asmdbg test --case NAME --debug`) the case's folder holds its data
/// files.
#[test]
fn a_debugged_case_has_its_data_files_in_its_folder() {
    let checks = r#"[program]
files = ["f.asm"]
[[case]]
name = "copies"
input = "3\n"
data_files = { "in.txt" = "data/one.txt" }
[case.expect]
exit_code = 3
"#;
    let dir = Scratch::with_files(&[
        ("spec.toml", checks),
        ("f.asm", FILES_PROGRAM),
        ("data/one.txt", "first"),
    ]);
    let out = asmdbg_in(
        dir.path(),
        &["test", "spec.toml", "--case", "copies", "--debug"],
    );
    let shown = text(&out.stdout);
    let files = shown
        .split_whitespace()
        .find_map(|w| w.strip_prefix("--files="))
        .unwrap_or_else(|| panic!("{shown}"));
    assert_eq!(
        std::fs::read_to_string(Path::new(files).join("in.txt"))
            .ok()
            .as_deref(),
        Some("first")
    );
}

#[test]
fn mips_dialogs_go_where_the_spec_says() {
    let src = r#"
        .data
ask:    .asciiz "How many? "
        .text
        la $a0, ask
        li $v0, 51
        syscall
        move $a0, $a0
        li $v0, 1
        syscall
        li $v0, 10
        syscall
"#;
    // The dialog shows its message and echoes the answer (MARS's console form); on stderr
    // only the program's own output is left on the console.
    for (dialogs, output) in [("console", "How many?  7\\n7"), ("stderr", "7")] {
        let checks = format!(
            "[program]\nfiles = [\"d.asm\"]\ndialogs = \"{dialogs}\"\n[[case]]\nname = \"d\"\ninput = \"7\\n\"\n[case.expect]\noutput = \"{output}\"\n"
        );
        let dir = Scratch::with_files(&[("spec.toml", &checks), ("d.asm", src)]);
        let out = asmdbg_in(dir.path(), &["test", "spec.toml"]);
        assert!(out.status.success(), "{dialogs}: {}", text(&out.stdout));
    }
}
