//! YAML: a reader into the located source [`tree`](crate::syntax::tree) (on saphyr-parser's event
//! stream, which is a state machine, so deep documents cannot overflow the stack), and a
//! block-style writer in the layout of PyYAML's `safe_dump(sort_keys=False)`.

use std::collections::HashMap;
use std::fmt::Write as _;

use saphyr_parser::{Event, Parser, ScalarStyle, Tag};

use crate::diagnostic::{Diagnostic, push_pointer_token};
use crate::syntax::json::{KeySet, imprecise_integer, python_float};
use crate::syntax::sink::Sink;
use crate::syntax::tree::{Entry, Key, MAX_DEPTH, NON_FINITE, Node, Value};

enum Frame {
    Seq {
        offset: u32,
        items: Vec<Node>,
        anchor: usize,
    },
    Map {
        offset: u32,
        entries: Vec<Entry>,
        key: Option<(Key, u32)>,
        keys: KeySet,
        anchor: usize,
    },
}

/// Maps saphyr's character indices to byte offsets, walking forward.
struct Offsets<'a> {
    src: &'a str,
    /// The source is ASCII: a character index is its byte offset.
    ascii: bool,
    chars: usize,
    bytes: usize,
}

impl<'a> Offsets<'a> {
    fn new(src: &'a str) -> Self {
        Offsets {
            src,
            ascii: src.is_ascii(),
            chars: 0,
            bytes: 0,
        }
    }

    fn byte(&mut self, char_index: usize) -> u32 {
        if self.ascii {
            return char_index.min(self.src.len()) as u32;
        }
        if char_index < self.chars {
            self.chars = 0;
            self.bytes = 0;
        }
        let rest = &self.src[self.bytes..];
        let n = char_index - self.chars;
        // ASCII text (most of a document) has as many bytes as characters
        let step: usize = match rest.as_bytes().get(..n) {
            Some(head) if head.is_ascii() => n,
            _ => rest.chars().take(n).map(char::len_utf8).sum(),
        };
        self.chars = char_index;
        self.bytes += step;
        self.bytes as u32
    }
}

/// Where an anchored value is: a scalar, kept; a list or mapping, by its path in the tree
/// (kept by reference, not copied: a value is copied only when an alias uses it). The path
/// is an entry of [`Builder::paths`], which nested anchors share their common part of.
enum Anchored {
    Scalar(Node),
    At(u32),
}

/// The empty path, in [`Builder::paths`].
const NO_PATH: u32 = u32::MAX;

/// The size of a value for the alias budget: one per value, plus one per 64 bytes of
/// string, so that a long string aliased many times counts as what it copies.
fn weight(value: &Value) -> usize {
    match value {
        Value::Str(s) => 1 + s.len() / 64,
        _ => 1,
    }
}

struct Builder<'a> {
    stack: Vec<Frame>,
    /// `imprecise-integer` warnings.
    warnings: Vec<Diagnostic>,
    /// The size ([`weight`]s) of each open list or mapping so far, itself included.
    sizes: Vec<usize>,
    /// Anchored values by anchor id, with their size.
    anchors: HashMap<usize, (Anchored, usize)>,
    /// Paths into the tree, each the path of its parent entry (or [`NO_PATH`]) plus an
    /// index: one entry per list or mapping an anchor is in, so that nested anchors take
    /// memory linear in their number, not in their number times their depth.
    paths: Vec<(u32, u32)>,
    /// The path entry of each open list or mapping (parallel to `stack`), once an anchor
    /// inside it needed one.
    frame_paths: Vec<Option<u32>>,
    /// Emptied lists of closed lists and mappings, kept for the next ones to fill: each
    /// closed one is moved into a list of its exact size, and no list grows item by item.
    spare_items: Vec<Vec<Node>>,
    spare_entries: Vec<Vec<Entry>>,
    /// Values of the tree built so far, aliases expanded.
    nodes: usize,
    /// Values written in the source (aliases not expanded).
    source_nodes: usize,
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
    parse_yaml_with_depth(src).map(|(node, ..)| node)
}

