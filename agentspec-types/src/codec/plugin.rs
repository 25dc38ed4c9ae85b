//! Plugin component types as the decoder meets them: the traits `#[derive(Component)]`
//! implements, the JSON Schema of field types, and the registry the loader looks plugins up in.

use crate::JsonObject;
use crate::model::encoder::Encoder;
use crate::model::plugin::{Plugin, PluginComponent};
use crate::syntax::sink::Sink;

/// The fields every member of a family has (`NodeFields`, `ToolFields`, …,
/// `ComponentFields`): the base of a plugin component that extends the family.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not the fields of a family of components",
    label = "not a `#[component(base)]` type",
    note = "the base of a plugin is `NodeFields`, `ToolFields`, … (the family it extends), or `ComponentFields`"
)]
pub trait FamilyFields: crate::codec::Decode + Clone + std::fmt::Debug + PartialEq {
    /// The family enum (`Node`), whose positions the plugin may stand in.
    type Family: crate::codec::Tagged;
    /// The JSON keys of the fields, in write order.
    const KEYS: &'static [&'static str];
    #[doc(hidden)]
    /// Writes the fields' keys and values (no braces), but `$referenced_components`.
    fn encode_fields(&self, sink: &mut dyn Sink, cx: &Encoder);
    #[doc(hidden)]
    /// Writes `$referenced_components` when it is not empty: last, after the plugin's keys.
    fn encode_referenced(&self, sink: &mut dyn Sink, cx: &Encoder);
    /// The `id` field (`""` when the family has none).
    fn id(&self) -> &str;
    /// The `name` field (`""` when the family has none).
    fn name(&self) -> &str;
    /// The keys that must be present.
    const REQUIRED: &'static [&'static str];
    /// The family's name in the published schema (`Node`, `LlmConfig`; `Component` for none).
    const SCHEMA_NAME: &'static str;
    /// Adds the JSON Schema of each field to `properties`.
    fn schema_properties(properties: &mut JsonObject);
    /// The `inputs` field, when the family has it and it is set.
    fn inputs(&self) -> Option<&[JsonObject]> {
        None
    }
    /// The `outputs` field, when the family has it and it is set.
    fn outputs(&self) -> Option<&[JsonObject]> {
        None
    }
    /// The `branches` field, when the family has it.
    fn branches(&self) -> Option<&[String]> {
        None
    }
    /// The field written as `key`, to downcast to its Rust type.
    fn field(&self, key: &str) -> Option<&dyn std::any::Any> {
        let _ = key;
        None
    }
}

/// The JSON Schema of the values of a field type, for a plugin component's schema:
/// components and families refer to their definition in the published schema
/// (`{"$ref": "#/$defs/LlmConfig"}`), value types are written out.
pub trait FieldSchema {
    /// The schema.
    fn field_schema() -> serde_json::Value;
}

macro_rules! leaf_schema {
    ($($t:ty => $schema:tt),* $(,)?) => {$(
        impl FieldSchema for $t {
            fn field_schema() -> serde_json::Value {
                serde_json::json!($schema)
            }
        }
    )*};
}

leaf_schema!(
    String => {"type": "string"},
    bool => {"type": "boolean"},
    i64 => {"type": "integer"},
    i8 => {"type": "integer", "minimum": i8::MIN, "maximum": i8::MAX},
    i16 => {"type": "integer", "minimum": i16::MIN, "maximum": i16::MAX},
    i32 => {"type": "integer", "minimum": i32::MIN, "maximum": i32::MAX},
    u8 => {"type": "integer", "minimum": 0, "maximum": u8::MAX},
    u16 => {"type": "integer", "minimum": 0, "maximum": u16::MAX},
    u32 => {"type": "integer", "minimum": 0, "maximum": u32::MAX},
    u64 => {"type": "integer", "minimum": 0},
    usize => {"type": "integer", "minimum": 0},
    f64 => {"type": "number"},
    serde_json::Value => {},
    JsonObject => {"type": "object"},
);

impl<T: FieldSchema> FieldSchema for Option<T> {
    fn field_schema() -> serde_json::Value {
        serde_json::json!({"anyOf": [T::field_schema(), {"type": "null"}]})
    }
}

