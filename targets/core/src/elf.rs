//! An ISA-neutral ELF32 little-endian writer with DWARF debug information, so gdb-multiarch and
//! VS Code can debug the assembly source: `break game.asm:42`, `print SCORE`, `watch PLAYER`,
//! `bt`, `finish`.
//!
//! Each ISA turns its assembled program into an [`ElfImage`] (sections at gdb's view of the
//! addresses, symbols, line rows, data variables, and for MIPS functions with split ranges and
//! call frame information); [`write_elf`] lays it out with the `object` crate's ELF writer and
//! the `gimli` crate's DWARF writer. What gdb needs was measured (gdb-clients.md §2–3 and
//! gdb-mips-no-delay-slots.md):
//!
//! - `.symtab` with every label (`break LABEL`, `<func+off>`, frame names); functions as
//!   `STT_FUNC` with a size;
//! - `.debug_line` (version 3, a row where each source line's instructions start) and a `.debug_info` compile unit with
//!   `DW_AT_stmt_list`, `DW_AT_low_pc`/`DW_AT_high_pc`, name, comp_dir, producer and
//!   `DW_AT_language` 0x8001 (MIPS assembler, what gas writes for any assembly);
//! - a `DW_TAG_variable` with a `DW_TAG_base_type` per data label, so `print LABEL` and
//!   `watch LABEL` need no cast;
//! - data in non-executable sections (otherwise data labels become text symbols);
//! - optionally `DW_TAG_subprogram` with `DW_AT_ranges` (`.debug_ranges`) and `.debug_frame`.
//!
//! The file is an `ET_EXEC` with one `PT_LOAD` per section, so `load` works too.

use gimli::write::{
    Address, AttributeValue, CallFrameInstruction, CommonInformationEntry, DwarfUnit, EndianVec,
    Expression, FrameDescriptionEntry, FrameTable, LineProgram, LineString, Range, RangeList,
    Sections, UnitEntryId,
};
use gimli::{Encoding, Format, LittleEndian, Register};
use object::elf;
use object::write::elf::{FileHeader, ProgramHeader, SectionHeader, SectionIndex, Sym, Writer};
use object::write::StringId;
use object::Endianness;

/// The crates the writer is built on, for reading the file back (tests, tools) without a
/// dependency of one's own.
pub use {gimli, object};

/// `e_machine` for LC-3 and SimpleRISC (gdb takes the architecture from the target).
pub const EM_NONE: u16 = elf::EM_NONE;
/// `e_machine` for MIPS.
pub const EM_MIPS: u16 = elf::EM_MIPS;
/// `DW_LANG_Mips_Assembler`, what gas records for assembly source.
pub const DW_LANG_ASSEMBLER: u16 = 0x8001;

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

/// One line-table entry: the instruction at `addr` came from `line` of `files[file]`. Give one
/// per instruction; consecutive instructions of the same line are written as one row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineRow {
    pub addr: u64,
    pub file: u32,
    pub line: u32,
}

/// A DWARF base type (`DW_TAG_base_type`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaseType {
    /// What `ptype` prints: `word`, `int`, ...
    pub name: String,
    /// Bytes.
    pub size: u8,
    pub encoding: TypeEncoding,
}

/// `DW_AT_encoding` of a base type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeEncoding {
    /// `DW_ATE_signed`.
    Signed,
    /// `DW_ATE_unsigned`.
    Unsigned,
    /// `DW_ATE_signed_char`: arrays of it print as strings.
    Char,
    /// `DW_ATE_float`.
    Float,
}

impl BaseType {
    pub fn new(name: &str, size: u8, encoding: TypeEncoding) -> Self {
        BaseType {
            name: name.to_string(),
            size,
            encoding,
        }
    }
}

/// A data label as a `DW_TAG_variable` at a fixed address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variable {
    pub name: String,
    pub addr: u64,
    /// Index into [`ElfDebug::types`].
    pub ty: usize,
    /// `Some(n)`: an array of `n` elements of that type (a string label as `char [n]`).
    pub count: Option<u32>,
    pub global: bool,
}

