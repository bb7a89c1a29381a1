//! asmdbg in the browser: the very DAP session `asmdbg dap` serves (asmdbg-session's
//! [`DapServer`]) and the three machines, built for wasm32-unknown-unknown and bound with
//! wasm-bindgen for the page's Web Worker (web/app/worker.ts). The page speaks DAP to it as
//! JSON messages; the worker runs the session's bursts and yields between them, so the page
//! stays responsive and `pause` is heard within a burst.
//!
//! Nothing here opens a file, a socket or a thread: the program's files are the page's
//! (`set_file`), its console is the client's (`output` events; input as `asmdbgKey`
//! requests or the launch's `input` file) and the clock is the browser's
//! (`asmdbg_core::clock`). The machines are interpreted (their compilers emit x86-64).
//!
//! The same code compiles natively (an rlib), so `cargo test -p asmdbg-web` tests the
//! launcher and the message flow, and web/test/binding.test.mjs tests the WebAssembly build
//! under node.

mod launch;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use asmdbg_core::clock::Instant;
use asmdbg_session::dap::wire::encode;
use asmdbg_session::dap::DapServer;
use wasm_bindgen::prelude::*;

pub use launch::{launch, launcher, Files, HISTORY_MB};

/// One debug session of the page: a DAP server whose launcher reads the page's files.
#[wasm_bindgen]
pub struct WebSession {
    server: DapServer,
    files: Files,
    ended: bool,
}

impl Default for WebSession {
    fn default() -> Self {
        WebSession::new()
    }
}

#[wasm_bindgen]
impl WebSession {
    #[wasm_bindgen(constructor)]
    pub fn new() -> WebSession {
        let files: Files = Arc::new(Mutex::new(BTreeMap::new()));
        WebSession {
            server: DapServer::new(launcher(files.clone())),
            files,
            ended: false,
        }
    }

    /// Holds a file for the next `launch` (a program file, an include, input or keys).
    pub fn set_file(&mut self, name: &str, text: &str) {
        if let Ok(mut files) = self.files.lock() {
            files.insert(name.to_string(), text.as_bytes().to_vec());
        }
    }

    /// Forgets every file.
    pub fn clear_files(&mut self) {
        if let Ok(mut files) = self.files.lock() {
            files.clear();
        }
    }

    /// One message from the client, as JSON text. Text that is not JSON is answered as the
    /// adapter answers a damaged message (an `output` event saying so).
    pub fn send(&mut self, message: &str) {
        let value = serde_json::from_str::<serde_json::Value>(message)
            .unwrap_or_else(|_| serde_json::Value::String(message.to_string()));
        self.server.on_bytes(&encode(&value));
    }

    /// What the worker does next, as JSON text: `messages` for the client (each a DAP
    /// message), `run` (call [`WebSession::run_burst`] now), `wakeMs` (nothing needs doing
    /// for this long unless a message comes; absent: until a message comes) and `ended`.
    pub fn poll(&mut self) -> String {
        let now = Instant::now();
        let poll = self.server.poll(now);
        self.ended |= poll.ended;
        let wake = poll
            .deadline
            .map(|d| d.saturating_duration_since(now).as_secs_f64() * 1000.0);
        let messages = split_frames(&poll.to_client);
        let mut out = String::from("{\"messages\":[");
        out.push_str(&messages.join(","));
        out.push_str("],\"run\":");
        out.push_str(if poll.run && !poll.ended {
            "true"
        } else {
            "false"
        });
        if let Some(ms) = wake {
            out.push_str(&format!(",\"wakeMs\":{ms:.3}"));
        }
        out.push_str(",\"ended\":");
        out.push_str(if self.ended { "true" } else { "false" });
        out.push('}');
        out
    }

    /// Runs one burst of the launched program (its motion: continue, a step, a reverse run).
    pub fn run_burst(&mut self) {
        self.server.run_burst();
    }
}

/// The JSON bodies of the framed messages in `bytes` (the server writes whole frames:
/// `Content-Length: N`, a blank line, N bytes of JSON).
fn split_frames(bytes: &[u8]) -> Vec<&str> {
    let mut messages = Vec::new();
    let mut rest = bytes;
    while let Some(header_end) = rest.windows(4).position(|w| w == b"\r\n\r\n") {
        let header = String::from_utf8_lossy(&rest[..header_end]);
        let length = header
            .lines()
            .find_map(|line| line.strip_prefix("Content-Length:"))
            .and_then(|n| n.trim().parse::<usize>().ok());
        let body_start = header_end + 4;
        let Some(length) = length.filter(|&n| body_start + n <= rest.len()) else {
            break;
        };
        if let Ok(text) = std::str::from_utf8(&rest[body_start..body_start + length]) {
            messages.push(text);
        }
        rest = &rest[body_start + length..];
    }
    messages
}

#[cfg(test)]
mod tests;
