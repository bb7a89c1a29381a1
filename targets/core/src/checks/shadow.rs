//! A bit per memory unit. The first 65,536 units (all of the LC-3's memory, SimpleRISC's data)
//! are one flat array; above them, pages of 4096 units are kept for the pages a program
//! touches (a MIPS address space of 2^32 bytes), found through a small direct-mapped table of
//! recently used pages, which remembers absent pages too: the checks ask on every load and
//! store of a run, nearly always about the same few pages.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

const FLAT_UNITS: u64 = 1 << 16;
const PAGE_BITS: u32 = 12;
const PAGE_UNITS: u64 = 1 << PAGE_BITS;
const WORDS: usize = (PAGE_UNITS / 64) as usize;
const RECENT: usize = 16;
/// A recent-table entry for a page that has no bits set.
const ABSENT: u32 = u32::MAX;
/// A recent-table tag no page has (page numbers are below 2^52).
const NO_PAGE: u64 = u64::MAX;

/// Page numbers hashed by one multiplication (the standard library's SipHash was a fifth of
/// the checks' time when every access hashed).
#[derive(Debug, Clone, Copy, Default)]
struct PageHasher(u64);

impl Hasher for PageHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

#[derive(Debug, Clone)]
pub struct UnitBits {
    flat: Box<[u64]>,
    pages: Vec<[u64; WORDS]>,
    index: HashMap<u64, u32, BuildHasherDefault<PageHasher>>,
    /// (page number, index into `pages` or [`ABSENT`]), at `page % RECENT`.
    recent: [(u64, u32); RECENT],
}

impl Default for UnitBits {
    fn default() -> Self {
        UnitBits {
            flat: vec![0; (FLAT_UNITS / 64) as usize].into_boxed_slice(),
            pages: Vec::new(),
            index: HashMap::default(),
            recent: [(NO_PAGE, ABSENT); RECENT],
        }
    }
}

impl UnitBits {
    /// The page holding `page`, through the recent table.
    #[inline(always)]
    fn page(&mut self, page: u64) -> u32 {
        let slot = &mut self.recent[(page as usize) % RECENT];
        if slot.0 == page {
            return slot.1;
        }
        let found = self.index.get(&page).copied().unwrap_or(ABSENT);
        *slot = (page, found);
        found
    }

    /// The page holding `page`, made if it is not there.
    fn page_made(&mut self, page: u64) -> u32 {
        let found = self.page(page);
        if found != ABSENT {
            return found;
        }
        let made = self.pages.len() as u32;
        self.pages.push([0; WORDS]);
        self.index.insert(page, made);
        self.recent[(page as usize) % RECENT] = (page, made);
        made
    }

    /// The word holding `addr` and the bit of `addr` in it.
    #[inline(always)]
    fn word(&mut self, addr: u64) -> u64 {
        if addr < FLAT_UNITS {
            return self.flat[(addr / 64) as usize];
        }
        match self.page(addr >> PAGE_BITS) {
            ABSENT => 0,
            page => self.pages[page as usize][((addr & (PAGE_UNITS - 1)) / 64) as usize],
        }
    }

    /// Whether `addr` is set.
    #[inline(always)]
    pub fn get(&mut self, addr: u64) -> bool {
        self.word(addr) & (1 << (addr % 64)) != 0
    }

    /// The bits of `units` units from `addr` when they lie in one 64-bit word.
    #[inline(always)]
    fn in_one_word(addr: u64, units: u64) -> Option<u64> {
        let shift = addr % 64;
        (units > 0 && units <= 64 - shift).then(|| (u64::MAX >> (64 - units)) << shift)
    }

    /// Whether every unit of `addr..addr + units` is set.
    #[inline(always)]
    pub fn all(&mut self, addr: u64, units: u64) -> bool {
        match Self::in_one_word(addr, units) {
            Some(mask) => self.word(addr) & mask == mask,
            None => (0..units).all(|i| self.get(addr.wrapping_add(i))),
        }
    }

