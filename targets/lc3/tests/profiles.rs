//! Whole programs under each OS profile, output compared byte for byte: the semantics probe
//! (probes/lc3/sem.asm, with what each reference printed in isa-specs A.3), every trap routine's
//! text, the exception banners, and loading through `load_machine`.

use asmdbg_core::{FaultKind, Flag, LoadError, Machine, MachineOptions, StopEvent};
use asmdbg_lc3::{load_machine, profile_names, Lc3Machine};

/// The repository's copy of probes/lc3/sem.asm.
const SEM: &str = include_str!("../../../tests/programs/lc3/probe_sem.asm");

fn machine(source: &str, profile: &str) -> Lc3Machine {
    let opts = MachineOptions {
        profile: Some(profile.to_string()),
        ..Default::default()
    };
    match load_machine("test.asm", source.as_bytes(), &opts) {
        Ok(m) => m,
        Err(e) => panic!("{e}"),
    }
}

/// Runs until a stop other than the budget, feeding `input` all at once; returns the guest
/// output and the stop.
fn run(m: &mut Lc3Machine, input: &[u8]) -> (String, StopEvent) {
    m.console().push_input(input);
    m.console().close_input();
    for _ in 0..100 {
        if let Some(stop) = m.run(1_000_000).stop {
            let out = String::from_utf8_lossy(&m.console().take_output()).into_owned();
            return (out, stop);
        }
    }
    panic!("still running after 100 M instructions");
}

#[test]
fn sem_probe_on_lc3tools_prints_n_s_then_the_illegal_opcode_banner() {
    let mut m = machine(SEM, "lc3tools");
    let (out, stop) = run(&mut m, b"");
    assert_eq!(
        out,
        "NS\n\n\n--- Illegal opcode ---\n\n\n\n--- Halting the LC-3 ---\n\n"
    );
    assert_eq!(stop, StopEvent::Halted);
}

#[test]
fn sem_probe_on_lc3sim_prints_p_c_then_stops_on_the_illegal_instruction() {
    let mut m = machine(SEM, "lc3sim");
    let (out, stop) = run(&mut m, b"");
    assert_eq!(out, "PC\n");
    let StopEvent::Fault(fault) = stop else {
        panic!("{stop:?}");
    };
    assert_eq!(fault.message, "Illegal instruction at x3013!");
    assert_eq!(fault.kind, FaultKind::IllegalInstruction);
    assert_eq!(m.pc(), 0x3013);
}

/// patt: 2nd edition (LEA sets CC: `P`; TRAP clobbers R7: `C`), and the illegal-opcode
/// exception of the 2nd edition book handled by asmdbg's patt OS.
#[test]
fn sem_probe_on_patt_prints_p_c_then_its_illegal_opcode_banner() {
    let mut m = machine(SEM, "patt");
    let (out, stop) = run(&mut m, b"");
    assert_eq!(
        out,
        "PC\n\n----- Illegal opcode ----- \n\n----- Halting the processor ----- \n"
    );
    assert_eq!(stop, StopEvent::Halted);
}

/// Prints through every output trap, reads with GETC and IN, then HALTs.
const TRAPS: &str = "\
        .ORIG x3000
        LEA R0, HELLO
        PUTS
        LEA R0, PACKED
        PUTSP
        GETC
        OUT
        IN
        ST R0, KEY
        LD R0, BANG
        OUT
        HALT
HELLO   .STRINGZ \"hi\\n\"
PACKED  .FILL x6261
        .FILL x0063
BANG    .FILL x21
KEY     .BLKW 1
        .END
";

#[test]
fn trap_texts_per_profile() {
    let expected = [
        (
            "patt",
            "hi\nabcx\nInput a character>y\n!\n----- Halting the processor ----- \n",
        ),
        (
            "lc3tools",
            "hi\nabcx\nInput a character> y\n!\n\n--- Halting the LC-3 ---\n\n",
        ),
        (
            "lc3sim",
            "hi\nabcx\nInput a character> y\n!\n\n--- halting the LC-3 ---\n\n",
        ),
    ];
    for (profile, text) in expected {
        let mut m = machine(TRAPS, profile);
        let (out, stop) = run(&mut m, b"xy");
        assert_eq!(out, text, "profile {profile}");
        assert_eq!(stop, StopEvent::Halted, "profile {profile}");
        let key = m.debug_info().and_then(|d| d.symbols.addr("KEY")).unwrap();
        assert_eq!(m.debug_read(key), Ok(b'y' as u32), "IN returns the key");
    }
}

