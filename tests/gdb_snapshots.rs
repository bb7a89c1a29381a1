//! Snapshots (insta) of what gdb is shown that is text we write: each ISA's target description
//! (`GdbMachine::target_xml`) and `monitor disas` listings of every game program, from the entry
//! and from one labelled routine. A change to a register layout, a disassembler or the listing
//! format shows up as a reviewed snapshot diff (`cargo insta review`) instead of slipping by.
//!
//! The monitor command goes in as gdb sends it — a `qRcmd` packet through gdbstub into the
//! library's `Debuggee` — so the test uses only public API and does not depend on where the
//! monitor code lives inside targets/core.

use asmdbg_core::gdb::{Debuggee, GdbMachine};
use asmdbg_core::{Machine, MachineOptions};
use gdbstub::conn::Connection;
use gdbstub::stub::state_machine::GdbStubStateMachine;
use gdbstub::stub::GdbStubBuilder;

/// Everything the stub writes, kept for the test to read.
#[derive(Default)]
struct Recorder(Vec<u8>);

impl Connection for Recorder {
    type Error = std::convert::Infallible;

    fn write(&mut self, byte: u8) -> Result<(), Self::Error> {
        self.0.push(byte);
        Ok(())
    }

    fn flush(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Vec<u8> {
    (0..text.len() / 2)
        .filter_map(|i| u8::from_str_radix(text.get(2 * i..2 * i + 2)?, 16).ok())
        .collect()
}

/// A packet's payload with gdb's run-length encoding (`X*n`: n - 29 more copies of X) undone.
fn expand(payload: &str) -> String {
    let mut out = String::new();
    let mut chars = payload.chars();
    while let Some(c) = chars.next() {
        if c == '*' {
            let count = chars.next().map_or(0, |n| (n as usize).saturating_sub(29));
            let last = out.chars().last().unwrap_or('0');
            out.extend(std::iter::repeat(last).take(count));
        } else {
            out.push(c);
        }
    }
    out
}

/// `$payload#checksum`.
fn packet(payload: &str) -> Vec<u8> {
    let sum = payload.bytes().fold(0u8, |s, b| s.wrapping_add(b));
    format!("${payload}#{sum:02x}").into_bytes()
}

/// The console text of `monitor COMMAND` (the `O` packets' payloads), as gdb would print it.
fn monitor<G: GdbMachine>(machine: G, command: &str) -> String {
    let mut target = Debuggee::new(machine);
    let stub = GdbStubBuilder::new(Recorder::default())
        .build()
        .unwrap_or_else(|e| panic!("gdbstub: {e}"));
    let mut state = stub
        .run_state_machine(&mut target)
        .unwrap_or_else(|e| panic!("gdbstub: {e}"));
    for byte in packet(&format!("qRcmd,{}", hex(command.as_bytes()))) {
        state = match state {
            GdbStubStateMachine::Idle(idle) => idle
                .incoming_data(&mut target, byte)
                .unwrap_or_else(|e| panic!("gdbstub: {e}")),
            _ => panic!("the stub left the idle state on a monitor command"),
        };
    }
    let GdbStubStateMachine::Idle(mut idle) = state else {
        panic!("the stub left the idle state on a monitor command");
    };
    let sent = String::from_utf8_lossy(&idle.borrow_conn().0).into_owned();
    let mut text = Vec::new();
    let mut rest = sent.as_str();
    while let Some(start) = rest.find('$') {
        let Some(end) = rest[start..].find('#') else {
            break;
        };
        let payload = expand(&rest[start + 1..start + end]);
        if let Some(out) = payload.strip_prefix('O') {
            text.extend(unhex(out));
        } else {
            assert_eq!(payload, "OK", "the monitor command's final reply");
        }
        rest = &rest[start + end..];
    }
    String::from_utf8_lossy(&text).into_owned()
}

fn read(path: &str) -> String {
    let full = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}

fn lc3(path: &str) -> asmdbg_lc3::Lc3Machine {
    asmdbg_lc3::load_machine(path, read(path).as_bytes(), &MachineOptions::default())
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn mips(path: &str) -> asmdbg_mips::MipsMachine {
    asmdbg_mips::load_machine(path, &read(path), &MachineOptions::default())
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn simplerisc(path: &str) -> asmdbg_simplerisc::SrMachine {
    let opts = MachineOptions {
        no_mul: true,
        ..MachineOptions::default()
    };
    asmdbg_simplerisc::load_machine(path, &read(path), &opts)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// `disas ENTRY 40` and `disas ROUTINE 40` of one program.
fn listings<G: GdbMachine>(load: impl Fn() -> G, routine: &str) -> String {
    let machine = load();
    let entry = machine.isa().format_addr(machine.pc());
    let from_entry = monitor(machine, &format!("disas {entry} 40"));
    let from_routine = monitor(load(), &format!("disas {routine} 40"));
    assert!(
        from_routine.starts_with(&format!("{routine}:")),
        "the listing starts at the label:\n{from_routine}"
    );
    format!("monitor disas {entry} 40\n{from_entry}\nmonitor disas {routine} 40\n{from_routine}")
}

#[test]
fn target_descriptions() {
    insta::assert_snapshot!("lc3_target_xml", lc3("programs/lc3/nim.asm").target_xml());
    insta::assert_snapshot!(
        "mips_target_xml",
        mips("programs/mips/four_in_a_row.asm").target_xml()
    );
    insta::assert_snapshot!(
        "simplerisc_target_xml",
        simplerisc("programs/simplerisc/tictactoe.asm").target_xml()
    );
}

#[test]
fn lc3_game_listings() {
    for game in ["connect4", "dots", "nim"] {
        let path = format!("programs/lc3/{game}.asm");
        insta::assert_snapshot!(
            format!("disas_lc3_{game}"),
            listings(|| lc3(&path), "DISPLAY_BOARD")
        );
    }
}

#[test]
fn mips_game_listing() {
    insta::assert_snapshot!(
        "disas_mips_four_in_a_row",
        listings(|| mips("programs/mips/four_in_a_row.asm"), "print_board")
    );
}

#[test]
fn simplerisc_game_listing() {
    insta::assert_snapshot!(
        "disas_simplerisc_tictactoe",
        listings(|| simplerisc("programs/simplerisc/tictactoe.asm"), "haswin")
    );
}

#[test]
fn monitor_regs_keeps_columns_apart_for_the_widest_values() {
    // Every register at its widest value: a name never runs into the value before it.
    let mut machine = lc3("programs/lc3/nim.asm");
    for r in 0..8 {
        machine.write_register(r, 0x8000);
    }
    let listing = monitor(machine, "regs");
    assert!(
        listing.contains("R1  x8000 (-32768)  R2  x8000 (-32768)"),
        "LC-3 columns:\n{listing}"
    );
    for line in listing.lines().take(2) {
        let words = line.split_whitespace().count();
        assert_eq!(words, 12, "four `Rn x8000 (-32768)` cells a line: {line:?}");
    }

    let mut machine = mips("programs/mips/four_in_a_row.asm");
    for r in 1..32 {
        machine.write_register(r, 0x8000_0000);
    }
    let listing = monitor(machine, "regs");
    for line in listing.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(
            words.len() % 2,
            0,
            "MIPS: names and values alternate: {line:?}"
        );
    }

    let mut machine = simplerisc("programs/simplerisc/tictactoe.asm");
    for r in 0..16 {
        machine.write_register(r, 0x8000_0000);
    }
    let listing = monitor(machine, "regs");
    assert!(
        listing.contains("r0    -2147483648  r1    -2147483648"),
        "SimpleRISC columns:\n{listing}"
    );
}

#[test]
fn monitor_disas_takes_registers_as_addresses() {
    let machine = lc3("programs/lc3/nim.asm");
    let pc = machine.isa().format_addr(machine.pc());
    let from_pc = monitor(machine, "disas $pc 2");
    assert!(from_pc.contains(&format!("=> {pc}:")), "{from_pc}");
    assert_eq!(from_pc, monitor(lc3("programs/lc3/nim.asm"), "disas PC 2"));

    let mut machine = lc3("programs/lc3/nim.asm");
    machine.write_register(7, 0x3002);
    let from_r7 = monitor(machine, "disas R7 1");
    assert!(from_r7.contains("x3002:"), "{from_r7}");

    let mut machine = mips("programs/mips/four_in_a_row.asm");
    machine.write_register(31, 0x0040_0010);
    let from_ra = monitor(machine, "disas $ra 1");
    assert!(from_ra.contains("0x00400010:"), "{from_ra}");
    let mut machine = mips("programs/mips/four_in_a_row.asm");
    machine.write_register(31, 0x0040_0010);
    assert_eq!(monitor(machine, "disas $31 1"), from_ra);

    let mut machine = simplerisc("programs/simplerisc/tictactoe.asm");
    machine.write_register(14, 8);
    let from_sp = monitor(machine, "disas $sp 1");
    assert!(from_sp.contains("8:"), "{from_sp}");
    let mut machine = simplerisc("programs/simplerisc/tictactoe.asm");
    machine.write_register(14, 8);
    assert_eq!(monitor(machine, "disas r14 1"), from_sp);

    let refused = monitor(lc3("programs/lc3/nim.asm"), "disas $nosuch");
    assert_eq!(
        refused.trim(),
        "disas: '$nosuch' is neither an address, a label nor a register"
    );
}

#[test]
fn simplerisc_monitor_disas_shows_the_code_word_not_the_data_word() {
    // Code and data are separate memories at the same addresses; a poke writes data.
    let mut machine = simplerisc("programs/simplerisc/tictactoe.asm");
    let code = monitor(simplerisc("programs/simplerisc/tictactoe.asm"), "disas 0 1");
    machine
        .poke_word(0, 0x1234_5678)
        .unwrap_or_else(|e| panic!("poke: {e}"));
    let listing = monitor(machine, "disas 0 1");
    assert!(!listing.contains("0x12345678"), "{listing}");
    assert_eq!(listing, code, "a data poke leaves the listing alone");
    // The encoding column is the word the instruction was assembled to.
    let program = read("programs/simplerisc/tictactoe.asm");
    let assembled = asmdbg_simplerisc::load_machine(
        "t.asm",
        &program,
        &MachineOptions {
            no_mul: true,
            ..MachineOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let first = assembled.disassemble(0).expect("code at 0");
    assert!(listing.contains(&first.0), "{listing}");
    assert!(
        !listing.contains("0x00000000  "),
        "an instruction's encoding is not zero: {listing}"
    );
}
