//! Turning a file named on the command line into a running machine: infer the ISA, then hand
//! the file to that ISA's backend (src/backends.rs: assembler or object-file reader).

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
    #[error(
        "{path} is an ELF file, which asmdbg writes for debuggers; run the assembly source (or an LC-3 .obj) instead"
    )]
    Elf { path: String },
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

/// Reads the file and decides its ISA (`--isa` wins, then the backend that reads it as an object
/// file, then the marks of its assembly dialect).
pub fn read_program(path: &Path, isa: Option<Isa>) -> Result<ProgramFile, SetupError> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| SetupError::Read {
        path: name.clone(),
        source,
    })?;
    if bytes.starts_with(b"\x7fELF") {
        return Err(SetupError::Elf { path: name });
    }
    let isa = match isa.or_else(|| crate::backends::object_file_isa(&bytes)) {
        Some(isa) => isa,
        None => crate::backends::detect(&String::from_utf8_lossy(&bytes)).map_err(|source| {
            SetupError::Detect {
                path: name.clone(),
                source,
            }
        })?,
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
    crate::backends::of(file.isa).load(file, opts)
}
