//! Source lines with `.include` files spliced in, each remembering where it came from.

use std::path::{Path, PathBuf};

use asmdbg_core::{Diagnostics, FileId, SourceFile, SourceMap, Span};

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

/// All lines of `file` with includes expanded (tokens are filled in later).
pub fn load(
    id: FileId,
    file: &SourceFile,
    opts: &AsmOptions,
    sources: &mut SourceMap,
    diags: &mut Diagnostics,
) -> Vec<Line> {
    let mut out = Vec::new();
    let mut stack = vec![file.name.to_string()];
    splice(id, file, opts, sources, diags, &mut stack, &mut out);
    out
}

fn splice(
    id: FileId,
    file: &SourceFile,
    opts: &AsmOptions,
    sources: &mut SourceMap,
    diags: &mut Diagnostics,
    stack: &mut Vec<String>,
    out: &mut Vec<Line>,
) {
    for n in 1..=file.line_count() {
        let text = file.line(n).to_string();
        if let Some(name) = include_target(&text) {
            let span = Span::new(id, n, name.col, name.width());
            let quoted = name.text.trim_matches('"');
            let Some((path, contents)) = read_include(quoted, &file.name, opts) else {
                diags.push(sources.error(span, format!("Error reading include file {quoted}")));
                continue;
            };
            let key = path.to_string_lossy().to_string();
            if stack.contains(&key) {
                diags.push(sources.error(span, format!("Recursive include of file {key}")));
                continue;
            }
            let included = SourceFile::new(key.clone(), contents);
            let inc_id = sources.add(included.clone());
            stack.push(key);
            splice(inc_id, &included, opts, sources, diags, stack, out);
            stack.pop();
            continue;
        }
        out.push(Line {
            file: id,
            line: n,
            text,
            tokens: Vec::new(),
            calls: Vec::new(),
        });
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

/// MARS reads includes relative to the working directory; students also expect the
/// including file's folder, so that is the fallback.
fn read_include(name: &str, includer: &str, opts: &AsmOptions) -> Option<(PathBuf, String)> {
    let path = Path::new(name);
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
    candidates.into_iter().find_map(|p| {
        let bytes = std::fs::read(&p).ok()?;
        let text = match String::from_utf8(bytes) {
            Ok(s) => s,
            // Not UTF-8: read it as Latin-1, one char per byte, like MARS on such files.
            Err(e) => e.into_bytes().iter().map(|&b| b as char).collect(),
        };
        Some((p, text))
    })
}
