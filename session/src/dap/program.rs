//! One launched program under the Debug Adapter Protocol: the requests that need the machine,
//! and the motions (continue, steps by line or instruction, step out, reverse) that run it in
//! bursts through the session core.
//!
//! Addresses the IDE sees are the machine's own (LC-3 `x3000`, MIPS `0x00400000`, SimpleRISC
//! code offsets as the course tools number them), formatted by the ISA; memory references are
//! those strings. Memory as bytes (`readMemory`/`writeMemory`) is gdb's byte view: an LC-3 word
//! at address A is the two bytes at 2·A (low byte first).
//!
//! Here: the program's state and [`LaunchedProgram::request`], which looks the command up in
//! the table of `program/requests.rs` (every request on one screen: its command, whether it
//! may come while the program runs, its handler). Each concern has its own file in `program/`:
//! `breakpoints.rs` (line, function, instruction and data breakpoints, conditions, hit counts,
//! log points), `motion.rs` (the run loop's bursts: continue, steps, step out, reverse, goto
//! and the stops they end in), `inspect.rs` (threads, frames, scopes, variables), `memory.rs`
//! (memory bytes and disassembly), `console.rs` (the debug console's `evaluate`, the display
//! panel's keys). Requests' arguments and responses' bodies are
//! typed in `../protocol.rs` and `../protocol/responses.rs`.

use std::collections::VecDeque;
use std::time::Instant;

use asmdbg_core::display::Frame;
use asmdbg_core::elf::dwarf::TypeEncoding;
use asmdbg_core::elf::unwind::{FrameSource, UnwoundFrame};
use asmdbg_core::gdb::{monitor_command, Debuggee, GdbMachine, ResumeMode};
use asmdbg_core::{RegisterScope, StopEvent, WatchKind};
use serde_json::{json, Value};

use super::display::{keys_of, KEY_REQUEST};
use super::expr::{self, sign_extend, ExprContext};
#[allow(
    clippy::wildcard_imports,
    reason = "the protocol's types are the vocabulary here"
)]
use super::protocol::*;
use super::view::DebugView;
use super::wire::{base64, unbase64};
use crate::core::{Reversed, RunCore};
use crate::discipline::Discipline;
use crate::frames::{FrameFacts, FrameId, GdbView};
use crate::reverse::{Outcome, ReverseMotion, Way};

mod breakpoints;
mod console;
mod inspect;
mod memory;
mod motion;
mod requests;

use requests::{reply, Request, When};

/// Single steps a line step takes per burst (a burst must end soon for `pause` to be heard).
const STEPS_PER_BURST: u32 = 20_000;
/// Keys pressed in the display panel that may wait for the machine to come back from the past.
const MAX_HELD_KEYS: usize = 1 << 16;
/// Instructions a line step runs at most before it gives up and stops where it is.
const LINE_STEP_LIMIT: u64 = 50_000_000;

/// Events and output for the client, in order.
#[derive(Default)]
pub struct Outbox {
    pub events: Vec<(String, Value)>,
}

impl Outbox {
    pub fn event(&mut self, name: &str, body: Value) {
        self.events.push((name.to_string(), body));
    }

    pub fn output(&mut self, category: &str, text: &str) {
        let output = OutputEventBody {
            category: Some(category.to_string()),
            output: text.to_string(),
        };
        self.event("output", body(&output));
    }

    /// `invalidated`: what the IDE shows of `areas` (of the one thread) is stale.
    pub fn invalidated(&mut self, areas: &[&str]) {
        let invalidated = InvalidatedEventBody {
            areas: Some(areas.iter().map(|a| a.to_string()).collect()),
            thread_id: Some(1),
        };
        self.event("invalidated", body(&invalidated));
    }

    /// `memory`: `count` bytes changed at `offset` from `reference`.
    pub fn memory(&mut self, reference: &str, offset: i64, count: u64) {
        let memory = MemoryEventBody {
            memory_reference: reference.to_string(),
            offset,
            count,
        };
        self.event("memory", body(&memory));
    }
}

