//! A real-time sleep (syscall 32) does not block inside the cpu: the run ends at the syscall
//! with a wake-up time, runs nothing until then, and goes on after it. The debugger stays
//! responsive meanwhile; `--virtual-time` sleeps on a clock of its own.

use std::time::Instant;

use asmdbg_core::{Machine, MachineOptions, StopEvent};
use asmdbg_mips::load_machine;

const SLEEPER: &str = ".text\nmain: li $a0, 150\nli $v0, 32\nsyscall\nli $v0, 10\nsyscall\n";

#[test]
fn a_real_time_sleep_ends_the_run_and_sets_a_wake_time() {
    let mut m = load_machine("s.asm", SLEEPER, &MachineOptions::default()).expect("assembles");
    let before = Instant::now();
    let out = m.run(1000);
    assert_eq!(out.executed, 3, "li, li, syscall");
    assert_eq!(out.stop, None);
    let wake = m.wake_time().expect("asleep");
    assert!(wake > before);
    assert_eq!(m.pc(), 0x0040_000c, "the syscall completed");
    if Instant::now() < wake {
        let again = m.run(1000);
        assert_eq!(
            (again.executed, again.stop),
            (0, None),
            "nothing runs while asleep"
        );
    }
    std::thread::sleep(wake.saturating_duration_since(Instant::now()));
    let out = m.run(1000);
    assert_eq!(out.stop, Some(StopEvent::Exited(0)));
    assert_eq!(m.wake_time(), None);
}

#[test]
fn virtual_time_never_waits() {
    let opts = MachineOptions {
        virtual_time: true,
        ..Default::default()
    };
    let mut m = load_machine("s.asm", SLEEPER, &opts).expect("assembles");
    let out = m.run(1000);
    assert_eq!(out.stop, Some(StopEvent::Exited(0)));
    assert_eq!(m.wake_time(), None);
}
