//! The MIPS machine's host boundary: everything MARS's syscalls take from or do to the outside
//! world — files, the wall clock, clock-based random seeds, real-time sleeps, the host's stderr —
//! and the absolute source paths MARS prints in runtime errors. The cpu and the syscall state
//! ([`crate::syscalls::SyscallState`]) are plain data; this is the one place with handles.
//!
//! Every answer goes through the [`Journal`]: recorded with the instruction count at which the
//! guest asked, or served from a log without touching the outside world (no file is opened,
//! written or read, no sleep waits). Open files are known to the machine state as numbers (name,
//! mode, position); the handles here are a cache of them, reopened and positioned whenever they
//! do not match (after a restore or a replay that ended).

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use asmdbg_core::clock::{Instant, SystemTime, UNIX_EPOCH};
use asmdbg_core::{HostInput, Journal, LineTable};

use crate::syscalls::OpenFile;

#[derive(Debug)]
struct Handle {
    name: String,
    position: u64,
    file: File,
}

/// The outside world of one MIPS machine (see the module header).
#[derive(Debug)]
pub struct Host {
    pub journal: Journal,
    /// Directory relative file names resolve against.
    work_dir: Option<PathBuf>,
    /// `--files DIR`: the only directory the guest's files may be in (canonical). Names that
    /// are absolute, climb out with `..`, or lead out through a link fail to open.
    sandbox: Option<PathBuf>,
    /// Open handles by guest descriptor.
    handles: HashMap<i32, Handle>,
    /// Bytes for the host's stderr (fd 2 writes, dialogs with `--dialogs stderr`).
    stderr: Vec<u8>,
    /// The most bytes `stderr` keeps until taken (see `Machine::limit_output`).
    stderr_limit: Option<usize>,
    /// The most bytes the files in the sandbox may hold together (`--files` with a quota): a
    /// write that would grow them past it fails, as on a full disk.
    quota: Option<u64>,
    /// What the sandbox's files hold now, as far as this host knows: counted from the folder
    /// whenever a file is opened, then grown by each write.
    quota_used: u64,
    /// A real-time sleep in progress: the machine runs nothing until then. The host waits
    /// (and stays responsive to the debugger) instead of the cpu blocking in a system call.
    wake: Option<Instant>,
    /// MARS's name of each source file by `FileId` in runtime errors: its absolute path.
    source_paths: Vec<String>,
}

impl Host {
    /// A live host; `sources` are the program's source file names as given.
    pub fn new(work_dir: Option<PathBuf>, sources: &[&str]) -> Self {
        Host {
            journal: Journal::off(),
            source_paths: sources
                .iter()
                .map(|name| display_path(name, work_dir.as_deref()))
                .collect(),
            work_dir,
            sandbox: None,
            handles: HashMap::new(),
            stderr: Vec::new(),
            stderr_limit: None,
            quota: None,
            quota_used: 0,
            wake: None,
        }
    }

    /// Forgets open handles and a pending sleep (machine reset or restore). Handles are reopened
    /// from the machine's file table when next used.
    pub fn forget_handles(&mut self) {
        self.handles.clear();
        self.wake = None;
    }

    /// Bytes for the host's stderr, dropped past the limit.
    pub fn write_stderr(&mut self, bytes: &[u8]) {
        let room = self
            .stderr_limit
            .map_or(bytes.len(), |limit| limit.saturating_sub(self.stderr.len()));
        self.stderr
            .extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    /// Keeps at most `limit` bytes for the host's stderr until taken.
    pub fn limit_stderr(&mut self, limit: usize) {
        self.stderr_limit = Some(limit);
    }

    pub fn take_stderr(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.stderr)
    }

    pub fn wake_time(&self) -> Option<Instant> {
        self.wake
    }

    /// Whether a real-time sleep still holds the machine; clears it once over.
    pub fn asleep(&mut self) -> bool {
        match self.wake {
            Some(wake) if Instant::now() < wake => true,
            _ => {
                self.wake = None;
                false
            }
        }
    }

    /// MARS's `Error in FILE line N: ` for a runtime error at `pc` (`Error in : ` where no
    /// source line is known).
    pub fn error_place(&self, lines: &LineTable, pc: u32) -> String {
        lines
            .get(pc as u64)
            .map(|loc| {
                let file = self
                    .source_paths
                    .get(loc.file.0 as usize)
                    .map(String::as_str)
                    .unwrap_or("");
                format!("Error in {file} line {}: ", loc.line)
            })
            .unwrap_or_else(|| "Error in : ".to_string())
    }

