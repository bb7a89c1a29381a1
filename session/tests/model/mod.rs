//! A model-based differential test of the sessions' time travel: random sequences of the
//! commands a debugger user gives (continue, steps by instruction and line, over and out,
//! reverse step and continue, `monitor goto`, jumps, memory writes, breakpoints and
//! watchpoints of every kind toggled, keys typed) are played against the RSP session and the
//! DAP session of each machine, from memory, and every stop is checked against an oracle that
//! only ever runs forward: a fresh machine without history, given the same keys at the same
//! instruction counts and the same writes and jumps, stepped from the start.
//!
//! At every stop the session must show what the forward run shows at that instruction count:
//! - the registers and memory (read through the protocol: `g`/`m`, `variables`/`readMemory`,
//!   and the PC of the top frame);
//! - the console output shown so far, each byte exactly once: the forward run's output up to
//!   the furthest point reached (the frontier), never more, never twice;
//! - the stop itself: where a motion stops and why. Breakpoint and watchpoint hits come from
//!   the forward run's trace of the PC and of the accesses watched: a `continue` stops at the
//!   first hit after it started, a reverse-continue at the last hit before it, a step one
//!   instruction on or back; no motion passes a hit silently. Conventions, as gdb and the DAP
//!   session define them: over RSP a watch is reported before the access going forward and
//!   just after it going back (gdb steps over it itself); over DAP a data breakpoint stops
//!   after the access going forward and before it going back, so the watched word's old and
//!   new values are those the forward run has on either side of the access.
//!
//! Shared by `session/tests/model_sessions.rs` (bounded, in `cargo test`) and the fuzz target
//! `session_model` (unbounded, `scripts/fuzz session_model`), which includes this file.

#![allow(dead_code)]

mod expect;
mod oracle;
mod programs;
mod wire;

pub use programs::{device_options, generated, program, Program};

use expect::{Reason, Want};
use oracle::{Ev, Oracle};
use wire::{base64, hex, parse_stop, DapWire, RspWire, Seen};

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::time::Instant;

use asmdbg_core::gdb::{Debuggee, GdbMachine};
use asmdbg_core::{resolve_address, Backend, Machine, MachineOptions, WatchKind};
use serde_json::{json, Value};

/// Instructions per burst: small, so that a motion that never stops is interrupted soon.
const BURST: u64 = 2_000;
/// Bursts a motion may take before the test interrupts it (pause, Ctrl-C).
const BURSTS_PER_MOTION: u32 = 16;
/// Polls in a row with nothing to run before the test types a key for a waiting guest.
const IDLE_POLLS: u32 = 3;
/// The oracle gives up past this many instructions (a case never gets near it).
const ORACLE_LIMIT: u64 = 2_000_000;

/// The machines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isa {
    Lc3,
    Mips,
    SimpleRisc,
    /// MIPS with MARS's Keyboard and Display MMIO Simulator: keys on a schedule, taken by an
    /// interrupt handler, characters out through the transmitter.
    MipsDevices,
}

/// The protocols.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Proto {
    Rsp,
    Dap,
}

/// What the user does. Numbers pick among the program's code addresses, data words, counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmd {
    Continue,
    /// One instruction (RSP `vCont;s`, DAP `stepIn` by instruction).
    StepInstruction,
    /// One instruction, over calls (DAP `next` by instruction; RSP `vCont;s`).
    NextInstruction,
    /// DAP `stepIn` by line (RSP `vCont;s`).
    StepLine,
    /// DAP `next` by line (RSP `vCont;s`).
    NextLine,
    /// DAP `stepOut` (RSP `vCont;c`).
    StepOut,
    /// RSP `bs`, DAP `stepBack` by instruction.
    ReverseStep,
    /// gdb's `reverse-next` (the helper script: `monitor asmdbg-reverse next`, then `bs`);
    /// DAP `stepBack` by line.
    ReverseLine,
    /// gdb's `reverse-step` (armed the same way); DAP `stepBack` by line.
    ReverseStepLine,
    /// gdb's `reverse-finish`; DAP `asmdbgStepOutBack`.
    ReverseFinish,
    /// gdb's `reverse-nexti`; DAP `stepBack` by instruction.
    ReverseNextInstruction,
    ReverseContinue,
    /// `monitor goto N`, N = frontier * n / 255.
    Goto(u8),
    /// A jump to a code address (DAP `goto`, RSP the PC written with `P`).
    Jump(u8),
    /// A new value for a data word (RSP `M`, DAP `writeMemory`).
    Write(u8, u8),
    /// A breakpoint toggled at one of the program's code addresses.
    Break(u8),
    /// A watchpoint toggled on a data word: kind n % 3 (write, read, access).
    Watch(u8),
    /// A key typed on the console.
    Key(u8),
}

