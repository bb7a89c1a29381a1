#![no_main]
//! The model-based test of the sessions' time travel (session/tests/model), unbounded: the
//! first byte picks the machine, the second the protocol, the rest are commands (two bytes
//! each, at most MAX_COMMANDS). A stop that differs from the forward-only oracle panics with
//! the commands and stops so far.

#[path = "../../session/tests/model/mod.rs"]
mod model;

/// Commands per case: a case is a debugging session, not an endless one.
const MAX_COMMANDS: usize = 64;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let [isa, proto, rest @ ..] = data else {
        return;
    };
    let isa = match isa % 4 {
        0 => model::Isa::Lc3,
        1 => model::Isa::Mips,
        2 => model::Isa::SimpleRisc,
        _ => model::Isa::MipsDevices,
    };
    let proto = if proto % 2 == 0 {
        model::Proto::Rsp
    } else {
        model::Proto::Dap
    };
    let mut cmds = model::Cmd::decode(rest);
    cmds.truncate(MAX_COMMANDS);
    if let Err(e) = model::run_case(isa, proto, &cmds) {
        panic!("{e}");
    }
});
