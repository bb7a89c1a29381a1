//! Per-instruction tests: the word each instruction assembles to, and what it does to registers,
//! flags, memory and the PC.

mod common;

use asmdbg_core::{Machine, MachineOptions};
use asmdbg_simplerisc::{assemble, AsmOptions, Slot};
use common::{reg, run_ok};

/// The word `line` assembles to (as the only instruction of a program with one label `lab`
/// on the instruction itself).
fn word(line: &str) -> u32 {
    let src = format!("lab: {line}\n");
    let program = match assemble("w.asm", &src, AsmOptions::default()) {
        Ok(p) => p,
        Err(e) => panic!("{line}: {e}"),
    };
    match program.slots.first() {
        Some(Slot::Word(w)) => *w,
        other => panic!("{line}: {other:?}"),
    }
}

#[test]
fn encodings_of_every_instruction() {
    let cases: &[(&str, u32)] = &[
        ("add r1, r2, r3", 0x0048c000),
        ("add r1, r2, -5", 0x0448fffb),
        ("addu r1, r2, 0xFFFF", 0x0449ffff),
        ("addh r15, sp, 0x135", 0x07fa0135),
        ("sub r1, r2, r3", 0x0848c000),
        ("sub r4, r4, 1", 0x0d100001),
        ("mul r1, r2, r3", 0x1048c000),
        ("mul r1, r2, 10", 0x1448000a),
        ("div r1, r2, r3", 0x1848c000),
        ("div r1, r2, 2", 0x1c480002),
        ("mod r1, r2, r3", 0x2048c000),
        ("mod r1, r2, 2", 0x24480002),
        ("cmp r3, r4", 0x280d0000),
        ("cmp r3, 7", 0x2c0c0007),
        ("cmpu r3, 0xffff", 0x2c0dffff),
        ("and r1, r2, r3", 0x3048c000),
        ("and r4, r1, 15", 0x3504000f),
        ("or r1, r2, r3", 0x3848c000),
        ("orh r1, r1, 0x8000", 0x3c468000),
        ("not r5, r6", 0x41418000),
        ("not r5, 0", 0x45400000),
        ("mov r5, r6", 0x49418000),
        ("mov r5, 100", 0x4d400064),
        ("movh r5, 0x1234", 0x4d421234),
        ("movu r5, 0xFFFF", 0x4d41ffff),
        ("lsl r1, r1, 2", 0x54440002),
        ("lsl r1, r2, r3", 0x5048c000),
        ("lsr r3, r1, 28", 0x5cc4001c),
        ("asr r1, r1, 3", 0x64440003),
        ("nop", 0x68000000),
        ("ld r1, 4[r2]", 0x74480004),
        ("ld r0, [sp]", 0x74380000),
        ("st r1, -8[sp]", 0x7c78fff8),
        ("st ra, 4[sp]", 0x7ff80004),
        ("beq lab", 0x80000000),
        ("bgt lab", 0x88000000),
        ("b lab", 0x90000000),
        ("call lab", 0x98000000),
        ("ret", 0xa0000000),
        ("hlt", 0xb0000000),
        ("halt", 0xb0000000),
    ];
    for &(line, expected) in cases {
        assert_eq!(word(line), expected, "{line}: got {:#010x}", word(line));
    }
}

#[test]
fn add_sub_wrap_and_use_modifiers() {
    let m = run_ok(
        "mov r1, 7\n\
         add r2, r1, r1\n\
         add r3, r1, -10\n\
         sub r4, r1, 10\n\
         sub r5, r1, r2\n\
         movh r6, 0x7fff\n\
         addu r6, r6, 0xffff\n\
         add r7, r6, 1\n\
         addh r8, r0, 0x1\n\
         addu r9, r0, 0x8000\n\
         add r10, r0, 0x8000\n",
    );
    assert_eq!(reg(&m, 2), 14);
    assert_eq!(reg(&m, 3) as i32, -3);
    assert_eq!(reg(&m, 4) as i32, -3);
    assert_eq!(reg(&m, 5) as i32, -7);
    assert_eq!(reg(&m, 6), 0x7fff_ffff);
    assert_eq!(reg(&m, 7), 0x8000_0000, "wraps");
    assert_eq!(reg(&m, 8), 0x10000);
    assert_eq!(reg(&m, 9), 0x8000);
    assert_eq!(
        reg(&m, 10),
        0xffff_8000,
        "default modifier sign-extends hex too"
    );
}

