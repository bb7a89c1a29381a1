//! MIPS programs of several files through the command line, by MARS's rules: `asmdbg run A B`
//! (labels local to their file unless `.globl`, `.include` per file), `--project` (MARS `p`:
//! the first file and every other .asm file of its folder), MARS's error texts for an
//! undefined and a doubly defined global naming their file, and `asm` writing one ELF.

mod support;

use std::path::PathBuf;

use support::{asmdbg_in as asmdbg, text, Scratch};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

const MAIN: &str = ".text\n.globl main\nmain:\tjal helper\n\tli $v0, 10\n\tsyscall\n";
const HELPER: &str = ".text\n.globl helper\nhelper:\tli $a0, 7\n\tli $v0, 1\n\tsyscall\n\tjr $ra\n";

/// The two-file program of the MIPS crate's tests (targets/mips/tests/data/multi/): main.asm
/// includes a macro file and calls lib.asm's global functions, lib.asm includes one of its own.
#[test]
fn two_files_with_globals_and_includes_run_and_assemble_to_one_elf() {
    let dir = root().join("targets/mips/tests/data/multi");
    let out = asmdbg(&dir, &["run", "main.asm", "lib/lib.asm"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "sum of 5 numbers = 39\n321\nhello from lib\n"
    );
    let out = asmdbg(&dir, &["run", "main.asm", "lib/lib.asm", "--start-at-main"]);
    assert_eq!(
        text(&out.stdout),
        "sum of 5 numbers = 39\n321\nhello from lib\n"
    );

    let elf = std::env::temp_dir().join(format!("asmdbg-mips-multi-{}.elf", std::process::id()));
    let out = asmdbg(
        &dir,
        &[
            "asm",
            "main.asm",
            "lib/lib.asm",
            "-o",
            elf.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let bytes = std::fs::read(&elf).unwrap();
    assert!(bytes.starts_with(b"\x7fELF"));
    // Both files' names are in the debug information (a compile unit each).
    for name in ["main.asm", "lib.asm"] {
        assert!(
            bytes.windows(name.len()).any(|w| w == name.as_bytes()),
            "{name} in the ELF"
        );
    }
    let _ = std::fs::remove_file(elf);
}

#[test]
fn a_label_not_declared_global_is_not_found_in_the_other_file() {
    let local_helper = HELPER.replace(".globl helper\n", "");
    let scratch = Scratch::with_files(&[("main.asm", MAIN), ("util.asm", &local_helper)]);
    let dir = scratch.path().to_path_buf();
    let out = asmdbg(&dir, &["run", "main.asm", "util.asm"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        concat!(
            "main.asm:3:11: error: Symbol \"helper\" not found in symbol table.\n",
            "main:\tjal helper\n",
            "     \t    ^~~~~~\n",
            "1 error found; nothing was assembled\n"
        )
    );
}

#[test]
fn a_global_defined_in_two_files_is_an_error_in_the_second() {
    let scratch = Scratch::with_files(&[("main.asm", MAIN), ("a.asm", HELPER), ("b.asm", HELPER)]);
    let dir = scratch.path().to_path_buf();
    let out = asmdbg(&dir, &["run", "main.asm", "a.asm", "b.asm"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.starts_with(
            "b.asm:2:8: error: \"helper\" already defined as global in a different file.\n"
        ),
        "{err}"
    );
}

#[test]
fn project_assembles_every_asm_file_of_the_folder() {
    let scratch = Scratch::with_files(&[
        ("main.asm", MAIN),
        ("util.asm", HELPER),
        ("notes.txt", "not assembly"),
    ]);
    let dir = scratch.path().to_path_buf();
    let out = asmdbg(&dir, &["run", "main.asm", "--project"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "7");
    // From another directory, naming the first file by its path.
    let out = asmdbg(
        &std::env::temp_dir(),
        &["run", dir.join("main.asm").to_str().unwrap(), "--project"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "7");
    // Without --project the helper is missing.
    let out = asmdbg(&dir, &["run", "main.asm"]);
    assert_eq!(out.status.code(), Some(2));
    // --project takes the first file only.
    let out = asmdbg(&dir, &["run", "main.asm", "util.asm", "--project"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--project takes one file"));
}

#[test]
fn lc3_refuses_project_and_mips_refuses_entry() {
    let scratch = Scratch::with_files(&[
        ("main.asm", MAIN),
        ("p.asm", "\t.ORIG x3000\n\tHALT\n\t.END\n"),
    ]);
    let dir = scratch.path().to_path_buf();
    let out = asmdbg(&dir, &["run", "p.asm", "--project"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "--project (MIPS only) does not apply to LC-3 programs\n"
    );
    let out = asmdbg(&dir, &["run", "main.asm", "--entry", "main"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "--entry (LC-3 only) does not apply to MIPS programs\n"
    );
}

/// gdb-multiarch on the two-file program: a breakpoint in each file, `bt` inside lib.asm's
/// function shows main.asm's caller, `finish` returns to main.asm.
#[test]
fn gdb_breaks_in_both_files() {
    if !asmdbg_testsupport::require_tool("gdb-multiarch") {
        return;
    }
    let dir = root().join("targets/mips/tests/data/multi");
    let scratch = tempfile::tempdir().unwrap();
    let elf = scratch.path().join("multi.elf");
    let lib = dir.join("lib/lib.asm");
    let stub = support::Stub::start(
        &dir.join("main.asm"),
        &[lib.to_str().unwrap(), "--elf", elf.to_str().unwrap()],
    );
    let out = stub.gdb(
        "break lib.asm:13\nbreak main.asm:19\ncontinue\nbt\ndelete 1\nfinish\nprint $v0\ncontinue",
    );
    support::assert_in_order(
        &out,
        &[
            "Breakpoint 1 at ",
            "lib.asm, line 13.",
            "Breakpoint 2 at ",
            "main.asm, line 19.",
            "Breakpoint 1, sum () at ",
            "lib.asm:13",
            "#0  sum () at ",
            "#1  0x00400048 in main () at ",
            "main.asm:17",
            // `finish` returns to main.asm, the sum in $v0.
            "main () at ",
            "main.asm:18",
            "$1 = 39",
            "Breakpoint 2, main () at ",
            "main.asm:19",
        ],
    );
}
