//! The compilers against the interpreter (`differential/mod.rs`, shared with the fuzz target
//! `differential`): generated programs of each ISA run compiled and interpreted with the same
//! budgets, breakpoints and watchpoints must agree after every run and step.

mod differential;

use differential::{generate, run_case, Isa, Limits};

/// Small enough for the debug test profile.
const LIMITS: Limits = Limits {
    instructions: 20_000,
    turns: 120,
};

/// Deterministic pseudo-random bytes (xorshift), so that each seed is one fixed case.
fn bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

fn seeds(isa: Isa, count: u64) {
    for seed in 0..count {
        let data = bytes(seed, 200 + (seed as usize * 37) % 800);
        run_case(&generate(isa, &data), LIMITS);
    }
}

#[test]
fn lc3_compiled_code_matches_the_interpreter() {
    seeds(Isa::Lc3, 150);
}

#[test]
fn mips_compiled_code_matches_the_interpreter() {
    seeds(Isa::Mips, 150);
}

#[test]
fn simplerisc_compiled_code_matches_the_interpreter() {
    seeds(Isa::SimpleRisc, 150);
}