/// [`parse_yaml`], also returning the deepest nesting of lists and mappings.
/// (and the `imprecise-integer` warnings)
pub(crate) fn parse_yaml_with_depth(
    src: &str,
) -> Result<(Node, usize, Vec<Diagnostic>), Vec<Diagnostic>> {
    let mut b = Builder {
        stack: Vec::new(),
        warnings: Vec::new(),
        sizes: Vec::new(),
        anchors: HashMap::new(),
        paths: Vec::new(),
        frame_paths: Vec::new(),
        spare_items: Vec::new(),
        spare_entries: Vec::new(),
        nodes: 0,
        source_nodes: 0,
        offsets: Offsets::new(src),
        root: None,
        depth: 0,
    };
    let node = b.run(src).map_err(|d| vec![d])?;
    // Aliases copy whole subtrees, which the event count does not see: measure.
    let depth = if b.anchors.is_empty() {
        b.depth
    } else {
        super::depth_of(&node)
    };
    Ok((node, depth, b.warnings))
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
                    let is_key = matches!(self.stack.last(), Some(Frame::Map { key: None, .. }));
                    let digits = text.strip_prefix(['-', '+']).unwrap_or(&text);
                    let all_digits =
                        !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
                    if is_key && anchor == 0 && tag.is_none() && !all_digits {
                        // a key is its source text, whatever it would resolve to: read
                        // without making a value (nor a string) of it
                        let size = 1 + text.len() / 64;
                        self.source_nodes += size;
                        self.nodes += 1;
                        if let Some(open) = self.sizes.last_mut() {
                            *open += size;
                        }
                        self.key(Key::new(&text), offset)?;
                        continue;
                    }
                    // a key's source text, for a key that is not a string (rare: the scalar
                    // itself is moved into its value)
                    let raw = is_key.then(|| text.to_string());
                    let length = text.len();
                    let value = resolve(text, style, tag.as_deref()).ok_or_else(|| {
                        self.error(
                            "syntax-error",
                            // the scalar is not repeated: it may be a secret
                            format!(
                                "the value does not fit its tag {}",
                                tag.as_deref().map(tag_name).unwrap_or_default()
                            ),
                            offset,
                        )
                    })?;
                    if !is_key && matches!(value, Value::Float(f) if !f.is_finite()) {
                        return Err(self.error("non-finite-number", NON_FINITE, offset));
                    }
                    if matches!(value, Value::Float(_)) && style == ScalarStyle::Plain && all_digits
                    {
                        let warning = imprecise_integer(length, self.pointer(), offset as usize);
                        self.warnings.push(warning);
                    }
                    let size = weight(&value);
                    self.source_nodes += size;
                    self.complete(Node { offset, value }, size, anchor, raw.as_deref())?;
                }
                Event::SequenceStart(anchor, _) => {
                    self.open(offset)?;
                    self.source_nodes += 1;
                    self.sizes.push(1);
                    self.frame_paths.push(None);
                    self.stack.push(Frame::Seq {
                        offset,
                        items: self.spare_items.pop().unwrap_or_default(),
                        anchor,
                    });
                }
                Event::MappingStart(anchor, _) => {
                    self.open(offset)?;
                    self.source_nodes += 1;
                    self.sizes.push(1);
                    self.frame_paths.push(None);
                    self.stack.push(Frame::Map {
                        offset,
                        entries: self.spare_entries.pop().unwrap_or_default(),
                        key: None,
                        keys: KeySet::default(),
                        anchor,
                    });
                }
                Event::SequenceEnd | Event::MappingEnd => self.close(offset)?,
                Event::Alias(id) => self.alias(id, offset)?,
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

    /// The innermost list or mapping ends.
    fn close(&mut self, offset: u32) -> Result<(), Diagnostic> {
        self.frame_paths.pop();
        let (node, anchor) = match self.stack.pop() {
            Some(Frame::Seq {
                offset,
                mut items,
                anchor,
            }) => {
                let value = Value::Array(exact_size(&mut items));
                self.spare_items.push(items);
                (Node { offset, value }, anchor)
            }
            Some(Frame::Map {
                offset,
                mut entries,
                anchor,
                ..
            }) => {
                let value = Value::Object(exact_size(&mut entries));
                self.spare_entries.push(entries);
                (Node { offset, value }, anchor)
            }
            None => {
                return Err(self.error("syntax-error", "unbalanced YAML events", offset));
            }
        };
        let size = self.sizes.pop().unwrap_or(1);
        self.complete(node, size, anchor, None)
    }

    /// The anchored value at the path entry `path` (see [`Anchored::At`]).
    fn anchored(&self, path: u32) -> Option<&Node> {
        let mut indices = Vec::new();
        let mut at = path;
        while let Some(&(parent, index)) = self.paths.get(at as usize) {
            indices.push(index);
            at = parent;
        }
        indices.reverse();
        self.anchored_at(&indices)
    }

    /// The length of the open list or mapping at `k` (where its next value goes).
    fn open_len(&self, k: usize) -> u32 {
        match &self.stack[k] {
            Frame::Seq { items, .. } => items.len() as u32,
            Frame::Map { entries, .. } => entries.len() as u32,
        }
    }

    /// The path entry of the value about to be attached to the innermost open list or
    /// mapping: the open ones get theirs first, each at most once while it is open.
    fn path_of_next(&mut self) -> u32 {
        let Some(top) = self.stack.len().checked_sub(1) else {
            return NO_PATH;
        };
        let known = (0..=top).rev().find(|&k| self.frame_paths[k].is_some());
        let start = known.map_or(0, |k| k + 1);
        // the outermost open one is the root: its path is empty
        let mut parent = known.and_then(|k| self.frame_paths[k]).unwrap_or(NO_PATH);
        for k in start..=top {
            if k > 0 {
                let entry = (parent, self.open_len(k - 1));
                parent = self.push_path(entry);
            }
            self.frame_paths[k] = Some(parent);
        }
        let entry = (parent, self.open_len(top));
        self.push_path(entry)
    }

    fn push_path(&mut self, entry: (u32, u32)) -> u32 {
        self.paths.push(entry);
        (self.paths.len() - 1) as u32
    }

    /// The value at `path` (its index in each list or mapping): down the open lists and
    /// mappings while the path leads into the one being read, then down the completed values.
    fn anchored_at(&self, path: &[u32]) -> Option<&Node> {
        fn child(value: &Value, i: usize) -> Option<&Node> {
            match value {
                Value::Array(items) => items.get(i),
                Value::Object(entries) => entries.get(i).map(|e| &e.value),
                _ => None,
            }
        }
        let mut k = 0;
        loop {
            let i = *path.get(k)? as usize;
            let (len, node) = match self.stack.get(k)? {
                Frame::Seq { items, .. } => (items.len(), items.get(i)),
                Frame::Map { entries, .. } => (entries.len(), entries.get(i).map(|e| &e.value)),
            };
            if i == len && k + 1 < self.stack.len() {
                k += 1;
                continue;
            }
            let mut node = node?;
            for &j in &path[k + 1..] {
                node = child(&node.value, j as usize)?;
            }
            return Some(node);
        }
    }

    /// An alias: a copy of its anchored value, within the expansion budget (ten times the
    /// values written in the source so far, plus 10,000).
    fn alias(&mut self, id: usize, offset: u32) -> Result<(), Diagnostic> {
        let Some((_, size)) = self.anchors.get(&id) else {
            return Err(self.error("syntax-error", "an alias to an unknown anchor", offset));
        };
        let budget = self.source_nodes.saturating_mul(10).saturating_add(10_000);
        // `complete` counts the copied value itself.
        let total = self.nodes.saturating_add(*size);
        if total > budget {
            let message = format!(
                "alias expansion exceeds {budget} values (ten times the {} values of the source, plus 10000)",
                self.source_nodes
            );
            return Err(self.error("too-large", message, offset));
        }
        let size = *size;
        self.nodes += size - 1;
        let value = match self.anchors.get(&id) {
            Some((Anchored::Scalar(node), _)) => Some(node.value.clone()),
            Some((Anchored::At(path), _)) => self.anchored(*path).map(|n| n.value.clone()),
            None => None,
        };
        match value {
            Some(value) => self.complete(Node { offset, value }, size, 0, None),
            None => Err(self.error("syntax-error", "an alias to an unknown anchor", offset)),
        }
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

    /// The key of the entry being read in the innermost mapping is `key`.
    fn key(&mut self, key: Key, offset: u32) -> Result<(), Diagnostic> {
        let Some(Frame::Map {
            entries,
            key: pending,
            keys,
            ..
        }) = self.stack.last_mut()
        else {
            return Ok(());
        };
        // the message is built only for a duplicate; the pending key is set first, as the
        // error's pointer names it
        let duplicate = keys
            .is_duplicate(entries, &key)
            .then(|| format!("the key `{key}` appears twice in the same mapping"));
        *pending = Some((key, offset));
        match duplicate {
            Some(message) => Err(self.error("duplicate-key", message, offset)),
            None => Ok(()),
        }
    }

    /// A value is complete: attach it to its parent (as a key or a value).
    /// `size` is the value's [`weight`], its contents included.
    fn complete(
        &mut self,
        node: Node,
        size: usize,
        anchor: usize,
        raw: Option<&str>,
    ) -> Result<(), Diagnostic> {
        self.nodes += 1;
        if let Some(open) = self.sizes.last_mut() {
            *open += size;
        }
        if anchor > 0 {
            let container = matches!(node.value, Value::Array(_) | Value::Object(_));
            let anchored = if container {
                // where it is about to be attached: the index of the value being read in
                // every open list or mapping
                Anchored::At(self.path_of_next())
            } else {
                Anchored::Scalar(node.clone())
            };
            self.anchors.insert(anchor, (anchored, size));
        }
        let Some(frame) = self.stack.last_mut() else {
            self.root = Some(node);
            return Ok(());
        };
        match frame {
            Frame::Seq { items, .. } => items.push(node),
            Frame::Map { key: None, .. } => {
                // A key: a string, or the source text of another scalar.
                let key = match (node.value, raw) {
                    (Value::Str(s), _) => Key::from(s),
                    (Value::Array(_) | Value::Object(_), _) | (_, None) => {
                        let message = "complex mapping keys (a list or mapping used as a key) are not supported";
                        return Err(self.error("syntax-error", message, node.offset));
                    }
                    (_, Some(raw)) => Key::new(raw),
                };
                self.key(key, node.offset)?;
            }
            Frame::Map {
                entries,
                key: pending,
                ..
            } => {
                // The arm above leaves the pending key, so it is `Some` here.
                let (key, key_offset) = pending.take().unwrap_or_default();
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

fn tag_name(tag: &Tag) -> String {
    format!("{}{}", tag.handle, tag.suffix)
}

/// The value of a scalar: quoted and block scalars are strings; plain ones resolve by
/// the core schema; explicit standard tags are honoured.
/// A string the parser made is moved into its value, not copied.
fn resolve(
    text: std::borrow::Cow<'_, str>,
    style: ScalarStyle,
    tag: Option<&Tag>,
) -> Option<Value> {
    if let Some(tag) = tag {
        let standard = tag.handle == "tag:yaml.org,2002:" || tag.handle == "!!";
        if standard {
            let plain = resolve_plain(&text);
            return match tag.suffix.as_str() {
                "str" => Some(Value::Str(owned(text))),
                "null" => matches!(plain, Value::Null).then_some(Value::Null),
                "bool" => matches!(plain, Value::Bool(_)).then_some(plain),
                "int" => matches!(plain, Value::Int(_) | Value::UInt(_)).then_some(plain),
                "float" => match plain {
                    Value::Int(i) => Some(Value::Float(i as f64)),
                    Value::Float(_) => Some(plain),
                    _ => None,
                },
                _ => Some(Value::Str(owned(text))),
            };
        }
    }
    Some(match style {
        ScalarStyle::Plain => resolve_plain_other(&text).unwrap_or(Value::Str(owned(text))),
        _ => Value::Str(owned(text)),
    })
}

/// A scalar's text as a string of its own: the parser's string moved, or a copy of a slice
/// of the source. The parser's strings start at 32 bytes and double: spare capacity is
/// given back only when it is both more than 32 bytes and more than half the text, so short
/// strings are not reallocated one by one and none keeps more than that spare.
fn owned(text: std::borrow::Cow<'_, str>) -> String {
    let mut s = text.into_owned();
    let spare = s.capacity() - s.len();
    if spare > 32 && spare > s.len() / 2 {
        s.shrink_to_fit();
    }
    s
}

/// The value of a plain scalar by the core schema.
fn resolve_plain(text: &str) -> Value {
    resolve_plain_other(text).unwrap_or_else(|| Value::Str(text.to_owned()))
}

/// [`resolve_plain`] when the scalar is not a string (`None`: a string, `text` itself).
fn resolve_plain_other(text: &str) -> Option<Value> {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Some(Value::Null),
        "true" | "True" | "TRUE" => return Some(Value::Bool(true)),
        "false" | "False" | "FALSE" => return Some(Value::Bool(false)),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Some(Value::Float(f64::INFINITY));
        }
        "-.inf" | "-.Inf" | "-.INF" => return Some(Value::Float(f64::NEG_INFINITY)),
        ".nan" | ".NaN" | ".NAN" => return Some(Value::Float(f64::NAN)),
        _ => {}
    }
    let bytes = text.as_bytes();
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    if !unsigned.is_empty() && unsigned.bytes().all(|b| b.is_ascii_digit()) {
        if let Ok(i) = text.parse::<i64>() {
            return Some(Value::Int(i));
        }
        if let Ok(u) = unsigned.parse::<u64>()
            && bytes[0] != b'-'
        {
            return Some(Value::UInt(u));
        }
        return text.parse::<f64>().ok().map(Value::Float);
    }
    for (prefix, radix) in [("0x", 16), ("0o", 8)] {
        if let Some(digits) = text.strip_prefix(prefix)
            && !digits.is_empty()
            && digits.bytes().all(|b| b.is_ascii_hexdigit())
            && let Ok(u) = u64::from_str_radix(digits, radix)
        {
            return Some(i64::try_from(u).map_or(Value::UInt(u), Value::Int));
        }
    }
    let float_chars = unsigned
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'));
    let has_digit = unsigned.bytes().any(|b| b.is_ascii_digit());
    let starts_well = unsigned.starts_with(|c: char| c.is_ascii_digit() || c == '.');
    if float_chars && has_digit && starts_well {
        return text.parse::<f64>().ok().map(Value::Float);
    }
    None
}

/// Keys written with this many characters or more are explicit (`? key`), as in PyYAML.
const LONG_KEY: usize = 128;

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
    after_key: AfterKey,
}

/// Whether a key was just written, and how.
#[derive(Default, Clone, Copy)]
enum AfterKey {
    #[default]
    No,
    /// `key:`
    Implicit,
    /// `? key` and `:` on the next line.
    Explicit,
}

/// Where the next value goes (indents are those of a container started there).
enum Place {
    /// The document itself.
    Top,
    /// After `- `.
    Item(usize),
    /// After `key:`.
    AfterKey(usize),
    /// After the `:` of an explicit key.
    AfterExplicitKey(usize),
}

impl YamlWriter {
    /// An empty writer.
    pub fn new() -> Self {
        YamlWriter::default()
    }

    /// The writer with room for `bytes` of text.
    pub fn with_capacity(mut self, bytes: usize) -> Self {
        self.out.reserve(bytes);
        self
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

    /// Positions the writer for a value.
    fn place(&mut self) -> Place {
        let after = std::mem::replace(&mut self.after_key, AfterKey::No);
        let indent = self.levels.last().map_or(0, |l| l.indent);
        match after {
            AfterKey::Implicit => return Place::AfterKey(indent),
            AfterKey::Explicit => return Place::AfterExplicitKey(indent + 2),
            AfterKey::No => {}
        }
        match self.levels.last_mut() {
            Some(level) if !level.is_map => {
                let first_inline = level.count == 0 && level.inline;
                level.count += 1;
                if !first_inline {
                    self.line(indent);
                }
                self.out.push_str("- ");
                Place::Item(indent + 2)
            }
            _ => Place::Top,
        }
    }

    fn scalar(&mut self, text: &str) {
        if let Place::AfterKey(_) | Place::AfterExplicitKey(_) = self.place() {
            self.out.push(' ');
        }
        self.out.push_str(text);
    }

    fn begin(&mut self, is_map: bool) {
        let empty = if is_map { "{}" } else { "[]" };
        // (indent, first entry on the current line, text when it ends empty)
        let (indent, inline, empty) = match self.place() {
            Place::Top => (0, false, empty),
            Place::Item(indent) => (indent, true, empty),
            // `key:` then a nested mapping indented, or a list at the key's indent.
            Place::AfterKey(indent) => {
                let indent = if is_map { indent + 2 } else { indent };
                let empty = if is_map { " {}" } else { " []" };
                (indent, false, empty)
            }
            // `: ` then the container's first entry on the same line.
            Place::AfterExplicitKey(indent) => {
                self.out.push(' ');
                (indent, true, empty)
            }
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
        // Like PyYAML, long keys are explicit (`? key` then `: value`): YAML limits
        // implicit keys to 1024 characters.
        if key.chars().count() >= LONG_KEY {
            self.out.push_str("? ");
            self.out.push_str(&key);
            self.line(indent);
            self.after_key = AfterKey::Explicit;
        } else {
            self.out.push_str(&key);
            self.after_key = AfterKey::Implicit;
        }
        self.out.push(':');
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
        // NaN and infinities as the JSON writer writes them (`null`): the loaders refuse
        // them, and validation reports them in a document built in code
        let text = if value.is_finite() {
            pyyaml_float(value)
        } else {
            "null".to_owned()
        };
        self.scalar(&text);
    }
    fn str(&mut self, value: &str) {
        let text = self.string(value);
        self.scalar(&text);
    }
}

/// A finite float as PyYAML writes it: Python's `repr`, with `.0` added to a mantissa
/// without a point (`1.0e-05`), since PyYAML reads `1e-05` as a string.
fn pyyaml_float(value: f64) -> String {
    let text = python_float(value);
    match text.split_once('e') {
        Some((mantissa, exponent)) if !mantissa.contains('.') => {
            format!("{mantissa}.0e{exponent}")
        }
        _ => text,
    }
}

/// Whether YAML may hold `c` unescaped (the `c-printable` set, line breaks excluded) and
/// no reader takes it for a line break or a byte-order mark.
fn printable(c: char) -> bool {
    matches!(c, '\t' | ' '..='~' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
        && !matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}')
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
        || s.contains('\t')
        || !s.chars().all(printable)
    {
        return false;
    }
    // PyYAML reads `=` as a "value" tag and `<<` as a merge key.
    if s == "=" || s == "<<" {
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
            c if !printable(c) => {
                // Writing into a `String` cannot fail.
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Moves the items of `buffer` into a list of their exact size, leaving `buffer` empty with
/// its capacity, to be reused for the next list.
fn exact_size<T>(buffer: &mut Vec<T>) -> Vec<T> {
    let mut exact = Vec::with_capacity(buffer.len());
    exact.append(buffer);
    exact
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::value::{node_to_value, write_value};

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
            "=",
            "<<",
            "a\u{2028}b",
            "\u{85}",
            "\u{feff}x",
            "1.0e-05",
            "+.5",
            "0o17",
            ".5",
            "-.inf",
            "Yes",
            "y",
            "null ",
            "x\u{fffe}",
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
    fn matches_pyyaml_floats_and_long_keys() {
        let long = "long".repeat(40);
        let value = serde_json::json!({
            "component_type": "Flow", "x": 1e-05, "y": 1e16, "z": 60.0, "n": -3,
            "list": [[], {}, [1, [2]], {"a": {"b": [null, true]}}],
            long.clone(): {"inner": [1]}, "e": {long.clone(): []}, "after": "ok",
        });
        // yaml.safe_dump(value, sort_keys=False) with PyYAML 6.0.3.
        let expected = format!(
            "component_type: Flow\nx: 1.0e-05\ny: 1.0e+16\nz: 60.0\nn: -3\nlist:\n- []\n- {{}}\n- - 1\n  - - 2\n- a:\n    b:\n    - null\n    - true\n? {long}\n: inner:\n  - 1\ne:\n  ? {long}\n  : []\nafter: ok\n"
        );
        assert_eq!(yaml_of(&value), expected);
        let value = serde_json::json!({long.clone(): [1, [2, 3], {"a": 1}], "b": {long.clone(): {"c": {"d": 1}}}});
        let expected = format!(
            "? {long}\n: - 1\n  - - 2\n    - 3\n  - a: 1\nb:\n  ? {long}\n  : c:\n      d: 1\n"
        );
        assert_eq!(yaml_of(&value), expected);
        assert_eq!(node_to_value(parse_yaml(&expected).unwrap()), value);
    }

    #[test]
    fn containers_and_numbers_read_back_unchanged() {
        let long = "k".repeat(2000);
        let value = serde_json::json!([
            {}, [], [[]], [{}], {"a": {}}, {"a": []}, {"a": [[], {}]}, [[[1]]],
            {"a": [{"b": [{"c": {}}]}]}, {long.clone(): {long.clone(): [long]}},
            [1e-05, 1e16, 60.0, -2.5, 5e-324, 1.7976931348623157e308, 0.1],
            [0, -1, i64::MIN, u64::MAX, true, false, null],
        ]);
        let text = yaml_of(&value);
        assert_eq!(node_to_value(parse_yaml(&text).unwrap()), value, "{text}");
        assert_eq!(yaml_of(&serde_json::json!({})), "{}\n");
        assert_eq!(yaml_of(&serde_json::json!("x")), "x\n");
    }

    fn yaml_error(src: &str) -> (&'static str, Option<usize>, String) {
        let d = parse_yaml(src).unwrap_err().remove(0);
        (d.code, d.offset, d.pointer)
    }

    #[test]
    fn reports_every_error_at_its_offset() {
        let cases = [
            ("a: 1\nb: [1, 2\n", "syntax-error", 14, "/b/2"),
            ("a:\n  x: 1\n  x: 2\n", "duplicate-key", 12, "/a/x"),
            ("a: 1\n---\nb: 2\n", "syntax-error", 5, ""),
            ("", "syntax-error", 0, ""),
            ("# only a comment\n", "syntax-error", 0, ""),
            ("? [a]\n: 1\n", "syntax-error", 2, ""),
            ("k: {[a]: 1}\n", "syntax-error", 4, "/k"),
            ("a: !!int x\n", "syntax-error", 3, "/a"),
            ("a: !!bool yes\n", "syntax-error", 3, "/a"),
            ("a: !!null 0\n", "syntax-error", 3, "/a"),
            ("a: !!float x\n", "syntax-error", 3, "/a"),
            ("a: *nope\n", "syntax-error", 3, "/a"),
            ("é: [ü, ]]\n", "syntax-error", 10, ""),
            ("a: b: c\n", "syntax-error", 4, ""),
            ("1: x\n1: y\n", "duplicate-key", 5, "/1"),
        ];
        for (src, code, offset, pointer) in cases {
            assert_eq!(
                yaml_error(src),
                (code, Some(offset), pointer.to_owned()),
                "{src:?}"
            );
        }
        let message = |src: &str| parse_yaml(src).unwrap_err().remove(0).message;
        assert_eq!(
            message("a: 1\n---\nb: 2\n"),
            "a file holds one document; found a second one"
        );
        assert_eq!(message(""), "empty document: a file holds one component");
        assert_eq!(
            message("? [a]\n: 1\n"),
            "complex mapping keys (a list or mapping used as a key) are not supported"
        );
    }

    #[test]
    fn honours_standard_tags() {
        let value = node_to_value(
            parse_yaml("a: !!int '7'\nb: !!float 1\nc: !!bool 'true'\nd: !!null ''\ne: !!str true\nf: !!int 0x1F\ng: !custom 3\n")
                .unwrap(),
        );
        assert_eq!(
            value,
            serde_json::json!({"a": 7, "b": 1.0, "c": true, "d": null, "e": "true", "f": 31, "g": 3})
        );
        let plain = node_to_value(
            parse_yaml("[0o17, 0x+1, +12, 1_000, 1., .5, 1e3, 12e, 9223372036854775808, 99999999999999999999, -9223372036854775809]").unwrap(),
        );
        assert_eq!(
            plain,
            serde_json::json!([
                15,
                "0x+1",
                12,
                "1_000",
                1.0,
                0.5,
                1000.0,
                "12e",
                9223372036854775808u64,
                1e20,
                -9223372036854775809.0
            ])
        );
    }

    #[test]
    fn integers_beyond_64_bits_are_reported() {
        let (_, _, warnings) = parse_yaml_with_depth(
            "a: 99999999999999999999\nb: '99999999999999999999'\nc: 1.5e300\n",
        )
        .unwrap();
        let found: Vec<(&str, &str)> = warnings
            .iter()
            .map(|d| (d.code, d.pointer.as_str()))
            .collect();
        assert_eq!(found, [("imprecise-integer", "/a")]);
        let (_, _, warnings) =
            crate::syntax::json::parse_json_with_depth("[1, -99999999999999999999, 2e30]").unwrap();
        let found: Vec<(&str, &str)> = warnings
            .iter()
            .map(|d| (d.code, d.pointer.as_str()))
            .collect();
        assert_eq!(found, [("imprecise-integer", "/1")]);
    }

    #[test]
    fn resolves_plain_scalars_by_the_core_schema() {
        let node = parse_yaml(
            "a: 1\nb: -2.5\nc: true\nd: ~\ne: '1'\nf: 0x10\nh: hello world\ni: 1e3\nj: !!str 12\n",
        )
        .unwrap();
        let value = node_to_value(node);
        assert_eq!(value["a"], 1);
        assert_eq!(value["b"], -2.5);
        assert_eq!(value["c"], true);
        assert!(value["d"].is_null());
        assert_eq!(value["e"], "1");
        assert_eq!(value["f"], 16);
        // NaN and infinities are not JSON: an error, never a silent null (a key is a string)
        for text in [
            "g: .inf",
            "g: -.INF",
            "g: .NaN",
            "[.nan]",
            "g: !!float .inf",
        ] {
            let err = parse_yaml(text).unwrap_err();
            assert_eq!(err[0].code, "non-finite-number", "{text}");
        }
        assert_eq!(node_to_value(parse_yaml(".inf: 1").unwrap())[".inf"], 1);
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
    fn offsets_are_bytes_in_ascii_and_non_ascii_sources() {
        let node = parse_yaml("é: ü\nb: 2\n").unwrap();
        let Value::Object(entries) = node.value else {
            panic!()
        };
        assert_eq!((entries[1].key_offset, entries[1].value.offset), (7, 10));
        // an ASCII source takes the short way: a character index is the byte offset
        let node = parse_yaml("a: 1\nbb:\n  - x\n").unwrap();
        let Value::Object(entries) = node.value else {
            panic!()
        };
        let Value::Array(items) = &entries[1].value.value else {
            panic!()
        };
        assert_eq!((entries[1].key_offset, items[0].offset), (5, 13));
    }

    #[test]
    fn short_strings_keep_the_parser_allocation_long_ones_are_trimmed() {
        let short = owned(std::borrow::Cow::Owned(
            String::with_capacity(32) + "LlmNode",
        ));
        assert_eq!((short.as_str(), short.capacity()), ("LlmNode", 32));
        let mut long = String::with_capacity(4096);
        long.push_str(&"x".repeat(1000));
        let long = owned(std::borrow::Cow::Owned(long));
        assert_eq!((long.len(), long.capacity()), (1000, 1000));
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
    fn aliases_copy_what_their_anchor_holds_wherever_it_is() {
        let yaml = "\
outer:
  inner: &deep {k: [1, {m: &s scalar}]}
  same: *deep
  list: [&l [a, b], *l]
later:
  again: *deep
  text: *s
  seq: *l
  nested: &n
    x: &y {z: 2}
    w: *y
  copy: *n
";
        let v = node_to_value(parse_yaml(yaml).unwrap());
        let deep = serde_json::json!({"k": [1, {"m": "scalar"}]});
        assert_eq!(v["outer"]["same"], deep);
        assert_eq!(v["outer"]["list"][1], serde_json::json!(["a", "b"]));
        assert_eq!(v["later"]["again"], deep);
        assert_eq!(v["later"]["text"], "scalar");
        assert_eq!(v["later"]["seq"], serde_json::json!(["a", "b"]));
        assert_eq!(v["later"]["nested"]["w"], serde_json::json!({"z": 2}));
        assert_eq!(
            v["later"]["copy"],
            serde_json::json!({"x": {"z": 2}, "w": {"z": 2}})
        );
    }

    #[test]
    fn anchors_are_kept_by_reference_and_long_strings_weigh_what_they_copy() {
        // 1,000 nested anchors, never aliased: nothing is copied (each was a copy of all
        // the levels inside it)
        let mut nested = String::new();
        for i in 0..1000 {
            nested.push_str(&" ".repeat(i));
            nested.push_str(&format!("k{i}: &a{i}\n"));
        }
        nested.push_str(&" ".repeat(1000));
        nested.push_str("end: 1\n");
        assert!(parse_yaml(&nested).is_ok());
        // a 1 MB string aliased 100 times is 100 MB: beyond the budget
        let big = "x".repeat(1 << 20);
        let mut copies = format!("a: &big {big}\nl:\n");
        for _ in 0..100 {
            copies.push_str("- *big\n");
        }
        assert_eq!(parse_yaml(&copies).unwrap_err()[0].code, "too-large");
        // aliased a few times, it is fine
        let few = format!("a: &big {big}\nl: [*big, *big]\n");
        assert!(parse_yaml(&few).is_ok());
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
