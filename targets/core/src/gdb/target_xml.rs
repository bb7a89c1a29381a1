//! The target description gdb reads as `target.xml` (each ISA's own, from its [`GdbMachine`]).

use gdbstub::target::ext::target_description_xml_override::TargetDescriptionXmlOverride;
use gdbstub::target::{TargetError, TargetResult};

use super::{copy_range, Debuggee, GdbMachine, EINVAL};

/// The gdb architecture a description names (`arm`, `mips`), for messages.
pub fn architecture(xml: &str) -> Option<&str> {
    let start = xml.find("<architecture>")? + "<architecture>".len();
    let len = xml[start..].find("</architecture>")?;
    Some(xml[start..start + len].trim())
}

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

#[cfg(test)]
mod tests {
    #[test]
    fn the_architecture_is_read_from_the_description() {
        let xml = "<target version=\"1.0\"><architecture> mips </architecture></target>";
        assert_eq!(super::architecture(xml), Some("mips"));
        assert_eq!(super::architecture("<target/>"), None);
    }
}
