//! The compilers against the interpreter: from arbitrary bytes, a program of one ISA that loops
//! (code compiles only once entered often, `ENTRIES_BEFORE_COMPILING`) over arithmetic on edge
//! values, loads and stores in and out of the compiled code's plain path (device registers,
//! watched words, LC-3 system space and the user window, MIPS data, stack, heap and MMIO) and
//! branches on every condition; then two machines of it, one running compiled code and one
//! interpreting everything (`Machine::set_compiled_code`), given the same breakpoints,
//! watchpoints and console input, run with the same sequence of budgets and single steps.
//! After every run or step both must agree on the outcome (instructions executed and the
//! stop), the PC, the instruction count, every register, the output, the words the program
//! touches and the whole snapshot state. A difference panics with the program and the first
//! thing that differs.
//!
//! Shared by `testsupport/tests/compiled_vs_interpreted.rs` (bounded, in `cargo test`) and the
//! fuzz target `differential` (`scripts/fuzz differential`), which includes this file.

#![allow(dead_code)]

use std::fmt::Write as _;

use asmdbg_core::{
    resolve_address, Machine, MachineOptions, RunOutcome, Snapshot, StopEvent, WatchKind,
};

/// The machine a case runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isa {
    Lc3,
    Mips,
    SimpleRisc,
}

impl Isa {
    /// The ISA a fuzz input's first byte picks.
    pub fn of(selector: u8) -> Isa {
        match selector % 3 {
            0 => Isa::Lc3,
            1 => Isa::Mips,
            _ => Isa::SimpleRisc,
        }
    }
}

/// The fuzz input, a byte at a time (zeros once it is used up). The fuzz crate, which includes
/// this module, reads its other targets' inputs with it too.
pub(crate) struct Bytes<'a>(pub(crate) &'a [u8]);

impl Bytes<'_> {
    pub(crate) fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }

    /// A number below `n` (n > 0).
    fn below(&mut self, n: usize) -> usize {
        self.byte() as usize % n
    }

    fn pick<T: Clone>(&mut self, from: &[T]) -> T {
        from[self.below(from.len())].clone()
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// One turn of the schedule both machines follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Turn {
    Run(u64),
    Step,
}

/// Budgets a schedule's turns pick from: single instructions, bits of a round, whole loops.
const BUDGETS: [u64; 15] = [
    1, 7, 100, 3000, 2, 3, 5, 13, 64, 250, 1000, 4, 9, 20_000, 50,
];

/// A generated case: the program, how the machines are made, and what the debugger does.
#[derive(Debug, Clone)]
pub struct Case {
    pub isa: Isa,
    pub source: String,
    pub opts: MachineOptions,
    /// Breakpoint addresses as labels of the program or numbers.
    pub breakpoints: Vec<String>,
    /// Watchpoints: an address (label or number), an offset from it, a length, a kind.
    pub watchpoints: Vec<(String, u64, u64, WatchKind)>,
    /// Console input, then closed.
    pub input: Vec<u8>,
    /// Keys pressed on the keyboard device at the start (MIPS MMIO).
    pub keys: Vec<u8>,
    /// Turns, repeated until the program ends or the caps are reached.
    pub schedule: Vec<Turn>,
    /// Words (address expression, offset, count) compared by address after every turn.
    pub touched: Vec<(String, u64, u64)>,
}

impl std::fmt::Display for Case {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "{:?} program:\n{}", self.isa, self.source)?;
        writeln!(f, "options: {:?}", self.opts)?;
        writeln!(f, "breakpoints: {:?}", self.breakpoints)?;
        writeln!(f, "watchpoints: {:?}", self.watchpoints)?;
        writeln!(f, "input: {:?}, keys: {:?}", self.input, self.keys)?;
        write!(f, "schedule: {:?}", self.schedule)
    }
}

/// What one machine shows after a turn, in the order differences are reported.
struct Seen {
    outcome: RunOutcome,
    pc: u64,
    executed: u64,
    registers: Vec<Option<u64>>,
    output: Vec<u8>,
    stderr: Vec<u8>,
    words: Vec<(u64, Option<u32>)>,
}

/// Limits of one case.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Instructions in all (each machine).
    pub instructions: u64,
    /// Turns in all.
    pub turns: usize,
}

/// Enough for every generated program's loops, and well under a second per case.
pub const FUZZ_LIMITS: Limits = Limits {
    instructions: 200_000,
    turns: 400,
};

