//! Labels, source lines and data items of an assembled program, shared by the run command
//! (fault messages name the line), the debugger (`monitor disas`) and the ELF/DWARF writer.
//!
//! The data items are what the assembler knew when it emitted data (which directive, element
//! size and count), so the ELF writer types variables from facts instead of re-reading source
//! text. Everything the assembler emitted that no data item covers is code.

use std::collections::{BTreeMap, HashMap};

use crate::diag::{FileId, SourceMap};

/// Whether a label names code or data (decides `STT_FUNC` vs `STT_OBJECT` and DWARF variables).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SymbolKind {
    Code,
    Data,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    /// The label as written in the source (first definition's spelling).
    pub name: String,
    /// Native address (LC-3 word address, MIPS/SimpleRISC byte address).
    pub addr: u64,
    pub kind: SymbolKind,
    /// Declared `.globl`.
    pub global: bool,
}

/// Labels by name and by address.
#[derive(Debug, Clone, Default)]
pub struct SymbolTable {
    symbols: Vec<Symbol>,
    by_name: HashMap<String, usize>,
    /// Labels are case-insensitive in LC-3, case-sensitive in MIPS and SimpleRISC.
    case_insensitive: bool,
}

impl SymbolTable {
    pub fn new(case_insensitive: bool) -> Self {
        SymbolTable {
            case_insensitive,
            ..Default::default()
        }
    }

    fn key(&self, name: &str) -> String {
        if self.case_insensitive {
            name.to_ascii_uppercase()
        } else {
            name.to_string()
        }
    }

    /// Adds a label; returns the existing one instead if the name is taken.
    pub fn insert(&mut self, sym: Symbol) -> Result<(), &Symbol> {
        let key = self.key(&sym.name);
        if let Some(&i) = self.by_name.get(&key) {
            return Err(&self.symbols[i]);
        }
        self.by_name.insert(key, self.symbols.len());
        self.symbols.push(sym);
        Ok(())
    }

    /// Adds a label even if its name is taken: MIPS labels are local to their source file, so
    /// two files of one program may each define `loop`. For lookups by name a global label
    /// takes the name over; otherwise the name keeps meaning the label that had it first.
    /// [`iter`](Self::iter) and [`at`](Self::at) see every label.
    pub fn insert_scoped(&mut self, sym: Symbol) {
        let key = self.key(&sym.name);
        let index = self.symbols.len();
        let taken = self.by_name.get(&key).map(|&i| self.symbols[i].global);
        if taken.is_none() || (sym.global && taken == Some(false)) {
            self.by_name.insert(key, index);
        }
        self.symbols.push(sym);
    }

    pub fn get(&self, name: &str) -> Option<&Symbol> {
        self.by_name.get(&self.key(name)).map(|&i| &self.symbols[i])
    }

    pub fn get_mut(&mut self, name: &str) -> Option<&mut Symbol> {
        let i = *self.by_name.get(&self.key(name))?;
        Some(&mut self.symbols[i])
    }

    pub fn addr(&self, name: &str) -> Option<u64> {
        self.get(name).map(|s| s.addr)
    }

    /// All labels in definition order.
    pub fn iter(&self) -> impl Iterator<Item = &Symbol> {
        self.symbols.iter()
    }

    pub fn len(&self) -> usize {
        self.symbols.len()
    }

    pub fn is_empty(&self) -> bool {
        self.symbols.is_empty()
    }

    /// The labels at exactly `addr`.
    pub fn at(&self, addr: u64) -> impl Iterator<Item = &Symbol> {
        self.symbols.iter().filter(move |s| s.addr == addr)
    }

    /// The nearest label at or below `addr` of the given kind, for `label+offset` display.
    pub fn nearest_below(&self, addr: u64, kind: SymbolKind) -> Option<&Symbol> {
        self.symbols
            .iter()
            .filter(|s| s.kind == kind && s.addr <= addr)
            .max_by_key(|s| s.addr)
    }
}

/// A source position of an instruction or data item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SourceLoc {
    pub file: FileId,
    pub line: u32,
}

/// Address → source line, for every emitted instruction or data item.
#[derive(Debug, Clone, Default)]
pub struct LineTable {
    lines: BTreeMap<u64, SourceLoc>,
}

impl LineTable {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn insert(&mut self, addr: u64, loc: SourceLoc) {
        self.lines.insert(addr, loc);
    }

    /// The line that wrote the item at exactly `addr`.
    pub fn get(&self, addr: u64) -> Option<SourceLoc> {
        self.lines.get(&addr).copied()
    }

    /// All entries in address order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, SourceLoc)> + '_ {
        self.lines.iter().map(|(&a, &l)| (a, l))
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }
}

/// The data directive that emitted a [`DataItem`], across the three assemblers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DataDirective {
    /// MIPS `.word`.
    Word,
    /// MIPS `.half`.
    Half,
    /// MIPS `.byte`.
    Byte,
    /// MIPS `.float`.
    Float,
    /// MIPS `.double`.
    Double,
    /// MIPS `.ascii`: characters without a terminating NUL.
    Ascii,
    /// MIPS `.asciiz`: characters and a NUL.
    Asciiz,
    /// MIPS `.space`: zero bytes.
    Space,
    /// LC-3 `.FILL`: one word.
    Fill,
    /// LC-3 `.BLKW`: zero words.
    Blkw,
    /// LC-3 `.STRINGZ`: one character per word and a zero word.
    Stringz,
}

