//! `monitor` commands: what gdb cannot show for these ISAs (native register notation, LC-3 and
//! SimpleRISC disassembly) plus machine controls.

use std::fmt::Write;

use super::{Debuggee, GdbMachine};
use crate::isa::Isa;
use crate::machine::Machine;

const HELP: &str = "\
asmdbg monitor commands:
  monitor help                 this text
  monitor reset                reload the program and restart the machine at its entry
  monitor regs                 registers in the ISA's own notation
  monitor disas [ADDR [N]]     N instructions (default 8) from ADDR (default: the PC);
                               ADDR is a native address (x3000, 0x00400000, 12) or a label
  monitor stats                instructions executed and the rate while running
  monitor profile              the machine: ISA, OS profile and options";

/// Runs one monitor command and returns its text (without a trailing newline).
pub fn run<G: GdbMachine>(dbg: &mut Debuggee<G>, command: &str) -> String {
    let mut words = command.split_whitespace();
    let verb = words.next().unwrap_or("help");
    let args: Vec<&str> = words.collect();
    match verb {
        "help" | "?" => HELP.to_string(),
        "reset" => {
            dbg.machine.reset();
            format!(
                "machine reset; PC = {}",
                format_addr(dbg.machine.isa(), dbg.machine.pc())
            )
        }
        "regs" | "registers" => regs(&dbg.machine),
        "disas" | "disassemble" | "x/i" => disas(&dbg.machine, &args),
        "stats" => stats(dbg),
        "profile" => dbg.machine.describe(),
        other => format!("unknown monitor command '{other}'\n{HELP}"),
    }
}

/// A native address as the ISA's tools print it.
pub fn format_addr(isa: Isa, addr: u64) -> String {
    match isa {
        Isa::Lc3 => format!("x{addr:04X}"),
        Isa::Mips => format!("0x{addr:08x}"),
        Isa::SimpleRisc => format!("{addr}"),
    }
}

fn format_value(isa: Isa, bits: u32, value: u64) -> String {
    match isa {
        Isa::Lc3 => {
            let signed = value as u16 as i16;
            format!("x{value:04X} ({signed})")
        }
        Isa::Mips => format!("0x{value:08x}"),
        Isa::SimpleRisc if bits == 32 => format!("{}", value as u32 as i32),
        Isa::SimpleRisc => format!("{value}"),
    }
}

fn regs<M: Machine + ?Sized>(m: &M) -> String {
    let isa = m.isa();
    let mut out = String::new();
    let per_line = 4;
    for (i, reg) in m.registers().iter().enumerate() {
        let Some(v) = m.read_register(i) else {
            continue;
        };
        let _ = write!(
            out,
            "{:<5} {:<14}",
            reg.name,
            format_value(isa, reg.bits, v)
        );
        if (i + 1) % per_line == 0 {
            out.push('\n');
        }
    }
    out.trim_end().to_string()
}

/// Parses a native address: a number in the ISA's notations or a label.
fn parse_addr<M: Machine + ?Sized>(m: &M, text: &str) -> Option<u64> {
    let t = text.trim();
    let number = if let Some(h) = t
        .strip_prefix("0x")
        .or_else(|| t.strip_prefix("0X"))
        .or_else(|| t.strip_prefix('x'))
        .or_else(|| t.strip_prefix('X'))
    {
        u64::from_str_radix(h, 16).ok()
    } else {
        t.strip_prefix('#').unwrap_or(t).parse::<u64>().ok()
    };
    number.or_else(|| m.debug_info().and_then(|d| d.symbols.addr(t)))
}

fn disas<M: Machine + ?Sized>(m: &M, args: &[&str]) -> String {
    let isa = m.isa();
    let start = match args.first() {
        Some(a) => match parse_addr(m, a) {
            Some(addr) => addr,
            None => return format!("disas: '{a}' is neither an address nor a label"),
        },
        None => m.pc(),
    };
    let count = match args.get(1) {
        Some(n) => match n.parse::<u64>() {
            Ok(n) if n > 0 => n.min(4096),
            _ => return format!("disas: '{n}' is not a positive count"),
        },
        None => 8,
    };
    let mut out = String::new();
    let mut addr = start;
    for _ in 0..count {
        let marker = if addr == m.pc() { "=>" } else { "  " };
        if let Some(info) = m.debug_info() {
            for sym in info.symbols.at(addr) {
                let _ = writeln!(out, "{}:", sym.name);
            }
        }
        match m.disassemble(addr) {
            Some((text, size)) => {
                let raw = raw_word(m, addr, size);
                let _ = writeln!(out, "{marker} {}: {raw}  {text}", format_addr(isa, addr));
                addr = addr.wrapping_add(size.max(1));
            }
            None => {
                let _ = writeln!(out, "{marker} {}: (not mapped)", format_addr(isa, addr));
                break;
            }
        }
    }
    out.trim_end().to_string()
}

/// The instruction's encoding as hex, for the listing.
fn raw_word<M: Machine + ?Sized>(m: &M, addr: u64, size: u64) -> String {
    match m.isa() {
        Isa::Lc3 => m
            .debug_read(addr)
            .map(|w| format!("x{w:04X}"))
            .unwrap_or_default(),
        _ if size == 4 => m
            .peek_word(addr)
            .map(|w| format!("0x{w:08x}"))
            .unwrap_or_else(|_| " ".repeat(10)),
        _ => String::new(),
    }
}

fn stats<G: GdbMachine>(dbg: &Debuggee<G>) -> String {
    let s = dbg.stats;
    let secs = s.busy.as_secs_f64();
    let rate = if secs > 0.0 {
        s.executed as f64 / secs / 1e6
    } else {
        0.0
    };
    format!(
        "instructions executed: {} in total, {} while running under gdb for {:.3} s ({:.1} M instructions/s)",
        dbg.machine.instructions_executed(),
        s.executed,
        secs,
        rate
    )
}
