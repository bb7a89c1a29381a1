//! A cpu's own copy of the debugger's breakpoint and watchpoint sets, in the form its hot loop
//! tests cheapest, re-synced only when a set's generation changed.
//!
//! The sets in [`crate::breakpoints`] are the truth: the debugger edits them between any two
//! calls of `run` or `step`. A cpu keeps a [`DebugCache`] beside them and calls
//! [`DebugCache::sync`] when `run` or `step` starts: one compare per set while nothing changed.
//!
//! - Breakpoints, either as [`PatchedCode`] (a copy of the decoded code with a "debug stop"
//!   instruction over every breakpoint, so the loop pays nothing per instruction: SimpleRISC,
//!   MIPS) or as a [`BreakpointBitmap`] over the whole code space (one bit test per instruction,
//!   for a cpu that decodes from memory as it goes: LC-3).
//! - Watchpoints as a [`WatchFilter`]: a bounds test that rejects an access far from every
//!   watchpoint with one compare, then a bit per unit (or granule) near them. Only an access the
//!   filter passes pays for the set's exact [`WatchpointSet::check`]. The filter also carries
//!   the "resume after a watch stop" flag: the instruction a watchpoint stopped is left
//!   unexecuted, and its next execution must not report the same access again.
//!
//! Everything is generic and inlined, never boxed: a cpu instantiates the cache with its own
//! decoded-instruction type. The cache is plain data (`Clone`); a machine whose state is
//! restored from a snapshot calls [`DebugCache::invalidate`] so the next sync rebuilds the
//! copies from the sets instead of trusting generations.

use crate::breakpoints::{BreakpointSet, WatchpointSet};
use crate::event::{AccessKind, WatchKind};

/// A cpu's copy of the breakpoint set (see [`PatchedCode`] and [`BreakpointBitmap`]).
pub trait BreakpointCache {
    /// Brings the copy up to date with `set`; one compare when the set did not change.
    fn sync(&mut self, set: &BreakpointSet);
    /// Forgets what the copy was built from: the next [`BreakpointCache::sync`] rebuilds it.
    fn invalidate(&mut self);
}

/// Breakpoints and watchpoints as one cpu's hot loop tests them.
#[derive(Debug, Clone)]
pub struct DebugCache<B> {
    pub breakpoints: B,
    pub watch: WatchFilter,
}

impl<B: BreakpointCache> DebugCache<B> {
    pub fn new(breakpoints: B, watch: WatchFilter) -> Self {
        DebugCache { breakpoints, watch }
    }

    /// Brings both copies up to date with the debugger's sets.
    #[inline]
    pub fn sync(&mut self, breakpoints: &BreakpointSet, watchpoints: &WatchpointSet) {
        self.breakpoints.sync(breakpoints);
        self.watch.sync(watchpoints);
    }

    /// Forgets what both copies were built from (after the machine state was restored, or the
    /// sets replaced): the next sync rebuilds them. The resume flag is machine state and stays.
    pub fn invalidate(&mut self) {
        self.breakpoints.invalidate();
        self.watch.invalidate();
    }
}

/// Decoded code with a "debug stop" instruction written over every breakpoint.
///
/// The run loop executes [`PatchedCode::patched`]; `step`, the disassembler and anything that
/// must see the program executes or reads [`PatchedCode::code`]. Slot `i` holds the instruction
/// at address `base + (i << shift)`.
#[derive(Debug, Clone)]
pub struct PatchedCode<I> {
    code: Vec<I>,
    patched: Vec<I>,
    stop: I,
    base: u64,
    shift: u32,
    /// The breakpoint addresses `patched` carries a stop for (sorted: the set's order).
    marked: Vec<u64>,
    /// Generation of the breakpoint set `patched` was last checked against; 0: never.
    synced: u64,
    /// `patched` must be rebuilt from `code` as a whole (code grew, or the cache was
    /// invalidated).
    stale: bool,
    /// Counts the changes to `patched`, for what a cpu derives from it (see
    /// [`PatchedCode::version`]).
    version: u64,
}

