//! YAML: a reader into the located source [`tree`](crate::tree) (on saphyr-parser's event
//! stream, which is a state machine, so deep documents cannot overflow the stack), and a
//! block-style writer in the layout of PyYAML's `safe_dump(sort_keys=False)`.

use std::collections::HashMap;

use saphyr_parser::{Event, Parser, ScalarStyle, Tag};

use crate::diagnostic::{Diagnostic, push_pointer_token};
use crate::json::python_float;
use crate::sink::Sink;
use crate::tree::{Entry, KeySet, MAX_DEPTH, Node, Value};

enum Frame {
    Seq {
        offset: u32,
        items: Vec<Node>,
        anchor: usize,
    },
    Map {
        offset: u32,
        entries: Vec<Entry>,
        key: Option<(String, u32)>,
        anchor: usize,
        keys: KeySet,
    },
}

/// Maps saphyr's character indices to byte offsets, walking forward.
struct Offsets<'a> {
    src: &'a str,
    chars: usize,
    bytes: usize,
}

impl Offsets<'_> {
    fn byte(&mut self, char_index: usize) -> u32 {
        if char_index < self.chars {
            self.chars = 0;
            self.bytes = 0;
        }
        let rest = &self.src[self.bytes..];
        let step: usize = rest
            .chars()
            .take(char_index - self.chars)
            .map(char::len_utf8)
            .sum();
        self.chars = char_index;
        self.bytes += step;
        self.bytes as u32
    }
}

struct Builder<'a> {
    stack: Vec<Frame>,
    anchors: HashMap<usize, Node>,
    nodes: usize,
    budget: usize,
    offsets: Offsets<'a>,
    root: Option<Node>,
    depth: usize,
}

/// Parses a YAML document (one document per stream) into the source tree. Plain scalars
/// resolve by the YAML 1.2 core schema; anchors and aliases are expanded within a budget.
///
/// Errors: `syntax-error`, `duplicate-key`, `too-deep` past [`MAX_DEPTH`] levels, and
/// `too-large` when aliases would expand beyond the budget.
pub fn parse_yaml(src: &str) -> Result<Node, Vec<Diagnostic>> {
    parse_yaml_with_depth(src).map(|(node, _)| node)
}

/// [`parse_yaml`], also returning the deepest nesting of lists and mappings.
pub(crate) fn parse_yaml_with_depth(src: &str) -> Result<(Node, usize), Vec<Diagnostic>> {
    let mut b = Builder {
        stack: Vec::new(),
        anchors: HashMap::new(),
        nodes: 0,
        budget: src.len() * 10 + 10_000,
        offsets: Offsets {
            src,
            chars: 0,
            bytes: 0,
        },
        root: None,
        depth: 0,
    };
    let node = b.run(src).map_err(|d| vec![d])?;
    // Aliases copy whole subtrees, which the event count does not see: measure.
    let depth = if b.anchors.is_empty() {
        b.depth
    } else {
        crate::document::depth_of(&node)
    };
    Ok((node, depth))
}

