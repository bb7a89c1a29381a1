//! The one build sequence from an assembled program to an [`ElfImage`]: sections, decoded code,
//! functions (the entry and every call target, from each instruction's [`Flow`]), symbols,
//! typed data variables, line rows, subprograms and `.debug_frame`. An ISA supplies only its
//! facts through [`ElfIsa`]: its machine number, how native addresses map to gdb's, its decoder,
//! its frame rules and types, and (MIPS) the delay-slot rules of the machine and of gdb.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::flow::Flow;
use crate::symbols::{DataItem, DebugInfo};

use super::analysis::{
    call_targets, frame_descs, function_extents, loaded_addresses, split_ranges, successors_at,
};
use super::dwarf::{base_debug, BaseType, CfaOp, FrameCie, FrameDesc, Function, Variable};
use super::image::{ElfImage, ElfSection, ElfSymbol, ElfSymbolKind, GdbScript};

/// The gdb helpers every ELF carries (reverse motions by one rule, watchpoints read again
/// after `monitor`): Python, see the file's header.
pub const HELPERS_PY: &str = include_str!("../gdb/helpers.py");

/// The script an ELF of `isa` carries: the ISA's name, the common helpers, the ISA's own.
pub fn helper_script(isa: &str, own: &str) -> GdbScript {
    GdbScript {
        name: format!("asmdbg-helpers-{isa}"),
        text: format!("ASMDBG_ISA = \"{isa}\"\n{HELPERS_PY}\n{own}"),
    }
}

/// How a data label reads in gdb: an index into [`ElfIsa::types`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VarType {
    /// One element of the type.
    Scalar(usize),
    /// A `char` array up to the first NUL within the label's extent, so `print msg` shows the
    /// string.
    String(usize),
}

/// What one ISA tells [`build_image`]. Addresses given to and returned by these methods are
/// gdb's (LC-3: 2 × word address; SimpleRISC code: 0x8000_0000 + 4 × slot), except where a
/// native address is named.
pub trait ElfIsa {
    /// The decoded instruction.
    type Instruction: Copy;
    /// The frame before an instruction, as the CFI analysis follows it.
    type Frame: Copy + Eq;
    /// Bytes of one instruction in gdb's view of code.
    const INSN_BYTES: u64;

