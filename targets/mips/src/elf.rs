//! The MIPS program as an ELF file for gdb-multiarch and VS Code (`asmdbg asm -o game.elf`).
//!
//! `EM_MIPS`, ELF32 little endian, `.text`/`.ktext` executable and `.data`/`.kdata`/`.extern`
//! non-executable at their MARS addresses, `.symtab` with every label, `.debug_line`, a
//! `.debug_info` compile unit, and a typed `DW_TAG_variable` per data label.
//!
//! gdb's MIPS port assumes branch delay slots: it moves a breakpoint that follows a branch onto
//! the branch, unless the breakpoint is at the start of the function that
//! `find_pc_partial_function` returns, which for a DWARF function with several ranges is the
//! start of the range holding the pc. MARS runs without delay slots by default, so (measured
//! recipe, gdb-mips-no-delay-slots.md):
//!
//! 1. functions are the entry, every `jal` target, every text label whose address is loaded
//!    (`la` = `lui`+`ori`/`addiu`, possible `jalr` targets), every `.globl` text label and the
//!    start of every code section; each runs to the next function or the section end;
//! 2. each is an `STT_FUNC` with its size, and a `DW_TAG_subprogram` whose `DW_AT_ranges` are
//!    split after every instruction that gdb thinks has a delay slot
//!    ([`has_delay_slot`], applied to every word, data in `.text` included);
//! 3. `.debug_frame` describes each function's frame: `$sp` adjustments, `$ra` saved and
//!    reloaded, `$fp` frames, followed along fall-through and branch edges (a worklist), so the
//!    DWARF unwinder (and not the MIPS prologue scanner, which starts at the range start) finds
//!    the caller: `next` over `jal`, `finish` and `bt` work in non-leaf functions.
//!
//! With delay slots (`--delay-slots`) gdb's assumption holds: the ranges are not split (a
//! breakpoint in a delay slot belongs on its branch), but the functions and CFI are kept.
//!
//! Data labels are typed by the directive that wrote them (`.word` int, `.half` short, `.byte`
//! byte, `.float`/`.double`, `.ascii`/`.asciiz` a `char` array up to the NUL, so `print msg`
//! shows the string) and are also listed inside every function, for VS Code's Locals.
//!
//! Verified against `asmdbg debug` (gdb-multiarch 13.1): `next` over `jal`/`jalr`, `step`,
//! three-level `bt`, two `finish`es, breakpoints after `bne`/`beq`/`jal`/`jalr` on their
//! lines, `watch count` set in a callee firing in `main`, and the cppdbg MI sequence
//! (`breakpoint-hit`, `function-finished`, `watchpoint-trigger` with old/new values).
//! Not recognised: `$ra` moved to another register, computed `$sp`, jump tables of functions
//! (`.word f1, f2`) — such frames unwind as a leaf or not at all.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use asmdbg_core::elf::{
    base_debug, function_spans, propagate_states, split_ranges, write_elf, BaseType, CfaOp,
    ElfError, ElfImage, ElfSection, ElfSymbol, ElfSymbolKind, FrameCie, FrameDesc, Function,
    TypeEncoding, Variable, EM_MIPS,
};

use crate::program::{ChunkKind, Program};

/// `EF_MIPS_ARCH_32 | E_MIPS_ABI_O32`, what gas writes for `-march=mips32`.
pub const MIPS_E_FLAGS: u32 = 0x5000_1000;

const SP: u16 = 29;
const FP: u16 = 30;
const RA: u16 = 31;

/// The ELF file (ELF32 LE, `EM_MIPS`, DWARF) for an assembled program. `delay_slots` is the
/// machine's `--delay-slots` mode.
pub fn elf_from_program(program: &Program, delay_slots: bool) -> Result<Vec<u8>, ElfError> {
    write_elf(&elf_image(program, delay_slots))
}

/// gdb 13's `mips32_instruction_has_delay_slot`: the words after which gdb moves breakpoints.
pub fn has_delay_slot(word: u32) -> bool {
    let op = word >> 26;
    let rs = (word >> 21) & 31;
    let rt = (word >> 16) & 31;
    match op {
        0 => matches!(word & 63, 8 | 9),
        1 => (rt & 0xc) == 0 || ((rt & 0x1e) == 0x1c && rs == 0),
        2..=7 => true,
        20..=23 | 29 => true,
        17 => rs == 8 || ((rs == 9 || rs == 10) && (rt & 2) == 0),
        _ => false,
    }
}

