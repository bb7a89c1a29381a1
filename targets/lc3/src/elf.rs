//! The LC-3 program as an ELF file for gdb-multiarch and VS Code (`asmdbg asm -o game.elf`).
//!
//! gdb sees LC-3 memory at byte address 2 × word address, each word little endian (the gdb stub
//! serves memory that way), so the sections, symbols and line rows here use those addresses.
//! `e_machine` is `EM_NONE`: gdb takes the architecture from the stub's target description.
//!
//! - Words the assembler recorded as written by `.FILL`, `.BLKW` or `.STRINGZ` (its data items
//!   in [`asmdbg_core::DebugInfo`]) go to non-executable `.data` sections, everything else to
//!   `.text` sections (one section per contiguous run).
//! - The entry and every call target (`JSR`, from [`Instruction::flow`]) are functions: `STT_FUNC` with the size up to the next
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
//! - The OS the machine runs ([`elf_with_os`], what `asmdbg debug` writes) as a second compile
//!   unit: its code, labels and lines (the OS source copied where gdb can read it), every trap and
//!   interrupt routine a function. A 2nd-edition TRAP enters its routine like a JSR (return
//!   address in R7), so the routine's frame is an ordinary one. A 3rd-edition TRAP, and every
//!   interrupt and exception, enters through the supervisor stack: the pushed PC is the return
//!   address (followed as the routine moves R6), and the CFA is the caller's R6, which the
//!   processor swapped into the saved USP; DWARF cannot name that register, so gdb reads it
//!   through a shadow word just past LC-3 memory (gdb.rs). Then `next` steps over a TRAP,
//!   `step` enters the routine's source, `finish` returns and `bt` shows the OS frame over the
//!   program's, in all three profiles (tests/gdb_lc3_os.rs).
//!
//! Not found as functions: subroutines only reached through `JSRR` (their address loaded by
//! `LEA`/`.FILL`); they stay plain labels inside the function before them.
//!
//! The build sequence itself is core's [`build_image`]; this file gives only LC-3's facts
//! ([`Lc3Elf`]).

use asmdbg_core::elf::{
    build_image, write_elf, BaseType, CfaOp, ElfError, ElfImage, ElfIsa, FrameCie, ImageFacts,
    ImageRun, TypeEncoding, EM_NONE,
};
use asmdbg_core::Flow;

use asmdbg_core::{DebugInfo, SourceFile, SourceLoc};

use crate::decode::{decode, Instruction};
use crate::os::{OsImage, OS_ORIGIN};
use crate::program::Program;

/// gdb's address of LC-3 word address `addr`.
pub const fn gdb_addr(addr: u16) -> u64 {
    2 * addr as u64
}

/// The ELF file (ELF32 LE, `EM_NONE`, DWARF) for an assembled program.
pub fn elf_from_program(program: &Program) -> Result<Vec<u8>, ElfError> {
    write_elf(&elf_image(program, None))
}

/// The OS image that runs under the program, as the ELF describes it: its code and vector
/// tables, its labels, and its source lines in `source_path` (a copy of the OS source that
/// gdb can read: see backend.rs).
#[derive(Debug, Clone, Copy)]
pub struct OsPart<'a> {
    pub image: &'a OsImage,
    pub source_path: &'a str,
    /// 3rd-edition TRAP: trap routines are entered through the supervisor stack, as
    /// interrupts are (2nd edition: through R7, as a JSR).
    pub trap_through_stack: bool,
}

/// The ELF file for a program and the OS it runs on: `next` steps over a TRAP, `step` enters
/// the trap routine's source, `finish` and `bt` come back out of it.
pub fn elf_with_os(program: &Program, os: OsPart<'_>) -> Result<Vec<u8>, ElfError> {
    write_elf(&elf_image(program, Some(os)))
}

