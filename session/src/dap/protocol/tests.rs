//! The types against the specification's schema: each serializes with exactly the field names
//! the schema gives its definition (a misspelt field would not come back from the sample).

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

use super::*;

/// Each definition's field names in debugAdapterProtocol.json (extracted from the schema).
const SPEC_FIELDS: &[(&str, &[&str])] = &[
    (
        "Source",
        &[
            "name",
            "path",
            "sourceReference",
            "presentationHint",
            "origin",
            "sources",
            "adapterData",
            "checksums",
        ],
    ),
    (
        "InitializeRequestArguments",
        &[
            "clientID",
            "clientName",
            "adapterID",
            "locale",
            "linesStartAt1",
            "columnsStartAt1",
            "pathFormat",
            "supportsVariableType",
            "supportsVariablePaging",
            "supportsRunInTerminalRequest",
            "supportsMemoryReferences",
            "supportsProgressReporting",
            "supportsInvalidatedEvent",
            "supportsMemoryEvent",
            "supportsArgsCanBeInterpretedByShell",
            "supportsStartDebuggingRequest",
            "supportsANSIStyling",
        ],
    ),
    (
        "SourceBreakpoint",
        &[
            "line",
            "column",
            "condition",
            "hitCondition",
            "logMessage",
            "mode",
        ],
    ),
    (
        "SetBreakpointsArguments",
        &["source", "breakpoints", "lines", "sourceModified"],
    ),
    ("FunctionBreakpoint", &["name", "condition", "hitCondition"]),
    ("SetFunctionBreakpointsArguments", &["breakpoints"]),
    (
        "InstructionBreakpoint",
        &[
            "instructionReference",
            "offset",
            "condition",
            "hitCondition",
            "mode",
        ],
    ),
    ("SetInstructionBreakpointsArguments", &["breakpoints"]),
    (
        "DataBreakpointInfoArguments",
        &[
            "variablesReference",
            "name",
            "frameId",
            "bytes",
            "asAddress",
            "mode",
        ],
    ),
    (
        "DataBreakpoint",
        &["dataId", "accessType", "condition", "hitCondition"],
    ),
    ("SetDataBreakpointsArguments", &["breakpoints"]),
    (
        "NextArguments",
        &["threadId", "singleThread", "granularity"],
    ),
    (
        "StepInArguments",
        &["threadId", "singleThread", "targetId", "granularity"],
    ),
    (
        "StepBackArguments",
        &["threadId", "singleThread", "granularity"],
    ),
    (
        "StackTraceArguments",
        &["threadId", "startFrame", "levels", "format"],
    ),
    (
        "VariablesArguments",
        &["variablesReference", "filter", "start", "count", "format"],
    ),
    (
        "SetVariableArguments",
        &["variablesReference", "name", "value", "format"],
    ),
    (
        "EvaluateArguments",
        &[
            "expression",
            "frameId",
            "line",
            "column",
            "source",
            "context",
            "format",
        ],
    ),
    (
        "DisassembleArguments",
        &[
            "memoryReference",
            "offset",
            "instructionOffset",
            "instructionCount",
            "resolveSymbols",
        ],
    ),
    (
        "ReadMemoryArguments",
        &["memoryReference", "offset", "count"],
    ),
    (
        "WriteMemoryArguments",
        &["memoryReference", "offset", "allowPartial", "data"],
    ),
    ("GotoTargetsArguments", &["source", "line", "column"]),
    ("GotoArguments", &["threadId", "targetId"]),
    (
        "StoppedEvent.body",
        &[
            "reason",
            "description",
            "threadId",
            "preserveFocusHint",
            "text",
            "allThreadsStopped",
            "hitBreakpointIds",
        ],
    ),
    (
        "OutputEvent.body",
        &[
            "category",
            "output",
            "group",
            "variablesReference",
            "source",
            "line",
            "column",
            "data",
            "locationReference",
        ],
    ),
    ("ExitedEvent.body", &["exitCode"]),
    ("MemoryEvent.body", &["memoryReference", "offset", "count"]),
    (
        "InvalidatedEvent.body",
        &["areas", "threadId", "stackFrameId"],
    ),
];

