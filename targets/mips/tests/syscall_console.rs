//! MARS syscalls with scripted console input: printing, line-based reads, NeedInput, sbrk,
//! random streams, files, time, dialogs and the error texts.

use asmdbg_core::{Machine, MachineOptions, StopEvent};
use asmdbg_mips::machine::OUTPUT_PER_RUN;
use asmdbg_mips::random::JavaRandom;
use asmdbg_mips::{load_machine, MipsMachine};

/// Runs `src` with `input` queued and closed; returns the machine, its stop and its output.
fn run_io(
    src: &str,
    input: &str,
    opts: &MachineOptions,
) -> (MipsMachine, Option<StopEvent>, String) {
    let mut m = load_machine("io.asm", src, opts).unwrap_or_else(|e| panic!("{e}"));
    m.console().push_input(input.as_bytes());
    m.console().close_input();
    let stop = m.run(10_000_000).stop;
    let out = String::from_utf8(m.console().take_output()).unwrap_or_else(|e| panic!("{e}"));
    (m, stop, out)
}

fn run_plain(src: &str, input: &str) -> (Option<StopEvent>, String) {
    let (_, stop, out) = run_io(src, input, &MachineOptions::default());
    (stop, out)
}

fn fault_text(stop: Option<StopEvent>) -> String {
    match stop {
        Some(StopEvent::Fault(f)) => f.message,
        other => panic!("expected a fault, got {other:?}"),
    }
}

#[test]
fn prints_numbers_strings_and_latin1_chars() {
    let (stop, out) = run_plain(
        r#"
        .data
        s: .ascii "caf"
        .byte 0xe9, 32, 0
        .text
        li $a0, -42
        li $v0, 1
        syscall
        li $a0, 32
        li $v0, 11
        syscall
        la $a0, s
        li $v0, 4
        syscall
        li $a0, 0xe9
        li $v0, 11
        syscall
        li $a0, -1
        li $v0, 34
        syscall
        li $v0, 36
        syscall
        li $a0, 5
        li $v0, 35
        syscall
        li $v0, 10
        syscall
        "#,
        "",
    );
    assert_eq!(stop, Some(StopEvent::Exited(0)));
    assert_eq!(
        out,
        "-42 café é0xffffffff429496729500000000000000000000000000000101"
    );
}

#[test]
fn a_run_ends_early_once_a_flood_of_output_waits_to_be_taken() {
    // Fills 4 KiB with 'A', then prints it forever (4 instructions a round).
    let src = "
        .data
buf:    .space 4100
        .text
main:   la $t0, buf
        li $t1, 4096
        li $t2, 65
fill:   sb $t2, 0($t0)
        addi $t0, $t0, 1
        addi $t1, $t1, -1
        bgtz $t1, fill
loop:   li $v0, 4
        la $a0, buf
        syscall
        j loop
";
    let mut m = load_machine("flood.asm", src, &MachineOptions::default()).unwrap();
    for _ in 0..3 {
        let outcome = m.run(10_000_000);
        assert_eq!(outcome.stop, None);
        assert!(outcome.executed > 0 && outcome.executed < 10_000_000);
        let out = m.console().take_output();
        assert!(out.len() >= OUTPUT_PER_RUN, "{}", out.len());
        assert!(out.len() < OUTPUT_PER_RUN + 4096, "{}", out.len());
    }
}

#[test]
fn prints_floats_like_java() {
    let (_, out) = run_plain(
        "
        .data
        f: .float 1.0e-5, 100.0
        d: .double 123456789.125
        .text
        l.s $f12, f
        li $v0, 2
        syscall
        li $a0, ' '
        li $v0, 11
        syscall
        l.s $f12, f+4
        li $v0, 2
        syscall
        li $v0, 11
        syscall
        l.d $f12, d
        li $v0, 3
        syscall
        ",
        "",
    );
    assert_eq!(out, "1.0E-5 100.0 1.23456789125E8");
}

