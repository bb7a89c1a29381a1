//! The SimpleRISC program as an ELF file for gdb-multiarch and VS Code (`asmdbg asm -o
//! game.elf`).
//!
//! SimpleRISC memory is Harvard; gdb sees the code at [`CODE_BASE`] + 4 × slot (the gdb stub's
//! code view, [`crate::gdb`]) and data at its own addresses. The assembler has no data
//! directives, so the file holds one executable `.text` section, every label, a line row per
//! slot, and the entry and every `call` target as sized `STT_FUNC` symbols (`bt`, `finish`,
//! `next` over `call`). `.print`/`.encode` slots read as `nop`, as the stub serves them.
//! `e_machine` is `EM_NONE`: gdb takes the architecture from the stub.

use std::collections::{BTreeSet, HashMap};

use asmdbg_core::elf::{
    base_debug, function_spans, write_elf, BaseType, ElfError, ElfImage, ElfSection, ElfSymbol,
    ElfSymbolKind, TypeEncoding, EM_NONE,
};

use crate::decode::{decode, Op};
use crate::program::{Program, Slot};

/// gdb's address of code slot 0: the stub's constant, so the file and the target agree.
pub use crate::gdb::CODE_BASE;

/// `nop`, what gdb reads for `.print`/`.encode` slots (they have no machine encoding).
pub const NOP_WORD: u32 = 0x6800_0000;

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

    let mut debug = base_debug(info, "asmdbg SimpleRISC assembler", |a| {
        (a < 4 * n).then(|| gdb_code_addr(a))
    });
    debug.types = vec![BaseType::new("int", 4, TypeEncoding::Signed)];
    ElfImage {
        machine: EM_NONE,
        e_flags: 0,
        entry: gdb_code_addr(4 * u64::from(program.entry)),
        sections,
        symbols,
        debug,
    }
}