impl<T: FieldSchema> FieldSchema for Vec<T> {
    fn field_schema() -> serde_json::Value {
        serde_json::json!({"type": "array", "items": T::field_schema()})
    }
}

impl<T: FieldSchema> FieldSchema for indexmap::IndexMap<String, T> {
    fn field_schema() -> serde_json::Value {
        serde_json::json!({"type": "object", "additionalProperties": T::field_schema()})
    }
}

impl<A: FieldSchema, B: FieldSchema> FieldSchema for (A, B) {
    fn field_schema() -> serde_json::Value {
        serde_json::json!({"type": "array", "prefixItems": [A::field_schema(), B::field_schema()],
                           "minItems": 2, "maxItems": 2})
    }
}

/// A component or a reference to one: the family's definition already admits references.
impl<T: FieldSchema> FieldSchema for crate::RefOr<T> {
    fn field_schema() -> serde_json::Value {
        T::field_schema()
    }
}

/// A secret or its placeholder reference.
impl<T: FieldSchema> FieldSchema for crate::Sensitive<T> {
    fn field_schema() -> serde_json::Value {
        serde_json::json!({"anyOf": [T::field_schema(), {"$ref": "#/$defs/ComponentReference"}]})
    }
}

/// A plugin component type: what `#[derive(Component)]` implements.
pub trait PluginType: PluginComponent + Sized {
    /// Its `component_type`.
    const COMPONENT_TYPE: &'static str;
    /// The `component_plugin_name` it is written with.
    const PLUGIN_NAME: &'static str;
    /// The `component_plugin_version` it is written with.
    const PLUGIN_VERSION: &'static str;
    /// The `component_type`s of the family it extends: it may stand wherever all of them
    /// may. Every component type for a plugin that extends no family (it then stands only
    /// where any component may: a document root, `$referenced_components`).
    fn extends() -> &'static [&'static str];
    /// The published schema's name of the family it extends (`Node`; `Component` for none).
    fn family_schema_name() -> &'static str;
    /// Its JSON Schema, in the published files' `Base<X>` form: an object with
    /// `component_type`, the base's fields, its own, and the plugin keys.
    fn json_schema() -> serde_json::Value;
    #[doc(hidden)]
    /// Reads the body of an object whose `component_type` is [`Self::COMPONENT_TYPE`].
    fn decode_body(
        entries: Vec<crate::syntax::tree::Entry>,
        offset: u32,
        cx: &mut crate::codec::Decoder,
        path: &crate::codec::Path<'_>,
    ) -> Option<Self>;
}

/// How to read one registered plugin type.
#[derive(Clone, Copy)]
pub(crate) struct Registered {
    pub extends: fn() -> &'static [&'static str],
    pub family_schema_name: fn() -> &'static str,
    pub schema: fn() -> serde_json::Value,
    pub rust_type: &'static str,
    pub decode: fn(
        Vec<crate::syntax::tree::Entry>,
        u32,
        &mut crate::codec::Decoder,
        &crate::codec::Path<'_>,
    ) -> Option<Plugin>,
}

impl Registered {
    /// Whether it may stand where one of `members` is expected: where every member of the
    /// family it extends may.
    pub fn admitted(&self, members: &[&str]) -> bool {
        (self.extends)().iter().all(|m| members.contains(m))
    }
}

impl std::fmt::Debug for Registered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.rust_type)
    }
}

/// Registers `T` in `registry`, a [`PluginRegistry`] seen as `Any` (what
/// [`PluginComponent::register_type`](crate::plugin::PluginComponent::register_type) gives).
#[doc(hidden)]
pub fn register_plugin<T: PluginType>(registry: &mut dyn std::any::Any) {
    if let Some(registry) = registry.downcast_mut::<PluginRegistry>()
        && !registry.types.contains_key(T::COMPONENT_TYPE)
    {
        let _ = registry.register::<T>();
    }
}

/// The plugin component types a document may hold, by `component_type`.
#[derive(Debug, Clone, Default)]
pub struct PluginRegistry {
    pub(crate) types: indexmap::IndexMap<&'static str, Registered>,
}

