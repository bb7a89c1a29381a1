//! The DWARF sections gdb and VS Code read: `.debug_line` (version 3, a row where each source
//! line's instructions start), `.debug_info` compile units with typed variables and
//! subprograms (`.debug_ranges` for split ones) — one for the program, and one more per group of
//! files [`ElfDebug::unit_starts`] names (LC-3's OS) — and `.debug_frame`, written with the
//! `gimli` crate's writer.

use gimli::write::{
    Address, AttributeValue, CallFrameInstruction, CommonInformationEntry, Dwarf, EndianVec,
    Expression, FrameDescriptionEntry, FrameTable, LineProgram, LineString, Range, RangeList,
    Sections, Unit, UnitEntryId,
};
use gimli::{Encoding, Format, LittleEndian, Register};

use super::image::{ElfError, ElfImage};

/// `DW_LANG_Mips_Assembler`, what gas records for assembly source.
pub const DW_LANG_ASSEMBLER: u16 = 0x8001;

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
    /// `DW_CFA_val_expression reg`: the caller's `reg` is `value_scale` × (the `size`-byte
    /// word at gdb address `addr_scale` × (register `base` + `offset`)): a return address
    /// kept on a stack other than the one the CFA is on (LC-3's supervisor stack).
    ValLoadFromRegister {
        reg: u16,
        base: u16,
        offset: i64,
        addr_scale: u8,
        size: u8,
        value_scale: u8,
    },
    /// `DW_CFA_def_cfa_expression`: the CFA is the `size`-byte word at gdb address
    /// `addr_scale` × `addr` (LC-3: the caller's stack pointer, which the processor saved
    /// away when it switched stacks).
    DefCfaLoad { addr: i64, addr_scale: u8, size: u8 },
}

/// The common part of all frame descriptions (one CIE).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameCie {
    pub code_align: u8,
    pub data_align: i8,
    pub ra_register: u16,
    pub initial: Vec<CfaOp>,
}

impl FrameCie {
    /// The CIE of a machine whose calls leave the stack pointer `sp` unchanged and the return
    /// address in `ra`: at a function's entry the CFA is `sp` and `ra` holds the caller's pc.
    pub fn at_call(code_align: u8, data_align: i8, sp: u16, ra: u16) -> Self {
        FrameCie {
            code_align,
            data_align,
            ra_register: ra,
            initial: vec![CfaOp::DefCfa(sp, 0), CfaOp::SameValue(ra)],
        }
    }
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
    /// Where further compile units begin in `files` (ascending): files from each index on, up
    /// to the next, form a unit of their own, with the functions and variables their lines
    /// span (LC-3: the OS under the program). Empty: one unit.
    pub unit_starts: Vec<usize>,
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

impl ElfDebug {
    /// The file index ranges of the compile units (see [`ElfDebug::unit_starts`]).
    fn unit_file_groups(&self) -> Vec<std::ops::Range<usize>> {
        let mut bounds: Vec<usize> = vec![0];
        bounds.extend(
            self.unit_starts
                .iter()
                .copied()
                .filter(|&s| s > 0 && s < self.files.len()),
        );
        bounds.dedup();
        bounds.push(self.files.len().max(1));
        bounds.windows(2).map(|w| w[0]..w[1]).collect()
    }

