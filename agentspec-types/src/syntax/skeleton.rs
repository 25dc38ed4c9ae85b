//! The skeleton of a document: what its layout and the inference of what pyagentspec fills
//! in read, and nothing else (a small part of the document), in one flat arena that a writer
//! fills in one pass ([`SkeletonSink`]).
//!
//! Kept: the strings of `component_type`, `id`, `$component_ref` and
//! `component_plugin_name`; `inputs` and `outputs` when `null`; an empty `branches`; every
//! object and array that keeps something. Every other scalar is left out, and so is every
//! other container that keeps nothing. A secret written as a placeholder (secrets left out)
//! is a scalar left out, as the secret itself would be: the skeleton is the same whatever the
//! writer's options.
//!
//! The values are stored in written order, each container followed by its contents, with
//! every string in one buffer: building it allocates per document, not per value. When an
//! object ends, the facts the layout asks of it again and again (its id if it is a component,
//! the key it names if it is a reference, where its `$referenced_components` are) are kept
//! beside it.

use crate::syntax::sink::Sink;
use crate::syntax::view::{Kind, View};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NodeKind {
    Object,
    Array,
    Str,
    Null,
}

/// A part of a skeleton's text: from, to.
type Span = [u32; 2];

/// No value (an index that no skeleton reaches: it would need more than 4 GiB of slots).
const NONE: u32 = u32::MAX;

/// One value of a skeleton, in 40 bytes: a document's skeleton is a tenth of its tree.
#[derive(Debug, Clone)]
struct Slot {
    /// Its key in the object holding it (empty in an array, and for the root).
    key: Span,
    /// A string's text.
    text: Span,
    /// The index after the last value inside it (for a scalar, its own index plus one).
    end: u32,
    /// How many entries or items it holds.
    len: u32,
    /// Facts of an object: the index of its `id` when it is a component (with a string
    /// `component_type` and a string `id`), of its string `$component_ref` when that is its
    /// one entry, and of its `$referenced_components`; or [`NONE`].
    component_id: u32,
    reference: u32,
    referenced: u32,
    kind: NodeKind,
}

/// A document's skeleton (see the module's documentation).
#[derive(Debug, Default)]
pub(crate) struct Skeleton {
    slots: Vec<Slot>,
    text: String,
    /// The skeleton outgrew its 32-bit indices, and was not finished (no document that
    /// fits in memory gets there): it keeps nothing, and is [`Skeleton::complete`] no more.
    overflowed: bool,
}

impl Skeleton {
    /// The document's root: `null` when the skeleton keeps nothing.
    pub(crate) fn root(&self) -> Node<'_> {
        Node { sk: self, i: 0 }
    }

    /// Whether it holds all it should (see `overflowed`).
    pub(crate) fn complete(&self) -> bool {
        !self.overflowed
    }

    fn text(&self, span: Span) -> &str {
        &self.text[span[0] as usize..span[1] as usize]
    }

    /// The text of the string at `i`, or `None` for [`NONE`].
    fn string_at(&self, i: u32) -> Option<&str> {
        (i != NONE).then(|| self.text(self.slots[i as usize].text))
    }
}

/// A value of a [`Skeleton`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Node<'a> {
    sk: &'a Skeleton,
    i: u32,
}

impl<'a> Node<'a> {
    fn slot(self) -> &'a Slot {
        &self.sk.slots[self.i as usize]
    }

    fn key(self) -> &'a str {
        self.sk.text(self.slot().key)
    }
}

/// The values inside a container of a [`Skeleton`], in order.
pub(crate) struct Children<'a> {
    sk: &'a Skeleton,
    next: u32,
    end: u32,
}

impl<'a> Iterator for Children<'a> {
    type Item = (&'a str, Node<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        if self.next >= self.end {
            return None;
        }
        let node = Node {
            sk: self.sk,
            i: self.next,
        };
        self.next = node.slot().end;
        Some((node.key(), node))
    }
}

