//! The components of a typed document as the rules look at them: every component with the
//! JSON pointer it is written at, and the `$referenced_components` entries by key, so that a
//! position holding a reference resolves to the component it names.

use foldhash::{HashMap, HashMapExt};
use std::borrow::Cow;

use crate::model::component::ComponentInfo;
use crate::model::refs::RefOr;
use crate::model::walk::{Visit, Walk};
use serde_json::Value;

use crate::diagnostic::push_pointer_token;
use crate::{Component, JsonObject};

/// Every component of a document, and the `$referenced_components` entries by key.
pub(super) struct Index<'a> {
    /// Every `$referenced_components` entry by key (the first in document order wins).
    entries: HashMap<&'a str, (&'a dyn ComponentInfo, String)>,
    /// Every component written inline, in document order, with its pointer.
    pub components: Vec<(&'a dyn ComponentInfo, String)>,
    /// The positions in `components` of those inside components kept as read.
    pub kept: std::collections::HashSet<usize>,
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
        let mut components: Vec<(&'a dyn ComponentInfo, String)> = Vec::new();
        let mut maps: Vec<(String, &'a indexmap::IndexMap<String, Component>)> = Vec::new();
        let mut inside = std::collections::HashSet::new();
        visit(
            root,
            "",
            kept,
            false,
            &mut components,
            &mut maps,
            &mut inside,
        );
        // A map's entries count from the moment its owner is met, so an outer map's entries
        // come before those of the components it holds.
        let position: HashMap<&str, usize> = components
            .iter()
            .enumerate()
            .map(|(i, (_, p))| (p.as_str(), i))
            .collect();
        let owner = |owner: &str| position.get(owner).copied().unwrap_or(usize::MAX);
        let mut ordered: Vec<(usize, usize, &str, &'a dyn ComponentInfo, String)> = Vec::new();
        for (pointer, map) in &maps {
            let at = owner(
                pointer
                    .strip_suffix("/$referenced_components")
                    .unwrap_or(""),
            );
            for (key, body) in *map {
                let mut entry_at = pointer.clone();
                push_pointer_token(&mut entry_at, key);
                ordered.push((at, ordered.len(), key, body, entry_at));
            }
        }
        for (raw, pointer, component, key) in &kept.items {
            if let Some(key) = key {
                ordered.push((owner(raw), ordered.len(), key, component, pointer.clone()));
            }
        }
        ordered.sort_by_key(|(owner, seq, ..)| (*owner, *seq));
        let mut entries = HashMap::new();
        for (_, _, key, body, at) in ordered {
            entries.entry(key).or_insert((body, at));
        }
        Index {
            entries,
            components,
            kept: inside,
        }
    }

    /// The component at a position (following a reference), with its pointer; `at` gives
    /// the position's pointer, built only when the component is written there (a reference's
    /// target is borrowed from the index).
    pub fn resolve<'s, T: ComponentInfo>(
        &'s self,
        position: &'a RefOr<T>,
        at: impl FnOnce() -> String,
    ) -> Option<Seen<'a, 's>> {
        match position {
            RefOr::Inline(c) => Some(Seen {
                c,
                pointer: Cow::Owned(at()),
            }),
            RefOr::Ref(r) => self.entries.get(r.id.as_str()).map(|(c, p)| Seen {
                c: *c,
                pointer: Cow::Borrowed(p.as_str()),
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

/// Walks `root` (written at `at`) into the index, and what the components kept as read in it
/// hold, right after each of them.
fn visit<'a>(
    root: &'a Component,
    at: &str,
    kept: &'a Kept,
    interior: bool,
    components: &mut Vec<(&'a dyn ComponentInfo, String)>,
    maps: &mut Vec<(String, &'a indexmap::IndexMap<String, Component>)>,
    inside: &mut std::collections::HashSet<usize>,
) {
    let mut raws: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut found: Vec<(&'a dyn ComponentInfo, String)> = Vec::new();
    root.walk_at(&mut at.to_owned(), &mut |pointer, v| match v {
        Visit::Component(c) => {
            if c.as_plugin()
                .and_then(crate::model::plugin::Plugin::raw)
                .is_some()
            {
                raws.insert(pointer.to_owned());
            }
            found.push((c, pointer.to_owned()));
        }
        Visit::Referenced(map) => maps.push((pointer.to_owned(), map)),
    });
    for (c, pointer) in found {
        let raw = raws.contains(pointer.as_str());
        if interior {
            inside.insert(components.len());
        }
        components.push((c, pointer.clone()));
        if raw {
            for (owner, inner, component, _) in &kept.items {
                if *owner == pointer {
                    visit(component, inner, kept, true, components, maps, inside);
                }
            }
        }
    }
}

/// A component and the pointer it is written at.
pub(super) struct Seen<'a, 's> {
    pub c: &'a dyn ComponentInfo,
    pub pointer: Cow<'s, str>,
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
