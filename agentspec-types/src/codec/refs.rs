//! Reading and writing references and secrets: `{"$component_ref": id}` where a component
//! may stand, and the placeholders of redacted values.

use super::{Decode, Decoder, Encode, Encoder, Path, Tagged};
use crate::model::refs::{ComponentRef, RefOr, Sensitive, Truthy};
use crate::syntax::sink::Sink;
use crate::syntax::tree::{Node, Value};
use crate::syntax::value::value_to_node;

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
            Sensitive::Value(_) => {
                sink.redacted();
                placeholder(sink, &format!("{owner}.{field}"));
            }
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
