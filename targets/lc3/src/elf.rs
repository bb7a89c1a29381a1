//! The LC-3 program as an ELF file for gdb-multiarch and VS Code (`asmdbg asm -o game.elf`).
//!
//! gdb sees LC-3 memory at byte address 2 × word address, each word little endian (the gdb stub
//! serves memory that way), so the sections, symbols and line rows here use those addresses.
//! `e_machine` is `EM_NONE`: gdb takes the architecture from the stub's target description.
//!
//! - Words written by `.FILL`, `.BLKW` or `.STRINGZ` go to non-executable `.data` sections,
//!   everything else to `.text` sections (one section per contiguous run).
//! - The entry and every `JSR` target are functions (`STT_FUNC` with the size up to the next
//!   function or the end of the code run), named by their label, so `bt`, `finish` and `next`
//!   over `JSR` work; other code labels are `STT_NOTYPE`.
//! - Data labels are `STT_OBJECT` symbols and DWARF variables of the 2-byte base type `word`,
//!   so `print LABEL` and `watch LABEL` need no cast.

use std::collections::{BTreeSet, HashMap};

use asmdbg_core::elf::{
    base_debug, function_spans, write_elf, BaseType, ElfError, ElfImage, ElfSection, ElfSymbol,
    ElfSymbolKind, TypeEncoding, Variable, EM_NONE,
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

    let mut debug = base_debug(debug_info, "asmdbg LC-3 assembler", |a| {
        u16::try_from(a).ok().filter(|&w| is_code(w)).map(gdb_addr)
    });
    debug.types = vec![BaseType::new("word", 2, TypeEncoding::Signed)];
    debug.variables = variables;

    ElfImage {
        machine: EM_NONE,
        e_flags: 0,
        entry: program.entry().map_or(0, gdb_addr),
        sections,
        symbols,
        debug,
    }
}