#[test]
fn reads_lines_for_int_string_and_char() {
    let (m, stop, out) = run_io(
        "
        .data
        buf: .space 16
        .text
        li $v0, 5
        syscall
        move $s0, $v0
        li $v0, 8
        la $a0, buf
        li $a1, 16
        syscall
        li $v0, 4
        syscall
        li $v0, 12
        syscall
        move $s1, $v0
        li $v0, 8
        la $a0, buf
        li $a1, 4
        syscall
        li $v0, 4
        syscall
        ",
        "  -17 \nhello\nxyz\nabcdef\n",
        &MachineOptions::default(),
    );
    assert_eq!(stop, Some(StopEvent::Exited(0)));
    assert_eq!(m.read_register(16), Some((-17i32) as u32 as u64));
    assert_eq!(
        m.read_register(17),
        Some('x' as u64),
        "12 takes the line's first char"
    );
    // "hello\n" fits with its newline; "abc" fills n-1 bytes so no newline is added.
    assert_eq!(out, "hello\nabc");
}

#[test]
fn bad_input_is_a_runtime_error() {
    let src = "li $v0, 5\nsyscall\n";
    let text = fault_text(run_plain(src, "12a\n").0);
    assert!(
        text.contains("Runtime exception at 0x00400004: invalid integer input (syscall 5)"),
        "{text}"
    );
    let text = fault_text(run_plain("li $v0, 12\nsyscall\n", "\n").0);
    assert!(text.contains("invalid char input (syscall 12)"), "{text}");
    let text = fault_text(run_plain("li $v0, 6\nsyscall\n", "x\n").0);
    assert!(text.contains("invalid float input (syscall 6)"), "{text}");
}

