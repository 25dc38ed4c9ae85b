//! The components of a typed document as the rules look at them: every component with the
//! JSON pointer it is written at, and the `$referenced_components` entries by key, so that a
//! position holding a reference resolves to the component it names.

use foldhash::{HashMap, HashMapExt};

use crate::model::component::ComponentInfo;
use crate::model::refs::RefOr;
use crate::model::walk::{Visit, Walk};
use serde_json::Value;

use crate::diagnostic::push_pointer_token;
use crate::{Component, JsonObject};

/// Every component of a document, and the `$referenced_components` entries by key.
pub(super) struct Index<'a> {
    /// Every `$referenced_components` entry by key (the first in document order wins).
    entries: HashMap<&'a str, (&'a dyn ComponentInfo, Place)>,
    /// Every component written inline, in document order, with its place.
    pub components: Vec<(&'a dyn ComponentInfo, Place)>,
    /// The positions in `components` of those inside components kept as read.
    pub kept: std::collections::HashSet<usize>,
    /// Where the components and entries are written.
    places: Places,
}

/// Where a component or a `$referenced_components` map is written: an entry of [`Places`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Place(u32);

/// The parent of a place written from the root.
const TOP: u32 = u32::MAX;

/// The places of a document's components, each the place of the component or map it is
/// written in plus the rest of its pointer: a component's place costs the length of its own
/// part of the pointer, not its depth, and its pointer is built only for a diagnostic.
#[derive(Default)]
struct Places {
    /// Each place's parent, and where its part of the pointer is in `text`.
    parts: Vec<(u32, std::ops::Range<usize>)>,
    /// The parts, one after the other.
    text: String,
}

impl Places {
    fn add(&mut self, parent: u32, part: &str) -> Place {
        let start = self.text.len();
        self.text.push_str(part);
        self.parts.push((parent, start..self.text.len()));
        Place((self.parts.len() - 1) as u32)
    }

    fn pointer(&self, place: Place) -> String {
        let mut out = String::new();
        self.pointer_into(place, &mut Vec::new(), &mut out);
        out
    }

    /// Writes the pointer of `place` into `out` (cleared first), with `chain` as scratch: a
    /// caller that builds many pointers allocates for none of them.
    fn pointer_into(&self, place: Place, chain: &mut Vec<u32>, out: &mut String) {
        chain.clear();
        out.clear();
        let mut at = place.0;
        while let Some((parent, _)) = self.parts.get(at as usize) {
            chain.push(at);
            at = *parent;
        }
        for &i in chain.iter().rev() {
            out.push_str(&self.text[self.parts[i as usize].1.clone()]);
        }
    }
}

/// Turns the pointers a walk gives, in document order, into places: the open components and
/// maps the walk is inside, each with the length of its pointer (a prefix of `last`).
#[derive(Default)]
struct Tracker {
    open: Vec<(Place, usize, Option<usize>)>,
    last: String,
}

impl Tracker {
    /// The place of the component or map at `pointer`, under the innermost open one that
    /// holds it; with the found index of that one when it is a component.
    fn place(
        &mut self,
        places: &mut Places,
        pointer: &str,
        found: Option<usize>,
    ) -> (Place, Option<usize>) {
        while let Some(&(_, len, _)) = self.open.last() {
            let inside = pointer.len() > len
                && pointer.as_bytes()[len] == b'/'
                && pointer.as_bytes()[..len] == self.last.as_bytes()[..len];
            if inside {
                break;
            }
            self.open.pop();
        }
        let (parent, len, holder) = self
            .open
            .last()
            .map_or((TOP, 0, None), |&(place, len, found)| (place.0, len, found));
        let place = places.add(parent, &pointer[len..]);
        self.open.push((place, pointer.len(), found));
        self.last.clear();
        self.last.push_str(pointer);
        (place, holder)
    }
}

/// The components written inside components kept as read (in their JSON), decoded so that
/// the rules see them as they would inline: each with the pointer of the kept component that
/// holds it, its own pointer, and its key when it is a `$referenced_components` entry.
pub(super) struct Kept {
    items: Vec<(String, String, Component, Option<String>)>,
}

impl Kept {
    pub fn find(root: &Component) -> Kept {
        let mut raws: Vec<(String, JsonObject)> = Vec::new();
        collect_raw(root, "", &mut raws);
        let mut kept = Kept { items: Vec::new() };
        for (pointer, body) in raws {
            kept.scan_object(&body, &pointer, &pointer);
        }
        kept
    }

    fn scan_object(&mut self, map: &JsonObject, pointer: &str, owner: &str) {
        for (key, value) in map {
            let mut at = pointer.to_owned();
            push_pointer_token(&mut at, key);
            match value {
                Value::Object(entries) if key == "$referenced_components" => {
                    for (id, entry) in entries {
                        let mut entry_at = at.clone();
                        push_pointer_token(&mut entry_at, id);
                        self.scan_value(entry, &entry_at, owner, Some(id));
                    }
                }
                _ => self.scan_value(value, &at, owner, None),
            }
        }
    }

