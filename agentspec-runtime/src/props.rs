//! The inputs and outputs of nodes, flows and tools as the runtime reads them, the JSON
//! Schema of a tool's arguments, and the digest of a text: what the planner and the modules
//! it plans for (HTTP calls, MCP tools, transforms, the agent loop) all use.

use agentspec_types::JsonObject;
use serde_json::{Map, Value, json};

/// An input or output of a node, a flow or a tool: its name and JSON Schema.
#[derive(Debug, Clone)]
pub(crate) struct Prop {
    pub name: String,
    pub schema: JsonObject,
}

impl Prop {
    pub fn all(props: Option<&[JsonObject]>) -> Vec<Prop> {
        props
            .unwrap_or_default()
            .iter()
            .map(|schema| Prop {
                name: schema
                    .get("title")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                schema: schema.clone(),
            })
            .collect()
    }

    /// The property's `default` (`default: null` counts as one).
    pub fn default(&self) -> Option<&Value> {
        self.schema.get("default")
    }
}

/// The JSON Schema of arguments whose properties are `props`.
pub(crate) fn parameters(props: &[Prop]) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for p in props {
        let mut schema = p.schema.clone();
        schema.remove("title");
        properties.insert(p.name.clone(), Value::Object(schema));
        if p.default().is_none() {
            required.push(Value::String(p.name.clone()));
        }
    }
    json!({"type": "object", "properties": properties, "required": required})
}

/// FNV-1a, 64 bits, as hex: the digest of a document's compact JSON.
pub(crate) fn digest(text: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("fnv1a64:{hash:016x}")
}