#[test]
fn mul_div_mod_follow_c() {
    let m = run_ok(
        "mov r1, -7\n\
         mov r2, 2\n\
         mul r3, r1, r2\n\
         div r4, r1, r2\n\
         mod r5, r1, r2\n\
         div r6, r1, -1\n\
         mod r7, r1, 3\n\
         movh r8, 0x8000\n\
         div r9, r8, -1\n\
         mod r10, r8, -1\n\
         movh r11, 0x1\n\
         mul r12, r11, r11\n",
    );
    assert_eq!(reg(&m, 3) as i32, -14);
    assert_eq!(reg(&m, 4) as i32, -3, "C truncates toward zero");
    assert_eq!(reg(&m, 5) as i32, -1, "C remainder has the dividend's sign");
    assert_eq!(reg(&m, 6) as i32, 7);
    assert_eq!(reg(&m, 7) as i32, -1);
    assert_eq!(
        reg(&m, 9),
        0x8000_0000,
        "INT_MIN / -1 wraps instead of trapping"
    );
    assert_eq!(reg(&m, 10), 0);
    assert_eq!(reg(&m, 12), 0, "low 32 bits of 2^32");
}

fn flags(m: &asmdbg_simplerisc::SrMachine) -> u64 {
    m.read_register(17).expect("flags")
}

#[test]
fn cmp_sets_e_and_gt_signed() {
    let m = run_ok("mov r1, 5\ncmp r1, 5\n");
    assert_eq!(flags(&m), 1, "E");
    let m = run_ok("mov r1, 5\ncmp r1, 4\n");
    assert_eq!(flags(&m), 2, "GT");
    let m = run_ok("mov r1, 5\ncmp r1, 6\n");
    assert_eq!(flags(&m), 0, "less: both clear");
    let m = run_ok("mov r1, -1\nmov r2, 1\ncmp r1, r2\n");
    assert_eq!(flags(&m), 0, "signed compare: -1 < 1");
    let m = run_ok("mov r1, -1\ncmpu r1, 0xffff\n");
    assert_eq!(flags(&m), 0, "cmpu zero-extends: -1 < 65535");
    let m = run_ok("mov r1, -1\ncmp r1, 0xffff\n");
    assert_eq!(flags(&m), 1, "cmp sign-extends 0xffff to -1");
}

#[test]
fn only_cmp_writes_flags() {
    let m = run_ok("mov r1, 1\ncmp r1, 1\nadd r2, r1, r1\nsub r3, r1, r1\nmov r4, 0\n");
    assert_eq!(flags(&m), 1);
}

#[test]
fn logic_and_moves() {
    let m = run_ok(
        "mov r1, 0x0ff0\n\
         and r2, r1, 0x00ff\n\
         or r3, r1, 0xf000\n\
         not r4, r1\n\
         not r5, 0\n\
         mov r6, r1\n\
         movu r7, 0xffff\n\
         movh r8, 0xffff\n\
         mov r9, 0xffff\n\
         and r10, r1, r7\n\
         or r11, r0, r1\n",
    );
    assert_eq!(reg(&m, 2), 0x00f0);
    assert_eq!(reg(&m, 3), 0xffff_fff0, "0xf000 is sign-extended");
    assert_eq!(reg(&m, 4), !0x0ff0);
    assert_eq!(reg(&m, 5), u32::MAX);
    assert_eq!(reg(&m, 6), 0x0ff0);
    assert_eq!(reg(&m, 7), 65535);
    assert_eq!(reg(&m, 8) as i32, -65536);
    assert_eq!(reg(&m, 9) as i32, -1);
    assert_eq!(reg(&m, 10), 0x0ff0);
    assert_eq!(reg(&m, 11), 0x0ff0);
}

#[test]
fn shifts() {
    let m = run_ok(
        "mov r1, -1\n\
         lsr r3, r1, 28\n\
         asr r4, r1, 28\n\
         mov r2, 3\n\
         lsl r5, r2, 4\n\
         lsl r6, r2, r2\n\
         movh r7, 0x8000\n\
         asr r8, r7, 4\n\
         lsr r9, r7, 4\n\
         mov r10, 33\n\
         lsl r11, r2, r10\n\
         lsl r12, r2, 0\n",
    );
    assert_eq!(reg(&m, 3), 15);
    assert_eq!(reg(&m, 4) as i32, -1);
    assert_eq!(reg(&m, 5), 48);
    assert_eq!(reg(&m, 6), 24);
    assert_eq!(reg(&m, 8), 0xf800_0000);
    assert_eq!(reg(&m, 9), 0x0800_0000);
    assert_eq!(
        reg(&m, 11),
        6,
        "amounts >= 32 use the low 5 bits, as C on x86"
    );
    assert_eq!(reg(&m, 12), 3);
}

