//! The command line (stable: scripts and tests use it; see DESIGN.md "Command line").

use std::path::PathBuf;

use asmdbg_core::{Isa, MachineOptions};
use clap::{Args, Parser, Subcommand, ValueEnum};

#[derive(Debug, Parser)]
#[command(name = "asmdbg", version, about = about())]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Run every machine without compiled code (as hosts other than x86-64 do): to rule the
    /// compilers out when a program behaves oddly. ASMDBG_INTERPRET=1 does the same.
    #[arg(long, global = true)]
    pub interpret: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Assemble a program: .obj + .sym for LC-3.
    Asm(AsmArgs),
    /// Assemble (or load) a program and run it; guest output on stdout, nothing else.
    Run(RunArgs),
    /// Serve the program's machine to gdb over TCP, halted at its entry; console on a pty (Unix)
    /// or a loopback TCP port (Windows).
    Debug(DebugArgs),
    /// Debug Adapter Protocol server for VS Code, nvim-dap, dape, Helix: on stdin/stdout (as an
    /// IDE starts an adapter) or on a TCP port; the program comes with the `launch` request.
    Dap(DapArgs),
    /// Connect this terminal to a program's console or display (a pty path or 127.0.0.1:PORT):
    /// what `asmdbg dap` asks the IDE to run in its terminal.
    Console(ConsoleArgs),
    /// Grade submissions against a course's tests (a TOML spec): scores, JUnit, Gradescope.
    Test(TestArgs),
}

#[derive(Debug, Args)]
pub struct TestArgs {
    /// The spec: the program's files, the machine, and the cases with their checks.
    pub spec: PathBuf,
    /// Submissions: a folder holding the program's files, or a folder of such folders (one a
    /// student). None: the spec's own folder is the one submission.
    pub submissions: Vec<PathBuf>,
    /// Write JUnit XML results here.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Write Gradescope's results.json here (one submission).
    #[arg(long, value_name = "FILE")]
    pub gradescope: Option<PathBuf>,
    /// Write every result as JSON here.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write GitHub Classroom's results here (one submission; the JSON the autograding
    /// reporter reads, base64-encoded by the workflow): points per case, hidden cases' reasons
    /// left out.
    #[arg(long, value_name = "FILE")]
    pub classroom: Option<PathBuf>,
    /// Only the case of this name.
    #[arg(long, value_name = "NAME")]
    pub case: Option<String>,
    /// With --case and one submission: how to run that case under the debugger (an `asmdbg
    /// debug` command line and a VS Code launch configuration with its input and keys).
    #[arg(long, requires = "case")]
    pub debug: bool,
    /// Submissions graded at once (default: one per core).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub jobs: Option<u64>,
    /// Run every case from the program's start, even where cases could share the run up to
    /// the first input (the results are the same either way: this is for checking that).
    #[arg(long, hide = true)]
    pub no_shared_prefix: bool,
}

#[derive(Debug, Args)]
pub struct DapArgs {
    /// Serve DAP on this TCP port (loopback unless --bind says otherwise) instead of
    /// stdin/stdout; one client after another.
    #[arg(long)]
    pub port: Option<u16>,
    /// The address to listen on with --port.
    #[arg(long, default_value = "127.0.0.1", requires = "port")]
    pub bind: std::net::IpAddr,
}

#[derive(Debug, Args)]
pub struct ConsoleArgs {
    /// The program's console or display as `asmdbg debug` prints it: a pseudo-terminal's path
    /// (`/dev/pts/N`) or a TCP address (`127.0.0.1:PORT`).
    #[arg(value_name = "CONSOLE")]
    pub target: String,
}