impl<'a> View<'a> for Node<'a> {
    fn kind(self) -> Kind<'a> {
        match self.slot().kind {
            NodeKind::Object => Kind::Object,
            NodeKind::Array => Kind::Array,
            NodeKind::Str => Kind::Str(self.sk.text(self.slot().text)),
            NodeKind::Null => Kind::Null,
        }
    }

    fn children(self) -> impl Iterator<Item = (&'a str, Self)> + 'a {
        let slot = self.slot();
        let end = match slot.kind {
            NodeKind::Object | NodeKind::Array => slot.end,
            NodeKind::Str | NodeKind::Null => self.i + 1,
        };
        Children {
            sk: self.sk,
            next: self.i + 1,
            end,
        }
    }

    fn len(self) -> usize {
        self.slot().len as usize
    }

    fn get(self, key: &str) -> Option<Self> {
        if self.slot().kind != NodeKind::Object {
            return None;
        }
        self.children().find(|(k, _)| *k == key).map(|(_, v)| v)
    }

    fn same(self, other: Self) -> bool {
        std::ptr::eq(self.sk, other.sk) && self.i == other.i
    }

    fn equal(self, other: Self) -> bool {
        if self.same(other) {
            return true;
        }
        let (a, b) = (self.slot(), other.slot());
        if a.kind != b.kind || a.len != b.len {
            return false;
        }
        match a.kind {
            NodeKind::Null => true,
            NodeKind::Str => self.sk.text(a.text) == other.sk.text(b.text),
            NodeKind::Array => self
                .children()
                .zip(other.children())
                .all(|((_, x), (_, y))| x.equal(y)),
            NodeKind::Object if a.len <= 16 => self
                .children()
                .all(|(k, x)| other.get(k).is_some_and(|y| x.equal(y))),
            NodeKind::Object => {
                let mut theirs: foldhash::HashMap<&str, Node<'_>> = Default::default();
                for (k, y) in other.children() {
                    theirs.entry(k).or_insert(y);
                }
                self.children()
                    .all(|(k, x)| theirs.get(k).is_some_and(|&y| x.equal(y)))
            }
        }
    }

    fn component_id(self) -> Option<&'a str> {
        self.sk.string_at(self.slot().component_id)
    }

    fn reference(self) -> Option<&'a str> {
        self.sk.string_at(self.slot().reference)
    }

    fn referenced_components(self) -> Option<Self> {
        let i = self.slot().referenced;
        (i != NONE).then_some(Node { sk: self.sk, i })
    }
}

/// Builds the [`Skeleton`] of what is written into it.
#[derive(Debug, Default)]
pub(crate) struct SkeletonSink {
    sk: Skeleton,
    /// Open containers: the index of each, and how many values it was offered.
    stack: Vec<(u32, usize)>,
    /// The key of the value written next (a buffer reused for every key).
    key: String,
    has_key: bool,
    /// The value written next is a secret's placeholder.
    placeholder_next: bool,
    /// How deep inside a placeholder the values written are (0: outside).
    in_placeholder: usize,
}

impl SkeletonSink {
    /// A sink with room for the skeleton of a document written in `len` bytes of text: one
    /// slot per 48 bytes and a fifth of the text (pyagentspec's layout keeps a slot per 55
    /// bytes and a quarter of its text), so that a large document's arena grows at most
    /// once instead of copying itself at every doubling.
    pub(crate) fn for_text(len: usize) -> Self {
        let mut sink = SkeletonSink::default();
        sink.sk.slots.reserve(len / 48);
        sink.sk.text.reserve(len / 5);
        sink
    }

    pub(crate) fn finish(mut self) -> Skeleton {
        if self.sk.overflowed {
            self.sk.slots.clear();
            self.sk.text.clear();
        }
        if self.sk.slots.is_empty() {
            self.push(NodeKind::Null, None);
        }
        self.sk
    }

    /// Whether the scalar about to be written under the current key is kept.
    fn keeps(&self, null: bool) -> bool {
        if !self.has_key {
            return false;
        }
        match self.key.as_str() {
            "component_type" | "id" | "$component_ref" | "component_plugin_name" => !null,
            "inputs" | "outputs" => null,
            _ => false,
        }
    }

    /// Adds a value under the current key (which it takes) and returns its index.
    fn push(&mut self, kind: NodeKind, text: Option<&str>) -> u32 {
        let has_key = std::mem::take(&mut self.has_key);
        let sk = &mut self.sk;
        let appended = sk.text.len() + self.key.len() + text.map_or(0, str::len);
        if sk.overflowed || appended >= NONE as usize || sk.slots.len() + 1 >= NONE as usize {
            // past 4 GiB: nothing more is kept, and the skeleton says it is incomplete
            sk.overflowed = true;
            return NONE;
        }
        let at = |sk: &Skeleton| sk.text.len() as u32;
        let start = at(sk);
        if has_key {
            sk.text.push_str(&self.key);
        }
        let key = [start, at(sk)];
        let text = match text {
            Some(text) => {
                let start = at(sk);
                sk.text.push_str(text);
                [start, at(sk)]
            }
            None => [0, 0],
        };
        let i = sk.slots.len() as u32;
        sk.slots.push(Slot {
            key,
            text,
            end: i + 1,
            len: 0,
            component_id: NONE,
            reference: NONE,
            referenced: NONE,
            kind,
        });
        i
    }

