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
/// dropped. Returned in address order, without duplicates.
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

/// The `.debug_frame` description of the function `[start, end)`: the frame along the control
/// flow from the entry (see [`propagate_states`]), a rule wherever it changes.
pub fn frame_desc<I: ElfIsa>(
    isa: &I,
    insns: &BTreeMap<u64, I::Instruction>,
    start: u64,
    end: u64,
    outermost: bool,
) -> FrameDesc {
    let step = I::INSN_BYTES;
    let n = ((end - start) / step) as usize;
    let addr = |i: usize| start + step * i as u64;
    let index = |a: u64| {
        (a >= start && a < end && (a - start) % step == 0).then(|| ((a - start) / step) as usize)
    };
    let at = |a: u64| insns.get(&a);
    let successors = |i: usize| -> Vec<usize> {
        let a = addr(i);
        let Some(insn) = at(a) else {
            return Vec::new();
        };
        let next = a + step;
        let prev = a
            .checked_sub(step)
            .filter(|_| i > 0)
            .and_then(|p| Some((p, at(p)?)));
        let targets = if isa.machine_delay_slot(insn) {
            // The delay slot runs first; its own edges carry the transfer's.
            vec![next]
        } else if let Some((p, prev)) = prev.filter(|(_, prev)| isa.machine_delay_slot(prev)) {
            isa.flow(prev, p).successors(next)
        } else {
            isa.flow(insn, a).successors(next)
        };
        targets.into_iter().filter_map(index).collect()
    };
    let entry = isa.frame_at_start(start);
    let states = propagate_states(
        n,
        entry,
        |i, st| at(addr(i)).map_or(st, |insn| isa.frame_after(st, insn, addr(i))),
        successors,
    );
    let mut ops = Vec::new();
    if outermost {
        ops.push((start, CfaOp::Undefined(isa.frame_cie().ra_register)));
    } else {
        ops.extend(isa.start_rules(entry).into_iter().map(|op| (start, op)));
    }
    // From the CIE's frame: a function entered otherwise gets its differences at its start.
    let mut cur = isa.entry_frame();
    for (i, &st) in states.iter().enumerate() {
        ops.extend(isa.cfa_change(cur, st).map(|op| (addr(i), op)));
        if !outermost {
            ops.extend(isa.ra_change(cur, st).map(|op| (addr(i), op)));
        }
        cur = st;
    }
    FrameDesc {
        start,
        len: end - start,
        ops,
    }
}
