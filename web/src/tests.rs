//! The binding driven natively as the worker drives it: messages in, `poll`, bursts.

use super::*;
use serde_json::{json, Value};

fn root() -> std::path::PathBuf {
    std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A session and everything it said so far.
struct Client {
    session: WebSession,
    seq: i64,
    seen: Vec<Value>,
}

impl Client {
    fn new(files: &[(&str, &str)]) -> Client {
        let mut session = WebSession::new();
        for (name, text) in files {
            session.set_file(name, text);
        }
        let mut client = Client {
            session,
            seq: 0,
            seen: Vec::new(),
        };
        client.request("initialize", json!({"adapterID": "asmdbg"}));
        client
    }

    fn request(&mut self, command: &str, arguments: Value) -> Value {
        self.seq += 1;
        let seq = self.seq;
        let message =
            json!({"seq": seq, "type": "request", "command": command, "arguments": arguments});
        self.session.send(&message.to_string());
        self.until(|m| m["type"] == "response" && m["request_seq"] == seq)
    }

    /// Polls and runs bursts (as the worker does) until a message matches.
    fn until(&mut self, want: impl Fn(&Value) -> bool) -> Value {
        for _ in 0..100_000 {
            let poll: Value = serde_json::from_str(&self.session.poll()).expect("poll is JSON");
            let mut found = None;
            for message in poll["messages"].as_array().expect("messages") {
                if found.is_none() && want(message) {
                    found = Some(message.clone());
                }
                self.seen.push(message.clone());
            }
            if let Some(message) = found {
                return message;
            }
            if poll["run"] == true {
                self.session.run_burst();
            } else if poll["ended"] == true {
                break;
            }
        }
        panic!("no such message; seen: {:#?}", self.seen);
    }

    fn console(&self) -> String {
        self.seen
            .iter()
            .filter(|m| m["event"] == "output" && m["body"]["category"] == "stdout")
            .filter_map(|m| m["body"]["output"].as_str())
            .collect()
    }
}

#[test]
fn nim_plays_the_sample_game_from_the_pages_files() {
    let input = read("tests/programs/lc3/nim-sample.in");
    let mut client = Client::new(&[
        ("nim.asm", &read("programs/lc3/nim.asm")),
        ("nim-sample.in", &input),
    ]);
    let launched = client.request(
        "launch",
        json!({"program": "nim.asm", "input": "nim-sample.in", "stopOnEntry": false}),
    );
    assert_eq!(launched["success"], true, "{launched}");
    client.request("configurationDone", json!({}));
    client.until(|m| m["event"] == "stopped" && m["body"]["reason"] == "exit");
    assert_eq!(client.console(), read("tests/programs/lc3/nim-sample.out"));
}

#[test]
fn a_mips_include_comes_from_the_pages_files() {
    let main =
        ".data\nmsg: .asciiz \"hi\"\n.text\n.include \"lib/print.asm\"\nli $v0, 10\nsyscall\n";
    let lib = "la $a0, msg\nli $v0, 4\nsyscall\n";
    let mut client = Client::new(&[("main.asm", main), ("lib/print.asm", lib)]);
    let launched = client.request(
        "launch",
        json!({"program": "main.asm", "stopOnEntry": false}),
    );
    assert_eq!(launched["success"], true, "{launched}");
    client.request("configurationDone", json!({}));
    client.until(|m| m["event"] == "stopped" && m["body"]["reason"] == "exit");
    assert_eq!(client.console(), "hi");
}

#[test]
fn assembly_errors_name_file_line_and_column() {
    let mut client = Client::new(&[("bad.asm", ".ORIG x3000\nADD R1, R1, #16\nHALT\n.END\n")]);
    let launched = client.request("launch", json!({"program": "bad.asm"}));
    assert_eq!(launched["success"], false);
    let message = launched["message"].as_str().unwrap();
    assert!(message.starts_with("bad.asm:2:13: error:"), "{message}");
    // A missing file names the files the page has.
    let launched = client.request("launch", json!({"program": "other.asm"}));
    assert_eq!(
        launched["message"],
        "other.asm: no such file (the page has bad.asm)"
    );
}

#[test]
fn what_the_browser_lacks_is_refused_by_name() {
    let mut client = Client::new(&[("a.asm", ".ORIG x3000\nHALT\n.END\n")]);
    for (attribute, value) in [
        ("poke", json!(["x3000=1"])),
        ("project", json!(true)),
        ("console", json!("integratedTerminal")),
    ] {
        let mut args = json!({"program": "a.asm"});
        args[attribute] = value;
        let launched = client.request("launch", args);
        let message = launched["message"].as_str().unwrap();
        assert!(
            message.contains("not available in the browser") && message.contains(attribute),
            "{message}"
        );
    }
    // Options an ISA does not take get the machines' own message.
    let launched = client.request("launch", json!({"program": "a.asm", "delaySlots": true}));
    assert_eq!(
        launched["message"],
        "--delay-slots (MIPS only) does not apply to LC-3 programs"
    );
}

#[test]
fn frames_split_whole_messages() {
    let mut bytes = encode(&json!({"a": 1}));
    bytes.extend(encode(&json!({"b": "é"})));
    assert_eq!(split_frames(&bytes), [r#"{"a":1}"#, r#"{"b":"é"}"#]);
    // A frame cut short is left out.
    bytes.truncate(bytes.len() - 2);
    assert_eq!(split_frames(&bytes), [r#"{"a":1}"#]);
}

#[test]
fn the_speed_control_holds_the_run_to_its_pace() {
    let looping = ".ORIG x3000\nLOOP BR LOOP\n.END\n";
    let mut client = Client::new(&[("loop.asm", looping)]);
    // The launch's `speed` is read as `--speed` is; a bad one is refused with its reason.
    let launched = client.request("launch", json!({"program": "loop.asm", "speed": "fast"}));
    let message = launched["message"].as_str().unwrap();
    assert!(
        message.starts_with("`speed`: 'fast' is no speed"),
        "{message}"
    );
    // One instruction a second: a burst runs one instruction, then the poll says to wait
    // (wakeMs) instead of running again.
    let launched = client.request(
        "launch",
        json!({"program": "loop.asm", "speed": "1", "stopOnEntry": false}),
    );
    assert_eq!(launched["success"], true, "{launched}");
    client.request("configurationDone", json!({}));
    let mut ran = 0;
    let waiting = loop {
        let poll: Value = serde_json::from_str(&client.session.poll()).expect("poll is JSON");
        if poll["run"] == true {
            assert!(ran < 10, "the paced run never waits: {poll}");
            client.session.run_burst();
            ran += 1;
        } else if poll["wakeMs"].is_number() {
            break poll;
        }
    };
    let wake = waiting["wakeMs"].as_f64().unwrap();
    assert!(wake > 100.0 && wake <= 1000.0, "{waiting}");
    // Unpaced (no `speed`), the same program runs burst after burst.
    let mut client = Client::new(&[("loop.asm", looping)]);
    let launched = client.request(
        "launch",
        json!({"program": "loop.asm", "stopOnEntry": false}),
    );
    assert_eq!(launched["success"], true, "{launched}");
    client.request("configurationDone", json!({}));
    let mut runs = 0;
    for _ in 0..50 {
        let poll: Value = serde_json::from_str(&client.session.poll()).expect("poll is JSON");
        assert!(poll["wakeMs"].is_null(), "{poll}");
        if poll["run"] == true {
            client.session.run_burst();
            runs += 1;
        }
    }
    assert!(runs >= 45, "{runs} bursts in 50 polls");
}
