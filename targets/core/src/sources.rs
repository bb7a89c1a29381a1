//! Reading a program's files from disk: which files a program may read at all, how much of
//! them, and whether what was read is text an assembler can take.
//!
//! Assembly reads files on the program's behalf (the files named on the command line, MIPS
//! `.include`s), so a program that a grader runs must not reach beyond its submission through
//! them, nor make the grader read a device or a file without end. [`SourceAccess`] says where
//! source files may come from: anywhere (the command line, with generous size limits), or only
//! from inside one folder ([`SourceAccess::confined`]: `asmdbg test` and `--files`), where an
//! absolute name, a `..` that climbs out, or a link that leads out fails exactly as a missing
//! file does and nothing of the file outside is read. Only regular files are read, each up to
//! a size limit, the whole program (its files and includes together) up to another.
//!
//! [`check_text`] takes the bytes of an assembly source: a UTF-8 byte order mark is dropped
//! (editors on Windows write one), UTF-16 text and binary files are refused with a message
//! that says what the file is.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

/// How many bytes of source a program may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SourceLimits {
    /// Bytes of one file (a file named on the command line, or an include).
    pub file_bytes: u64,
    /// Bytes of all of a program's files and includes together.
    pub program_bytes: u64,
    /// Lines an assembler may work through for one program: its files' and includes' lines and
    /// every line its macros expand to. An assembler holds a few hundred bytes for each, so
    /// this bounds its memory where the bytes alone would not (16 MiB of `nop` lines).
    pub lines: u64,
}

impl SourceLimits {
    /// Outside a sandbox: far beyond any hand-written program, but not a device's endless
    /// stream.
    pub const OPEN: SourceLimits = SourceLimits {
        file_bytes: 64 << 20,
        program_bytes: 256 << 20,
        lines: u64::MAX,
    };
    /// Inside a sandbox (a submission being graded).
    pub const CONFINED: SourceLimits = SourceLimits {
        file_bytes: 1 << 20,
        program_bytes: 16 << 20,
        lines: 250_000,
    };
}

impl Default for SourceLimits {
    fn default() -> Self {
        SourceLimits::OPEN
    }
}

/// Why a source file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// The file does not exist, cannot be opened, or (confined) is outside the folder: the
    /// same message either way, so a refused name tells nothing about what is there.
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: not a regular file (a device, a pipe or a folder); asmdbg reads programs from files")]
    NotAFile { path: String },
    #[error("{path}: larger than {limit} bytes, the most asmdbg reads of one program file")]
    FileTooLarge { path: String, limit: u64 },
    #[error(
        "{path}: the program's files together are larger than {limit} bytes, the most asmdbg reads of one program"
    )]
    ProgramTooLarge { path: String, limit: u64 },
    #[error("{path} is UTF-16 text; asmdbg reads assembly as UTF-8 (save the file as UTF-8)")]
    Utf16 { path: String },
    #[error(
        "{path}:{line}:{col}: not a text file (byte 0x{byte:02x} is no character of assembly text){hint}"
    )]
    Binary {
        path: String,
        line: usize,
        col: usize,
        byte: u8,
        /// What the file may be instead, if anything.
        hint: &'static str,
    },
}

impl SourceError {
    /// The error a refused name gets: the one a missing file gets.
    fn missing(path: &Path) -> SourceError {
        SourceError::Io {
            path: path.display().to_string(),
            // The operating system's own words for a missing file (error 2 is "no such file"
            // on Unix and Windows alike).
            source: std::io::Error::from_raw_os_error(2),
        }
    }
}

/// Where a program's source files may come from, and how much of them is read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceAccess {
    /// The folder every source file must be in (canonical); `None`: anywhere.
    root: Option<PathBuf>,
    limits: SourceLimits,
    /// Files held in memory, by name, instead of a file system (the browser's page has none):
    /// when set, every read comes from here and nothing else is read.
    memory: Option<Arc<BTreeMap<PathBuf, Vec<u8>>>>,
}

impl SourceAccess {
    /// Any file the process can read, with [`SourceLimits::OPEN`].
    pub fn open() -> Self {
        SourceAccess::default()
    }

