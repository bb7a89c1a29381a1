//! `--profile pennsim`: PennSim 1.2.5's LC-3 (targets/lc3/src/cpu/pennsim.rs). What PennSim
//! prints and counts for whole programs is held by tests/reference/pennsim/ (recorded from
//! PennSim's own classes); these tests pin the parts one by one: the built-in OS against the
//! OS file those recordings load, the decoder, the MPR inside compiled loops, and the course's
//! OS taking the built-in one's place.

use std::collections::BTreeMap;

use asmdbg_core::{FaultKind, Machine, MachineOptions, ProgramSource, StopEvent};
use asmdbg_lc3::asm::{assemble_str, AsmOptions};
use asmdbg_lc3::decode::{decode, decode_pennsim, disassemble_for, Instruction};
use asmdbg_lc3::machine::load_machine_files;
use asmdbg_lc3::Lc3Machine;

const REFERENCE_OS: &str = include_str!("../../../tests/reference/pennsim/lc3os.asm");

fn pennsim() -> MachineOptions {
    MachineOptions {
        profile: Some("pennsim".into()),
        ..MachineOptions::default()
    }
}

fn load(files: &[(&str, &str)], opts: &MachineOptions) -> Lc3Machine {
    let sources: Vec<ProgramSource> = files
        .iter()
        .map(|(path, text)| ProgramSource {
            path: path.to_string(),
            bytes: text.as_bytes().to_vec(),
        })
        .collect();
    load_machine_files(&sources, opts).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs to a stop with `input` queued; the output and the stop.
fn run(m: &mut Lc3Machine, input: &[u8]) -> (String, StopEvent) {
    m.console().push_input(input);
    m.console().close_input();
    let stop = m.run(10_000_000).stop.expect("stops");
    let out = String::from_utf8_lossy(&m.console().take_output()).into_owned();
    (out, stop)
}

fn words(segments: &[asmdbg_lc3::Segment]) -> BTreeMap<u16, u16> {
    let mut map = BTreeMap::new();
    for s in segments {
        for (i, &w) in s.words.iter().enumerate() {
            map.insert(s.origin.wrapping_add(i as u16), w);
        }
    }
    map
}

/// The OS file the reference recordings load is the built-in OS written out: the same words
/// at the same addresses, so a recording with it stands for a run on the built-in one.
#[test]
fn the_built_in_os_is_the_reference_os_file_word_for_word() {
    let m = load(&[("p.asm", ".ORIG x3000\nHALT\n.END\n")], &pennsim());
    let builtin = m.builtin_os().expect("no OS file given: the built-in one");
    let opts = AsmOptions {
        strict: false,
        pennsim: true,
    };
    let file = assemble_str("lc3os.asm", REFERENCE_OS, &opts).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(words(&builtin.segments), words(&file.segments));
    // Boot: x0200 in supervisor mode, registers 0.
    assert_eq!(m.pc(), 0x0200);
    assert!(!m.cpu().is_user());
}

#[test]
fn pennsims_isa_decodes_only_under_its_profile() {
    // SUB R1, R2, R3 / MUL R1, R2, R3 / MUL R1, R2, #-2 / JMPT R2 / RTT / BR never.
    let cases: [(u16, Instruction, &str); 6] = [
        (
            0x1293,
            Instruction::Sub {
                dr: 1,
                sr1: 2,
                sr2: 3,
            },
            "SUB R1, R2, R3",
        ),
        (
            0xD283,
            Instruction::MulReg {
                dr: 1,
                sr1: 2,
                sr2: 3,
            },
            "MUL R1, R2, R3",
        ),
        (
            0xD2BE,
            Instruction::MulImm {
                dr: 1,
                sr1: 2,
                imm: -2,
            },
            "MUL R1, R2, #-2",
        ),
        (0xC081, Instruction::Jmpt { base: 2 }, "JMPT R2"),
        (0xC1C1, Instruction::Jmpt { base: 7 }, "RTT"),
        (0x0000, Instruction::Illegal, ".FILL x0000"),
    ];
    for (word, instruction, text) in cases {
        assert_eq!(decode_pennsim(word), instruction, "{word:04X}");
        assert_eq!(disassemble_for(word, 0x3000, None, true), text);
    }
    // The book's decoder: an ADD with bits 4:3 = 10, opcode 1101, a JMP with bit 0 set and the
    // never-branch are other things.
    assert_eq!(decode(0x1293), Instruction::Illegal);
    assert_eq!(decode(0xD283), Instruction::Reserved);
    assert_eq!(decode(0xC081), Instruction::Illegal);
    assert_eq!(decode(0x0000), Instruction::Br { nzp: 0, offset: 0 });
    // ADD's and AND's other bit patterns stay undefined in PennSim too.
    assert_eq!(decode_pennsim(0x1288), Instruction::Illegal);
    assert_eq!(decode_pennsim(0x5293), Instruction::Illegal);
    // The mnemonics are PennSim's only: elsewhere SUB is a label.
    let src = ".ORIG x3000\nSUB ADD R1, R1, #1\nBRnzp SUB\nRTT HALT\n.END\n";
    let opts = AsmOptions::default();
    assert!(assemble_str("l.asm", src, &opts).is_ok());
}

/// A user-mode loop at x5000 storing downwards from x3FFF runs compiled (it loops on itself)
/// until it reaches x2FFF, which the course OS's MPR (x0FF8) closes: PennSim's exception
/// there, after the same instructions, compiled or not.
#[test]
fn the_mpr_stops_a_compiled_loop_at_the_first_closed_page() {
    let entry = ".ORIG x3000\nLD R2, CODE\nJMP R2\nCODE .FILL x5000\n.END\n";
    let store_down = "\
        .ORIG x5000
        LD R1, TOP
        AND R0, R0, #0
LOOP    STR R0, R1, #0
        ADD R1, R1, #-1
        BRnzp LOOP
TOP     .FILL x3FFF
        .END
";
    let mut counts = Vec::new();
    for compiled in [true, false] {
        let mut m = load(
            &[("entry.asm", entry), ("loop.asm", store_down)],
            &pennsim(),
        );
        m.set_compiled_code(compiled);
        let (_, stop) = run(&mut m, b"");
        let StopEvent::Fault(fault) = stop else {
            panic!("{stop:?}")
        };
        assert_eq!(fault.kind, FaultKind::BadAddress);
        assert_eq!(
            fault.message,
            "IllegalMemAccessException accessing address x2FFF\n\
             (The MPR and PSR do not permit access to this address)"
        );
        assert_eq!(m.pc(), 0x5002);
        counts.push(m.instructions_executed());
    }
    // Boot (6), LD and JMP, LD and AND, 3 per word from x3FFF down to x3000; the faulting
    // STR does not count.
    assert_eq!(counts, [6 + 2 + 2 + 3 * 0x1000, 6 + 2 + 2 + 3 * 0x1000]);
}

/// The course's OS as the first file takes the built-in one's place: nothing of the built-in
/// OS is in memory, and its boot code is what runs.
#[test]
fn the_courses_os_as_first_file_replaces_the_built_in_one() {
    let os = "\
        .ORIG x0200
        LD R0, OPEN             ; user code may touch every page
        STI R0, MPR
        LEA R0, HELLO
        LD R1, DDR
NEXT    LDR R2, R0, #0
        BRz DONE
        STR R2, R1, #0
        ADD R0, R0, #1
        BRnzp NEXT
DONE    LD R7, USER
        JMPT R7
DDR     .FILL xFE06
MPR     .FILL xFE12
OPEN    .FILL xFFFF
USER    .FILL x3000
HELLO   .STRINGZ \"own OS\\n\"
        .END
";
    let program =
        ".ORIG x3000\nLD R0, MCR\nAND R1, R1, #0\nSTR R1, R0, #0\nMCR .FILL xFFFE\n.END\n";
    let mut m = load(&[("os.asm", os), ("p.asm", program)], &pennsim());
    assert!(m.builtin_os().is_none());
    // The built-in OS's trap table would be here.
    assert_eq!(m.peek_word(0x0025), Ok(0));
    let (out, stop) = run(&mut m, b"");
    assert_eq!((out.as_str(), stop), ("own OS\n", StopEvent::Halted));
    // Without it, the built-in OS boots and the program is entered in user mode, where the
    // MCR (page xF) is closed.
    let mut m = load(&[("p.asm", program)], &pennsim());
    assert!(m.builtin_os().is_some());
    let (_, stop) = run(&mut m, b"");
    assert!(
        matches!(stop, StopEvent::Fault(ref f) if f.message.contains("xFFFE")),
        "{stop:?}"
    );
}

/// PennSim's keyboard and timer: a `.` in the input is a timer tick (manual timer, TMI = 1)
/// and never a key; KBDR keeps its last key when none waits.
#[test]
fn timer_ticks_and_keys_share_the_input_as_pennsim_reads_it() {
    let src = "\
        .ORIG x3000
        OUT                     ; supervisor mode from here
        AND R1, R1, #0
        ADD R1, R1, #1
        STI R1, TMI
        LDI R2, KBSR            ; a tick waits: no key
        ST R2, SEEN
WAIT    LDI R2, TMR
        BRzp WAIT
        LDI R3, KBSR            ; now the key
        ST R3, SEEN2
        LDI R4, KBDR
        LDI R5, KBDR            ; no key left: the last one again
        HALT
TMI     .FILL xFE0A
TMR     .FILL xFE08
KBSR    .FILL xFE00
KBDR    .FILL xFE02
SEEN    .BLKW 1
SEEN2   .BLKW 1
        .END
";
    let mut m = load(&[("t.asm", src)], &pennsim());
    let (_, stop) = run(&mut m, b".k");
    assert_eq!(stop, StopEvent::Halted);
    assert_eq!(m.peek_word(0x3011), Ok(0), "KBSR with a tick waiting");
    assert_eq!(m.peek_word(0x3012), Ok(0x8000), "KBSR with a key waiting");
    assert_eq!(m.read_register(4), Some(u64::from(b'k')));
    assert_eq!(m.read_register(5), Some(u64::from(b'k')));
}
