//! The `Machine` contract on SimpleRISC: the shared suite of `asmdbg_core::contract` on small
//! SimpleRISC programs, then what only SimpleRISC has: its faults and their course messages,
//! the end of the code, the entry label, register names, data memory bytes, options.

mod common;

use asmdbg_core::contract::{Loop, StraightLine, Subject};
use asmdbg_core::{
    FaultKind, LoadError, Machine, MachineOptions, MemError, StopEvent, SymbolKind, WatchKind,
};
use asmdbg_simplerisc::{load_machine, SrMachine};
use common::{load, load_with, reg, run};

/// Stores 3 to data word 64, loads it back, and runs off the end of the code.
const STRAIGHT: &str = "\
.main:
\tmov r1, 1
\tadd r1, r1, 2
\tmov r2, 64
\tst r1, 0[r2]
\tld r3, 0[r2]
\tadd r4, r3, 1
";

const LOOP: &str = "\
.main:
\tmov r2, 64
.loop:
\tadd r1, r1, 1
\tst r1, 0[r2]
\tb .loop
";

struct SimpleRisc;

impl Subject for SimpleRisc {
    type M = SrMachine;

    fn straight_line(&self) -> StraightLine<SrMachine> {
        StraightLine {
            machine: load(STRAIGHT),
            pcs: (0..6).map(|i| 4 * i).collect(),
            store: 3,
            load: 4,
            data: 64,
            old: 0,
            new: 3,
            end: StopEvent::Halted,
        }
    }

    fn endless_loop(&self) -> Loop<SrMachine> {
        Loop {
            machine: load(LOOP),
            body: 4,
            data: 64,
            pass: 3,
        }
    }

    fn unmapped(&self) -> Vec<u64> {
        vec![4096, 1 << 32]
    }
}

asmdbg_core::contract_tests!(SimpleRisc);

fn watch(kind: WatchKind, addr: u64) -> Option<StopEvent> {
    Some(StopEvent::Watch { kind, addr })
}

fn fault_of(stop: StopEvent) -> asmdbg_core::Fault {
    match stop {
        StopEvent::Fault(f) => f,
        other => panic!("expected a fault, got {other:?}"),
    }
}

#[test]
fn division_by_zero_faults_with_the_course_message() {
    let mut m = load("mov r1, 5\nmov r2, 0\n\ndiv r3, r1, r2\n");
    let out = m.run(100);
    assert_eq!(out.executed, 2);
    let f = fault_of(out.stop.unwrap());
    assert_eq!(f.kind, FaultKind::Arithmetic);
    assert_eq!(f.pc, 8);
    assert_eq!(f.message, "Cannot divide by a 0! (t.asm line 4)");
    // The machine stays on the faulting instruction.
    assert_eq!(m.pc(), 8);
    assert_eq!(fault_of(m.run(100).stop.unwrap()).pc, 8);
    let f = fault_of(load("mod r1, r1, 0\n").run(10).stop.unwrap());
    assert_eq!(f.kind, FaultKind::Arithmetic);
}

#[test]
fn unaligned_and_out_of_range_accesses_fault() {
    let mut m = load("mov r1, 2\nld r2, 0[r1]\n");
    let f = fault_of(m.run(10).stop.unwrap());
    assert_eq!(f.kind, FaultKind::Unaligned);
    assert_eq!(
        f.message,
        "Cannot access a memory location which is not a multiple of 4 !!! (address 2 = 0x2, \
         t.asm line 2)"
    );
    let f = fault_of(load("st r1, 4[sp]\n").run(10).stop.unwrap());
    assert_eq!(f.kind, FaultKind::BadAddress);
    assert_eq!(
        f.message,
        "Cannot access memory location 4096 = 0x1000: data memory is 4096 bytes (0..4095) \
         (t.asm line 1)"
    );
    let f = fault_of(load("ld r1, -4[r0]\n").run(10).stop.unwrap());
    assert_eq!(f.kind, FaultKind::BadAddress);
    assert!(
        f.message.contains("location -4 = 0xfffffffc"),
        "{}",
        f.message
    );
    // A larger memory moves the limit.
    let opts = MachineOptions {
        mem_size: Some(8192),
        ..MachineOptions::default()
    };
    let mut m = load_with("mov r1, 5000\nst r1, 0[r1]\nld r2, 0[r1]\n", &opts);
    assert_eq!(run(&mut m).0, StopEvent::Halted);
    assert_eq!(reg(&m, 2), 5000);
}

