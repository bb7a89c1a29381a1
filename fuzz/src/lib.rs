//! Fuzz harnesses for asmdbg: what the outside world sends (source text, object files, memory
//! images a program builds for itself, RSP byte streams) must never panic, hang or grow memory
//! without bound; and the compiled code must do what the interpreter does (`differential`).
//! Each `fuzz_targets/NAME.rs` calls the function of the same name; the first byte of the
//! input picks the ISA, so one target covers all three machines.
//!
//! A harness panics only where asmdbg broke a promise (an invariant check below); a plain error
//! result is a correct answer to bad input.

use std::time::Instant;

use asmdbg_core::gdb::{Debuggee, GdbMachine};
use asmdbg_core::{Machine, MachineOptions, StopEvent, WatchKind};
use asmdbg_session::{Discipline, LineMode, RspSession};

/// Instructions one machine input may run in all (keeps every input well under a second).
const MACHINE_BUDGET: u64 = 20_000;
/// Instructions per burst in the stub harness: the session's bursts, but smaller.
const STUB_BURST: u64 = 500;
/// Bytes of one RSP read fed between bursts.
const STUB_CHUNK: usize = 64;
/// Connections one input may open (a new one after each that ended).
const MAX_CONNECTIONS: usize = 8;

/// The machine an input's first byte picks; each harness names that ISA's crate directly.
#[derive(Debug, Clone, Copy)]
enum Isa {
    Lc3,
    Mips,
    SimpleRisc,
}

fn isa_of(selector: u8) -> Isa {
    match selector % 3 {
        0 => Isa::Lc3,
        1 => Isa::Mips,
        _ => Isa::SimpleRisc,
    }
}

/// Each assembler on arbitrary text; what assembles is also written as an object file / ELF,
/// read back, and disassembled word by word.
pub fn asm(data: &[u8]) {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    match isa_of(selector) {
        Isa::Lc3 => {
            let opts = asmdbg_lc3::asm::AsmOptions {
                strict: selector & 0x80 != 0,
                pennsim: selector & 0x40 != 0,
            };
            let Ok(program) = asmdbg_lc3::asm::assemble_str("fuzz.asm", &text, &opts) else {
                return;
            };
            let _ = asmdbg_lc3::elf::elf_from_program(&program);
            let _ = asmdbg_lc3::objfile::write_sym(&program);
            if let Ok(obj) = asmdbg_lc3::objfile::write_obj(&program) {
                let back = asmdbg_lc3::objfile::read_obj(&obj);
                assert!(back.is_ok(), "an object file asmdbg wrote must read back");
            }
            for segment in &program.segments {
                for (i, &word) in segment.words.iter().enumerate() {
                    let addr = segment.origin.wrapping_add(i as u16);
                    let _ =
                        asmdbg_lc3::decode::disassemble(word, addr, Some(&program.debug.symbols));
                }
            }
        }
        Isa::Mips => {
            // .include must not reach real files: resolve it in an empty directory.
            let opts = asmdbg_mips::asm::AsmOptions {
                work_dir: Some(std::path::PathBuf::from("/nonexistent-asmdbg-fuzz")),
                delay_slots: selector & 0x80 != 0,
                strict: selector & 0x40 != 0,
                ..Default::default()
            };
            let file = asmdbg_core::SourceFile::new("fuzz.asm", text.as_ref());
            let Ok(program) = asmdbg_mips::asm::assemble(&file, &opts) else {
                return;
            };
            let _ = asmdbg_mips::elf::elf_from_program(&program, opts.delay_slots);
            for chunk in program.chunks.iter().filter(|c| c.kind.is_code()) {
                for (i, w) in chunk.bytes.chunks_exact(4).enumerate() {
                    let word = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
                    let addr = chunk.addr.wrapping_add(4 * i as u32);
                    let _ =
                        asmdbg_mips::decode::disassemble(word, addr, Some(&program.debug.symbols));
                }
            }
        }
        Isa::SimpleRisc => {
            let opts = asmdbg_simplerisc::AsmOptions {
                no_mul: selector & 0x80 != 0,
                strict: selector & 0x40 != 0,
            };
            let Ok(program) = asmdbg_simplerisc::assemble("fuzz.asm", &text, opts) else {
                return;
            };
            let _ = asmdbg_simplerisc::elf::elf_from_program(&program);
            for i in 0..program.slots.len() {
                if let Some(word) = program.word(i) {
                    let _ = asmdbg_simplerisc::decode::decode(word)
                        .disasm(i as u32, Some(&program.debug.symbols));
                }
            }
        }
    }
}

