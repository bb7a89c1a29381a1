//! A whole program of the kind students write for MARS: `.include`d macros with parameters and
//! local labels, `.eqv` constants, console input, a seeded random stream, and a results file
//! written and read back, with its output checked byte for byte.

use std::path::PathBuf;

use asmdbg_core::{Machine, MachineOptions, StopEvent};
use asmdbg_mips::load_machine;
use asmdbg_mips::random::JavaRandom;

const MACROS: &str = r#"
.eqv PRINT_INT 1
.eqv PRINT_STR 4
.eqv READ_INT 5
.macro print_str(%label)
    la $a0, %label
    li $v0, PRINT_STR
    syscall
.end_macro
.macro print_reg(%reg)
    move $a0, %reg
    li $v0, PRINT_INT
    syscall
.end_macro
# Clamp %reg into 1..%max, using a local label per expansion.
.macro clamp(%reg, %max)
    bgtz %reg, positive
    li %reg, 1
positive:
    ble %reg, %max, done
    li %reg, %max
done:
.end_macro
"#;

const GAME: &str = r#"
.include "macros.asm"
.eqv STREAM 3
.eqv SIDES 6
.data
ask: .asciiz "Rounds? "
roll: .asciiz "roll "
colon: .asciiz ": "
nl: .asciiz "\n"
total: .asciiz "total "
fname: .asciiz "dice.txt"
buf: .space 64
.text
.globl main
main:
    print_str(ask)
    li $v0, READ_INT
    syscall
    move $s0, $v0
    clamp($s0, 5)
    li $a0, STREAM
    li $a1, 2024
    li $v0, 40
    syscall
    li $s1, 0          # round
    li $s2, 0          # total
    la $s3, buf
loop:
    beq $s1, $s0, finish
    addi $s1, $s1, 1
    li $a0, STREAM
    li $a1, SIDES
    li $v0, 42
    syscall
    addi $t0, $a0, 1
    add $s2, $s2, $t0
    addi $t1, $t0, '0'
    sb $t1, 0($s3)
    addi $s3, $s3, 1
    print_str(roll)
    print_reg($s1)
    print_str(colon)
    print_reg($t0)
    print_str(nl)
    j loop
finish:
    print_str(total)
    print_reg($s2)
    print_str(nl)
    # Write the rolls to a file, then read them back and echo them.
    la $a0, fname
    li $a1, 1
    li $v0, 13
    syscall
    move $s4, $v0
    move $a0, $s4
    la $a1, buf
    move $a2, $s0
    li $v0, 15
    syscall
    move $a0, $s4
    li $v0, 16
    syscall
    la $a0, fname
    li $a1, 0
    li $v0, 13
    syscall
    move $s4, $v0
    move $a0, $s4
    la $a1, buf+32
    li $a2, 32
    li $v0, 14
    syscall
    move $s5, $v0
    li $a0, 1
    la $a1, buf+32
    move $a2, $s5
    li $v0, 15
    syscall
    li $a0, 7
    li $v0, 17
    syscall
"#;

fn work_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("asmdbg-mips-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(dir.join("macros.asm"), MACROS).unwrap_or_else(|e| panic!("{e}"));
    dir
}

/// What the program must print for `rounds` (after clamping), from Java's sequence.
fn expected(rounds: usize) -> (String, String) {
    let mut random = JavaRandom::new(2024);
    let mut out = "Rounds? ".to_string();
    let mut digits = String::new();
    let mut total = 0;
    for round in 1..=rounds {
        let value = random.next_int_bounded(6).unwrap_or(0) + 1;
        total += value;
        digits.push_str(&value.to_string());
        out.push_str(&format!("roll {round}: {value}\n"));
    }
    out.push_str(&format!("total {total}\n{digits}"));
    (out, digits)
}

#[test]
fn dice_game_with_include_macros_random_and_files() {
    let dir = work_dir("dice");
    let opts = MachineOptions {
        work_dir: Some(dir.clone()),
        start_at_main: true,
        ..Default::default()
    };
    for (input, rounds) in [("4\n", 4), ("9\n", 5), ("-2\n", 1)] {
        let mut m = load_machine("dice.asm", GAME, &opts).unwrap_or_else(|e| panic!("{e}"));
        m.console().push_input(input.as_bytes());
        m.console().close_input();
        let stop = m.run(1_000_000).stop;
        assert_eq!(stop, Some(StopEvent::Exited(7)), "input {input:?}");
        let out = String::from_utf8(m.console().take_output()).unwrap_or_default();
        let (want, digits) = expected(rounds);
        assert_eq!(out, want, "input {input:?}");
        let file = std::fs::read_to_string(dir.join("dice.txt")).unwrap_or_default();
        assert_eq!(file, digits);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn dice_game_waits_for_input() {
    let dir = work_dir("dice-wait");
    let opts = MachineOptions {
        work_dir: Some(dir.clone()),
        ..Default::default()
    };
    let mut m = load_machine("dice.asm", GAME, &opts).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.run(1_000_000).stop, Some(StopEvent::NeedInput));
    assert_eq!(m.console().take_output(), b"Rounds? ");
    m.console().push_input(b"2\n");
    assert_eq!(m.run(1_000_000).stop, Some(StopEvent::Exited(7)));
    let out = String::from_utf8(m.console().take_output()).unwrap_or_default();
    assert!(out.starts_with("roll 1: "), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}
