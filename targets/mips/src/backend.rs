//! MIPS's [`Backend`]: programs are MARS assembly, `asmdbg asm` writes an ELF (with gdb's
//! delay-slot view when `--delay-slots` is on), and the console is line-edited and echoed by
//! asmdbg, as MARS's console input is.

use asmdbg_core::backend::{Backend, BenchTraps};
use asmdbg_core::elf::{ElfError, ElfImage};
use asmdbg_core::isa::Dialect;
use asmdbg_core::{Flag, Isa, IsaInfo, LoadError, MachineOptions, ProgramSource};

use crate::machine::{load_machine, load_machine_files, MipsMachine};

/// The MIPS backend.
pub struct MipsBackend;

/// MIPS's identity: `--isa mips`, its notation, and the flags its programs accept.
pub const ISA: Isa = Isa::new(&IsaInfo {
    name: "mips",
    aliases: &["mars"],
    title: "MIPS",
    summary: "MIPS (MARS 4.5)",
    format_addr: |addr| format!("0x{addr:08x}"),
    flags: &[
        Flag::StartAtMain,
        Flag::DelaySlots,
        Flag::Seed,
        Flag::VirtualTime,
        Flag::DialogsToStderr,
        Flag::ProgramArgs,
        Flag::Project,
        Flag::Bitmap,
        Flag::Mmio,
        Flag::Keys,
        Flag::Strict,
    ],
});

/// The value the command line registers (src/backends.rs).
pub static BACKEND: MipsBackend = MipsBackend;

impl Backend for MipsBackend {
    type Machine = MipsMachine;

    fn isa(&self) -> Isa {
        ISA
    }

    fn dialect(&self) -> Dialect {
        Dialect {
            isa: ISA,
            comments: &["#"],
            // `$` registers, `syscall`, or MARS's section directives.
            marks: |line, first| {
                matches!(first, ".text" | ".data" | ".globl")
                    || line.contains("syscall")
                    || line.contains('$')
            },
            operation: crate::asm::is_operation,
        }
    }

    fn load(
        &self,
        path: &str,
        bytes: &[u8],
        opts: &MachineOptions,
    ) -> Result<MipsMachine, LoadError> {
        load_machine(path, &String::from_utf8_lossy(bytes), opts)
    }

    /// MARS's rules for a program of several files (see `asm::assemble_files`).
    fn load_files(
        &self,
        files: &[ProgramSource],
        opts: &MachineOptions,
    ) -> Result<MipsMachine, LoadError> {
        let sources: Vec<(String, String)> = files
            .iter()
            .map(|f| {
                (
                    f.path.clone(),
                    String::from_utf8_lossy(&f.bytes).into_owned(),
                )
            })
            .collect();
        load_machine_files(&sources, opts)
    }

    fn warnings(&self, machine: &MipsMachine) -> String {
        machine.program().warnings.to_string()
    }

    fn image(&self, machine: &MipsMachine, opts: &MachineOptions) -> Result<ElfImage, ElfError> {
        Ok(crate::elf::elf_image(machine.program(), opts.delay_slots))
    }

    fn cooked_console(&self) -> bool {
        true
    }

    fn bench_traps(&self) -> BenchTraps {
        BenchTraps {
            code: 0x0040_8000,
            code_step: 4,
            data: 0x1003_0000,
            data_step: 0x1000,
            data_len: 4,
        }
    }
}