/// The whole check on a fuzz input: the first byte picks the ISA.
pub fn check(data: &[u8], limits: Limits) {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let case = generate(Isa::of(selector), rest);
    run_case(&case, limits);
}

/// The case `data` describes for `isa`.
pub fn generate(isa: Isa, data: &[u8]) -> Case {
    let mut b = Bytes(data);
    let options = b.byte();
    let mut schedule = Vec::new();
    for _ in 0..8 {
        let byte = b.byte();
        for nibble in [byte & 15, byte >> 4] {
            schedule.push(match nibble {
                0 => Turn::Step,
                n => Turn::Run(BUDGETS[n as usize - 1]),
            });
        }
    }
    let input: Vec<u8> = (0..b.below(8)).map(|_| b"ab\n-7 0"[b.below(7)]).collect();
    let trap_bytes = [b.byte(), b.byte(), b.byte(), b.byte(), b.byte(), b.byte()];
    let mut program = match isa {
        Isa::Lc3 => lc3(&mut b, options),
        Isa::Mips => mips(&mut b, options),
        Isa::SimpleRisc => simplerisc(&mut b, options),
    };
    // Breakpoints on the loops' code, watchpoints on their data.
    let mut t = Bytes(&trap_bytes);
    let counts = t.byte();
    let breakpoints = (0..counts % 3)
        .map(|_| t.pick(&program.code_labels))
        .collect();
    let watchpoints = (0..(counts >> 2) % 3)
        .map(|_| {
            let (base, offset, len) = t.pick(&program.watchable);
            let k = t.byte();
            let kind = [WatchKind::Write, WatchKind::Read, WatchKind::Access][k as usize % 3];
            (base, offset, len, kind)
        })
        .collect();
    let keys = if program.opts.mmio {
        input.iter().rev().copied().collect()
    } else {
        Vec::new()
    };
    Case {
        isa,
        source: std::mem::take(&mut program.source),
        opts: program.opts,
        breakpoints,
        watchpoints,
        input,
        keys,
        schedule,
        touched: program.touched,
    }
}

/// What a generator returns besides the source.
struct Program {
    source: String,
    opts: MachineOptions,
    code_labels: Vec<String>,
    watchable: Vec<(String, u64, u64)>,
    touched: Vec<(String, u64, u64)>,
}

/// Runs `case` compiled and interpreted; panics at the first difference.
pub fn run_case(case: &Case, limits: Limits) {
    match case.isa {
        Isa::Lc3 => {
            let load = || asmdbg_lc3::load_machine("diff.asm", case.source.as_bytes(), &case.opts);
            compare(case, limits, load);
        }
        Isa::Mips => {
            let load = || asmdbg_mips::load_machine("diff.asm", &case.source, &case.opts);
            compare(case, limits, load);
        }
        Isa::SimpleRisc => {
            let load = || asmdbg_simplerisc::load_machine("diff.asm", &case.source, &case.opts);
            compare(case, limits, load);
        }
    }
}

fn compare<M, E>(case: &Case, limits: Limits, load: impl Fn() -> Result<M, E>)
where
    M: Machine + Snapshot,
    E: std::fmt::Display,
{
    let (mut compiled, mut interpreted) = match (load(), load()) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => panic!("a generated program must load: {e}\n{case}"),
    };
    compiled.set_compiled_code(true);
    interpreted.set_compiled_code(false);
    let mut touched = Vec::new();
    for m in [&mut compiled, &mut interpreted] {
        set_up(m, case, &mut touched);
    }
    let mut log = String::new();
    let mut total = 0;
    let mut turn_index = 0;
    while total < limits.instructions && turn_index < limits.turns {
        let turn = case.schedule[turn_index % case.schedule.len()];
        turn_index += 1;
        let a = take_turn(&mut compiled, turn, &touched);
        let b = take_turn(&mut interpreted, turn, &touched);
        let _ = writeln!(log, "{turn:?} -> {:?} at pc {:#x}", a.outcome, a.pc);
        differ(case, &log, &a, &b, &compiled, &interpreted);
        total += a.outcome.executed;
        match a.outcome.stop {
            Some(StopEvent::Halted | StopEvent::Exited(_) | StopEvent::Fault(_)) => return,
            Some(StopEvent::NeedInput) if compiled.console().input_closed() => return,
            Some(StopEvent::Breakpoint) => {
                // Past the breakpoint, as a debugger steps over it.
                let a = take_turn(&mut compiled, Turn::Step, &touched);
                let b = take_turn(&mut interpreted, Turn::Step, &touched);
                let _ = writeln!(log, "Step -> {:?} at pc {:#x}", a.outcome, a.pc);
                differ(case, &log, &a, &b, &compiled, &interpreted);
                total += 1;
                if matches!(
                    a.outcome.stop,
                    Some(StopEvent::Halted | StopEvent::Exited(_) | StopEvent::Fault(_))
                ) {
                    return;
                }
            }
            _ => {}
        }
    }
}