/// A function as a `DW_TAG_subprogram`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function {
    pub name: String,
    /// The entry address (`DW_AT_low_pc`).
    pub entry: u64,
    /// Ascending `[begin, end)` ranges; the first starts at `entry`. One range gives
    /// `DW_AT_high_pc`, several give `DW_AT_ranges`.
    pub ranges: Vec<(u64, u64)>,
    pub global: bool,
}

/// A call frame instruction (DWARF register numbers, byte offsets).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CfaOp {
    /// `DW_CFA_def_cfa reg, offset`.
    DefCfa(u16, i32),
    /// `DW_CFA_def_cfa_register reg`.
    DefCfaRegister(u16),
    /// `DW_CFA_def_cfa_offset offset`.
    DefCfaOffset(i32),
    /// `DW_CFA_offset reg`: saved at CFA + offset (bytes; a multiple of the data alignment).
    Offset(u16, i32),
    /// `DW_CFA_restore reg`.
    Restore(u16),
    /// `DW_CFA_undefined reg` (on the return address column: outermost frame).
    Undefined(u16),
    /// `DW_CFA_same_value reg`.
    SameValue(u16),
    /// `DW_CFA_val_expression reg`: the caller's `reg` is `value_scale` × (the `size`-byte
    /// little-endian word at gdb address `addr_scale` × (base + `offset`)) + `value_add`, where
    /// base is the CFA (`from_cfa`) or 0. For machines whose gdb view scales addresses (LC-3:
    /// a saved R7 at word address A is the return address 2 × mem[2 × A]).
    ValLoad {
        reg: u16,
        from_cfa: bool,
        offset: i64,
        addr_scale: u8,
        size: u8,
        value_scale: u8,
        value_add: u64,
    },
}

/// The common part of all frame descriptions (one CIE).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameCie {
    pub code_align: u8,
    pub data_align: i8,
    pub ra_register: u16,
    pub initial: Vec<CfaOp>,
}

/// One FDE: the rules from `start` for `len` bytes; each op applies from its address on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameDesc {
    pub start: u64,
    pub len: u64,
    /// Ascending addresses within `[start, start + len]`.
    pub ops: Vec<(u64, CfaOp)>,
}

/// What goes into the DWARF sections.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ElfDebug {
    /// Source file names (as given to the assembler); [`LineRow::file`] indexes this. The first
    /// one names the compile unit.
    pub files: Vec<String>,
    pub comp_dir: String,
    pub producer: String,
    /// Sorted by address; rows outside executable sections are ignored.
    pub lines: Vec<LineRow>,
    pub types: Vec<BaseType>,
    pub variables: Vec<Variable>,
    pub functions: Vec<Function>,
    /// Also list every variable inside every function (static storage, same address), so
    /// front ends that show a frame's locals (`-stack-list-variables`, VS Code's Locals) show
    /// the data labels; gdb lists only the function's block once a pc has a function.
    pub data_as_locals: bool,
    /// `.debug_frame`, written when there is at least one FDE.
    pub frame_cie: Option<FrameCie>,
    pub frames: Vec<FrameDesc>,
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
        .chain([d.comp_dir.as_str(), d.producer.as_str()]);
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

/// Splits `dir/name` into the directory and file name for the line table.
fn split_path(path: &str) -> (&str, &str) {
    match path.rfind('/') {
        Some(0) => ("/", &path[1..]),
        Some(i) => (&path[..i], &path[i + 1..]),
        None => ("", path),
    }
}