impl Builder<'_> {
    fn pointer(&self) -> String {
        let mut out = String::new();
        for frame in &self.stack {
            match frame {
                Frame::Seq { items, .. } => push_pointer_token(&mut out, &items.len().to_string()),
                Frame::Map {
                    key: Some((k, _)), ..
                } => push_pointer_token(&mut out, k),
                Frame::Map { .. } => {}
            }
        }
        out
    }

    fn error(&self, code: &'static str, message: impl Into<String>, offset: u32) -> Diagnostic {
        Diagnostic::error(code, message, self.pointer(), Some(offset as usize))
    }

    fn run(&mut self, src: &str) -> Result<Node, Diagnostic> {
        let mut documents = 0;
        for event in Parser::new_from_str(src) {
            let (event, span) = event.map_err(|e| {
                let offset = self.offsets.byte(e.marker().index());
                if e.info().contains("recursion limit") {
                    let message = "flow-style YAML (`[...]`, `{...}`) nests more deeply than the YAML reader allows (about 255 levels); write deep documents in block style";
                    return self.error("too-deep", message, offset);
                }
                self.error("syntax-error", format!("invalid YAML: {}", e.info()), offset)
            })?;
            let offset = self.offsets.byte(span.start.index());
            match event {
                Event::DocumentStart(_) => {
                    documents += 1;
                    if documents > 1 {
                        return Err(self.error(
                            "syntax-error",
                            "a file holds one document; found a second one",
                            offset,
                        ));
                    }
                }
                Event::Scalar(text, style, anchor, tag) => {
                    let value = resolve(&text, style, tag.as_deref()).ok_or_else(|| {
                        self.error(
                            "syntax-error",
                            format!(
                                "`{text}` does not fit its tag {}",
                                tag.as_deref().map(tag_name).unwrap_or_default()
                            ),
                            offset,
                        )
                    })?;
                    self.complete(Node { offset, value }, anchor, Some(&text))?;
                }
                Event::SequenceStart(anchor, _) => {
                    self.open(offset)?;
                    self.stack.push(Frame::Seq {
                        offset,
                        items: Vec::new(),
                        anchor,
                    });
                }
                Event::MappingStart(anchor, _) => {
                    self.open(offset)?;
                    self.stack.push(Frame::Map {
                        offset,
                        entries: Vec::new(),
                        key: None,
                        anchor,
                        keys: KeySet::default(),
                    });
                }
                Event::SequenceEnd | Event::MappingEnd => {
                    let (node, anchor) = match self.stack.pop() {
                        Some(Frame::Seq {
                            offset,
                            items,
                            anchor,
                        }) => (
                            Node {
                                offset,
                                value: Value::Array(items),
                            },
                            anchor,
                        ),
                        Some(Frame::Map {
                            offset,
                            entries,
                            anchor,
                            ..
                        }) => (
                            Node {
                                offset,
                                value: Value::Object(entries),
                            },
                            anchor,
                        ),
                        None => {
                            return Err(self.error(
                                "syntax-error",
                                "unbalanced YAML events",
                                offset,
                            ));
                        }
                    };
                    self.complete(node, anchor, None)?;
                }
                Event::Alias(id) => {
                    let node = self.anchors.get(&id).cloned().ok_or_else(|| {
                        self.error("syntax-error", "an alias to an unknown anchor", offset)
                    })?;
                    self.nodes += count(&node);
                    if self.nodes > self.budget {
                        let message = format!(
                            "alias expansion exceeds {} values; the document is too large once aliases are expanded",
                            self.budget
                        );
                        return Err(self.error("too-large", message, offset));
                    }
                    let node = Node { offset, ..node };
                    self.complete(node, 0, None)?;
                }
                Event::StreamStart | Event::StreamEnd | Event::DocumentEnd | Event::Nothing => {}
            }
        }
        self.root.take().ok_or_else(|| {
            Diagnostic::error(
                "syntax-error",
                "empty document: a file holds one component",
                "",
                Some(0),
            )
        })
    }

    /// A container starts: it may not be a key, nor nest too deep.
    fn open(&mut self, offset: u32) -> Result<(), Diagnostic> {
        if let Some(Frame::Map { key: None, .. }) = self.stack.last() {
            return Err(self.error(
                "syntax-error",
                "complex mapping keys (a list or mapping used as a key) are not supported",
                offset,
            ));
        }
        if self.stack.len() >= MAX_DEPTH {
            return Err(self.error(
                "too-deep",
                format!("the document nests lists and mappings more than {MAX_DEPTH} levels deep"),
                offset,
            ));
        }
        self.depth = self.depth.max(self.stack.len() + 1);
        Ok(())
    }

    /// A value is complete: attach it to its parent (as a key or a value).
    fn complete(&mut self, node: Node, anchor: usize, raw: Option<&str>) -> Result<(), Diagnostic> {
        self.nodes += 1;
        if anchor > 0 {
            self.anchors.insert(anchor, node.clone());
        }
        let pointer_if_duplicate = match self.stack.last_mut() {
            Some(Frame::Map {
                key: None,
                entries,
                keys,
                ..
            }) => {
                let key = match (&node.value, raw) {
                    (Value::Str(s), _) => s.clone(),
                    (_, Some(raw)) => raw.to_owned(),
                    _ => {
                        return Err(self.error(
                            "syntax-error",
                            "complex mapping keys are not supported",
                            node.offset,
                        ));
                    }
                };
                let duplicate = keys.contains(entries, &key);
                Some((key, duplicate))
            }
            _ => None,
        };
        match (self.stack.last_mut(), pointer_if_duplicate) {
            (None, _) => self.root = Some(node),
            (Some(Frame::Seq { items, .. }), _) => items.push(node),
            (Some(Frame::Map { key: slot, .. }), Some((key, duplicate))) => {
                *slot = Some((key.clone(), node.offset));
                if duplicate {
                    let message = format!("the key `{key}` appears twice in the same mapping");
                    return Err(self.error("duplicate-key", message, node.offset));
                }
            }
            (Some(Frame::Map { entries, key, .. }), None) => {
                let (key, key_offset) = key.take().expect("a key precedes every mapping value");
                entries.push(Entry {
                    key,
                    key_offset,
                    value: node,
                });
            }
        }
        Ok(())
    }
}

