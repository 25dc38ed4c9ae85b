//! Conversions between the source tree, `serde_json::Value` and [`Sink`]s.

use serde_json::{Map, Number};

use crate::syntax::sink::Sink;
use crate::syntax::tree::{Entry, Node, Value};

/// Builds a `serde_json::Value` from written events (keys in written order).
#[derive(Debug, Default)]
pub struct ValueSink {
    stack: Vec<(serde_json::Value, Option<String>)>,
    key: Option<String>,
    result: Option<serde_json::Value>,
}

impl ValueSink {
    /// An empty builder.
    pub fn new() -> Self {
        ValueSink::default()
    }

    /// The value written (`null` when nothing was).
    pub fn finish(self) -> serde_json::Value {
        self.result.unwrap_or(serde_json::Value::Null)
    }

    fn put(&mut self, value: serde_json::Value) {
        match self.stack.last_mut() {
            None => self.result = Some(value),
            Some((serde_json::Value::Array(items), _)) => items.push(value),
            Some((serde_json::Value::Object(map), _)) => {
                map.insert(self.key.take().unwrap_or_default(), value);
            }
            // Only containers are pushed.
            Some(_) => {}
        }
    }

    fn begin(&mut self, container: serde_json::Value) {
        let key = self.key.take();
        self.stack.push((container, key));
    }

    fn end(&mut self) {
        if let Some((value, key)) = self.stack.pop() {
            self.key = key;
            self.put(value);
        }
    }
}

impl Sink for ValueSink {
    fn begin_object(&mut self) {
        self.begin(serde_json::Value::Object(Map::new()));
    }
    fn key(&mut self, key: &str) {
        self.key = Some(key.to_owned());
    }
    fn end_object(&mut self) {
        self.end();
    }
    fn begin_array(&mut self) {
        self.begin(serde_json::Value::Array(Vec::new()));
    }
    fn end_array(&mut self) {
        self.end();
    }
    fn null(&mut self) {
        self.put(serde_json::Value::Null);
    }
    fn bool(&mut self, value: bool) {
        self.put(serde_json::Value::Bool(value));
    }
    fn i64(&mut self, value: i64) {
        self.put(serde_json::Value::Number(value.into()));
    }
    fn u64(&mut self, value: u64) {
        self.put(serde_json::Value::Number(value.into()));
    }
    fn f64(&mut self, value: f64) {
        self.put(
            Number::from_f64(value).map_or(serde_json::Value::Null, serde_json::Value::Number),
        );
    }
    fn str(&mut self, value: &str) {
        self.put(serde_json::Value::String(value.to_owned()));
    }
}

/// Converts a source tree into a `serde_json::Value`, consuming it (no recursion).
pub fn node_to_value(node: Node) -> serde_json::Value {
    enum Frame {
        Array(Vec<serde_json::Value>, std::vec::IntoIter<Node>),
        Object(
            Map<String, serde_json::Value>,
            std::vec::IntoIter<Entry>,
            String,
        ),
    }
    let mut stack: Vec<Frame> = Vec::new();
    let mut next = Some(node);
    loop {
        // Descend into `next`, or produce a scalar.
        let mut done = match next.take() {
            Some(Node {
                value: Value::Array(items),
                ..
            }) => {
                stack.push(Frame::Array(
                    Vec::with_capacity(items.len()),
                    items.into_iter(),
                ));
                None
            }
            Some(Node {
                value: Value::Object(entries),
                ..
            }) => {
                stack.push(Frame::Object(
                    Map::new(),
                    entries.into_iter(),
                    String::new(),
                ));
                None
            }
            Some(Node { value, .. }) => Some(scalar(value)),
            None => None,
        };
        // Attach finished values and find the next child to visit.
        loop {
            let Some(frame) = stack.last_mut() else {
                return done.unwrap_or(serde_json::Value::Null);
            };
            match frame {
                Frame::Array(out, rest) => {
                    if let Some(v) = done.take() {
                        out.push(v);
                    }
                    if let Some(child) = rest.next() {
                        next = Some(child);
                        break;
                    }
                }
                Frame::Object(out, rest, key) => {
                    if let Some(v) = done.take() {
                        out.insert(std::mem::take(key), v);
                    }
                    if let Some(entry) = rest.next() {
                        *key = entry.key.into();
                        next = Some(entry.value);
                        break;
                    }
                }
            }
            done = match stack.pop() {
                Some(Frame::Array(out, _)) => Some(serde_json::Value::Array(out)),
                Some(Frame::Object(out, _, _)) => Some(serde_json::Value::Object(out)),
                None => None,
            };
        }
    }
}

