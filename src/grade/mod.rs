//! `asmdbg test SPEC.toml [SUBMISSION...]`: a course's tests (spec.rs) run over every
//! submission (submissions.rs finds them and their files), in-process and in parallel over the
//! cores, each case sandboxed, run (runner.rs) and checked (checks.rs), then scored
//! (report.rs).
//!
//! The sandbox: a submission's assembly reads only regular files inside the submission, each up
//! to 1 MiB and 16 MiB in all (an `.include` of the reference solution, of `/dev/zero` or of a
//! link out fails as a missing file does); each case runs in its own folder for MIPS files
//! (holding at most 16 MiB), with virtual time, seeded random numbers, a step limit, a
//! wall-time limit that assembly counts against, and at most 1 MiB of output.
//!
//! Cases that differ only in their input share the run up to the program's first look at its
//! input: it is run once with the input held back, saved with the folder's files and what it
//! printed, and each case goes on from there. The result is the same as running each case
//! from the start (`--no-shared-prefix` does that, and tests/grade_adversarial.rs checks it).

pub mod checks;
pub mod report;
pub mod runner;
pub mod spec;
pub mod submissions;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use asmdbg_core::{Flag, Isa, MachineOptions, SourceAccess};

use crate::backends::Rewind;
use crate::cli::TestArgs;
use crate::load::SetupError;
use checks::Expected;
use report::{CaseResult, SubmissionResult};
use runner::{Limits, Outcome, OUTPUT_LIMIT};
use spec::{Case, Spec};
pub use submissions::Submission;

const DEFAULT_MAX_STEPS: u64 = 100_000_000;
const DEFAULT_TIME_LIMIT: f64 = 10.0;
/// Bytes the files in a case's folder may hold together.
const FILES_LIMIT: u64 = 16 << 20;

/// How the cases are run.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// Submissions graded at once.
    pub jobs: usize,
    /// Cases that differ only in their input share the run up to the first input.
    pub share_prefix: bool,
}

/// The machine options of the spec for one case: the spec's flags, the case's keys, virtual
/// time, MIPS files confined to `files_dir`, includes to the submission (`sources`), and
/// assembly given up at `deadline`.
fn options(
    spec: &Spec,
    case: &Case,
    isa: Isa,
    files_dir: &Path,
    sources: &SourceAccess,
    deadline: Instant,
) -> Result<MachineOptions, String> {
    let p = &spec.program;
    let mut keys = Vec::new();
    if let Some(file) = &case.keys_file {
        let path = spec.file(file);
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        keys = asmdbg_core::display::parse_keys(&path.display().to_string(), &text)
            .map_err(|e| e.to_string())?;
    }
    for (at, key) in &case.keys {
        let line = format!("{at} {key}");
        let parsed = asmdbg_core::display::parse_keys(&format!("case '{}' keys", case.name), &line)
            .map_err(|e| e.to_string())?;
        keys.extend(parsed);
    }
    keys.sort_by_key(|k| k.at);
    let bitmap = p
        .bitmap
        .as_deref()
        .map(asmdbg_core::BitmapConfig::parse)
        .transpose()
        .map_err(|e| format!("[program] bitmap: {e}"))?;
    let mut opts = MachineOptions {
        profile: p.profile.clone(),
        strict: p.strict,
        ignore_privilege: p.ignore_privilege,
        entry: p.entry.clone(),
        start_at_main: p.start_at_main,
        delay_slots: p.delay_slots,
        seed: p.seed,
        no_mul: p.no_mul,
        mem_size: p.mem_size,
        bitmap,
        mmio: p.mmio,
        video: p.display,
        program_args: p.args.clone(),
        dialogs_to_stderr: p.dialogs == Some(spec::Dialogs::Stderr),
        keys,
        sources: sources.clone(),
        assembly_deadline: Some(deadline),
        ..MachineOptions::default()
    };
    if isa.accepts(Flag::VirtualTime) {
        // No sleep really sleeps; unseeded random streams are seeded, so every run of a case
        // is the same run.
        opts.virtual_time = true;
        opts.seed = opts.seed.or(Some(0));
        opts.files_dir = Some(files_dir.to_path_buf());
        opts.files_quota = Some(FILES_LIMIT);
    }
    Ok(opts)
}

