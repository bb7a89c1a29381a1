//! The one list of instruction sets the command line knows: each entry is an ISA crate's
//! `BACKEND` (see targets/core/src/backend.rs). Adding an ISA is adding its crate and one line
//! to [`BACKENDS`]; nothing else in the binary names an ISA.
//!
//! [`Commands`] turns each backend (generic over its machine type) into what `asm`, `run` and
//! `debug` call through one trait object, so the debugger stays monomorphised per machine.

use std::process::ExitCode;

use asmdbg_core::isa::{DetectError, Dialect};
use asmdbg_core::{Backend, Isa, Machine, MachineOptions};

use crate::cli::{AsmArgs, DebugArgs};
use crate::load::{ProgramFile, SetupError};

/// Every ISA asmdbg runs.
pub static BACKENDS: &[&dyn Commands] = &[
    &asmdbg_lc3::BACKEND,
    &asmdbg_mips::BACKEND,
    &asmdbg_simplerisc::BACKEND,
];

/// The backend of `isa`.
pub fn of(isa: Isa) -> &'static dyn Commands {
    match BACKENDS.iter().find(|b| b.isa() == isa) {
        Some(backend) => *backend,
        // Every Isa has a backend: a test below checks the list against Isa::ALL.
        None => unreachable!("no backend registered for {isa}"),
    }
}

/// The ISA whose object file `bytes` are, if any.
pub fn object_file_isa(bytes: &[u8]) -> Option<Isa> {
    BACKENDS
        .iter()
        .find(|b| b.is_object_file(bytes))
        .map(|b| b.isa())
}

/// Guesses the ISA of an assembly source from the marks of every registered dialect.
pub fn detect(source: &str) -> Result<Isa, DetectError> {
    let dialects: Vec<Dialect> = BACKENDS.iter().map(|b| b.dialect()).collect();
    asmdbg_core::isa::detect(source, &dialects)
}

/// What the command line does with one ISA.
pub trait Commands: Sync {
    fn isa(&self) -> Isa;
    fn dialect(&self) -> Dialect;
    fn is_object_file(&self, bytes: &[u8]) -> bool;
    /// A machine for `asmdbg run`.
    fn load(
        &self,
        file: &ProgramFile,
        opts: &MachineOptions,
    ) -> Result<Box<dyn Machine + Send>, SetupError>;
    /// `asmdbg asm`: assembles and writes the ISA's files.
    fn asm(&self, args: &AsmArgs, file: &ProgramFile, opts: &MachineOptions) -> anyhow::Result<()>;
    /// `asmdbg debug`: serves the program to gdb.
    fn debug(
        &self,
        args: &DebugArgs,
        file: &ProgramFile,
        opts: &MachineOptions,
    ) -> anyhow::Result<ExitCode>;
    /// `--bench-traps`: 100 breakpoints and 4 watchpoints where benchmark programs never go.
    fn set_bench_traps(&self, machine: &mut dyn Machine);
}

