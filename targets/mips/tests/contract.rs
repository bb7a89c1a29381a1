//! The `Machine` contract on MIPS: the shared suite of `asmdbg_core::contract` on small MIPS
//! programs, then what only MIPS has: MARS's initial state, breakpoints outside the text
//! bitmap, the exception handler path, code patching, syscalls, and robustness against
//! arbitrary memory images.

use asmdbg_core::contract::{Echo, InputSubject, Loop, StraightLine, Subject};
use asmdbg_core::{Machine, MachineOptions, MemError, StopEvent, WatchKind};
use asmdbg_mips::machine::{REG_CAUSE, REG_EPC, REG_PC, REG_STATUS};
use asmdbg_mips::{load_machine, Chunk, ChunkKind, MipsMachine, Program};

fn load(src: &str) -> MipsMachine {
    load_with(src, &MachineOptions::default())
}

fn load_with(src: &str, opts: &MachineOptions) -> MipsMachine {
    load_machine("m.asm", src, opts).unwrap_or_else(|e| panic!("{e}"))
}

/// Stores 3 to `value`, loads it back, and exits with syscall 10.
const STRAIGHT: &str = "
    .data
    value: .word 0x1111
    .text
    main: addiu $t1, $zero, 1
    addiu $t1, $t1, 2
    lui $s0, 0x1001
    sw $t1, 0($s0)
    lw $t2, 0($s0)
    addiu $t3, $t2, 1
    addiu $v0, $zero, 10
    syscall
";

const LOOP: &str = "
    .data
    value: .word 0
    .text
    main: lui $s0, 0x1001
    loop: addiu $t1, $t1, 1
    sw $t1, 0($s0)
    j loop
";

/// Reads a character twice (syscall 12) and prints each (syscall 11).
const ECHO: &str = "
    addiu $v0, $zero, 12
    syscall
    addu $a0, $v0, $zero
    addiu $v0, $zero, 11
    syscall
    addiu $v0, $zero, 12
    syscall
    addu $a0, $v0, $zero
    addiu $v0, $zero, 11
    syscall
    addiu $v0, $zero, 10
    syscall
";

struct Mips;

impl Subject for Mips {
    type M = MipsMachine;

    fn straight_line(&self) -> StraightLine<MipsMachine> {
        StraightLine {
            machine: load(STRAIGHT),
            pcs: (0..8).map(|i| 0x0040_0000 + 4 * i).collect(),
            store: 3,
            load: 4,
            data: 0x1001_0000,
            old: 0x1111,
            new: 3,
            end: StopEvent::Exited(0),
        }
    }

    fn endless_loop(&self) -> Loop<MipsMachine> {
        Loop {
            machine: load(LOOP),
            body: 0x0040_0004,
            data: 0x1001_0000,
            pass: 3,
        }
    }

    fn unmapped(&self) -> Vec<u64> {
        vec![0, 0x1_0000_0000]
    }
}

impl InputSubject for Mips {
    fn echo(&self) -> Echo<MipsMachine> {
        Echo {
            machine: load(ECHO),
            first: b"a\n",
            second: b"b\n",
            first_output: b"a",
            final_output: b"ab",
            end: StopEvent::Exited(0),
        }
    }
}

asmdbg_core::contract_tests!(Mips);
asmdbg_core::contract_input_tests!(Mips);

const COUNTER: &str = "
    .data
    count: .word 0
    .text
    main: li $t0, 3
    loop: lw $t1, count
    addi $t1, $t1, 1
    sw $t1, count
    addi $t0, $t0, -1
    bgtz $t0, loop
";

const HANDLER: &str = "
    .text
    main: li $t0, 0x7fffffff
    add $t1, $t0, $t0
    li $t2, 0x10010001
    lw $t3, 0($t2)
    li $v0, 10
    syscall
    .ktext 0x80000180
    mfc0 $k0, $13
    mfc0 $k1, $14
    addiu $s0, $s0, 1
    sll $s1, $s1, 8
    or $s1, $s1, $k0
    mfc0 $s2, $8
    mfc0 $s3, $12
    addiu $k1, $k1, 4
    mtc0 $k1, $14
    eret
";

/// xorshift64*, so the fuzz below is reproducible without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

