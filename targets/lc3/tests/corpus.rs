//! The LC-3 assembler corpus: every `tests/asm/lc3/*.asm` carries its expectations in comments.
//!
//! - `; mode: strict` on the first line assembles with lc3as' rules.
//! - `; = x1261 x0000*3` after a statement: the words that line emits (`*N` repeats).
//! - `; error: text`, `; error@COL: text`, `; error@COL+LEN: text`: that line reports an error
//!   containing `text` (with the caret at COL, LEN characters long). Several may follow one
//!   another on a line. `; warning...` works the same way for warnings.
//! - `; file error: text`: an error about the whole file (no line).
//! - `; obj: 3000f025`: the classic .obj bytes of the whole file (hex).
//!
//! Every diagnostic must be expected and every expectation met. One test per file (listed below,
//! and `corpus_files_are_all_listed` keeps the list honest).

use std::fmt::Write as _;
use std::path::PathBuf;

use asmdbg_core::{Severity, SourceFile};
use asmdbg_lc3::asm::{assemble, AsmOptions};
use asmdbg_lc3::objfile::write_obj;

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/asm/lc3")
}

#[derive(Debug)]
struct Message {
    line: u32,
    col: Option<u32>,
    len: Option<u32>,
    text: String,
    severity: Severity,
    seen: bool,
}

#[derive(Debug, Default)]
struct Expectations {
    strict: bool,
    words: Vec<(u32, Vec<u16>)>,
    messages: Vec<Message>,
    obj: Option<String>,
}

/// The comment of a line: text after the first `;` outside a string.
fn comment(line: &str) -> Option<&str> {
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_string => escaped = true,
            '"' => in_string = !in_string,
            ';' if !in_string => return Some(&line[i + 1..]),
            _ => {}
        }
    }
    None
}

fn parse_word(text: &str) -> Result<Vec<u16>, String> {
    let (value, count) = match text.split_once('*') {
        Some((v, n)) => (v, n.parse::<usize>().map_err(|e| format!("{text}: {e}"))?),
        None => (text, 1),
    };
    let hex = value
        .strip_prefix('x')
        .ok_or_else(|| format!("expected xHEX, got {text}"))?;
    let word = u16::from_str_radix(hex, 16).map_err(|e| format!("{text}: {e}"))?;
    Ok(vec![word; count])
}

/// `error@14+3: text` -> (col, len, text).
fn parse_message(rest: &str) -> Result<(Option<u32>, Option<u32>, String), String> {
    let (place, text) = rest
        .split_once(':')
        .ok_or_else(|| format!("missing ':' in {rest}"))?;
    let (col, len) = match place.strip_prefix('@') {
        None if place.is_empty() => (None, None),
        None => return Err(format!("bad expectation {rest}")),
        Some(place) => {
            let (c, l) = match place.split_once('+') {
                Some((c, l)) => (c, Some(l)),
                None => (place, None),
            };
            let num = |s: &str| s.parse::<u32>().map_err(|e| format!("{rest}: {e}"));
            (Some(num(c)?), l.map(num).transpose()?)
        }
    };
    Ok((col, len, text.trim().to_string()))
}

fn parse_expectations(source: &str) -> Result<Expectations, String> {
    let mut ex = Expectations::default();
    for (i, line) in source.lines().enumerate() {
        let line_no = i as u32 + 1;
        let Some(comment) = comment(line) else {
            continue;
        };
        for part in comment.split(';').map(str::trim) {
            if i == 0 && part == "mode: strict" {
                ex.strict = true;
            } else if let Some(words) = part.strip_prefix('=') {
                let mut all = Vec::new();
                for w in words.split_whitespace() {
                    all.extend(parse_word(w)?);
                }
                ex.words.push((line_no, all));
            } else if let Some(text) = part.strip_prefix("file error:") {
                ex.messages.push(Message {
                    line: 0,
                    col: None,
                    len: None,
                    text: text.trim().to_string(),
                    severity: Severity::Error,
                    seen: false,
                });
            } else if let Some(hex) = part.strip_prefix("obj:") {
                ex.obj = Some(hex.trim().to_ascii_lowercase());
            } else {
                let (rest, severity) = if let Some(rest) = part.strip_prefix("error") {
                    (rest, Severity::Error)
                } else if let Some(rest) = part.strip_prefix("warning") {
                    (rest, Severity::Warning)
                } else {
                    continue;
                };
                let (col, len, text) = parse_message(rest)?;
                ex.messages.push(Message {
                    line: line_no,
                    col,
                    len,
                    text,
                    severity,
                    seen: false,
                });
            }
        }
    }
    Ok(ex)
}

