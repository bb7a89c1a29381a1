//! MARS 4.5's default memory map as flat byte arrays, one per data segment.
//!
//! MARS only accepts an access whose start address lies in one of its segments (each 4 MiB,
//! MMIO 64 KiB); everything else is `address out of range`. The text segments hold decoded
//! instructions instead of bytes and live in the cpu, because MARS refuses data loads and stores
//! there without self-modifying code.

/// `.text` base (first user instruction).
pub const TEXT_BASE: u32 = 0x0040_0000;
/// End of the user text segment (MARS: base + 4 MiB).
pub const TEXT_LIMIT: u32 = 0x0080_0000;
/// `.extern` base: the data segment starts here.
pub const DATA_SEGMENT_BASE: u32 = 0x1000_0000;
/// `.data` base.
pub const DATA_BASE: u32 = 0x1001_0000;
pub const GLOBAL_POINTER: u32 = 0x1000_8000;
pub const HEAP_BASE: u32 = 0x1004_0000;
pub const DATA_LIMIT: u32 = DATA_SEGMENT_BASE + SEGMENT_BYTES;
pub const STACK_POINTER: u32 = 0x7fff_effc;
/// Highest stack word; MARS's stack segment is (STACK_BASE - 4 MiB, STACK_BASE].
pub const STACK_BASE: u32 = 0x7fff_fffc;
pub const KTEXT_BASE: u32 = 0x8000_0000;
pub const KTEXT_LIMIT: u32 = KTEXT_BASE + SEGMENT_BYTES;
pub const EXCEPTION_HANDLER: u32 = 0x8000_0180;
pub const KDATA_BASE: u32 = 0x9000_0000;
pub const MMIO_BASE: u32 = 0xffff_0000;

const SEGMENT_BYTES: u32 = 4 << 20;
/// Lowest valid stack start address.
const STACK_LOW: u32 = STACK_BASE - SEGMENT_BYTES + 1;
const MMIO_BYTES: u32 = 1 << 16;

/// Which segment an address belongs to, for the accesses MARS treats specially.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Region {
    Text,
    KText,
    /// A data-like segment: the value is the byte index into `Memory`'s backing store.
    Data,
    Unmapped,
}

pub fn in_text(addr: u32) -> bool {
    (TEXT_BASE..TEXT_LIMIT).contains(&addr)
}

pub fn in_ktext(addr: u32) -> bool {
    (KTEXT_BASE..KTEXT_LIMIT).contains(&addr)
}

/// Bytes per page of a [`MemoryImage`].
const PAGE: usize = 4096;

/// The non-zero pages of a [`Memory`], per segment (page index, bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryImage {
    segments: [Vec<(u32, Box<[u8]>)>; 4],
}

impl MemoryImage {
    /// Bytes the kept pages take.
    pub fn bytes(&self) -> usize {
        self.segments.iter().map(|s| s.len() * PAGE).sum()
    }
}

/// Data, stack, kernel data and MMIO bytes.
#[derive(Clone, PartialEq, Eq)]
pub struct Memory {
    data: Vec<u8>,
    /// Bytes from `STACK_LOW` up to 0x80000000 (the top word may be read whole).
    stack: Vec<u8>,
    kdata: Vec<u8>,
    mmio: Vec<u8>,
    /// The pages ever written, of the data segment (a fixed size, so the store path's mark
    /// needs no bounds check) and of stack, kdata and mmio: only they can hold something
    /// other than zeros, so snapshots and restores look at them alone.
    data_written: Box<[bool; DATA_PAGES]>,
    other_written: [Vec<bool>; 3],
}

/// Pages of the data segment.
const DATA_PAGES: usize = SEGMENT_BYTES as usize / PAGE;

/// A summary: the 12 MiB of segments are no use in a debug print.
impl std::fmt::Debug for Memory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let used = |bytes: &[u8]| bytes.iter().filter(|&&b| b != 0).count();
        f.debug_struct("Memory")
            .field("nonzero_data_bytes", &used(&self.data))
            .field("nonzero_stack_bytes", &used(&self.stack))
            .field("nonzero_kdata_bytes", &used(&self.kdata))
            .field("nonzero_mmio_bytes", &used(&self.mmio))
            .finish()
    }
}

