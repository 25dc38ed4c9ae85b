//! Agent Spec properties from Rust types, through schemars: self-contained (nested types
//! inlined, no `$schema` or `$defs`), `oneOf` written as `anyOf` and nullable types as an
//! `anyOf` with `null` (the unions pyagentspec type-checks), schemars' non-standard
//! numeric `format`s dropped, titles checked against the language's rule.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

use super::{OutputShape, SpecError, ToolKind, ToolSpec};
use crate::JsonObject;
use crate::diagnostic::push_pointer_token;

/// Which side of serde a schema describes: what a type reads (inputs) or writes (outputs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Contract {
    /// What `Deserialize` accepts.
    Deserialize,
    /// What `Serialize` writes.
    Serialize,
}

/// Characters the language forbids in a property title, at any depth.
const TITLE_FORBIDDEN: &[char] = &['.', ',', '{', '}', ' ', '\n', '\'', '"'];

/// `format` values schemars writes for Rust numbers that JSON Schema does not define.
const RUST_FORMATS: &[&str] = &[
    "int", "int8", "int16", "int32", "int64", "int128", "uint", "uint8", "uint16", "uint32",
    "uint64", "uint128", "float", "double",
];

/// A problem found while cleaning a schema, before it is attached to a tool.
struct Problem {
    code: &'static str,
    message: String,
    pointer: String,
    /// serde's error, when a default cannot be written as JSON.
    source: Option<serde_json::Error>,
}

impl Problem {
    fn new(code: &'static str, message: String, pointer: String) -> Self {
        Problem {
            code,
            message,
            pointer,
            source: None,
        }
    }

    /// The error for the tool `tool` (empty for a lone property).
    fn into_error(self, tool: String) -> SpecError {
        SpecError {
            tool,
            code: self.code,
            message: self.message,
            pointer: self.pointer,
            source: self.source.map(std::sync::Arc::new),
        }
    }
}

/// The property `title` for values of `T`: its JSON Schema, cleaned for Agent Spec, with
/// the title first and the type's doc comment as description.
pub fn property<T: JsonSchema + ?Sized>(
    title: &str,
    contract: Contract,
) -> Result<JsonObject, SpecError> {
    assemble::<T>(title, None, None, contract, "").map_err(|p| p.into_error(String::new()))
}

fn schema_of<T: JsonSchema + ?Sized>(contract: Contract) -> Value {
    let settings = SchemaSettings::draft2020_12().with(|s| {
        s.inline_subschemas = true;
        s.meta_schema = None;
    });
    let settings = match contract {
        Contract::Deserialize => settings.for_deserialize(),
        Contract::Serialize => settings.for_serialize(),
    };
    settings
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
}

/// The property `title` of type `T`: `{title, description, default, ...schema}`.
fn assemble<T: JsonSchema + ?Sized>(
    title: &str,
    description: Option<&str>,
    default: Option<Value>,
    contract: Contract,
    pointer: &str,
) -> Result<JsonObject, Problem> {
    let schema = match schema_of::<T>(contract) {
        Value::Object(map) => map,
        Value::Bool(true) => Map::new(),
        _ => {
            return Err(Problem::new(
                "uninhabited-type",
                format!(
                    "`{}` admits no value, so no call could pass it",
                    std::any::type_name::<T>()
                ),
                pointer.to_owned(),
            ));
        }
    };
    let mut rest = schema;
    let subject = format!("`{}`, the type of `{title}`,", std::any::type_name::<T>());
    clean_map(&mut rest, pointer, &subject)?;
    rest.remove("$schema");
    rest.remove("title");
    let type_doc = rest.remove("description");
    finish(title, description, type_doc, default, rest, pointer)
}

/// Puts a cleaned schema together with its title, description and default, in the key
/// order pyagentspec writes (`title`, `description`, `default`, then the type).
fn finish(
    title: &str,
    description: Option<&str>,
    type_doc: Option<Value>,
    default: Option<Value>,
    rest: Map<String, Value>,
    pointer: &str,
) -> Result<JsonObject, Problem> {
    check_title(title, pointer)?;
    let mut out = Map::new();
    out.insert("title".into(), Value::String(title.to_owned()));
    match (description, type_doc) {
        (Some(d), _) => {
            out.insert("description".into(), Value::String(d.to_owned()));
        }
        (None, Some(d)) => {
            out.insert("description".into(), d);
        }
        (None, None) => {}
    }
    let default_value = default.clone();
    if let Some(d) = default {
        out.insert("default".into(), d);
    }
    out.extend(rest);
    if let Some(d) = default_value
        && !accepts(&Value::Object(out.clone()), &d)
    {
        return Err(Problem::new(
            "invalid-default",
            format!("the default {d} of `{title}` does not match its schema"),
            pointer.to_owned(),
        ));
    }
    Ok(out)
}