/// The LC-3 object-file reader (classic and lc3tools formats) on arbitrary bytes, then the
/// machine built from whatever it accepted.
pub fn lc3_obj(data: &[u8]) {
    let Ok(program) = asmdbg_lc3::objfile::read_obj(data) else {
        return;
    };
    let profile = asmdbg_lc3::os::default_profile();
    if let Ok(mut m) = asmdbg_lc3::Lc3Machine::new(program, profile) {
        m.end_input();
        let outcome = m.run(MACHINE_BUDGET);
        assert!(outcome.executed <= MACHINE_BUDGET);
    }
}

/// The compilers against the interpreter (testsupport/tests/differential, shared with the
/// bounded `cargo test` of it): the first byte picks the ISA, the rest a program that loops over
/// edge values, device registers and watched words, and the debugger's budgets, breakpoints,
/// watchpoints and input. A difference between the machine running compiled code and the one
/// interpreting panics with the program and the first thing that differs.
pub fn differential(data: &[u8]) {
    differential_check::check(data, differential_check::FUZZ_LIMITS);
}

#[path = "../../testsupport/tests/differential/mod.rs"]
mod differential_check;

// The fuzz input a byte at a time: the differential test's reader (zeros once it is used
// up), read here also as header words before an image.
use differential_check::Bytes;

impl Bytes<'_> {
    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.byte(), self.byte()])
    }

    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }
}

/// Each machine on an arbitrary memory image, with breakpoints, watchpoints and console input
/// taken from the input, run and stepped for a bounded budget. Checks the run contract: a run
/// never exceeds its budget, a breakpoint stop is at a breakpoint, a watch stop is on a watched
/// address.
pub fn machine(data: &[u8]) {
    let mut input = Bytes(data);
    let selector = input.byte();
    match isa_of(selector) {
        Isa::Lc3 => {
            let names = asmdbg_lc3::profile_names();
            let name = names[(selector as usize / 3) % names.len()];
            let Some(profile) = asmdbg_lc3::os::profile(name) else {
                return;
            };
            let origin = input.u16();
            let traps = Traps::take(&mut input, |b| b.u16() as u64);
            let words: Vec<u16> = input
                .0
                .chunks(2)
                .map(|c| u16::from_le_bytes([c[0], *c.get(1).unwrap_or(&0)]))
                .collect();
            let program = asmdbg_lc3::Program {
                segments: vec![asmdbg_lc3::Segment { origin, words }],
                ..Default::default()
            };
            if let Ok(mut m) = asmdbg_lc3::Lc3Machine::new(program, profile) {
                exercise(&mut m, &traps, false);
            }
        }
        Isa::Mips => {
            let traps = Traps::take(&mut input, |b| 0x0040_0000 + (b.u16() as u64 & !3));
            let (text, data) = input.0.split_at(input.0.len() / 2);
            let program = asmdbg_mips::Program {
                chunks: vec![
                    asmdbg_mips::Chunk {
                        kind: asmdbg_mips::ChunkKind::Text,
                        addr: 0x0040_0000,
                        bytes: text.to_vec(),
                    },
                    asmdbg_mips::Chunk {
                        kind: asmdbg_mips::ChunkKind::Data,
                        addr: 0x1001_0000,
                        bytes: data.to_vec(),
                    },
                ],
                text_start: 0x0040_0000,
                ..Default::default()
            };
            let opts = MachineOptions {
                virtual_time: true,
                seed: Some(1),
                delay_slots: selector & 0x80 != 0,
                work_dir: Some(std::path::PathBuf::from("/nonexistent-asmdbg-fuzz")),
                ..Default::default()
            };
            if let Ok(mut m) = asmdbg_mips::MipsMachine::new(program, &opts) {
                exercise(&mut m, &traps, true);
            }
        }
        Isa::SimpleRisc => {
            let traps = Traps::take(&mut input, |b| b.u16() as u64);
            let code_len = (input.u16() as usize % 512).min(input.0.len() / 4);
            let words: Vec<u32> = (0..code_len).map(|_| input.u32()).collect();
            let program = asmdbg_simplerisc::Program::from_words(&words);
            let opts = MachineOptions {
                no_mul: selector & 0x80 != 0,
                ..Default::default()
            };
            if let Ok(mut m) = asmdbg_simplerisc::SrMachine::new(program, &opts) {
                let mut addr = 0u64;
                while input.0.len() >= 4 {
                    let _ = m.poke_word(addr, input.u32());
                    addr += 4;
                }
                exercise(&mut m, &traps, false);
            }
        }
    }
}

/// Breakpoints, watchpoints and console input for one machine input.
struct Traps {
    breakpoints: Vec<u64>,
    watchpoints: Vec<(u64, u64, WatchKind)>,
    input: Vec<u8>,
}

