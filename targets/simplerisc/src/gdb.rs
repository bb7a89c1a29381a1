//! How gdb sees a SimpleRISC machine: as an ARM M-profile core (gdb has no SimpleRISC
//! architecture and rejects unknown ones) whose r0–r12 are SimpleRISC's r0–r12, with sp = r14,
//! lr = ra and pc, plus a custom feature with r13, r14, r15 and `flags [E GT]`
//! (gdb-clients.md §3 and its appendix: `break`, `next` over `call`, `bt`, `finish` and
//! watchpoints verified with gdb-multiarch 13.1).
//!
//! Addresses: gdb has one address space, SimpleRISC two. Data keeps its own addresses
//! (`x/36dw 1000`, `watch *(int *)1144` mean what the program means), and code is shown at
//! [`CODE_BASE`] + 4 × slot. The pc and lr gdb sees are in that code view; r15 in the custom
//! feature is `ra` exactly as the program sees it.

use asmdbg_core::gdb::arm_pose::{
    ArmPose, ArmPoseMachine, ArmPoseRegId, ArmPoseRegs, ArmPoseXml, LR, PC, SP,
};
use asmdbg_core::gdb::GdbMachine;
use asmdbg_core::word_bytes::byte_of;
use asmdbg_core::{Machine, MemError, RegisterInfo};

use crate::machine::{SrMachine, REG_FLAGS};
use crate::program::Slot;

/// gdb's address of code slot 0. Above the largest data memory (`--mem-size` ≤ 1 GiB), so the
/// two views never overlap.
pub const CODE_BASE: u64 = 0x8000_0000;

/// `nop`: what gdb reads for `.print`/`.encode` slots, which have no machine encoding.
const NOP_WORD: u32 = 0x6800_0000;

/// The target description (gdb-clients.md appendix, SimpleRISC).
pub const TARGET_XML: &str = r#"<?xml version="1.0"?>
<!DOCTYPE target SYSTEM "gdb-target.dtd">
<target version="1.0">
  <architecture>arm</architecture>
  <osabi>none</osabi>
  <feature name="org.gnu.gdb.arm.m-profile">
    <reg name="r0" bitsize="32" type="int"/>
    <reg name="r1" bitsize="32" type="int"/>
    <reg name="r2" bitsize="32" type="int"/>
    <reg name="r3" bitsize="32" type="int"/>
    <reg name="r4" bitsize="32" type="int"/>
    <reg name="r5" bitsize="32" type="int"/>
    <reg name="r6" bitsize="32" type="int"/>
    <reg name="r7" bitsize="32" type="int"/>
    <reg name="r8" bitsize="32" type="int"/>
    <reg name="r9" bitsize="32" type="int"/>
    <reg name="r10" bitsize="32" type="int"/>
    <reg name="r11" bitsize="32" type="int"/>
    <reg name="r12" bitsize="32" type="int"/>
    <reg name="sp" bitsize="32" type="data_ptr"/>
    <reg name="lr" bitsize="32" type="code_ptr"/>
    <reg name="pc" bitsize="32" type="code_ptr"/>
    <reg name="xpsr" bitsize="32" regnum="25" type="ieee_single"/>
  </feature>
  <feature name="org.simplerisc.core">
    <flags id="sr_flags" size="4">
      <field name="E" start="0" end="0"/>
      <field name="GT" start="1" end="1"/>
    </flags>
    <reg name="r13" bitsize="32" type="int" regnum="26"/>
    <reg name="r14" bitsize="32" type="data_ptr"/>
    <reg name="r15" bitsize="32" type="code_ptr"/>
    <reg name="flags" bitsize="32" type="sr_flags"/>
  </feature>
</target>
"#;

/// The target description's owner: SimpleRISC in the ARM pose.
pub enum SrPose {}

impl ArmPoseXml for SrPose {
    const TARGET_XML: &'static str = TARGET_XML;
}