fn check_title(title: &str, pointer: &str) -> Result<(), Problem> {
    if title.is_empty() || title.contains(TITLE_FORBIDDEN) {
        return Err(Problem::new(
            "invalid-title",
            format!(
                "the title `{title}` is empty or has one of . , {{ }} space newline ' \" \
                 (the language forbids them in property titles); rename it"
            ),
            pointer.to_owned(),
        ));
    }
    Ok(())
}

/// Cleans a schema in place, recursively; see the module docs. `subject` names the type in
/// messages (`` `Tree`, the type of `tree`, ``).
fn clean(value: &mut Value, pointer: &str, subject: &str) -> Result<(), Problem> {
    match value {
        Value::Object(map) => clean_map(map, pointer, subject),
        _ => Ok(()),
    }
}

fn clean_map(map: &mut Map<String, Value>, pointer: &str, subject: &str) -> Result<(), Problem> {
    if let Some(key) = ["$ref", "$defs", "definitions"]
        .into_iter()
        .find(|k| map.contains_key(*k))
    {
        return Err(Problem::new(
            "recursive-type",
            format!(
                "{subject} is recursive, so its schema needs `{key}`, which Agent Spec \
                 properties cannot hold; use a non-recursive type (for example \
                 `serde_json::Value` for the recursive part)"
            ),
            pointer.to_owned(),
        ));
    }
    let old = std::mem::take(map);
    for (key, mut sub) in old {
        let key = if key == "oneOf" {
            "anyOf".to_owned()
        } else {
            key
        };
        let here = {
            let mut p = pointer.to_owned();
            push_pointer_token(&mut p, &key);
            p
        };
        match key.as_str() {
            "format" if sub.as_str().is_some_and(|f| RUST_FORMATS.contains(&f)) => continue,
            "title" => {
                if let Some(t) = sub.as_str() {
                    check_title(t, &here)?;
                }
            }
            "properties" | "patternProperties" | "$defs" => {
                if let Value::Object(children) = &mut sub {
                    for (name, child) in children.iter_mut() {
                        let mut p = here.clone();
                        push_pointer_token(&mut p, name);
                        clean(child, &p, subject)?;
                    }
                }
            }
            "anyOf" | "allOf" | "prefixItems" => {
                if let Value::Array(items) = &mut sub {
                    for (i, child) in items.iter_mut().enumerate() {
                        clean(child, &format!("{here}/{i}"), subject)?;
                    }
                }
            }
            "items"
            | "additionalProperties"
            | "not"
            | "if"
            | "then"
            | "else"
            | "contains"
            | "propertyNames"
            | "unevaluatedProperties" => clean(&mut sub, &here, subject)?,
            _ => {}
        }
        map.insert(key, sub);
    }
    if map.get("type").and_then(Value::as_str) == Some("object")
        && map
            .get("additionalProperties")
            .is_some_and(Value::is_object)
        && !map.contains_key("properties")
    {
        // a map: written with empty `properties`, as pyagentspec's DictProperty is
        let at = map.len();
        map.insert("properties".into(), Value::Object(Map::new()));
        debug_assert_eq!(map.len(), at + 1);
    }
    nullable_as_any_of(map);
    Ok(())
}

