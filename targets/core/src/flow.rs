//! Where control goes after an instruction, as each ISA's decoder answers it
//! (`Instruction::flow`). The ELF writer finds functions (call targets) and follows frames
//! (successors) from this answer alone, so no writer knows an opcode number.
//!
//! Targets are addresses in the ISA's own (native) units; `None` when the target is computed
//! at run time (a register, a trap vector). Delay slots are not modelled here: the machine's
//! delay-slot rule and gdb's are separate facts of the ISA that has them.

/// What an instruction does to the program counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Flow {
    /// Always continues with the next instruction.
    Next,
    /// A conditional branch: to `target` or on to the next instruction.
    Branch { target: u64 },
    /// An unconditional jump that does not link.
    Jump { target: Option<u64> },
    /// A subroutine call (links a return address); execution resumes after it. Conditional
    /// calls (MIPS `bgezal`) are calls too.
    Call { target: Option<u64> },
    /// Returns to the caller (or from an exception).
    Return,
    /// Execution does not go on: halt, or an instruction the machine rejects.
    Stop,
}

impl Flow {
    /// Whether the instruction may leave the sequential path (branch, jump, call or return).
    pub fn transfers(self) -> bool {
        !matches!(self, Flow::Next | Flow::Stop)
    }

    /// The same flow with every known target passed through `f` (native to gdb addresses).
    pub fn map_targets(self, f: impl Fn(u64) -> u64) -> Flow {
        match self {
            Flow::Branch { target } => Flow::Branch { target: f(target) },
            Flow::Jump { target } => Flow::Jump {
                target: target.map(&f),
            },
            Flow::Call { target } => Flow::Call {
                target: target.map(&f),
            },
            other => other,
        }
    }

    /// Where control can be next within the same function, given the address of the next
    /// instruction: calls return, returns and stops leave it.
    pub fn successors(self, next: u64) -> Vec<u64> {
        match self {
            Flow::Next | Flow::Call { .. } => vec![next],
            Flow::Branch { target } => vec![next, target],
            Flow::Jump { target } => target.into_iter().collect(),
            Flow::Return | Flow::Stop => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn successors_and_mapping() {
        assert_eq!(Flow::Next.successors(4), [4]);
        assert_eq!(Flow::Branch { target: 20 }.successors(4), [4, 20]);
        assert_eq!(Flow::Jump { target: Some(8) }.successors(4), [8]);
        assert!(Flow::Jump { target: None }.successors(4).is_empty());
        assert_eq!(Flow::Call { target: Some(40) }.successors(4), [4]);
        assert!(Flow::Return.successors(4).is_empty());
        assert!(Flow::Stop.successors(4).is_empty());
        assert!(Flow::Return.transfers() && !Flow::Stop.transfers() && !Flow::Next.transfers());
        assert_eq!(
            Flow::Call { target: Some(3) }.map_targets(|a| 2 * a),
            Flow::Call { target: Some(6) }
        );
        assert_eq!(
            Flow::Branch { target: 3 }.map_targets(|a| a + 1),
            Flow::Branch { target: 4 }
        );
    }
}
