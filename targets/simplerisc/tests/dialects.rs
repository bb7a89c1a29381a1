//! Programs written in each dialect the course emulators accept run the same way, and errors
//! are reported the way students see them.

mod common;

use asmdbg_core::{Machine, MachineOptions, StopEvent};
use common::{errors, errors_with, load, load_with, reg, run, run_ok};

#[test]
fn print_formats_registers_like_the_interpreter() {
    let mut m = load(
        ".main:\n\tmov r0, 0\n\tmov r1, 120\n\tmov r2, -7\n\tmov r14, 1234\n\tmov r15, 3\n\
         \t.print r0, r1, r2, sp, ra\n",
    );
    let (stop, out) = run(&mut m);
    assert_eq!(stop, StopEvent::Halted);
    assert_eq!(out, "r0 : 0\nr1 : 120\nr2 : -7\nr14: 1234\nr15: 3\n");
}

#[test]
fn encode_prints_when_reached_and_does_not_execute() {
    let mut m = load(
        ".main:\n\tmov r1, 1\n\t.encode   add r1, r1, 5   @ not executed\n\t.print r1\n\
         \t.encode\tmov r5, 100\n",
    );
    let (_, out) = run(&mut m);
    assert_eq!(
        out,
        "add r1, r1, 5: 0x04440005\nr1 : 1\nmov r5, 100: 0x4d400064\n"
    );
    assert_eq!(reg(&m, 5), 0);
}

#[test]
fn labels_with_and_without_dots_alone_or_before_code() {
    let m = run_ok(
        "  start:\n\
         mov r1, 0\n\
         \t.again: add r1, r1, 1\n\
         cmp r1, 3\n\
         beq done\n\
         b .again\n\
         done: .finish:\n",
    );
    assert_eq!(reg(&m, 1), 3);
}

#[test]
fn comments_in_every_style() {
    let m = run_ok(
        "/* header\n   mov r1, 99\n*/\n\
         .main: // entry\n\
         \tmov r1, 1 @ one\n\
         \tadd r1, r1, /* two */ 2 // three\n\
         \t/* mov r1, 77 */ add r1, r1, 4\n\
         @ mov r1, 55\n\
         // mov r1, 66\n",
    );
    assert_eq!(reg(&m, 1), 7);
}

#[test]
fn hash_and_semicolon_are_not_comments() {
    let e = errors("mov r1, 1 # no\n");
    assert!(e.contains("t.asm:1:9"), "{e}");
    let e = errors("mov r1, 1 ; no\n");
    assert!(
        e.contains("t.asm:1:9: error: invalid instruction: `1 ; no`"),
        "{e}"
    );
}

#[test]
fn crlf_upper_case_and_tight_commas() {
    let m = run_ok(".main:\r\n\tMOV R1,5\r\n\tADDU R2,R1,0XFF\r\n\tmov r3,sp\r\n");
    assert_eq!(reg(&m, 1), 5);
    assert_eq!(reg(&m, 2), 260);
    assert_eq!(reg(&m, 3), 4092);
}

#[test]
fn hex_with_spaces_and_signs() {
    let m = run_ok("mov r1, 0x a25\nmov r2, 0x    4\t\t d  4\nmov r3, -0x10\nmov r4, +12\nmov r5, 0x0000000010\n");
    assert_eq!(reg(&m, 1), 0xa25);
    assert_eq!(reg(&m, 2), 0x4d4);
    assert_eq!(reg(&m, 3) as i32, -16);
    assert_eq!(reg(&m, 4), 12);
    assert_eq!(reg(&m, 5), 16);
}

#[test]
fn memory_operand_forms() {
    let m = run_ok(
        "mov r1, 11\nmov r2, 200\n\
         st r1, [sp]\nst r1, 4[r2]\nst r1, 0x8 [ r2 ]\nst r1, -4[sp]\n\
         ld r3, [ sp ]\nld r4, 0x4[r2]\nld r5, 8[r2]\nld r6, -0x4[sp]\n",
    );
    for r in 3..=6 {
        assert_eq!(reg(&m, r), 11, "r{r}");
    }
}

