//! The `Machine` contract on LC-3: the shared suite of `asmdbg_core::contract` on small LC-3
//! programs, then what only an LC-3 has: the OS's input wait, keyboard interrupts, privilege,
//! register names, trap routines.

use asmdbg_core::contract::{Echo, InputSubject, Loop, StraightLine, Subject};
use asmdbg_core::{Machine, MachineOptions, StopEvent};
use asmdbg_lc3::{load_machine, Lc3Machine};

fn machine(source: &str, profile: &str) -> Lc3Machine {
    let opts = MachineOptions {
        profile: Some(profile.to_string()),
        ..Default::default()
    };
    match load_machine("contract.asm", source.as_bytes(), &opts) {
        Ok(m) => m,
        Err(e) => panic!("{e}"),
    }
}

fn label(m: &Lc3Machine, name: &str) -> u64 {
    m.debug_info()
        .and_then(|d| d.symbols.addr(name))
        .unwrap_or_else(|| panic!("no label {name}"))
}

const COUNTER: &str = "\
        .ORIG x3000
        AND R1, R1, #0
        ADD R1, R1, #1
TARGET  ADD R1, R1, #2
        ST R1, DATA
        LD R2, DATA
        ADD R3, R2, #1
        HALT
DATA    .FILL x1111
        .END
";

const LOOP: &str = "\
        .ORIG x3000
        AND R1, R1, #0
BODY    ADD R1, R1, #1
        ST R1, DATA
        BR BODY
DATA    .FILL 0
        .END
";

const ECHO: &str = "\
        .ORIG x3000
        GETC
        OUT
        GETC
        OUT
        HALT
        .END
";

struct Lc3;

impl Subject for Lc3 {
    type M = Lc3Machine;

    fn straight_line(&self) -> StraightLine<Lc3Machine> {
        let machine = machine(COUNTER, "patt");
        let data = label(&machine, "DATA");
        StraightLine {
            machine,
            pcs: (0x3000..=0x3006).collect(),
            store: 3,
            load: 4,
            data,
            old: 0x1111,
            new: 3,
            end: StopEvent::Halted,
        }
    }

    fn endless_loop(&self) -> Loop<Lc3Machine> {
        let machine = machine(LOOP, "lc3tools");
        Loop {
            body: label(&machine, "BODY"),
            data: label(&machine, "DATA"),
            pass: 3,
            machine,
        }
    }

    fn unmapped(&self) -> Vec<u64> {
        vec![0x1_0000, 0x1_0000_0000]
    }
}

impl InputSubject for Lc3 {
    fn echo(&self) -> Echo<Lc3Machine> {
        Echo {
            machine: machine(ECHO, "lc3tools"),
            first: b"a",
            second: b"b",
            first_output: b"a",
            final_output: b"ab\n\n--- Halting the LC-3 ---\n\n",
            end: StopEvent::Halted,
        }
    }
}

asmdbg_core::contract_tests!(Lc3);
asmdbg_core::contract_input_tests!(Lc3);

#[test]
fn need_input_stops_without_consuming_and_resumes_after_input() {
    let mut m = machine(ECHO, "lc3tools");
    let outcome = m.run(100_000);
    assert_eq!(outcome.stop, Some(StopEvent::NeedInput));
    assert!(m.console().waiting());
    let waiting_pc = m.pc();
    assert!(
        waiting_pc < 0x3000,
        "waits inside the OS's GETC: x{waiting_pc:04X}"
    );
    let (text, _) = m.disassemble(waiting_pc).unwrap();
    assert_eq!(text, "LDI R0, GETC_KBSR");
    // Asking again does not move on.
    assert_eq!(m.run(100_000).stop, Some(StopEvent::NeedInput));
    assert_eq!(m.pc(), waiting_pc);
    // The debugger can look at the keyboard without taking the key.
    m.console().push_input(b"a");
    assert!(!m.console().waiting());
    assert_eq!(m.debug_read(0xFE00), Ok(0x8000));
    assert_eq!(m.debug_read(0xFE02), Ok(b'a' as u32));
    assert_eq!(m.console().pending_input(), 1);
    assert_eq!(m.run(100_000).stop, Some(StopEvent::NeedInput));
    assert_eq!(m.console().take_output(), b"a");
    m.console().push_input(b"b");
    assert_eq!(m.run(100_000).stop, Some(StopEvent::Halted));
    assert_eq!(
        m.console().take_output(),
        b"b\n\n--- Halting the LC-3 ---\n\n"
    );
}

