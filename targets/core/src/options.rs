//! Machine options shared by `asmdbg run` and `asmdbg debug`. Each ISA reads the ones that apply
//! to it; the command line rejects the ones that make no sense for the program's ISA with a
//! message that names, for each, the ISAs it is for.
//!
//! Which ISA accepts which [`Flag`] is the ISA's own data ([`crate::isa::IsaInfo::flags`]); the
//! message is built from the list of ISAs the caller passes (src/backends.rs passes every
//! backend's). Limits: a new ISA with options of its own still adds fields here, a [`Flag`] for
//! each, and the flags in src/cli.rs: the options are one plain struct every machine reads.

use std::path::PathBuf;

use crate::isa::Isa;
use crate::machine::LoadError;

#[derive(Debug, Clone, Default)]
pub struct MachineOptions {
    /// LC-3 OS profile (`patt`, `lc3tools`, `lc3sim`); `None` = the ISA's default.
    pub profile: Option<String>,
    /// LC-3: lc3as's stricter assembler rules.
    pub strict: bool,
    /// LC-3 `--profile lc3tools`: user code may access system space and device registers
    /// without an access violation (lc3tools' `--ignore-privilege`).
    pub ignore_privilege: bool,
    /// LC-3: where the program starts (an address or a label of any of its files) instead of
    /// where the profile's simulator would start it.
    pub entry: Option<String>,
    /// MIPS: the program is its first file and every other `.asm` file of that folder (MARS
    /// `p`); the command line lists the files, the flag is here so that other ISAs refuse it.
    pub project: bool,
    /// MIPS: start at the global label `main` (MARS `sm`).
    pub start_at_main: bool,
    /// MIPS: branch delay slots on.
    pub delay_slots: bool,
    /// MIPS: seed for random-number streams that the program does not seed itself.
    pub seed: Option<u64>,
    /// MIPS: sleep and time syscalls use a virtual clock instead of the real one.
    pub virtual_time: bool,
    /// `--speed`: the run is held to this many instructions a second (by the host running it);
    /// a virtual clock moves with the instructions at this pace too.
    pub speed: Option<u64>,
    /// MIPS: dialog syscalls (50-59) print on stderr instead of the console.
    pub dialogs_to_stderr: bool,
    /// MIPS: program arguments (MARS `pa`), placed in memory as MARS does, with argc in `$a0`
    /// and argv in `$a1`; part of the machine's initial state.
    pub program_args: Vec<String>,
    /// SimpleRISC: the course variant without mul/div/mod.
    pub no_mul: bool,
    /// SimpleRISC: data memory size in bytes.
    pub mem_size: Option<u64>,
    /// MIPS: a MARS Bitmap Display on this memory (`--bitmap`, or the program's header).
    pub bitmap: Option<crate::display::BitmapConfig>,
    /// MIPS: MARS's Keyboard and Display MMIO Simulator is connected (`--mmio`); the machine
    /// also connects it for `--keys` and a bitmap display.
    pub mmio: bool,
    /// LC-3: PennSim's video display at xC000-xFDFF (`--display`).
    pub video: bool,
    /// LC-3 and MIPS: key presses that arrive at given instruction counts (`--keys FILE`), on
    /// the LC-3 keyboard or MARS's MMIO keyboard.
    pub keys: Vec<crate::display::ScheduledKey>,
    /// `--files DIR`: the guest's files (MIPS file syscalls) are confined to this directory:
    /// absolute names, `..` and links leading out fail to open. The machines without file
    /// syscalls have nothing to confine.
    pub files_dir: Option<PathBuf>,
    /// With `files_dir`: the most bytes the guest's files there may hold together; a write
    /// past it fails as on a full disk (a grader's sandbox).
    pub files_quota: Option<u64>,
    /// Where the program's sources may come from (MIPS `.include`s): anywhere, or only inside
    /// one folder (a grader's submission, `--files`).
    pub sources: crate::sources::SourceAccess,
    /// Assembling gives up at this instant (a grader's case has a wall-time limit, and
    /// assembly counts against it). Only assembly that can grow beyond its source (MIPS
    /// macros and includes) looks.
    pub assembly_deadline: Option<std::time::Instant>,
    /// Directory that relative file names of the guest (MIPS file syscalls, `.include`) are
    /// resolved against; `None` = the process's working directory.
    pub work_dir: Option<PathBuf>,
}

/// A command-line flag that only some ISAs accept: one per ISA-specific field of
/// [`MachineOptions`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Flag {
    Profile,
    Strict,
    StartAtMain,
    DelaySlots,
    Seed,
    VirtualTime,
    DialogsToStderr,
    ProgramArgs,
    NoMul,
    MemSize,
    IgnorePrivilege,
    Entry,
    Project,
    Bitmap,
    Mmio,
    Video,
    Keys,
}

impl Flag {
    /// Every flag, in the order error messages list them.
    pub const ALL: [Flag; 17] = [
        Flag::Profile,
        Flag::Strict,
        Flag::StartAtMain,
        Flag::DelaySlots,
        Flag::Seed,
        Flag::VirtualTime,
        Flag::DialogsToStderr,
        Flag::ProgramArgs,
        Flag::NoMul,
        Flag::MemSize,
        Flag::IgnorePrivilege,
        Flag::Entry,
        Flag::Project,
        Flag::Bitmap,
        Flag::Mmio,
        Flag::Video,
        Flag::Keys,
    ];

