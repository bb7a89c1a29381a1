//! `asmdbg dap` and `asmdbg console`: the I/O around the DAP session (session/src/dap/),
//! nothing more. The client's bytes come from stdin or a TCP connection and the session's go
//! back there; the launcher turns a `launch` request's arguments into the command line of
//! `asmdbg debug` (so the options, their checks and their messages are the same) and builds the
//! program through the ISA's backend; an `integratedTerminal` console is a pty (Unix) or a
//! loopback TCP port (Windows) that the IDE's terminal attaches to with `asmdbg console NAME`.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use anyhow::Context;
use asmdbg_session::dap::protocol::{LaunchArguments, Scalar, Scalars};
use asmdbg_session::dap::{DapServer, Launched};
use clap::Parser;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

use crate::cli::{Cli, Command, DapArgs, DebugArgs};
use crate::host::console::GuestConsole;

/// The launch attributes that are flags of `asmdbg debug`, in the command line's order.
fn switches(args: &LaunchArguments) -> [(Option<bool>, &'static str); 12] {
    [
        (args.strict, "--strict"),
        (args.ignore_privilege, "--ignore-privilege"),
        (args.project, "--project"),
        (args.start_at_main, "--start-at-main"),
        (args.delay_slots, "--delay-slots"),
        (args.virtual_time, "--virtual-time"),
        (args.no_mul, "--no-mul"),
        (args.no_history, "--no-history"),
        (args.no_checks, "--checks=off"),
        (args.mmio, "--mmio"),
        (args.display, "--display"),
        (args.interpret, "--interpret"),
    ]
}

/// Launch attributes with one value; `true`: the value names a file (relative to `cwd`).
fn values(args: &LaunchArguments) -> [(&Option<Scalar>, &'static str, bool); 10] {
    [
        (&args.speed, "--speed", false),
        (&args.isa, "--isa", false),
        (&args.profile, "--profile", false),
        (&args.entry, "--entry", false),
        (&args.seed, "--seed", false),
        (&args.mem_size, "--mem-size", false),
        (&args.history_mb, "--history-mb", false),
        (&args.dialogs, "--dialogs", false),
        (&args.bitmap, "--bitmap", false),
        (&args.keys, "--keys", true),
    ]
}

/// Launch attributes with a list of values.
fn lists(args: &LaunchArguments) -> [(&Option<Scalars>, &'static str); 2] {
    [(&args.poke, "--poke"), (&args.poke_file, "--poke-file")]
}

/// The `asmdbg debug` command line a launch request's arguments stand for (their types were
/// checked when the request was read).
pub fn launch_command_line(args: &LaunchArguments, cwd: &Path) -> Result<Vec<String>, String> {
    let mut argv = vec!["asmdbg".to_string(), "debug".to_string()];
    let Some(Scalars(files)) = &args.program else {
        return Err(
            "the launch configuration needs `program`: the program's file (or a list of files)"
                .to_string(),
        );
    };
    if files.is_empty() {
        return Err("`program` names no file".to_string());
    }
    for Scalar(file) in files {
        let path = Path::new(file);
        argv.push(if path.is_absolute() {
            file.clone()
        } else {
            cwd.join(path).display().to_string()
        });
    }
    for (on, flag) in switches(args) {
        if on == Some(true) {
            argv.push(flag.to_string());
        }
    }
    for (value, flag, names_file) in values(args) {
        if let Some(Scalar(text)) = value {
            // Files are named relative to the launch's working directory, as `program` is.
            let text = if names_file && !Path::new(text).is_absolute() {
                cwd.join(text).display().to_string()
            } else {
                text.clone()
            };
            argv.push(format!("{flag}={text}"));
        }
    }
    for (list, flag) in lists(args) {
        for Scalar(text) in list.iter().flat_map(|l| &l.0) {
            argv.push(format!("{flag}={text}"));
        }
    }
    if let Some(list) = &args.args {
        argv.push("--".to_string());
        argv.extend(list.iter().map(|Scalar(a)| a.clone()));
    }
    Ok(argv)
}

/// What the launcher hands the I/O loop: the program's terminal console, when it has one.
type ConsoleSlot = Arc<Mutex<Option<GuestConsole>>>;

fn launcher(slot: ConsoleSlot) -> asmdbg_session::dap::Launcher {
    Box::new(move |args: &LaunchArguments| {
        let cwd = args
            .cwd
            .as_deref()
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
        let paths = crate::load::program_paths(&debug.machine.files, debug.machine.project)
            .map_err(|e| e.to_string())?;
        let program = crate::load::read_program(
            &paths,
            debug.machine.isa,
            &asmdbg_core::SourceAccess::open(),
        )
        .map_err(|e| e.to_string())?;
        let mut opts =
            crate::load::machine_options(&debug.machine, &program).map_err(|e| e.to_string())?;
        opts.work_dir = Some(cwd.clone());
        let terminal = args.console.as_deref() == Some("integratedTerminal");
        let (program, warnings) =
            crate::backends::of(program.isa).dap_program(&debug, &program, &opts, terminal)?;
        let mut launched = Launched {
            program,
            terminal: None,
            warnings,
        };
        if terminal {
            // A pty on Unix; on Windows a loopback TCP console that the terminal attaches to.
            let console = GuestConsole::open(crate::host::DEFAULT_CONSOLE)
                .map_err(|e| format!("cannot open a console for the terminal: {e}"))?;
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
        if let Some(input) = &args.input {
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

#[cfg(test)]
mod tests {
    use super::*;
    use asmdbg_session::dap::protocol::arguments;
    use serde_json::json;

    #[test]
    fn launch_attributes_become_debug_flags() {
        let launch = |v: serde_json::Value, cwd: &str| {
            let args: LaunchArguments = arguments("launch", &v)?;
            launch_command_line(&args, Path::new(cwd))
        };
        let args = json!({
            "type": "asmdbg", "request": "launch", "name": "x", "__sessionId": "1",
            "program": ["a.asm", "/abs/b.asm"], "isa": "lc3", "profile": "lc3tools",
            "ignorePrivilege": true, "strict": false, "seed": 7, "poke": ["x4000=1,2"],
            "historyMb": 64, "args": ["-x", "y"],
        });
        let argv = launch(args, "/work").unwrap();
        let keys = launch(
            json!({"program": "g.asm", "keys": "moves.keys", "bitmap": "256x256,unit=8,base=gp", "mmio": true, "interpret": true}),
            "/work",
        )
        .unwrap();
        // A relative file is the folder's, joined as the host joins paths (`\` on Windows).
        let in_work = |file: &str| Path::new("/work").join(file).display().to_string();
        assert_eq!(
            keys[3..],
            [
                "--mmio".to_string(),
                "--interpret".to_string(),
                "--bitmap=256x256,unit=8,base=gp".to_string(),
                format!("--keys={}", in_work("moves.keys"))
            ]
        );
        assert_eq!(
            argv,
            [
                "asmdbg",
                "debug",
                in_work("a.asm").as_str(),
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
        assert!(launch(json!({}), "/")
            .unwrap_err()
            .contains("needs `program`"));
        assert!(launch(json!({"program": "a", "isa": ["x"]}), "/")
            .unwrap_err()
            .contains("`isa`"));
    }

    /// Every attribute the VS Code extension declares for a launch configuration is one the
    /// adapter reads (a misspelt field would drop the user's setting without a word).
    #[test]
    fn the_extensions_launch_attributes_are_the_adapters() {
        let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/editors/vscode/package.json");
        let manifest: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(manifest).unwrap()).unwrap();
        let declared = manifest["contributes"]["debuggers"][0]["configurationAttributes"]["launch"]
            ["properties"]
            .as_object()
            .expect("the extension declares launch attributes")
            .clone();
        assert!(declared.len() > 20, "{declared:?}");
        for (name, schema) in declared {
            // Where the extension finds the adapter: the extension's own, not a launch's.
            if name == "asmdbgPath" {
                continue;
            }
            let kind = match &schema["type"] {
                serde_json::Value::Array(kinds) => kinds[0].clone(),
                kind => kind.clone(),
            };
            let sample = match kind.as_str() {
                Some("boolean") => json!(true),
                Some("integer") => json!(1),
                Some("array") => json!(["x"]),
                _ => json!("x"),
            };
            let args: LaunchArguments = arguments("launch", &json!({ &name: sample }))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let read = serde_json::to_value(&args).unwrap();
            assert!(
                read.get(&name).is_some(),
                "the adapter ignores the extension's launch attribute `{name}`"
            );
        }
    }
}
