//! Debugging checks: the mistakes students make with calling conventions, caught at the
//! instruction that makes them (`asmdbg run --checks`, on by default under the debugger).
//!
//! The five checks ([`CheckKind`]) observe a machine one instruction at a time and never
//! change what it does. Each ISA gives its conventions ([`Conventions`]: the callee-saved
//! registers, those the machine sets at start, the stack and return-address registers, the
//! stack's segment) and, for the instruction at the PC, what it is about to do ([`Effects`]:
//! the registers it reads and writes and the memory it loads and stores, from the ISA's one
//! decoder, and its [`Flow`]). The [`Checker`] keeps the shadow state: a bit per register and
//! per memory unit saying whether anything put a value there, and a frame per call.
//!
//! The cpus know nothing of this: a machine with the checks on is driven by [`Checker::run`],
//! which lets the machine's interpreter run every instruction that gives the checks nothing
//! to look at on the fast path ([`fast`]: the shadow state followed inside the interpreter's
//! loop, through an [`InstructionGate`]) and takes the others (calls, returns, the stack
//! pointer's moves, first reads) one `Machine::step` at a time through the full checks.
//! Compiled code never runs with the checks on; a machine with the checks off runs exactly as
//! before, paying nothing.

mod engine;
pub mod fast;
mod session;
mod shadow;

pub use engine::Checker;
pub use fast::{AskGate, FastPath, InstrEffects, InstructionGate, RunAccess, Unasked};
pub use session::SessionChecks;

use std::fmt;

use crate::flow::Flow;

/// One kind of check, with the short name used on the command line, in `monitor checks`, in
/// the IDE's exception filters and in `asmdbg test` specs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CheckKind {
    /// A function returns with a callee-saved register changed.
    CalleeSaved,
    /// A nested call overwrote a return address that is later used to return.
    ReturnAddress,
    /// A register or memory word read before anything put a value there.
    Uninitialised,
    /// The stack pointer misaligned, outside its segment, or not restored at a return.
    Stack,
    /// A store into the program's instructions, or execution of words assembled as data.
    CodeAsData,
}

impl CheckKind {
    /// Every check, in the order they are listed everywhere.
    pub const ALL: [CheckKind; 5] = [
        CheckKind::CalleeSaved,
        CheckKind::ReturnAddress,
        CheckKind::Uninitialised,
        CheckKind::Stack,
        CheckKind::CodeAsData,
    ];

    /// The short name (`callee-saved`).
    pub fn name(self) -> &'static str {
        match self {
            CheckKind::CalleeSaved => "callee-saved",
            CheckKind::ReturnAddress => "return-address",
            CheckKind::Uninitialised => "uninitialised",
            CheckKind::Stack => "stack",
            CheckKind::CodeAsData => "code-as-data",
        }
    }

    /// What the check catches, in a line (`monitor checks`, the IDE's filter descriptions).
    pub fn summary(self) -> &'static str {
        match self {
            CheckKind::CalleeSaved => "a function returns with a callee-saved register changed",
            CheckKind::ReturnAddress => {
                "a nested call overwrites a return address that is later used to return"
            }
            CheckKind::Uninitialised => {
                "a register or memory word is read before anything was put there"
            }
            CheckKind::Stack => {
                "the stack pointer is misaligned, outside its segment or not restored at a return"
            }
            CheckKind::CodeAsData => {
                "a store into the program's instructions, or execution of data"
            }
        }
    }

    /// The check named `name` (its short name; `uninitialized` is accepted too).
    pub fn parse(name: &str) -> Option<CheckKind> {
        let name = name.trim().to_ascii_lowercase();
        if name == "uninitialized" {
            return Some(CheckKind::Uninitialised);
        }
        CheckKind::ALL.into_iter().find(|k| k.name() == name)
    }

    fn bit(self) -> u8 {
        1 << self as u8
    }
}

impl fmt::Display for CheckKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A `--checks` value that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckSetError {
    #[error(
        "unknown check `{0}`: the checks are callee-saved, return-address, uninitialised, stack \
         and code-as-data (or `deny` to make the first warning a fault)"
    )]
    Unknown(String),
}

/// Which checks are on, and whether the first finding is a fault (`--checks=deny`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct CheckSet {
    bits: u8,
    deny: bool,
}