/// `{"type": [T, "null"], ...}` becomes `{"anyOf": [{"type": T, ...}, {"type": "null"}]}`,
/// the annotations (`title`, `description`, `default`) staying outside.
fn nullable_as_any_of(map: &mut Map<String, Value>) {
    let Some(Value::Array(types)) = map.get("type") else {
        return;
    };
    let [a, b] = types.as_slice() else { return };
    let other = match (a.as_str(), b.as_str()) {
        (Some("null"), Some(t)) | (Some(t), Some("null")) if t != "null" => t.to_owned(),
        _ => return,
    };
    let old = std::mem::take(map);
    let mut branch = Map::new();
    let mut placed = false;
    for (key, value) in old {
        match key.as_str() {
            "title" | "description" | "default" | "examples" => {
                map.insert(key, value);
            }
            "type" => {
                branch.insert(key, Value::String(other.clone()));
                if !placed {
                    map.insert("anyOf".into(), Value::Null);
                    placed = true;
                }
            }
            "enum" => {
                let values = match value {
                    Value::Array(v) => v.into_iter().filter(|x| !x.is_null()).collect(),
                    v => vec![v],
                };
                branch.insert(key, Value::Array(values));
            }
            _ => {
                branch.insert(key, value);
            }
        }
    }
    let null = serde_json::json!({ "type": "null" });
    map.insert(
        "anyOf".into(),
        Value::Array(vec![Value::Object(branch), null]),
    );
}

/// Whether `value` fits `schema` for the keywords cleaned schemas use (`type`, `enum`,
/// `const`, `anyOf`, `items`, `properties`, `required`, bounds): enough to check a default.
fn accepts(schema: &Value, value: &Value) -> bool {
    let Some(m) = schema.as_object() else {
        return schema != &Value::Bool(false);
    };
    let type_ok = |t: &Value| match t.as_str() {
        Some("null") => value.is_null(),
        Some("boolean") => value.is_boolean(),
        Some("string") => value.is_string(),
        Some("number") => value.is_number(),
        Some("integer") => value.is_i64() || value.is_u64(),
        Some("array") => value.is_array(),
        Some("object") => value.is_object(),
        _ => true,
    };
    let checks = [
        m.get("type").is_none_or(|t| match t {
            Value::Array(ts) => ts.iter().any(type_ok),
            t => type_ok(t),
        }),
        m.get("enum")
            .and_then(Value::as_array)
            .is_none_or(|e| e.contains(value)),
        m.get("const").is_none_or(|c| c == value),
        m.get("anyOf")
            .and_then(Value::as_array)
            .is_none_or(|alts| alts.iter().any(|s| accepts(s, value))),
        m.get("minimum")
            .and_then(Value::as_f64)
            .is_none_or(|min| value.as_f64().is_none_or(|v| v >= min)),
        m.get("maximum")
            .and_then(Value::as_f64)
            .is_none_or(|max| value.as_f64().is_none_or(|v| v <= max)),
    ];
    if checks.contains(&false) {
        return false;
    }
    match value {
        Value::Array(items) => m
            .get("items")
            .is_none_or(|s| items.iter().all(|v| accepts(s, v))),
        Value::Object(fields) => {
            let props = m.get("properties").and_then(Value::as_object);
            let required_ok = m
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .all(|k| fields.contains_key(k));
            required_ok
                && fields
                    .iter()
                    .all(|(k, v)| props.and_then(|p| p.get(k)).is_none_or(|s| accepts(s, v)))
        }
        _ => true,
    }
}

/// Builds a [`ToolSpec`] from Rust types: what `#[tool]` expands to.
#[derive(Debug)]
pub struct SpecBuilder {
    spec: ToolSpec,
    error: Option<Problem>,
}

impl std::fmt::Debug for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at {}: {}", self.code, self.pointer, self.message)
    }
}

impl SpecBuilder {
    /// A tool named `name` of `kind`.
    pub fn new(name: &str, kind: ToolKind) -> Self {
        SpecBuilder {
            spec: ToolSpec::new(name, kind),
            error: None,
        }
    }

    /// Sets the description.
    pub fn description(mut self, description: Option<&str>) -> Self {
        self.spec.description = description.map(str::to_owned);
        self
    }

    /// Sets `requires_confirmation`.
    pub fn requires_confirmation(mut self, requires: bool) -> Self {
        self.spec.requires_confirmation = requires;
        self
    }

    fn push_input(
        mut self,
        property: impl FnOnce(&str) -> Result<JsonObject, Problem>,
        title: &str,
    ) -> Self {
        if self.error.is_some() {
            return self;
        }
        let pointer = format!("/inputs/{}", self.spec.inputs.len());
        if self.spec.input_titles().any(|t| t == title) {
            self.error = Some(duplicate(title, &pointer));
            return self;
        }
        match property(&pointer) {
            Ok(p) => self.spec.inputs.push(p),
            Err(e) => self.error = Some(e),
        }
        self
    }

