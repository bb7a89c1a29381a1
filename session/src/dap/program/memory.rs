//! Memory as bytes (`readMemory`, `writeMemory`: gdb's byte view) and disassembly.

use super::*;

impl<G: GdbMachine> DapProgram<G> {
    /// A request's `memoryReference` and the native address it names.
    fn memory_reference<'a>(
        &self,
        command: &str,
        reference: Option<&'a str>,
    ) -> Result<(&'a str, u64), String> {
        let reference = reference.ok_or_else(|| format!("{command} needs a memoryReference"))?;
        let base = self
            .parse_addr(reference)
            .ok_or_else(|| format!("{reference:?} is not an address"))?;
        Ok((reference, base))
    }

    pub(super) fn disassemble(
        &self,
        args: DisassembleArguments,
    ) -> Result<DisassembleResponseBody, String> {
        let (_, base) = self.memory_reference("disassemble", args.memory_reference.as_deref())?;
        let m = self.machine();
        let offset = args.offset.unwrap_or(0);
        let insn_offset = args.instruction_offset.unwrap_or(0);
        let count = args.instruction_count.unwrap_or(0).clamp(0, 10_000);
        // Instructions are one LC-3 word, four bytes elsewhere: in native units.
        let step = if m.unit_bytes() == 2 { 1i64 } else { 4 };
        let gdb_base = m.native_code_to_gdb(base).wrapping_add(offset as u64);
        let start = (m.gdb_code_to_native(gdb_base) as i64)
            .saturating_add(insn_offset.saturating_mul(step));
        let mut list = Vec::new();
        let mut last_loc = None;
        for i in 0..count {
            let addr = start.saturating_add(i * step);
            if addr < 0 {
                list.push(DisassembledInstruction {
                    address: format!("-{}", -addr),
                    presentation_hint: Some("invalid".to_string()),
                    ..DisassembledInstruction::default()
                });
                continue;
            }
            let native = addr as u64;
            let gdb = m.native_code_to_gdb(native);
            let mut entry = DisassembledInstruction {
                address: protocol_address(&self.fmt_addr(native), native),
                ..DisassembledInstruction::default()
            };
            match m.disassemble(native) {
                Some((text, size)) if self.view.in_code(gdb) || m.debug_read(native).is_ok() => {
                    entry.instruction = text;
                    let bytes = m.format_encoding(
                        native,
                        size * u64::from(m.unit_bytes()) / u64::from(m.unit_bytes()).max(1),
                    );
                    let bytes = if bytes.trim().is_empty() {
                        m.debug_read(native)
                            .map(|w| self.hex(u64::from(w), 8 * m.unit_bytes()))
                            .unwrap_or_default()
                    } else {
                        bytes
                    };
                    entry.instruction_bytes = Some(bytes.trim().to_string());
                }
                _ => entry.presentation_hint = Some("invalid".to_string()),
            }
            if let Some(label) = self.view.label_at(gdb, true) {
                entry.symbol = Some(label.to_string());
            }
            if let Some(loc) = self.view.loc(gdb) {
                if last_loc != Some(loc) {
                    entry.location = self.source(loc.file);
                    entry.line = Some(i64::from(loc.line));
                }
                last_loc = Some(loc);
            }
            list.push(entry);
        }
        Ok(DisassembleResponseBody { instructions: list })
    }

    pub(super) fn read_memory(
        &self,
        args: ReadMemoryArguments,
    ) -> Result<ReadMemoryResponseBody, String> {
        let (_, base) = self.memory_reference("readMemory", args.memory_reference.as_deref())?;
        let m = self.machine();
        let offset = args.offset.unwrap_or(0);
        let count = args.count.unwrap_or(0).clamp(0, 1 << 20) as u64;
        let start = m.native_to_gdb(base).wrapping_add(offset as u64);
        let mut bytes = Vec::new();
        for i in 0..count {
            match m.gdb_read_byte(start.wrapping_add(i)) {
                Ok(b) => bytes.push(b),
                Err(_) => break,
            }
        }
        let unreadable = count - bytes.len() as u64;
        Ok(ReadMemoryResponseBody {
            address: format!("0x{start:x}"),
            data: Some(base64(&bytes)),
            unreadable_bytes: (unreadable > 0).then_some(unreadable as i64),
        })
    }

    pub(super) fn write_memory(
        &mut self,
        args: WriteMemoryArguments,
        out: &mut Outbox,
    ) -> Result<WriteMemoryResponseBody, String> {
        let (reference, base) =
            self.memory_reference("writeMemory", args.memory_reference.as_deref())?;
        let offset = args.offset.unwrap_or(0);
        let data = unbase64(args.data.as_deref().unwrap_or("")).ok_or("data is not base64")?;
        let start = self
            .machine()
            .native_to_gdb(base)
            .wrapping_add(offset as u64);
        let mut written = 0u64;
        for (i, b) in data.iter().enumerate() {
            if self
                .core
                .target
                .machine
                .gdb_write_byte(start.wrapping_add(i as u64), *b)
                .is_err()
            {
                break;
            }
            written += 1;
        }
        if written > 0 {
            self.state_written();
        }
        out.memory(reference, offset, written);
        out.invalidated(&["variables"]);
        if written < data.len() as u64 {
            return Err(format!(
                "wrote {written} of {} bytes: the next is not writable",
                data.len()
            ));
        }
        Ok(WriteMemoryResponseBody {
            offset: None,
            bytes_written: Some(written as i64),
        })
    }
}

/// A disassembled instruction's `address`: DAP reads it as hex after `0x`, else decimal (VS
/// Code's disassembly view drops one it cannot read), so an ISA notation of another form
/// (LC-3's `x3000`) is given as `0x3000`, the same native address.
fn protocol_address(formatted: &str, native: u64) -> String {
    if formatted.starts_with("0x") || formatted.bytes().all(|b| b.is_ascii_digit()) {
        formatted.to_string()
    } else {
        format!("0x{native:x}")
    }
}
