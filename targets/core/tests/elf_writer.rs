//! The ISA-neutral ELF + DWARF writer: layout, symbols, every DWARF part read back with the
//! `object` and `gimli` readers, the helpers, and every error.

use asmdbg_core::elf::gimli;
use asmdbg_core::elf::object::{
    self, elf, read::elf::ElfFile32, read::elf::FileHeader, read::elf::ProgramHeader, Object,
    ObjectSection, ObjectSymbol, SymbolSection,
};
use asmdbg_core::elf::{
    function_extents, function_spans, propagate_states, split_ranges, write_elf, BaseType, CfaOp,
    ElfDebug, ElfError, ElfImage, ElfSection, ElfSymbol, ElfSymbolKind, Extent, FrameCie,
    FrameDesc, Function, GdbScript, LineRow, TypeEncoding, Variable, EM_MIPS,
};

fn sym(name: &str, addr: u64, size: u64, kind: ElfSymbolKind, global: bool) -> ElfSymbol {
    ElfSymbol {
        name: name.into(),
        addr,
        size,
        kind,
        global,
    }
}

fn image() -> ElfImage {
    ElfImage {
        machine: EM_MIPS,
        e_flags: 0x5000_1000,
        entry: 0x40_0000,
        sections: vec![
            ElfSection {
                name: ".text".into(),
                addr: 0x40_0000,
                data: (0..6u32)
                    .flat_map(|i| (0x2400_0000 + i).to_le_bytes())
                    .collect(),
                exec: true,
            },
            ElfSection {
                name: ".data".into(),
                addr: 0x1001_0000,
                data: vec![5, 0, 0, 0, b'h', b'i', 0, 0],
                exec: false,
            },
            ElfSection {
                name: ".bss".into(),
                addr: 0x2000_0000,
                data: vec![],
                exec: false,
            },
        ],
        symbols: vec![
            sym("main", 0x40_0000, 16, ElfSymbolKind::Func, true),
            sym("helper", 0x40_0010, 8, ElfSymbolKind::Func, false),
            sym("loop", 0x40_0004, 0, ElfSymbolKind::NoType, false),
            sym("count", 0x1001_0000, 4, ElfSymbolKind::Object, true),
            sym("end", 0x40_0018, 0, ElfSymbolKind::NoType, false),
            sym("far", 0x3000_0000, 0, ElfSymbolKind::NoType, false),
        ],
        debug: ElfDebug {
            files: vec!["dir/prog.s".into(), "inc.s".into()],
            unit_starts: Vec::new(),
            comp_dir: "/work".into(),
            producer: "test producer".into(),
            lines: vec![
                LineRow {
                    addr: 0x40_0000,
                    file: 0,
                    line: 3,
                },
                LineRow {
                    addr: 0x40_0004,
                    file: 0,
                    line: 4,
                },
                LineRow {
                    addr: 0x40_0008,
                    file: 1,
                    line: 1,
                },
                LineRow {
                    addr: 0x40_0008,
                    file: 0,
                    line: 99,
                },
                LineRow {
                    addr: 0x40_000c,
                    file: 7,
                    line: 5,
                },
                LineRow {
                    addr: 0x40_0010,
                    file: 0,
                    line: 9,
                },
                LineRow {
                    addr: 0x1001_0000,
                    file: 0,
                    line: 20,
                },
            ],
            types: vec![
                BaseType::new("int", 4, TypeEncoding::Signed),
                BaseType::new("char", 1, TypeEncoding::Char),
            ],
            variables: vec![
                Variable {
                    name: "count".into(),
                    addr: 0x1001_0000,
                    ty: 0,
                    count: None,
                    global: true,
                },
                Variable {
                    name: "msg".into(),
                    addr: 0x1001_0004,
                    ty: 1,
                    count: Some(3),
                    global: false,
                },
                Variable {
                    name: "ghost".into(),
                    addr: 0x1001_0004,
                    ty: 9,
                    count: None,
                    global: false,
                },
            ],
            functions: vec![
                Function {
                    name: "main".into(),
                    entry: 0x40_0000,
                    ranges: vec![(0x40_0000, 0x40_0008), (0x40_0008, 0x40_0010)],
                    global: true,
                },
                Function {
                    name: "helper".into(),
                    entry: 0x40_0010,
                    ranges: vec![(0x40_0010, 0x40_0018)],
                    global: false,
                },
            ],
            data_as_locals: false,
            frame_cie: Some(FrameCie {
                code_align: 4,
                data_align: -4,
                ra_register: 31,
                initial: vec![CfaOp::DefCfa(29, 0), CfaOp::SameValue(31)],
            }),
            frames: vec![FrameDesc {
                start: 0x40_0010,
                len: 8,
                ops: vec![
                    (0x40_0014, CfaOp::DefCfaOffset(8)),
                    (0x40_0014, CfaOp::Offset(31, -4)),
                    (0x40_0018, CfaOp::Restore(31)),
                ],
            }],
        },
        gdb_script: Some(GdbScript {
            name: "asmdbg-helpers-test".into(),
            text: "import gdb\n".into(),
        }),
    }
}

