//! Turning a file named on the command line into a running machine: infer the ISA, then hand
//! the file to that ISA's loader (assembler or object-file reader).

use std::path::Path;

use asmdbg_core::{isa, Isa, LoadError, Machine, MachineOptions};

/// Why the command line could not produce a machine (exit status 2).
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error("{path}: {source}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Detect {
        path: String,
        #[source]
        source: isa::DetectError,
    },
    #[error(transparent)]
    Load(#[from] LoadError),
    #[error(transparent)]
    Poke(#[from] crate::pokes::PokeError),
}

/// A program file as read, with its ISA decided.
pub struct ProgramFile {
    pub path: String,
    pub bytes: Vec<u8>,
    pub isa: Isa,
}

impl ProgramFile {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }
}

/// Whether `bytes` look like an LC-3 object file rather than text: lc3tools' magic, or bytes a
/// text file does not contain.
fn looks_like_lc3_object(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0x1c, 0x30, 0x15, 0xc0, 0x01])
        || bytes
            .iter()
            .any(|&b| b == 0 || (b < 0x20 && !matches!(b, b'\n' | b'\r' | b'\t' | 0x0c)))
}

/// Reads the file and decides its ISA (`--isa` wins; an object file is LC-3).
pub fn read_program(path: &Path, isa: Option<Isa>) -> Result<ProgramFile, SetupError> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| SetupError::Read {
        path: name.clone(),
        source,
    })?;
    let isa = match isa {
        Some(isa) => isa,
        None if looks_like_lc3_object(&bytes) => Isa::Lc3,
        None => {
            isa::detect(&String::from_utf8_lossy(&bytes)).map_err(|source| SetupError::Detect {
                path: name.clone(),
                source,
            })?
        }
    };
    Ok(ProgramFile {
        path: name,
        bytes,
        isa,
    })
}

/// Builds the machine for a program file.
pub fn load_machine(
    file: &ProgramFile,
    opts: &MachineOptions,
) -> Result<Box<dyn Machine + Send>, SetupError> {
    let machine: Box<dyn Machine + Send> = match file.isa {
        Isa::Lc3 => Box::new(load_lc3(file, opts)?),
        Isa::SimpleRisc => Box::new(load_simplerisc(file, opts)?),
        Isa::Mips => Box::new(load_mips(file, opts)?),
    };
    Ok(machine)
}

pub fn load_lc3(
    file: &ProgramFile,
    opts: &MachineOptions,
) -> Result<asmdbg_lc3::machine::Lc3Machine, SetupError> {
    Ok(asmdbg_lc3::machine::load_machine(
        &file.path,
        &file.bytes,
        opts,
    )?)
}

pub fn load_mips(
    file: &ProgramFile,
    opts: &MachineOptions,
) -> Result<asmdbg_mips::machine::MipsMachine, SetupError> {
    Ok(asmdbg_mips::machine::load_machine(
        &file.path,
        &file.text(),
        opts,
    )?)
}

pub fn load_simplerisc(
    file: &ProgramFile,
    opts: &MachineOptions,
) -> Result<asmdbg_simplerisc::SrMachine, SetupError> {
    Ok(asmdbg_simplerisc::load_machine(
        &file.path,
        &file.text(),
        opts,
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn object_files_are_recognised() {
        assert!(looks_like_lc3_object(&[0x30, 0x00, 0xf0, 0x25]));
        assert!(looks_like_lc3_object(&[0x1c, 0x30, 0x15, 0xc0, 0x01, 0x01]));
        assert!(!looks_like_lc3_object(b"\t.ORIG x3000\r\n\tHALT\n.END\n"));
    }
}
