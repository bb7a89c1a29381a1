//! asmdbg: assemble, run and debug programs of the ISAs listed in src/backends.rs.

mod backends;
mod cli;
mod dap;
mod debug;
mod display_view;
mod grade;
mod host;
mod load;
mod pokes;
mod run;
mod screen;

use std::io::{self, Write};
use std::process::ExitCode;

use anyhow::Context;
use asmdbg_core::{CheckSet, Checker, SourceAccess};
use clap::Parser;

use cli::{AsmArgs, Cli, Command, DebugArgs, RunArgs};
use load::{program_paths, SetupError};

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
        Command::Console(args) => console_command(&args),
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
    // On a terminal in key mode, each newline the program writes starts a line (host/mod.rs).
    let mut out = host::TerminalOutput::new(io::stdout().lock());
    // On a terminal, the display is drawn above the console's output (display_view.rs); its
    // guard gives the ordinary screen back however the run ends.
    let mut display =
        display_view::DisplayView::open(machine.as_ref(), &mut out, args.machine.speed)
            .context("cannot draw the display on the terminal")?;
    let mut no_view = run::NoView;
    let view: &mut dyn run::RunView = match display.as_mut() {
        Some(display) => display,
        None => &mut no_view,
    };
    // Ctrl-C, SIGTERM and SIGHUP end the run as its end does: the last frame, the console's
    // text and --stats are shown, then the process dies of the signal.
    host::catch_endings();
    let limits = run::RunLimits {
        max_steps: args.max_steps,
        pace: args.machine.speed.map(asmdbg_core::Pace::new),
        interrupted: Some(host::interruption),
    };
    // Key by key, no echo, while the program reads the terminal (restored by the guard's drop
    // after the run, or by the host's restorers: panic hook, signals, Ctrl-C).
    let mut keys = None;
    let mut input: Box<dyn run::InputSource> = match &args.input {
        Some(path) => {
            let bytes = std::fs::read(path).map_err(|source| SetupError::Read {
                path: path.display().to_string(),
                source,
            })?;
            match args.key_every {
                Some(every) => Box::new(run::TimedInput::new(bytes, every)),
                None => Box::new(run::FixedInput(Some(bytes))),
            }
        }
        None => {
            // A keyboard device takes the keys typed on a terminal while the program runs
            // (piped input stays console input).
            let keyboard = machine.has_keyboard_device();
            if machine.console_reads_keys() || keyboard {
                keys = host::KeyMode::enter()
                    .context("cannot put the terminal into key-by-key mode")?;
            }
            let typed = keyboard && keys.is_some();
            let stream = match &keys {
                Some(_) => run::StreamInput::new(host::TypedKeys::new(io::stdin())),
                None => run::StreamInput::new(io::stdin()),
            };
            Box::new(stream.keys_to_keyboard(typed))
        }
    };
    let report = run::run_to_end(
        machine.as_mut(),
        input.as_mut(),
        &mut out,
        view,
        limits,
        checker.as_mut(),
    )?;
    drop(input);
    drop(keys);
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
    host::die_of_interruption();
    shown
}

/// `asmdbg console TARGET`: this terminal becomes the program's console or display's viewer.
fn console_command(args: &cli::ConsoleArgs) -> anyhow::Result<ExitCode> {
    host::console::attach(&args.target)
        .with_context(|| format!("cannot attach to the console {}", args.target))?;
    Ok(ExitCode::SUCCESS)
}

fn debug_command(args: &DebugArgs) -> anyhow::Result<ExitCode> {
    let paths = program_paths(&args.machine.files, args.machine.project)?;
    let program = load::read_program(&paths, args.machine.isa, &SourceAccess::open())?;
    let opts = load::machine_options(&args.machine, &program)?;
    backends::of(program.isa).debug(args, &program, &opts)
}
