//! Source files and assembler diagnostics.
//!
//! Every message names `file:line:col` and shows the source line with a caret under the
//! offending text, the way lc3tools and gcc do:
//!
//! ```text
//! game.asm:2:14: error: cannot encode as 5-bit 2's complement number
//!     ADD R1, R1, #16
//!                 ^~~
//! ```
//!
//! The caret line copies the tabs of the source line, so it stays aligned in any terminal.
//! (codespan-reporting draws a different, boxed layout; students and editors expect this one.)

use std::fmt;
use std::sync::Arc;

/// Index of a file in a [`SourceMap`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FileId(pub u32);

/// A place in a source file: 1-based line and column (in characters), and a length in characters
/// for the caret (at least one `^` is drawn).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub file: FileId,
    pub line: u32,
    pub col: u32,
    pub len: u32,
}

impl Span {
    pub fn new(file: FileId, line: u32, col: u32, len: u32) -> Self {
        Span {
            file,
            line,
            col,
            len,
        }
    }
}

/// One source file as read.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub name: Arc<str>,
    pub text: Arc<str>,
    line_starts: Vec<usize>,
}

impl SourceFile {
    /// A file named `name` holding `text`; a UTF-8 byte order mark at its start (what Windows
    /// editors write) is not part of the text, so every assembler reads such a file as it
    /// reads one without.
    pub fn new(name: impl Into<Arc<str>>, text: impl Into<Arc<str>>) -> Self {
        let mut text: Arc<str> = text.into();
        if let Some(rest) = text.strip_prefix('\u{feff}') {
            text = Arc::from(rest);
        }
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        SourceFile {
            name: name.into(),
            text,
            line_starts,
        }
    }

    /// The text of 1-based line `line`, without its line ending; empty if out of range.
    pub fn line(&self, line: u32) -> &str {
        let Some(&start) = self.line_starts.get((line as usize).wrapping_sub(1)) else {
            return "";
        };
        let end = self
            .line_starts
            .get(line as usize)
            .copied()
            .unwrap_or(self.text.len());
        self.text[start..end].trim_end_matches(['\n', '\r'])
    }

    pub fn line_count(&self) -> u32 {
        self.line_starts.len() as u32
    }
}

/// All files of one assembly (the main file and its `.include`s).
#[derive(Debug, Clone, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn add(&mut self, file: SourceFile) -> FileId {
        self.files.push(file);
        FileId(self.files.len() as u32 - 1)
    }

    pub fn get(&self, id: FileId) -> Option<&SourceFile> {
        self.files.get(id.0 as usize)
    }

    pub fn files(&self) -> &[SourceFile] {
        &self.files
    }

    /// Resolves a span to a self-contained location for a diagnostic.
    pub fn locate(&self, span: Span) -> Location {
        let (file, text) = match self.get(span.file) {
            Some(f) => (f.name.clone(), f.line(span.line).to_string()),
            None => (Arc::from("<unknown>"), String::new()),
        };
        Location {
            file,
            line: span.line,
            col: span.col,
            len: span.len,
            source_line: text,
        }
    }

    /// An error at `span`.
    pub fn error(&self, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            location: Some(self.locate(span)),
            notes: Vec::new(),
        }
    }

    /// A warning at `span`.
    pub fn warning(&self, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            message: message.into(),
            location: Some(self.locate(span)),
            notes: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

/// A resolved source location, carrying its line text so a diagnostic prints on its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub file: Arc<str>,
    pub line: u32,
    pub col: u32,
    pub len: u32,
    pub source_line: String,
}

/// One message from an assembler or loader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub message: String,
    /// `None` for whole-file problems (`no .END directive found`).
    pub location: Option<Location>,
    /// Further places, e.g. the macro call a line inside a macro body was expanded from.
    pub notes: Vec<(Location, String)>,
}