/// gdb finds the inline script in `.debug_gdb_scripts`: the Python-text kind (4), the name's
/// line, the text, a NUL; not loaded into memory.
#[test]
fn the_gdb_script_is_an_inline_python_entry() {
    let bytes = write_elf(&image()).expect("writes");
    let file = ElfFile32::<object::Endianness>::parse(&*bytes).expect("parses");
    let section = file.section_by_name(".debug_gdb_scripts").expect("present");
    assert_eq!(section.address(), 0);
    assert_eq!(
        section.data().unwrap(),
        b"\x04asmdbg-helpers-test\nimport gdb\n\0"
    );
    let mut no_script = image();
    no_script.gdb_script = None;
    let bytes = write_elf(&no_script).expect("writes");
    let file = ElfFile32::<object::Endianness>::parse(&*bytes).expect("parses");
    assert!(file.section_by_name(".debug_gdb_scripts").is_none());
    let mut nul = image();
    nul.gdb_script.as_mut().unwrap().text.push('\0');
    assert!(matches!(write_elf(&nul), Err(ElfError::NulInName { .. })));
}

#[test]
fn header_sections_and_program_headers() {
    let bytes = write_elf(&image()).expect("writes");
    let file = ElfFile32::<object::Endianness>::parse(&*bytes).expect("parses");
    let header = file.elf_header();
    let e = object::Endianness::Little;
    assert_eq!(header.e_machine(e), elf::EM_MIPS);
    assert_eq!(header.e_type(e), elf::ET_EXEC);
    assert_eq!(header.e_flags(e), 0x5000_1000);
    assert_eq!(file.entry(), 0x40_0000);
    // The empty .bss is left out; code is R+X, data R+W.
    let phdrs = header.program_headers(e, &*bytes).unwrap();
    let flags: Vec<(u32, u32)> = phdrs.iter().map(|p| (p.p_vaddr(e), p.p_flags(e))).collect();
    assert_eq!(
        flags,
        [
            (0x40_0000, elf::PF_R | elf::PF_X),
            (0x1001_0000, elf::PF_R | elf::PF_W)
        ]
    );
    for p in phdrs {
        let off = p.p_offset(e) as usize;
        let len = p.p_filesz(e) as usize;
        let section = file
            .sections()
            .find(|s| s.address() == u64::from(p.p_vaddr(e)))
            .unwrap();
        assert_eq!(&bytes[off..off + len], section.data().unwrap());
    }
    assert!(file.section_by_name(".bss").is_none());
    let names: Vec<&str> = file.sections().filter_map(|s| s.name().ok()).collect();
    for want in [
        ".text",
        ".data",
        ".debug_abbrev",
        ".debug_info",
        ".debug_line",
        ".debug_ranges",
        ".debug_frame",
        ".symtab",
        ".strtab",
        ".shstrtab",
    ] {
        assert!(names.contains(&want), "{want} in {names:?}");
    }
}