/// Fields asmdbg reads beyond the schema's: log points of every kind of breakpoint.
const EXTENSIONS: &[(&str, &str)] = &[
    ("FunctionBreakpoint", "logMessage"),
    ("InstructionBreakpoint", "logMessage"),
];

/// The schema's enums asmdbg types.
const SPEC_ENUMS: &[(&str, &[&str])] = &[
    ("SteppingGranularity", &["statement", "line", "instruction"]),
    ("DataBreakpointAccessType", &["read", "write", "readWrite"]),
];

/// `sample` (every field `T` has) read as `T` and written back unchanged, each of its fields
/// one of the schema's for `definition`.
fn check<T: DeserializeOwned + Serialize>(definition: &str, sample: Value) {
    let spec = SPEC_FIELDS
        .iter()
        .find(|(name, _)| *name == definition)
        .unwrap_or_else(|| panic!("{definition} is not in the extracted list"))
        .1;
    for key in sample.as_object().expect("an object").keys() {
        let extension = EXTENSIONS.contains(&(definition, key.as_str()));
        assert!(
            spec.contains(&key.as_str()) || extension,
            "{definition} has no field {key:?}"
        );
    }
    let typed: T = arguments(definition, &sample).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        without_nulls(body(&typed)),
        sample,
        "{definition} does not come back whole"
    );
}