    /// The lowest and highest address with a line row of `files`.
    fn line_span(&self, files: &std::ops::Range<usize>) -> Option<(u64, u64)> {
        let mut rows = self
            .lines
            .iter()
            .filter(|r| files.contains(&(r.file as usize)));
        let first = rows.next()?.addr;
        let (lo, hi) = rows.fold((first, first), |(lo, hi), r| {
            (lo.min(r.addr), hi.max(r.addr))
        });
        Some((lo, hi))
    }
}

/// Splits `dir/name` into the directory and file name for the line table.
fn split_path(path: &str) -> (&str, &str) {
    match path.rfind('/') {
        Some(0) => ("/", &path[1..]),
        Some(i) => (&path[..i], &path[i + 1..]),
        None => ("", path),
    }
}

/// Replaces the address on the stack with `value_scale` × the `size`-byte word at gdb address
/// `addr_scale` × address (LC-3's gdb view doubles word addresses, and code addresses in words).
fn scaled_load(e: &mut Expression, addr_scale: u8, size: u8, value_scale: u8) {
    if addr_scale != 1 {
        e.op_constu(u64::from(addr_scale));
        e.op(gimli::DW_OP_mul);
    }
    e.op_deref_size(size);
    if value_scale != 1 {
        e.op_constu(u64::from(value_scale));
        e.op(gimli::DW_OP_mul);
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
            scaled_load(&mut e, addr_scale, size, value_scale);
            if value_add != 0 {
                e.op_constu(value_add);
                e.op(gimli::DW_OP_plus);
            }
            CallFrameInstruction::ValExpression(Register(reg), e)
        }
        CfaOp::ValLoadFromRegister {
            reg,
            base,
            offset,
            addr_scale,
            size,
            value_scale,
        } => {
            let mut e = Expression::new();
            // The CFA pushed for a val_expression is not used.
            e.op(gimli::DW_OP_drop);
            e.op_breg(Register(base), offset);
            scaled_load(&mut e, addr_scale, size, value_scale);
            CallFrameInstruction::ValExpression(Register(reg), e)
        }
        CfaOp::DefCfaLoad {
            addr,
            addr_scale,
            size,
        } => {
            let mut e = Expression::new();
            e.op_consts(addr);
            scaled_load(&mut e, addr_scale, size, 1);
            CallFrameInstruction::CfaExpression(e)
        }
    }
}

