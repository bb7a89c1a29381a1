//! The one LC-3 decoder: the cpu executes what [`decode`] returns, and [`disassemble`] (used by
//! `Machine::disassemble` and `monitor disas`) prints the same value, so the two cannot disagree.
//!
//! Encodings with a fixed field that is not the canonical value (x1018: an ADD with bits 4:3 =
//! 01) decode as [`Instruction::Illegal`]: both reference simulators reject them (isa-specs A.3).

use asmdbg_core::{Flow, SymbolTable};

/// One decoded instruction. Offsets are already sign-extended; registers are 0..=7.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Instruction {
    AddReg {
        dr: u8,
        sr1: u8,
        sr2: u8,
    },
    AddImm {
        dr: u8,
        sr1: u8,
        imm: i16,
    },
    AndReg {
        dr: u8,
        sr1: u8,
        sr2: u8,
    },
    AndImm {
        dr: u8,
        sr1: u8,
        imm: i16,
    },
    Not {
        dr: u8,
        sr: u8,
    },
    /// `nzp` holds the n, z, p bits in positions 2, 1, 0 like the PSR; 0 never branches.
    Br {
        nzp: u8,
        offset: i16,
    },
    /// `base` 7 is RET.
    Jmp {
        base: u8,
    },
    Jsr {
        offset: i16,
    },
    Jsrr {
        base: u8,
    },
    Ld {
        dr: u8,
        offset: i16,
    },
    Ldi {
        dr: u8,
        offset: i16,
    },
    Ldr {
        dr: u8,
        base: u8,
        offset: i16,
    },
    Lea {
        dr: u8,
        offset: i16,
    },
    St {
        sr: u8,
        offset: i16,
    },
    Sti {
        sr: u8,
        offset: i16,
    },
    Str {
        sr: u8,
        base: u8,
        offset: i16,
    },
    Trap {
        vector: u8,
    },
    Rti,
    /// PennSim's `SUB` (an ADD with bits 4:3 = 10; [`decode_pennsim`] only).
    Sub {
        dr: u8,
        sr1: u8,
        sr2: u8,
    },
    /// PennSim's `MUL` (opcode 1101; [`decode_pennsim`] only).
    MulReg {
        dr: u8,
        sr1: u8,
        sr2: u8,
    },
    MulImm {
        dr: u8,
        sr1: u8,
        imm: i16,
    },
    /// PennSim's `JMPT` (a JMP with bit 0 set; `base` 7 is `RTT`): jumps and leaves supervisor
    /// mode ([`decode_pennsim`] only).
    Jmpt {
        base: u8,
    },
    /// Opcode 1101, which no LC-3 edition defines.
    Reserved,
    /// A defined opcode whose fixed bits are not the canonical ones.
    Illegal,
}

#[inline(always)]
fn sext(word: u16, bits: u32) -> i16 {
    let shift = 16 - bits;
    ((word << shift) as i16) >> shift
}

#[inline(always)]
fn reg(word: u16, lsb: u32) -> u8 {
    ((word >> lsb) & 7) as u8
}

/// ADD and AND: bit 5 picks the immediate form; the register form needs bits 4:3 clear.
#[inline(always)]
fn operate(
    word: u16,
    immediate: impl FnOnce(i16) -> Instruction,
    register: impl FnOnce(u8) -> Instruction,
) -> Instruction {
    if word & 0x20 != 0 {
        immediate(sext(word, 5))
    } else if word & 0x18 != 0 {
        Instruction::Illegal
    } else {
        register(reg(word, 0))
    }
}

