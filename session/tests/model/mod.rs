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

use std::collections::{BTreeSet, VecDeque};
use std::fmt::Write as _;
use std::time::Instant;

use asmdbg_core::gdb::{Debuggee, GdbMachine};
use asmdbg_core::{resolve_address, Backend, MachineOptions, StopEvent, WatchKind};
use asmdbg_session::dap::wire::{encode, DapFramer, Incoming};
use asmdbg_session::dap::{DapProgram, DapServer, Launched};
use asmdbg_session::{rsp_packet, Discipline, LineMode, RspSession};
use gdbstub::arch::{Arch, Registers};
use serde_json::{json, Value};

/// Instructions per burst: small, so that a motion that never stops is interrupted soon.
const BURST: u64 = 2_000;
/// Bursts a motion may take before the test interrupts it (pause, Ctrl-C).
const BURSTS_PER_MOTION: u32 = 60;
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
    /// DAP `stepBack` by line (RSP `bs`).
    ReverseLine,
    ReverseContinue,
    /// `monitor goto N`, N = frontier * n / 255.
    Goto(u8),
    /// DAP `goto` to a code address (RSP: the PC written with `P`... here `monitor goto`'s
    /// sibling: a memory write, see [`Cmd::Write`]).
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
                    7 => Cmd::ReverseLine,
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

/// A program each machine runs: it reads keys (where the machine has a console), calls a
/// subroutine that writes, reads and rewrites a watched word, prints, and ends after a few
/// rounds.
pub struct Program {
    pub isa: Isa,
    pub file: &'static str,
    pub source: &'static str,
    /// Labels of data words to watch and write.
    pub data: &'static [&'static str],
    /// Code labels, and how many instructions from each to offer as breakpoints.
    pub code: &'static [(&'static str, u64)],
    /// gdb byte ranges compared at every stop.
    pub regions: &'static [(u64, u64)],
    /// The machine reads keys.
    pub keys: bool,
    /// Its console reads lines (MARS): a key is typed with Enter.
    pub lines: bool,
}

pub const LC3: Program = Program {
    isa: Isa::Lc3,
    file: "model.asm",
    source: "        .ORIG x3000
MAIN    AND R5, R5, #0
LOOP    GETC
        JSR KEEP
        ADD R5, R5, #1
        LEA R0, MSG
        PUTS
        ADD R1, R5, #-4
        BRn LOOP
        HALT
KEEP    ST R0, LAST
        LD R1, LAST
        ADD R1, R1, #1
        ST R1, COUNT
        LD R2, COUNT
        ADD R2, R2, R1
        ST R2, LAST
        RET
LAST    .FILL 0
COUNT   .FILL 0
MSG     .STRINGZ \"ok\\n\"
        .END
",
    data: &["LAST", "COUNT"],
    code: &[("MAIN", 18)],
    // x3000..x3020 as gdb sees it (two bytes a word), and the OS's stack area.
    regions: &[(0x6000, 0x6040), (0x5ff0, 0x6000)],
    keys: true,
    lines: false,
};

pub const MIPS: Program = Program {
    isa: Isa::Mips,
    file: "model.asm",
    source: "        .data
last:   .word 0
count:  .word 0
msg:    .asciiz \"ok\\n\"
        .text
main:   li $s0, 0
loop:   li $v0, 12
        syscall
        move $a0, $v0
        jal keep
        addi $s0, $s0, 1
        li $v0, 4
        la $a0, msg
        syscall
        blt $s0, 4, loop
        li $v0, 10
        syscall
keep:   addi $sp, $sp, -4
        sw $ra, 0($sp)
        sw $a0, last
        lw $t1, last
        addi $t1, $t1, 1
        sw $t1, count
        lw $t2, count
        add $t2, $t2, $t1
        sw $t2, last
        lw $ra, 0($sp)
        addi $sp, $sp, 4
        jr $ra
",
    data: &["last", "count"],
    code: &[("main", 40)],
    regions: &[(0x1001_0000, 0x1001_0010), (0x7fff_eff0, 0x7fff_f000)],
    keys: true,
    lines: true,
};

pub const SIMPLERISC: Program = Program {
    isa: Isa::SimpleRisc,
    file: "model.asm",
    source: ".main:
    mov r5, 0
    mov r6, 3
loop:
    call keep
    add r5, r5, 1
    .print r5
    cmp r6, r5
    bgt loop
    b done
keep:
    sub sp, sp, 4
    st ra, 0[sp]
    ld r1, 100[r0]
    add r1, r1, r5
    st r1, 100[r0]
    ld r2, 104[r0]
    add r2, r2, r1
    st r2, 104[r0]
    ld ra, 0[sp]
    add sp, sp, 4
    ret
done:
    nop
",
    data: &["100", "104"],
    code: &[(".main", 22)],
    regions: &[(96, 112), (4080, 4096)],
    keys: false,
    lines: false,
};

pub fn program(isa: Isa) -> &'static Program {
    match isa {
        Isa::Lc3 => &LC3,
        Isa::Mips => &MIPS,
        Isa::SimpleRisc => &SIMPLERISC,
    }
}