    /// A value was offered to the open container (`kept` when it was kept).
    fn offer(&mut self, kept: bool) {
        self.has_key = false;
        if let Some((open, offered)) = self.stack.last_mut() {
            *offered += 1;
            if kept && *open != NONE {
                self.sk.slots[*open as usize].len += 1;
            }
        }
    }

    /// Whether the value written now belongs to a secret's placeholder (and is left out).
    fn skips(&mut self) -> bool {
        if self.in_placeholder > 0 {
            return true;
        }
        if std::mem::take(&mut self.placeholder_next) {
            self.offer(false);
            return true;
        }
        false
    }

    fn begin(&mut self, kind: NodeKind) {
        if self.in_placeholder > 0 || std::mem::take(&mut self.placeholder_next) {
            self.in_placeholder += 1;
            return;
        }
        let i = self.push(kind, None);
        self.stack.push((i, 0));
    }

    fn end(&mut self) {
        if self.in_placeholder > 0 {
            self.in_placeholder -= 1;
            if self.in_placeholder == 0 {
                // the placeholder as a whole: a scalar left out
                self.offer(false);
            }
            return;
        }
        let Some((i, offered)) = self.stack.pop() else {
            return;
        };
        if i == NONE {
            self.offer(false);
            return;
        }
        let slot = &self.sk.slots[i as usize];
        let kept = slot.len > 0 || (offered == 0 && self.sk.text(slot.key) == "branches");
        if kept {
            let end = self.sk.slots.len() as u32;
            self.sk.slots[i as usize].end = end;
            if self.sk.slots[i as usize].kind == NodeKind::Object {
                self.keep_facts(i);
            }
        } else {
            // nothing inside it was kept: it goes, with its key
            let key_start = slot.key[0] as usize;
            self.sk.slots.truncate(i as usize);
            self.sk.text.truncate(key_start);
        }
        self.offer(kept);
    }

    /// Keeps beside the object at `i` what the layout asks of it.
    fn keep_facts(&mut self, i: u32) {
        let node = Node { sk: &self.sk, i };
        let (mut component_type, mut id, mut reference, mut referenced) = (None, None, None, None);
        for (key, child) in node.children() {
            let found = match key {
                "component_type" => &mut component_type,
                "id" => &mut id,
                "$component_ref" => &mut reference,
                "$referenced_components" => &mut referenced,
                _ => continue,
            };
            found.get_or_insert((child.slot().kind, child.i));
        }
        let string = |found: Option<(NodeKind, u32)>| match found {
            Some((NodeKind::Str, c)) => c,
            _ => NONE,
        };
        let component_id = if string(component_type) != NONE {
            string(id)
        } else {
            NONE
        };
        let slot = &mut self.sk.slots[i as usize];
        slot.component_id = component_id;
        slot.reference = if slot.len == 1 {
            string(reference)
        } else {
            NONE
        };
        slot.referenced = referenced.map_or(NONE, |(_, c)| c);
    }

    fn scalar(&mut self, kind: NodeKind, text: Option<&str>) {
        if self.skips() {
            return;
        }
        let kept = self.keeps(kind == NodeKind::Null);
        if kept {
            self.push(kind, text);
        }
        self.offer(kept);
    }

    fn left_out(&mut self) {
        if !self.skips() {
            self.offer(false);
        }
    }
}