#[derive(Debug, Args)]
pub struct AsmArgs {
    /// The assembly sources: one program (LC-3 and MIPS programs may have several files).
    #[arg(required = true, num_args = 1..)]
    pub files: Vec<PathBuf>,
    #[arg(long, value_parser = parse_isa)]
    pub isa: Option<Isa>,
    /// Output file. LC-3: FILE.obj beside each source by default (with the .sym beside it),
    /// as lc3as writes them; a name ending in .elf gets one ELF of the whole program with
    /// symbols and DWARF instead. MIPS and SimpleRISC: the ELF of the whole program (the first
    /// FILE with .elf by default).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// LC-3: the simulator the program is for; `pennsim` takes PennSim's SUB, MUL, JMPT and
    /// RTT and a file without .END (a course's lc3os.asm).
    #[arg(long)]
    pub profile: Option<String>,
    /// LC-3: Lumetta lc3as's stricter rules instead of the lenient lc3tools dialect.
    /// SimpleRISC: a line that does not assemble is an error even if it never runs. MIPS:
    /// warnings about what MARS accepts silently (a branch beyond a 16-bit offset, an
    /// instruction in a data segment).
    #[arg(long)]
    pub strict: bool,
    /// MIPS: the program runs with branch delay slots (changes pseudo-instruction expansion
    /// and the debug information).
    #[arg(long)]
    pub delay_slots: bool,
    /// SimpleRISC: the course variant without mul/div/mod.
    #[arg(long)]
    pub no_mul: bool,
    /// MIPS: the program is the first FILE and every other .asm file of its folder (MARS `p`).
    #[arg(long)]
    pub project: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DialogTarget {
    Console,
    Stderr,
}

/// Options that shape the machine, shared by `run` and `debug`.
#[derive(Debug, Args)]
pub struct MachineArgs {
    /// The program: assembly sources (or LC-3 .obj files). LC-3 and MIPS programs may have
    /// several files: LC-3 files are each loaded at their .ORIG, MIPS files are assembled
    /// together by MARS's rules.
    #[arg(required = true, num_args = 1..)]
    pub files: Vec<PathBuf>,
    #[arg(long, value_parser = parse_isa, help = isa_help())]
    pub isa: Option<Isa>,
    /// LC-3 OS profile: patt (default), lc3tools, lc3sim or pennsim (PennSim 1.2.5: boots
    /// its OS at x0200; the course's lc3os.asm may be the first file).
    #[arg(long)]
    pub profile: Option<String>,
    /// LC-3: assemble with lc3as's stricter rules. SimpleRISC: lines that do not assemble
    /// are errors even where they never run. MIPS: warnings about what MARS accepts silently
    /// (a branch beyond a 16-bit offset, an instruction in a data segment).
    #[arg(long)]
    pub strict: bool,
    /// LC-3 --profile lc3tools: user code may read and write system space and device
    /// registers without an access violation (lc3tools' --ignore-privilege)
    #[arg(long)]
    pub ignore_privilege: bool,
    /// LC-3: start at this address or label instead of where the profile's simulator starts
    /// (the first .ORIG of the last file).
    #[arg(long, value_name = "ADDR|LABEL")]
    pub entry: Option<String>,
    /// MIPS: the program is the first FILE and every other .asm file of its folder (MARS `p`).
    #[arg(long)]
    pub project: bool,
    /// MIPS: start at the global label main (MARS `sm`).
    #[arg(long)]
    pub start_at_main: bool,
    /// MIPS: branch delay slots (MARS `db`).
    #[arg(long)]
    pub delay_slots: bool,
    /// MIPS: seed for random streams the program does not seed.
    #[arg(long)]
    pub seed: Option<u64>,
    /// MIPS: sleep and time syscalls use a virtual clock (it runs as fast as it can: for tests
    /// and PNGs, not for playing).
    #[arg(long)]
    pub virtual_time: bool,
    /// Hold the run to N instructions a second (2M, 500k, 30000): MARS's run speed slider, as a
    /// rate, for games written against its pace. A virtual clock moves at that pace too.
    #[arg(long, value_name = "N", value_parser = asmdbg_core::pace::parse_speed)]
    pub speed: Option<u64>,
    /// MIPS: where dialog syscalls (50-59) are shown.
    #[arg(long, value_enum, default_value = "console")]
    pub dialogs: DialogTarget,
    /// MIPS: program arguments (MARS `pa`): argc in $a0, argv in $a1. Put it last; arguments
    /// that start with `-` go after `--`.
    #[arg(long, num_args = 1.., value_name = "ARG")]
    pub args: Vec<String>,
    /// MIPS: program arguments after `--` (following any `--args`).
    #[arg(last = true, value_name = "ARG")]
    pub trailing_args: Vec<String>,
    /// SimpleRISC: the course variant without mul/div/mod.
    #[arg(long)]
    pub no_mul: bool,
    /// SimpleRISC: data memory size in bytes.
    #[arg(long)]
    pub mem_size: Option<u64>,
    /// MIPS: a MARS Bitmap Display: WIDTHxHEIGHT,unit=U,base=ADDR|gp|data|heap|global|mmio
    /// (unit=UxV for units that are not square). Without it, a header comment that states the
    /// display's configuration ("Unit width in pixels: 8", ...) configures it.
    #[arg(long, value_name = "SPEC", value_parser = parse_bitmap)]
    pub bitmap: Option<asmdbg_core::BitmapConfig>,
    /// MIPS: connect MARS's Keyboard and Display MMIO Simulator (0xffff0000-0xffff000c); on
    /// with --keys or a bitmap display.
    #[arg(long)]
    pub mmio: bool,
    /// LC-3: PennSim's video display (128 x 124 pixels at xC000-xFDFF).
    #[arg(long)]
    pub display: bool,
    /// LC-3 and MIPS: key presses from FILE, lines `COUNT KEY`: KEY (one printable character,
    /// or 0xNN) arrives on the keyboard once COUNT instructions have run.
    #[arg(long, value_name = "FILE")]
    pub keys: Option<PathBuf>,
    /// MIPS file syscalls (MARS 13-16) may only open files in DIR: absolute names, `..` and
    /// links that lead out fail as a missing file does (a sandbox for programs you did not
    /// write). Assembly is confined too: `.include` reads only files in the folder of the
    /// program's first file.
    #[arg(long = "files", value_name = "DIR")]
    pub files_dir: Option<PathBuf>,
    /// Write words before the program starts: ADDR=V1,V2,... (ADDR a number or a label).
    #[arg(long, value_name = "ADDR=V,..")]
    pub poke: Vec<String>,
    /// Write whitespace-separated integers from FILE before the program starts: ADDR=FILE.
    #[arg(long, value_name = "ADDR=FILE")]
    pub poke_file: Vec<String>,
}

impl MachineArgs {
    pub fn options(&self) -> MachineOptions {
        MachineOptions {
            profile: self.profile.clone(),
            strict: self.strict,
            ignore_privilege: self.ignore_privilege,
            entry: self.entry.clone(),
            project: self.project,
            start_at_main: self.start_at_main,
            delay_slots: self.delay_slots,
            seed: self.seed,
            virtual_time: self.virtual_time,
            speed: self.speed,
            dialogs_to_stderr: self.dialogs == DialogTarget::Stderr,
            program_args: self
                .args
                .iter()
                .chain(&self.trailing_args)
                .cloned()
                .collect(),
            no_mul: self.no_mul,
            mem_size: self.mem_size,
            bitmap: self.bitmap,
            mmio: self.mmio,
            video: self.display,
            keys: Vec::new(),
            files_dir: self.files_dir.clone(),
            files_quota: None,
            // With --files, load::machine_options confines includes to the program's folder.
            sources: asmdbg_core::SourceAccess::open(),
            assembly_deadline: None,
            work_dir: None,
        }
    }
}

fn parse_bitmap(s: &str) -> Result<asmdbg_core::BitmapConfig, String> {
    asmdbg_core::BitmapConfig::parse(s)
}

#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub machine: MachineArgs,
    /// Read the program's console input from this file instead of stdin.
    #[arg(long)]
    pub input: Option<PathBuf>,
    /// With --input: byte i (from 1) of the input arrives when N*i instructions have run, as
    /// if typed while the program runs (for interrupt-driven programs). A program that waits
    /// for a key before then gets the next byte at once.
    #[arg(long, value_name = "N", requires = "input", value_parser = clap::value_parser!(u64).range(1..))]
    pub key_every: Option<u64>,
    /// Stop with exit status 4 after this many instructions.
    #[arg(long)]
    pub max_steps: Option<u64>,
    /// Debugging checks: warn on stderr (`file:line:col: warning[NAME]: ...`) where the
    /// program breaks a convention. `--checks` turns on all five (callee-saved,
    /// return-address, uninitialised, stack, code-as-data), `--checks=stack,uninitialised`
    /// those, `--checks=deny` makes the first warning a fault.
    #[arg(long, value_name = "LIST|deny", num_args = 0..=1, default_missing_value = "all", require_equals = true)]
    pub checks: Option<String>,
    /// Print instructions executed, seconds and the instruction rate on stderr.
    #[arg(long)]
    pub stats: bool,
    /// After the program ends, write the display's last frame to FILE as a PNG.
    #[arg(long, value_name = "FILE")]
    pub display_png: Option<PathBuf>,
    /// After the program ends, print N words from ADDR (number or label), one per line.
    #[arg(long, value_name = "ADDR[:N]")]
    pub peek: Vec<String>,
    /// Benchmarks only: set 100 breakpoints and 4 watchpoints on addresses the program does
    /// not use, to measure what they cost while running.
    #[arg(long, hide = true)]
    pub bench_traps: bool,
}

