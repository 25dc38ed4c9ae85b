//! One read-only view of the trees that the layout and the inference read: a
//! `serde_json::Value`, or the compact [`Skeleton`](crate::syntax::skeleton::Skeleton) that a
//! document's writer fills in one pass. The layout's algorithms are written once, over
//! [`View`]; the skeleton answers the questions they ask most (is this object a component,
//! a reference, where are its `$referenced_components`) from facts kept when the object was
//! written, without looking its keys up again. The layout names components by
//! [`View::Id`]: the text itself in a `Value`; in a skeleton, the number its writer gave the
//! text, so that the layout's maps compare numbers and never read the text back.

use std::fmt::Debug;
use std::hash::Hash;

use serde_json::Value;

/// How a tree names an id or a key: equal names, equal texts.
pub(crate) trait Id<'a>: Copy + Eq + Hash + Debug + 'a {
    /// The text it names.
    fn text(self) -> &'a str;

    /// Its number, where the tree numbers its names from 0 (below
    /// [`View::id_numbers`]): a map by name can then be an array.
    fn number(self) -> Option<u32> {
        None
    }
}

impl<'a> Id<'a> for &'a str {
    fn text(self) -> &'a str {
        self
    }
}

/// What a value is, as far as the layout cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind<'a> {
    Object,
    Array,
    Str(&'a str),
    Null,
    /// A boolean or a number.
    Other,
}

/// A value in a tree, borrowed: cheap to copy, compared by place with [`View::same`].
pub(crate) trait View<'a>: Copy + 'a {
    /// The name of an id or of an entry's key (see [`Id`]).
    type Id: Id<'a>;

    fn kind(self) -> Kind<'a>;

    /// An object's entries or an array's items (with the key `""`), in order; nothing for a
    /// scalar.
    fn children(self) -> impl Iterator<Item = (&'a str, Self)> + 'a;

    /// How many entries or items it has.
    fn len(self) -> usize;

    /// An object's value under `key` (the first, if a key is held twice).
    fn get(self, key: &str) -> Option<Self>;

    /// Whether `other` is this very value, not merely an equal one.
    fn same(self, other: Self) -> bool;

    /// Whether the two are equal, objects as maps (the order of their entries aside).
    fn equal(self, other: Self) -> bool;

    fn is_object(self) -> bool {
        self.kind() == Kind::Object
    }

    fn as_str(self) -> Option<&'a str> {
        match self.kind() {
            Kind::Str(s) => Some(s),
            _ => None,
        }
    }

    /// A component's id: the `id` of an object with a `component_type`, both strings.
    fn component_id(self) -> Option<&'a str> {
        if !self.is_object() {
            return None;
        }
        self.get("component_type")?.as_str()?;
        self.get("id")?.as_str()
    }

    /// The key a `{"$component_ref": key}` object names (an object with that one entry).
    fn reference(self) -> Option<&'a str> {
        if self.is_object() && self.len() == 1 {
            self.get("$component_ref")?.as_str()
        } else {
            None
        }
    }

    /// An object's `$referenced_components`, whatever it holds.
    fn referenced_components(self) -> Option<Self> {
        if self.is_object() {
            self.get("$referenced_components")
        } else {
            None
        }
    }

    /// [`View::component_id`], by name.
    fn component_key(self) -> Option<Self::Id>;

    /// [`View::reference`], by name.
    fn reference_key(self) -> Option<Self::Id>;

    /// An object's entries, each with its key by name, in order.
    fn keyed_children(self) -> impl Iterator<Item = (Self::Id, Self)> + 'a;

    /// How many numbers its tree's names take ([`Id::number`]): 0 when they have none.
    fn id_numbers(self) -> usize {
        0
    }
}

impl<'a> View<'a> for &'a Value {
    type Id = &'a str;

    fn kind(self) -> Kind<'a> {
        match self {
            Value::Object(_) => Kind::Object,
            Value::Array(_) => Kind::Array,
            Value::String(s) => Kind::Str(s),
            Value::Null => Kind::Null,
            Value::Bool(_) | Value::Number(_) => Kind::Other,
        }
    }

    fn children(self) -> impl Iterator<Item = (&'a str, Self)> + 'a {
        let (entries, items) = match self {
            Value::Object(map) => (Some(map), None),
            Value::Array(items) => (None, Some(items)),
            _ => (None, None),
        };
        let entries = entries
            .into_iter()
            .flat_map(|map| map.iter().map(|(k, v)| (k.as_str(), v)));
        entries.chain(
            items
                .into_iter()
                .flat_map(|items| items.iter().map(|v| ("", v))),
        )
    }

    fn len(self) -> usize {
        match self {
            Value::Object(map) => map.len(),
            Value::Array(items) => items.len(),
            _ => 0,
        }
    }

    fn get(self, key: &str) -> Option<Self> {
        match self {
            Value::Object(map) => crate::syntax::value::field(map, key),
            _ => None,
        }
    }

    fn same(self, other: Self) -> bool {
        std::ptr::eq(self, other)
    }

    fn equal(self, other: Self) -> bool {
        std::ptr::eq(self, other) || self == other
    }

    fn component_key(self) -> Option<&'a str> {
        self.component_id()
    }

    fn reference_key(self) -> Option<&'a str> {
        self.reference()
    }

    fn keyed_children(self) -> impl Iterator<Item = (&'a str, Self)> + 'a {
        self.children()
    }
}
