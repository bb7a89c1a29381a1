//! Breakpoint and watchpoint sets built to cost almost nothing in a cpu's hot loop.
//!
//! Breakpoints: one bit per instruction slot over the code range the machine declares, so a check
//! is a shift and a mask; addresses outside that range (rare: code written at run time elsewhere)
//! go to a small sorted list that is only searched when it is non-empty.
//!
//! Watchpoints: a flag per page, so an access to a page without watchpoints costs one bit test;
//! only accesses to flagged pages scan the (short) list of watchpoints exactly.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::event::{AccessKind, WatchKind};

/// Every change to any breakpoint or watchpoint set takes a new value from here, so a cpu that
/// keeps its own copy (a patched code array, a page filter) re-syncs only when its set changed:
/// one compare per `run` instead of a walk over every breakpoint.
static NEXT_GENERATION: AtomicU64 = AtomicU64::new(1);

fn next_generation() -> u64 {
    NEXT_GENERATION.fetch_add(1, Ordering::Relaxed)
}

/// A set of breakpoint addresses (native addresses of the machine).
#[derive(Debug, Clone)]
pub struct BreakpointSet {
    base: u64,
    /// log2 of the instruction alignment: 0 for LC-3 words, 2 for 4-byte instructions.
    shift: u32,
    bits: Vec<u64>,
    /// Reference counts, so a software and a hardware breakpoint on one address are independent.
    counts: BTreeMap<u64, u32>,
    /// Addresses outside the bitmap or not aligned to it.
    outside: Vec<u64>,
    generation: u64,
}

impl BreakpointSet {
    /// A set whose fast path covers `len` bytes (or words) from `base`, with instructions aligned
    /// to `1 << shift` units.
    pub fn new(base: u64, len: u64, shift: u32) -> Self {
        let slots = len >> shift;
        BreakpointSet {
            base,
            shift,
            bits: vec![0; slots.div_ceil(64) as usize],
            counts: BTreeMap::new(),
            outside: Vec::new(),
            generation: next_generation(),
        }
    }

    /// Changes whenever the set changes (never 0; unique across all sets).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    #[inline(always)]
    fn slot(&self, addr: u64) -> Option<usize> {
        let off = addr.wrapping_sub(self.base);
        if off & ((1 << self.shift) - 1) != 0 {
            return None;
        }
        let slot = (off >> self.shift) as usize;
        (slot < self.bits.len() * 64).then_some(slot)
    }

    /// Adds a breakpoint. Returns true (adding never fails; kept for the gdbstub signature).
    pub fn insert(&mut self, addr: u64) -> bool {
        self.generation = next_generation();
        let count = self.counts.entry(addr).or_insert(0);
        *count += 1;
        if *count == 1 {
            match self.slot(addr) {
                Some(s) => self.bits[s / 64] |= 1 << (s % 64),
                None => {
                    if let Err(i) = self.outside.binary_search(&addr) {
                        self.outside.insert(i, addr);
                    }
                }
            }
        }
        true
    }

    /// Removes one breakpoint at `addr`; false if there was none.
    pub fn remove(&mut self, addr: u64) -> bool {
        let Some(count) = self.counts.get_mut(&addr) else {
            return false;
        };
        self.generation = next_generation();
        *count -= 1;
        if *count == 0 {
            self.counts.remove(&addr);
            match self.slot(addr) {
                Some(s) => self.bits[s / 64] &= !(1 << (s % 64)),
                None => {
                    if let Ok(i) = self.outside.binary_search(&addr) {
                        self.outside.remove(i);
                    }
                }
            }
        }
        true
    }

