//! Shared helpers for tests that run the built `asmdbg` binary: temporary programs, the debug
//! stub as a child process, gdb-multiarch in batch mode, and the guest's pty.

#![allow(dead_code, reason = "each test file uses a different subset")]

pub mod dap;

use std::fs::OpenOptions;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

pub fn asmdbg() -> Command {
    asmdbg_testsupport::binary::asmdbg_command(env!("CARGO_BIN_EXE_asmdbg"))
}

/// A scratch directory removed at the end of the test.
pub struct Scratch {
    pub dir: tempfile::TempDir,
}

impl Scratch {
    pub fn new() -> Self {
        Scratch {
            dir: tempfile::tempdir().expect("temporary directory"),
        }
    }

    /// Writes `text` to `name` (a path inside the scratch folder; its folders are made).
    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("test folder");
        }
        std::fs::write(&path, text).expect("write test file");
        path
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Scratch {
    /// A scratch directory holding `files` (name, contents).
    pub fn with_files(files: &[(&str, &str)]) -> Self {
        let scratch = Scratch::new();
        for (name, text) in files {
            scratch.write(name, text);
        }
        scratch
    }
}

/// Runs `asmdbg ARGS` in `dir` without input.
pub fn asmdbg_in(dir: &Path, args: &[&str]) -> Output {
    asmdbg()
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("asmdbg runs")
}

/// Bytes as text, for messages and comparisons.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs `asmdbg ARGS` to completion with `stdin` as its input.
pub fn run_asmdbg(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = asmdbg()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn asmdbg");
    let mut input = child.stdin.take().expect("stdin");
    let data = stdin.to_vec();
    let writer = thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().expect("wait for asmdbg");
    let _ = writer.join();
    out
}

/// `asmdbg debug` running as a child process.
pub struct Stub {
    pub child: Child,
    pub port: u16,
    pub console: String,
    pub stderr: Arc<Mutex<String>>,
}

impl Stub {
    /// Starts `asmdbg debug PROGRAM --gdb 127.0.0.1:0 EXTRA...` and waits for its readiness
    /// lines.
    pub fn start(program: &Path, extra: &[&str]) -> Stub {
        Self::start_with(program, extra, Stdio::null())
    }

    /// Starts `asmdbg debug PROGRAM --gdb 127.0.0.1:0 --console stdio EXTRA...` with `input`
    /// as its standard input (the guest's console), and waits for its readiness line.
    pub fn start_stdio(program: &Path, extra: &[&str], input: &Path) -> Stub {
        let file = std::fs::File::open(input).expect("the input file");
        let mut args = vec!["--console", "stdio"];
        args.extend_from_slice(extra);
        Self::start_with(program, &args, Stdio::from(file))
    }

    fn start_with(program: &Path, extra: &[&str], stdin: Stdio) -> Stub {
        let stdio = extra.windows(2).any(|w| w == ["--console", "stdio"]);
        let console = if extra.contains(&"--console") {
            Vec::new()
        } else {
            asmdbg_testsupport::binary::default_console_args()
        };
        let mut child = asmdbg()
            .arg("debug")
            .arg(program)
            .args(["--gdb", "127.0.0.1:0"])
            .args(extra)
            .args(console)
            .stdin(stdin)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn asmdbg debug");
        let stderr = child.stderr.take().expect("stderr");
        let lines = Arc::new(Mutex::new(String::new()));
        let sink = lines.clone();
        thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let mut s = sink.lock().expect("stderr lock");
                s.push_str(&line);
                s.push('\n');
            }
        });
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let text = lines.lock().expect("stderr lock").clone();
            let port = text
                .lines()
                .find_map(|l| l.strip_prefix("gdb: listening on "))
                .and_then(|a| a.rsplit(':').next())
                .and_then(|p| p.trim().parse::<u16>().ok());
            let console = text
                .lines()
                .find_map(|l| l.strip_prefix("console: "))
                .map(str::to_string)
                .or_else(|| stdio.then(|| "stdio".to_string()));
            if let (Some(port), Some(console)) = (port, console) {
                return Stub {
                    child,
                    port,
                    console,
                    stderr: lines,
                };
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("asmdbg debug did not become ready; stderr:\n{text}");
            }
            if let Ok(Some(status)) = child.try_wait() {
                panic!("asmdbg debug exited early ({status}); stderr:\n{text}");
            }
            thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn stderr(&self) -> String {
        self.stderr.lock().expect("stderr lock").clone()
    }

    /// Runs gdb-multiarch in batch mode: connects, then runs `commands` (one per line).
    pub fn gdb(&self, commands: &str) -> String {
        self.gdb_with(None, commands)
    }

    /// Same, with gdb trusting `dir` (`add-auto-load-safe-path`): it then runs the helper
    /// script in the program's ELF (the reverse motions by line, the LC-3 commands).
    pub fn gdb_helpers(&self, dir: &Path, commands: &str) -> String {
        self.gdb_run(
            None,
            &[format!("add-auto-load-safe-path {}", dir.display())],
            commands,
        )
    }

    /// Same, loading `elf` first when given.
    pub fn gdb_with(&self, elf: Option<&Path>, commands: &str) -> String {
        self.gdb_run(elf, &[], commands)
    }

    /// gdb in batch mode: `init` commands before anything (`-iex`), `elf` loaded, then
    /// connected and running `commands`.
    fn gdb_run(&self, elf: Option<&Path>, init: &[String], commands: &str) -> String {
        let script = tempfile::NamedTempFile::new().expect("script file");
        let mut text = String::from("set pagination off\nset confirm off\n");
        text.push_str(&format!("target remote 127.0.0.1:{}\n", self.port));
        text.push_str(commands);
        text.push('\n');
        std::fs::write(script.path(), text).expect("write gdb script");
        let mut cmd = Command::new("gdb-multiarch");
        cmd.args(["-nx", "-batch"]);
        for line in init {
            cmd.arg("-iex").arg(line);
        }
        if let Some(elf) = elf {
            cmd.arg(elf);
        }
        cmd.arg("-x").arg(script.path());
        let out = run_with_timeout(cmd, Duration::from_secs(60));
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    }

    /// Opens the guest's console (the pty) for the test to type into and read from.
    pub fn open_console(&self) -> Console {
        Console::open(&self.console)
    }
}

