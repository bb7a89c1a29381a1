//! Program analysis for the debug information, from what the decoder says alone: functions
//! (call targets in each instruction's [`Flow`], their extents), range splitting, and the
//! data-flow that follows a frame along the control flow (`.debug_frame`).

use std::collections::{BTreeMap, BTreeSet};

use crate::flow::Flow;

use super::build::ElfIsa;
use super::dwarf::{CfaOp, FrameDesc};

/// Every known call target in `insns` (gdb addresses), in address order.
pub fn call_targets<I: ElfIsa>(isa: &I, insns: &BTreeMap<u64, I::Instruction>) -> Vec<u64> {
    let targets: BTreeSet<u64> = insns
        .iter()
        .filter_map(|(&a, insn)| match isa.flow(insn, a) {
            Flow::Call { target } => target,
            _ => None,
        })
        .collect();
    targets.into_iter().collect()
}

/// Every address an adjacent instruction pair in `insns` loads ([`ElfIsa::loaded_address`]).
pub fn loaded_addresses<I: ElfIsa>(isa: &I, insns: &BTreeMap<u64, I::Instruction>) -> Vec<u64> {
    insns
        .iter()
        .zip(insns.iter().skip(1))
        .filter(|((a, _), (b, _))| a.checked_add(I::INSN_BYTES) == Some(**b))
        .filter_map(|((&addr, first), (_, second))| isa.loaded_address(first, second, addr))
        .collect()
}

/// The ranges of `[start, end)` cut before every address in `cuts` (ascending or not; cuts
/// outside the span are ignored).
pub fn split_ranges(start: u64, end: u64, cuts: &[u64]) -> Vec<(u64, u64)> {
    let mut points: Vec<u64> = cuts
        .iter()
        .copied()
        .filter(|&c| c > start && c < end)
        .collect();
    points.sort_unstable();
    points.dedup();
    let mut out = Vec::with_capacity(points.len() + 1);
    let mut from = start;
    for p in points {
        out.push((from, p));
        from = p;
    }
    if from < end {
        out.push((from, end));
    }
    out
}

/// Data-flow over one function's instructions (indices `0..n`, entry 0): the state before
/// each instruction, following `successors` (indices; others are ignored) from the entry with
/// `transfer` (the state after instruction `i`). The first state that reaches an instruction
/// wins (no joins: assembly frames agree at merge points or are beyond repair). Code that no
/// edge reaches continues from the state its predecessor leaves.
pub fn propagate_states<S: Copy>(
    n: usize,
    entry: S,
    transfer: impl Fn(usize, S) -> S,
    successors: impl Fn(usize) -> Vec<usize>,
) -> Vec<S> {
    let mut states: Vec<Option<S>> = vec![None; n];
    let mut seed = (n > 0).then_some((0usize, entry));
    while let Some((first, st)) = seed.take() {
        states[first] = Some(st);
        let mut work = vec![first];
        while let Some(i) = work.pop() {
            let Some(st) = states[i] else { continue };
            let out = transfer(i, st);
            for j in successors(i) {
                if j < n && states[j].is_none() {
                    states[j] = Some(out);
                    work.push(j);
                }
            }
        }
        if let Some(j) = states.iter().position(Option::is_none) {
            let before = match j.checked_sub(1).and_then(|p| states[p].map(|s| (p, s))) {
                Some((p, s)) => transfer(p, s),
                None => entry,
            };
            seed = Some((j, before));
        }
    }
    states.into_iter().map(|s| s.unwrap_or(entry)).collect()
}

/// The extent of each function: from its start to the next function start or the end of the
/// code run (`[begin, end)`) holding it, whichever comes first. Starts outside every run are
/// dropped. Returned in address order, without duplicates. (What code no function reaches
/// goes by; see [`function_extents`].)
pub fn function_spans(starts: &[u64], code_runs: &[(u64, u64)]) -> Vec<(u64, u64)> {
    let mut starts: Vec<u64> = starts.to_vec();
    starts.sort_unstable();
    starts.dedup();
    let mut out = Vec::with_capacity(starts.len());
    for (i, &s) in starts.iter().enumerate() {
        let Some(&(_, run_end)) = code_runs.iter().find(|&&(b, e)| s >= b && s < e) else {
            continue;
        };
        let next = starts.get(i + 1).copied().unwrap_or(u64::MAX);
        out.push((s, next.min(run_end)));
    }
    out
}

/// A function's code: its entry and its ascending `[begin, end)` ranges, the entry's first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extent {
    pub entry: u64,
    pub ranges: Vec<(u64, u64)>,
}

impl Extent {
    /// From the entry to the end of the last range.
    pub fn span(&self) -> u64 {
        self.ranges.last().map_or(0, |r| r.1) - self.entry
    }
}

