//! The cpu on raw instruction words, per instruction group: results, condition codes, PC,
//! privilege and exceptions under each profile's semantics. No OS image is involved: trap and
//! exception tables are written by hand where a test needs them.

use asmdbg_core::{FaultKind, StopEvent};
use asmdbg_lc3::cpu::{Cpu, PSR_USER};
use asmdbg_lc3::os::{LC3SIM, LC3TOOLS, PATT};

const N: u16 = 4;
const Z: u16 = 2;
const P: u16 = 1;

mod common;
use common::cpu_at_x3000 as cpu_with;

fn steps(cpu: &mut Cpu, n: usize) {
    for i in 0..n {
        assert_eq!(cpu.step(), None, "instruction {i} at x{:04X}", cpu.pc);
    }
}

fn cc(cpu: &Cpu) -> u16 {
    cpu.psr() & 7
}

#[test]
fn add_immediate_and_register_set_cc() {
    // ADD R1,R1,#-1 ; ADD R2,R1,R1 ; ADD R3,R3,#0 ; ADD R4,R4,#15 ; ADD R5,R4,R2
    let mut cpu = cpu_with(
        PATT.semantics,
        0x0002,
        &[0x127F, 0x1441, 0x16E0, 0x192F, 0x1B02],
    );
    steps(&mut cpu, 1);
    assert_eq!((cpu.regs[1], cc(&cpu)), (0xFFFF, N));
    steps(&mut cpu, 1);
    assert_eq!((cpu.regs[2], cc(&cpu)), (0xFFFE, N));
    steps(&mut cpu, 1);
    assert_eq!((cpu.regs[3], cc(&cpu)), (0, Z));
    steps(&mut cpu, 1);
    assert_eq!((cpu.regs[4], cc(&cpu)), (15, P));
    steps(&mut cpu, 1);
    assert_eq!((cpu.regs[5], cc(&cpu)), (13, P));
    assert_eq!(cpu.pc, 0x3005);
    assert_eq!(cpu.instructions_executed(), 5);
}

#[test]
fn add_wraps_at_16_bits() {
    let mut cpu = cpu_with(PATT.semantics, 0x0002, &[0x1041]); // ADD R0,R1,R1
    cpu.regs[1] = 0x8000;
    steps(&mut cpu, 1);
    assert_eq!((cpu.regs[0], cc(&cpu)), (0, Z));
}

#[test]
fn and_and_not() {
    // AND R0,R1,R2 ; AND R3,R1,#-16 ; NOT R4,R1 ; AND R5,R5,#0
    let mut cpu = cpu_with(PATT.semantics, 0x0002, &[0x5042, 0x5670, 0x987F, 0x5B60]);
    cpu.regs[1] = 0x0F0F;
    cpu.regs[2] = 0x00FF;
    cpu.regs[5] = 0x1234;
    steps(&mut cpu, 1);
    assert_eq!((cpu.regs[0], cc(&cpu)), (0x000F, P));
    steps(&mut cpu, 1);
    assert_eq!((cpu.regs[3], cc(&cpu)), (0x0F00, P));
    steps(&mut cpu, 1);
    assert_eq!((cpu.regs[4], cc(&cpu)), (0xF0F0, N));
    steps(&mut cpu, 1);
    assert_eq!((cpu.regs[5], cc(&cpu)), (0, Z));
}

