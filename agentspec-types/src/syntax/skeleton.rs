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
//! The values are stored in written order, each container followed by its contents. Every
//! string kept, key or value, is given a number, its [`Name`], the first time it is written:
//! its text is stored once, in one buffer, and a value holds the numbers of its key and its
//! text. So building it allocates per document, not per value; an id held in many places is
//! stored once; and the layout's maps of ids are arrays indexed by those numbers, never
//! hashing or reading the text back from a buffer the size of the document (at 10,000
//! nodes, from memory the caches no longer hold). When an object ends, the facts the layout
//! asks of it again and again (its id if it is a component, the key it names if it is a
//! reference, where its `$referenced_components` are) are kept beside it.

use std::hash::{BuildHasher, Hash, Hasher};

use crate::syntax::sink::Sink;
use crate::syntax::view::{Id, Kind, View};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NodeKind {
    Object,
    Array,
    Str,
    Null,
}

/// A part of a skeleton's text: from, to.
type Span = [u32; 2];

/// No value and no name (an index that no skeleton reaches: it would need more than 4 GiB
/// of slots or of text).
const NONE: u32 = u32::MAX;

/// One value of a skeleton, in 32 bytes: a document's skeleton is a tenth of its tree.
#[derive(Debug, Clone)]
struct Slot {
    /// The name of its key in the object holding it ([`NONE`] in an array, and for the root).
    key: u32,
    /// The name of a string's text ([`NONE`] for any other value).
    text: u32,
    /// The index after the last value inside it (for a scalar, its own index plus one).
    end: u32,
    /// How many entries or items it holds.
    len: u32,
    /// Facts of an object: the name of its `id` when it is a component (with a string
    /// `component_type` and a string `id`), and of the key its string `$component_ref` names
    /// when that is its one entry; the index of its `$referenced_components`; or [`NONE`].
    component_id: u32,
    reference: u32,
    referenced: u32,
    kind: NodeKind,
}

const _: () = assert!(std::mem::size_of::<Slot>() == 32);

/// A document's skeleton (see the module's documentation).
#[derive(Debug, Default)]
pub(crate) struct Skeleton {
    slots: Vec<Slot>,
    /// The text of every name, each once.
    text: String,
    /// Where each name's text is in `text`, by name.
    names: Vec<Span>,
    /// The skeleton outgrew its 32-bit indices, and was not finished (no document that
    /// fits in memory gets there): it keeps nothing, and is [`Skeleton::complete`] no more.
    overflowed: bool,
    /// Some object has a string `component_type` and no `id` that is a non-empty string
    /// (found as each object ends: [`Skeleton::lacks_an_id`]).
    lacks_an_id: bool,
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

    /// Whether some component (an object with a string `component_type`) has no id that is
    /// a non-empty string: what the layout would give a fresh one. Found as the skeleton was
    /// built: at 10,000 nodes, a walk of it reads megabytes back from memory.
    pub(crate) fn lacks_an_id(&self) -> bool {
        self.lacks_an_id
    }

    /// The text of name `n` (empty for [`NONE`]).
    fn text(&self, n: u32) -> &str {
        match self.names.get(n as usize) {
            Some(&[from, to]) => &self.text[from as usize..to as usize],
            None => "",
        }
    }

    /// Name `n`, or `None` for [`NONE`].
    fn name(&self, n: u32) -> Option<Name<'_>> {
        (n != NONE).then_some(Name { sk: self, n })
    }
}

/// A string of a [`Skeleton`] by its number: two names of one skeleton are equal when their
/// texts are (the layout compares names of one skeleton only).
#[derive(Clone, Copy)]
pub(crate) struct Name<'a> {
    sk: &'a Skeleton,
    n: u32,
}

impl PartialEq for Name<'_> {
    fn eq(&self, other: &Self) -> bool {
        debug_assert!(std::ptr::eq(self.sk, other.sk), "names of two skeletons");
        self.n == other.n
    }
}

impl Eq for Name<'_> {}

impl Hash for Name<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.n.hash(state);
    }
}

impl std::fmt::Debug for Name<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.text())
    }
}

impl<'a> Id<'a> for Name<'a> {
    fn text(self) -> &'a str {
        self.sk.text(self.n)
    }

    fn number(self) -> Option<u32> {
        Some(self.n)
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
    type Id = Name<'a>;

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
            NodeKind::Str if std::ptr::eq(self.sk, other.sk) => a.text == b.text,
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
        self.component_key().map(Name::text)
    }

    fn reference(self) -> Option<&'a str> {
        self.reference_key().map(Name::text)
    }

    fn component_key(self) -> Option<Name<'a>> {
        self.sk.name(self.slot().component_id)
    }

    fn reference_key(self) -> Option<Name<'a>> {
        self.sk.name(self.slot().reference)
    }

    fn keyed_children(self) -> impl Iterator<Item = (Name<'a>, Self)> + 'a {
        let sk = self.sk;
        self.children().map(move |(_, node)| {
            let n = node.slot().key;
            (Name { sk, n }, node)
        })
    }

    fn referenced_components(self) -> Option<Self> {
        let i = self.slot().referenced;
        (i != NONE).then_some(Node { sk: self.sk, i })
    }

    fn id_numbers(self) -> usize {
        self.sk.names.len()
    }
}

