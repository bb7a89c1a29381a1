//! VS Code support: the shipped .vscode files fit the command line, and the gdb/MI command
//! sequence cppdbg sends (gdb-clients.md §4) works against `asmdbg debug`, replayed with
//! `gdb-multiarch --interpreter=mi2`.

mod support;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use asmdbg_testsupport::require_tool;
use support::{Scratch, Stub};

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// A task's command-line arguments.
fn task_args(task: &serde_json::Value) -> Vec<&str> {
    task["args"]
        .as_array()
        .expect("args")
        .iter()
        .filter_map(|a| a.as_str())
        .collect()
}

fn json(path: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(repo(path)).expect("read .vscode file");
    serde_json::from_str(&text).expect("valid JSON")
}

#[test]
fn launch_configurations_use_existing_tasks_programs_and_readiness_line() {
    let launch = json(".vscode/launch.json");
    let tasks = json(".vscode/tasks.json");
    let tasks = tasks["tasks"].as_array().expect("tasks");
    let configs = launch["configurations"].as_array().expect("configurations");
    let mut kinds = std::collections::BTreeSet::new();
    let mut native = std::collections::BTreeSet::new();
    for config in configs {
        if config["type"] == "asmdbg" {
            // asmdbg's own adapter: the release build first, then `asmdbg dap` on the source.
            assert_eq!(config["request"], "launch");
            assert_eq!(config["preLaunchTask"], "asmdbg: build");
            let build = tasks
                .iter()
                .find(|t| t["label"] == "asmdbg: build")
                .expect("build task");
            assert_eq!(task_args(build), ["build", "--release"]);
            assert_eq!(
                config["asmdbgPath"],
                "${workspaceFolder}/target/release/asmdbg"
            );
            let program = config["program"].as_str().expect("program");
            let program = program
                .strip_prefix("${workspaceFolder}/")
                .expect("in the workspace");
            assert!(repo(program).exists(), "{program}");
            native.insert(program.to_string());
            continue;
        }
        let task_label = config["preLaunchTask"].as_str().expect("preLaunchTask");
        let task = tasks
            .iter()
            .find(|t| t["label"] == task_label)
            .unwrap_or_else(|| panic!("task {task_label}"));
        assert_eq!(task["isBackground"], true);
        let ends = task["problemMatcher"]["background"]["endsPattern"]
            .as_str()
            .expect("endsPattern");
        assert!(ends.contains("gdb: listening on"), "{ends}");
        let args = task_args(task);
        let program = args[args.iter().position(|a| *a == "debug").expect("debug") + 1];
        assert!(repo(program).exists(), "{program}");
        let elf_key = if config["type"] == "cppdbg" {
            assert_eq!(config["MIMode"], "gdb");
            assert_eq!(config["miDebuggerPath"], "gdb-multiarch");
            assert_eq!(config["miDebuggerServerAddress"], "localhost:1234");
            assert_eq!(config["stopAtConnect"], true);
            "program"
        } else {
            assert_eq!(config["type"], "gdb");
            assert_eq!(config["request"], "attach");
            assert_eq!(config["remote"], true);
            assert_eq!(config["target"], "localhost:1234");
            "executable"
        };
        let elf = config[elf_key].as_str().expect("elf path");
        assert_eq!(
            elf,
            format!("${{workspaceFolder}}/{}", program.replace(".asm", ".elf"))
        );
        kinds.insert(format!("{}:{}", config["type"], program));
    }
    assert_eq!(
        kinds.len(),
        6,
        "cppdbg and Native Debug for each ISA: {kinds:?}"
    );
    assert_eq!(native.len(), 3, "asmdbg for each ISA: {native:?}");
}

#[test]
fn breakpoints_can_be_set_in_the_gutter_of_asm_files() {
    // The C/C++ extension enables gutter breakpoints only for its own languages.
    let settings = json(".vscode/settings.json");
    assert_eq!(settings["debug.allowBreakpointsEverywhere"], true);
}

#[test]
fn builds_started_from_vs_code_and_the_demo_show_cargos_progress() {
    // A first build takes minutes; a silent one looks hung.
    let tasks = json(".vscode/tasks.json");
    for task in tasks["tasks"].as_array().expect("tasks") {
        let args = task_args(task);
        assert!(
            !args.iter().any(|a| matches!(*a, "-q" | "--quiet")),
            "{}: {args:?}",
            task["label"]
        );
        assert_eq!(
            task["presentation"]["reveal"], "always",
            "{}",
            task["label"]
        );
    }
    let demo = std::fs::read_to_string(repo("scripts/demo")).expect("scripts/demo");
    let builds: Vec<&str> = demo
        .lines()
        .filter(|l| l.trim_start().starts_with("cargo "))
        .collect();
    assert!(!builds.is_empty(), "scripts/demo builds asmdbg");
    for line in builds {
        assert!(
            !line.contains("-q") && !line.contains("--quiet") && !line.contains("/dev/null"),
            "scripts/demo silences cargo: {line}"
        );
    }
}

