//! The Debug Adapter Protocol's messages that asmdbg reads and writes, typed: requests'
//! arguments and events' bodies here, responses' bodies and the outgoing envelope in
//! [`responses`], the launch attributes in [`LaunchArguments`], and asmdbg's
//! own custom request and events (`asmdbgKey`, `asmdbgFrame`, `asmdbgDisplay`).
//!
//! Written by hand from the specification's JSON schema (microsoft/debug-adapter-protocol,
//! debugAdapterProtocol.json, kept in tests/schema/), one struct per definition, named as
//! there, with only the fields asmdbg uses; on the wire in camelCase, optional fields as
//! `Option`. Two checks keep them honest: the unit tests compare every field name with the
//! schema's (a misspelt field fails a test instead of being a silent `None`), and every message
//! the adapter sends in the test suite is validated against the schema itself
//! (testsupport/src/dap_schema.rs).
//!
//! Requests' arguments are only read (written in tests, where absent fields are `null`); a
//! field of the wrong type is an error response naming it ([`arguments`]). Fields the schema
//! requires but that asmdbg never needed (a step's `threadId`: there is one thread) stay
//! optional, so that a client that leaves them out is answered as before. Bodies the adapter
//! writes leave absent fields out.

use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

mod launch;
pub mod responses;

pub use launch::{LaunchArguments, Scalar, Scalars};
pub use responses::*;

/// A request's arguments as `T`; when they do not parse, an error that names the request, the
/// field and the problem. Absent arguments (`null`) are an empty object.
pub fn arguments<T: DeserializeOwned>(command: &str, args: &Value) -> Result<T, String> {
    let empty = Value::Object(Default::default());
    let args = if args.is_null() { &empty } else { args };
    serde_path_to_error::deserialize(args).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if path == "." {
            format!("{command}: {inner}")
        } else {
            format!("{command}: `{path}`: {inner}")
        }
    })
}

/// `Source`: a file. The IDE's own is echoed back in breakpoints' answers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Source {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_reference: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub presentation_hint: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sources: Option<Vec<Source>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub adapter_data: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checksums: Option<Vec<Value>>,
}

/// `SteppingGranularity`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SteppingGranularity {
    Statement,
    Line,
    Instruction,
}

/// `DataBreakpointAccessType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DataBreakpointAccessType {
    Read,
    Write,
    ReadWrite,
}

/// `InitializeRequestArguments`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeRequestArguments {
    pub supports_run_in_terminal_request: Option<bool>,
}

/// `SourceBreakpoint`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceBreakpoint {
    pub line: Option<i64>,
    pub condition: Option<String>,
    pub hit_condition: Option<String>,
    pub log_message: Option<String>,
}

/// `SetBreakpointsArguments`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetBreakpointsArguments {
    pub source: Option<Source>,
    pub breakpoints: Option<Vec<SourceBreakpoint>>,
}

/// `FunctionBreakpoint`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FunctionBreakpoint {
    pub name: Option<String>,
    pub condition: Option<String>,
    pub hit_condition: Option<String>,
    /// asmdbg's extension (the schema has it on `SourceBreakpoint` only): a log point.
    pub log_message: Option<String>,
}

/// `SetFunctionBreakpointsArguments`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetFunctionBreakpointsArguments {
    pub breakpoints: Option<Vec<FunctionBreakpoint>>,
}

/// `InstructionBreakpoint`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InstructionBreakpoint {
    pub instruction_reference: Option<String>,
    pub offset: Option<i64>,
    pub condition: Option<String>,
    pub hit_condition: Option<String>,
    /// asmdbg's extension (the schema has it on `SourceBreakpoint` only): a log point.
    pub log_message: Option<String>,
}

/// `SetInstructionBreakpointsArguments`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetInstructionBreakpointsArguments {
    pub breakpoints: Option<Vec<InstructionBreakpoint>>,
}

/// A breakpoint's conditions, whatever its kind.
pub trait Conditions {
    fn condition(&self) -> Option<&str>;
    fn hit_condition(&self) -> Option<&str>;
    fn log_message(&self) -> Option<&str>;
}

/// Each kind of breakpoint has the three (`logMessage` on function and instruction breakpoints
/// is asmdbg's extension).
macro_rules! conditions {
    ($($kind:ty),*) => {$(
        impl Conditions for $kind {
            fn condition(&self) -> Option<&str> {
                self.condition.as_deref()
            }
            fn hit_condition(&self) -> Option<&str> {
                self.hit_condition.as_deref()
            }
            fn log_message(&self) -> Option<&str> {
                self.log_message.as_deref()
            }
        }
    )*};
}