/// Breakpoints, watchpoints, input and keys of `case` on `m`; the touched words' addresses.
fn set_up<M: Machine>(m: &mut M, case: &Case, touched: &mut Vec<u64>) {
    let at = |m: &M, base: &str, offset: u64| {
        resolve_address(m, base)
            .unwrap_or_else(|| panic!("{base} is no address of the program\n{case}"))
            .wrapping_add(offset)
    };
    for b in &case.breakpoints {
        let addr = at(m, b, 0);
        m.breakpoints().insert(addr);
    }
    for (base, offset, len, kind) in &case.watchpoints {
        let addr = at(m, base, *offset);
        m.watchpoints().insert(addr, *len, *kind);
    }
    touched.clear();
    for (base, offset, count) in &case.touched {
        let first = at(m, base, *offset);
        let step = m.word_units() as u64;
        touched.extend((0..*count).map(|i| first.wrapping_add(i * step)));
    }
    for &key in &case.keys {
        m.queue_key(key);
    }
    m.queue_input(&case.input);
    m.end_input();
}

fn take_turn<M: Machine>(m: &mut M, turn: Turn, touched: &[u64]) -> Seen {
    let before = m.instructions_executed();
    let outcome = match turn {
        Turn::Run(budget) => {
            let outcome = m.run(budget);
            assert!(outcome.executed <= budget, "a run exceeded its budget");
            outcome
        }
        Turn::Step => {
            let stop = m.step();
            RunOutcome {
                executed: m.instructions_executed() - before,
                stop,
            }
        }
    };
    Seen {
        pc: m.pc(),
        executed: m.instructions_executed(),
        registers: (0..m.registers().len())
            .map(|i| m.read_register(i))
            .collect(),
        output: m.console().take_output(),
        stderr: m.take_host_stderr(),
        words: touched
            .iter()
            .map(|&addr| (addr, m.peek_word(addr).ok()))
            .collect(),
        outcome,
    }
}

/// Panics with the first difference between `a` (compiled) and `b` (interpreted).
fn differ<M: Machine + Snapshot>(
    case: &Case,
    log: &str,
    a: &Seen,
    b: &Seen,
    compiled: &M,
    interpreted: &M,
) {
    let fail = |what: String| -> ! {
        panic!(
            "compiled and interpreted code differ: {what}\n(compiled first, then interpreted)\n\
             {case}\nturns (the compiled machine's outcomes):\n{log}"
        )
    };
    if a.outcome != b.outcome {
        fail(format!("outcome {:?} vs {:?}", a.outcome, b.outcome));
    }
    if a.pc != b.pc {
        fail(format!("pc {:#x} vs {:#x}", a.pc, b.pc));
    }
    if a.executed != b.executed {
        fail(format!(
            "instruction count {} vs {}",
            a.executed, b.executed
        ));
    }
    for (i, (x, y)) in a.registers.iter().zip(&b.registers).enumerate() {
        if x != y {
            let name = compiled.registers()[i].name;
            fail(format!("register {name} {x:x?} vs {y:x?}"));
        }
    }
    if a.output != b.output {
        fail(format!(
            "output {:?} vs {:?}",
            String::from_utf8_lossy(&a.output),
            String::from_utf8_lossy(&b.output)
        ));
    }
    if a.stderr != b.stderr {
        fail(format!("stderr {:?} vs {:?}", a.stderr, b.stderr));
    }
    for (x, y) in a.words.iter().zip(&b.words) {
        if x != y {
            fail(format!("word at {:#x}: {:x?} vs {:x?}", x.0, x.1, y.1));
        }
    }
    if compiled.snapshot() != interpreted.snapshot() {
        fail("the snapshots (state outside the registers and touched words)".to_string());
    }
}

/// Values at the edges of 16-bit arithmetic, and some addresses.
const LC3_VALUES: [u16; 12] = [
    0x0000, 0x0001, 0xFFFF, 0x7FFF, 0x8000, 0x00FF, 0x8001, 0x7FFE, 0xFE00, 0x3000, 0x2FFF, 0x000A,
];