/// gdb-multiarch in MI mode, driven one command at a time like an IDE.
struct Mi {
    child: Child,
    stdin: ChildStdin,
    out: Arc<Mutex<String>>,
    mark: usize,
}

impl Mi {
    fn start(elf: &Path) -> Mi {
        let mut child = Command::new("gdb-multiarch")
            .args(["--interpreter=mi2", "-nx", "-q"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("gdb-multiarch");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let out = Arc::new(Mutex::new(String::new()));
        let sink = out.clone();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let mut s = sink.lock().expect("lock");
                s.push_str(&line);
                s.push('\n');
            }
        });
        let mut mi = Mi {
            child,
            stdin,
            out,
            mark: 0,
        };
        // What cppdbg sends first (MIEngine's launch sequence).
        mi.cmd("-interpreter-exec console \"set pagination off\"", "^done");
        mi.cmd("-gdb-set mi-async on", "^done");
        mi.cmd(
            &format!("-file-exec-and-symbols {}", elf.display()),
            "^done",
        );
        mi
    }

    /// Sends a command and waits until `expect` appears in what gdb printed since.
    fn cmd(&mut self, command: &str, expect: &str) -> String {
        writeln!(self.stdin, "{command}").expect("write to gdb");
        self.stdin.flush().expect("flush");
        self.wait(expect, command)
    }

    fn wait(&mut self, expect: &str, what: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let all = self.out.lock().expect("lock").clone();
            if let Some(i) = all[self.mark..].find(expect) {
                let end = all[self.mark + i..]
                    .find('\n')
                    .map(|n| self.mark + i + n + 1)
                    .unwrap_or(all.len());
                let got = all[self.mark..end].to_string();
                self.mark = end;
                return got;
            }
            if Instant::now() > deadline {
                panic!(
                    "{what}: no {expect:?} from gdb; output since the last command:\n{}",
                    &all[self.mark..]
                );
            }
            thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Mi {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "-gdb-exit");
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn assert_has(record: &str, parts: &[&str]) {
    for p in parts {
        assert!(record.contains(p), "expected {p:?} in:\n{record}");
    }
}

const LC3: &str = "\
        .ORIG x3000
MAIN    AND R2, R2, #0
        ADD R2, R2, #3
AGAIN   JSR TOGGLE
        ADD R2, R2, #-1
        BRp AGAIN
        HALT
TOGGLE  ST R7, SAVE7
        JSR FLIP
        LD R7, SAVE7
        RET
FLIP    LD R0, PLAYER
        NOT R0, R0
        ADD R0, R0, #4
        ST R0, PLAYER
        RET
PLAYER  .FILL #1
SAVE7   .FILL #0
        .END
";

#[test]
fn cppdbg_command_sequence_on_lc3() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let dir = Scratch::new();
    let prog = dir.write("game.asm", LC3);
    let stub = Stub::start(&prog, &["--once"]);
    let elf = prog.with_extension("elf");
    let mut mi = Mi::start(&elf);
    mi.cmd("-break-insert -f main", "^");
    mi.cmd(
        &format!("-target-select remote localhost:{}", stub.port),
        "^connected",
    );
    let bp = mi.cmd("-break-insert -f game.asm:5", "^done");
    assert_has(&bp, &["bkpt={", "line=\"5\""]);
    mi.cmd("-exec-continue", "^running");
    let hit = mi.wait("*stopped", "breakpoint");
    assert_has(
        &hit,
        &[
            "reason=\"breakpoint-hit\"",
            "file=\"",
            "game.asm\"",
            "line=\"5\"",
        ],
    );
    let frames = mi.cmd("-stack-list-frames", "^done");
    assert_has(&frames, &["func=\"MAIN\"", "line=\"5\""]);
    let names = mi.cmd("-data-list-register-names", "^done");
    assert_has(&names, &["\"R0\"", "\"R7\"", "\"PSR\"", "\"pc\""]);
    mi.cmd("-data-list-register-values x", "^done,register-values=");
    mi.cmd("-exec-next", "^running");
    assert_has(
        &mi.wait("*stopped", "next"),
        &["end-stepping-range", "line=\"6\""],
    );
    mi.cmd("-exec-next", "^running");
    assert_has(
        &mi.wait("*stopped", "next"),
        &["end-stepping-range", "line=\"4\""],
    );
    mi.cmd("-exec-step", "^running");
    assert_has(
        &mi.wait("*stopped", "step"),
        &["func=\"TOGGLE\"", "line=\"8\""],
    );
    mi.cmd("-exec-step", "^running");
    assert_has(&mi.wait("*stopped", "step"), &["line=\"9\""]);
    mi.cmd("-exec-step", "^running");
    assert_has(
        &mi.wait("*stopped", "step"),
        &["func=\"FLIP\"", "line=\"12\""],
    );
    let frames = mi.cmd("-stack-list-frames", "^done");
    assert_has(&frames, &["func=\"FLIP\"", "func=\"TOGGLE\""]);
    mi.cmd("-exec-finish", "^running");
    assert_has(
        &mi.wait("*stopped", "finish"),
        &[
            "reason=\"function-finished\"",
            "func=\"TOGGLE\"",
            "line=\"10\"",
        ],
    );
    mi.cmd("-break-delete", "^done");
    let wp = mi.cmd("-break-watch PLAYER", "^done");
    assert_has(&wp, &["wpt={", "exp=\"PLAYER\""]);
    mi.cmd("-exec-continue", "^running");
    assert_has(
        &mi.wait("*stopped", "watch"),
        &[
            "reason=\"watchpoint-trigger\"",
            "value={old=\"1\",new=\"2\"}",
            "func=\"FLIP\"",
        ],
    );
    mi.cmd("-stack-list-variables --simple-values", "^done");
    mi.cmd("-break-delete", "^done");
    mi.cmd("-exec-continue", "^running");
    // The end of history first (time travel: VS Code shows a stop there), then the end.
    assert_has(
        &mi.wait("*stopped", "end of history"),
        &["No more reverse-execution history."],
    );
    mi.cmd("-exec-continue", "^running");
    assert_has(&mi.wait("*stopped", "exit"), &["exited-normally"]);
}

