//! Every message the debug adapter sends, checked against the Debug Adapter Protocol's JSON
//! schema (`tests/schema/debugAdapterProtocol.json`, from microsoft/debug-adapter-protocol):
//! the DAP clients of the tests call [`check_sent`] on each message they read, so the whole
//! suite's traffic is validated, not a sample.
//!
//! A message is checked against the definition its kind names: a response to `stackTrace`
//! against `StackTraceResponse`, a failed response against `ErrorResponse`, a `stopped` event
//! against `StoppedEvent`, a reverse request `runInTerminal` against `RunInTerminalRequest`;
//! asmdbg's own (`asmdbgKey`, `asmdbgFrame`, …), which the schema cannot know, against the
//! generic `Response`, `Event` or `Request`.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Mutex, OnceLock};

use jsonschema::Validator;
use serde_json::{json, Value};

/// The schema file, relative to the workspace's root.
pub const SCHEMA_PATH: &str = "tests/schema/debugAdapterProtocol.json";

struct Schema {
    /// The schema's `definitions`, shared by every validator.
    definitions: Value,
    /// One compiled validator per definition, made on first use.
    validators: Mutex<HashMap<String, &'static Validator>>,
}

fn schema() -> &'static Schema {
    static SCHEMA: OnceLock<Schema> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join(SCHEMA_PATH);
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let whole: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()));
        Schema {
            definitions: whole["definitions"].clone(),
            validators: Mutex::new(HashMap::new()),
        }
    })
}

/// `stackTrace` → `StackTrace`.
fn capitalised(name: &str) -> String {
    let mut chars = name.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The schema's definition that `message` (one the adapter sent) must satisfy.
pub fn definition_of(message: &Value) -> String {
    let defined = |name: String, generic: &str| {
        if schema().definitions.get(&name).is_some() {
            name
        } else {
            generic.to_string()
        }
    };
    let name = |field: &str| capitalised(message[field].as_str().unwrap_or(""));
    match message["type"].as_str() {
        Some("response") if message["success"] == false => "ErrorResponse".to_string(),
        Some("response") => defined(format!("{}Response", name("command")), "Response"),
        Some("event") => defined(format!("{}Event", name("event")), "Event"),
        Some("request") => defined(format!("{}Request", name("command")), "Request"),
        _ => "ProtocolMessage".to_string(),
    }
}

fn validator(definition: &str) -> &'static Validator {
    let schema = schema();
    let mut validators = schema.validators.lock().unwrap_or_else(|e| e.into_inner());
    validators.entry(definition.to_string()).or_insert_with(|| {
        let root = json!({
            "$schema": "http://json-schema.org/draft-04/schema#",
            "$ref": format!("#/definitions/{definition}"),
            "definitions": schema.definitions,
        });
        let compiled = jsonschema::draft4::new(&root)
            .unwrap_or_else(|e| panic!("the schema's {definition} does not compile: {e}"));
        Box::leak(Box::new(compiled))
    })
}

/// Whether `message` satisfies the schema's definition for it; the error names the
/// definition, each violation's place in the message, and the message.
pub fn check_sent(message: &Value) -> Result<(), String> {
    let definition = definition_of(message);
    let errors: Vec<String> = validator(&definition)
        .iter_errors(message)
        .map(|e| format!("  at `{}`: {e}", e.instance_path()))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "the adapter sent a message that is not a valid {definition}:\n{}\nmessage: {message}",
            errors.join("\n")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_valid_response_passes() {
        let response = json!({"seq": 3, "type": "response", "request_seq": 2, "success": true,
            "command": "threads", "body": {"threads": [{"id": 1, "name": "LC-3"}]}});
        assert_eq!(definition_of(&response), "ThreadsResponse");
        check_sent(&response).unwrap();
    }

    #[test]
    fn a_missing_required_field_is_named() {
        // A thread without its name, and a body without `threads`.
        let response = json!({"seq": 3, "type": "response", "request_seq": 2, "success": true,
            "command": "threads", "body": {"threads": [{"id": 1}]}});
        let error = check_sent(&response).unwrap_err();
        assert!(error.contains("ThreadsResponse"), "{error}");
        assert!(error.contains("/body/threads/0"), "{error}");
        assert!(error.contains("name"), "{error}");
        let no_body = json!({"seq": 3, "type": "response", "request_seq": 2, "success": true,
            "command": "stackTrace"});
        assert!(check_sent(&no_body).unwrap_err().contains("body"));
    }

    #[test]
    fn a_wrongly_typed_field_is_named() {
        let event = json!({"seq": 9, "type": "event", "event": "stopped",
            "body": {"reason": "step", "threadId": "1"}});
        assert_eq!(definition_of(&event), "StoppedEvent");
        let error = check_sent(&event).unwrap_err();
        assert!(error.contains("/body/threadId"), "{error}");
    }

    #[test]
    fn failures_and_asmdbgs_own_messages_take_the_generic_definitions() {
        let failed = json!({"seq": 4, "type": "response", "request_seq": 3, "success": false,
            "command": "stackTrace", "message": "no program", "body": {"error": {"id": 1, "format": "no program"}}});
        assert_eq!(definition_of(&failed), "ErrorResponse");
        check_sent(&failed).unwrap();
        let frame = json!({"seq": 5, "type": "event", "event": "asmdbgFrame", "body": {}});
        assert_eq!(definition_of(&frame), "Event");
        check_sent(&frame).unwrap();
        // seq starts at 1.
        let zero = json!({"seq": 0, "type": "event", "event": "asmdbgFrame"});
        assert!(check_sent(&zero).is_err());
    }
}
