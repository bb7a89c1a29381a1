//! How gdb sees the MIPS machine: gdbstub_arch's MIPS32 registers (gdb's own numbering:
//! r0–r31, status, lo, hi, badvaddr, cause, pc, f0–f31, fcsr, fir — the same indexes as
//! [`MipsMachine`]'s register list) and a target description ([`target_xml`]) with gdb's
//! standard MIPS features and `<osabi>none</osabi>`: under Debian's default GNU/Linux OS ABI
//! gdb single-steps by planting breakpoints at pc+8 (delay-slot assumptions), while with osabi
//! none it sends `vCont;s` and the stub executes exactly one MARS instruction
//! (gdb-clients.md §1). The register features make pc and ra code pointers for `print`.

use std::sync::OnceLock;

use asmdbg_core::gdb::GdbMachine;
use asmdbg_core::{Machine, RegisterInfo};
use gdbstub_arch::mips::reg::id::MipsRegId;
use gdbstub_arch::mips::reg::MipsCoreRegs;
use gdbstub_arch::mips::Mips;

use crate::machine::{
    MipsMachine, REG_BADVADDR, REG_CAUSE, REG_F0, REG_FCSR, REG_FIR, REG_HI, REG_LO, REG_PC,
    REG_STATUS,
};

/// The target description: gdb's three standard MIPS features with every register 32 bits wide
/// and numbered in the order of gdbstub_arch's `g` packet, plus `<osabi>none</osabi>`. Without
/// register features gdb shows every register as an `int32_t`; described, pc is a code pointer
/// (gdb prints `(void (*)()) 0x400128 <main+40>`) and so is ra, by its type here.
pub fn target_xml() -> &'static str {
    static XML: OnceLock<String> = OnceLock::new();
    XML.get_or_init(|| {
        let mut xml = String::from(concat!(
            "<?xml version=\"1.0\"?>\n",
            "<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n",
            "<target version=\"1.0\">\n",
            "<architecture>mips</architecture>\n",
            "<osabi>none</osabi>\n",
            "<feature name=\"org.gnu.gdb.mips.cpu\">\n",
        ));
        let reg = |xml: &mut String, name: &str, regnum: usize, kind: &str| {
            xml.push_str(&format!(
                "  <reg name=\"{name}\" bitsize=\"32\" regnum=\"{regnum}\" type=\"{kind}\"/>\n"
            ));
        };
        for n in 0..31 {
            reg(&mut xml, &format!("r{n}"), n, "int");
        }
        reg(&mut xml, "r31", 31, "code_ptr");
        reg(&mut xml, "lo", REG_LO, "int");
        reg(&mut xml, "hi", REG_HI, "int");
        reg(&mut xml, "pc", REG_PC, "code_ptr");
        xml.push_str("</feature>\n<feature name=\"org.gnu.gdb.mips.cp0\">\n");
        reg(&mut xml, "status", REG_STATUS, "int");
        reg(&mut xml, "badvaddr", REG_BADVADDR, "data_ptr");
        reg(&mut xml, "cause", REG_CAUSE, "int");
        xml.push_str("</feature>\n<feature name=\"org.gnu.gdb.mips.fpu\">\n");
        for n in 0..32 {
            reg(&mut xml, &format!("f{n}"), REG_F0 + n, "ieee_single");
        }
        reg(&mut xml, "fcsr", REG_FCSR, "int");
        reg(&mut xml, "fir", REG_FIR, "int");
        xml.push_str("</feature>\n</target>\n");
        xml
    })
}

/// The machine's register index for a gdb register, when the machine has it.
fn index_of(id: MipsRegId<u32>) -> Option<usize> {
    Some(match id {
        MipsRegId::Gpr(n) if n < 32 => n as usize,
        MipsRegId::Status => REG_STATUS,
        MipsRegId::Lo => REG_LO,
        MipsRegId::Hi => REG_HI,
        MipsRegId::Badvaddr => REG_BADVADDR,
        MipsRegId::Cause => REG_CAUSE,
        MipsRegId::Pc => REG_PC,
        MipsRegId::Fpr(n) if n < 32 => REG_F0 + n as usize,
        MipsRegId::Fcsr => REG_FCSR,
        MipsRegId::Fir => REG_FIR,
        _ => return None,
    })
}

impl GdbMachine for MipsMachine {
    type Arch = Mips;

    fn target_xml(&self) -> &'static str {
        target_xml()
    }

    fn format_register(&self, _reg: &RegisterInfo, value: u64) -> String {
        format!("0x{value:08x}")
    }

    fn gdb_read_registers(&self, regs: &mut MipsCoreRegs<u32>) {
        let r = |i: usize| self.read_register(i).unwrap_or(0) as u32;
        for (i, slot) in regs.r.iter_mut().enumerate() {
            *slot = r(i);
        }
        regs.lo = r(REG_LO);
        regs.hi = r(REG_HI);
        regs.pc = r(REG_PC);
        regs.cp0.status = r(REG_STATUS);
        regs.cp0.badvaddr = r(REG_BADVADDR);
        regs.cp0.cause = r(REG_CAUSE);
        for (i, slot) in regs.fpu.r.iter_mut().enumerate() {
            *slot = r(REG_F0 + i);
        }
        regs.fpu.fcsr = r(REG_FCSR);
        regs.fpu.fir = r(REG_FIR);
    }

    fn gdb_write_registers(&mut self, regs: &MipsCoreRegs<u32>) {
        for (i, &v) in regs.r.iter().enumerate() {
            self.write_register(i, v as u64);
        }
        self.write_register(REG_LO, regs.lo as u64);
        self.write_register(REG_HI, regs.hi as u64);
        self.write_register(REG_STATUS, regs.cp0.status as u64);
        self.write_register(REG_BADVADDR, regs.cp0.badvaddr as u64);
        self.write_register(REG_CAUSE, regs.cp0.cause as u64);
        for (i, &v) in regs.fpu.r.iter().enumerate() {
            self.write_register(REG_F0 + i, v as u64);
        }
        self.write_register(REG_FCSR, regs.fpu.fcsr as u64);
        self.write_register(REG_PC, regs.pc as u64);
    }

    fn gdb_read_register(&self, id: MipsRegId<u32>, buf: &mut [u8]) -> Option<usize> {
        let value = self.read_register(index_of(id)?)? as u32;
        let n = buf.len().min(4);
        buf[..n].copy_from_slice(&value.to_le_bytes()[..n]);
        Some(n)
    }

    fn gdb_write_register(&mut self, id: MipsRegId<u32>, val: &[u8]) -> bool {
        let Some(index) = index_of(id) else {
            return false;
        };
        let value = val.iter().rev().fold(0u64, |acc, &b| (acc << 8) | b as u64);
        self.write_register(index, value)
    }
}

#[cfg(test)]
mod monitor_notation {
    use super::*;

    #[test]
    fn registers_and_encodings_in_mars_notation() {
        let source = ".text\nmain: addiu $t0, $zero, 1\n";
        let m = crate::load_machine("t.s", source, &Default::default()).expect("assembles");
        let reg = RegisterInfo {
            name: "t0",
            bits: 32,
        };
        assert_eq!(m.format_register(&reg, 0x10), "0x00000010");
        assert_eq!(m.registers_per_line(), 6);
        assert_eq!(m.format_encoding(0x0040_0000, 4), "0x24080001");
        assert_eq!(
            m.format_encoding(0x0000_0000, 4),
            " ".repeat(10),
            "unmapped"
        );
    }
}
