//! The executable's name gdb asks for (`qXfer:exec-file`), so that a bare `target remote`
//! loads the program's ELF ("Reading symbols from target:...") through host I/O.

use gdbstub::common::Pid;
use gdbstub::target::ext::exec_file::ExecFile;
use gdbstub::target::TargetResult;

use super::{copy_range, Debuggee, GdbMachine};

impl<G: GdbMachine> ExecFile for Debuggee<G> {
    fn get_exec_file(
        &self,
        _pid: Option<Pid>,
        offset: u64,
        length: usize,
        buf: &mut [u8],
    ) -> TargetResult<usize, Self> {
        let name = self.exec.as_ref().map(|e| e.name.as_bytes()).unwrap_or(b"");
        Ok(copy_range(name, offset, length, buf))
    }
}
