use asmdbg_core::Flow;

use super::*;

#[test]
fn flow_of_branches_calls_returns_and_stops() {
    let flow = |word: u32, addr: u32| decode(word).flow(addr);
    // beq $t0, $t1, -2 at 0x00400010: conditional, to 0x0040000c.
    assert_eq!(
        flow(0x1109_fffe, 0x0040_0010),
        Flow::Branch {
            target: 0x0040_000c
        }
    );
    // j 0x00400020 and jal 0x00400040, within the pc's 256 MB region.
    assert_eq!(
        flow(0x0810_0008, 0x0040_0000),
        Flow::Jump {
            target: Some(0x0040_0020)
        }
    );
    assert_eq!(
        flow(0x0c10_0010, 0x0040_0000),
        Flow::Call {
            target: Some(0x0040_0040)
        }
    );
    // bgezal $t0, 4 links: a (conditional) call.
    assert_eq!(
        flow(0x0511_0004, 0x0040_0000),
        Flow::Call {
            target: Some(0x0040_0014)
        }
    );
    // jr $ra returns, jr $t0 jumps somewhere unknown, jalr $t0 calls it.
    assert_eq!(flow(0x03e0_0008, 0), Flow::Return);
    assert_eq!(flow(0x0100_0008, 0), Flow::Jump { target: None });
    assert_eq!(flow(0x0100_f809, 0), Flow::Call { target: None });
    assert_eq!(flow(0x4200_0018, 0), Flow::Return); // eret
    assert_eq!(flow(0x0000_000c, 0), Flow::Next); // syscall
    assert_eq!(flow(0x0000_000d, 0), Flow::Stop); // break
    assert_eq!(flow(0xffff_ffff, 0), Flow::Stop); // invalid
    assert_eq!(flow(0x2402_0004, 0), Flow::Next); // addiu
                                                  // The machine's delay slots follow transfers, not eret.
    assert!(decode(0x1109_fffe).has_delay_slot());
    assert!(decode(0x03e0_0008).has_delay_slot());
    assert!(!decode(0x4200_0018).has_delay_slot());
    assert!(!decode(0x0000_000c).has_delay_slot());
    // gdb's rule also covers encodings MARS does not decode (beql).
    assert!(matches!(decode(0x5109_0002), Instruction::Invalid(_)));
    assert!(gdb_assumes_delay_slot(&decode(0x5109_0002)));
    assert!(!gdb_assumes_delay_slot(&decode(0x4200_0018)));
}

#[test]
fn decodes_common_words() {
    assert_eq!(
        decode(0x2402_0004),
        Instruction::Addiu {
            rt: 2,
            rs: 0,
            imm: 4
        }
    );
    assert_eq!(
        disassemble(0x2402_0004, 0x400000, None),
        "addiu $v0,$zero,4"
    );
    assert_eq!(disassemble(0x0000_000c, 0x400000, None), "syscall");
    assert_eq!(disassemble(0x8fa8_0008, 0x400000, None), "lw $t0,8($sp)");
    assert_eq!(disassemble(0x0000_0000, 0x400000, None), "nop");
    assert_eq!(
        disassemble(0x1000_ffff, 0x400004, None),
        "beq $zero,$zero,0x00400004"
    );
    assert_eq!(disassemble(0x0c10_0000, 0x400000, None), "jal 0x00400000");
    assert_eq!(disassemble(0x4200_0018, 0x400000, None), "eret");
    assert_eq!(disassemble(0xffff_ffff, 0x400000, None), ".word 0xffffffff");
}

#[test]
fn instructions_stay_small_for_the_execution_cache() {
    assert!(std::mem::size_of::<Instruction>() <= 8);
}

#[test]
fn clz_accepts_mars_and_mips32_encodings() {
    // MARS: rt = 0; binutils: rt = rd.
    assert_eq!(decode(0x7120_4020), Instruction::Clz { rd: 8, rs: 9 });
    assert_eq!(decode(0x7128_4020), Instruction::Clz { rd: 8, rs: 9 });
    assert!(matches!(decode(0x7127_4020), Instruction::Invalid(_)));
}

#[test]
fn decodes_fp_forms() {
    // add.d $f2,$f4,$f6
    assert_eq!(disassemble(0x4626_2080, 0, None), "add.d $f2,$f4,$f6");
    // c.lt.s 1,$f0,$f1 ; bc1t 1,...
    assert_eq!(disassemble(0x4601_013c, 0, None), "c.lt.s 1,$f0,$f1");
    assert_eq!(disassemble(0x4505_0001, 0, None), "bc1t 1,0x00000008");
    assert_eq!(disassemble(0x4680_0820, 0, None), "cvt.s.w $f0,$f1");
    assert_eq!(disassemble(0x4402_0800, 0, None), "mfc1 $v0,$f1");
}
