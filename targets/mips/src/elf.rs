//! The MIPS program as an ELF file for gdb-multiarch and VS Code (`asmdbg asm -o game.elf`).
//!
//! `EM_MIPS`, ELF32 little endian, `.text`/`.ktext` executable and `.data`/`.kdata`/`.extern`
//! non-executable at their MARS addresses, `.symtab` with every label, `.debug_line`, a
//! `.debug_info` compile unit per source file given to the assembler (with the files it
//! `.include`s), and a typed `DW_TAG_variable` per data label.
//!
//! gdb's MIPS port assumes branch delay slots: it moves a breakpoint that follows a branch onto
//! the branch, unless the breakpoint is at the start of the function that
//! `find_pc_partial_function` returns, which for a DWARF function with several ranges is the
//! start of the range holding the pc. MARS runs without delay slots by default, so (a recipe
//! measured against gdb-multiarch 13.1):
//!
//! 1. functions are the entry, every call target (`jal`, `bgezal`, `bltzal`: the decoder's
//!    [`Instruction::flow`]), every text label whose address is loaded
//!    (`la` = `lui`+`ori`/`addiu`, possible `jalr` targets), every `.globl` text label and the
//!    start of every code section; each runs to the next function or the section end;
//! 2. each is an `STT_FUNC` with its size, and a `DW_TAG_subprogram` whose `DW_AT_ranges` are
//!    split after every instruction that gdb thinks has a delay slot
//!    ([`gdb_assumes_delay_slot`], gdb's rule and not the machine's, applied to every word);
//! 3. `.debug_frame` describes each function's frame: `$sp` adjustments, `$ra` saved and
//!    reloaded, `$fp` frames, followed along fall-through and branch edges (a worklist), so the
//!    DWARF unwinder (and not the MIPS prologue scanner, which starts at the range start) finds
//!    the caller: `next` over `jal`, `finish` and `bt` work in non-leaf functions.
//!
//! With delay slots (`--delay-slots`) gdb's assumption holds: the ranges are not split (a
//! breakpoint in a delay slot belongs on its branch), but the functions and CFI are kept.
//!
//! Data labels are typed by the directive the assembler recorded for them (`.word` int,
//! `.half` short, `.byte` byte, `.float`/`.double`, `.ascii`/`.asciiz` a `char` array up to the
//! NUL, so `print msg` shows the string) and are also listed inside every function, for VS
//! Code's Locals.
//!
//! Verified against `asmdbg debug` (gdb-multiarch 13.1): `next` over `jal`/`jalr`, `step`,
//! three-level `bt`, two `finish`es, breakpoints after `bne`/`beq`/`jal`/`jalr` on their
//! lines, `watch count` set in a callee firing in `main`, and the cppdbg MI sequence
//! (`breakpoint-hit`, `function-finished`, `watchpoint-trigger` with old/new values).
//! Not recognised: `$ra` moved to another register, computed `$sp`, jump tables of functions
//! (`.word f1, f2`) — such frames unwind as a leaf or not at all.
//!
//! The build sequence itself is core's [`build_image`]; this file gives only MIPS's facts
//! ([`MipsElf`]) and the extra function starts above.

use asmdbg_core::elf::{
    build_image, write_elf, BaseType, CfaOp, ElfError, ElfImage, ElfIsa, FrameCie, ImageFacts,
    ImageRun, TypeEncoding, VarType, EM_MIPS,
};
use asmdbg_core::{DataDirective, DataItem, Flow};

pub use crate::decode::gdb_assumes_delay_slot;
use crate::decode::{decode, Instruction};
use crate::program::{ChunkKind, Program};

/// `EF_MIPS_ARCH_32 | E_MIPS_ABI_O32`, what gas writes for `-march=mips32`.
pub const MIPS_E_FLAGS: u32 = 0x5000_1000;

const SP: u8 = 29;
const FP: u8 = 30;
const RA: u8 = 31;