#[test]
fn branches_follow_nzp() {
    // For each CC, which of BRn/BRz/BRp/BRnzp/NOP (all +5) is taken.
    let cases = [
        (N, 0x0805, true),
        (N, 0x0405, false),
        (Z, 0x0405, true),
        (P, 0x0205, true),
    ];
    for (flags, word, taken) in cases {
        let mut cpu = cpu_with(PATT.semantics, flags, &[word]);
        steps(&mut cpu, 1);
        let expected = if taken { 0x3006 } else { 0x3001 };
        assert_eq!(cpu.pc, expected, "word x{word:04X} with cc {flags}");
        assert_eq!(cc(&cpu), flags, "branches leave the CC alone");
    }
    let mut cpu = cpu_with(PATT.semantics, P, &[0x0E05]);
    steps(&mut cpu, 1);
    assert_eq!(cpu.pc, 0x3006);
    let mut cpu = cpu_with(PATT.semantics, P, &[0x0005]); // nzp = 000: never taken
    steps(&mut cpu, 1);
    assert_eq!(cpu.pc, 0x3001);
    let mut cpu = cpu_with(PATT.semantics, Z, &[0x0DFF]); // BRnz #-1: to itself
    steps(&mut cpu, 3);
    assert_eq!(cpu.pc, 0x3000);
}

#[test]
fn jumps_and_subroutine_calls() {
    // JSR +3 (x3004) ; ... ; x3004: RET
    let mut cpu = cpu_with(PATT.semantics, Z, &[0x4803, 0, 0, 0, 0xC1C0]);
    steps(&mut cpu, 1);
    assert_eq!((cpu.pc, cpu.regs[7]), (0x3004, 0x3001));
    steps(&mut cpu, 1);
    assert_eq!(cpu.pc, 0x3001);
    // JMP R2
    let mut cpu = cpu_with(PATT.semantics, Z, &[0xC080]);
    cpu.regs[2] = 0x4000;
    steps(&mut cpu, 1);
    assert_eq!(cpu.pc, 0x4000);
    // JSRR R7 reads the base before writing the return address.
    let mut cpu = cpu_with(PATT.semantics, Z, &[0x41C0]);
    cpu.regs[7] = 0x5000;
    steps(&mut cpu, 1);
    assert_eq!((cpu.pc, cpu.regs[7]), (0x5000, 0x3001));
    // JSR backwards wraps below x0000 correctly.
    let mut cpu = cpu_with(PATT.semantics, Z, &[0x4FFE]); // JSR #-2
    steps(&mut cpu, 1);
    assert_eq!(cpu.pc, 0x2FFF);
}

#[test]
fn loads_set_cc_from_the_value() {
    // LD R0,+2 ; LDI R1,+2 ; LDR R2,R5,#-1 ; x3003: x8001 ; x3004: x3006 ; x3005: 0 ; x3006: 7
    let mut cpu = cpu_with(
        PATT.semantics,
        Z,
        &[0x2002, 0xA202, 0x657F, 0x8001, 0x3006, 0, 7],
    );
    cpu.regs[5] = 0x3006;
    steps(&mut cpu, 1);
    assert_eq!((cpu.regs[0], cc(&cpu)), (0x8001, N));
    steps(&mut cpu, 1);
    assert_eq!((cpu.regs[1], cc(&cpu)), (7, P));
    steps(&mut cpu, 1);
    assert_eq!((cpu.regs[2], cc(&cpu)), (0, Z));
}

#[test]
fn lea_sets_cc_only_in_the_2nd_edition() {
    // LEA R2,#-1 from CC = N: x3000
    for (semantics, expected) in [
        (PATT.semantics, P),
        (LC3SIM.semantics, P),
        (LC3TOOLS.semantics, N),
    ] {
        let mut cpu = cpu_with(semantics, PSR_USER | N, &[0xE5FF]);
        steps(&mut cpu, 1);
        assert_eq!(cpu.regs[2], 0x3000);
        assert_eq!(cc(&cpu), expected);
    }
}

#[test]
fn stores_write_memory_and_keep_cc() {
    // ST R0,+2 ; STI R1,+2 ; STR R2,R5,#2
    let mut cpu = cpu_with(PATT.semantics, Z, &[0x3002, 0xB202, 0x7542, 0, 0x4000]);
    cpu.regs[0] = 0xAAAA;
    cpu.regs[1] = 0xBBBB;
    cpu.regs[2] = 0xCCCC;
    cpu.regs[5] = 0x4010;
    steps(&mut cpu, 3);
    assert_eq!(cpu.mem()[0x3003], 0xAAAA);
    assert_eq!(cpu.mem()[0x4000], 0xBBBB);
    assert_eq!(cpu.mem()[0x4012], 0xCCCC);
    assert_eq!(cc(&cpu), Z);
}

