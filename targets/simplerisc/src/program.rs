//! An assembled SimpleRISC program: one slot per instruction (slot i at code address 4·i),
//! where execution starts, and what the assembler knew (labels, the line of every slot).

use asmdbg_core::DebugInfo;

/// One instruction slot. `.print` and `.encode` take a slot like an instruction (the course
/// interpreter counts them: in the encode probe `beq .main` at slot 28 encodes offset -28).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Slot {
    /// A machine instruction.
    Word(u32),
    /// `.print r1, sp`: the registers to print, in order.
    Print(Vec<u8>),
    /// `.encode INSN`: the text as written and the word it encodes to. Prints
    /// `<text>: 0x%08x` when reached; does not execute the instruction.
    Encode { text: String, word: u32 },
}

#[derive(Debug, Clone, Default)]
pub struct Program {
    pub slots: Vec<Slot>,
    /// The slot of `.main` (or `main`), else 0.
    pub entry: u32,
    /// Labels (code byte addresses, as written, kind Code) and the source line of every slot.
    pub debug: DebugInfo,
}

impl Program {
    /// A program of raw code words, without source (tests, fuzzing).
    pub fn from_words(words: &[u32]) -> Program {
        Program {
            slots: words.iter().map(|&w| Slot::Word(w)).collect(),
            entry: 0,
            debug: DebugInfo::default(),
        }
    }

    /// The code words; pseudo-instructions give `None`.
    pub fn word(&self, index: usize) -> Option<u32> {
        match self.slots.get(index)? {
            Slot::Word(w) => Some(*w),
            _ => None,
        }
    }
}
