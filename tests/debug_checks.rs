//! The debugging checks (`asmdbg run --checks`), through the built binary:
//!
//! - the corpus tests/checks/<isa>/*.asm: small programs, each with the warnings it must get
//!   written inline as `expect: warning[NAME]` comments on the lines the warnings must name
//!   (`clean.asm` files expect none); every file's warnings must be exactly those;
//! - every program in programs/ (the games with their scripted inputs and keys, the graphics
//!   games, the interrupt lab, the benchmarks) and the reference probes must get no warning:
//!   false positives are as bad as misses;
//! - `--checks=LIST`, `--checks=deny`, a bad list, and checks off leaving stderr alone.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn asmdbg(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_asmdbg"))
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("asmdbg runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The `warning[...]` lines of a run's stderr.
fn warnings(output: &Output) -> Vec<String> {
    text(&output.stderr)
        .lines()
        .filter(|l| l.contains(": warning[") && !l.contains(": warning: "))
        .map(str::to_string)
        .collect()
}

/// `(line, check)` of a warning line `FILE:LINE:COL: warning[CHECK]: ...` about `file`.
fn site(line: &str, file: &str) -> (u32, String) {
    let rest = line
        .strip_prefix(&format!("{file}:"))
        .unwrap_or_else(|| panic!("`{line}` does not start with {file}:"));
    let mut parts = rest.splitn(3, ':');
    let number: u32 = parts.next().unwrap().parse().expect("a line number");
    let column: u32 = parts.next().unwrap().parse().expect("a column");
    assert!(column >= 1, "{line}");
    let tail = parts.next().unwrap();
    let kind = tail
        .strip_prefix(" warning[")
        .and_then(|t| t.split_once("]: "))
        .unwrap_or_else(|| panic!("`{line}`: no ` warning[NAME]: `"))
        .0;
    (number, kind.to_string())
}

/// The `expect: warning[NAME]` comments of a corpus file, as `(line, NAME)`.
fn expected(path: &Path) -> Vec<(u32, String)> {
    let source = std::fs::read_to_string(path).expect("corpus file");
    let mut sites = Vec::new();
    for (i, line) in source.lines().enumerate() {
        if let Some((_, after)) = line.split_once("expect: warning[") {
            let name = after.split(']').next().unwrap();
            sites.push((i as u32 + 1, name.to_string()));
        }
    }
    sites
}

fn corpus(isa: &str) {
    let dir = root().join("tests/checks");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join(isa))
        .expect("tests/checks/<isa>")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "asm"))
        .collect();
    files.sort();
    assert!(files.len() >= 4, "{isa}: {files:?}");
    for path in files {
        let name = format!("{isa}/{}", path.file_name().unwrap().to_string_lossy());
        let output = asmdbg(&dir, &["run", "--checks", "--max-steps", "100000", &name]);
        let mut got: Vec<(u32, String)> =
            warnings(&output).iter().map(|l| site(l, &name)).collect();
        let mut want = expected(&path);
        got.sort();
        want.sort();
        assert_eq!(
            got,
            want,
            "{name}: warnings differ\n--- stderr ---\n{}",
            text(&output.stderr)
        );
        if name.ends_with("clean.asm") {
            assert!(want.is_empty() && output.status.success(), "{name}");
        }
    }
}

#[test]
fn lc3_corpus_gets_exactly_its_warnings() {
    corpus("lc3");
}

#[test]
fn mips_corpus_gets_exactly_its_warnings() {
    corpus("mips");
}

#[test]
fn simplerisc_corpus_gets_exactly_its_warnings() {
    corpus("simplerisc");
}

