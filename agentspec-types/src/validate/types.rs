//! Type conversion between property schemas (the language's rules).

#[allow(
    clippy::wildcard_imports,
    reason = "the rules share the module's helpers"
)]
use super::*;

/// The type a property schema says, as messages name it.
pub(crate) fn property_type_name(schema: &JsonObject) -> String {
    type_name_of(Schema::Object(schema))
}

fn type_name_of(schema: Schema<'_>) -> String {
    match schema.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(other) => other.to_string(),
        None if schema.get("anyOf").is_some() => "a union".into(),
        None => "any".into(),
    }
}

/// Whether values of schema `a` convert to schema `b` (the language's conversion rules).
pub(crate) fn castable(a: &Value, b: &Value) -> bool {
    castable_schemas(Schema::of(a), Schema::of(b))
}

/// [`castable`] for two property schemas, as components hold them (nothing is copied).
pub(crate) fn castable_properties(a: &JsonObject, b: &JsonObject) -> bool {
    castable_schemas(Schema::Object(a), Schema::Object(b))
}

/// A schema, borrowed: an object, or any other JSON value (which has no keywords).
#[derive(Clone, Copy)]
enum Schema<'a> {
    Object(&'a JsonObject),
    Other,
}

impl<'a> Schema<'a> {
    fn of(v: &'a Value) -> Schema<'a> {
        v.as_object().map_or(Schema::Other, Schema::Object)
    }

    fn get(self, key: &str) -> Option<&'a Value> {
        match self {
            Schema::Object(m) => m.get(key),
            Schema::Other => None,
        }
    }

    /// The keywords that say what a value is (not its title, description or default).
    fn shape(self) -> impl Iterator<Item = (&'a String, &'a Value)> {
        let map = match self {
            Schema::Object(m) => Some(m),
            Schema::Other => None,
        };
        map.into_iter()
            .flatten()
            .filter(|(k, _)| !matches!(k.as_str(), "title" | "description" | "default"))
    }

    /// Whether both say the same of a value (their shapes are equal).
    fn same_shape(self, other: Schema<'_>) -> bool {
        match (self, other) {
            (Schema::Object(_), Schema::Object(b)) => {
                // keys are unique: as many keywords, each found in `b` with the same value
                self.shape().count() == other.shape().count()
                    && self.shape().all(|(k, v)| b.get(k) == Some(v))
            }
            (Schema::Other, Schema::Other) => true,
            _ => false,
        }
    }

    /// Whether it is a union: `anyOf`, or a list of types.
    fn is_union(self) -> bool {
        self.get("anyOf").is_some_and(Value::is_array)
            || self.get("type").is_some_and(Value::is_array)
    }

    /// The alternatives of a union (itself, when it is none).
    fn alternatives(self) -> Vec<std::borrow::Cow<'a, Value>> {
        use std::borrow::Cow;
        match (
            self.get("anyOf").and_then(Value::as_array),
            self.get("type"),
        ) {
            (Some(alts), _) => alts.iter().map(Cow::Borrowed).collect(),
            (None, Some(Value::Array(types))) => types
                .iter()
                .map(|t| Cow::Owned(serde_json::json!({ "type": t })))
                .collect(),
            _ => match self {
                Schema::Object(m) => vec![Cow::Owned(Value::Object(m.clone()))],
                Schema::Other => vec![Cow::Owned(Value::Bool(true))],
            },
        }
    }
}

fn castable_schemas(a: Schema<'_>, b: Schema<'_>) -> bool {
    if a.same_shape(b) {
        return true;
    }
    if a.is_union() || b.is_union() {
        let (aa, bb) = (a.alternatives(), b.alternatives());
        if aa.len() > 1 || bb.len() > 1 {
            return aa.iter().all(|x| bb.iter().any(|y| castable(x, y)));
        }
    }
    let tb = b.get("type").and_then(Value::as_str);
    let ta = a.get("type").and_then(Value::as_str);
    match (ta, tb) {
        (_, None) => true,
        (_, Some("string")) => true,
        (Some(x), Some(y))
            if ["number", "integer", "boolean"].contains(&x)
                && ["number", "integer", "boolean"].contains(&y) =>
        {
            true
        }
        (Some("array"), Some("array")) => match (a.get("items"), b.get("items")) {
            (Some(x), Some(y)) => castable(x, y),
            _ => true,
        },
        (Some("object"), Some("object")) => {
            let pa = a.get("properties").and_then(Value::as_object);
            b.get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
                .all(|(k, vb)| {
                    pa.and_then(|pa| pa.get(k))
                        .is_some_and(|va| castable(va, vb))
                })
        }
        (Some(x), Some(y)) => x == y,
        (None, Some(_)) => false,
    }
}