impl PluginRegistry {
    /// No plugins.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers `T`; a second type with the same `component_type` replaces nothing and
    /// is reported.
    pub fn register<T: PluginType>(&mut self) -> Result<&mut Self, DuplicatePlugin> {
        if self.types.contains_key(T::COMPONENT_TYPE) {
            return Err(DuplicatePlugin(T::COMPONENT_TYPE));
        }
        fn decode<T: PluginType>(
            entries: Vec<crate::syntax::tree::Entry>,
            offset: u32,
            cx: &mut crate::codec::Decoder,
            path: &crate::codec::Path<'_>,
        ) -> Option<Plugin> {
            T::decode_body(entries, offset, cx, path).map(Plugin::new)
        }
        self.types.insert(
            T::COMPONENT_TYPE,
            Registered {
                extends: T::extends,
                family_schema_name: T::family_schema_name,
                schema: T::json_schema,
                rust_type: std::any::type_name::<T>(),
                decode: decode::<T>,
            },
        );
        Ok(self)
    }

    /// [`PluginRegistry::register`], by value.
    pub fn with<T: PluginType>(mut self) -> Result<Self, DuplicatePlugin> {
        self.register::<T>()?;
        Ok(self)
    }

    /// The registered `component_type`s, in registration order.
    pub fn component_types(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.types.keys().copied()
    }

    /// Adds the registered plugins to a schema file (`{"$defs": …, "anyOf": …}`, published
    /// or from [`version::json_schema`](crate::version::json_schema)): for each plugin `X`,
    /// the definitions `BaseX` (its schema), `X` (it or a reference) and `VersionedX` (its
    /// body with a required root `agentspec_version`), `X` among the members of the family
    /// it extends (`BaseNode`), and `VersionedX` among the roots (`VersionedComponent`, when
    /// the schema has it).
    pub fn extend_schema(&self, schema: &mut serde_json::Value) {
        use serde_json::{Value, json};
        for (name, registered) in &self.types {
            let reference = |def: &str| json!({ "$ref": format!("#/$defs/{def}") });
            let either = json!({"anyOf": [reference(&format!("Base{name}")), reference("ComponentReference")]});
            let base = (registered.schema)();
            if let Some(Value::Object(defs)) = schema.get_mut("$defs") {
                // The root form: the body with its `agentspec_version` (pinned to one
                // version in a schema from `version::json_schema`).
                let version = if defs.contains_key("RootAgentSpecVersion") {
                    "RootAgentSpecVersion"
                } else {
                    "AgentSpecVersionEnum"
                };
                let mut versioned = base.clone();
                versioned["properties"]["agentspec_version"] = reference(version);
                if let Value::Array(required) = &mut versioned["required"] {
                    required.push(json!("agentspec_version"));
                }
                defs.insert(format!("Base{name}"), base);
                defs.insert((*name).to_owned(), either);
                defs.insert(format!("Versioned{name}"), versioned);
                let family = format!("Base{}", (registered.family_schema_name)());
                if let Some(Value::Array(members)) =
                    defs.get_mut(&family).and_then(|f| f.get_mut("anyOf"))
                {
                    members.push(reference(name));
                }
            }
            // The roots: `VersionedComponent` in a schema from `version::json_schema` (it
            // is also what a components file holds), the top `anyOf` in a published file.
            let pointer = if schema.pointer("/$defs/VersionedComponent/anyOf").is_some() {
                "/$defs/VersionedComponent/anyOf"
            } else {
                "/anyOf"
            };
            if let Some(Value::Array(roots)) = schema.pointer_mut(pointer) {
                roots.push(reference(&format!("Versioned{name}")));
            }
        }
    }
}

/// Two plugin types claim the same `component_type`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("two plugin types are registered for the component type `{0}`")]
pub struct DuplicatePlugin(pub &'static str);

/// Whether `keys` holds `key`, at compile time: `#[derive(Component)]` checks with it that
/// a plugin's own fields do not collide with its base's.
pub const fn has_key(keys: &[&str], key: &str) -> bool {
    let mut i = 0;
    while i < keys.len() {
        let (a, b) = (keys[i].as_bytes(), key.as_bytes());
        if a.len() == b.len() {
            let mut j = 0;
            while j < a.len() && a[j] == b[j] {
                j += 1;
            }
            if j == a.len() {
                return true;
            }
        }
        i += 1;
    }
    false
}