    fn scan_value(&mut self, value: &Value, pointer: &str, owner: &str, key: Option<&str>) {
        match value {
            Value::Object(map) if map.get("component_type").is_some_and(Value::is_string) => {
                match decode(value) {
                    Some(component) => {
                        // kept components inside it are scanned in their turn
                        let mut raws = Vec::new();
                        collect_raw(&component, pointer, &mut raws);
                        self.items.push((
                            owner.to_owned(),
                            pointer.to_owned(),
                            component,
                            key.map(str::to_owned),
                        ));
                        for (raw_pointer, body) in raws {
                            self.scan_object(&body, &raw_pointer, &raw_pointer);
                        }
                    }
                    None => self.scan_object(map, pointer, owner),
                }
            }
            Value::Object(map) => self.scan_object(map, pointer, owner),
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    let mut at = pointer.to_owned();
                    push_pointer_token(&mut at, &i.to_string());
                    self.scan_value(item, &at, owner, None);
                }
            }
            _ => {}
        }
    }
}

/// The components kept as read inside `root` (written at `at`), with their pointers and bodies.
fn collect_raw(root: &Component, at: &str, out: &mut Vec<(String, JsonObject)>) {
    // most documents hold none: found without building a pointer per component
    let mut any = false;
    root.walk(&mut |visit| {
        any |= matches!(visit, Visit::Component(c) if c.as_plugin().and_then(crate::model::plugin::Plugin::raw).is_some());
    });
    if !any {
        return;
    }
    root.walk_at(&mut at.to_owned(), &mut |pointer, visit| {
        if let Visit::Component(c) = visit
            && let Some(raw) = c.as_plugin().and_then(crate::model::plugin::Plugin::raw)
        {
            out.push((pointer.to_owned(), raw.body().clone()));
        }
    });
}

/// A component written as JSON, when it reads without error (references are not checked:
/// they may name entries outside it).
fn decode(value: &Value) -> Option<Component> {
    use crate::codec::{ComponentSet, Decode, Decoder, Path};
    let mut cx = Decoder::new(Component::TYPES, Component::VERSIONS);
    cx.secret_fields = Component::SECRET_FIELDS;
    cx.keep_unknown = true;
    let node = crate::syntax::value::value_to_node(value);
    let component = Component::decode(node, &mut cx, &Path::ROOT)?;
    (!cx.has_errors()).then_some(component)
}

impl<'a> Index<'a> {
    pub fn build(root: &'a Component, kept: &'a Kept) -> Index<'a> {
        let mut into = Into::default();
        visit(root, "", kept, false, &mut into);
        let Into {
            mut places,
            components,
            maps,
            inside,
            raw_positions,
        } = into;
        // A map's entries count from the moment its owner is met, so an outer map's entries
        // come before those of the components it holds.
        let mut ordered: Vec<(usize, usize, &str, &'a dyn ComponentInfo, Place)> = Vec::new();
        let mut part = String::new();
        for (owner, map_place, map) in &maps {
            for (key, body) in *map {
                part.clear();
                push_pointer_token(&mut part, key);
                let place = places.add(map_place.0, &part);
                ordered.push((*owner, ordered.len(), key, body, place));
            }
        }
        for (raw, pointer, component, key) in &kept.items {
            if let Some(key) = key {
                let owner = raw_positions
                    .get(raw.as_str())
                    .copied()
                    .unwrap_or(usize::MAX);
                let place = places.add(TOP, pointer);
                ordered.push((owner, ordered.len(), key, component, place));
            }
        }
        ordered.sort_by_key(|(owner, seq, ..)| (*owner, *seq));
        let mut entries = HashMap::with_capacity(ordered.len());
        for (_, _, key, body, at) in ordered {
            entries.entry(key).or_insert((body, at));
        }
        Index {
            entries,
            components,
            kept: inside,
            places,
        }
    }

    /// Writes the JSON pointer of `place` into `out` (cleared first), with `chain` as
    /// scratch.
    pub fn pointer_into(&self, place: Place, chain: &mut Vec<u32>, out: &mut String) {
        self.places.pointer_into(place, chain, out);
    }

    /// The component at a position (following a reference), with where it is written: the
    /// position itself (the field `key` of the component at `base`, item `index` when it is
    /// a list) when it is written there, else the entry it names.
    pub fn resolve<'s, T: ComponentInfo>(
        &'s self,
        position: &'a RefOr<T>,
        base: &'s str,
        key: &'static str,
        index: Option<usize>,
    ) -> Option<Seen<'a, 's>> {
        match position {
            RefOr::Inline(c) => Some(Seen {
                c,
                at: At::Field { base, key, index },
            }),
            RefOr::Ref(r) => self.entries.get(r.id.as_str()).map(|(c, place)| Seen {
                c: *c,
                at: At::Place(&self.places, *place),
            }),
        }
    }

    /// The component at a position, without its pointer.
    pub fn get<T: ComponentInfo>(&self, position: &'a RefOr<T>) -> Option<&'a dyn ComponentInfo> {
        match position {
            RefOr::Inline(c) => Some(c),
            RefOr::Ref(r) => self.entries.get(r.id.as_str()).map(|(c, _)| *c),
        }
    }
}

