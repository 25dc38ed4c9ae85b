//! The syntax layer: JSON and YAML text read into a located tree (every value and key with
//! its byte offset, duplicate keys and nesting checked without recursion), written back in
//! pyagentspec's layout, and converted to and from `serde_json` values. It knows nothing of
//! Agent Spec; the layers above read components from its trees.

use std::path::Path as FsPath;

use crate::diagnostic::Diagnostic;

pub mod json;
pub mod sink;
pub(crate) mod skeleton;
pub mod tree;
pub mod value;
pub(crate) mod view;
pub mod yaml;

use json::parse_json_with_depth;
use tree::{Node, Value};
use yaml::parse_yaml_with_depth;

/// The text format of a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// JSON.
    Json,
    /// YAML.
    Yaml,
}

impl Format {
    /// The format a file name says (`.json`, or `.yaml`/`.yml`).
    pub fn from_path(path: &FsPath) -> Option<Format> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "json" => Some(Format::Json),
            "yaml" | "yml" => Some(Format::Yaml),
            _ => None,
        }
    }

    /// Guesses from the text: JSON when it starts with `{` (after whitespace), else YAML.
    pub fn sniff(text: &str) -> Format {
        if text
            .trim_start_matches('\u{feff}')
            .trim_start()
            .starts_with('{')
        {
            Format::Json
        } else {
            Format::Yaml
        }
    }
}

/// The source text a tree was parsed from, to locate diagnostics found after decoding.
#[derive(Clone, Copy)]
pub(crate) struct Source<'a> {
    pub text: &'a str,
    pub format: Format,
}

/// Parses `text` in `format`, with the deepest nesting and the parser's warnings
/// (`imprecise-integer`).
pub(crate) fn parse_with_depth(
    text: &str,
    format: Format,
) -> Result<(Node, usize, Vec<Diagnostic>), Vec<Diagnostic>> {
    match format {
        Format::Json => parse_json_with_depth(text),
        Format::Yaml => parse_yaml_with_depth(text),
    }
}

/// The nesting depth of a tree, without recursion.
pub(crate) fn depth_of(tree: &Node) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(tree, 1)];
    while let Some((node, depth)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Node>> = match &node.value {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(entries) => Box::new(entries.iter().map(|e| &e.value)),
            _ => continue,
        };
        deepest = deepest.max(depth);
        stack.extend(children.map(|n| (n, depth + 1)));
    }
    deepest
}

/// A fast 64-bit fingerprint of a text (not cryptographic): whether a text written again is
/// the one a document was read from.
pub(crate) fn fingerprint(text: &str) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mix = |h: u64, w: u64| (h.rotate_left(5) ^ w).wrapping_mul(K);
    let word = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap_or_default());
    let bytes = text.as_bytes();
    // four independent lanes over 32-byte blocks, so the multiplications overlap
    let mut lanes = [bytes.len() as u64, 1, 2, 3];
    let mut blocks = bytes.chunks_exact(32);
    for block in &mut blocks {
        for (lane, chunk) in lanes.iter_mut().zip(block.chunks_exact(8)) {
            *lane = mix(*lane, word(chunk));
        }
    }
    let mut hash = lanes.iter().fold(0, |h, lane| mix(h, *lane));
    for &b in blocks.remainder() {
        hash = mix(hash, u64::from(b));
    }
    hash
}

#[cfg(test)]
mod tests {
    #[test]
    fn fingerprints_tell_texts_apart() {
        use super::fingerprint;
        assert_eq!(fingerprint("abc"), fingerprint("abc"));
        assert_ne!(fingerprint("abc"), fingerprint("abd"));
        assert_ne!(fingerprint("{\"a\": 1}\n"), fingerprint("{\"a\": 1}"));
        assert_ne!(fingerprint("12345678x"), fingerprint("12345678y"));
    }
}