conditions!(SourceBreakpoint, FunctionBreakpoint, InstructionBreakpoint);

/// `DataBreakpointInfoArguments`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DataBreakpointInfoArguments {
    pub name: Option<String>,
}

/// `DataBreakpoint`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DataBreakpoint {
    pub data_id: Option<String>,
    pub access_type: Option<DataBreakpointAccessType>,
}

/// `SetDataBreakpointsArguments`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetDataBreakpointsArguments {
    pub breakpoints: Option<Vec<DataBreakpoint>>,
}

/// `NextArguments`, `StepInArguments`, `StepBackArguments` (the fields asmdbg reads are the
/// same in each).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StepArguments {
    pub thread_id: Option<i64>,
    pub granularity: Option<SteppingGranularity>,
}

impl StepArguments {
    pub fn by_instruction(&self) -> bool {
        self.granularity == Some(SteppingGranularity::Instruction)
    }
}

/// `StackTraceArguments`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StackTraceArguments {
    pub thread_id: Option<i64>,
    pub start_frame: Option<i64>,
    pub levels: Option<i64>,
}

/// `VariablesArguments`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VariablesArguments {
    pub variables_reference: Option<i64>,
}

/// `SetVariableArguments`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetVariableArguments {
    pub variables_reference: Option<i64>,
    pub name: Option<String>,
    pub value: Option<String>,
}

/// `EvaluateArguments`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EvaluateArguments {
    pub expression: Option<String>,
    pub context: Option<String>,
}

/// `DisassembleArguments`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DisassembleArguments {
    pub memory_reference: Option<String>,
    pub offset: Option<i64>,
    pub instruction_offset: Option<i64>,
    pub instruction_count: Option<i64>,
}

/// `ReadMemoryArguments`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadMemoryArguments {
    pub memory_reference: Option<String>,
    pub offset: Option<i64>,
    pub count: Option<i64>,
}

/// `WriteMemoryArguments`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WriteMemoryArguments {
    pub memory_reference: Option<String>,
    pub offset: Option<i64>,
    pub data: Option<String>,
}

/// `GotoTargetsArguments`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GotoTargetsArguments {
    pub source: Option<Source>,
    pub line: Option<i64>,
}

/// `GotoArguments`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GotoArguments {
    pub thread_id: Option<i64>,
    pub target_id: Option<i64>,
}

/// The `stopped` event's body.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoppedEventBody {
    pub reason: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thread_id: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub all_threads_stopped: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hit_breakpoint_ids: Option<Vec<i64>>,
}

/// The `output` event's body.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OutputEventBody {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    pub output: String,
}

/// The `exited` event's body.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExitedEventBody {
    pub exit_code: i64,
}

/// The `thread` event's body: the program's one thread started (once the program exists, so
/// a client can pause a session that never stopped) or exited.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadEventBody {
    pub reason: String,
    pub thread_id: i64,
}

/// The `memory` event's body.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MemoryEventBody {
    pub memory_reference: String,
    pub offset: i64,
    pub count: u64,
}

/// The `invalidated` event's body.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InvalidatedEventBody {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub areas: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thread_id: Option<i64>,
}

/// asmdbg's `asmdbgKey` request's arguments: `key`, a character code, or `text`, the keys.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AsmdbgKeyArguments {
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "character_code"
    )]
    pub key: Option<u8>,
    pub text: Option<String>,
}

/// A key's character code, or an error that says what one is.
fn character_code<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u8>, D::Error> {
    let v = Value::deserialize(d)?;
    v.as_u64()
        .and_then(|k| u8::try_from(k).ok())
        .map(Some)
        .ok_or_else(|| D::Error::custom(format!("must be a character code from 0 to 255, not {v}")))
}

/// asmdbg's `asmdbgDisplay` event's body, and the `asmdbgFrame` response's: a frame.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AsmdbgDisplayBody {
    /// In units.
    pub width: u32,
    pub height: u32,
    /// A unit's size in screen pixels.
    pub unit_width: u32,
    pub unit_height: u32,
    /// The units row-major, 3 bytes each (red, green, blue), in base64.
    pub pixels: String,
}

/// A body as JSON (the types here always serialize).
pub fn body<T: Serialize>(body: &T) -> Value {
    serde_json::to_value(body).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests;