#[test]
fn symbols_are_local_first_and_attached_to_their_sections() {
    let bytes = write_elf(&image()).unwrap();
    let file = object::File::parse(&*bytes).unwrap();
    let syms: Vec<_> = file.symbols().collect();
    let first_global = syms.iter().position(|s| s.is_global()).unwrap();
    assert!(syms[first_global..].iter().all(|s| s.is_global()));
    let text = file.section_by_name(".text").unwrap().index();
    let by = |n: &str| syms.iter().find(|s| s.name() == Ok(n)).unwrap();
    assert_eq!(by("main").section(), SymbolSection::Section(text));
    assert_eq!(by("main").kind(), object::SymbolKind::Text);
    assert_eq!(by("count").kind(), object::SymbolKind::Data);
    assert_eq!(by("loop").kind(), object::SymbolKind::Unknown); // STT_NOTYPE
                                                                // A label just past the end of .text belongs to it; one outside every section is absolute.
    assert_eq!(by("end").section(), SymbolSection::Section(text));
    assert_eq!(by("far").section(), SymbolSection::Absolute);
}

type R<'a> = gimli::EndianSlice<'a, gimli::LittleEndian>;

fn dwarf(bytes: &[u8]) -> gimli::DwarfSections<Vec<u8>> {
    let file = object::File::parse(bytes).unwrap();
    gimli::DwarfSections::load(|id| -> Result<Vec<u8>, gimli::Error> {
        Ok(file
            .section_by_name(id.name())
            .and_then(|s| s.data().ok())
            .map(|d| d.to_vec())
            .unwrap_or_default())
    })
    .unwrap()
}

/// A readable dump of the DIE tree: tags and attributes, with references as tags.
fn dump_dies(bytes: &[u8]) -> String {
    let owned = dwarf(bytes);
    let dw = owned.borrow(|s| R::new(s, gimli::LittleEndian));
    let mut out = String::new();
    let mut units = dw.units();
    while let Some(header) = units.next().unwrap() {
        out += &format!("unit version {}\n", header.version());
        let unit = dw.unit(header).unwrap();
        let mut entries = unit.entries();
        let mut depth = 0isize;
        while let Some((delta, entry)) = entries.next_dfs().unwrap() {
            depth += delta;
            out += &format!("{}{}\n", "  ".repeat(depth as usize), entry.tag());
            let mut attrs = entry.attrs();
            while let Some(attr) = attrs.next().unwrap() {
                let value = match attr.value() {
                    gimli::AttributeValue::String(s) => format!("{:?}", s.to_string_lossy()),
                    gimli::AttributeValue::Addr(a) => format!("{a:#x}"),
                    gimli::AttributeValue::UnitRef(o) => {
                        format!("<{}>", unit.entry(o).unwrap().tag())
                    }
                    gimli::AttributeValue::Exprloc(e) => format!("expr {:02x?}", e.0.slice()),
                    other => format!("{other:?}"),
                };
                out += &format!(
                    "{}  {} = {}\n",
                    "  ".repeat(depth as usize),
                    attr.name(),
                    value
                );
            }
        }
    }
    out
}

#[test]
fn debug_info_tree() {
    let bytes = write_elf(&image()).unwrap();
    insta::assert_snapshot!(dump_dies(&bytes));
}