#[test]
fn reset_reloads_the_os_too() {
    let mut m = machine(COUNTER, "patt");
    let vector = m.debug_read(0x0025);
    m.debug_write(0x0025, 0).unwrap();
    m.reset();
    assert_eq!(m.debug_read(0x0025), vector, "HALT vector restored");
    assert_ne!(vector, Ok(0));
}

#[test]
fn registers_and_their_names() {
    let mut m = machine(COUNTER, "lc3tools");
    let names: Vec<&str> = m.registers().iter().map(|r| r.name).collect();
    assert_eq!(
        names,
        ["R0", "R1", "R2", "R3", "R4", "R5", "R6", "R7", "PC", "PSR", "SSP", "USP"]
    );
    assert_eq!(m.read_register(8), Some(0x3000));
    assert_eq!(
        m.read_register(9),
        Some(0x8002),
        "lc3tools starts in user mode, Z"
    );
    assert_eq!(m.read_register(10), Some(0x3000));
    assert_eq!(m.read_register(12), None);
    assert!(m.write_register(3, 0x1_2345), "wider values are truncated");
    assert_eq!(m.read_register(3), Some(0x2345));
    assert!(m.write_register(8, 0x3002));
    assert_eq!(m.pc(), 0x3002);
    assert!(!m.write_register(12, 0));
    assert_eq!((m.unit_bytes(), m.word_units()), (2, 1));
    assert_eq!(m.describe(), "lc3, profile lc3tools");
    assert!(m.debug_read(0x10000).is_err());
    assert!(m.debug_write(0x10000, 0).is_err());
}

#[test]
fn supervisor_psr_written_by_the_debugger_lifts_access_control() {
    let source = "        .ORIG x3000\n        LDI R0, AT\n        HALT\nAT      .FILL x0025\n        .END\n";
    let mut m = machine(source, "lc3tools");
    m.write_register(9, 0x0002);
    assert_eq!(m.step(), None);
    assert_eq!(m.read_register(0), m.debug_read(0x25).ok().map(u64::from));
    assert_eq!(m.pc(), 0x3001);
}

#[test]
fn disassembly_uses_labels() {
    let m = machine(COUNTER, "patt");
    assert_eq!(m.disassemble(0x3003), Some(("ST R1, DATA".to_string(), 1)));
    assert_eq!(m.disassemble(0x3006), Some(("HALT".to_string(), 1)));
    assert_eq!(m.disassemble(0x10000), None);
}

#[test]
fn keyboard_interrupt_runs_the_isr_when_input_arrives() {
    let mut m = machine(INTERRUPTS, "patt");
    let isr = label(&m, "ISR");
    let spin = m.run(10_000);
    assert_eq!(
        spin.stop, None,
        "spins without input: no interrupt, no input wait"
    );
    assert_eq!(spin.executed, 10_000);
    m.breakpoints().insert(isr);
    m.console().push_input(b"k");
    assert_eq!(m.run(10_000).stop, Some(StopEvent::Breakpoint));
    assert_eq!(m.pc(), isr);
    let psr = m.read_register(9).unwrap();
    assert_eq!(psr & 0x8700, 0x0400, "supervisor mode at priority 4");
    assert_eq!(m.read_register(6), Some(0x2FFE), "on the supervisor stack");
    let pushed_pc = m.debug_read(0x2FFE).unwrap();
    assert!(
        (0x3004..=0x3005).contains(&pushed_pc),
        "interrupted in SPIN"
    );
    let pushed_psr = m.debug_read(0x2FFF).unwrap();
    assert_eq!(pushed_psr & 0x8700, 0x8000, "the user-mode PSR is saved");
    m.breakpoints().remove(isr);
    assert_eq!(m.run(10_000).stop, Some(StopEvent::Halted));
    assert_eq!(
        m.console().take_output(),
        b"k\n----- Halting the processor ----- \n"
    );
}

