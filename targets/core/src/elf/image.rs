//! The ELF container: sections at gdb's addresses, symbols, and the object file itself
//! (`ET_EXEC`, one `PT_LOAD` per section, so `load` works too), laid out with the `object`
//! crate's writer. The DWARF sections come from [`super::dwarf`].
//!
//! Every name and address is checked first ([`ElfError`]): the writer crates assert on a NUL in
//! a string or an address past 32 bits, and no input may panic.

use object::elf;
use object::write::elf::{FileHeader, ProgramHeader, SectionHeader, SectionIndex, Sym, Writer};
use object::write::StringId;
use object::Endianness;

use super::dwarf::{dwarf_sections, ElfDebug};

/// `e_machine` for LC-3 and SimpleRISC (gdb takes the architecture from the target).
pub const EM_NONE: u16 = elf::EM_NONE;

/// `e_machine` for MIPS.
pub const EM_MIPS: u16 = elf::EM_MIPS;

/// Why an image cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum ElfError {
    #[error("section `{name}` at {addr:#x} (+{len} bytes) does not fit in 32-bit addresses")]
    SectionRange { name: String, addr: u64, len: u64 },
    #[error("sections `{first}` and `{second}` overlap")]
    Overlap { first: String, second: String },
    #[error("section name is empty")]
    EmptySectionName,
    #[error("name `{name}` contains a NUL byte (ELF and DWARF strings end at NUL)")]
    NulInName { name: String },
    #[error("address {addr:#x} of `{what}` does not fit in 32-bit addresses")]
    Address { what: String, addr: u64 },
    #[error("function `{name}` has an empty or inverted range")]
    BadRange { name: String },
    #[error("frame information for {start:#x}: {reason}")]
    BadFrame { start: u64, reason: String },
    #[error("writing DWARF: {0}")]
    Dwarf(#[from] gimli::write::Error),
    #[error("writing ELF: {0}")]
    Object(#[from] object::write::Error),
}

/// One section of the program's memory image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElfSection {
    /// `.text`, `.data`, ... (several sections may share a name).
    pub name: String,
    /// gdb's address of the first byte.
    pub addr: u64,
    pub data: Vec<u8>,
    /// Code (`SHF_EXECINSTR`); data sections are writable instead.
    pub exec: bool,
}

/// The ELF symbol type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ElfSymbolKind {
    /// `STT_FUNC`: a function entry; give it a size.
    Func,
    /// `STT_OBJECT`: a data label.
    Object,
    /// `STT_NOTYPE`: any other label.
    NoType,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElfSymbol {
    pub name: String,
    /// gdb's address.
    pub addr: u64,
    /// Bytes (0 for an ordinary label).
    pub size: u64,
    pub kind: ElfSymbolKind,
    /// `STB_GLOBAL` instead of `STB_LOCAL`.
    pub global: bool,
}

/// Everything [`write_elf`] writes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ElfImage {
    /// [`EM_NONE`] or [`EM_MIPS`].
    pub machine: u16,
    pub e_flags: u32,
    pub entry: u64,
    pub sections: Vec<ElfSection>,
    pub symbols: Vec<ElfSymbol>,
    pub debug: ElfDebug,
    /// A Python script gdb runs when it loads the file (`.debug_gdb_scripts`, an inline
    /// script: gdb asks for the file's folder in its auto-load safe-path first).
    pub gdb_script: Option<GdbScript>,
}

/// An inline gdb script: its name (what `info auto-load` lists) and its Python text.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GdbScript {
    pub name: String,
    pub text: String,
}

/// `SECTION_SCRIPT_ID_PYTHON_TEXT`: a `.debug_gdb_scripts` entry holding Python source.
const PYTHON_TEXT: u8 = 4;

impl GdbScript {
    /// The `.debug_gdb_scripts` bytes: the kind, the name's line, the text, a NUL.
    fn section(&self) -> Vec<u8> {
        let mut out = vec![PYTHON_TEXT];
        out.extend_from_slice(self.name.as_bytes());
        out.push(b'\n');
        out.extend_from_slice(self.text.as_bytes());
        out.push(0);
        out
    }
}

impl ElfImage {
    /// The section holding `addr` (a label just past a section's end belongs to it, as gas
    /// does for a label at the end of `.text`).
    pub fn section_of(&self, addr: u64) -> Option<usize> {
        let end = |s: &ElfSection| s.addr + s.data.len() as u64;
        self.sections
            .iter()
            .position(|s| addr >= s.addr && addr < end(s))
            .or_else(|| {
                self.sections
                    .iter()
                    .position(|s| addr == end(s) && !s.data.is_empty())
            })
    }
}

fn fits32(addr: u64) -> bool {
    addr <= u64::from(u32::MAX)
}

