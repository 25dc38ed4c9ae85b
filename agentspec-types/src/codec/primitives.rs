//! [`Decode`] and [`Encode`] for the building blocks of the generated types.

use indexmap::IndexMap;

use crate::codec::{Decode, Decoder, Encode, Encoder, Path};
use crate::syntax::sink::Sink;
use crate::syntax::tree::{Node, Value};
use crate::syntax::value::{node_to_value, write_value};

impl Decode for String {
    fn decode(node: Node, cx: &mut Decoder, path: &Path<'_>) -> Option<Self> {
        match node.value {
            Value::Str(s) => Some(s),
            _ => {
                cx.wrong_type("a string", &node, path);
                None
            }
        }
    }
}

impl Encode for String {
    fn encode(&self, sink: &mut dyn Sink, _cx: &Encoder) {
        sink.str(self);
    }
}

impl Decode for bool {
    fn decode(node: Node, cx: &mut Decoder, path: &Path<'_>) -> Option<Self> {
        match node.value {
            Value::Bool(b) => Some(b),
            _ => {
                cx.wrong_type("a boolean", &node, path);
                None
            }
        }
    }
}

impl Encode for bool {
    fn encode(&self, sink: &mut dyn Sink, _cx: &Encoder) {
        sink.bool(*self);
    }
}

impl Decode for i64 {
    fn decode(node: Node, cx: &mut Decoder, path: &Path<'_>) -> Option<Self> {
        match node.value {
            Value::Int(i) => Some(i),
            Value::UInt(u) => {
                cx.error(
                    "out-of-range",
                    format!("{u} does not fit in a 64-bit signed integer"),
                    path,
                    node.offset,
                );
                None
            }
            _ => {
                cx.wrong_type("an integer", &node, path);
                None
            }
        }
    }
}

impl Encode for i64 {
    fn encode(&self, sink: &mut dyn Sink, _cx: &Encoder) {
        sink.i64(*self);
    }
}

impl Decode for f64 {
    fn decode(node: Node, cx: &mut Decoder, path: &Path<'_>) -> Option<Self> {
        match node.value {
            Value::Int(i) => Some(i as f64),
            Value::UInt(u) => Some(u as f64),
            Value::Float(f) => Some(f),
            _ => {
                cx.wrong_type("a number", &node, path);
                None
            }
        }
    }
}

impl Encode for f64 {
    fn encode(&self, sink: &mut dyn Sink, _cx: &Encoder) {
        sink.f64(*self);
    }
}

impl<T: Decode> Decode for Option<T> {
    fn decode(node: Node, cx: &mut Decoder, path: &Path<'_>) -> Option<Self> {
        match node.value {
            Value::Null => Some(None),
            _ => T::decode(node, cx, path).map(Some),
        }
    }
}

impl<T: Encode> Encode for Option<T> {
    fn encode(&self, sink: &mut dyn Sink, cx: &Encoder) {
        match self {
            Some(v) => v.encode(sink, cx),
            None => sink.null(),
        }
    }
}

impl<T: Decode> Decode for Vec<T> {
    fn decode(node: Node, cx: &mut Decoder, path: &Path<'_>) -> Option<Self> {
        let Value::Array(items) = node.value else {
            cx.wrong_type("an array", &node, path);
            return None;
        };
        let mut out = Vec::with_capacity(items.len());
        let mut ok = true;
        for (i, item) in items.into_iter().enumerate() {
            match T::decode(item, cx, &path.index(i)) {
                Some(v) if ok => out.push(v),
                Some(_) => {}
                None => ok = false,
            }
        }
        ok.then_some(out)
    }
}

impl<T: Encode> Encode for Vec<T> {
    fn encode(&self, sink: &mut dyn Sink, cx: &Encoder) {
        sink.begin_array();
        for item in self {
            item.encode(sink, cx);
        }
        sink.end_array();
    }
}

