//! `monitor` commands: what gdb cannot show for these ISAs (native register notation, LC-3 and
//! SimpleRISC disassembly) plus machine controls.

use std::fmt::Write;

use gdbstub::target::ext::monitor_cmd::{ConsoleOutput, MonitorCmd};

use super::{Debuggee, GdbMachine};

impl<G: GdbMachine> MonitorCmd for Debuggee<G> {
    fn handle_monitor_cmd(
        &mut self,
        cmd: &[u8],
        mut out: ConsoleOutput<'_>,
    ) -> Result<(), Self::Error> {
        let text = String::from_utf8_lossy(cmd);
        let reply = run(self, text.trim());
        for line in reply.lines() {
            gdbstub::outputln!(out, "{}", line);
        }
        Ok(())
    }
}

const HELP: &str = "\
asmdbg monitor commands:
  monitor help                 this text
  monitor reset                reload the program and restart the machine at its entry
                               (then `maint flush register-cache`: gdb caches registers)
  monitor regs                 registers in the ISA's own notation
  monitor disas [ADDR [N]]     N instructions (default 8) from ADDR (default: the PC);
                               ADDR is a native address (x3000, 0x00400000, 12), a label
                               or a register ($pc, $ra, R7)
  monitor stats                instructions executed and the rate while running
  monitor profile              the machine: ISA, OS profile and options
  monitor when                 the current instruction count (time travel)
  monitor history              the recorded span, its checkpoints and their memory
  monitor goto N               move to instruction N of the recorded run
                               (then `maint flush register-cache`)
  monitor display              the display: its size and the memory it shows
  monitor display png FILE     write the display's current frame to FILE as a PNG
  monitor key K...             press keys on the keyboard device (a character, or
                               0xNN: space 0x20, Enter 0x0a), logged like typed input";

/// Runs one monitor command and returns its text (without a trailing newline).
pub fn run<G: GdbMachine>(dbg: &mut Debuggee<G>, command: &str) -> String {
    let mut words = command.split_whitespace();
    let verb = words.next().unwrap_or("help");
    let args: Vec<&str> = words.collect();
    match verb {
        "help" | "?" => HELP.to_string(),
        "reset" => {
            let (input, closed) = console_input_so_far(dbg);
            dbg.machine.reset();
            if dbg.history.is_some() {
                // Counts start again at 0: so does history.
                dbg.record_history(dbg.history_cap);
            }
            // The run from the start reads the console's input again, as a replay does.
            if !input.is_empty() {
                dbg.machine.queue_input(&input);
            }
            if closed {
                dbg.machine.end_input();
            }
            let failed = dbg
                .pokes
                .iter()
                .filter(|&&(addr, word)| dbg.machine.poke_word(addr, word).is_err())
                .count();
            let mut text = format!(
                "machine reset; PC = {}",
                dbg.machine.isa().format_addr(dbg.machine.pc())
            );
            if !dbg.pokes.is_empty() {
                text.push_str(&format!(
                    "; {} poked word(s) written again",
                    dbg.pokes.len() - failed
                ));
            }
            if !input.is_empty() {
                text.push_str(&format!(
                    "; the console's {} byte(s) of input are read again from the start",
                    input.len()
                ));
            }
            text
        }
        // The helper script gdb loads from the ELF says it is there (no reply: it is not
        // something a user types).
        "asmdbg-helpers" => {
            dbg.helpers_loaded = true;
            String::new()
        }
        // The helper script's reverse motions by line: the next `bs` runs this one.
        "asmdbg-reverse" => {
            dbg.helpers_loaded = true;
            dbg.armed_reverse = Some(args.join(" "));
            String::new()
        }
        "regs" | "registers" => regs(&dbg.machine),
        "disas" | "disassemble" | "x/i" => disas(&dbg.machine, &args),
        "stats" => stats(dbg),
        "profile" => dbg.machine.describe(),
        "when" => format!("instruction {}", dbg.machine.instructions_executed()),
        "history" => history(dbg),
        "goto" => goto(dbg, &args),
        "display" => display(dbg, &args),
        "key" | "keys" => keys(dbg, &args),
        other => format!("unknown monitor command '{other}'\n{HELP}"),
    }
}