    /// A required input of type `T`.
    pub fn input<T: JsonSchema + ?Sized>(self, title: &str, description: Option<&str>) -> Self {
        self.push_input(
            |p| assemble::<T>(title, description, None, Contract::Deserialize, p),
            title,
        )
    }

    /// An input of an `Option` type `T`: `default: null`.
    pub fn input_optional<T: JsonSchema + ?Sized>(
        self,
        title: &str,
        description: Option<&str>,
    ) -> Self {
        let null = Some(Value::Null);
        self.push_input(
            |p| assemble::<T>(title, description, null, Contract::Deserialize, p),
            title,
        )
    }

    /// An input of type `T` whose default is `default`.
    pub fn input_default<T: JsonSchema + serde::Serialize>(
        self,
        title: &str,
        description: Option<&str>,
        default: &T,
    ) -> Self {
        self.push_input(
            |p| {
                let value = serde_json::to_value(default).map_err(|e| Problem {
                    code: "invalid-default",
                    message: format!("the default of `{title}` cannot be written as JSON: {e}"),
                    pointer: p.to_owned(),
                    source: Some(e),
                })?;
                assemble::<T>(title, description, Some(value), Contract::Deserialize, p)
            },
            title,
        )
    }

    /// The one output, of type `T`: the call returns its value.
    pub fn output<T: JsonSchema + ?Sized>(
        mut self,
        title: &str,
        description: Option<&str>,
    ) -> Self {
        if self.error.is_none() {
            match assemble::<T>(title, description, None, Contract::Serialize, "/outputs/0") {
                Ok(p) => {
                    self.spec.outputs = vec![p];
                    self.spec.shape = OutputShape::Single;
                }
                Err(e) => self.error = Some(e),
            }
        }
        self
    }

    /// One output per field of `T`, which must be written as an object: the call returns
    /// that object, keyed by the outputs' titles.
    pub fn output_fields<T: JsonSchema + ?Sized>(mut self) -> Self {
        if self.error.is_none() {
            match fields::<T>() {
                Ok(outputs) => {
                    self.spec.outputs = outputs;
                    self.spec.shape = OutputShape::Fields;
                }
                Err(e) => self.error = Some(e),
            }
        }
        self
    }

    /// The description, or the first thing that could not be described.
    pub fn build(self) -> Result<ToolSpec, SpecError> {
        match self.error {
            None => Ok(self.spec),
            Some(p) => Err(p.into_error(self.spec.name)),
        }
    }
}

fn duplicate(title: &str, pointer: &str) -> Problem {
    Problem::new(
        "duplicate-property",
        format!("two properties are titled `{title}`; rename one"),
        pointer.to_owned(),
    )
}

/// The outputs of a struct-like `T`, one per property of its schema.
fn fields<T: JsonSchema + ?Sized>() -> Result<Vec<JsonObject>, Problem> {
    let type_name = std::any::type_name::<T>();
    let mut schema = schema_of::<T>(Contract::Serialize);
    clean(&mut schema, "/outputs", &format!("`{type_name}`"))?;
    let props = match schema.get_mut("properties").map(Value::take) {
        Some(Value::Object(props)) if schema.get("type") == Some(&"object".into()) => props,
        _ => {
            return Err(Problem::new(
                "outputs-not-object",
                format!(
                    "one output per field needs a struct written as a JSON object; \
                     `{type_name}` is not one"
                ),
                "/outputs".into(),
            ));
        }
    };
    let mut outputs: Vec<JsonObject> = Vec::with_capacity(props.len());
    for (i, (name, field)) in props.into_iter().enumerate() {
        let pointer = format!("/outputs/{i}");
        if outputs
            .iter()
            .any(|o| o.get("title") == Some(&Value::String(name.clone())))
        {
            return Err(duplicate(&name, &pointer));
        }
        let Value::Object(mut rest) = field else {
            return Err(Problem::new(
                "outputs-not-object",
                format!("the field `{name}` of `{type_name}` has no schema"),
                pointer,
            ));
        };
        rest.remove("title");
        let doc = rest.remove("description");
        outputs.push(finish(&name, None, doc, None, rest, &pointer)?);
    }
    Ok(outputs)
}
