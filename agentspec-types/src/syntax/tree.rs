//! The source tree: a parsed JSON or YAML document whose every value remembers where it
//! starts in the source text. Typed decoding reads this tree and reports problems with
//! the offsets it carries.

/// A value of the source document and the byte offset at which it starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Byte offset of the first character of the value in the source text.
    pub offset: u32,
    /// The value itself.
    pub value: Value,
}

/// A JSON value (YAML documents are read into the same shape).
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `null` (YAML: `null`, `~`, empty).
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// An integer that fits in `i64`.
    Int(i64),
    /// A non-negative integer above `i64::MAX` that fits in `u64`.
    UInt(u64),
    /// Any other number.
    Float(f64),
    /// A string.
    Str(String),
    /// An array, in source order.
    Array(Vec<Node>),
    /// An object, entries in source order; keys are unique (duplicates are a parse error).
    Object(Vec<Entry>),
}

/// One entry of an object.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The key.
    pub key: String,
    /// Byte offset of the key in the source text.
    pub key_offset: u32,
    /// The value.
    pub value: Node,
}

impl Value {
    /// The JSON type name of this value, as used in messages (`"object"`, `"string"`, …).
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Int(_) | Value::UInt(_) => "integer",
            Value::Float(_) => "number",
            Value::Str(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
    }
}

/// The deepest nesting of arrays and objects a document may have. pyagentspec's deepest
/// realistic documents (50 flows nested through FlowNode/MapNode) need about 160 levels;
/// past this limit, parsing fails with the code `too-deep`.
pub const MAX_DEPTH: usize = 1024;

/// The message of `non-finite-number`: JSON has no NaN or infinity, so such a value could not
/// be written back (Python's `json` writes `NaN` and `Infinity`, which no JSON parser must
/// accept), and turning it into `null` would change it silently.
pub(crate) const NON_FINITE: &str = "NaN and infinities are not numbers JSON can hold: this \
    value could not be written back as JSON (write it as a string, or as a finite number)";