/// Runs one case: `cmds` against `proto`'s session of `isa`'s machine. `Err` says which
/// command broke which invariant, with the commands so far.
pub fn run_case(isa: Isa, proto: Proto, cmds: &[Cmd]) -> Result<(), String> {
    let opts = MachineOptions::default();
    let p = program(isa);
    match isa {
        Isa::Lc3 => {
            let load = move || {
                asmdbg_lc3::load_machine(p.file, p.source.as_bytes(), &MachineOptions::default())
            };
            let machine = load().map_err(|e| e.to_string())?;
            let image = asmdbg_lc3::BACKEND
                .image(&machine, &opts)
                .map_err(|e| e.to_string())?;
            Case::new(
                p,
                proto,
                Box::new(move || load().expect("it loaded once")),
                machine,
                image,
            )
            .play(cmds)
        }
        Isa::Mips => {
            let load =
                move || asmdbg_mips::load_machine(p.file, p.source, &MachineOptions::default());
            let machine = load().map_err(|e| e.to_string())?;
            let image = asmdbg_mips::BACKEND
                .image(&machine, &opts)
                .map_err(|e| e.to_string())?;
            Case::new(
                p,
                proto,
                Box::new(move || load().expect("it loaded once")),
                machine,
                image,
            )
            .play(cmds)
        }
        Isa::SimpleRisc => {
            let load = move || {
                asmdbg_simplerisc::load_machine(p.file, p.source, &MachineOptions::default())
            };
            let machine = load().map_err(|e| e.to_string())?;
            let image = asmdbg_simplerisc::BACKEND
                .image(&machine, &opts)
                .map_err(|e| e.to_string())?;
            Case::new(
                p,
                proto,
                Box::new(move || load().expect("it loaded once")),
                machine,
                image,
            )
            .play(cmds)
        }
    }
}

/// What happened to the machine at an instruction count, from outside.
#[derive(Debug, Clone)]
enum Ev {
    Input(Vec<u8>),
    SetPc(u64),
    /// Bytes written at a gdb address.
    Write(u64, Vec<u8>),
}

/// How the forward run ends.
#[derive(Debug, Clone, PartialEq)]
enum End {
    /// At this count the program has ended (halted or exited with the code), by the step
    /// from the second count (the same count: the step ran nothing, the program had ended).
    Ended(u64, Option<i32>, u64),
    /// At this count the instruction faults (with the message).
    Fault(u64, String),
    /// At this count the guest waits for input that no event gives.
    Starved(u64),
    /// The oracle's limit.
    Limit(u64),
}

impl End {
    fn count(&self) -> u64 {
        match self {
            End::Ended(c, ..) | End::Fault(c, _) | End::Starved(c) | End::Limit(c) => *c,
        }
    }
}

/// The forward run: the PC at each count, the watched access at each count, how it ends.
struct Trace {
    pcs: Vec<u64>,
    watch: Vec<Option<(WatchKind, u64)>>,
    /// Output bytes produced before each count.
    out_len: Vec<usize>,
    output: Vec<u8>,
    end: End,
}

impl Trace {
    /// The last count the trace knows a PC for.
    fn last(&self) -> u64 {
        self.pcs.len() as u64 - 1
    }
}

/// The forward-only machine: loaded afresh, given the timeline, stepped.
struct Oracle<G: GdbMachine> {
    /// Loads the program afresh.
    load: Box<dyn Fn() -> G>,
    /// A machine as loaded, for its facts (addresses, formats).
    fresh: G,
    /// Events by count, in the order they happened.
    timeline: Vec<(u64, Ev)>,
}

impl<G: GdbMachine> Oracle<G> {
    fn apply(m: &mut G, ev: &Ev) {
        match ev {
            Ev::Input(bytes) => m.queue_input(bytes),
            Ev::SetPc(pc) => m.set_pc(*pc),
            Ev::Write(addr, bytes) => {
                for (i, b) in bytes.iter().enumerate() {
                    let _ = m.gdb_write_byte(addr + i as u64, *b);
                }
            }
        }
    }

    /// The forward run to count `upto` (or its end), with `watches` set; and the machine as
    /// it is at count `probe`, if it gets there.
    fn run(
        &self,
        watches: &[(u64, u64, WatchKind)],
        upto: u64,
        probe: Option<u64>,
    ) -> (Trace, Option<G>) {
        let (trace, m) = self.run_to(watches, upto);
        let probed = match probe {
            Some(p) if p == upto && m.instructions_executed() == p => Some(m),
            Some(p) if p < upto => {
                let (_, m) = self.run_to(&[], p);
                (m.instructions_executed() == p).then_some(m)
            }
            _ => None,
        };
        (trace, probed)
    }

