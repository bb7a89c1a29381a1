//! The session model's clients: gdb's side of an RSP session and an IDE's side of a DAP
//! session, in memory, and the protocols' encodings they need.

use std::collections::VecDeque;
use std::time::Instant;

use asmdbg_core::gdb::{Debuggee, GdbMachine};
use asmdbg_session::dap::protocol::LaunchArguments;
pub(super) use asmdbg_session::dap::wire::base64;
use asmdbg_session::dap::wire::{encode, unbase64, DapFramer, Incoming};
use asmdbg_session::dap::{DapProgram, DapServer, Launched};
use asmdbg_session::{rsp_packet, Discipline, LineMode, RspSession};
use serde_json::{json, Value};

use super::BURST;

/// A stop as the protocol reported it.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Seen {
    /// RSP: a stop reply's signal and its `key:value` pairs (`W` exit: signal None).
    Rsp {
        signal: Option<u8>,
        pairs: Vec<(String, String)>,
        exit: Option<u8>,
    },
    /// DAP: the `stopped` event's reason and description, or the end (`exited`).
    Dap {
        reason: String,
        description: Option<String>,
    },
    DapExited(i64),
    /// A request that does not stop (goto, write): the state is checked all the same.
    Nothing,
}

/// The registers as the DAP's Registers scope lists them: (name, value).
pub(super) fn dap_registers<G: GdbMachine>(m: &G) -> Vec<(String, String)> {
    m.registers()
        .iter()
        .enumerate()
        .filter(|(i, _)| m.register_scope(*i) == asmdbg_core::RegisterScope::General)
        .filter_map(|(i, r)| {
            let v = m.read_register(i)?;
            Some((m.register_label(i), m.format_register(r, v)))
        })
        .collect()
}

pub(super) fn gdb_raw<G: GdbMachine>(m: &G, start: u64, end: u64) -> Vec<u8> {
    (start..end)
        .map_while(|a| m.gdb_read_byte(a).ok())
        .collect()
}

pub(super) fn gdb_bytes<G: GdbMachine>(m: &G, start: u64, end: u64) -> String {
    hex(&gdb_raw(m, start, end))
}

pub(super) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A stop reply: `S05`, `T05watch:6026;...`, `W00`.
pub(super) fn parse_stop(reply: &str) -> Seen {
    let signal = |s: &str| u8::from_str_radix(s.get(..2).unwrap_or(""), 16).ok();
    if let Some(rest) = reply.strip_prefix('W') {
        return Seen::Rsp {
            signal: None,
            pairs: Vec::new(),
            exit: signal(rest),
        };
    }
    let body = reply.strip_prefix('S').or_else(|| reply.strip_prefix('T'));
    let Some(body) = body else {
        return Seen::Rsp {
            signal: None,
            pairs: vec![("reply".to_string(), reply.to_string())],
            exit: None,
        };
    };
    let pairs = body
        .get(2..)
        .unwrap_or("")
        .split(';')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once(':').unwrap_or((p, ""));
            (k.to_string(), v.to_string())
        })
        .collect();
    Seen::Rsp {
        signal: signal(body),
        pairs,
        exit: None,
    }
}

