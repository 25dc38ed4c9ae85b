//! Walking a document: every component, inline at any depth, and every
//! `$referenced_components` map.

use indexmap::IndexMap;

use std::any::Any;
use std::fmt::Write as _;

use crate::diagnostic::push_pointer_token;
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
    /// Whether values of this type never hold a component (a string, a number, a JSON
    /// value): a walk then skips them without building their pointers.
    const LEAF: bool = false;

    /// Calls `f` for every component and `$referenced_components` map inside `self`.
    fn walk<'a>(&'a self, f: &mut dyn FnMut(Visit<'a, C>));

    /// As [`walk`](Walk::walk), with the JSON pointer of each component and map in the
    /// written document; `at` is the pointer of `self`, as it was when the walk returns.
    fn walk_at<'a>(&'a self, at: &mut String, f: &mut dyn FnMut(&str, Visit<'a, C>));
}

/// Walks `value` at the entry `token` of the pointer `at`.
pub(crate) fn walk_entry<'a, C, T: Walk<C> + ?Sized>(
    value: &'a T,
    token: &str,
    at: &mut String,
    f: &mut dyn FnMut(&str, Visit<'a, C>),
) {
    let len = at.len();
    push_pointer_token(at, token);
    value.walk_at(at, f);
    at.truncate(len);
}

macro_rules! leaf {
    ($($t:ty),*) => {$(
        impl<C> Walk<C> for $t {
            const LEAF: bool = true;
            fn walk<'a>(&'a self, _f: &mut dyn FnMut(Visit<'a, C>)) {}
            fn walk_at<'a>(&'a self, _at: &mut String, _f: &mut dyn FnMut(&str, Visit<'a, C>)) {}
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
    const LEAF: bool = T::LEAF;
    fn walk<'a>(&'a self, f: &mut dyn FnMut(Visit<'a, C>)) {
        if let Some(v) = self {
            v.walk(f);
        }
    }
    fn walk_at<'a>(&'a self, at: &mut String, f: &mut dyn FnMut(&str, Visit<'a, C>)) {
        if let Some(v) = self {
            v.walk_at(at, f);
        }
    }
}

impl<C, T: Walk<C>> Walk<C> for Vec<T> {
    const LEAF: bool = T::LEAF;
    fn walk<'a>(&'a self, f: &mut dyn FnMut(Visit<'a, C>)) {
        for item in self {
            item.walk(f);
        }
    }
    fn walk_at<'a>(&'a self, at: &mut String, f: &mut dyn FnMut(&str, Visit<'a, C>)) {
        if T::LEAF {
            return;
        }
        let len = at.len();
        for (i, item) in self.iter().enumerate() {
            // an index needs no escape, nor a string of its own
            at.push('/');
            let _ = write!(at, "{i}");
            item.walk_at(at, f);
            at.truncate(len);
        }
    }
}

impl<C, T: Walk<C>> Walk<C> for IndexMap<String, T> {
    const LEAF: bool = T::LEAF;
    fn walk<'a>(&'a self, f: &mut dyn FnMut(Visit<'a, C>)) {
        for value in self.values() {
            value.walk(f);
        }
    }
    fn walk_at<'a>(&'a self, at: &mut String, f: &mut dyn FnMut(&str, Visit<'a, C>)) {
        if T::LEAF {
            return;
        }
        for (key, value) in self {
            walk_entry(value, key, at, f);
        }
    }
}

impl<C, A: Walk<C>, B: Walk<C>> Walk<C> for (A, B) {
    const LEAF: bool = A::LEAF && B::LEAF;
    fn walk<'a>(&'a self, f: &mut dyn FnMut(Visit<'a, C>)) {
        self.0.walk(f);
        self.1.walk(f);
    }
    fn walk_at<'a>(&'a self, at: &mut String, f: &mut dyn FnMut(&str, Visit<'a, C>)) {
        walk_entry(&self.0, "0", at, f);
        walk_entry(&self.1, "1", at, f);
    }
}

impl<C, T: Walk<C>> Walk<C> for RefOr<T> {
    fn walk<'a>(&'a self, f: &mut dyn FnMut(Visit<'a, C>)) {
        if let RefOr::Inline(c) = self {
            c.walk(f);
        }
    }
    fn walk_at<'a>(&'a self, at: &mut String, f: &mut dyn FnMut(&str, Visit<'a, C>)) {
        if let RefOr::Inline(c) = self {
            c.walk_at(at, f);
        }
    }
}

impl<C, T: Walk<C>> Walk<C> for Sensitive<T> {
    const LEAF: bool = T::LEAF;
    fn walk<'a>(&'a self, f: &mut dyn FnMut(Visit<'a, C>)) {
        if let Sensitive::Value(v) = self {
            v.walk(f);
        }
    }
    fn walk_at<'a>(&'a self, at: &mut String, f: &mut dyn FnMut(&str, Visit<'a, C>)) {
        if let Sensitive::Value(v) = self {
            v.walk_at(at, f);
        }
    }
}