/// The gdb architecture of a SimpleRISC machine: ARM M-profile plus r13, r14, r15 and flags
/// (regnums 26–29, 32 bits each).
pub type SrGdb = ArmPose<SrPose, 4, 4>;
/// The `g` packet, in regnum order: 0–15 (ARM r0–r12, sp, lr, pc), 25 (xpsr), 26–29 (r13,
/// r14, r15, flags); 21 words, little endian.
pub type SrGdbRegs = ArmPoseRegs<4, 4>;
/// A register by gdb regnum.
pub type SrGdbRegId = ArmPoseRegId<4, 4>;

/// Positions in [`ArmPoseRegs::own`].
const R13: usize = 0;
const R14: usize = 1;
const R15: usize = 2;
const FLAGS: usize = 3;

fn to_code_view(code_addr: u32) -> u32 {
    (CODE_BASE as u32).wrapping_add(code_addr)
}

fn from_code_view(gdb_addr: u32) -> u32 {
    gdb_addr.wrapping_sub(CODE_BASE as u32)
}

impl SrMachine {
    fn reg32(&self, index: usize) -> u32 {
        self.read_register(index).unwrap_or(0) as u32
    }

    /// The word gdb reads at code slot `index`.
    fn code_word(&self, index: u64) -> Option<u32> {
        match self.program().slots.get(usize::try_from(index).ok()?)? {
            Slot::Word(w) => Some(*w),
            Slot::Print(_) | Slot::Encode { .. } | Slot::Empty => Some(NOP_WORD),
            Slot::Reject { .. } => Some(crate::program::REJECT_WORD),
        }
    }
}

impl ArmPoseMachine<4, 4> for SrMachine {
    fn read_pose(&self, regs: &mut SrGdbRegs) {
        for r in 0..=12 {
            regs.core[r] = self.reg32(r);
        }
        regs.core[SP] = self.reg32(14);
        // A call leaves pc + 4 in ra, never 0: 0 is no return address (as at the start), not
        // the code slot 0 (`lr 0x80000000 <multiply>` misled gdb and the user).
        regs.core[LR] = match self.reg32(15) {
            0 => 0,
            ra => to_code_view(ra),
        };
        regs.core[PC] = to_code_view(self.pc() as u32);
        regs.xpsr = self.reg32(REG_FLAGS);
        regs.own = [
            self.reg32(13),
            self.reg32(14),
            self.reg32(15),
            self.reg32(REG_FLAGS),
        ];
    }

    /// Writes the SimpleRISC register behind a posed one; false for one that does not exist.
    fn write_pose(&mut self, id: SrGdbRegId, value: u32) -> bool {
        let v = u64::from(value);
        match id {
            ArmPoseRegId::Core(n @ 0..=12) => self.write_register(usize::from(n), v),
            ArmPoseRegId::Core(n) => match usize::from(n) {
                SP => self.write_register(14, v),
                LR => {
                    let ra = if value == 0 { 0 } else { from_code_view(value) };
                    self.write_register(15, u64::from(ra))
                }
                PC => {
                    self.set_pc(u64::from(from_code_view(value)));
                    true
                }
                _ => false,
            },
            ArmPoseRegId::Xpsr => self.write_register(REG_FLAGS, v),
            ArmPoseRegId::Own(n) => match usize::from(n) {
                R13 => self.write_register(13, v),
                R14 => self.write_register(14, v),
                R15 => self.write_register(15, v),
                FLAGS => self.write_register(REG_FLAGS, v),
                _ => false,
            },
        }
    }
}

impl GdbMachine for SrMachine {
    type Arch = SrGdb;

