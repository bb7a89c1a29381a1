//! `asmdbg dap` and `asmdbg console`: the I/O around the DAP session (session/src/dap/),
//! nothing more. The client's bytes come from stdin or a TCP connection and the session's go
//! back there; the launcher turns a `launch` request's arguments into the command line of
//! `asmdbg debug` (so the options, their checks and their messages are the same) and builds the
//! program through the ISA's backend; an `integratedTerminal` console is a pty that the IDE
//! opens with `asmdbg console PTY`.

use std::io::{self, Read, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use anyhow::Context;
use asmdbg_session::dap::{DapServer, Launched};
use clap::Parser;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

use crate::cli::{Cli, Command, ConsoleArgs, DapArgs, DebugArgs};
use crate::console::GuestConsole;

/// The launch attributes that are flags of `asmdbg debug` (camelCase as IDEs write them).
const SWITCHES: &[(&str, &str)] = &[
    ("strict", "--strict"),
    ("ignorePrivilege", "--ignore-privilege"),
    ("project", "--project"),
    ("startAtMain", "--start-at-main"),
    ("delaySlots", "--delay-slots"),
    ("virtualTime", "--virtual-time"),
    ("noMul", "--no-mul"),
    ("noHistory", "--no-history"),
    ("mmio", "--mmio"),
    ("display", "--display"),
    ("interpret", "--interpret"),
];
/// Launch attributes with one value.
const VALUES: &[(&str, &str)] = &[
    ("isa", "--isa"),
    ("profile", "--profile"),
    ("entry", "--entry"),
    ("seed", "--seed"),
    ("memSize", "--mem-size"),
    ("historyMb", "--history-mb"),
    ("dialogs", "--dialogs"),
    ("bitmap", "--bitmap"),
    ("keys", "--keys"),
];
/// Launch attributes among [`VALUES`] that name a file.
const PATHS: &[&str] = &["keys"];
/// Launch attributes with a list of values.
const LISTS: &[(&str, &str)] = &[("poke", "--poke"), ("pokeFile", "--poke-file")];

fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The `asmdbg debug` command line a launch request's arguments stand for. Attributes that
/// are not asmdbg's (VS Code adds `type`, `name`, `__sessionId`, ...) are ignored.
pub fn launch_command_line(args: &Value, cwd: &Path) -> Result<Vec<String>, String> {
    let mut argv = vec!["asmdbg".to_string(), "debug".to_string()];
    let files: Vec<String> =
        match args.get("program") {
            Some(Value::String(s)) => vec![s.clone()],
            Some(Value::Array(list)) => list.iter().filter_map(scalar).collect(),
            _ => return Err(
                "the launch configuration needs `program`: the program's file (or a list of files)"
                    .to_string(),
            ),
        };
    if files.is_empty() {
        return Err("`program` names no file".to_string());
    }
    for file in files {
        let path = Path::new(&file);
        argv.push(if path.is_absolute() {
            file
        } else {
            cwd.join(path).display().to_string()
        });
    }
    for (key, flag) in SWITCHES {
        if args.get(*key).and_then(Value::as_bool) == Some(true) {
            argv.push(flag.to_string());
        }
    }
    for (key, flag) in VALUES {
        if let Some(value) = args.get(*key).filter(|v| !v.is_null()) {
            let mut text =
                scalar(value).ok_or_else(|| format!("`{key}` must be a string or a number"))?;
            // Files are named relative to the launch's working directory, as `program` is.
            if PATHS.contains(key) && !Path::new(&text).is_absolute() {
                text = cwd.join(&text).display().to_string();
            }
            argv.push(format!("{flag}={text}"));
        }
    }
    for (key, flag) in LISTS {
        match args.get(*key) {
            None | Some(Value::Null) => {}
            Some(Value::Array(list)) => {
                for item in list {
                    let text =
                        scalar(item).ok_or_else(|| format!("`{key}` must be a list of strings"))?;
                    argv.push(format!("{flag}={text}"));
                }
            }
            Some(other) => match scalar(other) {
                Some(text) => argv.push(format!("{flag}={text}")),
                None => return Err(format!("`{key}` must be a list of strings")),
            },
        }
    }
    if let Some(list) = args.get("args").and_then(Value::as_array) {
        argv.push("--".to_string());
        argv.extend(list.iter().filter_map(scalar));
    }
    Ok(argv)
}

/// What the launcher hands the I/O loop: the program's terminal console, when it has one.
type ConsoleSlot = Arc<Mutex<Option<GuestConsole>>>;

fn launcher(slot: ConsoleSlot) -> asmdbg_session::dap::Launcher {
    Box::new(move |args: &Value| {
        let cwd = args
            .get("cwd")
            .and_then(Value::as_str)
            .filter(|c| !c.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_default();
        let argv = launch_command_line(args, &cwd)?;
        let cli = Cli::try_parse_from(&argv).map_err(|e| {
            // clap's message names the flag; the attribute is its camelCase form.
            format!("the launch configuration is not valid: {}", e.render())
        })?;
        if cli.interpret {
            // The adapter serves one program: its launch decides for the process.
            asmdbg_core::code_memory::set_interpret(true);
        }
        let Command::Debug(debug) = cli.command else {
            return Err(
                "internal: the launch configuration did not make a debug command".to_string(),
            );
        };
        let debug: DebugArgs = debug;
        let paths = crate::program_paths(&debug.machine.files, debug.machine.project)
            .map_err(|e| e.to_string())?;
        let program =
            crate::load::read_program(&paths, debug.machine.isa).map_err(|e| e.to_string())?;
        let mut opts =
            crate::load::machine_options(&debug.machine, &program).map_err(|e| e.to_string())?;
        opts.work_dir = Some(cwd.clone());
        let terminal = args.get("console").and_then(Value::as_str) == Some("integratedTerminal");
        let (program, warnings) =
            crate::backends::of(program.isa).dap_program(&debug, &program, &opts, terminal)?;
        let mut launched = Launched {
            program,
            terminal: None,
            warnings,
        };
        if terminal {
            let console = crate::console::open_pty()
                .map_err(|e| format!("cannot open a pseudo-terminal for the console: {e}"))?;
            let exe = std::env::current_exe()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|_| "asmdbg".to_string());
            launched.terminal = Some((
                vec![exe, "console".to_string(), console.name.clone()],
                console.name.clone(),
            ));
            if let Ok(mut slot) = slot.lock() {
                *slot = Some(console);
            }
        }
        if let Some(input) = args.get("input").and_then(Value::as_str) {
            let path = cwd.join(input);
            let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            launched.program.console_input(&bytes);
            launched.program.console_input_end();
        }
        Ok(launched)
    })
}

/// `asmdbg dap`.
pub fn command(args: &DapArgs) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        match args.port {
            None => {
                serve(tokio::io::stdin(), tokio::io::stdout()).await;
                Ok(ExitCode::SUCCESS)
            }
            Some(port) => {
                let addr = SocketAddr::new(args.bind, port);
                let listener = tokio::net::TcpListener::bind(addr)
                    .await
                    .with_context(|| format!("cannot listen on {addr}"))?;
                eprintln!("dap: listening on {}", listener.local_addr()?);
                loop {
                    let (stream, peer) = listener.accept().await?;
                    log::info!("DAP client from {peer}");
                    let (read, write) = stream.into_split();
                    serve(read, write).await;
                }
            }
        }
    })
}