impl DataDirective {
    /// Whether the item holds characters (a label on it reads as a string).
    pub fn is_string(self) -> bool {
        matches!(
            self,
            DataDirective::Ascii | DataDirective::Asciiz | DataDirective::Stringz
        )
    }
}

/// One run of data one directive statement emitted: `count` elements of `elem_size` bytes
/// from native address `addr` to `end` (exclusive, native units: LC-3 words, MIPS bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DataItem {
    pub addr: u64,
    pub end: u64,
    pub directive: DataDirective,
    /// Bytes per element in memory (LC-3: 2 for every directive).
    pub elem_size: u8,
    pub count: u64,
}

/// The data items of a program by address.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DataTable {
    items: BTreeMap<u64, DataItem>,
}

impl DataTable {
    /// Records an item (one that starts where another did replaces it; empty ones are
    /// dropped, as they cover nothing).
    pub fn insert(&mut self, item: DataItem) {
        if item.end > item.addr {
            self.items.insert(item.addr, item);
        }
    }

    /// The item covering native address `addr`.
    pub fn at(&self, addr: u64) -> Option<&DataItem> {
        self.items
            .range(..=addr)
            .next_back()
            .map(|(_, item)| item)
            .filter(|item| addr < item.end)
    }

    /// Whether the assembler emitted data (not code) at `addr`.
    pub fn is_data(&self, addr: u64) -> bool {
        self.at(addr).is_some()
    }

    /// All items in address order.
    pub fn iter(&self) -> impl Iterator<Item = &DataItem> {
        self.items.values()
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

/// Everything an assembler knows about a program beyond its bytes.
#[derive(Debug, Clone, Default)]
pub struct DebugInfo {
    pub sources: SourceMap,
    pub symbols: SymbolTable,
    pub lines: LineTable,
    /// What data directives emitted; the rest of the program is code.
    pub data: DataTable,
}

impl DebugInfo {
    /// `file:line` of the item at `addr`, for messages (`Error in game.asm line 12`).
    pub fn describe(&self, addr: u64) -> Option<(String, u32)> {
        let loc = self.lines.get(addr)?;
        let file = self.sources.get(loc.file)?;
        Some((file.name.to_string(), loc.line))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::SourceFile;

    #[test]
    fn case_rules_and_duplicates() {
        let mut t = SymbolTable::new(true);
        let s = |n: &str, a| Symbol {
            name: n.into(),
            addr: a,
            kind: SymbolKind::Code,
            global: false,
        };
        assert!(t.insert(s("Loop", 0x3000)).is_ok());
        assert_eq!(t.insert(s("LOOP", 0x3001)).unwrap_err().addr, 0x3000);
        assert_eq!(t.addr("loop"), Some(0x3000));
        let mut m = SymbolTable::new(false);
        m.insert(s("main", 4)).unwrap();
        assert_eq!(m.addr("MAIN"), None);
        m.insert(s("data", 8)).unwrap();
        assert_eq!(m.nearest_below(6, SymbolKind::Code).unwrap().name, "main");
        assert_eq!(m.at(8).count(), 1);
    }

    #[test]
    fn scoped_labels_share_a_name_and_the_global_one_answers_lookups() {
        let s = |a, global| Symbol {
            name: "loop".into(),
            addr: a,
            kind: SymbolKind::Code,
            global,
        };
        let mut t = SymbolTable::new(false);
        t.insert_scoped(s(4, false));
        t.insert_scoped(s(8, false));
        assert_eq!(t.addr("loop"), Some(4));
        t.insert_scoped(s(12, true));
        assert_eq!(t.addr("loop"), Some(12));
        t.insert_scoped(s(16, false));
        assert_eq!(t.addr("loop"), Some(12));
        assert_eq!(t.len(), 4);
        assert_eq!(t.at(8).count(), 1);
        assert!(t.insert(s(20, false)).is_err());
    }

    #[test]
    fn describe_names_file_and_line() {
        let mut info = DebugInfo::default();
        let f = info.sources.add(SourceFile::new("g.asm", "a\nb\n"));
        info.lines.insert(0x400004, SourceLoc { file: f, line: 2 });
        assert_eq!(info.describe(0x400004), Some(("g.asm".into(), 2)));
        assert_eq!(info.describe(0x400008), None);
    }

    #[test]
    fn data_items_cover_their_range() {
        let mut t = DataTable::default();
        let item = |addr, end, directive| DataItem {
            addr,
            end,
            directive,
            elem_size: 4,
            count: (end - addr) / 4,
        };
        t.insert(item(0x100, 0x108, DataDirective::Word));
        t.insert(item(0x110, 0x110, DataDirective::Space));
        t.insert(item(0x120, 0x124, DataDirective::Float));
        assert_eq!(t.len(), 2);
        assert!(!t.is_data(0xff) && t.is_data(0x100) && t.is_data(0x107));
        assert!(!t.is_data(0x108) && !t.is_data(0x110));
        assert_eq!(t.at(0x122).unwrap().directive, DataDirective::Float);
        assert!(DataDirective::Stringz.is_string() && !DataDirective::Fill.is_string());
    }
}