const MIPS: &str = "\
        .data
player: .word 1
        .text
        .globl main
main:   li $s0, 4
again:  jal toggle
        addiu $s0, $s0, -1
        bgtz $s0, again
        li $v0, 10
        syscall
toggle: addiu $sp, $sp, -4
        sw $ra, 0($sp)
        jal flip
        lw $ra, 0($sp)
        addiu $sp, $sp, 4
        jr $ra
flip:   lw $t0, player
        li $t1, 3
        subu $t0, $t1, $t0
        sw $t0, player
        jr $ra
";

#[test]
fn cppdbg_command_sequence_on_mips() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let dir = Scratch::new();
    let prog = dir.write("game.asm", MIPS);
    let stub = Stub::start(&prog, &["--once"]);
    let elf = prog.with_extension("elf");
    let mut mi = Mi::start(&elf);
    let main_bp = mi.cmd("-break-insert -f main", "^done");
    assert_has(&main_bp, &["func=\"main\""]);
    mi.cmd(
        &format!("-target-select remote localhost:{}", stub.port),
        "^connected",
    );
    let bp = mi.cmd("-break-insert -f game.asm:7", "^done");
    assert_has(&bp, &["line=\"7\""]);
    mi.cmd("-exec-continue", "^running");
    assert_has(
        &mi.wait("*stopped", "breakpoint"),
        &["reason=\"breakpoint-hit\"", "game.asm\"", "line=\"7\""],
    );
    let names = mi.cmd("-data-list-register-names", "^done");
    assert_has(
        &names,
        &["\"zero\"", "\"t0\"", "\"sp\"", "\"ra\"", "\"pc\""],
    );
    mi.cmd("-exec-next", "^running");
    assert_has(
        &mi.wait("*stopped", "next"),
        &["end-stepping-range", "line=\"8\""],
    );
    mi.cmd("-exec-next", "^running");
    assert_has(
        &mi.wait("*stopped", "next"),
        &["end-stepping-range", "line=\"6\""],
    );
    // next over jal: back on the line after the call, without entering toggle.
    mi.cmd("-exec-next", "^running");
    assert_has(&mi.wait("*stopped", "next over jal"), &["line=\"7\""]);
    mi.cmd("-exec-next", "^running");
    mi.wait("*stopped", "next");
    mi.cmd("-exec-next", "^running");
    mi.wait("*stopped", "next");
    mi.cmd("-exec-step", "^running");
    assert_has(
        &mi.wait("*stopped", "step"),
        &["func=\"toggle\"", "line=\"11\""],
    );
    for line in ["12", "13"] {
        mi.cmd("-exec-step", "^running");
        assert_has(&mi.wait("*stopped", "step"), &[&format!("line=\"{line}\"")]);
    }
    mi.cmd("-exec-step", "^running");
    assert_has(
        &mi.wait("*stopped", "step"),
        &["func=\"flip\"", "line=\"17\""],
    );
    let frames = mi.cmd("-stack-list-frames", "^done");
    assert_has(
        &frames,
        &["func=\"flip\"", "func=\"toggle\"", "func=\"main\""],
    );
    mi.cmd("-exec-finish", "^running");
    assert_has(
        &mi.wait("*stopped", "finish"),
        &[
            "reason=\"function-finished\"",
            "func=\"toggle\"",
            "line=\"14\"",
        ],
    );
    mi.cmd("-break-delete", "^done");
    mi.cmd("-break-watch player", "^done");
    mi.cmd("-exec-continue", "^running");
    assert_has(
        &mi.wait("*stopped", "watch"),
        &[
            "reason=\"watchpoint-trigger\"",
            "value={old=\"2\",new=\"1\"}",
        ],
    );
    mi.cmd("-break-delete", "^done");
    mi.cmd("-exec-continue", "^running");
    // The end of history first (time travel: VS Code shows a stop there), then the end.
    assert_has(
        &mi.wait("*stopped", "end of history"),
        &["No more reverse-execution history."],
    );
    mi.cmd("-exec-continue", "^running");
    assert_has(&mi.wait("*stopped", "exit"), &["exited-normally"]);
}
