//! Reading a call's arguments: one JSON value per input title, each problem reported with
//! the argument's JSON pointer.

use std::fmt;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::check::Check;
use super::{ToolError, ToolSpec};
use crate::diagnostic::push_pointer_token;

/// One problem with a call's arguments.
///
/// An `invalid-argument` error found by decoding a value into its Rust type keeps serde's
/// error as its [`source`](std::error::Error::source); one found by checking a spec-first
/// tool's arguments against the document's JSON Schemas has none. Two errors are equal when
/// their code, pointer and reason are.
#[derive(Debug, Clone)]
pub struct ArgumentError {
    /// Stable code: `arguments-not-object`, `missing-argument`, `unknown-argument`,
    /// `invalid-argument`.
    pub code: &'static str,
    /// JSON pointer into the arguments object (`/days`, `/stops/2/city`).
    pub pointer: String,
    /// What is wrong.
    pub reason: String,
    /// serde's error, for an `invalid-argument` found by decoding (shared: the error is
    /// `Clone`).
    source: Option<Arc<serde_json::Error>>,
}

impl ArgumentError {
    pub(super) fn new(code: &'static str, pointer: String, reason: String) -> Self {
        ArgumentError {
            code,
            pointer,
            reason,
            source: None,
        }
    }
}

impl PartialEq for ArgumentError {
    fn eq(&self, other: &Self) -> bool {
        (self.code, &self.pointer, &self.reason) == (other.code, &other.pointer, &other.reason)
    }
}

impl Eq for ArgumentError {}

impl fmt::Display for ArgumentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} ({})", self.pointer, self.reason, self.code)
    }
}

impl std::error::Error for ArgumentError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// A call's arguments object, taken apart one input at a time.
#[derive(Debug)]
pub struct Arguments {
    map: Map<String, Value>,
}

impl Arguments {
    /// The arguments of a call to `tool`; `null` counts as no arguments.
    pub fn new(tool: &str, args: Value) -> Result<Self, ToolError> {
        match args {
            Value::Object(map) => Ok(Arguments { map }),
            Value::Null => Ok(Arguments { map: Map::new() }),
            other => Err(ToolError::Arguments {
                tool: tool.to_owned(),
                errors: vec![ArgumentError::new(
                    "arguments-not-object",
                    String::new(),
                    format!(
                        "the arguments must be an object keyed by input title, not {}",
                        kind(&other)
                    ),
                )],
            }),
        }
    }

    /// The argument `title`, which must be present.
    pub fn required<T: DeserializeOwned>(&mut self, title: &str) -> Result<T, ArgumentError> {
        match self.map.shift_remove(title) {
            Some(value) => decode(title, value),
            None => Err(ArgumentError::new(
                "missing-argument",
                pointer(title),
                format!("the required argument `{title}` is missing"),
            )),
        }
    }

    /// The argument `title` of an `Option` type: absent reads as `null`.
    pub fn optional<T: DeserializeOwned>(&mut self, title: &str) -> Result<T, ArgumentError> {
        decode(title, self.map.shift_remove(title).unwrap_or(Value::Null))
    }

    /// The argument `title`, or `default()` when it is absent.
    pub fn or_else<T: DeserializeOwned>(
        &mut self,
        title: &str,
        default: impl FnOnce() -> T,
    ) -> Result<T, ArgumentError> {
        match self.map.shift_remove(title) {
            Some(value) => decode(title, value),
            None => Ok(default()),
        }
    }

    /// Every argument no input took.
    pub fn finish(self, known: &[&str]) -> Result<(), Vec<ArgumentError>> {
        if self.map.is_empty() {
            return Ok(());
        }
        let expected = if known.is_empty() {
            "the tool takes no arguments".to_owned()
        } else {
            format!(
                "the inputs are {}",
                known
                    .iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        Err(self
            .map
            .keys()
            .map(|k| {
                ArgumentError::new(
                    "unknown-argument",
                    pointer(k),
                    format!("unknown argument `{k}`; {expected}"),
                )
            })
            .collect())
    }
}

/// The call error for a failed [`Arguments`] read: the errors of each input, in order,
/// then those of [`Arguments::finish`].
pub fn fail(
    tool: &str,
    errors: impl IntoIterator<Item = Option<ArgumentError>>,
    rest: Result<(), Vec<ArgumentError>>,
) -> ToolError {
    let mut errors: Vec<ArgumentError> = errors.into_iter().flatten().collect();
    errors.extend(rest.err().into_iter().flatten());
    ToolError::Arguments {
        tool: tool.to_owned(),
        errors,
    }
}

/// The arguments of a call to the tool `spec` describes as one struct `A`, generated from
/// its inputs (by `agentspec-build`): each argument is checked against its input's JSON
/// Schema first, and every problem is reported at once, at any depth: each missing argument
/// (an input without a `default`) and property, each unknown argument and property (where
/// the schema does not allow others), each value that does not fit. Arguments that pass are
/// decoded; a value the Rust type refuses all the same is reported at its pointer.
pub(crate) fn document_arguments<A: DeserializeOwned>(
    spec: &ToolSpec,
    args: Value,
) -> Result<A, ToolError> {
    let tool = spec.name();
    let Arguments { map } = Arguments::new(tool, args)?;
    let mut check = Check::new();
    for input in spec.inputs() {
        let title = ToolSpec::title(input);
        match map.get(title) {
            Some(value) => check.argument(title, input, value),
            None if !input.contains_key("default") => check.report(
                "missing-argument",
                Some(title),
                format!("the required argument `{title}` is missing"),
            ),
            None => {}
        }
    }
    let mut errors = check.into_errors();
    let known: Vec<&str> = spec.input_titles().collect();
    let unknown = Arguments {
        map: map
            .iter()
            .filter(|(k, _)| !known.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
    };
    errors.extend(unknown.finish(&known).err().into_iter().flatten());
    if !errors.is_empty() {
        return Err(ToolError::Arguments {
            tool: tool.to_owned(),
            errors,
        });
    }
    decode_at(String::new(), Value::Object(map)).map_err(|e| ToolError::Arguments {
        tool: tool.to_owned(),
        errors: vec![e],
    })
}

fn pointer(title: &str) -> String {
    let mut p = String::new();
    push_pointer_token(&mut p, title);
    p
}

fn decode<T: DeserializeOwned>(title: &str, value: Value) -> Result<T, ArgumentError> {
    decode_at(pointer(title), value)
}

/// `value` as a `T`; an error carries the pointer of the part that does not fit, under
/// `at`.
fn decode_at<T: DeserializeOwned>(at: String, value: Value) -> Result<T, ArgumentError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let mut p = at;
        for segment in e.path().iter() {
            match segment {
                serde_path_to_error::Segment::Seq { index } => {
                    push_pointer_token(&mut p, &index.to_string());
                }
                serde_path_to_error::Segment::Map { key } => push_pointer_token(&mut p, key),
                serde_path_to_error::Segment::Enum { variant } => {
                    push_pointer_token(&mut p, variant);
                }
                serde_path_to_error::Segment::Unknown => {}
            }
        }
        let source = e.into_inner();
        ArgumentError {
            code: "invalid-argument",
            pointer: p,
            reason: source.to_string(),
            source: Some(Arc::new(source)),
        }
    })
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