    /// Milliseconds since the Unix epoch.
    pub fn clock_ms(&mut self, count: u64) -> i64 {
        if let Some(ms) = self.journal.replay_host(|input| match input {
            HostInput::Clock(ms) => Some(*ms),
            _ => None,
        }) {
            return ms;
        }
        let ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0);
        self.journal.record(count, HostInput::Clock(ms));
        ms
    }

    /// A seed that differs between runs, as `new Random()` does.
    pub fn seed(&mut self, count: u64) -> i64 {
        if let Some(seed) = self.journal.replay_host(|input| match input {
            HostInput::Seed(seed) => Some(*seed),
            _ => None,
        }) {
            return seed;
        }
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos() as i64)
            .unwrap_or(0);
        let seed = nanos ^ 0x5dee_ce66_d1a4_f00d_u64 as i64;
        self.journal.record(count, HostInput::Seed(seed));
        seed
    }

    /// Starts a real-time sleep of `ms` (> 0) milliseconds. Returns whether the machine must
    /// stop running until it ends (not while replaying).
    pub fn sleep(&mut self, count: u64, ms: i32) -> bool {
        if self
            .journal
            .replay_host(|input| match input {
                HostInput::Slept(slept) if *slept == ms => Some(()),
                _ => None,
            })
            .is_some()
        {
            return false;
        }
        self.wake = Some(Instant::now() + Duration::from_millis(ms as u64));
        self.journal.record(count, HostInput::Slept(ms));
        true
    }

    /// Confines the guest's files to `dir` (`--files DIR`), holding at most `quota` bytes
    /// together when given. Fails if `dir` is not a directory.
    pub fn confine_files(&mut self, dir: &Path, quota: Option<u64>) -> std::io::Result<()> {
        let canonical = dir.canonicalize()?;
        if !canonical.is_dir() {
            return Err(std::io::Error::other("not a directory"));
        }
        self.sandbox = Some(canonical);
        self.quota = quota;
        Ok(())
    }

    /// Counts what the sandbox's files hold (with a quota: when a file is opened).
    fn count_quota(&mut self) {
        if let (Some(root), Some(_)) = (&self.sandbox, self.quota) {
            self.quota_used = folder_bytes(root);
        }
    }

    /// Whether writing `len` bytes at `position` of a file now `file_len` long keeps the
    /// sandbox within its quota; if so the growth is counted.
    fn claim_quota(&mut self, file_len: u64, position: u64, len: u64) -> bool {
        let Some(quota) = self.quota else {
            return true;
        };
        let growth = (position + len).saturating_sub(file_len);
        if self.quota_used + growth > quota {
            return false;
        }
        self.quota_used += growth;
        true
    }

    /// Where the guest's file `name` is: `None` for a name the sandbox refuses (the open
    /// fails, as for a file that does not exist).
    fn resolve(&self, name: &str) -> Option<PathBuf> {
        let Some(root) = &self.sandbox else {
            return Some(match &self.work_dir {
                Some(dir) => dir.join(name),
                None => PathBuf::from(name),
            });
        };
        let relative = Path::new(name);
        let plain = relative
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
        if name.is_empty() || !plain {
            return None;
        }
        let path = root.join(relative);
        // A link inside the sandbox may lead out: the file's folder, followed, must be in it,
        // and the file itself must not be a link.
        let folder = path.parent()?.canonicalize().ok()?;
        let is_link = path
            .symlink_metadata()
            .is_ok_and(|m| m.file_type().is_symlink());
        (folder.starts_with(root) && !is_link).then_some(path)
    }

    /// Opens `name` as MARS does for `flags` (0 read, 1 write-truncate, 9 append) and keeps the
    /// handle as descriptor `fd`; with `fd` `None` (table full) the file is opened (and
    /// truncated) all the same, as MARS does, then dropped.
    pub fn open(&mut self, count: u64, fd: Option<i32>, name: &str, file: &OpenFile) -> bool {
        if let Some(ok) = self.journal.replay_host(|input| match input {
            HostInput::FileOpened(ok) => Some(*ok),
            _ => None,
        }) {
            return ok;
        }
        let Some(path) = self.resolve(name) else {
            self.journal.record(count, HostInput::FileOpened(false));
            return false;
        };
        let opened = if !file.writable {
            File::open(&path)
        } else {
            let mut opts = OpenOptions::new();
            opts.create(true);
            if file.append {
                opts.append(true);
            } else {
                opts.write(true).truncate(true);
            }
            opts.open(&path)
        };
        let ok = opened.is_ok();
        self.count_quota();
        if let (Ok(handle), Some(fd)) = (opened, fd) {
            self.handles.insert(
                fd,
                Handle {
                    name: name.to_string(),
                    position: 0,
                    file: handle,
                },
            );
        }
        self.journal.record(count, HostInput::FileOpened(ok));
        ok
    }

    /// The handle for `fd` positioned where the machine's table says, reopened if needed.
    fn handle(&mut self, fd: i32, file: &OpenFile) -> Option<&mut File> {
        let current = self
            .handles
            .get(&fd)
            .is_some_and(|h| h.name == file.name && h.position == file.position);
        if !current {
            self.handles.remove(&fd);
            let path = self.resolve(&file.name)?;
            let mut handle = if file.writable {
                let mut opts = OpenOptions::new();
                if file.append {
                    opts.append(true);
                } else {
                    opts.write(true);
                }
                opts.open(&path).ok()?
            } else {
                File::open(&path).ok()?
            };
            if !file.append {
                handle.seek(SeekFrom::Start(file.position)).ok()?;
            }
            self.count_quota();
            self.handles.insert(
                fd,
                Handle {
                    name: file.name.clone(),
                    position: file.position,
                    file: handle,
                },
            );
        }
        self.handles.get_mut(&fd).map(|h| &mut h.file)
    }

    /// Reads up to `len` bytes from descriptor `fd`; `None` for a failed read.
    pub fn read(&mut self, count: u64, fd: i32, file: &OpenFile, len: usize) -> Option<Vec<u8>> {
        if let Some(bytes) = self.journal.replay_host(|input| match input {
            HostInput::FileRead(bytes) => Some(bytes.clone()),
            _ => None,
        }) {
            return bytes;
        }
        let bytes = self.handle(fd, file).and_then(|handle| {
            let mut data = vec![0; len];
            let n = handle.read(&mut data).ok()?;
            data.truncate(n);
            Some(data)
        });
        if let (Some(handle), Some(data)) = (self.handles.get_mut(&fd), &bytes) {
            handle.position += data.len() as u64;
        }
        self.journal
            .record(count, HostInput::FileRead(bytes.clone()));
        bytes
    }

    /// Writes `data` to descriptor `fd`; whether it worked.
    pub fn write(&mut self, count: u64, fd: i32, file: &OpenFile, data: &[u8]) -> bool {
        if let Some(ok) = self.journal.replay_host(|input| match input {
            HostInput::FileWritten(ok) => Some(*ok),
            _ => None,
        }) {
            return ok;
        }
        let quota = self.quota.is_some();
        let ok = match self.handle(fd, file) {
            None => false,
            Some(handle) if !quota => handle.write_all(data).is_ok(),
            Some(handle) => {
                // Appending writes at the end, wherever the table's position is.
                let len = handle.metadata().map_or(u64::MAX, |m| m.len());
                let at = if file.append { len } else { file.position };
                let fits = self.claim_quota(len, at, data.len() as u64);
                fits && self
                    .handles
                    .get_mut(&fd)
                    .is_some_and(|h| h.file.write_all(data).is_ok())
            }
        };
        if let Some(handle) = self.handles.get_mut(&fd) {
            if ok {
                handle.position += data.len() as u64;
            } else {
                // Where a failed write left the file is unknown: reopen next time.
                self.handles.remove(&fd);
            }
        }
        self.journal.record(count, HostInput::FileWritten(ok));
        ok
    }

    pub fn close(&mut self, fd: i32) {
        self.handles.remove(&fd);
    }
}

