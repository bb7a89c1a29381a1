//! core's one ELF build sequence on a toy ISA: functions come from the decoder's flow (the
//! entry and every call target), frames follow it, data labels are typed from the
//! assembler's data items, and gdb's delay-slot belief cuts function ranges.

use asmdbg_core::elf::{
    build_image, BaseType, CfaOp, ElfImage, ElfIsa, ElfSymbolKind, FrameCie, ImageFacts, ImageRun,
    TypeEncoding, VarType,
};
use asmdbg_core::{
    DataDirective, DataItem, DebugInfo, Flow, SourceFile, SourceLoc, Symbol, SymbolKind,
    SymbolTable,
};

/// Two-byte instructions: `[op, arg]`. 0 next, 1 call the instruction at byte `arg`, 2 return,
/// 3 push `arg` bytes, 4 stop. gdb's addresses are native + 0x1000.
#[derive(Debug, Clone, Copy)]
struct Toy {
    delay: bool,
    names: bool,
}

const BASE: u64 = 0x1000;

impl ElfIsa for Toy {
    type Instruction = [u8; 2];
    type Frame = i32;
    const INSN_BYTES: u64 = 2;

    fn machine(&self) -> u16 {
        0
    }

    fn producer(&self) -> &'static str {
        "toy"
    }

    fn gdb_helpers(&self) -> (&'static str, &'static str) {
        ("toy", "TOY = 1\n")
    }

    fn gdb_addr(&self, native: u64) -> Option<u64> {
        Some(BASE + native)
    }

    fn decode(&self, bytes: &[u8]) -> [u8; 2] {
        [bytes[0], bytes[1]]
    }

    fn flow(&self, insn: &[u8; 2], _addr: u64) -> Flow {
        match insn[0] {
            1 => Flow::Call {
                target: Some(BASE + u64::from(insn[1])),
            },
            2 => Flow::Return,
            4 => Flow::Stop,
            _ => Flow::Next,
        }
    }

    fn gdb_assumes_delay_slot(&self, insn: &[u8; 2]) -> bool {
        self.delay && insn[0] == 1
    }

    fn names_unlabelled_functions(&self) -> bool {
        self.names
    }

    fn types(&self) -> Vec<BaseType> {
        vec![
            BaseType::new("int", 2, TypeEncoding::Signed),
            BaseType::new("char", 1, TypeEncoding::Char),
        ]
    }

    fn variable_type(&self, item: Option<&DataItem>) -> VarType {
        match item.map(|i| i.directive) {
            Some(d) if d.is_string() => VarType::String(1),
            _ => VarType::Scalar(0),
        }
    }

    fn frame_cie(&self) -> FrameCie {
        FrameCie {
            code_align: 2,
            data_align: -2,
            ra_register: 14,
            initial: vec![CfaOp::DefCfa(13, 0)],
        }
    }

    fn entry_frame(&self) -> i32 {
        0
    }

    fn frame_after(&self, frame: i32, insn: &[u8; 2], _addr: u64) -> i32 {
        if insn[0] == 3 {
            frame + i32::from(insn[1])
        } else {
            frame
        }
    }

    fn cfa_change(&self, before: i32, after: i32) -> Option<CfaOp> {
        (before != after).then_some(CfaOp::DefCfaOffset(after))
    }

    fn ra_change(&self, _before: i32, _after: i32) -> Option<CfaOp> {
        None
    }
}

/// main: call 6 (unlabelled), call sub, stop | 6: return | sub: push 4, return | data
fn image(isa: Toy) -> ElfImage {
    let code = vec![1, 6, 1, 8, 4, 0, 2, 0, 3, 4, 2, 0];
    let mut info = DebugInfo::default();
    let file = info
        .sources
        .add(SourceFile::new("toy.s", "a\nb\nc\nd\ne\nf\n"));
    info.symbols = SymbolTable::new(false);
    for (name, addr, kind) in [
        ("main", 0, SymbolKind::Code),
        ("sub", 8, SymbolKind::Code),
        ("msg", 12, SymbolKind::Data),
        ("n", 16, SymbolKind::Data),
    ] {
        info.symbols
            .insert(Symbol {
                name: name.into(),
                addr,
                kind,
                global: false,
            })
            .unwrap();
    }
    for i in 0..6 {
        info.lines.insert(
            2 * i,
            SourceLoc {
                file,
                line: 1 + i as u32,
            },
        );
    }
    info.data.insert(DataItem {
        addr: 12,
        end: 16,
        directive: DataDirective::Asciiz,
        elem_size: 1,
        count: 4,
    });
    build_image(
        &isa,
        ImageFacts {
            info: &info,
            runs: vec![
                ImageRun {
                    base: ".text",
                    addr: BASE,
                    data: code,
                    exec: true,
                },
                ImageRun {
                    base: ".data",
                    addr: BASE + 12,
                    data: b"hi\0\0\x05\0".to_vec(),
                    exec: false,
                },
            ],
            entry: BASE,
            extra_function_starts: Vec::new(),
        },
    )
}

