//! How gdb sees an LC-3: posing as an ARM M-profile core (gdb has no LC-3 architecture, and it
//! rejects a description with an unknown one), with the unused ARM registers hidden as
//! `ieee_single` and the real registers in a custom feature. Measured with gdb-multiarch 13.1:
//! gdb then steps with `vCont;s`, and breakpoints,
//! watchpoints, `next` over JSR, `finish` and a one-level `bt` work.
//!
//! Addresses: gdb address = 2 × LC-3 word address, each word little endian, so multi-word reads
//! are exact. pc = 2 × PC and lr = 2 × R7 are byte addresses too; sp is R6 as is.

use std::num::NonZeroUsize;

use asmdbg_core::gdb::GdbMachine;
use asmdbg_core::{Machine, RegisterInfo};
use gdbstub::arch::{Arch, RegId, Registers};

use crate::machine::Lc3Machine;

/// The target description gdb is given (gdb-clients.md appendix, LC-3).
pub const TARGET_XML: &str = r#"<?xml version="1.0"?>
<!DOCTYPE target SYSTEM "gdb-target.dtd">
<target version="1.0">
  <architecture>arm</architecture>
  <osabi>none</osabi>
  <feature name="org.gnu.gdb.arm.m-profile">
    <reg name="r0" bitsize="32" type="ieee_single"/>
    <reg name="r1" bitsize="32" type="ieee_single"/>
    <reg name="r2" bitsize="32" type="ieee_single"/>
    <reg name="r3" bitsize="32" type="ieee_single"/>
    <reg name="r4" bitsize="32" type="ieee_single"/>
    <reg name="r5" bitsize="32" type="ieee_single"/>
    <reg name="r6" bitsize="32" type="ieee_single"/>
    <reg name="r7" bitsize="32" type="ieee_single"/>
    <reg name="r8" bitsize="32" type="ieee_single"/>
    <reg name="r9" bitsize="32" type="ieee_single"/>
    <reg name="r10" bitsize="32" type="ieee_single"/>
    <reg name="r11" bitsize="32" type="ieee_single"/>
    <reg name="r12" bitsize="32" type="ieee_single"/>
    <reg name="sp" bitsize="32" type="data_ptr"/>
    <reg name="lr" bitsize="32" type="code_ptr"/>
    <reg name="pc" bitsize="32" type="code_ptr"/>
    <reg name="xpsr" bitsize="32" regnum="25" type="ieee_single"/>
  </feature>
  <feature name="org.lc3.core">
    <flags id="lc3_psr" size="2">
      <field name="P" start="0" end="0"/>
      <field name="Z" start="1" end="1"/>
      <field name="N" start="2" end="2"/>
      <field name="PRIORITY" start="8" end="10"/>
      <field name="USER" start="15" end="15"/>
    </flags>
    <reg name="R0" regnum="26" bitsize="16" type="int16" group="general"/>
    <reg name="R1" bitsize="16" type="int16" group="general"/>
    <reg name="R2" bitsize="16" type="int16" group="general"/>
    <reg name="R3" bitsize="16" type="int16" group="general"/>
    <reg name="R4" bitsize="16" type="int16" group="general"/>
    <reg name="R5" bitsize="16" type="int16" group="general"/>
    <reg name="R6" bitsize="16" type="int16" group="general"/>
    <reg name="R7" bitsize="16" type="int16" group="general"/>
    <reg name="PSR" bitsize="16" type="lc3_psr" group="general"/>
  </feature>
</target>
"#;

/// The gdb architecture: ARM M-profile registers plus the LC-3 feature.
pub enum Lc3Gdb {}

impl Arch for Lc3Gdb {
    type Usize = u32;
    type Registers = Lc3GdbRegs;
    type RegId = Lc3GdbRegId;
    type BreakpointKind = usize;

    fn target_description_xml() -> Option<&'static str> {
        Some(TARGET_XML)
    }
}

/// The `g` packet: ARM r0–r12, sp, lr, pc (regnums 0–15), xpsr (25), then R0–R7 and PSR
/// (26–34) — 17 × 4 + 9 × 2 bytes.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Lc3GdbRegs {
    pub core: [u32; 16],
    pub xpsr: u32,
    pub r: [u16; 8],
    pub psr: u16,
}

