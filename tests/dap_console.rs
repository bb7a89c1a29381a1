//! The program's console and asmdbg's own messages over DAP (issue 28 items 6 and 7): what the
//! Debug Console's `> text` types is what a person at the program's console would type, the
//! assembler's warnings arrive as stderr, and a failed launch is the one error a client shows.

mod support;

use std::time::{Duration, Instant};

use serde_json::json;
use support::dap::DapClient;
use support::Scratch;

fn root(path: &str) -> String {
    format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))
}

/// Program output until it contains `want` (or a few seconds pass): all of it.
fn output_until(dap: &mut DapClient, want: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut shown = String::new();
    while !shown.contains(want) && Instant::now() < deadline {
        shown.push_str(&dap.program_output());
        if !shown.contains(want) {
            // Any message wakes the wait; a request's response is one.
            dap.ok("threads", json!({}));
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    shown
}

// LC-3 reads keys: `> B0` is the two keys B and 0. With a newline after them (as before) Dots
// and Boxes took Enter as the next move's first key and rejected that move.
#[test]
fn typing_in_the_debug_console_sends_keys_to_a_key_machine() {
    let mut dap = DapClient::start();
    dap.launch(json!({"program": root("programs/lc3/dots.asm")}));
    dap.ok("continue", json!({"threadId": 1}));
    let first = output_until(&mut dap, "input a move");
    assert!(first.contains("Player 1, input a move"), "{first}");
    let typed = dap.ok("evaluate", json!({"expression": "> B0", "context": "repl"}));
    assert_eq!(typed["result"], "typed \"B0\" on the program's console");
    let second = output_until(&mut dap, "Player 2, input a move");
    assert!(second.contains("Player 2, input a move"), "{second}");
    // The next move is taken as it is: no stray Enter in front of it.
    dap.ok("evaluate", json!({"expression": "> C1", "context": "repl"}));
    let third = output_until(&mut dap, "input a move");
    assert!(!third.contains("Invalid"), "{third}");
    assert!(third.contains("Player 1, input a move"), "{third}");
    dap.ok("disconnect", json!({}));
}

// MARS reads lines: `> 3` is the line "3" and its Enter.
#[test]
fn typing_in_the_debug_console_sends_a_line_to_a_line_machine() {
    let dir = Scratch::new();
    let program = dir.write(
        "echo.asm",
        "        .text\nmain:   li $v0, 5\n        syscall\n        move $a0, $v0\n        li $v0, 1\n        syscall\n        li $v0, 10\n        syscall\n",
    );
    let mut dap = DapClient::start();
    dap.launch(json!({"program": program, "isa": "mips"}));
    dap.ok("continue", json!({"threadId": 1}));
    let typed = dap.ok("evaluate", json!({"expression": "> 42", "context": "repl"}));
    assert_eq!(typed["result"], "typed \"42\\n\" on the program's console");
    let shown = output_until(&mut dap, "42");
    assert_eq!(shown, "42");
    dap.ok("disconnect", json!({}));
}

// SimpleRISC checks a line only when it runs: a line that does not assemble is a warning, which
// `asmdbg run` prints on stderr and the DAP client now gets as stderr too.
#[test]
fn assembler_warnings_reach_the_client_as_stderr() {
    let dir = Scratch::new();
    let program = dir.write(
        "warn.asm",
        ".main:\n    mov r1, 5\n    b skip\n    bogus r2\nskip:\n    .print r1\n",
    );
    let mut dap = DapClient::start();
    dap.ok("initialize", json!({"adapterID": "asmdbg"}));
    dap.ok(
        "launch",
        json!({"program": program, "isa": "simplerisc", "console": "internalConsole"}),
    );
    let warning = dap.event("output");
    assert_eq!(warning["body"]["category"], "stderr", "{warning}");
    let text = warning["body"]["output"].as_str().unwrap_or_default();
    assert!(
        text.contains("warn.asm:4:5: warning: invalid instruction"),
        "{text}"
    );
    assert!(text.contains("bogus r2"), "{text}");
    dap.event("initialized");
    dap.ok("configurationDone", json!({}));
    assert_eq!(dap.stopped()["reason"], "entry");
    dap.ok("disconnect", json!({}));
}

// A launch that fails (a missing file, an assembly error) is answered with its error and no
// `initialized`, so a client sends no configuration requests that would fail too.
#[test]
fn a_failed_launch_is_the_only_error_the_client_sees() {
    let dir = Scratch::new();
    let bad = dir.write(
        "bad.asm",
        "        .ORIG x3000\n        ADD R1, R9, #1\n        .END\n",
    );
    let mut dap = DapClient::start();
    dap.ok("initialize", json!({"adapterID": "asmdbg"}));
    let message = dap.fails("launch", json!({"program": bad}));
    assert!(message.contains("bad.asm:2:"), "{message}");
    dap.ok("threads", json!({}));
    assert!(!dap.has_event("initialized"));
    // A launch that works then gets it, and the configuration requests work.
    dap.ok(
        "launch",
        json!({"program": root("programs/lc3/nim.asm"), "console": "internalConsole"}),
    );
    dap.event("initialized");
    dap.ok("setExceptionBreakpoints", json!({"filters": []}));
    dap.ok("configurationDone", json!({}));
    assert_eq!(dap.stopped()["reason"], "entry");
    dap.ok("disconnect", json!({}));
}