/// `value` without its objects' `null` fields (an argument's absent field).
fn without_nulls(value: Value) -> Value {
    match value {
        Value::Object(fields) => Value::Object(
            fields
                .into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k, without_nulls(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(without_nulls).collect()),
        other => other,
    }
}

fn source() -> Value {
    json!({"name": "a.asm", "path": "/p/a.asm", "sourceReference": 0, "presentationHint": "normal", "origin": "o", "sources": [{"path": "b.asm"}], "adapterData": {"x": 1}, "checksums": [{"algorithm": "MD5", "checksum": "00"}]})
}

#[test]
fn requests_arguments_have_the_schemas_field_names() {
    check::<Source>("Source", source());
    check::<InitializeRequestArguments>(
        "InitializeRequestArguments",
        json!({"supportsRunInTerminalRequest": true}),
    );
    let bp = json!({"line": 3, "condition": "R0 == 1", "hitCondition": "2", "logMessage": "{R0}"});
    check::<SourceBreakpoint>("SourceBreakpoint", bp.clone());
    check::<SetBreakpointsArguments>(
        "SetBreakpointsArguments",
        json!({"source": source(), "breakpoints": [bp]}),
    );
    let bp = json!({"name": "MAIN", "condition": "1", "hitCondition": "2", "logMessage": "{R0}"});
    check::<FunctionBreakpoint>("FunctionBreakpoint", bp.clone());
    check::<SetFunctionBreakpointsArguments>(
        "SetFunctionBreakpointsArguments",
        json!({"breakpoints": [bp]}),
    );
    let bp = json!({"instructionReference": "x3000", "offset": 1, "condition": "1", "hitCondition": "2", "logMessage": "{R0}"});
    check::<InstructionBreakpoint>("InstructionBreakpoint", bp.clone());
    check::<SetInstructionBreakpointsArguments>(
        "SetInstructionBreakpointsArguments",
        json!({"breakpoints": [bp]}),
    );
    check::<DataBreakpointInfoArguments>("DataBreakpointInfoArguments", json!({"name": "SAVED"}));
    let bp = json!({"dataId": "x3008:1", "accessType": "readWrite"});
    check::<DataBreakpoint>("DataBreakpoint", bp.clone());
    check::<SetDataBreakpointsArguments>(
        "SetDataBreakpointsArguments",
        json!({"breakpoints": [bp]}),
    );
    for definition in ["NextArguments", "StepInArguments", "StepBackArguments"] {
        check::<StepArguments>(
            definition,
            json!({"threadId": 1, "granularity": "instruction"}),
        );
    }
    check::<StackTraceArguments>(
        "StackTraceArguments",
        json!({"threadId": 1, "startFrame": 0, "levels": 20}),
    );
    check::<VariablesArguments>("VariablesArguments", json!({"variablesReference": 3}));
    check::<SetVariableArguments>(
        "SetVariableArguments",
        json!({"variablesReference": 1, "name": "R0", "value": "5"}),
    );
    check::<EvaluateArguments>(
        "EvaluateArguments",
        json!({"expression": "R0", "context": "repl"}),
    );
    check::<DisassembleArguments>(
        "DisassembleArguments",
        json!({"memoryReference": "x3000", "offset": 0, "instructionOffset": -2, "instructionCount": 10}),
    );
    check::<ReadMemoryArguments>(
        "ReadMemoryArguments",
        json!({"memoryReference": "x3000", "offset": 2, "count": 4}),
    );
    check::<WriteMemoryArguments>(
        "WriteMemoryArguments",
        json!({"memoryReference": "x3000", "offset": 2, "data": "AAEC"}),
    );
    check::<GotoTargetsArguments>(
        "GotoTargetsArguments",
        json!({"source": source(), "line": 4}),
    );
    check::<GotoArguments>("GotoArguments", json!({"threadId": 1, "targetId": 12288}));
}

#[test]
fn events_bodies_have_the_schemas_field_names() {
    check::<StoppedEventBody>(
        "StoppedEvent.body",
        json!({"reason": "step", "description": "d", "threadId": 1, "text": "t", "allThreadsStopped": true, "hitBreakpointIds": [2]}),
    );
    check::<OutputEventBody>(
        "OutputEvent.body",
        json!({"category": "console", "output": "hi\n"}),
    );
    check::<ExitedEventBody>("ExitedEvent.body", json!({"exitCode": 3}));
    check::<MemoryEventBody>(
        "MemoryEvent.body",
        json!({"memoryReference": "x3000", "offset": 0, "count": 2}),
    );
    check::<InvalidatedEventBody>(
        "InvalidatedEvent.body",
        json!({"areas": ["variables"], "threadId": 1}),
    );
}

#[test]
fn enums_have_the_schemas_values() {
    for (definition, values) in SPEC_ENUMS {
        for value in *values {
            let back = match *definition {
                "SteppingGranularity" => {
                    body(&serde_json::from_value::<SteppingGranularity>(json!(value)).unwrap())
                }
                _ => {
                    body(&serde_json::from_value::<DataBreakpointAccessType>(json!(value)).unwrap())
                }
            };
            assert_eq!(back, json!(value), "{definition}");
        }
    }
}

#[test]
fn asmdbgs_own_messages_keep_their_names() {
    // What the VS Code extension (editors/vscode) sends and reads.
    let key = json!({"key": 97, "text": "wasd"});
    let typed: AsmdbgKeyArguments = arguments("asmdbgKey", &key).unwrap();
    assert_eq!(body(&typed), key);
    let frame =
        json!({"width": 2, "height": 1, "unitWidth": 8, "unitHeight": 8, "pixels": "AAAAAAAA"});
    let typed: AsmdbgDisplayBody = arguments("asmdbgDisplay", &frame).unwrap();
    assert_eq!(body(&typed), frame);
}

#[test]
fn arguments_that_do_not_parse_name_the_field() {
    let e = arguments::<ReadMemoryArguments>("readMemory", &json!({"count": "x"})).unwrap_err();
    assert!(
        e.contains("readMemory") && e.contains("`count`") && e.contains("invalid type"),
        "{e}"
    );
    let e = arguments::<SetBreakpointsArguments>(
        "setBreakpoints",
        &json!({"source": {"path": "a"}, "breakpoints": [{"line": 1}, {"line": "two"}]}),
    )
    .unwrap_err();
    assert!(e.contains("`breakpoints[1].line`"), "{e}");
    let e = arguments::<StepArguments>("next", &json!({"granularity": "word"})).unwrap_err();
    assert!(e.contains("`granularity`") && e.contains("word"), "{e}");
    let e = arguments::<StepArguments>("next", &json!(5)).unwrap_err();
    assert!(e.starts_with("next: invalid type"), "{e}");
    // Absent arguments are none.
    assert_eq!(
        arguments::<StepArguments>("next", &Value::Null),
        Ok(StepArguments::default())
    );
}
