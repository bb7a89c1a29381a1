//! Snapshots (insta) of what gdb is shown that is text we write: each ISA's target description
//! (`GdbMachine::target_xml`) and `monitor disas` listings of every game program, from the entry
//! and from one labelled routine. A change to a register layout, a disassembler or the listing
//! format shows up as a reviewed snapshot diff (`cargo insta review`) instead of slipping by.
//!
//! The monitor command goes in as gdb sends it — a `qRcmd` packet through gdbstub into the
//! library's `Debuggee` — so the test uses only public API and does not depend on where the
//! monitor code lives inside targets/core.

use asmdbg_core::gdb::{Debuggee, GdbMachine};
use asmdbg_core::MachineOptions;
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
