//! Assembly slips (a lone word one edit from an instruction) are warned about, and no real
//! program sets them off: every program in programs/ assembles without such a warning (the
//! corpora in tests/asm/ check their own diagnostics exactly).

mod support;

use std::path::{Path, PathBuf};

use support::{asmdbg_in, text, Scratch};

fn asm_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("programs/").flatten() {
        let path = entry.path();
        if path.is_dir() {
            asm_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "asm") {
            out.push(path);
        }
    }
}

#[test]
fn no_program_in_programs_looks_like_a_slip() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("programs");
    let mut files = Vec::new();
    asm_files(&root, &mut files);
    assert!(files.len() >= 8, "{files:?}");
    let scratch = Scratch::new();
    for file in files {
        let isa = match file
            .components()
            .nth_back(1)
            .and_then(|c| c.as_os_str().to_str())
        {
            Some("simplerisc") => "simplerisc",
            Some("mips") => "mips",
            _ => "lc3",
        };
        let out = scratch.path().join("out.elf");
        let run = asmdbg_in(
            scratch.path(),
            &[
                "asm",
                file.to_str().expect("a path"),
                "--isa",
                isa,
                "-o",
                out.to_str().expect("a path"),
            ],
        );
        let stderr = text(&run.stderr);
        assert!(run.status.success(), "{}: {stderr}", file.display());
        assert!(
            !stderr.contains("looks like"),
            "{}: {stderr}",
            file.display()
        );
    }
}

#[test]
fn a_lone_label_like_an_instruction_is_said_before_the_run() {
    let scratch = Scratch::new();
    let prog = scratch.write(
        "slip.asm",
        "        .ORIG x3000\n        LEA R0, MSG\n        PUST\n        HALT\nMSG     .STRINGZ \"hi\"\n        .END\n",
    );
    let run = asmdbg_in(scratch.path(), &["run", prog.to_str().expect("a path")]);
    let stderr = text(&run.stderr);
    assert!(
        stderr.starts_with(&format!(
            "{}:3:9: warning: label `PUST` looks like the instruction PUTS",
            prog.display()
        )),
        "{stderr}"
    );
    // The program still runs as assembled (a label does nothing): no output.
    assert_eq!(text(&run.stdout), "\n----- Halting the processor ----- \n");
}
