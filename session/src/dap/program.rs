//! One launched program under the Debug Adapter Protocol: the requests that need the machine,
//! and the motions (continue, steps by line or instruction, step out, reverse) that run it in
//! bursts through the session core.
//!
//! Addresses the IDE sees are the machine's own (LC-3 `x3000`, MIPS `0x00400000`, SimpleRISC
//! code offsets as the course tools number them), formatted by the ISA; memory references are
//! those strings. Memory as bytes (`readMemory`/`writeMemory`) is gdb's byte view: an LC-3 word
//! at address A is the two bytes at 2·A (low byte first).

use std::collections::VecDeque;
use std::time::Instant;

use asmdbg_core::display::Frame;
use asmdbg_core::elf::dwarf::TypeEncoding;
use asmdbg_core::elf::unwind::{unwind, FrameSource, UnwoundFrame};
use asmdbg_core::gdb::{monitor_command, Debuggee, GdbMachine, ResumeMode};
use asmdbg_core::{RegisterScope, StopEvent, WatchKind};
use gdbstub::arch::{Arch, RegId};
use serde_json::{json, Value};

use super::display::{keys_of, KEY_REQUEST};
use super::expr::{self, sign_extend, ExprContext};
use super::protocol::{
    arguments, body, Conditions, DataBreakpointAccessType, DataBreakpointInfoArguments,
    DisassembleArguments, EvaluateArguments, ExitedEventBody, GotoArguments, GotoTargetsArguments,
    InvalidatedEventBody, MemoryEventBody, OutputEventBody, ReadMemoryArguments,
    SetBreakpointsArguments, SetDataBreakpointsArguments, SetFunctionBreakpointsArguments,
    SetInstructionBreakpointsArguments, SetVariableArguments, SourceBreakpoint,
    StackTraceArguments, StepArguments, StoppedEventBody, VariablesArguments, WriteMemoryArguments,
};
use super::view::DebugView;
use super::wire::{base64, unbase64};
use crate::core::{Reversed, RunCore};
use crate::discipline::Discipline;

/// Single steps a line step takes per burst (a burst must end soon for `pause` to be heard).
const STEPS_PER_BURST: u32 = 20_000;
/// Instructions a line step back goes back per burst: each is a seek in history, so fewer than
/// a forward step's (a burst must end soon for `pause` to be heard).
const REVERSE_STEPS_PER_BURST: u32 = 1_000;
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

/// A frame's identity: the function it runs and its CFA (as gdb's frame ids).
type FrameId = (Option<u64>, Option<u64>);

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
    ReverseLine {
        start: Option<(usize, u32)>,
        frame: FrameId,
    },
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
    /// gdb's number of the stack pointer (the CFA register at a function's entry).
    sp_regnum: u16,
    /// Keys pressed in the IDE's display panel that the machine has not been given: those
    /// pressed while it is in the past wait until it is back at the end of its history.
    held_keys: VecDeque<u8>,
}

/// The machine seen through gdb's numbering, for the unwinder.
struct GdbView<'a, G: GdbMachine>(&'a G);