/// The ELF file (ELF32 LE, `EM_MIPS`, DWARF) for an assembled program. `delay_slots` is the
/// machine's `--delay-slots` mode.
pub fn elf_from_program(program: &Program, delay_slots: bool) -> Result<Vec<u8>, ElfError> {
    write_elf(&elf_image(program, delay_slots))
}

/// The frame state before an instruction: CFA = `reg` + `off`; `$ra` saved at CFA + `ra`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MipsFrame {
    reg: u8,
    off: i32,
    ra: Option<i32>,
}

/// MIPS's facts for core's ELF build. `delay_slots` is the machine's mode: with it, frames
/// follow the delay slots and gdb's assumption holds, so ranges are not split.
#[derive(Debug, Clone, Copy, Default)]
pub struct MipsElf {
    pub delay_slots: bool,
}

impl ElfIsa for MipsElf {
    type Instruction = Instruction;
    type Frame = MipsFrame;
    const INSN_BYTES: u64 = 4;

    fn machine(&self) -> u16 {
        EM_MIPS
    }

    fn e_flags(&self) -> u32 {
        MIPS_E_FLAGS
    }

    fn producer(&self) -> &'static str {
        "asmdbg MIPS assembler (MARS 4.5 dialect)"
    }

    fn gdb_helpers(&self) -> (&'static str, &'static str) {
        ("mips", "")
    }

    fn gdb_addr(&self, native: u64) -> Option<u64> {
        Some(native)
    }

    fn decode(&self, bytes: &[u8]) -> Instruction {
        decode(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }

    fn flow(&self, insn: &Instruction, addr: u64) -> Flow {
        insn.flow(addr as u32)
    }

    fn machine_delay_slot(&self, insn: &Instruction) -> bool {
        self.delay_slots && insn.has_delay_slot()
    }

    fn gdb_assumes_delay_slot(&self, insn: &Instruction) -> bool {
        // With delay slots gdb is right: a breakpoint in a slot belongs on its branch.
        !self.delay_slots && gdb_assumes_delay_slot(insn)
    }

    fn loaded_address(&self, first: &Instruction, second: &Instruction, _addr: u64) -> Option<u64> {
        let Instruction::Lui { rt: high, imm } = *first else {
            return None;
        };
        let hi = u32::from(imm) << 16;
        let value = match *second {
            Instruction::Ori { rs, imm: lo, .. } if rs == high => hi | u32::from(lo),
            Instruction::Addiu { rs, imm: lo, .. } if rs == high => {
                hi.wrapping_add(lo as i32 as u32)
            }
            _ => return None,
        };
        Some(u64::from(value))
    }

    fn names_unlabelled_functions(&self) -> bool {
        // gdb's MIPS port scans prologues from a function's start; without a function it
        // guesses, so every function gets one.
        true
    }

    fn types(&self) -> Vec<BaseType> {
        vec![
            BaseType::new("int", 4, TypeEncoding::Signed),
            BaseType::new("short", 2, TypeEncoding::Signed),
            BaseType::new("byte", 1, TypeEncoding::Signed),
            BaseType::new("char", 1, TypeEncoding::Char),
            BaseType::new("float", 4, TypeEncoding::Float),
            BaseType::new("double", 8, TypeEncoding::Float),
        ]
    }

    fn variable_type(&self, item: Option<&DataItem>) -> VarType {
        match item.map(|i| i.directive) {
            Some(DataDirective::Half) => VarType::Scalar(1),
            Some(DataDirective::Byte) => VarType::Scalar(2),
            Some(DataDirective::Ascii | DataDirective::Asciiz) => VarType::String(3),
            Some(DataDirective::Float) => VarType::Scalar(4),
            Some(DataDirective::Double) => VarType::Scalar(5),
            _ => VarType::Scalar(0),
        }
    }

    fn frame_cie(&self) -> FrameCie {
        FrameCie::at_call(4, -4, u16::from(SP), u16::from(RA))
    }

    fn entry_frame(&self) -> MipsFrame {
        MipsFrame {
            reg: SP,
            off: 0,
            ra: None,
        }
    }

    /// `$sp` adjustments, `$fp` frames (`addiu $fp, $sp, n`, `move $fp, $sp` and back), `$ra`
    /// saved by `sw` and reloaded by `lw`.
    fn frame_after(&self, frame: MipsFrame, insn: &Instruction, _addr: u64) -> MipsFrame {
        let mut s = frame;
        match *insn {
            Instruction::Addi { rt, rs, imm } | Instruction::Addiu { rt, rs, imm } => {
                let imm = i32::from(imm);
                match (rt, rs) {
                    (SP, SP) if s.reg == SP => s.off = s.off.wrapping_sub(imm),
                    (FP, SP) if s.reg == SP => {
                        s.reg = FP;
                        s.off = s.off.wrapping_sub(imm);
                    }
                    (SP, FP) if s.reg == FP => {
                        s.reg = SP;
                        s.off = s.off.wrapping_sub(imm);
                    }
                    _ => {}
                }
            }
            // move rd, rs (addu/or with $zero)
            Instruction::Addu { rd, rs, rt } | Instruction::Or { rd, rs, rt }
                if rt == 0 || rs == 0 =>
            {
                let src = if rt == 0 { rs } else { rt };
                match (rd, src) {
                    (FP, SP) if s.reg == SP => s.reg = FP,
                    (SP, FP) if s.reg == FP => s.reg = SP,
                    _ => {}
                }
            }
            Instruction::Sw { rt: RA, base, off } if base == s.reg => {
                let at = i32::from(off).wrapping_sub(s.off);
                if at % 4 == 0 {
                    s.ra = Some(at);
                }
            }
            Instruction::Lw { rt: RA, .. } => s.ra = None,
            _ => {}
        }
        s
    }

    fn cfa_change(&self, before: MipsFrame, after: MipsFrame) -> Option<CfaOp> {
        let reg = u16::from(after.reg);
        match (before.reg != after.reg, before.off != after.off) {
            (true, true) => Some(CfaOp::DefCfa(reg, after.off)),
            (true, false) => Some(CfaOp::DefCfaRegister(reg)),
            (false, true) => Some(CfaOp::DefCfaOffset(after.off)),
            (false, false) => None,
        }
    }

    fn ra_change(&self, before: MipsFrame, after: MipsFrame) -> Option<CfaOp> {
        (before.ra != after.ra).then(|| match after.ra {
            Some(k) => CfaOp::Offset(u16::from(RA), k),
            None => CfaOp::Restore(u16::from(RA)),
        })
    }
}

