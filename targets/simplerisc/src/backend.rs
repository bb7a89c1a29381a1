//! SimpleRISC's [`Backend`]: programs are assembly, `asmdbg asm` writes an ELF, and the console
//! passes keys one by one.

use asmdbg_core::backend::{Backend, BenchTraps};
use asmdbg_core::elf::{ElfError, ElfImage};
use asmdbg_core::isa::Dialect;
use asmdbg_core::{Flag, Isa, IsaInfo, LoadError, MachineOptions};

use crate::machine::{load_machine, SrMachine};

/// The SimpleRISC backend.
pub struct SimpleRiscBackend;

/// SimpleRISC's identity: `--isa simplerisc`, its notation, and the flags its programs accept.
pub const ISA: Isa = Isa::new(&IsaInfo {
    name: "simplerisc",
    aliases: &["simple-risc", "sr"],
    title: "SimpleRISC",
    summary: "SimpleRISC",
    format_addr: |addr| format!("{addr}"),
    flags: &[Flag::NoMul, Flag::MemSize, Flag::Strict],
});

/// The value the command line registers (src/backends.rs).
pub static BACKEND: SimpleRiscBackend = SimpleRiscBackend;

impl Backend for SimpleRiscBackend {
    type Machine = SrMachine;

    fn isa(&self) -> Isa {
        ISA
    }

    fn warnings(&self, machine: &SrMachine) -> String {
        machine.program().warnings.to_string()
    }

    fn dialect(&self) -> Dialect {
        Dialect {
            isa: ISA,
            comments: &["@", "//"],
            // `.main`, `.print`/`.encode`, or memory operands like `4[r2]` and `[sp]`.
            marks: |line, first| {
                first.starts_with(".main")
                    || first == ".print"
                    || first == ".encode"
                    || line.contains("[sp]")
                    || has_bracket_mem(line)
            },
            operation: crate::asm::is_operation,
        }
    }

    fn load(
        &self,
        path: &str,
        bytes: &[u8],
        opts: &MachineOptions,
    ) -> Result<SrMachine, LoadError> {
        load_machine(path, &String::from_utf8_lossy(bytes), opts)
    }

    fn image(&self, machine: &SrMachine, _opts: &MachineOptions) -> Result<ElfImage, ElfError> {
        Ok(crate::elf::elf_image(machine.program()))
    }

    fn cooked_console(&self) -> bool {
        false
    }

    fn bench_traps(&self) -> BenchTraps {
        BenchTraps {
            code: 0x2000,
            code_step: 4,
            data: 0x800,
            data_step: 0x100,
            data_len: 4,
        }
    }
}

/// SimpleRISC memory operands look like `4[r2]`.
fn has_bracket_mem(line: &str) -> bool {
    line.find('[')
        .map(|i| line[i + 1..].trim_start().starts_with('r') || line[i + 1..].starts_with("sp"))
        .unwrap_or(false)
}
