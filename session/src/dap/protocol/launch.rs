//! The `launch` request's arguments. The schema leaves them to each adapter; asmdbg's are the
//! launch configuration's attributes the VS Code extension declares
//! (editors/vscode/package.json, `configurationAttributes.launch`), in the same camelCase. Most
//! stand for a flag of `asmdbg debug`, whose command line the binary builds from them (so the
//! checks and messages are the command line's).
//!
//! Attributes asmdbg does not know (VS Code adds `type`, `name`, `request`, `__sessionId`, …)
//! are ignored; one it knows with a value of the wrong type is an error that names it.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// A value the command line takes as text: a string, a number or a boolean (`seed: 7` is
/// `--seed=7`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scalar(pub String);

impl Scalar {
    fn of(value: &Value) -> Option<Scalar> {
        match value {
            Value::String(s) => Some(Scalar(s.clone())),
            Value::Number(n) => Some(Scalar(n.to_string())),
            Value::Bool(b) => Some(Scalar(b.to_string())),
            _ => None,
        }
    }
}

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        Scalar::of(&value)
            .ok_or_else(|| D::Error::custom(format!("must be a string or a number, not {value}")))
    }
}

impl Serialize for Scalar {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

/// One value or a list of them (`program: "nim.asm"` or `program: ["main.asm", "lib.asm"]`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Scalars(pub Vec<Scalar>);

impl<'de> Deserialize<'de> for Scalars {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        let wrong = || {
            D::Error::custom(format!(
                "must be a string or a list of strings, not {value}"
            ))
        };
        match &value {
            Value::Array(list) => list
                .iter()
                .map(|item| Scalar::of(item).ok_or_else(wrong))
                .collect::<Result<_, _>>()
                .map(Scalars),
            one => Scalar::of(one).map(|s| Scalars(vec![s])).ok_or_else(wrong),
        }
    }
}

/// `LaunchRequestArguments` as asmdbg reads them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LaunchArguments {
    /// The program's file, or its files.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub program: Option<Scalars>,
    /// Where relative paths start (empty: the adapter's own directory).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// `internalConsole` (the debug console) or `integratedTerminal`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub console: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_on_entry: Option<bool>,
    /// A file whose bytes are the program's console input.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input: Option<String>,
    /// The program's own arguments (MIPS: MARS's program arguments).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<Scalar>>,

    // Flags of `asmdbg debug`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strict: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ignore_privilege: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_at_main: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delay_slots: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub virtual_time: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_mul: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_history: Option<bool>,
    /// `asmdbg debug --checks=off`: no debugging checks (the IDE's exception filters turn
    /// single ones off).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_checks: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mmio: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub display: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interpret: Option<bool>,

    // Options of `asmdbg debug` with one value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub isa: Option<Scalar>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<Scalar>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry: Option<Scalar>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<Scalar>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mem_size: Option<Scalar>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history_mb: Option<Scalar>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dialogs: Option<Scalar>,
    /// `--speed`: instructions a second the running program is held to (`2M`, `500k`).
    pub speed: Option<Scalar>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bitmap: Option<Scalar>,
    /// A file of timed keys (relative to `cwd`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keys: Option<Scalar>,

    // Options of `asmdbg debug` that may be given several times.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub poke: Option<Scalars>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub poke_file: Option<Scalars>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dap::protocol::arguments;
    use serde_json::json;

    #[test]
    fn values_are_read_as_the_command_line_text() {
        let args: LaunchArguments = arguments(
            "launch",
            &json!({"program": ["a.asm", "b.asm"], "seed": 7, "isa": "mips", "noHistory": true,
                "poke": "x3000=1", "type": "asmdbg", "__sessionId": "abc", "keys": null}),
        )
        .unwrap();
        assert_eq!(
            args.program,
            Some(Scalars(vec![
                Scalar("a.asm".into()),
                Scalar("b.asm".into())
            ]))
        );
        assert_eq!(args.seed, Some(Scalar("7".into())));
        assert_eq!(args.isa, Some(Scalar("mips".into())));
        assert_eq!(args.no_history, Some(true));
        assert_eq!(args.poke, Some(Scalars(vec![Scalar("x3000=1".into())])));
        assert_eq!(args.keys, None);
    }

    #[test]
    fn a_wrongly_typed_attribute_is_named() {
        let error = |v: Value| arguments::<LaunchArguments>("launch", &v).unwrap_err();
        let e = error(json!({"program": "a.asm", "isa": ["x"]}));
        assert!(
            e.contains("`isa`") && e.contains("string or a number"),
            "{e}"
        );
        let e = error(json!({"program": "a.asm", "noHistory": "yes"}));
        assert!(e.contains("`noHistory`"), "{e}");
        let e = error(json!({"program": {"file": "a.asm"}}));
        assert!(
            e.contains("`program`") && e.contains("list of strings"),
            "{e}"
        );
        let e = error(json!({"program": "a.asm", "poke": [{"x3000": 1}]}));
        assert!(e.contains("`poke`"), "{e}");
    }
}