/// The function starts MIPS adds to the entry, the call targets and the loaded code labels:
/// `main`, every `.globl` text label, and the start of every code chunk.
fn extra_function_starts(program: &Program) -> Vec<u64> {
    let mut starts: Vec<u64> = program
        .chunks
        .iter()
        .filter(|c| c.kind.is_code() && !c.bytes.is_empty())
        .map(|c| u64::from(c.addr))
        .collect();
    starts.extend(program.main.map(u64::from));
    starts.extend(
        program
            .debug
            .symbols
            .iter()
            .filter(|s| s.global)
            .map(|s| s.addr),
    );
    starts
}

/// The image [`elf_from_program`] writes.
pub fn elf_image(program: &Program, delay_slots: bool) -> ElfImage {
    let runs = program
        .chunks
        .iter()
        .map(|chunk| ImageRun {
            base: match chunk.kind {
                ChunkKind::Text => ".text",
                ChunkKind::KText => ".ktext",
                ChunkKind::Data => ".data",
                ChunkKind::KData => ".kdata",
                ChunkKind::Extern => ".extern",
            },
            addr: u64::from(chunk.addr),
            data: chunk.bytes.clone(),
            exec: chunk.kind.is_code(),
        })
        .collect();
    let mut image = build_image(
        &MipsElf { delay_slots },
        ImageFacts {
            info: &program.debug,
            runs,
            entry: u64::from(program.text_start),
            extra_function_starts: extra_function_starts(program),
        },
    );
    // A compile unit per file of a program of several files: core splits the line table, the
    // functions and the variables by where each file's lines lie.
    image.debug.unit_starts = program.files.iter().skip(1).map(|f| f.0 as usize).collect();
    image
}
