//! The intermediate model: what the schema files say, read by their conventions, before
//! any Rust is emitted.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::Value;

/// An Agent Spec version, compared numerically.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version(pub u16, pub u16, pub u16);

impl Version {
    /// Parses `"25.4.1"`.
    pub fn parse(text: &str) -> Option<Version> {
        let mut parts = text.split('.').map(|p| p.parse::<u16>().ok());
        let v = Version(parts.next()??, parts.next()??, parts.next()??);
        parts.next().is_none().then_some(v)
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.0, self.1, self.2)
    }
}

/// The Rust shape of a field or value.
#[derive(Debug, Clone, PartialEq)]
pub enum Ty {
    /// `String`.
    String,
    /// `bool`.
    Bool,
    /// `i64`.
    Int,
    /// `f64`.
    Float,
    /// Free-form JSON: `serde_json::Value`.
    Json,
    /// Free-form JSON object: `serde_json::Map`.
    JsonObject,
    /// A JSON Schema describing an input or output (`Property`).
    Property,
    /// `Option<T>`: the schema allows `null`.
    Option(Box<Ty>),
    /// `Vec<T>`.
    Vec(Box<Ty>),
    /// `IndexMap<String, T>`: an object with arbitrary keys.
    Map(Box<Ty>),
    /// A pair (`prefixItems` of two).
    Pair(Box<Ty>, Box<Ty>),
    /// A concrete component in a reference-or-inline position: `RefOr<X>`.
    Component(String),
    /// A family of components in a reference-or-inline position: `RefOr<Family>`.
    Family(String),
    /// A plain value struct (no `component_type`).
    Struct(String),
    /// A string enum.
    Enum(String),
    /// A union of values told apart by their JSON type.
    Union(String),
    /// A sensitive value: the value, or a `{"$component_ref": "<id>.<field>"}` placeholder.
    Sensitive(Box<Ty>),
    /// The `$referenced_components` map.
    ReferencedComponents,
}

/// A field of a component or value struct.
#[derive(Debug, Clone)]
pub struct Field {
    /// Key in the JSON object.
    pub json_name: String,
    /// Rust field name (without `r#`).
    pub rust_name: String,
    /// Doc comment.
    pub doc: Option<String>,
    /// Rust shape.
    pub ty: Ty,
    /// What a missing key means.
    pub missing: Missing,
    /// A fixed value (`const`): not a Rust field, checked on load and written as is.
    pub constant: Option<String>,
    /// The first version whose schema file lists this field.
    pub since: Version,
    /// Whether a `null` value is left out when writing (declared; pyagentspec's `exclude_none`).
    pub skip_null: bool,
    /// Numeric bounds from the schema, checked on load: (minimum, inclusive).
    pub minimum: Option<(f64, bool)>,
}

/// What a field's absence means when loading.
#[derive(Debug, Clone, PartialEq)]
pub enum Missing {
    /// The field is required: absence is an error.
    Required,
    /// The schema's default value.
    Default(Value),
    /// The type's empty value (`None`, empty list or map).
    Empty,
    /// A fresh unique id.
    FreshId,
}

/// A concrete component type: one struct, tagged by `component_type`.
#[derive(Debug, Clone)]
pub struct Component {
    /// The `component_type` value, also the struct name.
    pub name: String,
    /// Doc comment.
    pub doc: Option<String>,
    /// Fields in write order (`id`, `name`, `description` first).
    pub fields: Vec<Field>,
    /// The first version whose schema file lists this component.
    pub since: Version,
    /// JSON pointer of its definition in the newest file.
    pub pointer: String,
}

/// A plain value struct (`LlmGenerationConfig`, `RetryPolicy`, …).
#[derive(Debug, Clone)]
pub struct Struct {
    /// Rust name.
    pub name: String,
    /// Doc comment.
    pub doc: Option<String>,
    /// Fields in schema order.
    pub fields: Vec<Field>,
    /// `additionalProperties: true`: unknown keys are kept, in order.
    pub open: bool,
}

/// A string enum.
#[derive(Debug, Clone)]
pub struct StrEnum {
    /// Rust name.
    pub name: String,
    /// Doc comment.
    pub doc: Option<String>,
    /// (JSON string, Rust variant name), in schema order.
    pub variants: Vec<(String, String)>,
    /// Whether values compare as versions (the variants are then sorted numerically).
    pub is_version: bool,
}

/// A union of values told apart by their JSON type.
#[derive(Debug, Clone)]
pub struct Union {
    /// Rust name.
    pub name: String,
    /// Doc comment.
    pub doc: Option<String>,
    /// (variant name, its shape), one per JSON type.
    pub variants: Vec<(String, Ty)>,
}

/// Everything the schema files describe.
#[derive(Debug, Clone, Default)]
pub struct Model {
    /// Every version the files list, in order.
    pub versions: Vec<Version>,
    /// Concrete components by name.
    pub components: BTreeMap<String, Component>,
    /// Families: Rust enum name → the concrete components that may stand there.
    pub families: BTreeMap<String, Family>,
    /// Value structs by name.
    pub structs: BTreeMap<String, Struct>,
    /// String enums by name.
    pub enums: BTreeMap<String, StrEnum>,
    /// Unions by name.
    pub unions: BTreeMap<String, Union>,
}

/// A family of components (`x-abstract-component`, or a concrete class with subclasses).
#[derive(Debug, Clone)]
pub struct Family {
    /// Rust enum name.
    pub name: String,
    /// The family's name in the schema.
    pub schema_name: String,
    /// Doc comment.
    pub doc: Option<String>,
    /// The concrete components it admits, sorted.
    pub members: Vec<String>,
}