impl<I: Copy> PatchedCode<I> {
    /// `code` at `base`, one slot per `1 << shift` address units; `stop` is the instruction
    /// that makes the run loop report a breakpoint.
    pub fn new(code: Vec<I>, base: u64, shift: u32, stop: I) -> Self {
        PatchedCode {
            patched: code.clone(),
            code,
            stop,
            base,
            shift,
            marked: Vec::new(),
            synced: 0,
            stale: false,
            version: 0,
        }
    }

    /// A number that changes whenever [`PatchedCode::patched`] may have: what a cpu derives
    /// from the patched code (where its straight-line runs end) is good while it stays.
    #[inline(always)]
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Lends the run loop's copy out, so that the loop can index it while it executes with
    /// the cpu borrowed mutably. Until [`PatchedCode::restore_patched`] puts it back,
    /// [`PatchedCode::patched`] is empty: the loop must not ask it.
    pub fn lend_patched(&mut self) -> Vec<I> {
        std::mem::take(&mut self.patched)
    }

    /// Puts back what [`PatchedCode::lend_patched`] lent.
    pub fn restore_patched(&mut self, patched: Vec<I>) {
        self.patched = patched;
    }

    /// The program's own instructions, without breakpoints.
    #[inline(always)]
    pub fn code(&self) -> &[I] {
        &self.code
    }

    /// What the run loop executes: [`PatchedCode::code`] with the stop over every breakpoint.
    /// Only up to date after [`BreakpointCache::sync`]; may be shorter than `code` before it.
    #[inline(always)]
    pub fn patched(&self) -> &[I] {
        &self.patched
    }

    /// The slot of `addr`, if it is aligned and at or after `base` (it may be past the end).
    fn slot(&self, addr: u64) -> Option<usize> {
        let offset = addr.checked_sub(self.base)?;
        if offset & ((1 << self.shift) - 1) != 0 {
            return None;
        }
        usize::try_from(offset >> self.shift).ok()
    }

    /// Replaces the whole code (a restored snapshot); the run loop's copy is rebuilt from it at
    /// the next [`BreakpointCache::sync`].
    pub fn replace_code(&mut self, code: &[I]) {
        self.code.clear();
        self.code.extend_from_slice(code);
        self.stale = true;
        self.version += 1;
    }

    /// Replaces the instruction in slot `index` (loading, or the debugger patching code),
    /// growing the code with `fill` if `index` is past its end. A breakpoint's stop stays over
    /// the slot; `step` and [`PatchedCode::code`] see the new instruction at once.
    pub fn write(&mut self, index: usize, insn: I, fill: I) {
        self.version += 1;
        if index >= self.code.len() {
            self.code.resize(index + 1, fill);
            // Breakpoints may already be set on the new slots: rebuild before the next run.
            self.stale = true;
        }
        self.code[index] = insn;
        if self.stale {
            return;
        }
        let addr = self.base + ((index as u64) << self.shift);
        if self.marked.binary_search(&addr).is_err() {
            if let Some(slot) = self.patched.get_mut(index) {
                *slot = insn;
            }
        }
    }
}

/// Where the straight-line runs of `code` end, into `last`: for each slot, the slot of the last
/// instruction of the run that starts there. A run ends at the first instruction that may move
/// the PC elsewhere or stop the loop (`may_transfer`), at the end of the code, or after
/// `max_run` instructions. O(code): a cpu derives it from its patched code whenever
/// [`PatchedCode::version`] changes.
pub fn straight_run_ends<I>(
    code: &[I],
    max_run: usize,
    may_transfer: impl Fn(&I) -> bool,
    last: &mut Vec<u32>,
) {
    assert!(max_run > 0, "a run has at least one instruction");
    last.clear();
    last.resize(code.len(), 0);
    let mut transfer = code.len().saturating_sub(1);
    for k in (0..code.len()).rev() {
        if may_transfer(&code[k]) {
            transfer = k;
        }
        last[k] = transfer.min(k + max_run - 1) as u32;
    }
}

