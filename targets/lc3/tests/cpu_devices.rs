//! Memory-mapped devices on raw instruction words (isa-specs A.2), and a robustness run over
//! random memory images.

use asmdbg_core::{StopEvent, WatchKind};
use asmdbg_lc3::cpu::{Cpu, Semantics, DDR, DSR, KBDR, KBSR, MCR, PSR_ADDR, PSR_USER};
use asmdbg_lc3::os::{LC3SIM, LC3TOOLS, PATT};

mod common;

/// A supervisor-mode cpu with `words` at x3000 and device addresses at x3100.. for LDI/STI.
fn cpu_with(semantics: Semantics, words: &[u16]) -> Cpu {
    common::cpu_at_x3000(semantics, 0x0002, words)
}

/// `LDI R0, x3100` / `STI R0, x3100` at x3000 with the pointer x3100 = `device`.
fn device_access(semantics: Semantics, store: bool, device: u16) -> Cpu {
    let opcode = if store { 0xB000 } else { 0xA000 };
    let mut cpu = cpu_with(semantics, &[opcode | 0xFF]);
    cpu.mem_mut()[0x3100] = device;
    cpu
}

#[test]
fn display_prints_low_byte_and_lc3tools_turns_cr_into_newline() {
    for (semantics, cr) in [(PATT.semantics, b'\r'), (LC3TOOLS.semantics, b'\n')] {
        for (value, printed) in [(0x0141u16, b'A'), (0x000D, cr)] {
            let mut cpu = device_access(semantics, true, DDR);
            cpu.regs[0] = value;
            assert_eq!(cpu.step(), None);
            assert_eq!(cpu.console.take_output(), [printed]);
        }
    }
    let mut cpu = device_access(PATT.semantics, false, DSR);
    assert_eq!(cpu.step(), None);
    assert_eq!(cpu.regs[0], 0x8000, "the display is always ready");
    assert_eq!(cpu.psr() & 7, 4);
}

#[test]
fn keyboard_status_data_and_waiting() {
    // Checking the keyboard once without a key says "not ready" and goes on.
    let mut cpu = device_access(PATT.semantics, false, KBSR);
    assert_eq!(cpu.step(), None);
    assert_eq!(cpu.regs[0], 0);
    assert_eq!(cpu.pc, 0x3001);
    // A loop that keeps polling is waiting for a key: it stops before the read commits.
    let mut cpu = cpu_with(PATT.semantics, &[0xA0FF, 0x07FE]); // LDI R0, x3100; BRzp x3000
    cpu.mem_mut()[0x3100] = KBSR;
    assert_eq!(cpu.run(1_000_000).stop, Some(StopEvent::NeedInput));
    assert_eq!(cpu.pc, 0x3000, "not committed");
    assert!(
        cpu.instructions_executed() < 2_100,
        "noticed within the first polls"
    );
    assert!(cpu.console.waiting());
    cpu.console.push_input(b"x");
    assert_eq!(cpu.step(), None);
    assert_eq!(cpu.regs[0], 0x8000);
    assert_eq!(cpu.console.pending_input(), 1, "KBSR does not take the key");
    // Output between the polls means the program is busy, not waiting.
    let mut cpu = cpu_with(
        PATT.semantics,
        &[0xA0FF, 0xB0FF, 0x0FFD], // LDI R0, x3100; STI R0, x3101; BRnzp x3000
    );
    cpu.mem_mut()[0x3100] = KBSR;
    cpu.mem_mut()[0x3101] = DDR;
    assert_eq!(cpu.run(30_000).stop, None);

    let mut cpu = device_access(PATT.semantics, false, KBDR);
    assert_eq!(cpu.step(), Some(StopEvent::NeedInput));
    cpu.console.push_input(b"xy");
    assert_eq!(cpu.step(), None);
    assert_eq!(cpu.regs[0], b'x' as u16);
    assert_eq!(cpu.console.pending_input(), 1, "KBDR takes it");

    // Writes to KBSR keep only the interrupt enable; writes to KBDR do nothing.
    let mut cpu = device_access(PATT.semantics, true, KBSR);
    cpu.regs[0] = 0xFFFF;
    assert_eq!(cpu.step(), None);
    assert_eq!(cpu.peek(KBSR), 0x4000);
    cpu.console.push_input(b"q");
    assert_eq!(cpu.peek(KBSR), 0xC000);
    assert_eq!(cpu.peek(KBDR), b'q' as u16);
    assert_eq!(cpu.console.pending_input(), 1, "peek has no side effect");
}

#[test]
fn machine_control_register_stops_the_clock() {
    let mut cpu = device_access(PATT.semantics, false, MCR);
    assert_eq!(cpu.step(), None);
    assert_eq!(cpu.regs[0], 0x8000, "clock running");
    let mut cpu = device_access(PATT.semantics, true, MCR);
    cpu.regs[0] = 0x7FFF;
    assert_eq!(cpu.step(), Some(StopEvent::Halted));
    assert!(cpu.halted());
    assert_eq!(cpu.instructions_executed(), 1, "the store counts");
    cpu.poke(MCR, 0x8000);
    assert!(!cpu.halted(), "a debugger can restart the clock");
}

