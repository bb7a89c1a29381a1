//! The page's `launch`: the program's files come from the page (the editor's tabs), not from a
//! file system, and the launch attributes become the machine's options here, as the binary's
//! launcher makes them through the command line of `asmdbg debug` (src/dap.rs). The checks are
//! the machines' own (an option an ISA does not take is refused with the same message), and
//! what the browser cannot have is refused by name.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use asmdbg_core::isa::{detect, parse_isa, Dialect};
use asmdbg_core::{Backend, BitmapConfig, Isa, MachineOptions, ProgramSource, SourceAccess};
use asmdbg_session::dap::protocol::{LaunchArguments, Scalar, Scalars};
use asmdbg_session::dap::{DapProgram, Launched, LaunchedProgram, Launcher};
use asmdbg_session::{Discipline, LineMode};

/// The files the page holds, by name: the program's sources, its includes, input and keys.
pub type Files = Arc<Mutex<BTreeMap<String, Vec<u8>>>>;

/// History's memory when the launch does not say (`historyMb`), as `asmdbg debug`'s default.
pub const HISTORY_MB: u64 = 256;

/// Launch attributes that name something the browser does not have.
fn refused(args: &LaunchArguments) -> Option<&'static str> {
    let attributes = [
        (args.poke.is_some(), "poke"),
        (args.poke_file.is_some(), "pokeFile"),
        (args.project == Some(true), "project"),
        (
            args.console.as_deref() == Some("integratedTerminal"),
            "console: integratedTerminal",
        ),
    ];
    attributes.iter().find(|(given, _)| *given).map(|(_, n)| *n)
}

/// The launcher of a session whose files are `files`.
pub fn launcher(files: Files) -> Launcher {
    Box::new(move |args: &LaunchArguments| {
        if let Some(name) = refused(args) {
            return Err(format!(
                "`{name}` is not available in the browser (it has no files or terminals of its own)"
            ));
        }
        let files = files
            .lock()
            .map_err(|_| "the page's files are unavailable".to_string())?
            .clone();
        launch(args, &files)
    })
}

/// The file `name` of the page, or an error naming it.
fn file<'a>(files: &'a BTreeMap<String, Vec<u8>>, name: &str) -> Result<&'a Vec<u8>, String> {
    files.get(name).ok_or_else(|| {
        let held: Vec<&str> = files.keys().map(String::as_str).collect();
        format!("{name}: no such file (the page has {})", held.join(", "))
    })
}

fn dialects() -> [Dialect; 3] {
    [
        Backend::dialect(&asmdbg_lc3::BACKEND),
        Backend::dialect(&asmdbg_mips::BACKEND),
        Backend::dialect(&asmdbg_simplerisc::BACKEND),
    ]
}

/// The ISA the launch names, or the first file that tells (as `asmdbg debug` decides).
fn isa_of(args: &LaunchArguments, sources: &[ProgramSource]) -> Result<Isa, String> {
    let dialects = dialects();
    if let Some(Scalar(name)) = &args.isa {
        let isas: Vec<Isa> = dialects.iter().map(|d| d.isa).collect();
        return parse_isa(name, &isas);
    }
    let mut first_error = None;
    for source in sources {
        match detect(&String::from_utf8_lossy(&source.bytes), &dialects) {
            Ok(isa) => return Ok(isa),
            Err(e) => {
                first_error.get_or_insert(format!("{}: {e}", source.path));
            }
        }
    }
    Err(first_error.unwrap_or_else(|| "no program file given".to_string()))
}

/// A launch attribute's text as a number.
fn number(value: &Option<Scalar>, attribute: &str) -> Result<Option<u64>, String> {
    value
        .as_ref()
        .map(|Scalar(text)| {
            text.parse::<u64>()
                .map_err(|_| format!("`{attribute}` must be a whole number, not {text:?}"))
        })
        .transpose()
}