impl Cmd {
    /// A motion backwards.
    pub fn is_reverse(self) -> bool {
        matches!(
            self,
            Cmd::ReverseStep
                | Cmd::ReverseLine
                | Cmd::ReverseStepLine
                | Cmd::ReverseFinish
                | Cmd::ReverseNextInstruction
                | Cmd::ReverseContinue
        )
    }

    /// Commands from fuzz bytes, two bytes each.
    pub fn decode(bytes: &[u8]) -> Vec<Cmd> {
        bytes
            .chunks_exact(2)
            .map(|pair| {
                let n = pair[1];
                match pair[0] % 16 {
                    0 => Cmd::Continue,
                    1 => Cmd::StepInstruction,
                    2 => Cmd::NextInstruction,
                    3 => Cmd::StepLine,
                    4 => Cmd::NextLine,
                    5 => Cmd::StepOut,
                    6 => Cmd::ReverseStep,
                    7 => match pair[0] / 16 % 4 {
                        0 => Cmd::ReverseLine,
                        1 => Cmd::ReverseStepLine,
                        2 => Cmd::ReverseFinish,
                        _ => Cmd::ReverseNextInstruction,
                    },
                    8 => Cmd::ReverseContinue,
                    9 => Cmd::Goto(n),
                    10 => Cmd::Jump(n),
                    11 => Cmd::Write(n, pair[0] / 16),
                    12 | 13 => Cmd::Break(n),
                    14 => Cmd::Watch(n),
                    _ => Cmd::Key(n),
                }
            })
            .collect()
    }
}

/// Runs one case: `cmds` against `proto`'s session of `isa`'s machine, on its fixed program.
/// `Err` says which command broke which invariant, with the commands so far.
pub fn run_case(isa: Isa, proto: Proto, cmds: &[Cmd]) -> Result<(), String> {
    run_program(program(isa), proto, cmds)
}

/// The same on a program generated from `shape` ([`programs::generated`]; `isa` LC-3, MIPS
/// or SimpleRISC).
pub fn run_generated(isa: Isa, shape: &[u8], proto: Proto, cmds: &[Cmd]) -> Result<(), String> {
    run_program(generated(isa, shape), proto, cmds)
}

/// The word of `bytes` little endian bytes of code at the machine's pc (gdb's view).
fn code_word<G: GdbMachine>(m: &G, bytes: u64) -> u32 {
    let gdb = m.native_code_to_gdb(m.pc());
    (0..bytes).fold(0u32, |w, i| {
        w | u32::from(m.gdb_read_byte(gdb + i).unwrap_or(0)) << (8 * i)
    })
}

