//! asmdbg: assemble, run and debug programs of the ISAs listed in src/backends.rs.

mod backends;
mod cli;
mod console;
mod dap;
mod debug;
mod grade;
mod load;
mod pokes;
mod run;
mod screen;
mod terminal;

use std::io::{self, Write};
use std::os::fd::AsFd;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use asmdbg_core::{CheckSet, Checker, SourceAccess};
use clap::Parser;

use cli::{AsmArgs, Cli, Command, ConsoleKind, DebugArgs, RunArgs};
use load::SetupError;

/// Usage or assembly error.
const EXIT_USAGE: u8 = 2;

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { EXIT_USAGE } else { 0 });
        }
    };
    if cli.interpret {
        asmdbg_core::code_memory::set_interpret(true);
    }
    let result = match cli.command {
        Command::Asm(args) => asm(&args),
        Command::Run(args) => run(&args),
        Command::Debug(args) => debug_command(&args),
        Command::Dap(args) => dap::command(&args),
        Command::Console(args) => dap::console_command(&args),
        Command::Test(args) => grade::command(&args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            // Our own setup errors already name their cause; anyhow's alternate form would
            // repeat it. Other errors (with context) print their whole chain.
            let text = match err.downcast_ref::<SetupError>() {
                Some(setup) => setup.to_string(),
                None => format!("{err:#}"),
            };
            // Assembly reports already end in a newline; keep stderr tidy either way.
            eprint!("{text}");
            if !text.ends_with('\n') {
                eprintln!();
            }
            let usage = err.downcast_ref::<SetupError>().is_some()
                || err.downcast_ref::<asmdbg_core::Diagnostics>().is_some();
            ExitCode::from(if usage { EXIT_USAGE } else { 1 })
        }
    }
}

fn exit_code(status: i32) -> ExitCode {
    ExitCode::from(status as u8)
}

/// The program's files: as named, or with `--project` the first one's whole folder.
pub(crate) fn program_paths(files: &[PathBuf], project: bool) -> Result<Vec<PathBuf>, SetupError> {
    match (project, files) {
        (false, _) => Ok(files.to_vec()),
        (true, [first]) => load::project_files(first),
        (true, _) => Err(SetupError::Usage(
            "--project takes one file, the program's first: the rest of its folder follows"
                .to_string(),
        )),
    }
}

fn asm(args: &AsmArgs) -> anyhow::Result<ExitCode> {
    let program = load::read_program(
        &program_paths(&args.files, args.project)?,
        args.isa,
        &SourceAccess::open(),
    )?;
    let opts = asmdbg_core::MachineOptions {
        profile: args.profile.clone(),
        strict: args.strict,
        delay_slots: args.delay_slots,
        no_mul: args.no_mul,
        project: args.project,
        ..Default::default()
    };
    backends::of(program.isa).asm(args, &program, &opts)?;
    Ok(ExitCode::SUCCESS)
}