fn branch_target(addr: u32, word: u32) -> Option<u32> {
    let op = word >> 26;
    let rt = (word >> 16) & 31;
    let rel = || {
        let off = ((word & 0xffff) as u16 as i16 as i32) << 2;
        Some(addr.wrapping_add(4).wrapping_add(off as u32))
    };
    match op {
        1 if (rt & 0xc) == 0 => rel(),
        4..=7 | 20..=23 => rel(),
        17 if (word >> 21) & 31 == 8 => rel(),
        2 | 3 => Some((addr.wrapping_add(4) & 0xf000_0000) | ((word & 0x03ff_ffff) << 2)),
        _ => None,
    }
}

/// Whether execution can continue at the next word after `word` (ignoring delay slots).
fn falls_through(word: u32) -> bool {
    let op = word >> 26;
    !(op == 2 || (op == 0 && (word & 63) == 8))
}

/// Whether `word` is a call (`jal`, `jalr`, `bgezal`, `bltzal`): the target is another function.
fn is_call(word: u32) -> bool {
    let op = word >> 26;
    let rt = (word >> 16) & 31;
    op == 3 || (op == 0 && (word & 63) == 9) || (op == 1 && (rt & 0x1e) == 0x10)
}

/// The frame state before an instruction: CFA = `reg` + `off`; `$ra` saved at CFA + `ra`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FrameState {
    reg: u16,
    off: i32,
    ra: Option<i32>,
}

const ENTRY_STATE: FrameState = FrameState {
    reg: SP,
    off: 0,
    ra: None,
};

/// The frame state after `word`.
fn transfer(state: FrameState, word: u32) -> FrameState {
    let op = word >> 26;
    let rs = ((word >> 21) & 31) as u16;
    let rt = ((word >> 16) & 31) as u16;
    let rd = ((word >> 11) & 31) as u16;
    let imm = (word & 0xffff) as u16 as i16 as i32;
    let mut s = state;
    match op {
        // addi / addiu rt, rs, imm
        8 | 9 => match (rt, rs) {
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
        },
        // addu/or rd, rs, $zero (move)
        0 if matches!(word & 63, 33 | 37) && (rt == 0 || rs == 0) => {
            let src = if rt == 0 { rs } else { rt };
            match (rd, src) {
                (FP, SP) if s.reg == SP => s.reg = FP,
                (SP, FP) if s.reg == FP => s.reg = SP,
                _ => {}
            }
        }
        // sw $ra, k(base)
        43 if rt == RA && rs == s.reg => {
            let at = imm.wrapping_sub(s.off);
            if at % 4 == 0 {
                s.ra = Some(at);
            }
        }
        // lw $ra, ...
        35 if rt == RA => s.ra = None,
        _ => {}
    }
    s
}

/// The CFA rules of one function: the state before each of its instructions, following the
/// control flow from the entry; code no edge reaches takes the state its predecessor leaves.
fn frame_states(
    words: &BTreeMap<u32, u32>,
    start: u32,
    end: u32,
    delay_slots: bool,
) -> Vec<FrameState> {
    let n = ((end - start) / 4) as usize;
    let index = |a: u32| -> Option<usize> {
        (a >= start && a < end && (a - start) % 4 == 0).then(|| ((a - start) / 4) as usize)
    };
    let word_at = |a: u32| words.get(&a).copied().unwrap_or(0);
    let successors = |a: u32| -> Vec<u32> {
        let w = word_at(a);
        let mut out = Vec::with_capacity(2);
        let prev_branch = a > start && delay_slots && has_delay_slot(word_at(a - 4));
        if delay_slots && has_delay_slot(w) {
            // The delay slot runs first; its own edges carry the branch's.
            out.push(a.wrapping_add(4));
            return out;
        }
        if prev_branch {
            let b = word_at(a - 4);
            if let Some(t) = branch_target(a - 4, b).filter(|_| !is_call(b)) {
                out.push(t);
            }
            if falls_through(b) {
                out.push(a.wrapping_add(4));
            }
            return out;
        }
        if let Some(t) = branch_target(a, w).filter(|_| !is_call(w)) {
            out.push(t);
        }
        if falls_through(w) {
            out.push(a.wrapping_add(4));
        }
        out
    };
    propagate_states(
        n,
        ENTRY_STATE,
        |i, st| transfer(st, word_at(start + 4 * i as u32)),
        |i| {
            successors(start + 4 * i as u32)
                .into_iter()
                .filter_map(index)
                .collect()
        },
    )
}