fn run_program(p: Program, proto: Proto, cmds: &[Cmd]) -> Result<(), String> {
    let p = std::rc::Rc::new(p);
    let opts = match p.isa {
        Isa::MipsDevices => device_options(),
        _ => MachineOptions::default(),
    };
    let q = p.clone();
    match p.isa {
        Isa::Lc3 => play(
            p,
            proto,
            cmds,
            &asmdbg_lc3::BACKEND,
            move || asmdbg_lc3::load_machine(&q.file, q.source.as_bytes(), &opts),
            Box::new(|m: &asmdbg_lc3::Lc3Machine| {
                let pc = m.pc() as u16;
                asmdbg_lc3::decode::decode(code_word(m, 2) as u16).flow(pc)
            }),
        ),
        Isa::Mips | Isa::MipsDevices => play(
            p,
            proto,
            cmds,
            &asmdbg_mips::BACKEND,
            move || asmdbg_mips::load_machine(&q.file, &q.source, &opts),
            Box::new(|m: &asmdbg_mips::MipsMachine| {
                asmdbg_mips::decode::decode(code_word(m, 4)).flow(m.pc() as u32)
            }),
        ),
        Isa::SimpleRisc => play(
            p,
            proto,
            cmds,
            &asmdbg_simplerisc::BACKEND,
            move || asmdbg_simplerisc::load_machine(&q.file, &q.source, &opts),
            Box::new(|m: &asmdbg_simplerisc::SrMachine| {
                asmdbg_simplerisc::decode::decode(code_word(m, 4)).flow(m.pc())
            }),
        ),
    }
}

/// One case on the machine `load` makes (afresh for the oracle each time it asks); `flow`
/// says where the instruction at a machine's pc goes (native addresses).
fn play<G: GdbMachine, B: Backend<Machine = G>>(
    p: std::rc::Rc<Program>,
    proto: Proto,
    cmds: &[Cmd],
    backend: &B,
    load: impl Fn() -> Result<G, asmdbg_core::LoadError> + 'static,
    flow: Box<dyn Fn(&G) -> asmdbg_core::flow::Flow>,
) -> Result<(), String> {
    let machine = load().map_err(|e| format!("{e}\n{}", p.source))?;
    let image = backend
        .image(&machine, &MachineOptions::default())
        .map_err(|e| e.to_string())?;
    let fresh = Box::new(move || load().expect("it loaded once"));
    Case::new(p, proto, fresh, flow, machine, image).play(cmds)
}

struct Case<G: GdbMachine> {
    p: std::rc::Rc<Program>,
    /// gdb byte ranges compared at every stop.
    regions: Vec<(u64, u64)>,
    proto: Proto,
    oracle: Oracle<G>,
    rsp: Option<RspWire<G>>,
    dap: Option<DapWire>,
    /// gdb-view code addresses offered as breakpoints, and those set.
    code: Vec<u64>,
    bps: BTreeSet<u64>,
    /// Native data addresses, and the watchpoints set (native address, units, kind).
    data: Vec<u64>,
    watches: Vec<(u64, u64, WatchKind)>,
    /// The machine's count now, and the furthest count reached live.
    now: u64,
    frontier: u64,
    /// Keys typed in the past: they enter when the machine is back at the frontier.
    held: Vec<u8>,
    /// Everything the console showed, and what the model expects it to have shown.
    shown: Vec<u8>,
    expected_shown: Vec<u8>,
    /// Output of the forward run counted into `expected_shown` (up to the frontier).
    shown_upto: u64,
    /// The end was reported as the end of history.
    end_reported: bool,
    /// RSP: the last stop was a forward watch stop here (its access not executed yet).
    pending_watch: bool,
    /// RSP: a reverse step reported the access it would step back over, here.
    reverse_watch_at: Option<u64>,
    /// DAP: the last stop was on a fault, here.
    at_fault: bool,
    /// How often the machine has tried the faulting instruction here (fault stops, nothing
    /// ran since): its state is the forward run's after that many attempts.
    attempted: u32,
    /// Where keys typed in the past enter: the frontier when they were typed.
    held_at: u64,
    /// RSP: the fault message the console shows after the output of the stop that reported
    /// the fault.
    note: Option<String>,
    /// The notes of changes in the past that dropped the recorded future, in order: the
    /// debugger's console (gdb's, at the next resume; the DAP's Debug Console) shows them.
    discards: Vec<String>,
    /// RSP: gdb resumed since the last of them (its console has them all).
    notes_sent: bool,
    /// The session ended (program exited).
    over: bool,
    keys_typed: u8,
    log: String,
    unit_bytes: u64,
    word_units: u64,
    fault_exit: i32,
}