impl Traps {
    fn take(bytes: &mut Bytes<'_>, addr: impl Fn(&mut Bytes<'_>) -> u64) -> Traps {
        let counts = bytes.byte();
        let breakpoints = (0..counts & 7).map(|_| addr(bytes)).collect();
        let watchpoints = (0..(counts >> 3) & 3)
            .map(|_| {
                let a = addr(bytes);
                let k = bytes.byte();
                let kind = match k % 3 {
                    0 => WatchKind::Write,
                    1 => WatchKind::Read,
                    _ => WatchKind::Access,
                };
                (a, 1 + (k as u64 >> 2) % 8, kind)
            })
            .collect();
        let input_len = (bytes.byte() % 16) as usize;
        let input = (0..input_len).map(|_| bytes.byte()).collect();
        Traps {
            breakpoints,
            watchpoints,
            input,
        }
    }
}

/// MARS's "open file" syscall: the harness never lets a random image create or truncate files.
fn is_mips_file_syscall(m: &impl Machine) -> bool {
    m.read_register(2) == Some(13) && m.peek_word(m.pc()) == Ok(0x0000_000c)
}

fn exercise(m: &mut impl Machine, traps: &Traps, mips: bool) {
    for &b in &traps.breakpoints {
        m.breakpoints().insert(b);
    }
    for &(a, len, kind) in &traps.watchpoints {
        m.watchpoints().insert(a, len, kind);
    }
    m.queue_input(&traps.input);
    m.end_input();
    let mut left = MACHINE_BUDGET;
    let mut turns = 0;
    let max_turns = if mips { MACHINE_BUDGET } else { 64 };
    while left > 0 && turns < max_turns {
        turns += 1;
        if mips && is_mips_file_syscall(m) {
            return;
        }
        let pc = m.pc();
        let _ = m.disassemble(pc);
        let before = m.instructions_executed();
        // MIPS runs one instruction at a time so the file-syscall guard sees each one.
        let budget = if mips { 1 } else { left.min(4096) };
        let stop = if turns % 5 == 0 {
            m.step()
        } else {
            let outcome = m.run(budget);
            assert!(outcome.executed <= budget, "run exceeded its budget");
            outcome.stop
        };
        let done = m.instructions_executed().saturating_sub(before);
        left = left.saturating_sub(done.max(1));
        match stop {
            Some(StopEvent::Breakpoint) => {
                let pc = m.pc();
                assert!(
                    m.breakpoints().contains(pc),
                    "breakpoint stop off a breakpoint"
                );
                let _ = m.step();
            }
            Some(StopEvent::Watch { addr, .. }) => {
                assert!(
                    traps
                        .watchpoints
                        .iter()
                        .any(|&(a, len, _)| addr >= a && addr < a.saturating_add(len)),
                    "watch stop at {addr:#x} outside every watchpoint"
                );
            }
            Some(StopEvent::Halted | StopEvent::Exited(_) | StopEvent::Fault(_)) => return,
            Some(StopEvent::NeedInput) if m.console().input_closed() => return,
            Some(StopEvent::NeedInput) | None => {}
        }
    }
    for i in 0..m.registers().len() {
        let _ = m.read_register(i);
    }
    let _ = m.console().take_output();
}

/// The gdb session on an arbitrary RSP byte stream: the shipping `asmdbg_session::RspSession`
/// (framer, restart after a failed packet, bursts, console flow control) fed the input as gdb's
/// reads, with a burst after each read while the machine runs, and a new connection after one
/// ends, as src/debug.rs drives it. Returns how many bytes the session sent to gdb.
pub fn stub(data: &[u8]) -> usize {
    let Some((&selector, rest)) = data.split_first() else {
        return 0;
    };
    match isa_of(selector) {
        Isa::Lc3 => {
            let source = "\
        .ORIG x3000
LOOP    GETC
        OUT
        LEA R0, MSG
        PUTS
        ST R0, SAVE
        ADD R1, R1, #1
        BRnzp LOOP
SAVE    .FILL 0
MSG     .STRINGZ \"hi\"
        .END
";
            if let Ok(m) =
                asmdbg_lc3::load_machine("fuzz.asm", source.as_bytes(), &Default::default())
            {
                return drive_stub(m, rest);
            }
        }
        Isa::Mips => {
            let source = "\
        .data
buf:    .space 16
msg:    .asciiz \"hi\\n\"
        .text
main:   li $v0, 8
        la $a0, buf
        li $a1, 16
        syscall
        li $v0, 4
        la $a0, msg
        syscall
        sw $v0, buf
        j main
";
            let opts = MachineOptions {
                virtual_time: true,
                seed: Some(1),
                ..Default::default()
            };
            if let Ok(m) = asmdbg_mips::load_machine("fuzz.asm", source, &opts) {
                return drive_stub(m, rest);
            }
        }
        Isa::SimpleRisc => {
            let source = "\
.main:
    mov r1, 10
loop:
    st r1, 0[sp]
    sub r1, r1, 1
    cmp r1, 0
    bgt loop
    call f
    b .main
f:
    ret
";
            if let Ok(m) = asmdbg_simplerisc::load_machine("fuzz.asm", source, &Default::default())
            {
                return drive_stub(m, rest);
            }
        }
    }
    0
}