    /// Whether any unit of `addr..addr + units` is set.
    #[inline(always)]
    pub fn any(&mut self, addr: u64, units: u64) -> bool {
        match Self::in_one_word(addr, units) {
            Some(mask) => self.word(addr) & mask != 0,
            None => (0..units).any(|i| self.get(addr.wrapping_add(i))),
        }
    }

    /// The word holding `addr`, its page made if it is not there.
    #[inline(always)]
    fn word_mut(&mut self, addr: u64) -> &mut u64 {
        if addr < FLAT_UNITS {
            return &mut self.flat[(addr / 64) as usize];
        }
        let page = self.page_made(addr >> PAGE_BITS) as usize;
        &mut self.pages[page][((addr & (PAGE_UNITS - 1)) / 64) as usize]
    }

    /// Sets `addr`.
    #[cfg(test)]
    fn set(&mut self, addr: u64) {
        *self.word_mut(addr) |= 1 << (addr % 64);
    }

    /// Sets `start..end`, a word of 64 units at a time.
    #[inline(always)]
    pub fn set_range(&mut self, start: u64, end: u64) {
        let mut addr = start;
        while addr < end {
            if let Some(mask) = Self::in_one_word(addr, end - addr) {
                *self.word_mut(addr) |= mask;
                return;
            }
            // From `addr` to the end of its word (all of it when aligned).
            *self.word_mut(addr) |= u64::MAX << (addr % 64);
            addr = (addr | 63) + 1;
        }
    }

    /// Whether no unit is set.
    pub fn is_empty(&self) -> bool {
        self.pages.is_empty() && self.flat.iter().all(|&w| w == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_ranges_and_pages() {
        let mut bits = UnitBits::default();
        assert!(bits.is_empty());
        assert!(!bits.get(5) && !bits.any(0, 100));
        bits.set(5);
        assert!(!bits.is_empty());
        assert!(bits.get(5) && !bits.get(4) && !bits.get(6));
        assert!(bits.any(0, 6) && !bits.all(4, 2) && bits.all(5, 1));
        bits.set_range(0x1000_0ff0, 0x1000_3004);
        assert!(bits.all(0x1000_0ff0, 0x2014));
        assert!(!bits.get(0x1000_0fef) && !bits.get(0x1000_3004));
        assert!(bits.get(0x1000_2000));
        bits.set(u64::MAX);
        assert!(bits.get(u64::MAX));
    }

    #[test]
    fn the_flat_part_meets_the_pages() {
        let mut bits = UnitBits::default();
        // Across the end of the flat part, unaligned at both ends.
        bits.set_range(0xfff3, 0x1_0009);
        assert!(!bits.get(0xfff2) && !bits.get(0x1_0009));
        assert!(bits.all(0xfff3, 0x16) && bits.all(0xfffc, 4) && bits.all(0x1_0000, 4));
        assert!(!bits.any(0x1_0009, 4) && bits.any(0x1_0006, 8));
        // Words crossing a 64-unit boundary ask unit by unit.
        bits.set_range(0x2_003e, 0x2_0042);
        assert!(bits.all(0x2_003e, 4) && !bits.all(0x2_003d, 4) && bits.any(0x2_003c, 4));
    }

    #[test]
    fn the_recent_table_forgets_absent_pages_once_they_are_made() {
        let mut bits = UnitBits::default();
        let addr = 0x7fff_effc;
        // Asked while absent (remembered as absent), then made by a store.
        assert!(!bits.all(addr, 4));
        bits.set_range(addr, addr + 4);
        assert!(bits.all(addr, 4));
        // Pages that share a recent slot take turns in it.
        let other = addr + (RECENT as u64) * PAGE_UNITS;
        assert!(!bits.get(other));
        bits.set(other);
        assert!(bits.get(other) && bits.all(addr, 4) && bits.get(other));
    }
}