#[test]
fn initial_state_is_mars() {
    let m = load("nop\n");
    assert_eq!(m.pc(), 0x0040_0000);
    assert_eq!(m.read_register(28), Some(0x1000_8000), "gp");
    assert_eq!(m.read_register(29), Some(0x7fff_effc), "sp");
    assert_eq!(m.read_register(REG_STATUS), Some(0x0000_ff11));
    assert_eq!(m.read_register(8), Some(0));
    assert_eq!(m.registers()[29].name, "sp");
    assert_eq!(m.registers()[REG_PC].name, "pc");
    assert_eq!(m.unit_bytes(), 1);
    assert_eq!(m.word_units(), 4);
    assert_eq!(m.fault_exit_status(), 0);
}

#[test]
fn breakpoints_outside_the_text_bitmap_work() {
    let mut m = load("j far\n.text 0x00500000\nfar: nop\n");
    assert!(m.breakpoints().insert(0x0050_0000));
    assert_eq!(m.run(100).stop, Some(StopEvent::Breakpoint));
    assert_eq!(m.pc(), 0x0050_0000);
}

#[test]
fn read_watch_and_partial_overlap() {
    let mut m = load(COUNTER);
    m.watchpoints().insert(0x1001_0002, 1, WatchKind::Read);
    let out = m.run(1000);
    assert_eq!(
        out.stop,
        Some(StopEvent::Watch {
            kind: WatchKind::Read,
            addr: 0x1001_0002
        })
    );
    assert_eq!(m.pc(), 0x0040_0008, "second word of the lw expansion");
}

#[test]
fn exception_handler_runs_with_cause_epc_status_badvaddr() {
    let mut m = load(HANDLER);
    let stop = m.run(1000).stop;
    assert_eq!(stop, Some(StopEvent::Exited(0)));
    assert_eq!(m.read_register(16), Some(2), "handler ran twice");
    // Cause ExcCode 12 (overflow) then 4 (address error on load), in bits 2..6.
    assert_eq!(m.read_register(17), Some((12 << 2 << 8) | (4 << 2)));
    assert_eq!(m.read_register(18), Some(0x1001_0001), "BadVAddr");
    assert_eq!(
        m.read_register(19),
        Some(0x0000_ff13),
        "EXL set in the handler"
    );
    assert_eq!(
        m.read_register(REG_STATUS),
        Some(0x0000_ff11),
        "eret cleared EXL"
    );
    assert_eq!(m.read_register(REG_EPC), Some(0x0040_0014 + 4));
    assert_eq!(m.read_register(REG_CAUSE), Some(4 << 2));
}

