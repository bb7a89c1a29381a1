//! Machine options shared by `asmdbg run` and `asmdbg debug`. Each ISA reads the ones that apply
//! to it and rejects the ones that make no sense for it with a clear message.

use std::path::PathBuf;

#[derive(Debug, Clone, Default)]
pub struct MachineOptions {
    /// LC-3 OS profile (`patt`, `lc3tools`, `lc3sim`); `None` = the ISA's default.
    pub profile: Option<String>,
    /// LC-3: lc3as's stricter assembler rules.
    pub strict: bool,
    /// MIPS: start at the global label `main` (MARS `sm`).
    pub start_at_main: bool,
    /// MIPS: branch delay slots on.
    pub delay_slots: bool,
    /// MIPS: seed for random-number streams that the program does not seed itself.
    pub seed: Option<u64>,
    /// MIPS: sleep and time syscalls use a virtual clock instead of the real one.
    pub virtual_time: bool,
    /// MIPS: dialog syscalls (50-59) print on stderr instead of the console.
    pub dialogs_to_stderr: bool,
    /// SimpleRISC: the course variant without mul/div/mod.
    pub no_mul: bool,
    /// SimpleRISC: data memory size in bytes.
    pub mem_size: Option<u64>,
    /// Directory that relative file names of the guest (MIPS file syscalls, `.include`) are
    /// resolved against; `None` = the process's working directory.
    pub work_dir: Option<PathBuf>,
}
