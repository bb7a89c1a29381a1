//! What a session knows of the program's frames and lines from its debug information (the
//! ELF's `.debug_frame`, functions and line table, as gdb reads them): the frames of a stopped
//! machine, a frame's identity, and the line row holding a pc. The DAP session shows frames
//! with it; the reverse motions of both protocols (reverse.rs) follow frames and lines with it.

use asmdbg_core::elf::unwind::{unwind, FrameSource, UnwoundFrame};
use asmdbg_core::elf::{CfaOp, ElfDebug};
use asmdbg_core::gdb::GdbMachine;
use gdbstub::arch::{Arch, RegId};

/// A frame's identity: the entry of the function it runs and its CFA (as gdb's frame ids).
pub type FrameId = (Option<u64>, Option<u64>);

/// The machine seen through gdb's numbering, for the unwinder.
pub struct GdbView<'a, G: GdbMachine>(pub &'a G);

impl<G: GdbMachine> FrameSource for GdbView<'_, G> {
    fn register(&self, regnum: u16) -> Option<u64> {
        let (id, _) = <<G::Arch as Arch>::RegId as RegId>::from_raw_id(usize::from(regnum))?;
        let mut buf = [0u8; 16];
        let n = self.0.gdb_read_register(id, &mut buf)?;
        let mut value = 0u64;
        for (i, b) in buf[..n.min(8)].iter().enumerate() {
            value |= u64::from(*b) << (8 * i);
        }
        Some(value)
    }

    fn memory(&self, addr: u64, size: u8) -> Option<u64> {
        let mut value = 0u64;
        for i in 0..u64::from(size.min(8)) {
            let b = self.0.gdb_read_byte(addr.wrapping_add(i)).ok()?;
            value |= u64::from(b) << (8 * i);
        }
        Some(value)
    }
}

/// One line-table row as gdb sees it: consecutive rows of one line are one (a
/// pseudo-instruction's words, a macro's expansion), from `start` to the next row's address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    pub start: u64,
    pub end: u64,
    pub file: u32,
    pub line: u32,
}

/// The program's frames and lines.
#[derive(Debug, Clone)]
pub struct FrameFacts {
    pub debug: ElfDebug,
    /// gdb's number of the stack pointer: the CIE's CFA register at a function's entry.
    pub sp_regnum: u16,
}

impl FrameFacts {
    pub fn new(debug: ElfDebug) -> Self {
        let sp_regnum = debug
            .frame_cie
            .as_ref()
            .and_then(|cie| {
                cie.initial.iter().find_map(|op| match op {
                    CfaOp::DefCfa(reg, _) => Some(*reg),
                    _ => None,
                })
            })
            .unwrap_or(13);
        FrameFacts { debug, sp_regnum }
    }

    /// The frames of `machine` from its pc outwards.
    pub fn frames<G: GdbMachine>(&self, machine: &G) -> Vec<UnwoundFrame> {
        let pc = machine.native_code_to_gdb(machine.pc());
        unwind(&self.debug, &GdbView(machine), pc, self.sp_regnum)
    }

    /// The function holding gdb code address `gdb`: its name and entry.
    pub fn function(&self, gdb: u64) -> Option<(&str, u64)> {
        self.debug
            .functions
            .iter()
            .find(|f| f.ranges.iter().any(|&(b, e)| gdb >= b && gdb < e))
            .map(|f| (f.name.as_str(), f.entry))
    }

    /// A frame's identity; `caller`: a frame other than the innermost, whose pc is a return
    /// address (its function is the one holding the call, before it).
    pub fn frame_id(&self, frame: &UnwoundFrame, caller: bool) -> FrameId {
        let lookup = if caller {
            frame.pc.wrapping_sub(1)
        } else {
            frame.pc
        };
        (self.function(lookup).map(|f| f.1), frame.cfa)
    }

    /// The identities of `frames` (the first the innermost).
    pub fn ids(&self, frames: &[UnwoundFrame]) -> Vec<FrameId> {
        frames
            .iter()
            .enumerate()
            .map(|(i, f)| self.frame_id(f, i > 0))
            .collect()
    }

    /// The row holding gdb code address `gdb`.
    pub fn row(&self, gdb: u64) -> Option<Row> {
        let lines = &self.debug.lines;
        let mut i = lines.partition_point(|r| r.addr <= gdb).checked_sub(1)?;
        let key = (lines[i].file, lines[i].line);
        while i > 0 && (lines[i - 1].file, lines[i - 1].line) == key {
            i -= 1;
        }
        let mut j = i + 1;
        while j < lines.len() && (lines[j].file, lines[j].line) == key {
            j += 1;
        }
        Some(Row {
            start: lines[i].addr,
            end: lines.get(j).map_or(u64::MAX, |r| r.addr),
            file: key.0,
            line: key.1,
        })
    }

    /// Whether a line's row starts at `gdb` (where gdb stops a step by line).
    pub fn is_line_start(&self, gdb: u64) -> bool {
        self.row(gdb).is_some_and(|r| r.start == gdb)
    }
}