impl<I: Copy> BreakpointCache for PatchedCode<I> {
    /// O(breakpoints) when the set changed: the slots of the old breakpoints get their
    /// instructions back, the new ones get the stop. O(code) after growth or invalidation.
    fn sync(&mut self, set: &BreakpointSet) {
        let generation = set.generation();
        if generation == self.synced && !self.stale {
            return;
        }
        self.synced = generation;
        if self.stale {
            self.stale = false;
            self.patched.clone_from(&self.code);
        } else if set.addresses().eq(self.marked.iter().copied()) {
            // The same addresses again (gdb removes and re-inserts them at every stop).
            return;
        } else {
            for i in 0..self.marked.len() {
                if let Some(index) = self.slot(self.marked[i]) {
                    if let (Some(slot), Some(&insn)) =
                        (self.patched.get_mut(index), self.code.get(index))
                    {
                        *slot = insn;
                    }
                }
            }
        }
        self.marked.clear();
        for addr in set.addresses() {
            if let Some(index) = self.slot(addr) {
                if let Some(slot) = self.patched.get_mut(index) {
                    *slot = self.stop;
                }
                self.marked.push(addr);
            }
        }
        self.version += 1;
    }

    fn invalidate(&mut self) {
        self.synced = 0;
        self.stale = true;
        self.version += 1;
    }
}

/// One bit per instruction slot over a whole code space of `WORDS * 64` slots (slot = native
/// address), for a cpu that decodes from memory as it executes. `WORDS` must be a power of two,
/// so that [`BreakpointBitmap::contains`] needs no range check.
#[derive(Debug, Clone)]
pub struct BreakpointBitmap<const WORDS: usize> {
    bits: Box<[u64; WORDS]>,
    /// The slots set in `bits`, to clear them without a walk over the whole map.
    marked: Vec<usize>,
    synced: u64,
    /// Counts the changes to `bits` (see [`BreakpointBitmap::version`]).
    version: u64,
}

impl<const WORDS: usize> Default for BreakpointBitmap<WORDS> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const WORDS: usize> BreakpointBitmap<WORDS> {
    const SLOTS: usize = {
        assert!(WORDS.is_power_of_two(), "a bitmap of a power of two words");
        WORDS * 64
    };

    pub fn new() -> Self {
        BreakpointBitmap {
            bits: vec![0; WORDS]
                .into_boxed_slice()
                .try_into()
                .unwrap_or_else(|_| unreachable!("a vector of WORDS words")),
            marked: Vec::new(),
            synced: 0,
            version: 0,
        }
    }

    /// A number that changes whenever the set of marked slots does: what a cpu cuts at the
    /// breakpoints (LC-3's blocks) is good while it stays.
    #[inline(always)]
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Whether a breakpoint is set on `slot`. Slots wrap modulo the map's size, which the cpu's
    /// address type makes impossible to reach (a 16-bit PC for a 65536-slot map).
    #[inline(always)]
    pub fn contains(&self, slot: usize) -> bool {
        let slot = slot % Self::SLOTS;
        (self.bits[slot / 64] >> (slot % 64)) & 1 != 0
    }
}

impl<const WORDS: usize> BreakpointCache for BreakpointBitmap<WORDS> {
    /// O(breakpoints) when the set changed. Addresses beyond the map can never be a PC of the
    /// cpu, so they are left out.
    fn sync(&mut self, set: &BreakpointSet) {
        let generation = set.generation();
        if generation == self.synced {
            return;
        }
        self.synced = generation;
        let slots = || {
            set.addresses()
                .filter_map(|addr| usize::try_from(addr).ok().filter(|&s| s < Self::SLOTS))
        };
        if slots().eq(self.marked.iter().copied()) {
            // The same addresses again (gdb removes and re-inserts them at every stop).
            return;
        }
        for slot in self.marked.drain(..) {
            self.bits[slot / 64] = 0;
        }
        for slot in slots() {
            self.bits[slot / 64] |= 1 << (slot % 64);
            self.marked.push(slot);
        }
        self.version += 1;
    }

    fn invalidate(&mut self) {
        self.synced = 0;
    }
}

/// At most this many bits in a [`WatchFilter`]'s map (8 KiB); wider watched spans share a bit
/// among several units.
const WATCH_FILTER_BITS_LOG2: u32 = 16;