#[test]
fn undefined_trap_texts() {
    let source = "        .ORIG x3000\n        TRAP x40\n        .END\n";
    let expected = [
        (
            "lc3tools",
            "\n\n--- Undefined trap executed ---\n\n\n\n--- Halting the LC-3 ---\n\n",
        ),
        (
            "lc3sim",
            "\n\n--- undefined trap executed ---\n\n\n\n--- halting the LC-3 ---\n\n",
        ),
        (
            "patt",
            "\n----- Undefined trap executed ----- \n\n----- Halting the processor ----- \n",
        ),
    ];
    for (profile, text) in expected {
        let mut m = machine(source, profile);
        let (out, stop) = run(&mut m, b"");
        assert_eq!(out, text, "profile {profile}");
        assert_eq!(stop, StopEvent::Halted);
    }
}

#[test]
fn lc3tools_exception_banners() {
    let cases = [
        ("RTI", "\n\n--- Privilege violation ---\n\n"),
        (".FILL xD000", "\n\n--- Illegal opcode ---\n\n"),
        ("LDI R0, KBSR_AT", "\n\n--- Access violation---\n\n"),
        ("STI R0, KBSR_AT", "\n\n--- Access violation---\n\n"),
    ];
    for (line, banner) in cases {
        let source = format!(
            "        .ORIG x3000\n        {line}\n        HALT\nKBSR_AT .FILL xFE00\n        .END\n"
        );
        let mut m = machine(&source, "lc3tools");
        let (out, stop) = run(&mut m, b"");
        assert_eq!(
            out,
            format!("{banner}\n\n--- Halting the LC-3 ---\n\n"),
            "{line}"
        );
        assert_eq!(stop, StopEvent::Halted);
    }
}

#[test]
fn patt_exception_banners() {
    let cases = [
        ("RTI", "\n----- Privilege mode violation ----- \n"),
        (".FILL xD000", "\n----- Illegal opcode ----- \n"),
    ];
    for (line, banner) in cases {
        let source = format!("        .ORIG x3000\n        {line}\n        HALT\n        .END\n");
        let mut m = machine(&source, "patt");
        let (out, stop) = run(&mut m, b"");
        assert_eq!(
            out,
            format!("{banner}\n----- Halting the processor ----- \n"),
            "{line}"
        );
        assert_eq!(stop, StopEvent::Halted);
    }
}

#[test]
fn patt_lets_user_programs_poll_the_keyboard_directly() {
    // What 2nd-edition course programs do; lc3tools would raise ACV here.
    let source = "\
        .ORIG x3000
POLL    LDI R1, KBSR_AT
        BRzp POLL
        LDI R0, KBDR_AT
        OUT
        HALT
KBSR_AT .FILL xFE00
KBDR_AT .FILL xFE02
        .END
";
    let mut m = machine(source, "patt");
    let (out, _) = run(&mut m, b"q");
    assert_eq!(out, "q\n----- Halting the processor ----- \n");
}

#[test]
fn unknown_profile_lists_the_valid_ones() {
    let opts = MachineOptions {
        profile: Some("lc3web".into()),
        ..Default::default()
    };
    let err = load_machine("t.asm", b".ORIG x3000\nHALT\n.END\n", &opts).unwrap_err();
    assert!(matches!(err, LoadError::Option(_)));
    assert_eq!(
        err.to_string(),
        "unknown LC-3 profile 'lc3web': expected one of patt, lc3tools, lc3sim, pennsim"
    );
    assert_eq!(profile_names(), ["patt", "lc3tools", "lc3sim", "pennsim"]);
}

/// Which flags LC-3 programs accept is LC-3's identity; the command line rejects the others
/// before loading (src/backends.rs tests the message).
#[test]
fn options_of_other_isas_are_foreign() {
    let opts = MachineOptions {
        profile: Some("lc3tools".into()),
        strict: true,
        delay_slots: true,
        mem_size: Some(64),
        ..Default::default()
    };
    assert_eq!(
        opts.foreign_to(asmdbg_lc3::ISA),
        [Flag::DelaySlots, Flag::MemSize]
    );
}

#[test]
fn assembly_errors_are_reported() {
    let err = load_machine(
        "bad.asm",
        b".ORIG x3000\nADD R1, R1, #99\n.END\n",
        &MachineOptions::default(),
    )
    .unwrap_err();
    let LoadError::Assembly(diags) = &err else {
        panic!("{err}");
    };
    assert!(err.to_string().contains("bad.asm:2:"), "{diags}");
}

#[test]
fn latin1_comments_are_still_source() {
    let source = b"        .ORIG x3000 ; caf\xe9\n        HALT\n        .END\n";
    let mut m = load_machine("latin1.asm", source, &MachineOptions::default()).unwrap();
    assert_eq!(run(&mut m, b"").1, StopEvent::Halted);
    assert!(m
        .debug_info()
        .is_some_and(|d| d.lines.get(0x3000).is_some()));
}