impl<G: GdbMachine> Case<G> {
    fn new(
        p: std::rc::Rc<Program>,
        proto: Proto,
        load: Box<dyn Fn() -> G>,
        flow: Box<dyn Fn(&G) -> asmdbg_core::flow::Flow>,
        machine: G,
        image: asmdbg_core::elf::ElfImage,
    ) -> Self {
        let mut code = Vec::new();
        let step = if machine.unit_bytes() == 2 { 1 } else { 4 };
        let end = p
            .code_end
            .as_deref()
            .and_then(|l| resolve_address(&machine, l));
        for (label, n) in &p.code {
            if let Some(start) = resolve_address(&machine, label) {
                let n = end.map_or(*n, |e| e.saturating_sub(start) / step);
                for i in 0..n {
                    code.push(machine.native_code_to_gdb(start + i * step));
                }
            }
        }
        let data: Vec<u64> = p
            .data
            .iter()
            .filter_map(|l| resolve_address(&machine, l))
            .collect();
        let mut regions = p.regions.clone();
        for (label, words) in &p.data_regions {
            if let Some(start) = resolve_address(&machine, label) {
                let a = machine.native_to_gdb(start);
                let bytes = words * u64::from(machine.unit_bytes() * machine.word_units());
                regions.push((a, a + bytes));
            }
        }
        let facts = asmdbg_session::frames::FrameFacts::new(image.debug.clone());
        let unit_bytes = u64::from(machine.unit_bytes());
        let word_units = u64::from(machine.word_units());
        let fault_exit = machine.fault_exit_status();
        let fresh = load();
        let mut target = Debuggee::new(machine);
        target.record_history(64 << 20);
        let (rsp, dap) = match proto {
            Proto::Rsp => (Some(RspWire::new(target, image.debug.clone())), None),
            Proto::Dap => (None, Some(DapWire::new(target, image))),
        };
        Case {
            p,
            regions,
            proto,
            oracle: Oracle {
                load,
                fresh,
                timeline: Vec::new(),
                flow,
                facts,
            },
            rsp,
            dap,
            code,
            bps: BTreeSet::new(),
            data,
            watches: Vec::new(),
            now: 0,
            frontier: 0,
            held: Vec::new(),
            shown: Vec::new(),
            expected_shown: Vec::new(),
            shown_upto: 0,
            end_reported: false,
            pending_watch: false,
            reverse_watch_at: None,
            at_fault: false,
            attempted: 0,
            held_at: 0,
            note: None,
            discards: Vec::new(),
            notes_sent: true,
            over: false,
            keys_typed: 0,
            log: String::new(),
            unit_bytes,
            word_units,
            fault_exit,
        }
    }

    fn fail(&self, what: String) -> Result<(), String> {
        let program = match self.p.file.as_str() {
            "generated.asm" => format!("the program:\n{}", self.p.source),
            _ => String::new(),
        };
        Err(format!(
            "{:?} over {:?}: {what}\ncommands and stops so far:\n{}{program}",
            self.p.isa, self.proto, self.log
        ))
    }

    fn play(mut self, cmds: &[Cmd]) -> Result<(), String> {
        if let Some(dap) = &mut self.dap {
            dap.launch()?;
        }
        self.check_state("the start")?;
        for &cmd in cmds {
            if self.over {
                break;
            }
            let _ = writeln!(self.log, "{cmd:?}");
            self.command(cmd)?;
        }
        Ok(())
    }

    /// Whether the forward run is in the program's own frame at the machine's count (no call
    /// under way to step out of).
    fn outermost(&self) -> bool {
        let (trace, _) = self.oracle.run(&[], self.now, None);
        trace
            .acts
            .get(self.now as usize)
            .map_or(true, |&a| trace.calls[a as usize].parent.is_none())
    }

