//! What the derives (`#[derive(AgentSpec)]`, `#[derive(Component)]`, `#[tool]`) expand to
//! and generated code needs, gathered under one path that is not part of the API and may
//! change in any release, the way serde's `__private` is.

pub use crate::JsonObject;
pub use crate::codec::plugin::{FamilyFields, FieldSchema, has_key, register_plugin};
pub use crate::codec::{
    ComponentInfo, ComponentSet, Decode, Decoder, Encode, Encoder, NewerField, Path, SecretField,
    Slot, Tagged, fresh_id, gates,
};
pub use crate::diagnostic::push_pointer_token;
pub use crate::model::plugin::Plugin;
pub use crate::model::refs::{RefOr, Sensitive, Truthy, UnknownValue};
pub use crate::model::walk::{ErasedVisit, Visit, Walk};
pub use crate::syntax::sink::Sink;
pub use crate::syntax::tree::{Entry, Node, Value as TreeValue};
pub use crate::syntax::value::{node_to_value, write_value};
pub use crate::version::Version;
pub use indexmap::IndexMap;
pub use serde_json;

/// A type that can be a field of an Agent Spec component (or value struct, or plugin) of
/// the component set `C`: read, written, walked and described. The derives use a field
/// only through this trait, so that a type that cannot be a field is one error at the
/// field, listing what can.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of an Agent Spec component",
    label = "not a field type",
    note = "a field is a `String`, `bool`, an integer (`i8`..`i64`, `u8`..`u64`, `usize`), `f64`, `serde_json::Value`, `JsonObject`, `Option<T>`, `Vec<T>`, `IndexMap<String, T>`, a pair `(A, B)`, `RefOr<T>`, `Sensitive<T>`, or a generated type (a component, a family such as `Node`, a value struct or an enum)"
)]
pub trait FieldType<C>: Decode + Encode + Walk<C> + FieldSchema {
    /// Reads the value of a field into its slot.
    fn read(node: Node, cx: &mut Decoder, path: &Path<'_>) -> Slot<Self> {
        match Self::decode(node, cx, path) {
            Some(v) => Slot::Present(v),
            None => Slot::Failed,
        }
    }
    /// Writes the value of a field.
    fn write(&self, sink: &mut dyn Sink, cx: &Encoder) {
        self.encode(sink, cx);
    }
    /// Visits the components the field holds.
    fn walk_field<'a>(&'a self, f: &mut dyn FnMut(Visit<'a, C>)) {
        self.walk(f);
    }
    /// Visits the components the field holds, with their pointers; `at` is the field's
    /// object, `key` the field.
    fn walk_field_at<'a>(
        &'a self,
        key: &str,
        at: &mut String,
        f: &mut dyn FnMut(&str, Visit<'a, C>),
    ) {
        if <Self as Walk<C>>::LEAF {
            return;
        }
        let len = at.len();
        crate::diagnostic::push_pointer_token(at, key);
        self.walk_at(at, f);
        at.truncate(len);
    }
    /// The JSON Schema of the field's values.
    fn schema() -> serde_json::Value {
        Self::field_schema()
    }
}

macro_rules! leaf_field {
    ($($t:ty),*) => {$( impl<C> FieldType<C> for $t {} )*};
}

leaf_field!(
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
    JsonObject
);

impl<C, T: FieldType<C>> FieldType<C> for Option<T> {}
impl<C, T: FieldType<C>> FieldType<C> for Vec<T> {}
impl<C, T: FieldType<C>> FieldType<C> for IndexMap<String, T> {}
impl<C, A: FieldType<C>, B: FieldType<C>> FieldType<C> for (A, B) {}
impl<C, T: FieldType<C> + Tagged> FieldType<C> for crate::RefOr<T> {}
impl<C, T: FieldType<C>> FieldType<C> for crate::Sensitive<T> {}

/// A list field (`inputs`, `branches`), set or not: what the component traits report.
pub trait AsList<T> {
    /// The items, when the list is set.
    fn as_list(&self) -> Option<&[T]>;
}

impl<T> AsList<T> for Vec<T> {
    fn as_list(&self) -> Option<&[T]> {
        Some(self)
    }
}

impl<T> AsList<T> for Option<Vec<T>> {
    fn as_list(&self) -> Option<&[T]> {
        self.as_deref()
    }
}
