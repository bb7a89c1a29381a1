//! A `.debug_frame` reader and one-frame unwinder, standing in for gdb's in tests.
//!
//! The ELF writers (targets/core/src/elf.rs and each ISA's elf.rs) describe frames with CFI so
//! that gdb's `bt` and `finish` work; tests that must run without gdb check those rules here:
//! the rule row at an address, and the caller's CFA and return address computed from register
//! values and memory the test supplies. It reads 32-bit DWARF with 4-byte addresses, which is
//! what our writers emit for every ISA; anything else is an error, not a guess.

use gimli::UnwindSection as _;
use object::{Object as _, ObjectSection as _};

pub use gimli::RegisterRule;

/// The rules in force at one address: the CFA as register + offset, and how to find the
/// return-address register.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub cfa_register: u16,
    pub cfa_offset: i64,
    pub ra: RegisterRule<usize>,
}

/// The caller's frame as one unwinding step finds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caller {
    /// The canonical frame address (on our machines: the caller's stack pointer).
    pub cfa: u64,
    /// The return address, `None` where the rule says it is undefined (the outermost frame).
    pub ra: Option<u64>,
}

/// The `.debug_frame` section of one ELF file.
#[derive(Debug, Clone)]
pub struct FrameTable {
    data: Vec<u8>,
}

const ENCODING: gimli::Encoding = gimli::Encoding {
    format: gimli::Format::Dwarf32,
    version: 2,
    address_size: 4,
};

impl FrameTable {
    /// Reads the `.debug_frame` of `elf`; an error if the file has none.
    pub fn from_elf(elf: &[u8]) -> Result<FrameTable, String> {
        let file = object::File::parse(elf).map_err(|e| format!("not an ELF file: {e}"))?;
        let section = file
            .section_by_name(".debug_frame")
            .ok_or("no .debug_frame section")?;
        let data = section.data().map_err(|e| e.to_string())?.to_vec();
        Ok(FrameTable { data })
    }