    /// The count of the session's machine.
    fn session_count(&mut self) -> u64 {
        match (&mut self.rsp, &mut self.dap) {
            (Some(rsp), _) => rsp.session.target().machine.instructions_executed(),
            (_, Some(dap)) => dap.count(),
            _ => 0,
        }
    }

    fn command(&mut self, cmd: Cmd) -> Result<(), String> {
        let before = self.now;
        let frontier_before = self.frontier;
        let mut quiet = false;
        match cmd {
            Cmd::Break(n) => {
                let Some(&addr) = self.code.get(usize::from(n) % self.code.len().max(1)) else {
                    return Ok(());
                };
                let set = !self.bps.contains(&addr);
                if set {
                    self.bps.insert(addr);
                } else {
                    self.bps.remove(&addr);
                }
                self.set_breakpoints(addr, set)?;
                return Ok(());
            }
            Cmd::Watch(n) => {
                let Some(&addr) = self.data.get(usize::from(n / 3) % self.data.len().max(1)) else {
                    return Ok(());
                };
                let kind =
                    [WatchKind::Write, WatchKind::Read, WatchKind::Access][usize::from(n % 3)];
                let len = self.word_units;
                // One watchpoint a word: the same one again clears it, another kind replaces it.
                if let Some(i) = self.watches.iter().position(|w| w.0 == addr) {
                    let old = self.watches.remove(i);
                    self.send_watch(old, false)?;
                    if old.2 == kind {
                        return Ok(());
                    }
                }
                self.watches.push((addr, len, kind));
                return self.send_watch((addr, len, kind), true);
            }
            Cmd::Key(k) => {
                if !self.p.keys {
                    return Ok(());
                }
                self.type_key(b'a' + k % 26);
                return Ok(());
            }
            Cmd::Write(n, v) => {
                let Some(&native) = self.data.get(usize::from(n) % self.data.len().max(1)) else {
                    return Ok(());
                };
                let gdb = native * self.unit_bytes;
                let bytes = vec![v, 0];
                self.state_written(Ev::Write(gdb, bytes.clone()));
                self.write_memory(gdb, &bytes)?;
                quiet = true;
            }
            Cmd::Jump(n) => {
                let Some(&addr) = self.code.get(usize::from(n) % self.code.len().max(1)) else {
                    return Ok(());
                };
                let native = self.oracle.fresh.gdb_code_to_native(addr);
                self.state_written(Ev::SetPc(native));
                self.at_fault = false;
                if let Some(rsp) = &mut self.rsp {
                    // gdb's `jump`/`set $pc`: the PC register written with `P`.
                    let pc = if matches!(self.p.isa, Isa::Mips | Isa::MipsDevices) {
                        37
                    } else {
                        15
                    };
                    let value = hex(&(addr as u32).to_le_bytes());
                    rsp.expect_ok(&format!("P{pc:x}={value}"))?;
                    quiet = true;
                } else {
                    let seen = self.dap.as_mut().expect("dap").jump(addr)?;
                    let want = Want::At(before, Reason::Quiet);
                    return self.after(cmd, before, frontier_before, seen, want);
                }
            }
            Cmd::Goto(n) => {
                let target = self.frontier * u64::from(n) / 255;
                self.goto(target)?;
                quiet = true;
            }
            _ => {}
        }
        if quiet {
            self.now = self.session_count();
            self.release_held_if_at_frontier();
            return self.check_state(&format!("{cmd:?}"));
        }
        // A motion.
        let seen = match self.proto {
            Proto::Rsp => self.rsp_motion(cmd)?,
            Proto::Dap => self.dap_motion(cmd)?,
        };
        let want = self.expect(cmd, before, &seen);
        self.after(cmd, before, frontier_before, seen, want)
    }

    fn release_held_if_at_frontier(&mut self) {
        if !self.held.is_empty() && self.now >= self.frontier {
            self.release_held();
        }
    }

    /// Keys typed in the past enter where they were held for (the machine is back there).
    fn release_held(&mut self) {
        if !self.held.is_empty() {
            let bytes = std::mem::take(&mut self.held);
            let at = self.held_at.min(self.now);
            self.push_event(at, Ev::Input(bytes));
        }
    }