/// Which memory accesses may touch a watchpoint, plus the resume-after-watch flag.
///
/// [`WatchFilter::may_hit`] answers for an access of at most `widest` units starting at an
/// address: false means certainly no watchpoint, true means "ask the set". Between the lowest
/// and highest watched address it keeps one bit per unit (per granule of units when that span is
/// wide), each bit covering the units whose accesses could reach a watched unit.
#[derive(Debug, Clone)]
pub struct WatchFilter {
    /// An access at `addr` can hit only if `addr - low < span` (wrapping): empty set, span 0.
    low: u64,
    span: u64,
    /// Units per bit of `bits`, as a shift; bit `i` covers `low + (i << shift)` onwards.
    shift: u32,
    bits: Vec<u64>,
    /// The widest access the cpu makes, in units.
    widest: u64,
    /// Generation of the watchpoint set the filter was built from; 0: never.
    synced: u64,
    /// The instruction at the PC stopped on a watchpoint and has not completed yet.
    resuming: bool,
}

impl WatchFilter {
    /// A filter for a cpu whose loads and stores touch at most `widest` units (1 for LC-3
    /// words, 4 for SimpleRISC and MIPS words; MIPS doubles go through
    /// [`WatchFilter::may_hit_range`]).
    pub fn new(widest: u64) -> Self {
        WatchFilter {
            low: 0,
            span: 0,
            shift: 0,
            bits: Vec::new(),
            widest: widest.max(1),
            synced: 0,
            resuming: false,
        }
    }

    /// Rebuilds the filter when the set changed since the last sync.
    pub fn sync(&mut self, set: &WatchpointSet) {
        let generation = set.generation();
        if generation == self.synced {
            return;
        }
        self.synced = generation;
        self.bits.clear();
        // An access of `widest` units at `addr` reaches a watch over [a, a + len) when
        // a - (widest - 1) <= addr < a + len.
        let reach = |addr: u64, len: u64| {
            (
                addr.saturating_sub(self.widest - 1),
                addr.saturating_add(len.max(1)),
            )
        };
        let Some((low, high)) = set
            .iter()
            .map(|w| reach(w.addr, w.len))
            .reduce(|a, b| (a.0.min(b.0), a.1.max(b.1)))
        else {
            self.low = 0;
            self.span = 0;
            return;
        };
        if high == low {
            // Only watches at the very top of u64, which no access reaches.
            self.low = 0;
            self.span = 0;
            return;
        }
        self.low = low;
        self.span = high - low;
        let needed = u64::BITS - (self.span - 1).leading_zeros();
        self.shift = needed.saturating_sub(WATCH_FILTER_BITS_LOG2);
        let nbits = ((self.span - 1) >> self.shift) + 1;
        self.bits = vec![0; nbits.div_ceil(64) as usize];
        for w in set.iter() {
            let (first, end) = reach(w.addr, w.len);
            if end == first {
                continue;
            }
            let first = (first - low) >> self.shift;
            let last = (end - 1 - low) >> self.shift;
            for bit in first..=last {
                self.bits[(bit / 64) as usize] |= 1 << (bit % 64);
            }
        }
    }

    /// Forgets what the filter was built from; the next sync rebuilds it.
    pub fn invalidate(&mut self) {
        self.synced = 0;
    }

    /// Whether an access of at most `widest` units at `addr` may touch a watchpoint. This is the
    /// hot-path test of every load and store: one compare while the access is outside the
    /// watched span (always, without watchpoints).
    #[inline(always)]
    pub fn may_hit(&self, addr: u64) -> bool {
        self.near(addr) && self.flagged(addr.wrapping_sub(self.low))
    }

    /// The first half of [`WatchFilter::may_hit`]: whether `addr` lies between the lowest and
    /// highest address an access can reach a watchpoint from. A cpu whose load and store code
    /// is large tests this inline and the rest ([`WatchFilter::may_hit`]) out of line.
    #[inline(always)]
    pub fn near(&self, addr: u64) -> bool {
        addr.wrapping_sub(self.low) < self.span
    }

    /// `(low, span)` of [`WatchFilter::near`]: compiled code tests `addr - low < span`
    /// (wrapping) itself and leaves the rest to the cpu.
    pub fn near_bounds(&self) -> (u64, u64) {
        (self.low, self.span)
    }

