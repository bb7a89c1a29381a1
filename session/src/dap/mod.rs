//! The Debug Adapter Protocol session of asmdbg without any I/O: the client's bytes go in,
//! the adapter's bytes and decisions come out, like the RSP session beside it.
//!
//! [`DapServer`] frames messages ([`wire`]), answers what needs no program (`initialize`,
//! requests before `launch`, damaged messages), builds the program through the binary's
//! launcher at `launch`, and hands every other request to it ([`program::DapProgram`], generic
//! over the machine and boxed behind [`program::LaunchedProgram`]). Nothing a client sends
//! ends the session but `disconnect` and `terminate`: an unknown or malformed request gets
//! `success: false` with a message.
//!
//! The game's console is either the client's (`internalConsole`: output as `output` events,
//! input typed in the debug console after `>`) or a terminal the binary wires up (the server
//! asks the client to run the binary's command in its terminal with `runInTerminal`).

pub mod display;
pub mod expr;
pub mod program;
pub mod protocol;
pub mod view;
pub mod wire;

use std::time::Instant;

use serde_json::{json, Value};

use display::{DisplayFeed, DISPLAY_EVENT, FRAME_REQUEST};
pub use program::{DapProgram, LaunchedProgram, Outbox};
use protocol::{
    arguments, body, Acknowledged, Capabilities, ErrorResponseBody, InitializeRequestArguments,
    LaunchArguments, Message, Outgoing, RunInTerminalRequestArguments, ThreadEventBody,
    ThreadsResponseBody,
};
use wire::{encode, DapFramer, Incoming};

/// What the launcher built for a `launch` request.
pub struct Launched {
    pub program: Box<dyn LaunchedProgram>,
    /// The console is a terminal: the command the client should run in it (`runInTerminal`)
    /// and where it is, for a client that cannot.
    pub terminal: Option<(Vec<String>, String)>,
    /// The assembler's warnings, as `asmdbg run` prints them on stderr (empty: none).
    pub warnings: String,
}

/// Builds the program a `launch` request names (its arguments as sent); errors are shown to
/// the user as they are (every assembly error, file:line:col).
pub type Launcher = Box<dyn FnMut(&LaunchArguments) -> Result<Launched, String> + Send>;

/// What the caller should do next, from [`DapServer::poll`].
#[derive(Debug, Default)]
pub struct DapPoll {
    /// Bytes for the client, to be written before anything else happens.
    pub to_client: Vec<u8>,
    /// Run a burst now ([`DapServer::run_burst`]).
    pub run: bool,
    /// Nothing needs doing before this unless something arrives.
    pub deadline: Option<Instant>,
    /// The program's terminal console wants input.
    pub wants_input: bool,
    /// Output for the program's terminal console waits in [`DapServer::take_output_chunk`].
    pub output_pending: bool,
    /// The client ended the session (or the program ended and was reported).
    pub ended: bool,
}

/// The adapter's capabilities, as `initialize` answers them.
pub fn capabilities() -> Capabilities {
    Capabilities {
        supports_configuration_done_request: true,
        supports_function_breakpoints: true,
        supports_conditional_breakpoints: true,
        supports_hit_conditional_breakpoints: true,
        supports_log_points: true,
        supports_evaluate_for_hovers: true,
        supports_set_variable: true,
        supports_step_back: true,
        supports_restart_request: true,
        supports_goto_targets_request: true,
        supports_exception_info_request: true,
        supports_terminate_request: true,
        supports_data_breakpoints: true,
        supports_read_memory_request: true,
        supports_write_memory_request: true,
        supports_disassemble_request: true,
        supports_stepping_granularity: true,
        supports_instruction_breakpoints: true,
        supports_value_formatting_options: false,
        exception_breakpoint_filters: Vec::new(),
    }
}

pub struct DapServer {
    framer: DapFramer,
    seq: i64,
    out: Vec<u8>,
    launcher: Launcher,
    program: Option<Box<dyn LaunchedProgram>>,
    stop_on_entry: bool,
    /// Program output goes to the client as `output` events.
    console_events: bool,
    client_runs_terminals: bool,
    ended: bool,
    /// The `terminated` event was sent.
    terminated_sent: bool,
    /// The frames of the program's display the client was sent.
    display: DisplayFeed,
}

impl DapServer {
    pub fn new(launcher: Launcher) -> Self {
        DapServer {
            framer: DapFramer::default(),
            seq: 0,
            out: Vec::new(),
            launcher,
            program: None,
            stop_on_entry: true,
            console_events: true,
            client_runs_terminals: false,
            ended: false,
            terminated_sent: false,
            display: DisplayFeed::default(),
        }
    }

    fn send(&mut self, message: Outgoing) {
        self.seq += 1;
        self.out.extend(encode(&body(&message.numbered(self.seq))));
    }

    fn respond(&mut self, request_seq: i64, command: &str, result: Result<Value, String>) {
        let (success, message, answer) = match result {
            Ok(answer) => (true, None, answer),
            Err(message) => {
                let error = ErrorResponseBody {
                    error: Some(Message {
                        id: 1,
                        format: message.clone(),
                    }),
                };
                (false, Some(message), body(&error))
            }
        };
        self.send(Outgoing::Response {
            seq: 0,
            request_seq,
            success,
            command: command.to_string(),
            message,
            body: answer,
        });
    }