fn run(args: &RunArgs) -> anyhow::Result<ExitCode> {
    let started = std::time::Instant::now();
    let (files, ranges) = load::dump_ranges(&args.machine.files)?;
    let paths = program_paths(&files, args.machine.project)?;
    let program = load::read_program(&paths, args.machine.isa, &SourceAccess::open())?;
    let opts = load::machine_options(&args.machine, &program)?;
    let read = started.elapsed();
    let (mut machine, elf) = if args.stats {
        let (machine, elf) = backends::of(program.isa).load_timing_elf(&program, &opts)?;
        (machine, Some(elf))
    } else {
        (load::load_machine(&program, &opts)?, None)
    };
    if args.display_png.is_some() && machine.frame().is_none() {
        return Err(SetupError::Usage(
            "--display-png needs a display: --bitmap (or a header that configures one) for MIPS, --display for LC-3"
                .to_string(),
        )
        .into());
    }
    let loaded = started.elapsed();
    let poked = pokes::apply_all(
        machine.as_mut(),
        &args.machine.poke,
        &args.machine.poke_file,
    )
    .map_err(SetupError::from)?;
    let mut checker = match &args.checks {
        Some(text) => {
            let set =
                CheckSet::parse(text).map_err(|e| SetupError::Usage(format!("--checks: {e}")))?;
            let mut checker = Checker::new(machine.as_ref(), set).ok_or_else(|| {
                SetupError::Usage(format!("--checks: {} has no checks", machine.isa()))
            })?;
            let units = u64::from(machine.word_units());
            for &(addr, _) in &poked {
                checker.mark_initialised(addr, units);
            }
            Some(checker)
        }
        None => None,
    };
    let peeks = args
        .peek
        .iter()
        .map(|p| pokes::parse_peek(machine.as_ref(), p))
        .collect::<Result<Vec<_>, _>>()
        .map_err(SetupError::from)?;

    if args.bench_traps {
        backends::of(machine.isa()).set_bench_traps(machine.as_mut());
    }
    eprint!("{}", machine.start_of_run_stderr());
    let stdout = io::stdout();
    let mut out = stdout.lock();
    // On a terminal, the display is drawn above the console's output (terminal.rs); its guard
    // gives the ordinary screen back however the run ends.
    let mut display = terminal::DisplayView::open(machine.as_ref(), &mut out, args.machine.speed)
        .context("cannot draw the display on the terminal")?;
    let mut no_view = run::NoView;
    let view: &mut dyn run::RunView = match display.as_mut() {
        Some(display) => display,
        None => &mut no_view,
    };
    // Ctrl-C, SIGTERM and SIGHUP end the run as its end does: the last frame, the console's
    // text and --stats are shown, then the process dies of the signal.
    terminal::catch_endings();
    let limits = run::RunLimits {
        max_steps: args.max_steps,
        pace: args.machine.speed.map(asmdbg_core::Pace::new),
        interrupted: Some(terminal::interruption),
    };
    let report = match &args.input {
        Some(path) => {
            let bytes = std::fs::read(path).map_err(|source| SetupError::Read {
                path: path.display().to_string(),
                source,
            })?;
            match args.key_every {
                Some(every) => {
                    let mut input = run::TimedInput::new(bytes, every);
                    run::run_to_end(
                        machine.as_mut(),
                        &mut input,
                        &mut out,
                        view,
                        limits,
                        checker.as_mut(),
                    )?
                }
                None => {
                    let mut input = run::FixedInput(Some(bytes));
                    run::run_to_end(
                        machine.as_mut(),
                        &mut input,
                        &mut out,
                        view,
                        limits,
                        checker.as_mut(),
                    )?
                }
            }
        }
        None => {
            // Key by key, no echo, while the program runs (restored by the guard's drop, or by
            // the signal handler and panic hook it installs). A keyboard device takes the keys
            // typed on a terminal while the program runs (piped input stays console input).
            let keyboard = machine.has_keyboard_device();
            let _keys = if machine.console_reads_keys() || keyboard {
                terminal::KeyMode::enter(io::stdin().as_fd())
                    .context("cannot put the terminal into key-by-key mode")?
            } else {
                None
            };
            let typed = keyboard && _keys.is_some();
            let mut input = run::StreamInput::new(io::stdin()).keys_to_keyboard(typed);
            run::run_to_end(
                machine.as_mut(),
                &mut input,
                &mut out,
                view,
                limits,
                checker.as_mut(),
            )?
        }
    };
    // Every ending shows the same: the last frame and the console's text, the messages, --stats.
    // After a signal that is best effort (the terminal may be gone), and then the process dies
    // of it.
    let shown = (|| -> anyhow::Result<ExitCode> {
        if let Some(display) = display {
            display
                .finish(machine.as_ref(), &mut out)
                .context("cannot leave the display's screen")?;
        }
        for peek in peeks {
            // The range was readable before the run; a program cannot unmap memory.
            match pokes::read_peek(machine.as_ref(), peek) {
                Ok(words) => write!(out, "{words}")?,
                Err(e) => eprintln!("--peek: {e}"),
            }
        }
        out.flush()?;
        if let Some(path) = &args.display_png {
            if let Some(frame) = machine.frame() {
                frame
                    .write_png(path)
                    .with_context(|| format!("cannot write {}", path.display()))?;
            }
        }
        // Fault and limit messages, then the machine's end of run: for MIPS, MARS's `nc me` stderr
        // byte for byte. `--stats` is asmdbg's own and comes after.
        if let Some(message) = &report.message {
            eprintln!("{message}");
        }
        eprint!("{}", report.epilogue);
        if !ranges.is_empty() {
            eprint!("{}", load::dump_text(machine.as_ref(), &ranges));
        }
        if args.stats {
            eprintln!("{}", run::stats_line(&report));
            if asmdbg_core::code_memory::interpreting() {
                eprintln!("compiled code: off (--interpret or ASMDBG_INTERPRET), every instruction interpreted");
            }
            let ms = |d: std::time::Duration| d.as_secs_f64() * 1000.0;
            let elf = elf.unwrap_or_default();
            eprintln!(
            "startup: {:.1} ms to a running machine with its ELF (read {:.1}, assemble and load {:.1}, ELF {:.1})",
            ms(loaded),
            ms(read),
            ms(loaded - read - elf),
            ms(elf)
        );
        }
        Ok(exit_code(report.exit_status))
    })();
    terminal::die_of_interruption();
    shown
}