/// The case's console input.
fn input(spec: &Spec, case: &Case) -> Result<Vec<u8>, String> {
    match (&case.input, &case.input_file) {
        (Some(text), _) => Ok(text.as_bytes().to_vec()),
        (None, Some(file)) => {
            let path = spec.file(file);
            std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))
        }
        (None, None) => Ok(Vec::new()),
    }
}

fn limits(spec: &Spec, case: &Case) -> Limits {
    let seconds = case
        .time_limit
        .or(spec.program.time_limit)
        .unwrap_or(DEFAULT_TIME_LIMIT);
    Limits {
        max_steps: case
            .max_steps
            .or(spec.program.max_steps)
            .unwrap_or(DEFAULT_MAX_STEPS),
        time: Duration::from_secs_f64(seconds.max(0.001)),
    }
}

/// Reads a file the spec names.
fn spec_file(spec: &Spec, name: &str) -> Result<Vec<u8>, String> {
    let path = spec.file(name);
    std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))
}

fn expected(spec: &Spec, case: &Case) -> Result<Expected, String> {
    let text = |inline: &Option<String>, file: &Option<String>| -> Result<Option<String>, String> {
        match (inline, file) {
            (Some(text), _) => Ok(Some(text.clone())),
            (None, Some(file)) => Ok(Some(
                String::from_utf8_lossy(&spec_file(spec, file)?).into_owned(),
            )),
            (None, None) => Ok(None),
        }
    };
    let e = &case.expect;
    let frame = match &e.frame {
        Some(file) => {
            let bytes = spec_file(spec, file)?;
            Some(
                asmdbg_core::display::read_png(&bytes)
                    .map_err(|err| format!("{}: {err}", spec.file(file).display()))?,
            )
        }
        None => None,
    };
    let mut files: Vec<(String, Vec<u8>)> = e
        .files
        .iter()
        .map(|(name, text)| (name.clone(), text.as_bytes().to_vec()))
        .collect();
    for (name, file) in &e.files_from {
        files.push((name.clone(), spec_file(spec, file)?));
    }
    for file in case.data_files.values() {
        spec_file(spec, file)?;
    }
    Ok(Expected {
        output: text(&e.output, &e.output_file)?,
        normalized: text(&e.output_normalized, &e.output_normalized_file)?,
        frame,
        files,
    })
}

/// A submission's program: its files read (confined to the submission), and where they were
/// found when that is worth saying.
struct Program {
    files: crate::load::ProgramFiles,
    sources: SourceAccess,
}

/// Finds and reads the program's files in `submission` (the submission's folder confines what
/// assembly reads), and decides its ISA. `Err`: why it cannot be graded, for the student.
fn read_submission(
    spec: &Spec,
    submission: &Submission,
) -> (Result<Program, String>, Option<String>) {
    let located = match submissions::locate(&spec.program.files, &submission.dir) {
        Ok(located) => located,
        Err(message) => return (Err(message), None),
    };
    let sources = match SourceAccess::confined(&submission.dir) {
        Ok(sources) => sources,
        Err(e) => return (Err(format!("{}: {e}", submission.dir.display())), None),
    };
    let program =
        read_program(spec, &located.dir, &sources).map(|files| Program { files, sources });
    (program, located.note)
}

/// Reads the program's files in `program_dir` and decides its ISA (once a submission).
fn read_program(
    spec: &Spec,
    program_dir: &Path,
    sources: &SourceAccess,
) -> Result<crate::load::ProgramFiles, String> {
    let paths: Vec<PathBuf> = spec
        .program
        .files
        .iter()
        .map(|f| program_dir.join(f))
        .collect();
    let isa = match &spec.program.isa {
        Some(name) => Some(crate::backends::parse_isa(name)?),
        None => None,
    };
    crate::load::read_program(&paths, isa, sources).map_err(|e| e.to_string())
}