fn cfa_insn(op: CfaOp) -> CallFrameInstruction {
    match op {
        CfaOp::DefCfa(r, off) => CallFrameInstruction::Cfa(Register(r), off),
        CfaOp::DefCfaRegister(r) => CallFrameInstruction::CfaRegister(Register(r)),
        CfaOp::DefCfaOffset(off) => CallFrameInstruction::CfaOffset(off),
        CfaOp::Offset(r, off) => CallFrameInstruction::Offset(Register(r), off),
        CfaOp::Restore(r) => CallFrameInstruction::Restore(Register(r)),
        CfaOp::Undefined(r) => CallFrameInstruction::Undefined(Register(r)),
        CfaOp::SameValue(r) => CallFrameInstruction::SameValue(Register(r)),
        CfaOp::ValLoad {
            reg,
            from_cfa,
            offset,
            addr_scale,
            size,
            value_scale,
            value_add,
        } => {
            // The CFA is on the stack when the expression starts.
            let mut e = Expression::new();
            if from_cfa {
                e.op_consts(offset);
                e.op(gimli::DW_OP_plus);
            } else {
                e.op(gimli::DW_OP_drop);
                e.op_consts(offset);
            }
            if addr_scale != 1 {
                e.op_constu(u64::from(addr_scale));
                e.op(gimli::DW_OP_mul);
            }
            e.op_deref_size(size);
            if value_scale != 1 {
                e.op_constu(u64::from(value_scale));
                e.op(gimli::DW_OP_mul);
            }
            if value_add != 0 {
                e.op_constu(value_add);
                e.op(gimli::DW_OP_plus);
            }
            CallFrameInstruction::ValExpression(Register(reg), e)
        }
    }
}

