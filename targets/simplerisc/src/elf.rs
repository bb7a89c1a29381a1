//! The SimpleRISC program as an ELF file for gdb-multiarch and VS Code (`asmdbg asm -o
//! game.elf`).
//!
//! SimpleRISC memory is Harvard; gdb sees the code at [`CODE_BASE`] + 4 × slot (the gdb stub's
//! code view, [`crate::gdb`]) and data at its own addresses. The assembler has no data
//! directives, so the file holds one executable `.text` section, every label, a line row per
//! slot, and the entry and every call target (from [`Insn::flow`]) as sized `STT_FUNC` symbols with a
//! `DW_TAG_subprogram` each (`next` over `call`). `.debug_frame` (gdb's ARM numbers: sp = r14,
//! lr = [`CODE_BASE`] + ra) follows `add`/`sub sp, sp, n`, `st ra, k[sp]` and `ld ra`, so `bt`
//! and `finish` work through nested calls (verified against `asmdbg debug`). `.print`/
//! `.encode` slots read as `nop`, as the stub serves them. `e_machine` is `EM_NONE`: gdb takes
//! the architecture from the stub.
//!
//! [`CODE_BASE`] is the stub's constant (0x8000_0000, above any `--mem-size` so the code and
//! data views never overlap), re-exported here, rather than a second definition.
//!
//! The build sequence itself is core's [`build_image`]; this file gives only SimpleRISC's
//! facts ([`SimpleRiscElf`]).

use asmdbg_core::elf::{
    build_image, write_elf, BaseType, CfaOp, ElfError, ElfImage, ElfIsa, FrameCie, ImageFacts,
    ImageRun, TypeEncoding, EM_NONE,
};
use asmdbg_core::Flow;

use crate::decode::{decode, Insn, Op};
use crate::program::{Program, Slot};

/// gdb's address of code slot 0: the stub's constant, so the file and the target agree.
pub use crate::gdb::CODE_BASE;

/// `nop`, what gdb reads for `.print`/`.encode` slots (they have no machine encoding).
pub const NOP_WORD: u32 = 0x6800_0000;

/// gdb's ARM register numbers the SimpleRISC stub maps: sp = r14, lr = CODE_BASE + ra.
const SP: u16 = 13;
const LR: u16 = 14;

/// The frame before an instruction: CFA = sp + `off` bytes; `ra` saved at CFA + k, if it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SrFrame {
    off: i32,
    ra: Option<i32>,
}

/// gdb's address of the code at native byte address `addr` (4 × slot).
pub fn gdb_code_addr(addr: u64) -> u64 {
    CODE_BASE.wrapping_add(addr)
}

/// SimpleRISC's facts for core's ELF build: code at [`CODE_BASE`] + 4 × slot, r14 as the
/// stack pointer and r15 (ra) as the link register.
#[derive(Debug, Clone, Copy, Default)]
pub struct SimpleRiscElf;

impl ElfIsa for SimpleRiscElf {
    type Instruction = Insn;
    type Frame = SrFrame;
    const INSN_BYTES: u64 = 4;

    fn machine(&self) -> u16 {
        EM_NONE
    }

    fn producer(&self) -> &'static str {
        "asmdbg SimpleRISC assembler"
    }

    fn gdb_helpers(&self) -> (&'static str, &'static str) {
        ("simplerisc", "")
    }

    fn gdb_addr(&self, native: u64) -> Option<u64> {
        Some(gdb_code_addr(native))
    }

    fn decode(&self, bytes: &[u8]) -> Insn {
        decode(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }

    fn flow(&self, insn: &Insn, addr: u64) -> Flow {
        insn.flow(addr.wrapping_sub(CODE_BASE))
            .map_targets(gdb_code_addr)
    }

    /// The assembler has no data directives, so no variable uses this type today; it is the
    /// one a data label would get (and keeps the file as it was written before).
    fn types(&self) -> Vec<BaseType> {
        vec![BaseType::new("int", 4, TypeEncoding::Signed)]
    }

    fn frame_cie(&self) -> FrameCie {
        FrameCie::at_call(4, -4, SP, LR)
    }

    fn ends_past_its_code(&self) -> bool {
        true
    }

    fn entry_frame(&self) -> SrFrame {
        SrFrame { off: 0, ra: None }
    }

    fn frame_after(&self, frame: SrFrame, insn: &Insn, _addr: u64) -> SrFrame {
        let imm = insn.imm as i32;
        let mut st = frame;
        match insn.op {
            Op::AddI if insn.rd == 14 && insn.rs1 == 14 => st.off = st.off.wrapping_sub(imm),
            Op::SubI if insn.rd == 14 && insn.rs1 == 14 => st.off = st.off.wrapping_add(imm),
            Op::St if insn.rd == 15 && insn.rs1 == 14 => st.ra = Some(imm.wrapping_sub(st.off)),
            Op::Ld if insn.rd == 15 => st.ra = None,
            _ => {}
        }
        st
    }

    fn cfa_change(&self, before: SrFrame, after: SrFrame) -> Option<CfaOp> {
        (before.off != after.off).then_some(CfaOp::DefCfaOffset(after.off))
    }

    fn ra_change(&self, before: SrFrame, after: SrFrame) -> Option<CfaOp> {
        // The saved ra is a code byte address; gdb's lr is CODE_BASE + ra.
        (before.ra != after.ra).then(|| match after.ra {
            None => CfaOp::Restore(LR),
            Some(k) => CfaOp::ValLoad {
                reg: LR,
                from_cfa: true,
                offset: i64::from(k),
                addr_scale: 1,
                size: 4,
                value_scale: 1,
                value_add: CODE_BASE,
            },
        })
    }
}

/// The ELF file (ELF32 LE, `EM_NONE`, DWARF) for an assembled program.
pub fn elf_from_program(program: &Program) -> Result<Vec<u8>, ElfError> {
    write_elf(&elf_image(program))
}

/// The image [`elf_from_program`] writes.
pub fn elf_image(program: &Program) -> ElfImage {
    let code: Vec<u8> = program
        .slots
        .iter()
        .map(|s| match s {
            Slot::Word(w) => *w,
            Slot::Print(_) | Slot::Encode { .. } | Slot::Empty => NOP_WORD,
            Slot::Reject { .. } => crate::program::REJECT_WORD,
        })
        .flat_map(u32::to_le_bytes)
        .collect();
    build_image(
        &SimpleRiscElf,
        ImageFacts {
            info: &program.debug,
            runs: vec![ImageRun {
                base: ".text",
                addr: CODE_BASE,
                data: code,
                exec: true,
            }],
            entry: gdb_code_addr(4 * u64::from(program.entry)),
            extra_function_starts: Vec::new(),
        },
    )
}
