//! Turning a file named on the command line into a running machine: infer the ISA, then hand
//! the file to that ISA's backend (src/backends.rs: assembler or object-file reader).

use std::path::{Path, PathBuf};

use asmdbg_core::{isa, Isa, LoadError, Machine, MachineOptions, ProgramSource, SourceAccess};

/// Why the command line could not produce a machine (exit status 2).
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error("{path}: {source}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Detect {
        path: String,
        #[source]
        source: isa::DetectError,
    },
    #[error(
        "{path} is an ELF file, which asmdbg writes for debuggers; run the assembly source (or an LC-3 .obj) instead"
    )]
    Elf { path: String },
    #[error("no program file given")]
    NoFiles,
    #[error("{0}")]
    Usage(String),
    #[error(transparent)]
    Load(#[from] LoadError),
    #[error(transparent)]
    Poke(#[from] crate::pokes::PokeError),
    #[error(transparent)]
    Source(#[from] asmdbg_core::SourceError),
}

/// The files of a program as read, with their ISA decided.
pub struct ProgramFiles {
    pub files: Vec<ProgramSource>,
    pub isa: Isa,
}

/// Reads one file as `access` allows, refusing ELF files, UTF-16 and binary files (an LC-3
/// object file must be named `.obj`); a UTF-8 byte order mark is dropped.
fn read_file(
    path: &Path,
    isa: Option<Isa>,
    access: &SourceAccess,
    used: &mut u64,
) -> Result<ProgramSource, SetupError> {
    let name = path.display().to_string();
    let bytes = access.read(path, used)?;
    if bytes.starts_with(b"\x7fELF") {
        return Err(SetupError::Elf { path: name });
    }
    let named_object = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("obj"));
    if named_object && crate::backends::object_file_isa(&bytes).is_some() {
        return Ok(ProgramSource { path: name, bytes });
    }
    let text = match asmdbg_core::check_text(&name, &bytes) {
        Ok(text) => text.to_vec(),
        Err(e)
            if crate::backends::object_file_isa(&bytes)
                .is_some_and(|object| isa.map_or(true, |isa| isa == object)) =>
        {
            return Err(e
                .with_hint("; an LC-3 object file must be named .obj")
                .into())
        }
        Err(e) => return Err(e.into()),
    };
    Ok(ProgramSource {
        path: name,
        bytes: text,
    })
}

/// The ISA one file is written for, if it tells.
fn file_isa(file: &ProgramSource) -> Result<Isa, SetupError> {
    if let Some(isa) = crate::backends::object_file_isa(&file.bytes) {
        return Ok(isa);
    }
    crate::backends::detect(&String::from_utf8_lossy(&file.bytes)).map_err(|source| {
        SetupError::Detect {
            path: file.path.clone(),
            source,
        }
    })
}

/// Reads the program's files and decides its ISA: `--isa` wins; otherwise the first file that
/// tells (an object file only one ISA reads, or the marks of its assembly dialect) decides for
/// all, since a file of macros or data alone may not tell; if none tells, the first file's
/// error is reported.
pub fn read_program(
    paths: &[PathBuf],
    isa: Option<Isa>,
    access: &SourceAccess,
) -> Result<ProgramFiles, SetupError> {
    let mut used = 0;
    let files = paths
        .iter()
        .map(|p| read_file(p, isa, access, &mut used))
        .collect::<Result<Vec<_>, _>>()?;
    let isa = match isa {
        Some(isa) => isa,
        None => {
            let mut first_error = None;
            let mut found = None;
            for file in &files {
                match file_isa(file) {
                    Ok(isa) => {
                        found = Some(isa);
                        break;
                    }
                    Err(e) => {
                        first_error.get_or_insert(e);
                    }
                }
            }
            match (found, first_error) {
                (Some(isa), _) => isa,
                (None, Some(e)) => return Err(e),
                (None, None) => return Err(SetupError::NoFiles),
            }
        }
    };
    Ok(ProgramFiles { files, isa })
}

/// MARS's `p` option (`--project`): the program is the first file and every other `.asm` file
/// of its folder, in name order (MARS lists the folder's files the same way).
pub fn project_files(first: &Path) -> Result<Vec<PathBuf>, SetupError> {
    // A bare file name: its folder is the working directory, and the others are named bare too.
    let parent = first.parent().filter(|d| !d.as_os_str().is_empty());
    let dir = parent.unwrap_or(Path::new("."));
    let entries = std::fs::read_dir(dir).map_err(|source| SetupError::Read {
        path: dir.display().to_string(),
        source,
    })?;
    let mut others: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .map(|e| parent.map_or_else(|| PathBuf::from(e.file_name()), |_| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e.eq_ignore_ascii_case("asm")))
        .filter(|p| !same_file(p, first))
        .collect();
    others.sort();
    Ok(std::iter::once(first.to_path_buf()).chain(others).collect())
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// The machine options `args` and the program's files give: the flags, the `--keys` file
/// read, and for MIPS a Bitmap Display the first file's header states when `--bitmap` is
/// absent (said on stderr). MARS's address ranges among the files (`0x10008000-0x1000bffc`)
/// are not files: see [`dump_ranges`].
pub fn machine_options(
    args: &crate::cli::MachineArgs,
    program: &ProgramFiles,
) -> Result<MachineOptions, SetupError> {
    let mut opts = args.options();
    if args.files_dir.is_some() {
        opts.sources = includes_confined_to(program)?;
    }
    if let Some(path) = &args.keys {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| SetupError::Read {
            path: name.clone(),
            source,
        })?;
        opts.keys = asmdbg_core::display::parse_keys(&name, &text)
            .map_err(|e| SetupError::Usage(e.to_string()))?;
    }
    if program.isa.accepts(asmdbg_core::Flag::Bitmap) && opts.bitmap.is_none() {
        if let Some(first) = program.files.first() {
            let text = String::from_utf8_lossy(&first.bytes);
            match asmdbg_core::BitmapConfig::from_header(&text) {
                Some(Ok(config)) => {
                    eprintln!(
                        "asmdbg: Bitmap Display {config}, as the header of {} states (--bitmap sets another)",
                        first.path
                    );
                    opts.bitmap = Some(config);
                }
                Some(Err(e)) => {
                    eprintln!(
                        "asmdbg: the header of {} describes a Bitmap Display asmdbg cannot show ({e}); give --bitmap",
                        first.path
                    );
                }
                None => {}
            }
        }
    }
    Ok(opts)
}

/// `--files`: the program's includes may come only from the folder of its first file.
fn includes_confined_to(program: &ProgramFiles) -> Result<SourceAccess, SetupError> {
    let first = program.files.first().ok_or(SetupError::NoFiles)?;
    let folder = Path::new(&first.path)
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    SourceAccess::confined(folder).map_err(|source| SetupError::Read {
        path: folder.display().to_string(),
        source,
    })
}

/// A MARS memory range argument: `0x10008000-0x1000bffc` (each end hexadecimal or decimal).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DumpRange {
    pub first: u32,
    pub last: u32,
}