/// Decodes one instruction word. Total: every word maps to some [`Instruction`].
#[inline(always)]
pub fn decode(word: u16) -> Instruction {
    let dr = reg(word, 9);
    let sr1 = reg(word, 6);
    match word >> 12 {
        0x1 => operate(
            word,
            |imm| Instruction::AddImm { dr, sr1, imm },
            |sr2| Instruction::AddReg { dr, sr1, sr2 },
        ),
        0x5 => operate(
            word,
            |imm| Instruction::AndImm { dr, sr1, imm },
            |sr2| Instruction::AndReg { dr, sr1, sr2 },
        ),
        0x9 => {
            if word & 0x3F == 0x3F {
                Instruction::Not { dr, sr: sr1 }
            } else {
                Instruction::Illegal
            }
        }
        0x0 => Instruction::Br {
            nzp: dr,
            offset: sext(word, 9),
        },
        0xC => {
            if word & 0x0E3F == 0 {
                Instruction::Jmp { base: sr1 }
            } else {
                Instruction::Illegal
            }
        }
        0x4 => {
            if word & 0x0800 != 0 {
                Instruction::Jsr {
                    offset: sext(word, 11),
                }
            } else if word & 0x063F == 0 {
                Instruction::Jsrr { base: sr1 }
            } else {
                Instruction::Illegal
            }
        }
        0x2 => Instruction::Ld {
            dr,
            offset: sext(word, 9),
        },
        0xA => Instruction::Ldi {
            dr,
            offset: sext(word, 9),
        },
        0x6 => Instruction::Ldr {
            dr,
            base: sr1,
            offset: sext(word, 6),
        },
        0xE => Instruction::Lea {
            dr,
            offset: sext(word, 9),
        },
        0x3 => Instruction::St {
            sr: dr,
            offset: sext(word, 9),
        },
        0xB => Instruction::Sti {
            sr: dr,
            offset: sext(word, 9),
        },
        0x7 => Instruction::Str {
            sr: dr,
            base: sr1,
            offset: sext(word, 6),
        },
        0xF => {
            if word & 0x0F00 == 0 {
                Instruction::Trap {
                    vector: (word & 0xFF) as u8,
                }
            } else {
                Instruction::Illegal
            }
        }
        0x8 => {
            if word & 0x0FFF == 0 {
                Instruction::Rti
            } else {
                Instruction::Illegal
            }
        }
        _ => Instruction::Reserved,
    }
}

/// Decodes one instruction word as PennSim 1.2.5's LC-3 does: its ISA adds `SUB`, `MUL`,
/// `JMPT` and `RTT`, and a word none of its patterns matches is undefined, the branch that never
/// branches (`BR` with no condition, x0000 among them) included.
pub fn decode_pennsim(word: u16) -> Instruction {
    let dr = reg(word, 9);
    let sr1 = reg(word, 6);
    match word >> 12 {
        0x1 if word & 0x38 == 0x10 => Instruction::Sub {
            dr,
            sr1,
            sr2: reg(word, 0),
        },
        0xD => operate(
            word,
            |imm| Instruction::MulImm { dr, sr1, imm },
            |sr2| Instruction::MulReg { dr, sr1, sr2 },
        ),
        0xC if word & 0x0E3F == 1 => Instruction::Jmpt { base: sr1 },
        0x0 if word & 0x0E00 == 0 => Instruction::Illegal,
        _ => decode(word),
    }
}

/// [`decode`], or [`decode_pennsim`] for PennSim's machine.
#[inline(always)]
pub fn decode_for(word: u16, pennsim: bool) -> Instruction {
    if pennsim {
        decode_pennsim(word)
    } else {
        decode(word)
    }
}

impl Instruction {
    /// Where control goes after this instruction at word address `addr` (targets are word
    /// addresses). `TRAP` calls the service routine its vector names (`None`: read from the
    /// vector table at run time), except `HALT`, which stops; `RTI` returns; opcodes the
    /// machine rejects stop it.
    pub fn flow(self, addr: u16) -> Flow {
        let next = addr.wrapping_add(1);
        let rel = |offset: i16| u64::from(next.wrapping_add(offset as u16));
        match self {
            Instruction::Br { nzp: 0, .. } => Flow::Next,
            Instruction::Br { nzp: 7, offset } => Flow::Jump {
                target: Some(rel(offset)),
            },
            Instruction::Br { offset, .. } => Flow::Branch {
                target: rel(offset),
            },
            Instruction::Jmp { base: 7 } | Instruction::Jmpt { base: 7 } | Instruction::Rti => {
                Flow::Return
            }
            Instruction::Jmp { .. } | Instruction::Jmpt { .. } => Flow::Jump { target: None },
            Instruction::Jsr { offset } => Flow::Call {
                target: Some(rel(offset)),
            },
            Instruction::Jsrr { .. } => Flow::Call { target: None },
            Instruction::Trap { vector: HALT } => Flow::Stop,
            Instruction::Trap { .. } => Flow::Call { target: None },
            Instruction::Reserved | Instruction::Illegal => Flow::Stop,
            _ => Flow::Next,
        }
    }
}

