//! What the program's ELF describes, for the DAP session: source lines, functions, labels, data
//! variables and frame rules. The facts stay in gdb's addresses, as the ELF has them (so the
//! frames are gdb's frames); the session converts at its edges, where the IDE sees the
//! machine's own addresses.

use std::collections::HashMap;

use asmdbg_core::elf::dwarf::{BaseType, ElfDebug, TypeEncoding};
use asmdbg_core::elf::{ElfImage, ElfSymbolKind};

/// A source line's place in the program.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Loc {
    /// Index into [`DebugView::files`].
    pub file: usize,
    pub line: u32,
}

/// A data label as the Data scope shows it.
#[derive(Debug, Clone)]
pub struct DataLabel {
    pub name: String,
    /// gdb data address.
    pub addr: u64,
    pub ty: BaseType,
    /// A string label: its bytes up to the NUL.
    pub count: Option<u32>,
}

pub struct DebugView {
    pub debug: ElfDebug,
    /// Absolute paths of the source files, lexically normalized.
    pub files: Vec<String>,
    /// (gdb code address, end of its code section).
    code: Vec<(u64, u64)>,
    /// Labels: name → (gdb address, in code).
    labels: Vec<(String, u64, bool)>,
    by_name: HashMap<String, usize>,
    pub data: Vec<DataLabel>,
}

/// `a/./b/../c` → `a/c`, without touching the file system.
pub fn normalize(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." if parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            ".." if absolute => {}
            other => parts.push(other),
        }
    }
    let joined = parts.join("/");
    if absolute {
        format!("/{joined}")
    } else {
        joined
    }
}

impl DebugView {
    pub fn new(image: ElfImage) -> Self {
        let debug = image.debug;
        let files = debug
            .files
            .iter()
            .map(|f| {
                if f.starts_with('/') || debug.comp_dir.is_empty() {
                    normalize(f)
                } else {
                    normalize(&format!("{}/{f}", debug.comp_dir))
                }
            })
            .collect();
        let code: Vec<(u64, u64)> = image
            .sections
            .iter()
            .filter(|s| s.exec)
            .map(|s| (s.addr, s.addr + s.data.len() as u64))
            .collect();
        let in_code = |a: u64| code.iter().any(|&(b, e)| a >= b && a < e);
        let labels: Vec<(String, u64, bool)> = image
            .symbols
            .iter()
            .map(|s| {
                (
                    s.name.clone(),
                    s.addr,
                    s.kind == ElfSymbolKind::Func || in_code(s.addr),
                )
            })
            .collect();
        let mut by_name = HashMap::new();
        for (i, (name, _, _)) in labels.iter().enumerate() {
            by_name.entry(name.clone()).or_insert(i);
        }
        let data = debug
            .variables
            .iter()
            .map(|v| DataLabel {
                name: v.name.clone(),
                addr: v.addr,
                ty: debug
                    .types
                    .get(v.ty)
                    .cloned()
                    .unwrap_or_else(|| BaseType::new("word", 4, TypeEncoding::Signed)),
                count: v.count,
            })
            .collect();
        DebugView {
            debug,
            files,
            code,
            labels,
            by_name,
            data,
        }
    }

    pub fn in_code(&self, gdb: u64) -> bool {
        self.code.iter().any(|&(b, e)| gdb >= b && gdb < e)
    }

    /// The source line of the instruction at gdb code address `gdb`.
    pub fn loc(&self, gdb: u64) -> Option<Loc> {
        if !self.in_code(gdb) {
            return None;
        }
        let lines = &self.debug.lines;
        let i = lines.partition_point(|r| r.addr <= gdb).checked_sub(1)?;
        let row = lines[i];
        Some(Loc {
            file: row.file as usize,
            line: row.line,
        })
    }

    /// Whether a line row starts at `gdb` (the first instruction of a line).
    pub fn is_line_start(&self, gdb: u64) -> bool {
        let lines = &self.debug.lines;
        let i = lines.partition_point(|r| r.addr < gdb);
        lines.get(i).is_some_and(|r| r.addr == gdb)
    }

