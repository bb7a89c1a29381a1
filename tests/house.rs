//! The shape of the house: no source file of the workspace is past 900 lines of code that
//! ships (its inline `#[cfg(test)] mod … { … }` blocks and its test files not counted), so
//! that each can be read whole. Past that, split the file along its seams (README, Layout).

use std::path::{Path, PathBuf};

const LIMIT: usize = 900;
/// The workspace's source trees.
const TREES: &[&str] = &[
    "src",
    "session/src",
    "targets",
    "testsupport/src",
    "web/src",
    "fuzz/fuzz_targets",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if path.is_dir() {
            // Test trees and build output are not shipping code.
            if name != "tests" && name != "target" {
                rust_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") && name != "tests.rs" {
            out.push(path);
        }
    }
}

/// Lines of `text` outside its inline test modules (`#[cfg(test)]` then `mod name {`, up to
/// the `}` that closes it at the same indentation).
fn shipping_lines(text: &str) -> usize {
    let lines: Vec<&str> = text.lines().collect();
    let mut count = 0;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let indent = line.len() - line.trim_start().len();
        let opens_test_module = line.trim() == "#[cfg(test)]"
            && lines.get(i + 1).is_some_and(|next| {
                let next = next.trim();
                next.starts_with("mod ") && next.ends_with('{')
            });
        if opens_test_module {
            let close = format!("{}}}", " ".repeat(indent));
            i += 2;
            while i < lines.len() && lines[i] != close {
                i += 1;
            }
            i += 1;
            continue;
        }
        count += 1;
        i += 1;
    }
    count
}

#[test]
fn test_modules_are_not_counted() {
    let text = "fn a() {}\n\n#[cfg(test)]\nmod tests {\n    fn b() {\n    }\n}\nfn c() {}\n";
    assert_eq!(shipping_lines(text), 3);
    // A test module declared in its own file is one line here.
    assert_eq!(shipping_lines("fn a() {}\n#[cfg(test)]\nmod tests;\n"), 3);
}

#[test]
fn no_source_file_is_past_900_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for tree in TREES {
        rust_files(&root.join(tree), &mut files);
    }
    assert!(
        files.len() > 100,
        "the source trees were not found: {files:?}"
    );
    let mut long: Vec<(usize, String)> = files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            let name = f.strip_prefix(root).unwrap_or(f).display().to_string();
            (shipping_lines(&text), name)
        })
        .filter(|(n, _)| *n > LIMIT)
        .collect();
    long.sort();
    assert!(
        long.is_empty(),
        "past {LIMIT} lines of non-test code (split along the seams): {long:?}"
    );
}
