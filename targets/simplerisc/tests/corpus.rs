//! The assembler corpus in `tests/asm/simplerisc/`: every `ok_*.asm` must assemble, and each
//! line marked `@ = 0xWORD` must encode to that word; every `err_*.asm` must fail with exactly
//! the errors marked `@ error: TEXT` (one per marked line, the message containing TEXT). A
//! first line `@ options: --no-mul` assembles with the no-multiply variant.

mod common;

use asmdbg_simplerisc::{assemble, AsmOptions, Slot};
use common::corpus_dir;

fn corpus(prefix: &str) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(corpus_dir())
        .expect("corpus directory")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.starts_with(prefix) && name.ends_with(".asm")
        })
        .map(|p| {
            let name = p
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("")
                .to_string();
            (name, std::fs::read_to_string(&p).expect("readable"))
        })
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no {prefix}*.asm in the corpus");
    files
}

fn options(text: &str) -> AsmOptions {
    AsmOptions {
        no_mul: text
            .lines()
            .next()
            .is_some_and(|l| l.starts_with("@ options:") && l.contains("--no-mul")),
    }
}

/// The text after `marker` on each line that has it, by 1-based line number.
fn marks<'a>(text: &'a str, marker: &str) -> Vec<(u32, &'a str)> {
    text.lines()
        .enumerate()
        .filter_map(|(i, l)| {
            l.find(marker)
                .map(|at| (i as u32 + 1, l[at + marker.len()..].trim()))
        })
        .collect()
}

#[test]
fn ok_files_encode_as_marked() {
    for (name, text) in corpus("ok_") {
        let program = match assemble(&name, &text, options(&text)) {
            Ok(p) => p,
            Err(e) => panic!("{name} does not assemble:\n{e}"),
        };
        let expected = marks(&text, "@ = ");
        let expected_more = marks(&text, "// = ");
        assert!(!expected.is_empty(), "{name}: no `@ =` marks");
        for (line, word) in expected.into_iter().chain(expected_more) {
            let want = u32::from_str_radix(word.trim_start_matches("0x"), 16)
                .unwrap_or_else(|_| panic!("{name}:{line}: bad mark {word}"));
            let slot = program
                .debug
                .lines
                .iter()
                .find(|(_, loc)| loc.line == line)
                .map(|(addr, _)| (addr / 4) as usize)
                .unwrap_or_else(|| panic!("{name}:{line}: no instruction on this line"));
            match program.slots.get(slot) {
                Some(Slot::Word(got)) => {
                    assert_eq!(
                        *got, want,
                        "{name}:{line}: got {got:#010x}, want {want:#010x}"
                    )
                }
                other => panic!("{name}:{line}: {other:?}"),
            }
        }
    }
}

#[test]
fn err_files_report_every_marked_error_and_nothing_else() {
    for (name, text) in corpus("err_") {
        let diags = match assemble(&name, &text, options(&text)) {
            Ok(_) => panic!("{name} assembled but should not"),
            Err(d) => d,
        };
        let report = diags.to_string();
        let expected = marks(&text, "@ error: ");
        let mut found: Vec<(u32, String)> = diags
            .items
            .iter()
            .map(|d| (d.location.as_ref().map_or(0, |l| l.line), d.message.clone()))
            .collect();
        for (line, want) in &expected {
            let Some(i) = found
                .iter()
                .position(|(l, m)| l == line && m.contains(want))
            else {
                panic!("{name}:{line}: expected an error containing `{want}`; report:\n{report}");
            };
            found.remove(i);
        }
        assert!(
            found.is_empty(),
            "{name}: unexpected errors {found:?}\n{report}"
        );
        // Every error names the file, line and column and draws a caret.
        for (line, _) in &expected {
            assert!(
                report.contains(&format!("{name}:{line}:")),
                "{name}:{line}\n{report}"
            );
        }
        assert!(report.contains('^'), "{report}");
        assert!(
            report.ends_with(&format!(
                "{} error{} found; nothing was assembled\n",
                expected.len(),
                if expected.len() == 1 { "" } else { "s" }
            )),
            "{report}"
        );
    }
}