fn count(node: &Node) -> usize {
    let mut n = 0;
    let mut stack = vec![node];
    while let Some(node) = stack.pop() {
        n += 1;
        match &node.value {
            Value::Array(items) => stack.extend(items),
            Value::Object(entries) => stack.extend(entries.iter().map(|e| &e.value)),
            _ => {}
        }
    }
    n
}

fn tag_name(tag: &Tag) -> String {
    format!("{}{}", tag.handle, tag.suffix)
}

/// The value of a scalar: quoted and block scalars are strings; plain ones resolve by
/// the core schema; explicit standard tags are honoured.
fn resolve(text: &str, style: ScalarStyle, tag: Option<&Tag>) -> Option<Value> {
    if let Some(tag) = tag {
        let standard = tag.handle == "tag:yaml.org,2002:" || tag.handle == "!!";
        if standard {
            let plain = resolve_plain(text);
            return match tag.suffix.as_str() {
                "str" => Some(Value::Str(text.to_owned())),
                "null" => matches!(plain, Value::Null).then_some(Value::Null),
                "bool" => matches!(plain, Value::Bool(_)).then_some(plain),
                "int" => matches!(plain, Value::Int(_) | Value::UInt(_)).then_some(plain),
                "float" => match plain {
                    Value::Int(i) => Some(Value::Float(i as f64)),
                    Value::Float(_) => Some(plain),
                    _ => None,
                },
                _ => Some(Value::Str(text.to_owned())),
            };
        }
    }
    Some(match style {
        ScalarStyle::Plain => resolve_plain(text),
        _ => Value::Str(text.to_owned()),
    })
}

fn resolve_plain(text: &str) -> Value {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Value::Float(f64::INFINITY);
        }
        "-.inf" | "-.Inf" | "-.INF" => return Value::Float(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => return Value::Float(f64::NAN),
        _ => {}
    }
    let bytes = text.as_bytes();
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    if !unsigned.is_empty() && unsigned.bytes().all(|b| b.is_ascii_digit()) {
        if let Ok(i) = text.parse::<i64>() {
            return Value::Int(i);
        }
        if let Ok(u) = unsigned.parse::<u64>()
            && bytes[0] != b'-'
        {
            return Value::UInt(u);
        }
        return text
            .parse::<f64>()
            .map_or_else(|_| Value::Str(text.to_owned()), Value::Float);
    }
    for (prefix, radix) in [("0x", 16), ("0o", 8)] {
        if let Some(digits) = text.strip_prefix(prefix)
            && !digits.is_empty()
            && let Ok(u) = u64::from_str_radix(digits, radix)
        {
            return i64::try_from(u).map_or(Value::UInt(u), Value::Int);
        }
    }
    let float_chars = unsigned
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'));
    let has_digit = unsigned.bytes().any(|b| b.is_ascii_digit());
    let starts_well = unsigned.starts_with(|c: char| c.is_ascii_digit() || c == '.');
    if float_chars
        && has_digit
        && starts_well
        && let Ok(f) = text.parse::<f64>()
    {
        return Value::Float(f);
    }
    Value::Str(text.to_owned())
}