    /// Only regular files inside `root` (which must exist), with [`SourceLimits::CONFINED`].
    pub fn confined(root: &Path) -> std::io::Result<Self> {
        let root = root.canonicalize()?;
        if !root.is_dir() {
            return Err(std::io::Error::other("not a folder"));
        }
        Ok(SourceAccess {
            root: Some(root),
            limits: SourceLimits::CONFINED,
            memory: None,
        })
    }

    /// Only the files in `files` (named as a program names them: `lib.asm`, `dir/lib.asm`),
    /// with [`SourceLimits::OPEN`]; a name is looked up with its `.` and `..` resolved.
    pub fn in_memory(files: BTreeMap<PathBuf, Vec<u8>>) -> Self {
        SourceAccess {
            memory: Some(Arc::new(files)),
            ..SourceAccess::default()
        }
    }

    pub fn root(&self) -> Option<&Path> {
        self.root.as_deref()
    }

    pub fn limits(&self) -> SourceLimits {
        self.limits
    }

    /// Whether `path` may be read: always when not confined; when confined, if the file it
    /// leads to (links followed) is inside the root. A name that climbs out with `..` but comes
    /// back in is inside.
    pub fn allows(&self, path: &Path) -> bool {
        let Some(root) = &self.root else {
            return true;
        };
        match path.canonicalize() {
            Ok(real) => real.starts_with(root),
            Err(_) => false,
        }
    }

    /// Whether an include's name is one a confined program may use at all: relative, and not
    /// starting at the file system's root or a drive.
    pub fn allows_name(&self, name: &str) -> bool {
        self.root.is_none()
            || Path::new(name).components().all(|c| {
                matches!(
                    c,
                    Component::Normal(_) | Component::CurDir | Component::ParentDir
                )
            })
    }

    /// Reads `path`, counting its bytes in `used` (the program's bytes so far). Devices, pipes
    /// and folders are refused when confined; a file named on the command line may be a pipe
    /// otherwise (`asmdbg run <(generate)`), read up to the limit.
    pub fn read(&self, path: &Path, used: &mut u64) -> Result<Vec<u8>, SourceError> {
        let name = || path.display().to_string();
        if let Some(files) = &self.memory {
            let bytes = files
                .get(&lexically_normal(path))
                .ok_or_else(|| SourceError::missing(path))?;
            return self.read_limited(bytes.as_slice(), path, used);
        }
        if !self.allows(path) {
            return Err(SourceError::missing(path));
        }
        let file = std::fs::File::open(path).map_err(|source| SourceError::Io {
            path: name(),
            source,
        })?;
        let meta = file.metadata().map_err(|source| SourceError::Io {
            path: name(),
            source,
        })?;
        if meta.is_dir() || (self.root.is_some() && !meta.is_file()) {
            return Err(SourceError::NotAFile { path: name() });
        }
        self.read_limited(file, path, used)
    }

    /// Reads an include: like [`SourceAccess::read`], but only a regular file, whether
    /// confined or not (an include of `/dev/zero` or `/dev/stdin` is never meant).
    pub fn read_include(&self, path: &Path, used: &mut u64) -> Result<Vec<u8>, SourceError> {
        if self.memory.is_some() {
            return self.read(path, used);
        }
        if !self.allows(path) {
            return Err(SourceError::missing(path));
        }
        let meta = std::fs::metadata(path).map_err(|source| SourceError::Io {
            path: path.display().to_string(),
            source,
        })?;
        if !meta.is_file() {
            return Err(SourceError::NotAFile {
                path: path.display().to_string(),
            });
        }
        self.read(path, used)
    }