#[test]
fn load_store_words_little_endian() {
    let mut m = run_ok(
        "movu r1, 0x5678\n\
         addh r1, r1, 0x1234\n\
         mov r2, 100\n\
         st r1, 4[r2]\n\
         ld r3, 4[r2]\n\
         st r1, [sp]\n\
         ld r4, 0[sp]\n\
         st r2, -8[sp]\n\
         ld r5, -8[sp]\n\
         ld r6, 0x68[r0]\n",
    );
    assert_eq!(reg(&m, 3), 0x1234_5678);
    assert_eq!(reg(&m, 4), 0x1234_5678);
    assert_eq!(reg(&m, 5), 100);
    assert_eq!(reg(&m, 6), 0x1234_5678);
    assert_eq!(m.debug_read(104).unwrap(), 0x78);
    assert_eq!(m.debug_read(107).unwrap(), 0x12);
    assert_eq!(m.peek_word(4084).unwrap(), 100);
    assert_eq!(m.peek_word(4092).unwrap(), 0x1234_5678);
    m.poke_word(8, 0xdead_beef).unwrap();
    assert_eq!(m.debug_read(8).unwrap(), 0xef);
}

#[test]
fn branches_follow_flags() {
    let m = run_ok(
        "mov r1, 0\n\
         mov r2, 0\n\
         cmp r1, 0\n\
         beq .eq\n\
         mov r2, 99\n\
         .eq: bgt .bad\n\
         add r2, r2, 1\n\
         mov r3, 5\n\
         cmp r3, 1\n\
         bgt .gt\n\
         mov r2, 99\n\
         .gt: b .end\n\
         .bad: mov r2, 77\n\
         .end:\n",
    );
    assert_eq!(reg(&m, 2), 1);
}

#[test]
fn call_saves_byte_address_and_ret_returns() {
    let m = run_ok(
        "b .main\n\
         .f: add r1, r1, 10\n\
         mov r2, ra\n\
         ret\n\
         .main: mov r1, 1\n\
         call .f\n\
         add r1, r1, 100\n",
    );
    assert_eq!(reg(&m, 1), 111);
    assert_eq!(reg(&m, 2), 24, "ra = 4 * (index of call + 1) = 4 * 6");
    assert_eq!(reg(&m, 15), 24);
}

#[test]
fn nested_calls_with_stack() {
    let m = run_ok(
        "b .main\n\
         .inner: add r1, r1, 1\n\
         ret\n\
         .outer: sub sp, sp, 4\n\
         st ra, [sp]\n\
         call .inner\n\
         call .inner\n\
         ld ra, [sp]\n\
         add sp, sp, 4\n\
         ret\n\
         .main: call .outer\n\
         call .outer\n",
    );
    assert_eq!(reg(&m, 1), 4);
    assert_eq!(reg(&m, 14), 4092);
}

#[test]
fn hlt_ends_the_program_and_stays() {
    let mut m = common::load("mov r1, 1\nhlt\nmov r1, 2\n");
    let (stop, _) = common::run(&mut m);
    assert_eq!(stop, asmdbg_core::StopEvent::Halted);
    assert_eq!(reg(&m, 1), 1);
    assert_eq!(m.pc(), 4);
    assert_eq!(m.instructions_executed(), 2);
    assert_eq!(m.run(10).stop, Some(asmdbg_core::StopEvent::Halted));
    assert_eq!(reg(&m, 1), 1);
}

#[test]
fn nop_only_advances_the_pc() {
    let mut m = common::load("nop\nnop\n");
    let before: Vec<u64> = (0..16).map(|r| m.read_register(r).unwrap()).collect();
    assert_eq!(m.step(), None);
    assert_eq!(m.pc(), 4);
    let after: Vec<u64> = (0..16).map(|r| m.read_register(r).unwrap()).collect();
    assert_eq!(before, after);
}

#[test]
fn initial_state_is_the_interpreters() {
    let m = common::load("nop\n");
    assert_eq!(reg(&m, 14), 4092);
    for r in (0..14).chain([15]) {
        assert_eq!(reg(&m, r), 0, "r{r}");
    }
    let opts = MachineOptions {
        mem_size: Some(65536),
        ..MachineOptions::default()
    };
    let m = common::load_with("nop\n", &opts);
    assert_eq!(reg(&m, 14), 65532);
}
