//! The four OS profiles: which reference simulator a machine imitates, its [`Semantics`], and
//! its OS image — trap routines written in LC-3 assembly in `os/` and assembled by asmdbg's own
//! assembler the first time a machine with that profile is built.
//!
//! The image is `.ORIG x0200`, the edition's shared routines, `os/devices.asm` (device addresses),
//! the profile's file and `.END`: the 2nd-edition profiles share `os/second_edition.asm`
//! (registers saved in memory, RET) and add their texts; `os/lc3tools.asm` has all its routines
//! and constants itself (registers on the supervisor stack, RTI), laid out as lc3tools lays out
//! its OS (`own_layout`). The vector tables are filled here from the
//! image's labels (every trap vector without a routine points at `TRAP_BAD`), which keeps 512
//! `.FILL` lines out of the assembly.

use std::sync::OnceLock;

use asmdbg_core::{DebugInfo, SourceFile};

use crate::asm::{assemble, AsmOptions};
use crate::cpu::{Semantics, PSR_USER, VEC_ACCESS, VEC_ILLEGAL, VEC_PRIVILEGE};
use crate::program::Segment;

/// One reference simulator's behaviour.
#[derive(Debug)]
pub struct Profile {
    /// `--profile NAME`.
    pub name: &'static str,
    pub semantics: Semantics,
    /// PSR when the program starts at its origin.
    pub initial_psr: u16,
    /// Saved_SSP when the program starts (the supervisor stack grows down from here).
    pub initial_ssp: u16,
    /// A program that starts outside user space (x3000-xFDFF) starts in supervisor mode with
    /// R6 on the supervisor stack (lc3tools' `SetupEvent`); otherwise every program starts
    /// with `initial_psr`.
    pub supervisor_outside_user_space: bool,
    /// Routines shared with other profiles, assembled before `source`.
    shared_source: &'static str,
    source: &'static str,
    /// `source` places its own constants, at the addresses its simulator has them (lc3tools):
    /// it is assembled alone from x0200, without os/devices.asm.
    own_layout: bool,
}

const SECOND_EDITION_SOURCE: &str = include_str!("os/second_edition.asm");
const DEVICES_SOURCE: &str = include_str!("os/devices.asm");

/// `patt`, the default: the McGraw-Hill simulator the course assignments show. 2nd-edition TRAP
/// and LEA; RTI, keyboard interrupts and the privilege/illegal-opcode exceptions of the 2nd
/// edition book, without 3rd-edition access control. Programs start in user mode with the
/// supervisor stack at x3000, so interrupts and exceptions never push onto an unset R6.
pub static PATT: Profile = Profile {
    name: "patt",
    semantics: Semantics {
        trap_through_stack: false,
        lea_sets_cc: true,
        access_control: false,
        interrupts: true,
        has_rti: true,
        exceptions: true,
        psr_mapped: false,
        cr_is_newline: false,
        jsrr_links_first: false,
        pennsim: false,
    },
    initial_psr: PSR_USER | 0x0002,
    initial_ssp: 0x3000,
    supervisor_outside_user_space: false,
    shared_source: SECOND_EDITION_SOURCE,
    source: include_str!("os/patt.asm"),
    own_layout: false,
};

/// `lc3tools`: 3rd edition throughout; starts at the origin in user mode, PSR x8002, SSP x3000.
pub static LC3TOOLS: Profile = Profile {
    name: "lc3tools",
    semantics: Semantics {
        trap_through_stack: true,
        lea_sets_cc: false,
        access_control: true,
        interrupts: true,
        has_rti: true,
        exceptions: true,
        psr_mapped: true,
        cr_is_newline: true,
        jsrr_links_first: true,
        pennsim: false,
    },
    initial_psr: PSR_USER | 0x0002,
    initial_ssp: 0x3000,
    supervisor_outside_user_space: true,
    shared_source: "",
    source: include_str!("os/lc3tools.asm"),
    own_layout: true,
};

/// `lc3sim`: 2nd edition without privilege, interrupts or RTI; an illegal instruction stops the
/// machine with lc3sim's message. Its PSR display is not architectural, so the PSR here is
/// supervisor mode with Z set (the CC lc3sim shows at start).
pub static LC3SIM: Profile = Profile {
    name: "lc3sim",
    semantics: Semantics {
        trap_through_stack: false,
        lea_sets_cc: true,
        access_control: false,
        interrupts: false,
        has_rti: false,
        exceptions: false,
        psr_mapped: false,
        cr_is_newline: false,
        jsrr_links_first: false,
        pennsim: false,
    },
    initial_psr: 0x0002,
    initial_ssp: 0x3000,
    supervisor_outside_user_space: false,
    shared_source: SECOND_EDITION_SOURCE,
    source: include_str!("os/lc3sim.asm"),
    own_layout: false,
};

/// `pennsim`: PennSim 1.2.5 (cpu/pennsim.rs): it boots its OS at x0200 in supervisor mode, and
/// the OS enters the program at x3000 in user mode; TRAP links in R7 (2nd edition, LEA sets
/// the condition codes) and enters supervisor mode; no interrupts or exception vectors. The
/// course's own OS may be the program's first file, in place of the built-in one.
pub static PENNSIM: Profile = Profile {
    name: "pennsim",
    semantics: Semantics {
        trap_through_stack: false,
        lea_sets_cc: true,
        access_control: false,
        interrupts: false,
        has_rti: true,
        exceptions: false,
        psr_mapped: false,
        cr_is_newline: false,
        jsrr_links_first: false,
        pennsim: true,
    },
    // Supervisor mode, Z: PennSim's x8002 (its privilege bit is the book's user bit inverted).
    initial_psr: 0x0002,
    initial_ssp: 0,
    supervisor_outside_user_space: false,
    shared_source: "",
    source: include_str!("os/pennsim.asm"),
    own_layout: true,
};

