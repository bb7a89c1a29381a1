//! Instruction mnemonics, their operand forms and fixed encoding bits (isa-specs A.3).

/// One operand slot of an instruction form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Field {
    /// A register R0-R7 placed at bit `shift`.
    Reg(u8),
    /// A signed immediate of `bits` bits (numbers only).
    Imm(u8),
    /// A PC-relative offset of `bits` bits: a label, or a number taken as the offset itself.
    PcOffset(u8),
    /// The 8-bit unsigned trap vector.
    TrapVector,
}

/// One accepted operand list and the bits it starts from.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Form {
    pub base: u16,
    pub fields: &'static [Field],
}

/// An instruction mnemonic as recognised in the source.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Mnemonic {
    /// Canonical upper-case name, for messages.
    pub name: &'static str,
    pub forms: &'static [Form],
}

const fn form(base: u16, fields: &'static [Field]) -> Form {
    Form { base, fields }
}

use Field::{Imm, PcOffset, Reg, TrapVector};

const RRR_RRI_ADD: &[Form] = &[
    form(0x1000, &[Reg(9), Reg(6), Reg(0)]),
    form(0x1020, &[Reg(9), Reg(6), Imm(5)]),
];
const RRR_RRI_AND: &[Form] = &[
    form(0x5000, &[Reg(9), Reg(6), Reg(0)]),
    form(0x5020, &[Reg(9), Reg(6), Imm(5)]),
];

macro_rules! mnemonic {
    ($name:literal, $($form:expr),*) => {
        Mnemonic { name: $name, forms: &[$($form),*] }
    };
}

/// Everything except the BR family, which [`lookup`] builds from its condition letters.
const TABLE: &[Mnemonic] = &[
    Mnemonic {
        name: "ADD",
        forms: RRR_RRI_ADD,
    },
    Mnemonic {
        name: "AND",
        forms: RRR_RRI_AND,
    },
    mnemonic!("JMP", form(0xC000, &[Reg(6)])),
    mnemonic!("RET", form(0xC1C0, &[])),
    mnemonic!("JSR", form(0x4800, &[PcOffset(11)])),
    mnemonic!("JSRR", form(0x4000, &[Reg(6)])),
    mnemonic!("LD", form(0x2000, &[Reg(9), PcOffset(9)])),
    mnemonic!("LDI", form(0xA000, &[Reg(9), PcOffset(9)])),
    mnemonic!("LDR", form(0x6000, &[Reg(9), Reg(6), Imm(6)])),
    mnemonic!("LEA", form(0xE000, &[Reg(9), PcOffset(9)])),
    mnemonic!("NOT", form(0x903F, &[Reg(9), Reg(6)])),
    mnemonic!("RTI", form(0x8000, &[])),
    mnemonic!("ST", form(0x3000, &[Reg(9), PcOffset(9)])),
    mnemonic!("STI", form(0xB000, &[Reg(9), PcOffset(9)])),
    mnemonic!("STR", form(0x7000, &[Reg(9), Reg(6), Imm(6)])),
    mnemonic!("TRAP", form(0xF000, &[TrapVector])),
    mnemonic!("GETC", form(0xF020, &[])),
    mnemonic!("OUT", form(0xF021, &[])),
    mnemonic!("PUTS", form(0xF022, &[])),
    mnemonic!("IN", form(0xF023, &[])),
    mnemonic!("PUTSP", form(0xF024, &[])),
    mnemonic!("HALT", form(0xF025, &[])),
];

/// lc3tools only: `PUTC` (= OUT) and `NOP` (a branch that never branches, optionally with a
/// label whose offset is encoded anyway, as lc3tools does).
const LC3TOOLS_ONLY: &[Mnemonic] = &[
    mnemonic!("PUTC", form(0xF021, &[])),
    mnemonic!("NOP", form(0x0000, &[]), form(0x0000, &[PcOffset(9)])),
];

/// PennSim 1.2.5 only (`--profile pennsim`): its ISA's SUB and MUL, and JMPT (a JMP that
/// leaves supervisor mode; RTT is JMPT R7).
const PENNSIM_ONLY: &[Mnemonic] = &[
    mnemonic!("SUB", form(0x1010, &[Reg(9), Reg(6), Reg(0)])),
    Mnemonic {
        name: "MUL",
        forms: &[
            form(0xD000, &[Reg(9), Reg(6), Reg(0)]),
            form(0xD020, &[Reg(9), Reg(6), Imm(5)]),
        ],
    },
    mnemonic!("JMPT", form(0xC001, &[Reg(6)])),
    mnemonic!("RTT", form(0xC1C1, &[])),
];

/// The PennSim-only mnemonic `word` names (case-insensitive).
pub(crate) fn pennsim(word: &str) -> Option<Mnemonic> {
    let upper = word.to_ascii_uppercase();
    PENNSIM_ONLY.iter().find(|m| m.name == upper).copied()
}

const BR_FORMS: [&[Form]; 8] = [
    &[form(0x0E00, &[PcOffset(9)])],
    &[form(0x0200, &[PcOffset(9)])],
    &[form(0x0400, &[PcOffset(9)])],
    &[form(0x0600, &[PcOffset(9)])],
    &[form(0x0800, &[PcOffset(9)])],
    &[form(0x0A00, &[PcOffset(9)])],
    &[form(0x0C00, &[PcOffset(9)])],
    &[form(0x0E00, &[PcOffset(9)])],
];