/// Builds the DWARF sections: `(name, bytes)` for every non-empty one.
pub(super) fn dwarf_sections(image: &ElfImage) -> Result<Vec<(&'static str, Vec<u8>)>, ElfError> {
    let debug = &image.debug;
    let encoding = Encoding {
        format: Format::Dwarf32,
        version: 3,
        address_size: 4,
    };
    let mut dwarf = Dwarf::new();
    let units = debug.unit_file_groups();
    let spans: Vec<Option<(u64, u64)>> = units.iter().map(|f| debug.line_span(f)).collect();
    for (index, files) in units.iter().enumerate() {
        // A function or variable belongs to the later unit whose lines span its address, and
        // otherwise to the first.
        let owner = |addr: u64| {
            spans
                .iter()
                .enumerate()
                .skip(1)
                .find(|(_, span)| span.is_some_and(|(lo, hi)| addr >= lo && addr <= hi))
                .map_or(0, |(i, _)| i)
        };
        let unit_id = dwarf.units.add(Unit::new(encoding, LineProgram::none()));
        let unit = dwarf.units.get_mut(unit_id);
        write_unit(unit, image, encoding, files.clone(), |addr| {
            owner(addr) == index
        })?;
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

/// One compile unit: the files `files` of `image.debug` (the first names the unit), their line
/// rows, and the types, variables and functions `owns` says are this unit's (by address).
fn write_unit(
    unit: &mut Unit,
    image: &ElfImage,
    encoding: Encoding,
    files: std::ops::Range<usize>,
    owns: impl Fn(u64) -> bool,
) -> Result<(), ElfError> {
    let debug = &image.debug;
    let cu_name = debug.files.get(files.start).cloned().unwrap_or_default();
    let mut program = LineProgram::new(
        encoding,
        gimli::LineEncoding::default(),
        LineString::String(debug.comp_dir.as_bytes().to_vec()),
        LineString::String(cu_name.as_bytes().to_vec()),
        None,
    );
    let mut file_ids = Vec::with_capacity(files.len());
    for name in debug.files.get(files.clone()).unwrap_or(&[]) {
        let (dir, base) = split_path(name);
        let dir_id = if dir.is_empty() {
            program.default_directory()
        } else {
            program.add_directory(LineString::String(dir.as_bytes().to_vec()))
        };
        file_ids.push(program.add_file(LineString::String(base.as_bytes().to_vec()), dir_id, None));
    }

    // One sequence per executable section, or, in a section shared with other units (MIPS
    // files appended in one .text), one per run of this unit's rows: the unit then covers
    // only its own code, so gdb finds the right unit for a pc.
    let mut code_ranges: Vec<(u64, u64)> = Vec::new();
    let mut shares_a_section = false;
    for s in image
        .sections
        .iter()
        .filter(|s| s.exec && !s.data.is_empty())
    {
        let end = s.addr + s.data.len() as u64;
        // Rows of unknown files are dropped.
        let all: Vec<&LineRow> = debug
            .lines
            .iter()
            .filter(|r| r.addr >= s.addr && r.addr < end)
            .filter(|r| (r.file as usize) < debug.files.len())
            .collect();
        let own = |r: &LineRow| files.contains(&(r.file as usize));
        let mut runs: Vec<(u64, u64, Vec<&LineRow>)> = Vec::new();
        if all.iter().all(|r| own(r)) {
            if !all.is_empty() {
                runs.push((s.addr, end, all));
            }
        } else {
            shares_a_section |= all.iter().any(|r| own(r));
            let mut i = 0;
            while i < all.len() {
                if !own(all[i]) {
                    i += 1;
                    continue;
                }
                let first = i;
                while i < all.len() && own(all[i]) {
                    i += 1;
                }
                // Up to the next other unit's row past this run's rows (two units may both
                // have a row at one address).
                let last = all[i - 1].addr;
                let run_end = all[i..]
                    .iter()
                    .map(|r| r.addr)
                    .find(|&a| a > last)
                    .unwrap_or(end);
                if run_end > all[first].addr {
                    runs.push((all[first].addr, run_end, all[first..i].to_vec()));
                }
            }
        }
        for (run_start, run_end, rows) in runs {
            code_ranges.push((run_start, run_end));
            program.begin_sequence(Some(Address::Constant(run_start)));
            let mut last = None;
            let mut last_loc = None;
            for r in rows {
                if last.is_some_and(|a| a >= r.addr) {
                    continue; // not ascending: keep the first row for an address
                }
                last = Some(r.addr);
                // Consecutive words of one line (a pseudo-instruction, a macro call) share a
                // row, as gas does for assembly: `info line` then shows the whole expansion.
                if last_loc == Some((r.file, r.line)) {
                    continue;
                }
                last_loc = Some((r.file, r.line));
                let row = program.row();
                row.address_offset = r.addr - run_start;
                row.file = file_ids[r.file as usize - files.start];
                row.line = u64::from(r.line);
                program.generate_row();
            }
            program.end_sequence(run_end - run_start);
        }
    }
    let code_lo = code_ranges.iter().map(|r| r.0).min().unwrap_or(u64::MAX);
    let code_hi = code_ranges.iter().map(|r| r.1).max().unwrap_or(0);
    unit.line_program = program;

    let root = unit.root();
    {
        let cu = unit.get_mut(root);
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
        }
    }
    if shares_a_section && code_ranges.len() > 1 {
        // Runs of code with other units' code between them.
        let list = code_ranges
            .iter()
            .map(|&(begin, end)| Range::OffsetPair {
                begin: begin - code_lo,
                end: end - code_lo,
            })
            .collect();
        let ranges = unit.ranges.add(RangeList(list));
        unit.get_mut(root)
            .set(gimli::DW_AT_ranges, AttributeValue::RangeListRef(ranges));
    } else if code_lo < code_hi {
        unit.get_mut(root).set(
            gimli::DW_AT_high_pc,
            AttributeValue::Address(Address::Constant(code_hi)),
        );
    }
    let cu_base = if code_lo < code_hi { code_lo } else { 0 };

    let mut type_ids: Vec<UnitEntryId> = Vec::new();
    for t in &debug.types {
        let id = unit.add(root, gimli::DW_TAG_base_type);
        let e = unit.get_mut(id);
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
    for v in debug.variables.iter().filter(|v| owns(v.addr)) {
        let Some(&base) = type_ids.get(v.ty) else {
            continue;
        };
        let ty = match v.count {
            None => base,
            Some(n) => match arrays.iter().find(|(k, _)| *k == (v.ty, n)) {
                Some(&(_, id)) => id,
                None => {
                    let id = unit.add(root, gimli::DW_TAG_array_type);
                    unit.get_mut(id)
                        .set(gimli::DW_AT_type, AttributeValue::UnitRef(base));
                    let sub = unit.add(id, gimli::DW_TAG_subrange_type);
                    unit.get_mut(sub).set(
                        gimli::DW_AT_upper_bound,
                        AttributeValue::Udata(u64::from(n.max(1)) - 1),
                    );
                    arrays.push(((v.ty, n), id));
                    id
                }
            },
        };
        let id = unit.add(root, gimli::DW_TAG_variable);
        let e = unit.get_mut(id);
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
    for f in debug.functions.iter().filter(|f| owns(f.entry)) {
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
            Some(unit.ranges.add(RangeList(list)))
        } else {
            None
        };
        let id = unit.add(root, gimli::DW_TAG_subprogram);
        let e = unit.get_mut(id);
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
                let v = unit.add(id, gimli::DW_TAG_variable);
                let e = unit.get_mut(v);
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
    Ok(())
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