/// What the server asks of a launched program.
pub trait LaunchedProgram: Send {
    /// A request other than the server's own; its response body or an error message.
    fn request(&mut self, command: &str, args: &Value, out: &mut Outbox) -> Result<Value, String>;
    /// After `configurationDone`: stop on entry or run.
    fn start(&mut self, stop_on_entry: bool, out: &mut Outbox);
    /// Whether to run a burst now, and until when nothing needs doing otherwise.
    fn run_state(&mut self, now: Instant) -> (bool, Option<Instant>);
    fn run_burst(&mut self, out: &mut Outbox);
    fn console_input(&mut self, bytes: &[u8]);
    fn console_input_end(&mut self);
    fn wants_input(&self) -> bool;
    fn take_output_chunk(&mut self) -> Option<Vec<u8>>;
    /// Whether output waits for the terminal console (as of the last `run_state`).
    fn output_pending(&self) -> bool;
    fn output_gone(&mut self);
    /// The program's end was reported: the session is over.
    fn terminated(&self) -> bool;
    /// What the program's display shows now; `None` for a program without one.
    fn frame(&self) -> Option<Frame> {
        None
    }
}

/// A breakpoint of the IDE's.
#[derive(Debug, Clone)]
struct Bp {
    id: i64,
    /// Native code address.
    addr: u64,
    condition: Option<String>,
    hit_condition: Option<String>,
    log_message: Option<String>,
    hits: u64,
}

/// A data breakpoint: a watched range.
#[derive(Debug, Clone)]
struct DataBp {
    id: i64,
    addr: u64,
    len: u64,
    kind: WatchKind,
}

/// Which breakpoints a request set: each request replaces its own kind's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BpKind {
    Source(usize),
    Function,
    Instruction,
}

/// What the machine is doing for the IDE.
#[derive(Debug, Clone)]
enum Motion {
    /// Running until something stops it; `step_over`: the first instruction is one a stop
    /// left (a breakpoint there must not stop it again).
    Continue {
        step_over: bool,
    },
    /// One instruction (`into`) or one instruction stepping over a call.
    Instruction {
        over_calls: bool,
    },
    /// By source line.
    Line {
        start: Option<(usize, u32)>,
        frame: FrameId,
        over_calls: bool,
        ran: u64,
    },
    /// Until a callee returns to `return_pc` (gdb address) in frame `caller`.
    Finish {
        return_pc: u64,
        caller_cfa: Option<u64>,
        then: Box<Motion>,
        /// Report a completed step when there (`stepOut`); otherwise continue `then`.
        report: bool,
        /// The instruction at the PC is one a stop left (a breakpoint there, the temporary one
        /// included, must not stop it again): it runs first. Not after a burst that ended on
        /// its own, where the PC may be the return address not reached yet.
        step_first: bool,
    },
    ReverseContinue,
    /// Back by line, or out of the frame backwards (reverse.rs).
    Reverse(ReverseMotion),
}

/// Variable references are fixed: 1 the Registers scope, 2 the FPU's, 3 the Data scope.
pub struct DapProgram<G: GdbMachine> {
    core: RunCore<G>,
    view: DebugView,
    /// The IDE's breakpoints of every kind; the machine's set is their union.
    bps: Vec<(BpKind, Bp)>,
    data_bps: Vec<DataBp>,
    /// The last id handed out (breakpoints of every kind share the numbering).
    next_id: i64,
    /// What the machine is doing for the IDE; `None`: stopped.
    motion: Option<Motion>,
    /// The fault of the last `exception` stop.
    exception: Option<String>,
    /// The last stop was that fault, at this instruction count: going on from there ends the
    /// program, as the fault ends it under `asmdbg run`.
    fault_at: Option<u64>,
    /// The program's end was reported (`exited`, `terminated`).
    terminated: bool,
    /// The program's frames and lines, from its debug information.
    facts: FrameFacts,
    /// Keys pressed in the IDE's display panel that the machine has not been given: those
    /// pressed while it is in the past wait until it is back at the end of its history.
    held_keys: VecDeque<u8>,
}