const SP: usize = 13;
const LR: usize = 14;
const PC: usize = 15;
const G_LEN: usize = 17 * 4 + 9 * 2;

impl Registers for Lc3GdbRegs {
    type ProgramCounter = u32;

    fn pc(&self) -> u32 {
        self.core[PC]
    }

    fn gdb_serialize(&self, mut write_byte: impl FnMut(Option<u8>)) {
        for v in self.core.iter().chain([&self.xpsr]) {
            v.to_le_bytes()
                .into_iter()
                .for_each(|b| write_byte(Some(b)));
        }
        for v in self.r.iter().chain([&self.psr]) {
            v.to_le_bytes()
                .into_iter()
                .for_each(|b| write_byte(Some(b)));
        }
    }

    fn gdb_deserialize(&mut self, bytes: &[u8]) -> Result<(), ()> {
        if bytes.len() != G_LEN {
            return Err(());
        }
        let (words, halves) = bytes.split_at(17 * 4);
        let mut w = words
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
        for slot in self.core.iter_mut() {
            *slot = w.next().ok_or(())?;
        }
        self.xpsr = w.next().ok_or(())?;
        let mut h = halves
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]));
        for slot in self.r.iter_mut() {
            *slot = h.next().ok_or(())?;
        }
        self.psr = h.next().ok_or(())?;
        Ok(())
    }
}

/// A register gdb names by number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lc3GdbRegId {
    /// ARM r0–r12 (hidden, always 0), sp (13), lr (14), pc (15).
    Core(u8),
    Xpsr,
    /// R0–R7.
    R(u8),
    Psr,
}

impl RegId for Lc3GdbRegId {
    fn from_raw_id(id: usize) -> Option<(Self, Option<NonZeroUsize>)> {
        let (reg, size) = match id {
            0..=15 => (Lc3GdbRegId::Core(id as u8), 4),
            25 => (Lc3GdbRegId::Xpsr, 4),
            26..=33 => (Lc3GdbRegId::R((id - 26) as u8), 2),
            34 => (Lc3GdbRegId::Psr, 2),
            _ => return None,
        };
        Some((reg, NonZeroUsize::new(size)))
    }
}

/// Index of a named register in the machine's register list.
fn reg_index(m: &Lc3Machine, name: &str) -> Option<usize> {
    m.registers().iter().position(|r| r.name == name)
}

fn read(m: &Lc3Machine, name: &str) -> u16 {
    reg_index(m, name)
        .and_then(|i| m.read_register(i))
        .unwrap_or(0) as u16
}

fn write(m: &mut Lc3Machine, name: &str, value: u16) {
    if let Some(i) = reg_index(m, name) {
        m.write_register(i, value as u64);
    }
}

const R_NAMES: [&str; 8] = ["R0", "R1", "R2", "R3", "R4", "R5", "R6", "R7"];

impl GdbMachine for Lc3Machine {
    type Arch = Lc3Gdb;

