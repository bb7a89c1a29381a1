//! The LC-3 program as an ELF file for gdb-multiarch and VS Code (`asmdbg asm -o game.elf`).
//!
//! gdb sees LC-3 memory at byte address 2 × word address, each word little endian (the gdb stub
//! serves memory that way), so the sections, symbols and line rows here use those addresses.
//! `e_machine` is `EM_NONE`: gdb takes the architecture from the stub's target description.
//!
//! - Words written by `.FILL`, `.BLKW` or `.STRINGZ` go to non-executable `.data` sections,
//!   everything else to `.text` sections (one section per contiguous run).
//! - The entry and every `JSR` target are functions: `STT_FUNC` with the size up to the next
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

use std::collections::{BTreeSet, HashMap};

use asmdbg_core::elf::{
    base_debug, function_spans, propagate_states, whole_functions, write_elf, BaseType, CfaOp,
    ElfError, ElfImage, ElfSection, ElfSymbol, ElfSymbolKind, FrameCie, FrameDesc, TypeEncoding,
    Variable, EM_NONE,
};

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

/// Whether a source line is a data directive (`.FILL`, `.BLKW`, `.STRINGZ`), looking at the
/// words before any comment or string.
pub fn is_data_line(text: &str) -> bool {
    for token in text.split(|c: char| c.is_whitespace() || c == ',') {
        if token.starts_with(';') || token.starts_with('"') {
            return false;
        }
        let upper = token.to_ascii_uppercase();
        let upper = upper.split(';').next().unwrap_or("");
        if matches!(upper, ".FILL" | ".BLKW" | ".STRINGZ") {
            return true;
        }
    }
    false
}

/// gdb's ARM register numbers the LC-3 stub maps: sp = R6, lr = 2 × R7.
const SP: u16 = 13;
const LR: u16 = 14;

/// Where the caller's return address (R7) is, before an instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SavedR7 {
    /// Still in R7 (gdb's lr).
    InR7,
    /// At word address CFA + k (`STR R7, R6, #n` after the stack adjustments).
    Stack(i32),
    /// At a fixed word address (`ST R7, SAVE_R7`).
    Fixed(u16),
}

/// The frame before an instruction: CFA = R6 + `off` (words, as gdb's sp is R6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Lc3Frame {
    off: i32,
    r7: SavedR7,
}

const ENTRY_FRAME: Lc3Frame = Lc3Frame {
    off: 0,
    r7: SavedR7::InR7,
};

fn transfer(st: Lc3Frame, addr: u16, word: u16) -> Lc3Frame {
    let mut st = st;
    match decode(word) {
        Instruction::AddImm { dr: 6, sr1: 6, imm } => st.off -= i32::from(imm),
        Instruction::Str {
            sr: 7,
            base: 6,
            offset,
        } => st.r7 = SavedR7::Stack(i32::from(offset) - st.off),
        Instruction::St { sr: 7, offset } => {
            st.r7 = SavedR7::Fixed(addr.wrapping_add(1).wrapping_add(offset as u16));
        }
        Instruction::Ld { dr: 7, .. }
        | Instruction::Ldr { dr: 7, .. }
        | Instruction::Ldi { dr: 7, .. } => st.r7 = SavedR7::InR7,
        _ => {}
    }
    st
}

/// Where control goes after the instruction at `addr` within its function (calls return).
fn successors(addr: u16, word: u16) -> Vec<u16> {
    let next = addr.wrapping_add(1);
    match decode(word) {
        Instruction::Br { nzp: 0, .. } => vec![next],
        Instruction::Br { nzp: 7, offset } => vec![next.wrapping_add(offset as u16)],
        Instruction::Br { offset, .. } => vec![next, next.wrapping_add(offset as u16)],
        Instruction::Jmp { .. } | Instruction::Rti | Instruction::Trap { vector: 0x25 } => vec![],
        _ => vec![next],
    }
}