fn check(name: &str) -> Result<(), String> {
    let path = corpus_dir().join(format!("{name}.asm"));
    let source = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut ex = parse_expectations(&source)?;
    let file = SourceFile::new(format!("{name}.asm"), source);
    let result = assemble(&file, &AsmOptions { strict: ex.strict });
    let diags = match &result {
        Ok(p) => p.warnings.clone(),
        Err(d) => d.clone(),
    };
    let mut problems = String::new();
    for d in &diags.items {
        let (line, col, len) = d
            .location
            .as_ref()
            .map_or((0, 0, 0), |l| (l.line, l.col, l.len));
        let expected = ex.messages.iter_mut().find(|m| {
            !m.seen
                && m.line == line
                && m.severity == d.severity
                && d.message.contains(&m.text)
                && m.col.map_or(true, |c| c == col)
                && m.len.map_or(true, |l| l == len)
        });
        match expected {
            Some(m) => m.seen = true,
            None => {
                let _ = write!(
                    problems,
                    "unexpected diagnostic (col {col}, len {len}):\n{d}"
                );
            }
        }
    }
    for m in ex.messages.iter().filter(|m| !m.seen) {
        let _ = writeln!(problems, "missing on line {}: {:?}", m.line, m);
    }
    let expects_errors = ex.messages.iter().any(|m| m.severity == Severity::Error);
    match (&result, expects_errors) {
        (Ok(_), true) => problems.push_str("assembled although errors were expected\n"),
        (Err(_), false) => problems.push_str("assembly failed\n"),
        _ => {}
    }
    if let Ok(program) = &result {
        let memory: std::collections::HashMap<u16, u16> = program
            .segments
            .iter()
            .flat_map(|s| {
                s.words
                    .iter()
                    .enumerate()
                    .map(move |(i, &w)| (s.origin.wrapping_add(i as u16), w))
            })
            .collect();
        for (line, want) in &ex.words {
            let got: Vec<u16> = program
                .debug
                .lines
                .iter()
                .filter(|(_, loc)| loc.line == *line)
                .filter_map(|(addr, _)| memory.get(&(addr as u16)).copied())
                .collect();
            if &got != want {
                let _ = writeln!(
                    problems,
                    "line {line}: words {:04x?}, expected {:04x?}",
                    got, want
                );
            }
        }
        if let Some(want) = &ex.obj {
            match write_obj(program) {
                Ok(bytes) => {
                    let got: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
                    if &got != want {
                        let _ = writeln!(problems, "obj {got}, expected {want}");
                    }
                }
                Err(e) => {
                    let _ = writeln!(problems, "write_obj failed: {e}");
                }
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{name}.asm:\n{problems}"))
    }
}

macro_rules! corpus {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                if let Err(e) = check(stringify!($name)) {
                    panic!("{e}");
                }
            }
        )*
        const LISTED: &[&str] = &[$(stringify!($name)),*];
    };
}

corpus!(
    probe_after_end,
    strict_probe_after_end,
    probe_bench,
    strict_probe_bench,
    probe_blkw,
    strict_probe_blkw,
    probe_case_dup,
    strict_probe_case_dup,
    probe_charlit,
    strict_probe_charlit,
    probe_err_dup,
    strict_probe_err_dup,
    probe_err_imm,
    strict_probe_err_imm,
    probe_err_noend,
    strict_probe_err_noend,
    probe_err_noorig,
    strict_probe_err_noorig,
    probe_err_opcode,
    strict_probe_err_opcode,
    probe_err_range,
    strict_probe_err_range,
    probe_err_reg,
    strict_probe_err_reg,
    probe_err_undef,
    strict_probe_err_undef,
    probe_imm16,
    strict_probe_imm16,
    probe_label_digit,
    strict_probe_label_digit,
    probe_label_kw,
    strict_probe_label_kw,
    probe_multi_orig,
    strict_probe_multi_orig,
    probe_negx,
    strict_probe_negx,
    probe_nocomma,
    strict_probe_nocomma,
    probe_ok_case,
    strict_probe_ok_case,
    probe_ok_labels,
    strict_probe_ok_labels,
    probe_ok_numbers,
    strict_probe_ok_numbers,
    probe_sem,
    strict_probe_sem,
    probe_str,
    strict_probe_str,
    probe_str2,
    strict_probe_str2,
    probe_trapnames,
    strict_probe_trapnames,
    branches,
    directives,
    err_blocks,
    err_branches,
    err_lenient,
    instructions,
    numbers,
    strict_err_branches,
    strict_err_strings,
    strict_errors,
    strict_instructions,
    strict_only_comments,
    strict_only_end,
    strict_strings,
    strict_values,
    strict_before_orig,
    strings,
);

#[test]
fn corpus_files_are_all_listed() {
    let mut on_disk: Vec<String> = std::fs::read_dir(corpus_dir())
        .map(|dir| {
            dir.filter_map(|e| e.ok())
                .filter_map(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    name.strip_suffix(".asm").map(str::to_string)
                })
                .collect()
        })
        .unwrap_or_default();
    on_disk.sort();
    let mut listed: Vec<String> = LISTED.iter().map(|s| s.to_string()).collect();
    listed.sort();
    assert_eq!(on_disk, listed);
}

#[test]
fn expectation_syntax() {
    let ex = parse_expectations(
        "; mode: strict\n ADD R1 ; = x1261 x0000*2\n X ; error@3+2: bad ; error: worse\n\
         .STRINGZ \"a;b\" ; warning: w\n; file error: f\n; obj: 3000F025\n",
    )
    .unwrap_or_default();
    assert!(ex.strict);
    assert_eq!(ex.words, vec![(2, vec![0x1261, 0, 0])]);
    let msgs: Vec<(u32, Option<u32>, Option<u32>, &str)> = ex
        .messages
        .iter()
        .map(|m| (m.line, m.col, m.len, m.text.as_str()))
        .collect();
    assert_eq!(
        msgs,
        vec![
            (3, Some(3), Some(2), "bad"),
            (3, None, None, "worse"),
            (4, None, None, "w"),
            (0, None, None, "f"),
        ]
    );
    assert_eq!(ex.obj.as_deref(), Some("3000f025"));
}
