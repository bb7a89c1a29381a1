//! The forward-only oracle of the session model: a fresh machine, given the timeline of what
//! came from outside (keys, writes, jumps) at the counts it came, stepped from the start; its
//! trace of the PC and of the watched accesses at every count, and how it ends.

use asmdbg_core::flow::Flow;
use asmdbg_core::gdb::GdbMachine;
use asmdbg_core::{StopEvent, WatchKind};
use asmdbg_session::frames::FrameFacts;

use super::ORACLE_LIMIT;

/// What happened to the machine at an instruction count, from outside.
#[derive(Debug, Clone)]
pub(super) enum Ev {
    Input(Vec<u8>),
    SetPc(u64),
    /// Bytes written at a gdb address.
    Write(u64, Vec<u8>),
    /// The faulting instruction tried (MIPS keeps the exception's cause and EPC): a change
    /// made while the machine stood on a fault keeps that attempt in the state.
    Attempt,
}

/// How the forward run ends.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum End {
    /// At this count the program has ended and a step runs nothing (see [`Trace::ends`]).
    Ended(u64),
    /// At this count the instruction faults (with the message).
    Fault(u64, String),
    /// At this count the guest waits for input that no event gives.
    Starved(u64),
    /// The oracle's limit.
    Limit(u64),
}

impl End {
    pub(super) fn count(&self) -> u64 {
        match self {
            End::Ended(c) | End::Fault(c, _) | End::Starved(c) | End::Limit(c) => *c,
        }
    }
}

/// The forward run: the PC at each count, the watched access at each count, how it ends.
pub(super) struct Trace {
    pub(super) pcs: Vec<u64>,
    pub(super) watch: Vec<Option<(WatchKind, u64)>>,
    /// Output bytes produced before each count.
    pub(super) out_len: Vec<usize>,
    pub(super) output: Vec<u8>,
    /// Every step that ended the program, in order (a jump or a write may bring it back, and
    /// a MIPS exit runs again at each resume).
    pub(super) ends: Vec<Ending>,
    pub(super) end: End,
    /// The call each count's instruction runs in (an index into `calls`).
    pub(super) acts: Vec<u32>,
    /// Every call: the one that made it (none for the program's own), whether it was entered
    /// without a call instruction (an interrupt or exception), and the count it began at.
    pub(super) calls: Vec<Call>,
    /// The first count where the PC was set from outside (a jump): calls are not followed
    /// past it.
    pub(super) jumped_at: Option<u64>,
}

/// A call in the forward run (see [`Trace::calls`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct Call {
    pub(super) parent: Option<u32>,
    pub(super) interrupt: bool,
    pub(super) begin: u64,
}

/// A step that ended the program: from count `by`, leaving it at count `at`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Ending {
    pub(super) by: u64,
    pub(super) at: u64,
    pub(super) code: Option<i32>,
}

impl Trace {
    /// The first step at or after count `from` that ends the program.
    pub(super) fn ending_from(&self, from: u64) -> Option<Ending> {
        self.ends.iter().copied().find(|e| e.by >= from)
    }

    /// The last count the trace knows a PC for.
    pub(super) fn last(&self) -> u64 {
        self.pcs.len() as u64 - 1
    }

    /// Whether call `inner` is `outer` or was made (directly or not) by it.
    pub(super) fn within(&self, inner: u32, outer: u32) -> bool {
        let mut c = Some(inner);
        while let Some(x) = c {
            if x == outer {
                return true;
            }
            c = self.calls[x as usize].parent;
        }
        false
    }

    /// Whether call `inner` or one of its callers was entered by an interrupt.
    pub(super) fn interrupted(&self, inner: u32) -> bool {
        let mut c = Some(inner);
        while let Some(x) = c {
            if self.calls[x as usize].interrupt {
                return true;
            }
            c = self.calls[x as usize].parent;
        }
        false
    }
}

/// The forward-only machine: loaded afresh, given the timeline, stepped.
pub(super) struct Oracle<G: GdbMachine> {
    /// Loads the program afresh.
    pub(super) load: Box<dyn Fn() -> G>,
    /// A machine as loaded, for its facts (addresses, formats).
    pub(super) fresh: G,
    /// Events by count, in the order they happened.
    pub(super) timeline: Vec<(u64, Ev)>,
    /// Where the instruction at a machine's pc goes (native addresses).
    pub(super) flow: Box<dyn Fn(&G) -> Flow>,
    /// The program's lines (and frames) as its debug information gives them.
    pub(super) facts: FrameFacts,
}

impl<G: GdbMachine> Oracle<G> {
    pub(super) fn apply(m: &mut G, ev: &Ev) {
        match ev {
            Ev::Input(bytes) => m.queue_input(bytes),
            Ev::SetPc(pc) => m.set_pc(*pc),
            Ev::Attempt => {
                let _ = m.step();
            }
            Ev::Write(addr, bytes) => {
                for (i, b) in bytes.iter().enumerate() {
                    let _ = m.gdb_write_byte(addr + i as u64, *b);
                }
            }
        }
    }