    fn run_to(&self, watches: &[(u64, u64, WatchKind)], upto: u64) -> (Trace, G) {
        let mut m = (self.load)();
        for &(addr, len, kind) in watches {
            m.watchpoints().insert(addr, len, kind);
        }
        let mut trace = Trace {
            pcs: Vec::new(),
            watch: Vec::new(),
            out_len: Vec::new(),
            output: Vec::new(),
            end: End::Limit(0),
        };
        let mut next = 0;
        loop {
            let count = m.instructions_executed();
            while next < self.timeline.len() && self.timeline[next].0 <= count {
                Self::apply(&mut m, &self.timeline[next].1);
                next += 1;
            }
            trace.output.extend(m.console().take_output());
            trace.pcs.push(m.pc());
            trace.out_len.push(trace.output.len());
            trace.watch.push(None);
            if count >= upto.min(ORACLE_LIMIT) {
                trace.end = End::Limit(count);
                return (trace, m);
            }
            let event = match m.step() {
                Some(StopEvent::Watch { kind, addr }) => {
                    *trace.watch.last_mut().expect("pushed") = Some((kind, addr));
                    // The access goes through: the next step executes it.
                    m.step()
                }
                other => other,
            };
            let after = m.instructions_executed();
            let end = match event {
                Some(StopEvent::Halted) => Some(End::Ended(after, None, count)),
                Some(StopEvent::Exited(code)) => Some(End::Ended(after, Some(code), count)),
                Some(StopEvent::Fault(f)) => Some(End::Fault(count, f.message)),
                // Waiting for a key no event brings (the guest may poll for it: it runs on).
                Some(StopEvent::NeedInput) if next == self.timeline.len() => {
                    Some(End::Starved(after))
                }
                _ => None,
            };
            if let Some(end) = end {
                // The end state is a point of the run too (the program's last instruction
                // ran), unless nothing ran.
                if after > count {
                    while next < self.timeline.len() && self.timeline[next].0 <= after {
                        Self::apply(&mut m, &self.timeline[next].1);
                        next += 1;
                    }
                    trace.output.extend(m.console().take_output());
                    trace.pcs.push(m.pc());
                    trace.out_len.push(trace.output.len());
                    trace.watch.push(None);
                }
                trace.end = end;
                return (trace, m);
            }
        }
    }
}

