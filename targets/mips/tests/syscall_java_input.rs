//! The read syscalls as MARS 4.5 performs them on the command line: each reads one line with
//! Java's `BufferedReader.readLine` (a line ends at `\n`, `\r\n` or a lone `\r`), then read int
//! (5) is `new Integer(line.trim())`, read float (6) `new Float(line.trim())` and read double
//! (7) `new Double(line.trim())`; a `NumberFormatException` becomes the runtime error
//! `invalid integer|float|double input (syscall N)` (mars/util/SystemIO.java and the syscall
//! classes). The expected outputs below are derived from those Java rules, not recorded from a
//! MARS run.

use asmdbg_core::{Machine, MachineOptions, StopEvent};
use asmdbg_mips::{load_machine, MipsMachine};

/// Reads `count` integers, printing each followed by a space.
const READ_INTS: &str = "
    li $s0, 0
loop:
    li $v0, 5
    syscall
    move $a0, $v0
    li $v0, 1
    syscall
    li $a0, 32
    li $v0, 11
    syscall
    addi $s0, $s0, 1
    blt $s0, $s1, loop
";

fn machine(src: &str) -> MipsMachine {
    load_machine("in.asm", src, &MachineOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs `src` with `input` queued and closed: the stop and the output.
fn run(src: &str, input: &str) -> (Option<StopEvent>, String) {
    let mut m = machine(src);
    m.console().push_input(input.as_bytes());
    m.console().close_input();
    let stop = m.run(1_000_000).stop;
    let out = String::from_utf8(m.console().take_output()).unwrap_or_else(|e| panic!("{e}"));
    (stop, out)
}

fn read_ints(count: u32, input: &str) -> (Option<StopEvent>, String) {
    run(&format!("li $s1, {count}\n{READ_INTS}"), input)
}

fn fault_text(stop: Option<StopEvent>) -> String {
    match stop {
        Some(StopEvent::Fault(f)) => f.message,
        other => panic!("expected a fault, got {other:?}"),
    }
}

#[test]
fn read_int_takes_unicode_digits_and_a_plus_sign() {
    // Integer.parseInt reads every digit Character.digit(c, 10) knows: full-width, Arabic-Indic,
    // Devanagari, Extended Arabic-Indic, mixed in one number too; String.trim removes only
    // chars <= U+0020 (tab, CR, NUL, ...).
    let input = "\u{FF11}\u{FF12}\n+7\n \t-\u{0663}\u{0664} \n\u{0968}\u{0966}\u{0968}\u{096C}\n\
                 \u{06F9}\u{0669}9\n\x002147483647\x01\n-2147483648\n+0\n";
    let (stop, out) = read_ints(8, input);
    assert_eq!(stop, Some(StopEvent::Exited(0)), "{out}");
    assert_eq!(out, "12 7 -34 2026 999 2147483647 -2147483648 0 ");
}

#[test]
fn read_int_rejects_what_integer_parse_int_rejects() {
    for bad in [
        "2147483648",
        "-2147483649",
        "0x10",
        "1 2",
        "+",
        "-",
        "++1",
        "",
        "1.0",
        "\u{00A0}12", // NO-BREAK SPACE is above U+0020: trim keeps it
        "\u{1D7CF}",  // MATHEMATICAL BOLD DIGIT ONE: outside the BMP, two surrogates to Java
        "\u{00B2}",   // SUPERSCRIPT TWO: a number, but not a decimal digit (No, not Nd)
        "\u{FF11}\u{FF12}a",
    ] {
        let (stop, out) = read_ints(1, &format!("{bad}\n"));
        let text = fault_text(stop);
        assert!(
            text.contains("Runtime exception at 0x0040000c: invalid integer input (syscall 5)"),
            "{bad:?}: {text}"
        );
        assert_eq!(out, "", "{bad:?}");
    }
}

/// Reads `floats` floats then `doubles` doubles, printing each (syscalls 2 and 3) and a space.
fn read_reals(floats: u32, doubles: u32, input: &str) -> (Option<StopEvent>, String) {
    let src = format!(
        "
        li $s0, 0
        li $s1, {floats}
    floats:
        bge $s0, $s1, doubles_start
        li $v0, 6
        syscall
        mov.s $f12, $f0
        li $v0, 2
        syscall
        li $a0, 32
        li $v0, 11
        syscall
        addi $s0, $s0, 1
        b floats
    doubles_start:
        li $s0, 0
        li $s1, {doubles}
    doubles:
        bge $s0, $s1, end
        li $v0, 7
        syscall
        mov.d $f12, $f0
        li $v0, 3
        syscall
        li $a0, 32
        li $v0, 11
        syscall
        addi $s0, $s0, 1
        b doubles
    end:
        "
    );
    run(&src, input)
}

#[test]
fn read_double_follows_double_parse_double() {
    // FloatingDecimal.readJavaFormatString: trim, a sign, NaN, Infinity, decimal digits with an
    // exponent, hex digits with a mandatory binary exponent, one trailing f/F/d/D.
    let input = "0x1.8p1\n  0X.8P-2 \n-Infinity\n+NaN\n1e3d\n2.5F\n.5\n7.\n-0x10p-4\n\
                 0x1p-10\n1e400\n";
    let (stop, out) = read_reals(0, 11, input);
    assert_eq!(stop, Some(StopEvent::Exited(0)), "{out}");
    assert_eq!(
        out,
        "3.0 0.125 -Infinity NaN 1000.0 2.5 0.5 7.0 -1.0 9.765625E-4 Infinity "
    );
}

#[test]
fn read_float_rounds_hex_literals_once() {
    // 0x1.000001000000001p0 is 1 + 2^-24 + 2^-60, just above the midpoint between the floats 1
    // and 1 + 2^-23: Float.parseFloat rounds it up (1.0000001). Rounding to a double first
    // would land exactly on the midpoint and then go to even, 1.0.
    let input = "0x1.000001000000001p0\n0x1.000001p0\n0x1p-3f\n0x1.fffffep127\n3.4028236e38\n";
    let (stop, out) = read_reals(5, 0, input);
    assert_eq!(stop, Some(StopEvent::Exited(0)), "{out}");
    assert_eq!(out, "1.0000001 1.0 0.125 3.4028235E38 Infinity ");
}

#[test]
fn read_float_and_double_reject_what_java_rejects() {
    for (bad, number) in [
        ("0x1.8", 6),
        ("inf", 6),
        ("Infinityf", 6),
        ("1e", 6),
        ("1.2.3", 6),
        ("\u{FF11}", 6),
        ("0x.p1", 7),
        ("nan", 7),
        ("1ff", 7),
        ("", 7),
    ] {
        let (floats, doubles) = if number == 6 { (1, 0) } else { (0, 1) };
        let (stop, _) = read_reals(floats, doubles, &format!("{bad}\n"));
        let text = fault_text(stop);
        let kind = if number == 6 { "float" } else { "double" };
        assert!(
            text.contains(&format!("invalid {kind} input (syscall {number})")),
            "{bad:?}: {text}"
        );
    }
}

#[test]
fn every_line_reading_syscall_ends_lines_at_a_lone_cr() {
    // BufferedReader.readLine: "\r", "\n" and "\r\n" each end one line.
    let src = "
        .data
        buf: .space 16
        .text
        li $v0, 5
        syscall
        move $a0, $v0
        li $v0, 1
        syscall
        li $v0, 8
        la $a0, buf
        li $a1, 16
        syscall
        li $v0, 4
        syscall
        li $v0, 12
        syscall
        move $a0, $v0
        li $v0, 11
        syscall
        li $v0, 6
        syscall
        mov.s $f12, $f0
        li $v0, 2
        syscall
        li $v0, 7
        syscall
        mov.d $f12, $f0
        li $v0, 3
        syscall
        li $v0, 8
        la $a0, buf
        li $a1, 16
        syscall
        li $v0, 4
        syscall
    ";
    let (stop, out) = run(src, "42\rab c\r\nz\r1.5\r0x1p1\r\rrest");
    assert_eq!(stop, Some(StopEvent::Exited(0)), "{out}");
    // Read string stores the line plus the newline MARS adds; the empty line between the two
    // CRs is an empty string (just that newline); "rest" ends with the input.
    assert_eq!(out, "42ab c\nz1.52.0\n");
}

#[test]
fn a_cr_that_arrives_last_ends_the_line_and_the_lf_after_it_is_no_empty_line() {
    // Typed or piped input arrives in pieces: "12\r" now, "\n34\n" later. Java's readLine
    // returns "12" at the CR and skips the LF that follows, so the second read gets 34.
    let mut m = machine(&format!("li $s1, 2\n{READ_INTS}"));
    m.console().push_input(b"12\r");
    assert_eq!(m.run(1_000_000).stop, Some(StopEvent::NeedInput));
    assert_eq!(m.console().take_output(), b"12 ");
    m.console().push_input(b"\n");
    assert_eq!(
        m.run(1_000_000).stop,
        Some(StopEvent::NeedInput),
        "the LF alone is the end of the line already read"
    );
    m.console().push_input(b"34\n");
    assert_eq!(m.run(1_000_000).stop, Some(StopEvent::Exited(0)));
    assert_eq!(m.console().take_output(), b"34 ");
}