#[test]
fn trap_2nd_edition_links_through_r7() {
    let mut cpu = cpu_with(PATT.semantics, PSR_USER | Z, &[0xF025]);
    cpu.mem_mut()[0x25] = 0x0400;
    cpu.regs[6] = 0x1234;
    steps(&mut cpu, 1);
    assert_eq!((cpu.pc, cpu.regs[7], cpu.regs[6]), (0x0400, 0x3001, 0x1234));
    assert!(cpu.is_user(), "2nd-edition TRAP does not change privilege");
}

#[test]
fn trap_3rd_edition_uses_the_supervisor_stack_and_rti_returns() {
    let mut cpu = cpu_with(LC3TOOLS.semantics, PSR_USER | P, &[0xF021, 0x1020]);
    cpu.mem_mut()[0x21] = 0x0400;
    cpu.mem_mut()[0x0400] = 0x8000; // RTI
    cpu.regs[6] = 0xBEEF;
    cpu.regs[7] = 0x7777;
    steps(&mut cpu, 1);
    assert_eq!(cpu.pc, 0x0400);
    assert!(!cpu.is_user());
    assert_eq!(cpu.regs[7], 0x7777, "R7 untouched");
    assert_eq!(cpu.regs[6], 0x2FFE);
    assert_eq!(cpu.saved_usp, 0xBEEF);
    assert_eq!(cpu.mem()[0x2FFE], 0x3001, "return PC on top");
    assert_eq!(cpu.mem()[0x2FFF], PSR_USER | P, "caller's PSR below it");
    steps(&mut cpu, 1);
    assert_eq!(cpu.pc, 0x3001);
    assert_eq!(cpu.psr(), PSR_USER | P);
    assert_eq!(cpu.regs[6], 0xBEEF);
    assert_eq!(cpu.saved_ssp, 0x3000);
}

#[test]
fn rti_in_user_mode_is_a_privilege_violation() {
    let mut cpu = cpu_with(LC3TOOLS.semantics, PSR_USER | Z, &[0x8000]);
    cpu.mem_mut()[0x0100] = 0x0500;
    steps(&mut cpu, 1);
    assert_eq!(cpu.pc, 0x0500);
    assert!(!cpu.is_user());
    assert_eq!(
        cpu.mem()[0x2FFE],
        0x3000,
        "the faulting instruction's address is pushed"
    );
    // patt has the same exception (2nd edition book).
    let mut cpu = cpu_with(PATT.semantics, PSR_USER | Z, &[0x8000]);
    cpu.mem_mut()[0x0100] = 0x0600;
    steps(&mut cpu, 1);
    assert_eq!(cpu.pc, 0x0600);
}

#[test]
fn illegal_and_reserved_opcodes_raise_exception_x01() {
    for word in [0x1018, 0xD000, 0x923E] {
        let mut cpu = cpu_with(LC3TOOLS.semantics, PSR_USER | Z, &[word]);
        cpu.mem_mut()[0x0101] = 0x0700;
        steps(&mut cpu, 1);
        assert_eq!(cpu.pc, 0x0700, "word x{word:04X}");
        assert_eq!(cpu.psr() & PSR_USER, 0);
        assert_eq!(cpu.mem()[0x2FFF], PSR_USER | Z);
        assert_eq!(cpu.mem()[0x2FFE], 0x3000);
    }
}