    /// The forward run to count `upto` (or its end), with `watches` set; and the machine as
    /// it is at count `probe`, if it gets there.
    pub(super) fn run(
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

    pub(super) fn run_to(&self, watches: &[(u64, u64, WatchKind)], upto: u64) -> (Trace, G) {
        let mut m = (self.load)();
        for &(addr, len, kind) in watches {
            m.watchpoints().insert(addr, len, kind);
        }
        let mut trace = Trace {
            pcs: Vec::new(),
            watch: Vec::new(),
            out_len: Vec::new(),
            output: Vec::new(),
            ends: Vec::new(),
            end: End::Limit(0),
            acts: Vec::new(),
            calls: vec![Call {
                parent: None,
                interrupt: false,
                begin: 0,
            }],
            jumped_at: None,
        };
        // The calls under way, the innermost last.
        let mut stack: Vec<u32> = vec![0];
        let size = if m.unit_bytes() == 2 { 1 } else { 4 };
        let mut next = 0;
        loop {
            let count = m.instructions_executed();
            while next < self.timeline.len() && self.timeline[next].0 <= count {
                if matches!(self.timeline[next].1, Ev::SetPc(_)) && trace.jumped_at.is_none() {
                    trace.jumped_at = Some(count);
                }
                Self::apply(&mut m, &self.timeline[next].1);
                next += 1;
            }
            trace.output.extend(m.console().take_output());
            trace.pcs.push(m.pc());
            trace.out_len.push(trace.output.len());
            trace.watch.push(None);
            trace
                .acts
                .push(*stack.last().expect("the program's own call"));
            if count >= upto.min(ORACLE_LIMIT) {
                trace.end = End::Limit(count);
                return (trace, m);
            }
            let pc = m.pc();
            let flow = (self.flow)(&m);
            let event = match m.step() {
                Some(StopEvent::Watch { kind, addr }) => {
                    *trace.watch.last_mut().expect("pushed") = Some((kind, addr));
                    // The access goes through: the next step executes it.
                    m.step()
                }
                other => other,
            };
            let after = m.instructions_executed();
            let ended = matches!(
                event,
                Some(StopEvent::Halted | StopEvent::Exited(_) | StopEvent::Fault(_))
            );
            if after > count && !ended && m.pc() != pc {
                // Where it went: a call begins one, a return ends one, a transfer no
                // instruction makes is an interrupt's (or an exception's) call.
                let to = m.pc();
                let made = |stack: &mut Vec<u32>, calls: &mut Vec<Call>, interrupt: bool| {
                    calls.push(Call {
                        parent: stack.last().copied(),
                        interrupt,
                        begin: after,
                    });
                    stack.push(calls.len() as u32 - 1);
                };
                match flow {
                    // (LC-3's HALT runs the OS's routine, like any trap.)
                    Flow::Call { .. } | Flow::Stop if to != pc + size => {
                        made(&mut stack, &mut trace.calls, false)
                    }
                    Flow::Return => {
                        if stack.len() > 1 {
                            stack.pop();
                        }
                    }
                    Flow::Jump { target: None } | Flow::Stop | Flow::Call { .. } => {}
                    Flow::Jump { target: Some(t) } if to == t => {}
                    Flow::Branch { target } if to == target || to == pc + size => {}
                    Flow::Next if to == pc + size => {}
                    _ => made(&mut stack, &mut trace.calls, true),
                }
            }
            let code = match event {
                Some(StopEvent::Halted) => Some(None),
                Some(StopEvent::Exited(code)) => Some(Some(code)),
                _ => None,
            };
            if let Some(code) = code {
                trace.ends.push(Ending {
                    by: count,
                    at: after,
                    code,
                });
            }
            // A guest that polls for a key no event brings runs on (the session stops it
            // where it is and types one): the trace ends there.
            if event == Some(StopEvent::NeedInput) && next == self.timeline.len() && after > count {
                trace.output.extend(m.console().take_output());
                trace.pcs.push(m.pc());
                trace.out_len.push(trace.output.len());
                trace.watch.push(None);
                trace
                    .acts
                    .push(*stack.last().expect("the program's own call"));
                trace.end = End::Starved(after);
                return (trace, m);
            }
            // Nothing ran: the machine goes no further (an event at a later count cannot come).
            // Anything that ran, even the program's last instruction, leads to the next point
            // (where a jump or a write may bring an ended program back).
            if after == count {
                trace.end = match event {
                    Some(StopEvent::Halted | StopEvent::Exited(_)) => End::Ended(count),
                    Some(StopEvent::Fault(f)) => End::Fault(count, f.message),
                    Some(StopEvent::NeedInput) => End::Starved(count),
                    _ => End::Limit(count),
                };
                return (trace, m);
            }
        }
    }
}