impl<G: GdbMachine> FrameSource for GdbView<'_, G> {
    fn register(&self, regnum: u16) -> Option<u64> {
        let (id, _) = <<G::Arch as Arch>::RegId as RegId>::from_raw_id(usize::from(regnum))?;
        let mut buf = [0u8; 16];
        let n = self.0.gdb_read_register(id, &mut buf)?;
        let mut value = 0u64;
        for (i, b) in buf[..n.min(8)].iter().enumerate() {
            value |= u64::from(*b) << (8 * i);
        }
        Some(value)
    }

    fn memory(&self, addr: u64, size: u8) -> Option<u64> {
        let mut value = 0u64;
        for i in 0..u64::from(size.min(8)) {
            let b = self.0.gdb_read_byte(addr.wrapping_add(i)).ok()?;
            value |= u64::from(b) << (8 * i);
        }
        Some(value)
    }
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
        // gdb's number of the stack pointer: the CIE's CFA register at a function's entry.
        let sp_regnum = image
            .debug
            .frame_cie
            .as_ref()
            .and_then(|cie| {
                cie.initial.iter().find_map(|op| match op {
                    asmdbg_core::elf::CfaOp::DefCfa(reg, _) => Some(*reg),
                    _ => None,
                })
            })
            .unwrap_or(13);
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
            sp_regnum,
            held_keys: VecDeque::new(),
        }
    }

    /// Instructions per burst (default [`BURST`](crate::BURST)); tests use short bursts so that
    /// a motion that never stops is interrupted soon.
    pub fn with_burst(mut self, instructions: u64) -> Self {
        self.core.set_burst(instructions);
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
        unwind(
            &self.view.debug,
            &GdbView(self.machine()),
            self.pc_gdb(),
            self.sp_regnum,
        )
    }

    fn frame_id(&self, frame: &UnwoundFrame, caller: bool) -> FrameId {
        let lookup = if caller {
            frame.pc.wrapping_sub(1)
        } else {
            frame.pc
        };
        (self.view.function(lookup).map(|f| f.1), frame.cfa)
    }

    fn current_line(&self) -> Option<(usize, u32)> {
        self.view.loc(self.pc_gdb()).map(|l| (l.file, l.line))
    }

    fn new_id(&mut self) -> i64 {
        self.next_id += 1;
        self.next_id
    }

    /// The machine's breakpoint set is the union of every kind's.
    fn sync_breakpoints(&mut self) {
        let addrs: Vec<u64> = self.bps.iter().map(|(_, b)| b.addr).collect();
        let set = self.core.target.machine.breakpoints();
        set.clear();
        for addr in addrs {
            set.insert(addr);
        }
    }

    fn sync_watchpoints(&mut self) {
        let watches: Vec<DataBp> = self.data_bps.clone();
        let set = self.core.target.machine.watchpoints();
        set.clear();
        for w in watches {
            set.insert(w.addr, w.len, w.kind);
        }
    }

    fn make_bp(&mut self, kind: BpKind, addr: u64, spec: &impl Conditions) -> Bp {
        // Hit counts survive a re-send of the same breakpoint (the IDE sends a file's whole
        // list on every change).
        let hits = self
            .bps
            .iter()
            .find(|(k, b)| *k == kind && b.addr == addr)
            .map_or(0, |(_, b)| b.hits);
        Bp {
            id: self.new_id(),
            addr,
            condition: spec
                .condition()
                .filter(|c| !c.trim().is_empty())
                .map(String::from),
            hit_condition: spec
                .hit_condition()
                .filter(|c| !c.trim().is_empty())
                .map(String::from),
            log_message: spec.log_message().map(String::from),
            hits,
        }
    }

    /// Replaces the IDE's breakpoints of `kind` with `specs`, each placed by `place` at gdb
    /// code addresses (or refused, saying why); the answers, in order.
    fn replace_breakpoints<S: Conditions>(
        &mut self,
        kind: BpKind,
        specs: &[S],
        place: impl Fn(&Self, &S) -> Result<Vec<u64>, String>,
    ) -> Vec<Value> {
        let mut new = Vec::new();
        let mut answers = Vec::new();
        for spec in specs {
            match place(self, spec) {
                Ok(addrs) if !addrs.is_empty() => {
                    let mut answer = Value::Null;
                    for gdb in addrs {
                        let native = self.machine().gdb_code_to_native(gdb);
                        let bp = self.make_bp(kind, native, spec);
                        answer = self.verified(bp.id, gdb, self.view.loc(gdb));
                        new.push((kind, bp));
                    }
                    answers.push(answer);
                }
                placed => {
                    let why = placed.err().unwrap_or_else(|| "no code there".to_string());
                    let id = self.new_id();
                    answers.push(
                        json!({"id": id, "verified": false, "message": why, "reason": "failed"}),
                    );
                }
            }
        }
        self.bps.retain(|(k, _)| *k != kind);
        self.bps.extend(new);
        self.sync_breakpoints();
        answers
    }

    fn set_breakpoints(&mut self, args: &Value) -> Result<Value, String> {
        let args: SetBreakpointsArguments = arguments("setBreakpoints", args)?;
        let source = args.source.unwrap_or_default();
        let path = source
            .path
            .as_deref()
            .ok_or("setBreakpoints needs source.path")?;
        let specs = args.breakpoints.unwrap_or_default();
        let line_of = |spec: &SourceBreakpoint| spec.line.unwrap_or(0).max(0) as u32;
        let lines: Vec<u32> = specs.iter().map(line_of).collect();
        let mut answers = match self.view.file_index(path) {
            Some(file) => self.replace_breakpoints(BpKind::Source(file), &specs, |me, spec| {
                let line = line_of(spec);
                me.view
                    .line_addresses(file, line)
                    .map(|(_, addrs)| addrs)
                    .ok_or_else(|| format!("no code at or after line {line}"))
            }),
            // Not a file of the program: nothing is set, each is answered.
            None => lines
                .iter()
                .map(|_| {
                    let id = self.new_id();
                    json!({"id": id, "verified": false, "message": format!("{path} is not a file of this program"), "reason": "failed"})
                })
                .collect(),
        };
        // The IDE's own source object and, when refused, the line it asked for.
        for (answer, line) in answers.iter_mut().zip(lines) {
            if answer["verified"] == true {
                answer["source"] = body(&source);
            } else {
                answer["line"] = json!(line);
            }
        }
        Ok(json!({"breakpoints": answers}))
    }

    fn set_function_breakpoints(&mut self, args: &Value) -> Result<Value, String> {
        let args: SetFunctionBreakpointsArguments = arguments("setFunctionBreakpoints", args)?;
        let specs = args.breakpoints.unwrap_or_default();
        let answers = self.replace_breakpoints(BpKind::Function, &specs, |me, spec| {
            let name = spec.name.as_deref().unwrap_or("");
            me.view
                .function_named(name)
                .or_else(|| me.view.label(name).filter(|l| l.1).map(|l| l.0))
                .map(|gdb| vec![gdb])
                .ok_or_else(|| format!("no function or code label named {name:?}"))
        });
        Ok(json!({"breakpoints": answers}))
    }

    fn verified(&self, id: i64, gdb: u64, loc: Option<super::view::Loc>) -> Value {
        let native = self.machine().gdb_code_to_native(gdb);
        let mut b =
            json!({"id": id, "verified": true, "instructionReference": self.fmt_addr(native)});
        if let Some(loc) = loc {
            b["line"] = json!(loc.line);
            b["source"] = self.source(loc.file);
        }
        b
    }

    fn source(&self, file: usize) -> Value {
        match self.view.files.get(file) {
            Some(path) => {
                let name = path.rsplit('/').next().unwrap_or(path);
                json!({"name": name, "path": path})
            }
            None => Value::Null,
        }
    }

    fn set_instruction_breakpoints(&mut self, args: &Value) -> Result<Value, String> {
        let args: SetInstructionBreakpointsArguments =
            arguments("setInstructionBreakpoints", args)?;
        let specs = args.breakpoints.unwrap_or_default();
        let answers = self.replace_breakpoints(BpKind::Instruction, &specs, |me, spec| {
            let reference = spec.instruction_reference.as_deref().unwrap_or("");
            let offset = spec.offset.unwrap_or(0);
            let base = me
                .parse_addr(reference)
                .ok_or_else(|| format!("{reference:?} is not an address"))?;
            let gdb = me.machine().native_code_to_gdb(base);
            Ok(vec![gdb.wrapping_add(offset as u64)])
        });
        Ok(json!({"breakpoints": answers}))
    }

    fn data_breakpoint_info(&self, args: &Value) -> Result<Value, String> {
        let args: DataBreakpointInfoArguments = arguments("dataBreakpointInfo", args)?;
        let name = args.name.as_deref().unwrap_or("").trim();
        let unit = u64::from(self.machine().unit_bytes());
        let (addr, len, what) = match self.view.data_label(name) {
            Some(label) => {
                let units = (u64::from(label.ty.size) / unit).max(1)
                    * u64::from(label.count.unwrap_or(1)).max(1);
                (
                    self.machine().gdb_to_native(label.addr).0,
                    units,
                    label.name.clone(),
                )
            }
            None => match self.parse_addr(name.trim_start_matches('&')) {
                Some(addr) => (
                    addr,
                    u64::from(self.machine().word_units()),
                    self.fmt_addr(addr),
                ),
                None => {
                    return Ok(
                        json!({"dataId": null, "description": format!("{name:?} is not a data label or an address")}),
                    )
                }
            },
        };
        Ok(json!({
            "dataId": format!("{}:{}", self.fmt_addr(addr), len),
            "description": format!("{what} ({} unit{} at {})", len, if len == 1 { "" } else { "s" }, self.fmt_addr(addr)),
            "accessTypes": ["read", "write", "readWrite"],
            "canPersist": true,
        }))
    }

    fn set_data_breakpoints(&mut self, args: &Value) -> Result<Value, String> {
        let args: SetDataBreakpointsArguments = arguments("setDataBreakpoints", args)?;
        let specs = args.breakpoints.unwrap_or_default();
        let mut answers = Vec::new();
        let mut new = Vec::new();
        for spec in &specs {
            let id = self.new_id();
            let data_id = spec.data_id.as_deref().unwrap_or("");
            let parsed = data_id
                .rsplit_once(':')
                .and_then(|(a, l)| Some((self.parse_addr(a)?, l.parse::<u64>().ok()?)));
            let kind = match spec.access_type {
                Some(DataBreakpointAccessType::Read) => WatchKind::Read,
                Some(DataBreakpointAccessType::ReadWrite) => WatchKind::Access,
                Some(DataBreakpointAccessType::Write) | None => WatchKind::Write,
            };
            match parsed {
                Some((addr, len)) => {
                    new.push(DataBp { id, addr, len: len.max(1), kind });
                    answers.push(json!({"id": id, "verified": true}));
                }
                None => answers.push(json!({"id": id, "verified": false, "message": format!("{data_id:?} is not a data id from dataBreakpointInfo")})),
            }
        }
        self.data_bps = new;
        self.sync_watchpoints();
        Ok(json!({"breakpoints": answers}))
    }

    /// A breakpoint stop at the pc: whether it stops (conditions, hit counts), with log
    /// messages written on the way; the ids of the breakpoints that stop.
    fn breakpoint_decides(&mut self, out: &mut Outbox) -> Option<Vec<i64>> {
        let pc = self.machine().pc();
        let mut stopping = Vec::new();
        let here: Vec<usize> = (0..self.bps.len())
            .filter(|&i| self.bps[i].1.addr == pc)
            .collect();
        if here.is_empty() {
            // A breakpoint the IDE did not set (none): stop anyway, it is the machine's.
            return Some(Vec::new());
        }
        for i in here {
            let bp = self.bps[i].1.clone();
            if let Some(cond) = &bp.condition {
                match expr::evaluate(cond, &self.names()) {
                    Ok(0) => continue,
                    Ok(_) => {}
                    Err(e) => {
                        out.output(
                            "console",
                            &format!("breakpoint condition {cond:?}: {e}; stopping\n"),
                        );
                    }
                }
            }
            self.bps[i].1.hits += 1;
            let hits = self.bps[i].1.hits;
            if let Some(hc) = &bp.hit_condition {
                if !hit_condition_met(hc, hits) {
                    continue;
                }
            }
            if let Some(log) = &bp.log_message {
                let text = interpolate(log, &self.names());
                out.output("console", &format!("{text}\n"));
                continue;
            }
            stopping.push(bp.id);
        }
        if stopping.is_empty() {
            None
        } else {
            Some(stopping)
        }
    }

    /// Going backwards, whether the breakpoints at the pc stop: those whose condition holds
    /// (hit counts count forward runs only, and log points log forward only); their ids.
    fn stops_in_reverse(&self) -> Option<Vec<i64>> {
        let pc = self.machine().pc();
        let here: Vec<&Bp> = self
            .bps
            .iter()
            .map(|(_, b)| b)
            .filter(|b| b.addr == pc)
            .collect();
        if here.is_empty() {
            return Some(Vec::new());
        }
        let ids: Vec<i64> = here
            .into_iter()
            .filter(|b| b.log_message.is_none())
            .filter(|b| match &b.condition {
                Some(cond) => expr::evaluate(cond, &self.names()) != Ok(0),
                None => true,
            })
            .map(|b| b.id)
            .collect();
        (!ids.is_empty()).then_some(ids)
    }

    fn stopped(
        &mut self,
        out: &mut Outbox,
        reason: &str,
        description: Option<String>,
        ids: Vec<i64>,
    ) {
        self.motion = None;
        self.core.target.resume = None;
        self.core.target.reverse_search = None;
        self.fault_at = None;
        let stopped = StoppedEventBody {
            reason: reason.to_string(),
            description: description.clone(),
            thread_id: Some(1),
            text: description,
            all_threads_stopped: Some(true),
            hit_breakpoint_ids: (!ids.is_empty()).then_some(ids),
        };
        out.event("stopped", body(&stopped));
    }

    /// What a stop event of the machine means for the IDE; `true` when the motion ended.
    fn machine_stop(&mut self, event: &StopEvent, out: &mut Outbox) -> bool {
        match event {
            StopEvent::NeedInput => false,
            StopEvent::Breakpoint => match self.breakpoint_decides(out) {
                Some(ids) => {
                    self.stopped(out, "breakpoint", None, ids);
                    true
                }
                None => {
                    self.motion = Some(Motion::Continue { step_over: true });
                    false
                }
            },
            StopEvent::Watch { kind, addr } => {
                // As gdb shows a watchpoint: after the access, the new value in memory. The
                // instruction runs first (the machine does not report its access again).
                match self.core.forward(true) {
                    None | Some(StopEvent::NeedInput | StopEvent::Breakpoint) => {}
                    Some(ev) => return self.machine_stop(&ev, out),
                }
                self.data_breakpoint_stop(*kind, *addr, out);
                true
            }
            StopEvent::Fault(fault) => {
                self.exception = Some(fault.message.clone());
                // The message goes where `asmdbg run` puts it: stderr, not the console.
                out.output("stderr", &format!("{}\n", fault.message));
                self.stopped(out, "exception", Some(fault.message.clone()), Vec::new());
                self.fault_at = Some(self.machine().instructions_executed());
                true
            }
            StopEvent::Halted | StopEvent::Exited(_) => {
                let code = match event {
                    StopEvent::Exited(c) => *c,
                    _ => 0,
                };
                if self.core.end_of_history(&Some(event.clone())) {
                    self.stopped(
                        out,
                        "exit",
                        Some(format!(
                            "The program ended (exit code {code}): step back to see how, or continue to end the session"
                        )),
                        Vec::new(),
                    );
                } else {
                    self.end_program(code, out);
                }
                true
            }
        }
    }

    /// The program is over: `exited` with its exit code, then `terminated`.
    fn end_program(&mut self, code: i32, out: &mut Outbox) {
        self.motion = None;
        self.terminated = true;
        out.event(
            "exited",
            body(&ExitedEventBody {
                exit_code: i64::from(code),
            }),
        );
        out.event("terminated", json!({}));
    }

    /// A `data breakpoint` stop for an access of `kind` to `addr`, naming the data
    /// breakpoints it hit.
    fn data_breakpoint_stop(&mut self, kind: WatchKind, addr: u64, out: &mut Outbox) {
        let ids: Vec<i64> = self
            .data_bps
            .iter()
            .filter(|w| addr >= w.addr && addr < w.addr.saturating_add(w.len))
            .map(|w| w.id)
            .collect();
        let what = match kind {
            WatchKind::Write => "write to",
            WatchKind::Read => "read of",
            WatchKind::Access => "access to",
        };
        let desc = format!("{what} {}", self.describe_data(addr));
        self.stopped(out, "data breakpoint", Some(desc), ids);
    }

    fn describe_data(&self, native: u64) -> String {
        let gdb = self.machine().native_to_gdb(native);
        match self.view.data.iter().find(|d| d.addr == gdb) {
            Some(d) => format!("{} ({})", d.name, self.fmt_addr(native)),
            None => self.fmt_addr(native),
        }
    }

    /// One instruction forward; `true` when a stop ended the motion.
    fn single_step(&mut self, out: &mut Outbox) -> Option<bool> {
        let event = self.core.forward(true);
        match event {
            None => Some(false),
            Some(StopEvent::NeedInput) => None,
            Some(StopEvent::Breakpoint) => Some(false),
            Some(ev) => Some(self.machine_stop(&ev, out)),
        }
    }

    /// Whether the machine stepped into a subroutine of the frame `from` (its caller is that
    /// frame): the return address and the caller's CFA if so.
    fn entered_callee(&self, from: FrameId) -> Option<(u64, Option<u64>)> {
        let frames = self.frames();
        let here = self.frame_id(frames.first()?, false);
        if here == from {
            return None;
        }
        let caller = frames.get(1)?;
        (self.frame_id(caller, true) == from).then_some((caller.pc, caller.cfa))
    }

    fn line_step(&mut self, out: &mut Outbox) {
        let Some(Motion::Line {
            start,
            frame,
            over_calls,
            mut ran,
        }) = self.motion.clone()
        else {
            return;
        };
        for _ in 0..STEPS_PER_BURST {
            match self.single_step(out) {
                None => return,
                Some(true) => return,
                Some(false) => {}
            }
            ran += 1;
            if let Some(Motion::Continue { .. }) = self.motion {
                // A breakpoint's log message: the step goes on.
                self.motion = Some(Motion::Line {
                    start,
                    frame,
                    over_calls,
                    ran,
                });
            }
            let here = self.current_line();
            // A step that lands on a breakpoint stops there, as gdb's does: the entry of a
            // subroutine the line calls too (stepping over the call would run past it).
            if self.machine_has_bp_here() {
                if let Some(ids) = self.breakpoint_decides(out) {
                    self.stopped(out, "breakpoint", None, ids);
                    return;
                }
            }
            // A call leaves the line: frames are compared only then (not at every
            // instruction of a line that loops).
            if over_calls && here != start {
                if let Some((return_pc, caller_cfa)) = self.entered_callee(frame) {
                    self.motion = Some(Motion::Finish {
                        return_pc,
                        caller_cfa,
                        then: Box::new(Motion::Line {
                            start,
                            frame,
                            over_calls,
                            ran,
                        }),
                        report: false,
                        step_first: true,
                    });
                    return;
                }
            }
            if here != start && here.is_some() && self.view.is_line_start(self.pc_gdb()) {
                self.stopped(out, "step", None, Vec::new());
                return;
            }
            if ran >= LINE_STEP_LIMIT {
                self.stopped(
                    out,
                    "step",
                    Some(
                        "the step ran 50,000,000 instructions without reaching another line"
                            .to_string(),
                    ),
                    Vec::new(),
                );
                return;
            }
        }
        self.motion = Some(Motion::Line {
            start,
            frame,
            over_calls,
            ran,
        });
    }

    fn machine_has_bp_here(&self) -> bool {
        let pc = self.machine().pc();
        self.bps.iter().any(|(_, b)| b.addr == pc)
    }

    /// Runs to a callee's return (a temporary breakpoint at the return address).
    fn finish(&mut self, out: &mut Outbox) {
        let Some(Motion::Finish {
            return_pc,
            caller_cfa,
            then,
            report,
            step_first,
        }) = self.motion.clone()
        else {
            return;
        };
        let native = self.machine().gdb_code_to_native(return_pc);
        let had = self.core.target.machine.breakpoints().contains(native);
        self.core.target.machine.breakpoints().insert(native);
        let mut stepped = !step_first;
        let event = match step_first {
            true => match self.core.forward(true) {
                None => {
                    stepped = true;
                    self.core.forward(false)
                }
                other => other,
            },
            false => self.core.forward(false),
        };
        // The set counts breakpoints at one address: this takes out the one added above (the
        // user's, if there is one, stays).
        self.core.target.machine.breakpoints().remove(native);
        // The motion as it goes on: stepping first again only from a stop it did not end on.
        let going_on = |step_first: bool| Motion::Finish {
            return_pc,
            caller_cfa,
            then: then.clone(),
            report,
            step_first,
        };
        match event {
            None | Some(StopEvent::NeedInput) => self.motion = Some(going_on(!stepped)),
            Some(StopEvent::Breakpoint) if self.machine().pc() == native => {
                let frames = self.frames();
                let back = frames.first().map(|f| f.cfa) == Some(caller_cfa);
                if had {
                    // The user's own breakpoint at the return address.
                    if let Some(ids) = self.breakpoint_decides(out) {
                        self.stopped(out, "breakpoint", None, ids);
                        return;
                    }
                }
                if back || caller_cfa.is_none() {
                    let line_start = self.view.is_line_start(self.pc_gdb());
                    match *then {
                        // Back after the call: a new line starts here, or the step goes on.
                        Motion::Line { start, .. }
                            if report || (line_start && self.current_line() != start) =>
                        {
                            self.stopped(out, "step", None, Vec::new())
                        }
                        _ if report => self.stopped(out, "step", None, Vec::new()),
                        then => self.motion = Some(then),
                    }
                } else {
                    // The return address, reached in a deeper call: on past it.
                    self.motion = Some(going_on(true));
                }
            }
            Some(ev) => {
                if !self.machine_stop(&ev, out) {
                    // A breakpoint that did not stop (condition false, log message).
                    self.motion = Some(going_on(true));
                }
            }
        }
    }

    fn reverse_line(&mut self, out: &mut Outbox) {
        let Some(Motion::ReverseLine { start, frame }) = self.motion.clone() else {
            return;
        };
        for _ in 0..REVERSE_STEPS_PER_BURST {
            if self.core.reverse_step(false) == Reversed::Begin {
                self.stopped(
                    out,
                    "step",
                    Some("No more reverse-execution history.".to_string()),
                    Vec::new(),
                );
                return;
            }
            let here = self.current_line();
            if here == start || here.is_none() || !self.view.is_line_start(self.pc_gdb()) {
                continue;
            }
            // A line of a subroutine the start line called: on back past it. The frames
            // are unwound only here, at the start of another line (not at every instruction).
            let frames = self.frames();
            let here_frame = frames.first().map(|f| self.frame_id(f, false));
            let deeper = here_frame != Some(frame)
                && frames.get(1).map(|c| self.frame_id(c, true)) == Some(frame);
            if !deeper {
                self.stopped(out, "step", None, Vec::new());
                return;
            }
        }
    }

    fn resume(&mut self, motion: Motion) {
        self.exception = None;
        self.core.target.resume = Some(match motion {
            Motion::ReverseContinue | Motion::ReverseLine { .. } => ResumeMode::ReverseContinue,
            Motion::Instruction { .. } | Motion::Line { .. } => ResumeMode::Step,
            _ => ResumeMode::Continue,
        });
        self.motion = Some(motion);
    }

    fn step_request(&mut self, args: &StepArguments, over_calls: bool) {
        let instruction = args.by_instruction();
        let frame = self
            .frames()
            .first()
            .map(|f| self.frame_id(f, false))
            .unwrap_or((None, None));
        if instruction {
            self.resume(Motion::Instruction { over_calls });
        } else {
            self.resume(Motion::Line {
                start: self.current_line(),
                frame,
                over_calls,
                ran: 0,
            });
        }
    }

    fn step_out(&mut self) -> Result<(), String> {
        let frames = self.frames();
        let caller = frames
            .get(1)
            .ok_or("this is the outermost frame: there is nothing to step out to")?;
        self.resume(Motion::Finish {
            return_pc: caller.pc,
            caller_cfa: caller.cfa,
            then: Box::new(Motion::Continue { step_over: false }),
            report: true,
            step_first: true,
        });
        Ok(())
    }

    fn stack_trace(&self, args: &Value) -> Result<Value, String> {
        let args: StackTraceArguments = arguments("stackTrace", args)?;
        let frames = self.frames();
        let start = args.start_frame.unwrap_or(0).max(0) as usize;
        let levels = args.levels.unwrap_or(0).max(0) as usize;
        let take = if levels == 0 { usize::MAX } else { levels };
        let list: Vec<Value> = frames
            .iter()
            .enumerate()
            .skip(start)
            .take(take)
            .map(|(i, f)| {
                let instruction = if self.machine().unit_bytes() == 2 {
                    2
                } else {
                    4
                };
                let before = f.pc.wrapping_sub(instruction);
                let lookup = match i {
                    // The PC ran off the end of the code (SimpleRISC runs off its end, MIPS
                    // drops off the bottom; a watched store may be the last instruction): the
                    // frame is where the last instruction is, which has a source line.
                    0 if self.view.loc(f.pc).is_none() && self.view.loc(before).is_some() => before,
                    0 => f.pc,
                    _ => f.pc.wrapping_sub(1),
                };
                let native = self.machine().gdb_code_to_native(f.pc);
                let name = self
                    .view
                    .function(lookup)
                    .map(|(n, _)| n)
                    .or_else(|| self.view.label_before(lookup))
                    .map_or_else(|| self.fmt_addr(native), str::to_string);
                let mut frame = json!({
                    "id": i + 1,
                    "name": name,
                    "line": 0,
                    "column": 0,
                    "instructionPointerReference": self.fmt_addr(native),
                });
                if let Some(loc) = self.view.loc(lookup) {
                    frame["line"] = json!(loc.line);
                    frame["column"] = json!(1);
                    frame["source"] = self.source(loc.file);
                }
                frame
            })
            .collect();
        Ok(json!({"stackFrames": list, "totalFrames": frames.len()}))
    }

    fn scopes(&self) -> Value {
        let mut scopes = vec![
            json!({"name": "Registers", "presentationHint": "registers", "variablesReference": 1, "expensive": false}),
        ];
        let m = self.machine();
        if (0..m.registers().len()).any(|i| m.register_scope(i) == RegisterScope::Float) {
            scopes.push(json!({"name": "Floating point", "presentationHint": "registers", "variablesReference": 2, "expensive": false}));
        }
        scopes.push(json!({"name": "Data", "presentationHint": "globals", "variablesReference": 3, "expensive": false}));
        json!({"scopes": scopes})
    }

    fn variables(&self, args: &Value) -> Result<Value, String> {
        let args: VariablesArguments = arguments("variables", args)?;
        let reference = args.variables_reference.unwrap_or(0);
        let m = self.machine();
        let vars: Vec<Value> = match reference {
            1 | 2 => m
                .registers()
                .iter()
                .enumerate()
                .filter(|(i, _)| (m.register_scope(*i) == RegisterScope::Float) == (reference == 2))
                .filter_map(|(i, r)| {
                    let v = m.read_register(i)?;
                    let name = m.register_label(i);
                    Some(json!({
                        "name": name,
                        "value": m.format_register(r, v),
                        "variablesReference": 0,
                        "evaluateName": name,
                    }))
                })
                .collect(),
            3 => self
                .view
                .data
                .iter()
                .map(|d| {
                    let native = m.gdb_to_native(d.addr).0;
                    json!({
                        "name": d.name,
                        "value": self.data_value(d),
                        "type": d.ty.name,
                        "variablesReference": 0,
                        "evaluateName": d.name,
                        "memoryReference": self.fmt_addr(native),
                    })
                })
                .collect(),
            other => return Err(format!("no variables under reference {other}")),
        };
        Ok(json!({"variables": vars}))
    }

    /// A data label's value as the Data scope shows it: a string's text, or a number in
    /// decimal and hex.
    fn data_value(&self, d: &super::view::DataLabel) -> String {
        let src = GdbView(self.machine());
        if d.ty.encoding == TypeEncoding::Char && d.count.is_some() {
            let size = u64::from(d.ty.size.max(1));
            let n = u64::from(d.count.unwrap_or(0)).min(256);
            let mut text = String::new();
            for i in 0..n {
                match src.memory(d.addr + i * size, 1) {
                    Some(0) | None => break,
                    Some(c) => text.extend((c as u8 as char).escape_default()),
                }
            }
            return format!("\"{text}\"");
        }
        match src.memory(d.addr, d.ty.size) {
            Some(raw) => {
                let bits = 8 * u32::from(d.ty.size);
                let signed = sign_extend(raw, bits);
                match d.ty.encoding {
                    TypeEncoding::Float if d.ty.size == 4 => {
                        format!("{}", f32::from_bits(raw as u32))
                    }
                    TypeEncoding::Float if d.ty.size == 8 => format!("{}", f64::from_bits(raw)),
                    TypeEncoding::Unsigned => format!("{raw} ({})", self.hex(raw, bits)),
                    _ => format!("{signed} ({})", self.hex(raw, bits)),
                }
            }
            None => "<unreadable>".to_string(),
        }
    }

    fn hex(&self, value: u64, bits: u32) -> String {
        let digits = (bits as usize).div_ceil(4);
        if self.machine().unit_bytes() == 2 {
            format!("x{value:0digits$X}")
        } else {
            format!("0x{value:0digits$x}")
        }
    }

    fn format_value(&self, value: i64) -> String {
        let bits = (8 * self.machine().unit_bytes() * self.machine().word_units()).min(32);
        let mask = if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        format!("{value} ({})", self.hex(value as u64 & mask, bits))
    }

    fn set_variable(&mut self, args: &Value, out: &mut Outbox) -> Result<Value, String> {
        let args: SetVariableArguments = arguments("setVariable", args)?;
        let reference = args.variables_reference.unwrap_or(0);
        let name = args.name.as_deref().ok_or("setVariable needs a name")?;
        let text = args.value.as_deref().ok_or("setVariable needs a value")?;
        let value = expr::evaluate(text, &self.names())?;
        let shown = match reference {
            1 | 2 => {
                let m = self.machine();
                let index = (0..m.registers().len())
                    .find(|&i| m.register_label(i) == name || m.registers()[i].name == name)
                    .ok_or_else(|| format!("no register {name}"))?;
                if !self.core.target.machine.write_register(index, value as u64) {
                    return Err(format!("{name} cannot be written"));
                }
                self.state_written();
                let m = self.machine();
                let r = m.registers()[index];
                m.format_register(&r, m.read_register(index).unwrap_or(0))
            }
            3 => {
                let label = self
                    .view
                    .data_label(name)
                    .ok_or_else(|| format!("no data label {name}"))?
                    .clone();
                let native = self.machine().gdb_to_native(label.addr).0;
                self.core
                    .target
                    .machine
                    .poke_word(native, value as u32)
                    .map_err(|e| e.to_string())?;
                self.state_written();
                out.memory(&self.fmt_addr(native), 0, u64::from(label.ty.size));
                self.data_value(&label)
            }
            other => return Err(format!("no variables under reference {other}")),
        };
        out.invalidated(&["variables"]);
        Ok(json!({"value": shown}))
    }

    fn evaluate(&mut self, args: &Value, out: &mut Outbox) -> Result<Value, String> {
        let args: EvaluateArguments = arguments("evaluate", args)?;
        let text = args.expression.as_deref().unwrap_or("").trim().to_string();
        let context = args.context.as_deref().unwrap_or("repl");
        if context == "repl" {
            if let Some(command) = text
                .strip_prefix("monitor ")
                .or_else(|| (text == "monitor").then_some("help"))
            {
                let reply = monitor_command(&mut self.core.target, command);
                self.core.collect_output();
                out.invalidated(&["all"]);
                return Ok(json!({"result": reply, "variablesReference": 0}));
            }
            if let Some(typed) = text.strip_prefix('>') {
                // What a person typing on the console sends: the keys to a machine that reads
                // keys (LC-3: Enter would be the next key), the line and its Enter to a machine
                // that reads lines (MARS, SimpleRISC).
                let mut keys = typed.strip_prefix(' ').unwrap_or(typed).to_string();
                if !self.machine().console_reads_keys() {
                    keys.push('\n');
                }
                self.core.on_console_input(keys.as_bytes());
                return Ok(
                    json!({"result": format!("typed {:?} on the program's console", keys), "variablesReference": 0}),
                );
            }
        }
        if let Some(label) = self.view.data_label(&text).cloned() {
            let native = self.machine().gdb_to_native(label.addr).0;
            return Ok(json!({
                "result": self.data_value(&label),
                "type": label.ty.name,
                "variablesReference": 0,
                "memoryReference": self.fmt_addr(native),
            }));
        }
        let value = expr::evaluate(&text, &self.names())?;
        Ok(json!({"result": self.format_value(value), "variablesReference": 0}))
    }

    fn disassemble(&self, args: &Value) -> Result<Value, String> {
        let args: DisassembleArguments = arguments("disassemble", args)?;
        let reference = args
            .memory_reference
            .as_deref()
            .ok_or("disassemble needs a memoryReference")?;
        let base = self
            .parse_addr(reference)
            .ok_or_else(|| format!("{reference:?} is not an address"))?;
        let m = self.machine();
        let offset = args.offset.unwrap_or(0);
        let insn_offset = args.instruction_offset.unwrap_or(0);
        let count = args.instruction_count.unwrap_or(0).clamp(0, 10_000);
        // Instructions are one LC-3 word, four bytes elsewhere: in native units.
        let step = if m.unit_bytes() == 2 { 1i64 } else { 4 };
        let gdb_base = m.native_code_to_gdb(base).wrapping_add(offset as u64);
        let start = (m.gdb_code_to_native(gdb_base) as i64)
            .saturating_add(insn_offset.saturating_mul(step));
        let mut list = Vec::new();
        let mut last_loc = None;
        for i in 0..count {
            let addr = start.saturating_add(i * step);
            if addr < 0 {
                list.push(json!({"address": format!("-{}", -addr), "instruction": "", "presentationHint": "invalid"}));
                continue;
            }
            let native = addr as u64;
            let gdb = m.native_code_to_gdb(native);
            let mut entry = json!({"address": protocol_address(&self.fmt_addr(native), native)});
            match m.disassemble(native) {
                Some((text, size)) if self.view.in_code(gdb) || m.debug_read(native).is_ok() => {
                    entry["instruction"] = json!(text);
                    let bytes = m.format_encoding(
                        native,
                        size * u64::from(m.unit_bytes()) / u64::from(m.unit_bytes()).max(1),
                    );
                    let bytes = if bytes.trim().is_empty() {
                        m.debug_read(native)
                            .map(|w| self.hex(u64::from(w), 8 * m.unit_bytes()))
                            .unwrap_or_default()
                    } else {
                        bytes
                    };
                    entry["instructionBytes"] = json!(bytes.trim());
                }
                _ => {
                    entry["instruction"] = json!("");
                    entry["presentationHint"] = json!("invalid");
                }
            }
            if let Some(label) = self.view.label_at(gdb, true) {
                entry["symbol"] = json!(label);
            }
            if let Some(loc) = self.view.loc(gdb) {
                if last_loc != Some(loc) {
                    entry["location"] = self.source(loc.file);
                    entry["line"] = json!(loc.line);
                }
                last_loc = Some(loc);
            }
            list.push(entry);
        }
        Ok(json!({"instructions": list}))
    }

    fn read_memory(&self, args: &Value) -> Result<Value, String> {
        let args: ReadMemoryArguments = arguments("readMemory", args)?;
        let reference = args
            .memory_reference
            .as_deref()
            .ok_or("readMemory needs a memoryReference")?;
        let base = self
            .parse_addr(reference)
            .ok_or_else(|| format!("{reference:?} is not an address"))?;
        let m = self.machine();
        let offset = args.offset.unwrap_or(0);
        let count = args.count.unwrap_or(0).clamp(0, 1 << 20) as u64;
        let start = m.native_to_gdb(base).wrapping_add(offset as u64);
        let mut bytes = Vec::new();
        for i in 0..count {
            match m.gdb_read_byte(start.wrapping_add(i)) {
                Ok(b) => bytes.push(b),
                Err(_) => break,
            }
        }
        let unreadable = count - bytes.len() as u64;
        let mut body = json!({"address": format!("0x{start:x}"), "data": base64(&bytes)});
        if unreadable > 0 {
            body["unreadableBytes"] = json!(unreadable);
        }
        Ok(body)
    }

    fn write_memory(&mut self, args: &Value, out: &mut Outbox) -> Result<Value, String> {
        let args: WriteMemoryArguments = arguments("writeMemory", args)?;
        let reference = args
            .memory_reference
            .as_deref()
            .ok_or("writeMemory needs a memoryReference")?;
        let base = self
            .parse_addr(reference)
            .ok_or_else(|| format!("{reference:?} is not an address"))?;
        let offset = args.offset.unwrap_or(0);
        let data = unbase64(args.data.as_deref().unwrap_or("")).ok_or("data is not base64")?;
        let start = self
            .machine()
            .native_to_gdb(base)
            .wrapping_add(offset as u64);
        let mut written = 0u64;
        for (i, b) in data.iter().enumerate() {
            if self
                .core
                .target
                .machine
                .gdb_write_byte(start.wrapping_add(i as u64), *b)
                .is_err()
            {
                break;
            }
            written += 1;
        }
        if written > 0 {
            self.state_written();
        }
        out.memory(reference, offset, written);
        out.invalidated(&["variables"]);
        if written < data.len() as u64 {
            return Err(format!(
                "wrote {written} of {} bytes: the next is not writable",
                data.len()
            ));
        }
        Ok(json!({"bytesWritten": written}))
    }

    fn goto_targets(&self, args: &Value) -> Result<Value, String> {
        let args: GotoTargetsArguments = arguments("gotoTargets", args)?;
        let path = args
            .source
            .as_ref()
            .and_then(|s| s.path.as_deref())
            .ok_or("gotoTargets needs source.path")?;
        let line = args.line.unwrap_or(0).max(0) as u32;
        let file = self
            .view
            .file_index(path)
            .ok_or_else(|| format!("{path} is not a file of this program"))?;
        let (actual, addrs) = self
            .view
            .line_addresses(file, line)
            .ok_or_else(|| format!("no code at or after line {line}"))?;
        let targets: Vec<Value> = addrs
            .iter()
            .map(|&gdb| {
                let native = self.machine().gdb_code_to_native(gdb);
                json!({"id": gdb as i64, "label": format!("line {actual} ({})", self.fmt_addr(native)), "line": actual, "instructionPointerReference": self.fmt_addr(native)})
            })
            .collect();
        Ok(json!({"targets": targets}))
    }

    fn goto(&mut self, args: &Value, out: &mut Outbox) -> Result<Value, String> {
        let args: GotoArguments = arguments("goto", args)?;
        let target = args.target_id.ok_or("goto needs a targetId")?;
        let native = self.machine().gdb_code_to_native(target as u64);
        self.core.target.machine.set_pc(native);
        self.state_written();
        self.stopped(out, "goto", None, Vec::new());
        Ok(json!({}))
    }

    /// `asmdbgKey`: keys pressed in the display panel, for the machine's keyboard device (or
    /// its console, for a machine without one), logged like typed input.
    fn press_keys(&mut self, args: &Value) -> Result<Value, String> {
        let keys = keys_of(args)?;
        if self.held_keys.len() + keys.len() > MAX_HELD_KEYS {
            return Err(format!(
                "{} keys already wait for the program to come back to the end of its recorded run; continue it first",
                self.held_keys.len()
            ));
        }
        let count = keys.len();
        self.held_keys.extend(keys);
        // A single step that waited for input may run again.
        self.core.step_waits = false;
        self.release_keys();
        Ok(json!({"keys": count}))
    }

    /// Gives the machine the keys pressed, unless it is in the past of its history (there the
    /// replay brings the keys recorded; new ones come after them).
    fn release_keys(&mut self) {
        if self.held_keys.is_empty() || self.core.in_past() {
            return;
        }
        let keys: Vec<u8> = self.held_keys.drain(..).collect();
        if self.machine().has_keyboard_device() {
            for key in keys {
                self.core.target.machine.queue_key(key);
            }
        } else {
            self.core.on_console_input(&keys);
        }
    }

    fn restart(&mut self, out: &mut Outbox) -> Result<Value, String> {
        // What `monitor reset` does over gdb: reload, the pokes again, history from here.
        // Breakpoints and watchpoints stay with the machine.
        monitor_command(&mut self.core.target, "reset");
        self.terminated = false;
        self.stopped(out, "entry", None, Vec::new());
        Ok(json!({}))
    }
}