#[test]
fn error_report_has_file_line_column_and_caret() {
    let e = errors(".main:\n\tmov r1, 5\n\tadd r1, r1, 0x12345\n\tb .nope\n");
    assert_eq!(
        e,
        "t.asm:3:14: error: invalid instruction: immediate `0x12345` does not fit in 16 bits \
         (-32768..65535, or 0x0..0xFFFF); build larger constants with `movh` and `addu`\n\
         \tadd r1, r1, 0x12345\n\
         \t            ^~~~~~~\n\
         t.asm:4:4: error: The label does not exist: no label `.nope` is defined\n\
         \tb .nope\n\
         \t  ^~~~~\n\
         2 errors found; nothing was assembled\n"
    );
}

#[test]
fn no_mul_rejects_mul_div_mod_and_only_them() {
    let opts = MachineOptions {
        no_mul: true,
        ..MachineOptions::default()
    };
    let e = errors_with(
        "mul r1, r1, r1\nmulh r1, r1, 2\ndiv r1, r1, 3\nmod r2, r2, r2\n",
        &opts,
    );
    assert!(e.contains("4 errors found"), "{e}");
    assert!(
        e.contains("t.asm:2:1: error: `mulh` does not exist in this course variant"),
        "{e}"
    );
    assert!(e.contains("no mul, div or mod"), "{e}");
    let m = load_with("mov r1, 3\nlsl r1, r1, 2\nmul:\n", &opts);
    drop(m);
    // Without the option they assemble.
    let m = run_ok("mov r1, 6\nmul r1, r1, 7\n");
    assert_eq!(reg(&m, 1), 42);
}

#[test]
fn every_error_is_reported_not_just_the_first() {
    let e = errors("foo\nadd r1\nmov r20, 1\nb x\nld r1, 3[r2\n/* open\n");
    for line in 1..=6 {
        assert!(e.contains(&format!("t.asm:{line}:")), "line {line}:\n{e}");
    }
    assert!(e.contains("6 errors found"), "{e}");
}

/// The course interpreter checks a line only when it runs: dead code with a typo runs to the
/// end, with a warning for each such line.
#[test]
fn lines_that_do_not_assemble_are_warnings_and_fault_only_if_they_run() {
    let src = ".main:\n\tmov r1, 5\n\tcmp r1, 6\n\tbeq .exit4\n\tbgt .nope\n\tb .done\n\tadd r1, r1\n\tb .loop4\n.done:\n\t.print r1\n";
    let m = run_ok(src);
    assert_eq!(reg(&m, 1), 5);
    let warnings = m.start_of_run_stderr();
    for (line, col, text) in [
        (
            4,
            6,
            "The label does not exist: no label `.exit4` is defined",
        ),
        (
            5,
            6,
            "The label does not exist: no label `.nope` is defined",
        ),
        (7, 2, "invalid instruction: `add` takes a destination"),
        (
            8,
            4,
            "The label does not exist: no label `.loop4` is defined",
        ),
    ] {
        assert!(
            warnings.contains(&format!("t.asm:{line}:{col}: warning: {text}")),
            "{line}: {warnings}"
        );
    }
    assert_eq!(
        warnings
            .matches("(the course interpreter reports this only if the line runs)")
            .count(),
        4
    );
    assert!(
        warnings.contains("\tadd r1, r1\n\t^~~\n"),
        "a caret: {warnings}"
    );
}

#[test]
fn a_bad_line_that_runs_faults_with_the_interpreters_message() {
    let cases = [
        // A taken branch to no label, an unconditional one, a call.
        (
            ".main:\n\tcmp r1, 0\n\tbeq .gone\n",
            "The label does not exist !!! (t.asm line 3)",
        ),
        (
            ".main:\n\tmov r1, 1\n\tcmp r1, 0\n\tbgt .gone\n",
            "The label does not exist !!! (t.asm line 4)",
        ),
        (
            ".main:\n\tb .gone\n",
            "The label does not exist !!! (t.asm line 2)",
        ),
        (
            ".main:\n\tcall .gone\n",
            "The label does not exist !!! (t.asm line 2)",
        ),
        // Any other line that does not assemble.
        (
            ".main:\n\tnop\n\tadd r1, r1\n",
            "The instruction in line number 3 is INVALID. (t.asm line 3)",
        ),
        (
            ".main:\n\tmov r1, 0x12345\n",
            "The instruction in line number 2 is INVALID. (t.asm line 2)",
        ),
    ];
    for (src, message) in cases {
        let mut m = load(src);
        match run(&mut m).0 {
            StopEvent::Fault(fault) => {
                assert_eq!(fault.message, message, "{src}");
                assert_eq!(fault.kind, asmdbg_core::FaultKind::IllegalInstruction);
            }
            other => panic!("{src}: {other:?}"),
        }
    }
}