/// The extent of each function: the instructions its control flow reaches from its entry
/// (`successors` of an address within its function: branches and jumps followed, calls
/// stepped over, returns and stops ending a path), never another function's entry — so the
/// tail of `main` placed after its subroutines (`done: halt`, reached by a branch) is
/// `main`'s, not the last subroutine's. Code no function reaches (data in code, code after a
/// jump through a register) belongs to the function whose start is the closest before it in
/// its run, as [`function_spans`] cuts it; so does code a function reaches below its entry.
/// `step` is the size of an instruction; in address order of the entries.
pub fn function_extents(
    starts: &[u64],
    code_runs: &[(u64, u64)],
    step: u64,
    successors: impl Fn(u64) -> Vec<u64>,
) -> Vec<Extent> {
    let spans = function_spans(starts, code_runs);
    let entries: BTreeSet<u64> = spans.iter().map(|s| s.0).collect();
    let in_code = |a: u64| code_runs.iter().any(|&(b, e)| a >= b && a < e);
    let mut owner: BTreeMap<u64, usize> = BTreeMap::new();
    for (f, &(entry, _)) in spans.iter().enumerate() {
        let mut work = vec![entry];
        while let Some(a) = work.pop() {
            let foreign = a != entry && entries.contains(&a);
            if !in_code(a) || a < entry || foreign || owner.contains_key(&a) {
                continue;
            }
            owner.insert(a, f);
            work.extend(successors(a));
        }
    }
    for (f, &(start, end)) in spans.iter().enumerate() {
        for a in (start..end).step_by(step.max(1) as usize) {
            owner.entry(a).or_insert(f);
        }
    }
    let mut ranges: Vec<Vec<(u64, u64)>> = vec![Vec::new(); spans.len()];
    for (&a, &f) in &owner {
        match ranges[f].last_mut() {
            Some(last) if last.1 == a => last.1 = a + step,
            _ => ranges[f].push((a, a + step)),
        }
    }
    spans
        .iter()
        .zip(ranges)
        .map(|(&(entry, _), ranges)| Extent { entry, ranges })
        .collect()
}

/// Where control can be next after the instruction at `a` within its function (gdb
/// addresses), with the machine's delay slots: a transfer with a slot goes on to the slot,
/// whose own edges are the transfer's.
pub fn successors_at<I: ElfIsa>(
    isa: &I,
    insns: &BTreeMap<u64, I::Instruction>,
    a: u64,
) -> Vec<u64> {
    let step = I::INSN_BYTES;
    let Some(insn) = insns.get(&a) else {
        return Vec::new();
    };
    let next = a + step;
    let prev = a.checked_sub(step).and_then(|p| Some((p, insns.get(&p)?)));
    if isa.machine_delay_slot(insn) {
        vec![next]
    } else if let Some((p, prev)) = prev.filter(|(_, prev)| isa.machine_delay_slot(prev)) {
        isa.flow(prev, p).successors(next)
    } else {
        isa.flow(insn, a).successors(next)
    }
}

/// The `.debug_frame` descriptions of a function, one per range of its extent: the frame along
/// the control flow from the entry (see [`propagate_states`]), a rule wherever it changes.
pub fn frame_descs<I: ElfIsa>(
    isa: &I,
    insns: &BTreeMap<u64, I::Instruction>,
    extent: &Extent,
    outermost: bool,
) -> Vec<FrameDesc> {
    let step = I::INSN_BYTES;
    let addrs: Vec<u64> = extent
        .ranges
        .iter()
        .flat_map(|&(b, e)| (b..e).step_by(step as usize))
        .collect();
    let index: BTreeMap<u64, usize> = addrs.iter().enumerate().map(|(i, &a)| (a, i)).collect();
    let at = |a: u64| insns.get(&a);
    let entry = isa.frame_at_start(extent.entry);
    let states = propagate_states(
        addrs.len(),
        entry,
        |i, st| at(addrs[i]).map_or(st, |insn| isa.frame_after(st, insn, addrs[i])),
        |i| {
            successors_at(isa, insns, addrs[i])
                .into_iter()
                .filter_map(|a| index.get(&a).copied())
                .collect()
        },
    );
    let mut descs = Vec::with_capacity(extent.ranges.len());
    let mut i = 0;
    for &(start, end) in &extent.ranges {
        let mut ops = Vec::new();
        if outermost {
            ops.push((start, CfaOp::Undefined(isa.frame_cie().ra_register)));
        } else {
            ops.extend(isa.start_rules(entry).into_iter().map(|op| (start, op)));
        }
        // From the CIE's frame: a range entered otherwise gets its differences at its start.
        let mut cur = isa.entry_frame();
        while i < addrs.len() && addrs[i] < end {
            let st = states[i];
            ops.extend(isa.cfa_change(cur, st).map(|op| (addrs[i], op)));
            if !outermost {
                ops.extend(isa.ra_change(cur, st).map(|op| (addrs[i], op)));
            }
            cur = st;
            i += 1;
        }
        descs.push(FrameDesc {
            start,
            len: end - start,
            ops,
        });
    }
    descs
}