/// The machine's options the launch attributes give (the command line's `MachineArgs`).
fn options(
    args: &LaunchArguments,
    files: &BTreeMap<String, Vec<u8>>,
    isa: Isa,
    first: &ProgramSource,
) -> Result<MachineOptions, String> {
    let on = |flag: Option<bool>| flag == Some(true);
    let text = |value: &Option<Scalar>| value.as_ref().map(|Scalar(t)| t.clone());
    let mut opts = MachineOptions {
        profile: text(&args.profile),
        strict: on(args.strict),
        ignore_privilege: on(args.ignore_privilege),
        entry: text(&args.entry),
        start_at_main: on(args.start_at_main),
        delay_slots: on(args.delay_slots),
        seed: number(&args.seed, "seed")?,
        virtual_time: on(args.virtual_time),
        // The page's speed control: MARS's run speed slider as a rate (`2M`, `500k`, `30000`).
        speed: text(&args.speed)
            .map(|s| asmdbg_core::pace::parse_speed(&s).map_err(|e| format!("`speed`: {e}")))
            .transpose()?,
        dialogs_to_stderr: text(&args.dialogs).as_deref() == Some("stderr"),
        program_args: args
            .args
            .iter()
            .flatten()
            .map(|Scalar(a)| a.clone())
            .collect(),
        no_mul: on(args.no_mul),
        mem_size: number(&args.mem_size, "memSize")?,
        bitmap: text(&args.bitmap)
            .map(|b| BitmapConfig::parse(&b).map_err(|e| format!("`bitmap`: {e}")))
            .transpose()?,
        mmio: on(args.mmio),
        video: on(args.display),
        // Includes come from the page's files, by the names the program gives.
        sources: SourceAccess::in_memory(
            files
                .iter()
                .map(|(name, bytes)| (PathBuf::from(name), bytes.clone()))
                .collect(),
        ),
        ..MachineOptions::default()
    };
    if let Some(Scalar(name)) = &args.keys {
        let text = String::from_utf8_lossy(file(files, name)?).into_owned();
        opts.keys = asmdbg_core::display::parse_keys(name, &text).map_err(|e| e.to_string())?;
    }
    // A MIPS program whose header states its Bitmap Display gets it, as on the command line.
    if isa.accepts(asmdbg_core::Flag::Bitmap) && opts.bitmap.is_none() {
        if let Some(Ok(config)) = BitmapConfig::from_header(&String::from_utf8_lossy(&first.bytes))
        {
            opts.bitmap = Some(config);
        }
    }
    Ok(opts)
}

/// Builds the program a launch names from the page's files.
pub fn launch(
    args: &LaunchArguments,
    files: &BTreeMap<String, Vec<u8>>,
) -> Result<Launched, String> {
    let Some(Scalars(names)) = &args.program else {
        return Err("the launch needs `program`: the program's file (or a list of files)".into());
    };
    if names.is_empty() {
        return Err("`program` names no file".to_string());
    }
    let sources = names
        .iter()
        .map(|Scalar(name)| {
            let bytes = asmdbg_core::check_text(name, file(files, name)?)
                .map_err(|e| e.to_string())?
                .to_vec();
            Ok(ProgramSource {
                path: name.clone(),
                bytes,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let isa = isa_of(args, &sources)?;
    let opts = options(args, files, isa, &sources[0])?;
    let foreign: Vec<Isa> = dialects().iter().map(|d| d.isa).collect();
    opts.reject_foreign(isa, &foreign)
        .map_err(|e| e.to_string())?;
    let history = if args.no_history == Some(true) {
        None
    } else {
        Some(number(&args.history_mb, "historyMb")?.unwrap_or(HISTORY_MB))
    };
    let (program, warnings) = if isa == Backend::isa(&asmdbg_lc3::BACKEND) {
        program(&asmdbg_lc3::BACKEND, &sources, &opts, history)?
    } else if isa == Backend::isa(&asmdbg_mips::BACKEND) {
        program(&asmdbg_mips::BACKEND, &sources, &opts, history)?
    } else {
        program(&asmdbg_simplerisc::BACKEND, &sources, &opts, history)?
    };
    let mut launched = Launched {
        program,
        terminal: None,
        warnings,
    };
    if let Some(name) = &args.input {
        let bytes = file(files, name)?.clone();
        launched.program.console_input(&bytes);
        launched.program.console_input_end();
    }
    Ok(launched)
}

/// One ISA's program under the DAP session, its console the page's (no terminal to echo).
fn program<B: Backend>(
    backend: &B,
    sources: &[ProgramSource],
    opts: &MachineOptions,
    history_mb: Option<u64>,
) -> Result<(Box<dyn LaunchedProgram>, String), String> {
    let machine = backend
        .load_files(sources, opts)
        .map_err(|e| e.to_string())?;
    let warnings = asmdbg_core::Machine::start_of_run_stderr(&machine);
    let image = backend.image(&machine, opts).map_err(|e| e.to_string())?;
    let mut debuggee = asmdbg_core::gdb::Debuggee::new(machine);
    if let Some(mb) = history_mb {
        let bytes = usize::try_from(mb.saturating_mul(1 << 20)).unwrap_or(usize::MAX);
        debuggee.record_history(bytes);
    }
    let mode = if backend.cooked_console() {
        LineMode::Cooked
    } else {
        LineMode::Raw
    };
    let program =
        DapProgram::new(debuggee, image, Discipline::new(mode, false)).with_pace(opts.speed);
    Ok((Box::new(program), warnings))
}
