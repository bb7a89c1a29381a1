//! The one list of instruction sets the command line knows: each entry is an ISA crate's
//! `BACKEND` (see targets/core/src/backend.rs). Adding an ISA is adding its crate and one line
//! to [`BACKENDS`]; nothing else in the binary names an ISA: `--isa` parsing, its help text, the
//! detect error and the foreign-flag error all take their list of ISAs from here.
//!
//! [`Commands`] turns each backend (generic over its machine type) into what `asm`, `run` and
//! `debug` call through one trait object, so the debugger stays monomorphised per machine.

use std::process::ExitCode;

use asmdbg_core::isa::{DetectError, Dialect};
use asmdbg_core::{Backend, Isa, LoadError, Machine, MachineOptions};

use crate::cli::{AsmArgs, DebugArgs};
use crate::load::{ProgramFiles, SetupError};

/// Every ISA asmdbg runs.
pub static BACKENDS: &[&dyn Commands] = &[
    &asmdbg_lc3::BACKEND,
    &asmdbg_mips::BACKEND,
    &asmdbg_simplerisc::BACKEND,
];

/// Every ISA asmdbg runs, in the order of [`BACKENDS`].
pub fn isas() -> Vec<Isa> {
    BACKENDS.iter().map(|b| b.isa()).collect()
}

/// The ISA `--isa text` names.
pub fn parse_isa(text: &str) -> Result<Isa, String> {
    asmdbg_core::isa::parse_isa(text, &isas())
}

