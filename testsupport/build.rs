//! Emits one `#[test]` per assembler corpus file (`tests/asm/<isa>/{ok,err}_*.asm`), the way
//! customasm generates its corpus tests: a new file is a new test without editing a list, and
//! a failing file is named by its own test. Files that are neither ok_, err_ nor an inc_
//! (included) file stop the build, so nothing in the corpus goes unchecked.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/asm");
    let mut tests = String::new();
    for isa in ["lc3", "mips", "simplerisc"] {
        let dir = corpus.join(isa);
        println!("cargo:rerun-if-changed={}", dir.display());
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .filter_map(|entry| entry.ok())
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        for name in names {
            let Some(stem) = name.strip_suffix(".asm") else {
                panic!("{isa}/{name}: the corpus holds only .asm files");
            };
            if stem.starts_with("inc_") {
                continue;
            }
            assert!(
                (stem.starts_with("ok_") || stem.starts_with("err_"))
                    && stem.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
                "{isa}/{name}: corpus files are named ok_NAME.asm or err_NAME.asm"
            );
            let _ = writeln!(
                tests,
                "#[test]\nfn {isa}_{stem}() {{\n    corpus_file(Isa::{}, {name:?});\n}}",
                match isa {
                    "lc3" => "Lc3",
                    "mips" => "Mips",
                    _ => "SimpleRisc",
                }
            );
        }
    }
    let out = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("corpus_tests.rs");
    std::fs::write(&out, tests).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
}
