//! The components of a typed document as the rules look at them: every component with the
//! JSON pointer it is written at, and the `$referenced_components` entries by key, so that a
//! position holding a reference resolves to the component it names.

use std::collections::HashMap;

use crate::model::component::ComponentInfo;
use crate::model::refs::RefOr;
use crate::model::walk::{Visit, Walk};
use crate::{Component, JsonObject};

/// Every component of a document, and the `$referenced_components` entries by key.
pub(super) struct Index<'a> {
    /// Every `$referenced_components` entry by key (the first in document order wins).
    entries: HashMap<&'a str, (&'a dyn ComponentInfo, String)>,
    /// Every component written inline, in document order, with its pointer.
    pub components: Vec<(&'a dyn ComponentInfo, String)>,
}

impl<'a> Index<'a> {
    pub fn build(root: &'a Component) -> Index<'a> {
        let mut components: Vec<(&'a dyn ComponentInfo, String)> = Vec::new();
        let mut maps: Vec<(String, &'a indexmap::IndexMap<String, Component>)> = Vec::new();
        root.walk_at(&mut String::new(), &mut |pointer, visit| match visit {
            Visit::Component(c) => components.push((c, pointer.to_owned())),
            Visit::Referenced(map) => maps.push((pointer.to_owned(), map)),
        });
        // A map's entries count from the moment its owner is met, so an outer map's entries
        // come before those of the components it holds.
        let position: HashMap<&str, usize> = components
            .iter()
            .enumerate()
            .map(|(i, (_, p))| (p.as_str(), i))
            .collect();
        let owner = |map_pointer: &str| {
            let owner = map_pointer
                .strip_suffix("/$referenced_components")
                .unwrap_or("");
            position.get(owner).copied().unwrap_or(usize::MAX)
        };
        let mut ordered: Vec<(
            usize,
            usize,
            &String,
            &'a indexmap::IndexMap<String, Component>,
        )> = maps
            .iter()
            .enumerate()
            .map(|(i, (p, m))| (owner(p), i, p, *m))
            .collect();
        ordered.sort_by_key(|(owner, i, _, _)| (*owner, *i));
        let mut entries = HashMap::new();
        for (_, _, pointer, map) in ordered {
            for (key, body) in map {
                let mut at = pointer.clone();
                crate::diagnostic::push_pointer_token(&mut at, key);
                entries
                    .entry(key.as_str())
                    .or_insert((body as &dyn ComponentInfo, at));
            }
        }
        Index {
            entries,
            components,
        }
    }

    /// The component at a position (following a reference), with its pointer; `pointer` is
    /// the position's.
    pub fn resolve<T: ComponentInfo>(
        &self,
        position: &'a RefOr<T>,
        pointer: &str,
    ) -> Option<Seen<'a>> {
        match position {
            RefOr::Inline(c) => Some(Seen {
                c,
                pointer: pointer.to_owned(),
            }),
            RefOr::Ref(r) => self.entries.get(r.id.as_str()).map(|(c, p)| Seen {
                c: *c,
                pointer: p.clone(),
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

/// A component and the pointer it is written at.
pub(super) struct Seen<'a> {
    pub c: &'a dyn ComponentInfo,
    pub pointer: String,
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
