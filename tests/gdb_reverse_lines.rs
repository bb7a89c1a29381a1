//! gdb's reverse motions by line with asmdbg's helper script (the ELF's `.debug_gdb_scripts`,
//! trusted with `add-auto-load-safe-path`): `reverse-next`, `reverse-step`, `reverse-nexti` and
//! `reverse-finish` by one rule on every ISA — a call is run back to its entry in the frame that
//! made it, then to the call — through nested calls (the MIPS debug information's ranges cut
//! after every branch made gdb's own commands stop inside the callee), recursion, and a game.
//! Without the script, gdb's console says what is missing on MIPS.

mod support;

use asmdbg_testsupport::require_tool;
use support::{assert_in_order, Scratch, Stub};

/// `main` calls `g` (line `call_g`), `g` calls `f` (line `call_f`); each saves its return
/// address where its ISA needs it.
struct Nested {
    name: &'static str,
    file: &'static str,
    source: &'static str,
    args: &'static [&'static str],
    /// The functions as gdb names them.
    main: &'static str,
    g: &'static str,
    f: &'static str,
    call_g: u32,
    after_g: u32,
    /// `g`'s line before its call of `f`, the call, the line after it, and `g`'s return.
    before_f: u32,
    call_f: u32,
    after_f: u32,
    f_ret: u32,
    /// The pc of `main`'s call as `p/x $pc` prints it.
    call_g_pc: &'static str,
}

const NESTED: [Nested; 3] = [
    Nested {
        name: "lc3",
        file: "nest.asm",
        source: "        .ORIG x3000
MAIN    LD R6, STACK
        JSR G
        ADD R1, R1, #5
        HALT
G       ADD R6, R6, #-1
        STR R7, R6, #0
        ADD R1, R1, #2
        JSR F
        ADD R1, R1, #3
        LDR R7, R6, #0
        ADD R6, R6, #1
        RET
F       ADD R1, R1, #7
        ADD R1, R1, #1
        RET
STACK   .FILL x4000
        .END
",
        args: &[],
        main: "MAIN",
        g: "G",
        f: "F",
        call_g: 3,
        after_g: 4,
        before_f: 8,
        call_f: 9,
        after_f: 10,
        f_ret: 16,
        call_g_pc: "0x6002",
    },
    Nested {
        name: "mips",
        file: "nest.asm",
        source: "\t.text
main:\tli $s0, 1
\tjal g
\taddi $s0, $s0, 5
\tli $v0, 10
\tsyscall
g:\taddi $sp, $sp, -4
\tsw $ra, 0($sp)
\taddi $s0, $s0, 2
\tjal f
\taddi $s0, $s0, 3
\tlw $ra, 0($sp)
\taddi $sp, $sp, 4
\tjr $ra
f:\taddi $s0, $s0, 7
\taddi $s0, $s0, 1
\tjr $ra
",
        args: &[],
        main: "main",
        g: "g",
        f: "f",
        call_g: 3,
        after_g: 4,
        before_f: 9,
        call_f: 10,
        after_f: 11,
        f_ret: 17,
        call_g_pc: "0x400004",
    },
    Nested {
        name: "simplerisc",
        file: "nest.asm",
        source: ".main:
    mov r1, 0
    call g
    add r1, r1, 5
    b done
g:
    sub sp, sp, 4
    st ra, 0[sp]
    add r1, r1, 2
    call f
    add r1, r1, 3
    ld ra, 0[sp]
    add sp, sp, 4
    ret
f:
    add r1, r1, 7
    add r1, r1, 1
    ret
done:
    nop
",
        args: &["--isa", "simplerisc"],
        main: ".main",
        g: "g",
        f: "f",
        call_g: 3,
        after_g: 4,
        before_f: 9,
        call_f: 10,
        after_f: 11,
        f_ret: 18,
        call_g_pc: "0x80000004",
    },
];

/// From the line after `g`'s call of `f`: into `f`'s last line, out of `f` and then `g`
/// backwards to their calls, over a call backwards, and one instruction back over a call.
#[test]
fn reverse_motions_through_nested_calls_on_every_isa() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    for c in &NESTED {
        let dir = Scratch::new();
        let prog = dir.write(c.file, c.source);
        let stub = Stub::start(&prog, c.args);
        let file = c.file;
        let out = stub.gdb_helpers(
            dir.path(),
            &format!(
                "break {file}:{after_f}\ncontinue\ndelete\nreverse-step\nbt\nreverse-finish\n\
                 reverse-next\nreverse-finish\np/x $pc\nnext\nreverse-next\nnext\n\
                 reverse-nexti\np/x $pc",
                after_f = c.after_f
            ),
        );
        let line = |n: u32| format!("\n{n}\t");
        assert_in_order(
            &out,
            &[
                &format!("Breakpoint 1, {} () at ", c.g),
                &line(c.after_f),
                // Into f's last line, called from g, called from main.
                &format!("{} () at ", c.f),
                &line(c.f_ret),
                &format!("#0  {} () at ", c.f),
                &format!(" in {} () at ", c.g),
                &format!(" in {} () at ", c.main),
                // Out of f backwards: on g's call of it.
                &format!("Run back to call of #0  {} () at ", c.f),
                &format!("{} () at ", c.g),
                &line(c.call_f),
                // Back over nothing: the line before.
                &line(c.before_f),
                // Out of g backwards: main's call of it.
                &format!("Run back to call of #0  {} () at ", c.g),
                &format!("{} () at ", c.main),
                &line(c.call_g),
                &format!("$1 = {}", c.call_g_pc),
                // Over g (and f) forwards, back over them.
                &line(c.after_g),
                &line(c.call_g),
                &line(c.after_g),
                // One instruction back from the line after the call, over g and f: the call.
                &line(c.call_g),
                &format!("$2 = {}", c.call_g_pc),
            ],
        );
        assert!(
            !out.contains("asmdbg: gdb has not loaded"),
            "{}: {out}",
            c.name
        );
    }
}