/// Builds the [`Skeleton`] of what is written into it.
#[derive(Default)]
pub(crate) struct SkeletonSink {
    sk: Skeleton,
    /// The names given so far, found by the hash of their text. A name alone, 4 bytes: at
    /// 10,000 components the table is looked up at every id and reference written, at
    /// random places, and a table a quarter the size stays in the caches that much longer
    /// (the text is compared, and hashed again when the table grows, from the skeleton's).
    names: hashbrown::HashTable<u32>,
    hasher: foldhash::fast::RandomState,
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
    /// slot per 48 bytes, a name per 192 and their text a 24th (pyagentspec's layout of a
    /// flow keeps a slot per 55 bytes, and has a distinct string per 200 bytes, 8 bytes
    /// long), so that a large document's arena grows at most once instead of copying itself
    /// at every doubling.
    pub(crate) fn for_text(len: usize) -> Self {
        let mut sink = SkeletonSink::default();
        sink.sk.slots.reserve(len / 48);
        sink.sk.names.reserve(len / 192);
        sink.sk.text.reserve(len / 24);
        let SkeletonSink {
            sk, names, hasher, ..
        } = &mut sink;
        names.reserve(len / 192, |&n| hasher.hash_one(sk.text(n)));
        sink
    }

    pub(crate) fn finish(mut self) -> Skeleton {
        if self.sk.overflowed {
            self.sk.slots.clear();
            self.sk.text.clear();
            self.sk.names.clear();
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

    /// The name of `text`: the one it was given before, or a new one ([`NONE`] past 4 GiB).
    fn name(&mut self, text: &str) -> u32 {
        let hash = self.hasher.hash_one(text);
        let sk = &mut self.sk;
        if let Some(&n) = self.names.find(hash, |&n| sk.text(n) == text) {
            return n;
        }
        if sk.overflowed
            || sk.text.len() + text.len() >= NONE as usize
            || sk.names.len() + 1 >= NONE as usize
        {
            sk.overflowed = true;
            return NONE;
        }
        let start = sk.text.len() as u32;
        sk.text.push_str(text);
        let n = sk.names.len() as u32;
        sk.names.push([start, sk.text.len() as u32]);
        let hasher = &self.hasher;
        self.names
            .insert_unique(hash, n, |&n| hasher.hash_one(sk.text(n)));
        n
    }

    /// Adds a value under the current key (which it takes) and returns its index.
    fn push(&mut self, kind: NodeKind, text: Option<&str>) -> u32 {
        let has_key = std::mem::take(&mut self.has_key);
        let key = if has_key {
            let key = std::mem::take(&mut self.key);
            let n = self.name(&key);
            self.key = key;
            n
        } else {
            NONE
        };
        let text = text.map_or(NONE, |text| self.name(text));
        let sk = &mut self.sk;
        if sk.overflowed || sk.slots.len() + 1 >= NONE as usize {
            // past 4 GiB: nothing more is kept, and the skeleton says it is incomplete
            sk.overflowed = true;
            return NONE;
        }
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
            // nothing inside it was kept: it goes (its key's name stays: names are shared)
            self.sk.slots.truncate(i as usize);
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
            Some((NodeKind::Str, c)) => self.sk.slots[c as usize].text,
            _ => NONE,
        };
        let component_id = if string(component_type) != NONE {
            string(id)
        } else {
            NONE
        };
        if string(component_type) != NONE
            && (component_id == NONE || self.sk.text(component_id).is_empty())
        {
            self.sk.lacks_an_id = true;
        }
        let reference = string(reference);
        let slot = &mut self.sk.slots[i as usize];
        slot.component_id = component_id;
        slot.reference = if slot.len == 1 { reference } else { NONE };
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
    fn a_string_is_named_once_and_names_compare_as_their_texts() {
        // many keys, so that the table of names grows while they are written
        let mut map = serde_json::Map::new();
        for i in 0..300 {
            map.insert(
                format!("k{i}x"),
                serde_json::json!({"component_type": "T", "id": format!("id{}", i % 7)}),
            );
        }
        map.insert(
            "r".into(),
            serde_json::json!([{"$component_ref": "id3"}, {"$component_ref": "id30"}]),
        );
        let doc = serde_json::Value::Object(map);
        let sk = skeleton(&doc);
        assert_eq!(to_value(sk.root()), doc);
        // each distinct text once: 300 keys, 7 ids, "id30", and the keys and type used
        let distinct = 300 + 7 + 1 + ["component_type", "id", "T", "r", "$component_ref"].len();
        assert_eq!(sk.names.len(), distinct);
        let root = sk.root();
        let id3 = root.get("k3x").unwrap().component_key().unwrap();
        let refs: Vec<_> = root
            .get("r")
            .unwrap()
            .children()
            .map(|(_, r)| r.reference_key().unwrap())
            .collect();
        assert_eq!(refs[0], id3);
        assert_eq!(root.get("k10x").unwrap().component_key(), Some(id3));
        assert_ne!(refs[1], id3);
        assert_eq!((id3.text(), refs[1].text()), ("id3", "id30"));
        let keys: Vec<&str> = root.keyed_children().map(|(k, _)| k.text()).collect();
        assert_eq!(keys.len(), 301);
        assert_eq!((keys[0], keys[300]), ("k0x", "r"));
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