/// What the writer is inside of.
struct Level {
    is_map: bool,
    indent: usize,
    count: usize,
    /// The container started right after `- `: its first entry goes on that line.
    inline: bool,
    /// Written when the container ends empty.
    empty: &'static str,
}

/// Writes block-style YAML, as PyYAML's `safe_dump(sort_keys=False)` lays it out.
#[derive(Default)]
pub struct YamlWriter {
    out: String,
    levels: Vec<Level>,
    after_key: bool,
}

impl YamlWriter {
    /// An empty writer.
    pub fn new() -> Self {
        YamlWriter::default()
    }

    /// The text written, ending with a newline.
    pub fn finish(mut self) -> String {
        if !self.out.ends_with('\n') {
            self.out.push('\n');
        }
        self.out
    }

    fn line(&mut self, indent: usize) {
        if !self.out.is_empty() {
            self.out.push('\n');
        }
        for _ in 0..indent {
            self.out.push(' ');
        }
    }

    /// Positions the writer for a value, returning the indent of a container started there
    /// and whether it starts after `- `.
    fn place(&mut self) -> (usize, bool, bool) {
        if self.after_key {
            self.after_key = false;
            let indent = self.levels.last().map_or(0, |l| l.indent);
            return (indent, false, true);
        }
        match self.levels.last_mut() {
            Some(level) if !level.is_map => {
                let (indent, first_inline) = (level.indent, level.count == 0 && level.inline);
                level.count += 1;
                if first_inline {
                    self.out.push_str("- ");
                } else {
                    self.line(indent);
                    self.out.push_str("- ");
                }
                (indent + 2, true, false)
            }
            _ => (0, false, false),
        }
    }

    fn scalar(&mut self, text: &str) {
        let (_, _, after_key) = self.place();
        if after_key {
            self.out.push(' ');
        }
        self.out.push_str(text);
    }

    fn begin(&mut self, is_map: bool) {
        let (indent, inline, after_key) = self.place();
        let indent = match (after_key, is_map) {
            (true, true) => indent + 2,
            _ => indent,
        };
        let empty = match (after_key, is_map) {
            (true, true) => " {}",
            (true, false) => " []",
            (false, true) => "{}",
            (false, false) => "[]",
        };
        self.levels.push(Level {
            is_map,
            indent,
            count: 0,
            inline,
            empty,
        });
    }

    fn end(&mut self) {
        if let Some(level) = self.levels.pop()
            && level.count == 0
        {
            self.out.push_str(level.empty);
        }
    }

    fn string(&mut self, s: &str) -> String {
        if plain_is_safe(s) {
            s.to_owned()
        } else {
            double_quoted(s)
        }
    }
}

