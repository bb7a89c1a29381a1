//! The text segments as decoded instructions (decoded once, when loaded or patched). User text
//! lives in the cpu's [`asmdbg_core::PatchedCode`], which also keeps the run loop's copy with
//! `DebugStop` over every breakpoint; kernel text has no breakpoint copy (the run loop's
//! fetch falls back to the breakpoint set there).

use crate::decode::{decode, Instruction};
use crate::memory::{in_ktext, in_text, EXCEPTION_HANDLER, KTEXT_BASE, TEXT_BASE, TEXT_LIMIT};

use super::{Cpu, Trap};

impl Cpu {
    /// Bytes of user text holding instructions (rounded up to words).
    pub fn text_len_bytes(&self) -> u32 {
        self.debug.breakpoints.code().len() as u32 * 4
    }

    /// Puts an instruction word into .text or .ktext (loading, or the debugger patching code).
    /// False if `addr` is not a word address in a text segment.
    pub fn write_text_word(&mut self, addr: u32, word: u32) -> bool {
        if addr & 3 != 0 {
            return false;
        }
        let instr = decode(word);
        if in_text(addr) {
            let idx = ((addr - TEXT_BASE) >> 2) as usize;
            // Keeps a breakpoint's stop over the slot; `step` and `text_word` see the new
            // instruction at once, and grown code is re-patched before the next run.
            self.debug.breakpoints.write(idx, instr, Instruction::Empty);
            put(&mut self.text_words, idx, word, 0);
        } else if in_ktext(addr) {
            let idx = ((addr - KTEXT_BASE) >> 2) as usize;
            put(&mut self.ktext, idx, instr, Instruction::Empty);
            put(&mut self.ktext_words, idx, word, 0);
        } else {
            return false;
        }
        true
    }

    /// Gives the branch at `addr` its whole displacement (in words), which its word holds
    /// only the low 16 bits of: MARS runs a branch the assembler placed further than 16 bits
    /// with the displacement of its statement (see [`crate::program::FarBranch`]). The word
    /// stays as assembled; writing the word again (the debugger, self-modifying code) decodes
    /// it afresh, as MARS builds a new statement from a word written to text.
    pub fn load_far_branch(&mut self, addr: u32, displacement: i32) {
        let Some(instr) = self.instruction_at(addr) else {
            return;
        };
        let far = instr.with_branch_offset(displacement);
        if in_text(addr) {
            let idx = ((addr - TEXT_BASE) >> 2) as usize;
            self.debug.breakpoints.write(idx, far, Instruction::Empty);
        } else if in_ktext(addr) {
            let idx = ((addr - KTEXT_BASE) >> 2) as usize;
            put(&mut self.ktext, idx, far, Instruction::Empty);
        }
    }

    /// Words of code loaded (or patched) in the text segment that holds `addr`.
    pub fn text_len(&self, addr: u32) -> usize {
        if in_ktext(addr) {
            self.ktext.len()
        } else {
            self.debug.breakpoints.code().len()
        }
    }

    /// The code and words of the text segment holding `addr`, and the index of `addr` there.
    fn text_slot(&self, addr: u32) -> Option<(&[Instruction], &[u32], usize)> {
        if addr & 3 != 0 {
            return None;
        }
        if in_text(addr) {
            Some((
                self.debug.breakpoints.code(),
                &self.text_words[..],
                ((addr - TEXT_BASE) >> 2) as usize,
            ))
        } else if in_ktext(addr) {
            Some((
                &self.ktext[..],
                &self.ktext_words[..],
                ((addr - KTEXT_BASE) >> 2) as usize,
            ))
        } else {
            None
        }
    }

    /// The instruction word at a text address, if an instruction is there.
    pub fn text_word(&self, addr: u32) -> Option<u32> {
        let (code, words, idx) = self.text_slot(addr)?;
        match code.get(idx) {
            Some(Instruction::Empty) | None => None,
            Some(_) => words.get(idx).copied(),
        }
    }

    /// The instruction at a text address as it runs: the word decoded, or a far branch with
    /// its whole displacement ([`Cpu::load_far_branch`]).
    pub fn instruction_at(&self, addr: u32) -> Option<Instruction> {
        let (code, _, idx) = self.text_slot(addr)?;
        match code.get(idx) {
            Some(Instruction::Empty) | None => None,
            Some(&instr) => Some(instr),
        }
    }

    pub(super) fn has_exception_handler(&self) -> bool {
        let idx = ((EXCEPTION_HANDLER - KTEXT_BASE) >> 2) as usize;
        !matches!(self.ktext.get(idx), None | Some(Instruction::Empty))
    }

    /// The instruction the run loop executes at `pc`: breakpoints appear as `DebugStop`.
    #[inline(always)]
    pub(super) fn fetch(&self, pc: u32) -> Result<Instruction, Trap> {
        let idx = (pc.wrapping_sub(TEXT_BASE) >> 2) as usize;
        if pc & 3 == 0 {
            if let Some(&instr) = self.debug.breakpoints.patched().get(idx) {
                return Ok(instr);
            }
        }
        if self.breakpoints.contains(pc as u64) {
            return Err(Trap::Breakpoint);
        }
        self.fetch_unmarked(pc)
    }

    /// The real instruction at `pc`, breakpoints or not.
    pub(super) fn fetch_unmarked(&self, pc: u32) -> Result<Instruction, Trap> {
        let idx = (pc.wrapping_sub(TEXT_BASE) >> 2) as usize;
        if pc & 3 == 0 {
            if let Some(&instr) = self.debug.breakpoints.code().get(idx) {
                return Ok(instr);
            }
        }
        self.fetch_slow(pc)
    }

    #[inline(never)]
    pub(super) fn fetch_slow(&self, pc: u32) -> Result<Instruction, Trap> {
        if pc & 3 != 0 {
            return Err(Trap::InvalidPc);
        }
        if (TEXT_BASE..TEXT_LIMIT).contains(&pc) {
            return Err(Trap::Cliff);
        }
        if in_ktext(pc) {
            let idx = ((pc - KTEXT_BASE) >> 2) as usize;
            return Ok(self.ktext.get(idx).copied().unwrap_or(Instruction::Empty));
        }
        Err(Trap::InvalidPc)
    }
}

/// Sets `slots[index]`, growing `slots` with `fill` up to it.
fn put<T: Copy>(slots: &mut Vec<T>, index: usize, value: T, fill: T) {
    if index >= slots.len() {
        slots.resize(index + 1, fill);
    }
    slots[index] = value;
}
