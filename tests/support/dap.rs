//! A Debug Adapter Protocol client for tests: `asmdbg dap` as a child process over pipes,
//! requests answered in order, events kept until a test asks for them.

#![allow(dead_code, reason = "each test file uses a different subset")]

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// How long a reply or an event may take.
pub const PATIENCE: Duration = Duration::from_secs(20);

pub struct DapClient {
    child: Child,
    stdin: ChildStdin,
    from_adapter: Receiver<Option<Value>>,
    seq: i64,
    /// Events received and not yet taken, in order.
    pub events: Vec<Value>,
    /// What the adapter wrote on stderr so far: told when it ends unasked.
    stderr: Arc<Mutex<Vec<u8>>>,
}

impl DapClient {
    pub fn start() -> DapClient {
        let mut child = super::asmdbg()
            .arg("dap")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("asmdbg dap starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let mut from_stderr = child.stderr.take().expect("stderr");
        let to_stderr = Arc::clone(&stderr);
        thread::spawn(move || {
            let mut chunk = [0u8; 4096];
            while let Ok(n @ 1..) = from_stderr.read(&mut chunk) {
                to_stderr.lock().unwrap().extend_from_slice(&chunk[..n]);
            }
        });
        let (tx, rx) = channel();
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut len = None;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        let _ = tx.send(None);
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(n) = line.strip_prefix("Content-Length: ") {
                        len = n.parse::<usize>().ok();
                    }
                }
                let mut body = vec![0u8; len.expect("a Content-Length header")];
                if reader.read_exact(&mut body).is_err() {
                    let _ = tx.send(None);
                    return;
                }
                let value: Value = serde_json::from_slice(&body).expect("the adapter writes JSON");
                if tx.send(Some(value)).is_err() {
                    return;
                }
            }
        });
        DapClient {
            child,
            stdin,
            from_adapter: rx,
            seq: 0,
            events: Vec::new(),
            stderr,
        }
    }

    /// How the adapter ended (if it did, within a second) and what it wrote on stderr.
    fn ending(&mut self) -> String {
        let deadline = Instant::now() + Duration::from_secs(1);
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break status.to_string(),
                _ if Instant::now() >= deadline => break "still running".to_string(),
                _ => thread::sleep(Duration::from_millis(20)),
            }
        };
        let stderr = String::from_utf8_lossy(&self.stderr.lock().unwrap()).into_owned();
        format!("adapter: {status}; its stderr: {stderr:?}")
    }

    /// Raw bytes to the adapter.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).expect("write to the adapter");
        self.stdin.flush().expect("flush");
    }

    pub fn send(&mut self, command: &str, arguments: Value) -> i64 {
        self.seq += 1;
        let body =
            json!({"seq": self.seq, "type": "request", "command": command, "arguments": arguments})
                .to_string();
        self.send_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
        self.seq
    }

    /// The next message from the adapter.
    pub fn next_message(&mut self, deadline: Instant) -> Value {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.from_adapter.recv_timeout(left) {
            Ok(Some(v)) => {
                // Every message of every DAP test is checked against the protocol's schema.
                if let Err(e) = asmdbg_testsupport::dap_schema::check_sent(&v) {
                    panic!("{e}");
                }
                v
            }
            Ok(None) => panic!(
                "the adapter closed its output ({}); events so far: {:#?}",
                self.ending(),
                self.events
            ),
            Err(RecvTimeoutError::Timeout) => panic!(
                "no message from the adapter in time; events so far: {:#?}",
                self.events
            ),
            Err(RecvTimeoutError::Disconnected) => panic!("the adapter's reader ended"),
        }
    }

    /// The response to request `seq` (events on the way are kept).
    pub fn response(&mut self, seq: i64) -> Value {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let m = self.next_message(deadline);
            if m["type"] == "response" && m["request_seq"] == seq {
                return m;
            }
            if m["type"] != "response" {
                self.events.push(m);
            }
        }
    }

    /// A request's whole response.
    pub fn call(&mut self, command: &str, arguments: Value) -> Value {
        let seq = self.send(command, arguments);
        self.response(seq)
    }

    /// A request that must succeed: its body.
    pub fn ok(&mut self, command: &str, arguments: Value) -> Value {
        let r = self.call(command, arguments.clone());
        assert_eq!(r["success"], true, "{command} {arguments} failed: {r}");
        r["body"].clone()
    }

    /// A request that must fail: its message.
    pub fn fails(&mut self, command: &str, arguments: Value) -> String {
        let r = self.call(command, arguments.clone());
        assert_eq!(
            r["success"], false,
            "{command} {arguments} should fail: {r}"
        );
        r["message"].as_str().unwrap_or_default().to_string()
    }

    /// Whether an event named `name` came and was not taken yet.
    pub fn has_event(&self, name: &str) -> bool {
        self.events.iter().any(|e| e["event"] == name)
    }

    /// The next event named `name` (earlier events of other names are kept).
    pub fn event(&mut self, name: &str) -> Value {
        if let Some(i) = self.events.iter().position(|e| e["event"] == name) {
            return self.events.remove(i);
        }
        let deadline = Instant::now() + PATIENCE;
        loop {
            let m = self.next_message(deadline);
            if m["type"] == "event" && m["event"] == name {
                return m;
            }
            if m["type"] != "response" {
                self.events.push(m);
            }
        }
    }

    /// The adapter's next request of `command` to the client (`runInTerminal`).
    pub fn reverse_request(&mut self, command: &str) -> Value {
        let matches = |m: &Value| m["type"] == "request" && m["command"] == command;
        if let Some(i) = self.events.iter().position(matches) {
            return self.events.remove(i);
        }
        let deadline = Instant::now() + PATIENCE;
        loop {
            let m = self.next_message(deadline);
            if matches(&m) {
                return m;
            }
            if m["type"] != "response" {
                self.events.push(m);
            }
        }
    }

    /// Answers the adapter's request `request`.
    pub fn answer(&mut self, request: &Value, body: Value) {
        self.seq += 1;
        let reply = json!({"seq": self.seq, "type": "response", "request_seq": request["seq"], "success": true, "command": request["command"], "body": body}).to_string();
        self.send_raw(format!("Content-Length: {}\r\n\r\n{reply}", reply.len()).as_bytes());
    }

    /// The body of the next `stopped` event.
    pub fn stopped(&mut self) -> Value {
        self.event("stopped")["body"].clone()
    }

    /// All program output received so far as `output` events of category stdout.
    pub fn program_output(&mut self) -> String {
        let mut text = String::new();
        self.events.retain(|e| {
            if e["event"] == "output" && e["body"]["category"] == "stdout" {
                text.push_str(e["body"]["output"].as_str().unwrap_or_default());
                false
            } else {
                true
            }
        });
        text
    }

    /// initialize + launch + configurationDone, stopped on entry.
    pub fn launch(&mut self, args: Value) -> Value {
        self.ok(
            "initialize",
            json!({"adapterID": "asmdbg", "linesStartAt1": true}),
        );
        let mut args = args;
        args["console"] = json!("internalConsole");
        self.ok("launch", args);
        self.event("initialized");
        self.ok("configurationDone", json!({}));
        self.stopped()
    }

    /// Frame 0 of the stack: (function, line, instruction pointer).
    pub fn top(&mut self) -> (String, i64, String) {
        let st = self.ok("stackTrace", json!({"threadId": 1}));
        let f = &st["stackFrames"][0];
        (
            f["name"].as_str().unwrap_or_default().to_string(),
            f["line"].as_i64().unwrap_or(0),
            f["instructionPointerReference"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        )
    }

    /// The stack's function names.
    pub fn frames(&mut self) -> Vec<String> {
        let st = self.ok("stackTrace", json!({"threadId": 1}));
        st["stackFrames"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|f| f["name"].as_str().unwrap_or("").to_string())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// A variable of a scope by name: its value.
    pub fn variable(&mut self, reference: i64, name: &str) -> String {
        let vars = self.ok("variables", json!({"variablesReference": reference}));
        vars["variables"]
            .as_array()
            .and_then(|a| a.iter().find(|v| v["name"] == name))
            .and_then(|v| v["value"].as_str())
            .unwrap_or_else(|| panic!("no variable {name} under {reference}: {vars}"))
            .to_string()
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether the adapter process has ended (within a while).
    pub fn exits(&mut self) -> bool {
        let deadline = Instant::now() + PATIENCE;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return true;
            }
            thread::sleep(Duration::from_millis(20));
        }
        false
    }
}

impl Drop for DapClient {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
