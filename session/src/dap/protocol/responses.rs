//! Responses' bodies and the types in them, as the adapter writes them: one struct per
//! definition of the schema (`StackTraceResponse`'s body is [`StackTraceResponseBody`], its
//! frames [`StackFrame`]), absent fields left out, required ones never optional. Every message
//! the test suite sees the adapter send is validated against the schema itself
//! (testsupport/src/dap_schema.rs), so a body that drifts from it fails a test.

use serde::Serialize;

use super::{DataBreakpointAccessType, Source};

/// `Capabilities`: what `initialize` answers.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Capabilities {
    pub supports_configuration_done_request: bool,
    pub supports_function_breakpoints: bool,
    pub supports_conditional_breakpoints: bool,
    pub supports_hit_conditional_breakpoints: bool,
    pub supports_log_points: bool,
    pub supports_evaluate_for_hovers: bool,
    pub supports_set_variable: bool,
    pub supports_step_back: bool,
    pub supports_restart_request: bool,
    pub supports_goto_targets_request: bool,
    pub supports_exception_info_request: bool,
    pub supports_terminate_request: bool,
    pub supports_data_breakpoints: bool,
    pub supports_read_memory_request: bool,
    pub supports_write_memory_request: bool,
    pub supports_disassemble_request: bool,
    pub supports_stepping_granularity: bool,
    pub supports_instruction_breakpoints: bool,
    pub supports_value_formatting_options: bool,
    pub exception_breakpoint_filters: Vec<ExceptionBreakpointsFilter>,
}

/// `ExceptionBreakpointsFilter`: one per debugging check (a fault always stops).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExceptionBreakpointsFilter {
    pub filter: String,
    pub label: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<bool>,
}

/// A response without a body's fields (`{}`): `launch`, `next`, `goto`, …
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Acknowledged {}

/// `Thread`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Thread {
    pub id: i64,
    pub name: String,
}

/// `ThreadsResponse`'s body.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadsResponseBody {
    pub threads: Vec<Thread>,
}

/// `Breakpoint`: how a breakpoint of any kind was set, or why not.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Breakpoint {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<i64>,
    pub verified: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instruction_reference: Option<String>,
    /// `pending` or `failed`, with `verified: false`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl Breakpoint {
    /// A breakpoint that could not be set, and why.
    pub fn failed(id: i64, why: String) -> Self {
        Breakpoint {
            id: Some(id),
            verified: false,
            message: Some(why),
            reason: Some("failed".to_string()),
            ..Breakpoint::default()
        }
    }

    /// A breakpoint that is set.
    pub fn verified(id: i64) -> Self {
        Breakpoint {
            id: Some(id),
            verified: true,
            ..Breakpoint::default()
        }
    }
}

/// The body of the responses to `setBreakpoints`, `setFunctionBreakpoints`,
/// `setInstructionBreakpoints`, `setDataBreakpoints` and `setExceptionBreakpoints`: one
/// answer per breakpoint asked for, in order.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BreakpointsResponseBody {
    pub breakpoints: Vec<Breakpoint>,
}

/// `DataBreakpointInfoResponse`'s body. `dataId` is `null` when nothing can be watched (the
/// schema requires the field).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DataBreakpointInfoResponseBody {
    pub data_id: Option<String>,
    pub description: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub access_types: Option<Vec<DataBreakpointAccessType>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub can_persist: Option<bool>,
}

/// `ContinueResponse`'s body.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContinueResponseBody {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub all_threads_continued: Option<bool>,
}

/// `StackFrame`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StackFrame {
    pub id: i64,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
    /// 0 (with column 0) when the frame has no source line.
    pub line: i64,
    pub column: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instruction_pointer_reference: Option<String>,
}

/// `StackTraceResponse`'s body.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StackTraceResponseBody {
    pub stack_frames: Vec<StackFrame>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_frames: Option<i64>,
}

/// `Scope`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Scope {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub presentation_hint: Option<String>,
    pub variables_reference: i64,
    pub expensive: bool,
}