#[test]
fn negative_shifts_fault() {
    for (op, what) in [
        ("lsl", "logical left shift"),
        ("lsr", "logical right shift"),
        ("asr", "arithmetic right shift"),
    ] {
        let src = format!("mov r2, -3\n{op} r1, r1, r2\n");
        let f = fault_of(load(&src).run(10).stop.unwrap());
        assert_eq!(f.kind, FaultKind::Other);
        assert_eq!(
            f.message,
            format!("Cannot perform {what} by a negative number (shift amount -3, t.asm line 2)")
        );
    }
}

#[test]
fn running_past_the_end_halts_and_stays_halted() {
    let mut m = load("mov r1, 1\n");
    let out = m.run(100);
    assert_eq!((out.executed, out.stop), (1, Some(StopEvent::Halted)));
    assert_eq!(m.pc(), 4);
    assert_eq!(m.run(100).stop, Some(StopEvent::Halted));
    assert_eq!(m.step(), Some(StopEvent::Halted));
    // A branch to a label after the last instruction ends the program too.
    let mut m = load("b .exit\nmov r1, 9\n.exit:\n");
    assert_eq!(run(&mut m).0, StopEvent::Halted);
    assert_eq!(reg(&m, 1), 0);
    // So does a ret to a wild return address.
    let mut m = load("mov ra, -4\nret\nmov r1, 1\n");
    assert_eq!(run(&mut m).0, StopEvent::Halted);
    assert_eq!(m.pc(), 0xffff_fffc);
    assert_eq!(reg(&m, 1), 0);
}

#[test]
fn empty_program_halts_at_once() {
    let mut m = load("\n\n");
    assert_eq!(m.run(10).stop, Some(StopEvent::Halted));
    assert_eq!(m.instructions_executed(), 0);
    // A comment line is an instruction slot in the course interpreter, one that does nothing.
    let mut m = load("@ nothing\n");
    assert_eq!(m.run(10).stop, Some(StopEvent::Halted));
    assert_eq!(m.instructions_executed(), 1);
}

#[test]
fn entry_is_main_when_present() {
    let m = load("mov r1, 1\n.main:\nmov r2, 2\n");
    assert_eq!(m.pc(), 4);
    let m = load("mov r1, 1\nmain: mov r2, 2\n");
    assert_eq!(m.pc(), 4, "main without the dot counts too");
    let m = load("mov r1, 1\n.start: mov r2, 2\n");
    assert_eq!(m.pc(), 0);
}

#[test]
fn registers_are_named_as_the_course_writes_them() {
    let mut m = load("mov r1, 5\ncmp r1, 2\n");
    let names: Vec<&str> = m.registers().iter().map(|r| r.name).collect();
    assert_eq!(
        names,
        [
            "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "r13",
            "sp", "ra", "pc", "flags"
        ]
    );
    assert!(m.registers().iter().all(|r| r.bits == 32));
    run(&mut m);
    assert_eq!(m.read_register(16), Some(8));
    assert_eq!(m.read_register(17), Some(2), "GT is bit 1");
    assert_eq!(m.read_register(18), None);
    assert!(m.write_register(17, 1));
    assert_eq!(m.read_register(17), Some(1));
    assert!(m.write_register(3, 0x1_0000_0007));
    assert_eq!(m.read_register(3), Some(7), "registers are 32-bit");
    assert!(m.write_register(16, 4));
    assert_eq!(m.pc(), 4);
    assert!(!m.write_register(18, 0));
}

#[test]
fn debugger_memory_is_data_bytes() {
    let mut m = load("nop\n");
    assert_eq!(m.unit_bytes(), 1);
    assert_eq!(m.word_units(), 4);
    m.poke_word(100, 0x1122_3344).unwrap();
    assert_eq!(m.debug_read(100), Ok(0x44));
    assert_eq!(m.debug_read(103), Ok(0x11));
    m.debug_write(101, 0xab).unwrap();
    assert_eq!(m.peek_word(100), Ok(0x1122_ab44));
    assert_eq!(m.debug_read(4095), Ok(0));
    assert_eq!(m.debug_read(4096), Err(MemError::Unmapped(4096)));
    assert_eq!(
        m.debug_write(u64::MAX, 1),
        Err(MemError::Unmapped(u64::MAX))
    );
    assert!(m.peek_word(4094).is_err());
}

#[test]
fn poked_input_is_seen_by_the_program() {
    let mut m = load(".main:\nld r1, 1000[r0]\nadd r1, r1, r1\nst r1, 1004[r0]\n");
    m.poke_word(1000, 21).unwrap();
    assert_eq!(run(&mut m).0, StopEvent::Halted);
    assert_eq!(m.peek_word(1004), Ok(42));
}

