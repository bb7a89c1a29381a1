//! `--files DIR`: a MIPS program's file syscalls (MARS 13-16) reach only the files in DIR. An
//! absolute name, a `..` that climbs out, or a link that leads out fails to open (-1), as a
//! missing file does in MARS; names inside the folder work as before.

use asmdbg_core::{Machine, MachineOptions, StopEvent};
use asmdbg_mips::load_machine;

/// Opens `name` with `flags` and leaves the descriptor in $s0; for a read, reads up to 64
/// bytes into `buf` and leaves the count in $s1; for a write, writes "hi" and leaves the count.
fn open_in(dir: &std::path::Path, name: &str, write: bool) -> (i32, i32) {
    let src = format!(
        r#"
        .data
        name: .asciiz "{name}"
        hi: .ascii "hi"
        buf: .space 64
        .text
        la $a0, name
        li $a1, {flags}
        li $v0, 13
        syscall
        move $s0, $v0
        move $a0, $s0
        la $a1, {data}
        li $a2, {len}
        li $v0, {op}
        syscall
        move $s1, $v0
        li $v0, 10
        syscall
        "#,
        flags = if write { 1 } else { 0 },
        data = if write { "hi" } else { "buf" },
        len = if write { 2 } else { 64 },
        op = if write { 15 } else { 14 },
    );
    let opts = MachineOptions {
        files_dir: Some(dir.to_path_buf()),
        ..Default::default()
    };
    let mut m = load_machine("sandbox.asm", &src, &opts).unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(m.run(100_000).stop, Some(StopEvent::Exited(0))));
    let reg = |i| m.read_register(i).expect("register") as u32 as i32;
    (reg(16), reg(17))
}