/// The FDE of one function from its per-instruction states.
fn frame_desc(states: &[FrameState], start: u32, end: u32, outermost: bool) -> FrameDesc {
    let mut ops = Vec::new();
    if outermost {
        ops.push((u64::from(start), CfaOp::Undefined(RA)));
    }
    let mut cur = ENTRY_STATE;
    for (i, &st) in states.iter().enumerate() {
        let at = u64::from(start) + 4 * i as u64;
        if st.reg != cur.reg && st.off != cur.off {
            ops.push((at, CfaOp::DefCfa(st.reg, st.off)));
        } else if st.reg != cur.reg {
            ops.push((at, CfaOp::DefCfaRegister(st.reg)));
        } else if st.off != cur.off {
            ops.push((at, CfaOp::DefCfaOffset(st.off)));
        }
        if st.ra != cur.ra && !outermost {
            match st.ra {
                Some(k) => ops.push((at, CfaOp::Offset(RA, k))),
                None => ops.push((at, CfaOp::Restore(RA))),
            }
        }
        cur = st;
    }
    FrameDesc {
        start: u64::from(start),
        len: u64::from(end - start),
        ops,
    }
}

/// The base type of a data label from the directive that wrote it: (type index, array count).
fn data_type(line: &str, size: u64) -> (usize, Option<u32>) {
    let line = line.split('#').next().unwrap_or("");
    let dir = line
        .split(|c: char| c.is_whitespace() || c == ':')
        .find(|t| t.starts_with('.'))
        .map(str::to_ascii_lowercase);
    match dir.as_deref() {
        Some(".half") => (1, None),
        Some(".byte") => (2, None),
        Some(".ascii") | Some(".asciiz") => (3, Some(size.clamp(1, u64::from(u32::MAX)) as u32)),
        Some(".float") => (4, None),
        Some(".double") => (5, None),
        _ => (0, None),
    }
}

/// `len` bytes of data at `addr`, if one chunk holds them all.
fn data_byte_slice(program: &Program, addr: u64, len: u64) -> Option<&[u8]> {
    program.chunks.iter().find_map(|c| {
        let off = addr.checked_sub(u64::from(c.addr))?;
        let end = off.checked_add(len)?;
        c.bytes
            .get(usize::try_from(off).ok()?..usize::try_from(end).ok()?)
    })
}