fn debug_command(args: &DebugArgs) -> anyhow::Result<ExitCode> {
    let paths = program_paths(&args.machine.files, args.machine.project)?;
    let program = load::read_program(&paths, args.machine.isa, &SourceAccess::open())?;
    let opts = load::machine_options(&args.machine, &program)?;
    backends::of(program.isa).debug(args, &program, &opts)
}

/// Writes the program's ELF for IDEs (beside the program, or `--elf PATH`) and names it for
/// gdb. A program without an ELF, or a directory that cannot be written, is still debuggable:
/// gdb then gets the image from memory under the same name.
fn exec_image(
    args: &DebugArgs,
    elf: Result<Vec<u8>, asmdbg_core::elf::ElfError>,
) -> Option<asmdbg_core::gdb::ExecImage> {
    let bytes = match elf {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("warning: no ELF for gdb: {e}");
            return None;
        }
    };
    let path = args
        .elf
        .clone()
        .or_else(|| args.machine.files.first().map(|f| f.with_extension("elf")))
        .unwrap_or_else(|| PathBuf::from("program.elf"));
    let on_disk = match std::fs::write(&path, &bytes) {
        Ok(()) => true,
        Err(e) => {
            eprintln!(
                "warning: cannot write {} ({e}); gdb still gets the ELF over the connection",
                path.display()
            );
            false
        }
    };
    let name = std::path::absolute(&path).unwrap_or(path);
    Some(asmdbg_core::gdb::ExecImage {
        name: name.display().to_string(),
        bytes,
        on_disk,
    })
}

/// The machine as `debug` and `dap` serve it: the `--poke`s applied (and kept, for `monitor
/// reset`), and history recorded from there unless `--no-history` (the pokes are part of the
/// start of history).
pub(crate) fn debuggee<G: asmdbg_core::gdb::GdbMachine>(
    mut machine: G,
    args: &DebugArgs,
) -> Result<asmdbg_core::gdb::Debuggee<G>, pokes::PokeError> {
    let written = pokes::apply_all(&mut machine, &args.machine.poke, &args.machine.poke_file)?;
    let mut debuggee = asmdbg_core::gdb::Debuggee::new(machine);
    debuggee.pokes = written;
    if !matches!(args.checks.as_str(), "off" | "none") {
        let set = CheckSet::parse(&args.checks).map_err(|_| pokes::PokeError::Syntax {
            arg: format!("--checks={}", args.checks),
            expected: "checks among callee-saved, return-address, uninitialised, stack and \
                       code-as-data, or off",
        })?;
        debuggee.enable_checks(set);
    }
    if !args.no_history {
        debuggee.record_history((args.history_mb as usize) << 20);
    }
    Ok(debuggee)
}

/// Serves one machine to gdb until the process is told to stop (`--once`) or killed.
pub(crate) fn serve<G: asmdbg_core::gdb::GdbMachine>(
    machine: G,
    args: &DebugArgs,
    line_mode: console::LineMode,
    elf: Result<Vec<u8>, asmdbg_core::elf::ElfError>,
    frames: Option<asmdbg_core::elf::ElfDebug>,
) -> anyhow::Result<ExitCode> {
    let mut debuggee = debuggee(machine, args).map_err(SetupError::from)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    // The ELF is on disk before the readiness line, so an IDE that starts gdb on seeing it
    // finds the file.
    let exec = exec_image(args, elf);
    runtime.block_on(async {
        let listener = debug::listen(args.gdb)
            .await
            .with_context(|| format!("cannot listen on {}", args.gdb))?;
        let (guest_console, discipline) = match args.console {
            ConsoleKind::Pty => (
                console::open_pty().context("cannot open a pseudo-terminal")?,
                console::Discipline::new(line_mode, true),
            ),
            ConsoleKind::Stdio => (console::stdio(), console::Discipline::new(line_mode, false)),
        };
        eprintln!("console: {}", guest_console.name);
        // The machine's display on a pty of its own, for `asmdbg console PATH` to view. Without
        // one the debugger still works: a warning says why.
        let display = if debuggee.machine.frame().is_some() {
            match console::DisplayPty::open() {
                Ok(pty) => {
                    eprintln!("display: {}", pty.name);
                    Some(pty)
                }
                Err(e) => {
                    eprintln!(
                        "warning: no pty for the display ({e}): use `monitor` or the IDE to see it"
                    );
                    None
                }
            }
        } else {
            None
        };
        debuggee.exec = exec;
        let mut session = debug::Session::new(debuggee, guest_console, discipline, frames)
            .with_pace(args.machine.speed);
        if let Some(pty) = display {
            session = session.with_display(pty);
        }
        session.serve(listener, args.once).await?;
        session.finish();
        Ok(ExitCode::SUCCESS)
    })
}