#[test]
fn classic_and_lc3tools_object_files_load() {
    // .ORIG x3000 ; LD R0, x3003 ; OUT ; HALT ; .FILL x41
    let classic = [0x30, 0x00, 0x20, 0x02, 0xF0, 0x21, 0xF0, 0x25, 0x00, 0x41];
    let mut m = load_machine("p.obj", &classic, &MachineOptions::default()).unwrap();
    assert_eq!(m.pc(), 0x3000);
    let (out, stop) = run(&mut m, b"");
    assert_eq!(out, "A\n----- Halting the processor ----- \n");
    assert_eq!(stop, StopEvent::Halted);

    let garbage = [0x1C, 0x30, 0x15, 0xC0, 0x01, 0x07];
    let err = load_machine("g.obj", &garbage, &MachineOptions::default()).unwrap_err();
    assert!(matches!(err, LoadError::BadObject { .. }), "{err}");
    assert!(err.to_string().starts_with("g.obj: "), "{err}");
}

/// Random bytes go to the object reader and random text to the assembler; either loads or fails
/// with the matching error, and whatever loads runs a bounded budget.
#[test]
fn garbage_files_fail_cleanly_or_run() {
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let alphabet = b" \t\n,;#xXbR0123456789ADDNOTLEAHALTBRnzp.FILL.STRINGZ.BLKW\"\\:-";
    for round in 0..300 {
        let len = (next() % 120) as usize;
        let binary = round % 2 == 0;
        let bytes: Vec<u8> = if binary {
            let mut v = vec![0x30, 0x00];
            v.extend((0..len).map(|_| next() as u8));
            v
        } else {
            let mut v = b".ORIG x3000\n".to_vec();
            v.extend((0..len).map(|_| alphabet[(next() % alphabet.len() as u64) as usize]));
            v
        };
        let opts = MachineOptions {
            profile: Some(profile_names()[round % 3].to_string()),
            ..Default::default()
        };
        match load_machine("junk", &bytes, &opts) {
            Ok(mut m) => {
                m.console().close_input();
                let outcome = m.run(10_000);
                assert!(outcome.executed <= 10_000);
            }
            Err(LoadError::BadObject { path, .. }) => assert!(binary && path == "junk"),
            Err(LoadError::Assembly(_)) => assert!(!binary, "round {round}"),
            Err(other) => panic!("round {round}: {other}"),
        }
    }
}

/// lc3tools' OS layout (read from lc3tools' OS source, src/backend/lc3os.cpp): the boot code at
/// x0200 and the trap routines from x0300, the bad-trap routine at x038C; unprogrammed
/// interrupt vectors point at a routine that only returns.
#[test]
fn lc3tools_os_routines_start_where_lc3tools_has_them() {
    let image = asmdbg_lc3::os::profile("lc3tools")
        .expect("profile")
        .os_image()
        .expect("assembles");
    let at = |name: &str| image.debug.symbols.addr(name).map(|a| a as u16);
    for (name, addr) in [
        ("OS_BOOT", 0x0200),
        ("TRAP_GETC", 0x0300),
        ("TRAP_OUT", 0x0306),
        ("TRAP_PUTS", 0x0310),
        ("TRAP_IN", 0x031F),
        ("TRAP_PUTSP", 0x0340),
        ("TRAP_HALT", 0x0366),
        ("TRAP_BAD", 0x038C),
    ] {
        assert_eq!(at(name), Some(addr), "{name}");
    }
    let m = machine(
        "        .ORIG x3000\n        HALT\n        .END\n",
        "lc3tools",
    );
    let word = |addr: u64| m.peek_word(addr).expect("mapped");
    assert_eq!(word(0x20), 0x0300, "GETC's vector");
    assert_eq!(word(0x00), 0x038C, "an undefined trap's vector");
    let int_bad = u64::from(word(0x0180));
    assert_eq!(
        word(int_bad),
        0x8000,
        "an unprogrammed interrupt vector points at an RTI"
    );
}