fn check(image: &ElfImage) -> Result<(), ElfError> {
    // object's and gimli's string tables assert on a NUL; a label with one (a stray NUL in the
    // source) must be an error, not a panic.
    let d = &image.debug;
    let names = image
        .sections
        .iter()
        .map(|s| s.name.as_str())
        .chain(image.symbols.iter().map(|s| s.name.as_str()))
        .chain(d.variables.iter().map(|v| v.name.as_str()))
        .chain(d.functions.iter().map(|f| f.name.as_str()))
        .chain(d.types.iter().map(|t| t.name.as_str()))
        .chain(d.files.iter().map(String::as_str))
        .chain([d.comp_dir.as_str(), d.producer.as_str()])
        .chain(
            image
                .gdb_script
                .iter()
                .flat_map(|g| [g.name.as_str(), g.text.as_str()]),
        );
    for name in names {
        if name.contains('\0') {
            return Err(ElfError::NulInName {
                name: name.replace('\0', "\\0"),
            });
        }
    }
    let mut spans: Vec<(u64, u64, &str)> = Vec::new();
    for s in &image.sections {
        if s.name.is_empty() {
            return Err(ElfError::EmptySectionName);
        }
        let len = s.data.len() as u64;
        if !fits32(s.addr) || !fits32(s.addr.saturating_add(len)) {
            return Err(ElfError::SectionRange {
                name: s.name.clone(),
                addr: s.addr,
                len,
            });
        }
        if len > 0 {
            spans.push((s.addr, s.addr + len, &s.name));
        }
    }
    spans.sort();
    for w in spans.windows(2) {
        if w[1].0 < w[0].1 {
            return Err(ElfError::Overlap {
                first: w[0].2.to_string(),
                second: w[1].2.to_string(),
            });
        }
    }
    let addr_err = |what: &str, addr: u64| ElfError::Address {
        what: what.to_string(),
        addr,
    };
    if !fits32(image.entry) {
        return Err(addr_err("entry", image.entry));
    }
    for s in &image.symbols {
        if !fits32(s.addr) || !fits32(s.addr.saturating_add(s.size)) {
            return Err(addr_err(&s.name, s.addr));
        }
    }
    for v in &image.debug.variables {
        if !fits32(v.addr) {
            return Err(addr_err(&v.name, v.addr));
        }
    }
    for f in &image.debug.functions {
        let ok = !f.ranges.is_empty()
            && f.ranges.iter().all(|&(b, e)| b < e && fits32(e))
            && f.ranges.windows(2).all(|w| w[0].1 <= w[1].0)
            && fits32(f.entry);
        if !ok {
            return Err(ElfError::BadRange {
                name: f.name.clone(),
            });
        }
    }
    for fde in &image.debug.frames {
        let end = fde.start.saturating_add(fde.len);
        if !fits32(end) {
            return Err(ElfError::BadFrame {
                start: fde.start,
                reason: "does not fit in 32-bit addresses".into(),
            });
        }
        let mut prev = fde.start;
        for &(at, _) in &fde.ops {
            if at < prev || at > end {
                return Err(ElfError::BadFrame {
                    start: fde.start,
                    reason: format!("instruction at {at:#x} out of order or outside"),
                });
            }
            prev = at;
        }
    }
    Ok(())
}

/// The ELF alignment of a section at `addr`: up to 4, and never more than `addr` allows (so
/// the file offset can match the address modulo the alignment).
fn align_of(addr: u64) -> u64 {
    if addr == 0 {
        4
    } else {
        (1u64 << addr.trailing_zeros().min(2)).min(4)
    }
}

