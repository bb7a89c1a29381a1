//! Machine options shared by `asmdbg run` and `asmdbg debug`. Each ISA reads the ones that apply
//! to it and rejects the ones that make no sense for it with a clear message.

use std::path::PathBuf;

use crate::isa::Isa;
use crate::machine::LoadError;

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

impl MachineOptions {
    /// The command-line flags set in these options that do not apply to `isa`, each with the
    /// ISA it is for.
    pub fn foreign_to(&self, isa: Isa) -> Vec<(&'static str, Isa)> {
        let table: [(bool, &'static str, Isa); 9] = [
            (self.profile.is_some(), "--profile", Isa::Lc3),
            (self.strict, "--strict", Isa::Lc3),
            (self.start_at_main, "--start-at-main", Isa::Mips),
            (self.delay_slots, "--delay-slots", Isa::Mips),
            (self.seed.is_some(), "--seed", Isa::Mips),
            (self.virtual_time, "--virtual-time", Isa::Mips),
            (self.dialogs_to_stderr, "--dialogs stderr", Isa::Mips),
            (self.no_mul, "--no-mul", Isa::SimpleRisc),
            (self.mem_size.is_some(), "--mem-size", Isa::SimpleRisc),
        ];
        table
            .into_iter()
            .filter(|&(set, _, owner)| set && owner != isa)
            .map(|(_, flag, owner)| (flag, owner))
            .collect()
    }

    /// An error naming every flag that does not apply to `isa`, and which ISA it is for.
    pub fn reject_foreign(&self, isa: Isa) -> Result<(), LoadError> {
        let foreign = self.foreign_to(isa);
        if foreign.is_empty() {
            return Ok(());
        }
        let named: Vec<String> = foreign
            .iter()
            .map(|(flag, owner)| format!("{flag} ({} only)", owner.title()))
            .collect();
        Err(LoadError::Option(format!(
            "{} {} not apply to {} programs",
            named.join(", "),
            if named.len() == 1 { "does" } else { "do" },
            isa.title()
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_flag_belongs_to_one_isa() {
        let opts = MachineOptions {
            profile: Some("patt".into()),
            seed: Some(1),
            mem_size: Some(64),
            ..Default::default()
        };
        let flags = |isa| -> Vec<&str> { opts.foreign_to(isa).into_iter().map(|f| f.0).collect() };
        assert_eq!(flags(Isa::Lc3), ["--seed", "--mem-size"]);
        assert_eq!(flags(Isa::Mips), ["--profile", "--mem-size"]);
        assert_eq!(flags(Isa::SimpleRisc), ["--profile", "--seed"]);
        let err = opts.reject_foreign(Isa::Mips).unwrap_err().to_string();
        assert_eq!(
            err,
            "--profile (LC-3 only), --mem-size (SimpleRISC only) do not apply to MIPS programs"
        );
        assert!(MachineOptions::default().reject_foreign(Isa::Lc3).is_ok());
    }
}