/// A stop as the protocol reported it.
#[derive(Debug, Clone, PartialEq)]
enum Seen {
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

/// What the model expects of a stop.
#[derive(Debug, Clone, PartialEq)]
enum Want {
    /// At this count, for this reason.
    At(u64, Reason),
    /// Somewhere in a range, not passing any hit: for the motions the model does not follow
    /// exactly (line steps, steps over calls, step out, reverse line steps).
    Loose,
}

#[derive(Debug, Clone, PartialEq)]
enum Reason {
    Step,
    Breakpoint,
    /// The watched access, at the trace's count of it.
    Watch(WatchKind, u64),
    /// The program's end: first as the end of history, then as the end.
    EndOfHistory,
    Exit(i32),
    Fault,
    Begin,
    /// A command that does not stop.
    Quiet,
}

struct Case<G: GdbMachine> {
    p: &'static Program,
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
    /// RSP: the fault message the console shows after the output of the stop that reported
    /// the fault.
    note: Option<String>,
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
        p: &'static Program,
        proto: Proto,
        load: Box<dyn Fn() -> G>,
        machine: G,
        image: asmdbg_core::elf::ElfImage,
    ) -> Self {
        let mut code = Vec::new();
        for &(label, n) in p.code {
            if let Some(start) = resolve_address(&machine, label) {
                let step = if machine.unit_bytes() == 2 { 1 } else { 4 };
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
        let unit_bytes = u64::from(machine.unit_bytes());
        let word_units = u64::from(machine.word_units());
        let fault_exit = machine.fault_exit_status();
        let fresh = load();
        let mut target = Debuggee::new(machine);
        target.record_history(64 << 20);
        let (rsp, dap) = match proto {
            Proto::Rsp => (Some(RspWire::new(target)), None),
            Proto::Dap => (None, Some(DapWire::new(target, image))),
        };
        Case {
            p,
            proto,
            oracle: Oracle {
                load,
                fresh,
                timeline: Vec::new(),
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
            note: None,
            over: false,
            keys_typed: 0,
            log: String::new(),
            unit_bytes,
            word_units,
            fault_exit,
        }
    }

    fn fail(&self, what: String) -> Result<(), String> {
        Err(format!(
            "{:?} over {:?}: {what}\ncommands and stops so far:\n{}",
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
                if self.proto != Proto::Dap {
                    return Ok(());
                }
                let Some(&addr) = self.code.get(usize::from(n) % self.code.len().max(1)) else {
                    return Ok(());
                };
                let native = self.oracle.fresh.gdb_code_to_native(addr);
                self.state_written(Ev::SetPc(native));
                let seen = self.dap.as_mut().expect("dap").jump(addr)?;
                self.at_fault = false;
                return self.after(
                    cmd,
                    before,
                    frontier_before,
                    seen,
                    Want::At(before, Reason::Quiet),
                );
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
            let bytes = std::mem::take(&mut self.held);
            self.oracle.timeline.push((self.frontier, Ev::Input(bytes)));
        }
    }

    /// A register or memory write, or a jump, at the current count: in the past it ends the
    /// recorded future (the events after it go; keys held for the frontier come now).
    fn state_written(&mut self, ev: Ev) {
        let now = self.now;
        if now < self.frontier {
            self.note = Some(format!(
                "[asmdbg: the machine was changed at instruction {now} of {}: the recorded run after it is dropped and it runs live from here]",
                self.frontier
            ));
            self.oracle.timeline.retain(|(at, _)| *at < now);
            self.frontier = now;
            // What the console showed stays shown; output is counted again from here.
            self.shown_upto = now;
        }
        self.oracle.timeline.push((now, ev));
        self.release_held_if_at_frontier();
        self.end_reported = false;
        self.pending_watch = false;
        self.reverse_watch_at = None;
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
        } else {
            self.oracle
                .timeline
                .push((self.now, Ev::Input(typed.clone())));
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
        self.pending_watch = false;
        self.reverse_watch_at = None;
        self.at_fault = false;
        Ok(())
    }

    /// Plays a motion over RSP: the request, bursts until the stop reply (keys for a waiting
    /// guest, Ctrl-C if it takes too long).
    fn rsp_motion(&mut self, cmd: Cmd) -> Result<Seen, String> {
        let packet = match cmd {
            Cmd::Continue | Cmd::StepOut => "vCont;c",
            Cmd::ReverseStep | Cmd::ReverseLine => "bs",
            Cmd::ReverseContinue => "bc",
            _ => "vCont;s",
        };
        self.rsp.as_mut().expect("rsp").send(packet);
        let mut bursts = 0;
        let mut idle = 0;
        loop {
            let rsp = self.rsp.as_mut().expect("rsp");
            let poll = rsp.poll();
            if let Some(reply) = rsp.reply() {
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
            Cmd::ReverseStep => (
                "stepBack",
                json!({"threadId": 1, "granularity": "instruction"}),
            ),
            Cmd::ReverseLine => ("stepBack", json!({"threadId": 1})),
            _ => ("reverseContinue", json!({"threadId": 1})),
        };
        let response = self.dap.as_mut().expect("dap").request(command, args)?;
        if response["success"] != true {
            // stepOut from the outermost frame: refused, nothing moves.
            return Ok(Seen::Nothing);
        }
        let mut bursts = 0;
        let mut idle = 0;
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
                if bursts == BURSTS_PER_MOTION {
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

    /// What the model expects of a motion from count `from`, seen as `seen` (used only to
    /// tell an interrupted motion).
    fn expect(&mut self, cmd: Cmd, from: u64, seen: &Seen) -> Want {
        let interrupted = matches!(
            seen,
            Seen::Rsp {
                signal: Some(2),
                ..
            }
        ) || matches!(seen, Seen::Dap { reason, .. } if reason == "pause");
        if interrupted || matches!(seen, Seen::Nothing) {
            return Want::Loose;
        }
        let (trace, _) = self.oracle.run(
            &self.watches,
            from.max(self.frontier) + BURST * u64::from(BURSTS_PER_MOTION),
            None,
        );
        let bp = |c: u64| {
            trace.pcs.get(c as usize).is_some_and(|pc| {
                self.bps
                    .contains(&self.oracle.fresh.native_code_to_gdb(*pc))
            })
        };
        let watch = |c: u64| trace.watch.get(c as usize).copied().flatten();
        let reverse = matches!(
            cmd,
            Cmd::ReverseStep | Cmd::ReverseLine | Cmd::ReverseContinue
        );
        let rsp = self.proto == Proto::Rsp;
        if reverse {
            if from == 0 {
                return Want::At(0, Reason::Begin);
            }
            return match (cmd, rsp) {
                (Cmd::ReverseContinue, _) => {
                    let hit = (0..from).rev().find(|&c| bp(c) || watch(c).is_some());
                    match hit {
                        Some(c) if bp(c) => Want::At(c, Reason::Breakpoint),
                        Some(c) => {
                            let (kind, addr) = watch(c).expect("a watch hit");
                            // RSP: just after the access (gdb steps back over it); DAP: before.
                            Want::At(if rsp { c + 1 } else { c }, Reason::Watch(kind, addr))
                        }
                        None => Want::At(0, Reason::Begin),
                    }
                }
                (_, true) => {
                    let back = from - 1;
                    match watch(back) {
                        Some((kind, addr))
                            if !self.watches.is_empty() && self.reverse_watch_at != Some(from) =>
                        {
                            Want::At(from, Reason::Watch(kind, addr))
                        }
                        _ => Want::At(back, Reason::Step),
                    }
                }
                (Cmd::ReverseStep, false) => Want::At(from - 1, Reason::Step),
                _ => Want::Loose,
            };
        }
        // Forward: the end or a fault first, if the run gets there before any hit.
        let end_reason = |count: u64, end: &End, end_reported: bool| match end {
            End::Ended(..) if !end_reported => Some(Want::At(count, Reason::EndOfHistory)),
            End::Ended(_, code, _) => Some(Want::At(count, Reason::Exit(code.unwrap_or(0)))),
            End::Fault(..) => Some(Want::At(count, Reason::Fault)),
            _ => None,
        };
        let ends_at = trace.end.count();
        // DAP: a continue from a fault ends the program.
        if !rsp && self.at_fault && from == ends_at {
            return Want::At(from, Reason::Exit(self.fault_exit));
        }
        let first_hit = |skip_bp_here: bool, skip_watch_here: bool| {
            (from..=trace.last()).find(|&c| {
                (bp(c) && !(skip_bp_here && c == from))
                    || (watch(c).is_some() && !(skip_watch_here && c == from))
            })
        };
        match (cmd, rsp) {
            (Cmd::Continue, _) | (Cmd::StepOut, true) => {
                let hit = if rsp {
                    first_hit(false, self.pending_watch)
                } else {
                    first_hit(true, false)
                };
                // A hit before the program's last instruction, or on the faulting one (a
                // breakpoint is checked, a watched access met, before it runs), comes first.
                let end_first = match &trace.end {
                    End::Ended(e, ..) => hit.map_or(true, |c| c >= *e),
                    End::Fault(f, _) => hit.map_or(true, |c| c > *f),
                    _ => false,
                };
                if end_first {
                    return end_reason(ends_at, &trace.end, self.end_reported)
                        .unwrap_or(Want::Loose);
                }
                match hit {
                    Some(c) if bp(c) && !(!rsp && c == from) => Want::At(c, Reason::Breakpoint),
                    Some(c) => {
                        let (kind, addr) = watch(c).expect("a watch hit");
                        Want::At(if rsp { c } else { c + 1 }, Reason::Watch(kind, addr))
                    }
                    None => Want::Loose,
                }
            }
            (Cmd::StepInstruction, _) | (_, true) => {
                // The step that ends the program (its last instruction, or none when it had
                // ended), or the faulting instruction, reports that.
                let ends_here = match &trace.end {
                    End::Ended(_, _, by) => from >= *by,
                    End::Fault(f, _) => *f == from,
                    _ => false,
                };
                match watch(from) {
                    Some((kind, addr)) if !(rsp && self.pending_watch) => {
                        Want::At(if rsp { from } else { from + 1 }, Reason::Watch(kind, addr))
                    }
                    _ if ends_here => {
                        end_reason(ends_at, &trace.end, self.end_reported).unwrap_or(Want::Loose)
                    }
                    _ => Want::At(from + 1, Reason::Step),
                }
            }
            _ => Want::Loose,
        }
    }

    /// Checks a motion's stop (`want`) and the state there; updates the model.
    fn after(
        &mut self,
        cmd: Cmd,
        from: u64,
        frontier_before: u64,
        seen: Seen,
        want: Want,
    ) -> Result<(), String> {
        if let Seen::DapExited(code) = seen {
            let _ = writeln!(self.log, "  -> exited {code}");
            let expected = match &want {
                Want::At(_, Reason::Exit(code)) => i64::from(*code),
                _ => return self.fail(format!("the program exited ({code}); expected {want:?}")),
            };
            if code != expected {
                return self.fail(format!("exit code {code}, expected {expected}"));
            }
            self.over = true;
            return Ok(());
        }
        if let Seen::Rsp {
            exit: Some(code), ..
        } = seen
        {
            let _ = writeln!(self.log, "  -> exited {code}");
            match &want {
                Want::At(_, Reason::Exit(c)) if *c as u8 == code => {}
                _ => return self.fail(format!("the program exited ({code}); expected {want:?}")),
            }
            self.over = true;
            return Ok(());
        }
        let at = self.session_count();
        let _ = writeln!(self.log, "  -> {seen:?} at {at} (from {from})");
        self.now = at;
        let forward = !matches!(
            cmd,
            Cmd::ReverseStep | Cmd::ReverseLine | Cmd::ReverseContinue | Cmd::Goto(_)
        );
        if forward && at > self.frontier {
            self.frontier = at;
        }
        if forward && at >= frontier_before && !self.held.is_empty() {
            let bytes = std::mem::take(&mut self.held);
            self.oracle
                .timeline
                .push((frontier_before, Ev::Input(bytes)));
        }
        self.release_held_if_at_frontier();
        let reason = self.reason_of(&seen);
        match &want {
            Want::At(count, expected) => {
                if at != *count || reason.as_ref() != Some(expected) {
                    return self.fail(format!(
                        "{cmd:?} from {from} stopped at {at} with {seen:?} ({reason:?}); the forward run says {count} with {expected:?}"
                    ));
                }
            }
            Want::Loose => self.check_loose(cmd, from, at, &reason)?,
        }
        // The model's flags after this stop.
        let reverse = !forward;
        if reverse {
            self.end_reported = false;
        }
        self.pending_watch =
            self.proto == Proto::Rsp && forward && matches!(reason, Some(Reason::Watch(..)));
        self.reverse_watch_at = match (&reason, cmd) {
            (Some(Reason::Watch(..)), Cmd::ReverseStep | Cmd::ReverseLine)
                if self.proto == Proto::Rsp =>
            {
                Some(at)
            }
            _ => None,
        };
        if matches!(reason, Some(Reason::EndOfHistory)) {
            self.end_reported = true;
        }
        self.at_fault = matches!(reason, Some(Reason::Fault));
        if self.at_fault && self.proto == Proto::Rsp {
            let (trace, _) = self.oracle.run(&[], at + 1, None);
            if let End::Fault(_, message) = trace.end {
                self.note = Some(message);
            }
        }
        self.check_state(&format!("{cmd:?}"))
    }

    /// A motion the model does not follow exactly: it went the right way and passed no hit.
    fn check_loose(
        &mut self,
        cmd: Cmd,
        from: u64,
        at: u64,
        reason: &Option<Reason>,
    ) -> Result<(), String> {
        let reverse = matches!(
            cmd,
            Cmd::ReverseStep | Cmd::ReverseLine | Cmd::ReverseContinue
        );
        if reverse {
            if at > from || (at == from && from > 0 && reason != &Some(Reason::Step)) {
                return self.fail(format!("{cmd:?} from {from} went forward to {at}"));
            }
            return Ok(());
        }
        if at < from {
            return self.fail(format!("{cmd:?} from {from} went back to {at}"));
        }
        let (trace, _) = self.oracle.run(&self.watches, at + 1, None);
        let bp = |c: u64| {
            trace.pcs.get(c as usize).is_some_and(|pc| {
                self.bps
                    .contains(&self.oracle.fresh.native_code_to_gdb(*pc))
            })
        };
        let rsp = self.proto == Proto::Rsp;
        for c in from..at {
            let skip = c == from && (!rsp || self.pending_watch);
            if c > from && bp(c) {
                return self.fail(format!(
                    "{cmd:?} from {from} to {at} passed the breakpoint hit at {c}"
                ));
            }
            // DAP reports a data breakpoint after the access: the last instruction's may be it.
            let reported_here = !rsp && c + 1 == at && matches!(reason, Some(Reason::Watch(..)));
            if trace.watch.get(c as usize).copied().flatten().is_some()
                && !reported_here
                && !(rsp && skip && c == from)
            {
                return self.fail(format!(
                    "{cmd:?} from {from} to {at} passed the watched access at {c}"
                ));
            }
        }
        Ok(())
    }

    /// The model's reading of what the protocol reported.
    fn reason_of(&self, seen: &Seen) -> Option<Reason> {
        match seen {
            Seen::Nothing => Some(Reason::Quiet),
            Seen::Rsp { signal, pairs, .. } => {
                let key = |k: &str| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
                if let Some(pos) = key("replaylog") {
                    return Some(if pos == "begin" {
                        Reason::Begin
                    } else {
                        Reason::EndOfHistory
                    });
                }
                for (name, kind) in [
                    ("watch", WatchKind::Write),
                    ("rwatch", WatchKind::Read),
                    ("awatch", WatchKind::Access),
                ] {
                    if let Some(addr) = key(name) {
                        let gdb = u64::from_str_radix(addr, 16).unwrap_or(u64::MAX);
                        return Some(Reason::Watch(kind, gdb / self.unit_bytes));
                    }
                }
                if key("swbreak").is_some() || key("hwbreak").is_some() {
                    return Some(Reason::Breakpoint);
                }
                match signal {
                    Some(5) => Some(Reason::Step),
                    Some(2) => None,
                    Some(_) => Some(Reason::Fault),
                    None => None,
                }
            }
            Seen::Dap {
                reason,
                description,
            } => match reason.as_str() {
                "breakpoint" | "instruction breakpoint" => Some(Reason::Breakpoint),
                "data breakpoint" => {
                    // The kind and word the DAP names are checked as the state: the model
                    // takes them from the trace at the count reached.
                    let kind_addr = self.dap_watch_of(description.as_deref());
                    kind_addr.map(|(k, a)| Reason::Watch(k, a))
                }
                "exception" => Some(Reason::Fault),
                "exit" => Some(Reason::EndOfHistory),
                "step"
                    if description
                        .as_deref()
                        .is_some_and(|d| d.contains("No more reverse-execution history")) =>
                {
                    Some(Reason::Begin)
                }
                "step" | "goto" => Some(if reason == "goto" {
                    Reason::Quiet
                } else {
                    Reason::Step
                }),
                _ => None,
            },
            Seen::DapExited(_) => None,
        }
    }

    /// A DAP data breakpoint's description names the access and the word ("write to LAST
    /// (x3013)"): as the trace's (kind, native address).
    fn dap_watch_of(&self, description: Option<&str>) -> Option<(WatchKind, u64)> {
        let d = description?;
        let kind = if d.starts_with("write") {
            WatchKind::Write
        } else if d.starts_with("read") {
            WatchKind::Read
        } else {
            WatchKind::Access
        };
        let m = &self.oracle.fresh;
        // The access's kind as the trace records it is the watchpoint's kind; the word is one
        // of the program's.
        let addr = self
            .data
            .iter()
            .copied()
            .find(|&a| d.contains(&m.isa().format_addr(a)))?;
        Some((kind, addr))
    }

    /// The session shows what the forward run shows at the machine's count: registers,
    /// memory, the PC, and the console output up to the frontier, each byte once.
    fn check_state(&mut self, after: &str) -> Result<(), String> {
        let at = self.session_count();
        self.now = at;
        let upto = self.frontier.max(at);
        let (trace, probed) = self.oracle.run(&[], upto, Some(at));
        let Some(expected) = probed else {
            return self.fail(format!(
                "after {after}: the session is at instruction {at}, which the forward run never reaches ({:?})",
                trace.end
            ));
        };
        // Output: what the forward run wrote up to the frontier, counted once.
        if self.frontier > self.shown_upto {
            let from = trace
                .out_len
                .get(self.shown_upto as usize)
                .copied()
                .unwrap_or(0);
            let to = trace
                .out_len
                .get(self.frontier as usize)
                .copied()
                .unwrap_or(trace.output.len());
            self.expected_shown
                .extend_from_slice(&trace.output[from.min(to)..to]);
            self.shown_upto = self.frontier;
        }
        if let Some(note) = self.note.take() {
            self.expected_shown.extend_from_slice(note.as_bytes());
            self.expected_shown.push(b'\n');
        }
        self.collect_shown();
        if self.shown != self.expected_shown {
            return self.fail(format!(
                "after {after} at {at} (frontier {}): the console showed {:?}; the forward run wrote {:?}",
                self.frontier,
                String::from_utf8_lossy(&self.shown),
                String::from_utf8_lossy(&self.expected_shown)
            ));
        }
        let regions = self.p.regions;
        match (&mut self.rsp, &mut self.dap) {
            (Some(rsp), _) => {
                let mut regs = <G::Arch as Arch>::Registers::default();
                expected.gdb_read_registers(&mut regs);
                let mut want = String::new();
                regs.gdb_serialize(|b| match b {
                    Some(b) => {
                        let _ = write!(want, "{b:02x}");
                    }
                    None => want.push_str("xx"),
                });
                let got = rsp.request("g")?;
                if got != want {
                    return Err(format!(
                        "{:?} over RSP after {after} at {at}: registers {got}, the forward run has {want}\n{}",
                        self.p.isa, self.log
                    ));
                }
                for &(start, end) in regions {
                    let got = rsp.request(&format!("m{start:x},{:x}", end - start))?;
                    let want = gdb_bytes(&expected, start, end);
                    if got != want {
                        return Err(format!(
                            "{:?} over RSP after {after} at {at}: memory {start:#x}..{end:#x} is {got}, the forward run has {want}\n{}",
                            self.p.isa, self.log
                        ));
                    }
                }
            }
            (_, Some(dap)) => {
                let pc = dap.top_pc()?;
                let want_pc = expected.isa().format_addr(expected.pc());
                let regs = dap.registers()?;
                let want_regs = dap_registers(&expected);
                let mut mem = Vec::new();
                for &(start, end) in regions {
                    mem.push((
                        dap.memory(start, end - start)?,
                        gdb_raw(&expected, start, end),
                    ));
                }
                if pc != want_pc || regs != want_regs || mem.iter().any(|(a, b)| a != b) {
                    return Err(format!(
                        "{:?} over DAP after {after} at {at}: pc {pc} registers {regs:?} memory {:?}; the forward run has pc {want_pc} registers {want_regs:?}\n{}",
                        self.p.isa, mem, self.log
                    ));
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// The registers as the DAP's Registers scope lists them: (name, value).
fn dap_registers<G: GdbMachine>(m: &G) -> Vec<(String, String)> {
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

fn gdb_raw<G: GdbMachine>(m: &G, start: u64, end: u64) -> Vec<u8> {
    (start..end)
        .map_while(|a| m.gdb_read_byte(a).ok())
        .collect()
}

fn gdb_bytes<G: GdbMachine>(m: &G, start: u64, end: u64) -> String {
    hex(&gdb_raw(m, start, end))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn base64(bytes: &[u8]) -> String {
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = (u32::from(chunk[0]) << 16)
            | (u32::from(*chunk.get(1).unwrap_or(&0)) << 8)
            | u32::from(*chunk.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(B64[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn unbase64(text: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let mut acc = 0u32;
    let mut bits = 0;
    for c in text.bytes().filter(|&c| c != b'=') {
        let Some(v) = B64.iter().position(|&b| b == c) else {
            continue;
        };
        acc = (acc << 6) | v as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

/// A stop reply: `S05`, `T05watch:6026;...`, `W00`.
fn parse_stop(reply: &str) -> Seen {
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
fn run_length_decoded(payload: &[u8]) -> String {
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
struct RspWire<G: GdbMachine> {
    session: RspSession<G>,
    from_stub: Vec<u8>,
}

impl<G: GdbMachine> RspWire<G> {
    fn new(target: Debuggee<G>) -> Self {
        let mut session =
            RspSession::new(target, Discipline::new(LineMode::Raw, false)).with_burst(BURST);
        session.on_connect(Instant::now());
        let mut wire = RspWire {
            session,
            from_stub: Vec::new(),
        };
        wire.session.on_bytes(
            format!("+{}", rsp_packet("QStartNoAckMode")).as_bytes(),
            Instant::now(),
        );
        wire.poll();
        let _ = wire.reply();
        wire
    }

    fn poll(&mut self) -> asmdbg_session::Poll {
        let poll = self.session.poll(Instant::now());
        self.from_stub.extend_from_slice(&poll.to_gdb);
        poll
    }

    fn send(&mut self, payload: &str) {
        self.session
            .on_bytes(rsp_packet(payload).as_bytes(), Instant::now());
    }

    /// The next whole packet's payload, taken (acknowledgements before it dropped).
    fn reply(&mut self) -> Option<String> {
        let start = self.from_stub.iter().position(|&b| b == b'$')?;
        let hash = start + self.from_stub[start..].iter().position(|&b| b == b'#')?;
        if self.from_stub.len() < hash + 3 {
            return None;
        }
        let payload = run_length_decoded(&self.from_stub[start + 1..hash]);
        self.from_stub.drain(..hash + 3);
        Some(payload)
    }

    /// A request answered at once; its reply (console `O` packets skipped).
    fn request(&mut self, payload: &str) -> Result<String, String> {
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

    fn expect_ok(&mut self, payload: &str) -> Result<(), String> {
        match self.request(payload)? {
            r if r == "OK" => Ok(()),
            r => Err(format!("{payload} answered {r}")),
        }
    }

    /// `monitor CMD`'s text.
    fn monitor(&mut self, command: &str) -> Result<String, String> {
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
struct DapWire {
    server: DapServer,
    framer: DapFramer,
    seq: i64,
    events: VecDeque<Value>,
    responses: VecDeque<Value>,
    /// Program output (category stdout) not yet taken.
    stdout: Vec<u8>,
}

impl DapWire {
    fn new<G: GdbMachine>(target: Debuggee<G>, image: asmdbg_core::elf::ElfImage) -> Self {
        let mut slot = Some((target, image));
        let server = DapServer::new(Box::new(move |_args: &Value| {
            let (target, image) = slot.take().ok_or("launched once only")?;
            let program = DapProgram::new(target, image, Discipline::new(LineMode::Raw, false))
                .with_burst(BURST);
            Ok(Launched {
                program: Box::new(program),
                terminal: None,
            })
        }));
        DapWire {
            server,
            framer: DapFramer::default(),
            seq: 0,
            events: VecDeque::new(),
            responses: VecDeque::new(),
            stdout: Vec::new(),
        }
    }

    /// Polls once: takes what the server sent; whether it wants a burst.
    fn poll(&mut self) -> bool {
        let poll = self.server.poll(Instant::now());
        self.take(&poll.to_client);
        poll.run
    }

    fn take(&mut self, bytes: &[u8]) {
        let mut messages = Vec::new();
        self.framer.push(bytes, &mut messages);
        for message in messages {
            let Incoming::Message(m) = message else {
                continue;
            };
            match m["type"].as_str() {
                Some("response") => self.responses.push_back(m),
                Some("event") if m["event"] == "output" => {
                    if m["body"]["category"] == "stdout" {
                        let text = m["body"]["output"].as_str().unwrap_or("");
                        self.stdout.extend_from_slice(text.as_bytes());
                    }
                }
                Some("event") => self.events.push_back(m),
                _ => {}
            }
        }
    }

    fn request(&mut self, command: &str, arguments: Value) -> Result<Value, String> {
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

    fn ok(&mut self, command: &str, arguments: Value) -> Result<Value, String> {
        let r = self.request(command, arguments)?;
        if r["success"] != true {
            return Err(format!("{command} failed: {r}"));
        }
        Ok(r["body"].clone())
    }

    /// The stop or end the events carry, if one came.
    fn take_stop(&mut self) -> Option<Seen> {
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

    fn launch(&mut self) -> Result<(), String> {
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

    fn monitor(&mut self, command: &str) -> Result<String, String> {
        let body = self.ok(
            "evaluate",
            json!({"expression": format!("monitor {command}"), "context": "repl"}),
        )?;
        self.events.retain(|e| e["event"] != "invalidated");
        Ok(body["result"].as_str().unwrap_or("").to_string())
    }

    fn count(&mut self) -> u64 {
        self.monitor("when")
            .ok()
            .and_then(|t| t.trim().strip_prefix("instruction ")?.trim().parse().ok())
            .unwrap_or(u64::MAX)
    }

    fn jump(&mut self, gdb: u64) -> Result<Seen, String> {
        self.ok("goto", json!({"threadId": 1, "targetId": gdb}))?;
        Ok(self.take_stop().unwrap_or(Seen::Nothing))
    }

    fn top_pc(&mut self) -> Result<String, String> {
        let body = self.ok("stackTrace", json!({"threadId": 1, "levels": 1}))?;
        Ok(body["stackFrames"][0]["instructionPointerReference"]
            .as_str()
            .unwrap_or("")
            .to_string())
    }

    fn registers(&mut self) -> Result<Vec<(String, String)>, String> {
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

    fn memory(&mut self, gdb: u64, count: u64) -> Result<Vec<u8>, String> {
        let body = self.ok(
            "readMemory",
            json!({"memoryReference": "0", "offset": gdb, "count": count}),
        )?;
        Ok(unbase64(body["data"].as_str().unwrap_or("")))
    }
}