#[test]
fn strict_makes_them_errors_and_the_elf_still_builds_by_default() {
    let src = ".main:\n\tb .done\n\tb .loop4\n.done:\n\tnop\n";
    assert!(errors(src).contains("t.asm:3:4: error: The label does not exist"));
    let program =
        asmdbg_simplerisc::assemble("t.asm", src, asmdbg_simplerisc::AsmOptions::default())
            .expect("assembles with a warning");
    assert_eq!(program.warnings.items.len(), 1);
    assert!(asmdbg_simplerisc::elf::elf_from_program(&program).is_ok());
}

#[test]
fn a_block_comment_after_a_label_is_flagged_only_in_crlf_files() {
    let crlf = ".main:\r\n.loop: /* c */ nop\r\n";
    let m = load(crlf);
    assert!(
        m.start_of_run_stderr().contains(
            "t.asm:2:8: warning: the course interpreter rejects this line: a `/* */` comment after a label in a file with CRLF line ends"
        ),
        "{}",
        m.start_of_run_stderr()
    );
    assert!(errors(crlf).contains("t.asm:2:8: error: the course interpreter rejects this line"));
    let lf = ".main:\n.loop: /* c */ nop\n";
    assert_eq!(load(lf).start_of_run_stderr(), "");
}

/// The course interpreter reads a line's first colon as a label's, inside an `@` comment too:
/// the text after it is the line's instruction (the code before the comment is dropped), so
/// `mov r1, 5 @ note: here` faults on `here` when it runs, with the interpreter's message
/// (checked against the interpreter: see tests/reference/simplerisc/). Warned about; an error
/// under --strict.
#[test]
fn a_colon_in_a_comment_makes_a_label_and_the_rest_the_instruction() {
    let src = ".main:\n\tmov r1, 5 @ note: here\n\t.print r1\n";
    let mut m = load(src);
    assert!(
        m.start_of_run_stderr().contains(
            "t.asm:2:14: warning: the course interpreter reads `note:` in this comment as a \
             label and runs `here` as the line's instruction"
        ),
        "{}",
        m.start_of_run_stderr()
    );
    let (stop, out) = run(&mut m);
    let StopEvent::Fault(fault) = stop else {
        panic!("{stop:?}")
    };
    assert_eq!(out, "");
    assert_eq!(
        fault.message,
        "The instruction in line number 2 is INVALID. (t.asm line 2)"
    );
    assert!(errors(src).contains("t.asm:2:14: error: the course interpreter reads `note:`"));
    // A valid instruction after the colon runs instead of the code: r1 stays 0.
    let m = run_ok(".main:\n\tmov r1, 5 @ step: nop\n");
    assert_eq!(reg(&m, 1), 0);
    // The comment's word is a label, first found: here it is the `.main` execution starts at.
    let m = run_ok("\tmov r1, 7 @ before .main: mov r2, 3\n.main:\n\tmov r3, 4\n");
    assert_eq!((reg(&m, 1), reg(&m, 2), reg(&m, 3)), (0, 3, 4));
    assert!(m.start_of_run_stderr().contains(
        "t.asm:2:1: warning: the course interpreter already read `.main:` in the comment on line 1"
    ));
}

/// Comment lines, blank-space lines and a label's line with a comment are instruction slots
/// that do nothing in the course interpreter: return addresses count them. Where a program
/// reads `ra` as a number, --strict says so.
#[test]
fn comment_lines_are_empty_instruction_slots() {
    let src = "@ header\nsub: @ the routine\n\t.print ra\n\t\n\tret\n.main:\n\tcall sub\n";
    let mut m = load(src);
    assert_eq!(m.start_of_run_stderr(), "");
    let (stop, out) = run(&mut m);
    assert_eq!((stop, out.as_str()), (StopEvent::Halted, "r15: 24\n"));
    assert_eq!(m.instructions_executed(), 5);
    let (text, _) = m.disassemble(0).expect("slot 0");
    assert!(text.contains("comment line"), "{text}");
    let strict = MachineOptions {
        strict: true,
        ..MachineOptions::default()
    };
    let m = load_with(src, &strict);
    assert!(
        m.start_of_run_stderr().contains(
            "t.asm:3:2: warning: `ra` holds a code address, which counts the lines the course \
             interpreter takes for instructions without one (comment or blank lines, a label's \
             line with a comment: line 1, 2, 4)"
        ),
        "{}",
        m.start_of_run_stderr()
    );
}
