//! Component references and sensitive values.

use std::fmt;

/// A `{"$component_ref": id}`: a component defined elsewhere in the document (inline
/// with that id, or in a `$referenced_components` map).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ComponentRef {
    /// The id of the referenced component.
    pub id: String,
}

impl ComponentRef {
    /// A reference to the component with this id.
    pub fn new(id: impl Into<String>) -> Self {
        ComponentRef { id: id.into() }
    }
}

impl<T> RefOr<T> {
    /// A reference to the component with this id (`{"$component_ref": id}`).
    pub fn to(id: impl Into<String>) -> Self {
        RefOr::Ref(ComponentRef::new(id))
    }
}

/// A position that holds a component: a reference, or the component itself.
#[derive(Debug, Clone, PartialEq)]
pub enum RefOr<T> {
    /// `{"$component_ref": id}`.
    Ref(ComponentRef),
    /// The component, inline.
    Inline(T),
}

impl<T> RefOr<T> {
    /// The inline component, if this is not a reference.
    pub fn inline(&self) -> Option<&T> {
        match self {
            RefOr::Inline(c) => Some(c),
            RefOr::Ref(_) => None,
        }
    }

    /// The reference, if this is one.
    pub fn reference(&self) -> Option<&ComponentRef> {
        match self {
            RefOr::Ref(r) => Some(r),
            RefOr::Inline(_) => None,
        }
    }
}

impl<T> From<T> for RefOr<T> {
    fn from(component: T) -> Self {
        RefOr::Inline(component)
    }
}

/// A sensitive value (an API key, a password, a private key file): the value itself, or
/// the `{"$component_ref": "<component id>.<field>"}` placeholder pyagentspec writes in
/// its place. `Debug` never prints the value.
#[derive(Clone, PartialEq)]
pub enum Sensitive<T> {
    /// The value.
    Value(T),
    /// A placeholder naming the value to supply (`"<component id>.<field>"`).
    Placeholder(String),
}

/// A secret was used whose value was not supplied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the secret `{0}` has no value: supply it when loading (a values file, `--values FILE` in the CLI)"
)]
pub struct MissingSecret(pub String);

impl<T> Sensitive<T> {
    /// The value; an error naming the placeholder (`<id>.<field>`) when it was not supplied.
    pub fn value(&self) -> Result<&T, MissingSecret> {
        match self {
            Sensitive::Value(v) => Ok(v),
            Sensitive::Placeholder(p) => Err(MissingSecret(p.clone())),
        }
    }

    /// Whether the value is present (not a placeholder).
    pub fn is_supplied(&self) -> bool {
        matches!(self, Sensitive::Value(_))
    }
}

impl<T> fmt::Display for Sensitive<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sensitive::Value(_) => f.write_str("<redacted>"),
            Sensitive::Placeholder(p) => write!(f, "<secret {p}, not supplied>"),
        }
    }
}

/// Values whose emptiness decides whether a secret is redacted (an empty value, as in
/// pyagentspec, is written as it is: there is nothing to hide).
pub trait Truthy {
    /// Whether the value is non-empty.
    fn truthy(&self) -> bool;
}

impl Truthy for String {
    fn truthy(&self) -> bool {
        !self.is_empty()
    }
}

impl Truthy for serde_json::Map<String, serde_json::Value> {
    fn truthy(&self) -> bool {
        !self.is_empty()
    }
}

impl<T> Truthy for indexmap::IndexMap<String, T> {
    fn truthy(&self) -> bool {
        !self.is_empty()
    }
}

impl<T> Truthy for Vec<T> {
    fn truthy(&self) -> bool {
        !self.is_empty()
    }
}

impl Truthy for serde_json::Value {
    fn truthy(&self) -> bool {
        match self {
            serde_json::Value::Null => false,
            serde_json::Value::Bool(b) => *b,
            serde_json::Value::String(s) => !s.is_empty(),
            serde_json::Value::Array(a) => !a.is_empty(),
            serde_json::Value::Object(o) => !o.is_empty(),
            serde_json::Value::Number(_) => true,
        }
    }
}

impl<T: Default> Default for Sensitive<T> {
    fn default() -> Self {
        Sensitive::Value(T::default())
    }
}

impl<T> fmt::Debug for Sensitive<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sensitive::Value(_) => f.write_str("Sensitive(<redacted>)"),
            Sensitive::Placeholder(p) => write!(f, "Sensitive(placeholder {p:?})"),
        }
    }
}

/// A string that is not one of an enum's values (`FromStr` of the generated enums).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("\"{value}\" is not a valid {what} (expected one of {})", expected.iter().map(|v| format!("\"{v}\"")).collect::<Vec<_>>().join(", "))]
pub struct UnknownValue {
    /// The string given.
    pub value: String,
    /// The enum (`ModelProvider`).
    pub what: &'static str,
    /// Its values.
    pub expected: &'static [&'static str],
}
