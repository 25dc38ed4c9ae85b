//! Conversions between the source tree, `serde_json::Value` and [`Sink`]s.

use serde_json::{Map, Number};

use crate::sink::Sink;
use crate::tree::{Entry, Node, Value};

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
            Some(_) => unreachable!("only containers are pushed"),
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
                        *key = entry.key;
                        next = Some(entry.value);
                        break;
                    }
                }
            }
            done = Some(match stack.pop().expect("checked above") {
                Frame::Array(out, _) => serde_json::Value::Array(out),
                Frame::Object(out, _, _) => serde_json::Value::Object(out),
            });
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
        Value::Array(_) | Value::Object(_) => unreachable!("containers are handled by the caller"),
    }
}

/// Streams a `serde_json::Value` into a sink, keys in order.
pub fn write_value(value: &serde_json::Value, sink: &mut dyn Sink) {
    match value {
        serde_json::Value::Null => sink.null(),
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
        serde_json::Value::Array(items) => {
            sink.begin_array();
            for item in items {
                write_value(item, sink);
            }
            sink.end_array();
        }
        serde_json::Value::Object(map) => {
            sink.begin_object();
            for (key, value) in map {
                sink.key(key);
                write_value(value, sink);
            }
            sink.end_object();
        }
    }
}

/// Converts a `serde_json::Value` into a source tree (every offset 0).
pub fn value_to_node(value: &serde_json::Value) -> Node {
    let value = match value {
        serde_json::Value::Null => Value::Null,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => Value::Int(i),
            (None, Some(u)) => Value::UInt(u),
            _ => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        serde_json::Value::String(s) => Value::Str(s.clone()),
        serde_json::Value::Array(items) => Value::Array(items.iter().map(value_to_node).collect()),
        serde_json::Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| Entry {
                    key: k.clone(),
                    key_offset: 0,
                    value: value_to_node(v),
                })
                .collect(),
        ),
    };
    Node { offset: 0, value }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse_json;

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
}