#[test]
fn a_step_that_takes_an_interrupt_stops_on_the_routine_before_running_it() {
    let mut m = machine(INTERRUPTS, "patt");
    let isr = label(&m, "ISR");
    assert_eq!(m.run(100).stop, None, "interrupts on, spinning");
    let executed = m.instructions_executed();
    m.console().push_input(b"k");
    assert_eq!(m.step(), None);
    assert_eq!(m.pc(), isr, "at the routine's first instruction");
    assert_eq!(m.instructions_executed(), executed, "no instruction ran");
    assert_eq!(m.read_register(9).map(|p| p & 0x8700), Some(0x0400));
    assert_eq!(m.step(), None);
    assert_eq!(m.pc(), isr + 1, "the next step runs it");
    assert_eq!(m.instructions_executed(), executed + 1);
}

#[test]
fn interrupts_wait_for_a_priority_below_four_and_do_not_nest() {
    let mut m = machine(INTERRUPTS, "patt");
    let isr = label(&m, "ISR");
    assert_eq!(m.run(100).stop, None, "interrupts on, spinning");
    // Running at priority 4 (still user mode): a key waits.
    m.write_register(9, 0x8400);
    m.console().push_input(b"ab");
    m.breakpoints().insert(isr);
    assert_eq!(m.run(1000).stop, None, "no interrupt at PL4");
    // Back at priority 0 it is taken; the second key waits until the routine's RTI (the
    // routine runs at PL4), then interrupts the program again, not the routine.
    m.write_register(9, 0x8000);
    assert_eq!(m.run(1000).stop, Some(StopEvent::Breakpoint));
    assert_eq!(m.pc(), isr);
    let first = m.debug_read(0x2FFE).unwrap();
    assert!(
        first >= 0x3004 && first < isr as u32,
        "pushed PC {first:#x}"
    );
    assert_eq!(m.read_register(6), Some(0x2FFE));
    assert_eq!(m.run(1000).stop, Some(StopEvent::Breakpoint));
    assert_eq!(m.pc(), isr);
    assert_eq!(m.read_register(6), Some(0x2FFE), "not nested: one frame");
    let second = m.debug_read(0x2FFE).unwrap();
    assert!(
        second >= 0x3004 && second < isr as u32,
        "pushed PC {second:#x}"
    );
}

#[test]
fn lc3tools_interrupt_switches_stacks_and_rti_restores_user_mode() {
    // A user program cannot program KBSR or the vector table under lc3tools; the debugger can.
    let source = "\
        .ORIG x3000
SPIN    LD R3, GOT
        BRz SPIN
        HALT
GOT     .FILL 0
        .END
        .ORIG x4000
ISR     LDI R3, KBDR_AT
        STI R3, GOT_AT
        RTI
KBDR_AT .FILL xFE02
GOT_AT  .FILL x3003
        .END
";
    let mut m = machine(source, "lc3tools");
    m.debug_write(0x0180, 0x4000).unwrap();
    m.debug_write(0xFE00, 0x4000).unwrap();
    m.write_register(6, 0xBEEF);
    m.breakpoints().insert(0x4002);
    m.console().push_input(b"z");
    assert_eq!(m.run(1000).stop, Some(StopEvent::Breakpoint));
    assert_eq!(m.read_register(9).map(|p| p & 0x8700), Some(0x0400));
    assert_eq!(m.read_register(11), Some(0xBEEF), "user R6 saved");
    assert_eq!(m.step(), None, "RTI");
    assert_eq!(m.read_register(6), Some(0xBEEF));
    assert_eq!(m.read_register(9).map(|p| p & 0x8700), Some(0x8000));
    assert_eq!(m.run(1000).stop, Some(StopEvent::Halted));
    assert_eq!(m.debug_read(0x3003), Ok(b'z' as u32));
}

