//! What can go wrong describing, registering and calling a tool.

use std::fmt;
use std::sync::Arc;

use super::ArgumentError;

/// A call that did not produce a result, or a tool that could not be registered.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// No tool of that name is registered.
    #[error("no tool named `{name}`; registered: {}", names(available))]
    UnknownTool {
        /// The name asked for.
        name: String,
        /// Every registered name.
        available: Vec<String>,
    },
    /// A second tool with a name already taken.
    #[error("a tool named `{name}` is already registered")]
    Duplicate {
        /// The name.
        name: String,
    },
    /// The arguments do not fit the inputs; every problem is listed.
    #[error("invalid arguments for tool `{tool}`: {}", list(errors))]
    Arguments {
        /// The tool's name.
        tool: String,
        /// Each problem, with the JSON pointer of the argument.
        errors: Vec<ArgumentError>,
    },
    /// The function returned an error, kept as `source` (downcast it to get yours back).
    #[error("tool `{tool}` failed: {source}")]
    Execution {
        /// The tool's name.
        tool: String,
        /// The function's error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync + 'static>,
    },
    /// The function's result could not be written as JSON.
    #[error("tool `{tool}` returned a value that cannot be written as JSON: {source}")]
    Output {
        /// The tool's name.
        tool: String,
        /// serde's error.
        #[source]
        source: serde_json::Error,
    },
    /// The function panicked; the panic was caught and the call ends with this error.
    #[error("tool `{tool}` panicked: {message}")]
    Panicked {
        /// The tool's name.
        tool: String,
        /// The panic's message (`"a panic without a message"` when its payload is not a
        /// string).
        message: String,
    },
    /// The tool cannot be described.
    #[error(transparent)]
    Spec(#[from] SpecError),
}

impl ToolError {
    /// A stable, kebab-case code for the error.
    pub fn code(&self) -> &'static str {
        match self {
            ToolError::UnknownTool { .. } => "unknown-tool",
            ToolError::Duplicate { .. } => "duplicate-tool",
            ToolError::Arguments { .. } => "invalid-arguments",
            ToolError::Execution { .. } => "tool-failed",
            ToolError::Output { .. } => "invalid-output",
            ToolError::Panicked { .. } => "tool-panicked",
            ToolError::Spec(e) => e.code,
        }
    }
}

/// Why a tool's description could not be built from its Rust types.
///
/// An `invalid-default` whose value cannot be written as JSON keeps serde's error as its
/// [`source`](std::error::Error::source). Two errors are equal when their tool, code,
/// message and pointer are.
#[derive(Debug, Clone)]
pub struct SpecError {
    /// The tool's name.
    pub tool: String,
    /// Stable code: `recursive-type`, `invalid-title`, `invalid-default`,
    /// `outputs-not-object`, `duplicate-property`, `uninhabited-type`.
    pub code: &'static str,
    /// What is wrong and how to fix it.
    pub message: String,
    /// JSON pointer into the tool's `ServerTool` component (`/inputs/1/items`).
    pub pointer: String,
    /// serde's error (shared: the error is `Clone`, and kept in a `static` by `#[tool]`).
    pub(crate) source: Option<Arc<serde_json::Error>>,
}

impl PartialEq for SpecError {
    fn eq(&self, other: &Self) -> bool {
        (&self.tool, self.code, &self.message, &self.pointer)
            == (&other.tool, other.code, &other.message, &other.pointer)
    }
}

impl Eq for SpecError {}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot describe tool `{}`: {} (at {}; {})",
            self.tool, self.message, self.pointer, self.code
        )
    }
}

impl std::error::Error for SpecError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

fn names(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_owned()
    } else {
        names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn list(errors: &[ArgumentError]) -> String {
    errors
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}