/// The alternatives of a union schema, as pyagentspec lists them: its `anyOf`, then one
/// schema per name in `type` (an array keeps its `items`; an object its `properties` and
/// `additionalProperties`, `false` when left out).
fn union_alternatives(s: Option<&JsonObject>) -> Vec<Value> {
    let mut all: Vec<Value> = get(s, "anyOf")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let names: Vec<&Value> = match get(s, "type") {
        Some(Value::Array(names)) => names.iter().collect(),
        Some(name) => vec![name],
        None => Vec::new(),
    };
    let or = |k: &str, default: Value| get(s, k).cloned().unwrap_or(default);
    for name in names {
        all.push(match name.as_str() {
            Some("array") => serde_json::json!({"type": "array", "items": or("items", Value::Object(Map::new()))}),
            Some("object") => serde_json::json!({
                "type": "object",
                "properties": or("properties", Value::Object(Map::new())),
                "additionalProperties": or("additionalProperties", Value::Bool(false)),
            }),
            _ => serde_json::json!({ "type": name }),
        });
    }
    all
}

fn is_union(s: Option<&JsonObject>) -> bool {
    s.is_some_and(|s| s.contains_key("anyOf") || s.get("type").is_some_and(Value::is_array))
}

/// A keyword of a schema that may be none.
fn get<'s>(s: Option<&'s JsonObject>, key: &str) -> Option<&'s Value> {
    s.and_then(|s| s.get(key))
}

/// Whether two property schemas give the same type, as pyagentspec compares EndNode
/// outputs of one title, flow outputs and ParallelFlowNode inputs: the same alternatives,
/// the same type, items, properties and additional properties; titles, descriptions,
/// defaults and every other keyword do not count.
pub(crate) fn same_type(a: &JsonObject, b: &JsonObject) -> bool {
    same(Some(a), Some(b))
}

fn same(a: Option<&JsonObject>, b: Option<&JsonObject>) -> bool {
    if is_union(a) || is_union(b) {
        let (aa, bb) = (union_alternatives(a), union_alternatives(b));
        let within = |xs: &[Value], ys: &[Value]| {
            xs.iter()
                .all(|x| ys.iter().any(|y| same(x.as_object(), y.as_object())))
        };
        return within(&aa, &bb) && within(&bb, &aa);
    }
    if get(a, "type") != get(b, "type") {
        return false;
    }
    let empty = Value::Object(Map::new());
    let or_empty = |s, k| get(s, k).unwrap_or(&empty);
    let either = |k: &str| get(a, k).is_some() || get(b, k).is_some();
    if either("items")
        && !same(
            or_empty(a, "items").as_object(),
            or_empty(b, "items").as_object(),
        )
    {
        return false;
    }
    if either("properties") {
        let (pa, pb) = (or_empty(a, "properties"), or_empty(b, "properties"));
        let (Some(pa), Some(pb)) = (pa.as_object(), pb.as_object()) else {
            return pa == pb;
        };
        let same_keys = pa.len() == pb.len() && pa.keys().all(|k| pb.contains_key(k));
        if !same_keys
            || !pa
                .iter()
                .all(|(k, v)| same(v.as_object(), pb[k].as_object()))
        {
            return false;
        }
    }
    if either("additionalProperties") {
        let (xa, xb) = (
            or_empty(a, "additionalProperties"),
            or_empty(b, "additionalProperties"),
        );
        if xa.is_boolean() || xb.is_boolean() {
            return xa == xb;
        }
        return same(xa.as_object(), xb.as_object());
    }
    true
}

/// Whether a value fits a property schema, as pyagentspec checks a property's default: a
/// union by one of its alternatives, numbers and booleans for each other, an array item by
/// item, an object by its properties (each given, unless its schema has a default) and its
/// additional properties. A string must be a string (pyagentspec takes any value there:
/// the one place this is stricter, a decision of the edge-case table).
pub(crate) fn fits(value: &Value, schema: &Value) -> bool {
    match schema {
        Value::Object(s) => fits_property(value, s),
        other => *other != Value::Bool(false),
    }
}

/// [`fits`] for a property schema, as components hold them (nothing is copied).
pub(crate) fn fits_property(value: &Value, s: &JsonObject) -> bool {
    if is_union(Some(s)) {
        return union_alternatives(Some(s))
            .iter()
            .any(|alt| fits(value, alt));
    }
    let empty = Value::Object(Map::new());
    match s.get("type").and_then(Value::as_str) {
        Some("null") => value.is_null(),
        Some("number" | "integer" | "boolean") => value.is_number() || value.is_boolean(),
        Some("string") => value.is_string(),
        Some("array") => value.as_array().is_some_and(|items| {
            let schema = s.get("items").unwrap_or(&empty);
            items.iter().all(|v| fits(v, schema))
        }),
        Some("object") => value.as_object().is_some_and(|o| object_fits(o, s)),
        _ => true,
    }
}

fn object_fits(value: &JsonObject, s: &JsonObject) -> bool {
    let none = Map::new();
    let declared = s
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&none);
    let given = declared.iter().all(|(k, schema)| match value.get(k) {
        Some(v) => fits(v, schema),
        None => schema.get("default").is_some(),
    });
    let extra = s.get("additionalProperties");
    given
        && value
            .iter()
            .filter(|(k, _)| !declared.contains_key(*k))
            .all(|(_, v)| extra.is_none_or(|x| fits(v, x)))
}
