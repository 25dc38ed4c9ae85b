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
