//! The command line as scripts use it: exit statuses, stdout holding guest output only,
//! diagnostics on stderr, object files, autograder pokes and peeks.

mod support;

use support::{run_asmdbg, Scratch};

const HELLO_LC3: &str = "\
        .ORIG x3000
        LEA R0, MSG
        PUTS
        GETC
        OUT
        HALT
MSG     .STRINGZ \"key: \"
        .END
";

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn run_prints_guest_output_only_and_exits_zero() {
    let dir = Scratch::new();
    let prog = dir.write("hello.asm", HELLO_LC3);
    let input = dir.write("in.txt", "Q");
    let out = run_asmdbg(
        &[
            "run",
            prog.to_str().unwrap(),
            "--input",
            input.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "key: Q\n----- Halting the processor ----- \n"
    );
    assert_eq!(text(&out.stderr), "");
}

#[test]
fn input_comes_from_stdin_without_input_file() {
    let dir = Scratch::new();
    let prog = dir.write("hello.asm", HELLO_LC3);
    let out = run_asmdbg(&["run", prog.to_str().unwrap()], b"z");
    assert_eq!(out.status.code(), Some(0));
    assert!(
        text(&out.stdout).starts_with("key: z"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn waiting_for_input_with_none_left_exits_3_naming_the_pc() {
    let dir = Scratch::new();
    let prog = dir.write("hello.asm", HELLO_LC3);
    let out = run_asmdbg(&["run", prog.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(text(&out.stdout), "key: ");
    let err = text(&out.stderr);
    assert!(err.contains("waits for input at PC x"), "{err}");
}

#[test]
fn waiting_for_input_inside_the_os_names_the_programs_trap_line_in_every_profile() {
    // GETC on line 4 waits in the OS; the student's line is what the message must name.
    let dir = Scratch::new();
    let prog = dir.write("hello.asm", HELLO_LC3);
    let path = prog.to_str().expect("utf-8 path");
    for (profile, os_pc) in [
        ("patt", "x0251"),
        ("lc3sim", "x0251"),
        ("lc3tools", "x0300"),
    ] {
        let out = run_asmdbg(&["run", "--profile", profile, path], b"");
        assert_eq!(out.status.code(), Some(3), "{profile}");
        let err = text(&out.stderr);
        let expected = format!(
            "the program waits for input at PC {os_pc} (the OS's GETC, called at x3002, {path}:4) and none is left"
        );
        assert!(err.contains(&expected), "{profile}: {err}");
    }
    // A program polling the keyboard itself is named by its own line.
    let poll = dir.write(
        "poll.asm",
        "        .ORIG x3000\nWAIT    LDI R0, KBSR\n        BRzp WAIT\n        HALT\nKBSR    .FILL xFE00\n        .END\n",
    );
    let out = run_asmdbg(&["run", poll.to_str().expect("utf-8 path")], b"");
    assert_eq!(out.status.code(), Some(3));
    let err = text(&out.stderr);
    assert!(
        err.contains("poll.asm:2)") || err.contains("poll.asm:3)"),
        "{err}"
    );
    assert!(!err.contains("the OS's"), "{err}");
}

#[test]
fn step_limit_exits_4() {
    let dir = Scratch::new();
    let prog = dir.write("spin.asm", "\t.ORIG x3000\nSPIN\tBRnzp SPIN\n\t.END\n");
    let out = run_asmdbg(&["run", prog.to_str().unwrap(), "--max-steps", "1000"], b"");
    assert_eq!(out.status.code(), Some(4));
    let err = text(&out.stderr);
    assert!(
        err.contains("step limit of 1000 instructions reached at PC x3000"),
        "{err}"
    );
    assert!(err.contains("spin.asm:2"), "{err}");
}

#[test]
fn assembly_errors_exit_2_with_every_error_and_a_caret() {
    let dir = Scratch::new();
    let prog = dir.write(
        "bad.asm",
        "\t.ORIG x3000\n\tADD R1, R1, #16\n\tBR NOWHERE\n\t.END\n",
    );
    let out = run_asmdbg(&["run", prog.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = text(&out.stderr);
    assert!(
        err.contains("bad.asm:2:14: error: cannot encode as 5-bit"),
        "{err}"
    );
    assert!(
        err.contains("\tADD R1, R1, #16\n\t            ^~~"),
        "{err}"
    );
    assert!(
        err.contains("bad.asm:3:5: error: could not find label"),
        "{err}"
    );
}

#[test]
fn usage_errors_exit_2() {
    let dir = Scratch::new();
    let missing = dir.path().join("missing.asm");
    let out = run_asmdbg(&["run", missing.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("missing.asm"),
        "{}",
        text(&out.stderr)
    );

    let out = run_asmdbg(&["run", "x.asm", "--isa", "z80"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("unknown ISA 'z80'"));

    let out = run_asmdbg(&["frobnicate"], b"");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn an_ambiguous_file_names_the_isa_flag() {
    let dir = Scratch::new();
    let prog = dir.write("both.asm", ".ORIG x3000\n.text\n");
    let out = run_asmdbg(&["run", prog.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("--isa"), "{err}");
    assert!(err.contains("lc3 or mips"), "{err}");
}

#[test]
fn stats_go_to_stderr() {
    let dir = Scratch::new();
    let prog = dir.write("hello.asm", HELLO_LC3);
    let out = run_asmdbg(&["run", prog.to_str().unwrap(), "--stats"], b"k");
    assert_eq!(out.status.code(), Some(0));
    let err = text(&out.stderr);
    assert!(err.starts_with("stats: "), "{err}");
    assert!(err.contains(" instructions in "), "{err}");
    assert!(err.contains("M instructions/s"), "{err}");
    assert!(!text(&out.stdout).contains("stats"));
    // The startup, in parts that add up: reading, assembling and loading, and the ELF that
    // `asmdbg debug` writes.
    let startup = err
        .lines()
        .find(|l| l.starts_with("startup: "))
        .unwrap_or_else(|| panic!("no startup line: {err}"));
    let numbers: Vec<f64> = startup
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .filter_map(|t| t.parse().ok())
        .collect();
    assert_eq!(numbers.len(), 4, "{startup}");
    let parts: f64 = numbers[1..].iter().sum();
    assert!((numbers[0] - parts).abs() < 0.3, "{startup}");
    assert!(numbers[3] > 0.0, "the ELF was built: {startup}");
}

#[test]
fn asm_writes_classic_obj_and_sym_that_run_again() {
    let dir = Scratch::new();
    let prog = dir.write(
        "tiny.asm",
        "\t.ORIG x3000\nLOOP\tADD R1, R1, #1\n\tHALT\n\t.END\n",
    );
    let obj = dir.path().join("tiny.obj");
    let out = run_asmdbg(
        &["asm", prog.to_str().unwrap(), "-o", obj.to_str().unwrap()],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        std::fs::read(&obj).unwrap(),
        [0x30, 0x00, 0x12, 0x61, 0xf0, 0x25]
    );
    let sym = std::fs::read_to_string(dir.path().join("tiny.sym")).unwrap();
    assert!(sym.contains("//\tLOOP              3000"), "{sym}");
    let out = run_asmdbg(&["run", obj.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), "\n----- Halting the processor ----- \n");
}

#[test]
fn poke_and_peek_work_by_address_and_label() {
    let dir = Scratch::new();
    // Adds the two words at x3010 and stores the sum at RESULT.
    let prog = dir.write(
        "add.asm",
        "\t.ORIG x3000\n\tLD R1, A\n\tLD R2, B\n\tADD R3, R1, R2\n\tST R3, RESULT\n\tHALT\nA\t.FILL 0\nB\t.FILL 0\nRESULT\t.FILL 0\n\t.END\n",
    );
    let out = run_asmdbg(
        &[
            "run",
            prog.to_str().unwrap(),
            "--profile",
            "lc3tools",
            "--poke",
            "A=20,-50",
            "--peek",
            "RESULT",
            "--peek",
            "x3005:2",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).ends_with("-30\n20\n-50\n"),
        "{}",
        text(&out.stdout)
    );

    let out = run_asmdbg(&["run", prog.to_str().unwrap(), "--poke", "NOPE=1"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("'NOPE' is neither a number nor a label"));
}

#[test]
fn simplerisc_autograder_interface() {
    let dir = Scratch::new();
    let prog = dir.write(
        "sum.asm",
        ".main:\n\tld r1, 0[r0]\n\tld r2, 4[r0]\n\tadd r3, r1, r2\n\tst r3, 8[r0]\n",
    );
    let values = dir.write("values.txt", "7\n  35\n");
    let out = run_asmdbg(
        &[
            "run",
            prog.to_str().unwrap(),
            "--poke-file",
            &format!("0={}", values.display()),
            "--peek",
            "0:3",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "7\n35\n42\n");
}

#[test]
fn mips_exit_code_and_runtime_error() {
    let dir = Scratch::new();
    let prog = dir.write(
        "exit.asm",
        ".text\nmain:\tli $v0, 1\n\tli $a0, 42\n\tsyscall\n\tli $v0, 17\n\tli $a0, 7\n\tsyscall\n",
    );
    let out = run_asmdbg(&["run", prog.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(7));
    assert_eq!(text(&out.stdout), "42");
    // `Mars nc me` prints an empty line on stderr after every run (mars/MarsLaunch.java).
    assert_eq!(text(&out.stderr), "\n");
}

/// `asmdbg run` of a MIPS program gives MARS's `nc me` stderr byte for byte, derived from
/// mars/MarsLaunch.java: the error report (`Error in FILE line N: Runtime exception at PC: MSG`)
/// and an empty line, `Processing terminated due to errors.`, then the empty line every run
/// ends with; a normal end and `exit` (syscall 10) print that empty line only; MARS's step
/// limit says so on its own line between two empty ones.
#[test]
fn mips_stderr_is_mars_stderr_byte_for_byte() {
    let dir = Scratch::new();
    let prog = dir.write(
        "overflow.asm",
        ".text\nmain:\tli $t0, 0x7fffffff\n\taddi $t0, $t0, 1\n",
    );
    let out = run_asmdbg(&["run", prog.to_str().unwrap()], b"");
    // MARS ends with status 0 after a runtime error and says why on stderr.
    assert_eq!(out.status.code(), Some(0));
    let path = std::fs::canonicalize(&prog).unwrap();
    assert_eq!(
        text(&out.stderr),
        format!(
            "Error in {} line 3: Runtime exception at 0x00400008: arithmetic overflow\n\n\
             Processing terminated due to errors.\n\n",
            path.display()
        )
    );
    assert_eq!(text(&out.stdout), "");

    let cases = [
        // Falling off the end of .text.
        ("fall.asm", ".text\nli $v0, 1\nli $a0, 5\nsyscall\n", "5"),
        // exit (syscall 10).
        (
            "exit10.asm",
            ".text\nli $v0, 11\nli $a0, 65\nsyscall\nli $v0, 10\nsyscall\n",
            "A",
        ),
    ];
    for (name, source, stdout) in cases {
        let prog = dir.write(name, source);
        let out = run_asmdbg(&["run", prog.to_str().unwrap()], b"");
        assert_eq!(out.status.code(), Some(0), "{name}");
        assert_eq!(text(&out.stdout), stdout, "{name}");
        assert_eq!(text(&out.stderr), "\n", "{name}");
    }

    let prog = dir.write("loop.asm", ".text\nloop: addi $t0, $t0, 1\nj loop\n");
    let out = run_asmdbg(&["run", prog.to_str().unwrap(), "--max-steps", "7"], b"");
    assert_eq!(out.status.code(), Some(4));
    assert_eq!(
        text(&out.stderr),
        "\nProgram terminated when maximum step limit 7 reached.\n\n"
    );

    // Output the guest writes to fd 2 comes first, in program order.
    let prog = dir.write(
        "err.asm",
        ".data\nm: .asciiz \"oops\\n\"\n.text\nli $v0, 15\nli $a0, 2\nla $a1, m\nli $a2, 5\nsyscall\nbreak 7\n",
    );
    let out = run_asmdbg(&["run", prog.to_str().unwrap()], b"");
    let path = std::fs::canonicalize(&prog).unwrap();
    assert_eq!(
        text(&out.stderr),
        format!(
            "oops\nError in {} line 9: Runtime exception at 0x00400018: \
             break instruction executed; code = 7.\n\nProcessing terminated due to errors.\n\n",
            path.display()
        )
    );
}

/// MARS prints its assembler warnings on stderr before the run (mars/MarsLaunch.java, the
/// report format of mars/ErrorList.java), then an empty line.
/// `asm --profile pennsim` takes PennSim's instructions (a course's lc3os.asm has JMPT) and
/// writes the .obj PennSim's own `as` writes; without the profile JMPT is no instruction.
#[test]
fn asm_for_pennsim_takes_its_instructions() {
    let dir = Scratch::new();
    let prog = dir.write(
        "os.asm",
        "\t.ORIG x0200\n\tJMPT R7\n\tRTT\n\tSUB R1, R2, R3\n",
    );
    let out = run_asmdbg(
        &["asm", "--profile", "pennsim", prog.to_str().unwrap()],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        std::fs::read(dir.path().join("os.obj")).unwrap(),
        [0x02, 0x00, 0xc1, 0xc1, 0xc1, 0xc1, 0x12, 0x93]
    );
    let out = run_asmdbg(&["asm", prog.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("unknown instruction 'JMPT'"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn mips_assembler_warnings_come_first_as_mars_prints_them() {
    let dir = Scratch::new();
    let prog = dir.write("w.asm", ".text\n.ent main\nli $v0, 1\nli $a0, 5\nsyscall\n");
    let out = run_asmdbg(&["run", prog.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), "5");
    let path = std::fs::canonicalize(&prog).unwrap();
    assert_eq!(
        text(&out.stderr),
        format!(
            "Warning in {} line 2 column 1: MARS does not recognize the .ent directive.  \
             Ignored.\n\n\n",
            path.display()
        )
    );
}

/// `--stats` is asmdbg's own flag: its line comes after everything MARS would print.
#[test]
fn mips_stats_come_after_mars_stderr() {
    let dir = Scratch::new();
    let prog = dir.write("fall.asm", ".text\nli $v0, 1\nli $a0, 5\nsyscall\n");
    let out = run_asmdbg(&["run", prog.to_str().unwrap(), "--stats"], b"");
    let err = text(&out.stderr);
    assert!(err.starts_with("\nstats: 3 instructions in "), "{err:?}");
}

#[test]
fn mips_writes_to_fd_2_reach_stderr_not_stdout() {
    let dir = Scratch::new();
    let prog = dir.write(
        "err.asm",
        ".data\nm: .asciiz \"oops\\n\"\n.text\nli $v0, 15\nli $a0, 2\nla $a1, m\nli $a2, 5\nsyscall\nli $v0, 4\nla $a0, m\nsyscall\n",
    );
    let out = run_asmdbg(&["run", prog.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "oops\n");
    assert_eq!(text(&out.stderr), "oops\n\n");
}

#[test]
fn asm_writes_an_elf_for_every_isa() {
    let dir = Scratch::new();
    let cases = [
        (
            "lc3.asm",
            "\t.ORIG x3000\n\tHALT\n\t.END\n",
            Some("lc3.elf"),
            0u16,
        ),
        ("mips.asm", ".text\nmain: li $v0, 10\nsyscall\n", None, 8),
        ("sr.asm", ".main:\n\tmov r1, 1\n", None, 0),
    ];
    for (name, source, output, machine) in cases {
        let prog = dir.write(name, source);
        let mut args = vec!["asm".to_string(), prog.display().to_string()];
        if let Some(out) = output {
            args.push("-o".into());
            args.push(dir.path().join(out).display().to_string());
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = run_asmdbg(&args, b"");
        assert_eq!(out.status.code(), Some(0), "{name}: {}", text(&out.stderr));
        let elf = std::fs::read(prog.with_extension("elf")).expect("ELF written");
        assert_eq!(&elf[..4], b"\x7fELF", "{name}");
        assert_eq!(elf[4], 1, "{name}: ELF32");
        assert_eq!(elf[5], 1, "{name}: little endian");
        assert_eq!(
            u16::from_le_bytes([elf[18], elf[19]]),
            machine,
            "{name}: e_machine"
        );
    }
}

#[test]
fn flags_of_another_isa_are_usage_errors() {
    let dir = Scratch::new();
    let mips = dir.write("m.asm", ".text\nmain: li $v0, 10\nsyscall\n");
    let out = run_asmdbg(
        &["run", mips.to_str().unwrap(), "--profile", "lc3tools"],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "--profile (LC-3 only) does not apply to MIPS programs\n"
    );
    let lc3 = dir.write("l.asm", "\t.ORIG x3000\n\tHALT\n\t.END\n");
    let out = run_asmdbg(
        &["run", lc3.to_str().unwrap(), "--seed", "3", "--no-mul"],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr)
        .contains("--seed (MIPS only), --no-mul (SimpleRISC only) do not apply to LC-3 programs"));
    for args in [&["--args", "x"][..], &["--", "x"][..]] {
        let mut argv = vec!["run", lc3.to_str().unwrap()];
        argv.extend_from_slice(args);
        let out = run_asmdbg(&argv, b"");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(
            text(&out.stderr),
            "--args (MIPS only) does not apply to LC-3 programs\n",
            "{args:?}"
        );
    }
}

/// Prints argc, each argv string, then `$sp`, `$a1`, argv[0] in hex and the word at `$sp`.
const ARGS_MIPS: &str = "\
.text
main:	move $s0, $a0
	move $s1, $a1
	li $v0, 1
	syscall
	jal nl
	move $t0, $s1
loop:	lw $a0, 0($t0)
	beqz $a0, done
	li $v0, 4
	syscall
	jal nl
	addi $t0, $t0, 4
	j loop
done:	li $v0, 34
	move $a0, $sp
	syscall
	jal nl
	li $v0, 34
	move $a0, $s1
	syscall
	jal nl
	li $v0, 34
	lw $a0, 0($s1)
	syscall
	jal nl
	li $v0, 1
	lw $a0, 0($sp)
	syscall
	li $v0, 10
	syscall
nl:	li $v0, 11
	li $a0, 10
	syscall
	jr $ra
";

/// `--args` and `--` give the program MARS's `pa` arguments; the addresses are those
/// mars/simulator/ProgramArgumentList.java computes (strings down from 0x7ffffffc, argv
/// pointers under the NUL word at 0x7fffeffc, argc at `$sp`).
#[test]
fn mips_program_arguments_reach_argc_and_argv() {
    let dir = Scratch::new();
    let prog = dir.write("args.asm", ARGS_MIPS);
    let prog = prog.to_str().unwrap();
    let out = run_asmdbg(&["run", prog, "--args", "one", "two", "thr ee"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "3\none\ntwo\nthr ee\n0x7fffefec\n0x7fffeff0\n0x7ffffff9\n3"
    );
    assert_eq!(text(&out.stderr), "\n");

    // After `--`, arguments may start with `-`; `--args` ones come first.
    let out = run_asmdbg(&["run", prog, "--args", "a", "--", "-x", "é"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "3\na\n-x\né\n0x7fffefec\n0x7fffeff0\n0x7ffffffb\n3"
    );
}

#[test]
fn errors_with_a_cause_are_printed_once() {
    let dir = Scratch::new();
    let missing = dir.path().join("nope.asm");
    let out = run_asmdbg(&["run", missing.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(err.matches("No such file").count(), 1, "{err}");
}

#[test]
fn a_dollar_sign_in_an_lc3_string_is_not_mips() {
    let dir = Scratch::new();
    let prog = dir.write(
        "prize.asm",
        "\t.ORIG x3000\n\tLEA R0, MSG\n\tPUTS\n\tHALT\nMSG\t.STRINGZ \"You won $100\"\n\t.END\n",
    );
    let out = run_asmdbg(&["run", prog.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("You won $100"));
}

#[test]
fn an_elf_is_refused_with_a_clear_message() {
    let dir = Scratch::new();
    let prog = dir.write("tiny.asm", "\t.ORIG x3000\n\tHALT\n\t.END\n");
    let elf = dir.path().join("tiny.elf");
    let out = run_asmdbg(
        &["asm", prog.to_str().unwrap(), "-o", elf.to_str().unwrap()],
        b"",
    );
    assert_eq!(out.status.code(), Some(0));
    let out = run_asmdbg(&["run", elf.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("is an ELF file"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn peeks_and_pokes_are_checked_before_the_run() {
    let dir = Scratch::new();
    let prog = dir.write("sr.asm", ".main:\n\tmov r1, 1\n");
    let out = run_asmdbg(&["run", prog.to_str().unwrap(), "--peek", "4096"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("4096: address 0x1000 is not mapped"),
        "{}",
        text(&out.stderr)
    );
    let out = run_asmdbg(
        &["run", prog.to_str().unwrap(), "--poke", "0=99999999999"],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("does not fit in a 32-bit word"),
        "{}",
        text(&out.stderr)
    );
    let lc3 = dir.write("l.asm", "\t.ORIG x3000\n\tHALT\nV\t.FILL 0\n\t.END\n");
    let out = run_asmdbg(&["run", lc3.to_str().unwrap(), "--poke", "V=65536"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("does not fit in a 16-bit word (-32768..65535)"));
    let out = run_asmdbg(
        &[
            "run",
            lc3.to_str().unwrap(),
            "--poke",
            "V=65535",
            "--peek",
            "V",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).ends_with("-1\n"));
}

#[test]
fn an_lc3_program_may_check_the_keyboard_once() {
    let dir = Scratch::new();
    let prog = dir.write(
        "check.asm",
        "\t.ORIG x3000\n\tLDI R0, KBSRP\n\tBRn GOT\n\tLEA R0, NO\n\tPUTS\n\tHALT\nGOT\tLEA R0, YES\n\tPUTS\n\tHALT\nKBSRP\t.FILL xFE00\nNO\t.STRINGZ \"no key\"\nYES\t.STRINGZ \"key\"\n\t.END\n",
    );
    // (patt: user programs may read the device registers; lc3tools would raise ACV.)
    let out = run_asmdbg(&["run", prog.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).starts_with("no key"),
        "{}",
        text(&out.stdout)
    );
    let input = dir.write("k.txt", "k");
    let out = run_asmdbg(
        &[
            "run",
            prog.to_str().unwrap(),
            "--input",
            input.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).starts_with("key"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn debug_warns_when_listening_beyond_loopback_and_defaults_to_loopback() {
    use std::io::{BufRead, BufReader};
    let dir = Scratch::new();
    let prog = dir.write("t.asm", "\t.ORIG x3000\n\tHALT\n\t.END\n");
    let read_lines = |extra: &[&str]| {
        let mut child = support::asmdbg()
            .args([
                "debug",
                prog.to_str().unwrap(),
                "--console",
                "stdio",
                "--once",
            ])
            .args(extra)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn");
        let stderr = child.stderr.take().expect("stderr");
        let mut lines = Vec::new();
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let done = line.starts_with("console: ");
            lines.push(line);
            if done {
                break;
            }
        }
        let _ = child.kill();
        let _ = child.wait();
        lines
    };
    let lines = read_lines(&["--gdb", "0.0.0.0:0"]);
    assert!(
        lines[0].starts_with("gdb: listening on 0.0.0.0:"),
        "{lines:?}"
    );
    assert!(
        lines[1].starts_with("warning: 0.0.0.0:") && lines[1].contains("anyone who can reach it"),
        "{lines:?}"
    );
    assert_eq!(lines[2], "console: stdio");
    // The default address is loopback (port 0 here only to avoid clashes).
    let lines = read_lines(&["--gdb", ":0"]);
    assert!(
        lines[0].starts_with("gdb: listening on 127.0.0.1:"),
        "{lines:?}"
    );
    assert_eq!(lines.len(), 2, "no warning on loopback: {lines:?}");
}

#[test]
fn files_that_are_not_assembly_say_so_instead_of_asking_for_an_isa() {
    let dir = Scratch::new();
    let readme = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let out = run_asmdbg(&["run", readme.to_str().expect("utf-8 path")], b"");
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("README.md: not an assembly program (only ")
            && err.contains(
                "lines are instructions, directives or labels of lc3, mips, simplerisc; line "
            ),
        "{err}"
    );
    assert!(!err.contains("could be"), "{err}");

    let empty = dir.write("empty.asm", "");
    let out = run_asmdbg(&["run", empty.to_str().expect("utf-8 path")], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("empty.asm: not an assembly program (the file is empty)"),
        "{}",
        text(&out.stderr)
    );

    // A file named .obj with bytes no text holds is an LC-3 object file; a broken one says
    // what is wrong with it. Named otherwise, it is no text file.
    let bytes = [0x7fu8, 0, 1, 2, 0xff, b'\n', 0];
    let object = dir.path().join("game.obj");
    std::fs::write(&object, bytes).expect("write");
    let out = run_asmdbg(&["run", object.to_str().expect("utf-8 path")], b"");
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("game.obj: object file has an odd length"),
        "{err}"
    );
    let binary = dir.path().join("game.bin");
    std::fs::write(&binary, bytes).expect("write");
    let out = run_asmdbg(&["run", binary.to_str().expect("utf-8 path")], b"");
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("game.bin:1:1: not a text file (byte 0x7f is no character of assembly text); an LC-3 object file must be named .obj"),
        "{err}"
    );

    // Assembly whose dialect cannot be told still asks for --isa.
    let unknown = dir.write("plain.asm", "start:\n\tadd r1, r2, r3\n\tb start\n");
    let out = run_asmdbg(&["run", unknown.to_str().expect("utf-8 path")], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr)
            .contains("cannot tell which ISA this file is written for; name it with --isa"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn simplerisc_dead_code_with_a_typo_runs_to_its_end_with_warnings() {
    let dir = Scratch::new();
    let prog = dir.write(
        "dead.asm",
        ".main:\n\tmov r1, 7\n\tb .done\n\tbeq .exit4\n.done:\n\t.print r1\n",
    );
    let path = prog.to_str().expect("utf-8 path");
    let out = run_asmdbg(&["run", path], b"");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "r1 : 7\n");
    assert!(
        text(&out.stderr).contains(&format!(
            "{path}:4:6: warning: The label does not exist: no label `.exit4` is defined (the course interpreter reports this only if the line runs)"
        )),
        "{}",
        text(&out.stderr)
    );
    let out = run_asmdbg(&["run", "--strict", path], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("error: The label does not exist"));
}

/// Windows editors start UTF-8 files with a byte order mark: every assembler takes it, through
/// the command line and through its library (what the DAP session and the web page call).
#[test]
fn every_assembler_takes_a_utf8_byte_order_mark() {
    let bom = "\u{feff}";
    let lc3 = asmdbg_lc3::asm::assemble_str(
        "b.asm",
        &format!("{bom}.ORIG x3000\nHALT\n.END\n"),
        &Default::default(),
    );
    assert!(lc3.is_ok(), "{:?}", lc3.err());
    let mips = asmdbg_mips::asm::assemble(
        &asmdbg_core::SourceFile::new("b.asm", format!("{bom}main: li $v0, 10\nsyscall\n")),
        &Default::default(),
    );
    assert!(mips.is_ok(), "{:?}", mips.err());
    let sr = asmdbg_simplerisc::assemble(
        "b.asm",
        &format!("{bom}mov r1, 5\nhlt\n"),
        Default::default(),
    );
    assert!(sr.is_ok(), "{:?}", sr.err());
    let dir = Scratch::new();
    let file = dir.write(
        "b.asm",
        &format!("{bom}.ORIG x3000\nLEA R0, HI\nPUTS\nHALT\nHI .STRINGZ \"hi\"\n.END\n"),
    );
    let out = run_asmdbg(&["run", &file.display().to_string()], b"");
    assert!(text(&out.stdout).starts_with("hi"), "{}", text(&out.stderr));
}

/// A file that is not text says what it is, and `--files` confines `.include` to the program's
/// folder as it confines the program's own files.
#[test]
fn binary_and_utf16_files_say_what_they_are_and_files_confines_includes() {
    let dir = Scratch::new();
    let binary = dir.path().join("game.asm");
    std::fs::write(&binary, [0x30, 0x00, 0xF0, 0x25, 0x01, 0x02]).expect("write");
    let out = run_asmdbg(&["run", &binary.display().to_string()], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("game.asm:1:2: not a text file (byte 0x00 is no character of assembly text); an LC-3 object file must be named .obj"),
        "{}",
        text(&out.stderr)
    );
    let utf16: Vec<u8> = "\u{feff}.ORIG x3000\nHALT\n.END\n"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    let wide = dir.path().join("wide.asm");
    std::fs::write(&wide, utf16).expect("write");
    let out = run_asmdbg(&["run", &wide.display().to_string()], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("wide.asm is UTF-16 text"),
        "{}",
        text(&out.stderr)
    );
    let main = dir.write(
        "prog/main.asm",
        ".include \"../secret.asm\"\nli $v0, 10\nsyscall\n",
    );
    dir.write("secret.asm", "li $t0, 1\n");
    let files = dir.path().join("prog");
    let out = run_asmdbg(
        &[
            "run",
            &main.display().to_string(),
            "--files",
            &files.display().to_string(),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("Error reading include file ../secret.asm"),
        "{}",
        text(&out.stderr)
    );
    let out = run_asmdbg(&["run", &main.display().to_string()], b"");
    assert_eq!(
        out.status.code(),
        Some(0),
        "without --files: {}",
        text(&out.stderr)
    );
}
