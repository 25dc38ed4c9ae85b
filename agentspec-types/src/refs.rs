//! Component references and sensitive values.

use std::fmt;

use crate::codec::{Decode, Decoder, Encode, Encoder, Path, Tagged};
use crate::sink::Sink;
use crate::tree::{Node, Value};
use crate::value::value_to_node;

/// A `{"$component_ref": id}`: a component defined elsewhere in the document (inline
/// with that id, or in a `$referenced_components` map).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ComponentRef {
    /// The id of the referenced component.
    pub id: String,
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

/// The `$component_ref` string of an object, if it is a reference object.
fn reference_of(node: &Node) -> Option<&Node> {
    match &node.value {
        Value::Object(entries) => entries
            .iter()
            .find(|e| e.key == "$component_ref")
            .map(|e| &e.value),
        _ => None,
    }
}

/// Reads `{"$component_ref": "..."}`; other keys beside it are ignored with a warning.
fn decode_reference(node: Node, cx: &mut Decoder, path: &Path<'_>) -> Option<(String, u32)> {
    let Value::Object(entries) = node.value else {
        return None;
    };
    let mut id = None;
    for entry in entries {
        if entry.key == "$component_ref" {
            match entry.value.value {
                Value::Str(s) => id = Some((s, entry.value.offset)),
                _ => cx.wrong_type(
                    "a string (component id)",
                    &entry.value,
                    &path.key("$component_ref"),
                ),
            }
        } else {
            let message = format!(
                "`{}` beside `$component_ref` is ignored: a reference carries nothing but the id",
                entry.key
            );
            cx.warning(
                "reference-extra-key",
                message,
                &path.key(&entry.key),
                entry.key_offset,
            );
        }
    }
    id
}

impl<T: Decode + Tagged> Decode for RefOr<T> {
    fn decode(node: Node, cx: &mut Decoder, path: &Path<'_>) -> Option<Self> {
        if reference_of(&node).is_none() {
            return T::decode(node, cx, path).map(RefOr::Inline);
        }
        let offset = node.offset;
        let (id, _) = decode_reference(node, cx, path)?;
        cx.reference::<T>(id.clone(), offset, path);
        Some(RefOr::Ref(ComponentRef { id }))
    }
}

impl<T: Encode> Encode for RefOr<T> {
    fn encode(&self, sink: &mut dyn Sink, cx: &Encoder) {
        match self {
            RefOr::Ref(r) => {
                sink.begin_object();
                sink.key("$component_ref");
                sink.str(&r.id);
                sink.end_object();
            }
            RefOr::Inline(c) => c.encode(sink, cx),
        }
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

/// A sensitive field of a component: written as a placeholder unless secrets are included.
pub trait SecretField {
    /// Writes the field of the component `owner`: a non-empty value as
    /// `{"$component_ref": "<owner>.<field>"}` unless the encoder includes secrets.
    fn encode_secret(&self, owner: &str, field: &str, sink: &mut dyn Sink, cx: &Encoder);
}

fn placeholder(sink: &mut dyn Sink, id: &str) {
    sink.begin_object();
    sink.key("$component_ref");
    sink.str(id);
    sink.end_object();
}

impl<T: Encode + Truthy> SecretField for Sensitive<T> {
    fn encode_secret(&self, owner: &str, field: &str, sink: &mut dyn Sink, cx: &Encoder) {
        match self {
            Sensitive::Value(v) if cx.include_secrets || !v.truthy() => v.encode(sink, cx),
            Sensitive::Value(_) => placeholder(sink, &format!("{owner}.{field}")),
            Sensitive::Placeholder(p) => placeholder(sink, p),
        }
    }
}

impl<T: SecretField> SecretField for Option<T> {
    fn encode_secret(&self, owner: &str, field: &str, sink: &mut dyn Sink, cx: &Encoder) {
        match self {
            Some(v) => v.encode_secret(owner, field, sink, cx),
            None => sink.null(),
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

impl<T: Decode> Decode for Sensitive<T> {
    fn decode(node: Node, cx: &mut Decoder, path: &Path<'_>) -> Option<Self> {
        if reference_of(&node).is_none() {
            return T::decode(node, cx, path).map(Sensitive::Value);
        }
        let offset = node.offset;
        let (id, _) = decode_reference(node, cx, path)?;
        match cx.secret(&id, offset, path) {
            Some(value) => T::decode(value_to_node(&value), cx, path).map(Sensitive::Value),
            None => Some(Sensitive::Placeholder(id)),
        }
    }
}

impl<T: Encode> Encode for Sensitive<T> {
    fn encode(&self, sink: &mut dyn Sink, cx: &Encoder) {
        match self {
            Sensitive::Value(v) => v.encode(sink, cx),
            Sensitive::Placeholder(p) => {
                sink.begin_object();
                sink.key("$component_ref");
                sink.str(p);
                sink.end_object();
            }
        }
    }
}