impl Default for Memory {
    fn default() -> Self {
        Self::new()
    }
}

impl Memory {
    pub fn new() -> Self {
        Memory {
            data: vec![0; SEGMENT_BYTES as usize],
            stack: vec![0; (0x8000_0000u32 - STACK_LOW) as usize],
            kdata: vec![0; SEGMENT_BYTES as usize],
            mmio: vec![0; MMIO_BYTES as usize],
            data_written: Box::new([false; DATA_PAGES]),
            other_written: [
                (0x8000_0000u32 - STACK_LOW) as usize,
                SEGMENT_BYTES as usize,
                MMIO_BYTES as usize,
            ]
            .map(|bytes| vec![false; bytes.div_ceil(PAGE)]),
        }
    }

    /// Where `addr` falls, judged by the access's start address as MARS does.
    pub fn region(addr: u32) -> Region {
        if (DATA_SEGMENT_BASE..DATA_LIMIT).contains(&addr)
            || (STACK_LOW..=STACK_BASE).contains(&addr)
            || (KDATA_BASE..KDATA_BASE + SEGMENT_BYTES).contains(&addr)
            || addr >= MMIO_BASE
        {
            Region::Data
        } else if in_text(addr) {
            Region::Text
        } else if in_ktext(addr) {
            Region::KText
        } else {
            Region::Unmapped
        }
    }

    /// The backing bytes from `addr` for an access of `len` bytes, if the start is in a data-like
    /// segment and the access stays inside its array.
    #[inline(always)]
    fn slice(&self, addr: u32, len: u32) -> Option<&[u8]> {
        let off = addr.wrapping_sub(DATA_SEGMENT_BASE);
        if off < SEGMENT_BYTES {
            return self.data.get(off as usize..(off + len) as usize);
        }
        self.slice_slow(addr, len)
    }

    #[inline(never)]
    fn slice_slow(&self, addr: u32, len: u32) -> Option<&[u8]> {
        let (bytes, off) = self.locate(addr)?;
        let off = off as usize;
        bytes.get(off..off.checked_add(len as usize)?)
    }

    fn locate(&self, addr: u32) -> Option<(&Vec<u8>, u32)> {
        if (STACK_LOW..=STACK_BASE).contains(&addr) {
            Some((&self.stack, addr - STACK_LOW))
        } else if (KDATA_BASE..KDATA_BASE + SEGMENT_BYTES).contains(&addr) {
            Some((&self.kdata, addr - KDATA_BASE))
        } else if addr >= MMIO_BASE {
            Some((&self.mmio, addr - MMIO_BASE))
        } else if (DATA_SEGMENT_BASE..DATA_LIMIT).contains(&addr) {
            Some((&self.data, addr - DATA_SEGMENT_BASE))
        } else {
            None
        }
    }

    #[inline(always)]
    fn slice_mut(&mut self, addr: u32, len: u32) -> Option<&mut [u8]> {
        let off = addr.wrapping_sub(DATA_SEGMENT_BASE);
        if off < SEGMENT_BYTES {
            let bytes = self.data.get_mut(off as usize..(off + len) as usize)?;
            // Accesses are aligned, so within one page. (The mask only lets the compiler see
            // the index in range: `off` is below the segment's size.)
            self.data_written[(off as usize / PAGE) & (DATA_PAGES - 1)] = true;
            return Some(bytes);
        }
        self.slice_mut_slow(addr, len)
    }

    #[inline(never)]
    fn slice_mut_slow(&mut self, addr: u32, len: u32) -> Option<&mut [u8]> {
        let (segment, off) = if (STACK_LOW..=STACK_BASE).contains(&addr) {
            (1, addr - STACK_LOW)
        } else if (KDATA_BASE..KDATA_BASE + SEGMENT_BYTES).contains(&addr) {
            (2, addr - KDATA_BASE)
        } else if addr >= MMIO_BASE {
            (3, addr - MMIO_BASE)
        } else {
            return None;
        };
        let off = off as usize;
        let end = off.checked_add(len as usize)?;
        let written = &mut self.other_written[segment - 1];
        let bytes = match segment {
            1 => &mut self.stack,
            2 => &mut self.kdata,
            _ => &mut self.mmio,
        };
        let slice = bytes.get_mut(off..end)?;
        // The stack segment starts at STACK_LOW, which is not page aligned: an aligned word
        // there may straddle two of its pages, and both hold what it writes.
        for page in &mut written[off / PAGE..=(end - 1) / PAGE] {
            *page = true;
        }
        Some(slice)
    }