    /// Whether an access of any length (a syscall's buffer) may touch a watchpoint: only the
    /// span test, so a true answer must go on to the set's exact check.
    #[inline]
    pub fn may_hit_range(&self, addr: u64, len: u64) -> bool {
        let end = addr.saturating_add(len.max(1));
        self.span > 0 && addr < self.low + self.span && end > self.low
    }

    #[inline(always)]
    fn flagged(&self, offset: u64) -> bool {
        let bit = offset >> self.shift;
        self.bits
            .get((bit / 64) as usize)
            .is_some_and(|w| (w >> (bit % 64)) & 1 != 0)
    }

    /// The filter, then the exact test of `set` (which must be the set last synced): the
    /// watchpoint kind and watched address an access of `len <= widest` units touches.
    #[inline(always)]
    pub fn check(
        &self,
        set: &WatchpointSet,
        addr: u64,
        len: u64,
        access: AccessKind,
    ) -> Option<(WatchKind, u64)> {
        if self.may_hit(addr) {
            set.check(addr, len, access)
        } else {
            None
        }
    }

    /// A watchpoint stopped the instruction at the PC before its access: its next execution
    /// must not report that access again.
    pub fn hold_for_resume(&mut self) {
        self.resuming = true;
    }

    /// Whether the instruction at the PC is one a watchpoint stopped (see
    /// [`WatchFilter::hold_for_resume`]).
    #[inline(always)]
    pub fn resuming(&self) -> bool {
        self.resuming
    }

    /// Ends the resume: the held instruction completed, or the PC moved away from it.
    #[inline(always)]
    pub fn end_resume(&mut self) {
        self.resuming = false;
    }