impl<B: Backend> Commands for B
where
    B::Machine: Send,
{
    fn isa(&self) -> Isa {
        Backend::isa(self)
    }

    fn dialect(&self) -> Dialect {
        Backend::dialect(self)
    }

    fn is_object_file(&self, bytes: &[u8]) -> bool {
        Backend::is_object_file(self, bytes)
    }

    fn load(
        &self,
        file: &ProgramFile,
        opts: &MachineOptions,
    ) -> Result<Box<dyn Machine + Send>, SetupError> {
        Ok(Box::new(Backend::load(
            self,
            &file.path,
            &file.bytes,
            opts,
        )?))
    }

    fn asm(&self, args: &AsmArgs, file: &ProgramFile, opts: &MachineOptions) -> anyhow::Result<()> {
        use anyhow::Context;
        let machine =
            Backend::load(self, &file.path, &file.bytes, opts).map_err(SetupError::from)?;
        eprint!("{}", self.warnings(&machine));
        let artifacts = self.artifacts(
            &machine,
            &file.path,
            &args.file,
            args.output.as_deref(),
            opts,
        )?;
        for artifact in artifacts {
            std::fs::write(&artifact.path, &artifact.bytes)
                .with_context(|| format!("cannot write {}", artifact.path.display()))?;
        }
        Ok(())
    }

    fn debug(
        &self,
        args: &DebugArgs,
        file: &ProgramFile,
        opts: &MachineOptions,
    ) -> anyhow::Result<ExitCode> {
        let machine =
            Backend::load(self, &file.path, &file.bytes, opts).map_err(SetupError::from)?;
        let elf = self.elf(&machine, opts);
        let line_mode = if self.cooked_console() {
            crate::console::LineMode::Cooked
        } else {
            crate::console::LineMode::Raw
        };
        crate::serve(machine, args, line_mode, elf)
    }

    fn set_bench_traps(&self, machine: &mut dyn Machine) {
        use asmdbg_core::WatchKind;
        let traps = self.bench_traps();
        for i in 0..100 {
            machine
                .breakpoints()
                .insert(traps.code + i * traps.code_step);
        }
        let kinds = [
            WatchKind::Write,
            WatchKind::Read,
            WatchKind::Access,
            WatchKind::Write,
        ];
        for (i, kind) in kinds.into_iter().enumerate() {
            machine.watchpoints().insert(
                traps.data + i as u64 * traps.data_step,
                traps.data_len,
                kind,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_isa_has_exactly_one_backend() {
        for isa in Isa::ALL {
            let count = BACKENDS.iter().filter(|b| b.isa() == isa).count();
            assert_eq!(count, 1, "{isa}");
            assert_eq!(of(isa).isa(), isa);
        }
        assert_eq!(BACKENDS.len(), Isa::ALL.len());
    }

    #[test]
    fn detects_each_dialect() {
        assert_eq!(detect("\t.ORIG x3000\n\tHALT\n\t.END\n"), Ok(Isa::Lc3));
        assert_eq!(detect(".text\nli $v0, 10\nsyscall\n"), Ok(Isa::Mips));
        assert_eq!(
            detect(".main:\n\tmov r1, 3 @ c\n\t.print r1\n"),
            Ok(Isa::SimpleRisc)
        );
        assert_eq!(detect("main:\n\tld r1, 4[r2]\n"), Ok(Isa::SimpleRisc));
    }

    #[test]
    fn comments_do_not_count() {
        assert_eq!(
            detect("; uses $t0 in a comment\n .orig x3000\n .end\n"),
            Ok(Isa::Lc3)
        );
        assert_eq!(detect("// $t0 .orig\n.main:\n"), Ok(Isa::SimpleRisc));
    }

    #[test]
    fn string_contents_do_not_count() {
        assert_eq!(
            detect("\t.ORIG x3000\nMSG .STRINGZ \"You won $100; .text\"\n\t.END\n"),
            Ok(Isa::Lc3)
        );
        assert_eq!(
            detect(".data\ns: .asciiz \"x; .orig \\\" @ [sp]\"\n.text\nsyscall\n"),
            Ok(Isa::Mips)
        );
    }

    #[test]
    fn ambiguous_and_unknown_name_the_flag() {
        let err = detect(".orig x3000\n.text\n").unwrap_err();
        assert!(err.to_string().contains("--isa"), "{err}");
        assert!(err.to_string().contains("lc3 or mips"), "{err}");
        assert!(detect("nothing here\n")
            .unwrap_err()
            .to_string()
            .contains("--isa"));
    }

    #[test]
    fn only_lc3_reads_object_files() {
        assert_eq!(object_file_isa(b"\x30\x00\x12\x61"), Some(Isa::Lc3));
        assert_eq!(object_file_isa(b".text\nsyscall\n"), None);
    }
}