/// The `HALT` trap vector.
const HALT: u8 = 0x25;

/// The assembler's names for the standard trap vectors.
pub fn trap_name(vector: u8) -> Option<&'static str> {
    Some(match vector {
        0x20 => "GETC",
        0x21 => "OUT",
        0x22 => "PUTS",
        0x23 => "IN",
        0x24 => "PUTSP",
        0x25 => "HALT",
        _ => return None,
    })
}

/// The target of a PC-relative operand: a label at exactly that address when one is known,
/// else the address in LC-3 hex notation.
fn target(addr: u16, symbols: Option<&SymbolTable>) -> String {
    symbols
        .and_then(|s| s.at(addr as u64).next())
        .map(|s| s.name.clone())
        .unwrap_or_else(|| format!("x{addr:04X}"))
}

/// The instruction `word` at address `addr` in LC-3 assembly notation (`ADD R1, R1, #-1`,
/// `BRnz LOOP`, `LD R0, x3010`). Words that are not instructions print as `.FILL xNNNN`.
pub fn disassemble(word: u16, addr: u16, symbols: Option<&SymbolTable>) -> String {
    disassemble_instruction(decode(word), word, addr, symbols)
}

/// [`disassemble`] for the instruction [`decode_for`] gives.
pub fn disassemble_for(
    word: u16,
    addr: u16,
    symbols: Option<&SymbolTable>,
    pennsim: bool,
) -> String {
    disassemble_instruction(decode_for(word, pennsim), word, addr, symbols)
}

