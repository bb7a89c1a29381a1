//! Bytes inside little-endian 32-bit words: how a debugger's byte-addressed view reaches a
//! memory the machine keeps as words (SimpleRISC's data memory, MIPS's decoded text).
//!
//! Limits: little endian only; a byte address is `4 × word index + byte within the word`.

use crate::machine::MemError;

/// Byte `index` (0–3, low first) of `word`; `index` is taken modulo 4.
pub fn byte_of(word: u32, index: u64) -> u8 {
    (word >> (8 * (index % 4))) as u8
}

/// `word` with byte `index` (0–3, low first, modulo 4) replaced by `byte`.
pub fn with_byte(word: u32, index: u64, byte: u8) -> u32 {
    let shift = 8 * (index % 4);
    (word & !(0xff << shift)) | (u32::from(byte) << shift)
}

/// The byte at byte address `addr` of a word memory; `Unmapped` past its end.
pub fn read_byte(words: &[u32], addr: u64) -> Result<u8, MemError> {
    let word = usize::try_from(addr / 4)
        .ok()
        .and_then(|i| words.get(i))
        .ok_or(MemError::Unmapped(addr))?;
    Ok(byte_of(*word, addr))
}

/// Writes the byte at byte address `addr` of a word memory; `Unmapped` past its end.
pub fn write_byte(words: &mut [u32], addr: u64, byte: u8) -> Result<(), MemError> {
    let word = usize::try_from(addr / 4)
        .ok()
        .and_then(|i| words.get_mut(i))
        .ok_or(MemError::Unmapped(addr))?;
    *word = with_byte(*word, addr, byte);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_are_little_endian_within_a_word() {
        assert_eq!(byte_of(0x0403_0201, 0), 1);
        assert_eq!(byte_of(0x0403_0201, 3), 4);
        assert_eq!(byte_of(0x0403_0201, 7), 4, "index modulo 4");
        assert_eq!(with_byte(0x0403_0201, 2, 0xff), 0x04ff_0201);
        assert_eq!(with_byte(0x0403_0201, 0, 0), 0x0403_0200);
    }

    #[test]
    fn word_memory_reads_and_writes_single_bytes() {
        let mut mem = [0x0403_0201, 0x0807_0605];
        assert_eq!(read_byte(&mem, 0), Ok(1));
        assert_eq!(read_byte(&mem, 6), Ok(7));
        assert_eq!(write_byte(&mut mem, 5, 0xaa), Ok(()));
        assert_eq!(mem, [0x0403_0201, 0x0807_aa05], "only that byte changes");
        assert_eq!(read_byte(&mem, 5), Ok(0xaa));
    }

    #[test]
    fn addresses_past_the_end_are_unmapped() {
        let mut mem = [0u32; 2];
        assert_eq!(read_byte(&mem, 8), Err(MemError::Unmapped(8)));
        assert_eq!(write_byte(&mut mem, 11, 1), Err(MemError::Unmapped(11)));
        assert_eq!(read_byte(&mem, u64::MAX), Err(MemError::Unmapped(u64::MAX)));
        assert_eq!(mem, [0, 0]);
    }
}