#[test]
fn unhandled_fault_leaves_pc_on_the_instruction() {
    let mut m = load("nop\nbreak 3\nnop\n");
    match m.run(100).stop {
        Some(StopEvent::Fault(f)) => {
            assert_eq!(f.pc, 0x0040_0004);
            assert!(f.message.contains("m.asm line 2: Runtime exception at 0x00400004: break instruction executed; code = 3."), "{}", f.message);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(m.pc(), 0x0040_0004);
    assert_eq!(m.read_register(REG_EPC), Some(0x0040_0004));
    assert_eq!(m.read_register(REG_CAUSE), Some(9 << 2));
}

#[test]
fn debugger_memory_access() {
    let mut m = load(".data\nv: .word 0x11223344\n.text\naddiu $v0, $zero, 4\n");
    assert_eq!(
        m.peek_word(0x0040_0000),
        Ok(0x2402_0004),
        "code reads as its words"
    );
    assert_eq!(m.debug_read(0x1001_0000), Ok(0x44));
    assert_eq!(m.debug_read(0x0000_0000), Err(MemError::Unmapped(0)));
    assert_eq!(
        m.debug_read(0x1_0000_0000),
        Err(MemError::Unmapped(0x1_0000_0000))
    );
    assert!(m.debug_write(0x2000_0000, 1).is_err());
    assert_eq!(m.poke_word(0x7fff_effc, 0xdead_beef), Ok(()));
    assert_eq!(m.peek_word(0x7fff_effc), Ok(0xdead_beef));
    // Patch the code: addiu $v0, $zero, 9.
    assert_eq!(m.poke_word(0x0040_0000, 0x2402_0009), Ok(()));
    assert_eq!(
        m.disassemble(0x0040_0000),
        Some(("addiu $v0,$zero,9".to_string(), 4))
    );
    assert_eq!(m.run(10).stop, Some(StopEvent::Exited(0)));
    assert_eq!(m.read_register(2), Some(9));
    assert!(m.write_register(REG_PC, 0x0040_0000));
    assert_eq!(m.pc(), 0x0040_0000);
    assert!(m.write_register(0, 5));
    assert_eq!(m.read_register(0), Some(0), "$zero stays zero");
    assert_eq!(m.read_register(500), None);
}

#[test]
fn disassembly_names_labels() {
    let m = load("main: nop\nloop: j loop\n");
    assert_eq!(
        m.disassemble(0x0040_0004),
        Some(("j 0x00400004 <loop>".to_string(), 4))
    );
    assert_eq!(m.disassemble(0x0040_0008), None);
}

#[test]
fn start_at_main_uses_the_global_main() {
    let src = ".globl main\nli $s0, 1\nmain: li $s1, 2\n";
    let opts = MachineOptions {
        start_at_main: true,
        ..Default::default()
    };
    let mut m = load_with(src, &opts);
    assert_eq!(m.pc(), 0x0040_0004);
    m.run(10);
    assert_eq!(m.read_register(16), Some(0));
    assert_eq!(m.read_register(17), Some(2));
}

#[test]
fn random_memory_images_never_panic() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let scratch = std::env::temp_dir().join(format!("asmdbg-mips-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap_or_else(|e| panic!("{e}"));
    for round in 0..200 {
        let words: Vec<u8> = (0..256)
            .flat_map(|_| {
                // Bias towards real opcodes with random fields.
                let w = rng.next() as u32;
                let w = if round % 2 == 0 { w } else { w & 0xfc1f_ffff };
                w.to_le_bytes()
            })
            .collect();
        let data: Vec<u8> = (0..64).map(|_| rng.next() as u8).collect();
        let mut chunks = vec![
            Chunk {
                kind: ChunkKind::Text,
                addr: 0x0040_0000,
                bytes: words.clone(),
            },
            Chunk {
                kind: ChunkKind::Data,
                addr: 0x1001_0000,
                bytes: data,
            },
        ];
        if round % 3 == 0 {
            chunks.push(Chunk {
                kind: ChunkKind::KText,
                addr: 0x8000_0180,
                bytes: words[..64].to_vec(),
            });
        }
        let program = Program {
            chunks,
            text_start: 0x0040_0000,
            ..Default::default()
        };
        let opts = MachineOptions {
            delay_slots: round % 4 == 1,
            virtual_time: true,
            seed: Some(round),
            // Random code may open files: keep them out of the source tree.
            work_dir: Some(scratch.clone()),
            ..Default::default()
        };
        let mut m = MipsMachine::new(program, &opts).unwrap_or_else(|e| panic!("{e}"));
        m.console().push_input(b"12\nabc\n\n");
        m.console().close_input();
        for reg in 1..32 {
            m.write_register(reg, rng.next() & 0xffff_ffff);
        }
        let mut left = 5_000u64;
        while left > 0 {
            let out = m.run(left);
            left = left.saturating_sub(out.executed.max(1));
            match out.stop {
                Some(StopEvent::Fault(_)) | Some(StopEvent::Exited(_)) | None => break,
                Some(StopEvent::NeedInput) => break,
                Some(_) => {}
            }
        }
        for i in 0..256u64 {
            let _ = m.disassemble(0x0040_0000 + 4 * i);
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
}

#[test]
fn loading_rejects_chunks_outside_the_segments() {
    let program = Program {
        chunks: vec![Chunk {
            kind: ChunkKind::Data,
            addr: 0x2000_0000,
            bytes: vec![1],
        }],
        text_start: 0x0040_0000,
        ..Default::default()
    };
    assert!(MipsMachine::new(program, &MachineOptions::default()).is_err());
}

#[test]
fn patching_code_under_a_breakpoint_keeps_the_breakpoint() {
    let mut m = load("li $t0, 1\nli $t1, 2\n");
    m.breakpoints().insert(0x0040_0004);
    assert_eq!(m.run(10).stop, Some(StopEvent::Breakpoint));
    // li $t1, 9
    assert_eq!(m.poke_word(0x0040_0004, 0x2409_0009), Ok(()));
    m.set_pc(0x0040_0000);
    assert_eq!(m.run(10).stop, Some(StopEvent::Breakpoint));
    assert_eq!(m.step(), None);
    assert_eq!(m.read_register(9), Some(9), "the patched instruction ran");
}

#[test]
fn describe_names_the_options() {
    let opts = MachineOptions {
        delay_slots: true,
        seed: Some(5),
        ..Default::default()
    };
    assert_eq!(
        load_with("nop\n", &opts).describe(),
        "mips (MARS 4.5), delay slots, seed 5"
    );
}

#[test]
fn handler_sees_syscall_break_and_trap_causes() {
    let src = "
        li $v0, 77
        syscall
        break 5
        teq $zero, $zero
        li $v0, 10
        syscall
        .kdata
        causes: .word 0, 0, 0
        .ktext 0x80000180
        mfc0 $k0, $13
        la $k1, causes
        sll $t9, $s0, 2
        addu $k1, $k1, $t9
        sw $k0, 0($k1)
        addiu $s0, $s0, 1
        mfc0 $k0, $14
        addiu $k0, $k0, 4
        mtc0 $k0, $14
        eret
    ";
    let mut m = load(src);
    assert_eq!(m.run(1000).stop, Some(StopEvent::Exited(0)));
    assert_eq!(m.read_register(16), Some(3));
    assert_eq!(m.peek_word(0x9000_0000), Ok(8 << 2), "Sys");
    assert_eq!(m.peek_word(0x9000_0004), Ok(9 << 2), "Bp");
    assert_eq!(m.peek_word(0x9000_0008), Ok(13 << 2), "Tr");
}

#[test]
fn random_syscall_arguments_never_panic() {
    let services: Vec<u32> = (1..=17)
        .chain(30..=36)
        .chain(40..=44)
        .chain(50..=59)
        .collect();
    let mut rng = Rng(0x0bad_cafe_f00d_1234);
    let scratch = std::env::temp_dir().join(format!("asmdbg-mips-sysfuzz-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap_or_else(|e| panic!("{e}"));
    let mut stops = [0usize; 4];
    for round in 0..300u64 {
        let mut words = Vec::new();
        for _ in 0..16 {
            let service = services[(rng.next() % services.len() as u64) as usize];
            let r = rng.next();
            // Half the time the pointers land in .data, otherwise anywhere.
            let a0_high = if r & 1 == 0 {
                0x1001
            } else {
                (r >> 8) as u32 & 0xffff
            };
            words.extend([
                0x2402_0000 | service,                 // addiu $v0, $zero, service
                0x3c04_0000 | a0_high,                 // lui $a0, ..
                0x3484_0000 | (r >> 24) as u32 & 0xff, // ori $a0, $a0, ..
                0x3c05_1001,                           // lui $a1, 0x1001
                0x2406_0000 | (r >> 40) as u32 & 0x3f, // addiu $a2, $zero, ..
                0x0000_000c,                           // syscall
            ]);
        }
        let program = Program {
            chunks: vec![
                Chunk {
                    kind: ChunkKind::Text,
                    addr: 0x0040_0000,
                    bytes: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
                },
                Chunk {
                    kind: ChunkKind::Data,
                    addr: 0x1001_0000,
                    bytes: (0..=255u8).map(|i| (rng.next() as u8) | (i & 1)).collect(),
                },
            ],
            text_start: 0x0040_0000,
            ..Default::default()
        };
        let opts = MachineOptions {
            virtual_time: true,
            seed: Some(round),
            dialogs_to_stderr: round % 2 == 0,
            work_dir: Some(scratch.clone()),
            ..Default::default()
        };
        let mut m = MipsMachine::new(program, &opts).unwrap_or_else(|e| panic!("{e}"));
        m.console().push_input(b"7\n1.5\nx\n\n-3\nname\n");
        if round % 3 != 0 {
            m.console().close_input();
        }
        let stop = m.run(10_000).stop;
        let kind = match stop {
            Some(StopEvent::Exited(_)) => 0,
            Some(StopEvent::Fault(_)) => 1,
            Some(StopEvent::NeedInput) => 2,
            _ => 3,
        };
        stops[kind] += 1;
        let _ = m.take_stderr();
    }
    let _ = std::fs::remove_dir_all(&scratch);
    // The mix shows the syscalls really ran: programs end and fault on bad arguments.
    assert!(stops[0] > 0 && stops[1] > 0 && stops[3] == 0, "{stops:?}");
}

#[test]
fn fcsr_condition_bits_map_to_the_eight_flags() {
    use asmdbg_mips::machine::REG_FCSR;
    // bc1t 1 then bc1f 0: both branch only if flag 1 is set and flag 0 is clear.
    let mut m = load("bc1t 1, one\nli $s0, 9\none: bc1f 0, end\nli $s1, 9\nend:\n");
    assert!(m.write_register(REG_FCSR, 1 << 25));
    assert_eq!(m.read_register(REG_FCSR), Some(1 << 25));
    assert_eq!(m.run(10).stop, Some(StopEvent::Exited(0)));
    assert_eq!(m.read_register(16), Some(0), "bc1t 1 taken");
    assert_eq!(m.read_register(17), Some(0), "bc1f 0 taken");
    assert!(m.write_register(REG_FCSR, (1 << 23) | (1 << 31)));
    assert_eq!(m.read_register(REG_FCSR), Some((1 << 23) | (1 << 31)));
}