/// The program's debug information with the OS's added: its source as one more file, its
/// labels (a program label of the same name wins) and its lines and data items.
fn with_os_debug(program: &DebugInfo, os: OsPart<'_>) -> DebugInfo {
    // (The OS file is the last one: elf_image makes it a compile unit of its own.)
    let mut info = program.clone();
    let text = os
        .image
        .debug
        .sources
        .files()
        .first()
        .map(|f| f.text.clone())
        .unwrap_or_default();
    let file = info.sources.add(SourceFile::new(os.source_path, text));
    for symbol in os.image.debug.symbols.iter() {
        let _ = info.symbols.insert(symbol.clone());
    }
    for (addr, loc) in os.image.debug.lines.iter() {
        info.lines.insert(
            addr,
            SourceLoc {
                file,
                line: loc.line,
            },
        );
    }
    for item in os.image.debug.data.iter() {
        info.data.insert(*item);
    }
    info
}

/// The program's own interrupt service routines (a keyboard-interrupt lab's ISR): where a
/// block of the program loaded into the interrupt vector table points, and every block of
/// code that returns with RTI, from its origin (the lab's ISR is a file of its own at its own
/// `.ORIG`; the user program installs it in the table while it runs, which no ELF can see).
/// They are entered through the supervisor stack, as the OS's interrupt routines are.
fn program_interrupt_routines(program: &Program) -> Vec<u64> {
    const RTI: u16 = 0x8000;
    let data = &program.debug.data;
    let mut routines = Vec::new();
    for seg in &program.segments {
        let span = seg.span();
        for (i, &word) in seg.words.iter().enumerate() {
            let addr = span.start + i as u32;
            if (0x0100..0x0200).contains(&addr) && word != 0 {
                routines.push(gdb_addr(word));
            }
        }
        let returns_with_rti = seg
            .words
            .iter()
            .enumerate()
            .any(|(i, &w)| w == RTI && !data.is_data(u64::from(span.start) + i as u64));
        if returns_with_rti && span.start >= 0x0200 {
            routines.push(gdb_addr(seg.origin));
        }
    }
    routines
}

/// gdb's ARM register numbers the LC-3 stub maps: sp = R6, lr = 2 × R7.
const SP: u16 = 13;
const LR: u16 = 14;

/// Where the caller's return address (R7) is, before an instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SavedR7 {
    /// Still in R7 (gdb's lr).
    InR7,
    /// At word address CFA + k (`STR R7, R6, #n` after the stack adjustments).
    Stack(i32),
    /// At a fixed word address (`ST R7, SAVE_R7`).
    Fixed(u16),
}

/// The frame before an instruction: CFA = R6 + `off` (words, as gdb's sp is R6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lc3Frame {
    off: i32,
    r7: SavedR7,
    /// A routine entered through the supervisor stack (an interrupt or exception, or a
    /// 3rd-edition TRAP): the processor pushed the PSR and the return PC there and swapped the
    /// caller's R6 out into the saved USP; R7 is the caller's own register, not the return.
    trap: bool,
}

/// Word address of the shadow word through which gdb reads the saved USP (gdb byte address
/// 0x20000, just past LC-3 memory; see gdb.rs): unwinding out of a routine entered through the
/// supervisor stack gives the caller's R6 from it.
pub const SAVED_USP_SHADOW: u32 = 0x1_0000;

/// LC-3's facts for core's ELF build: word addresses doubled, 2-byte little-endian words,
/// R6 as the stack pointer and R7 as the link register; `trap_entries` are the gdb addresses
/// of routines entered through the supervisor stack.
#[derive(Debug, Clone, Default)]
pub struct Lc3Elf {
    trap_entries: Vec<u64>,
}

/// The LC-3 commands and `$lc3()` for gdb (LC-3 addresses, not gdb's doubled ones), after the
/// common helpers in the ELF's script: see the file's header.
pub const LC3_HELPERS_PY: &str = include_str!("gdb_helpers.py");

impl ElfIsa for Lc3Elf {
    type Instruction = Instruction;
    type Frame = Lc3Frame;
    const INSN_BYTES: u64 = 2;

    fn machine(&self) -> u16 {
        EM_NONE
    }