/// What [`visit`] gathers.
#[derive(Default)]
struct Into<'a> {
    places: Places,
    components: Vec<(&'a dyn ComponentInfo, Place)>,
    /// Each map with the position of its owner in `components` (`usize::MAX`: none) and its
    /// place.
    maps: Vec<(usize, Place, &'a indexmap::IndexMap<String, Component>)>,
    inside: std::collections::HashSet<usize>,
    /// The positions of the components kept as read, by pointer (they are few).
    raw_positions: std::collections::HashMap<String, usize>,
}

/// Walks `root` (written at `at`) into the index, and what the components kept as read in it
/// hold, right after each of them.
fn visit<'a>(root: &'a Component, at: &str, kept: &'a Kept, interior: bool, into: &mut Into<'a>) {
    let mut tracker = Tracker::default();
    // each component with its place and, when kept as read, its pointer
    let mut found: Vec<(&'a dyn ComponentInfo, Place, Option<String>)> = Vec::new();
    let mut maps: Vec<(
        Option<usize>,
        Place,
        &'a indexmap::IndexMap<String, Component>,
    )> = Vec::new();
    let places = &mut into.places;
    root.walk_at(&mut at.to_owned(), &mut |pointer, v| match v {
        Visit::Component(c) => {
            let (place, _) = tracker.place(places, pointer, Some(found.len()));
            let raw = c
                .as_plugin()
                .and_then(crate::model::plugin::Plugin::raw)
                .is_some();
            found.push((c, place, raw.then(|| pointer.to_owned())));
        }
        Visit::Referenced(map) => {
            let (place, holder) = tracker.place(places, pointer, None);
            // the map is a field of the component it is written in
            maps.push((holder, place, map));
        }
    });
    // this walk's maps come before those of the components kept as read in it; their owners
    // are found indices until the found components have their positions
    let mine = into.maps.len()..into.maps.len() + maps.len();
    for (holder, place, map) in maps {
        into.maps.push((holder.unwrap_or(usize::MAX), place, map));
    }
    let mut positions = Vec::with_capacity(found.len());
    for (c, place, raw) in found {
        if interior {
            into.inside.insert(into.components.len());
        }
        positions.push(into.components.len());
        into.components.push((c, place));
        if let Some(pointer) = raw {
            into.raw_positions
                .insert(pointer.clone(), into.components.len() - 1);
            for (owner, inner, component, _) in &kept.items {
                if *owner == pointer {
                    visit(component, inner, kept, true, into);
                }
            }
        }
    }
    for map in &mut into.maps[mine] {
        map.0 = positions.get(map.0).copied().unwrap_or(usize::MAX);
    }
}

/// A component and where it is written.
pub(super) struct Seen<'a, 's> {
    pub c: &'a dyn ComponentInfo,
    at: At<'s>,
}

/// Where a resolved component is written, its pointer built only when asked.
#[derive(Clone, Copy)]
enum At<'s> {
    /// The `$referenced_components` entry it names.
    Place(&'s Places, Place),
    /// The field `key` of the component at `base` (item `index` of it, when it is a list).
    Field {
        base: &'s str,
        key: &'static str,
        index: Option<usize>,
    },
}

impl Seen<'_, '_> {
    /// The JSON pointer where the component is written (built for a diagnostic).
    pub fn pointer(&self) -> String {
        match self.at {
            At::Place(places, place) => places.pointer(place),
            At::Field { base, key, index } => {
                let mut p = base.to_owned();
                push_pointer_token(&mut p, key);
                if let Some(i) = index {
                    push_pointer_token(&mut p, &i.to_string());
                }
                p
            }
        }
    }
}

/// The component as its own struct.
pub(super) fn typed<T: 'static>(c: &dyn ComponentInfo) -> Option<&T> {
    c.as_any().downcast_ref::<T>()
}

/// A component's inputs or outputs (`key`), empty when it has none.
pub(super) fn list<'c>(c: &'c dyn ComponentInfo, key: &str) -> &'c [JsonObject] {
    match key {
        "inputs" => c.inputs(),
        _ => c.outputs(),
    }
    .unwrap_or_default()
}

/// Whether a component has its inputs or outputs (`key`) set.
pub(super) fn has(c: &dyn ComponentInfo, key: &str) -> bool {
    match key {
        "inputs" => c.inputs().is_some(),
        _ => c.outputs().is_some(),
    }
}