#[test]
fn lc3sim_stops_on_illegal_instructions_and_rti() {
    for word in [0x1018, 0xD000, 0x8000] {
        let mut cpu = cpu_with(LC3SIM.semantics, Z, &[0x1021, word]);
        steps(&mut cpu, 1);
        let stop = cpu.step();
        let Some(StopEvent::Fault(fault)) = stop else {
            panic!("word x{word:04X}: {stop:?}");
        };
        assert_eq!(fault.kind, FaultKind::IllegalInstruction);
        assert_eq!(fault.message, "Illegal instruction at x3001!");
        assert_eq!(fault.pc, 0x3001);
        assert_eq!(cpu.pc, 0x3001, "stays on the faulting instruction");
        assert_eq!(cpu.instructions_executed(), 1);
    }
}

#[test]
fn user_access_to_system_space_is_an_access_violation() {
    // LDR R0,R1,#0 with R1 = x0200; STR R0,R1,#0 with R1 = xFE06 (DDR)
    for (word, target) in [(0x6040, 0x0200), (0x7040, 0xFE06), (0x6040, 0xFFFE)] {
        let mut cpu = cpu_with(LC3TOOLS.semantics, PSR_USER | Z, &[word]);
        cpu.mem_mut()[0x0102] = 0x0800;
        cpu.regs[1] = target;
        steps(&mut cpu, 1);
        assert_eq!(cpu.pc, 0x0800, "x{word:04X} at x{target:04X}");
        assert_eq!(cpu.regs[0], 0, "nothing loaded");
        assert!(cpu.console.output().is_empty(), "nothing printed");
    }
    // The same load in supervisor mode, and in user mode under patt, is allowed.
    let mut cpu = cpu_with(LC3TOOLS.semantics, Z, &[0x6040]);
    cpu.regs[1] = 0x0200;
    cpu.mem_mut()[0x0200] = 42;
    steps(&mut cpu, 1);
    assert_eq!(cpu.regs[0], 42);
    let mut cpu = cpu_with(PATT.semantics, PSR_USER | Z, &[0x6040]);
    cpu.regs[1] = 0x0200;
    cpu.mem_mut()[0x0200] = 43;
    steps(&mut cpu, 1);
    assert_eq!(cpu.regs[0], 43);
}

#[test]
fn user_fetch_from_system_space_is_an_access_violation() {
    // JMP R1 to x0200 in user mode: the jump works, fetching there raises ACV.
    let mut cpu = cpu_with(LC3TOOLS.semantics, PSR_USER | Z, &[0xC040]);
    cpu.mem_mut()[0x0102] = 0x0800;
    cpu.mem_mut()[0x0200] = 0x1021; // ADD R0,R0,#1, never executed
    cpu.regs[1] = 0x0200;
    steps(&mut cpu, 2);
    assert_eq!(cpu.pc, 0x0800);
    assert_eq!(cpu.regs[0], 0);
    assert_eq!(cpu.mem()[0x2FFE], 0x0200);
    // Supervisor mode may run there; patt has no access control.
    for (semantics, psr) in [(LC3TOOLS.semantics, Z), (PATT.semantics, PSR_USER | Z)] {
        let mut cpu = cpu_with(semantics, psr, &[0xC040]);
        cpu.mem_mut()[0x0200] = 0x1021;
        cpu.regs[1] = 0x0200;
        steps(&mut cpu, 2);
        assert_eq!((cpu.pc, cpu.regs[0]), (0x0201, 1));
    }
}

#[test]
fn halted_cpu_stays_halted() {
    // STI R0 to MCR with bit 15 clear.
    let mut cpu = cpu_with(PATT.semantics, Z, &[0xB001, 0x1021, 0xFFFE]);
    assert_eq!(cpu.step(), Some(StopEvent::Halted));
    assert_eq!(cpu.pc, 0x3001, "the store completed");
    assert!(cpu.halted());
    assert_eq!(cpu.step(), Some(StopEvent::Halted));
    let outcome = cpu.run(100);
    assert_eq!(
        (outcome.executed, outcome.stop),
        (0, Some(StopEvent::Halted))
    );
    assert_eq!(cpu.instructions_executed(), 1);
}
