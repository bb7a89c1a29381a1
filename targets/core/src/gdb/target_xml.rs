//! The target description gdb reads as `target.xml` (each ISA's own, from its [`GdbMachine`]).

use gdbstub::target::ext::target_description_xml_override::TargetDescriptionXmlOverride;
use gdbstub::target::{TargetError, TargetResult};

use super::{copy_range, Debuggee, GdbMachine, EINVAL};

impl<G: GdbMachine> TargetDescriptionXmlOverride for Debuggee<G> {
    fn target_description_xml(
        &self,
        annex: &[u8],
        offset: u64,
        length: usize,
        buf: &mut [u8],
    ) -> TargetResult<usize, Self> {
        if annex != b"target.xml" {
            return Err(TargetError::Errno(EINVAL));
        }
        Ok(copy_range(
            self.machine.target_xml().as_bytes(),
            offset,
            length,
            buf,
        ))
    }
}
