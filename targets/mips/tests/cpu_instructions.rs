//! Per-instruction behaviour of the MIPS cpu as MARS 4.5 defines it: results, HI/LO, overflow
//! traps, signed/unsigned variants, branches with and without delay slots, and FP.

use asmdbg_core::{FaultKind, Machine, MachineOptions, StopEvent};
use asmdbg_mips::machine::{REG_F0, REG_HI, REG_LO};
use asmdbg_mips::{load_machine, MipsMachine};

fn run_with(src: &str, opts: &MachineOptions) -> (MipsMachine, Option<StopEvent>) {
    let mut m = load_machine("cpu.asm", src, opts).unwrap_or_else(|e| panic!("{e}"));
    let stop = m.run(1_000_000).stop;
    (m, stop)
}

fn run(src: &str) -> (MipsMachine, Option<StopEvent>) {
    run_with(src, &MachineOptions::default())
}

fn reg(m: &MipsMachine, name: &str) -> u32 {
    let i = m
        .registers()
        .iter()
        .position(|r| r.name == name)
        .unwrap_or_else(|| panic!("no register {name}"));
    m.read_register(i).unwrap_or_default() as u32
}

fn fault_message(stop: Option<StopEvent>) -> (FaultKind, String) {
    match stop {
        Some(StopEvent::Fault(f)) => (f.kind, f.message),
        other => panic!("expected a fault, got {other:?}"),
    }
}