    fn target_xml(&self) -> &'static str {
        TARGET_XML
    }

    fn format_register(&self, reg: &RegisterInfo, value: u64) -> String {
        if reg.bits == 32 {
            format!("{}", value as u32 as i32)
        } else {
            format!("{value}")
        }
    }

    /// The code word: SimpleRISC's code and data are separate memories at the same addresses,
    /// and the default (a data word) would show whatever the program stored there.
    fn format_encoding(&self, addr: u64, size: u64) -> String {
        match (size, addr % 4) {
            (4, 0) => self
                .code_word(addr / 4)
                .map(|w| format!("0x{w:08x}"))
                .unwrap_or_else(|| " ".repeat(10)),
            _ => String::new(),
        }
    }

    fn gdb_read_registers(&self, regs: &mut SrGdbRegs) {
        self.read_pose(regs);
    }

    fn gdb_write_registers(&mut self, regs: &SrGdbRegs) {
        self.write_pose_changes(regs);
    }

    fn gdb_read_register(&self, id: SrGdbRegId, buf: &mut [u8]) -> Option<usize> {
        self.read_pose_register(id, buf)
    }

    fn gdb_write_register(&mut self, id: SrGdbRegId, val: &[u8]) -> bool {
        self.write_pose_register(id, val)
    }

    fn gdb_code_to_native(&self, addr: u64) -> u64 {
        // Addresses below the code view map far outside the code, where nothing executes.
        addr.wrapping_sub(CODE_BASE)
    }

    fn native_code_to_gdb(&self, native: u64) -> u64 {
        CODE_BASE + native
    }

    fn gdb_read_byte(&self, addr: u64) -> Result<u8, MemError> {
        if addr < CODE_BASE {
            return Ok(self.debug_read(addr)? as u8);
        }
        let offset = addr - CODE_BASE;
        let slot = offset / 4;
        // The slot after the code is where a program that ran off its end stops: it reads as
        // zeros, as the ELF has it (`end_of_program`). Unreadable, gdb's ARM unwinder took the
        // PC for a stub's and made up a caller from the stale return register.
        if slot == self.program().slots.len() as u64 {
            return Ok(0);
        }
        let word = self.code_word(slot).ok_or(MemError::Unmapped(addr))?;
        Ok(byte_of(word, offset))
    }

    fn gdb_write_byte(&mut self, addr: u64, value: u8) -> Result<(), MemError> {
        if addr < CODE_BASE {
            return self.debug_write(addr, u32::from(value));
        }
        // Harvard memory: the program cannot change its code, and neither can gdb.
        Err(MemError::ReadOnly(addr))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use asmdbg_core::MachineOptions;
    use gdbstub::arch::{RegId, Registers};

    fn machine() -> SrMachine {
        let src = ".main:\n\tmov r1, 7\n\tcall .f\n\t.print r1\n.f:\tmov r13, -2\n\tret\n";
        match crate::load_machine("g.asm", src, &MachineOptions::default()) {
            Ok(m) => m,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn g_packet_maps_registers_and_code_view() {
        let mut m = machine();
        assert_eq!(m.run(3).executed, 3); // mov, call, mov r13
        let mut regs = SrGdbRegs::default();
        m.gdb_read_registers(&mut regs);
        assert_eq!(regs.core[1], 7);
        assert_eq!(regs.core[SP], 4092);
        assert_eq!(regs.core[LR], 0x8000_0008, "ra = 8 in the code view");
        assert_eq!(regs.core[PC], 0x8000_0010, "ret at slot 4");
        assert_eq!(regs.own[R13], (-2i32) as u32);
        assert_eq!(regs.own[R14], 4092);
        assert_eq!(regs.own[R15], 8);
        let mut bytes = Vec::new();
        regs.gdb_serialize(|b| bytes.push(b.unwrap_or(0)));
        assert_eq!(bytes.len(), 84);
        assert_eq!(&bytes[60..64], &[0x10, 0, 0, 0x80]);
        let mut back = SrGdbRegs::default();
        assert_eq!(back.gdb_deserialize(&bytes), Ok(()));
        assert_eq!(back, regs);
        assert_eq!(back.gdb_deserialize(&bytes[1..]), Err(()));
    }

    #[test]
    fn writes_through_either_name() {
        let mut m = machine();
        let mut regs = SrGdbRegs::default();
        m.gdb_read_registers(&mut regs);
        regs.core[SP] = 100;
        regs.own[FLAGS] = 2;
        regs.core[PC] = 0x8000_0004;
        m.gdb_write_registers(&regs);
        assert_eq!(m.read_register(14), Some(100));
        assert_eq!(m.read_register(REG_FLAGS), Some(2));
        assert_eq!(m.pc(), 4);
        m.gdb_read_registers(&mut regs);
        regs.own[R14] = 200;
        regs.core[LR] = 0x8000_000c;
        m.gdb_write_registers(&regs);
        assert_eq!(m.read_register(14), Some(200));
        assert_eq!(m.read_register(15), Some(12));
        assert!(m.gdb_write_register(SrGdbRegId::Core(PC as u8), &[8, 0, 0, 0x80]));
        assert_eq!(m.pc(), 8);
        let mut buf = [0u8; 4];
        assert_eq!(
            m.gdb_read_register(SrGdbRegId::Own(R15 as u8), &mut buf),
            Some(4)
        );
        assert_eq!(buf, [12, 0, 0, 0]);
        assert_eq!(
            SrGdbRegId::from_raw_id(26).map(|r| r.0),
            Some(SrGdbRegId::Own(R13 as u8))
        );
        assert_eq!(
            SrGdbRegId::from_raw_id(25).map(|r| r.0),
            Some(SrGdbRegId::Xpsr)
        );
        assert!(SrGdbRegId::from_raw_id(16).is_none());
        assert!(SrGdbRegId::from_raw_id(30).is_none());
    }

    #[test]
    fn memory_views() {
        let mut m = machine();
        m.poke_word(1000, 0x0403_0201).unwrap();
        assert_eq!(m.gdb_read_byte(1001), Ok(2));
        assert_eq!(m.gdb_write_byte(1003, 9), Ok(()));
        assert_eq!(m.peek_word(1000), Ok(0x0903_0201));
        assert_eq!(m.gdb_read_byte(4096), Err(MemError::Unmapped(4096)));
        // mov r1, 7 = 0x4c400007, little endian.
        let code: Vec<u8> = (0..4)
            .map(|i| m.gdb_read_byte(CODE_BASE + i).unwrap())
            .collect();
        assert_eq!(code, [0x07, 0x00, 0x40, 0x4c]);
        assert_eq!(m.gdb_read_byte(CODE_BASE + 8), Ok(0), ".print reads as nop");
        assert_eq!(m.gdb_read_byte(CODE_BASE + 11), Ok(0x68));
        assert_eq!(m.gdb_read_byte(CODE_BASE + 20), Ok(0), "the end slot");
        assert_eq!(
            m.gdb_read_byte(CODE_BASE + 24),
            Err(MemError::Unmapped(CODE_BASE + 24))
        );
        assert_eq!(
            m.gdb_write_byte(CODE_BASE, 0),
            Err(MemError::ReadOnly(CODE_BASE))
        );
        assert_eq!(m.gdb_code_to_native(CODE_BASE + 12), 12);
        assert_eq!(m.native_to_gdb(1144), 1144);
    }
}

#[cfg(test)]
mod monitor_notation {
    use super::*;

    #[test]
    fn registers_in_signed_decimal() {
        let source = ".main:\n    mov r1, 3\n";
        let m = crate::load_machine("t.asm", source, &Default::default()).expect("assembles");
        let reg = |bits| RegisterInfo { name: "r1", bits };
        assert_eq!(m.format_register(&reg(32), 0xffff_ffff), "-1");
        assert_eq!(m.format_register(&reg(64), 0xffff_ffff), "4294967295");
        assert_eq!(m.registers_per_line(), 6);
    }
}
