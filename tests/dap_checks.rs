//! The debugging checks in the DAP adapter: one exception filter per check (VS Code's
//! Breakpoints pane check boxes, on by default), a finding stops with reason `exception` and
//! its warning (exceptionInfo answers it too), setExceptionBreakpoints turns checks on and
//! off, and a step back and forward again stops at the same finding.

mod support;

use serde_json::json;
use support::dap::DapClient;
use support::Scratch;

/// f changes $s0 without saving it; main goes on counting with it.
const CALLEE_SAVED: &str = "\
        .text
main:   li   $s0, 10
        jal  f
        addi $s0, $s0, 1
        li   $v0, 10
        syscall
f:      li   $s0, 3
        jr   $ra
";

const WARNING: &str = "prog.asm:8:9: warning[callee-saved]: f returns with $s0 changed";

fn launch(dap: &mut DapClient, prog: &std::path::Path) {
    let init = dap.ok(
        "initialize",
        json!({"adapterID": "asmdbg", "linesStartAt1": true}),
    );
    let filters = init["exceptionBreakpointFilters"]
        .as_array()
        .expect("exception filters")
        .clone();
    let names: Vec<&str> = filters
        .iter()
        .map(|f| f["filter"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "callee-saved",
            "return-address",
            "uninitialised",
            "stack",
            "code-as-data"
        ]
    );
    assert!(filters.iter().all(|f| f["default"] == true), "{filters:?}");
    assert!(filters[0]["description"]
        .as_str()
        .unwrap()
        .contains("callee-saved"));
    dap.ok(
        "launch",
        json!({"program": prog, "console": "internalConsole"}),
    );
    dap.event("initialized");
}

#[test]
fn a_finding_is_an_exception_stop_with_its_warning() {
    let dir = Scratch::new();
    let prog = dir.write("prog.asm", CALLEE_SAVED);
    let mut dap = DapClient::start();
    launch(&mut dap, &prog);
    dap.ok(
        "setExceptionBreakpoints",
        json!({"filters": ["callee-saved", "return-address", "uninitialised", "stack", "code-as-data"]}),
    );
    dap.ok("configurationDone", json!({}));
    assert_eq!(dap.stopped()["reason"], "entry");
    dap.ok("continue", json!({"threadId": 1}));
    let stop = dap.stopped();
    assert_eq!(stop["reason"], "exception", "{stop}");
    assert!(stop["text"].as_str().unwrap().contains(WARNING), "{stop}");
    let info = dap.ok("exceptionInfo", json!({"threadId": 1}));
    assert_eq!(info["exceptionId"], "callee-saved", "{info}");
    assert!(
        info["description"].as_str().unwrap().contains(WARNING),
        "{info}"
    );
    // After main's use of $s0 (line 4), on line 5.
    assert_eq!(dap.top().1, 5);

    // Back over the use and forward again: the same stop.
    dap.ok("stepBack", json!({"threadId": 1}));
    dap.stopped();
    assert_eq!(dap.top().1, 4);
    dap.ok("continue", json!({"threadId": 1}));
    let stop = dap.stopped();
    assert_eq!(stop["reason"], "exception", "{stop}");
    assert_eq!(dap.top().1, 5);
}

#[test]
fn filters_turned_off_run_the_program_through() {
    let dir = Scratch::new();
    let prog = dir.write("prog.asm", CALLEE_SAVED);
    let mut dap = DapClient::start();
    launch(&mut dap, &prog);
    dap.ok(
        "setExceptionBreakpoints",
        json!({"filters": ["uninitialised", "stack"]}),
    );
    dap.ok("configurationDone", json!({}));
    assert_eq!(dap.stopped()["reason"], "entry");
    dap.ok("continue", json!({"threadId": 1}));
    let stop = dap.stopped();
    assert_ne!(stop["reason"], "exception", "{stop}");
}
