//! An assembled SimpleRISC program: one slot per instruction (slot i at code address 4·i),
//! where execution starts, and what the assembler knew (labels, the line of every slot).

use asmdbg_core::{DebugInfo, Diagnostics};

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
    /// A line the course interpreter counts as an instruction that holds none: a comment or
    /// blank-space line, or a label's line with a comment after the colon. Nothing happens
    /// when it runs, but it has a code address, so return addresses after it count it.
    Empty,
    /// A line that does not assemble (or branches to no label), kept because the course
    /// interpreter checks a line only when it runs: reaching it is a fault with the
    /// interpreter's `message`. Dead code with a typo runs to the end, as there.
    Reject {
        message: String,
        /// A `beq`/`bgt` to an unknown label faults only when taken (the interpreter looks
        /// the label up then); anything else whenever it runs.
        only_if: Option<BranchCondition>,
    },
}

/// The flag a conditional branch tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BranchCondition {
    /// `beq`: flags.E.
    Equal,
    /// `bgt`: flags.GT.
    Greater,
}

/// The word gdb and the ELF see for a [`Slot::Reject`]: no instruction encodes it.
pub const REJECT_WORD: u32 = 0xffff_ffff;

#[derive(Debug, Clone, Default)]
pub struct Program {
    pub slots: Vec<Slot>,
    /// The slot of `.main` (or `main`), else 0.
    pub entry: u32,
    /// Labels (code byte addresses, as written, kind Code) and the source line of every slot.
    pub debug: DebugInfo,
    /// What the assembler warns about (lines kept as [`Slot::Reject`]).
    pub warnings: Diagnostics,
}

impl Program {
    /// A program of raw code words, without source (tests, fuzzing).
    pub fn from_words(words: &[u32]) -> Program {
        Program {
            slots: words.iter().map(|&w| Slot::Word(w)).collect(),
            entry: 0,
            ..Program::default()
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