/// A packet's payload with gdb's run-length encoding (`X*n`: X repeated n - 29 more times)
/// undone.
pub(super) fn run_length_decoded(payload: &[u8]) -> String {
    let mut out: Vec<u8> = Vec::new();
    let mut i = 0;
    while i < payload.len() {
        if payload[i] == b'*' && i + 1 < payload.len() {
            if let Some(&last) = out.last() {
                let n = usize::from(payload[i + 1]).saturating_sub(29);
                out.extend(std::iter::repeat(last).take(n));
            }
            i += 2;
        } else {
            out.push(payload[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A gdb connection to an RSP session, in memory.
pub(super) struct RspWire<G: GdbMachine> {
    pub(super) session: RspSession<G>,
    pub(super) from_stub: Vec<u8>,
    /// What the stub wrote on gdb's console (`O` packets while the machine ran).
    pub(super) gdb_console: String,
}

impl<G: GdbMachine> RspWire<G> {
    pub(super) fn new(target: Debuggee<G>, debug: asmdbg_core::elf::ElfDebug) -> Self {
        let mut session = RspSession::new(target, Discipline::new(LineMode::Raw, false))
            .with_burst(BURST)
            .with_frames(debug);
        session.on_connect(Instant::now());
        let mut wire = RspWire {
            session,
            from_stub: Vec::new(),
            gdb_console: String::new(),
        };
        wire.session.on_bytes(
            format!("+{}", rsp_packet("QStartNoAckMode")).as_bytes(),
            Instant::now(),
        );
        wire.poll();
        let _ = wire.reply();
        wire
    }

    pub(super) fn poll(&mut self) -> asmdbg_session::Poll {
        let poll = self.session.poll(Instant::now());
        self.from_stub.extend_from_slice(&poll.to_gdb);
        poll
    }

    pub(super) fn send(&mut self, payload: &str) {
        self.session
            .on_bytes(rsp_packet(payload).as_bytes(), Instant::now());
    }

    /// The next whole packet's payload, taken (acknowledgements before it dropped).
    pub(super) fn reply(&mut self) -> Option<String> {
        let start = self.from_stub.iter().position(|&b| b == b'$')?;
        let hash = start + self.from_stub[start..].iter().position(|&b| b == b'#')?;
        if self.from_stub.len() < hash + 3 {
            return None;
        }
        let payload = run_length_decoded(&self.from_stub[start + 1..hash]);
        self.from_stub.drain(..hash + 3);
        Some(payload)
    }

    /// The next packet that is not console output (`O` packets go to `gdb_console`).
    pub(super) fn stop_reply(&mut self) -> Option<String> {
        loop {
            let reply = self.reply()?;
            match reply.strip_prefix('O') {
                Some(hex) if reply != "OK" => {
                    let bytes: Vec<u8> = (0..hex.len() / 2)
                        .filter_map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok())
                        .collect();
                    self.gdb_console.push_str(&String::from_utf8_lossy(&bytes));
                }
                _ => return Some(reply),
            }
        }
    }

    /// A request answered at once; its reply (console `O` packets skipped).
    pub(super) fn request(&mut self, payload: &str) -> Result<String, String> {
        self.send(payload);
        self.poll();
        loop {
            match self.reply() {
                Some(r) if r.starts_with('O') && r != "OK" => continue,
                Some(r) => return Ok(r),
                None => return Err(format!("no reply to {payload}")),
            }
        }
    }

    pub(super) fn expect_ok(&mut self, payload: &str) -> Result<(), String> {
        match self.request(payload)? {
            r if r == "OK" => Ok(()),
            r => Err(format!("{payload} answered {r}")),
        }
    }

    /// `monitor CMD`'s text.
    pub(super) fn monitor(&mut self, command: &str) -> Result<String, String> {
        self.send(&format!("qRcmd,{}", hex(command.as_bytes())));
        self.poll();
        let mut text = Vec::new();
        loop {
            match self.reply() {
                Some(r) if r.starts_with('O') && r != "OK" => {
                    let h = &r[1..];
                    for i in (0..h.len().saturating_sub(1)).step_by(2) {
                        if let Ok(b) = u8::from_str_radix(&h[i..i + 2], 16) {
                            text.push(b);
                        }
                    }
                }
                Some(r) if r == "OK" => return Ok(String::from_utf8_lossy(&text).into_owned()),
                Some(r) => {
                    // A reply of hex text (gdbstub's console output packet for monitor).
                    return Ok(format!("{} {r}", String::from_utf8_lossy(&text)));
                }
                None => return Err(format!("no reply to monitor {command}")),
            }
        }
    }
}

/// A DAP client of a DAP server, in memory.
pub(super) struct DapWire {
    pub(super) server: DapServer,
    pub(super) framer: DapFramer,
    pub(super) seq: i64,
    pub(super) events: VecDeque<Value>,
    pub(super) responses: VecDeque<Value>,
    /// Program output (category stdout) not yet taken.
    pub(super) stdout: Vec<u8>,
    /// asmdbg's own notes (category console).
    pub(super) debugger_console: String,
}

impl DapWire {
    pub(super) fn new<G: GdbMachine>(
        target: Debuggee<G>,
        image: asmdbg_core::elf::ElfImage,
    ) -> Self {
        let mut slot = Some((target, image));
        let server = DapServer::new(Box::new(move |_args: &LaunchArguments| {
            let (target, image) = slot.take().ok_or("launched once only")?;
            let program = DapProgram::new(target, image, Discipline::new(LineMode::Raw, false))
                .with_burst(BURST);
            Ok(Launched {
                program: Box::new(program),
                terminal: None,
                warnings: String::new(),
            })
        }));
        DapWire {
            server,
            framer: DapFramer::default(),
            seq: 0,
            events: VecDeque::new(),
            responses: VecDeque::new(),
            stdout: Vec::new(),
            debugger_console: String::new(),
        }
    }

    /// Polls once: takes what the server sent; whether it wants a burst.
    pub(super) fn poll(&mut self) -> bool {
        let poll = self.server.poll(Instant::now());
        self.take(&poll.to_client);
        poll.run
    }

    pub(super) fn take(&mut self, bytes: &[u8]) {
        let mut messages = Vec::new();
        self.framer.push(bytes, &mut messages);
        for message in messages {
            let Incoming::Message(m) = message else {
                continue;
            };
            // Every message the model's sessions receive is checked against the schema.
            if let Err(e) = asmdbg_testsupport::dap_schema::check_sent(&m) {
                panic!("{e}");
            }
            match m["type"].as_str() {
                Some("response") => self.responses.push_back(m),
                // The program's console; asmdbg's own messages (stderr, console) are not.
                Some("event") if m["event"] == "output" && m["body"]["category"] == "stdout" => {
                    let text = m["body"]["output"].as_str().unwrap_or("");
                    self.stdout.extend_from_slice(text.as_bytes());
                }
                Some("event") if m["event"] == "output" && m["body"]["category"] == "console" => {
                    let text = m["body"]["output"].as_str().unwrap_or("");
                    self.debugger_console.push_str(text);
                }
                Some("event") if m["event"] == "output" => {}
                Some("event") => self.events.push_back(m),
                _ => {}
            }
        }
    }

    pub(super) fn request(&mut self, command: &str, arguments: Value) -> Result<Value, String> {
        self.seq += 1;
        let message =
            json!({"seq": self.seq, "type": "request", "command": command, "arguments": arguments});
        self.server.on_bytes(&encode(&message));
        self.poll();
        let seq = self.seq;
        match self.responses.iter().position(|r| r["request_seq"] == seq) {
            Some(i) => Ok(self.responses.remove(i).expect("found")),
            None => Err(format!("no response to {command}")),
        }
    }

    pub(super) fn ok(&mut self, command: &str, arguments: Value) -> Result<Value, String> {
        let r = self.request(command, arguments)?;
        if r["success"] != true {
            return Err(format!("{command} failed: {r}"));
        }
        Ok(r["body"].clone())
    }

    /// The stop or end the events carry, if one came.
    pub(super) fn take_stop(&mut self) -> Option<Seen> {
        while let Some(e) = self.events.pop_front() {
            match e["event"].as_str() {
                Some("stopped") => {
                    return Some(Seen::Dap {
                        reason: e["body"]["reason"].as_str().unwrap_or("").to_string(),
                        description: e["body"]["description"].as_str().map(String::from),
                    })
                }
                Some("exited") => {
                    return Some(Seen::DapExited(
                        e["body"]["exitCode"].as_i64().unwrap_or(-1),
                    ))
                }
                _ => {}
            }
        }
        None
    }

    pub(super) fn launch(&mut self) -> Result<(), String> {
        self.ok("initialize", json!({"adapterID": "asmdbg"}))?;
        self.ok(
            "launch",
            json!({"program": "model.asm", "console": "internalConsole"}),
        )?;
        self.ok("configurationDone", json!({}))?;
        match self.take_stop() {
            Some(Seen::Dap { reason, .. }) if reason == "entry" => Ok(()),
            other => Err(format!("no stop on entry: {other:?}")),
        }
    }

    pub(super) fn monitor(&mut self, command: &str) -> Result<String, String> {
        let body = self.ok(
            "evaluate",
            json!({"expression": format!("monitor {command}"), "context": "repl"}),
        )?;
        self.events.retain(|e| e["event"] != "invalidated");
        Ok(body["result"].as_str().unwrap_or("").to_string())
    }

    pub(super) fn count(&mut self) -> u64 {
        self.monitor("when")
            .ok()
            .and_then(|t| t.trim().strip_prefix("instruction ")?.trim().parse().ok())
            .unwrap_or(u64::MAX)
    }

    pub(super) fn jump(&mut self, gdb: u64) -> Result<Seen, String> {
        self.ok("goto", json!({"threadId": 1, "targetId": gdb}))?;
        Ok(self.take_stop().unwrap_or(Seen::Nothing))
    }

    pub(super) fn top_pc(&mut self) -> Result<String, String> {
        let body = self.ok("stackTrace", json!({"threadId": 1, "levels": 1}))?;
        Ok(body["stackFrames"][0]["instructionPointerReference"]
            .as_str()
            .unwrap_or("")
            .to_string())
    }

    pub(super) fn registers(&mut self) -> Result<Vec<(String, String)>, String> {
        let body = self.ok("variables", json!({"variablesReference": 1}))?;
        Ok(body["variables"]
            .as_array()
            .map(|vars| {
                vars.iter()
                    .map(|v| {
                        (
                            v["name"].as_str().unwrap_or("").to_string(),
                            v["value"].as_str().unwrap_or("").to_string(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default())
    }

    pub(super) fn memory(&mut self, gdb: u64, count: u64) -> Result<Vec<u8>, String> {
        let body = self.ok(
            "readMemory",
            json!({"memoryReference": "0", "offset": gdb, "count": count}),
        )?;
        Ok(unbase64(body["data"].as_str().unwrap_or("")).unwrap_or_default())
    }
}