/// One client's session, until it disconnects or its connection ends.
async fn serve(mut input: impl AsyncRead + Unpin, mut output: impl AsyncWrite + Unpin) {
    let slot: ConsoleSlot = Arc::new(Mutex::new(None));
    let mut server = DapServer::new(launcher(slot.clone()));
    let mut console: Option<GuestConsole> = None;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        if console.is_none() {
            console = slot.lock().ok().and_then(|mut s| s.take());
        }
        let poll = server.poll(Instant::now());
        if !poll.to_client.is_empty()
            && (output.write_all(&poll.to_client).await.is_err() || output.flush().await.is_err())
        {
            return;
        }
        if poll.ended {
            break;
        }
        if let Some(console) = &mut console {
            send_output(&mut server, console);
        }
        let output_pending = poll.output_pending && console.is_some();
        let wants_input = poll.wants_input && console.is_some();
        let (cin, cout) = match &mut console {
            Some(c) => (Some(&mut c.input), Some(&c.output)),
            None => (None, None),
        };
        let deadline = poll.deadline;
        tokio::select! {
            biased;
            read = input.read(&mut buf) => match read {
                Ok(0) | Err(_) => break,
                Ok(n) => server.on_bytes(&buf[..n]),
            },
            typed = recv(cin), if wants_input => match typed {
                Some(bytes) => server.on_console_input(&bytes),
                None => server.on_console_input_end(),
            },
            permit = reserve(cout), if output_pending && !poll.run => match permit {
                Some(permit) => {
                    if let Some(chunk) = server.take_output_chunk() {
                        permit.send(chunk);
                    }
                }
                None => server.on_console_output_gone(),
            },
            _ = std::future::ready(()), if poll.run => server.run_burst(),
            _ = sleep_until(deadline), if deadline.is_some() && !poll.run => {}
        }
    }
    let last = server.take_to_client();
    let _ = output.write_all(&last).await;
    let _ = output.flush().await;
    if let Some(console) = console {
        let tail = std::iter::from_fn(|| server.take_output_chunk())
            .flatten()
            .collect();
        console.finish(tail, std::time::Duration::from_secs(1));
    }
}

