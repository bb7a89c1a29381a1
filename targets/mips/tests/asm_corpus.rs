//! Runs the assembler corpus in `tests/asm/mips/`. Each file states its expectations inline:
//!
//! - `# = 0x24020004 0x...`: the words the line assembles to, in order (pseudo-instructions
//!   list every word of their expansion);
//! - `# bytes: 01 02 ff`: the bytes a data line lays down, from its first item;
//! - `# @ 0x10010004`: the address of the line's first word or item;
//! - `# error: text`: assembly fails with an error on this line whose message contains `text`;
//! - `# warning: text`: a warning on this line.
//!
//! A file with no `error:` expectation must assemble.

use std::path::{Path, PathBuf};

use asmdbg_core::{Diagnostic, SourceFile};
use asmdbg_mips::asm::{assemble, AsmOptions};
use asmdbg_mips::Program;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/asm/mips")
}

enum Expect {
    Words(Vec<u32>),
    Bytes(Vec<u8>),
    At(u32),
    Error(String),
    Warning(String),
}

fn parse_hex(s: &str) -> u32 {
    u32::from_str_radix(s.trim_start_matches("0x"), 16).unwrap_or_else(|_| panic!("bad hex {s}"))
}

fn expectations(text: &str) -> Vec<(u32, Expect)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let n = i as u32 + 1;
        // The expectation is the last `#` comment part.
        let Some(pos) = line.rfind("# ") else {
            continue;
        };
        let spec = line[pos + 2..].trim();
        if let Some(rest) = spec.strip_prefix("= ") {
            out.push((
                n,
                Expect::Words(rest.split_whitespace().map(parse_hex).collect()),
            ));
        } else if let Some(rest) = spec.strip_prefix("bytes: ") {
            let bytes = rest
                .split_whitespace()
                .map(|b| u8::from_str_radix(b, 16).unwrap_or_else(|_| panic!("bad byte {b}")))
                .collect();
            out.push((n, Expect::Bytes(bytes)));
        } else if let Some(rest) = spec.strip_prefix("@ ") {
            out.push((n, Expect::At(parse_hex(rest))));
        } else if let Some(rest) = spec.strip_prefix("error: ") {
            out.push((n, Expect::Error(rest.to_string())));
        } else if let Some(rest) = spec.strip_prefix("warning: ") {
            out.push((n, Expect::Warning(rest.to_string())));
        }
    }
    out
}

fn byte_at(p: &Program, addr: u32) -> Option<u8> {
    p.chunks.iter().find_map(|c| {
        let off = addr.checked_sub(c.addr)? as usize;
        c.bytes.get(off).copied()
    })
}

fn word_at(p: &Program, addr: u32) -> Option<u32> {
    let b: Option<Vec<u8>> = (0..4).map(|i| byte_at(p, addr + i)).collect();
    b.map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn addresses_of_line(p: &Program, line: u32) -> Vec<u32> {
    p.debug
        .lines
        .iter()
        .filter(|(_, loc)| loc.line == line && loc.file.0 == 0)
        .map(|(a, _)| a as u32)
        .collect()
}

fn has_message(diags: &[Diagnostic], line: u32, text: &str, error: bool) -> bool {
    diags.iter().any(|d| {
        d.is_error() == error
            && d.message.contains(text)
            && d.location.as_ref().is_some_and(|l| l.line == line)
    })
}

fn check_file(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).expect("corpus file readable");
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let src = SourceFile::new(name.clone(), text.clone());
    let opts = AsmOptions {
        work_dir: Some(corpus_dir()),
        ..AsmOptions::default()
    };
    let result = assemble(&src, &opts);
    let exp = expectations(&text);
    let wants_error = exp.iter().any(|(_, e)| matches!(e, Expect::Error(_)));
    let mut failures = Vec::new();
    match result {
        Err(diags) => {
            if !wants_error {
                failures.push(format!("{name}: unexpected errors:\n{diags}"));
                return failures;
            }
            for (line, e) in &exp {
                match e {
                    Expect::Error(t) if !has_message(&diags.items, *line, t, true) => failures
                        .push(format!(
                            "{name}:{line}: expected error `{t}`, got:\n{diags}"
                        )),
                    Expect::Warning(t) if !has_message(&diags.items, *line, t, false) => failures
                        .push(format!(
                            "{name}:{line}: expected warning `{t}`, got:\n{diags}"
                        )),
                    _ => {}
                }
            }
            let expected = exp
                .iter()
                .filter(|(_, e)| matches!(e, Expect::Error(_)))
                .count();
            if diags.error_count() != expected {
                failures.push(format!("{name}: {expected} errors expected, got:\n{diags}"));
            }
        }
        Ok(p) => {
            if wants_error {
                failures.push(format!("{name}: assembled but errors were expected"));
                return failures;
            }
            for (line, e) in &exp {
                let addrs = addresses_of_line(&p, *line);
                match e {
                    Expect::Words(words) => {
                        let got: Vec<u32> = addrs.iter().filter_map(|&a| word_at(&p, a)).collect();
                        if &got != words {
                            let fmt = |w: &[u32]| {
                                w.iter()
                                    .map(|w| format!("0x{w:08x}"))
                                    .collect::<Vec<_>>()
                                    .join(" ")
                            };
                            failures.push(format!(
                                "{name}:{line}: expected {} got {}",
                                fmt(words),
                                fmt(&got)
                            ));
                        }
                    }
                    Expect::Bytes(bytes) => {
                        let start = addrs.first().copied().unwrap_or(0);
                        let got: Vec<u8> = (0..bytes.len() as u32)
                            .filter_map(|i| byte_at(&p, start + i))
                            .collect();
                        if &got != bytes {
                            failures.push(format!(
                                "{name}:{line}: expected bytes {bytes:02x?} got {got:02x?}"
                            ));
                        }
                    }
                    Expect::At(addr) => {
                        if addrs.first() != Some(addr) {
                            failures.push(format!(
                                "{name}:{line}: expected at 0x{addr:08x}, got {addrs:x?}"
                            ));
                        }
                    }
                    Expect::Warning(t) => {
                        if !has_message(&p.warnings.items, *line, t, false) {
                            failures.push(format!(
                                "{name}:{line}: expected warning `{t}`, got:\n{}",
                                p.warnings
                            ));
                        }
                    }
                    Expect::Error(_) => {}
                }
            }
        }
    }
    failures
}

#[test]
fn corpus_files_assemble_as_annotated() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("corpus directory exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|e| e == "asm") && !p.to_string_lossy().contains("inc_")
        })
        .collect();
    files.sort();
    assert!(files.len() >= 5, "corpus too small: {files:?}");
    let failures: Vec<String> = files.iter().flat_map(|f| check_file(f)).collect();
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