impl Diagnostic {
    /// An error that belongs to a whole file rather than a line.
    pub fn file_error(file: &str, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            location: Some(Location {
                file: Arc::from(file),
                line: 0,
                col: 0,
                len: 0,
                source_line: String::new(),
            }),
            notes: Vec::new(),
        }
    }

    pub fn with_note(mut self, location: Location, note: impl Into<String>) -> Self {
        self.notes.push((location, note.into()));
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

fn write_location(
    f: &mut fmt::Formatter<'_>,
    loc: &Location,
    kind: &str,
    message: &str,
) -> fmt::Result {
    if loc.line == 0 {
        return writeln!(f, "{}: {kind}: {message}", loc.file);
    }
    writeln!(
        f,
        "{}:{}:{}: {kind}: {message}",
        loc.file, loc.line, loc.col
    )?;
    writeln!(f, "{}", loc.source_line)?;
    // Reproduce the whitespace before the column (tabs stay tabs) so the caret lines up.
    let mut caret = String::new();
    for (i, ch) in loc.source_line.chars().enumerate() {
        if i + 1 >= loc.col as usize {
            break;
        }
        caret.push(if ch == '\t' { '\t' } else { ' ' });
    }
    caret.push('^');
    for _ in 1..loc.len {
        caret.push('~');
    }
    writeln!(f, "{caret}")
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        match &self.location {
            Some(loc) => write_location(f, loc, kind, &self.message)?,
            None => writeln!(f, "{kind}: {}", self.message)?,
        }
        for (loc, note) in &self.notes {
            write_location(f, loc, "note", note)?;
        }
        Ok(())
    }
}

/// Every message of one assembly, in source order. Displayed, it is the full report that
/// `asmdbg asm` prints, ending with a count line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Diagnostics {
    pub items: Vec<Diagnostic>,
}

impl Diagnostics {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&mut self, d: Diagnostic) {
        self.items.push(d);
    }

    pub fn error_count(&self) -> usize {
        self.items.iter().filter(|d| d.is_error()).count()
    }

    pub fn has_errors(&self) -> bool {
        self.items.iter().any(Diagnostic::is_error)
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn warnings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.items
            .iter()
            .filter(|d| d.severity == Severity::Warning)
    }

    /// Sorts by file, line and column, keeping the order of messages on one place.
    pub fn sort(&mut self) {
        self.items.sort_by(|a, b| {
            let key = |d: &Diagnostic| d.location.as_ref().map(|l| (l.file.clone(), l.line, l.col));
            key(a).cmp(&key(b))
        });
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.items {
            write!(f, "{d}")?;
        }
        let n = self.error_count();
        if n > 0 {
            writeln!(
                f,
                "{n} error{} found; nothing was assembled",
                if n == 1 { "" } else { "s" }
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_line_and_caret_with_tabs() {
        let mut map = SourceMap::new();
        let id = map.add(SourceFile::new(
            "err_imm.asm",
            "\t.ORIG x3000\n\tADD R1, R1, #16\n",
        ));
        let d = map.error(
            Span::new(id, 2, 14, 3),
            "cannot encode as 5-bit 2's complement number",
        );
        assert_eq!(
            d.to_string(),
            "err_imm.asm:2:14: error: cannot encode as 5-bit 2's complement number\n\
             \tADD R1, R1, #16\n\
             \t            ^~~\n"
        );
    }

    #[test]
    fn whole_file_errors_and_counts() {
        let mut ds = Diagnostics::new();
        ds.push(Diagnostic::file_error("a.asm", "no .END directive found"));
        assert!(ds.has_errors());
        assert_eq!(
            ds.to_string(),
            "a.asm: error: no .END directive found\n1 error found; nothing was assembled\n"
        );
    }

    #[test]
    fn a_byte_order_mark_is_no_part_of_the_text() {
        let f = SourceFile::new("x", "\u{feff}.ORIG x3000\nHALT");
        assert_eq!(f.line(1), ".ORIG x3000");
        assert_eq!(f.line_count(), 2);
    }

    #[test]
    fn lines_out_of_range_are_empty() {
        let f = SourceFile::new("x", "a\r\nb");
        assert_eq!(f.line(1), "a");
        assert_eq!(f.line(2), "b");
        assert_eq!(f.line(3), "");
        assert_eq!(f.line(0), "");
        assert_eq!(f.line_count(), 2);
    }

    #[test]
    fn notes_follow_the_error() {
        let mut map = SourceMap::new();
        let id = map.add(SourceFile::new("m.asm", "x\ny\n"));
        let d = map
            .error(Span::new(id, 2, 1, 1), "bad")
            .with_note(map.locate(Span::new(id, 1, 1, 1)), "expanded from here");
        let text = d.to_string();
        assert!(text.contains("m.asm:2:1: error: bad"), "{text}");
        assert!(
            text.contains("m.asm:1:1: note: expanded from here"),
            "{text}"
        );
    }
}