/// The image [`elf_from_program`] writes.
pub fn elf_image(program: &Program, delay_slots: bool) -> ElfImage {
    let info = &program.debug;
    let mut sections = Vec::with_capacity(program.chunks.len());
    let mut counts: HashMap<&str, usize> = HashMap::new();
    let mut code_runs = Vec::new();
    let mut data_runs = Vec::new();
    let mut words = BTreeMap::new();
    for chunk in program.chunks.iter().filter(|c| !c.bytes.is_empty()) {
        let base = match chunk.kind {
            ChunkKind::Text => ".text",
            ChunkKind::KText => ".ktext",
            ChunkKind::Data => ".data",
            ChunkKind::KData => ".kdata",
            ChunkKind::Extern => ".extern",
        };
        let n = counts.entry(base).or_insert(0);
        let name = if *n == 0 {
            base.to_string()
        } else {
            format!("{base}.{n}")
        };
        *n += 1;
        let start = u64::from(chunk.addr);
        let end = start + chunk.bytes.len() as u64;
        if chunk.kind.is_code() {
            code_runs.push((start, end));
            for (i, w) in chunk.bytes.chunks_exact(4).enumerate() {
                let word = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
                words.insert(chunk.addr.wrapping_add(4 * i as u32), word);
            }
        } else {
            data_runs.push((start, end));
        }
        sections.push(ElfSection {
            name,
            addr: start,
            data: chunk.bytes.clone(),
            exec: chunk.kind.is_code(),
        });
    }
    let in_code = |a: u64| code_runs.iter().any(|&(b, e)| a >= b && a < e);

    // 1. Functions.
    let code_labels: BTreeMap<u64, Vec<&asmdbg_core::Symbol>> = info
        .symbols
        .iter()
        .filter(|s| in_code(s.addr))
        .fold(BTreeMap::new(), |mut m, s| {
            m.entry(s.addr).or_insert_with(Vec::new).push(s);
            m
        });
    let entry = u64::from(program.text_start);
    let mut starts: BTreeSet<u64> = code_runs.iter().map(|r| r.0).collect();
    if in_code(entry) {
        starts.insert(entry);
    }
    if let Some(main) = program.main {
        starts.insert(u64::from(main));
    }
    for (&addr, &w) in &words {
        if w >> 26 == 3 {
            if let Some(t) = branch_target(addr, w) {
                starts.insert(u64::from(t));
            }
        }
        // lui rX, hi ; ori/addiu rY, rX, lo  (la)
        if w >> 26 == 15 {
            let rx = (w >> 16) & 31;
            if let Some(&next) = words.get(&addr.wrapping_add(4)) {
                let op = next >> 26;
                if (op == 13 || op == 9) && (next >> 21) & 31 == rx {
                    let hi = (w & 0xffff) << 16;
                    let lo = next & 0xffff;
                    let value = if op == 13 {
                        hi | lo
                    } else {
                        hi.wrapping_add(lo as u16 as i16 as i32 as u32)
                    };
                    if code_labels.contains_key(&u64::from(value)) {
                        starts.insert(u64::from(value));
                    }
                }
            }
        }
    }
    for (&addr, syms) in &code_labels {
        if syms.iter().any(|s| s.global) {
            starts.insert(addr);
        }
    }
    let starts: Vec<u64> = starts.into_iter().filter(|&a| in_code(a)).collect();
    let spans = function_spans(&starts, &code_runs);

    let mut symbols = Vec::new();
    let mut functions = Vec::new();
    let mut frames = Vec::new();
    let mut func_label: HashMap<u64, String> = HashMap::new();
    for &(start, end) in &spans {
        let labels = code_labels.get(&start);
        let chosen = labels.and_then(|ls| {
            ls.iter()
                .find(|s| s.name == "main")
                .or_else(|| ls.iter().find(|s| s.global))
                .or_else(|| ls.first())
        });
        let (name, global) = match chosen {
            Some(s) => (s.name.clone(), s.global || s.name == "main"),
            None if start == entry => ("_start".to_string(), false),
            None => (format!("_code_{start:08x}"), false),
        };
        func_label.insert(start, name.clone());
        let ranges = if delay_slots {
            vec![(start, end)]
        } else {
            let cuts: Vec<u64> = (start..end)
                .step_by(4)
                .filter(|&a| a > start)
                .filter(|&a| {
                    words
                        .get(&(a as u32 - 4))
                        .is_some_and(|&w| has_delay_slot(w))
                })
                .collect();
            split_ranges(start, end, &cuts)
        };
        symbols.push(ElfSymbol {
            name: name.clone(),
            addr: start,
            size: end - start,
            kind: ElfSymbolKind::Func,
            global,
        });
        functions.push(Function {
            name,
            entry: start,
            ranges,
            global,
        });
        let (s32, e32) = (start as u32, end as u32);
        let states = frame_states(&words, s32, e32, delay_slots);
        frames.push(frame_desc(&states, s32, e32, start == entry));
    }

    // Other labels: data labels typed, code labels plain.
    let mut types = vec![
        BaseType::new("int", 4, TypeEncoding::Signed),
        BaseType::new("short", 2, TypeEncoding::Signed),
        BaseType::new("byte", 1, TypeEncoding::Signed),
        BaseType::new("char", 1, TypeEncoding::Char),
        BaseType::new("float", 4, TypeEncoding::Float),
        BaseType::new("double", 8, TypeEncoding::Float),
    ];
    types.shrink_to_fit();
    let mut label_addrs: Vec<u64> = info.symbols.iter().map(|s| s.addr).collect();
    label_addrs.sort_unstable();
    let mut variables = Vec::new();
    for s in info.symbols.iter() {
        if func_label.get(&s.addr) == Some(&s.name) {
            continue;
        }
        let data_run = data_runs.iter().find(|&&(b, e)| s.addr >= b && s.addr < e);
        let (kind, size) = match data_run {
            Some(&(_, run_end)) => {
                let next = label_addrs
                    .iter()
                    .copied()
                    .find(|&a| a > s.addr)
                    .unwrap_or(u64::MAX)
                    .min(run_end);
                let size = next - s.addr;
                let line = info
                    .lines
                    .get(s.addr)
                    .and_then(|l| info.sources.get(l.file).map(|f| f.line(l.line)))
                    .unwrap_or("");
                let (ty, count) = data_type(line, size);
                // A string runs to its terminating NUL (not into alignment padding).
                let count = count.map(|n| {
                    let nul = data_byte_slice(program, s.addr, u64::from(n))
                        .and_then(|b| b.iter().position(|&c| c == 0));
                    nul.map_or(n, |i| (i + 1) as u32)
                });
                variables.push(Variable {
                    name: s.name.clone(),
                    addr: s.addr,
                    ty,
                    count,
                    global: s.global,
                });
                (ElfSymbolKind::Object, size)
            }
            None => (ElfSymbolKind::NoType, 0),
        };
        symbols.push(ElfSymbol {
            name: s.name.clone(),
            addr: s.addr,
            size,
            kind,
            global: s.global,
        });
    }

    let mut debug = base_debug(info, "asmdbg MIPS assembler (MARS 4.5 dialect)", |a| {
        in_code(a).then_some(a)
    });
    debug.types = types;
    debug.variables = variables;
    debug.data_as_locals = true;
    debug.functions = functions;
    debug.frame_cie = Some(FrameCie {
        code_align: 4,
        data_align: -4,
        ra_register: RA,
        initial: vec![CfaOp::DefCfa(SP, 0), CfaOp::SameValue(RA)],
    });
    debug.frames = frames;

    ElfImage {
        machine: EM_MIPS,
        e_flags: MIPS_E_FLAGS,
        entry,
        sections,
        symbols,
        debug,
    }
}