    fn flush_outbox(&mut self, outbox: Outbox) {
        for (event, body) in outbox.events {
            if event == "terminated" {
                if self.terminated_sent {
                    continue;
                }
                self.terminated_sent = true;
            }
            // The display as the program left it: its last frame before it ends.
            if event == "exited" {
                self.send_frame(false);
            }
            let shown = matches!(event.as_str(), "stopped" | "invalidated" | "memory");
            self.send(Outgoing::event(&event, Some(body)));
            // The display where the machine stopped, or as the user changed it.
            if shown {
                self.send_frame(false);
            }
        }
    }

    /// An `asmdbgDisplay` event with the program's frame, when it has a display and the
    /// client has not seen this frame (or `always`).
    fn send_frame(&mut self, always: bool) {
        let frame = self.program.as_ref().and_then(|p| p.frame());
        if let Some(body) = self.display.update(frame, always) {
            self.send(Outgoing::event(DISPLAY_EVENT, Some(body)));
        }
    }

    /// Bytes from the client, as they were read.
    pub fn on_bytes(&mut self, bytes: &[u8]) {
        let mut messages = Vec::new();
        self.framer.push(bytes, &mut messages);
        for message in messages {
            match message {
                Incoming::Damaged(why) => self.unanswerable(&why),
                Incoming::Message(value) => self.on_message(value),
            }
        }
    }

    /// Input that cannot be answered: a frame that is not a message, or a request without its
    /// sequence number. The protocol has no response without a request's `seq` (numbered from
    /// 1), so the user is told in an `output` event (VS Code shows `important` ones as a
    /// notification).
    fn unanswerable(&mut self, why: &str) {
        log::warn!("DAP: {why}");
        let mut outbox = Outbox::default();
        outbox.output(
            "important",
            &format!("asmdbg skipped a message from the client: {why}\n"),
        );
        self.flush_outbox(outbox);
    }

    fn on_message(&mut self, message: Value) {
        let seq = message.get("seq").and_then(Value::as_i64).unwrap_or(0);
        let kind = message.get("type").and_then(Value::as_str).unwrap_or("");
        if kind == "response" {
            // The client's answer to runInTerminal: only a failure matters.
            if message.get("success") == Some(&json!(false)) {
                let why = message
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("refused");
                let mut outbox = Outbox::default();
                outbox.output(
                    "important",
                    &format!("the terminal for the program's console could not be opened: {why}\n"),
                );
                self.flush_outbox(outbox);
            }
            return;
        }
        let Some(command) = message
            .get("command")
            .and_then(Value::as_str)
            .map(String::from)
        else {
            let why = "a request needs a `command`".to_string();
            if seq >= 1 {
                self.respond(seq, "", Err(why));
            } else {
                self.unanswerable(&why);
            }
            return;
        };
        if kind != "request" {
            let why = format!("a message of type {kind:?} is not a request");
            if seq >= 1 {
                self.respond(seq, &command, Err(why));
            } else {
                self.unanswerable(&why);
            }
            return;
        }
        let args = message.get("arguments").cloned().unwrap_or(json!({}));
        let mut outbox = Outbox::default();
        let result = self.request(&command, &args, &mut outbox);
        // Configuration requests (breakpoints, exception filters) need the program: the
        // adapter is ready for them once a launch has succeeded, not after `initialize`, so a
        // failed launch is the one error the user sees.
        let ready = command == "launch" && result.is_ok();
        self.respond(seq, &command, result);
        if ready {
            self.send(Outgoing::event("initialized", None));
            // The first frame: a client that shows displays opens one for it.
            self.send_frame(true);
        }
        self.flush_outbox(outbox);
    }

    /// The server's own requests, then the launched program's (program/requests.rs).
    fn request(&mut self, command: &str, args: &Value, out: &mut Outbox) -> Result<Value, String> {
        match command {
            "initialize" => self.initialize(arguments(command, args)?),
            "launch" => self.launch(arguments(command, args)?, out),
            "attach" => Err("asmdbg launches programs; use a launch configuration".to_string()),
            "configurationDone" => self.configuration_done(out),
            "disconnect" | "terminate" => self.end(command == "terminate", out),
            FRAME_REQUEST => self.frame(),
            _ => match &mut self.program {
                Some(p) => p.request(command, args, out),
                None if command == "threads" => Ok(body(&ThreadsResponseBody::default())),
                None => Err(format!("{command} before launch: launch a program first")),
            },
        }
    }

    fn initialize(&mut self, args: InitializeRequestArguments) -> Result<Value, String> {
        self.client_runs_terminals = args.supports_run_in_terminal_request == Some(true);
        Ok(body(&capabilities()))
    }