/// Writes `image` as an ELF32 little-endian `ET_EXEC` file with its DWARF.
pub fn write_elf(image: &ElfImage) -> Result<Vec<u8>, ElfError> {
    check(image)?;
    let mut dwarf = dwarf_sections(image)?;
    if let Some(script) = &image.gdb_script {
        dwarf.push((".debug_gdb_scripts", script.section()));
    }

    let mut buffer = Vec::new();
    let mut w = Writer::new(Endianness::Little, false, &mut buffer);

    let alloc: Vec<&ElfSection> = image
        .sections
        .iter()
        .filter(|s| !s.data.is_empty())
        .collect();

    w.reserve_file_header();
    w.reserve_program_headers(alloc.len() as u32);

    w.reserve_null_section_index();
    struct Placed {
        index: SectionIndex,
        name: StringId,
        offset: usize,
    }
    let mut placed = Vec::with_capacity(alloc.len());
    for s in &alloc {
        let index = w.reserve_section_index();
        let name = w.add_section_name(s.name.as_bytes());
        placed.push((index, name));
    }
    let mut dwarf_placed = Vec::with_capacity(dwarf.len());
    for (name, _) in &dwarf {
        let index = w.reserve_section_index();
        let name_id = w.add_section_name(name.as_bytes());
        dwarf_placed.push((index, name_id));
    }
    let alloc_placed: Vec<Placed> = alloc
        .iter()
        .zip(&placed)
        .map(|(s, &(index, name))| Placed {
            index,
            name,
            offset: w.reserve(s.data.len(), align_of(s.addr) as usize),
        })
        .collect();
    let dwarf_offsets: Vec<usize> = dwarf.iter().map(|(_, d)| w.reserve(d.len(), 1)).collect();

    // Symbols: locals first (sh_info of .symtab is the first global).
    let mut order: Vec<&ElfSymbol> = image.symbols.iter().collect();
    order.sort_by_key(|s| s.global);
    w.reserve_null_symbol_index();
    let section_index_of = |addr: u64| {
        image.section_of(addr).and_then(|i| {
            let s = &image.sections[i];
            alloc
                .iter()
                .position(|a| std::ptr::eq(*a, s))
                .map(|p| alloc_placed[p].index)
        })
    };
    let mut syms = Vec::with_capacity(order.len());
    for s in &order {
        let section = section_index_of(s.addr);
        let name = w.add_string(s.name.as_bytes());
        w.reserve_symbol_index(section);
        syms.push((name, section));
    }
    let num_local = 1 + order.iter().filter(|s| !s.global).count() as u32;
    w.reserve_symtab_section_index();
    w.reserve_symtab();
    w.reserve_strtab_section_index();
    w.reserve_strtab();
    w.reserve_shstrtab_section_index();
    w.reserve_shstrtab();
    w.reserve_section_headers();

    w.write_file_header(&FileHeader {
        os_abi: elf::ELFOSABI_SYSV,
        abi_version: 0,
        e_type: elf::ET_EXEC,
        e_machine: image.machine,
        e_entry: image.entry,
        e_flags: image.e_flags,
    })?;
    w.write_align_program_headers();
    for (s, p) in alloc.iter().zip(&alloc_placed) {
        let flags = if s.exec {
            elf::PF_R | elf::PF_X
        } else {
            elf::PF_R | elf::PF_W
        };
        w.write_program_header(&ProgramHeader {
            p_type: elf::PT_LOAD,
            p_flags: flags,
            p_offset: p.offset as u64,
            p_vaddr: s.addr,
            p_paddr: s.addr,
            p_filesz: s.data.len() as u64,
            p_memsz: s.data.len() as u64,
            p_align: align_of(s.addr),
        });
    }
    for (s, p) in alloc.iter().zip(&alloc_placed) {
        w.pad_until(p.offset);
        w.write(&s.data);
    }
    for ((_, d), &off) in dwarf.iter().zip(&dwarf_offsets) {
        w.pad_until(off);
        w.write(d);
    }

    w.write_null_symbol();
    for (s, &(name, section)) in order.iter().zip(&syms) {
        let st_type = match s.kind {
            ElfSymbolKind::Func => elf::STT_FUNC,
            ElfSymbolKind::Object => elf::STT_OBJECT,
            ElfSymbolKind::NoType => elf::STT_NOTYPE,
        };
        let bind = if s.global {
            elf::STB_GLOBAL
        } else {
            elf::STB_LOCAL
        };
        w.write_symbol(&Sym {
            name: Some(name),
            section,
            st_info: (bind << 4) | st_type,
            st_other: elf::STV_DEFAULT,
            st_shndx: if section.is_some() { 0 } else { elf::SHN_ABS },
            st_value: s.addr,
            st_size: s.size,
        });
    }
    w.write_strtab();
    w.write_shstrtab();

    w.write_null_section_header();
    for (s, p) in alloc.iter().zip(&alloc_placed) {
        let flags = if s.exec {
            elf::SHF_ALLOC | elf::SHF_EXECINSTR
        } else {
            elf::SHF_ALLOC | elf::SHF_WRITE
        };
        w.write_section_header(&SectionHeader {
            name: Some(p.name),
            sh_type: elf::SHT_PROGBITS,
            sh_flags: u64::from(flags),
            sh_addr: s.addr,
            sh_offset: p.offset as u64,
            sh_size: s.data.len() as u64,
            sh_link: 0,
            sh_info: 0,
            sh_addralign: align_of(s.addr),
            sh_entsize: 0,
        });
    }
    for (((_, d), &off), &(_, name)) in dwarf.iter().zip(&dwarf_offsets).zip(&dwarf_placed) {
        w.write_section_header(&SectionHeader {
            name: Some(name),
            sh_type: elf::SHT_PROGBITS,
            sh_flags: 0,
            sh_addr: 0,
            sh_offset: off as u64,
            sh_size: d.len() as u64,
            sh_link: 0,
            sh_info: 0,
            sh_addralign: 1,
            sh_entsize: 0,
        });
    }
    w.write_symtab_section_header(num_local);
    w.write_strtab_section_header();
    w.write_shstrtab_section_header();
    Ok(buffer)
}