impl CheckSet {
    /// No check.
    pub const NONE: CheckSet = CheckSet {
        bits: 0,
        deny: false,
    };

    /// Every check, warning only.
    pub fn all() -> CheckSet {
        CheckSet {
            bits: CheckKind::ALL.iter().fold(0, |bits, k| bits | k.bit()),
            deny: false,
        }
    }

    /// `--checks` (every check), `--checks=deny` (every check, the first finding a fault),
    /// `--checks=callee-saved,stack` (those), `--checks=stack,deny` (those, denied).
    pub fn parse(text: &str) -> Result<CheckSet, CheckSetError> {
        let mut set = CheckSet::NONE;
        let mut deny = false;
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match part.to_ascii_lowercase().as_str() {
                "deny" => deny = true,
                "all" => set = CheckSet::all(),
                _ => {
                    let kind = CheckKind::parse(part)
                        .ok_or_else(|| CheckSetError::Unknown(part.to_string()))?;
                    set.insert(kind);
                }
            }
        }
        if set.is_empty() {
            set = CheckSet::all();
        }
        set.deny = deny;
        Ok(set)
    }

    pub fn contains(self, kind: CheckKind) -> bool {
        self.bits & kind.bit() != 0
    }

    pub fn insert(&mut self, kind: CheckKind) {
        self.bits |= kind.bit();
    }

    pub fn remove(&mut self, kind: CheckKind) {
        self.bits &= !kind.bit();
    }

    pub fn is_empty(self) -> bool {
        self.bits == 0
    }

    /// Whether the first finding stops the program as a fault.
    pub fn deny(self) -> bool {
        self.deny
    }

    pub fn set_deny(&mut self, deny: bool) {
        self.deny = deny;
    }

    /// The checks that are on, in [`CheckKind::ALL`] order.
    pub fn kinds(self) -> impl Iterator<Item = CheckKind> {
        CheckKind::ALL
            .into_iter()
            .filter(move |k| self.contains(*k))
    }
}

/// One broken convention, found at the instruction at `pc`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub kind: CheckKind,
    /// The instruction the finding is about (for `return-address`, the nested call that
    /// overwrote the return address).
    pub pc: u64,
    /// What was broken, without the location (`$s0 is changed: ...`).
    pub message: String,
    /// The call that led there: "in f, called from main at game.asm:12", or for code the
    /// program called into (the LC-3 OS) "in the OS's PUTS, called at x3005"; empty in the
    /// program's entry code.
    pub origin: String,
    /// `file:line:col` of the instruction the program wrote (for code in the OS, the program's
    /// call into it); the address when there is no source.
    pub location: String,
}

impl Finding {
    /// The line `asmdbg run --checks` prints on stderr:
    /// `game.asm:12:5: warning[callee-saved]: ... (in f, called from main at game.asm:30)`.
    pub fn warning_line(&self) -> String {
        let mut line = format!(
            "{}: warning[{}]: {}",
            self.location, self.kind, self.message
        );
        if !self.origin.is_empty() {
            line.push_str(&format!(" ({})", self.origin));
        }
        line
    }
}

/// A memory access an instruction is about to make: `units` units from `addr` (native units).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemAccess {
    pub addr: u64,
    pub units: u64,
}

/// What the instruction at the PC is about to do, as its ISA's decoder says, with addresses
/// computed from the registers now. Register masks have bit *i* for the ISA's register *i*
/// ([`crate::Machine::read_register`]'s index).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Effects {
    /// Registers whose values the instruction computes with: operands, addresses, conditions,
    /// jump targets.
    pub reads: u32,
    /// Registers whose values only go to memory (a store's data): copying a value nothing
    /// set is not a use of it (a prologue saves `$s0` whatever it holds).
    pub stored: u32,
    /// Registers the instruction writes.
    pub writes: u32,
    /// Memory read, at most two accesses (LC-3's LDI reads its pointer, then the word).
    pub loads: [Option<MemAccess>; 2],
    /// Memory written (LC-3's STI: the pointer is in `loads`).
    pub store: Option<MemAccess>,
    pub flow: Flow,
    /// The instruction's size in units (where a call returns to).
    pub size: u64,
    /// The instruction enters code the program called without a frame of its own to check
    /// (a system call handled by the machine itself, MIPS `syscall`): nothing to push.
    pub system: bool,
}