/// The n/z/p mask of a `BR...` mnemonic. lc3as (strict) takes the letters only in n, z, p order;
/// the lenient dialect accepts any order but each letter once (`BRpn` is `BRnp`).
fn branch_mask(upper: &str, strict: bool) -> Option<usize> {
    let letters = upper.strip_prefix("BR")?;
    let mut mask = 0usize;
    let mut last_bit = 8usize;
    for c in letters.chars() {
        let bit = match c {
            'N' => 4,
            'Z' => 2,
            'P' => 1,
            _ => return None,
        };
        if mask & bit != 0 || (strict && bit >= last_bit) {
            return None;
        }
        mask |= bit;
        last_bit = bit;
    }
    Some(mask)
}

/// The mnemonic `word` names in the chosen dialect (case-insensitive).
pub(crate) fn lookup(word: &str, strict: bool) -> Option<Mnemonic> {
    let upper = word.to_ascii_uppercase();
    if let Some(mask) = branch_mask(&upper, strict) {
        return Some(Mnemonic {
            name: "BR",
            forms: BR_FORMS[mask],
        });
    }
    let extra: &[Mnemonic] = if strict { &[] } else { LC3TOOLS_ONLY };
    TABLE.iter().chain(extra).find(|m| m.name == upper).copied()
}

/// Names to compare a misspelt word with (lc3tools suggests the nearest).
pub(crate) fn all_names(strict: bool) -> impl Iterator<Item = &'static str> {
    const BRANCHES: [&str; 8] = ["BR", "BRN", "BRZ", "BRP", "BRNZ", "BRZP", "BRNP", "BRNZP"];
    let extra: &[Mnemonic] = if strict { &[] } else { LC3TOOLS_ONLY };
    TABLE.iter().chain(extra).map(|m| m.name).chain(BRANCHES)
}

/// Levenshtein distance (case-insensitive), as lc3tools uses to tell a typo from a label.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().map(|c| c.to_ascii_uppercase()).collect();
    let b: Vec<char> = b.chars().map(|c| c.to_ascii_uppercase()).collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitute = prev[j] + usize::from(ca != cb);
            cur[j + 1] = substitute.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// The mnemonic nearest to `word` and its distance.
pub(crate) fn nearest(word: &str, strict: bool) -> (usize, &'static str) {
    all_names(strict)
        .map(|name| (edit_distance(word, name), name))
        .min_by_key(|&(d, _)| d)
        .unwrap_or((usize::MAX, ""))
}

/// Edit distance counting a swap of two neighbouring letters as one edit (`JRS` is one from
/// `JSR`), case-insensitive: how far a typo is from what the user meant.
fn typo_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().map(|c| c.to_ascii_uppercase()).collect();
    let b: Vec<char> = b.chars().map(|c| c.to_ascii_uppercase()).collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

/// The mnemonic `word` is probably a typo of, for `unknown instruction` messages: one edit
/// away, or two for words of five letters or more; none when nothing is that close or the
/// word is shorter than three letters.
pub(crate) fn suggestion(word: &str, strict: bool) -> Option<&'static str> {
    let limit = match word.chars().count() {
        // One or two letters are a step from too many mnemonics to guess (`L` → `LD`?).
        0..=2 => return None,
        3 | 4 => 1,
        _ => 2,
    };
    all_names(strict)
        .map(|name| (typo_distance(word, name), name))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, _)| d)
        .map(|(_, name)| name)
}

/// `R0`..`R7` in any case.
pub(crate) fn register(word: &str) -> Option<u16> {
    let mut chars = word.chars();
    let (Some('r' | 'R'), Some(d), None) = (chars.next(), chars.next(), chars.next()) else {
        return None;
    };
    d.to_digit(8).map(|d| d as u16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn branches_in_any_order_when_lenient() {
        assert_eq!(lookup("BRpn", false).map(|m| m.forms[0].base), Some(0x0A00));
        assert_eq!(
            lookup("brNZP", false).map(|m| m.forms[0].base),
            Some(0x0E00)
        );
        assert_eq!(lookup("BR", false).map(|m| m.forms[0].base), Some(0x0E00));
        assert_eq!(lookup("BRz", true).map(|m| m.forms[0].base), Some(0x0400));
        assert!(lookup("BRpn", true).is_none());
        assert!(lookup("BRnn", false).is_none());
        assert!(lookup("BRx", false).is_none());
    }

    #[test]
    fn dialect_specific_mnemonics() {
        assert!(lookup("putc", false).is_some());
        assert!(lookup("PUTC", true).is_none());
        assert!(lookup("NOP", true).is_none());
        assert_eq!(lookup("halt", true).map(|m| m.forms[0].base), Some(0xF025));
    }

    #[test]
    fn distances() {
        assert_eq!(edit_distance("add", "ADD"), 0);
        assert_eq!(edit_distance("ADDD", "ADD"), 1);
        assert_eq!(nearest("MUL", false).0, 2);
        assert_eq!(suggestion("JRS", false), Some("JSR"));
        assert_eq!(suggestion("jrs", true), Some("JSR"));
        assert_eq!(suggestion("ADDD", false), Some("ADD"));
        assert_eq!(suggestion("HLAT", false), Some("HALT"));
        assert_eq!(suggestion("FOO", false), None);
        assert_eq!(suggestion("LOOP", false), None);
        assert_eq!(suggestion("L", false), None);
        assert!(nearest("LOOP", false).0 >= 2);
    }

    #[test]
    fn registers() {
        assert_eq!(register("r7"), Some(7));
        assert_eq!(register("R0"), Some(0));
        assert_eq!(register("R8"), None);
        assert_eq!(register("R10"), None);
        assert_eq!(register("X1"), None);
    }
}