#[test]
fn lc3sim_has_no_interrupts() {
    let mut m = machine(INTERRUPTS, "lc3sim");
    m.console().push_input(b"k");
    let outcome = m.run(10_000);
    assert_eq!(outcome.stop, None, "keeps spinning: KBSR[14] is ignored");
    assert_eq!(m.console().pending_input(), 1);
}

#[test]
fn lc3tools_trap_routines_are_reentrant_for_interrupt_routines() {
    // The ISR prints with PUTS while the program is inside its own PUTS.
    let source = "\
        .ORIG x3000
        LEA R0, TEXT
        PUTS
        HALT
TEXT    .STRINGZ \"abcdefgh\"
        .END
        .ORIG x4000
ISR     ADD R6, R6, #-1
        STR R0, R6, #0
        LDI R0, KBDR_AT
        LEA R0, MSG
        PUTS
        LDR R0, R6, #0
        ADD R6, R6, #1
        RTI
KBDR_AT .FILL xFE02
MSG     .STRINGZ \"<k>\"
        .END
";
    let mut m = machine(source, "lc3tools");
    m.debug_write(0x0180, 0x4000).unwrap();
    m.debug_write(0xFE00, 0x4000).unwrap();
    while m.console().output().len() < 3 {
        assert_eq!(m.step(), None);
    }
    m.console().push_input(b"k");
    assert_eq!(m.run(100_000).stop, Some(StopEvent::Halted));
    assert_eq!(
        String::from_utf8_lossy(&m.console().take_output()),
        "abc<k>defgh\n\n--- Halting the LC-3 ---\n\n"
    );
}

#[test]
fn stepping_into_a_trap_lands_in_the_os_routine() {
    for (profile, first) in [
        ("patt", "ST R7, SAVED_R7"),
        ("lc3sim", "ST R7, SAVED_R7"),
        ("lc3tools", "LDI R0, GETC_KBSR"),
    ] {
        let mut m = machine(ECHO, profile);
        let vector = m.debug_read(0x20).unwrap() as u64;
        assert_eq!(m.step(), None, "{profile}: GETC");
        assert_eq!(m.pc(), vector, "{profile}");
        let routine = m.os_debug_info().symbols.addr("TRAP_GETC").expect("label");
        assert_eq!(vector, routine, "{profile}");
        assert_eq!(m.disassemble(vector).map(|d| d.0).as_deref(), Some(first));
        let r7 = m.read_register(7);
        let expected_r7 = if profile == "lc3tools" {
            Some(0)
        } else {
            Some(0x3001)
        };
        assert_eq!(r7, expected_r7, "{profile}: R7 after TRAP");
    }
}

/// Installs an ISR at x0180's vector, enables KBSR[14], and spins until the ISR stores a key.
const INTERRUPTS: &str = "\
        .ORIG x3000
        LD R0, ISR_AT
        STI R0, IVT_AT
        LD R0, IE
        STI R0, KBSR_AT
SPIN    LD R3, GOT
        BRz SPIN
        ADD R0, R3, #0
        OUT
        HALT
ISR     ST R0, SAVED
        LDI R0, KBDR_AT
        ST R0, GOT
        LD R0, SAVED
        RTI
ISR_AT  .FILL ISR
IVT_AT  .FILL x0180
IE      .FILL x4000
KBSR_AT .FILL xFE00
KBDR_AT .FILL xFE02
GOT     .FILL 0
SAVED   .BLKW 1
        .END
";
