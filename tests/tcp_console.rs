//! `asmdbg debug --console tcp` (the default on Windows, which has no ptys): the guest's
//! console on a loopback TCP port, named `console: 127.0.0.1:PORT`. Output waits for a
//! terminal to attach (the guest pauses when nobody reads, as with a pty); what the terminal
//! sends is the guest's input; a terminal that attaches later takes over.

mod support;

use std::io::Write;
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use support::{Console, Scratch, Stub};

const ASK_AND_ANSWER: &str = "        .ORIG x3000
        LEA R0, ASK
        PUTS
        GETC
        ST R0, KEY
        LEA R0, GOT
        PUTS
        LD R0, KEY
        OUT
        HALT
KEY     .BLKW 1
ASK     .STRINGZ \"key? \"
GOT     .STRINGZ \"got \"
        .END
";

#[test]
fn a_tcp_console_holds_output_for_a_terminal_and_takes_its_keys() {
    let dir = Scratch::with_files(&[("ask.asm", ASK_AND_ANSWER)]);
    let stub = Stub::start(&dir.path().join("ask.asm"), &["--console", "tcp"]);
    let addr: SocketAddr = stub
        .console
        .parse()
        .unwrap_or_else(|_| panic!("console: 127.0.0.1:PORT, not {:?}", stub.console));
    assert!(addr.ip().is_loopback(), "{addr}");
    let mut gdb = TcpStream::connect(("127.0.0.1", stub.port)).expect("connect to the stub");
    // Continue; the reply comes when the program halts.
    gdb.write_all(b"$c#63").expect("continue");
    // The program prints its question with no terminal attached: it is held, not lost.
    std::thread::sleep(Duration::from_millis(300));
    let first = Console::open(&stub.console);
    let seen = first.wait_for("key? ", Duration::from_secs(20));
    assert!(seen.starts_with("key? "), "{seen:?}");
    drop(first);
    // A terminal that attaches later takes over the console.
    let mut second = Console::open(&stub.console);
    second.type_bytes(b"x");
    let seen = second.wait_for("got x", Duration::from_secs(20));
    assert!(seen.contains("got x"), "{seen:?}");
}