    /// Whether execution must stop before the instruction at `addr`. This is the hot-loop check.
    #[inline(always)]
    pub fn contains(&self, addr: u64) -> bool {
        match self.slot(addr) {
            Some(s) => (self.bits[s / 64] >> (s % 64)) & 1 != 0,
            None => !self.outside.is_empty() && self.outside.binary_search(&addr).is_ok(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    pub fn len(&self) -> usize {
        self.counts.len()
    }

    pub fn clear(&mut self) {
        self.generation = next_generation();
        self.bits.iter_mut().for_each(|w| *w = 0);
        self.counts.clear();
        self.outside.clear();
    }

    /// The distinct breakpoint addresses, in order.
    pub fn addresses(&self) -> impl Iterator<Item = u64> + '_ {
        self.counts.keys().copied()
    }
}

/// One watched range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Watchpoint {
    pub addr: u64,
    pub len: u64,
    pub kind: WatchKind,
}

/// A set of watchpoints over native addresses.
#[derive(Debug, Clone)]
pub struct WatchpointSet {
    page_shift: u32,
    /// One bit per page holding at least one watched unit; empty until the first watchpoint.
    pages: Vec<u64>,
    space: u64,
    watches: Vec<Watchpoint>,
    generation: u64,
}

impl WatchpointSet {
    /// A set for an address space of `space` units (bytes or words), flagged in pages of
    /// `1 << page_shift` units.
    pub fn new(space: u64, page_shift: u32) -> Self {
        WatchpointSet {
            page_shift,
            pages: Vec::new(),
            space,
            watches: Vec::new(),
            generation: next_generation(),
        }
    }

    /// Changes whenever the set changes (never 0; unique across all sets).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Adds a watchpoint over `len` units from `addr` (a zero length is taken as one unit).
    pub fn insert(&mut self, addr: u64, len: u64, kind: WatchKind) -> bool {
        let len = len.max(1);
        self.watches.push(Watchpoint { addr, len, kind });
        self.rebuild_pages();
        true
    }

    /// Removes a watchpoint added with the same arguments; false if there was none.
    pub fn remove(&mut self, addr: u64, len: u64, kind: WatchKind) -> bool {
        let len = len.max(1);
        let Some(i) = self
            .watches
            .iter()
            .position(|w| *w == Watchpoint { addr, len, kind })
        else {
            return false;
        };
        self.watches.remove(i);
        self.rebuild_pages();
        true
    }