/// The machine and its labels, for expressions.
struct Names<'a, G: GdbMachine> {
    machine: &'a G,
    view: &'a DebugView,
}

impl<G: GdbMachine> ExprContext for Names<'_, G> {
    fn register(&self, name: &str) -> Option<i64> {
        let m = self.machine;
        if name.eq_ignore_ascii_case("pc") {
            return Some(m.pc() as i64);
        }
        let regs = m.registers();
        let index = regs
            .iter()
            .position(|r| {
                let bare = r.name.strip_prefix('$').unwrap_or(r.name);
                bare.eq_ignore_ascii_case(name)
            })
            .or_else(|| {
                m.register_aliases()
                    .iter()
                    .find(|(alias, _)| alias.eq_ignore_ascii_case(name))
                    .map(|&(_, i)| i)
            })?;
        let value = m.read_register(index)?;
        Some(sign_extend(value, regs[index].bits))
    }

    fn label(&self, name: &str) -> Option<u64> {
        let (gdb, code) = self.view.label(name)?;
        Some(if code {
            self.machine.gdb_code_to_native(gdb)
        } else {
            self.machine.gdb_to_native(gdb).0
        })
    }

    fn word(&self, addr: u64) -> Option<i64> {
        let m = self.machine;
        let bits = (8 * m.unit_bytes() * m.word_units()).min(32);
        m.peek_word(addr)
            .ok()
            .map(|w| sign_extend(u64::from(w), bits))
    }
}

impl<G: GdbMachine> DapProgram<G> {
    pub fn new(
        target: Debuggee<G>,
        image: asmdbg_core::elf::ElfImage,
        discipline: Discipline,
    ) -> Self {
        let facts = FrameFacts::new(image.debug.clone());
        DapProgram {
            core: RunCore::new(target, discipline),
            view: DebugView::new(image),
            bps: Vec::new(),
            data_bps: Vec::new(),
            next_id: 1,
            motion: None,
            exception: None,
            fault_at: None,
            terminated: false,
            facts,
            held_keys: VecDeque::new(),
        }
    }

    /// Instructions per burst (default [`BURST`](crate::BURST)); tests use short bursts so that
    /// a motion that never stops is interrupted soon.
    pub fn with_burst(mut self, instructions: u64) -> Self {
        self.core.set_burst(instructions);
        self
    }

    /// Holds the running program to `per_second` instructions a second (`speed`).
    pub fn with_pace(mut self, per_second: Option<u64>) -> Self {
        if let Some(per_second) = per_second {
            self.core.set_pace(per_second);
        }
        self
    }

    fn machine(&self) -> &G {
        &self.core.target.machine
    }

    /// The user changed the machine (a register, memory, the PC): in the past that ends the
    /// recorded future; a fault stop's instruction may now go on.
    fn state_written(&mut self) {
        self.core.target.state_written();
        self.fault_at = None;
    }

    /// asmdbg's own notes (a change in the past dropped the recorded future) go to the Debug
    /// Console, not among the program's output.
    fn debugger_notes(&mut self, out: &mut Outbox) {
        let notes = std::mem::take(&mut self.core.target.debugger_notes);
        if !notes.is_empty() {
            out.output("console", &notes);
        }
    }

    /// Whether the machine is where the last stop, a fault, left it.
    fn at_fault(&self) -> bool {
        self.fault_at == Some(self.machine().instructions_executed())
    }

    fn fmt_addr(&self, native: u64) -> String {
        self.machine().isa().format_addr(native)
    }

    /// A memory reference or address typed by the user: an ISA notation or a label.
    fn parse_addr(&self, text: &str) -> Option<u64> {
        let t = text.trim();
        expr::number(t.strip_prefix('#').unwrap_or(t))
            .map(|n| n as u64)
            .or_else(|| self.names().label(t))
            // Every machine's addresses fit in 32 bits; larger numbers name nothing (and
            // scaled to gdb's view they would overflow).
            .filter(|&a| a <= u64::from(u32::MAX))
    }