#[test]
fn disassembly_uses_labels_and_shows_pseudo_ops() {
    let m = load(".main:\n\tmov r1, -3\n.loop:\tld r2, 8[sp]\n\tbgt .loop\n\t.print r1, sp\n\t.encode add r1, r2, 3 @ c\n");
    let dis = |a| m.disassemble(a);
    assert_eq!(dis(0), Some(("mov r1, -3".to_string(), 4)));
    assert_eq!(dis(4), Some(("ld r2, 8[sp]".to_string(), 4)));
    assert_eq!(dis(8), Some(("bgt .loop".to_string(), 4)));
    assert_eq!(dis(12), Some((".print r1, sp".to_string(), 4)));
    assert_eq!(dis(16), Some((".encode add r1, r2, 3".to_string(), 4)));
    assert_eq!(dis(20), None);
    assert_eq!(dis(2), None);
}

#[test]
fn debug_info_has_labels_as_written_and_lines() {
    let m = load("@ header\n.main:\n\tmov r1, 1\nloop: add r1, r1, 1\n\n\tb loop\n.end:\n");
    let info = m.debug_info().expect("debug info");
    let labels: Vec<(&str, u64, SymbolKind)> = info
        .symbols
        .iter()
        .map(|s| (s.name.as_str(), s.addr, s.kind))
        .collect();
    assert_eq!(
        labels,
        [
            (".main", 4, SymbolKind::Code),
            ("loop", 8, SymbolKind::Code),
            (".end", 16, SymbolKind::Code)
        ]
    );
    // The header comment is slot 0, as in the course interpreter; the blank line is none.
    assert_eq!(info.describe(0), Some(("t.asm".to_string(), 1)));
    assert_eq!(info.describe(4), Some(("t.asm".to_string(), 3)));
    assert_eq!(info.describe(8), Some(("t.asm".to_string(), 4)));
    assert_eq!(info.describe(12), Some(("t.asm".to_string(), 6)));
    assert_eq!(info.describe(16), None);
}

#[test]
fn options_are_checked() {
    for size in [0u64, 2, 4094, (1 << 30) + 4] {
        let opts = MachineOptions {
            mem_size: Some(size),
            ..MachineOptions::default()
        };
        match load_machine("t.asm", "nop\n", &opts) {
            Err(LoadError::Option(msg)) => assert!(msg.contains("--mem-size"), "{msg}"),
            other => panic!("{size}: {other:?}"),
        }
    }
    // Which flags SimpleRISC programs accept is SimpleRISC's identity; the command line rejects
    // the others before loading (src/backends.rs tests the message).
    let opts = MachineOptions {
        delay_slots: true,
        profile: Some("patt".into()),
        no_mul: true,
        mem_size: Some(8192),
        ..MachineOptions::default()
    };
    assert_eq!(
        opts.foreign_to(asmdbg_simplerisc::ISA),
        [asmdbg_core::Flag::Profile, asmdbg_core::Flag::DelaySlots]
    );
}

#[test]
fn isa_and_fault_status() {
    let m = load("nop\n");
    assert_eq!(m.isa(), asmdbg_simplerisc::ISA);
    assert_eq!(m.fault_exit_status(), 1);
    assert_eq!(
        m.describe(),
        "simplerisc (ELL305 interpreter), data memory 4096 bytes"
    );
    let opts = MachineOptions {
        no_mul: true,
        mem_size: Some(8192),
        ..MachineOptions::default()
    };
    assert_eq!(
        load_with("nop\n", &opts).describe(),
        "simplerisc (ELL305 interpreter), data memory 8192 bytes, no mul/div/mod"
    );
}

#[test]
fn watchpoints_in_a_large_memory_and_after_removal() {
    // 64 MiB: the cpu's filter marks 16-word granules; the exact check still decides.
    let opts = MachineOptions {
        mem_size: Some(64 << 20),
        ..MachineOptions::default()
    };
    let src = "movh r2, 0x0100\nst r1, 4[r2]\nst r1, 0[r2]\nst r1, 0x40[r2]\n";
    let mut m = load_with(src, &opts);
    m.watchpoints().insert(0x0100_0000, 4, WatchKind::Write);
    assert_eq!(m.run(100).stop, watch(WatchKind::Write, 0x0100_0000));
    assert_eq!(m.pc(), 8, "the neighbour in the same granule did not stop");
    m.watchpoints().remove(0x0100_0000, 4, WatchKind::Write);
    assert_eq!(m.run(100).stop, Some(StopEvent::Halted));
    m.reset();
    m.watchpoints().insert(0x0100_0040, 1, WatchKind::Access);
    assert_eq!(m.run(100).stop, watch(WatchKind::Access, 0x0100_0040));
    assert_eq!(m.pc(), 12);
}
