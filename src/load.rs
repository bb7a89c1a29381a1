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

impl ProgramFile {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }
}

/// Reads the file and decides its ISA (`--isa` wins; an object file is LC-3).
pub fn read_program(path: &Path, isa: Option<Isa>) -> Result<ProgramFile, SetupError> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| SetupError::Read {
        path: name.clone(),
        source,
    })?;
    if bytes.starts_with(b"\x7fELF") {
        return Err(SetupError::Elf { path: name });
    }
    let isa = match isa {
        Some(isa) => isa,
        None if asmdbg_lc3::machine::is_object_file(&bytes) => Isa::Lc3,
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