/// `.debug_frame` for the function at gdb addresses `[start, end)`: R6 adjustments and the
/// saved R7 along the control flow, so `bt` and `finish` see past subroutines that save R7.
fn frame_desc(start: u64, end: u64, word_at: impl Fn(u64) -> u16, outermost: bool) -> FrameDesc {
    let n = ((end - start) / 2) as usize;
    let addr = |i: usize| start + 2 * i as u64;
    let states = propagate_states(
        n,
        ENTRY_FRAME,
        |i, st| transfer(st, (addr(i) / 2) as u16, word_at(addr(i))),
        |i| {
            successors((addr(i) / 2) as u16, word_at(addr(i)))
                .into_iter()
                .map(gdb_addr)
                .filter(|&a| a >= start && a < end)
                .map(|a| ((a - start) / 2) as usize)
                .collect()
        },
    );
    let mut ops = Vec::new();
    if outermost {
        ops.push((start, CfaOp::Undefined(LR)));
    }
    let mut cur = ENTRY_FRAME;
    for (i, &st) in states.iter().enumerate() {
        let at = addr(i);
        if st.off != cur.off {
            ops.push((at, CfaOp::DefCfaOffset(st.off)));
        }
        if st.r7 != cur.r7 && !outermost {
            let load = |from_cfa, offset| CfaOp::ValLoad {
                reg: LR,
                from_cfa,
                offset,
                addr_scale: 2,
                size: 2,
                value_scale: 2,
                value_add: 0,
            };
            ops.push((
                at,
                match st.r7 {
                    SavedR7::InR7 => CfaOp::Restore(LR),
                    SavedR7::Stack(k) => load(true, i64::from(k)),
                    SavedR7::Fixed(a) => load(false, i64::from(a)),
                },
            ));
        }
        cur = st;
    }
    FrameDesc {
        start,
        len: end - start,
        ops,
    }
}

/// One word of the image.
struct Word {
    addr: u16,
    value: u16,
    data: bool,
}