#[test]
fn a_warning_names_what_broke_and_the_call_that_led_there() {
    let dir = root().join("tests/checks");
    let output = asmdbg(&dir, &["run", "--checks", "mips/callee_saved.asm"]);
    assert_eq!(
        warnings(&output),
        [
            "mips/callee_saved.asm:9:9: warning[callee-saved]: f returns with $s0 changed \
          (0x0000000a at entry, 0x00000003 now) and its caller goes on using it: it is \
          callee-saved, so save it on entry and restore it before returning (in f, called from \
          main at mips/callee_saved.asm:4)"
        ]
    );
    let output = asmdbg(
        &dir,
        &[
            "run",
            "--checks",
            "--max-steps",
            "1000",
            "lc3/return_address_trap.asm",
        ],
    );
    assert_eq!(
        warnings(&output),
        [
            "lc3/return_address_trap.asm:6:9: warning[return-address]: this call overwrites R7, \
          which holds PRINT's return address and was not saved: PRINT's return at \
          lc3/return_address_trap.asm:7 goes to x3004 instead of back to \
          lc3/return_address_trap.asm:3 (in PRINT, called from lc3/return_address_trap.asm:3)"
        ]
    );
    // A site is reported once, however often it runs.
    assert_eq!(output.status.code(), Some(4));
}