    /// The index of the file at `path` (as the IDE names it).
    pub fn file_index(&self, path: &str) -> Option<usize> {
        let wanted = normalize(path);
        self.files.iter().position(|f| *f == wanted).or_else(|| {
            // A relative name given by the IDE: match on the file's tail.
            self.files
                .iter()
                .position(|f| f.ends_with(&format!("/{wanted}")))
        })
    }

    /// Where a breakpoint on `line` of `file` goes: the first line at or after it that has
    /// code, and the gdb addresses where that line's rows start.
    pub fn line_addresses(&self, file: usize, line: u32) -> Option<(u32, Vec<u64>)> {
        let best = self
            .debug
            .lines
            .iter()
            .filter(|r| r.file as usize == file && r.line >= line && self.in_code(r.addr))
            .map(|r| r.line)
            .min()?;
        let addrs = self
            .debug
            .lines
            .iter()
            .filter(|r| r.file as usize == file && r.line == best && self.in_code(r.addr))
            .map(|r| r.addr)
            .collect();
        Some((best, addrs))
    }

    /// The function holding gdb code address `gdb`: its name and entry.
    pub fn function(&self, gdb: u64) -> Option<(&str, u64)> {
        self.debug
            .functions
            .iter()
            .find(|f| f.ranges.iter().any(|&(b, e)| gdb >= b && gdb < e))
            .map(|f| (f.name.as_str(), f.entry))
    }

    /// A function's entry by name.
    pub fn function_named(&self, name: &str) -> Option<u64> {
        self.debug
            .functions
            .iter()
            .find(|f| f.name == name)
            .or_else(|| {
                self.debug
                    .functions
                    .iter()
                    .find(|f| f.name.eq_ignore_ascii_case(name))
            })
            .map(|f| f.entry)
    }

    /// A label by name (exactly, else ignoring case as LC-3's assembler does): its gdb
    /// address and whether it is in code.
    pub fn label(&self, name: &str) -> Option<(u64, bool)> {
        let i = self.by_name.get(name).copied().or_else(|| {
            self.labels
                .iter()
                .position(|(n, _, _)| n.eq_ignore_ascii_case(name))
        })?;
        let (_, addr, code) = &self.labels[i];
        Some((*addr, *code))
    }

    /// The label at gdb address `gdb` (a code label for code).
    pub fn label_at(&self, gdb: u64, code: bool) -> Option<&str> {
        self.labels
            .iter()
            .find(|(_, a, c)| *a == gdb && *c == code)
            .map(|(n, _, _)| n.as_str())
    }

    /// The nearest code label at or before gdb code address `gdb`.
    pub fn label_before(&self, gdb: u64) -> Option<&str> {
        self.labels
            .iter()
            .filter(|(_, a, code)| *code && *a <= gdb)
            .max_by_key(|(_, a, _)| *a)
            .map(|(n, _, _)| n.as_str())
    }

    /// The data label at gdb address `gdb`.
    pub fn data_label(&self, name: &str) -> Option<&DataLabel> {
        self.data
            .iter()
            .find(|d| d.name == name)
            .or_else(|| self.data.iter().find(|d| d.name.eq_ignore_ascii_case(name)))
    }

    /// Every line of `file` where code starts, ascending (goto targets, breakpoint lines).
    pub fn lines_of(&self, file: usize) -> Vec<u32> {
        let mut lines: Vec<u32> = self
            .debug
            .lines
            .iter()
            .filter(|r| r.file as usize == file && self.in_code(r.addr))
            .map(|r| r.line)
            .collect();
        lines.sort_unstable();
        lines.dedup();
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::normalize;

    #[test]
    fn paths_are_normalized_without_the_file_system() {
        assert_eq!(normalize("/a/./b/../c.asm"), "/a/c.asm");
        assert_eq!(normalize("/../x"), "/x");
        assert_eq!(normalize("a//b/./c"), "a/b/c");
        assert_eq!(normalize("../a/../../b"), "../../b");
    }
}