impl Sink for YamlWriter {
    fn begin_object(&mut self) {
        self.begin(true);
    }
    fn key(&mut self, key: &str) {
        let key = self.string(key);
        let Some(level) = self.levels.last_mut() else {
            return;
        };
        let (indent, first_inline) = (level.indent, level.count == 0 && level.inline);
        level.count += 1;
        if !first_inline {
            self.line(indent);
        }
        self.out.push_str(&key);
        self.out.push(':');
        self.after_key = true;
    }
    fn end_object(&mut self) {
        self.end();
    }
    fn begin_array(&mut self) {
        self.begin(false);
    }
    fn end_array(&mut self) {
        self.end();
    }
    fn null(&mut self) {
        self.scalar("null");
    }
    fn bool(&mut self, value: bool) {
        self.scalar(if value { "true" } else { "false" });
    }
    fn i64(&mut self, value: i64) {
        self.scalar(&value.to_string());
    }
    fn u64(&mut self, value: u64) {
        self.scalar(&value.to_string());
    }
    fn f64(&mut self, value: f64) {
        let text = if value.is_nan() {
            ".nan".to_owned()
        } else if value.is_infinite() {
            if value > 0.0 { ".inf" } else { "-.inf" }.to_owned()
        } else {
            python_float(value)
        };
        self.scalar(&text);
    }
    fn str(&mut self, value: &str) {
        let text = self.string(value);
        self.scalar(&text);
    }
}

/// Whether `s` can be written as a plain scalar and read back as the same string, by us,
/// by YAML 1.2 readers and by PyYAML (YAML 1.1 booleans and numbers).
fn plain_is_safe(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    if first.is_whitespace()
        || s.ends_with(char::is_whitespace)
        || "-?:,[]{}#&*!|>'\"%@`".contains(first)
    {
        return false;
    }
    if s.contains(": ")
        || s.contains(" #")
        || s.ends_with(':')
        || s.chars().any(|c| c.is_control() || c == '\u{feff}')
    {
        return false;
    }
    let lower = s.to_ascii_lowercase();
    if matches!(
        lower.as_str(),
        "null"
            | "~"
            | "true"
            | "false"
            | "yes"
            | "no"
            | "on"
            | "off"
            | ".inf"
            | "+.inf"
            | "-.inf"
            | ".nan"
    ) {
        return false;
    }
    // Anything number-like (YAML 1.1 also reads 1_000, 1:20, dates and 0b101) is quoted.
    let number_like = s.starts_with(|c: char| c.is_ascii_digit() || c == '+' || c == '.')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "._:+-".contains(c));
    !number_like
        && !matches!(
            resolve_plain(s),
            Value::Null | Value::Bool(_) | Value::Int(_) | Value::UInt(_) | Value::Float(_)
        )
}