/// The bytes of the files in `dir` and its folders (links not followed).
fn folder_bytes(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .map(|entry| match entry.metadata() {
            Ok(meta) if meta.is_dir() => folder_bytes(&entry.path()),
            Ok(meta) => meta.len(),
            Err(_) => 0,
        })
        .sum()
}

/// How MARS names a source file in runtime errors: its absolute path. The name is tried as given
/// (relative to the working directory), then relative to `work_dir`.
pub(crate) fn display_path(name: &str, work_dir: Option<&Path>) -> String {
    let given = PathBuf::from(name);
    let in_work_dir = work_dir.map(|dir| dir.join(name));
    std::fs::canonicalize(&given)
        .or_else(|e| match &in_work_dir {
            Some(path) => std::fs::canonicalize(path),
            None => Err(e),
        })
        .or_else(|_| std::path::absolute(&given))
        .map(|p| without_verbatim_prefix(&p.display().to_string()))
        .unwrap_or_else(|_| name.to_string())
}

/// Windows' canonical paths are verbatim (`\\?\C:\dir\f.asm`); MARS, a Java program, names
/// the file `C:\dir\f.asm`, as its users do.
fn without_verbatim_prefix(path: &str) -> String {
    if let Some(share) = path.strip_prefix(r"\\?\UNC\") {
        return format!(r"\\{share}");
    }
    path.strip_prefix(r"\\?\").unwrap_or(path).to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn windows_verbatim_paths_are_named_as_mars_names_them() {
        use super::without_verbatim_prefix as plain;
        assert_eq!(plain(r"\\?\C:\course\f.asm"), r"C:\course\f.asm");
        assert_eq!(
            plain(r"\\?\UNC\server\share\f.asm"),
            r"\\server\share\f.asm"
        );
        assert_eq!(plain("/home/student/f.asm"), "/home/student/f.asm");
    }
}