    fn target_xml(&self) -> &'static str {
        TARGET_XML
    }

    fn format_register(&self, reg: &RegisterInfo, value: u64) -> String {
        // General registers also in signed decimal (how LC-3 programs think of them); PC, PSR
        // and the saved stack pointers as addresses and flags.
        if reg.name.starts_with('R') {
            return format!("x{value:04X} ({})", value as u16 as i16);
        }
        if reg.name == "PSR" {
            let cc = match value & 7 {
                4 => "N",
                2 => "Z",
                1 => "P",
                _ => "-",
            };
            let mode = if value & 0x8000 != 0 {
                "user"
            } else {
                "supervisor"
            };
            return format!("x{value:04X} ({cc}, {mode}, priority {})", (value >> 8) & 7);
        }
        format!("x{value:04X}")
    }

    fn registers_per_line(&self) -> usize {
        4
    }

    fn format_encoding(&self, addr: u64, _size: u64) -> String {
        self.debug_read(addr)
            .map(|w| format!("x{w:04X}"))
            .unwrap_or_default()
    }

    fn gdb_read_registers(&self, regs: &mut Lc3GdbRegs) {
        *regs = Lc3GdbRegs::default();
        for (i, name) in R_NAMES.iter().enumerate() {
            regs.r[i] = read(self, name);
        }
        regs.psr = read(self, "PSR");
        regs.xpsr = regs.psr as u32;
        regs.core[SP] = regs.r[6] as u32;
        regs.core[LR] = 2 * regs.r[7] as u32;
        regs.core[PC] = 2 * (self.pc() as u32 & 0xffff);
    }

    fn gdb_write_registers(&mut self, regs: &Lc3GdbRegs) {
        let mut before = Lc3GdbRegs::default();
        self.gdb_read_registers(&mut before);
        for (i, name) in R_NAMES.iter().enumerate() {
            write(self, name, regs.r[i]);
        }
        write(self, "PSR", regs.psr);
        // sp and lr alias R6 and R7: a change made through the ARM names wins.
        if regs.core[SP] != before.core[SP] {
            write(self, "R6", regs.core[SP] as u16);
        }
        if regs.core[LR] != before.core[LR] {
            write(self, "R7", (regs.core[LR] / 2) as u16);
        }
        self.set_pc((regs.core[PC] / 2) as u64 & 0xffff);
    }

    fn gdb_read_register(&self, id: Lc3GdbRegId, buf: &mut [u8]) -> Option<usize> {
        let mut regs = Lc3GdbRegs::default();
        self.gdb_read_registers(&mut regs);
        let bytes: Vec<u8> = match id {
            Lc3GdbRegId::Core(n) => regs.core.get(n as usize)?.to_le_bytes().to_vec(),
            Lc3GdbRegId::Xpsr => regs.xpsr.to_le_bytes().to_vec(),
            Lc3GdbRegId::R(n) => regs.r.get(n as usize)?.to_le_bytes().to_vec(),
            Lc3GdbRegId::Psr => regs.psr.to_le_bytes().to_vec(),
        };
        let n = bytes.len().min(buf.len());
        buf[..n].copy_from_slice(&bytes[..n]);
        Some(n)
    }

    fn gdb_write_register(&mut self, id: Lc3GdbRegId, val: &[u8]) -> bool {
        let value = val.iter().rev().fold(0u32, |acc, &b| (acc << 8) | b as u32);
        match id {
            // The hidden ARM registers do not exist on an LC-3: writes are accepted and dropped.
            Lc3GdbRegId::Core(n) if (n as usize) < SP => {}
            Lc3GdbRegId::Core(n) if n as usize == SP => write(self, "R6", value as u16),
            Lc3GdbRegId::Core(n) if n as usize == LR => write(self, "R7", (value / 2) as u16),
            Lc3GdbRegId::Core(n) if n as usize == PC => self.set_pc((value / 2) as u64 & 0xffff),
            Lc3GdbRegId::Core(_) => return false,
            Lc3GdbRegId::Xpsr | Lc3GdbRegId::Psr => write(self, "PSR", value as u16),
            Lc3GdbRegId::R(n) => match R_NAMES.get(n as usize) {
                Some(name) => write(self, name, value as u16),
                None => return false,
            },
        }
        true
    }
}

#[cfg(test)]
mod monitor_notation {
    use super::*;

    fn machine() -> Lc3Machine {
        let source = "        .ORIG x3000\n        ADD R1, R1, #1\n        .END\n";
        crate::load_machine("t.asm", source.as_bytes(), &Default::default()).expect("assembles")
    }

    #[test]
    fn registers_and_encodings_in_lc3_notation() {
        let m = machine();
        let reg = |name| RegisterInfo { name, bits: 16 };
        assert_eq!(m.format_register(&reg("R1"), 0xffff), "xFFFF (-1)");
        assert_eq!(
            m.format_register(&reg("PSR"), 0x8002),
            "x8002 (Z, user, priority 0)"
        );
        assert_eq!(m.format_register(&reg("PC"), 0x3000), "x3000");
        assert_eq!(m.registers_per_line(), 4);
        assert_eq!(m.format_encoding(0x3000, 1), "x1261");
    }
}