    fn producer(&self) -> &'static str {
        "asmdbg LC-3 assembler"
    }

    fn gdb_helpers(&self) -> (&'static str, &'static str) {
        ("lc3", LC3_HELPERS_PY)
    }

    fn gdb_addr(&self, native: u64) -> Option<u64> {
        u16::try_from(native).ok().map(gdb_addr)
    }

    fn decode(&self, bytes: &[u8]) -> Instruction {
        decode(u16::from_le_bytes([bytes[0], bytes[1]]))
    }

    fn flow(&self, insn: &Instruction, addr: u64) -> Flow {
        insn.flow((addr / 2) as u16).map_targets(|t| 2 * t)
    }

    /// `LEA Rn, LABEL` (then, say, `JSRR Rn`): the label's address.
    fn loaded_address(&self, first: &Instruction, _second: &Instruction, addr: u64) -> Option<u64> {
        let Instruction::Lea { offset, .. } = *first else {
            return None;
        };
        let word = ((addr / 2) as u16)
            .wrapping_add(1)
            .wrapping_add(offset as u16);
        Some(gdb_addr(word))
    }

    /// Every LC-3 datum is a `word` (the default variable type): a `.STRINGZ` label prints its
    /// first character's code, as the LC-3 tools show memory.
    fn types(&self) -> Vec<BaseType> {
        vec![BaseType::new("word", 2, TypeEncoding::Signed)]
    }

    fn frame_cie(&self) -> FrameCie {
        FrameCie::at_call(2, -1, SP, LR)
    }

    fn entry_frame(&self) -> Lc3Frame {
        Lc3Frame {
            off: 0,
            r7: SavedR7::InR7,
            trap: false,
        }
    }

    /// At a routine entered through the supervisor stack, R6 points at the pushed PC.
    fn frame_at_start(&self, start: u64) -> Lc3Frame {
        if self.trap_entries.binary_search(&start).is_ok() {
            Lc3Frame {
                off: 0,
                r7: SavedR7::Stack(0),
                trap: true,
            }
        } else {
            self.entry_frame()
        }
    }

    /// The CFA of a trap frame is the caller's R6: the saved USP (a user-mode caller's stack,
    /// which is where programs run), read through the shadow word. So it stays put while the
    /// routine pushes and pops, and it is never below the caller's own CFA, as gdb requires of
    /// a caller; the caller's R6 is the CFA, gdb's default rule for the stack pointer.
    fn start_rules(&self, frame: Lc3Frame) -> Vec<CfaOp> {
        if !frame.trap {
            return Vec::new();
        }
        vec![CfaOp::DefCfaLoad {
            addr: i64::from(SAVED_USP_SHADOW),
            addr_scale: 2,
            size: 2,
        }]
    }

    fn frame_after(&self, frame: Lc3Frame, insn: &Instruction, addr: u64) -> Lc3Frame {
        let mut st = frame;
        let word_addr = (addr / 2) as u16;
        match *insn {
            Instruction::AddImm { dr: 6, sr1: 6, imm } => st.off -= i32::from(imm),
            // R7 is not where a trap frame's return address is.
            _ if st.trap => {}
            Instruction::Str {
                sr: 7,
                base: 6,
                offset,
            } => st.r7 = SavedR7::Stack(i32::from(offset) - st.off),
            Instruction::St { sr: 7, offset } => {
                st.r7 = SavedR7::Fixed(word_addr.wrapping_add(1).wrapping_add(offset as u16));
            }
            Instruction::Ld { dr: 7, .. }
            | Instruction::Ldr { dr: 7, .. }
            | Instruction::Ldi { dr: 7, .. } => st.r7 = SavedR7::InR7,
            _ => {}
        }
        st
    }

    fn cfa_change(&self, before: Lc3Frame, after: Lc3Frame) -> Option<CfaOp> {
        // A trap frame's CFA is fixed at its start (see start_rules).
        (!after.trap && before.off != after.off).then_some(CfaOp::DefCfaOffset(after.off))
    }

    fn ra_change(&self, before: Lc3Frame, after: Lc3Frame) -> Option<CfaOp> {
        // The saved word is a word address; gdb's lr is a byte address: double both.
        let load = |from_cfa, offset| CfaOp::ValLoad {
            reg: LR,
            from_cfa,
            offset,
            addr_scale: 2,
            size: 2,
            value_scale: 2,
            value_add: 0,
        };
        if after.trap {
            // The pushed PC is `off` words above the current R6.
            return (!before.trap || before.off != after.off).then_some(
                CfaOp::ValLoadFromRegister {
                    reg: LR,
                    base: SP,
                    offset: i64::from(after.off),
                    addr_scale: 2,
                    size: 2,
                    value_scale: 2,
                },
            );
        }
        (before.r7 != after.r7).then(|| match after.r7 {
            SavedR7::InR7 => CfaOp::Restore(LR),
            SavedR7::Stack(k) => load(true, i64::from(k)),
            SavedR7::Fixed(a) => load(false, i64::from(a)),
        })
    }
}