/// The issue's case on MIPS, and gdb's own commands without the script: gdb's console says
/// the script is missing (reverse-stepi and reverse-continue are right either way).
#[test]
fn mips_reverse_next_over_a_call_that_calls_lands_on_the_call() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let c = &NESTED[1];
    let dir = Scratch::new();
    let prog = dir.write(c.file, c.source);
    let stub = Stub::start(&prog, c.args);
    let script = "break nest.asm:4\ncontinue\nreverse-next\np/x $pc\np $s0";
    let out = stub.gdb_helpers(dir.path(), script);
    assert_in_order(
        &out,
        &[
            "Breakpoint 1, main () at ",
            "\n3\t\tjal g",
            "$1 = 0x400004",
            "$2 = 1",
        ],
    );
    // Without the script: gdb's own reverse-next, and the hint on its console, once.
    let out = stub.gdb(&format!("{script}\nreverse-stepi"));
    assert_eq!(
        out.matches("asmdbg: gdb has not loaded the helper script")
            .count(),
        1,
        "{out}"
    );
    assert!(out.contains("add-auto-load-safe-path"), "{out}");
}

/// A recursive function: out of the middle call backwards is its caller's call of it (the
/// entry of the deeper call, run later, is passed), with the frames of then.
#[test]
fn reverse_finish_in_recursion_goes_to_this_frames_call() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let dir = Scratch::new();
    let prog = dir.write(
        "rec.asm",
        "\t.text
main:\tli $a0, 3
\tjal r
\tli $v0, 10
\tsyscall
r:\taddi $sp, $sp, -8
\tsw $ra, 4($sp)
\tsw $a0, 0($sp)
\tblez $a0, r_done
\taddi $a0, $a0, -1
\tjal r
r_done:\tlw $a0, 0($sp)
\tlw $ra, 4($sp)
\taddi $sp, $sp, 8
\tjr $ra
",
    );
    let stub = Stub::start(&prog, &[]);
    // r_done is reached first by the deepest call (a0 = 0), then by the one with a0 = 1.
    let out = stub.gdb_helpers(
        dir.path(),
        "break rec.asm:12\ncontinue\ncontinue\nnext\np $a0\nbt\ndelete\nreverse-finish\np $a0\n\
         bt\nreverse-finish\np $a0\nbt",
    );
    assert_in_order(
        &out,
        &[
            "Breakpoint 1, r () at ",
            "Breakpoint 1, r () at ",
            "$1 = 1",
            "#3  ",
            " in main () at ",
            // Before the call of the frame with a0 = 1: the frame with a0 = 2, at its call.
            "Run back to call of #0  r () at ",
            "\n11\t\tjal r",
            "$2 = 1",
            "#2  ",
            " in main () at ",
            // Out of that one: the frame with a0 = 3.
            "Run back to call of #0  r () at ",
            "\n11\t\tjal r",
            "$3 = 2",
            "#1  ",
            " in main () at ",
        ],
    );
    let last_bt = out.rsplit("$3 = 2").next().unwrap_or("");
    assert!(!last_bt.contains("#2  "), "{out}");
}

/// Four in a Row's `jal check_win`: reverse-next over it lands on it, not at instruction 0.
#[test]
fn four_in_a_row_reverse_next_over_check_win() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = Scratch::new();
    let game =
        std::fs::read_to_string(root.join("programs/mips/four_in_a_row.asm")).expect("the game");
    let prog = dir.write("four_in_a_row.asm", &game);
    let input = root.join("tests/programs/mips/01_horizontal_win.in");
    let stub = Stub::start_stdio(&prog, &[], &input);
    let out = stub.gdb_helpers(
        dir.path(),
        "break four_in_a_row.asm:193\ncontinue\ncontinue\nreverse-next\nmonitor when\n\
         reverse-next\nstep\nstep\nreverse-finish",
    );
    assert_in_order(
        &out,
        &[
            "Breakpoint 1, main () at ",
            "Breakpoint 1, main () at ",
            "\n192\t\tjal check_win",
            "\n191\t",
            "\n192\t\tjal check_win",
            "check_win () at ",
            "Run back to call of #0  check_win () at ",
            "main () at ",
            "\n192\t\tjal check_win",
        ],
    );
    let count: u64 = out
        .lines()
        .find_map(|l| l.trim().strip_prefix("instruction "))
        .and_then(|n| n.trim().parse().ok())
        .expect("monitor when");
    assert!(count > 1000, "{out}");
}