    /// `e_machine`.
    fn machine(&self) -> u16;
    /// `e_flags`.
    fn e_flags(&self) -> u32 {
        0
    }
    /// `DW_AT_producer`.
    fn producer(&self) -> &'static str;
    /// The name asmdbg's gdb helpers know the ISA by (`ASMDBG_ISA`), and the ISA's own helpers
    /// (Python, run after the common ones; see [`helper_script`]).
    fn gdb_helpers(&self) -> (&'static str, &'static str);
    /// gdb's address of native address `native`, if gdb can see it.
    fn gdb_addr(&self, native: u64) -> Option<u64>;
    /// The instruction whose `INSN_BYTES` little-endian bytes are `bytes`.
    fn decode(&self, bytes: &[u8]) -> Self::Instruction;
    /// Where control goes after `insn` at `addr`, targets as gdb addresses.
    fn flow(&self, insn: &Self::Instruction, addr: u64) -> Flow;
    /// The machine runs the instruction after `insn` before `insn`'s transfer takes effect
    /// (MIPS with `--delay-slots`).
    fn machine_delay_slot(&self, _insn: &Self::Instruction) -> bool {
        false
    }
    /// gdb believes the instruction after `insn` is a delay slot and moves breakpoints off
    /// it, unless it starts a function range: the function's ranges are cut there.
    fn gdb_assumes_delay_slot(&self, _insn: &Self::Instruction) -> bool {
        false
    }
    /// The address an instruction pair puts in a register (MIPS `la`: `lui` then `ori`/`addiu`
    /// of the same register; LC-3 `LEA`, the first alone), if this pair does that; `addr` is
    /// the first's gdb address. A code label whose address is loaded is a possible indirect
    /// call target (`jalr`, `JSRR`), so it starts a function.
    fn loaded_address(
        &self,
        _first: &Self::Instruction,
        _second: &Self::Instruction,
        _addr: u64,
    ) -> Option<u64> {
        None
    }
    /// Functions no label names get one (`_start` at the entry, `_code_XXXXXXXX` elsewhere);
    /// otherwise they have a frame description but no symbol or subprogram.
    fn names_unlabelled_functions(&self) -> bool {
        false
    }
    /// A program ends by running off the end of its code (SimpleRISC): the instruction slot
    /// after the code is where it stops, and gdb shows it as [`END_OF_PROGRAM`], the outermost
    /// frame (its return address undefined), instead of `?? ()` with a caller made up from
    /// a stale return register.
    fn ends_past_its_code(&self) -> bool {
        false
    }
    /// The DWARF base types data labels use.
    fn types(&self) -> Vec<BaseType>;
    /// The type of a data label from the item the assembler emitted there (none: padding,
    /// `.extern`, an object file without source). By default the first of [`Self::types`].
    fn variable_type(&self, _item: Option<&DataItem>) -> VarType {
        VarType::Scalar(0)
    }
    /// The CIE: alignments, the return address column, the rules at a function's entry.
    fn frame_cie(&self) -> FrameCie;
    /// The frame at a function's entry, as the CIE describes it (entered by a call).
    fn entry_frame(&self) -> Self::Frame;
    /// The frame at the entry of the function that starts at `start`, when it is not entered
    /// by a call (LC-3 interrupt and 3rd-edition trap routines, entered through the supervisor
    /// stack): the rules that differ from the CIE's are emitted at its start.
    fn frame_at_start(&self, _start: u64) -> Self::Frame {
        self.entry_frame()
    }
    /// Rules for other registers at the start of a function entered in `frame` (LC-3: the
    /// caller's stack pointer, saved by the processor where a call leaves it alone).
    fn start_rules(&self, _frame: Self::Frame) -> Vec<CfaOp> {
        Vec::new()
    }
    /// The frame after `insn` at `addr`, given the one before.
    fn frame_after(&self, frame: Self::Frame, insn: &Self::Instruction, addr: u64) -> Self::Frame;
    /// The rule that moves the CFA from `before` to `after`, if it moved.
    fn cfa_change(&self, before: Self::Frame, after: Self::Frame) -> Option<CfaOp>;
    /// The rule for the return address from `before` to `after`, if its place changed.
    fn ra_change(&self, before: Self::Frame, after: Self::Frame) -> Option<CfaOp>;
}

/// One run of the memory image, before it is named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageRun {
    /// `.text`, `.data`, ...: the second run of a base is `.text.1`, and so on.
    pub base: &'static str,
    /// gdb's address of the first byte.
    pub addr: u64,
    pub data: Vec<u8>,
    /// Code.
    pub exec: bool,
}

/// The program-specific facts [`build_image`] takes beside the ISA's.
#[derive(Debug, Clone)]
pub struct ImageFacts<'a> {
    /// Labels, lines and data items from the assembler.
    pub info: &'a DebugInfo,
    /// The memory image in order; empty runs are dropped.
    pub runs: Vec<ImageRun>,
    /// gdb's address of the entry point (a function, the outermost frame).
    pub entry: u64,
    /// Function starts beyond the entry and the call targets (gdb addresses; those outside
    /// code are ignored).
    pub extra_function_starts: Vec<u64>,
}

/// Names runs `.text`, `.text.1`, ... per base.
fn sections(runs: Vec<ImageRun>) -> Vec<ElfSection> {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    runs.into_iter()
        .filter(|r| !r.data.is_empty())
        .map(|r| {
            let n = counts.entry(r.base).or_insert(0);
            let name = if *n == 0 {
                r.base.to_string()
            } else {
                format!("{}.{n}", r.base)
            };
            *n += 1;
            ElfSection {
                name,
                addr: r.addr,
                data: r.data,
                exec: r.exec,
            }
        })
        .collect()
}

