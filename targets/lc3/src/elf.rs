//! The LC-3 program as an ELF file for gdb-multiarch and VS Code (`asmdbg asm -o game.elf`).
//!
//! gdb sees LC-3 memory at byte address 2 × word address, each word little endian (the gdb stub
//! serves memory that way), so the sections, symbols and line rows here use those addresses.
//! `e_machine` is `EM_NONE`: gdb takes the architecture from the stub's target description.
//!
//! - Words the assembler recorded as written by `.FILL`, `.BLKW` or `.STRINGZ` (its data items
//!   in [`asmdbg_core::DebugInfo`]) go to non-executable `.data` sections, everything else to
//!   `.text` sections (one section per contiguous run).
//! - The entry and every call target (`JSR`, from [`Instruction::flow`]) are functions: `STT_FUNC` with the size up to the next
//!   function or the end of the code run, named by their label, and a `DW_TAG_subprogram`
//!   (gdb's `next` only recognises a call when the DWARF function changes). Other code labels
//!   are `STT_NOTYPE`.
//! - `.debug_frame` per function, in gdb's ARM register numbers (sp = R6, lr = 2 × R7):
//!   `ADD R6, R6, #n` moves the CFA, `STR R7, R6, #k` and `ST R7, LABEL` save the return
//!   address (a `DW_CFA_val_expression` reading the saved word and doubling it), `LD`/`LDR`/
//!   `LDI R7` restore it, followed along branches; the entry is the outermost frame. So `bt`
//!   and `finish` work through nested subroutines (verified against `asmdbg debug` on
//!   connect4.asm: four frames, two `finish`es, `watch CURRENT_PLAYER`). Frames kept some
//!   other way (R5 frame pointers, R7 copied to another register) unwind one level, as before.
//! - Data labels are `STT_OBJECT` symbols and DWARF variables of the 2-byte base type `word`
//!   (also listed inside every function, for VS Code's Locals), so `print LABEL` and
//!   `watch LABEL` need no cast.
//!
//! Not found as functions: subroutines only reached through `JSRR` (their address loaded by
//! `LEA`/`.FILL`); they stay plain labels inside the function before them.
//!
//! The build sequence itself is core's [`build_image`]; this file gives only LC-3's facts
//! ([`Lc3Elf`]).

use asmdbg_core::elf::{
    build_image, write_elf, BaseType, CfaOp, ElfError, ElfImage, ElfIsa, FrameCie, ImageFacts,
    ImageRun, TypeEncoding, EM_NONE,
};
use asmdbg_core::Flow;

use crate::decode::{decode, Instruction};
use crate::program::Program;

/// gdb's address of LC-3 word address `addr`.
pub const fn gdb_addr(addr: u16) -> u64 {
    2 * addr as u64
}

/// The ELF file (ELF32 LE, `EM_NONE`, DWARF) for an assembled program.
pub fn elf_from_program(program: &Program) -> Result<Vec<u8>, ElfError> {
    write_elf(&elf_image(program))
}

/// gdb's ARM register numbers the LC-3 stub maps: sp = R6, lr = 2 × R7.
const SP: u16 = 13;
const LR: u16 = 14;

/// Where the caller's return address (R7) is, before an instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SavedR7 {
    /// Still in R7 (gdb's lr).
    InR7,
    /// At word address CFA + k (`STR R7, R6, #n` after the stack adjustments).
    Stack(i32),
    /// At a fixed word address (`ST R7, SAVE_R7`).
    Fixed(u16),
}

/// The frame before an instruction: CFA = R6 + `off` (words, as gdb's sp is R6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lc3Frame {
    off: i32,
    r7: SavedR7,
}

/// LC-3's facts for core's ELF build: word addresses doubled, 2-byte little-endian words,
/// R6 as the stack pointer and R7 as the link register.
#[derive(Debug, Clone, Copy, Default)]
pub struct Lc3Elf;

impl ElfIsa for Lc3Elf {
    type Instruction = Instruction;
    type Frame = Lc3Frame;
    const INSN_BYTES: u64 = 2;

    fn machine(&self) -> u16 {
        EM_NONE
    }

