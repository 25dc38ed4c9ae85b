//! Walking a document: every component, inline at any depth, and every
//! `$referenced_components` map.

use indexmap::IndexMap;

use std::any::Any;

use crate::model::component::ComponentInfo;
use crate::model::refs::{RefOr, Sensitive};

/// What a walk meets, in document order.
pub enum Visit<'a, C> {
    /// A component written inline (references are not followed).
    Component(&'a dyn ComponentInfo),
    /// A non-empty `$referenced_components` map (its entries are visited next).
    Referenced(&'a IndexMap<String, C>),
}

impl<'a, C: 'static> Visit<'a, C> {
    /// The visit with the map's component set erased (what a plugin component reports).
    pub fn erase(self) -> ErasedVisit<'a> {
        match self {
            Visit::Component(c) => ErasedVisit::Component(c),
            Visit::Referenced(map) => ErasedVisit::Referenced(map),
        }
    }
}

/// A [`Visit`] whose `$referenced_components` map is of a set of components not named here
/// (a plugin component holds the maps of the set it was built for).
pub enum ErasedVisit<'a> {
    /// A component written inline.
    Component(&'a dyn ComponentInfo),
    /// A non-empty `IndexMap<String, C>` of some set `C`.
    Referenced(&'a dyn Any),
}

impl<'a> ErasedVisit<'a> {
    /// The visit of the set `C`: `None` for a map of another set.
    pub fn of<C: 'static>(self) -> Option<Visit<'a, C>> {
        match self {
            ErasedVisit::Component(c) => Some(Visit::Component(c)),
            ErasedVisit::Referenced(map) => map
                .downcast_ref::<IndexMap<String, C>>()
                .map(Visit::Referenced),
        }
    }
}

/// Types that may hold components of the type set `C`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be walked for the components it holds",
    note = "the fields of components (and of plugin components) are `String`, `bool`, `i64`, `f64`, `Option`, `Vec`, `IndexMap<String, _>`, `JsonObject`, `serde_json::Value`, `RefOr<_>` and the generated types"
)]
pub trait Walk<C> {
    /// Calls `f` for every component and `$referenced_components` map inside `self`.
    fn walk<'a>(&'a self, f: &mut dyn FnMut(Visit<'a, C>));
}

macro_rules! leaf {
    ($($t:ty),*) => {$(
        impl<C> Walk<C> for $t {
            fn walk<'a>(&'a self, _f: &mut dyn FnMut(Visit<'a, C>)) {}
        }
    )*};
}

leaf!(
    String,
    bool,
    i8,
    i16,
    i32,
    i64,
    u8,
    u16,
    u32,
    u64,
    usize,
    f64,
    serde_json::Value,
    serde_json::Map<String, serde_json::Value>
);

impl<C, T: Walk<C>> Walk<C> for Option<T> {
    fn walk<'a>(&'a self, f: &mut dyn FnMut(Visit<'a, C>)) {
        if let Some(v) = self {
            v.walk(f);
        }
    }
}

impl<C, T: Walk<C>> Walk<C> for Vec<T> {
    fn walk<'a>(&'a self, f: &mut dyn FnMut(Visit<'a, C>)) {
        for item in self {
            item.walk(f);
        }
    }
}

impl<C, T: Walk<C>> Walk<C> for IndexMap<String, T> {
    fn walk<'a>(&'a self, f: &mut dyn FnMut(Visit<'a, C>)) {
        for value in self.values() {
            value.walk(f);
        }
    }
}

impl<C, A: Walk<C>, B: Walk<C>> Walk<C> for (A, B) {
    fn walk<'a>(&'a self, f: &mut dyn FnMut(Visit<'a, C>)) {
        self.0.walk(f);
        self.1.walk(f);
    }
}

impl<C, T: Walk<C>> Walk<C> for RefOr<T> {
    fn walk<'a>(&'a self, f: &mut dyn FnMut(Visit<'a, C>)) {
        if let RefOr::Inline(c) = self {
            c.walk(f);
        }
    }
}

impl<C, T: Walk<C>> Walk<C> for Sensitive<T> {
    fn walk<'a>(&'a self, f: &mut dyn FnMut(Visit<'a, C>)) {
        if let Sensitive::Value(v) = self {
            v.walk(f);
        }
    }
}