    /// An event at count `at`, after every other event at or before that count.
    fn push_event(&mut self, at: u64, ev: Ev) {
        let timeline = &mut self.oracle.timeline;
        let i = timeline.partition_point(|(c, _)| *c <= at);
        timeline.insert(i, (at, ev));
    }

    /// A register or memory write, or a jump, at the current count: in the past it ends the
    /// recorded future (the events after it go; keys held for the frontier come now).
    fn state_written(&mut self, ev: Ev) {
        let now = self.now;
        if now < self.frontier {
            // The debugger's console says so (not the program's).
            self.discards
                .push(asmdbg_core::gdb::discarded_note(now, self.frontier));
            self.notes_sent = false;
            // Everything that came in at `now` stays: it is part of the state at `now`.
            self.oracle.timeline.retain(|(at, _)| *at <= now);
            self.frontier = now;
            // What the console showed stays shown; output is counted again from here.
            self.shown_upto = now;
        }
        for _ in 0..self.attempted {
            self.push_event(now, Ev::Attempt);
        }
        self.attempted = 0;
        self.at_fault = false;
        // The machine's pending access after a watch stop belongs to its instruction: a jump
        // drops it, a write does not.
        if matches!(ev, Ev::SetPc(_)) {
            self.pending_watch = false;
        }
        self.push_event(now, ev);
        self.release_held_if_at_frontier();
        self.end_reported = false;
    }

    fn type_key(&mut self, key: u8) {
        self.keys_typed = self.keys_typed.wrapping_add(1);
        let _ = writeln!(self.log, "  typed {:?} at {}", key as char, self.now);
        let mut typed = vec![key];
        if self.p.lines {
            typed.push(b'\n');
        }
        if self.now < self.frontier {
            self.held.extend_from_slice(&typed);
            self.held_at = self.frontier;
        } else {
            self.push_event(self.now, Ev::Input(typed.clone()));
        }
        match (&mut self.rsp, &mut self.dap) {
            (Some(rsp), _) => rsp.session.on_console_input(&typed),
            (_, Some(dap)) => dap.server.on_console_input(&typed),
            _ => {}
        }
    }

    /// A key for a guest that waits for one while a motion runs: typed live, at the count the
    /// machine is at.
    fn feed_waiting_guest(&mut self) {
        self.now = self.session_count();
        self.frontier = self.frontier.max(self.now);
        // The machine got back to where keys typed in the past were held for: they came first.
        self.release_held();
        let key = b'a' + self.keys_typed % 26;
        self.type_key(key);
    }

    fn set_breakpoints(&mut self, addr: u64, set: bool) -> Result<(), String> {
        let code: Vec<String> = self
            .bps
            .iter()
            .map(|&gdb| {
                let native = self.oracle.fresh.gdb_code_to_native(gdb);
                self.oracle.fresh.isa().format_addr(native)
            })
            .collect();
        match (&mut self.rsp, &mut self.dap) {
            (Some(rsp), _) => {
                let kind = if self.unit_bytes == 2 { 2 } else { 4 };
                let z = if set { 'Z' } else { 'z' };
                rsp.expect_ok(&format!("{z}0,{addr:x},{kind}"))
            }
            (_, Some(dap)) => {
                let list: Vec<Value> = code
                    .iter()
                    .map(|c| json!({"instructionReference": c}))
                    .collect();
                dap.ok("setInstructionBreakpoints", json!({"breakpoints": list}))
                    .map(|_| ())
            }
            _ => Ok(()),
        }
    }

