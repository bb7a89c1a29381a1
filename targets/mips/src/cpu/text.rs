//! The text segments as decoded instructions (decoded once, when loaded or patched) and the
//! run loop's copy of user text with `DebugStop` over every breakpoint, kept in step with the
//! breakpoint set by generation.

use crate::decode::decode;
use crate::decode::Instruction;
use crate::memory::{in_ktext, in_text, EXCEPTION_HANDLER, KTEXT_BASE, TEXT_BASE, TEXT_LIMIT};

use super::{Cpu, Trap};

impl Cpu {
    /// Bytes of user text holding instructions (rounded up to words).
    pub fn text_len_bytes(&self) -> u32 {
        self.text.len() as u32 * 4
    }

    pub(super) fn text_slot(
        &mut self,
        addr: u32,
    ) -> Option<(&mut Vec<Instruction>, &mut Vec<u32>, usize)> {
        if addr & 3 != 0 {
            return None;
        }
        if in_text(addr) {
            Some((
                &mut self.text,
                &mut self.text_words,
                ((addr - TEXT_BASE) >> 2) as usize,
            ))
        } else if in_ktext(addr) {
            Some((
                &mut self.ktext,
                &mut self.ktext_words,
                ((addr - KTEXT_BASE) >> 2) as usize,
            ))
        } else {
            None
        }
    }

    /// Puts an instruction word into .text or .ktext (loading, or the debugger patching code).
    /// False if `addr` is not a word address in a text segment.
    pub fn write_text_word(&mut self, addr: u32, word: u32) -> bool {
        let Some((code, words, idx)) = self.text_slot(addr) else {
            return false;
        };
        if idx >= code.len() {
            code.resize(idx + 1, Instruction::Empty);
            words.resize(idx + 1, 0);
        }
        let instr = decode(word);
        code[idx] = instr;
        words[idx] = word;
        if in_text(addr) {
            match self.exec.get_mut(idx) {
                // Keep a breakpoint marker; `step` and `text` see the new instruction.
                Some(slot) if *slot != Instruction::DebugStop => *slot = instr,
                Some(_) => {}
                // The run loop rebuilds the copy (and its markers) before it next runs.
                None => self.exec.clear(),
            }
        }
        true
    }

    /// Brings `exec` up to date with `text` and the breakpoint set (the debugger may have changed
    /// either between runs).
    pub(super) fn sync_breakpoints(&mut self) {
        let generation = self.breakpoints.generation();
        if generation == self.synced_breakpoints && self.exec.len() == self.text.len() {
            return;
        }
        self.synced_breakpoints = generation;
        let same = self.exec.len() == self.text.len()
            && self
                .breakpoints
                .addresses()
                .eq(self.exec_breakpoints.iter().copied());
        if !same {
            self.rebuild_exec();
        }
    }

    pub(super) fn rebuild_exec(&mut self) {
        self.exec.clone_from(&self.text);
        self.exec_breakpoints = self.breakpoints.addresses().collect();
        for &addr in &self.exec_breakpoints {
            let Some(off) = addr.checked_sub(TEXT_BASE as u64) else {
                continue;
            };
            if off & 3 == 0 {
                if let Some(slot) = self.exec.get_mut((off >> 2) as usize) {
                    *slot = Instruction::DebugStop;
                }
            }
        }
    }

    /// Words of code loaded (or patched) in the text segment that holds `addr`.
    pub fn text_len(&self, addr: u32) -> usize {
        if in_ktext(addr) {
            self.ktext.len()
        } else {
            self.text.len()
        }
    }

    /// The instruction word at a text address, if an instruction is there.
    pub fn text_word(&self, addr: u32) -> Option<u32> {
        if addr & 3 != 0 {
            return None;
        }
        let (code, words, idx) = if in_text(addr) {
            (
                &self.text,
                &self.text_words,
                ((addr - TEXT_BASE) >> 2) as usize,
            )
        } else if in_ktext(addr) {
            (
                &self.ktext,
                &self.ktext_words,
                ((addr - KTEXT_BASE) >> 2) as usize,
            )
        } else {
            return None;
        };
        match code.get(idx) {
            Some(Instruction::Empty) | None => None,
            Some(_) => words.get(idx).copied(),
        }
    }

    /// The decoded instruction at a text address (`Empty` where there is none).
    pub fn instruction_at(&self, addr: u32) -> Option<Instruction> {
        self.text_word(addr).map(decode)
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
            if let Some(&instr) = self.exec.get(idx) {
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
            if let Some(&instr) = self.text.get(idx) {
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