/// The console's input so far, for a run from the start to read again: every byte that came
/// in (history's log), or without history the bytes the guest has not read; and whether it
/// ended.
fn console_input_so_far<G: GdbMachine>(dbg: &mut Debuggee<G>) -> (Vec<u8>, bool) {
    match &dbg.history {
        Some(history) => {
            let log = history.input_log(&dbg.machine);
            let mut bytes = Vec::new();
            let mut closed = false;
            for (_, input) in &log.entries {
                match input {
                    crate::host::HostInput::Console { bytes: b, .. } => bytes.extend(b),
                    crate::host::HostInput::ConsoleClosed { .. } => closed = true,
                    _ => {}
                }
            }
            (bytes, closed)
        }
        None => {
            let console = dbg.machine.console();
            (console.unread_input(), console.input_closed())
        }
    }
}

fn display<G: GdbMachine>(dbg: &Debuggee<G>, args: &[&str]) -> String {
    let Some(frame) = dbg.machine.frame() else {
        return "this machine has no display (MIPS: --bitmap, or a header that configures one; LC-3: --display)".to_string();
    };
    match args {
        [] => {
            let isa = dbg.machine.isa();
            let memory = dbg
                .machine
                .display_memory()
                .map(|(base, units)| {
                    format!(
                        "; memory {} to {}",
                        isa.format_addr(base),
                        isa.format_addr(base + units - 1)
                    )
                })
                .unwrap_or_default();
            format!(
                "display: {} x {} units of {} x {} pixels{memory}",
                frame.width, frame.height, frame.unit_width, frame.unit_height
            )
        }
        ["png", path] => match frame.write_png(std::path::Path::new(path)) {
            Ok(()) => format!(
                "wrote the frame at instruction {} to {path}",
                dbg.machine.instructions_executed()
            ),
            Err(e) => format!("cannot write {path}: {e}"),
        },
        _ => "usage: monitor display [png FILE]".to_string(),
    }
}

fn keys<G: GdbMachine>(dbg: &mut Debuggee<G>, args: &[&str]) -> String {
    if args.is_empty() {
        return "usage: monitor key K... (a character, or 0xNN)".to_string();
    }
    let mut pressed = Vec::new();
    for word in args {
        let line = format!("0 {word}");
        match crate::display::parse_keys("monitor key", &line) {
            Ok(keys) => pressed.extend(keys.iter().map(|k| k.key)),
            Err(e) => return e.message,
        }
    }
    // A key pressed in the past changes what happens from there: the recorded future ends.
    dbg.state_written();
    for &key in &pressed {
        dbg.machine.queue_key(key);
    }
    let device = if dbg.machine.has_keyboard_device() {
        "the keyboard"
    } else {
        "the console"
    };
    format!("{} key(s) pressed on {device}", pressed.len())
}

fn history<G: GdbMachine>(dbg: &Debuggee<G>) -> String {
    let Some(h) = &dbg.history else {
        return "time travel is off (--no-history)".to_string();
    };
    let now = dbg.machine.instructions_executed();
    format!(
        "history: instructions {} to {} ({} recorded), now at {now}{}\n\
         checkpoints: {}; memory {:.1} MiB of {} MiB (states {:.1} MiB, input log {:.1} MiB)",
        h.start_count(),
        h.frontier(),
        h.frontier() - h.start_count(),
        if h.in_past(now) {
            " (in the past: replaying)"
        } else {
            ""
        },
        h.checkpoint_count(),
        mib(h.bytes(&dbg.machine)),
        h.cap_bytes() >> 20,
        mib(h.state_bytes()),
        mib(h.log_bytes(&dbg.machine)),
    )
}

fn mib(bytes: usize) -> f64 {
    bytes as f64 / (1 << 20) as f64
}