    fn read_limited(
        &self,
        file: impl Read,
        path: &Path,
        used: &mut u64,
    ) -> Result<Vec<u8>, SourceError> {
        let mut bytes = Vec::new();
        // One byte past the limit tells a file at the limit from a larger one.
        file.take(self.limits.file_bytes + 1)
            .read_to_end(&mut bytes)
            .map_err(|source| SourceError::Io {
                path: path.display().to_string(),
                source,
            })?;
        if bytes.len() as u64 > self.limits.file_bytes {
            return Err(SourceError::FileTooLarge {
                path: path.display().to_string(),
                limit: self.limits.file_bytes,
            });
        }
        *used += bytes.len() as u64;
        if *used > self.limits.program_bytes {
            return Err(SourceError::ProgramTooLarge {
                path: path.display().to_string(),
                limit: self.limits.program_bytes,
            });
        }
        Ok(bytes)
    }
}

/// `path` with its `.` components dropped and each `..` taking away the name before it.
fn lexically_normal(path: &Path) -> PathBuf {
    let mut normal = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !normal.pop() {
                    normal.push("..");
                }
            }
            other => normal.push(other),
        }
    }
    normal
}

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// The assembly text in `bytes` (read from `path`): without a UTF-8 byte order mark and a DOS
/// end-of-file mark (Ctrl-Z), or why it is not text. Invalid UTF-8 is left for the assembler
/// to decode as it does; what is refused is UTF-16 (a byte order mark, or every other byte
/// zero) and bytes no text holds (NUL and the control characters other than tab, line ends,
/// vertical tab and form feed).
pub fn check_text<'a>(path: &str, bytes: &'a [u8]) -> Result<&'a [u8], SourceError> {
    let utf16_mark = bytes.starts_with(b"\xFF\xFE") || bytes.starts_with(b"\xFE\xFF");
    let head = &bytes[..bytes.len().min(64)];
    let alternate_zeros = head.len() >= 4
        && (head.iter().step_by(2).all(|&b| b == 0)
            || head.iter().skip(1).step_by(2).all(|&b| b == 0));
    if utf16_mark || alternate_zeros {
        return Err(SourceError::Utf16 {
            path: path.to_string(),
        });
    }
    let text = bytes.strip_prefix(UTF8_BOM).unwrap_or(bytes);
    let end = text.len() - text.iter().rev().take_while(|&&b| b == 0x1a).count();
    let text = &text[..end];
    let bad = text.iter().position(|&b| {
        (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)) || b == 0x7f
    });
    if let Some(at) = bad {
        let before = &text[..at];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let col = at
            - before
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1)
            + 1;
        return Err(SourceError::Binary {
            path: path.to_string(),
            line,
            col,
            byte: text[at],
            hint: "",
        });
    }
    Ok(text)
}