/// A machine loaded once for the cases that share its options (their keys and data files),
/// saved where they diverge: at the start, or, when no case of the group pokes, watches or
/// stops at a label, where the program first looks at its input (the run they all share,
/// done once; see the module header).
struct Group {
    machine: Box<dyn Rewind>,
    files_dir: PathBuf,
    /// What the folder held when the machine was saved (the data files, and what a shared
    /// prefix wrote), by path relative to it.
    files: Vec<(PathBuf, Vec<u8>)>,
    /// Wall time spent building the machine (assembly) and running the shared prefix: each case
    /// pays it out of its own time limit, as if it had done that work itself.
    spent: Duration,
    /// Bytes the shared prefix wrote to stderr: they count against each case's output limit.
    prefix_stderr: usize,
}

/// The cases that can share a machine: the same keys and data files (the options are
/// otherwise the spec's).
fn group_key(case: &Case) -> String {
    format!("{:?} {:?} {:?}", case.keys, case.keys_file, case.data_files)
}

/// The tightest limits among `cases`.
fn group_limits(spec: &Spec, cases: &[&Case]) -> Limits {
    let all: Vec<Limits> = cases.iter().map(|c| limits(spec, c)).collect();
    Limits {
        max_steps: all
            .iter()
            .map(|l| l.max_steps)
            .min()
            .unwrap_or(DEFAULT_MAX_STEPS),
        time: all
            .iter()
            .map(|l| l.time)
            .min()
            .unwrap_or(Duration::from_secs_f64(DEFAULT_TIME_LIMIT)),
    }
}

fn load_group(
    spec: &Spec,
    cases: &[&Case],
    program: &Program,
    scratch: &Path,
    settings: Settings,
) -> Result<Group, String> {
    let started = Instant::now();
    let files_dir = scratch.join("files");
    let _ = std::fs::remove_dir_all(&files_dir);
    std::fs::create_dir_all(&files_dir).map_err(|e| format!("{}: {e}", files_dir.display()))?;
    for (name, file) in &cases[0].data_files {
        std::fs::write(files_dir.join(name), spec_file(spec, file)?)
            .map_err(|e| format!("{}: {e}", files_dir.join(name).display()))?;
    }
    let limit = group_limits(spec, cases);
    let deadline = started + limit.time;
    let opts = options(
        spec,
        cases[0],
        program.files.isa,
        &files_dir,
        &program.sources,
        deadline,
    )?;
    let keys = !opts.keys.is_empty();
    let mut machine = crate::backends::of(program.files.isa)
        .load_rewindable(&program.files, &opts)
        .map_err(|e| e.to_string())?;
    // One byte past the limit tells a run that printed too much from one that printed it all.
    machine.machine().limit_output(OUTPUT_LIMIT + 1);
    machine.save();
    // Keys (LC-3: on the console's keyboard) would arrive at their counts into the held
    // input: such groups are never shared.
    let shareable = settings.share_prefix
        && !keys
        && cases.iter().all(|c| {
            // The debugging checks follow the program from its first instruction.
            c.poke.is_empty()
                && c.watch.is_empty()
                && c.hit.is_empty()
                && c.expect.checks.is_empty()
        });
    let shared = shareable
        .then(|| runner::run_prefix(machine.machine(), limit.max_steps, deadline))
        .flatten();
    if shared.is_some() {
        machine.save();
    } else {
        machine.rewind();
        machine.machine().take_host_stderr();
    }
    let prefix_stderr = shared.unwrap_or(0);
    let files = folder_files(&files_dir);
    Ok(Group {
        machine,
        files_dir,
        files,
        spent: started.elapsed(),
        prefix_stderr,
    })
}

