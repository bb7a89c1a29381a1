#![no_main]
//! The compilers against the interpreter (testsupport/tests/differential): the first byte
//! picks the ISA (%3 = 0 LC-3, 1 MIPS, 2 SimpleRISC; `DIFFERENTIAL_ISA=N` fixes it to N for
//! every input), the rest a looping program and the debugger's budgets, breakpoints,
//! watchpoints and input; a difference between compiled and interpreted runs panics with the
//! program and the first difference.

use std::sync::OnceLock;

/// `DIFFERENTIAL_ISA`, read once.
fn fixed_isa() -> Option<u8> {
    static ISA: OnceLock<Option<u8>> = OnceLock::new();
    *ISA.get_or_init(|| std::env::var("DIFFERENTIAL_ISA").ok()?.parse().ok())
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    match (fixed_isa(), data.split_first()) {
        (Some(isa), Some((_, rest))) => {
            let mut input = Vec::with_capacity(data.len());
            input.push(isa);
            input.extend_from_slice(rest);
            asmdbg_fuzz::differential(&input);
        }
        _ => asmdbg_fuzz::differential(data),
    }
});