fn goto<G: GdbMachine>(dbg: &mut Debuggee<G>, args: &[&str]) -> String {
    let Some(target) = args
        .first()
        .and_then(|a| a.replace(['_', ','], "").parse::<u64>().ok())
    else {
        return "usage: monitor goto N (an instruction count; see monitor history)".to_string();
    };
    let Some(h) = &mut dbg.history else {
        return "time travel is off (--no-history)".to_string();
    };
    if target > h.frontier() {
        return format!(
            "instruction {target} has not run yet: history ends at {}",
            h.frontier()
        );
    }
    if !h.seek(&mut dbg.machine, target) {
        return format!(
            "instruction {target} is before the start of history ({})",
            h.start_count()
        );
    }
    dbg.end_reported = false;
    let mut text = format!(
        "at instruction {}; PC = {}",
        dbg.machine.instructions_executed(),
        dbg.machine.isa().format_addr(dbg.machine.pc())
    );
    if dbg.served_to_gdb && !dbg.helpers_loaded {
        // gdb does not know the machine moved: asmdbg's helper script tells it after every
        // monitor command; without it the user must.
        text.push_str("\n(gdb keeps the registers it read: `maint flush register-cache`");
        if dbg.gdb_watched {
            text.push_str(
                "; and each watchpoint's next \"Old value\" is its value before the goto, unless \
                 gdb runs asmdbg's helper script from the ELF, which reads them again",
            );
        }
        text.push(')');
    }
    text
}

/// Values longer than this (LC-3's PSR with its flags spelled out) get a line of their own.
const WIDE_REGISTER: usize = 20;

fn regs<G: GdbMachine>(m: &G) -> String {
    let cells: Vec<(&str, String)> = m
        .registers()
        .iter()
        .enumerate()
        .filter_map(|(i, reg)| Some((reg.name, m.format_register(reg, m.read_register(i)?))))
        .collect();
    // Columns as wide as the widest name and value, two spaces apart, so that no value runs
    // into the next name whatever it holds (`x8000 (-32768)`, `-2147483648`).
    let name_width = cells.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
    let value_width = cells
        .iter()
        .map(|(_, v)| v.len())
        .filter(|&len| len <= WIDE_REGISTER)
        .max()
        .unwrap_or(0);
    let per_line = m.registers_per_line().max(1);
    let mut out = String::new();
    let mut column = 0;
    for (name, text) in &cells {
        if text.len() > WIDE_REGISTER {
            if column > 0 {
                out.push('\n');
            }
            let _ = writeln!(out, "{name:<name_width$} {text}");
            column = 0;
            continue;
        }
        let _ = write!(out, "{name:<name_width$} {text:<value_width$}  ");
        column += 1;
        if column == per_line {
            out.push('\n');
            column = 0;
        }
    }
    out.lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
}

fn disas<G: GdbMachine>(m: &G, args: &[&str]) -> String {
    let isa = m.isa();
    let start = match args.first() {
        Some(a) => match crate::machine::resolve_address(m, a) {
            Some(addr) => addr,
            None => return format!("disas: '{a}' is neither an address, a label nor a register"),
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
                let raw = m.format_encoding(addr, size);
                let _ = writeln!(out, "{marker} {}: {raw}  {text}", isa.format_addr(addr));
                addr = addr.wrapping_add(size.max(1));
            }
            None => {
                let _ = writeln!(out, "{marker} {}: (not mapped)", isa.format_addr(addr));
                break;
            }
        }
    }
    out.trim_end().to_string()
}

fn stats<G: GdbMachine>(dbg: &Debuggee<G>) -> String {
    let s = dbg.stats;
    let secs = s.busy.as_secs_f64();
    let rate = crate::rate::million_per_second(s.executed, s.busy);
    format!(
        "instructions executed: {} in total, {} while running under gdb for {:.3} s ({:.1} M instructions/s)",
        dbg.machine.instructions_executed(),
        s.executed,
        secs,
        rate
    )
}