fn disassemble_instruction(
    instruction: Instruction,
    word: u16,
    addr: u16,
    symbols: Option<&SymbolTable>,
) -> String {
    let next = addr.wrapping_add(1);
    let rel = |offset: i16| target(next.wrapping_add(offset as u16), symbols);
    match instruction {
        Instruction::AddReg { dr, sr1, sr2 } => format!("ADD R{dr}, R{sr1}, R{sr2}"),
        Instruction::AddImm { dr, sr1, imm } => format!("ADD R{dr}, R{sr1}, #{imm}"),
        Instruction::AndReg { dr, sr1, sr2 } => format!("AND R{dr}, R{sr1}, R{sr2}"),
        Instruction::AndImm { dr, sr1, imm } => format!("AND R{dr}, R{sr1}, #{imm}"),
        Instruction::Not { dr, sr } => format!("NOT R{dr}, R{sr}"),
        Instruction::Br { nzp: 0, .. } => "NOP".to_string(),
        Instruction::Br { nzp, offset } => {
            let mut name = String::from("BR");
            for (bit, flag) in [(4, 'n'), (2, 'z'), (1, 'p')] {
                if nzp & bit != 0 {
                    name.push(flag);
                }
            }
            format!("{name} {}", rel(offset))
        }
        Instruction::Jmp { base: 7 } => "RET".to_string(),
        Instruction::Jmp { base } => format!("JMP R{base}"),
        Instruction::Jsr { offset } => format!("JSR {}", rel(offset)),
        Instruction::Jsrr { base } => format!("JSRR R{base}"),
        Instruction::Ld { dr, offset } => format!("LD R{dr}, {}", rel(offset)),
        Instruction::Ldi { dr, offset } => format!("LDI R{dr}, {}", rel(offset)),
        Instruction::Ldr { dr, base, offset } => format!("LDR R{dr}, R{base}, #{offset}"),
        Instruction::Lea { dr, offset } => format!("LEA R{dr}, {}", rel(offset)),
        Instruction::St { sr, offset } => format!("ST R{sr}, {}", rel(offset)),
        Instruction::Sti { sr, offset } => format!("STI R{sr}, {}", rel(offset)),
        Instruction::Str { sr, base, offset } => format!("STR R{sr}, R{base}, #{offset}"),
        Instruction::Trap { vector } => match trap_name(vector) {
            Some(name) => name.to_string(),
            None => format!("TRAP x{vector:02X}"),
        },
        Instruction::Rti => "RTI".to_string(),
        Instruction::Sub { dr, sr1, sr2 } => format!("SUB R{dr}, R{sr1}, R{sr2}"),
        Instruction::MulReg { dr, sr1, sr2 } => format!("MUL R{dr}, R{sr1}, R{sr2}"),
        Instruction::MulImm { dr, sr1, imm } => format!("MUL R{dr}, R{sr1}, #{imm}"),
        Instruction::Jmpt { base: 7 } => "RTT".to_string(),
        Instruction::Jmpt { base } => format!("JMPT R{base}"),
        Instruction::Reserved | Instruction::Illegal => format!(".FILL x{word:04X}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use asmdbg_core::{Symbol, SymbolKind};

    fn dis(word: u16, addr: u16) -> String {
        disassemble(word, addr, None)
    }

    #[test]
    fn add_and_and_both_forms() {
        assert_eq!(
            decode(0x127F),
            Instruction::AddImm {
                dr: 1,
                sr1: 1,
                imm: -1
            }
        );
        assert_eq!(dis(0x127F, 0x3000), "ADD R1, R1, #-1");
        assert_eq!(
            decode(0x1042),
            Instruction::AddReg {
                dr: 0,
                sr1: 1,
                sr2: 2
            }
        );
        assert_eq!(dis(0x1042, 0x3000), "ADD R0, R1, R2");
        assert_eq!(
            decode(0x5260),
            Instruction::AndImm {
                dr: 1,
                sr1: 1,
                imm: 0
            }
        );
        assert_eq!(dis(0x5DAF, 0), "AND R6, R6, #15");
        assert_eq!(dis(0x5A85, 0), "AND R5, R2, R5");
    }

    #[test]
    fn non_canonical_register_forms_are_illegal() {
        assert_eq!(decode(0x1018), Instruction::Illegal);
        assert_eq!(decode(0x5008), Instruction::Illegal);
        assert_eq!(dis(0x1018, 0x3013), ".FILL x1018");
        assert_eq!(decode(0x923E), Instruction::Illegal);
        assert_eq!(decode(0xC1C1), Instruction::Illegal);
        assert_eq!(decode(0xC3C0), Instruction::Illegal);
        assert_eq!(decode(0x4240), Instruction::Illegal);
        assert_eq!(decode(0xF125), Instruction::Illegal);
        assert_eq!(decode(0x8001), Instruction::Illegal);
    }

    #[test]
    fn not() {
        assert_eq!(decode(0x927F), Instruction::Not { dr: 1, sr: 1 });
        assert_eq!(dis(0x96BF, 0), "NOT R3, R2");
    }

    #[test]
    fn branches_with_targets_and_labels() {
        assert_eq!(decode(0x0BFE), Instruction::Br { nzp: 5, offset: -2 });
        assert_eq!(dis(0x0BFE, 0x3005), "BRnp x3004");
        assert_eq!(dis(0x0C01, 0x3000), "BRnz x3002");
        assert_eq!(dis(0x0E00, 0x3000), "BRnzp x3001");
        assert_eq!(dis(0x0000, 0x3000), "NOP");
        assert_eq!(dis(0x03FF, 0x3100), "BRp x3100");
        let mut symbols = SymbolTable::new(true);
        symbols
            .insert(Symbol {
                name: "LOOP".into(),
                addr: 0x3004,
                kind: SymbolKind::Code,
                global: false,
            })
            .unwrap();
        assert_eq!(disassemble(0x0BFE, 0x3005, Some(&symbols)), "BRnp LOOP");
        assert_eq!(disassemble(0x0BFF, 0x3005, Some(&symbols)), "BRnp x3005");
    }

    #[test]
    fn jumps_and_subroutines() {
        assert_eq!(decode(0xC1C0), Instruction::Jmp { base: 7 });
        assert_eq!(dis(0xC1C0, 0), "RET");
        assert_eq!(dis(0xC080, 0), "JMP R2");
        assert_eq!(decode(0x4FFF), Instruction::Jsr { offset: -1 });
        assert_eq!(dis(0x4802, 0x3000), "JSR x3003");
        assert_eq!(decode(0x4140), Instruction::Jsrr { base: 5 });
        assert_eq!(dis(0x4140, 0), "JSRR R5");
    }

    #[test]
    fn loads_and_stores() {
        assert_eq!(dis(0x200F, 0x3000), "LD R0, x3010");
        assert_eq!(
            decode(0x2200 | 0x1FF),
            Instruction::Ld { dr: 1, offset: -1 }
        );
        assert_eq!(dis(0xA402, 0x3000), "LDI R2, x3003");
        assert_eq!(
            decode(0x6A7F),
            Instruction::Ldr {
                dr: 5,
                base: 1,
                offset: -1
            }
        );
        assert_eq!(dis(0x6A7F, 0), "LDR R5, R1, #-1");
        assert_eq!(dis(0xE5FE, 0x3002), "LEA R2, x3001");
        assert_eq!(dis(0x3001, 0x3000), "ST R0, x3002");
        assert_eq!(dis(0xB7FF, 0x3000), "STI R3, x3000");
        assert_eq!(
            decode(0x7B5F),
            Instruction::Str {
                sr: 5,
                base: 5,
                offset: 31
            }
        );
        assert_eq!(dis(0x7940, 0), "STR R4, R5, #0");
    }

    #[test]
    fn traps_rti_and_reserved() {
        assert_eq!(decode(0xF025), Instruction::Trap { vector: 0x25 });
        assert_eq!(dis(0xF025, 0), "HALT");
        assert_eq!(dis(0xF020, 0), "GETC");
        assert_eq!(dis(0xF021, 0), "OUT");
        assert_eq!(dis(0xF022, 0), "PUTS");
        assert_eq!(dis(0xF023, 0), "IN");
        assert_eq!(dis(0xF024, 0), "PUTSP");
        assert_eq!(dis(0xF026, 0), "TRAP x26");
        assert_eq!(decode(0x8000), Instruction::Rti);
        assert_eq!(dis(0x8000, 0), "RTI");
        assert_eq!(decode(0xD000), Instruction::Reserved);
        assert_eq!(dis(0xD123, 0), ".FILL xD123");
    }

    #[test]
    fn flow_of_branches_calls_returns_and_halt() {
        let flow = |word: u16, addr: u16| decode(word).flow(addr);
        // BRz #-2 at x3005: conditional, to x3004; BRnzp #3: a jump; BR with no bits: next.
        assert_eq!(flow(0x05FE, 0x3005), Flow::Branch { target: 0x3004 });
        assert_eq!(
            flow(0x0E03, 0x3000),
            Flow::Jump {
                target: Some(0x3004)
            }
        );
        assert_eq!(flow(0x0003, 0x3000), Flow::Next);
        // JSR #16 at x3000 calls x3011; JSRR R2 calls what R2 holds.
        assert_eq!(
            flow(0x4810, 0x3000),
            Flow::Call {
                target: Some(0x3011)
            }
        );
        assert_eq!(flow(0x4080, 0x3000), Flow::Call { target: None });
        // RET, RTI return; JMP R3 jumps somewhere unknown.
        assert_eq!(flow(0xC1C0, 0x3000), Flow::Return);
        assert_eq!(flow(0x8000, 0x3000), Flow::Return);
        assert_eq!(flow(0xC0C0, 0x3000), Flow::Jump { target: None });
        // HALT stops; OUT calls its service routine; reserved and illegal words stop.
        assert_eq!(flow(0xF025, 0x3000), Flow::Stop);
        assert_eq!(flow(0xF021, 0x3000), Flow::Call { target: None });
        assert_eq!(flow(0xD000, 0x3000), Flow::Stop);
        assert_eq!(flow(0x1018, 0x3000), Flow::Stop);
        assert_eq!(flow(0x1021, 0x3000), Flow::Next);
        // Targets wrap around the top of memory.
        assert_eq!(flow(0x0E01, 0xFFFF), Flow::Jump { target: Some(1) });
    }

    #[test]
    fn every_word_decodes_and_disassembles() {
        for word in 0..=u16::MAX {
            let text = disassemble(word, word, None);
            assert!(!text.is_empty());
        }
    }
}
