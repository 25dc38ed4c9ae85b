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
    /// From which version pyagentspec writes it, where that differs from `since`
    /// (declared: the files are snapshots of the SDK and list fields it leaves out).
    pub written: Option<Written>,
    /// Whether a `null` value is left out when writing (declared; pyagentspec's `exclude_none`).
    pub skip_null: bool,
    /// A secret written as it is, as pyagentspec writes it (declared): masked in `Debug`, never
    /// replaced by a placeholder.
    pub written_in_clear: bool,
    /// Numeric bounds from the schema, checked on load: (minimum, inclusive).
    pub minimum: Option<(f64, bool)>,
    /// Whether the reference SDK reads it in older documents without raising their version
    /// (declared): a newer value is then a warning, not an error.
    pub informational: bool,
    /// A value that needs a newer version than the field (declared).
    pub gate: Option<ValueGate>,
    /// Legacy values upgraded when read (declared).
    pub upgrades: Vec<Upgrade>,
}

impl Field {
    /// Whether it holds a secret (`Sensitive<T>` or `Option<Sensitive<T>>`).
    pub fn is_sensitive(&self) -> bool {
        match &self.ty {
            Ty::Sensitive(_) => true,
            Ty::Option(inner) => matches!(**inner, Ty::Sensitive(_)),
            _ => false,
        }
    }

    /// The version from which the field is written: `since`, or the declared one
    /// (`None`: never, unless it holds something other than its default).
    pub fn written_since(&self) -> Option<Version> {
        match self.written {
            None => Some(self.since),
            Some(Written::From(v)) => Some(v),
            Some(Written::Never) => None,
        }
    }
}

/// From which version pyagentspec writes a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    /// From this version.
    From(Version),
    /// Never, unless it holds something other than its default (never dropped silently).
    Never,
}

/// A value that needs a newer version than its field exists from (pyagentspec's
/// `_infer_min_agentspec_version_from_configuration`).
#[derive(Debug, Clone, PartialEq)]
pub struct ValueGate {
    /// The version the value needs.
    pub since: Version,
    /// Which values need it.
    pub check: GateCheck,
    /// What holds the value, for messages ("set to `XAI`").
    pub what: String,
}

/// Which values of a field a [`ValueGate`] concerns.
#[derive(Debug, Clone, PartialEq)]
pub enum GateCheck {
    /// The field holds this enum value.
    Equals(String),
    /// A check of the runtime's `gates` module, by name.
    Function(String),
}

/// A legacy value the reference SDK upgrades when it reads it, and so writes in its new form.
#[derive(Debug, Clone, PartialEq)]
pub struct Upgrade {
    /// The legacy value.
    pub from: Value,
    /// What it becomes.
    pub to: Value,
    /// The values, for the warning.
    pub message: String,
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
