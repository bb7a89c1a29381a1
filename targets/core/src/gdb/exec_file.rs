//! The executable's name gdb asks for (`qXfer:exec-file`), so that a bare `target remote`
//! loads the program's ELF: from disk for a debugger on this host, through host I/O for a
//! remote one ([`super::ExecImage::name_for`]).

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
        if self.exec_reply.is_empty() {
            // No connection told us its peer (the in-memory tests): the absolute name.
            let name = self.exec.as_ref().map(|e| e.name.as_bytes()).unwrap_or(b"");
            return Ok(copy_range(name, offset, length, buf));
        }
        Ok(copy_range(self.exec_reply.as_bytes(), offset, length, buf))
    }
}