/// `lc3, mips or simplerisc`: the names `--isa` takes, for help texts.
pub fn isa_names() -> String {
    let names: Vec<&str> = BACKENDS.iter().map(|b| b.isa().name()).collect();
    match names.split_last() {
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// `LC-3, MIPS (MARS 4.5) and SimpleRISC`: the ISAs as the command line's help names them.
pub fn isa_summaries() -> String {
    let names: Vec<&str> = BACKENDS.iter().map(|b| b.isa().info().summary).collect();
    match names.split_last() {
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// The backend of `isa`. Every [`Isa`] the command line holds came from [`BACKENDS`] (through
/// [`parse_isa`], [`detect`], [`object_file_isa`] or a machine one of them built).
pub fn of(isa: Isa) -> &'static dyn Commands {
    match BACKENDS.iter().find(|b| b.isa() == isa) {
        Some(backend) => *backend,
        None => unreachable!("no backend registered for {isa}"),
    }
}

/// An error naming every flag in `opts` that `isa` does not accept, and whose it is.
fn reject_foreign(isa: Isa, opts: &MachineOptions) -> Result<(), LoadError> {
    opts.reject_foreign(isa, &isas())
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
        program: &ProgramFiles,
        opts: &MachineOptions,
    ) -> Result<Box<dyn Machine + Send>, SetupError>;
    /// `asmdbg run --stats`: the machine, and how long building its ELF takes (what
    /// `asmdbg debug` does at startup besides loading; `run` itself needs no ELF).
    fn load_timing_elf(
        &self,
        program: &ProgramFiles,
        opts: &MachineOptions,
    ) -> Result<(Box<dyn Machine + Send>, std::time::Duration), SetupError>;
    /// `asmdbg asm`: assembles and writes the ISA's files.
    fn asm(
        &self,
        args: &AsmArgs,
        program: &ProgramFiles,
        opts: &MachineOptions,
    ) -> anyhow::Result<()>;
    /// `asmdbg debug`: serves the program to gdb.
    fn debug(
        &self,
        args: &DebugArgs,
        program: &ProgramFiles,
        opts: &MachineOptions,
    ) -> anyhow::Result<ExitCode>;
    /// `--bench-traps`: 100 breakpoints and 4 watchpoints where benchmark programs never go.
    fn set_bench_traps(&self, machine: &mut dyn Machine);
    /// `asmdbg test`: a machine that can go back to a state it saved, so that one load (and
    /// the run all cases share) serves every case.
    fn load_rewindable(
        &self,
        program: &ProgramFiles,
        opts: &MachineOptions,
    ) -> Result<Box<dyn Rewind>, SetupError>;
    /// `asmdbg dap`: the program a `launch` request names, its console echoed by asmdbg
    /// (`echo`: a terminal in raw mode) or not (the IDE's debug console); what it printed
    /// before it starts (assembler warnings); errors as the user should read them.
    fn dap_program(
        &self,
        args: &DebugArgs,
        program: &ProgramFiles,
        opts: &MachineOptions,
        echo: bool,
    ) -> Result<(Box<dyn asmdbg_session::dap::LaunchedProgram>, String), String>;
}

/// A machine that saves its state and goes back to it ([`Commands::load_rewindable`]).
pub trait Rewind: Send {
    fn machine(&mut self) -> &mut dyn Machine;
    fn machine_ref(&self) -> &dyn Machine;
    /// Keeps the current state (the one [`Rewind::rewind`] goes back to).
    fn save(&mut self);
    /// Back to the saved state (the state after loading if none was saved); breakpoints and
    /// watchpoints stay as they are.
    fn rewind(&mut self);
}

struct Saved<M: asmdbg_core::gdb::GdbMachine> {
    machine: M,
    state: M::State,
}

impl<M: asmdbg_core::gdb::GdbMachine> Rewind for Saved<M> {
    fn machine(&mut self) -> &mut dyn Machine {
        &mut self.machine
    }

    fn machine_ref(&self) -> &dyn Machine {
        &self.machine
    }

    fn save(&mut self) {
        self.state = asmdbg_core::Snapshot::snapshot(&self.machine);
    }

    fn rewind(&mut self) {
        asmdbg_core::Snapshot::restore(&mut self.machine, &self.state);
    }
}

/// How the backend's console takes input: line-edited by asmdbg or key by key.
fn line_mode<B: Backend>(backend: &B) -> asmdbg_session::LineMode {
    if backend.cooked_console() {
        asmdbg_session::LineMode::Cooked
    } else {
        asmdbg_session::LineMode::Raw
    }
}

/// The backend's machine for `program`, once the options are known to apply to its ISA.
fn load_checked<B: Backend>(
    backend: &B,
    program: &ProgramFiles,
    opts: &MachineOptions,
) -> Result<B::Machine, LoadError> {
    reject_foreign(Backend::isa(backend), opts)?;
    Backend::load_files(backend, &program.files, opts)
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
        program: &ProgramFiles,
        opts: &MachineOptions,
    ) -> Result<Box<dyn Machine + Send>, SetupError> {
        Ok(Box::new(load_checked(self, program, opts)?))
    }

    fn load_timing_elf(
        &self,
        program: &ProgramFiles,
        opts: &MachineOptions,
    ) -> Result<(Box<dyn Machine + Send>, std::time::Duration), SetupError> {
        let machine = load_checked(self, program, opts)?;
        let started = std::time::Instant::now();
        // A program without an ELF (an object file's) still runs; its time is what it took.
        let _ = self.elf(&machine, opts);
        Ok((Box::new(machine), started.elapsed()))
    }

    fn asm(
        &self,
        args: &AsmArgs,
        program: &ProgramFiles,
        opts: &MachineOptions,
    ) -> anyhow::Result<()> {
        use anyhow::Context;
        let machine = load_checked(self, program, opts).map_err(SetupError::from)?;
        eprint!("{}", self.warnings(&machine));
        let artifacts = self.artifacts(&machine, &program.files, args.output.as_deref(), opts)?;
        for artifact in artifacts {
            std::fs::write(&artifact.path, &artifact.bytes)
                .with_context(|| format!("cannot write {}", artifact.path.display()))?;
        }
        Ok(())
    }

    fn debug(
        &self,
        args: &DebugArgs,
        program: &ProgramFiles,
        opts: &MachineOptions,
    ) -> anyhow::Result<ExitCode> {
        let machine = load_checked(self, program, opts).map_err(SetupError::from)?;
        // The assembler's warnings, as `run` shows them (SimpleRISC lines that fault if run).
        eprint!("{}", machine.start_of_run_stderr());
        // The ELF for gdb, and its frames and lines for the session's reverse motions.
        let image = self.image(&machine, opts);
        let frames = image.as_ref().ok().map(|i| i.debug.clone());
        let elf = image.and_then(|i| asmdbg_core::elf::write_elf(&i));
        crate::debug::serve(machine, args, line_mode(self), elf, frames)
    }

    fn dap_program(
        &self,
        args: &DebugArgs,
        program: &ProgramFiles,
        opts: &MachineOptions,
        echo: bool,
    ) -> Result<(Box<dyn asmdbg_session::dap::LaunchedProgram>, String), String> {
        let machine = load_checked(self, program, opts).map_err(|e| e.to_string())?;
        let warnings = machine.start_of_run_stderr();
        let image = self.image(&machine, opts).map_err(|e| e.to_string())?;
        let debuggee = crate::debug::debuggee(machine, args).map_err(|e| e.to_string())?;
        let discipline = asmdbg_session::Discipline::new(line_mode(self), echo);
        let program =
            asmdbg_session::dap::DapProgram::new(debuggee, image, discipline).with_pace(opts.speed);
        Ok((Box::new(program), warnings))
    }

    fn load_rewindable(
        &self,
        program: &ProgramFiles,
        opts: &MachineOptions,
    ) -> Result<Box<dyn Rewind>, SetupError> {
        let machine = load_checked(self, program, opts)?;
        let state = asmdbg_core::Snapshot::snapshot(&machine);
        Ok(Box::new(Saved { machine, state }))
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

    use asmdbg_core::Flag;
    use asmdbg_lc3::ISA as LC3;
    use asmdbg_mips::ISA as MIPS;
    use asmdbg_simplerisc::ISA as SIMPLERISC;

    #[test]
    fn every_isa_has_exactly_one_backend() {
        for isa in isas() {
            let count = BACKENDS.iter().filter(|b| b.isa() == isa).count();
            assert_eq!(count, 1, "{isa}");
            assert_eq!(of(isa).isa(), isa);
        }
        assert_eq!(isas(), [LC3, MIPS, SIMPLERISC]);
    }

    #[test]
    fn no_two_isas_share_a_name_or_alias() {
        let mut seen = std::collections::HashSet::new();
        for isa in isas() {
            for name in std::iter::once(&isa.name()).chain(isa.info().aliases) {
                assert!(seen.insert(*name), "{name} names two ISAs");
                assert_eq!(parse_isa(name), Ok(isa), "{name}");
            }
        }
    }

    #[test]
    fn isa_names_and_aliases_parse() {
        assert_eq!(parse_isa("LC3"), Ok(LC3));
        assert_eq!(parse_isa("lc-3"), Ok(LC3));
        assert_eq!(parse_isa("mars"), Ok(MIPS));
        assert_eq!(parse_isa("sr"), Ok(SIMPLERISC));
        assert_eq!(parse_isa("Simple-RISC"), Ok(SIMPLERISC));
        assert_eq!(
            parse_isa("z80"),
            Err("unknown ISA 'z80': expected one of lc3, mips, simplerisc".to_string())
        );
        assert_eq!(isa_names(), "lc3, mips or simplerisc");
        assert_eq!(isa_summaries(), "LC-3, MIPS (MARS 4.5) and SimpleRISC");
    }

    #[test]
    fn addresses_print_in_isa_notation() {
        assert_eq!(LC3.format_addr(0x3000), "x3000");
        assert_eq!(MIPS.format_addr(0x400000), "0x00400000");
        assert_eq!(SIMPLERISC.format_addr(1000), "1000");
    }

    #[test]
    fn every_flag_belongs_to_its_isas() {
        for flag in Flag::ALL {
            let owners: Vec<Isa> = isas().into_iter().filter(|i| i.accepts(flag)).collect();
            // --strict: lc3as's rules for LC-3, the course interpreter's for SimpleRISC,
            // warnings MARS does not give for MIPS; --keys: the LC-3 keyboard and MARS's MMIO
            // keyboard.
            let expected = match flag {
                Flag::Strict => 3,
                Flag::Keys => 2,
                _ => 1,
            };
            assert_eq!(owners.len(), expected, "{flag:?}: {owners:?}");
        }
        let opts = MachineOptions {
            profile: Some("patt".into()),
            seed: Some(1),
            mem_size: Some(64),
            ..Default::default()
        };
        assert_eq!(opts.foreign_to(LC3), [Flag::Seed, Flag::MemSize]);
        assert_eq!(opts.foreign_to(MIPS), [Flag::Profile, Flag::MemSize]);
        assert_eq!(opts.foreign_to(SIMPLERISC), [Flag::Profile, Flag::Seed]);
        assert_eq!(
            reject_foreign(MIPS, &opts).unwrap_err().to_string(),
            "--profile (LC-3 only), --mem-size (SimpleRISC only) do not apply to MIPS programs"
        );
        assert!(reject_foreign(LC3, &MachineOptions::default()).is_ok());
        let delay_slots = MachineOptions {
            delay_slots: true,
            ..Default::default()
        };
        assert_eq!(
            reject_foreign(LC3, &delay_slots).unwrap_err().to_string(),
            "--delay-slots (MIPS only) does not apply to LC-3 programs"
        );
        assert_eq!(
            reject_foreign(SIMPLERISC, &delay_slots)
                .unwrap_err()
                .to_string(),
            "--delay-slots (MIPS only) does not apply to SimpleRISC programs"
        );
        assert!(reject_foreign(MIPS, &delay_slots).is_ok());
    }

    #[test]
    fn unknown_files_name_every_isa() {
        assert_eq!(
            detect("start:\n\tadd r1, r2, r3\n").unwrap_err().to_string(),
            "cannot tell which ISA this file is written for; name it with --isa lc3|mips|simplerisc"
        );
    }

    #[test]
    fn detects_each_dialect() {
        assert_eq!(detect("\t.ORIG x3000\n\tHALT\n\t.END\n"), Ok(LC3));
        assert_eq!(detect(".text\nli $v0, 10\nsyscall\n"), Ok(MIPS));
        assert_eq!(
            detect(".main:\n\tmov r1, 3 @ c\n\t.print r1\n"),
            Ok(SIMPLERISC)
        );
        assert_eq!(detect("main:\n\tld r1, 4[r2]\n"), Ok(SIMPLERISC));
    }

    #[test]
    fn comments_do_not_count() {
        assert_eq!(
            detect("; uses $t0 in a comment\n .orig x3000\n .end\n"),
            Ok(LC3)
        );
        assert_eq!(detect("// $t0 .orig\n.main:\n"), Ok(SIMPLERISC));
    }

    #[test]
    fn string_contents_do_not_count() {
        assert_eq!(
            detect("\t.ORIG x3000\nMSG .STRINGZ \"You won $100; .text\"\n\t.END\n"),
            Ok(LC3)
        );
        assert_eq!(
            detect(".data\ns: .asciiz \"x; .orig \\\" @ [sp]\"\n.text\nsyscall\n"),
            Ok(MIPS)
        );
    }

    #[test]
    fn ambiguous_and_unknown_name_the_flag() {
        let err = detect(".orig x3000\n.text\n").unwrap_err();
        assert!(err.to_string().contains("--isa"), "{err}");
        assert!(err.to_string().contains("lc3 or mips"), "{err}");
        assert!(detect("start:\n\tadd r1, r2, r3\n")
            .unwrap_err()
            .to_string()
            .contains("--isa"));
        assert!(detect("nothing here\n")
            .unwrap_err()
            .to_string()
            .starts_with("not an assembly program"));
    }

    #[test]
    fn only_lc3_reads_object_files() {
        assert_eq!(object_file_isa(b"\x30\x00\x12\x61"), Some(LC3));
        assert_eq!(object_file_isa(b".text\nsyscall\n"), None);
    }
}