/// Splits MARS's address-range arguments off the program's files: `(files, ranges)`. An
/// argument that names an existing file is a file, as MARS checks files first. A range MARS
/// refuses (an end not word aligned, or the first after the last as signed numbers) is an
/// error with MARS's wording, before anything runs.
pub fn dump_ranges(files: &[PathBuf]) -> Result<(Vec<PathBuf>, Vec<DumpRange>), SetupError> {
    let mut kept = Vec::new();
    let mut ranges = Vec::new();
    for file in files {
        let text = file.to_str().unwrap_or("");
        match parse_range(text) {
            Some(range) if !file.exists() => {
                let aligned = range.first % 4 == 0 && range.last % 4 == 0;
                if !aligned || (range.first as i32) > (range.last as i32) {
                    return Err(SetupError::Usage(format!(
                        "Invalid/unaligned address or invalid range: {text}"
                    )));
                }
                ranges.push(range);
            }
            _ => kept.push(file.clone()),
        }
    }
    Ok((kept, ranges))
}

/// `m-n`, each end hexadecimal (`0x`) or decimal, split at the first `-`.
fn parse_range(text: &str) -> Option<DumpRange> {
    let (a, b) = text.split_once('-')?;
    let number = |t: &str| match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u32::from_str_radix(hex, 16).ok(),
        None => t.parse::<i64>().ok().and_then(|n| u32::try_from(n).ok()),
    };
    Some(DumpRange {
        first: number(a)?,
        last: number(b)?,
    })
}

/// Builds the machine for a program.
pub fn load_machine(
    program: &ProgramFiles,
    opts: &MachineOptions,
) -> Result<Box<dyn Machine + Send>, SetupError> {
    crate::backends::of(program.isa).load(program, opts)
}

/// MARS's post-mortem memory display for `ranges` (mars/MarsLaunch.java,
/// displayMemoryPostMortem): four words a line, each line `Mem[0xADDRESS]` and a tab, each word
/// in hexadecimal followed by a tab, an end of line after each range; a word that cannot be
/// read shows `Invalid address: ` and its address as a signed decimal.
pub fn dump_text(machine: &dyn Machine, ranges: &[DumpRange]) -> String {
    let mut text = String::new();
    for range in ranges {
        let mut addr = range.first;
        let mut index = 0u32;
        loop {
            if index % 4 == 0 {
                if index > 0 {
                    text.push('\n');
                }
                text.push_str(&format!("Mem[0x{addr:08x}]\t"));
            }
            match machine.peek_word(addr as u64) {
                Ok(word) => text.push_str(&format!("0x{word:08x}\t")),
                Err(_) => text.push_str(&format!("Invalid address: {}\t", addr as i32)),
            }
            index += 1;
            match addr.checked_add(4) {
                Some(next) if next <= range.last => addr = next,
                _ => break,
            }
        }
        text.push('\n');
    }
    text
}

/// The program's files: as named, or with `--project` the first one's whole folder.
pub fn program_paths(files: &[PathBuf], project: bool) -> Result<Vec<PathBuf>, SetupError> {
    match (project, files) {
        (false, _) => Ok(files.to_vec()),
        (true, [first]) => project_files(first),
        (true, _) => Err(SetupError::Usage(
            "--project takes one file, the program's first: the rest of its folder follows"
                .to_string(),
        )),
    }
}