#[test]
fn psr_is_mapped_only_for_lc3tools() {
    let mut cpu = device_access(LC3TOOLS.semantics, false, PSR_ADDR);
    cpu.set_psr(0x0301);
    assert_eq!(cpu.step(), None);
    assert_eq!(cpu.regs[0], 0x0301);
    // Storing a user-mode PSR drops to user mode.
    let mut cpu = device_access(LC3TOOLS.semantics, true, PSR_ADDR);
    cpu.regs[0] = PSR_USER | 1;
    assert_eq!(cpu.step(), None);
    assert!(cpu.is_user());
    assert_eq!(cpu.psr(), PSR_USER | 1);
    // Elsewhere xFFFC is plain memory.
    let mut cpu = device_access(LC3SIM.semantics, false, PSR_ADDR);
    cpu.mem_mut()[PSR_ADDR as usize] = 0x1234;
    assert_eq!(cpu.step(), None);
    assert_eq!(cpu.regs[0], 0x1234);
}

#[test]
fn other_device_addresses_are_memory() {
    let mut cpu = device_access(PATT.semantics, true, 0xFE10);
    cpu.regs[0] = 0xABCD;
    assert_eq!(cpu.step(), None);
    assert_eq!(cpu.peek(0xFE10), 0xABCD);
}

#[test]
fn watchpoint_on_a_device_register_stops_before_output() {
    let mut cpu = device_access(PATT.semantics, true, DDR);
    cpu.regs[0] = b'Z' as u16;
    cpu.watchpoints.insert(DDR as u64, 1, WatchKind::Write);
    assert_eq!(
        cpu.run(10).stop,
        Some(StopEvent::Watch {
            kind: WatchKind::Write,
            addr: DDR as u64
        })
    );
    assert!(cpu.console.output().is_empty());
    assert_eq!(cpu.step(), None);
    assert_eq!(cpu.console.take_output(), b"Z");
}

#[test]
fn resumed_watched_store_completes_before_a_pending_interrupt() {
    // ST R0, x3002 with a write watch on x3002; KBSR[14] set; a key arrives during the stop.
    let mut cpu = cpu_with(PATT.semantics, &[0x3000, 0x0000]);
    cpu.mem_mut()[0x0180] = 0x0600;
    cpu.poke(KBSR, 0x4000);
    cpu.regs[0] = 0x7777;
    cpu.regs[6] = 0x2000; // supervisor mode: the interrupt pushes on R6 itself
    cpu.watchpoints.insert(0x3001, 1, WatchKind::Write);
    let watch = Some(StopEvent::Watch {
        kind: WatchKind::Write,
        addr: 0x3001,
    });
    assert_eq!(cpu.run(10).stop, watch);
    cpu.console.push_input(b"k");
    assert_eq!(cpu.step(), None);
    assert_eq!(
        cpu.mem()[0x3001],
        0x7777,
        "the store ran, not the interrupt"
    );
    assert_eq!(cpu.pc, 0x3001);
    assert_eq!(
        cpu.step(),
        None,
        "now the interrupt is taken, then x0600 runs"
    );
    assert_eq!(cpu.regs[6], 0x1FFE);
    assert_eq!(cpu.mem()[0x1FFE], 0x3001, "interrupted after the store");
}

/// xorshift64: deterministic pseudo-random words without a dependency.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Random memory images, random registers and PSR, under every profile: each run ends in a
/// defined stop or uses its budget, instruction counts add up, and nothing panics.
#[test]
fn random_memory_images_never_panic() {
    let mut rng = Random(0x9E37_79B9_7F4A_7C15);
    for round in 0..48 {
        let semantics = [PATT.semantics, LC3TOOLS.semantics, LC3SIM.semantics][round % 3];
        let mut cpu = Cpu::new(semantics);
        for word in cpu.mem_mut().iter_mut() {
            *word = rng.next() as u16;
        }
        cpu.reset_state(rng.next() as u16, rng.next() as u16, rng.next() as u16);
        for r in cpu.regs.iter_mut() {
            *r = rng.next() as u16;
        }
        for _ in 0..4 {
            cpu.breakpoints.insert(rng.next() & 0xFFFF);
            cpu.watchpoints
                .insert(rng.next() & 0xFFFF, 1 + (rng.next() & 3), WatchKind::Access);
        }
        let mut counted = 0;
        for _ in 0..200 {
            let outcome = cpu.run(2_000);
            assert!(outcome.executed <= 2_000);
            counted += outcome.executed;
            match outcome.stop {
                None | Some(StopEvent::Watch { .. }) => {}
                Some(StopEvent::Breakpoint) => {
                    if let Some(StopEvent::Halted) = cpu.step() {
                        break;
                    }
                    counted = cpu.instructions_executed();
                }
                Some(StopEvent::NeedInput) => cpu.console.push_input(&[rng.next() as u8]),
                Some(StopEvent::Fault(fault)) => {
                    assert_eq!(fault.pc, cpu.pc as u64);
                    assert!(fault.message.starts_with("Illegal instruction at x"));
                    cpu.set_pc(cpu.pc.wrapping_add(1));
                }
                Some(StopEvent::Halted) => break,
                Some(other) => panic!("unexpected stop {other:?}"),
            }
        }
        assert_eq!(cpu.instructions_executed(), counted, "round {round}");
    }
}