/// What LDI/STI and LDR/STR reach outside the program's words: the device registers (KBSR,
/// KBDR, DSR, DDR), the machine control register's neighbours, the edges of the user window,
/// system space, video memory.
const LC3_POINTERS: [&str; 12] = [
    "DATA", "xFE00", "xFE02", "xFE04", "xFE06", "x2FFF", "x0200", "xFDFF", "xC000", "DATA",
    "xFE00", "x0100",
];

/// The LC-3 data words' labels: DATA, DATA1, ..., DATA7.
fn data_label(i: usize) -> String {
    if i == 0 {
        "DATA".to_string()
    } else {
        format!("DATA{i}")
    }
}

/// An LC-3 program: R5 counts the outer loop's rounds, R4 an inner loop's; R0-R3, R6 and R7
/// take arithmetic (R7 and R0 also traps).
fn lc3(b: &mut Bytes<'_>, options: u8) -> Program {
    let names = asmdbg_lc3::profile_names();
    let profile = names[options as usize % names.len()];
    let work = ["R0", "R1", "R2", "R3", "R6", "R7"];
    let any = ["R0", "R1", "R2", "R3", "R4", "R5", "R6", "R7"];
    let mut s = String::from("        .ORIG x3000\n");
    let mut labels = vec!["OUTER".to_string()];
    let rounds = 5 + b.below(8);
    let _ = writeln!(s, "        LD R5, COUNT");
    for r in work {
        let _ = writeln!(s, "        LD {r}, K{}", b.below(LC3_VALUES.len()));
    }
    let _ = writeln!(s, "OUTER   ADD R5, R5, #0");
    let chunks = 2 + b.below(14);
    let mut words = 0;
    // An ALU instruction or a load of a constant, writing one of `dests`.
    let alu = |b: &mut Bytes<'_>, dests: &[&str]| -> String {
        let d = b.pick(dests);
        let (x, y) = (b.pick(&any), b.pick(&any));
        let imm = b.pick(&[0i32, 1, -1, 15, -16, 7, -8]);
        match b.below(8) {
            0 => format!("ADD {d}, {x}, {y}"),
            1 => format!("ADD {d}, {x}, #{imm}"),
            2 => format!("AND {d}, {x}, {y}"),
            3 => format!("AND {d}, {x}, #{imm}"),
            4 => format!("NOT {d}, {x}"),
            5 => format!("LD {d}, K{}", b.below(LC3_VALUES.len())),
            6 => format!("LEA {d}, DATA"),
            _ => format!("ADD {d}, {d}, {d}"),
        }
    };
    // A load or store: the data words, through a pointer, relative to a register.
    let mem = |b: &mut Bytes<'_>, dests: &[&str]| -> String {
        let d = b.pick(dests);
        let v = b.pick(&any);
        let base = b.pick(&work);
        let off = b.pick(&[0i32, 1, -1, 31, -32, 2]);
        match b.below(8) {
            0 => format!("LD {d}, {}", data_label(b.below(8))),
            1 => format!("ST {v}, {}", data_label(b.below(8))),
            2 => format!("LDI {d}, P{}", b.below(LC3_POINTERS.len())),
            3 => format!("STI {v}, P{}", b.below(LC3_POINTERS.len())),
            4 => format!("LDR {d}, {base}, #{off}"),
            5 => format!("STR {v}, {base}, #{off}"),
            6 => format!("LDR {d}, R4, #{}", b.below(4)),
            _ => format!("STR {v}, R5, #{}", b.below(4)),
        }
    };
    for k in 0..chunks {
        let label = format!("C{k}");
        let _ = write!(s, "{label:<8}");
        labels.push(label);
        if b.is_empty() || words > 170 {
            s.push_str("ADD R0, R0, #0\n");
            words += 1;
            continue;
        }
        match b.below(7) {
            0 | 1 => {
                for _ in 0..1 + b.below(4) {
                    let _ = writeln!(s, "{}", alu(b, &work));
                    s.push_str("        ");
                    words += 1;
                }
                s.push_str("ADD R0, R0, #0\n");
                words += 1;
            }
            2 => {
                for _ in 0..1 + b.below(3) {
                    let _ = writeln!(s, "{}", mem(b, &work));
                    s.push_str("        ");
                    words += 1;
                }
                s.push_str("ADD R1, R1, #0\n");
                words += 1;
            }
            3 => {
                // Forward, on a condition the last result set.
                let cc = b.pick(&["n", "z", "p", "nz", "np", "zp", "nzp", ""]);
                let _ = writeln!(s, "{}", alu(b, &work));
                let to = (k + 1 + b.below(3)).min(chunks);
                let target = if to == chunks {
                    "CEND".to_string()
                } else {
                    format!("C{to}")
                };
                let _ = writeln!(s, "        BR{cc} {target}");
                words += 2;
            }
            4 => {
                // An inner loop: a block that loops on itself, so LC-3 compiles it.
                let _ = writeln!(s, "AND R4, R4, #0");
                let _ = writeln!(s, "        ADD R4, R4, #{}", 1 + b.below(15));
                let inner = format!("L{k}");
                let _ = write!(s, "{inner:<8}");
                labels.push(inner.clone());
                for _ in 0..1 + b.below(4) {
                    let op = if b.below(2) == 0 {
                        alu(b, &work)
                    } else {
                        mem(b, &work)
                    };
                    let _ = writeln!(s, "{op}");
                    s.push_str("        ");
                    words += 1;
                }
                let _ = writeln!(s, "ADD R4, R4, #-1");
                let _ = writeln!(s, "        BRp {inner}");
                words += 4;
            }
            5 => {
                // A long block (LC-3 compiles 16 instructions and more even without a loop).
                for _ in 0..16 + b.below(4) {
                    let _ = writeln!(s, "{}", alu(b, &work));
                    s.push_str("        ");
                    words += 1;
                }
                s.push_str("ADD R2, R2, #0\n");
                words += 1;
            }
            _ => {
                let trap = b.pick(&["OUT", "GETC", "OUT", "LD R0, K11\n        OUT"]);
                let _ = writeln!(s, "{trap}");
                words += 2;
            }
        }
    }
    let _ = writeln!(s, "CEND    ADD R5, R5, #-1");
    let _ = writeln!(s, "        BRp OUTER");
    let _ = writeln!(s, "        HALT");
    let _ = writeln!(s, "COUNT   .FILL #{rounds}");
    for (i, v) in LC3_VALUES.iter().enumerate() {
        let _ = writeln!(s, "K{i:<7}.FILL x{v:04X}");
    }
    for (i, p) in LC3_POINTERS.iter().enumerate() {
        let _ = writeln!(s, "P{i:<7}.FILL {p}");
    }
    for i in 0..8 {
        let _ = writeln!(s, "{:<8}.FILL x{:04X}", data_label(i), b.pick(&LC3_VALUES));
    }
    s.push_str("        .END\n");
    let watchable = [
        ("DATA", 0, 1),
        ("DATA", 1, 2),
        ("DATA", 4, 4),
        ("0xFE00", 0, 1),
        ("0xFE02", 0, 1),
        ("0xFE04", 0, 1),
        ("0xFE06", 0, 1),
        ("0x2FFF", 0, 2),
        ("0xFDFF", 0, 1),
        ("DATA", 7, 1),
    ];
    Program {
        source: s,
        opts: MachineOptions {
            profile: Some(profile.to_string()),
            ..Default::default()
        },
        code_labels: labels,
        watchable: watchable
            .iter()
            .map(|&(a, o, l)| (a.to_string(), o, l))
            .collect(),
        touched: vec![
            ("DATA".into(), 0, 8),
            ("0xFE00".into(), 0, 8),
            ("0x2FF0".into(), 0, 32),
            ("0xC000".into(), 0, 4),
        ],
    }
}

