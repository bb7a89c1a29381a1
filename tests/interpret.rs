//! `--interpret` and `ASMDBG_INTERPRET=1`: every machine runs without compiled code (the path
//! of hosts other than x86-64), with the same output; `--stats` says so.

mod support;

use support::{text, Scratch};

/// A loop hot enough to be compiled, then a line of output.
const LOOP: &str = "\
        .ORIG x3000
        LD R1, COUNT
AGAIN   ADD R2, R2, R1
        ADD R1, R1, #-1
        BRp AGAIN
        LEA R0, DONE
        PUTS
        HALT
COUNT   .FILL #20000
DONE    .STRINGZ \"done\\n\"
        .END
";

fn run(dir: &Scratch, args: &[&str], env: Option<&str>) -> (String, String) {
    let mut cmd = asmdbg_testsupport::binary::asmdbg_command(env!("CARGO_BIN_EXE_asmdbg"));
    cmd.current_dir(dir.path())
        .args(args)
        .env_remove("ASMDBG_INTERPRET");
    if let Some(value) = env {
        cmd.env("ASMDBG_INTERPRET", value);
    }
    let out = cmd.output().expect("asmdbg runs");
    assert!(out.status.success(), "{}", text(&out.stderr));
    (text(&out.stdout), text(&out.stderr))
}

#[test]
fn interpreting_gives_the_same_run_and_says_so() {
    let dir = Scratch::with_files(&[("loop.asm", LOOP)]);
    let off = "compiled code: off (--interpret or ASMDBG_INTERPRET)";
    let (compiled_out, compiled_err) = run(&dir, &["run", "loop.asm", "--stats"], None);
    assert!(!compiled_err.contains(off), "{compiled_err}");
    for (args, env) in [
        (&["run", "--interpret", "loop.asm", "--stats"][..], None),
        (
            &["run", "loop.asm", "--stats", "--interpret"][..],
            Some("0"),
        ),
        (&["run", "loop.asm", "--stats"][..], Some("1")),
    ] {
        let (out, err) = run(&dir, args, env);
        assert_eq!(out, compiled_out, "{args:?} {env:?}");
        assert!(err.contains(off), "{args:?} {env:?}: {err}");
    }
    let (_, err) = run(&dir, &["run", "loop.asm", "--stats"], Some("0"));
    assert!(!err.contains(off), "{err}");
}