/// Every file below `dir` with its bytes (a case's folder: at most [`FILES_LIMIT`] bytes).
fn folder_files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut found = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            let path = entry.path();
            match entry.file_type() {
                Ok(t) if t.is_dir() => folders.push(path),
                Ok(t) if t.is_file() => {
                    if let (Ok(bytes), Ok(relative)) =
                        (std::fs::read(&path), path.strip_prefix(dir))
                    {
                        found.push((relative.to_path_buf(), bytes));
                    }
                }
                _ => {}
            }
        }
    }
    found
}

/// Runs one case on its group's machine, from the saved state, with the case's folder as it
/// was then.
fn run_case(spec: &Spec, case: &Case, group: &mut Group) -> Result<Outcome, String> {
    let limit = limits(spec, case);
    let deadline = Instant::now() + limit.time.saturating_sub(group.spent);
    // Back to the saved state first: that closes the files the last case left open, which
    // Windows will not delete while they are (the folder would keep them, and the program's
    // open of a file pending deletion fails).
    group.machine.rewind();
    let dir = &group.files_dir;
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for (relative, bytes) in &group.files {
        let path = dir.join(relative);
        if let Some(parent) = path.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        std::fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let machine = group.machine.machine();
    machine.take_host_stderr();
    machine.breakpoints().clear();
    machine.watchpoints().clear();
    let mut poked = Vec::new();
    for poke in &case.poke {
        poked.extend(crate::pokes::apply_poke(machine, poke).map_err(|e| e.to_string())?);
    }
    let bytes = input(spec, case)?;
    machine.queue_input(&bytes);
    machine.end_input();
    // The case's debugging checks, from the machine at its start with the pokes written.
    let mut checker = None;
    if !case.expect.checks.is_empty() {
        let mut set = asmdbg_core::CheckSet::NONE;
        for kind in case
            .expect
            .checks
            .iter()
            .filter_map(|n| asmdbg_core::CheckKind::parse(n))
        {
            set.insert(kind);
        }
        let mut made = asmdbg_core::Checker::new(&*machine, set)
            .ok_or_else(|| format!("{} has no debugging checks", machine.isa()))?;
        let units = u64::from(machine.word_units());
        for &(addr, _) in &poked {
            made.mark_initialised(addr, units);
        }
        checker = Some(made);
    }
    Ok(runner::run(
        machine,
        case,
        limit.max_steps,
        deadline,
        limit.time,
        group.prefix_stderr,
        checker.as_mut(),
    ))
}

/// Every case of `spec` on `submission`; the reference outputs by case name.
fn grade(
    spec: &Spec,
    expected: &[Expected],
    references: &HashMap<String, Vec<u8>>,
    submission: &Submission,
    scratch: &Path,
    settings: Settings,
) -> SubmissionResult {
    let (program, note) = read_submission(spec, submission);
    let mut members: HashMap<String, Vec<&Case>> = HashMap::new();
    for case in &spec.cases {
        members.entry(group_key(case)).or_default().push(case);
    }
    let mut groups: HashMap<String, Result<Group, String>> = HashMap::new();
    let cases = spec
        .cases
        .iter()
        .zip(expected)
        .map(|(case, want)| {
            let started = Instant::now();
            let key = group_key(case);
            let n = groups.len();
            let group = groups.entry(key.clone()).or_insert_with(|| {
                let program = program.as_ref().map_err(Clone::clone)?;
                load_group(
                    spec,
                    &members[&key],
                    program,
                    &scratch.join(format!("group{n}")),
                    settings,
                )
            });
            let ran = match group {
                Ok(group) => run_case(spec, case, group).map(|outcome| (outcome, group)),
                Err(message) => Err(message.clone()),
            };
            let (failures, summary) = match ran {
                Err(message) => (vec![one_line(&message)], "did not run".to_string()),
                Ok((outcome, group)) => {
                    let ran = checks::Ran {
                        machine: group.machine.machine_ref(),
                        case,
                        outcome: &outcome,
                        files_dir: &group.files_dir,
                    };
                    let failures =
                        checks::check(&ran, want, references.get(&case.name).map(Vec::as_slice));
                    (failures, outcome.end.summary(outcome.executed))
                }
            };
            CaseResult {
                name: case.name.clone(),
                points: if failures.is_empty() {
                    case.points
                } else {
                    0.0
                },
                max_points: case.points,
                visibility: case.visibility,
                failures,
                summary,
                seconds: started.elapsed().as_secs_f64(),
            }
        })
        .collect();
    for group in groups.into_values().flatten() {
        // The machine (and the files it holds open) goes first, for Windows' sake.
        let dir = group.files_dir.clone();
        drop(group);
        let _ = std::fs::remove_dir_all(&dir);
    }
    SubmissionResult {
        name: submission.name.clone(),
        notes: note.into_iter().collect(),
        cases,
    }
}

/// The reference program's output for each case that compares with it.
fn reference_outputs(
    spec: &Spec,
    scratch: &Path,
    settings: Settings,
) -> Result<HashMap<String, Vec<u8>>, String> {
    let mut outputs = HashMap::new();
    let Some(reference) = &spec.program.reference else {
        return Ok(outputs);
    };
    let path = spec.file(reference);
    let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // The reference is one file named in its place; the rest of the program is the spec's.
    let mut reference_spec = spec.clone();
    reference_spec.program.files = vec![name];
    let sources = SourceAccess::open();
    let files = read_program(&reference_spec, &dir, &sources)
        .map_err(|e| format!("the reference program: {e}"))?;
    let program = Program { files, sources };
    for (i, case) in spec.cases.iter().enumerate() {
        if !case.expect.output_matches_reference {
            continue;
        }
        let outcome = load_group(
            &reference_spec,
            &[case],
            &program,
            &scratch.join(format!("ref{i}")),
            settings,
        )
        .and_then(|mut group| run_case(&reference_spec, case, &mut group))
        .map_err(|e| format!("the reference program, case '{}': {e}", case.name))?;
        outputs.insert(case.name.clone(), outcome.output);
    }
    Ok(outputs)
}

/// A failure as one line: an assembler's report (each error with its source line and caret)
/// becomes its first error and how many there are.
fn one_line(message: &str) -> String {
    let errors: Vec<&str> = message.lines().filter(|l| l.contains(": error:")).collect();
    match errors.as_slice() {
        [] => message.lines().next().unwrap_or_default().to_string(),
        [only] => only.to_string(),
        [first, rest @ ..] => format!("{first} (and {} more errors)", rest.len()),
    }
}

/// Grades every submission, `settings.jobs` at a time. `Err`: the spec's own files (expected
/// outputs, the reference program) cannot be used.
pub fn grade_all(
    spec: &Spec,
    subs: &[Submission],
    settings: Settings,
) -> Result<Vec<SubmissionResult>, String> {
    let scratch = tempfile::Builder::new()
        .prefix("asmdbg-test-")
        .tempdir()
        .map_err(|e| format!("cannot make a scratch folder: {e}"))?;
    let expected: Vec<Expected> = spec
        .cases
        .iter()
        .map(|case| expected(spec, case).map_err(|e| format!("case '{}': {e}", case.name)))
        .collect::<Result<_, _>>()?;
    let references = reference_outputs(spec, scratch.path(), settings)?;
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<SubmissionResult>>> = Mutex::new(vec![None; subs.len()]);
    std::thread::scope(|scope| {
        for worker in 0..settings.jobs.clamp(1, subs.len().max(1)) {
            let (next, results, expected, references) = (&next, &results, &expected, &references);
            let scratch = scratch.path().join(format!("worker{worker}"));
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(sub) = subs.get(i) else {
                    return;
                };
                let result = grade(spec, expected, references, sub, &scratch, settings);
                if let Ok(mut all) = results.lock() {
                    all[i] = Some(result);
                }
            });
        }
    });
    let results = results
        .into_inner()
        .map_err(|_| "a grading thread failed".to_string())?;
    Ok(results.into_iter().flatten().collect())
}

