//! The requests a launched program answers, in one table: each command, whether it may come
//! while the program runs, and the handler that reads its typed arguments and returns its
//! typed body. (`initialize`, `launch`, `configurationDone`, `disconnect`, `terminate` and
//! `asmdbgFrame` are the server's own, in `../mod.rs`.)

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::motion::STEP_OUT_BACK;
use super::*;

/// When a request may come.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum When {
    /// Any time, also while the program runs.
    Always,
    /// Only while the program is stopped (the state it reads is changing otherwise).
    Stopped,
}

/// A request as it came: its command and its arguments as sent.
pub(super) struct Request<'a> {
    pub command: &'a str,
    pub args: &'a Value,
}

impl Request<'_> {
    /// The arguments as `T`; an error names the field that does not parse.
    pub fn args<T: DeserializeOwned>(&self) -> Result<T, String> {
        arguments(self.command, self.args)
    }
}

/// A response's body on the wire.
pub(super) fn reply<T: Serialize>(answer: T) -> Result<Value, String> {
    Ok(body(&answer))
}

/// The body of a request that answers nothing but its success: `{}`.
pub(super) fn done(_: ()) -> Result<Value, String> {
    reply(Acknowledged {})
}

/// A request's handler: its answer's body, or the error the client is shown.
type Handler<G> = fn(&mut DapProgram<G>, &Request, &mut Outbox) -> Result<Value, String>;

impl<G: GdbMachine> DapProgram<G> {
    /// The table of requests; `None`: a command asmdbg does not know.
    #[rustfmt::skip]
    #[allow(clippy::unit_arg, reason = "`done` turns a handler's `()` into the empty body `{}`")]
    pub(super) fn route(command: &str) -> Option<(When, Handler<G>)> {
        use When::{Always, Stopped};
        let route: (When, Handler<G>) = match command {
            // Breakpoints (program/breakpoints.rs).
            "setBreakpoints" =>            (Always, |p, r, _| reply(p.set_breakpoints(r.args()?)?)),
            "setFunctionBreakpoints" =>    (Always, |p, r, _| reply(p.set_function_breakpoints(r.args()?))),
            "setInstructionBreakpoints" => (Always, |p, r, _| reply(p.set_instruction_breakpoints(r.args()?))),
            "setExceptionBreakpoints" =>   (Always, |_, _, _| reply(BreakpointsResponseBody::default())),
            "dataBreakpointInfo" =>        (Always, |p, r, _| reply(p.data_breakpoint_info(r.args()?))),
            "setDataBreakpoints" =>        (Always, |p, r, _| reply(p.set_data_breakpoints(r.args()?))),
            // Motion (program/motion.rs).
            "continue" =>                  (Always, |p, _, _| reply(p.continue_request())),
            "next" =>                      (Always, |p, r, _| done(p.step_request(&r.args()?, true))),
            "stepIn" =>                    (Always, |p, r, _| done(p.step_request(&r.args()?, false))),
            "stepOut" =>                   (Always, |p, _, _| done(p.step_out()?)),
            "stepBack" =>                  (Always, |p, r, out| done(p.step_back(r.args()?, out)?)),
            "reverseContinue" =>           (Always, |p, _, _| done(p.reverse_continue()?)),
            STEP_OUT_BACK =>               (Always, |p, _, _| done(p.step_out_back()?)),
            "pause" =>                     (Always, |p, _, out| done(p.pause(out))),
            "gotoTargets" =>               (Stopped, |p, r, _| reply(p.goto_targets(r.args()?)?)),
            "goto" =>                      (Stopped, |p, r, out| done(p.goto(r.args()?, out)?)),
            "restart" =>                   (Always, |p, _, out| done(p.restart(out))),
            // Frames and variables (program/inspect.rs).
            "threads" =>                   (Always, |p, _, _| reply(p.threads())),
            "stackTrace" =>                (Stopped, |p, r, _| reply(p.stack_trace(r.args()?))),
            "scopes" =>                    (Stopped, |p, _, _| reply(p.scopes())),
            "variables" =>                 (Stopped, |p, r, _| reply(p.variables(r.args()?)?)),
            "setVariable" =>               (Stopped, |p, r, out| reply(p.set_variable(r.args()?, out)?)),
            "exceptionInfo" =>             (Stopped, |p, _, _| reply(p.exception_info()?)),
            // Memory and disassembly (program/memory.rs).
            "readMemory" =>                (Stopped, |p, r, _| reply(p.read_memory(r.args()?)?)),
            "writeMemory" =>               (Stopped, |p, r, out| reply(p.write_memory(r.args()?, out)?)),
            "disassemble" =>               (Stopped, |p, r, _| reply(p.disassemble(r.args()?)?)),
            // The debug console and the display panel's keys (program/console.rs).
            "evaluate" =>                  (Always, |p, r, out| reply(p.evaluate(r.args()?, out)?)),
            KEY_REQUEST =>                 (Always, |p, r, _| reply(p.press_keys(r.args)?)),
            _ => return None,
        };
        Some(route)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Lc3 = DapProgram<asmdbg_lc3::Lc3Machine>;

    /// Every request the capabilities announce has its line in the table, and the requests
    /// that read the stopped machine's state wait for it to stop.
    #[test]
    fn the_announced_requests_are_routed() {
        let caps = body(&crate::dap::capabilities());
        let announced: &[(&str, &[&str])] = &[
            ("supportsFunctionBreakpoints", &["setFunctionBreakpoints"]),
            (
                "supportsInstructionBreakpoints",
                &["setInstructionBreakpoints"],
            ),
            (
                "supportsDataBreakpoints",
                &["dataBreakpointInfo", "setDataBreakpoints"],
            ),
            ("supportsSetVariable", &["setVariable"]),
            ("supportsStepBack", &["stepBack", "reverseContinue"]),
            ("supportsRestartRequest", &["restart"]),
            ("supportsGotoTargetsRequest", &["gotoTargets", "goto"]),
            ("supportsExceptionInfoRequest", &["exceptionInfo"]),
            ("supportsReadMemoryRequest", &["readMemory"]),
            ("supportsWriteMemoryRequest", &["writeMemory"]),
            ("supportsDisassembleRequest", &["disassemble"]),
        ];
        for (capability, commands) in announced {
            assert_eq!(caps[capability], true, "{capability}");
            for command in *commands {
                assert!(Lc3::route(command).is_some(), "{command} is not routed");
            }
        }
        for command in [
            "setBreakpoints",
            "continue",
            "next",
            "stepIn",
            "stepOut",
            "pause",
        ] {
            assert!(Lc3::route(command).is_some(), "{command} is not routed");
        }
        let stopped = [
            "stackTrace",
            "scopes",
            "variables",
            "readMemory",
            "disassemble",
            "goto",
        ];
        for command in stopped {
            assert_eq!(
                Lc3::route(command).map(|r| r.0),
                Some(When::Stopped),
                "{command}"
            );
        }
        // What a running program must still hear.
        for command in [
            "pause",
            "evaluate",
            "setBreakpoints",
            "threads",
            KEY_REQUEST,
        ] {
            assert_eq!(
                Lc3::route(command).map(|r| r.0),
                Some(When::Always),
                "{command}"
            );
        }
        assert!(Lc3::route("frobnicate").is_none());
    }
}