/// A disassembled instruction's `address`: DAP reads it as hex after `0x`, else decimal (VS
/// Code's disassembly view drops one it cannot read), so an ISA notation of another form
/// (LC-3's `x3000`) is given as `0x3000`, the same native address.
fn protocol_address(formatted: &str, native: u64) -> String {
    if formatted.starts_with("0x") || formatted.bytes().all(|b| b.is_ascii_digit()) {
        formatted.to_string()
    } else {
        format!("0x{native:x}")
    }
}

/// VS Code's hit conditions: `N` or `>= N` (from the Nth hit on), `> N`, `== N`, `% N`.
fn hit_condition_met(text: &str, hits: u64) -> bool {
    let t = text.trim();
    let (op, rest) = ["==", ">=", ">", "%", "="]
        .iter()
        .find_map(|op| t.strip_prefix(op).map(|r| (*op, r)))
        .unwrap_or((">=", t));
    let Some(n) = expr::number(rest.trim()).map(|n| n as u64) else {
        return true;
    };
    match op {
        "==" | "=" => hits == n,
        ">" => hits > n,
        "%" => n != 0 && hits % n == 0,
        _ => hits >= n,
    }
}

/// A log message with its `{expression}` holes filled.
fn interpolate(text: &str, ctx: &dyn ExprContext) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        match rest[open..].find('}') {
            Some(close) => {
                let inner = &rest[open + 1..open + close];
                match expr::evaluate(inner, ctx) {
                    Ok(v) => out.push_str(&v.to_string()),
                    Err(e) => out.push_str(&format!("<{e}>")),
                }
                rest = &rest[open + close + 1..];
            }
            None => {
                out.push_str(&rest[open..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

impl<G: GdbMachine> LaunchedProgram for DapProgram<G> {
    fn request(&mut self, command: &str, args: &Value, out: &mut Outbox) -> Result<Value, String> {
        let running = self.motion.is_some();
        match command {
            "threads" => {
                Ok(json!({"threads": [{"id": 1, "name": self.machine().isa().info().title}]}))
            }
            "setBreakpoints" => self.set_breakpoints(args),
            "setFunctionBreakpoints" => self.set_function_breakpoints(args),
            "setInstructionBreakpoints" => self.set_instruction_breakpoints(args),
            "setExceptionBreakpoints" => Ok(json!({"breakpoints": []})),
            "dataBreakpointInfo" => self.data_breakpoint_info(args),
            "setDataBreakpoints" => self.set_data_breakpoints(args),
            "continue" | "next" | "stepIn" | "stepOut" if self.at_fault() => {
                // Past an unhandled fault the program ends, as under `asmdbg run` (and as a
                // process ends when gdb continues it past a fatal signal).
                let code = self.machine().fault_exit_status();
                self.end_program(code, out);
                Ok(json!({}))
            }
            "continue" => {
                self.resume(Motion::Continue { step_over: true });
                Ok(json!({"allThreadsContinued": true}))
            }
            "next" => {
                self.step_request(&arguments(command, args)?, true);
                Ok(json!({}))
            }
            "stepIn" => {
                self.step_request(&arguments(command, args)?, false);
                Ok(json!({}))
            }
            "stepOut" => {
                self.step_out()?;
                Ok(json!({}))
            }
            "stepBack" => {
                if self.core.target.history.is_none() {
                    return Err("time travel is off (noHistory)".to_string());
                }
                let args: StepArguments = arguments(command, args)?;
                if args.by_instruction() {
                    // One instruction back is one seek: done here, the stop follows at once.
                    self.exception = None;
                    let reversed = self.core.reverse_step(false);
                    let desc = (reversed == Reversed::Begin)
                        .then(|| "No more reverse-execution history.".to_string());
                    self.stopped(out, "step", desc, Vec::new());
                } else {
                    let frame = self
                        .frames()
                        .first()
                        .map(|f| self.frame_id(f, false))
                        .unwrap_or((None, None));
                    self.resume(Motion::ReverseLine {
                        start: self.current_line(),
                        frame,
                    });
                }
                Ok(json!({}))
            }
            "reverseContinue" => {
                if self.core.target.history.is_none() {
                    return Err("time travel is off (noHistory)".to_string());
                }
                self.resume(Motion::ReverseContinue);
                Ok(json!({}))
            }
            KEY_REQUEST => self.press_keys(args),
            "pause" => {
                if running {
                    self.stopped(out, "pause", None, Vec::new());
                }
                Ok(json!({}))
            }
            _ if running && !matches!(command, "evaluate" | "disconnect" | "terminate") => Err(
                format!("{command} needs the program stopped: pause it first"),
            ),
            "stackTrace" => self.stack_trace(args),
            "scopes" => Ok(self.scopes()),
            "variables" => self.variables(args),
            "setVariable" => self.set_variable(args, out),
            "evaluate" => self.evaluate(args, out),
            "disassemble" => self.disassemble(args),
            "readMemory" => self.read_memory(args),
            "writeMemory" => self.write_memory(args, out),
            "gotoTargets" => self.goto_targets(args),
            "goto" => self.goto(args, out),
            "restart" => self.restart(out),
            "exceptionInfo" => match &self.exception {
                Some(message) => Ok(
                    json!({"exceptionId": "fault", "description": message, "breakMode": "always", "details": {"message": message}}),
                ),
                None => Err("the program did not stop on a fault".to_string()),
            },
            other => Err(format!("unknown request {other:?}")),
        }
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
        let Some(motion) = self.motion.clone() else {
            return;
        };
        match motion {
            Motion::Continue { step_over } => {
                let event = if step_over {
                    // The instruction a stop left runs first, past any breakpoint on it; one
                    // that waits for input is stepped again when input comes.
                    match self.core.forward(true) {
                        Some(StopEvent::NeedInput) => return,
                        other => {
                            self.motion = Some(Motion::Continue { step_over: false });
                            match other {
                                None | Some(StopEvent::Breakpoint) => return,
                                other => other,
                            }
                        }
                    }
                } else {
                    self.core.forward(false)
                };
                if let Some(ev) = event {
                    self.machine_stop(&ev, out);
                }
            }
            Motion::Instruction { over_calls } => {
                let frame = self.frames().first().map(|f| self.frame_id(f, false));
                match self.single_step(out) {
                    None | Some(true) => {}
                    Some(false) => {
                        let callee = frame
                            .and_then(|f| over_calls.then(|| self.entered_callee(f)).flatten());
                        // Into a subroutine whose entry has a breakpoint: it stops there.
                        let hit = match callee {
                            Some(_) if self.machine_has_bp_here() => self.breakpoint_decides(out),
                            _ => None,
                        };
                        match callee {
                            _ if hit.is_some() => {
                                self.stopped(out, "breakpoint", None, hit.unwrap_or_default())
                            }
                            Some((return_pc, caller_cfa)) => {
                                self.motion = Some(Motion::Finish {
                                    return_pc,
                                    caller_cfa,
                                    then: Box::new(Motion::Continue { step_over: false }),
                                    report: true,
                                    step_first: true,
                                })
                            }
                            None => self.stopped(out, "step", None, Vec::new()),
                        }
                    }
                }
            }
            Motion::Line { .. } => self.line_step(out),
            Motion::Finish { .. } => self.finish(out),
            Motion::ReverseContinue => {
                if let Some(reversed) = self.core.reverse_continue() {
                    match reversed {
                        Reversed::Begin => self.stopped(
                            out,
                            "step",
                            Some("No more reverse-execution history.".to_string()),
                            Vec::new(),
                        ),
                        Reversed::Hit(StopEvent::Breakpoint) => {
                            // A false condition or a log point: the search goes on from here.
                            if let Some(ids) = self.stops_in_reverse() {
                                self.stopped(out, "breakpoint", None, ids);
                            }
                        }
                        Reversed::Hit(StopEvent::Watch { kind, addr }) => {
                            // Going back, a data breakpoint stops before the access (the old
                            // value in memory); the search leaves the machine just after it.
                            self.core.reverse_step(false);
                            self.data_breakpoint_stop(kind, addr, out);
                        }
                        Reversed::Hit(ev) => {
                            if !self.machine_stop(&ev, out) {
                                self.stopped(out, "step", None, Vec::new());
                            }
                        }
                        Reversed::Stepped => self.stopped(out, "step", None, Vec::new()),
                    }
                }
            }
            Motion::ReverseLine { .. } => self.reverse_line(out),
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hit_conditions() {
        assert!(!hit_condition_met("3", 2));
        assert!(hit_condition_met("3", 3));
        assert!(hit_condition_met(">= 3", 4));
        assert!(!hit_condition_met("== 3", 4));
        assert!(hit_condition_met("%2", 4));
        assert!(!hit_condition_met("% 2", 3));
        assert!(hit_condition_met("> 1", 2));
    }
}
