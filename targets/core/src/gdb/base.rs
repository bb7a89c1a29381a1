//! gdbstub's base operations: all registers, one register, memory, in gdb's view of the
//! machine (see [`GdbMachine`] for the address mapping).

use gdbstub::arch::Arch;
use gdbstub::target::ext::base::single_register_access::{
    SingleRegisterAccess, SingleRegisterAccessOps,
};
use gdbstub::target::ext::base::singlethread::{SingleThreadBase, SingleThreadResumeOps};
use gdbstub::target::{TargetError, TargetResult};

use super::{to_u64, Debuggee, GdbMachine, EFAULT, EINVAL};

impl<G: GdbMachine> SingleThreadBase for Debuggee<G> {
    fn read_registers(
        &mut self,
        regs: &mut <Self::Arch as Arch>::Registers,
    ) -> TargetResult<(), Self> {
        self.machine.gdb_read_registers(regs);
        Ok(())
    }

    fn write_registers(
        &mut self,
        regs: &<Self::Arch as Arch>::Registers,
    ) -> TargetResult<(), Self> {
        self.machine.gdb_write_registers(regs);
        self.state_written();
        Ok(())
    }

    #[inline(always)]
    fn support_single_register_access(&mut self) -> Option<SingleRegisterAccessOps<'_, (), Self>> {
        Some(self)
    }

    fn read_addrs(
        &mut self,
        start_addr: <Self::Arch as Arch>::Usize,
        data: &mut [u8],
    ) -> TargetResult<usize, Self> {
        let start = to_u64(start_addr);
        for (i, slot) in data.iter_mut().enumerate() {
            match self.machine.gdb_read_byte(start.wrapping_add(i as u64)) {
                Ok(b) => *slot = b,
                // A short read tells gdb where memory ends; nothing readable is an error.
                Err(_) if i > 0 => return Ok(i),
                Err(_) => return Err(TargetError::Errno(EFAULT)),
            }
        }
        Ok(data.len())
    }

    fn write_addrs(
        &mut self,
        start_addr: <Self::Arch as Arch>::Usize,
        data: &[u8],
    ) -> TargetResult<(), Self> {
        let start = to_u64(start_addr);
        for (i, &b) in data.iter().enumerate() {
            self.machine
                .gdb_write_byte(start.wrapping_add(i as u64), b)
                .map_err(|_| TargetError::Errno(EFAULT))?;
        }
        self.state_written();
        Ok(())
    }

    #[inline(always)]
    fn support_resume(&mut self) -> Option<SingleThreadResumeOps<'_, Self>> {
        Some(self)
    }
}

impl<G: GdbMachine> SingleRegisterAccess<()> for Debuggee<G> {
    fn read_register(
        &mut self,
        _tid: (),
        reg_id: <Self::Arch as Arch>::RegId,
        buf: &mut [u8],
    ) -> TargetResult<usize, Self> {
        self.machine
            .gdb_read_register(reg_id, buf)
            .ok_or(TargetError::Errno(EINVAL))
    }

    fn write_register(
        &mut self,
        _tid: (),
        reg_id: <Self::Arch as Arch>::RegId,
        val: &[u8],
    ) -> TargetResult<(), Self> {
        if self.machine.gdb_write_register(reg_id, val) {
            self.state_written();
            Ok(())
        } else {
            Err(TargetError::Errno(EINVAL))
        }
    }
}
