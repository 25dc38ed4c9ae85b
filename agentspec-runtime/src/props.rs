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

/// What [`Digest`] names its digests with.
pub(crate) const DIGEST: &str = "mix64";

/// The digest of a text (a document's compact JSON, what a summary was made of), as hex,
/// taken in pieces: each 8 bytes in turn (the last padded with zeros), then the length,
/// mixed into 64 bits by a rotation, an xor and a multiplication by an odd constant, then
/// the bits spread. Each step is one-to-one in the state and in the word, so two texts that
/// differ in one word always differ. Five cycles per 8 bytes where a byte-at-a-time hash
/// (FNV-1a, which this replaced) takes four per byte: at 10,000 nodes, 12 MB of text.
/// Stable: saved sessions and stored summaries name what they were made from by it.
pub(crate) struct Digest {
    hash: u64,
    len: u64,
    /// The bytes of a word not complete yet.
    held: [u8; 8],
    holding: usize,
}

impl Digest {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;

    pub(crate) fn new() -> Self {
        Digest {
            hash: 0x243f_6a88_85a3_08d3,
            len: 0,
            held: [0; 8],
            holding: 0,
        }
    }

    fn step(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(23) ^ word).wrapping_mul(Self::K);
    }

    /// Takes the next piece of the text.
    pub(crate) fn update(&mut self, piece: &str) {
        let mut bytes = piece.as_bytes();
        self.len += bytes.len() as u64;
        if self.holding > 0 {
            let take = bytes.len().min(8 - self.holding);
            self.held[self.holding..self.holding + take].copy_from_slice(&bytes[..take]);
            self.holding += take;
            bytes = &bytes[take..];
            if self.holding < 8 {
                return;
            }
            self.step(u64::from_le_bytes(self.held));
            self.holding = 0;
        }
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            self.step(u64::from_le_bytes(word.try_into().expect("8 bytes")));
        }
        let rest = words.remainder();
        self.held[..rest.len()].copy_from_slice(rest);
        self.holding = rest.len();
    }

    pub(crate) fn finish(mut self) -> String {
        let mut last = [0u8; 8];
        last[..self.holding].copy_from_slice(&self.held[..self.holding]);
        self.step(u64::from_le_bytes(last));
        self.step(self.len);
        let mut hash = self.hash;
        hash ^= hash >> 29;
        hash = hash.wrapping_mul(Self::K);
        hash ^= hash >> 32;
        format!("{DIGEST}:{hash:016x}")
    }
}

/// The [`Digest`] of a text held whole.
pub(crate) fn digest(text: &str) -> String {
    let mut digest = Digest::new();
    digest.update(text);
    digest.finish()
}

#[cfg(test)]
mod tests {
    use super::{Digest, digest};

    #[test]
    fn a_digest_is_stable_and_tells_texts_apart() {
        // what saved sessions hold: a change here strands every session saved before it
        // (the two values were checked against a separate implementation in Python)
        assert_eq!(digest(""), "mix64:d2960ae422dad23c");
        assert_eq!(
            digest("{\"component_type\":\"Flow\"}"),
            "mix64:a0b822d35f81415e"
        );
        // the padding of the last word and the length: "a" is not "a\0"
        assert_ne!(digest("a"), digest("a\u{0}"));
        assert_ne!(digest("abcdefgh"), digest("abcdefgh\u{0}"));
        // in pieces, cut anywhere, as whole
        let text = "{\"component_type\":\"Flow\",\"id\":\"é\"}";
        for cut in (0..=text.len()).filter(|&c| text.is_char_boundary(c)) {
            for second in (cut..=text.len()).filter(|&c| text.is_char_boundary(c)) {
                let mut pieces = Digest::new();
                pieces.update(&text[..cut]);
                pieces.update("");
                pieces.update(&text[cut..second]);
                pieces.update(&text[second..]);
                assert_eq!(pieces.finish(), digest(text), "cut at {cut} and {second}");
            }
        }
        // one byte changed anywhere, across three words and a tail
        let text = "{\"id\":\"chain\",\"name\":\"x\"}";
        let mut seen = std::collections::HashSet::new();
        seen.insert(digest(text));
        for at in 0..text.len() {
            let mut bytes = text.as_bytes().to_vec();
            bytes[at] = if bytes[at] == b'z' { b'y' } else { b'z' };
            let changed = String::from_utf8(bytes).unwrap();
            assert!(seen.insert(digest(&changed)), "byte {at}");
        }
    }
}