/// The image [`elf_from_program`] and [`elf_with_os`] write.
pub fn elf_image(program: &Program, os: Option<OsPart<'_>>) -> ElfImage {
    let merged = os.map(|os| with_os_debug(&program.debug, os));
    let info = merged.as_ref().unwrap_or(&program.debug);
    let data = &info.data;
    let os_segments = os.map_or(&[][..], |os| &os.image.segments[..]);
    // Trap routines and exception handlers are functions: gdb's `next` then steps over a
    // TRAP as over a JSR, and `bt` inside one finds the program's frames (through R7 for a
    // 2nd-edition TRAP, through the supervisor stack otherwise).
    let targets_in = |table: std::ops::Range<u16>| -> Vec<u64> {
        os_segments
            .iter()
            .filter(|seg| table.contains(&seg.origin))
            .flat_map(|seg| seg.words.iter())
            .filter(|&&w| w >= OS_ORIGIN)
            .map(|&w| gdb_addr(w))
            .collect()
    };
    let trap_routines = targets_in(0x0000..0x0100);
    let mut interrupt_routines = targets_in(0x0100..OS_ORIGIN);
    interrupt_routines.extend(program_interrupt_routines(program));
    let mut trap_entries = interrupt_routines.clone();
    if os.is_some_and(|os| os.trap_through_stack) {
        trap_entries.extend(&trap_routines);
    }
    trap_entries.sort_unstable();
    trap_entries.dedup();
    let vector_targets: Vec<u64> = trap_routines
        .into_iter()
        .chain(interrupt_routines)
        .collect();
    // Runs of words of one kind (code or data) within a segment.
    let mut runs: Vec<ImageRun> = Vec::new();
    for seg in os_segments.iter().chain(&program.segments) {
        let mut current: Option<ImageRun> = None;
        for (i, &value) in seg.words.iter().enumerate() {
            let Ok(addr) = u16::try_from(usize::from(seg.origin) + i) else {
                break; // past the top of memory: the assembler reports it
            };
            // The vector tables below the OS code are addresses, not instructions.
            let exec = !data.is_data(u64::from(addr)) && (os.is_none() || addr >= OS_ORIGIN);
            match &mut current {
                Some(run) if run.exec == exec => run.data.extend(value.to_le_bytes()),
                _ => {
                    runs.extend(current.take());
                    current = Some(ImageRun {
                        base: if exec { ".text" } else { ".data" },
                        addr: gdb_addr(addr),
                        data: value.to_le_bytes().to_vec(),
                        exec,
                    });
                }
            }
        }
        runs.extend(current);
    }
    let os_file = merged.as_ref().map(|_| program.debug.sources.files().len());
    let mut image = build_image(
        &Lc3Elf { trap_entries },
        ImageFacts {
            info,
            runs,
            entry: program.entry().map_or(0, gdb_addr),
            extra_function_starts: vector_targets,
        },
    );
    // Each file of the program is a compile unit, and so is the OS: their functions,
    // variables and lines.
    image
        .debug
        .unit_starts
        .extend(1..program.debug.sources.files().len());
    image.debug.unit_starts.extend(os_file);
    image
}