    /// [`WatchFilter::resuming`], ending it.
    #[inline(always)]
    pub fn take_resume(&mut self) -> bool {
        std::mem::take(&mut self.resuming)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn straight_runs_end_at_a_transfer_the_end_of_the_code_or_the_cap() {
        // 1 marks an instruction that may transfer control.
        let code = [0, 0, 1, 0, 0, 0, 0, 1, 0, 0];
        let mut last = vec![99; 3];
        super::straight_run_ends(&code, 3, |&t| t == 1, &mut last);
        assert_eq!(last, [2, 2, 2, 5, 6, 7, 7, 7, 9, 9]);
        super::straight_run_ends(&[0u8; 0], 3, |_| true, &mut last);
        assert!(last.is_empty());
    }

    use super::*;

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Op {
        Nop(u8),
        Stop,
    }

    fn code(n: u8) -> Vec<Op> {
        (0..n).map(Op::Nop).collect()
    }

    #[test]
    fn patched_code_follows_the_set_and_keeps_the_original() {
        let mut p = PatchedCode::new(code(8), 0x100, 2, Op::Stop);
        let mut set = BreakpointSet::new(0x100, 32, 2);
        p.sync(&set);
        assert_eq!(p.patched(), code(8));
        set.insert(0x104);
        set.insert(0x11c);
        set.insert(0x106); // misaligned: never an instruction
        set.insert(0x400); // past the code
        p.sync(&set);
        assert_eq!(p.patched()[1], Op::Stop);
        assert_eq!(p.patched()[7], Op::Stop);
        assert_eq!(p.patched().iter().filter(|&&o| o == Op::Stop).count(), 2);
        assert_eq!(p.code(), code(8), "the original is untouched");
        set.remove(0x104);
        p.sync(&set);
        assert_eq!(
            p.patched()[1],
            Op::Nop(1),
            "a removed breakpoint gets its instruction back"
        );
        assert_eq!(p.patched()[7], Op::Stop);
        set.clear();
        p.sync(&set);
        assert_eq!(p.patched(), code(8));
    }

    #[test]
    fn writing_code_keeps_stops_and_growth_rebuilds() {
        let mut p = PatchedCode::new(code(2), 0, 2, Op::Stop);
        let mut set = BreakpointSet::new(0, 8, 2);
        set.insert(4);
        set.insert(12); // beyond the code: takes effect once the code grows there
        p.sync(&set);
        p.write(1, Op::Nop(9), Op::Nop(0));
        assert_eq!(
            p.patched()[1],
            Op::Stop,
            "the stop stays over a rewritten slot"
        );
        assert_eq!(p.code()[1], Op::Nop(9));
        p.write(0, Op::Nop(7), Op::Nop(0));
        assert_eq!(
            p.patched()[0],
            Op::Nop(7),
            "an unmarked slot changes at once"
        );
        p.write(3, Op::Nop(3), Op::Nop(0));
        p.sync(&set);
        assert_eq!(
            p.patched(),
            [Op::Nop(7), Op::Stop, Op::Nop(0), Op::Stop],
            "grown code gets its breakpoints without a set change"
        );
        set.remove(4);
        p.sync(&set);
        assert_eq!(p.patched()[1], Op::Nop(9));
    }

    #[test]
    fn invalidate_rebuilds_from_the_set() {
        let mut p = PatchedCode::new(code(4), 0, 0, Op::Stop);
        let mut set = BreakpointSet::new(0, 4, 0);
        set.insert(2);
        p.sync(&set);
        // A clone made now and synced later against a different set (a restored snapshot).
        let mut restored = p.clone();
        set.remove(2);
        set.insert(3);
        p.sync(&set);
        restored.invalidate();
        restored.sync(&set);
        assert_eq!(restored.patched(), p.patched());
        assert_eq!(restored.patched()[3], Op::Stop);
        assert_eq!(restored.patched()[2], Op::Nop(2));

        let mut bits = BreakpointBitmap::<2>::new();
        bits.sync(&set);
        let copy = bits.clone();
        let mut other = BreakpointSet::new(0, 128, 0);
        other.insert(100);
        let mut copy = copy;
        copy.invalidate();
        copy.sync(&other);
        assert!(copy.contains(100) && !copy.contains(3));
        assert!(bits.contains(3));
    }

    #[test]
    fn replaced_code_is_patched_at_the_next_sync() {
        let mut p = PatchedCode::new(code(4), 0, 2, Op::Stop);
        let mut set = BreakpointSet::new(0, 32, 2);
        set.insert(4);
        set.insert(16);
        p.sync(&set);
        assert_eq!(p.patched(), [Op::Nop(0), Op::Stop, Op::Nop(2), Op::Nop(3)]);
        // A snapshot's code: longer, different words, no stops of its own.
        let restored = [Op::Nop(9), Op::Nop(8), Op::Nop(7), Op::Nop(6), Op::Nop(5)];
        p.replace_code(&restored);
        assert_eq!(p.code(), restored, "the code changes at once");
        p.sync(&set);
        assert_eq!(
            p.patched(),
            [Op::Nop(9), Op::Stop, Op::Nop(7), Op::Nop(6), Op::Stop],
            "the copy is rebuilt with the unchanged set's stops"
        );
        p.replace_code(&code(1));
        p.sync(&set);
        assert_eq!(
            p.patched(),
            [Op::Nop(0)],
            "shorter code drops the copy's tail"
        );
    }

    #[test]
    fn bitmap_follows_the_set() {
        let mut bits = BreakpointBitmap::<1024>::new();
        let mut set = BreakpointSet::new(0, 0x10000, 0);
        bits.sync(&set);
        assert!(!bits.contains(0x3000));
        set.insert(0x3000);
        set.insert(0xFFFF);
        set.insert(0x1_0000); // no 16-bit PC reaches it
        bits.sync(&set);
        assert!(bits.contains(0x3000) && bits.contains(0xFFFF));
        assert!(!bits.contains(0x3001) && !bits.contains(0));
        set.remove(0x3000);
        bits.sync(&set);
        assert!(!bits.contains(0x3000) && bits.contains(0xFFFF));
    }

    #[test]
    fn watch_filter_passes_every_access_that_can_touch_a_watch() {
        let mut set = WatchpointSet::new(1 << 32, 12);
        let mut filter = WatchFilter::new(4);
        filter.sync(&set);
        assert!(!filter.may_hit(0) && !filter.may_hit(u64::MAX));
        assert!(
            !filter.near(0) && !filter.near(u64::MAX),
            "an empty set has no span"
        );
        set.insert(0x100, 4, WatchKind::Write);
        set.insert(0x2000, 1, WatchKind::Read);
        filter.sync(&set);
        // Exhaustive near the watches: the filter never hides a hit of an access up to 4 wide.
        for addr in (0xf0..0x110).chain(0x1ff0..0x2010) {
            for len in 1..=4 {
                if set.check(addr, len, AccessKind::Write).is_some()
                    || set.check(addr, len, AccessKind::Read).is_some()
                {
                    assert!(filter.may_hit(addr), "{addr:#x} {len}");
                }
            }
        }
        assert!(
            filter.may_hit(0xfd),
            "a 4-byte access at 0xfd reaches 0x100"
        );
        assert!(!filter.may_hit(0xfc));
        assert!(!filter.may_hit(0x104));
        assert!(!filter.may_hit(0x1000), "between the watches");
        assert!(filter.near(0x1000), "but inside the span");
        assert!(filter.near(0xfd) && !filter.near(0xfc) && !filter.near(0x2001));
        assert!(!filter.may_hit(0x2001));
        assert_eq!(
            filter.check(&set, 0x2000, 4, AccessKind::Read),
            Some((WatchKind::Read, 0x2000))
        );
        assert_eq!(filter.check(&set, 0x2000, 4, AccessKind::Write), None);
        set.clear();
        filter.sync(&set);
        assert!(!filter.may_hit(0x100));
    }

    #[test]
    fn watch_filter_for_long_accesses() {
        let mut set = WatchpointSet::new(1 << 32, 12);
        let mut filter = WatchFilter::new(4);
        filter.sync(&set);
        assert!(!filter.may_hit_range(0, u64::MAX));
        set.insert(0x1000, 4, WatchKind::Write);
        filter.sync(&set);
        assert!(
            filter.may_hit_range(0x800, 0x801),
            "a buffer ending inside the watch"
        );
        assert!(
            filter.may_hit_range(0x800, 0x10_0000),
            "a buffer spanning it"
        );
        assert!(filter.may_hit_range(0x1003, 1));
        assert!(
            !filter.may_hit_range(0x800, 0x7fd),
            "ends before the watch can be reached"
        );
        assert!(!filter.may_hit_range(0x1004, 100));
        assert!(!filter.may_hit_range(u64::MAX - 1, 10));
    }

    #[test]
    fn watch_filter_over_a_wide_span_uses_granules() {
        let mut set = WatchpointSet::new(1 << 32, 12);
        let mut filter = WatchFilter::new(8);
        set.insert(0x1000_0000, 8, WatchKind::Access);
        set.insert(0x7fff_fff0, 4, WatchKind::Access);
        filter.sync(&set);
        assert!(filter.bits.len() * 64 <= 1 << WATCH_FILTER_BITS_LOG2);
        assert!(filter.may_hit(0x1000_0000) && filter.may_hit(0x0fff_fff9));
        assert!(filter.may_hit(0x7fff_fff0));
        assert!(!filter.may_hit(0x4000_0000));
        assert!(!filter.may_hit(0x8000_0000));
        // A watch over the whole space, and one at the very top.
        set.insert(0, u64::MAX, WatchKind::Access);
        filter.sync(&set);
        assert!(filter.may_hit(0x4000_0000));
        assert!(!filter.may_hit(u64::MAX));
    }

    #[test]
    fn resume_flag_and_invalidation() {
        let mut set = WatchpointSet::new(16, 2);
        let mut filter = WatchFilter::new(1);
        set.insert(3, 1, WatchKind::Write);
        filter.sync(&set);
        assert!(!filter.resuming());
        filter.hold_for_resume();
        let copy = filter.clone();
        assert!(filter.take_resume());
        assert!(!filter.resuming());
        filter.hold_for_resume();
        filter.end_resume();
        assert!(!filter.resuming());
        let mut copy = copy;
        assert!(copy.resuming(), "the flag is state and is cloned");
        let mut other = WatchpointSet::new(16, 2);
        other.insert(9, 1, WatchKind::Read);
        copy.invalidate();
        copy.sync(&other);
        assert!(copy.may_hit(9) && !copy.may_hit(3));
        assert!(copy.resuming(), "invalidation keeps the flag");
    }
}