    /// Bytes of the pages ever written (what a snapshot looks at).
    pub fn written_bytes(&self) -> usize {
        self.written()
            .iter()
            .copied()
            .flatten()
            .filter(|&&w| w)
            .count()
            * PAGE
    }

    /// The pages ever written, per segment (data, stack, kdata, mmio).
    fn written(&self) -> [&[bool]; 4] {
        [
            &self.data_written[..],
            &self.other_written[0],
            &self.other_written[1],
            &self.other_written[2],
        ]
    }

    /// A copy of the memory that keeps only its pages holding something other than zeros (a
    /// program touches kilobytes of its 12 MiB): what a snapshot holds. Only pages ever
    /// written are looked at.
    pub fn image(&self) -> MemoryImage {
        let mut segments: [Vec<(u32, Box<[u8]>)>; 4] = Default::default();
        for ((bytes, written), pages) in self
            .segments()
            .into_iter()
            .zip(self.written())
            .zip(&mut segments)
        {
            for (i, _) in written.iter().enumerate().filter(|(_, &w)| w) {
                let page = &bytes[i * PAGE..((i + 1) * PAGE).min(bytes.len())];
                if page.iter().any(|&b| b != 0) {
                    pages.push((i as u32, page.into()));
                }
            }
        }
        MemoryImage { segments }
    }

    /// Puts an [`Memory::image`] back: its pages, and zeros everywhere else (only pages ever
    /// written can hold anything else).
    pub fn restore_image(&mut self, image: &MemoryImage) {
        let mut data_written =
            std::mem::replace(&mut self.data_written, Box::new([false; DATA_PAGES]));
        let mut other_written = std::mem::take(&mut self.other_written);
        let [stack_w, kdata_w, mmio_w] = &mut other_written;
        let written: [&mut [bool]; 4] = [&mut data_written[..], stack_w, kdata_w, mmio_w];
        for ((bytes, written), pages) in self
            .segments_mut()
            .into_iter()
            .zip(written)
            .zip(&image.segments)
        {
            let mut kept = pages.iter().peekable();
            for (i, was_written) in written.iter_mut().enumerate() {
                let page_range = i * PAGE..((i + 1) * PAGE).min(bytes.len());
                match kept.next_if(|(at, _)| *at as usize == i) {
                    Some((_, saved)) => {
                        bytes[page_range].copy_from_slice(saved);
                        *was_written = true;
                    }
                    None if *was_written => bytes[page_range].fill(0),
                    None => {}
                }
            }
        }
        self.data_written = data_written;
        self.other_written = other_written;
    }

    fn segments(&self) -> [&[u8]; 4] {
        [&self.data, &self.stack, &self.kdata, &self.mmio]
    }

    fn segments_mut(&mut self) -> [&mut [u8]; 4] {
        [
            &mut self.data,
            &mut self.stack,
            &mut self.kdata,
            &mut self.mmio,
        ]
    }

