//! The SimpleRISC program as an ELF file for gdb-multiarch and VS Code (`asmdbg asm -o
//! game.elf`).
//!
//! SimpleRISC memory is Harvard; gdb sees the code at [`CODE_BASE`] + 4 × slot (the gdb stub's
//! code view, [`crate::gdb`]) and data at its own addresses. The assembler has no data
//! directives, so the file holds one executable `.text` section, every label, a line row per
//! slot, and the entry and every `call` target as sized `STT_FUNC` symbols with a
//! `DW_TAG_subprogram` each (`next` over `call`). `.debug_frame` (gdb's ARM numbers: sp = r14,
//! lr = [`CODE_BASE`] + ra) follows `add`/`sub sp, sp, n`, `st ra, k[sp]` and `ld ra`, so `bt`
//! and `finish` work through nested calls (verified against `asmdbg debug`). `.print`/
//! `.encode` slots read as `nop`, as the stub serves them. `e_machine` is `EM_NONE`: gdb takes
//! the architecture from the stub.
//!
//! [`CODE_BASE`] is the stub's constant (0x8000_0000, above any `--mem-size` so the code and
//! data views never overlap), re-exported here, rather than a second definition.

use std::collections::{BTreeSet, HashMap};

use asmdbg_core::elf::{
    base_debug, function_spans, propagate_states, whole_functions, write_elf, BaseType, CfaOp,
    ElfError, ElfImage, ElfSection, ElfSymbol, ElfSymbolKind, FrameCie, FrameDesc, TypeEncoding,
    EM_NONE,
};

use crate::decode::{decode, Op};
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
struct SrFrame {
    off: i32,
    ra: Option<i32>,
}

const ENTRY_FRAME: SrFrame = SrFrame { off: 0, ra: None };

fn transfer(st: SrFrame, word: u32) -> SrFrame {
    let insn = decode(word);
    let imm = insn.imm as i32;
    let mut st = st;
    match insn.op {
        Op::AddI if insn.rd == 14 && insn.rs1 == 14 => st.off = st.off.wrapping_sub(imm),
        Op::SubI if insn.rd == 14 && insn.rs1 == 14 => st.off = st.off.wrapping_add(imm),
        Op::St if insn.rd == 15 && insn.rs1 == 14 => st.ra = Some(imm.wrapping_sub(st.off)),
        Op::Ld if insn.rd == 15 => st.ra = None,
        _ => {}
    }
    st
}

/// Slots control can reach next from slot `i` within its function (calls return).
fn successors(i: usize, word: u32) -> Vec<usize> {
    let insn = decode(word);
    let target = (i as u32).wrapping_add(insn.imm) as usize;
    match insn.op {
        Op::Beq | Op::Bgt => vec![i + 1, target],
        Op::B => vec![target],
        Op::Ret | Op::Hlt => vec![],
        _ => vec![i + 1],
    }
}

/// `.debug_frame` for the function whose slots are `words`, starting at gdb address `start`:
/// sp adjustments and the saved ra, so `bt` and `finish` see past functions that save ra.
fn frame_desc(start: u64, words: &[u32], outermost: bool) -> FrameDesc {
    let first = ((start - CODE_BASE) / 4) as usize;
    let states = propagate_states(
        words.len(),
        ENTRY_FRAME,
        |i, st| transfer(st, words[i]),
        |i| {
            successors(first + i, words[i])
                .into_iter()
                .filter_map(|t| t.checked_sub(first))
                .collect()
        },
    );
    let mut ops = Vec::new();
    if outermost {
        ops.push((start, CfaOp::Undefined(LR)));
    }
    let mut cur = ENTRY_FRAME;
    for (i, &st) in states.iter().enumerate() {
        let at = start + 4 * i as u64;
        if st.off != cur.off {
            ops.push((at, CfaOp::DefCfaOffset(st.off)));
        }
        if st.ra != cur.ra && !outermost {
            ops.push((
                at,
                match st.ra {
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
                },
            ));
        }
        cur = st;
    }
    FrameDesc {
        start,
        len: 4 * words.len() as u64,
        ops,
    }
}

/// gdb's address of the code at native byte address `addr` (4 × slot).
pub fn gdb_code_addr(addr: u64) -> u64 {
    CODE_BASE.wrapping_add(addr)
}

/// The ELF file (ELF32 LE, `EM_NONE`, DWARF) for an assembled program.
pub fn elf_from_program(program: &Program) -> Result<Vec<u8>, ElfError> {
    write_elf(&elf_image(program))
}

/// The image [`elf_from_program`] writes.
pub fn elf_image(program: &Program) -> ElfImage {
    let info = &program.debug;
    let n = program.slots.len() as u64;
    let words: Vec<u32> = program
        .slots
        .iter()
        .map(|s| match s {
            Slot::Word(w) => *w,
            Slot::Print(_) | Slot::Encode { .. } => NOP_WORD,
        })
        .collect();
    let mut sections = Vec::new();
    let code_end = gdb_code_addr(4 * n);
    if n > 0 {
        sections.push(ElfSection {
            name: ".text".into(),
            addr: CODE_BASE,
            data: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
            exec: true,
        });
    }

    // Functions: the entry and every call target.
    let mut starts = BTreeSet::new();
    if u64::from(program.entry) < n {
        starts.insert(u64::from(program.entry));
    }
    for (i, s) in program.slots.iter().enumerate() {
        if let Slot::Word(w) = s {
            let insn = decode(*w);
            if insn.op == Op::Call {
                let target = (i as u32).wrapping_add(insn.imm);
                if u64::from(target) < n {
                    starts.insert(u64::from(target));
                }
            }
        }
    }
    let starts: Vec<u64> = starts.into_iter().map(|s| gdb_code_addr(4 * s)).collect();
    let spans: HashMap<u64, u64> = function_spans(&starts, &[(CODE_BASE, code_end)])
        .into_iter()
        .collect();

    let mut symbols = Vec::with_capacity(info.symbols.len());
    let mut named = BTreeSet::new();
    for s in info.symbols.iter() {
        let addr = gdb_code_addr(s.addr);
        let (kind, size) = match spans.get(&addr) {
            Some(&end) if named.insert(addr) => (ElfSymbolKind::Func, end - addr),
            _ => (ElfSymbolKind::NoType, 0),
        };
        symbols.push(ElfSymbol {
            name: s.name.clone(),
            addr,
            size,
            kind,
            global: s.global,
        });
    }

    let entry = gdb_code_addr(4 * u64::from(program.entry));
    let mut frames: Vec<FrameDesc> = spans
        .iter()
        .map(|(&start, &end)| {
            let first = ((start - CODE_BASE) / 4) as usize;
            let last = ((end - CODE_BASE) / 4) as usize;
            frame_desc(start, &words[first..last], start == entry)
        })
        .collect();
    frames.sort_by_key(|f| f.start);

    let functions = whole_functions(&symbols);

    let mut debug = base_debug(info, "asmdbg SimpleRISC assembler", |a| {
        (a < 4 * n).then(|| gdb_code_addr(a))
    });
    debug.types = vec![BaseType::new("int", 4, TypeEncoding::Signed)];
    debug.frame_cie = Some(FrameCie {
        code_align: 4,
        data_align: -4,
        ra_register: LR,
        initial: vec![CfaOp::DefCfa(SP, 0), CfaOp::SameValue(LR)],
    });
    debug.frames = frames;
    debug.functions = functions;
    ElfImage {
        machine: EM_NONE,
        e_flags: 0,
        entry,
        sections,
        symbols,
        debug,
    }
}
