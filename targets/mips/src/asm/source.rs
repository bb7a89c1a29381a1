//! Source lines with `.include` files spliced in, each remembering where it came from.

use std::path::{Path, PathBuf};

use asmdbg_core::{check_text, Diagnostics, FileId, SourceError, SourceFile, SourceMap, Span};

use super::lexer::{tokenize, Tok, Token};
use super::AsmOptions;

/// A macro call a line was expanded from.
#[derive(Debug, Clone, PartialEq)]
pub struct Origin {
    pub file: FileId,
    pub line: u32,
    pub col: u32,
    pub len: u32,
    pub name: String,
}

/// One statement line: its text after `.eqv` and macro substitution, and its tokens.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub file: FileId,
    pub line: u32,
    pub text: String,
    pub tokens: Vec<Token>,
    /// Macro calls this line was expanded from, outermost first.
    pub calls: Vec<Origin>,
}

/// All lines of `file` with includes expanded (tokens are filled in later). `used`: the bytes
/// of source read so far for the program (each include adds its own, against the limit of
/// `opts.sources`).
pub fn load(
    id: FileId,
    file: &SourceFile,
    opts: &AsmOptions,
    sources: &mut SourceMap,
    diags: &mut Diagnostics,
    used: &mut u64,
) -> Vec<Line> {
    let mut out = Vec::new();
    let mut stack = vec![file.name.to_string()];
    let mut splicer = Splicer {
        opts,
        sources,
        diags,
        stack: &mut stack,
        used,
        out: &mut out,
    };
    splicer.splice(id, file);
    out
}

/// What splicing includes into one file's lines works with.
struct Splicer<'a> {
    opts: &'a AsmOptions,
    sources: &'a mut SourceMap,
    diags: &'a mut Diagnostics,
    /// The files being spliced, outermost first (a file including itself is an error).
    stack: &'a mut Vec<String>,
    used: &'a mut u64,
    out: &'a mut Vec<Line>,
}

impl Splicer<'_> {
    fn splice(&mut self, id: FileId, file: &SourceFile) {
        for n in 1..=file.line_count() {
            let text = file.line(n).to_string();
            if let Some(name) = include_target(&text) {
                let span = Span::new(id, n, name.col, name.width());
                let quoted = name.text.trim_matches('"');
                let (path, contents) = match read_include(quoted, &file.name, self.opts, self.used)
                {
                    Ok(found) => found,
                    Err(reason) => {
                        // MARS's words; a reason only where the file is the program's own to see
                        // (a refused or missing file gets none: nothing of it is told).
                        let message = match reason {
                            Some(reason) => {
                                format!("Error reading include file {quoted}: {reason}")
                            }
                            None => format!("Error reading include file {quoted}"),
                        };
                        self.diags.push(self.sources.error(span, message));
                        continue;
                    }
                };
                let key = path.to_string_lossy().to_string();
                if self.stack.contains(&key) {
                    let message = format!("Recursive include of file {key}");
                    self.diags.push(self.sources.error(span, message));
                    continue;
                }
                let included = SourceFile::new(key.clone(), contents);
                let inc_id = self.sources.add(included.clone());
                self.stack.push(key);
                self.splice(inc_id, &included);
                self.stack.pop();
                continue;
            }
            self.out.push(Line {
                file: id,
                line: n,
                text,
                tokens: Vec::new(),
                calls: Vec::new(),
            });
        }
    }
}

/// The quoted file name of an `.include` line.
fn include_target(text: &str) -> Option<Token> {
    let tokens = tokenize(text);
    let i = tokens
        .iter()
        .position(|t| t.text.eq_ignore_ascii_case(".include"))?;
    tokens.get(i + 1).filter(|t| t.kind == Tok::Str).cloned()
}

/// Finds and reads an include. MARS reads includes relative to the working directory; students
/// also expect the including file's folder, so that is the fallback. Only a regular file is
/// read, within `opts.sources`' limits and (when confined) inside its folder: a name the
/// sandbox refuses is a file that does not exist. `Err(Some(reason))`: the file was found but
/// cannot be used (too large, not text); `Err(None)`: no such file.
fn read_include(
    name: &str,
    includer: &str,
    opts: &AsmOptions,
    used: &mut u64,
) -> Result<(PathBuf, String), Option<String>> {
    let path = Path::new(name);
    if !opts.sources.allows_name(name) {
        return Err(None);
    }
    let mut candidates = Vec::new();
    if path.is_absolute() {
        candidates.push(path.to_path_buf());
    } else {
        match &opts.work_dir {
            Some(dir) => candidates.push(dir.join(path)),
            None => candidates.push(path.to_path_buf()),
        }
        if let Some(parent) = Path::new(includer).parent() {
            candidates.push(parent.join(path));
        }
    }
    for candidate in candidates {
        if !opts.sources.allows(&candidate) {
            continue;
        }
        let bytes = match opts.sources.read_include(&candidate, used) {
            Ok(bytes) => bytes,
            Err(SourceError::Io { .. }) => continue,
            Err(e) => return Err(Some(reason(e))),
        };
        let bytes = check_text(name, &bytes).map_err(|e| Some(reason(e)))?;
        let text = match std::str::from_utf8(bytes) {
            Ok(s) => s.to_string(),
            // Not UTF-8: read it as Latin-1, one char per byte, like MARS on such files.
            Err(_) => bytes.iter().map(|&b| b as char).collect(),
        };
        return Ok((candidate, text));
    }
    Err(None)
}

/// What is wrong with an include, without its name (the message names it already).
fn reason(error: SourceError) -> String {
    let text = error.to_string();
    match text.split_once(": ") {
        Some((_, rest)) if !matches!(error, SourceError::Utf16 { .. }) => rest.to_string(),
        _ => text,
    }
}