#[test]
fn functions_are_the_entry_and_the_call_targets() {
    let img = image(Toy {
        delay: false,
        names: false,
    });
    let funcs: Vec<(&str, u64, u64)> = img
        .symbols
        .iter()
        .filter(|s| s.kind == ElfSymbolKind::Func)
        .map(|s| (s.name.as_str(), s.addr, s.size))
        .collect();
    // `main` (global: it is main) and `sub`; the unlabelled call target at 6 has a frame
    // description but no symbol.
    assert_eq!(funcs, [("main", BASE, 6), ("sub", BASE + 8, 4)]);
    assert!(img.symbols[0].global);
    let starts: Vec<u64> = img.debug.frames.iter().map(|f| f.start).collect();
    assert_eq!(starts, [BASE, BASE + 6, BASE + 8]);
    // The entry is the outermost frame; `sub` pushes 4 bytes after its first instruction.
    assert_eq!(img.debug.frames[0].ops, [(BASE, CfaOp::Undefined(14))]);
    assert_eq!(
        img.debug.frames[2].ops,
        [(BASE + 10, CfaOp::DefCfaOffset(4))]
    );
    // Subprograms are whole; lines only in code.
    assert_eq!(img.debug.functions[0].ranges, [(BASE, BASE + 6)]);
    assert_eq!(img.debug.lines.len(), 6);
}

#[test]
fn unlabelled_functions_get_names_when_the_isa_wants_them() {
    let img = image(Toy {
        delay: false,
        names: true,
    });
    let names: Vec<&str> = img
        .debug
        .functions
        .iter()
        .map(|f| f.name.as_str())
        .collect();
    assert_eq!(names, ["main", "_code_00001006", "sub"]);
}

#[test]
fn gdbs_delay_slot_belief_cuts_ranges_after_calls() {
    let img = image(Toy {
        delay: true,
        names: false,
    });
    assert_eq!(
        img.debug.functions[0].ranges,
        [(BASE, BASE + 2), (BASE + 2, BASE + 4), (BASE + 4, BASE + 6)]
    );
}

#[test]
fn data_labels_are_typed_from_the_assemblers_items() {
    let img = image(Toy {
        delay: false,
        names: false,
    });
    let vars: Vec<(&str, usize, Option<u32>)> = img
        .debug
        .variables
        .iter()
        .map(|v| (v.name.as_str(), v.ty, v.count))
        .collect();
    // `msg` is a string up to its NUL (not into the padding); `n` has no item: a scalar.
    assert_eq!(vars, [("msg", 1, Some(3)), ("n", 0, None)]);
    let objects: Vec<(&str, u64)> = img
        .symbols
        .iter()
        .filter(|s| s.kind == ElfSymbolKind::Object)
        .map(|s| (s.name.as_str(), s.size))
        .collect();
    assert_eq!(objects, [("msg", 4), ("n", 2)]);
}

#[test]
fn the_image_carries_the_helper_script_with_the_isas_own() {
    let img = image(Toy {
        delay: false,
        names: false,
    });
    let script = img.gdb_script.expect("a script");
    assert_eq!(script.name, "asmdbg-helpers-toy");
    assert!(
        script.text.starts_with("ASMDBG_ISA = \"toy\"\n"),
        "{}",
        script.text
    );
    assert!(script.text.contains(asmdbg_core::elf::HELPERS_PY));
    assert!(script.text.ends_with("TOY = 1\n"));
}