    /// Sets (or clears) one watchpoint: RSP `Z2`-`Z4`/`z`, DAP the whole list again.
    fn send_watch(&mut self, watch: (u64, u64, WatchKind), set: bool) -> Result<(), String> {
        let (addr, len, kind) = watch;
        let fmt = |a: u64| self.oracle.fresh.isa().format_addr(a);
        let list: Vec<Value> = self
            .watches
            .iter()
            .map(|&(a, l, k)| {
                let access = match k {
                    WatchKind::Write => "write",
                    WatchKind::Read => "read",
                    WatchKind::Access => "readWrite",
                };
                json!({"dataId": format!("{}:{l}", fmt(a)), "accessType": access})
            })
            .collect();
        let unit_bytes = self.unit_bytes;
        match (&mut self.rsp, &mut self.dap) {
            (Some(rsp), _) => {
                let z = if set { 'Z' } else { 'z' };
                let n = match kind {
                    WatchKind::Write => 2,
                    WatchKind::Read => 3,
                    WatchKind::Access => 4,
                };
                let gdb = addr * unit_bytes;
                rsp.expect_ok(&format!("{z}{n},{gdb:x},{:x}", len * unit_bytes))
            }
            (_, Some(dap)) => dap
                .ok("setDataBreakpoints", json!({"breakpoints": list}))
                .map(|_| ()),
            _ => Ok(()),
        }
    }

    fn write_memory(&mut self, gdb: u64, bytes: &[u8]) -> Result<(), String> {
        match (&mut self.rsp, &mut self.dap) {
            (Some(rsp), _) => rsp.expect_ok(&format!("M{gdb:x},{:x}:{}", bytes.len(), hex(bytes))),
            (_, Some(dap)) => dap
                .ok(
                    "writeMemory",
                    json!({"memoryReference": "0", "offset": gdb, "data": base64(bytes)}),
                )
                .map(|_| ()),
            _ => Ok(()),
        }
    }

    fn goto(&mut self, target: u64) -> Result<(), String> {
        let reply = match (&mut self.rsp, &mut self.dap) {
            (Some(rsp), _) => rsp.monitor(&format!("goto {target}"))?,
            (_, Some(dap)) => dap.monitor(&format!("goto {target}"))?,
            _ => String::new(),
        };
        if !reply.contains(&format!("at instruction {target}")) {
            return self.fail(format!("monitor goto {target} answered {reply:?}"));
        }
        self.end_reported = false;
        // A goto to where the machine is moves nothing: a pending access, a fault's attempt
        // stay.
        let stays = target == self.now;
        self.pending_watch &= stays;
        if !stays {
            self.attempted = 0;
        }
        self.at_fault &= stays;
        Ok(())
    }

    /// Plays a motion over RSP: the request, bursts until the stop reply (keys for a waiting
    /// guest, Ctrl-C if it takes too long).
    fn rsp_motion(&mut self, cmd: Cmd) -> Result<Seen, String> {
        // The helper script's motions: armed, then run by a `bs`. Its reverse-finish refuses
        // the outermost frame itself (gdb knows it has no caller).
        let armed = match cmd {
            Cmd::ReverseLine => Some("next 1"),
            Cmd::ReverseStepLine => Some("step 1"),
            Cmd::ReverseNextInstruction => Some("nexti 1"),
            Cmd::ReverseFinish if self.outermost() => return Ok(Seen::Nothing),
            Cmd::ReverseFinish => Some("finish 0"),
            _ => None,
        };
        if let Some(words) = armed {
            let reply = self
                .rsp
                .as_mut()
                .expect("rsp")
                .monitor(&format!("asmdbg-reverse {words}"))?;
            if !reply.trim().is_empty() {
                return Err(format!("monitor asmdbg-reverse {words} answered {reply:?}"));
            }
        }
        let packet = match cmd {
            Cmd::Continue | Cmd::StepOut => "vCont;c",
            Cmd::ReverseContinue => "bc",
            c if c.is_reverse() => "bs",
            _ => "vCont;s",
        };
        self.rsp.as_mut().expect("rsp").send(packet);
        self.notes_sent = true;
        let mut bursts = 0;
        let mut idle = 0;
        let mut fed = 0;
        loop {
            let rsp = self.rsp.as_mut().expect("rsp");
            let poll = rsp.poll();
            if let Some(reply) = rsp.stop_reply() {
                self.collect_shown();
                return Ok(parse_stop(&reply));
            }
            if poll.ended.is_some() {
                return Err(format!(
                    "the connection ended: {:?}\n{}",
                    poll.ended, self.log
                ));
            }
            if poll.run {
                idle = 0;
                rsp.session.run_burst(Instant::now());
                bursts += 1;
                self.collect_shown();
                if bursts > 4 * BURSTS_PER_MOTION {
                    return Err(format!(
                        "the motion does not stop, even interrupted\n{}",
                        self.log
                    ));
                }
                if bursts == BURSTS_PER_MOTION {
                    self.rsp
                        .as_mut()
                        .expect("rsp")
                        .session
                        .on_bytes(&[3], Instant::now());
                }
            } else {
                idle += 1;
                if idle > IDLE_POLLS {
                    if !self.p.keys {
                        return Err(format!("the motion waits for nothing\n{}", self.log));
                    }
                    self.feed_waiting_guest();
                    idle = 0;
                    fed += 1;
                    if fed > 64 {
                        return Err(format!("the motion waits on and on\n{}", self.log));
                    }
                }
            }
        }
    }

