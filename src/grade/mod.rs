//! `asmdbg test SPEC.toml [SUBMISSION...]`: a course's tests (spec.rs) run over every
//! submission, in-process and in parallel over the cores, each case sandboxed (its own empty
//! folder for MIPS files, virtual time, a step limit, a wall-time limit, bounded output), then
//! scored (report.rs).

pub mod report;
pub mod runner;
pub mod spec;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use asmdbg_core::{Flag, Isa, MachineOptions};

use crate::backends::Rewind;
use crate::cli::TestArgs;
use report::{CaseResult, SubmissionResult};
use runner::{Limits, Outcome};
use spec::{Case, Spec};

const DEFAULT_MAX_STEPS: u64 = 100_000_000;
const DEFAULT_TIME_LIMIT: f64 = 10.0;

/// A submission: a name and the folder that holds the program's files.
#[derive(Debug, Clone)]
pub struct Submission {
    pub name: String,
    pub dir: PathBuf,
}

/// The submissions the command line names: with none, the spec's own folder; a folder that
/// holds the program's first file is one submission; any other folder is a folder of
/// submissions, one a subfolder (name order).
pub fn submissions(spec: &Spec, named: &[PathBuf]) -> Result<Vec<Submission>, String> {
    let first = &spec.program.files[0];
    let one = |dir: &Path| Submission {
        name: dir.file_name().map_or_else(
            || dir.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        ),
        dir: dir.to_path_buf(),
    };
    if named.is_empty() {
        let dir = std::path::absolute(&spec.dir).unwrap_or_else(|_| spec.dir.clone());
        return Ok(vec![one(&dir)]);
    }
    let mut found = Vec::new();
    for path in named {
        if !path.is_dir() {
            return Err(format!("{}: not a folder of submissions", path.display()));
        }
        if path.join(first).exists() {
            found.push(one(path));
            continue;
        }
        let mut subs: Vec<PathBuf> = std::fs::read_dir(path)
            .map_err(|e| format!("{}: {e}", path.display()))?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        subs.sort();
        if subs.is_empty() {
            return Err(format!(
                "{}: holds neither {first} nor folders of submissions",
                path.display()
            ));
        }
        found.extend(subs.iter().map(|p| one(p)));
    }
    Ok(found)
}

/// The machine options of the spec for one case: the spec's flags, the case's keys,
/// virtual time, and MIPS files confined to `files_dir`.
fn options(spec: &Spec, case: &Case, isa: Isa, files_dir: &Path) -> Result<MachineOptions, String> {
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
        keys,
        ..MachineOptions::default()
    };
    if isa.accepts(Flag::VirtualTime) {
        // No sleep really sleeps; unseeded random streams are seeded, so every run of a case
        // is the same run.
        opts.virtual_time = true;
        opts.seed = opts.seed.or(Some(0));
        opts.files_dir = Some(files_dir.to_path_buf());
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

/// What a case's checks compare against, read once: the expected output and frame.
struct Expected {
    output: Option<String>,
    normalized: Option<String>,
    frame: Option<(u32, u32, Vec<u32>)>,
}

fn expected(spec: &Spec, case: &Case) -> Result<Expected, String> {
    let output = match (&case.expect.output, &case.expect.output_file) {
        (Some(text), _) => Some(text.clone()),
        (None, Some(file)) => {
            let path = spec.file(file);
            Some(std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?)
        }
        (None, None) => None,
    };
    let normalized = match (
        &case.expect.output_normalized,
        &case.expect.output_normalized_file,
    ) {
        (Some(text), _) => Some(text.clone()),
        (None, Some(file)) => {
            let path = spec.file(file);
            Some(std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?)
        }
        (None, None) => None,
    };
    let frame = match &case.expect.frame {
        Some(file) => {
            let path = spec.file(file);
            let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            Some(
                asmdbg_core::display::read_png(&bytes)
                    .map_err(|e| format!("{}: {e}", path.display()))?,
            )
        }
        None => None,
    };
    Ok(Expected {
        output,
        normalized,
        frame,
    })
}

/// Reads the program's files in `program_dir` and decides its ISA (once a submission).
fn read_program(spec: &Spec, program_dir: &Path) -> Result<crate::load::ProgramFiles, String> {
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
    crate::load::read_program(&paths, isa).map_err(|e| e.to_string())
}

/// A machine loaded once for the cases that share its options (their keys), saved where
/// they diverge: at the start, or, when no case of the group pokes, watches or stops at a
/// label, where the program first waits for input (the run they all share, done once).
struct Group {
    machine: Box<dyn Rewind>,
    files_dir: PathBuf,
}

/// The cases that can share a machine: the same keys (the options are otherwise the spec's).
fn group_key(case: &Case) -> String {
    format!("{:?} {:?}", case.keys, case.keys_file)
}

fn load_group(
    spec: &Spec,
    cases: &[&Case],
    program: &crate::load::ProgramFiles,
    scratch: &Path,
) -> Result<Group, String> {
    let files_dir = scratch.join("files");
    std::fs::create_dir_all(&files_dir).map_err(|e| format!("{}: {e}", files_dir.display()))?;
    let opts = options(spec, cases[0], program.isa, &files_dir)?;
    let mut machine = crate::backends::of(program.isa)
        .load_rewindable(program, &opts)
        .map_err(|e| e.to_string())?;
    let shareable = cases
        .iter()
        .all(|c| c.poke.is_empty() && c.watch.is_empty() && c.hit.is_empty());
    if shareable {
        let limit = cases
            .iter()
            .map(|c| limits(spec, c))
            .min_by_key(|l| (l.max_steps, l.time))
            .unwrap_or(Limits {
                max_steps: DEFAULT_MAX_STEPS,
                time: Duration::from_secs_f64(DEFAULT_TIME_LIMIT),
            });
        runner::run_prefix(machine.machine(), limit);
        machine.save();
    }
    Ok(Group { machine, files_dir })
}

/// Runs one case on its group's machine, from the saved state.
fn run_case(spec: &Spec, case: &Case, group: &mut Group) -> Result<Outcome, String> {
    // Each case's files start from an empty folder.
    let _ = std::fs::remove_dir_all(&group.files_dir);
    std::fs::create_dir_all(&group.files_dir)
        .map_err(|e| format!("{}: {e}", group.files_dir.display()))?;
    group.machine.rewind();
    let machine = group.machine.machine();
    machine.breakpoints().clear();
    machine.watchpoints().clear();
    for poke in &case.poke {
        crate::pokes::apply_poke(machine, poke).map_err(|e| e.to_string())?;
    }
    let bytes = input(spec, case)?;
    machine.queue_input(&bytes);
    machine.end_input();
    runner::run(machine, case, limits(spec, case))
}

/// Every case of `spec` on `submission`; the reference outputs by case name.
fn grade(
    spec: &Spec,
    expected: &[Expected],
    references: &HashMap<String, Vec<u8>>,
    submission: &Submission,
    scratch: &Path,
) -> SubmissionResult {
    let program = read_program(spec, &submission.dir);
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
                )
            });
            let ran = match group {
                Ok(group) => run_case(spec, case, group).map(|outcome| (outcome, group)),
                Err(message) => Err(message.clone()),
            };
            let (failures, summary) = match ran {
                Err(message) => (vec![one_line(&message)], "did not run".to_string()),
                Ok((outcome, group)) => {
                    let failures = runner::check(
                        group.machine.machine_ref(),
                        case,
                        want.output.as_deref(),
                        want.normalized.as_deref(),
                        &outcome,
                        references.get(&case.name).map(Vec::as_slice),
                        want.frame.as_ref(),
                    );
                    let summary = format!(
                        "{} after {} instructions",
                        outcome.end.describe(),
                        outcome.executed
                    );
                    (failures, summary)
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
        let _ = std::fs::remove_dir_all(&group.files_dir);
    }
    SubmissionResult {
        name: submission.name.clone(),
        cases,
    }
}