#[test]
fn need_input_stops_before_the_syscall_and_resumes() {
    let src = "li $v0, 5\nsyscall\nmove $a0, $v0\nli $v0, 1\nsyscall\n";
    let mut m =
        load_machine("io.asm", src, &MachineOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let first = m.run(100);
    assert_eq!(first.stop, Some(StopEvent::NeedInput));
    assert_eq!(first.executed, 1);
    assert_eq!(m.pc(), 0x0040_0004, "PC stays on the syscall");
    assert!(m.console().waiting());
    assert_eq!(m.read_register(2), Some(5), "nothing committed");
    // A partial line is not enough.
    m.console().push_input(b"4");
    assert_eq!(m.run(100).stop, Some(StopEvent::NeedInput));
    m.console().push_input(b"2\n");
    assert!(!m.console().waiting());
    assert_eq!(m.run(100).stop, Some(StopEvent::Exited(0)));
    assert_eq!(m.console().take_output(), b"42");
    assert_eq!(m.instructions_executed(), 5);
}

#[test]
fn closed_input_still_reports_need_input() {
    let (_, stop, _) = run_io(
        "li $v0, 8\nli $a1, 4\nsyscall\n",
        "",
        &MachineOptions::default(),
    );
    assert_eq!(stop, Some(StopEvent::NeedInput));
}

#[test]
fn sbrk_rounds_to_words_and_rejects_negative() {
    let (m, stop, _) = run_io(
        "li $a0, 5\nli $v0, 9\nsyscall\nmove $s0, $v0\nli $a0, 4\nli $v0, 9\nsyscall\nmove $s1, $v0\n",
        "",
        &MachineOptions::default(),
    );
    assert_eq!(stop, Some(StopEvent::Exited(0)));
    assert_eq!(m.read_register(16), Some(0x1004_0000));
    assert_eq!(m.read_register(17), Some(0x1004_0008));
    let text = fault_text(run_plain("li $a0, -4\nli $v0, 9\nsyscall\n", "").0);
    assert!(
        text.contains("request (-4) is negative heap amount (syscall 9)"),
        "{text}"
    );
}

#[test]
fn unknown_syscall_text_has_a_trailing_space() {
    let text = fault_text(run_plain("li $v0, 99\nsyscall\n", "").0);
    assert!(
        text.ends_with(
            "Runtime exception at 0x00400004: invalid or unimplemented syscall service: 99 \n\n\
             Processing terminated due to errors."
        ),
        "{text:?}"
    );
}

#[test]
fn java_random_matches_java_17() {
    // Values printed by OpenJDK 17 (java.util.Random).
    let mut r = JavaRandom::new(42);
    assert_eq!(
        [r.next_int(), r.next_int(), r.next_int()],
        [-1170105035, 234785527, -1360544799]
    );
    let mut r = JavaRandom::new(-7);
    let bounded: Vec<i32> = [10, 16, 1_000_000_007, 1, 7, 1 << 30]
        .iter()
        .map(|&b| r.next_int_bounded(b).unwrap_or(-1))
        .collect();
    assert_eq!(bounded, [2, 14, 445645583, 0, 0, 157223543]);
    let mut r = JavaRandom::new(123_456_789);
    assert_eq!(r.next_float().to_bits(), 1059716710);
    assert_eq!(r.next_double().to_bits(), 4605050562988725846);
    assert_eq!(JavaRandom::new(1).next_int_bounded(0), None);
}

#[test]
fn random_syscalls_use_seeded_streams() {
    let src = "
        li $a0, 1
        li $a1, 5
        li $v0, 40
        syscall
        li $s0, 5
    loop: li $a0, 1
        li $a1, 100
        li $v0, 42
        syscall
        li $v0, 1
        syscall
        li $a0, ','
        li $v0, 11
        syscall
        addi $s0, $s0, -1
        bgtz $s0, loop
        li $a0, 9
        li $v0, 41
        syscall
        li $v0, 1
        syscall
    ";
    let opts = MachineOptions {
        seed: Some(42),
        ..Default::default()
    };
    let (_, stop, out) = run_io(src, "", &opts);
    assert_eq!(stop, Some(StopEvent::Exited(0)));
    // Stream 1: new Random(5).nextInt(100) x5; stream 9 unseeded: as if new Random(42).
    assert_eq!(out, "87,92,74,24,6,-1170105035");
    let text = fault_text(run_plain("li $a0, 0\nli $a1, -3\nli $v0, 42\nsyscall\n", "").0);
    assert!(
        text.contains("Upper bound of range cannot be negative (syscall 42)"),
        "{text}"
    );
}

#[test]
fn files_are_written_and_read_relative_to_work_dir() {
    let dir = std::env::temp_dir().join(format!("asmdbg-mips-files-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let src = r#"
        .data
        name: .asciiz "out.txt"
        text: .ascii "line one\n"
        buf: .space 32
        .text
        la $a0, name
        li $a1, 1
        li $v0, 13
        syscall
        move $s0, $v0
        move $a0, $s0
        la $a1, text
        li $a2, 9
        li $v0, 15
        syscall
        move $s1, $v0
        move $a0, $s0
        li $v0, 16
        syscall
        la $a0, name
        li $a1, 0
        li $v0, 13
        syscall
        move $s2, $v0
        move $a0, $s2
        la $a1, buf
        li $a2, 32
        li $v0, 14
        syscall
        move $s3, $v0
        move $a0, $s2
        la $a1, buf
        li $a2, 32
        li $v0, 14
        syscall
        move $s4, $v0
        li $a0, 1
        la $a1, buf
        move $a2, $s3
        li $v0, 15
        syscall
        li $a0, 7
        li $v0, 14
        syscall
        move $s5, $v0
    "#;
    let opts = MachineOptions {
        work_dir: Some(dir.clone()),
        ..Default::default()
    };
    let (m, stop, out) = run_io(src, "", &opts);
    assert_eq!(stop, Some(StopEvent::Exited(0)));
    assert_eq!(m.read_register(16), Some(3), "first file gets fd 3");
    assert_eq!(m.read_register(17), Some(9));
    assert_eq!(m.read_register(19), Some(9));
    assert_eq!(m.read_register(20), Some(0), "end of file reads 0");
    assert_eq!(m.read_register(21), Some(0xffff_ffff), "unopened fd");
    assert_eq!(out, "line one\n");
    let written = std::fs::read_to_string(dir.join("out.txt")).unwrap_or_default();
    assert_eq!(written, "line one\n");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn virtual_time_sleeps_instantly() {
    let src = "
        li $v0, 30
        syscall
        move $s0, $a0
        li $a0, 5000
        li $v0, 32
        syscall
        li $v0, 30
        syscall
        subu $s1, $a0, $s0
    ";
    let opts = MachineOptions {
        virtual_time: true,
        ..Default::default()
    };
    let started = std::time::Instant::now();
    let (m, stop, _) = run_io(src, "", &opts);
    assert_eq!(stop, Some(StopEvent::Exited(0)));
    assert_eq!(m.read_register(17), Some(5000));
    assert!(started.elapsed().as_secs() < 2);
}

#[test]
fn dialogs_render_as_text_on_console_or_stderr() {
    let src = r#"
        .data
        ask: .asciiz "Column?"
        say: .asciiz "You chose "
        .text
        la $a0, ask
        li $v0, 51
        syscall
        move $s0, $a0
        move $s1, $a1
        la $a0, say
        move $a1, $s0
        li $v0, 56
        syscall
    "#;
    let (m, stop, out) = run_io(src, "4\n", &MachineOptions::default());
    assert_eq!(stop, Some(StopEvent::Exited(0)));
    assert_eq!(out, "Column? 4\nYou chose 4\n");
    assert_eq!(m.read_register(17), Some(0), "status OK");
    let opts = MachineOptions {
        dialogs_to_stderr: true,
        ..Default::default()
    };
    let (mut m, _, out) = run_io(src, "x\n", &opts);
    assert_eq!(out, "");
    let err = String::from_utf8(m.take_stderr()).unwrap_or_default();
    assert!(err.starts_with("Column? x\nYou chose "), "{err}");
    assert_eq!(m.read_register(17), Some(0xffff_ffff), "unparsable answer");
}

#[test]
fn watched_buffer_stops_read_string_before_the_line_is_consumed() {
    use asmdbg_core::WatchKind;
    let src = ".data\nbuf: .space 8\n.text\nla $a0, buf\nli $a1, 8\nli $v0, 8\nsyscall\n";
    let mut m =
        load_machine("io.asm", src, &MachineOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    m.watchpoints().insert(0x1001_0002, 1, WatchKind::Write);
    m.console().push_input(b"abc\n");
    let out = m.run(100);
    assert_eq!(
        out.stop,
        Some(StopEvent::Watch {
            kind: WatchKind::Write,
            addr: 0x1001_0002
        })
    );
    assert_eq!(m.console().pending_input(), 4, "line still queued");
    assert_eq!(m.run(100).stop, Some(StopEvent::Exited(0)));
    assert_eq!(m.peek_word(0x1001_0000), Ok(u32::from_le_bytes(*b"abc\n")));
}

#[test]
fn a_watch_reported_before_waiting_for_input_is_not_reported_again() {
    use asmdbg_core::WatchKind;
    let src = ".data\nbuf: .space 8\n.text\nla $a0, buf\nli $a1, 8\nli $v0, 8\nsyscall\n";
    let mut m =
        load_machine("io.asm", src, &MachineOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    m.watchpoints().insert(0x1001_0000, 4, WatchKind::Write);
    assert!(matches!(m.run(100).stop, Some(StopEvent::Watch { .. })));
    assert_eq!(m.run(100).stop, Some(StopEvent::NeedInput));
    m.console().push_input(b"hi\n");
    assert_eq!(m.run(100).stop, Some(StopEvent::Exited(0)));
    assert_eq!(m.peek_word(0x1001_0000), Ok(u32::from_le_bytes(*b"hi\n\0")));
}

#[test]
fn fd_2_goes_to_the_host_stderr_not_the_console() {
    let src = r#"
        .data
        msg: .ascii "oops\n"
        .text
        li $a0, 2
        la $a1, msg
        li $a2, 5
        li $v0, 15
        syscall
        move $s0, $v0
    "#;
    let (mut m, stop, out) = run_io(src, "", &MachineOptions::default());
    assert_eq!(stop, Some(StopEvent::Exited(0)));
    assert_eq!(out, "");
    assert_eq!(m.read_register(16), Some(5));
    assert_eq!(m.take_host_stderr(), b"oops\n");
    assert!(m.take_host_stderr().is_empty(), "taken once");
}
