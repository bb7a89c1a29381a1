//! One value per ISA that says everything the command line needs from that ISA: how to tell
//! its files (object files, the marks of its assembly dialect), load them into a machine, what
//! `asmdbg asm` writes, how its console behaves under the debugger, and where the benchmark
//! puts its breakpoints.
//!
//! Each ISA crate defines `pub static BACKEND` implementing [`Backend`] and `pub const ISA`, its
//! identity ([`crate::isa::IsaInfo`]: `--isa` name and aliases, title, address notation, the
//! ISA-specific flags it accepts); the binary keeps the one list of backends (src/backends.rs)
//! and takes every list of ISAs from it (`--isa` parsing, help texts, the detect and
//! foreign-flag errors), so a new ISA is a new crate and one line there. How gdb sees a machine
//! (registers, target description, monitor notation) is the ISA's [`GdbMachine`] impl; the
//! backend names that machine type, so the debugger stays generic and monomorphised over it.
//!
//! Limits: an ISA with command-line options of its own still adds fields to
//! [`MachineOptions`], a [`crate::options::Flag`] for each, and the flags in src/cli.rs (one
//! plain options struct that every machine reads); the help text of each such flag names its
//! ISA.

use std::path::{Path, PathBuf};

use crate::elf::{write_elf, ElfError, ElfImage};
use crate::gdb::GdbMachine;
use crate::isa::{Dialect, Isa};
use crate::machine::LoadError;
use crate::options::MachineOptions;

/// Where `--bench-traps` puts 100 breakpoints and 4 watchpoints: where benchmark programs never
/// go, breakpoints inside the machine's breakpoint bitmap (so the check costs what it costs in a
/// debug session), and watchpoints on pages of their own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BenchTraps {
    /// First breakpoint, and the distance between two (native units).
    pub code: u64,
    pub code_step: u64,
    /// First watchpoint, the distance between two, and each one's length.
    pub data: u64,
    pub data_step: u64,
    pub data_len: u64,
}

/// One file `asmdbg asm` writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Artifact {
    pub path: PathBuf,
    pub bytes: Vec<u8>,
}

/// Why `asmdbg asm` could not produce its files.
#[derive(Debug, thiserror::Error)]
pub enum ArtifactError {
    #[error("{0}")]
    Usage(String),
    #[error("{path}: cannot write an object file")]
    Object {
        path: String,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    #[error(transparent)]
    Elf(#[from] ElfError),
}

/// One file of a program as named on the command line: its name and its bytes (assembly
/// source or object file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProgramSource {
    pub path: String,
    pub bytes: Vec<u8>,
}

/// Everything the command line needs from one ISA.
pub trait Backend: Sync + 'static {
    /// The machine this ISA's programs run on.
    type Machine: GdbMachine;

    fn isa(&self) -> Isa;

    /// How its assembly source is told from the others' (see [`crate::isa::detect`]).
    fn dialect(&self) -> Dialect;

    /// Whether `bytes` are an object file only this ISA reads (its ISA is then not guessed
    /// from text).
    fn is_object_file(&self, _bytes: &[u8]) -> bool {
        false
    }

    /// Assembles (or reads) a program file into a machine at its entry.
    fn load(
        &self,
        path: &str,
        bytes: &[u8],
        opts: &MachineOptions,
    ) -> Result<Self::Machine, LoadError>;

    /// Assembles (or reads) a program of several files into one machine, by the rules of the
    /// ISA's reference tools. By default a program is one file and more are refused.
    fn load_files(
        &self,
        files: &[ProgramSource],
        opts: &MachineOptions,
    ) -> Result<Self::Machine, LoadError> {
        match files {
            [file] => self.load(&file.path, &file.bytes, opts),
            _ => Err(LoadError::Option(format!(
                "{} programs are one file; {} files were given ({})",
                self.isa().info().title,
                files.len(),
                files
                    .iter()
                    .map(|f| f.path.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    }

    /// Assembler warnings to show before `asmdbg asm` writes its files.
    fn warnings(&self, _machine: &Self::Machine) -> String {
        String::new()
    }

    /// What `asmdbg asm SOURCE... [-o OUTPUT]` writes, in order. By default the ELF of the
    /// whole program alone, at `OUTPUT` or beside the first source with the extension `.elf`;
    /// an ISA with object files of its own (LC-3's `.obj` and `.sym`, one pair per source)
    /// says otherwise.
    fn artifacts(
        &self,
        machine: &Self::Machine,
        files: &[ProgramSource],
        output: Option<&Path>,
        opts: &MachineOptions,
    ) -> Result<Vec<Artifact>, ArtifactError> {
        let first = files.first().map_or("program", |f| f.path.as_str());
        Ok(vec![Artifact {
            path: elf_path(Path::new(first), output),
            bytes: self.elf(machine, opts)?,
        }])
    }

    /// What the program's ELF describes (sections, symbols, lines, functions, frame rules),
    /// in gdb's addresses: the DAP session reads its stack frames and data labels here, so an
    /// IDE sees what gdb sees.
    fn image(&self, machine: &Self::Machine, opts: &MachineOptions) -> Result<ElfImage, ElfError>;

    /// The program's ELF for debuggers.
    fn elf(&self, machine: &Self::Machine, opts: &MachineOptions) -> Result<Vec<u8>, ElfError> {
        write_elf(&self.image(machine, opts)?)
    }

    /// Whether console input is line-edited and echoed by asmdbg (MARS's console) rather than
    /// passed key by key to a guest that echoes for itself.
    fn cooked_console(&self) -> bool;

    /// Where `--bench-traps` puts its breakpoints and watchpoints.
    fn bench_traps(&self) -> BenchTraps;
}

/// `SOURCE` with the extension `.elf`, or `OUTPUT` if given: where an ELF-only ISA's
/// `asmdbg asm` writes.
pub fn elf_path(source: &Path, output: Option<&Path>) -> PathBuf {
    output
        .map(Path::to_path_buf)
        .unwrap_or_else(|| source.with_extension("elf"))
}