    fn producer(&self) -> &'static str {
        "asmdbg LC-3 assembler"
    }

    fn gdb_addr(&self, native: u64) -> Option<u64> {
        u16::try_from(native).ok().map(gdb_addr)
    }

    fn decode(&self, bytes: &[u8]) -> Instruction {
        decode(u16::from_le_bytes([bytes[0], bytes[1]]))
    }

    fn flow(&self, insn: &Instruction, addr: u64) -> Flow {
        insn.flow((addr / 2) as u16).map_targets(|t| 2 * t)
    }

    /// Every LC-3 datum is a `word` (the default variable type): a `.STRINGZ` label prints its
    /// first character's code, as the LC-3 tools show memory.
    fn types(&self) -> Vec<BaseType> {
        vec![BaseType::new("word", 2, TypeEncoding::Signed)]
    }

    fn frame_cie(&self) -> FrameCie {
        FrameCie::at_call(2, -1, SP, LR)
    }

    fn entry_frame(&self) -> Lc3Frame {
        Lc3Frame {
            off: 0,
            r7: SavedR7::InR7,
        }
    }

    fn frame_after(&self, frame: Lc3Frame, insn: &Instruction, addr: u64) -> Lc3Frame {
        let mut st = frame;
        let word_addr = (addr / 2) as u16;
        match *insn {
            Instruction::AddImm { dr: 6, sr1: 6, imm } => st.off -= i32::from(imm),
            Instruction::Str {
                sr: 7,
                base: 6,
                offset,
            } => st.r7 = SavedR7::Stack(i32::from(offset) - st.off),
            Instruction::St { sr: 7, offset } => {
                st.r7 = SavedR7::Fixed(word_addr.wrapping_add(1).wrapping_add(offset as u16));
            }
            Instruction::Ld { dr: 7, .. }
            | Instruction::Ldr { dr: 7, .. }
            | Instruction::Ldi { dr: 7, .. } => st.r7 = SavedR7::InR7,
            _ => {}
        }
        st
    }

    fn cfa_change(&self, before: Lc3Frame, after: Lc3Frame) -> Option<CfaOp> {
        (before.off != after.off).then_some(CfaOp::DefCfaOffset(after.off))
    }

    fn ra_change(&self, before: Lc3Frame, after: Lc3Frame) -> Option<CfaOp> {
        // The saved word is a word address; gdb's lr is a byte address: double both.
        let load = |from_cfa, offset| CfaOp::ValLoad {
            reg: LR,
            from_cfa,
            offset,
            addr_scale: 2,
            size: 2,
            value_scale: 2,
            value_add: 0,
        };
        (before.r7 != after.r7).then(|| match after.r7 {
            SavedR7::InR7 => CfaOp::Restore(LR),
            SavedR7::Stack(k) => load(true, i64::from(k)),
            SavedR7::Fixed(a) => load(false, i64::from(a)),
        })
    }
}

/// The image [`elf_from_program`] writes.
pub fn elf_image(program: &Program) -> ElfImage {
    let data = &program.debug.data;
    // Runs of words of one kind (code or data) within a segment.
    let mut runs: Vec<ImageRun> = Vec::new();
    for seg in &program.segments {
        let mut current: Option<ImageRun> = None;
        for (i, &value) in seg.words.iter().enumerate() {
            let Ok(addr) = u16::try_from(usize::from(seg.origin) + i) else {
                break; // past the top of memory: the assembler reports it
            };
            let exec = !data.is_data(u64::from(addr));
            match &mut current {
                Some(run) if run.exec == exec => run.data.extend(value.to_le_bytes()),
                _ => {
                    runs.extend(current.take());
                    current = Some(ImageRun {
                        base: if exec { ".text" } else { ".data" },
                        addr: gdb_addr(addr),
                        data: value.to_le_bytes().to_vec(),
                        exec,
                    });
                }
            }
        }
        runs.extend(current);
    }
    build_image(
        &Lc3Elf,
        ImageFacts {
            info: &program.debug,
            runs,
            entry: program.entry().map_or(0, gdb_addr),
            extra_function_starts: Vec::new(),
        },
    )
}
