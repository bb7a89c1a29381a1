//! The DAP server from memory under random input: raw bytes, and requests of every command
//! with arguments drawn from plausible and implausible values, against a launched LC-3
//! program. Nothing may panic, every well-framed request gets its response, and the session
//! ends only when the client asks; every message it sends is valid under the protocol's schema.

use std::time::Instant;

use asmdbg_core::gdb::Debuggee;
use asmdbg_core::{Backend, MachineOptions};
use asmdbg_session::dap::protocol::LaunchArguments;
use asmdbg_session::dap::wire::{encode, DapFramer, Incoming};
use asmdbg_session::dap::{DapProgram, DapServer, Launched};
use asmdbg_session::{Discipline, LineMode};
use proptest::prelude::*;
use serde_json::{json, Value};

const PROGRAM: &str = "        .ORIG x3000
MAIN    LEA R0, MSG
        PUTS
        GETC
        JSR SUB
        BRnzp MAIN
SUB     ST R0, SAVED
        RET
SAVED   .FILL 0
MSG     .STRINGZ \"key? \"
        .END
";

fn server() -> DapServer {
    DapServer::new(Box::new(|_args: &LaunchArguments| {
        let opts = MachineOptions::default();
        let machine = asmdbg_lc3::load_machine("fuzz.asm", PROGRAM.as_bytes(), &opts)
            .map_err(|e| e.to_string())?;
        let image = asmdbg_lc3::BACKEND
            .image(&machine, &opts)
            .map_err(|e| e.to_string())?;
        let mut target = Debuggee::new(machine);
        target.record_history(1 << 20);
        let program = DapProgram::new(target, image, Discipline::new(LineMode::Raw, false));
        Ok(Launched {
            program: Box::new(program),
            terminal: None,
            warnings: String::new(),
        })
    }))
}

const COMMANDS: &[&str] = &[
    "initialize",
    "launch",
    "configurationDone",
    "threads",
    "setBreakpoints",
    "setFunctionBreakpoints",
    "setInstructionBreakpoints",
    "dataBreakpointInfo",
    "setDataBreakpoints",
    "continue",
    "next",
    "stepIn",
    "stepOut",
    "stepBack",
    "reverseContinue",
    "pause",
    "stackTrace",
    "scopes",
    "variables",
    "setVariable",
    "evaluate",
    "disassemble",
    "readMemory",
    "writeMemory",
    "gotoTargets",
    "goto",
    "restart",
    "exceptionInfo",
    "source",
    "bogus",
];

fn value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<i64>().prop_map(|n| json!(n)),
        (-5i64..40).prop_map(|n| json!(n)),
        prop::sample::select(vec![
            "MAIN",
            "SUB",
            "SAVED",
            "x3000",
            "x3004",
            "0x10",
            "R0",
            "R0 + SAVED",
            "*x3008",
            "monitor when",
            "> a",
            "instruction",
            "line",
            "fuzz.asm",
            "((1",
            "",
            "x3008:1",
            "AAEC",
            "write",
            "readWrite",
            "0x7fffffffffffffff",
            "-1",
            "99999999999999999999",
            "x3004:18446744073709551615",
            "{R0}",
            "%0",
            "==",
        ])
        .prop_map(|s| json!(s)),
    ]
}

fn arguments() -> impl Strategy<Value = Value> {
    let keys = prop::sample::select(vec![
        "line",
        "name",
        "expression",
        "context",
        "granularity",
        "memoryReference",
        "offset",
        "count",
        "instructionCount",
        "instructionOffset",
        "variablesReference",
        "value",
        "targetId",
        "dataId",
        "accessType",
        "instructionReference",
        "data",
        "frameId",
        "condition",
        "hitCondition",
        "logMessage",
    ]);
    prop::collection::vec((keys, value()), 0..5).prop_map(|pairs| {
        let mut args = json!({"source": {"path": "fuzz.asm"}, "threadId": 1});
        let mut bp = json!({});
        for (k, v) in pairs {
            args[k] = v.clone();
            bp[k] = v;
        }
        args["breakpoints"] = json!([bp]);
        args
    })
}

#[derive(Debug, Clone)]
enum Action {
    Request(&'static str, Value),
    Bytes(Vec<u8>),
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        8 => (prop::sample::select(COMMANDS), arguments()).prop_map(|(c, a)| Action::Request(c, a)),
        1 => prop::collection::vec(any::<u8>(), 0..40).prop_map(Action::Bytes),
    ]
}

/// Runs the server until it stops asking for bursts (at most `bursts`); what it sent.
fn settle(server: &mut DapServer, bursts: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for _ in 0..bursts {
        let poll = server.poll(Instant::now());
        out.extend(poll.to_client);
        if !poll.run || poll.ended {
            break;
        }
        server.run_burst();
    }
    out.extend(server.poll(Instant::now()).to_client);
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    #[test]
    fn random_requests_never_panic_and_are_all_answered(actions in prop::collection::vec(action(), 1..30)) {
        let mut server = server();
        // The protocol numbers a client's messages from 1.
        server.on_bytes(&encode(&json!({"seq": 1, "type": "request", "command": "launch", "arguments": {"program": "fuzz.asm"}})));
        server.on_bytes(&encode(&json!({"seq": 2, "type": "request", "command": "configurationDone"})));
        let mut seq = 2;
        let mut sent = settle(&mut server, 5);
        for action in actions {
            match action {
                Action::Bytes(bytes) => {
                    // Framed as a body, so the stream stays in step.
                    let mut framed = format!("Content-Length: {}\r\n\r\n", bytes.len()).into_bytes();
                    framed.extend(bytes);
                    server.on_bytes(&framed);
                }
                Action::Request(command, args) => {
                    if matches!(command, "disconnect" | "terminate") {
                        continue;
                    }
                    seq += 1;
                    server.on_bytes(&encode(&json!({"seq": seq, "type": "request", "command": command, "arguments": args})));
                }
            }
            sent.extend(settle(&mut server, 50));
        }
        // Whatever the input, what the server says is the protocol's.
        let mut messages = Vec::new();
        DapFramer::default().push(&sent, &mut messages);
        for message in &messages {
            let Incoming::Message(m) = message else {
                prop_assert!(false, "the server sent a frame that is not a message: {:?}", message);
                continue;
            };
            if let Err(e) = asmdbg_testsupport::dap_schema::check_sent(m) {
                prop_assert!(false, "{}", e);
            }
        }
        let text = String::from_utf8_lossy(&sent);
        for s in 3..=seq {
            prop_assert!(text.contains(&format!("\"request_seq\":{s},")), "request {} unanswered", s);
        }
        prop_assert!(!server.poll(Instant::now()).ended);
    }
}