/// Builds the DWARF sections: `(name, bytes)` for every non-empty one.
fn dwarf_sections(image: &ElfImage) -> Result<Vec<(&'static str, Vec<u8>)>, ElfError> {
    let debug = &image.debug;
    let encoding = Encoding {
        format: Format::Dwarf32,
        version: 3,
        address_size: 4,
    };
    let mut dwarf = DwarfUnit::new(encoding);
    let cu_name = debug.files.first().cloned().unwrap_or_default();
    let mut program = LineProgram::new(
        encoding,
        gimli::LineEncoding::default(),
        LineString::String(debug.comp_dir.as_bytes().to_vec()),
        LineString::String(cu_name.as_bytes().to_vec()),
        None,
    );
    let mut file_ids = Vec::with_capacity(debug.files.len());
    for name in &debug.files {
        let (dir, base) = split_path(name);
        let dir_id = if dir.is_empty() {
            program.default_directory()
        } else {
            program.add_directory(LineString::String(dir.as_bytes().to_vec()))
        };
        file_ids.push(program.add_file(LineString::String(base.as_bytes().to_vec()), dir_id, None));
    }

    // One sequence per executable section.
    let mut code_lo = u64::MAX;
    let mut code_hi = 0;
    for s in image
        .sections
        .iter()
        .filter(|s| s.exec && !s.data.is_empty())
    {
        let end = s.addr + s.data.len() as u64;
        code_lo = code_lo.min(s.addr);
        code_hi = code_hi.max(end);
        let rows: Vec<&LineRow> = debug
            .lines
            .iter()
            .filter(|r| r.addr >= s.addr && r.addr < end)
            .filter(|r| (r.file as usize) < file_ids.len())
            .collect();
        if rows.is_empty() {
            continue;
        }
        program.begin_sequence(Some(Address::Constant(s.addr)));
        let mut last = None;
        let mut last_loc = None;
        for r in rows {
            if last.is_some_and(|a| a >= r.addr) {
                continue; // not ascending: keep the first row for an address
            }
            last = Some(r.addr);
            // Consecutive words of one line (a pseudo-instruction, a macro call) share a row,
            // as gas does for assembly: `info line` then shows the whole expansion.
            if last_loc == Some((r.file, r.line)) {
                continue;
            }
            last_loc = Some((r.file, r.line));
            let row = program.row();
            row.address_offset = r.addr - s.addr;
            row.file = file_ids[r.file as usize];
            row.line = u64::from(r.line);
            program.generate_row();
        }
        program.end_sequence(end - s.addr);
    }
    dwarf.unit.line_program = program;

    let root = dwarf.unit.root();
    {
        let cu = dwarf.unit.get_mut(root);
        cu.set(
            gimli::DW_AT_name,
            AttributeValue::String(cu_name.as_bytes().to_vec()),
        );
        cu.set(
            gimli::DW_AT_comp_dir,
            AttributeValue::String(debug.comp_dir.as_bytes().to_vec()),
        );
        cu.set(
            gimli::DW_AT_producer,
            AttributeValue::String(debug.producer.as_bytes().to_vec()),
        );
        cu.set(
            gimli::DW_AT_language,
            AttributeValue::Language(gimli::DwLang(DW_LANG_ASSEMBLER)),
        );
        if code_lo < code_hi {
            cu.set(
                gimli::DW_AT_low_pc,
                AttributeValue::Address(Address::Constant(code_lo)),
            );
            cu.set(
                gimli::DW_AT_high_pc,
                AttributeValue::Address(Address::Constant(code_hi)),
            );
        }
    }
    let cu_base = if code_lo < code_hi { code_lo } else { 0 };

    let mut type_ids: Vec<UnitEntryId> = Vec::new();
    for t in &debug.types {
        let id = dwarf.unit.add(root, gimli::DW_TAG_base_type);
        let e = dwarf.unit.get_mut(id);
        e.set(
            gimli::DW_AT_name,
            AttributeValue::String(t.name.as_bytes().to_vec()),
        );
        e.set(gimli::DW_AT_byte_size, AttributeValue::Data1(t.size));
        let ate = match t.encoding {
            TypeEncoding::Signed => gimli::DW_ATE_signed,
            TypeEncoding::Unsigned => gimli::DW_ATE_unsigned,
            TypeEncoding::Char => gimli::DW_ATE_signed_char,
            TypeEncoding::Float => gimli::DW_ATE_float,
        };
        e.set(gimli::DW_AT_encoding, AttributeValue::Encoding(ate));
        type_ids.push(id);
    }
    let mut arrays: Vec<((usize, u32), UnitEntryId)> = Vec::new();
    let mut var_dies: Vec<(&str, UnitEntryId, u64)> = Vec::new();
    for v in &debug.variables {
        let Some(&base) = type_ids.get(v.ty) else {
            continue;
        };
        let ty = match v.count {
            None => base,
            Some(n) => match arrays.iter().find(|(k, _)| *k == (v.ty, n)) {
                Some(&(_, id)) => id,
                None => {
                    let id = dwarf.unit.add(root, gimli::DW_TAG_array_type);
                    dwarf
                        .unit
                        .get_mut(id)
                        .set(gimli::DW_AT_type, AttributeValue::UnitRef(base));
                    let sub = dwarf.unit.add(id, gimli::DW_TAG_subrange_type);
                    dwarf.unit.get_mut(sub).set(
                        gimli::DW_AT_upper_bound,
                        AttributeValue::Udata(u64::from(n.max(1)) - 1),
                    );
                    arrays.push(((v.ty, n), id));
                    id
                }
            },
        };
        let id = dwarf.unit.add(root, gimli::DW_TAG_variable);
        let e = dwarf.unit.get_mut(id);
        e.set(
            gimli::DW_AT_name,
            AttributeValue::String(v.name.as_bytes().to_vec()),
        );
        e.set(gimli::DW_AT_type, AttributeValue::UnitRef(ty));
        if v.global {
            e.set(gimli::DW_AT_external, AttributeValue::Flag(true));
        }
        let mut expr = Expression::new();
        expr.op_addr(Address::Constant(v.addr));
        e.set(gimli::DW_AT_location, AttributeValue::Exprloc(expr));
        var_dies.push((&v.name, ty, v.addr));
    }
    for f in &debug.functions {
        let ranges = if f.ranges.len() > 1 {
            let list = f
                .ranges
                .iter()
                .map(|&(b, e)| {
                    if b < cu_base {
                        return Err(ElfError::BadRange {
                            name: f.name.clone(),
                        });
                    }
                    Ok(Range::OffsetPair {
                        begin: b - cu_base,
                        end: e - cu_base,
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            Some(dwarf.unit.ranges.add(RangeList(list)))
        } else {
            None
        };
        let id = dwarf.unit.add(root, gimli::DW_TAG_subprogram);
        let e = dwarf.unit.get_mut(id);
        e.set(
            gimli::DW_AT_name,
            AttributeValue::String(f.name.as_bytes().to_vec()),
        );
        if f.global {
            e.set(gimli::DW_AT_external, AttributeValue::Flag(true));
        }
        e.set(
            gimli::DW_AT_low_pc,
            AttributeValue::Address(Address::Constant(f.entry)),
        );
        match ranges {
            Some(list) => e.set(gimli::DW_AT_ranges, AttributeValue::RangeListRef(list)),
            None => {
                let end = f.ranges.first().map_or(f.entry, |r| r.1);
                e.set(
                    gimli::DW_AT_high_pc,
                    AttributeValue::Address(Address::Constant(end)),
                );
            }
        }
        if debug.data_as_locals {
            for &(name, ty, addr) in &var_dies {
                let v = dwarf.unit.add(id, gimli::DW_TAG_variable);
                let e = dwarf.unit.get_mut(v);
                e.set(
                    gimli::DW_AT_name,
                    AttributeValue::String(name.as_bytes().to_vec()),
                );
                e.set(gimli::DW_AT_type, AttributeValue::UnitRef(ty));
                let mut expr = Expression::new();
                expr.op_addr(Address::Constant(addr));
                e.set(gimli::DW_AT_location, AttributeValue::Exprloc(expr));
            }
        }
    }

    let mut sections = Sections::new(EndianVec::new(LittleEndian));
    dwarf.write(&mut sections)?;

    if let (Some(cie), false) = (&debug.frame_cie, debug.frames.is_empty()) {
        let cie_encoding = Encoding {
            format: Format::Dwarf32,
            version: 1,
            address_size: 4,
        };
        let mut table = FrameTable::default();
        let mut c = CommonInformationEntry::new(
            cie_encoding,
            cie.code_align,
            cie.data_align,
            Register(cie.ra_register),
        );
        for &op in &cie.initial {
            c.add_instruction(cfa_insn(op));
        }
        let cie_id = table.add_cie(c);
        for fde in &debug.frames {
            let len = u32::try_from(fde.len).map_err(|_| ElfError::BadFrame {
                start: fde.start,
                reason: "too long".into(),
            })?;
            let mut d = FrameDescriptionEntry::new(Address::Constant(fde.start), len);
            for &(at, op) in &fde.ops {
                // In range: checked (at - start <= len <= u32::MAX).
                d.add_instruction((at - fde.start) as u32, cfa_insn(op));
            }
            table.add_fde(cie_id, d);
        }
        table.write_debug_frame(&mut sections.debug_frame)?;
    }

    let mut out = Vec::new();
    sections.for_each(|id, data| -> Result<(), ElfError> {
        if !data.slice().is_empty() {
            out.push((id.name(), data.slice().to_vec()));
        }
        Ok(())
    })?;
    Ok(out)
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
    let dwarf = dwarf_sections(image)?;

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

/// The ranges of `[start, end)` cut before every address in `cuts` (ascending or not; cuts
/// outside the span are ignored).
pub fn split_ranges(start: u64, end: u64, cuts: &[u64]) -> Vec<(u64, u64)> {
    let mut points: Vec<u64> = cuts
        .iter()
        .copied()
        .filter(|&c| c > start && c < end)
        .collect();
    points.sort_unstable();
    points.dedup();
    let mut out = Vec::with_capacity(points.len() + 1);
    let mut from = start;
    for p in points {
        out.push((from, p));
        from = p;
    }
    if from < end {
        out.push((from, end));
    }
    out
}

/// Data-flow over one function's instructions (indices `0..n`, entry 0): the state before
/// each instruction, following `successors` (indices; others are ignored) from the entry with
/// `transfer` (the state after instruction `i`). The first state that reaches an instruction
/// wins (no joins: assembly frames agree at merge points or are beyond repair). Code that no
/// edge reaches continues from the state its predecessor leaves.
pub fn propagate_states<S: Copy>(
    n: usize,
    entry: S,
    transfer: impl Fn(usize, S) -> S,
    successors: impl Fn(usize) -> Vec<usize>,
) -> Vec<S> {
    let mut states: Vec<Option<S>> = vec![None; n];
    let mut seed = (n > 0).then_some((0usize, entry));
    while let Some((first, st)) = seed.take() {
        states[first] = Some(st);
        let mut work = vec![first];
        while let Some(i) = work.pop() {
            let Some(st) = states[i] else { continue };
            let out = transfer(i, st);
            for j in successors(i) {
                if j < n && states[j].is_none() {
                    states[j] = Some(out);
                    work.push(j);
                }
            }
        }
        if let Some(j) = states.iter().position(Option::is_none) {
            let before = match j.checked_sub(1).and_then(|p| states[p].map(|s| (p, s))) {
                Some((p, s)) => transfer(p, s),
                None => entry,
            };
            seed = Some((j, before));
        }
    }
    states.into_iter().map(|s| s.unwrap_or(entry)).collect()
}

/// The extent of each function: from its start to the next function start or the end of the
/// code run (`[begin, end)`) holding it, whichever comes first. Starts outside every run are
/// dropped. Returned in address order, without duplicates.
pub fn function_spans(starts: &[u64], code_runs: &[(u64, u64)]) -> Vec<(u64, u64)> {
    let mut starts: Vec<u64> = starts.to_vec();
    starts.sort_unstable();
    starts.dedup();
    let mut out = Vec::with_capacity(starts.len());
    for (i, &s) in starts.iter().enumerate() {
        let Some(&(_, run_end)) = code_runs.iter().find(|&&(b, e)| s >= b && s < e) else {
            continue;
        };
        let next = starts.get(i + 1).copied().unwrap_or(u64::MAX);
        out.push((s, next.min(run_end)));
    }
    out
}

/// One `DW_TAG_subprogram` per sized function symbol, each a single range. gdb's `next`
/// recognises a call by the function changing (`find_pc_function`), which minimal symbols
/// alone do not give. (MIPS without delay slots splits its ranges instead.)
pub fn whole_functions(symbols: &[ElfSymbol]) -> Vec<Function> {
    symbols
        .iter()
        .filter(|s| s.kind == ElfSymbolKind::Func && s.size > 0)
        .map(|s| Function {
            name: s.name.clone(),
            entry: s.addr,
            ranges: vec![(s.addr, s.addr + s.size)],
            global: s.global,
        })
        .collect()
}

/// The DWARF parts every ISA fills the same way: the source files, the working directory, the
/// producer, and a line row per item of `info.lines` at `map(native address)`.
pub fn base_debug(
    info: &crate::symbols::DebugInfo,
    producer: &str,
    map: impl Fn(u64) -> Option<u64>,
) -> ElfDebug {
    let comp_dir = std::env::current_dir()
        .map(|d| d.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut lines: Vec<LineRow> = info
        .lines
        .iter()
        .filter_map(|(addr, loc)| {
            Some(LineRow {
                addr: map(addr)?,
                file: loc.file.0,
                line: loc.line,
            })
        })
        .collect();
    lines.sort_by_key(|r| r.addr);
    ElfDebug {
        files: info
            .sources
            .files()
            .iter()
            .map(|f| f.name.to_string())
            .collect(),
        comp_dir,
        producer: producer.to_string(),
        lines,
        ..ElfDebug::default()
    }
}