    /// `launch`: the launcher builds the program; its console is the debug console or a
    /// terminal the client is asked to open.
    fn launch(&mut self, mut args: LaunchArguments, out: &mut Outbox) -> Result<Value, String> {
        if self.program.is_some() {
            return Err("a program is already launched".to_string());
        }
        // Without a `console` attribute the game gets a terminal when the client can open one
        // (as the extension's schema defaults), else the debug console.
        if args.console.is_none() {
            let console = if self.client_runs_terminals {
                "integratedTerminal"
            } else {
                "internalConsole"
            };
            args.console = Some(console.to_string());
        }
        let launched = (self.launcher)(&args)?;
        self.stop_on_entry = args.stop_on_entry.unwrap_or(true);
        self.console_events = launched.terminal.is_none();
        if let Some((command, place)) = &launched.terminal {
            if self.client_runs_terminals {
                let arguments = RunInTerminalRequestArguments {
                    kind: "integrated".to_string(),
                    title: "asmdbg console".to_string(),
                    cwd: String::new(),
                    args: command.clone(),
                };
                self.send(Outgoing::Request {
                    seq: 0,
                    command: "runInTerminal".to_string(),
                    arguments: body(&arguments),
                });
            } else {
                out.output(
                    "important",
                    &format!(
                        "the program's console is {place}: run `{}` in a terminal\n",
                        command.join(" ")
                    ),
                );
            }
        }
        if !launched.warnings.is_empty() {
            out.output("stderr", &launched.warnings);
        }
        self.program = Some(launched.program);
        // The thread exists from now on: a client can name it (nvim-dap pauses only a
        // thread it knows of).
        let thread = ThreadEventBody {
            reason: "started".to_string(),
            thread_id: 1,
        };
        out.event("thread", body(&thread));
        Ok(body(&Acknowledged {}))
    }

    fn configuration_done(&mut self, out: &mut Outbox) -> Result<Value, String> {
        let stop = self.stop_on_entry;
        let program = self
            .program
            .as_mut()
            .ok_or("configurationDone before launch")?;
        program.start(stop, out);
        Ok(body(&Acknowledged {}))
    }

    /// `disconnect`, or `terminate` (which the client hears as `terminated`).
    fn end(&mut self, terminate: bool, out: &mut Outbox) -> Result<Value, String> {
        self.ended = true;
        if terminate {
            out.event("terminated", json!({}));
        }
        Ok(body(&Acknowledged {}))
    }

    /// `asmdbgFrame`: the display's frame now, whether or not the client has seen it.
    fn frame(&mut self) -> Result<Value, String> {
        let frame = self.program.as_ref().and_then(|p| p.frame());
        let frame = frame.ok_or("the program has no display (LC-3: `display`; MIPS: `bitmap`)")?;
        let body = display::frame_body(&frame);
        self.display.update(Some(frame), true);
        Ok(body)
    }

    /// What to do next.
    pub fn poll(&mut self, now: Instant) -> DapPoll {
        let mut poll = DapPoll::default();
        if let Some(program) = &mut self.program {
            let (run, deadline) = program.run_state(now);
            poll.run = run;
            poll.deadline = deadline;
            poll.wants_input = program.wants_input();
            // Only when there is output: a ready terminal with nothing to send must not wake
            // the caller's loop again and again.
            poll.output_pending = !self.console_events && program.output_pending();
        }
        // A running program's frame, at most every FRAME_INTERVAL; one drawn by the last burst
        // before the program blocked (waiting for a key) goes out when due.
        match self.display.due(now) {
            Ok(()) => self.send_frame(false),
            Err(Some(due)) => {
                poll.deadline = Some(poll.deadline.map_or(due, |d| d.min(due)));
            }
            Err(None) => {}
        }
        self.flush_program_output();
        poll.ended = self.ended;
        poll.to_client = std::mem::take(&mut self.out);
        poll
    }

    pub fn run_burst(&mut self) {
        let mut outbox = Outbox::default();
        if let Some(program) = &mut self.program {
            program.run_burst(&mut outbox);
            self.display.ran();
        }
        // What the program printed comes before the stop it printed it before.
        self.flush_program_output();
        self.flush_outbox(outbox);
    }

    /// The program's output as `output` events (the IDE's debug console is its console).
    fn flush_program_output(&mut self) {
        if !self.console_events {
            return;
        }
        let Some(program) = &mut self.program else {
            return;
        };
        let mut outbox = Outbox::default();
        while let Some(chunk) = program.take_output_chunk() {
            outbox.output("stdout", &String::from_utf8_lossy(&chunk));
        }
        self.flush_outbox(outbox);
    }

    /// The terminal console's input.
    pub fn on_console_input(&mut self, bytes: &[u8]) {
        if let Some(p) = &mut self.program {
            p.console_input(bytes);
        }
    }

    pub fn on_console_input_end(&mut self) {
        if let Some(p) = &mut self.program {
            p.console_input_end();
        }
    }

    /// The next chunk of output for the terminal console.
    pub fn take_output_chunk(&mut self) -> Option<Vec<u8>> {
        self.program.as_mut()?.take_output_chunk()
    }

    pub fn on_console_output_gone(&mut self) {
        if let Some(p) = &mut self.program {
            p.output_gone();
        }
    }

    /// Everything left for the client (the last write before the process ends).
    pub fn take_to_client(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.out)
    }
}