pub static PROFILES: [&Profile; 4] = [&PATT, &LC3TOOLS, &LC3SIM, &PENNSIM];

const PROFILE_NAMES: [&str; 4] = ["patt", "lc3tools", "lc3sim", "pennsim"];

/// Names accepted by `--profile`, the default first.
pub fn profile_names() -> &'static [&'static str] {
    &PROFILE_NAMES
}

/// The profile called `name` (case-insensitive).
pub fn profile(name: &str) -> Option<&'static Profile> {
    PROFILES
        .iter()
        .copied()
        .find(|p| p.name.eq_ignore_ascii_case(name))
}

pub fn default_profile() -> &'static Profile {
    &PATT
}

/// The assembled OS of one profile: vector tables and code, loaded before the program.
#[derive(Debug)]
pub struct OsImage {
    pub segments: Vec<Segment>,
    /// The OS's labels and lines (file `os/<profile>`), for disassembly inside trap routines.
    pub debug: DebugInfo,
}

/// Why a profile's OS image did not assemble: a defect of asmdbg itself, reported rather than
/// panicking.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the {profile} OS image does not assemble: {message}")]
pub struct OsError {
    pub profile: &'static str,
    pub message: String,
}

/// Where the OS code starts (lc3tools' RESET_PC area).
pub const OS_ORIGIN: u16 = 0x0200;

impl Profile {
    /// The OS image, assembled once per process.
    pub fn os_image(&'static self) -> Result<&'static OsImage, OsError> {
        static IMAGES: [OnceLock<Result<OsImage, OsError>>; 4] = [
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
        ];
        let slot = PROFILES
            .iter()
            .position(|p| p.name == self.name)
            .and_then(|i| IMAGES.get(i));
        match slot {
            Some(cell) => cell
                .get_or_init(|| self.build_image())
                .as_ref()
                .map_err(Clone::clone),
            None => Err(self.error("not one of the built-in profiles".to_string())),
        }
    }

    fn error(&self, message: String) -> OsError {
        OsError {
            profile: self.name,
            message,
        }
    }

    fn build_image(&self) -> Result<OsImage, OsError> {
        let text = if self.own_layout {
            format!(
                "        .ORIG x{OS_ORIGIN:04X}\n{}\n        .END\n",
                self.source
            )
        } else {
            format!(
                "        .ORIG x{OS_ORIGIN:04X}\n{}\n{DEVICES_SOURCE}\n{}\n        .END\n",
                self.shared_source, self.source
            )
        };
        let file = SourceFile::new(format!("os/{}", self.name), text);
        let options = AsmOptions {
            strict: false,
            pennsim: self.semantics.pennsim,
        };
        let program = assemble(&file, &options).map_err(|diags| self.error(diags.to_string()))?;
        let label = |name: &str| {
            program
                .debug
                .symbols
                .addr(name)
                .map(|a| a as u16)
                .ok_or_else(|| self.error(format!("label {name} is missing")))
        };
        let bad_trap = label("TRAP_BAD")?;
        let mut traps = vec![bad_trap; 0x100];
        for (vector, name) in [
            (0x20, "TRAP_GETC"),
            (0x21, "TRAP_OUT"),
            (0x22, "TRAP_PUTS"),
            (0x23, "TRAP_IN"),
            (0x24, "TRAP_PUTSP"),
            (0x25, "TRAP_HALT"),
        ] {
            traps[vector] = label(name)?;
        }
        // Vectors without a handler stay 0, as in an unprogrammed table, unless the OS has a
        // routine for them (lc3tools: one that returns at once).
        let unhandled = program
            .debug
            .symbols
            .addr("INT_BAD")
            .map_or(0, |a| a as u16);
        let mut interrupts = vec![unhandled; 0x100];
        for (vector, name) in [
            (VEC_PRIVILEGE, "EXC_PRIVILEGE"),
            (VEC_ILLEGAL, "EXC_ILLEGAL"),
            (VEC_ACCESS, "EXC_ACCESS"),
        ] {
            if let Some(addr) = program.debug.symbols.addr(name) {
                interrupts[vector as usize] = addr as u16;
            }
        }
        let mut segments = vec![
            Segment {
                origin: 0x0000,
                words: traps,
            },
            Segment {
                origin: 0x0100,
                words: interrupts,
            },
        ];
        segments.extend(program.segments);
        Ok(OsImage {
            segments,
            debug: program.debug,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_lookup() {
        assert_eq!(profile_names(), &["patt", "lc3tools", "lc3sim", "pennsim"]);
        assert_eq!(profile("LC3Tools").map(|p| p.name), Some("lc3tools"));
        assert_eq!(profile("PennSim").map(|p| p.name), Some("pennsim"));
        assert!(profile("lc3web").is_none());
        assert_eq!(default_profile().name, "patt");
    }
}