fn scalar(value: Value) -> serde_json::Value {
    match value {
        Value::Null => serde_json::Value::Null,
        Value::Bool(b) => serde_json::Value::Bool(b),
        Value::Int(i) => serde_json::Value::Number(i.into()),
        Value::UInt(u) => serde_json::Value::Number(u.into()),
        Value::Float(f) => {
            Number::from_f64(f).map_or(serde_json::Value::Null, serde_json::Value::Number)
        }
        Value::Str(s) => serde_json::Value::String(s),
        // The caller descends into containers.
        Value::Array(_) | Value::Object(_) => serde_json::Value::Null,
    }
}

/// Streams a `serde_json::Value` into a sink, keys in order (no recursion).
pub fn write_value(value: &serde_json::Value, sink: &mut dyn Sink) {
    enum Open<'a> {
        Array(std::slice::Iter<'a, serde_json::Value>),
        Object(serde_json::map::Iter<'a>),
    }
    let mut stack: Vec<Open<'_>> = Vec::new();
    let mut next = Some(value);
    loop {
        match next.take() {
            Some(serde_json::Value::Array(items)) => {
                sink.begin_array();
                stack.push(Open::Array(items.iter()));
            }
            Some(serde_json::Value::Object(map)) => {
                sink.begin_object();
                stack.push(Open::Object(map.iter()));
            }
            Some(scalar) => write_scalar(scalar, sink),
            None => {}
        }
        // The next child to write, closing the containers that are done.
        while next.is_none() {
            match stack.last_mut() {
                None => return,
                Some(Open::Array(items)) => match items.next() {
                    Some(item) => next = Some(item),
                    None => {
                        sink.end_array();
                        stack.pop();
                    }
                },
                Some(Open::Object(entries)) => match entries.next() {
                    Some((key, value)) => {
                        sink.key(key);
                        next = Some(value);
                    }
                    None => {
                        sink.end_object();
                        stack.pop();
                    }
                },
            }
        }
    }
}

/// Writes a value that is not a container.
fn write_scalar(value: &serde_json::Value, sink: &mut dyn Sink) {
    match value {
        serde_json::Value::Bool(b) => sink.bool(*b),
        serde_json::Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                sink.i64(i);
            } else if let Some(u) = n.as_u64() {
                sink.u64(u);
            } else {
                sink.f64(n.as_f64().unwrap_or(f64::NAN));
            }
        }
        serde_json::Value::String(s) => sink.str(s),
        _ => sink.null(),
    }
}

/// Converts a `serde_json::Value` into a source tree, every offset 0 (no recursion).
pub fn value_to_node(value: &serde_json::Value) -> Node {
    tree_of(value, false)
}

/// Converts a `serde_json::Value` into a source tree whose offsets number its values and keys
/// in document order (keys and values apart, from 0): where a diagnostic about a document
/// loaded from a value is found again, as a byte offset finds it in a text.
pub(crate) fn value_to_numbered_node(value: &serde_json::Value) -> Node {
    tree_of(value, true)
}

fn tree_of(value: &serde_json::Value, numbered: bool) -> Node {
    let mut sink = TreeSink {
        numbered,
        ..TreeSink::default()
    };
    write_value(value, &mut sink);
    sink.root.unwrap_or(Node {
        offset: 0,
        value: Value::Null,
    })
}

/// A key with its offset.
type Key = (super::tree::Key, u32);

/// Builds a source tree from written events: every offset 0, or numbered in order.
#[derive(Default)]
struct TreeSink {
    /// Open containers, each with its offset and the key (and key offset) it is the value of.
    stack: Vec<(Value, u32, Option<Key>)>,
    key: Option<Key>,
    root: Option<Node>,
    numbered: bool,
    next: u32,
}

impl TreeSink {
    /// The offset of the next value or key.
    fn offset(&mut self) -> u32 {
        if !self.numbered {
            return 0;
        }
        let offset = self.next;
        self.next = self.next.saturating_add(1);
        offset
    }

    fn scalar(&mut self, value: Value) {
        let offset = self.offset();
        self.put(value, offset);
    }

    fn put(&mut self, value: Value, offset: u32) {
        let node = Node { offset, value };
        match self.stack.last_mut() {
            Some((Value::Array(items), ..)) => items.push(node),
            Some((Value::Object(entries), ..)) => {
                let (key, key_offset) = self.key.take().unwrap_or_default();
                entries.push(Entry {
                    key,
                    key_offset,
                    value: node,
                });
            }
            _ => self.root = Some(node),
        }
    }

