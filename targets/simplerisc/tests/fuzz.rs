//! No input may panic: random code words with random registers and memory, random assembly
//! text, and the debugger poking at random addresses.

use asmdbg_core::{Machine, MachineOptions, StopEvent, WatchKind};
use asmdbg_simplerisc::{assemble, load_machine, AsmOptions, Program, SrMachine};

/// xorshift64*: deterministic, so a failure reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

/// A random word that is a valid instruction most of the time (so runs get somewhere) and
/// anything at all otherwise.
fn random_word(rng: &mut Rng) -> u32 {
    let w = rng.next() as u32;
    if rng.below(4) == 0 {
        return w;
    }
    let opcode = rng.below(23) as u32;
    let body = w & 0x07ff_ffff;
    let body = if (16..=19).contains(&opcode) {
        // Short branches, mostly backwards and forwards within the program.
        (rng.below(16) as i32 - 8) as u32 & 0x07ff_ffff
    } else {
        body & !(3 << 16) | (rng.below(3) as u32) << 16
    };
    opcode << 27 | body
}

#[test]
fn random_code_and_memory_never_panic() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut stops = [0usize; 4];
    for round in 0..3000 {
        let len = 1 + rng.below(40) as usize;
        let words: Vec<u32> = (0..len).map(|_| random_word(&mut rng)).collect();
        let opts = MachineOptions {
            mem_size: Some(4 * (1 + rng.below(64))),
            ..MachineOptions::default()
        };
        let mut m = SrMachine::new(Program::from_words(&words), &opts).expect("machine");
        for r in 0..16 {
            let v = if rng.below(2) == 0 {
                rng.below(300)
            } else {
                rng.next()
            };
            m.write_register(r, v);
        }
        m.write_register(17, rng.below(4));
        for a in 0..m.cpu().mem.len() as u64 {
            m.poke_word(a * 4, rng.next() as u32).expect("in range");
        }
        if rng.below(3) == 0 {
            m.breakpoints().insert(4 * rng.below(len as u64 + 2));
        }
        if rng.below(3) == 0 {
            let kind =
                [WatchKind::Read, WatchKind::Write, WatchKind::Access][rng.below(3) as usize];
            m.watchpoints()
                .insert(rng.below(256), 1 + rng.below(8), kind);
        }
        for addr in 0..(len as u64 + 2) * 4 {
            let _ = m.disassemble(addr);
        }
        let budget = 1 + rng.below(2000);
        let before = m.instructions_executed();
        let out = m.run(budget);
        assert!(out.executed <= budget, "round {round}");
        assert_eq!(m.instructions_executed(), before + out.executed);
        match out.stop {
            None => stops[0] += 1,
            Some(StopEvent::Halted) => stops[1] += 1,
            Some(StopEvent::Fault(f)) => {
                stops[2] += 1;
                assert_eq!(
                    f.pc,
                    m.pc(),
                    "round {round}: a fault leaves the PC on its instruction"
                );
                assert!(!f.message.is_empty());
            }
            Some(_) => stops[3] += 1,
        }
        for _ in 0..5 {
            let _ = m.step();
        }
        let _ = m.run(100);
    }
    // The generator reaches every kind of end, or the test proves little.
    assert!(stops.iter().all(|&n| n > 0), "{stops:?}");
}

#[test]
fn random_assembly_text_never_panics() {
    let pieces = [
        "add",
        "addu",
        "movh",
        "ld",
        "st",
        "b",
        "call",
        "ret",
        ".print",
        ".encode",
        "cmp",
        "lsl",
        "r1",
        "r15",
        "r16",
        "sp",
        "ra",
        ",",
        ",",
        " ",
        " ",
        "[",
        "]",
        "4[r2]",
        "[sp]",
        "-8",
        "0x",
        "0x1f",
        "0x 12",
        "65536",
        "-",
        ":",
        ".main:",
        "lab:",
        "lab",
        ".x",
        "@",
        "//",
        "/*",
        "*/",
        "\n",
        "\n",
        "\t",
        "é",
        "\u{1F600}",
        "\r\n",
        "99999999999999999999",
        "0x123456789abc",
    ];
    let mut rng = Rng(42);
    for _ in 0..5000 {
        let n = rng.below(30);
        let text: String = (0..n).map(|_| rng.pick(&pieces)).collect();
        let no_mul = rng.below(2) == 0;
        if let Ok(program) = assemble(
            "f.asm",
            &text,
            AsmOptions {
                no_mul,
                strict: false,
            },
        ) {
            let mut m = SrMachine::new(program, &MachineOptions::default()).expect("machine");
            let _ = m.run(1000);
        } else if let Err(e) = load_machine("f.asm", &text, &MachineOptions::default()) {
            assert!(!e.to_string().is_empty());
        }
    }
}

#[test]
fn debugger_accesses_anywhere_are_answered() {
    let mut m = load_machine("f.asm", "nop\n", &MachineOptions::default()).expect("machine");
    for addr in [4093u64, 4096, 1 << 32, u64::MAX - 3, u64::MAX] {
        let _ = m.debug_read(addr);
        let _ = m.debug_write(addr, 0x1ff);
        let _ = m.peek_word(addr);
        let _ = m.poke_word(addr, 1);
        let _ = m.disassemble(addr);
        m.set_pc(addr);
        assert_eq!(m.run(10).stop, Some(StopEvent::Halted));
        m.breakpoints().insert(addr);
        m.watchpoints().insert(addr, 4, WatchKind::Access);
    }
    m.set_pc(0);
    assert_eq!(m.run(10).stop, Some(StopEvent::Halted));
}
