#![no_main]
//! The model-based test of the sessions' time travel (session/tests/model), unbounded: the
//! first byte picks the program (0-3 each machine's fixed one, 4-6 one generated for LC-3, MIPS
//! or SimpleRISC from the next SHAPE bytes: nested calls, recursion, calls through a register),
//! the second the protocol, the rest are commands (two bytes each, at most MAX_COMMANDS). A stop
//! that differs from the forward-only oracle panics with the commands and stops so far.

#[path = "../../session/tests/model/mod.rs"]
mod model;

/// Commands per case: a case is a debugging session, not an endless one.
const MAX_COMMANDS: usize = 64;
/// Bytes that shape a generated program.
const SHAPE: usize = 16;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let [program, proto, rest @ ..] = data else {
        return;
    };
    let proto = if proto % 2 == 0 {
        model::Proto::Rsp
    } else {
        model::Proto::Dap
    };
    let generated = match program % 7 {
        4 => Some(model::Isa::Lc3),
        5 => Some(model::Isa::Mips),
        6 => Some(model::Isa::SimpleRisc),
        _ => None,
    };
    let result = match generated {
        Some(isa) => {
            let (shape, rest) = rest.split_at(rest.len().min(SHAPE));
            let mut cmds = model::Cmd::decode(rest);
            cmds.truncate(MAX_COMMANDS);
            model::run_generated(isa, shape, proto, &cmds)
        }
        None => {
            let isa = match program % 7 {
                0 => model::Isa::Lc3,
                1 => model::Isa::Mips,
                2 => model::Isa::SimpleRisc,
                _ => model::Isa::MipsDevices,
            };
            let mut cmds = model::Cmd::decode(rest);
            cmds.truncate(MAX_COMMANDS);
            model::run_case(isa, proto, &cmds)
        }
    };
    if let Err(e) = result {
        panic!("{e}");
    }
});