    fn dap_motion(&mut self, cmd: Cmd) -> Result<Seen, String> {
        let (command, args) = match cmd {
            Cmd::Continue => ("continue", json!({"threadId": 1})),
            Cmd::StepInstruction => (
                "stepIn",
                json!({"threadId": 1, "granularity": "instruction"}),
            ),
            Cmd::NextInstruction => ("next", json!({"threadId": 1, "granularity": "instruction"})),
            Cmd::StepLine => ("stepIn", json!({"threadId": 1})),
            Cmd::NextLine => ("next", json!({"threadId": 1})),
            Cmd::StepOut => ("stepOut", json!({"threadId": 1})),
            Cmd::ReverseStep | Cmd::ReverseNextInstruction => (
                "stepBack",
                json!({"threadId": 1, "granularity": "instruction"}),
            ),
            Cmd::ReverseLine | Cmd::ReverseStepLine => ("stepBack", json!({"threadId": 1})),
            Cmd::ReverseFinish => ("asmdbgStepOutBack", json!({"threadId": 1})),
            _ => ("reverseContinue", json!({"threadId": 1})),
        };
        let patience = BURSTS_PER_MOTION;
        let response = self.dap.as_mut().expect("dap").request(command, args)?;
        if response["success"] != true {
            // stepOut (forwards or backwards) from the outermost frame: refused, nothing moves.
            return Ok(Seen::Nothing);
        }
        let mut bursts = 0;
        let mut idle = 0;
        let mut fed = 0;
        loop {
            let dap = self.dap.as_mut().expect("dap");
            let run = dap.poll();
            if let Some(seen) = dap.take_stop() {
                self.collect_shown();
                return Ok(seen);
            }
            if run {
                idle = 0;
                dap.server.run_burst();
                bursts += 1;
                self.collect_shown();
                if bursts > 4 * BURSTS_PER_MOTION {
                    return Err(format!(
                        "the motion does not stop, even interrupted\n{}",
                        self.log
                    ));
                }
                if bursts == patience {
                    self.dap
                        .as_mut()
                        .expect("dap")
                        .request("pause", json!({"threadId": 1}))?;
                }
            } else {
                idle += 1;
                if idle > IDLE_POLLS {
                    if !self.p.keys {
                        return Err(format!("the motion waits for nothing\n{}", self.log));
                    }
                    self.feed_waiting_guest();
                    idle = 0;
                    fed += 1;
                    if fed > 64 {
                        return Err(format!("the motion waits on and on\n{}", self.log));
                    }
                }
            }
        }
    }

    fn collect_shown(&mut self) {
        match (&mut self.rsp, &mut self.dap) {
            (Some(rsp), _) => {
                while let Some(chunk) = rsp.session.take_output_chunk() {
                    self.shown.extend(chunk);
                }
            }
            (_, Some(dap)) => self.shown.append(&mut dap.stdout),
            _ => {}
        }
    }
}
