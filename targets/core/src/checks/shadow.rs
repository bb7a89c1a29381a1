//! A bit per memory unit, kept by pages of 4096 units so that a MIPS address space of 2^32
//! bytes costs only the pages a program touches.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

const PAGE_BITS: u32 = 12;
const PAGE_UNITS: u64 = 1 << PAGE_BITS;
const WORDS: usize = (PAGE_UNITS / 64) as usize;

/// Page numbers hashed by one multiplication: looked up on every load and store the checks
/// see, where the standard library's SipHash was a fifth of their time.
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

#[derive(Debug, Clone, Default)]
pub struct UnitBits {
    pages: HashMap<u64, Box<[u64; WORDS]>, BuildHasherDefault<PageHasher>>,
}

impl UnitBits {
    pub fn get(&self, addr: u64) -> bool {
        let offset = addr & (PAGE_UNITS - 1);
        self.pages
            .get(&(addr >> PAGE_BITS))
            .is_some_and(|page| page[(offset / 64) as usize] & (1 << (offset % 64)) != 0)
    }

    /// Whether every unit of `addr..addr + units` is set.
    pub fn all(&self, addr: u64, units: u64) -> bool {
        (0..units).all(|i| self.get(addr.wrapping_add(i)))
    }

    /// Whether any unit of `addr..addr + units` is set.
    pub fn any(&self, addr: u64, units: u64) -> bool {
        !self.pages.is_empty() && (0..units).any(|i| self.get(addr.wrapping_add(i)))
    }

    pub fn set(&mut self, addr: u64) {
        let offset = addr & (PAGE_UNITS - 1);
        let page = self
            .pages
            .entry(addr >> PAGE_BITS)
            .or_insert_with(|| Box::new([0; WORDS]));
        page[(offset / 64) as usize] |= 1 << (offset % 64);
    }

    /// Sets `start..end`, whole pages at a time where it can.
    pub fn set_range(&mut self, start: u64, end: u64) {
        let mut addr = start;
        while addr < end {
            if addr % PAGE_UNITS == 0 && end - addr >= PAGE_UNITS {
                self.pages
                    .insert(addr >> PAGE_BITS, Box::new([u64::MAX; WORDS]));
                addr += PAGE_UNITS;
            } else {
                self.set(addr);
                addr += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_ranges_and_pages() {
        let mut bits = UnitBits::default();
        assert!(!bits.get(5) && !bits.any(0, 100));
        bits.set(5);
        assert!(bits.get(5) && !bits.get(4) && !bits.get(6));
        assert!(bits.any(0, 6) && !bits.all(4, 2) && bits.all(5, 1));
        bits.set_range(0x1000_0ff0, 0x1000_3004);
        assert!(bits.all(0x1000_0ff0, 0x2014));
        assert!(!bits.get(0x1000_0fef) && !bits.get(0x1000_3004));
        assert!(bits.get(0x1000_2000));
        bits.set(u64::MAX);
        assert!(bits.get(u64::MAX));
    }
}