    #[inline(always)]
    pub fn read_u32(&self, addr: u32) -> Option<u32> {
        let b = self.slice(addr, 4)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    #[inline(always)]
    pub fn read_u16(&self, addr: u32) -> Option<u16> {
        let b = self.slice(addr, 2)?;
        Some(u16::from_le_bytes([b[0], b[1]]))
    }

    #[inline(always)]
    pub fn read_u8(&self, addr: u32) -> Option<u8> {
        self.slice(addr, 1).map(|b| b[0])
    }

    #[inline(always)]
    pub fn write_u32(&mut self, addr: u32, value: u32) -> bool {
        match self.slice_mut(addr, 4) {
            Some(b) => {
                b.copy_from_slice(&value.to_le_bytes());
                true
            }
            None => false,
        }
    }

    #[inline(always)]
    pub fn write_u16(&mut self, addr: u32, value: u16) -> bool {
        match self.slice_mut(addr, 2) {
            Some(b) => {
                b.copy_from_slice(&value.to_le_bytes());
                true
            }
            None => false,
        }
    }

    #[inline(always)]
    pub fn write_u8(&mut self, addr: u32, value: u8) -> bool {
        match self.slice_mut(addr, 1) {
            Some(b) => {
                b[0] = value;
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_are_little_endian_and_bounded() {
        let mut m = Memory::new();
        assert!(m.write_u32(DATA_BASE, 0x1122_3344));
        assert_eq!(m.read_u8(DATA_BASE), Some(0x44));
        assert_eq!(m.read_u16(DATA_BASE + 2), Some(0x1122));
        assert!(m.write_u32(STACK_BASE, 7));
        assert_eq!(m.read_u32(STACK_BASE), Some(7));
        assert!(m.write_u32(STACK_POINTER, 9));
        assert_eq!(m.read_u32(STACK_POINTER), Some(9));
        assert!(m.write_u8(0xffff_ffff, 1));
        assert_eq!(m.read_u8(0xffff_ffff), Some(1));
        assert_eq!(m.read_u32(0xffff_fffe), None);
        assert_eq!(m.read_u32(0), None);
        assert_eq!(m.read_u32(DATA_LIMIT), None);
        assert!(m.write_u32(KDATA_BASE, 3));
        assert_eq!(Memory::region(TEXT_BASE), Region::Text);
        assert_eq!(Memory::region(KTEXT_BASE + 4), Region::KText);
        assert_eq!(Memory::region(0x0800_0000), Region::Unmapped);
        assert_eq!(Memory::region(HEAP_BASE), Region::Data);
        assert!(format!("{m:?}").contains("nonzero_data_bytes: 4"));
    }
}

#[cfg(test)]
mod image_tests {
    use super::*;

    #[test]
    fn an_image_keeps_the_written_pages_and_restores_zeros_elsewhere() {
        let mut m = Memory::new();
        assert!(m.write_u32(DATA_BASE, 0xdead_beef));
        assert!(m.write_u8(STACK_POINTER, 7));
        assert!(m.write_u16(KDATA_BASE + 0x2000, 0x1234));
        assert!(m.write_u32(DATA_BASE + 0x8000, 0)); // written, but zeros: not kept
        let image = m.image();
        assert_eq!(image.bytes(), 3 * PAGE);
        let before = m.clone();
        // Later writes, some on pages the image does not hold.
        assert!(m.write_u32(DATA_BASE, 1));
        assert!(m.write_u32(HEAP_BASE + 0x10_000, 99));
        assert!(m.write_u8(MMIO_BASE + 4, 3));
        m.restore_image(&image);
        assert_eq!(m.read_u32(DATA_BASE), Some(0xdead_beef));
        assert_eq!(m.read_u32(HEAP_BASE + 0x10_000), Some(0));
        assert_eq!(m.read_u8(MMIO_BASE + 4), Some(0));
        assert_eq!(m.read_u8(STACK_POINTER), Some(7));
        assert_eq!(m.read_u16(KDATA_BASE + 0x2000), Some(0x1234));
        assert_eq!(m.image(), before.image());
    }

    // The stack's pages count from STACK_LOW, which is not page aligned: the word at
    // 0x7fffeffc straddles two of them. Only the first was marked written, so restoring a
    // state from before the store left three of its bytes (time travel showed them).
    #[test]
    fn a_word_across_two_stack_pages_is_restored_whole() {
        let mut m = Memory::new();
        let image = m.image();
        let word = 0x7fff_effc;
        assert_ne!(
            (word - STACK_LOW) as usize / PAGE,
            (word + 3 - STACK_LOW) as usize / PAGE
        );
        assert!(m.write_u32(word, 0x0040_0014));
        assert_eq!(m.image().bytes(), 2 * PAGE);
        m.restore_image(&image);
        assert_eq!(m.read_u32(word), Some(0));
    }
}