fn drive_stub<G: GdbMachine>(machine: G, stream: &[u8]) -> usize {
    let mut target = Debuggee::new(machine);
    // Time travel on, as `asmdbg debug` has it (a small cap: thinning is exercised too).
    target.record_history(1 << 20);
    target.exec = Some(asmdbg_core::gdb::ExecImage {
        name: "fuzz.elf".to_string(),
        bytes: vec![0x7f, b'E', b'L', b'F', 1, 1, 1, 0],
        on_disk: false,
    });
    let mut session =
        RspSession::new(target, Discipline::new(LineMode::Cooked, true)).with_burst(STUB_BURST);
    // One clock reading for the whole input: a sleeping guest then simply never wakes.
    let now = Instant::now();
    let mut connections = 1;
    let mut sent = 0;
    session.on_connect(now);
    for chunk in stream.chunks(STUB_CHUNK) {
        session.on_bytes(chunk, now);
        let poll = session.poll(now);
        sent += poll.to_gdb.len();
        if poll.ended.is_some() {
            if connections == MAX_CONNECTIONS {
                return sent;
            }
            connections += 1;
            session.on_connect(now);
            continue;
        }
        if poll.run {
            session.run_burst(now);
        }
        while session.take_output_chunk().is_some() {}
        if session.target_mut().machine.console().waiting() && session.wants_input() {
            session.on_console_input(b"x\r");
        }
    }
    // Whatever the stream left running is stopped the way gdb would: an interrupt.
    session.on_bytes(&[0x03], now);
    let poll = session.poll(now);
    if session.attached() {
        assert!(!poll.run, "an interrupt stops the machine");
    }
    sent + poll.to_gdb.len()
}

#[cfg(test)]
mod tests {
    /// A recorded-style gdb session, garbage and a Ctrl-C included, for each machine: the
    /// harness must get through it (the fuzzer's seeds start from inputs like this).
    #[test]
    fn stub_harness_runs_a_session_on_each_machine() {
        let mut stream = Vec::new();
        for payload in [
            "qSupported:swbreak+",
            "QStartNoAckMode",
            "?",
            "g",
            "mzz,qq",
            "s",
            "s",
            "bs",
            "bc",
            "bs",
        ] {
            let sum = payload.bytes().fold(0u8, |a, b| a.wrapping_add(b));
            stream.extend_from_slice(format!("${payload}#{sum:02x}").as_bytes());
        }
        stream.extend_from_slice(b"garbage$g#00$vCont;c#a8");
        stream.extend_from_slice(&[b'+'; 600]);
        stream.push(0x03);
        stream.extend_from_slice(b"$D#44");
        for selector in 0..3u8 {
            let mut input = vec![selector];
            input.extend_from_slice(&stream);
            let sent = super::stub(&input);
            // At least the replies to qSupported, ?, g and the error for mzz,qq.
            assert!(sent > 100, "ISA {selector}: only {sent} bytes answered");
        }
    }

    /// Streams of packets picked at random (a fixed seed) among steps, continues, Ctrl-C and
    /// the reverse requests, on each machine: the harness never panics.
    #[test]
    fn random_forward_and_reverse_requests_keep_the_session_going() {
        let pieces = [
            "vCont;s",
            "vCont;c",
            "bs",
            "bc",
            "g",
            "Z0,6004,2",
            "z0,6004,2",
            "?",
        ];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        for round in 0..60u8 {
            let mut stream = vec![round % 3];
            stream.extend_from_slice(b"$QStartNoAckMode#b0");
            for _ in 0..40 {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let payload = pieces[(seed >> 33) as usize % pieces.len()];
                let sum = payload.bytes().fold(0u8, |a, b| a.wrapping_add(b));
                stream.extend_from_slice(format!("${payload}#{sum:02x}").as_bytes());
                if (seed >> 20) % 5 == 0 {
                    stream.push(0x03);
                }
            }
            let _ = super::stub(&stream);
        }
    }
}
