//! Noticing a gdb without the target's architecture, from what it does on the wire.
//!
//! Plain `gdb` on a PC has no ARM or MIPS support. It rejects the target description at its
//! `<architecture>` line, goes on with its own x86-64 registers and gives up with "Truncated
//! register 18 in remote 'g' packet", which says nothing useful, then closes the connection.
//! Measured with Debian's gdb 13.1: plain gdb and gdb-multiarch send the very same packets up
//! to that point (the same `qSupported` with `xmlRegisters=i386`, the same reads of the
//! description and of any document it includes), so nothing tells them apart before the
//! register read, and what gdb prints about it cannot be changed. What does differ: after the
//! first `g` gdb-multiarch goes on (thread list, memory), while plain gdb hangs up. A
//! connection that ends that way after reading the description gets an explanation on
//! asmdbg's stderr.

/// What a connection has done so far, as far as the check cares.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ArchCheck {
    read_description: bool,
    registers_read: u32,
    /// The last packet was the connection's first `g`.
    last_was_first_g: bool,
}

impl ArchCheck {
    /// Follows one packet payload (without `$` and checksum).
    pub fn on_packet(&mut self, payload: &[u8]) {
        if payload.starts_with(b"qXfer:features:read:") {
            self.read_description = true;
        }
        let is_g = payload == b"g";
        if is_g {
            self.registers_read += 1;
        }
        self.last_was_first_g = is_g && self.registers_read == 1;
    }

    /// Whether a connection that ended now (without detach or kill) looks like a gdb that
    /// rejected the architecture.
    pub fn hung_up_after_first_register_read(&self) -> bool {
        self.read_description && self.last_was_first_g
    }
}

/// The line for asmdbg's stderr, for a description naming `architecture` (`arm`, `mips`).
pub fn notice(architecture: &str, isa: &str) -> String {
    format!(
        "asmdbg: the debugger hung up right after reading the registers. If it printed \
         \"Truncated register ... in remote 'g' packet\", it is a gdb without {} support, \
         which this {isa} machine needs: use gdb-multiarch (Debian/Ubuntu: apt-get install gdb-multiarch)\n",
        architecture.to_ascii_uppercase()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn follow(packets: &[&str]) -> ArchCheck {
        let mut check = ArchCheck::default();
        for p in packets {
            check.on_packet(p.as_bytes());
        }
        check
    }

    const HANDSHAKE: [&str; 6] = [
        "qSupported:multiprocess+;xmlRegisters=i386",
        "qXfer:features:read:target.xml:0,1000",
        "qXfer:features:read:target.xml:48e,1000",
        "qTStatus",
        "?",
        "qOffsets",
    ];

    #[test]
    fn a_hang_up_right_after_the_first_register_read_is_noticed() {
        let mut plain = HANDSHAKE.to_vec();
        plain.push("g");
        assert!(follow(&plain).hung_up_after_first_register_read());

        let mut multiarch = plain.clone();
        multiarch.extend(["qfThreadInfo", "m6000,4"]);
        assert!(!follow(&multiarch).hung_up_after_first_register_read());
        // A later `g` (after stepping) is an ordinary end.
        multiarch.extend(["vCont;s:1", "g"]);
        assert!(!follow(&multiarch).hung_up_after_first_register_read());
        // A script that never reads the description is not judged.
        assert!(!follow(&["?", "g"]).hung_up_after_first_register_read());
    }

    #[test]
    fn the_notice_names_the_symptom_the_architecture_and_the_fix() {
        let text = notice("arm", "lc3");
        assert!(
            text.contains("Truncated register ... in remote 'g' packet"),
            "{text}"
        );
        assert!(
            text.contains("a gdb without ARM support, which this lc3 machine needs"),
            "{text}"
        );
        assert!(
            text.ends_with("use gdb-multiarch (Debian/Ubuntu: apt-get install gdb-multiarch)\n")
        );
    }
}