    fn rebuild_pages(&mut self) {
        self.generation = next_generation();
        if self.watches.is_empty() {
            self.pages = Vec::new();
            return;
        }
        let npages = (self.space >> self.page_shift).max(1);
        self.pages = vec![0; npages.div_ceil(64) as usize];
        for w in &self.watches {
            let first = w.addr >> self.page_shift;
            let last = (w.addr.saturating_add(w.len - 1)) >> self.page_shift;
            for p in first..=last.min(npages - 1) {
                self.pages[(p / 64) as usize] |= 1 << (p % 64);
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.watches.is_empty()
    }

    pub fn clear(&mut self) {
        self.generation = next_generation();
        self.watches.clear();
        self.pages = Vec::new();
    }

    pub fn iter(&self) -> impl Iterator<Item = &Watchpoint> {
        self.watches.iter()
    }

    /// Checks an access of `len` units at `addr`. Returns the watchpoint kind and the watched
    /// address that the access touches, if any. This is the hot-path check of loads and stores.
    #[inline(always)]
    pub fn check(&self, addr: u64, len: u64, access: AccessKind) -> Option<(WatchKind, u64)> {
        if self.pages.is_empty() {
            return None;
        }
        // The common case with watchpoints set: an access inside one unflagged page. Decided
        // here, inline; only flagged pages (or page-crossing accesses) pay for the exact scan.
        let page = addr >> self.page_shift;
        let last = addr.wrapping_add(len.max(1) - 1) >> self.page_shift;
        if page == last {
            let flagged = self
                .pages
                .get((page / 64) as usize)
                .is_some_and(|w| (w >> (page % 64)) & 1 != 0);
            if !flagged {
                return None;
            }
        }
        self.check_slow(addr, len, access)
    }

    #[inline(never)]
    fn check_slow(&self, addr: u64, len: u64, access: AccessKind) -> Option<(WatchKind, u64)> {
        let page = addr >> self.page_shift;
        let last_page = addr.saturating_add(len.max(1) - 1) >> self.page_shift;
        let flagged = (page..=last_page).any(|p| {
            self.pages
                .get((p / 64) as usize)
                .is_some_and(|w| (w >> (p % 64)) & 1 != 0)
        });
        if !flagged {
            return None;
        }
        let end = addr.saturating_add(len.max(1));
        self.watches
            .iter()
            .find(|w| w.kind.matches(access) && w.addr < end && addr < w.addr.saturating_add(w.len))
            .map(|w| (w.kind, addr.max(w.addr)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn breakpoints_in_and_out_of_the_bitmap() {
        let mut b = BreakpointSet::new(0x400000, 0x1000, 2);
        assert!(b.is_empty());
        b.insert(0x400004);
        b.insert(0x500000); // outside the fast range
        b.insert(0x400006); // misaligned: kept in the slow list
        assert!(b.contains(0x400004));
        assert!(!b.contains(0x400008));
        assert!(!b.contains(0x400000));
        assert!(b.contains(0x500000));
        assert!(b.contains(0x400006));
        assert_eq!(b.len(), 3);
        assert!(b.remove(0x500000));
        assert!(!b.contains(0x500000));
        assert!(!b.remove(0x500000));
        b.clear();
        assert!(!b.contains(0x400004));
    }

    #[test]
    fn generations_change_with_every_change() {
        let mut b = BreakpointSet::new(0, 16, 0);
        let g0 = b.generation();
        assert_ne!(g0, 0);
        b.insert(3);
        let g1 = b.generation();
        assert_ne!(g1, g0);
        assert!(!b.remove(9));
        assert_eq!(b.generation(), g1, "a failed remove changes nothing");
        b.remove(3);
        assert_ne!(b.generation(), g1);
        let mut w = WatchpointSet::new(16, 2);
        let w0 = w.generation();
        w.insert(1, 1, WatchKind::Read);
        assert_ne!(w.generation(), w0);
        assert_ne!(w.generation(), b.generation(), "unique across sets");
    }

    #[test]
    fn breakpoints_are_reference_counted() {
        let mut b = BreakpointSet::new(0, 0x10000, 0);
        b.insert(0x3000);
        b.insert(0x3000);
        b.remove(0x3000);
        assert!(b.contains(0x3000));
        b.remove(0x3000);
        assert!(!b.contains(0x3000));
        assert_eq!(b.addresses().count(), 0);
    }

    #[test]
    fn watchpoints_match_kind_and_overlap() {
        let mut w = WatchpointSet::new(1 << 32, 12);
        assert_eq!(w.check(0x10010000, 4, AccessKind::Write), None);
        w.insert(0x10010004, 4, WatchKind::Write);
        w.insert(0x10010100, 1, WatchKind::Read);
        assert_eq!(w.check(0x10010000, 4, AccessKind::Write), None);
        assert_eq!(
            w.check(0x10010006, 1, AccessKind::Write),
            Some((WatchKind::Write, 0x10010006))
        );
        assert_eq!(
            w.check(0x10010002, 4, AccessKind::Write),
            Some((WatchKind::Write, 0x10010004))
        );
        assert_eq!(w.check(0x10010004, 4, AccessKind::Read), None);
        assert_eq!(
            w.check(0x10010100, 4, AccessKind::Read),
            Some((WatchKind::Read, 0x10010100))
        );
        assert_eq!(w.check(0x20000000, 4, AccessKind::Read), None);
        assert!(w.remove(0x10010004, 4, WatchKind::Write));
        assert!(!w.remove(0x10010004, 4, WatchKind::Write));
        w.insert(0x10, 2, WatchKind::Access);
        assert_eq!(
            w.check(0x11, 1, AccessKind::Read),
            Some((WatchKind::Access, 0x11))
        );
        w.clear();
        assert!(w.is_empty());
        assert_eq!(w.check(0x11, 1, AccessKind::Read), None);
    }

    #[test]
    fn accesses_in_unflagged_pages_and_across_pages() {
        let mut w = WatchpointSet::new(1 << 32, 12);
        w.insert(0x2000, 4, WatchKind::Access);
        assert_eq!(w.check(0x1ffc, 4, AccessKind::Read), None);
        // Starts in an unflagged page, ends in the flagged one.
        assert_eq!(
            w.check(0x1ffe, 4, AccessKind::Write),
            Some((WatchKind::Access, 0x2000))
        );
        assert_eq!(w.check(u64::MAX - 1, 4, AccessKind::Read), None);
    }

    #[test]
    fn watch_range_across_pages() {
        let mut w = WatchpointSet::new(0x10000, 8);
        w.insert(0x30fe, 4, WatchKind::Write);
        assert!(w.check(0x3101, 1, AccessKind::Write).is_some());
        assert!(w.check(0x3102, 1, AccessKind::Write).is_none());
    }
}