impl Sink for SkeletonSink {
    fn begin_object(&mut self) {
        self.begin(NodeKind::Object);
    }
    fn key(&mut self, key: &str) {
        if self.in_placeholder == 0 {
            self.key.clear();
            self.key.push_str(key);
            self.has_key = true;
        }
    }
    fn end_object(&mut self) {
        self.end();
    }
    fn begin_array(&mut self) {
        self.begin(NodeKind::Array);
    }
    fn end_array(&mut self) {
        self.end();
    }
    fn null(&mut self) {
        self.scalar(NodeKind::Null, None);
    }
    fn bool(&mut self, _: bool) {
        self.left_out();
    }
    fn i64(&mut self, _: i64) {
        self.left_out();
    }
    fn u64(&mut self, _: u64) {
        self.left_out();
    }
    fn f64(&mut self, _: f64) {
        self.left_out();
    }
    fn str(&mut self, value: &str) {
        self.scalar(NodeKind::Str, Some(value));
    }
    fn redacted(&mut self) {
        if self.in_placeholder == 0 {
            self.placeholder_next = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::value::write_value;

    /// The skeleton as a `serde_json::Value`, through the view.
    fn to_value<'a>(node: impl View<'a>) -> serde_json::Value {
        match node.kind() {
            Kind::Object => serde_json::Value::Object(
                node.children()
                    .map(|(k, v)| (k.to_owned(), to_value(v)))
                    .collect(),
            ),
            Kind::Array => {
                serde_json::Value::Array(node.children().map(|(_, v)| to_value(v)).collect())
            }
            Kind::Str(s) => serde_json::Value::String(s.to_owned()),
            Kind::Null => serde_json::Value::Null,
            Kind::Other => unreachable!("no number or boolean is kept"),
        }
    }

    fn skeleton(value: &serde_json::Value) -> Skeleton {
        let mut sink = SkeletonSink::default();
        write_value(value, &mut sink);
        sink.finish()
    }

    #[test]
    fn keeps_components_references_and_unset_io_only() {
        let doc = serde_json::json!({
            "component_type": "Flow", "id": "f", "name": "x", "n": 3, "ok": true,
            "inputs": null, "outputs": [{"title": "a"}],
            "nodes": [{"$component_ref": "n1"}, {"component_type": "EndNode", "id": "e",
                       "branches": [], "description": null}],
            "empty": {}, "deep": {"deeper": {"name": "gone"}},
            "$referenced_components": {"n1": {"component_type": "StartNode", "id": "n1",
                                               "component_plugin_name": "p"}}
        });
        let sk = skeleton(&doc);
        assert_eq!(
            to_value(sk.root()),
            serde_json::json!({
                "component_type": "Flow", "id": "f", "inputs": null,
                "nodes": [{"$component_ref": "n1"}, {"component_type": "EndNode", "id": "e",
                           "branches": []}],
                "$referenced_components": {"n1": {"component_type": "StartNode", "id": "n1",
                                                   "component_plugin_name": "p"}}
            })
        );
        let root = sk.root();
        assert_eq!(root.component_id(), Some("f"));
        let nodes = root.get("nodes").unwrap();
        let refs: Vec<_> = nodes.children().map(|(_, n)| n.reference()).collect();
        assert_eq!(refs, [Some("n1"), None]);
        let held = root.referenced_components().unwrap();
        assert_eq!(held.get("n1").unwrap().component_id(), Some("n1"));
    }

    #[test]
    fn facts_agree_with_the_value_view() {
        let doc = serde_json::json!({
            "component_type": "Flow", "id": 7,
            "a": {"$component_ref": "x", "id": "y"},
            "b": {"component_type": 3, "id": "z"},
            "c": [{"$component_ref": "w"}, {"component_type": "T", "id": "t"}]
        });
        let sk = skeleton(&doc);
        fn facts<'a>(v: impl View<'a>, out: &mut Vec<String>) {
            out.push(format!(
                "{:?} {:?} {}",
                v.component_id(),
                v.reference(),
                v.referenced_components().is_some()
            ));
            for (_, c) in v.children() {
                facts(c, out);
            }
        }
        let (mut ours, mut values) = (Vec::new(), Vec::new());
        facts(sk.root(), &mut ours);
        let kept = to_value(sk.root());
        facts(&kept, &mut values);
        assert_eq!(ours, values);
    }

    #[test]
    fn equal_compares_objects_as_maps() {
        let a = skeleton(&serde_json::json!({"x": {"id": "1", "component_type": "A"},
                                              "y": {"component_type": "A", "id": "1"},
                                              "z": {"component_type": "A", "id": "2"}}));
        let root = a.root();
        let (x, y, z) = (
            root.get("x").unwrap(),
            root.get("y").unwrap(),
            root.get("z").unwrap(),
        );
        assert!(x.equal(y) && y.equal(x) && !x.equal(z) && x.same(x) && !x.same(y));
        // an empty skeleton is null
        let empty = skeleton(&serde_json::json!({"name": "x"}));
        assert_eq!(empty.root().kind(), Kind::Null);
    }
}