/// `len` bytes at `addr`, if one section holds them all.
fn bytes_at(sections: &[ElfSection], addr: u64, len: u64) -> Option<&[u8]> {
    sections.iter().find_map(|s| {
        let off = addr.checked_sub(s.addr)?;
        let end = off.checked_add(len)?;
        s.data
            .get(usize::try_from(off).ok()?..usize::try_from(end).ok()?)
    })
}

/// The symbol of the slot after the code of a program that ends by running off it.
pub const END_OF_PROGRAM: &str = "end_of_program";

/// The image of a program: see the module header for what goes in.
pub fn build_image<I: ElfIsa>(isa: &I, facts: ImageFacts<'_>) -> ElfImage {
    let info = facts.info;
    let mut sections = sections(facts.runs);
    let code_runs: Vec<(u64, u64)> = sections
        .iter()
        .filter(|s| s.exec)
        .map(|s| (s.addr, s.addr + s.data.len() as u64))
        .collect();
    let in_code = |a: u64| code_runs.iter().any(|&(b, e)| a >= b && a < e);
    let in_data = |a: u64| {
        sections
            .iter()
            .filter(|s| !s.exec)
            .find(|s| a >= s.addr && a < s.addr + s.data.len() as u64)
            .map(|s| s.addr + s.data.len() as u64)
    };

    // The code, decoded once.
    let step = I::INSN_BYTES;
    let mut insns: BTreeMap<u64, I::Instruction> = BTreeMap::new();
    for s in sections.iter().filter(|s| s.exec) {
        for (i, bytes) in s.data.chunks_exact(step as usize).enumerate() {
            insns.insert(s.addr + step * i as u64, isa.decode(bytes));
        }
    }

    // Labels at gdb addresses, in definition order.
    let labels: Vec<(u64, &crate::Symbol)> = info
        .symbols
        .iter()
        .filter_map(|s| Some((isa.gdb_addr(s.addr)?, s)))
        .collect();
    let mut code_labels: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
    for (i, &(a, _)) in labels.iter().enumerate() {
        if in_code(a) {
            code_labels.entry(a).or_default().push(i);
        }
    }

    // Functions: the entry, every call target, every code label whose address is loaded, and
    // what the ISA adds.
    let mut starts = call_targets(isa, &insns);
    starts.push(facts.entry);
    starts.extend(
        loaded_addresses(isa, &insns)
            .into_iter()
            .filter(|a| code_labels.contains_key(a)),
    );
    starts.extend(&facts.extra_function_starts);
    starts.retain(|&a| in_code(a));
    let extents = function_extents(&starts, &code_runs, step, |a| successors_at(isa, &insns, a));

    // One symbol, subprogram and frame description per function.
    let mut symbols: Vec<ElfSymbol> = Vec::new();
    let mut functions = Vec::new();
    let mut frames = Vec::new();
    let mut function_label: BTreeSet<usize> = BTreeSet::new();
    for extent in &extents {
        let start = extent.entry;
        let here = code_labels.get(&start).map_or(&[][..], Vec::as_slice);
        let chosen = here
            .iter()
            .find(|&&i| labels[i].1.name == "main")
            .or_else(|| here.iter().find(|&&i| labels[i].1.global))
            .or_else(|| here.first())
            .copied();
        let named = match chosen {
            Some(i) => {
                function_label.insert(i);
                let s = labels[i].1;
                Some((s.name.clone(), s.global || s.name == "main"))
            }
            None if !isa.names_unlabelled_functions() => None,
            None if start == facts.entry => Some(("_start".to_string(), false)),
            None => Some((format!("_code_{start:08x}"), false)),
        };
        if let Some((name, global)) = named {
            // gdb's delay-slot rule: each range is cut after every branch.
            let ranges = extent
                .ranges
                .iter()
                .flat_map(|&(begin, end)| {
                    let cuts: Vec<u64> = (begin..end)
                        .step_by(step as usize)
                        .filter(|&a| a > begin)
                        .filter(|&a| {
                            insns
                                .get(&(a - step))
                                .is_some_and(|insn| isa.gdb_assumes_delay_slot(insn))
                        })
                        .collect();
                    split_ranges(begin, end, &cuts)
                })
                .collect();
            // The symbol spans the function's last range too: a label there (a `done:` after
            // the subroutines) lies inside a sized symbol, so gdb names the pc after the
            // function, not the label (the subroutines in between have sized symbols of
            // their own, closer to their pcs).
            symbols.push(ElfSymbol {
                name: name.clone(),
                addr: start,
                size: extent.span(),
                kind: ElfSymbolKind::Func,
                global,
            });
            functions.push(Function {
                name,
                entry: start,
                ranges,
                global,
            });
        }
        frames.extend(frame_descs(isa, &insns, extent, start == facts.entry));
    }
    if let (true, Some(&(_, end))) = (isa.ends_past_its_code(), code_runs.last()) {
        symbols.push(ElfSymbol {
            name: END_OF_PROGRAM.to_string(),
            addr: end,
            size: step,
            kind: ElfSymbolKind::Func,
            global: false,
        });
        frames.push(FrameDesc {
            start: end,
            len: step,
            ops: vec![(end, CfaOp::Undefined(isa.frame_cie().ra_register))],
        });
    }

    // The other labels: data labels typed, code labels plain.
    let mut label_addrs: Vec<u64> = labels.iter().map(|l| l.0).collect();
    label_addrs.sort_unstable();
    let mut variables = Vec::new();
    for (i, &(addr, s)) in labels.iter().enumerate() {
        if function_label.contains(&i) {
            continue;
        }
        let (kind, size) = match in_data(addr) {
            Some(section_end) => {
                let next = label_addrs
                    .iter()
                    .copied()
                    .find(|&a| a > addr)
                    .unwrap_or(u64::MAX)
                    .min(section_end);
                let size = next - addr;
                let (ty, count) = match isa.variable_type(info.data.at(s.addr)) {
                    VarType::Scalar(ty) => (ty, None),
                    VarType::String(ty) => {
                        let n = size.clamp(1, u64::from(u32::MAX)) as u32;
                        // A string runs to its terminating NUL (not into alignment padding).
                        let nul = bytes_at(&sections, addr, u64::from(n))
                            .and_then(|b| b.iter().position(|&c| c == 0));
                        (ty, Some(nul.map_or(n, |i| (i + 1) as u32)))
                    }
                };
                variables.push(Variable {
                    name: s.name.clone(),
                    addr,
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
            addr,
            size,
            kind,
            global: s.global,
        });
    }
    // Address order; at one address the function's symbol comes first.
    symbols.sort_by_key(|s| (s.addr, s.kind != ElfSymbolKind::Func));

    let mut debug = base_debug(info, isa.producer(), |a| {
        isa.gdb_addr(a).filter(|&g| in_code(g))
    });
    debug.types = isa.types();
    debug.variables = variables;
    debug.data_as_locals = true;
    debug.functions = functions;
    debug.frame_cie = Some(isa.frame_cie());
    debug.frames = frames;
    // gdb finds a symbol and a frame description only inside a section: the code's grows by
    // the end slot (zeros; gdb reads code from the target, which has nothing there).
    if let (true, Some(&(_, end))) = (isa.ends_past_its_code(), code_runs.last()) {
        if let Some(text) = sections
            .iter_mut()
            .find(|s| s.exec && s.addr + s.data.len() as u64 == end)
        {
            text.data.resize(text.data.len() + step as usize, 0);
        }
    }

    let (name, own) = isa.gdb_helpers();
    ElfImage {
        machine: isa.machine(),
        e_flags: isa.e_flags(),
        entry: facts.entry,
        sections,
        symbols,
        debug,
        gdb_script: Some(helper_script(name, own)),
    }
}