impl Effects {
    /// An instruction with no register or memory effects and the given flow.
    pub fn new(flow: Flow, size: u64) -> Effects {
        Effects {
            reads: 0,
            stored: 0,
            writes: 0,
            loads: [None, None],
            store: None,
            flow,
            size,
            system: false,
        }
    }
}

/// An ISA's calling conventions, as its courses teach them, and what its machine fills in by
/// itself. Register masks as in [`Effects`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conventions {
    /// The registers' names as the ISA's assembly writes them, by index (`$s0`, `R7`, `r14`).
    pub names: &'static [&'static str],
    /// Registers a function must give back as it got them (not the stack pointer, which the
    /// `stack` check covers, nor the return address, which `return-address` covers).
    pub callee_saved: u32,
    /// A register a function stores to memory while it still holds its entry value (the
    /// prologue's save) must hold that value again at the return: the rule of ISAs whose
    /// courses say "save what you use" without fixing which registers results come back in
    /// (LC-3, SimpleRISC).
    pub saves_are_promises: bool,
    /// The stack pointer is only the stack pointer (MIPS, SimpleRISC): every function must
    /// give it back. `false` (LC-3, whose programs often use R6 for anything): only a function
    /// that addressed memory through it must.
    pub stack_reserved: bool,
    /// Registers that hold a value from the start (`$sp`, `$gp`, hard-wired `$zero`).
    pub set_at_start: u32,
    /// The stack pointer's index.
    pub stack: usize,
    /// The register calls put the return address in.
    pub return_address: usize,
    /// The stack pointer's alignment in units (1: any).
    pub stack_alignment: u64,
    /// Where the stack pointer may point: `lo..=hi`. `None`: anywhere (an ISA without a
    /// stack segment).
    pub stack_segment: Option<(u64, u64)>,
    /// Memory the machine fills by itself (an OS image, device registers, the display, what
    /// the loader puts above the stack), counted as initialised: `[start, end)`.
    pub initialised: Vec<(u64, u64)>,
    /// The size of one instruction in units (code-as-data marks the program's instructions).
    pub instruction_units: u64,
    /// Code lives in its own memory (SimpleRISC's Harvard machine): no store can reach it.
    pub separate_code: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_parse_from_the_command_line() {
        let all = CheckSet::parse("").unwrap();
        assert!(CheckKind::ALL.iter().all(|k| all.contains(*k)) && !all.deny());
        assert_eq!(CheckSet::parse("all").unwrap(), all);
        let deny = CheckSet::parse("deny").unwrap();
        assert!(deny.deny() && deny.kinds().count() == 5);
        let two = CheckSet::parse("stack, Callee-Saved").unwrap();
        assert_eq!(
            two.kinds().collect::<Vec<_>>(),
            [CheckKind::CalleeSaved, CheckKind::Stack]
        );
        assert!(!two.deny());
        let denied = CheckSet::parse("uninitialized,deny").unwrap();
        assert!(denied.deny() && denied.contains(CheckKind::Uninitialised));
        assert_eq!(
            CheckSet::parse("stack,bogus").unwrap_err(),
            CheckSetError::Unknown("bogus".into())
        );
        let mut set = CheckSet::NONE;
        assert!(set.is_empty());
        set.insert(CheckKind::CodeAsData);
        set.remove(CheckKind::CodeAsData);
        assert!(set.is_empty());
    }

    #[test]
    fn a_warning_line_names_place_check_message_and_origin() {
        let finding = Finding {
            kind: CheckKind::Stack,
            pc: 0x400010,
            message: "f returns with $sp = 0x7fffeff4".into(),
            origin: "in f, called from main at a.asm:3".into(),
            location: "a.asm:11:9".into(),
        };
        assert_eq!(
            finding.warning_line(),
            "a.asm:11:9: warning[stack]: f returns with $sp = 0x7fffeff4 (in f, called from main at a.asm:3)"
        );
        let bare = Finding {
            origin: String::new(),
            ..finding
        };
        assert_eq!(
            bare.warning_line(),
            "a.asm:11:9: warning[stack]: f returns with $sp = 0x7fffeff4"
        );
        assert_eq!(
            CheckKind::parse("code-as-data"),
            Some(CheckKind::CodeAsData)
        );
        assert_eq!(CheckKind::parse("nope"), None);
    }
}