/// Instructions each routine executes per call under lc3tools with the device ready, counted
/// from lc3tools' OS routines (src/backend/lc3os.cpp), the TRAPs they make included, the
/// routines those TRAPs enter not: GETC 4, OUT 8, PUTS 12 + 13 per character (its OUTs
/// included), IN 12 (+ PUTS of the 20-character prompt, GETC, two OUTs), PUTSP 9 + 13 at the
/// end + per word 7 + 8 shifts of 6 (7 for a 1 bit of the high byte) + 5 (+ two OUTs), HALT 6
/// (+ PUTS of the 28-character banner). The program's TRAP instruction counts once more.
#[test]
fn lc3tools_traps_take_as_many_instructions_as_lc3tools() {
    let puts = |n: u64| 12 + 13 * n;
    let trap = 1;
    let halt = trap + 6 + puts(28);
    let count = |body: &str, input: &[u8]| {
        let src = format!("        .ORIG x3000\n{body}        HALT\n        .END\n");
        let mut m = machine(&src, "lc3tools");
        let (_, stop) = run(&mut m, input);
        assert_eq!(stop, StopEvent::Halted, "{body}");
        m.instructions_executed()
    };
    assert_eq!(count("", b""), halt);
    assert_eq!(count("        GETC\n", b"k"), trap + 4 + halt);
    assert_eq!(count("        OUT\n", b""), trap + 8 + halt);
    assert_eq!(
        count(
            "        LEA R0, S\n        PUTS\n        BR E\nS .STRINGZ \"abc\"\nE\n",
            b""
        ),
        1 + trap + puts(3) + 1 + halt
    );
    let in_call = trap + 12 + puts(20) + 4 + 2 * 8;
    assert_eq!(count("        IN\n", b"k"), in_call + halt);
    // PUTSP of x6261 ("ab"), then the zero word: the high byte 0x62 = 0110 0010 has 3 ones.
    let word_ab = 7 + 8 + (8 * 6 + 3) + 5 + 8;
    let putsp = trap + 9 + word_ab + 4 + 9;
    assert_eq!(
        count(
            "        LEA R0, S\n        PUTSP\n        BR E\nS .FILL x6261\n  .FILL 0\nE\n",
            b""
        ),
        1 + putsp + 1 + halt
    );
}

/// `--ignore-privilege` (lc3tools' flag): user code reads the PSR and writes system space with
/// no access violation; only lc3tools' profile has the check it turns off.
#[test]
fn ignore_privilege_turns_off_lc3tools_access_violations() {
    let src = "        .ORIG x3000\n        LDI R3, PSR_AT\n        LD R1, LOW\n        STR R1, R1, #0\n        LDR R2, R1, #0\n        HALT\nPSR_AT  .FILL xFFFC\nLOW     .FILL x0200\n        .END\n";
    let mut plain = machine(src, "lc3tools");
    let (out, _) = run(&mut plain, b"");
    assert!(
        out.starts_with("\n\n--- Access violation---\n\n"),
        "{out:?}"
    );
    // lc3tools 74d5e97 (scripts/lc3tools_count.cpp, with and without setIgnorePrivilege)
    // executes 749 and 387 instructions for this program.
    assert_eq!(plain.instructions_executed(), 749);
    let opts = MachineOptions {
        profile: Some("lc3tools".into()),
        ignore_privilege: true,
        ..Default::default()
    };
    let mut m = load_machine("t.asm", src.as_bytes(), &opts).expect("loads");
    let (out, stop) = run(&mut m, b"");
    assert_eq!(out, "\n\n--- Halting the LC-3 ---\n\n");
    assert_eq!(stop, StopEvent::Halted);
    assert_eq!(m.instructions_executed(), 387);
    assert_eq!(
        m.read_register(3),
        Some(0x8002),
        "R3 = the PSR, read in user mode"
    );
    assert_eq!(
        m.read_register(2),
        Some(0x0200),
        "R2 = the word stored at x0200"
    );
    for profile in ["patt", "lc3sim"] {
        let opts = MachineOptions {
            profile: Some(profile.into()),
            ignore_privilege: true,
            ..Default::default()
        };
        match load_machine("t.asm", src.as_bytes(), &opts) {
            Err(LoadError::Option(text)) => assert_eq!(
                text,
                format!("--ignore-privilege applies to --profile lc3tools; the {profile} profile has no access violations to ignore")
            ),
            other => panic!("{profile}: {:?}", other.map(|_| ())),
        }
    }
}

/// `JSRR R7`: lc3tools writes R7 before it reads the base, so the call lands on the next
/// instruction (tests/reference/lc3tools/jsrr_r7*, recorded from lc3tools); the book and
/// lc3sim jump to R7's old value. Run 200 times so the compiled loop takes it too, and once
/// more with compiled code off.
#[test]
fn jsrr_r7_jumps_to_the_old_r7_except_under_lc3tools() {
    let src = "\
        .ORIG x3000
        AND R1, R1, #0
        LD R2, ROUNDS
LOOP    LEA R7, SKIP
        JSRR R7
        ADD R1, R1, #1
SKIP    ADD R2, R2, #-1
        BRp LOOP
        ST R1, RESULT
        HALT
ROUNDS  .FILL #200
RESULT  .BLKW 1
        .END
";
    for (profile, rounds) in [("lc3tools", 200), ("patt", 0), ("lc3sim", 0)] {
        for compiled in [true, false] {
            let mut m = machine(src, profile);
            m.set_compiled_code(compiled);
            let (_, stop) = run(&mut m, b"");
            assert_eq!(stop, StopEvent::Halted, "{profile}");
            let result = m.peek_word(0x300a);
            assert_eq!(result, Ok(rounds), "{profile}, compiled {compiled}");
        }
    }
}