    fn names(&self) -> Names<'_, G> {
        Names {
            machine: self.machine(),
            view: &self.view,
        }
    }

    fn pc_gdb(&self) -> u64 {
        self.machine().native_code_to_gdb(self.machine().pc())
    }

    fn frames(&self) -> Vec<UnwoundFrame> {
        self.facts.frames(self.machine())
    }

    fn frame_id(&self, frame: &UnwoundFrame, caller: bool) -> FrameId {
        self.facts.frame_id(frame, caller)
    }

    fn current_line(&self) -> Option<(usize, u32)> {
        self.view.loc(self.pc_gdb()).map(|l| (l.file, l.line))
    }

    fn new_id(&mut self) -> i64 {
        self.next_id += 1;
        self.next_id
    }

    /// `restart`, stopped or running (a running program is stopped first): what `monitor
    /// reset` does over gdb — the program reloaded with the launch's options (profile, keys,
    /// display), its pokes written again, the console's input read again from the start,
    /// history from here; breakpoints and watchpoints stay with the machine.
    fn restart(&mut self, out: &mut Outbox) {
        self.motion = None;
        self.core.target.resume = None;
        self.core.target.reverse_search = None;
        monitor_command(&mut self.core.target, "reset");
        self.terminated = false;
        self.exception = None;
        self.fault_at = None;
        self.stopped(out, "entry", None, Vec::new());
    }

    /// `exceptionInfo`: the fault the program stopped on.
    fn exception_info(&self) -> Result<ExceptionInfoResponseBody, String> {
        let message = self
            .exception
            .clone()
            .ok_or("the program did not stop on a fault")?;
        Ok(ExceptionInfoResponseBody {
            exception_id: "fault".to_string(),
            description: Some(message.clone()),
            break_mode: "always".to_string(),
            details: Some(ExceptionDetails {
                message: Some(message),
            }),
        })
    }
}

impl<G: GdbMachine> LaunchedProgram for DapProgram<G> {
    fn request(&mut self, command: &str, args: &Value, out: &mut Outbox) -> Result<Value, String> {
        let (when, handler) =
            Self::route(command).ok_or_else(|| format!("unknown request {command:?}"))?;
        if self.at_fault() && matches!(command, "continue" | "next" | "stepIn" | "stepOut") {
            // Past an unhandled fault the program ends, as under `asmdbg run` (and as a
            // process ends when gdb continues it past a fatal signal).
            let code = self.machine().fault_exit_status();
            self.end_program(code, out);
            return reply(Acknowledged {});
        }
        if when == When::Stopped && self.motion.is_some() {
            return Err(format!(
                "{command} needs the program stopped: pause it first"
            ));
        }
        let answer = handler(self, &Request { command, args }, out);
        self.debugger_notes(out);
        answer
    }

    fn start(&mut self, stop_on_entry: bool, out: &mut Outbox) {
        if stop_on_entry {
            self.stopped(out, "entry", None, Vec::new());
        } else {
            self.resume(Motion::Continue { step_over: false });
        }
    }

    fn run_state(&mut self, now: Instant) -> (bool, Option<Instant>) {
        self.release_keys();
        self.core.settle();
        if self.motion.is_none() {
            return (false, None);
        }
        let state = self.core.run_state(self.core.target.resume, now);
        (state.run, state.wake)
    }

    fn run_burst(&mut self, out: &mut Outbox) {
        self.run_motion(out);
        self.debugger_notes(out);
    }

    fn console_input(&mut self, bytes: &[u8]) {
        self.core.on_console_input(bytes);
    }

    fn console_input_end(&mut self) {
        self.core.on_console_input_end();
    }

    fn wants_input(&self) -> bool {
        self.core.wants_input()
    }

    fn take_output_chunk(&mut self) -> Option<Vec<u8>> {
        self.core.take_output_chunk()
    }

    fn output_pending(&self) -> bool {
        self.core.output_pending()
    }

    fn output_gone(&mut self) {
        self.core.on_console_output_gone();
    }

    fn terminated(&self) -> bool {
        self.terminated
    }

    fn frame(&self) -> Option<Frame> {
        self.machine().frame()
    }
}
