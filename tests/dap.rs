//! `asmdbg dap` over pipes, as an IDE starts it: the protocol's requests on each machine, in
//! the machine's own terms (LC-3 `x3000`, MIPS `$t0`, SimpleRISC code offsets), and bad input
//! that must never end the session. Snapshots (insta) keep the capabilities, the LC-3 registers
//! at the entry and the disassembly around it.

mod support;

use serde_json::json;
use support::dap::DapClient;
use support::Scratch;

/// A response for a snapshot, with the checkout's path as `[root]`.
fn pretty(value: &serde_json::Value) -> String {
    serde_json::to_string_pretty(value)
        .unwrap()
        .replace(env!("CARGO_MANIFEST_DIR"), "[root]")
}

/// CPU time a process has used, in clock ticks (utime + stime of /proc/PID/stat).
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let rest = stat.rsplit(')').next().unwrap_or("");
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let field = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
    };
    field(11) + field(12)
}

fn root(path: &str) -> String {
    format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn capabilities_are_announced_and_initialized_follows() {
    let mut dap = DapClient::start();
    let caps = dap.ok("initialize", json!({"adapterID": "asmdbg"}));
    insta::assert_snapshot!(serde_json::to_string_pretty(&caps).unwrap());
    // `initialized` (configuration requests welcome) comes once a launch succeeded: never
    // after a failed one, whose error is then all the client shows.
    assert!(dap
        .fails("launch", json!({"program": "/nonexistent/x.asm"}))
        .contains("/nonexistent/x.asm"));
    // Whatever came before this response is kept: no `initialized` among it.
    dap.ok("threads", json!({}));
    assert!(
        !dap.has_event("initialized"),
        "initialized before any launch succeeded"
    );
    dap.ok("launch", json!({"program": root("programs/lc3/nim.asm")}));
    dap.event("initialized");
    dap.ok("setExceptionBreakpoints", json!({"filters": []}));
    dap.ok("configurationDone", json!({}));
    assert_eq!(dap.stopped()["reason"], "entry");
}

#[test]
fn bad_input_gets_an_error_and_the_session_goes_on() {
    let mut dap = DapClient::start();
    dap.ok("initialize", json!({}));
    // Input without a request's `seq` cannot have a response (the protocol numbers requests
    // from 1): it is reported in an `important` output event, which VS Code shows.
    let skipped = |dap: &mut DapClient| {
        let e = dap.event("output");
        assert_eq!(e["body"]["category"], "important", "{e}");
        e["body"]["output"].as_str().unwrap().to_string()
    };
    // A body shorter than its Content-Length says: it is cut, not JSON, reported.
    dap.send_raw(b"Content-Length: 9\r\n\r\n{\"seq\": 1}");
    let why = skipped(&mut dap);
    assert!(why.contains("not JSON"), "{why}");
    // Broken JSON of the right length.
    dap.send_raw(b"Content-Length: 8\r\n\r\n{\"seq\":}");
    assert!(skipped(&mut dap).contains("not JSON"));
    // A header without a length.
    dap.send_raw(b"Content-Type: json\r\n\r\n");
    assert!(skipped(&mut dap).contains("without Content-Length"));
    // A message with neither `seq` nor `command`.
    dap.send_raw(b"Content-Length: 2\r\n\r\n{}");
    assert!(skipped(&mut dap).contains("command"));
    // Valid JSON that is not a request.
    dap.send_raw(b"Content-Length: 21\r\n\r\n{\"seq\": 5, \"type\": 1}");
    assert!(dap.response(5)["message"]
        .as_str()
        .unwrap()
        .contains("command"));
    assert!(dap.fails("frobnicate", json!({})).contains("before launch"));
    assert!(dap
        .fails("stackTrace", json!({"threadId": 1}))
        .contains("launch a program first"));
    assert_eq!(dap.ok("threads", json!({}))["threads"], json!([]));
    // A program with errors: every error, file:line:col, and the session stays.
    let dir = Scratch::new();
    let bad = dir.write(
        "bad.asm",
        "        .ORIG x3000\n        ADD R1, R9, #1\n        BRz NOWHERE\n        .END\n",
    );
    let message = dap.fails("launch", json!({"program": bad, "isa": "lc3"}));
    assert!(message.contains("bad.asm:2:"), "{message}");
    assert!(message.contains("bad.asm:3:"), "{message}");
    assert!(dap
        .fails("launch", json!({"program": "/nonexistent/x.asm"}))
        .contains("/nonexistent/x.asm"));
    assert!(dap.fails("launch", json!({})).contains("needs `program`"));
    assert!(dap
        .fails("launch", json!({"program": bad, "profile": "nope"}))
        .contains("nope"));
    // Then a good program launches in the same session.
    dap.ok("launch", json!({"program": root("programs/lc3/nim.asm")}));
    dap.ok("configurationDone", json!({}));
    assert_eq!(dap.stopped()["reason"], "entry");
    assert!(dap.fails("nonsense", json!({})).contains("unknown request"));
    assert_eq!(dap.top().0, "MAIN");
    // No `console` attribute and a client that runs no terminals: the debug console.
    dap.ok("continue", json!({"threadId": 1}));
    let shown = dap.event("output");
    assert_eq!(shown["body"]["category"], "stdout");
    assert!(
        shown["body"]["output"].as_str().unwrap().contains("ROW A"),
        "{shown}"
    );
    dap.ok("disconnect", json!({}));
    assert!(dap.exits(), "disconnect ends the adapter");
}

/// dots: registers and disassembly at the entry (snapshots), a line breakpoint, the watch
/// on CURRENT_PLAYER firing when a move is played (keys from the `input` attribute), stepping
/// by line into, over and out of subroutines, and back in time.
#[test]
fn lc3_dots_breakpoints_data_breakpoint_steps_and_time_travel() {
    let dir = Scratch::new();
    let keys = dir.write("keys.txt", "B0A1C1B2F6Q");
    let mut dap = DapClient::start();
    let entry = dap.launch(json!({"program": root("programs/lc3/dots.asm"), "input": keys}));
    assert_eq!(entry["reason"], "entry");
    assert_eq!(dap.top(), ("MAIN".to_string(), 86, "x3000".to_string()));
    let scopes = dap.ok("scopes", json!({"frameId": 1}));
    let names: Vec<&str> = scopes["scopes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Registers", "Data"]);
    let regs = dap.ok("variables", json!({"variablesReference": 1}));
    insta::assert_snapshot!("lc3_registers_at_entry", pretty(&regs));
    let disas = dap.ok(
        "disassemble",
        json!({"memoryReference": "x3000", "instructionOffset": -2, "instructionCount": 6}),
    );
    insta::assert_snapshot!("lc3_disassembly_at_entry", pretty(&disas));
    assert_eq!(dap.variable(3, "CURRENT_PLAYER"), "1 (x0001)");

    let file = root("programs/lc3/dots.asm");
    let bps = dap.ok(
        "setBreakpoints",
        json!({"source": {"path": file}, "breakpoints": [{"line": 130}, {"line": 5000}]}),
    );
    assert_eq!(bps["breakpoints"][0]["verified"], true);
    assert_eq!(
        bps["breakpoints"][0]["line"], 134,
        "moved to the first line with code"
    );
    assert_eq!(bps["breakpoints"][1]["verified"], false);
    dap.ok("continue", json!({"threadId": 1}));
    let stop = dap.stopped();
    assert_eq!(stop["reason"], "breakpoint");
    assert_eq!(stop["hitBreakpointIds"][0], bps["breakpoints"][0]["id"]);
    assert_eq!(dap.frames(), ["DISPLAY_BOARD", "MAIN"]);
    // Step over a line, into nothing (a store), and out to MAIN's next line.
    dap.ok("next", json!({"threadId": 1}));
    assert_eq!(dap.stopped()["reason"], "step");
    assert_eq!(dap.top().1, 135);
    dap.ok("stepOut", json!({"threadId": 1}));
    dap.stopped();
    assert_eq!(dap.frames(), ["MAIN"]);
    // Into a subroutine: DISPLAY_PROMPT's first line.
    dap.ok("stepIn", json!({"threadId": 1}));
    dap.stopped();
    assert_eq!(dap.frames(), ["DISPLAY_PROMPT", "MAIN"]);
    dap.ok("stepOut", json!({"threadId": 1}));
    dap.stopped();
    // Into the GETC trap by instruction: the OS routine's frame over MAIN's, in the OS's
    // source; out of it, the key B has arrived.
    let (_, line, _) = dap.top();
    assert_eq!(line, 89);
    dap.ok(
        "stepIn",
        json!({"threadId": 1, "granularity": "instruction"}),
    );
    dap.stopped();
    assert_eq!(dap.frames(), ["TRAP_GETC", "MAIN"]);
    let st = dap.ok("stackTrace", json!({"threadId": 1}));
    let os_file = st["stackFrames"][0]["source"]["path"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(os_file.ends_with("lc3-os-patt.asm"), "{os_file}");
    assert_eq!(
        st["stackFrames"][1]["line"], 89,
        "MAIN's frame is at the TRAP"
    );
    dap.ok("stepOut", json!({"threadId": 1}));
    dap.stopped();
    assert_eq!(dap.top().1, 90);
    assert_eq!(
        dap.ok("evaluate", json!({"expression": "R0", "context": "hover"}))["result"],
        "66 (x0042)"
    );

    // The watch on CURRENT_PLAYER: the first move ends player 1's turn.
    dap.ok(
        "setBreakpoints",
        json!({"source": {"path": file}, "breakpoints": []}),
    );
    let info = dap.ok("dataBreakpointInfo", json!({"name": "CURRENT_PLAYER"}));
    assert_eq!(info["accessTypes"], json!(["read", "write", "readWrite"]));
    let set = dap.ok(
        "setDataBreakpoints",
        json!({"breakpoints": [{"dataId": info["dataId"], "accessType": "write"}]}),
    );
    dap.ok("continue", json!({"threadId": 1}));
    let stop = dap.stopped();
    assert_eq!(stop["reason"], "data breakpoint", "{stop}");
    assert_eq!(stop["hitBreakpointIds"][0], set["breakpoints"][0]["id"]);
    assert!(stop["description"]
        .as_str()
        .unwrap()
        .contains("CURRENT_PLAYER"));
    assert_eq!(dap.frames(), ["UPDATE_STATE", "MAIN"]);
    let shown = dap.program_output();
    assert!(shown.contains("Player 1, input a move"), "{shown}");
    // As gdb shows a watchpoint: after the store, CURRENT_PLAYER is 2 already.
    assert_eq!(dap.variable(3, "CURRENT_PLAYER"), "2 (x0002)");
    // Back one instruction: 1 again; stepping over the store again stops after it again.
    dap.ok(
        "stepBack",
        json!({"threadId": 1, "granularity": "instruction"}),
    );
    dap.stopped();
    assert_eq!(dap.variable(3, "CURRENT_PLAYER"), "1 (x0001)");
    dap.ok(
        "stepIn",
        json!({"threadId": 1, "granularity": "instruction"}),
    );
    assert_eq!(dap.stopped()["reason"], "data breakpoint");
    assert_eq!(dap.variable(3, "CURRENT_PLAYER"), "2 (x0002)");
    dap.ok("setDataBreakpoints", json!({"breakpoints": []}));
    dap.ok("continue", json!({"threadId": 1}));
    // The program ends (Q): first the end of history, then the exit.
    let end = dap.stopped();
    assert!(
        end["description"].as_str().unwrap().contains("ended"),
        "{end}"
    );
    dap.ok(
        "setDataBreakpoints",
        json!({"breakpoints": [{"dataId": info["dataId"], "accessType": "write"}]}),
    );
    dap.ok("reverseContinue", json!({"threadId": 1}));
    let back = dap.stopped();
    assert_eq!(back["reason"], "data breakpoint", "{back}");
    assert_eq!(dap.frames(), ["UPDATE_STATE", "MAIN"]);
    dap.ok("setDataBreakpoints", json!({"breakpoints": []}));
    dap.ok("continue", json!({"threadId": 1}));
    dap.stopped();
    dap.ok("continue", json!({"threadId": 1}));
    assert_eq!(dap.event("exited")["body"]["exitCode"], 0);
    dap.event("terminated");
    // Every line of the game was shown once.
    let _ = dap.program_output();
}

/// The four-in-a-row game: a function breakpoint, `$` register names and the FPU's own scope,
/// moves typed in the debug console, the watch on `turn`, conditions, hit counts and log
/// points, memory as bytes, and a fault reported as an exception.
#[test]
fn mips_game_functions_registers_console_and_conditions() {
    let mut dap = DapClient::start();
    dap.launch(json!({"program": root("programs/mips/four_in_a_row.asm")}));
    let scopes = dap.ok("scopes", json!({"frameId": 1}));
    assert_eq!(scopes["scopes"][1]["name"], "Floating point");
    assert_eq!(dap.variable(1, "$sp"), "0x7fffeffc");
    assert_eq!(dap.variable(2, "$f12"), "0x00000000");
    let fbp = dap.ok(
        "setFunctionBreakpoints",
        json!({"breakpoints": [{"name": "check_win"}, {"name": "no_such"}]}),
    );
    assert_eq!(fbp["breakpoints"][0]["verified"], true);
    assert_eq!(fbp["breakpoints"][1]["verified"], false);
    dap.ok("continue", json!({"threadId": 1}));
    for line in ["Alice", "Bob", "1", "4", "0"] {
        let typed = dap.ok(
            "evaluate",
            json!({"expression": format!("> {line}"), "context": "repl"}),
        );
        assert!(typed["result"].as_str().unwrap().contains(line));
    }
    let stop = dap.stopped();
    assert_eq!(stop["reason"], "breakpoint");
    assert_eq!(dap.frames(), ["check_win", "main"]);
    assert!(dap.program_output().contains("Column (1-7)"));
    // Memory as bytes: `turn` is a word, little endian.
    let info = dap.ok("dataBreakpointInfo", json!({"name": "turn"}));
    let addr = info["dataId"]
        .as_str()
        .unwrap()
        .split(':')
        .next()
        .unwrap()
        .to_string();
    let mem = dap.ok("readMemory", json!({"memoryReference": addr, "count": 4}));
    assert_eq!(
        mem["data"], "AAAAAA==",
        "turn is 0 (player 1) during the first move"
    );
    dap.ok(
        "writeMemory",
        json!({"memoryReference": addr, "data": "AQAAAA=="}),
    );
    assert_eq!(
        dap.ok(
            "evaluate",
            json!({"expression": "turn", "context": "watch"})
        )["result"],
        "1 (0x00000001)"
    );
    dap.event("memory");
    dap.ok(
        "setVariable",
        json!({"variablesReference": 3, "name": "turn", "value": "0"}),
    );
    assert_eq!(
        dap.ok(
            "evaluate",
            json!({"expression": "turn == 0 && $sp > 0x7fff0000", "context": "watch"})
        )["result"],
        "1 (0x00000001)"
    );
    // A log point and a hit count on print_board, a false condition on check_win.
    dap.ok(
        "setFunctionBreakpoints",
        json!({"breakpoints": [
            {"name": "print_board", "logMessage": "board for turn {turn}"},
            {"name": "check_win", "condition": "turn == 7"},
            {"name": "ask_yes_no", "hitCondition": "2"},
        ]}),
    );
    dap.ok("continue", json!({"threadId": 1}));
    // Alice's block question is the first hit (answered by the 0 typed before); then Bob
    // drops in column 4: the board is printed (logged, no stop), check_win's condition is
    // false, and his block question, the second hit, stops.
    for line in ["1", "4"] {
        dap.ok(
            "evaluate",
            json!({"expression": format!("> {line}"), "context": "repl"}),
        );
    }
    let stop = dap.stopped();
    assert_eq!(stop["reason"], "breakpoint");
    assert_eq!(dap.frames()[0], "ask_yes_no");
    let logged: Vec<String> = dap
        .events
        .iter()
        .filter(|e| e["event"] == "output" && e["body"]["category"] == "console")
        .map(|e| e["body"]["output"].as_str().unwrap().to_string())
        .collect();
    assert!(
        logged.iter().any(|l| l == "board for turn 1\n"),
        "{logged:?}"
    );
    // monitor commands from the debug console.
    let when = dap.ok(
        "evaluate",
        json!({"expression": "monitor when", "context": "repl"}),
    );
    assert!(when["result"].as_str().unwrap().starts_with("instruction "));
    dap.ok("disconnect", json!({}));
}

#[test]
fn a_guest_fault_is_an_exception_with_the_reference_message() {
    let dir = Scratch::new();
    let prog = dir.write(
        "fault.asm",
        ".text\nmain:\tli $t0, 1\n\tlw $t1, 0($t0)\n\tli $v0, 10\n\tsyscall\n",
    );
    let mut dap = DapClient::start();
    dap.launch(json!({"program": prog}));
    assert!(dap
        .fails("exceptionInfo", json!({"threadId": 1}))
        .contains("did not stop on a fault"));
    dap.ok("continue", json!({"threadId": 1}));
    let stop = dap.stopped();
    assert_eq!(stop["reason"], "exception");
    let info = dap.ok("exceptionInfo", json!({"threadId": 1}));
    assert!(
        info["description"].as_str().unwrap().contains("address"),
        "{info}"
    );
    assert_eq!(dap.top().1, 3);
}

/// SimpleRISC: the verifier with a board poked in, registers r0-r15 and the flags, a
/// breakpoint on a label, goto and restart.
#[test]
fn simplerisc_verifier_breakpoints_goto_and_restart() {
    let board = "1,2,0,0,0,0,2,1,0,0,0,0,1,2,1,0,0,0,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0";
    let mut dap = DapClient::start();
    dap.launch(json!({"program": root("programs/simplerisc/tictactoe.asm"), "isa": "simplerisc", "noMul": true, "poke": [format!("1000={board}")]}));
    let regs = dap.ok("variables", json!({"variablesReference": 1}));
    let names: Vec<&str> = regs["variables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["name"].as_str().unwrap())
        .collect();
    assert!(names.starts_with(&["r0", "r1"]), "{names:?}");
    assert!(
        names.ends_with(&["r13", "sp", "ra", "pc", "flags"]),
        "{names:?}"
    );
    dap.ok(
        "setFunctionBreakpoints",
        json!({"breakpoints": [{"name": "haswin"}]}),
    );
    dap.ok("continue", json!({"threadId": 1}));
    assert_eq!(dap.stopped()["reason"], "breakpoint");
    let frames = dap.frames();
    assert_eq!(frames[0], "haswin");
    let (_, line, ip) = dap.top();
    let disas = dap.ok(
        "disassemble",
        json!({"memoryReference": ip, "instructionCount": 2}),
    );
    assert_eq!(disas["instructions"][0]["symbol"], "haswin");
    assert_eq!(disas["instructions"][0]["line"], line);
    // goto: back to the first line of .main, then restart to the entry.
    let file = root("programs/simplerisc/tictactoe.asm");
    let main_line = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .position(|l| l.starts_with(".main:"))
        .unwrap() as i64
        + 1;
    let targets = dap.ok(
        "gotoTargets",
        json!({"source": {"path": file}, "line": main_line}),
    );
    let target = targets["targets"][0]["id"].clone();
    dap.ok("goto", json!({"threadId": 1, "targetId": target}));
    assert_eq!(dap.stopped()["reason"], "goto");
    assert!(dap.top().1 > main_line);
    dap.ok("restart", json!({}));
    assert_eq!(dap.stopped()["reason"], "entry");
    dap.ok("setFunctionBreakpoints", json!({"breakpoints": []}));
    dap.ok("continue", json!({"threadId": 1}));
    // At the end (of history): the verdict at 1144, as `--peek 1144` prints it (player 1 won).
    dap.stopped();
    assert_eq!(
        dap.ok(
            "evaluate",
            json!({"expression": "*1144", "context": "watch"})
        )["result"],
        "1 (0x00000001)"
    );
    dap.ok("continue", json!({"threadId": 1}));
    dap.event("terminated");
}

#[test]
fn pause_stops_a_running_program_and_requests_wait_for_it() {
    let dir = Scratch::new();
    let prog = dir.write(
        "spin.asm",
        "        .ORIG x3000\nLOOP    ADD R1, R1, #1\n        BRnzp LOOP\n        .END\n",
    );
    let mut dap = DapClient::start();
    // R1 counts from the machine's zero: no debugging check's stop before the pause.
    dap.launch(json!({"program": prog, "noChecks": true}));
    dap.ok("continue", json!({"threadId": 1}));
    assert!(dap
        .fails("stackTrace", json!({"threadId": 1}))
        .contains("pause it first"));
    dap.ok("pause", json!({"threadId": 1}));
    assert_eq!(dap.stopped()["reason"], "pause");
    let (name, _, ip) = dap.top();
    assert_eq!(name, "LOOP");
    assert!(ip == "x3000" || ip == "x3001", "{ip}");
}

/// `console: integratedTerminal`: the adapter asks the IDE to run `asmdbg console PTY` in its
/// terminal (Windows: `asmdbg console 127.0.0.1:PORT`, a TCP console); the game's output goes
/// there (not to `output` events) and keys typed there reach the game.
#[test]
fn the_integrated_terminal_console_is_a_pty_the_ide_opens() {
    let mut dap = DapClient::start();
    dap.ok(
        "initialize",
        json!({"adapterID": "asmdbg", "supportsRunInTerminalRequest": true}),
    );
    // No `console` attribute: a client that runs terminals gets one.
    dap.ok(
        "launch",
        json!({"program": root("programs/lc3/nim.asm"), "stopOnEntry": false}),
    );
    let run = dap.reverse_request("runInTerminal");
    let args: Vec<String> = run["arguments"]["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect();
    assert_eq!(args.len(), 3, "{args:?}");
    let windows = args[0].ends_with("asmdbg.exe");
    assert!(windows || args[0].ends_with("asmdbg"), "{args:?}");
    assert_eq!(args[1], "console");
    if windows {
        let addr: std::net::SocketAddr = args[2].parse().expect("a TCP console");
        assert!(addr.ip().is_loopback(), "{args:?}");
    } else {
        assert!(args[2].starts_with("/dev/"), "{args:?}");
    }
    // What the IDE runs in its terminal: here with pipes for the terminal.
    let mut terminal = support::asmdbg()
        .args(&args[1..])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("asmdbg console starts");
    dap.answer(&run, json!({"processId": terminal.id()}));
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut out = terminal.stdout.take().unwrap();
    let sink = seen.clone();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = std::io::Read::read(&mut out, &mut buf) {
            if n == 0 {
                break;
            }
            sink.lock().unwrap().extend_from_slice(&buf[..n]);
        }
    });
    let wait_for = |needle: &str| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        loop {
            let text = String::from_utf8_lossy(&seen.lock().unwrap()).replace("\r\n", "\n");
            if text.contains(needle) || std::time::Instant::now() > deadline {
                return text;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    };
    dap.ok("configurationDone", json!({}));
    let shown = wait_for("choose a row");
    assert!(shown.contains("ROW A"), "{shown}");
    let mut keys = terminal.stdin.take().unwrap();
    std::io::Write::write_all(&mut keys, b"D4").unwrap();
    std::io::Write::flush(&mut keys).unwrap();
    let shown = wait_for("Invalid move");
    assert!(shown.contains("D4\nInvalid move. Try again."), "{shown}");
    assert!(
        dap.program_output().is_empty(),
        "the game's output is on the terminal only"
    );
    dap.ok("pause", json!({"threadId": 1}));
    assert_eq!(dap.stopped()["reason"], "pause");
    // Stopped, with the terminal ready for output and none to send, the adapter sleeps (it
    // spun once: a ready terminal woke its loop with nothing to do).
    let before = cpu_ticks(dap.pid());
    std::thread::sleep(std::time::Duration::from_secs(1));
    let used = cpu_ticks(dap.pid()) - before;
    assert!(
        used < 30,
        "{used} clock ticks of CPU in a second of waiting"
    );
    let _ = terminal.kill();
    let _ = terminal.wait();
}

/// `asmdbg dap --port N`: the same protocol over TCP, one client after another.
#[test]
fn dap_over_tcp_serves_one_client_after_another() {
    use std::io::{BufRead, BufReader, Read, Write};
    let mut child = support::asmdbg()
        .args(["dap", "--port", "0"])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("asmdbg dap --port starts");
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    let addr = line
        .trim()
        .strip_prefix("dap: listening on ")
        .unwrap_or_else(|| panic!("{line}"))
        .to_string();
    for round in 0..2 {
        let mut stream = std::net::TcpStream::connect(&addr).unwrap();
        stream
            .set_read_timeout(Some(std::time::Duration::from_secs(20)))
            .unwrap();
        let body = json!({"seq": 1, "type": "request", "command": "initialize", "arguments": {}})
            .to_string();
        stream
            .write_all(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes())
            .unwrap();
        let mut got = Vec::new();
        let mut buf = [0u8; 4096];
        while !String::from_utf8_lossy(&got).contains("\"supportsStepBack\"") {
            let n = stream.read(&mut buf).unwrap();
            assert!(n > 0, "round {round}: closed");
            got.extend_from_slice(&buf[..n]);
        }
        let text = String::from_utf8_lossy(&got);
        assert!(text.contains("\"supportsStepBack\":true"), "{text}");
        let bye = json!({"seq": 2, "type": "request", "command": "disconnect", "arguments": {}})
            .to_string();
        stream
            .write_all(format!("Content-Length: {}\r\n\r\n{bye}", bye.len()).as_bytes())
            .unwrap();
    }
    let _ = child.kill();
    let _ = child.wait();
}

const LC3_SUM: &str = "        .ORIG x3000
MAIN    AND R1, R1, #0
        AND R2, R2, #0
LOOP    ADD R1, R1, #1
        JSR ADDUP
        ADD R3, R1, #-5
        BRn LOOP
        HALT
ADDUP   ADD R2, R2, R1
        ST R2, TOTAL
        RET
TOTAL   .FILL x1234
        .END
";

/// Instruction breakpoints, setVariable on a register, LC-3 words as DAP bytes, stepping
/// back by line (over a subroutine call) and terminate.
#[test]
fn lc3_instructions_registers_memory_bytes_step_back_and_terminate() {
    let dir = Scratch::new();
    let prog = dir.write("sum.asm", LC3_SUM);
    let mut dap = DapClient::start();
    dap.launch(json!({"program": prog}));
    // x3002 (LOOP) by instruction reference, x3007 (ADDUP) by reference plus offset (bytes of
    // the gdb view: an LC-3 instruction is 2).
    let set = dap.ok(
        "setInstructionBreakpoints",
        json!({"breakpoints": [
            {"instructionReference": "x3002"},
            {"instructionReference": "x3000", "offset": 14},
            {"instructionReference": "nowhere"},
        ]}),
    );
    assert_eq!(set["breakpoints"][0]["line"], 4);
    assert_eq!(set["breakpoints"][1]["instructionReference"], "x3007");
    assert_eq!(set["breakpoints"][2]["verified"], false);
    dap.ok("continue", json!({"threadId": 1}));
    assert_eq!(
        dap.stopped()["hitBreakpointIds"][0],
        set["breakpoints"][0]["id"]
    );
    assert_eq!(dap.top().2, "x3002");
    dap.ok("continue", json!({"threadId": 1}));
    dap.stopped();
    assert_eq!(dap.frames(), ["ADDUP", "MAIN"]);
    // R1 is 1 on the first pass; make it 4, so the loop ends after one more pass.
    assert_eq!(
        dap.ok("evaluate", json!({"expression": "R1", "context": "hover"}))["result"],
        "1 (x0001)"
    );
    let set = dap.ok(
        "setVariable",
        json!({"variablesReference": 1, "name": "R1", "value": "x4"}),
    );
    assert_eq!(set["value"], "x0004 (4)");
    dap.event("invalidated");
    // TOTAL (x300A) as bytes: x1234 is 34 12 at byte 2·x300A.
    let mem = dap.ok(
        "readMemory",
        json!({"memoryReference": "x300A", "count": 2}),
    );
    assert_eq!(mem["address"], "0x6014");
    assert_eq!(mem["data"], "NBI=");
    // Numbers no machine has as an address are refused, not scaled into an overflow.
    assert!(dap
        .fails(
            "readMemory",
            json!({"memoryReference": "0x7fffffffffffffff", "count": 2})
        )
        .contains("is not an address"));
    // Offsets far outside memory: exactly the instructions asked for, marked invalid.
    for far in [i64::MIN, i64::MAX] {
        let disas = dap.ok(
            "disassemble",
            json!({"memoryReference": "x3000", "instructionOffset": far, "offset": far, "instructionCount": 3}),
        );
        assert_eq!(
            disas["instructions"].as_array().unwrap().len(),
            3,
            "{disas}"
        );
        assert_eq!(disas["instructions"][0]["presentationHint"], "invalid");
    }
    assert!(dap
        .fails(
            "evaluate",
            json!({"expression": "R9 +", "context": "watch"})
        )
        .contains("R9"));
    dap.ok("setInstructionBreakpoints", json!({"breakpoints": []}));
    // By line: over ST (line 10) to RET (11), back again to ST.
    dap.ok("next", json!({"threadId": 1}));
    dap.stopped();
    assert_eq!(dap.top().1, 10);
    dap.ok("next", json!({"threadId": 1}));
    dap.stopped();
    assert_eq!(dap.top().1, 11);
    dap.ok("stepBack", json!({"threadId": 1}));
    dap.stopped();
    assert_eq!(dap.top().1, 10);
    assert_eq!(
        dap.variable(3, "TOTAL"),
        "4660 (x1234)",
        "back before the store"
    );
    dap.ok("stepOut", json!({"threadId": 1}));
    dap.stopped();
    assert_eq!(dap.top().1, 6, "back in MAIN after the JSR");
    // Back over the call by line: the JSR line, then the line before it.
    dap.ok("stepBack", json!({"threadId": 1}));
    dap.stopped();
    assert_eq!(dap.top(), ("MAIN".to_string(), 5, "x3003".to_string()));
    dap.ok("terminate", json!({}));
    dap.event("terminated");
    assert!(dap.exits());
}

/// A breakpoint on a MIPS `syscall` that reads: continuing from it waits for the line (the
/// syscall has not completed), and when the line comes the run goes on without stopping on
/// that breakpoint again.
#[test]
fn continuing_from_a_breakpoint_that_waits_for_input_does_not_stop_there_twice() {
    let dir = Scratch::new();
    let prog = dir.write(
        "read.asm",
        ".text\nmain:\tli $v0, 5\n\tsyscall\n\tmove $a0, $v0\n\tli $v0, 1\n\tsyscall\n\tli $v0, 10\n\tsyscall\n",
    );
    let mut dap = DapClient::start();
    dap.launch(json!({"program": prog}));
    let bps = dap.ok(
        "setBreakpoints",
        json!({"source": {"path": prog}, "breakpoints": [{"line": 3}]}),
    );
    assert_eq!(bps["breakpoints"][0]["verified"], true);
    dap.ok("continue", json!({"threadId": 1}));
    assert_eq!(dap.stopped()["reason"], "breakpoint");
    dap.ok("continue", json!({"threadId": 1}));
    std::thread::sleep(std::time::Duration::from_millis(200));
    dap.ok("evaluate", json!({"expression": "> 42", "context": "repl"}));
    let end = dap.stopped();
    assert!(
        end["description"].as_str().unwrap_or("").contains("ended"),
        "{end}"
    );
    assert!(dap.program_output().contains("42"));
    assert!(
        !dap.events.iter().any(|e| e["event"] == "stopped"),
        "{:?}",
        dap.events
    );
}

/// Conditions hold going backwards too: reverse-continue from the end passes the hits of
/// ADDUP whose condition is false and stops at the one where it holds.
#[test]
fn reverse_continue_evaluates_breakpoint_conditions() {
    let dir = Scratch::new();
    let prog = dir.write("sum.asm", LC3_SUM);
    let mut dap = DapClient::start();
    dap.launch(json!({"program": prog}));
    dap.ok("continue", json!({"threadId": 1}));
    let end = dap.stopped();
    assert!(
        end["description"].as_str().unwrap().contains("ended"),
        "{end}"
    );
    let set = dap.ok(
        "setFunctionBreakpoints",
        json!({"breakpoints": [{"name": "ADDUP", "condition": "R1 == 2"}]}),
    );
    dap.ok("reverseContinue", json!({"threadId": 1}));
    let stop = dap.stopped();
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_eq!(stop["hitBreakpointIds"][0], set["breakpoints"][0]["id"]);
    assert_eq!(
        dap.ok("evaluate", json!({"expression": "R1", "context": "watch"}))["result"],
        "2 (x0002)"
    );
    assert_eq!(
        dap.ok(
            "evaluate",
            json!({"expression": "TOTAL", "context": "watch"})
        )["result"],
        "1 (x0001)"
    );
}
