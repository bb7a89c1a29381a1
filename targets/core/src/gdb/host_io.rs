//! Host I/O for the one file gdb may read: the program's ELF (symbols, lines, DWARF), served
//! so that a bare `target remote` loads it. Only that file can be opened, read-only.

use gdbstub::target::ext::host_io::{
    HostIo, HostIoClose, HostIoCloseOps, HostIoErrno, HostIoError, HostIoFstat, HostIoFstatOps,
    HostIoOpen, HostIoOpenFlags, HostIoOpenMode, HostIoOpenOps, HostIoPread, HostIoPreadOps,
    HostIoResult, HostIoStat,
};

use super::{copy_range, Debuggee, GdbMachine};

/// The only host I/O file descriptor: the ELF.
const EXEC_FD: u32 = 1;

impl<G: GdbMachine> HostIo for Debuggee<G> {
    #[inline(always)]
    fn support_open(&mut self) -> Option<HostIoOpenOps<'_, Self>> {
        Some(self)
    }

    #[inline(always)]
    fn support_close(&mut self) -> Option<HostIoCloseOps<'_, Self>> {
        Some(self)
    }

    #[inline(always)]
    fn support_pread(&mut self) -> Option<HostIoPreadOps<'_, Self>> {
        Some(self)
    }

    #[inline(always)]
    fn support_fstat(&mut self) -> Option<HostIoFstatOps<'_, Self>> {
        Some(self)
    }
}

impl<G: GdbMachine> HostIoOpen for Debuggee<G> {
    fn open(
        &mut self,
        filename: &[u8],
        flags: HostIoOpenFlags,
        _mode: HostIoOpenMode,
    ) -> HostIoResult<u32, Self> {
        let Some(exec) = &self.exec else {
            return Err(HostIoError::Errno(HostIoErrno::ENOENT));
        };
        if !exec.is_named(filename) {
            return Err(HostIoError::Errno(HostIoErrno::ENOENT));
        }
        if flags != HostIoOpenFlags::O_RDONLY {
            return Err(HostIoError::Errno(HostIoErrno::EACCES));
        }
        Ok(EXEC_FD)
    }
}

impl<G: GdbMachine> HostIoClose for Debuggee<G> {
    fn close(&mut self, fd: u32) -> HostIoResult<(), Self> {
        if fd == EXEC_FD {
            Ok(())
        } else {
            Err(HostIoError::Errno(HostIoErrno::EBADF))
        }
    }
}

impl<G: GdbMachine> HostIoPread for Debuggee<G> {
    fn pread(
        &mut self,
        fd: u32,
        count: usize,
        offset: u64,
        buf: &mut [u8],
    ) -> HostIoResult<usize, Self> {
        match (&self.exec, fd) {
            (Some(exec), EXEC_FD) => Ok(copy_range(&exec.bytes, offset, count, buf)),
            _ => Err(HostIoError::Errno(HostIoErrno::EBADF)),
        }
    }
}

impl<G: GdbMachine> HostIoFstat for Debuggee<G> {
    fn fstat(&mut self, fd: u32) -> HostIoResult<HostIoStat, Self> {
        match (&self.exec, fd) {
            (Some(exec), EXEC_FD) => Ok(HostIoStat {
                st_dev: 0,
                st_ino: 0,
                st_mode: HostIoOpenMode::S_IRUSR,
                st_nlink: 1,
                st_uid: 0,
                st_gid: 0,
                st_rdev: 0,
                st_size: exec.bytes.len() as u64,
                st_blksize: 4096,
                st_blocks: (exec.bytes.len() as u64).div_ceil(512),
                st_atime: 0,
                st_mtime: 0,
                st_ctime: 0,
            }),
            _ => Err(HostIoError::Errno(HostIoErrno::EBADF)),
        }
    }
}