    fn section(&self) -> gimli::DebugFrame<gimli::EndianSlice<'_, gimli::LittleEndian>> {
        let mut frame = gimli::DebugFrame::new(&self.data, gimli::LittleEndian);
        frame.set_address_size(ENCODING.address_size);
        frame
    }

    /// The rule row at `pc` for return-address register `ra_register`; `None` where no FDE
    /// covers `pc`.
    pub fn row(&self, pc: u64, ra_register: u16) -> Result<Option<Row>, String> {
        let frame = self.section();
        let bases = gimli::BaseAddresses::default();
        let mut ctx = gimli::UnwindContext::new();
        let row = match frame.unwind_info_for_address(
            &bases,
            &mut ctx,
            pc,
            gimli::DebugFrame::cie_from_offset,
        ) {
            Ok(row) => row,
            Err(gimli::Error::NoUnwindInfoForAddress) => return Ok(None),
            Err(e) => return Err(format!("reading .debug_frame at {pc:#x}: {e}")),
        };
        let (cfa_register, cfa_offset) = match row.cfa() {
            gimli::CfaRule::RegisterAndOffset { register, offset } => (register.0, *offset),
            other => return Err(format!("CFA rule {other:?} at {pc:#x}")),
        };
        let ra = row.register(gimli::Register(ra_register));
        Ok(Some(Row {
            cfa_register,
            cfa_offset,
            ra,
        }))
    }

    /// One unwinding step at `pc`: `registers` are the (DWARF number, value) pairs known in this
    /// frame, `memory` the (address, value) pairs of `word_size`-byte reads the rules may make.
    pub fn unwind(
        &self,
        pc: u64,
        registers: &[(u16, u64)],
        ra_register: u16,
        word_size: u8,
        memory: &[(u64, u64)],
    ) -> Result<Caller, String> {
        let row = self
            .row(pc, ra_register)?
            .ok_or_else(|| format!("no FDE covers {pc:#x}"))?;
        let register = |n: u16| {
            registers
                .iter()
                .find(|r| r.0 == n)
                .map(|r| r.1)
                .ok_or_else(|| format!("register {n} is needed at {pc:#x} but not given"))
        };
        let read = |address: u64, size: u8| {
            if size != word_size {
                return Err(format!(
                    "a {size}-byte read at {address:#x}, not {word_size}"
                ));
            }
            memory
                .iter()
                .find(|m| m.0 == address)
                .map(|m| m.1)
                .ok_or_else(|| format!("read of {address:#x}, which the test did not supply"))
        };
        let cfa = register(row.cfa_register)?.wrapping_add(row.cfa_offset as u64);
        let ra = match row.ra {
            RegisterRule::Undefined => None,
            RegisterRule::SameValue => Some(register(ra_register)?),
            RegisterRule::Offset(offset) => Some(read(cfa.wrapping_add(offset as u64), word_size)?),
            RegisterRule::ValExpression(expression) => {
                let expression = expression.get(&self.section()).map_err(|e| e.to_string())?;
                let mut eval = expression.evaluation(ENCODING);
                eval.set_initial_value(cfa);
                let mut step = eval.evaluate().map_err(|e| e.to_string())?;
                while let gimli::EvaluationResult::RequiresMemory { address, size, .. } = step {
                    let value = read(address, size)?;
                    step = eval
                        .resume_with_memory(gimli::Value::Generic(value))
                        .map_err(|e| e.to_string())?;
                }
                if step != gimli::EvaluationResult::Complete {
                    return Err(format!("the expression at {pc:#x} needs {step:?}"));
                }
                match eval.result().first().map(|p| &p.location) {
                    Some(gimli::Location::Address { address }) => Some(address & 0xffff_ffff),
                    other => return Err(format!("the expression at {pc:#x} gave {other:?}")),
                }
            }
            other => return Err(format!("return-address rule {other:?} at {pc:#x}")),
        };
        Ok(Caller { cfa, ra })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gimli::write::{
        Address, CallFrameInstruction, CommonInformationEntry, EndianVec, FrameDescriptionEntry,
    };

    const SP: u16 = 29;
    const RA: u16 = 31;

    /// An ELF whose `.debug_frame` has a function at 0x100 (CFA = sp, ra in place; after 4
    /// bytes CFA = sp + 8 and ra saved at CFA - 4) and an outermost one at 0x300.
    fn elf() -> Vec<u8> {
        let encoding = gimli::Encoding {
            format: gimli::Format::Dwarf32,
            version: 1,
            address_size: 4,
        };
        let mut table = gimli::write::FrameTable::default();
        let mut cie = CommonInformationEntry::new(encoding, 1, -4, gimli::Register(RA));
        cie.add_instruction(CallFrameInstruction::Cfa(gimli::Register(SP), 0));
        cie.add_instruction(CallFrameInstruction::SameValue(gimli::Register(RA)));
        let cie = table.add_cie(cie);
        let mut framed = FrameDescriptionEntry::new(Address::Constant(0x100), 0x20);
        framed.add_instruction(4, CallFrameInstruction::CfaOffset(8));
        framed.add_instruction(4, CallFrameInstruction::Offset(gimli::Register(RA), -4));
        table.add_fde(cie, framed);
        let mut outermost = FrameDescriptionEntry::new(Address::Constant(0x300), 0x10);
        outermost.add_instruction(0, CallFrameInstruction::Undefined(gimli::Register(RA)));
        table.add_fde(cie, outermost);
        let mut section = gimli::write::DebugFrame::from(EndianVec::new(gimli::LittleEndian));
        table
            .write_debug_frame(&mut section)
            .unwrap_or_else(|e| panic!("{e}"));
        let mut file = object::write::Object::new(
            object::BinaryFormat::Elf,
            object::Architecture::Mips,
            object::Endianness::Little,
        );
        let id = file.add_section(
            Vec::new(),
            b".debug_frame".to_vec(),
            object::SectionKind::Debug,
        );
        file.set_section_data(id, section.slice().to_vec(), 1);
        file.write().unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn rows_follow_the_instructions_and_end_at_the_fde() {
        let frames = FrameTable::from_elf(&elf()).unwrap_or_else(|e| panic!("{e}"));
        let row = |pc| frames.row(pc, RA).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            row(0x100),
            Some(Row {
                cfa_register: SP,
                cfa_offset: 0,
                ra: RegisterRule::SameValue
            })
        );
        assert_eq!(
            row(0x104),
            Some(Row {
                cfa_register: SP,
                cfa_offset: 8,
                ra: RegisterRule::Offset(-4)
            })
        );
        assert_eq!(row(0x200), None);
        assert_eq!(row(0x300).map(|r| r.ra), Some(RegisterRule::Undefined));
    }

    #[test]
    fn one_step_reads_registers_and_memory_and_says_what_is_missing() {
        let frames = FrameTable::from_elf(&elf()).unwrap_or_else(|e| panic!("{e}"));
        let regs = [(SP, 0x1000), (RA, 0x4444)];
        assert_eq!(
            frames.unwind(0x100, &regs, RA, 4, &[]),
            Ok(Caller {
                cfa: 0x1000,
                ra: Some(0x4444)
            })
        );
        assert_eq!(
            frames.unwind(0x110, &regs, RA, 4, &[(0x1004, 0x400)]),
            Ok(Caller {
                cfa: 0x1008,
                ra: Some(0x400)
            })
        );
        assert_eq!(
            frames.unwind(0x300, &regs, RA, 4, &[]).map(|c| c.ra),
            Ok(None)
        );
        assert!(
            frames.unwind(0x110, &regs, RA, 4, &[]).is_err(),
            "memory not given"
        );
        assert!(
            frames.unwind(0x100, &[(SP, 0)], RA, 4, &[]).is_err(),
            "ra not given"
        );
        assert!(frames.unwind(0x200, &regs, RA, 4, &[]).is_err(), "no FDE");
        assert!(FrameTable::from_elf(b"not an elf").is_err());
    }
}