#[test]
fn arithmetic_and_logic() {
    let (m, stop) = run("
        li $t0, 7
        li $t1, -3
        addu $t2, $t0, $t1
        subu $t3, $t1, $t0
        and $t4, $t0, $t1
        or $t5, $t0, $t1
        xor $t6, $t0, $t1
        nor $t7, $t0, $t1
        slt $s0, $t1, $t0
        sltu $s1, $t1, $t0
        sltiu $s2, $t0, -1
        andi $s3, $t1, 0xff
        lui $s4, 0xabcd
        ori $s4, $s4, 0x1234
        xori $s5, $t0, 0xffff
        addiu $s6, $zero, -1
        addi $zero, $t0, 5
    ");
    assert_eq!(stop, Some(StopEvent::Exited(0)));
    assert_eq!(reg(&m, "t2"), 4);
    assert_eq!(reg(&m, "t3"), (-10i32) as u32);
    assert_eq!(reg(&m, "t4"), 7 & (-3i32 as u32));
    assert_eq!(reg(&m, "t5"), 7 | (-3i32 as u32));
    assert_eq!(reg(&m, "t6"), 7 ^ (-3i32 as u32));
    assert_eq!(reg(&m, "t7"), !(7 | (-3i32 as u32)));
    assert_eq!(reg(&m, "s0"), 1);
    assert_eq!(reg(&m, "s1"), 0, "0xfffffffd is not below 7 unsigned");
    assert_eq!(
        reg(&m, "s2"),
        1,
        "sltiu sign-extends then compares unsigned"
    );
    assert_eq!(reg(&m, "s3"), 0xfd);
    assert_eq!(reg(&m, "s4"), 0xabcd_1234);
    assert_eq!(reg(&m, "s5"), 0xfff8);
    assert_eq!(reg(&m, "s6"), 0xffff_ffff);
    assert_eq!(reg(&m, "zero"), 0);
}

#[test]
fn shifts_and_counts() {
    let (m, _) = run("
        li $t0, 0x80000010
        sll $t1, $t0, 4
        srl $t2, $t0, 4
        sra $t3, $t0, 4
        li $t4, 36
        sllv $t5, $t0, $t4
        srav $t6, $t0, $t4
        srlv $t7, $t0, $t4
        clz $s0, $t2
        clo $s1, $t3
        clz $s2, $zero
    ");
    assert_eq!(reg(&m, "t1"), 0x0000_0100);
    assert_eq!(reg(&m, "t2"), 0x0800_0001);
    assert_eq!(reg(&m, "t3"), 0xf800_0001);
    assert_eq!(
        reg(&m, "t5"),
        0x0000_0100,
        "shift amount uses the low 5 bits"
    );
    assert_eq!(reg(&m, "t6"), 0xf800_0001);
    assert_eq!(reg(&m, "t7"), 0x0800_0001);
    assert_eq!(reg(&m, "s0"), 4);
    assert_eq!(reg(&m, "s1"), 5);
    assert_eq!(reg(&m, "s2"), 32);
}

#[test]
fn multiply_divide_and_hi_lo() {
    let (m, _) = run("
        li $t0, -7
        li $t1, 3
        mult $t0, $t1
        mfhi $s0
        mflo $s1
        multu $t0, $t1
        mfhi $s2
        div $t0, $t1
        mfhi $s3
        mflo $s4
        divu $t0, $t1
        mfhi $s5
        mflo $s6
        mul $s7, $t0, $t1
        mfhi $t8
        li $t2, 10
        mthi $t2
        mtlo $t2
        madd $t0, $t1
        mfhi $t3
        mflo $t4
        msubu $t1, $t1
        mflo $t5
    ");
    assert_eq!(reg(&m, "s0"), 0xffff_ffff);
    assert_eq!(reg(&m, "s1"), (-21i32) as u32);
    assert_eq!(
        reg(&m, "s2"),
        2,
        "0xfffffff9 * 3 unsigned has 2 in the high word"
    );
    assert_eq!(
        reg(&m, "s3"),
        (-1i32) as u32,
        "remainder takes the dividend's sign"
    );
    assert_eq!(
        reg(&m, "s4"),
        (-2i32) as u32,
        "quotient truncates toward zero"
    );
    assert_eq!(reg(&m, "s5"), (0xffff_fff9u32 % 3));
    assert_eq!(reg(&m, "s6"), (0xffff_fff9u32 / 3));
    assert_eq!(reg(&m, "s7"), (-21i32) as u32);
    assert_eq!(reg(&m, "t8"), 0xffff_ffff, "MARS's mul also sets HI");
    // (10 << 32 | 10) + (-21)
    assert_eq!(reg(&m, "t3"), 9);
    assert_eq!(reg(&m, "t4"), (10u32).wrapping_sub(21));
    assert_eq!(reg(&m, "t5"), (10u32).wrapping_sub(21).wrapping_sub(9));
}

#[test]
fn basic_div_by_zero_leaves_hi_lo() {
    let (m, stop) = run("
        li $t0, 5
        mthi $t0
        li $t1, 6
        mtlo $t1
        div $t0, $zero
        divu $t0, $zero
    ");
    assert_eq!(stop, Some(StopEvent::Exited(0)));
    assert_eq!(m.read_register(REG_HI), Some(5));
    assert_eq!(m.read_register(REG_LO), Some(6));
}

#[test]
fn overflow_traps_on_add_addi_sub_only() {
    let (m, stop) = run("
        li $t0, 0x7fffffff
        addu $t1, $t0, $t0
        addiu $t2, $t0, 1
        add $t3, $t0, $t0
    ");
    let (kind, msg) = fault_message(stop);
    assert_eq!(kind, FaultKind::Arithmetic);
    assert!(
        msg.ends_with(
            "cpu.asm line 5: Runtime exception at 0x00400010: arithmetic overflow\n\n\
             Processing terminated due to errors."
        ),
        "{msg}"
    );
    assert!(msg.starts_with("Error in /"), "absolute path: {msg}");
    assert_eq!(reg(&m, "t1"), 0xffff_fffe);
    assert_eq!(reg(&m, "t2"), 0x8000_0000);
    assert_eq!(reg(&m, "t3"), 0, "the faulting add does not write");
    assert_eq!(m.pc(), 0x0040_0010);
    let (_, stop) = run("li $t0, -2147483648\naddi $t1, $t0, -1\n");
    assert!(fault_message(stop).1.contains("arithmetic overflow"));
    let (_, stop) = run("li $t0, -2147483648\nli $t1, 1\nsub $t2, $t0, $t1\n");
    assert!(fault_message(stop).1.contains("arithmetic overflow"));
}

#[test]
fn loads_and_stores_sign_and_zero_extend() {
    let (m, stop) = run("
        .data
        w: .word 0x8081f0ff
        buf: .space 16
        .text
        la $s0, w
        lb $t0, 0($s0)
        lbu $t1, 0($s0)
        lh $t2, 2($s0)
        lhu $t3, 2($s0)
        lw $t4, 0($s0)
        la $s1, buf
        sw $t4, 0($s1)
        sh $t4, 4($s1)
        sb $t4, 6($s1)
        lw $t5, 4($s1)
        sc $t4, 8($s1)
        ll $t6, 8($s1)
    ");
    assert_eq!(stop, Some(StopEvent::Exited(0)));
    assert_eq!(reg(&m, "t0"), 0xffff_ffff);
    assert_eq!(reg(&m, "t1"), 0xff);
    assert_eq!(reg(&m, "t2"), 0xffff_8081);
    assert_eq!(reg(&m, "t3"), 0x8081);
    assert_eq!(reg(&m, "t4"), 1, "sc writes 1 into its source register");
    assert_eq!(reg(&m, "t5"), 0x00ff_f0ff);
    assert_eq!(reg(&m, "t6"), 0x8081_f0ff);
}

#[test]
fn unaligned_words_with_lwl_lwr_swl_swr() {
    let (m, _) = run("
        .data
        b: .byte 1,2,3,4,5,6,7,8
        out: .word 0, 0
        .text
        la $s0, b
        li $t0, 0
        lwl $t0, 4($s0)
        lwr $t0, 1($s0)
        li $t1, 0x11223344
        la $s1, out
        swl $t1, 1($s1)
        swr $t1, 6($s1)
        lw $t2, 0($s1)
        lw $t3, 4($s1)
    ");
    assert_eq!(reg(&m, "t0"), 0x0504_0302);
    assert_eq!(reg(&m, "t2"), 0x0000_1122);
    assert_eq!(reg(&m, "t3"), 0x3344_0000);
}

#[test]
fn address_errors_use_mars_texts() {
    let (m, stop) = run(".data\nx: .word 1\n.text\nla $t0, x\nlw $t1, 1($t0)\n");
    let (kind, msg) = fault_message(stop);
    assert_eq!(kind, FaultKind::Unaligned);
    assert!(
        msg.contains("Runtime exception at 0x00400008: fetch address not aligned on word boundary 0x10010001"),
        "{msg}"
    );
    assert_eq!(m.read_register(35), Some(0x1001_0001), "BadVAddr");
    let (_, stop) = run("li $t0, 0x10010002\nsw $t0, 0($t0)\n");
    assert!(fault_message(stop)
        .1
        .contains("store address not aligned on word boundary 0x10010002"));
    let (_, stop) = run("li $t0, 0x10010001\nsh $t0, 0($t0)\n");
    assert!(fault_message(stop)
        .1
        .contains("store address not aligned on halfword boundary 0x10010001"));
    let (_, stop) = run("lw $t1, 0($zero)\n");
    let (kind, msg) = fault_message(stop);
    assert_eq!(kind, FaultKind::BadAddress);
    assert!(msg.contains(": address out of range 0x00000000"), "{msg}");
    let (_, stop) = run("li $t0, 0x00400000\nsw $t0, 0($t0)\n");
    assert!(fault_message(stop)
        .1
        .contains("Cannot write directly to text segment!0x00400000"));
}

#[test]
fn break_and_traps() {
    let (_, stop) = run("break 7\n");
    let (kind, msg) = fault_message(stop);
    assert_eq!(kind, FaultKind::Trap);
    assert!(
        msg.contains("break instruction executed; code = 7."),
        "{msg}"
    );
    let (_, stop) = run("li $t0, 1\nli $t1, 0\ndiv $t2, $t0, $t1\n");
    assert!(fault_message(stop)
        .1
        .contains("break instruction executed; no code given."));
    let (_, stop) = run("li $t0, 3\nteqi $t0, 4\ntnei $t0, 3\ntlt $t0, $t0\ntgeu $t0, $t0\n");
    let (kind, msg) = fault_message(stop);
    assert_eq!(kind, FaultKind::Trap);
    assert!(msg.contains("at 0x00400010: trap"), "{msg}");
}

#[test]
fn branches_jumps_and_links_without_delay_slots() {
    let (m, stop) = run("
        main: li $t0, 0
        li $t1, 5
        loop: addi $t0, $t0, 1
        bne $t0, $t1, loop
        jal sub
        move $s1, $v0
        li $t2, -1
        bltzal $t2, sub2
        j end
        sub: li $v0, 42
        jr $ra
        sub2: move $s2, $ra
        jr $ra
        end: la $t3, sub3
        jalr $s3, $t3
        j fin
        sub3: jr $s3
        fin:
    ");
    assert_eq!(stop, Some(StopEvent::Exited(0)));
    assert_eq!(reg(&m, "t0"), 5);
    assert_eq!(reg(&m, "s1"), 42);
    assert_eq!(reg(&m, "s2"), 0x0040_0020, "bltzal links PC+4");
    assert_eq!(reg(&m, "s3"), 0x0040_0040, "jalr links into its rd");
}

#[test]
fn delay_slots_execute_the_next_instruction_and_link_pc_plus_8() {
    let opts = MachineOptions {
        delay_slots: true,
        ..Default::default()
    };
    let (m, stop) = run_with(
        "
        .set noreorder
        jal sub
        addiu $t0, $zero, 1
        addiu $t1, $zero, 2
        li $v0, 10
        syscall
        sub: jr $ra
        addiu $t2, $zero, 3
    ",
        &opts,
    );
    assert_eq!(stop, Some(StopEvent::Exited(0)));
    assert_eq!(reg(&m, "t0"), 1, "delay slot of jal ran");
    assert_eq!(reg(&m, "t1"), 2);
    assert_eq!(reg(&m, "t2"), 3, "delay slot of jr ran");
    assert_eq!(reg(&m, "ra"), 0x0040_0008, "jal links PC+8");
}

#[test]
fn ending_cliff_exit2_and_jump_nowhere() {
    let (_, stop) = run("li $a0, 3\nli $v0, 17\nsyscall\n");
    assert_eq!(stop, Some(StopEvent::Exited(3)));
    let (m, stop) = run("li $t0, 1\n");
    assert_eq!(stop, Some(StopEvent::Exited(0)), "falling off the end");
    assert_eq!(m.instructions_executed(), 1);
    let (_, stop) = run("li $t0, 0x00400100\njr $t0\n");
    assert_eq!(
        stop,
        Some(StopEvent::Exited(0)),
        "no instruction at the target"
    );
    let (_, stop) = run("jr $ra\n");
    let (_, msg) = fault_message(stop);
    assert!(
        msg.contains("invalid program counter value: 0x00000000"),
        "{msg}"
    );
}

#[test]
fn conditional_moves() {
    let (m, _) = run("
        li $t0, 5
        li $t1, 0
        li $s0, 1
        li $s1, 1
        movn $s0, $t0, $t1
        movz $s1, $t0, $t1
        lui $t2, 0x3f80
        mtc1 $t2, $f0
        lui $t2, 0x4000
        mtc1 $t2, $f1
        c.lt.s $f0, $f1
        movt $s2, $t0
        movf $s3, $t0
    ");
    assert_eq!(reg(&m, "s0"), 1);
    assert_eq!(reg(&m, "s1"), 5);
    assert_eq!(reg(&m, "s2"), 5);
    assert_eq!(reg(&m, "s3"), 0);
}

fn f32_reg(m: &MipsMachine, n: usize) -> f32 {
    f32::from_bits(m.read_register(REG_F0 + n).unwrap_or_default() as u32)
}

fn f64_reg(m: &MipsMachine, n: usize) -> f64 {
    let lo = m.read_register(REG_F0 + n).unwrap_or_default();
    let hi = m.read_register(REG_F0 + n + 1).unwrap_or_default();
    f64::from_bits((hi << 32) | lo)
}

#[test]
fn single_precision_arithmetic_and_conversions() {
    let (m, stop) = run("
        .data
        f: .float 1.5, -2.25, 2.5, 3.5
        .text
        l.s $f0, f
        l.s $f1, f+4
        add.s $f2, $f0, $f1
        sub.s $f3, $f0, $f1
        mul.s $f4, $f0, $f1
        div.s $f5, $f0, $f1
        abs.s $f6, $f1
        neg.s $f7, $f0
        sqrt.s $f8, $f1
        li $t0, -7
        mtc1 $t0, $f9
        cvt.s.w $f10, $f9
        l.s $f11, f+8
        round.w.s $f12, $f11
        l.s $f13, f+12
        round.w.s $f14, $f13
        floor.w.s $f15, $f1
        ceil.w.s $f16, $f1
        trunc.w.s $f17, $f1
        cvt.w.s $f18, $f1
        mfc1 $s0, $f12
        div.s $f19, $f0, $f20
    ");
    assert_eq!(stop, Some(StopEvent::Exited(0)));
    assert_eq!(f32_reg(&m, 2), -0.75);
    assert_eq!(f32_reg(&m, 3), 3.75);
    assert_eq!(f32_reg(&m, 4), -3.375);
    assert_eq!(f32_reg(&m, 5), 1.5 / -2.25);
    assert_eq!(f32_reg(&m, 6), 2.25);
    assert_eq!(f32_reg(&m, 7), -1.5);
    assert_eq!(
        m.read_register(REG_F0 + 8),
        Some(0x7fc0_0000),
        "sqrt of negative is NaN"
    );
    assert_eq!(f32_reg(&m, 10), -7.0);
    assert_eq!(m.read_register(REG_F0 + 12), Some(2), "ties round to even");
    assert_eq!(m.read_register(REG_F0 + 14), Some(4));
    assert_eq!(m.read_register(REG_F0 + 15), Some((-3i32) as u32 as u64));
    assert_eq!(m.read_register(REG_F0 + 16), Some((-2i32) as u32 as u64));
    assert_eq!(m.read_register(REG_F0 + 17), Some((-2i32) as u32 as u64));
    assert_eq!(m.read_register(REG_F0 + 18), Some((-2i32) as u32 as u64));
    assert_eq!(reg(&m, "s0"), 2);
    assert_eq!(
        f32_reg(&m, 19),
        f32::INFINITY,
        "FP division by zero does not trap"
    );
}

#[test]
fn double_precision_compare_and_branch() {
    let (m, stop) = run("
        .data
        a: .double 2.5
        b: .double -1.25
        out: .double 0
        .text
        l.d $f2, a
        l.d $f4, b
        add.d $f6, $f2, $f4
        mul.d $f8, $f2, $f4
        c.le.d 3, $f4, $f2
        bc1f 3, wrong
        c.eq.d $f2, $f4
        bc1t wrong
        cvt.s.d $f10, $f6
        cvt.d.s $f12, $f10
        cvt.w.d $f14, $f8
        floor.w.d $f15, $f8
        s.d $f6, out
        la $t0, out
        lw $s0, 4($t0)
        li $s1, 1
        j end
        wrong: li $s1, 2
        end:
    ");
    assert_eq!(stop, Some(StopEvent::Exited(0)));
    assert_eq!(f64_reg(&m, 6), 1.25);
    assert_eq!(f64_reg(&m, 8), -3.125);
    assert_eq!(f32_reg(&m, 10), 1.25);
    assert_eq!(f64_reg(&m, 12), 1.25);
    assert_eq!(m.read_register(REG_F0 + 14), Some((-3i32) as u32 as u64));
    assert_eq!(m.read_register(REG_F0 + 15), Some((-4i32) as u32 as u64));
    assert_eq!(reg(&m, "s0"), (1.25f64.to_bits() >> 32) as u32);
    assert_eq!(reg(&m, "s1"), 1);
    assert_eq!(m.read_register(70), Some(1 << 27), "flag 3 is FCSR bit 27");
}

#[test]
fn odd_double_registers_are_a_runtime_error() {
    let (_, stop) = run("add.d $f1, $f2, $f4\n");
    assert!(fault_message(stop)
        .1
        .contains("all registers must be even-numbered"));
}

#[test]
fn delay_slot_runs_after_taken_and_untaken_branches() {
    let opts = MachineOptions {
        delay_slots: true,
        ..Default::default()
    };
    let (m, stop) = run_with(
        "
        li $t0, 0
        beq $zero, $zero, target
        addiu $t0, $t0, 1
        addiu $t0, $t0, 10
        target: addiu $t0, $t0, 100
        bne $zero, $zero, target
        addiu $t1, $zero, 7
    ",
        &opts,
    );
    assert_eq!(stop, Some(StopEvent::Exited(0)));
    assert_eq!(
        reg(&m, "t0"),
        101,
        "slot ran, the instruction after it did not"
    );
    assert_eq!(reg(&m, "t1"), 7);
    // Without delay slots the same code skips the slot.
    let (m, _) = run("li $t0, 0\nbeq $zero, $zero, t\naddiu $t0, $t0, 1\nt: addiu $t0, $t0, 100\n");
    assert_eq!(reg(&m, "t0"), 100);
}
