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