async fn recv(rx: Option<&mut mpsc::Receiver<Vec<u8>>>) -> Option<Vec<u8>> {
    match rx {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

async fn reserve(tx: Option<&mpsc::Sender<Vec<u8>>>) -> Option<mpsc::Permit<'_, Vec<u8>>> {
    match tx {
        Some(tx) => tx.reserve().await.ok(),
        None => std::future::pending().await,
    }
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d.into()).await,
        None => std::future::pending().await,
    }
}

/// Hands program output to the terminal as far as it takes it without waiting.
fn send_output(server: &mut DapServer, console: &mut GuestConsole) {
    loop {
        match console.output.try_reserve() {
            Ok(permit) => match server.take_output_chunk() {
                Some(chunk) => permit.send(chunk),
                None => return,
            },
            Err(mpsc::error::TrySendError::Full(())) => return,
            Err(mpsc::error::TrySendError::Closed(())) => {
                server.on_console_output_gone();
                return;
            }
        }
    }
}

/// `asmdbg console PTY`: this terminal becomes the program's console until either side ends.
pub fn console_command(args: &ConsoleArgs) -> anyhow::Result<ExitCode> {
    use std::os::fd::AsFd;
    let pty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&args.pty)
        .with_context(|| format!("cannot open the console {}", args.pty.display()))?;
    let stdin = io::stdin();
    // Keys go to the program as they are typed; the program (or asmdbg) echoes them.
    let _keys =
        crate::terminal::KeyMode::enter(stdin.as_fd()).context("cannot set up the terminal")?;
    let mut from_pty = pty.try_clone()?;
    let mut to_pty = pty;
    let reader = std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        let mut out = io::stdout();
        while let Ok(n) = from_pty.read(&mut buf) {
            if n == 0 || out.write_all(&buf[..n]).and_then(|_| out.flush()).is_err() {
                break;
            }
        }
    });
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        let mut input = io::stdin();
        while let Ok(n) = input.read(&mut buf) {
            if n == 0 || to_pty.write_all(&buf[..n]).is_err() {
                break;
            }
        }
    });
    // The program's side closes the pty when the debug session ends.
    let _ = reader.join();
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn launch_attributes_become_debug_flags() {
        let args = json!({
            "type": "asmdbg", "request": "launch", "name": "x", "__sessionId": "1",
            "program": ["a.asm", "/abs/b.asm"], "isa": "lc3", "profile": "lc3tools",
            "ignorePrivilege": true, "strict": false, "seed": 7, "poke": ["x4000=1,2"],
            "historyMb": 64, "args": ["-x", "y"],
        });
        let argv = launch_command_line(&args, Path::new("/work")).unwrap();
        let keys = launch_command_line(
            &json!({"program": "g.asm", "keys": "moves.keys", "bitmap": "256x256,unit=8,base=gp", "mmio": true, "interpret": true}),
            Path::new("/work"),
        )
        .unwrap();
        assert_eq!(
            keys[3..],
            [
                "--mmio",
                "--interpret",
                "--bitmap=256x256,unit=8,base=gp",
                "--keys=/work/moves.keys"
            ]
        );
        assert_eq!(
            argv,
            [
                "asmdbg",
                "debug",
                "/work/a.asm",
                "/abs/b.asm",
                "--ignore-privilege",
                "--isa=lc3",
                "--profile=lc3tools",
                "--seed=7",
                "--history-mb=64",
                "--poke=x4000=1,2",
                "--",
                "-x",
                "y"
            ]
        );
        assert!(launch_command_line(&json!({}), Path::new("/"))
            .unwrap_err()
            .contains("needs `program`"));
        assert!(
            launch_command_line(&json!({"program": "a", "isa": ["x"]}), Path::new("/")).is_err()
        );
    }
}