    /// The flag as written on the command line.
    pub fn spelling(self) -> &'static str {
        match self {
            Flag::Profile => "--profile",
            Flag::Strict => "--strict",
            Flag::IgnorePrivilege => "--ignore-privilege",
            Flag::Entry => "--entry",
            Flag::Project => "--project",
            Flag::StartAtMain => "--start-at-main",
            Flag::DelaySlots => "--delay-slots",
            Flag::Seed => "--seed",
            Flag::VirtualTime => "--virtual-time",
            Flag::DialogsToStderr => "--dialogs stderr",
            Flag::ProgramArgs => "--args",
            Flag::NoMul => "--no-mul",
            Flag::MemSize => "--mem-size",
            Flag::Bitmap => "--bitmap",
            Flag::Mmio => "--mmio",
            Flag::Video => "--display",
            Flag::Keys => "--keys",
        }
    }
}

impl MachineOptions {
    /// Whether these options set `flag` (to anything but its default).
    pub fn is_set(&self, flag: Flag) -> bool {
        match flag {
            Flag::Profile => self.profile.is_some(),
            Flag::Strict => self.strict,
            Flag::IgnorePrivilege => self.ignore_privilege,
            Flag::Entry => self.entry.is_some(),
            Flag::Project => self.project,
            Flag::StartAtMain => self.start_at_main,
            Flag::DelaySlots => self.delay_slots,
            Flag::Seed => self.seed.is_some(),
            Flag::VirtualTime => self.virtual_time,
            Flag::DialogsToStderr => self.dialogs_to_stderr,
            Flag::ProgramArgs => !self.program_args.is_empty(),
            Flag::NoMul => self.no_mul,
            Flag::MemSize => self.mem_size.is_some(),
            Flag::Bitmap => self.bitmap.is_some(),
            Flag::Mmio => self.mmio,
            Flag::Video => self.video,
            Flag::Keys => !self.keys.is_empty(),
        }
    }

    /// The flags set in these options that `isa` does not accept.
    pub fn foreign_to(&self, isa: Isa) -> Vec<Flag> {
        Flag::ALL
            .into_iter()
            .filter(|&flag| self.is_set(flag) && !isa.accepts(flag))
            .collect()
    }

    /// An error naming every flag that does not apply to `isa`, and which of `isas` it is for:
    /// `--seed (MIPS only), --mem-size (SimpleRISC only) do not apply to LC-3 programs`.
    pub fn reject_foreign(&self, isa: Isa, isas: &[Isa]) -> Result<(), LoadError> {
        let foreign = self.foreign_to(isa);
        if foreign.is_empty() {
            return Ok(());
        }
        let named: Vec<String> = foreign
            .iter()
            .map(|&flag| {
                let owners: Vec<&str> = isas
                    .iter()
                    .filter(|owner| owner.accepts(flag))
                    .map(|owner| owner.title())
                    .collect();
                if owners.is_empty() {
                    flag.spelling().to_string()
                } else {
                    format!("{} ({} only)", flag.spelling(), owners.join(" and "))
                }
            })
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
    use crate::isa::tests::{KW, OP};
    use crate::isa::IsaInfo;

    #[test]
    fn each_flag_is_foreign_to_the_isas_that_do_not_accept_it() {
        let opts = MachineOptions {
            strict: true,
            seed: Some(1),
            mem_size: Some(64),
            ..Default::default()
        };
        assert_eq!(opts.foreign_to(KW), [Flag::Seed, Flag::MemSize]);
        assert_eq!(opts.foreign_to(OP), [Flag::Strict, Flag::MemSize]);
        assert!(MachineOptions::default().foreign_to(KW).is_empty());
    }

    #[test]
    fn the_error_names_whose_each_flag_is() {
        let opts = MachineOptions {
            seed: Some(1),
            ..Default::default()
        };
        assert_eq!(
            opts.reject_foreign(KW, &[KW, OP]).unwrap_err().to_string(),
            "--seed (OP only) does not apply to KW-1 programs"
        );
        let opts = MachineOptions {
            strict: true,
            no_mul: true,
            ..Default::default()
        };
        const BOTH: Isa = Isa::new(&IsaInfo {
            name: "both",
            aliases: &[],
            title: "Both",
            summary: "Both",
            format_addr: |addr| format!("{addr}"),
            flags: &[Flag::Strict, Flag::NoMul],
        });
        let both = BOTH;
        assert_eq!(
            opts.reject_foreign(OP, &[KW, OP, both])
                .unwrap_err()
                .to_string(),
            "--strict (KW-1 and Both only), --no-mul (Both only) do not apply to OP programs"
        );
        assert!(opts.reject_foreign(both, &[KW, OP, both]).is_ok());
    }

    #[test]
    fn every_flag_has_its_own_spelling() {
        let spellings: std::collections::HashSet<&str> =
            Flag::ALL.iter().map(|f| f.spelling()).collect();
        assert_eq!(spellings.len(), Flag::ALL.len());
    }
}