fn parse_isa(s: &str) -> Result<Isa, String> {
    crate::backends::parse_isa(s)
}

/// The program's one-line description, naming every ISA of src/backends.rs.
fn about() -> String {
    format!(
        "Assemble, run and debug {} programs over the GDB remote protocol",
        crate::backends::isa_summaries()
    )
}

/// `--isa`'s help for `run` and `debug`: the names it takes.
fn isa_help() -> String {
    format!(
        "{}; inferred from the file when omitted",
        crate::backends::isa_names()
    )
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ConsoleKind {
    /// A new pseudo-terminal (Unix; the default there); its path is printed as
    /// `console: /dev/pts/N`.
    Pty,
    /// This process's stdin and stdout.
    Stdio,
    /// A port on the loopback interface (the default on Windows), printed as
    /// `console: 127.0.0.1:PORT`; `asmdbg console 127.0.0.1:PORT` attaches a terminal to it.
    Tcp,
}

impl ConsoleKind {
    /// The host's kind of console for this choice.
    pub fn transport(self) -> crate::host::console::Transport {
        use crate::host::console::Transport;
        match self {
            ConsoleKind::Pty => Transport::Pty,
            ConsoleKind::Stdio => Transport::Stdio,
            ConsoleKind::Tcp => Transport::Tcp,
        }
    }

    /// The default: what the host has (a pty on Unix, TCP on Windows).
    fn host_default() -> ConsoleKind {
        use crate::host::console::Transport;
        match crate::host::DEFAULT_CONSOLE {
            Transport::Pty => ConsoleKind::Pty,
            Transport::Stdio => ConsoleKind::Stdio,
            Transport::Tcp => ConsoleKind::Tcp,
        }
    }
}

impl std::fmt::Display for ConsoleKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = match self {
            ConsoleKind::Pty => "a pseudo-terminal",
            ConsoleKind::Stdio => "stdio",
            ConsoleKind::Tcp => "a TCP port",
        };
        f.write_str(name)
    }
}