/// `ScopesResponse`'s body.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScopesResponseBody {
    pub scopes: Vec<Scope>,
}

/// `Variable`: a register or a data label.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Variable {
    pub name: String,
    pub value: String,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub type_: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evaluate_name: Option<String>,
    pub variables_reference: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_reference: Option<String>,
}

/// `VariablesResponse`'s body.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VariablesResponseBody {
    pub variables: Vec<Variable>,
}

/// `SetVariableResponse`'s body.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetVariableResponseBody {
    pub value: String,
}

/// `EvaluateResponse`'s body.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EvaluateResponseBody {
    pub result: String,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub type_: Option<String>,
    pub variables_reference: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_reference: Option<String>,
}

impl EvaluateResponseBody {
    /// A result that is only text.
    pub fn text(result: String) -> Self {
        EvaluateResponseBody {
            result,
            ..EvaluateResponseBody::default()
        }
    }
}

/// `DisassembledInstruction`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DisassembledInstruction {
    pub address: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instruction_bytes: Option<String>,
    pub instruction: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<Source>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<i64>,
    /// `invalid` for addresses that hold no instruction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub presentation_hint: Option<String>,
}

/// `DisassembleResponse`'s body.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DisassembleResponseBody {
    pub instructions: Vec<DisassembledInstruction>,
}

/// `ReadMemoryResponse`'s body.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadMemoryResponseBody {
    pub address: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unreadable_bytes: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
}

/// `WriteMemoryResponse`'s body.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WriteMemoryResponseBody {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_written: Option<i64>,
}

/// `GotoTarget`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GotoTarget {
    pub id: i64,
    pub label: String,
    pub line: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instruction_pointer_reference: Option<String>,
}

/// `GotoTargetsResponse`'s body.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GotoTargetsResponseBody {
    pub targets: Vec<GotoTarget>,
}

/// `ExceptionDetails`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExceptionDetails {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// `ExceptionInfoResponse`'s body.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExceptionInfoResponseBody {
    pub exception_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `never`, `always`, `unhandled` or `userUnhandled`.
    pub break_mode: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<ExceptionDetails>,
}

/// `RunInTerminalRequestArguments`: the reverse request that opens the program's console.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunInTerminalRequestArguments {
    /// `integrated` or `external`.
    pub kind: String,
    pub title: String,
    pub cwd: String,
    pub args: Vec<String>,
}

/// The body of asmdbg's `asmdbgKey` response: how many keys were queued.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AsmdbgKeyResponseBody {
    pub keys: usize,
    /// Keys typed in the past that wait for the end of the recording, where the program gets
    /// them one at a time (the panel says so in its status line).
    pub held: usize,
}

/// `Message`: an error's text for the user.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    pub id: i64,
    pub format: String,
}

/// `ErrorResponse`'s body.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorResponseBody {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Message>,
}

/// A message the adapter sends: `ProtocolMessage`'s three kinds, each with its fields as the
/// schema names them (`request_seq` in snake case, as there). `seq` is numbered when it is
/// sent.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Outgoing {
    Response {
        seq: i64,
        request_seq: i64,
        success: bool,
        command: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        message: Option<String>,
        body: serde_json::Value,
    },
    Event {
        seq: i64,
        event: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        body: Option<serde_json::Value>,
    },
    /// A reverse request (`runInTerminal`).
    Request {
        seq: i64,
        command: String,
        arguments: serde_json::Value,
    },
}

impl Outgoing {
    /// The message numbered `seq`.
    pub fn numbered(mut self, number: i64) -> Self {
        match &mut self {
            Outgoing::Response { seq, .. }
            | Outgoing::Event { seq, .. }
            | Outgoing::Request { seq, .. } => *seq = number,
        }
        self
    }

    pub fn event(event: &str, body: Option<serde_json::Value>) -> Self {
        Outgoing::Event {
            seq: 0,
            event: event.to_string(),
            body,
        }
    }
}
