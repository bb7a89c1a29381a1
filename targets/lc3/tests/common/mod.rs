//! Helpers the cpu tests share.

use asmdbg_lc3::cpu::{Cpu, Semantics};

/// A cpu with `words` at x3000, the PC there, the given PSR and the supervisor stack at x3000.
/// No OS image: trap and exception tables are written by the test where it needs them.
pub fn cpu_at_x3000(semantics: Semantics, psr: u16, words: &[u16]) -> Cpu {
    let mut cpu = Cpu::new(semantics);
    for (i, &w) in words.iter().enumerate() {
        cpu.mem_mut()[0x3000 + i] = w;
    }
    cpu.reset_state(0x3000, psr, 0x3000);
    cpu
}