#[derive(Debug, Args)]
pub struct DebugArgs {
    #[command(flatten)]
    pub machine: MachineArgs,
    /// Where gdb connects: ADDR:PORT (`:PORT` = 127.0.0.1:PORT; port 0 picks a free port).
    #[arg(long, default_value = "127.0.0.1:1234", value_parser = parse_listen_addr)]
    pub gdb: std::net::SocketAddr,
    /// Where the guest's console goes (default: pty on Unix, tcp on Windows).
    #[arg(long, value_enum, default_value_t = ConsoleKind::host_default(), hide_default_value = true)]
    pub console: ConsoleKind,
    /// Exit when the first gdb session ends instead of waiting for the next connection.
    #[arg(long)]
    pub once: bool,
    /// Time travel: memory for the run's checkpoints, in MiB (older ones are thinned past it;
    /// history stays complete back to the start and only gets slower to reach).
    #[arg(long, value_name = "N", default_value = "256", value_parser = clap::value_parser!(u64).range(1..=1_048_576))]
    pub history_mb: u64,
    /// Time travel off: reverse-step and reverse-continue report the start of history at once.
    #[arg(long)]
    pub no_history: bool,
    /// Debugging checks, each finding a stop (SIGTRAP, the warning on gdb's console): all five
    /// by default, `--checks=LIST` those, `--checks=off` none (`monitor checks` toggles them).
    #[arg(
        long,
        value_name = "LIST|off",
        default_value = "all",
        require_equals = true
    )]
    pub checks: String,
    /// Where to write the program's ELF (symbols, lines, DWARF) for IDEs; default: beside the
    /// program's first file with the extension .elf. gdb also receives it over the
    /// connection.
    #[arg(long)]
    pub elf: Option<PathBuf>,
}

/// `127.0.0.1:1234`, `localhost:1234`, `:1234`, `[::1]:1234`.
fn parse_listen_addr(s: &str) -> Result<std::net::SocketAddr, String> {
    use std::net::ToSocketAddrs;
    let full = if s.starts_with(':') {
        format!("127.0.0.1{s}")
    } else {
        s.to_string()
    };
    full.to_socket_addrs()
        .map_err(|e| format!("'{s}' is not ADDR:PORT: {e}"))?
        .next()
        .ok_or_else(|| format!("'{s}' does not name an address"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listen_addresses() {
        assert_eq!(
            parse_listen_addr(":0").unwrap(),
            "127.0.0.1:0".parse().unwrap()
        );
        assert_eq!(
            parse_listen_addr("127.0.0.1:1234").unwrap(),
            "127.0.0.1:1234".parse().unwrap()
        );
        assert!(parse_listen_addr("nonsense").is_err());
    }
}