/// The reference program's output for each case that compares with it.
fn reference_outputs(spec: &Spec, scratch: &Path) -> Result<HashMap<String, Vec<u8>>, String> {
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
    let program =
        read_program(&reference_spec, &dir).map_err(|e| format!("the reference program: {e}"))?;
    for (i, case) in spec.cases.iter().enumerate() {
        if !case.expect.output_matches_reference {
            continue;
        }
        let outcome = load_group(
            &reference_spec,
            &[case],
            &program,
            &scratch.join(format!("ref{i}")),
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

/// Grades every submission, `jobs` at a time.
pub fn grade_all(
    spec: &Spec,
    subs: &[Submission],
    jobs: usize,
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
    let references = reference_outputs(spec, scratch.path())?;
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<SubmissionResult>>> = Mutex::new(vec![None; subs.len()]);
    std::thread::scope(|scope| {
        for worker in 0..jobs.clamp(1, subs.len().max(1)) {
            let (next, results, expected, references) = (&next, &results, &expected, &references);
            let scratch = scratch.path().join(format!("worker{worker}"));
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(sub) = subs.get(i) else {
                    return;
                };
                let result = grade(spec, expected, references, sub, &scratch);
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

/// Large allocations (a MIPS machine's 12 MiB of segments, one per case) stay mapped pages
/// of their own: glibc otherwise serves them from the heap after the first is freed, and
/// zeroes all 12 MiB for each new machine (most of a case's time), where fresh pages are zero
/// and only those the program touches cost anything.
fn map_large_allocations() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes the allocator's threshold; it is called before the grading
    // threads start.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
}

/// `asmdbg test`.
pub fn command(args: &TestArgs) -> anyhow::Result<ExitCode> {
    use anyhow::Context;
    map_large_allocations();
    // A spec that cannot be read is a usage error (exit status 2), as a bad flag is.
    let mut spec =
        Spec::load(&args.spec).map_err(|e| crate::load::SetupError::Usage(e.to_string()))?;
    if let Some(name) = &args.case {
        spec.cases.retain(|c| &c.name == name);
        if spec.cases.is_empty() {
            return Err(crate::load::SetupError::Usage(format!(
                "{}: no case named '{name}'",
                args.spec.display()
            ))
            .into());
        }
    }
    let subs = submissions(&spec, &args.submissions).map_err(anyhow::Error::msg)?;
    if args.debug {
        return debug_case(&spec, &subs);
    }
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get),
        |n| n as usize,
    );
    let results = grade_all(&spec, &subs, jobs).map_err(anyhow::Error::msg)?;
    print!("{}", report::table(&results));
    if let Some(path) = &args.junit {
        std::fs::write(path, report::junit(&results))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if let Some(path) = &args.gradescope {
        let [one] = results.as_slice() else {
            anyhow::bail!(
                "--gradescope writes one submission's results; {} were graded",
                results.len()
            );
        };
        let text = serde_json::to_string_pretty(&report::gradescope(one))?;
        std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&report::json(&results))?;
        std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))?;
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
    let files: Vec<String> = spec
        .program
        .files
        .iter()
        .map(|f| sub.dir.join(f).display().to_string())
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