/// Values at the edges of 32-bit arithmetic.
const WORDS: [u32; 12] = [
    0,
    1,
    0xFFFF_FFFF,
    0x7FFF_FFFF,
    0x8000_0000,
    0x0000_7FFF,
    0xFFFF_8000,
    0x0000_FFFF,
    0x8000_0001,
    0x7FFF_FFFE,
    0x0000_0008,
    0x1001_0000,
];

/// Immediates at the edges of 16 bits (as MIPS and SimpleRISC write them).
const IMMEDIATES: [i32; 8] = [0, 1, -1, 32767, -32768, 31, 32, -2];

/// A MIPS program as MARS runs it: `$t9` counts the outer loop's rounds, `$t8` an inner loop's,
/// `$s6` points at the data, `$s7` at the MMIO devices, `$k1` at the heap; `$t0`-`$t7` and
/// `$s0`-`$s5` take arithmetic.
fn mips(b: &mut Bytes<'_>, _options: u8) -> Program {
    let work = [
        "$t0", "$t1", "$t2", "$t3", "$t4", "$t5", "$t6", "$t7", "$s0", "$s1", "$s2", "$s3", "$s4",
        "$s5",
    ];
    let mut s = String::from("        .data\ndata:   .word");
    for i in 0..16 {
        let _ = write!(
            s,
            "{}0x{:x}",
            if i == 0 { " " } else { ", " },
            b.pick(&WORDS)
        );
    }
    s.push_str("\n        .text\nmain:   la $s6, data\n        li $s7, 0xffff0000\n");
    s.push_str("        li $k1, 0x10040000\n");
    let rounds = 5 + b.below(8);
    let _ = writeln!(s, "        li $t9, {rounds}");
    for r in work {
        let _ = writeln!(s, "        li {r}, 0x{:x}", b.pick(&WORDS));
    }
    s.push_str("outer:\n");
    let mut labels = vec!["outer".to_string()];
    let alu = |b: &mut Bytes<'_>| -> String {
        let d = b.pick(&work);
        let (x, y) = (b.pick(&work), b.pick(&work));
        let imm = b.pick(&IMMEDIATES);
        let uimm = b.pick(&[0u32, 1, 0xFFFF, 0x8000, 0x7FFF]);
        match b.below(25) {
            0 => format!("addu {d}, {x}, {y}"),
            1 => format!("subu {d}, {x}, {y}"),
            2 => format!("and {d}, {x}, {y}"),
            3 => format!("or {d}, {x}, {y}"),
            4 => format!("xor {d}, {x}, {y}"),
            5 => format!("nor {d}, {x}, {y}"),
            6 => format!("slt {d}, {x}, {y}"),
            7 => format!("sltu {d}, {x}, {y}"),
            8 => format!("sllv {d}, {x}, {y}"),
            9 => format!("srlv {d}, {x}, {y}"),
            10 => format!("srav {d}, {x}, {y}"),
            11 => format!("sll {d}, {x}, {}", b.pick(&[0, 1, 31, 16])),
            12 => format!("srl {d}, {x}, {}", b.pick(&[0, 1, 31, 16])),
            13 => format!("sra {d}, {x}, {}", b.pick(&[0, 1, 31, 16])),
            14 => format!("addiu {d}, {x}, {imm}"),
            15 => format!("andi {d}, {x}, 0x{uimm:x}"),
            16 => format!("ori {d}, {x}, 0x{uimm:x}"),
            17 => format!("xori {d}, {x}, 0x{uimm:x}"),
            18 => format!("slti {d}, {x}, {imm}"),
            19 => format!("sltiu {d}, {x}, {imm}"),
            20 => format!("lui {d}, 0x{uimm:x}"),
            21 => format!("li {d}, 0x{:x}", b.pick(&WORDS)),
            // Overflow traps (MARS ends the program with a runtime error).
            22 => format!("{} {d}, {x}, {y}", b.pick(&["add", "sub", "addu", "subu"])),
            23 => format!(
                "{} {x}, {y}\n        {} {d}",
                b.pick(&["mult", "multu", "div", "divu"]),
                b.pick(&["mflo", "mfhi"])
            ),
            _ => format!("addi {d}, {x}, {imm}"),
        }
    };
    let mem = |b: &mut Bytes<'_>| -> String {
        let d = b.pick(&work);
        let (op, size) = b.pick(&[
            ("lw", 4),
            ("sw", 4),
            ("lh", 2),
            ("lhu", 2),
            ("sh", 2),
            ("lb", 1),
            ("lbu", 1),
            ("sb", 1),
        ]);
        match b.below(12) {
            0..=4 => format!("{op} {d}, {}($s6)", size * b.below(64 / size)),
            10 => format!("{op} {d}, {}($k1)", size * b.below(16 / size)),
            // The MMIO devices: receiver control and data, transmitter control and data.
            5..=7 => format!(
                "{} {d}, {}($s7)",
                b.pick(&["lw", "sw", "lw"]),
                4 * b.below(4)
            ),
            8 | 9 => format!(
                "{op} {d}, {}($sp)",
                -(size as i32) * b.below(16 / size) as i32
            ),
            _ => format!("{op} {d}, {}({})", b.pick(&[0, 4, -4]), b.pick(&work)),
        }
    };
    let chunks = 2 + b.below(14);
    for k in 0..chunks {
        let label = format!("c{k}");
        let _ = writeln!(s, "{label}:");
        labels.push(label);
        if b.is_empty() {
            continue;
        }
        match b.below(7) {
            0 | 1 => {
                for _ in 0..1 + b.below(6) {
                    let _ = writeln!(s, "        {}", alu(b));
                }
            }
            2 => {
                for _ in 0..1 + b.below(3) {
                    let _ = writeln!(s, "        {}", mem(b));
                }
            }
            3 => {
                let to = (k + 1 + b.below(3)).min(chunks);
                let target = if to == chunks {
                    "cend".to_string()
                } else {
                    format!("c{to}")
                };
                let (x, y) = (b.pick(&work), b.pick(&work));
                let _ = writeln!(s, "        {}", alu(b));
                let branch = match b.below(12) {
                    0 => format!("beq {x}, {y}"),
                    1 => format!("bne {x}, {y}"),
                    2 => format!("blez {x}"),
                    3 => format!("bgtz {x}"),
                    4 => format!("bltz {x}"),
                    5 => format!("bgez {x}"),
                    6 => format!("blt {x}, {y}"),
                    7 => format!("bge {x}, {y}"),
                    8 => format!("bgtu {x}, {y}"),
                    9 => format!("bleu {x}, {y}"),
                    10 => format!("beq {x}, $zero"),
                    _ => "j".to_string(),
                };
                if branch == "j" {
                    let _ = writeln!(s, "        j {target}");
                } else {
                    let _ = writeln!(s, "        {branch}, {target}");
                }
            }
            4 => {
                let inner = format!("l{k}");
                let _ = writeln!(s, "        li $t8, {}", 1 + b.below(15));
                let _ = writeln!(s, "{inner}:");
                labels.push(inner.clone());
                for _ in 0..1 + b.below(4) {
                    let op = if b.below(3) == 0 { mem(b) } else { alu(b) };
                    let _ = writeln!(s, "        {op}");
                }
                let _ = writeln!(s, "        addiu $t8, $t8, -1");
                let _ = writeln!(s, "        bgtz $t8, {inner}");
            }
            5 => {
                // Long straight runs (one compiled run each).
                for _ in 0..8 + b.below(8) {
                    let _ = writeln!(s, "        {}", alu(b));
                }
            }
            _ => {
                let (v0, arg) = b.pick(&[(1, true), (11, true), (12, false), (34, true)]);
                if arg {
                    let _ = writeln!(s, "        move $a0, {}", b.pick(&work));
                }
                let _ = writeln!(s, "        li $v0, {v0}\n        syscall");
            }
        }
    }
    s.push_str("cend:\n        addiu $t9, $t9, -1\n        bgtz $t9, outer\n");
    s.push_str("        li $v0, 10\n        syscall\n");
    let watchable = [
        ("data", 0, 4),
        ("data", 4, 8),
        ("data", 32, 4),
        ("0xffff0000", 0, 4),
        ("0xffff0004", 0, 4),
        ("0xffff0008", 0, 4),
        ("0xffff000c", 0, 4),
        ("0x7fffeff0", 0, 16),
        ("0x10040000", 0, 8),
    ];
    Program {
        source: s,
        opts: MachineOptions {
            mmio: true,
            virtual_time: true,
            seed: Some(1),
            work_dir: Some(std::path::PathBuf::from("/nonexistent-asmdbg-differential")),
            ..Default::default()
        },
        code_labels: labels,
        watchable: watchable
            .iter()
            .map(|&(a, o, l)| (a.to_string(), o, l))
            .collect(),
        touched: vec![
            ("data".into(), 0, 16),
            ("0xffff0000".into(), 0, 4),
            ("0x7fffefc0".into(), 0, 16),
            ("0x10040000".into(), 0, 4),
        ],
    }
}

