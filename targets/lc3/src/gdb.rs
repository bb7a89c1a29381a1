//! How gdb sees an LC-3: posing as an ARM M-profile core (gdb has no LC-3 architecture, and it
//! rejects a description with an unknown one), with the unused ARM registers hidden as
//! `ieee_single` and the real registers in a custom feature. Measured with gdb-multiarch 13.1:
//! gdb then steps with `vCont;s`, and breakpoints,
//! watchpoints, `next` over JSR, `finish` and a one-level `bt` work.
//!
//! Addresses: gdb address = 2 × LC-3 word address, each word little endian, so multi-word reads
//! are exact. pc = 2 × PC and lr = 2 × R7 are byte addresses too; sp is R6 as is.

use asmdbg_core::gdb::arm_pose::{
    ArmPose, ArmPoseMachine, ArmPoseRegId, ArmPoseRegs, ArmPoseXml, LR, PC, SP,
};
use asmdbg_core::gdb::GdbMachine;
use asmdbg_core::{Machine, MemError, RegisterInfo};

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

/// The target description's owner: LC-3 in the ARM pose.
pub enum Lc3Pose {}

impl ArmPoseXml for Lc3Pose {
    const TARGET_XML: &'static str = TARGET_XML;
}

/// The gdb architecture: ARM M-profile registers plus the LC-3 feature, R0–R7 and PSR
/// (regnums 26–34, 16 bits each).
pub type Lc3Gdb = ArmPose<Lc3Pose, 9, 2>;
/// The `g` packet: 17 × 4 + 9 × 2 bytes; `own` holds R0–R7, then PSR.
pub type Lc3GdbRegs = ArmPoseRegs<9, 2>;
/// A register gdb names by number.
pub type Lc3GdbRegId = ArmPoseRegId<9, 2>;

/// Position of PSR in [`ArmPoseRegs::own`].
const OWN_PSR: usize = 8;

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

impl ArmPoseMachine<9, 2> for Lc3Machine {
    fn read_pose(&self, regs: &mut Lc3GdbRegs) {
        *regs = Lc3GdbRegs::default();
        for (slot, name) in regs.own.iter_mut().zip(R_NAMES.iter().chain([&"PSR"])) {
            *slot = u32::from(read(self, name));
        }
        regs.xpsr = regs.own[OWN_PSR];
        regs.core[SP] = regs.own[6];
        regs.core[LR] = 2 * regs.own[7];
        regs.core[PC] = 2 * (self.pc() as u32 & 0xffff);
    }

    /// Writes the LC-3 register behind a posed one; false for one that does not exist.
    fn write_pose(&mut self, id: Lc3GdbRegId, value: u32) -> bool {
        match id {
            // The hidden ARM registers do not exist on an LC-3: writes are accepted and dropped.
            ArmPoseRegId::Core(n) if usize::from(n) < SP => {}
            ArmPoseRegId::Core(n) if usize::from(n) == SP => write(self, "R6", value as u16),
            ArmPoseRegId::Core(n) if usize::from(n) == LR => write(self, "R7", (value / 2) as u16),
            ArmPoseRegId::Core(n) if usize::from(n) == PC => {
                self.set_pc((value / 2) as u64 & 0xffff)
            }
            ArmPoseRegId::Core(_) => return false,
            ArmPoseRegId::Xpsr => write(self, "PSR", value as u16),
            ArmPoseRegId::Own(n) => match R_NAMES.iter().chain([&"PSR"]).nth(usize::from(n)) {
                Some(name) => write(self, name, value as u16),
                None => return false,
            },
        }
        true
    }
}

impl GdbMachine for Lc3Machine {
    type Arch = Lc3Gdb;

    fn target_xml(&self) -> &'static str {
        TARGET_XML
    }

    /// LC-3 memory, and just past it (gdb address 0x20000) a read-only shadow of the saved
    /// USP: the call-frame information of routines entered through the supervisor stack reads
    /// the caller's R6 there (crate::elf::SAVED_USP_SHADOW), as a DWARF expression can read
    /// memory but not a register gdb has no DWARF number for.
    fn gdb_read_byte(&self, addr: u64) -> Result<u8, MemError> {
        let shadow = 2 * u64::from(crate::elf::SAVED_USP_SHADOW);
        if addr == shadow || addr == shadow + 1 {
            let usp = self.cpu().saved_usp;
            return Ok((usp >> (8 * (addr - shadow))) as u8);
        }
        let (native, byte) = self.gdb_to_native(addr);
        let unit = self.debug_read(native)?;
        Ok((unit >> (8 * byte)) as u8)
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
        self.read_pose(regs);
    }

    fn gdb_write_registers(&mut self, regs: &Lc3GdbRegs) {
        self.write_pose_changes(regs);
    }

    fn gdb_read_register(&self, id: Lc3GdbRegId, buf: &mut [u8]) -> Option<usize> {
        self.read_pose_register(id, buf)
    }

    fn gdb_write_register(&mut self, id: Lc3GdbRegId, val: &[u8]) -> bool {
        self.write_pose_register(id, val)
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