impl Drop for Stub {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn run_with_timeout(mut cmd: Command, limit: Duration) -> Output {
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn gdb-multiarch");
    let id = child.id();
    let done = Arc::new(Mutex::new(false));
    let flag = done.clone();
    thread::spawn(move || {
        thread::sleep(limit);
        if !*flag.lock().expect("flag") {
            let _ = Command::new("kill").arg("-9").arg(id.to_string()).status();
        }
    });
    let out = child.wait_with_output().expect("gdb output");
    *done.lock().expect("flag") = true;
    out
}

/// The test's end of the guest console: writes go to the guest, reads collect its output.
pub struct Console {
    file: Box<dyn Write + Send>,
    seen: Arc<Mutex<Vec<u8>>>,
}

impl Console {
    /// The console `asmdbg debug` named: a pty's path, or `127.0.0.1:PORT` (`--console tcp`,
    /// the default on Windows).
    pub fn open(name: &str) -> Console {
        let (file, mut reader): (Box<dyn Write + Send>, Box<dyn Read + Send>) =
            match name.parse::<std::net::SocketAddr>() {
                Ok(addr) => {
                    let stream =
                        std::net::TcpStream::connect(addr).expect("connect to the console");
                    let reader = stream.try_clone().expect("clone the connection");
                    (Box::new(stream), Box::new(reader))
                }
                Err(_) => {
                    let file = OpenOptions::new()
                        .read(true)
                        .write(true)
                        .open(name)
                        .expect("open the guest pty");
                    let reader = file.try_clone().expect("clone pty handle");
                    (Box::new(file), Box::new(reader))
                }
            };
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = seen.clone();
        thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .expect("console lock")
                    .extend_from_slice(&buf[..n]);
            }
        });
        Console { file, seen }
    }

    pub fn type_bytes(&mut self, bytes: &[u8]) {
        self.file.write_all(bytes).expect("write to the console");
        self.file.flush().expect("flush the console");
    }

    /// Waits until the guest has printed `needle` (or the time runs out) and returns all output,
    /// with the terminal's CR LF turned back into the guest's LF.
    pub fn wait_for(&self, needle: &str, limit: Duration) -> String {
        let deadline = Instant::now() + limit;
        loop {
            let text = self.output();
            if text.contains(needle) || Instant::now() > deadline {
                return text;
            }
            thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn output(&self) -> String {
        String::from_utf8_lossy(&self.seen.lock().expect("console lock")).replace("\r\n", "\n")
    }
}

/// Sends one RSP packet on a raw connection to the stub and reads until its whole reply
/// (`$...#` and the two checksum digits; the stub's `+` comes first), which it acknowledges.
pub fn rsp_exchange(stream: &mut std::net::TcpStream, payload: &str) -> String {
    let sum = payload.bytes().fold(0u8, |s, b| s.wrapping_add(b));
    stream
        .write_all(format!("${payload}#{sum:02x}").as_bytes())
        .expect("send");
    let mut seen = Vec::new();
    let mut buf = [0u8; 1024];
    let deadline = Instant::now() + Duration::from_secs(10);
    stream
        .set_read_timeout(Some(Duration::from_millis(100)))
        .expect("timeout");
    while !seen
        .iter()
        .position(|&b| b == b'#')
        .is_some_and(|i| seen.len() >= i + 3)
    {
        assert!(Instant::now() < deadline, "no reply to {payload}");
        if let Ok(n) = stream.read(&mut buf) {
            seen.extend_from_slice(&buf[..n]);
        }
    }
    stream.write_all(b"+").expect("ack");
    String::from_utf8_lossy(&seen).into_owned()
}

/// Asserts that `haystack` contains each needle, in order.
pub fn assert_in_order(haystack: &str, needles: &[&str]) {
    let mut rest = haystack;
    for needle in needles {
        match rest.find(needle) {
            Some(i) => rest = &rest[i + needle.len()..],
            None => {
                panic!("expected {needle:?} (in order) in:\n{haystack}\n(as bytes: {haystack:?})")
            }
        }
    }
}