/// A result file can be written where the command line says: its folder exists.
fn check_writable(path: &Path) -> Result<(), SetupError> {
    let folder = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if folder.is_dir() {
        Ok(())
    } else {
        Err(SetupError::Usage(format!(
            "cannot write {}: there is no folder {}",
            path.display(),
            folder.display()
        )))
    }
}

/// Writes a result file (after grading, a failure is still the command line's: exit status 2).
fn write_result(path: &Path, text: &str) -> Result<(), SetupError> {
    std::fs::write(path, text)
        .map_err(|e| SetupError::Usage(format!("cannot write {}: {e}", path.display())))
}

/// `asmdbg test`. Everything the command line gets wrong (a spec, a folder, a result file's
/// place, `--gradescope` with several submissions) is refused with exit status 2 before
/// anything is graded; then 0 if every case of every submission passed, 1 if not.
pub fn command(args: &TestArgs) -> anyhow::Result<ExitCode> {
    crate::host::map_large_allocations();
    let mut spec = Spec::load(&args.spec).map_err(|e| SetupError::Usage(e.to_string()))?;
    if let Some(name) = &args.case {
        spec.cases.retain(|c| &c.name == name);
        if spec.cases.is_empty() {
            return Err(SetupError::Usage(format!(
                "{}: no case named '{name}'",
                args.spec.display()
            ))
            .into());
        }
    }
    // Gradescope and GitHub Classroom grade one submission: the folder named is it.
    let one = args.gradescope.is_some() || args.classroom.is_some();
    let subs = submissions::submissions(&spec.program.files, &spec.dir, &args.submissions, one)
        .map_err(SetupError::Usage)?;
    if args.debug {
        return debug_case(&spec, &subs);
    }
    if args.gradescope.is_some() && subs.len() > 1 {
        return Err(SetupError::Usage(format!(
            "--gradescope writes one submission's results; {} submissions are named",
            subs.len()
        ))
        .into());
    }
    for path in [&args.junit, &args.gradescope, &args.json]
        .into_iter()
        .flatten()
    {
        check_writable(path)?;
    }
    let settings = Settings {
        jobs: args.jobs.map_or_else(
            || std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get),
            |n| n as usize,
        ),
        share_prefix: !args.no_shared_prefix,
    };
    let results = grade_all(&spec, &subs, settings).map_err(SetupError::Usage)?;
    print!("{}", report::table(&results));
    if let Some(path) = &args.junit {
        write_result(path, &report::junit(&results))?;
    }
    if let (Some(path), [one]) = (&args.gradescope, results.as_slice()) {
        write_result(
            path,
            &serde_json::to_string_pretty(&report::gradescope(one))?,
        )?;
    }
    if let Some(path) = &args.json {
        write_result(
            path,
            &serde_json::to_string_pretty(&report::json(&results))?,
        )?;
    }
    if let (Some(path), [one]) = (&args.classroom, results.as_slice()) {
        write_result(path, &serde_json::to_string(&report::classroom(one))?)?;
    }
    let all = results.iter().all(SubmissionResult::passed);
    Ok(if all {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `--case NAME --debug`: the case's input, keys and pokes as an `asmdbg debug` command line
/// and a VS Code launch configuration, with its input and keys written to files.
fn debug_case(spec: &Spec, subs: &[Submission]) -> anyhow::Result<ExitCode> {
    let ([sub], [case]) = (subs, spec.cases.as_slice()) else {
        anyhow::bail!("--debug takes one submission and one --case");
    };
    let dir = std::env::temp_dir().join(format!("asmdbg-case-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let input_path = dir.join("input.txt");
    std::fs::write(&input_path, input(spec, case).map_err(anyhow::Error::msg)?)?;
    let located = submissions::locate(&spec.program.files, &sub.dir).map_err(anyhow::Error::msg)?;
    let files: Vec<String> = spec
        .program
        .files
        .iter()
        .map(|f| located.dir.join(f).display().to_string())
        .collect();
    let mut argv = vec!["asmdbg".to_string(), "debug".to_string()];
    argv.extend(files.iter().cloned());
    let mut launch = serde_json::json!({
        "type": "asmdbg",
        "request": "launch",
        "name": format!("{}: {}", sub.name, case.name),
        "program": files,
        "input": input_path.display().to_string(),
    });
    let p = &spec.program;
    for (flag, on) in [
        ("--strict", p.strict),
        ("--ignore-privilege", p.ignore_privilege),
        ("--start-at-main", p.start_at_main),
        ("--delay-slots", p.delay_slots),
        ("--mmio", p.mmio),
        ("--display", p.display),
        ("--no-mul", p.no_mul),
    ] {
        if on {
            argv.push(flag.to_string());
        }
    }
    for (flag, value) in [
        ("--isa", p.isa.clone()),
        ("--profile", p.profile.clone()),
        ("--entry", p.entry.clone()),
        ("--seed", p.seed.map(|s| s.to_string())),
        ("--mem-size", p.mem_size.map(|s| s.to_string())),
        ("--bitmap", p.bitmap.clone()),
    ] {
        if let Some(value) = value {
            argv.push(format!("{flag}={value}"));
        }
    }
    if let Some(isa) = &p.isa {
        launch["isa"] = isa.clone().into();
    }
    if !case.keys.is_empty() || case.keys_file.is_some() {
        let keys_path = dir.join("case.keys");
        let mut text = String::new();
        if let Some(file) = &case.keys_file {
            text = std::fs::read_to_string(spec.file(file))?;
        }
        for (at, key) in &case.keys {
            text.push_str(&format!("{at} {key}\n"));
        }
        std::fs::write(&keys_path, text)?;
        argv.push(format!("--keys={}", keys_path.display()));
        launch["keys"] = keys_path.display().to_string().into();
    }
    if p.dialogs == Some(spec::Dialogs::Stderr) {
        argv.push("--dialogs=stderr".to_string());
        launch["dialogs"] = "stderr".into();
    }
    if !case.data_files.is_empty() {
        // The case's folder as the grader gives it: its data files, nothing else.
        let files = dir.join("files");
        std::fs::create_dir_all(&files)?;
        for (name, file) in &case.data_files {
            std::fs::write(
                files.join(name),
                spec_file(spec, file).map_err(anyhow::Error::msg)?,
            )?;
        }
        argv.push(format!("--files={}", files.display()));
        // The program's relative file names resolve in the debugger's working directory.
        launch["cwd"] = files.display().to_string().into();
    }
    for poke in &case.poke {
        argv.push(format!("--poke={poke}"));
    }
    if !case.poke.is_empty() {
        launch["poke"] = case.poke.clone().into();
    }
    println!("case '{}' of {} under the debugger:", case.name, sub.name);
    println!("  {}", argv.join(" "));
    println!(
        "  then type (or paste) its input from {} on the console",
        input_path.display()
    );
    println!("VS Code launch configuration (input and keys included):");
    println!("{}", serde_json::to_string_pretty(&launch)?);
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_assembly_report_is_one_line() {
        let report = "a.asm:3:5: error: no such register\n  3 | ADD R9\n    ^\na.asm:7:1: error: x\n  7 | y\n2 errors found; nothing was assembled\n";
        assert_eq!(
            super::one_line(report),
            "a.asm:3:5: error: no such register (and 1 more errors)"
        );
        assert_eq!(
            super::one_line("b.asm: No such file\n"),
            "b.asm: No such file"
        );
    }
}