impl SourceError {
    /// The same error with a hint of what the file may be instead.
    pub fn with_hint(self, hint: &'static str) -> SourceError {
        match self {
            SourceError::Binary {
                path,
                line,
                col,
                byte,
                ..
            } => SourceError::Binary {
                path,
                line,
                col,
                byte,
                hint,
            },
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_in_memory_are_read_by_their_names_and_nothing_else() {
        let files = BTreeMap::from([
            (PathBuf::from("lib.asm"), b"nop\n".to_vec()),
            (PathBuf::from("dir/macros.asm"), b".eqv X 1\n".to_vec()),
        ]);
        let access = SourceAccess::in_memory(files);
        let mut used = 0;
        let read = |name: &str, used: &mut u64| access.read_include(Path::new(name), used);
        assert_eq!(read("lib.asm", &mut used).unwrap(), b"nop\n");
        assert_eq!(read("./dir/../lib.asm", &mut used).unwrap(), b"nop\n");
        assert_eq!(read("dir/./macros.asm", &mut used).unwrap(), b".eqv X 1\n");
        assert_eq!(used, 4 + 4 + 9);
        // Not held: missing, as a file not on disk is (the host's files are never read).
        for name in ["other.asm", "/etc/passwd", "../lib.asm", "Cargo.toml"] {
            assert!(
                matches!(read(name, &mut used), Err(SourceError::Io { .. })),
                "{name}"
            );
        }
    }

    #[test]
    fn a_byte_order_mark_and_a_dos_end_mark_are_dropped() {
        assert_eq!(
            check_text("a", b"\xEF\xBB\xBF.ORIG x3000\n").unwrap(),
            b".ORIG x3000\n"
        );
        assert_eq!(check_text("a", b"HALT\n\x1a").unwrap(), b"HALT\n");
        assert_eq!(check_text("a", b"").unwrap(), b"");
        assert_eq!(
            check_text("a", "caf\u{e9}\t\x0c\r\n".as_bytes())
                .unwrap()
                .len(),
            9
        );
    }

    #[test]
    fn utf16_and_binary_files_say_what_they_are() {
        let utf16: Vec<u8> = "\u{feff}.data\n"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        assert_eq!(
            check_text("nim.asm", &utf16).unwrap_err().to_string(),
            "nim.asm is UTF-16 text; asmdbg reads assembly as UTF-8 (save the file as UTF-8)"
        );
        let no_mark: Vec<u8> = ".data\nx: .word 1\n"
            .encode_utf16()
            .flat_map(u16::to_be_bytes)
            .collect();
        assert!(matches!(
            check_text("b", &no_mark),
            Err(SourceError::Utf16 { .. })
        ));
        assert_eq!(
            check_text("r.asm", b"ADD R1\nAB\x03C")
                .unwrap_err()
                .to_string(),
            "r.asm:2:3: not a text file (byte 0x03 is no character of assembly text)"
        );
    }

    fn scratch(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("asmdbg-sources-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub/inner")).unwrap();
        std::fs::write(dir.join("sub/a.asm"), "nop\n").unwrap();
        std::fs::write(dir.join("outside.asm"), "secret\n").unwrap();
        dir
    }

    #[test]
    fn a_confined_program_reads_only_its_folder() {
        let dir = scratch("confined");
        let access = SourceAccess::confined(&dir.join("sub")).unwrap();
        let mut used = 0;
        assert_eq!(
            access.read(&dir.join("sub/a.asm"), &mut used).unwrap(),
            b"nop\n"
        );
        assert_eq!(used, 4);
        assert!(access.allows(&dir.join("sub/inner/../a.asm")));
        for refused in [dir.join("outside.asm"), dir.join("sub/../outside.asm")] {
            let err = access.read(&refused, &mut used).unwrap_err();
            assert!(matches!(err, SourceError::Io { .. }), "{err}");
            assert!(!err.to_string().contains("secret"));
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.join("outside.asm"), dir.join("sub/link.asm")).unwrap();
            assert!(!access.allows(&dir.join("sub/link.asm")));
            std::os::unix::fs::symlink(dir.join("sub/a.asm"), dir.join("sub/inner/in.asm"))
                .unwrap();
            assert!(
                access.allows(&dir.join("sub/inner/in.asm")),
                "a link that stays inside"
            );
        }
        assert!(access.allows_name("inner/../a.asm"));
        assert!(!access.allows_name("/etc/passwd"));
        assert!(SourceAccess::open().allows_name("/etc/passwd"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn devices_and_large_files_are_refused() {
        let dir = scratch("limits");
        let access = SourceAccess::confined(&dir).unwrap();
        let mut used = 0;
        assert!(matches!(
            access.read(&dir.join("sub"), &mut used),
            Err(SourceError::NotAFile { .. })
        ));
        std::fs::write(dir.join("big.asm"), vec![b'\n'; (1 << 20) + 1]).unwrap();
        assert!(matches!(
            access.read(&dir.join("big.asm"), &mut used),
            Err(SourceError::FileTooLarge { .. })
        ));
        let mut used = (16 << 20) - 2;
        assert!(matches!(
            access.read(&dir.join("sub/a.asm"), &mut used),
            Err(SourceError::ProgramTooLarge { .. })
        ));
        #[cfg(unix)]
        {
            let mut used = 0;
            let open = SourceAccess::open();
            assert!(matches!(
                open.read_include(Path::new("/dev/zero"), &mut used),
                Err(SourceError::NotAFile { .. })
            ));
            // Outside a sandbox a device named on the command line is read up to the limit.
            assert!(matches!(
                open.read(Path::new("/dev/zero"), &mut used),
                Err(SourceError::FileTooLarge { .. })
            ));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