fn double_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{feff}' => out.push_str("\\ufeff"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{node_to_value, write_value};

    fn yaml_of(value: &serde_json::Value) -> String {
        let mut w = YamlWriter::new();
        write_value(value, &mut w);
        w.finish()
    }

    #[test]
    fn writes_pyyaml_block_layout() {
        let value = serde_json::json!({
            "component_type": "Flow", "metadata": {}, "inputs": [{"title": "city", "type": "string"}],
            "nodes": [], "pair": [[1, 2.5], {"a": null}], "nested": {"x": {"y": true}},
        });
        let expected = "component_type: Flow\nmetadata: {}\ninputs:\n- title: city\n  type: string\nnodes: []\npair:\n- - 1\n  - 2.5\n- a: null\nnested:\n  x:\n    y: true\n";
        assert_eq!(yaml_of(&value), expected);
    }

    #[test]
    fn tricky_strings_read_back_unchanged() {
        let strings = [
            "",
            " a",
            "a ",
            "a: b",
            "- x",
            "yes",
            "NULL",
            "1e3",
            "0x1F",
            "#c",
            "a #b",
            "multi\nline",
            "tab\tx",
            "ünï",
            "'q'",
            "\"dq\"",
            "~",
            "@x",
            "%y",
            "`z",
            "12",
            "1.5",
            "2026-01-01",
            "1_000",
            "on",
            "key:",
            "{{ city }}",
            "[x]",
            "http://a.b/c?d=e",
            "a\\b",
            "\u{7}",
        ];
        for s in strings {
            let value = serde_json::json!({ s: [s, {s: s}] });
            let text = yaml_of(&value);
            let back =
                node_to_value(parse_yaml(&text).unwrap_or_else(|e| panic!("{s:?}: {text}: {e:?}")));
            assert_eq!(back, value, "{s:?} written as {text}");
        }
    }

    #[test]
    fn resolves_plain_scalars_by_the_core_schema() {
        let node = parse_yaml("a: 1\nb: -2.5\nc: true\nd: ~\ne: '1'\nf: 0x10\ng: .inf\nh: hello world\ni: 1e3\nj: !!str 12\n").unwrap();
        let value = node_to_value(node);
        assert_eq!(value["a"], 1);
        assert_eq!(value["b"], -2.5);
        assert_eq!(value["c"], true);
        assert!(value["d"].is_null());
        assert_eq!(value["e"], "1");
        assert_eq!(value["f"], 16);
        assert!(value["g"].is_null(), "infinity is not JSON");
        assert_eq!(value["h"], "hello world");
        assert_eq!(value["i"], 1000.0);
        assert_eq!(value["j"], "12");
    }

    #[test]
    fn reports_errors_with_offsets() {
        let d = parse_yaml("a: 1\nb: [1, 2\n").unwrap_err().remove(0);
        assert_eq!(d.code, "syntax-error");
        let d = parse_yaml("a:\n  x: 1\n  x: 2\n").unwrap_err().remove(0);
        assert_eq!(
            (d.code, d.offset, d.pointer.as_str()),
            ("duplicate-key", Some(12), "/a/x")
        );
        let d = parse_yaml("a: 1\n---\nb: 2\n").unwrap_err().remove(0);
        assert_eq!(d.code, "syntax-error");
        assert_eq!(parse_yaml("").unwrap_err()[0].code, "syntax-error");
        assert_eq!(
            parse_yaml("? [a]\n: 1\n").unwrap_err()[0].code,
            "syntax-error"
        );
    }

    #[test]
    fn rejects_duplicate_keys_in_large_mappings() {
        let mut text: String = (0..40).map(|i| format!("k{i}: {i}\n")).collect();
        assert!(parse_yaml(&text).is_ok());
        text.push_str("k39: again\n");
        let d = parse_yaml(&text).unwrap_err().remove(0);
        assert_eq!((d.code, d.pointer.as_str()), ("duplicate-key", "/k39"));
    }

    #[test]
    fn offsets_count_bytes_after_non_ascii() {
        let node = parse_yaml("é: ü\nb: 2\n").unwrap();
        let Value::Object(entries) = node.value else {
            panic!()
        };
        assert_eq!((entries[1].key_offset, entries[1].value.offset), (7, 10));
    }

    #[test]
    fn expands_aliases_within_a_budget() {
        let value = node_to_value(parse_yaml("a: &x {k: 1}\nb: *x\n").unwrap());
        assert_eq!(value["b"]["k"], 1);
        let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            bomb.push_str(&format!("a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n", p = i - 1));
        }
        assert_eq!(parse_yaml(&bomb).unwrap_err()[0].code, "too-large");
    }

    #[test]
    fn reports_the_nesting_depth() {
        assert_eq!(parse_yaml_with_depth("a:\n  b:\n  - c: 1\n").unwrap().1, 4);
        assert_eq!(
            parse_yaml_with_depth("x: &x {k: [1]}\ny: {z: *x}\n")
                .unwrap()
                .1,
            4
        );
        assert_eq!(parse_yaml_with_depth("plain").unwrap().1, 0);
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = format!(
            "{}{}",
            "[".repeat(MAX_DEPTH + 100),
            "]".repeat(MAX_DEPTH + 100)
        );
        assert_eq!(parse_yaml(&deep).unwrap_err()[0].code, "too-deep");
        let mut block = String::new();
        for i in 0..(MAX_DEPTH + 100) {
            block.push_str(&" ".repeat(i));
            block.push_str("k:\n");
        }
        assert_eq!(parse_yaml(&block).unwrap_err()[0].code, "too-deep");
    }
}
