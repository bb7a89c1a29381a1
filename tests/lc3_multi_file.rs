//! LC-3 programs of several files, as `asmdbg run|asm` loads them: each file assembled on its
//! own and loaded at its own .ORIG (assembly and object files together), the start where the
//! profile's simulator starts (the last file's first .ORIG), `--entry`, overlapping files,
//! labels local to their file, and errors that name their file.

mod support;

use std::path::Path;

use support::{asmdbg_in as asmdbg, text, Scratch};

/// A main program at x3000 that prints the string a data file placed at x4000; both define a
/// label `MSG`, each file's code using its own (no linking: a label is local to its file).
const MAIN: &str = "\t.ORIG x3000\nMAIN\tLD R0, MSG\n\tPUTS\n\tLEA R0, MSG2\n\tPUTS\n\tHALT\nMSG\t.FILL x4000\nMSG2\t.STRINGZ \" and main\\n\"\n\t.END\n";
const DATA: &str = "\t.ORIG x4000\nMSG\t.STRINGZ \"data file\"\n\t.END\n";

fn run_ok(dir: &Path, args: &[&str]) -> String {
    let out = asmdbg(dir, args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}",
        text(&out.stderr)
    );
    text(&out.stdout)
}

#[test]
fn two_sources_each_at_its_origin_start_at_the_last_file() {
    let scratch = Scratch::with_files(&[("main.asm", MAIN), ("data.asm", DATA)]);
    let dir = scratch.path().to_path_buf();
    for profile in ["patt", "lc3tools", "lc3sim"] {
        let out = run_ok(&dir, &["run", "data.asm", "main.asm", "--profile", profile]);
        assert!(
            out.starts_with("data file and main\n"),
            "{profile}: {out:?}"
        );
    }
    // The main program named first: the data file is last, so the program starts at x4000
    // (its first word, 'd' = x0064, is an ADD that runs into the string's other words).
    let out = asmdbg(&dir, &["run", "main.asm", "data.asm", "--max-steps", "3"]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("at PC x4003"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn entry_overrides_the_start_by_label_or_address() {
    let scratch = Scratch::with_files(&[("main.asm", MAIN), ("data.asm", DATA)]);
    let dir = scratch.path().to_path_buf();
    let out = run_ok(&dir, &["run", "main.asm", "data.asm", "--entry", "MAIN"]);
    assert!(out.starts_with("data file and main\n"), "{out:?}");
    let out = run_ok(&dir, &["run", "main.asm", "data.asm", "--entry", "x3000"]);
    assert!(out.starts_with("data file and main\n"), "{out:?}");
    let out = asmdbg(&dir, &["run", "main.asm", "data.asm", "--entry", "NOWHERE"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "--entry NOWHERE: no label of that name in the program, and not an address\n"
    );
    let out = asmdbg(&dir, &["run", "main.asm", "--entry", "x12345"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("not an LC-3 address"));
}

#[test]
fn object_and_assembly_files_together() {
    let scratch = Scratch::with_files(&[("main.asm", MAIN), ("data.asm", DATA)]);
    let dir = scratch.path().to_path_buf();
    let out = asmdbg(&dir, &["asm", "data.asm"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(dir.join("data.obj").exists() && dir.join("data.sym").exists());
    let out = run_ok(&dir, &["run", "data.obj", "main.asm"]);
    assert!(out.starts_with("data file and main\n"), "{out:?}");
}

#[test]
fn asm_writes_one_object_file_per_source() {
    let scratch = Scratch::with_files(&[("main.asm", MAIN), ("data.asm", DATA)]);
    let dir = scratch.path().to_path_buf();
    let out = asmdbg(&dir, &["asm", "main.asm", "data.asm"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let main = std::fs::read(dir.join("main.obj")).unwrap();
    let data = std::fs::read(dir.join("data.obj")).unwrap();
    assert_eq!(&main[..2], &[0x30, 0x00], "main.obj starts with its origin");
    assert_eq!(&data[..2], &[0x40, 0x00], "data.obj starts with its origin");
    assert!(std::fs::read_to_string(dir.join("main.sym"))
        .unwrap()
        .contains("MAIN"));
    // -o names one file: refused for several sources, unless it is one ELF of them all.
    let out = asmdbg(&dir, &["asm", "main.asm", "data.asm", "-o", "both.obj"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("-o names one file"),
        "{}",
        text(&out.stderr)
    );
    let out = asmdbg(&dir, &["asm", "main.asm", "data.asm", "-o", "both.elf"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(std::fs::read(dir.join("both.elf"))
        .unwrap()
        .starts_with(b"\x7fELF"));
}

#[test]
fn overlapping_files_are_an_error_except_under_lc3tools() {
    let other = "\t.ORIG x4002\n\t.FILL #7\n\t.FILL #8\n\t.END\n";
    let scratch =
        Scratch::with_files(&[("main.asm", MAIN), ("data.asm", DATA), ("other.asm", other)]);
    let dir = scratch.path().to_path_buf();
    for profile in ["patt", "lc3sim"] {
        let out = asmdbg(
            &dir,
            &[
                "run",
                "data.asm",
                "other.asm",
                "main.asm",
                "--profile",
                profile,
            ],
        );
        assert_eq!(out.status.code(), Some(2), "{profile}");
        assert_eq!(
            text(&out.stderr),
            "other.asm overlaps data.asm at x4002-x4003: each file is loaded at its own .ORIG, and two files cannot share memory\n",
            "{profile}"
        );
    }
    // lc3tools loads them anyway, the later file's words over the earlier's; asmdbg says so.
    let out = asmdbg(
        &dir,
        &[
            "run",
            "data.asm",
            "other.asm",
            "main.asm",
            "--profile",
            "lc3tools",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stderr).starts_with(
        "warning: other.asm overlaps data.asm at x4002-x4003; as lc3tools loads them, the later file's words are in memory\n"
    ));
    // "da" then x0007, x0008 (not printable) where "ta" was, then the rest of the string.
    assert!(
        text(&out.stdout).starts_with("da\u{7}\u{8} file and main\n"),
        "{:?}",
        text(&out.stdout)
    );
}

#[test]
fn errors_name_their_file_and_every_file_is_checked() {
    let bad_main = "\t.ORIG x3000\n\tLD R0, MSG\n\tPUTS\n\tHALT\n\t.END\n";
    let bad_data = "\t.ORIG x4000\nMSG\t.STRINGZ \"x\"\n\tADD R9, R0, R0\n\t.END\n";
    let scratch = Scratch::with_files(&[("main.asm", bad_main), ("data.asm", bad_data)]);
    let dir = scratch.path().to_path_buf();
    let out = asmdbg(&dir, &["run", "main.asm", "data.asm"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    // MSG is data.asm's label: main.asm cannot see it.
    assert!(err.contains("main.asm:2:"), "{err}");
    assert!(err.contains("MSG"), "{err}");
    assert!(err.contains("data.asm:3:"), "{err}");
    assert!(
        err.ends_with("2 errors found; nothing was assembled\n"),
        "{err}"
    );
}

#[test]
fn simplerisc_programs_are_one_file() {
    let prog = ".main:\n\tmov r1, 3\n\t.print r1\n";
    let scratch = Scratch::with_files(&[("a.asm", prog), ("b.asm", prog)]);
    let dir = scratch.path().to_path_buf();
    let out = asmdbg(&dir, &["run", "a.asm", "b.asm"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "SimpleRISC programs are one file; 2 files were given (a.asm, b.asm)\n"
    );
    let out = asmdbg(&dir, &["run", "a.asm", "--project"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--project"),
        "{}",
        text(&out.stderr)
    );
}

/// A game given before its sprites starts in the last file, as the simulators do: when that file
/// holds only data, stderr says so and names the file with code and --entry (the run goes on as
/// the simulators' would); with the game last, or --entry, nothing is said.
#[test]
fn a_start_in_a_file_of_data_is_named_with_entry() {
    let dir = tempfile::tempdir().expect("scratch");
    let write =
        |name: &str, text: &str| std::fs::write(dir.path().join(name), text).expect("write");
    write(
        "tac.asm",
        ".ORIG x3000\nLEA R0, HI\nPUTS\nHALT\nHI .STRINGZ \"tac\"\n.END\n",
    );
    write("blocko.asm", ".ORIG x4000\n.FILL x7C00\n.BLKW 10\n.END\n");
    write(
        "blockx.asm",
        ".ORIG x4100\n.FILL x001F\n.STRINGZ \"x\"\n.END\n",
    );
    let out = asmdbg(dir.path(), &["run", "tac.asm", "blocko.asm", "blockx.asm"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("the program starts at x4100, the .ORIG of blockx.asm (the last file: the simulators start there), which holds only data; tac.asm has code at x3000: give --entry x3000, or name tac.asm last\n"),
        "{stderr}"
    );
    for args in [
        &["run", "blocko.asm", "blockx.asm", "tac.asm"][..],
        &[
            "run",
            "tac.asm",
            "blocko.asm",
            "blockx.asm",
            "--entry",
            "x3000",
        ],
    ] {
        let out = asmdbg(dir.path(), args);
        assert!(
            out.stderr.is_empty(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stdout).starts_with("tac"));
    }
}