    fn begin(&mut self, value: Value) {
        let offset = self.offset();
        self.stack.push((value, offset, self.key.take()));
    }

    fn end(&mut self) {
        if let Some((value, offset, key)) = self.stack.pop() {
            self.key = key;
            self.put(value, offset);
        }
    }
}

impl Sink for TreeSink {
    fn begin_object(&mut self) {
        self.begin(Value::Object(Vec::new()));
    }
    fn key(&mut self, key: &str) {
        let offset = self.offset();
        self.key = Some((key.into(), offset));
    }
    fn end_object(&mut self) {
        self.end();
    }
    fn begin_array(&mut self) {
        self.begin(Value::Array(Vec::new()));
    }
    fn end_array(&mut self) {
        self.end();
    }
    fn null(&mut self) {
        self.scalar(Value::Null);
    }
    fn bool(&mut self, value: bool) {
        self.scalar(Value::Bool(value));
    }
    fn i64(&mut self, value: i64) {
        self.scalar(Value::Int(value));
    }
    fn u64(&mut self, value: u64) {
        self.scalar(Value::UInt(value));
    }
    fn f64(&mut self, value: f64) {
        self.scalar(Value::Float(value));
    }
    fn str(&mut self, value: &str) {
        self.scalar(Value::Str(value.to_owned()));
    }
}

/// `map[key]`. The objects of documents are small (a component has about ten keys, one of
/// its skeleton fewer): comparing the keys in order is quicker there than hashing the key
/// (`serde_json`'s maps hash with SipHash), and a large map is hashed as before.
pub(crate) fn field<'m>(
    map: &'m Map<String, serde_json::Value>,
    key: &str,
) -> Option<&'m serde_json::Value> {
    if map.len() <= 16 {
        map.iter().find(|(k, _)| k.as_str() == key).map(|(_, v)| v)
    } else {
        map.get(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::json::parse_json;

    #[test]
    fn converts_trees_to_values_in_order() {
        let text = r#"{"z": [1, 2.5, {"b": null, "a": true}], "y": "s", "x": {}}"#;
        let value = node_to_value(parse_json(text).unwrap());
        assert_eq!(
            serde_json::to_string(&value).unwrap(),
            r#"{"z":[1,2.5,{"b":null,"a":true}],"y":"s","x":{}}"#
        );
        let mut sink = ValueSink::new();
        write_value(&value, &mut sink);
        assert_eq!(sink.finish(), value);
        assert_eq!(node_to_value(value_to_node(&value)), value);
    }

    #[test]
    fn converts_every_kind_of_value() {
        let value = serde_json::json!({"a": [null, true, -1, 18446744073709551615u64, 0.5, "s", [], {}], "b": {"c": [[1]]}});
        let node = value_to_node(&value);
        let Value::Object(entries) = &node.value else {
            panic!("an object")
        };
        assert_eq!(entries[0].key, "a");
        let Value::Array(items) = &entries[0].value.value else {
            panic!("an array")
        };
        let scalars: Vec<&Value> = items.iter().take(6).map(|n| &n.value).collect();
        assert_eq!(
            scalars,
            [
                &Value::Null,
                &Value::Bool(true),
                &Value::Int(-1),
                &Value::UInt(u64::MAX),
                &Value::Float(0.5),
                &Value::Str("s".into())
            ]
        );
        assert_eq!(node_to_value(node), value);
        let mut sink = ValueSink::new();
        sink.begin_array();
        sink.f64(f64::NAN);
        sink.f64(f64::INFINITY);
        sink.f64(1.5);
        sink.end_array();
        assert_eq!(sink.finish(), serde_json::json!([null, null, 1.5]));
        assert_eq!(ValueSink::new().finish(), serde_json::Value::Null);
    }

    #[test]
    fn deep_values_convert_without_recursion() {
        let depth = 5000;
        let mut node = Node {
            offset: 0,
            value: Value::Int(1),
        };
        for _ in 0..depth {
            node = Node {
                offset: 0,
                value: Value::Array(vec![node]),
            };
        }
        let value = node_to_value(node);
        let back = value_to_node(&value);
        let mut w = crate::syntax::json::JsonWriter::compact();
        write_value(&value, &mut w);
        let text = w.finish();
        assert_eq!(text.len(), 2 * depth + 1);
        // Dropping deep trees recurses; forget them (a test-only leak).
        std::mem::forget(value);
        std::mem::forget(back);
    }
}