impl<T: Decode> Decode for IndexMap<String, T> {
    fn decode(node: Node, cx: &mut Decoder, path: &Path<'_>) -> Option<Self> {
        let Value::Object(entries) = node.value else {
            cx.wrong_type("an object", &node, path);
            return None;
        };
        let mut out = IndexMap::with_capacity(entries.len());
        let mut ok = true;
        for entry in entries {
            let value = T::decode(entry.value, cx, &path.key(&entry.key));
            match value {
                Some(v) if ok => {
                    out.insert(entry.key.into(), v);
                }
                Some(_) => {}
                None => ok = false,
            }
        }
        ok.then_some(out)
    }
}

impl<T: Encode> Encode for IndexMap<String, T> {
    fn encode(&self, sink: &mut dyn Sink, cx: &Encoder) {
        sink.begin_object();
        for (key, value) in self {
            sink.key(key);
            value.encode(sink, cx);
        }
        sink.end_object();
    }
}

impl<A: Decode, B: Decode> Decode for (A, B) {
    fn decode(node: Node, cx: &mut Decoder, path: &Path<'_>) -> Option<Self> {
        match node.value {
            Value::Array(items) if items.len() == 2 => {
                let mut items = items.into_iter();
                let (a, b) = (items.next()?, items.next()?);
                let a = A::decode(a, cx, &path.index(0));
                let b = B::decode(b, cx, &path.index(1));
                Some((a?, b?))
            }
            Value::Array(items) => {
                cx.error(
                    "invalid-length",
                    format!(
                        "expected a pair (an array of 2 items), found {} items",
                        items.len()
                    ),
                    path,
                    node.offset,
                );
                None
            }
            _ => {
                cx.wrong_type("a pair (an array of 2 items)", &node, path);
                None
            }
        }
    }
}

impl<A: Encode, B: Encode> Encode for (A, B) {
    fn encode(&self, sink: &mut dyn Sink, cx: &Encoder) {
        sink.begin_array();
        self.0.encode(sink, cx);
        self.1.encode(sink, cx);
        sink.end_array();
    }
}

impl Decode for serde_json::Value {
    fn decode(node: Node, _cx: &mut Decoder, _path: &Path<'_>) -> Option<Self> {
        Some(node_to_value(node))
    }
}

impl Encode for serde_json::Value {
    fn encode(&self, sink: &mut dyn Sink, _cx: &Encoder) {
        write_value(self, sink);
    }
}

impl Decode for serde_json::Map<String, serde_json::Value> {
    fn decode(node: Node, cx: &mut Decoder, path: &Path<'_>) -> Option<Self> {
        match node.value {
            Value::Object(_) => match node_to_value(node) {
                serde_json::Value::Object(map) => Some(map),
                _ => None,
            },
            _ => {
                cx.wrong_type("an object", &node, path);
                None
            }
        }
    }
}

impl Encode for serde_json::Map<String, serde_json::Value> {
    fn encode(&self, sink: &mut dyn Sink, _cx: &Encoder) {
        sink.begin_object();
        for (key, value) in self {
            sink.key(key);
            write_value(value, sink);
        }
        sink.end_object();
    }
}

/// The integer widths besides `i64` (plugin fields, as `#[tool]` arguments take them): read
/// from any JSON integer that fits, else `out-of-range`.
macro_rules! integer {
    ($($t:ty),*) => {$(
        impl Decode for $t {
            fn decode(node: Node, cx: &mut Decoder, path: &Path<'_>) -> Option<Self> {
                let n = match node.value {
                    Value::Int(i) => i128::from(i),
                    Value::UInt(u) => i128::from(u),
                    _ => {
                        cx.wrong_type("an integer", &node, path);
                        return None;
                    }
                };
                match <$t>::try_from(n) {
                    Ok(v) => Some(v),
                    Err(_) => {
                        let message = format!(
                            "{n} is out of range: must be from {} to {}",
                            <$t>::MIN,
                            <$t>::MAX
                        );
                        cx.error("out-of-range", message, path, node.offset);
                        None
                    }
                }
            }
        }

        impl Encode for $t {
            fn encode(&self, sink: &mut dyn Sink, _cx: &Encoder) {
                match i64::try_from(*self) {
                    Ok(v) => sink.i64(v),
                    // only unsigned values above i64::MAX get here
                    Err(_) => sink.u64(u64::try_from(*self).unwrap_or(u64::MAX)),
                }
            }
        }
    )*};
}

integer!(i8, i16, i32, u8, u16, u32, u64, usize);