/// The image [`elf_from_program`] writes.
pub fn elf_image(program: &Program) -> ElfImage {
    let debug_info = &program.debug;
    let is_data = |addr: u16| {
        debug_info
            .lines
            .get(u64::from(addr))
            .and_then(|loc| debug_info.sources.get(loc.file).map(|f| f.line(loc.line)))
            .is_some_and(is_data_line)
    };

    // Runs of words of one kind within a segment.
    let mut runs: Vec<(bool, Vec<Word>)> = Vec::new();
    for seg in &program.segments {
        let mut current: Option<(bool, Vec<Word>)> = None;
        for (i, &value) in seg.words.iter().enumerate() {
            let Ok(addr) = u16::try_from(usize::from(seg.origin) + i) else {
                break; // past the top of memory: the assembler reports it
            };
            let data = is_data(addr);
            match &mut current {
                Some((kind, words)) if *kind == data => words.push(Word { addr, value, data }),
                _ => {
                    runs.extend(current.take());
                    current = Some((data, vec![Word { addr, value, data }]));
                }
            }
        }
        runs.extend(current);
    }

    let mut sections = Vec::with_capacity(runs.len());
    let (mut ntext, mut ndata) = (0, 0);
    let mut code_runs = Vec::new();
    let mut data_runs = Vec::new();
    let mut words: HashMap<u16, (u16, bool)> = HashMap::new();
    for (data, run) in &runs {
        let counter = if *data { &mut ndata } else { &mut ntext };
        let base = if *data { ".data" } else { ".text" };
        let name = if *counter == 0 {
            base.to_string()
        } else {
            format!("{base}.{counter}")
        };
        *counter += 1;
        let start = gdb_addr(run[0].addr);
        let end = start + 2 * run.len() as u64;
        if *data {
            data_runs.push((start, end));
        } else {
            code_runs.push((start, end));
        }
        for w in run {
            words.insert(w.addr, (w.value, w.data));
        }
        sections.push(ElfSection {
            name,
            addr: start,
            data: run.iter().flat_map(|w| w.value.to_le_bytes()).collect(),
            exec: !data,
        });
    }

    // Functions: the entry and every JSR target that is code.
    let is_code = |addr: u16| words.get(&addr).is_some_and(|&(_, d)| !d);
    let mut starts = BTreeSet::new();
    if let Some(entry) = program.entry().filter(|&e| is_code(e)) {
        starts.insert(entry);
    }
    for (&addr, &(value, data)) in &words {
        if let (false, Instruction::Jsr { offset }) = (data, decode(value)) {
            let target = addr.wrapping_add(1).wrapping_add(offset as u16);
            if is_code(target) {
                starts.insert(target);
            }
        }
    }
    let starts: Vec<u64> = starts.into_iter().map(gdb_addr).collect();
    let spans = function_spans(&starts, &code_runs);
    let span_of: HashMap<u64, u64> = spans.iter().copied().collect();

    // Symbols: one function name per start, data labels as objects.
    let mut labels: Vec<(u64, &str, bool)> = debug_info
        .symbols
        .iter()
        .map(|s| (s.addr, s.name.as_str(), s.global))
        .collect();
    labels.sort_by_key(|l| l.0);
    let label_addrs: Vec<u64> = labels.iter().map(|l| gdb_addr(l.0 as u16)).collect();
    let mut named = BTreeSet::new();
    let mut symbols = Vec::with_capacity(labels.len());
    let mut variables = Vec::new();
    for &(native, name, global) in &labels {
        let Ok(word) = u16::try_from(native) else {
            continue;
        };
        let addr = gdb_addr(word);
        let data_word = words.get(&word).is_some_and(|&(_, d)| d);
        let (kind, size) = if let Some(&end) = span_of.get(&addr).filter(|_| !named.contains(&addr))
        {
            named.insert(addr);
            (ElfSymbolKind::Func, end - addr)
        } else if data_word {
            let run_end = data_runs
                .iter()
                .find(|&&(b, e)| addr >= b && addr < e)
                .map_or(addr + 2, |r| r.1);
            let next = label_addrs
                .iter()
                .copied()
                .find(|&a| a > addr)
                .unwrap_or(u64::MAX);
            variables.push(Variable {
                name: name.to_string(),
                addr,
                ty: 0,
                count: None,
                global,
            });
            (ElfSymbolKind::Object, next.min(run_end) - addr)
        } else {
            (ElfSymbolKind::NoType, 0)
        };
        symbols.push(ElfSymbol {
            name: name.to_string(),
            addr,
            size,
            kind,
            global,
        });
    }

    let entry = program.entry().map(gdb_addr);
    let frames = spans
        .iter()
        .map(|&(start, end)| {
            let word_at = |a: u64| words.get(&((a / 2) as u16)).map_or(0, |w| w.0);
            frame_desc(start, end, word_at, Some(start) == entry)
        })
        .collect();

    let functions = whole_functions(&symbols);

    let mut debug = base_debug(debug_info, "asmdbg LC-3 assembler", |a| {
        u16::try_from(a).ok().filter(|&w| is_code(w)).map(gdb_addr)
    });
    debug.types = vec![BaseType::new("word", 2, TypeEncoding::Signed)];
    debug.variables = variables;
    debug.data_as_locals = true;
    debug.frame_cie = Some(FrameCie {
        code_align: 2,
        data_align: -1,
        ra_register: LR,
        initial: vec![CfaOp::DefCfa(SP, 0), CfaOp::SameValue(LR)],
    });
    debug.frames = frames;
    debug.functions = functions;

    ElfImage {
        machine: EM_NONE,
        e_flags: 0,
        entry: program.entry().map_or(0, gdb_addr),
        sections,
        symbols,
        debug,
    }
}
