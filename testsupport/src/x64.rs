//! GNU objdump's reading of machine code the cpus compile, for tests that check what the code
//! generators write against an assembler other than the one they write with.

/// `code` as GNU objdump disassembles it (Intel syntax), one instruction a line without its
/// address and bytes, spaces collapsed (`mov QWORD PTR [rdi+0x28],rsi`). None where objdump
/// is not installed and not required (see [`crate::require_tool`]).
pub fn objdump(code: &[u8]) -> Option<Vec<String>> {
    if !crate::require_tool("objdump") {
        return None;
    }
    let file = tempfile_path();
    std::fs::write(&file, code).expect("a temporary file");
    let out = std::process::Command::new("objdump")
        .args(["-D", "-b", "binary", "-m", "i386:x86-64", "-M", "intel"])
        .arg(&file)
        .output();
    let _ = std::fs::remove_file(&file);
    let out = out.expect("objdump runs");
    assert!(out.status.success(), "objdump failed: {out:?}");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    Some(
        text.lines()
            .filter_map(|line| {
                let mut fields = line.splitn(3, '\t');
                fields.next()?.trim().strip_suffix(':')?;
                fields.next()?;
                let insn = fields.next()?;
                Some(insn.split_whitespace().collect::<Vec<_>>().join(" "))
            })
            .collect(),
    )
}

fn tempfile_path() -> std::path::PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    std::env::temp_dir().join(format!(
        "asmdbg-x64-{}-{}.bin",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ))
}