#[test]
fn compile_unit_ranges_and_line_table() {
    let bytes = write_elf(&image()).unwrap();
    let owned = dwarf(&bytes);
    let dw = owned.borrow(|s| R::new(s, gimli::LittleEndian));
    let header = dw.units().next().unwrap().unwrap();
    let unit = dw.unit(header).unwrap();
    // DW_AT_ranges of main: two ranges, relative to the CU's low_pc in .debug_ranges.
    let mut entries = unit.entries();
    let mut main_ranges = Vec::new();
    while let Some((_, e)) = entries.next_dfs().unwrap() {
        if e.tag() == gimli::DW_TAG_subprogram {
            let name = e.attr_value(gimli::DW_AT_name).unwrap().unwrap();
            if dw.attr_string(&unit, name).unwrap().slice() == b"main" {
                let mut ranges = dw.die_ranges(&unit, e).unwrap();
                while let Some(r) = ranges.next().unwrap() {
                    main_ranges.push((r.begin, r.end));
                }
            }
        }
    }
    assert_eq!(
        main_ranges,
        [(0x40_0000, 0x40_0008), (0x40_0008, 0x40_0010)]
    );

    // Line rows: code only, the first row of an address wins, unknown files are dropped.
    let program = unit.line_program.clone().unwrap();
    let mut rows = program.rows();
    let mut got = Vec::new();
    while let Some((header, row)) = rows.next_row().unwrap() {
        if row.end_sequence() {
            got.push((row.address(), "end".to_string(), 0));
            continue;
        }
        let file = row.file(header).unwrap();
        let name = dw.attr_string(&unit, file.path_name()).unwrap();
        let dir = file
            .directory(header)
            .map(|d| {
                dw.attr_string(&unit, d)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .unwrap_or_default();
        got.push((
            row.address(),
            format!("{dir}|{}", name.to_string_lossy()),
            row.line().map_or(0, |l| l.get()),
        ));
    }
    let want: Vec<(u64, String, u64)> = vec![
        (0x40_0000, "dir|prog.s".into(), 3),
        (0x40_0004, "dir|prog.s".into(), 4),
        (0x40_0008, "/work|inc.s".into(), 1),
        (0x40_0010, "dir|prog.s".into(), 9),
        (0x40_0018, "end".into(), 0),
    ];
    assert_eq!(got, want);
}

#[test]
fn frame_table_reads_back() {
    use asmdbg_testsupport::unwind::{FrameTable, RegisterRule, Row};
    let bytes = write_elf(&image()).unwrap();
    let frames = FrameTable::from_elf(&bytes).unwrap();
    assert_eq!(
        frames.row(0x40_0014, 31),
        Ok(Some(Row {
            cfa_register: 29,
            cfa_offset: 8,
            ra: RegisterRule::Offset(-4)
        }))
    );
    let row = frames.row(0x40_0010, 31).unwrap().unwrap();
    assert_eq!(row.ra, RegisterRule::SameValue);
    // No FDE covers main.
    assert_eq!(frames.row(0x40_0000, 31), Ok(None));
}

#[test]
fn minimal_image_has_no_optional_sections() {
    let mut img = image();
    img.debug.functions.clear();
    img.debug.frames.clear();
    let bytes = write_elf(&img).unwrap();
    let file = object::File::parse(&*bytes).unwrap();
    assert!(file.section_by_name(".debug_ranges").is_none());
    assert!(file.section_by_name(".debug_frame").is_none());
    let empty = write_elf(&ElfImage::default()).unwrap();
    let file = object::File::parse(&*empty).unwrap();
    assert!(file.section_by_name(".debug_info").is_some());
}

#[test]
fn every_error() {
    let mut img = image();
    img.sections[1].addr = 0x40_0004;
    assert!(matches!(write_elf(&img), Err(ElfError::Overlap { .. })));

    let mut img = image();
    img.sections[0].addr = 0xffff_fffe;
    assert!(matches!(
        write_elf(&img),
        Err(ElfError::SectionRange { .. })
    ));

    let mut img = image();
    img.sections[0].name.clear();
    assert!(matches!(write_elf(&img), Err(ElfError::EmptySectionName)));

    let mut img = image();
    img.entry = 1 << 32;
    assert!(matches!(write_elf(&img), Err(ElfError::Address { .. })));

    let mut img = image();
    img.symbols[0].size = u64::MAX;
    assert!(matches!(write_elf(&img), Err(ElfError::Address { .. })));

    let mut img = image();
    img.debug.variables[0].addr = 1 << 40;
    assert!(matches!(write_elf(&img), Err(ElfError::Address { .. })));

    for ranges in [
        vec![],
        vec![(8, 8)],
        vec![(0x40_0008, 0x40_0010), (0x40_0000, 0x40_0004)],
    ] {
        let mut img = image();
        img.debug.functions[0].ranges = ranges;
        assert!(matches!(write_elf(&img), Err(ElfError::BadRange { .. })));
    }
    // A split range below the CU's low_pc cannot be encoded.
    let mut img = image();
    img.debug.functions[0].ranges = vec![(0x10, 0x20), (0x40_0000, 0x40_0004)];
    assert!(matches!(write_elf(&img), Err(ElfError::BadRange { .. })));

    let mut img = image();
    img.debug.frames[0]
        .ops
        .push((0x40_0100, CfaOp::Restore(31)));
    assert!(matches!(write_elf(&img), Err(ElfError::BadFrame { .. })));
    let mut img = image();
    img.debug.frames[0].ops.reverse();
    assert!(matches!(write_elf(&img), Err(ElfError::BadFrame { .. })));
    let mut img = image();
    img.debug.frames[0].len = 1 << 33;
    assert!(matches!(write_elf(&img), Err(ElfError::BadFrame { .. })));
    // An offset that is not a multiple of the data alignment: gimli refuses it.
    let mut img = image();
    img.debug.frames[0].ops[1].1 = CfaOp::Offset(31, -3);
    assert!(matches!(write_elf(&img), Err(ElfError::Dwarf(_))));
    // Messages name the problem.
    let mut img = image();
    img.sections[1].addr = 0x40_0004;
    let msg = write_elf(&img).unwrap_err().to_string();
    assert_eq!(msg, "sections `.text` and `.data` overlap");
}

#[test]
fn helpers() {
    assert_eq!(
        split_ranges(0, 16, &[8, 4, 4, 0, 16, 40]),
        [(0, 4), (4, 8), (8, 16)]
    );
    assert_eq!(split_ranges(0, 8, &[]), [(0, 8)]);
    assert!(split_ranges(8, 8, &[]).is_empty());
    assert_eq!(
        function_spans(&[20, 0, 8, 8, 100], &[(0, 16), (20, 28)]),
        [(0, 8), (8, 16), (20, 28)]
    );
    // 0 → 1 → 3 (jump over 2); 2 unreached takes 1's output; 4 after a return is also
    // unreached and continues from 3.
    let succ = |i: usize| match i {
        0 => vec![1],
        1 => vec![3],
        3 => vec![],
        _ => vec![i + 1],
    };
    // Extents by reachability (4-byte instructions): main at 0 jumps (at 8) to its tail at
    // 28, after f (12..24, entered at 12 and returning at 20); 24 is unreached and stays with
    // f, as the old rule cut it; a second run holds g alone.
    let succ_at = |a: u64| match a {
        8 => vec![28],
        20 => vec![],
        32 => vec![],
        a => vec![a + 4],
    };
    assert_eq!(
        function_extents(&[12, 0, 40], &[(0, 36), (40, 48)], 4, succ_at),
        [
            Extent {
                entry: 0,
                ranges: vec![(0, 12), (28, 36)]
            },
            Extent {
                entry: 12,
                ranges: vec![(12, 28)]
            },
            Extent {
                entry: 40,
                ranges: vec![(40, 48)]
            },
        ]
    );
    assert_eq!(
        Extent {
            entry: 0,
            ranges: vec![(0, 12), (28, 36)]
        }
        .span(),
        36
    );
    let states = propagate_states(5, 0, |i, s| s + 10 * (i + 1), succ);
    assert_eq!(states, [0, 10, 30, 30, 70]);
    assert!(propagate_states(0, 0, |_, s: i32| s, |_| vec![]).is_empty());
}

#[test]
fn data_as_locals_lists_the_variables_in_every_function() {
    let mut img = image();
    img.debug.data_as_locals = true;
    let bytes = write_elf(&img).unwrap();
    let owned = dwarf(&bytes);
    let dw = owned.borrow(|s| R::new(s, gimli::LittleEndian));
    let header = dw.units().next().unwrap().unwrap();
    let unit = dw.unit(header).unwrap();
    let mut entries = unit.entries();
    let mut depth = 0isize;
    let mut in_function = Vec::new();
    while let Some((delta, e)) = entries.next_dfs().unwrap() {
        depth += delta;
        if depth == 2 && e.tag() == gimli::DW_TAG_variable {
            let name = e.attr_value(gimli::DW_AT_name).unwrap().unwrap();
            let name = dw
                .attr_string(&unit, name)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            assert!(e.attr_value(gimli::DW_AT_external).unwrap().is_none());
            assert!(e.attr_value(gimli::DW_AT_location).unwrap().is_some());
            in_function.push(name);
        }
    }
    // Two functions × the two variables with a known type.
    assert_eq!(in_function, ["count", "msg", "count", "msg"]);
}

#[test]
fn consecutive_words_of_one_line_share_a_row() {
    let mut img = image();
    img.debug.functions.clear();
    img.debug.lines = [
        (0x40_0000, 3),
        (0x40_0004, 3),
        (0x40_0008, 4),
        (0x40_000c, 3),
    ]
    .iter()
    .map(|&(addr, line)| LineRow {
        addr,
        file: 0,
        line,
    })
    .collect();
    let bytes = write_elf(&img).unwrap();
    let owned = dwarf(&bytes);
    let dw = owned.borrow(|s| R::new(s, gimli::LittleEndian));
    let header = dw.units().next().unwrap().unwrap();
    let unit = dw.unit(header).unwrap();
    let mut rows = unit.line_program.clone().unwrap().rows();
    let mut got = Vec::new();
    while let Some((_, row)) = rows.next_row().unwrap() {
        if !row.end_sequence() {
            got.push((row.address(), row.line().map_or(0, |l| l.get())));
        }
    }
    assert_eq!(got, [(0x40_0000, 3), (0x40_0008, 4), (0x40_000c, 3)]);
}

#[test]
fn unit_starts_split_files_functions_and_lines_into_compile_units() {
    // inc.s becomes a unit of its own, with a function and a variable where its lines are.
    let mut image = image();
    image.debug.unit_starts = vec![1];
    image.debug.lines.push(LineRow {
        addr: 0x40_0014,
        file: 1,
        line: 2,
    });
    let bytes = write_elf(&image).unwrap();
    let owned = dwarf(&bytes);
    let dw = owned.borrow(|s| R::new(s, gimli::LittleEndian));
    let mut units = dw.units();
    let mut seen = Vec::new();
    while let Some(header) = units.next().unwrap() {
        let unit = dw.unit(header).unwrap();
        let mut entries = unit.entries();
        let mut name = String::new();
        let mut subprograms = Vec::new();
        while let Some((_, e)) = entries.next_dfs().unwrap() {
            let Some(value) = e.attr_value(gimli::DW_AT_name).unwrap() else {
                continue;
            };
            let text = dw
                .attr_string(&unit, value)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            match e.tag() {
                gimli::DW_TAG_compile_unit => name = text,
                gimli::DW_TAG_subprogram => subprograms.push(text),
                _ => {}
            }
        }
        let mut rows = unit.line_program.clone().unwrap().rows();
        let mut lines = Vec::new();
        while let Some((_, row)) = rows.next_row().unwrap() {
            if !row.end_sequence() {
                lines.push((row.address(), row.line().map_or(0, |l| l.get())));
            }
        }
        seen.push((name, subprograms, lines));
    }
    assert_eq!(
        seen,
        [
            (
                "dir/prog.s".to_string(),
                vec!["main".to_string()],
                // 0x40_0008's first row went to inc.s's unit: here the next one counts.
                vec![
                    (0x40_0000, 3),
                    (0x40_0004, 4),
                    (0x40_0008, 99),
                    (0x40_0010, 9)
                ]
            ),
            (
                "inc.s".to_string(),
                vec!["helper".to_string()],
                vec![(0x40_0008, 1), (0x40_0014, 2)]
            ),
        ]
    );
}