fn scratch(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("asmdbg-sandbox-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("sub")).unwrap_or_else(|e| panic!("{e}"));
    dir
}

#[test]
fn names_inside_the_folder_open_and_everything_else_fails() {
    let dir = scratch("names");
    std::fs::write(dir.join("sub/in.txt"), "inside").unwrap_or_else(|e| panic!("{e}"));
    let (fd, n) = open_in(&dir, "sub/in.txt", false);
    assert!(fd >= 3, "{fd}");
    assert_eq!(n, 6);
    let (fd, n) = open_in(&dir, "./out.txt", true);
    assert!(fd >= 3);
    assert_eq!(n, 2);
    assert_eq!(
        std::fs::read(dir.join("out.txt")).ok(),
        Some(b"hi".to_vec())
    );
    for name in ["/etc/passwd", "../escape.txt", "sub/../../escape.txt", ""] {
        let (fd, _) = open_in(&dir, name, name.contains("escape"));
        assert_eq!(fd, -1, "{name:?} must not open");
    }
    assert!(!dir.parent().expect("parent").join("escape.txt").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn a_link_that_leads_out_fails_to_open() {
    let dir = scratch("links");
    std::os::unix::fs::symlink("/etc/passwd", dir.join("passwd")).unwrap_or_else(|e| panic!("{e}"));
    std::os::unix::fs::symlink("/etc", dir.join("etc")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(open_in(&dir, "passwd", false).0, -1);
    assert_eq!(open_in(&dir, "etc/passwd", false).0, -1);
    assert_eq!(open_in(&dir, "passwd", true).0, -1, "nor written through");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_folder_that_is_not_there_is_a_clear_error() {
    let opts = MachineOptions {
        files_dir: Some("/nonexistent/asmdbg/dir".into()),
        ..Default::default()
    };
    let err = load_machine("x.asm", "li $v0, 10\nsyscall\n", &opts)
        .expect_err("an error")
        .to_string();
    assert!(
        err.starts_with("--files /nonexistent/asmdbg/dir: "),
        "{err}"
    );
}

/// Assembles `main` (written to `dir/sub/main.asm`) with includes confined to `dir/sub`.
fn assemble_confined(dir: &std::path::Path, main: &str) -> Result<(), String> {
    std::fs::write(dir.join("sub/main.asm"), main).unwrap_or_else(|e| panic!("{e}"));
    let opts = MachineOptions {
        sources: asmdbg_core::SourceAccess::confined(&dir.join("sub")).expect("folder"),
        ..Default::default()
    };
    let path = dir.join("sub/main.asm").display().to_string();
    load_machine(&path, main, &opts)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

#[test]
fn includes_reach_only_the_confined_folder_and_say_nothing_of_what_is_outside() {
    let dir = scratch("includes");
    let secret = "main: li $v0, 10\n      syscall   # SECRET SOLUTION\n";
    std::fs::write(dir.join("solution.asm"), secret).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(dir.join("sub/lib.asm"), "li $v0, 10\nsyscall\n")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(assemble_confined(&dir, ".include \"lib.asm\"\n"), Ok(()));
    let outside = [
        format!(".include \"{}\"", dir.join("solution.asm").display()),
        ".include \"../solution.asm\"".to_string(),
        ".include \"/etc/passwd\"".to_string(),
        ".include \"/dev/zero\"".to_string(),
    ];
    for line in outside {
        let err = assemble_confined(&dir, &format!("{line}\n")).unwrap_err();
        let name = line.trim_start_matches(".include ").trim_matches('"');
        assert!(
            err.contains(&format!(
                "main.asm:1:10: error: Error reading include file {name}\n"
            )),
            "{line}: {err}"
        );
        assert!(!err.contains("SECRET") && !err.contains("root:"), "{err}");
    }
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(dir.join("solution.asm"), dir.join("sub/link.asm"))
            .unwrap_or_else(|e| panic!("{e}"));
        let err = assemble_confined(&dir, ".include \"link.asm\"\n").unwrap_err();
        assert!(
            err.contains("Error reading include file link.asm\n"),
            "{err}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_include_that_is_not_a_file_or_too_large_is_refused_with_its_reason() {
    let dir = scratch("include-limits");
    std::fs::write(dir.join("sub/big.asm"), vec![b'\n'; (1 << 20) + 1])
        .unwrap_or_else(|e| panic!("{e}"));
    let err = assemble_confined(&dir, ".include \"big.asm\"\n").unwrap_err();
    assert!(
        err.contains("Error reading include file big.asm: larger than 1048576 bytes"),
        "{err}"
    );
    // Not confined (`asmdbg run`): a device is still no file to include.
    let err = load_machine(
        "m.asm",
        ".include \"/dev/zero\"\n",
        &MachineOptions::default(),
    )
    .map(|_| ())
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("Error reading include file /dev/zero: not a regular file"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn assembly_gives_up_at_its_deadline() {
    // 2^16 lines of macro expansion: quick, but not before a deadline already past.
    let mut src = String::from(".macro m0\nnop\n.end_macro\n");
    for i in 1..=16 {
        src.push_str(&format!(".macro m{i}\nm{p}\nm{p}\n.end_macro\n", p = i - 1));
    }
    src.push_str("main: m16\n");
    let opts = MachineOptions {
        assembly_deadline: Some(std::time::Instant::now()),
        ..Default::default()
    };
    let err = load_machine("bomb.asm", &src, &opts)
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("assembly did not finish in the time it was given"),
        "{err}"
    );
    assert!(load_machine("bomb.asm", &src, &MachineOptions::default()).is_ok());
}

#[test]
fn files_beyond_the_quota_fail_to_write_as_on_a_full_disk() {
    let dir = scratch("quota");
    // Writes 600 bytes to out.txt three times: the third would pass a 1,500-byte quota.
    let src = r#"
        .data
        name: .asciiz "out.txt"
        buf: .space 600
        .text
        la $a0, name
        li $a1, 1
        li $v0, 13
        syscall
        move $s0, $v0
        li $s2, 0
    again:
        move $a0, $s0
        la $a1, buf
        li $a2, 600
        li $v0, 15
        syscall
        sll $t0, $s2, 2
        addu $t0, $t0, $sp
        sw $v0, -16($t0)
        addiu $s2, $s2, 1
        blt $s2, 3, again
        li $v0, 10
        syscall
        "#;
    let opts = MachineOptions {
        files_dir: Some(dir.clone()),
        files_quota: Some(1500),
        ..Default::default()
    };
    let mut m = load_machine("q.asm", src, &opts).unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(m.run(100_000).stop, Some(StopEvent::Exited(0))));
    let sp = m.read_register(29).expect("sp");
    let results: Vec<i32> = (0..3)
        .map(|i| m.peek_word(sp - 16 + 4 * i).expect("word") as i32)
        .collect();
    assert_eq!(results, [600, 600, -1]);
    assert_eq!(
        std::fs::metadata(dir.join("out.txt")).map(|m| m.len()).ok(),
        Some(1200)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn stderr_and_console_output_stop_growing_at_the_hosts_limit() {
    let src = r#"
        .data
        msg: .asciiz "0123456789"
        .text
        li $s0, 100
    loop:
        li $a0, 2
        la $a1, msg
        li $a2, 10
        li $v0, 15
        syscall
        la $a0, msg
        li $v0, 4
        syscall
        addiu $s0, $s0, -1
        bgtz $s0, loop
        li $v0, 10
        syscall
        "#;
    let mut m =
        load_machine("out.asm", src, &MachineOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    m.limit_output(25);
    assert!(matches!(m.run(1_000_000).stop, Some(StopEvent::Exited(0))));
    assert_eq!(m.take_host_stderr().len(), 25);
    assert_eq!(m.console().take_output().len(), 25);
}

#[test]
fn a_confined_program_has_at_most_250000_lines_with_its_macro_expansions() {
    let dir = scratch("lines");
    // 2^18 = 262,144 nops from a few lines of macros: too many for a sandbox.
    let mut src = String::from(".macro m0\nnop\n.end_macro\n");
    for i in 1..=18 {
        src.push_str(&format!(".macro m{i}\nm{p}\nm{p}\n.end_macro\n", p = i - 1));
    }
    src.push_str("main: m18\n");
    let err = assemble_confined(&dir, &src).unwrap_err();
    assert!(
        err.contains("main.asm: error: the program has more than 250000 lines with its includes and macro expansions"),
        "{err}"
    );
    assert_eq!(err.matches("error:").count(), 1, "said once: {err}");
    // Outside a sandbox only the macro expansion budget (a million lines) holds: see
    // assembly_gives_up_at_its_deadline, which assembles 2^16 lines unconfined.
    let _ = std::fs::remove_dir_all(&dir);
}