/// A SimpleRISC program: r13 counts the outer loop's rounds, r12 an inner loop's, r11 points at
/// the data (byte 256); r0-r10 take arithmetic.
fn simplerisc(b: &mut Bytes<'_>, _options: u8) -> Program {
    let work = [
        "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10",
    ];
    let mut s = String::from(".main:\n");
    let rounds = 5 + b.below(8);
    let _ = writeln!(s, "    mov r13, {rounds}\n    mov r11, 256");
    // An edge value into `r` (high half, then low half).
    let set = |s: &mut String, r: &str, v: u32| {
        let _ = writeln!(s, "    movh {r}, 0x{:x}", v >> 16);
        let _ = writeln!(s, "    oru {r}, {r}, 0x{:x}", v & 0xFFFF);
    };
    for r in work {
        set(&mut s, r, b.pick(&WORDS));
    }
    for i in 0..16 {
        set(&mut s, "r0", b.pick(&WORDS));
        let _ = writeln!(s, "    st r0, {}[r11]", 4 * i);
    }
    s.push_str("outer:\n");
    let mut labels = vec!["outer".to_string()];
    let alu = |b: &mut Bytes<'_>| -> String {
        let d = b.pick(&work);
        let (x, y) = (b.pick(&work), b.pick(&work));
        let op = b.pick(&[
            "add", "sub", "mul", "and", "or", "lsl", "lsr", "asr", "add", "sub", "div", "mod",
        ]);
        let mut imm = b.pick(&IMMEDIATES);
        let mut uimm = b.pick(&[0u32, 1, 0xFFFF, 0x8000, 0x7FFF]);
        let mut form = b.below(9);
        // Shifts by a negative amount and divisions by zero are faults that end the program:
        // mostly by an immediate that is neither.
        if matches!(op, "lsl" | "lsr" | "asr" | "div" | "mod") {
            if form < 2 && b.below(4) != 0 || form == 4 {
                form = 2;
            }
            imm = b.pick(&[1, 2, 31, 16, 7]);
            uimm = imm as u32;
        }
        match form {
            0 | 1 => format!("{op} {d}, {x}, {y}"),
            2 => format!("{op} {d}, {x}, {imm}"),
            3 => format!("{op}u {d}, {x}, 0x{uimm:x}"),
            4 => format!("{op}h {d}, {x}, 0x{uimm:x}"),
            5 => format!("not {d}, {x}"),
            6 => format!("mov {d}, {x}"),
            7 => format!("cmp {x}, {y}"),
            _ => format!("cmp {x}, {imm}"),
        }
    };
    let mem = |b: &mut Bytes<'_>| -> String {
        let d = b.pick(&work);
        let op = b.pick(&["ld", "st"]);
        match b.below(8) {
            0..=4 => format!("{op} {d}, {}[r11]", 4 * b.below(16)),
            5 | 6 => format!("{op} {d}, {}[sp]", -4 * b.below(4) as i32),
            7 => format!("{op} {d}, {}[r11]", b.pick(&[-256, 3840, -260, 3844, 1])),
            _ => format!("{op} {d}, 0[{}]", b.pick(&work)),
        }
    };
    let chunks = 2 + b.below(14);
    for k in 0..chunks {
        let label = format!("c{k}");
        let _ = writeln!(s, "{label}:");
        labels.push(label);
        if b.is_empty() {
            continue;
        }
        match b.below(7) {
            0 | 1 => {
                for _ in 0..1 + b.below(6) {
                    let _ = writeln!(s, "    {}", alu(b));
                }
            }
            2 => {
                for _ in 0..1 + b.below(3) {
                    let _ = writeln!(s, "    {}", mem(b));
                }
            }
            3 => {
                let to = (k + 1 + b.below(3)).min(chunks);
                let target = if to == chunks {
                    "cend".to_string()
                } else {
                    format!("c{to}")
                };
                let (x, y) = (b.pick(&work), b.pick(&work));
                let _ = writeln!(s, "    {}", alu(b));
                if b.below(2) == 0 {
                    let _ = writeln!(s, "    cmp {x}, {y}");
                }
                let _ = writeln!(s, "    {} {target}", b.pick(&["beq", "bgt", "b"]));
            }
            4 => {
                let inner = format!("l{k}");
                let _ = writeln!(s, "    mov r12, {}", 1 + b.below(15));
                let _ = writeln!(s, "{inner}:");
                labels.push(inner.clone());
                for _ in 0..1 + b.below(4) {
                    let op = if b.below(3) == 0 { mem(b) } else { alu(b) };
                    let _ = writeln!(s, "    {op}");
                }
                let _ = writeln!(s, "    sub r12, r12, 1\n    cmp r12, 0\n    bgt {inner}");
            }
            5 => {
                for _ in 0..8 + b.below(8) {
                    let _ = writeln!(s, "    {}", alu(b));
                }
            }
            _ => {
                let _ = writeln!(s, "    .print {}", b.pick(&work));
            }
        }
    }
    s.push_str("cend:\n    sub r13, r13, 1\n    cmp r13, 0\n    bgt outer\n    hlt\n");
    let watchable = [
        ("256", 0, 4),
        ("256", 4, 8),
        ("256", 32, 4),
        ("256", 60, 4),
        ("4080", 0, 16),
        ("0", 0, 4),
    ];
    Program {
        source: s,
        opts: MachineOptions::default(),
        code_labels: labels,
        watchable: watchable
            .iter()
            .map(|&(a, o, l)| (a.to_string(), o, l))
            .collect(),
        touched: vec![("0".into(), 0, 1024)],
    }
}
