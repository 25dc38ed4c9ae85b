//! A resolved view of a document: references followed for you.

use crate::codec::{ComponentInfo, ComponentSet};
use crate::document::Document;
use crate::document::components::Components;
use crate::model::refs::RefOr;

/// A document with its references resolved: every `$referenced_components` entry at any
/// depth, and the supplied components, by id.
pub struct Resolved<'a> {
    by_id: foldhash::HashMap<&'a str, &'a dyn ComponentInfo>,
    components: Vec<&'a dyn ComponentInfo>,
}

impl<'a> Resolved<'a> {
    pub(crate) fn new<C: ComponentSet + Send + Sync>(
        doc: &'a Document<C>,
        supplied: Option<&'a Components<C>>,
    ) -> Self {
        // one walk of the document gives both: at 10,000 components a second one reads
        // them all back from memory
        let (mut components, referenced) = doc.components_and_referenced();
        let mut by_id = foldhash::HashMap::<&'a str, &'a dyn ComponentInfo>::default();
        for map in referenced {
            for (id, component) in map {
                by_id
                    .entry(id.as_str())
                    .or_insert(component as &dyn ComponentInfo);
            }
        }
        if let Some(supplied) = supplied {
            for id in supplied.ids() {
                if let Some(entry) = supplied.get(id) {
                    by_id
                        .entry(id)
                        .or_insert(entry.root() as &dyn ComponentInfo);
                    components.extend(entry.components());
                }
            }
        }
        Resolved { by_id, components }
    }

    /// The component at a position: itself when inline, the referenced one otherwise.
    pub fn get<T: ComponentInfo>(&self, position: &'a RefOr<T>) -> Option<&'a dyn ComponentInfo> {
        match position {
            RefOr::Inline(component) => Some(component),
            RefOr::Ref(r) => self.by_id.get(r.id.as_str()).copied(),
        }
    }

    /// The component at a position as its struct `X` (`None` when it is another type).
    pub fn get_as<X: 'static, T: ComponentInfo>(&self, position: &'a RefOr<T>) -> Option<&'a X> {
        self.get(position)?.as_any().downcast_ref::<X>()
    }

    /// The components at a list of positions (agent tools, flow nodes, …), in order.
    pub fn each<T: ComponentInfo>(
        &self,
        positions: &'a [RefOr<T>],
    ) -> impl Iterator<Item = &'a dyn ComponentInfo> + '_ {
        positions.iter().filter_map(move |p| self.get(p))
    }

    /// The component a reference id names.
    pub fn by_id(&self, id: &str) -> Option<&'a dyn ComponentInfo> {
        self.by_id.get(id).copied()
    }

    /// Every component of the document (and of the supplied components), each once, in
    /// document order.
    pub fn components(&self) -> &[&'a dyn ComponentInfo] {
        &self.components
    }
}

impl<C: ComponentSet + Send + Sync> Document<C> {
    /// The document with its references resolved (the document loaded, so every reference
    /// names an entry of its `$referenced_components` maps).
    pub fn resolve(&self) -> Resolved<'_> {
        Resolved::new(self, None)
    }

    /// The document with its references resolved, including those to supplied components.
    pub fn resolve_with<'a>(&'a self, components: &'a Components<C>) -> Resolved<'a> {
        Resolved::new(self, Some(components))
    }
}