#[test]
fn a_list_turns_on_only_its_checks_and_deny_makes_the_first_a_fault() {
    let dir = root().join("tests/checks");
    let output = asmdbg(&dir, &["run", "--checks=stack", "mips/stack.asm"]);
    assert_eq!(warnings(&output).len(), 2, "{}", text(&output.stderr));
    let output = asmdbg(&dir, &["run", "--checks=uninitialised", "mips/stack.asm"]);
    assert!(warnings(&output).is_empty());
    let output = asmdbg(
        &dir,
        &[
            "run",
            "--checks=callee-saved,stack",
            "lc3/uninitialised.asm",
        ],
    );
    assert!(warnings(&output).is_empty());
    assert_eq!(
        text(&output.stdout),
        "done\n----- Halting the processor ----- \n"
    );

    // deny: the first warning ends the run as an LC-3 fault does (status 1), nothing after it
    // runs (the program's "done" is never printed).
    let output = asmdbg(&dir, &["run", "--checks=deny", "lc3/uninitialised.asm"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(text(&output.stdout), "");
    assert_eq!(
        text(&output.stderr),
        "lc3/uninitialised.asm:3:9: warning[uninitialised]: R1 is read before anything was \
         written to it\n"
    );
    let output = asmdbg(
        &dir,
        &["run", "--checks=stack,deny", "lc3/uninitialised.asm"],
    );
    assert_eq!(output.status.code(), Some(0));

    let output = asmdbg(&dir, &["run", "--checks=calee-saved", "lc3/clean.asm"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("unknown check `calee-saved`"),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn checks_are_off_unless_asked_and_mips_stderr_stays_mars() {
    let dir = root().join("tests/checks");
    let output = asmdbg(&dir, &["run", "mips/callee_saved.asm"]);
    assert_eq!(text(&output.stderr), "\n");
    let output = asmdbg(&dir, &["run", "--checks", "mips/callee_saved.asm"]);
    assert!(
        text(&output.stderr).ends_with(")\n\n"),
        "{}",
        text(&output.stderr)
    );
}

/// Runs `asmdbg run --checks ARGS` from the repository root; it must get no warning.
fn clean(args: &[&str]) {
    let mut all = vec!["run", "--checks"];
    all.extend_from_slice(args);
    let output = asmdbg(&root(), &all);
    let found = warnings(&output);
    assert!(found.is_empty(), "{args:?}:\n{}", found.join("\n"));
    assert!(
        !text(&output.stderr).contains("unexpected stop"),
        "{args:?}: {}",
        text(&output.stderr)
    );
}

#[test]
fn lc3_programs_get_no_warning() {
    let scenarios = std::fs::read_dir(root().join("tests/programs/lc3")).unwrap();
    let mut played = 0;
    for entry in scenarios {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let Some(scenario) = name.strip_suffix(".in") else {
            continue;
        };
        let game = scenario.split('-').next().unwrap();
        let program = format!("programs/lc3/{game}.asm");
        if !root().join(&program).exists() {
            continue;
        }
        let input = format!("tests/programs/lc3/{name}");
        clean(&[&program, "--input", &input, "--max-steps", "50000000"]);
        clean(&[&program, "--input", &input, "--profile", "lc3tools"]);
        played += 1;
    }
    assert!(played >= 11, "{played}");
    for profile in ["patt", "lc3tools"] {
        clean(&[
            "programs/lc3/interrupts/isr.asm",
            "programs/lc3/interrupts/user_program.asm",
            "--input",
            "tests/programs/lc3/interrupts-keys.in",
            "--key-every",
            "2500",
            "--profile",
            profile,
        ]);
    }
    clean(&[
        "tests/programs/lc3/probe_bench.asm",
        "--max-steps",
        "2000000",
    ]);
    // probe_sem.asm runs two `.FILL` words on purpose (a non-canonical ADD and the reserved
    // opcode, to see what each simulator does with them): those, and nothing else, are found.
    let output = asmdbg(
        &root(),
        &["run", "--checks", "tests/programs/lc3/probe_sem.asm"],
    );
    let found = warnings(&output);
    assert!(!found.is_empty());
    assert!(
        found
            .iter()
            .all(|w| w.contains("warning[code-as-data]: executes x30")),
        "{found:?}"
    );
}

#[test]
fn lc3_graphics_games_get_no_warning() {
    clean(&[
        "programs/lc3/sketch.asm",
        "--display",
        "--keys",
        "programs/lc3/sketch.keys",
    ]);
    clean(&[
        "programs/lc3/breakout.asm",
        "--display",
        "--keys",
        "programs/lc3/breakout.keys",
    ]);
}

#[test]
fn mips_programs_get_no_warning() {
    let mut played = 0;
    for entry in std::fs::read_dir(root().join("tests/programs/mips")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".in") {
            let input = format!("tests/programs/mips/{name}");
            clean(&["programs/mips/four_in_a_row.asm", "--input", &input]);
            played += 1;
        }
    }
    assert!(played >= 9, "{played}");
    clean(&["programs/mips/bench.asm", "--max-steps", "3000000"]);
}

#[test]
fn mips_graphics_games_get_no_warning() {
    clean(&[
        "programs/mips/snake.asm",
        "--virtual-time",
        "--keys",
        "programs/mips/snake.keys",
    ]);
    clean(&[
        "programs/mips/meteors.asm",
        "--keys",
        "programs/mips/meteors.keys",
    ]);
}

#[test]
fn simplerisc_programs_get_no_warning() {
    // Boards of the grader's cases: empty, a row, a full board.
    let empty = vec!["0"; 36].join(",");
    let row = "1,1,1,0,0,0,2,2,0,0,0,0".to_string() + &",0".repeat(24);
    let full = "1,2,1,2,1,2,2,1,2,1,2,1,1,2,1,2,1,2,2,1,2,1,2,1,1,2,1,2,1,2,2,1,2,1,2,1";
    for board in [empty.as_str(), row.as_str(), full] {
        let poke = format!("1000={board}");
        clean(&[
            "programs/simplerisc/tictactoe.asm",
            "--no-mul",
            "--poke",
            &poke,
            "--peek",
            "1144",
        ]);
    }
    for probe in ["bench.asm", "encode_probe.asm"] {
        clean(&[
            &format!("tests/programs/simplerisc/{probe}"),
            "--max-steps",
            "2000000",
        ]);
    }
}

/// The reference probes (tests/reference/*/NAME.cmd: `asmdbg run ARGS` and what the reference
/// tool printed): none gets a warning, but for pennsim/undefined.asm, which executes a `.FILL`
/// on purpose to show PennSim's "Undefined instruction" (the code-as-data warning is right).
#[test]
fn reference_probes_get_no_warning() {
    let mut probes = 0;
    for tool in ["mars", "lc3tools", "pennsim", "simplerisc"] {
        let dir = root().join("tests/reference").join(tool);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if !path.extension().is_some_and(|e| e == "cmd") {
                continue;
            }
            let cmd = std::fs::read_to_string(&path).unwrap();
            let line = cmd.lines().next().unwrap_or("");
            let Some(args) = line.strip_prefix("asmdbg run ") else {
                continue;
            };
            let mut all = vec!["run", "--checks"];
            all.extend(args.split_whitespace());
            let stdin = path.with_extension("stdin");
            let mut command = Command::new(env!("CARGO_BIN_EXE_asmdbg"));
            command.current_dir(&dir).args(&all);
            command.stdin(match std::fs::File::open(&stdin) {
                Ok(file) => Stdio::from(file),
                Err(_) => Stdio::null(),
            });
            let output = command.output().expect("asmdbg runs");
            let found = warnings(&output);
            probes += 1;
            if path.ends_with("pennsim/undefined.cmd") {
                assert_eq!(found.len(), 1, "{found:?}");
                assert!(found[0].contains("warning[code-as-data]: executes x3002"));
                continue;
            }
            assert!(
                found.is_empty(),
                "{}: {line}\n{}",
                path.display(),
                found.join("\n")
            );
        }
    }
    assert!(probes >= 30, "{probes}");
}

/// `asmdbg run --checks ARGS` (in the repository root) with the fast path, then with every
/// instruction through the full checks (`ASMDBG_CHECKS_FULL_PATH=1`): the two runs must print
/// the same warnings, the same output and stop alike.
fn same_on_both_paths(args: &[&str]) -> usize {
    let run = |full: bool| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_asmdbg"));
        command
            .current_dir(root())
            .arg("run")
            .args(args)
            .stdin(Stdio::null())
            .env_remove("ASMDBG_CHECKS_FULL_PATH");
        if full {
            command.env("ASMDBG_CHECKS_FULL_PATH", "1");
        }
        command.output().expect("asmdbg runs")
    };
    let (fast, full) = (run(false), run(true));
    assert_eq!(text(&fast.stderr), text(&full.stderr), "{args:?}: stderr");
    assert_eq!(text(&fast.stdout), text(&full.stdout), "{args:?}: stdout");
    assert_eq!(fast.status.code(), full.status.code(), "{args:?}: status");
    warnings(&fast).len()
}

/// The fast path (instructions with nothing for the checks to see, run inside the
/// interpreter's loop) finds what the full checks find, instruction for instruction: on the
/// corpus (every check, deny too), and on games that load, store, call and poll a lot.
#[test]
fn the_fast_path_finds_what_the_full_checks_find() {
    let mut found = 0;
    for isa in ["lc3", "mips", "simplerisc"] {
        let dir = root().join("tests/checks").join(isa);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "asm"))
            .collect();
        files.sort();
        for file in files {
            let file = file.strip_prefix(root()).unwrap().display().to_string();
            for checks in ["--checks", "--checks=deny"] {
                // Some loop forever, as the bug they show makes them.
                found += same_on_both_paths(&[checks, "--max-steps", "100000", &file]);
            }
        }
    }
    assert!(found >= 20, "the corpus found only {found} warnings");
    same_on_both_paths(&[
        "--checks",
        "programs/lc3/connect4.asm",
        "--input",
        "tests/programs/lc3/connect4-diagonal.in",
    ]);
    same_on_both_paths(&[
        "--checks",
        "programs/lc3/dots.asm",
        "--input",
        "tests/programs/lc3/dots-game.in",
        "--profile",
        "lc3tools",
    ]);
    same_on_both_paths(&[
        "--checks",
        "programs/mips/four_in_a_row.asm",
        "--input",
        "tests/programs/mips/03_right_diagonal_win_undo.in",
    ]);
    same_on_both_paths(&[
        "--checks",
        "programs/simplerisc/tictactoe.asm",
        "--no-mul",
        "--poke",
        "1000=1,1,1,0,0,0,2,2,0,0,0,0",
        "--peek",
        "1144",
    ]);
    // A program that breaks conventions all through a game-sized run: LC-3's probe that
    // executes data, and the interrupt-driven program (interrupts go the full way).
    same_on_both_paths(&["--checks", "tests/programs/lc3/probe_sem.asm"]);
    same_on_both_paths(&[
        "--checks",
        "programs/lc3/interrupts/isr.asm",
        "programs/lc3/interrupts/user_program.asm",
        "--input",
        "tests/programs/lc3/interrupts-keys.in",
        "--key-every",
        "2500",
    ]);
}
