//! Property schemas: each keyword holds what JSON Schema (draft 2020-12) lets it hold, titles
//! have no forbidden characters, a default fits its property, and no two properties of a
//! list share a title.

#[allow(
    clippy::wildcard_imports,
    reason = "the rules share the module's helpers"
)]
use super::*;

const JSON_TYPES: [&str; 7] = [
    "string", "number", "integer", "boolean", "array", "object", "null",
];

/// Keywords whose value is one schema.
const ONE_SCHEMA: [&str; 11] = [
    "items",
    "contains",
    "additionalProperties",
    "propertyNames",
    "if",
    "then",
    "else",
    "not",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
];

/// Keywords whose value is a non-empty list of schemas.
const SCHEMA_LISTS: [&str; 4] = ["prefixItems", "allOf", "anyOf", "oneOf"];

/// Keywords whose value maps names to schemas.
const SCHEMA_MAPS: [&str; 5] = [
    "properties",
    "patternProperties",
    "dependentSchemas",
    "$defs",
    "definitions",
];

/// The characters a property title cannot hold.
const FORBIDDEN_IN_TITLES: [char; 8] = ['.', ',', '{', '}', ' ', '\n', '\'', '"'];

/// The inputs or outputs (`key`) of a component: each a valid JSON Schema, with a title
/// without forbidden characters and a default that fits it, and no two with one title.
pub(super) fn properties(report: &mut Report, body: &dyn ComponentInfo, pointer: &str, key: &str) {
    let list = key;
    let items = index::list(body, key);
    let mut seen = HashSet::new();
    for (i, schema) in items.iter().enumerate() {
        let at = token(&token(pointer, list), &i.to_string());
        match schema.get("title").and_then(Value::as_str) {
            Some(title) if !seen.insert(title) => {
                report.error(
                    "duplicate-property",
                    body,
                    token(&at, "title"),
                    format!("two {list} are titled `{title}`"),
                );
            }
            Some("") => report.error(
                "property-title",
                body,
                token(&at, "title"),
                "a property title cannot be empty",
            ),
            None => report.warning(
                "property-without-title",
                body,
                at.clone(),
                "a property needs a `title`; it is named `property`",
            ),
            _ => {}
        }
        keywords(report, body, schema, &at);
        titles(report, body, schema, &at);
        if let Some(default) = schema.get("default")
            && !fits_property(default, schema)
        {
            report.error(
                "property-default",
                body,
                token(&at, "default"),
                format!(
                    "the default {default} does not fit the property's type ({})",
                    property_type_name(schema)
                ),
            );
        }
    }
}

/// Whether a number is a whole number of at least 0 (`1.0` is one).
fn non_negative_integer(v: &Value) -> bool {
    v.as_f64().is_some_and(|n| n >= 0.0 && n.fract() == 0.0)
}

/// Whether a value is a list of distinct strings.
fn distinct_strings(v: &Value) -> bool {
    v.as_array().is_some_and(|a| {
        let mut seen = HashSet::new();
        a.iter().all(|s| s.as_str().is_some_and(|s| seen.insert(s)))
    })
}

/// Whether a string is a JSON Schema anchor name.
fn anchor(v: &Value) -> bool {
    v.as_str().is_some_and(|s| {
        let mut chars = s.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'))
    })
}

/// What JSON Schema's meta-schema says a keyword holds, when `value` is not that.
fn keyword_problem(key: &str, value: &Value) -> Option<&'static str> {
    let schema = |v: &Value| v.is_object() || v.is_boolean();
    let (ok, expected) = match key {
        k if ONE_SCHEMA.contains(&k) => (schema(value), "a schema (object or boolean)"),
        k if SCHEMA_LISTS.contains(&k) => (
            value
                .as_array()
                .is_some_and(|a| !a.is_empty() && a.iter().all(schema)),
            "a non-empty array of schemas",
        ),
        k if SCHEMA_MAPS.contains(&k) => (
            value.as_object().is_some_and(|m| m.values().all(schema)),
            "an object of schemas",
        ),
        "dependencies" => (
            value
                .as_object()
                .is_some_and(|m| m.values().all(|v| schema(v) || distinct_strings(v))),
            "an object of schemas or of arrays of distinct strings",
        ),
        "dependentRequired" => (
            value
                .as_object()
                .is_some_and(|m| m.values().all(distinct_strings)),
            "an object of arrays of distinct strings",
        ),
        "required" => (distinct_strings(value), "an array of distinct strings"),
        "type" => (
            match value {
                Value::String(_) => true,
                Value::Array(names) => !names.is_empty() && distinct_strings(value),
                _ => false,
            },
            "a type name or a non-empty array of distinct type names",
        ),
        "enum" | "examples" => (value.is_array(), "an array"),
        "multipleOf" => (
            value.as_f64().is_some_and(|n| n > 0.0),
            "a number greater than 0",
        ),
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => {
            (value.is_number(), "a number")
        }
        "minLength" | "maxLength" | "minItems" | "maxItems" | "minProperties" | "maxProperties"
        | "minContains" | "maxContains" => (non_negative_integer(value), "a non-negative integer"),
        "uniqueItems" | "deprecated" | "readOnly" | "writeOnly" => {
            (value.is_boolean(), "a boolean")
        }
        "title" | "description" | "pattern" | "format" | "$ref" | "$dynamicRef"
        | "$recursiveRef" | "$comment" | "$schema" | "contentEncoding" | "contentMediaType" => {
            (value.is_string(), "a string")
        }
        "$id" => (
            // a `#` at the end at most
            value
                .as_str()
                .is_some_and(|s| s.find('#').is_none_or(|i| i + 1 == s.len())),
            "a string without a fragment",
        ),
        "$anchor" | "$dynamicAnchor" | "$recursiveAnchor" => (
            anchor(value),
            "a name of letters, digits, `-`, `.` and `_`, not starting with a digit, `-` or `.`",
        ),
        "$vocabulary" => (
            value
                .as_object()
                .is_some_and(|m| m.values().all(Value::is_boolean)),
            "an object of booleans",
        ),
        _ => (true, ""),
    };
    (!ok).then_some(expected)
}

/// The schemas a schema holds (under the keywords of [`ONE_SCHEMA`], [`SCHEMA_LISTS`],
/// [`SCHEMA_MAPS`] and `dependencies`), each with its pointer.
fn subschemas<'s>(map: &'s JsonObject, p: &str) -> Vec<(&'s JsonObject, String)> {
    let mut found = Vec::new();
    for (key, value) in map {
        let k = key.as_str();
        let inner: Vec<(String, &Value)> = if ONE_SCHEMA.contains(&k) {
            vec![(token(p, key), value)]
        } else if SCHEMA_LISTS.contains(&k) {
            let items = value.as_array().into_iter().flatten().enumerate();
            items
                .map(|(i, v)| (token(&token(p, key), &i.to_string()), v))
                .collect()
        } else if SCHEMA_MAPS.contains(&k) || k == "dependencies" {
            let entries = value.as_object().into_iter().flatten();
            entries
                .map(|(name, v)| (token(&token(p, key), name), v))
                .collect()
        } else {
            Vec::new()
        };
        found.extend(
            inner
                .into_iter()
                .filter_map(|(at, v)| v.as_object().map(|m| (m, at))),
        );
    }
    found
}

/// Every keyword of the schema and of the schemas it holds holds what the meta-schema says;
/// every type name is a JSON Schema type.
fn keywords(report: &mut Report, body: &dyn ComponentInfo, schema: &JsonObject, at: &str) {
    let mut stack: Vec<(&Map<String, Value>, String)> = vec![(schema, at.to_owned())];
    while let Some((map, p)) = stack.pop() {
        for (key, value) in map {
            if let Some(expected) = keyword_problem(key, value) {
                report.error(
                    "property-schema",
                    body,
                    token(&p, key),
                    format!("`{key}` must be {expected} in a JSON Schema"),
                );
            }
        }
        let types: Vec<&str> = match map.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        for t in types.into_iter().filter(|t| !JSON_TYPES.contains(t)) {
            report.error(
                "property-schema",
                body,
                token(&p, "type"),
                format!(
                    "`{t}` is not a JSON Schema type (one of {})",
                    JSON_TYPES.join(", ")
                ),
            );
        }
        stack.extend(subschemas(map, &p));
    }
}

/// No title holds `. , { } ' "`, a space or a newline: the property's own, nor those of the
/// schemas under its `items`, `anyOf`, `additionalProperties` and `properties`, at any
/// depth (the ones pyagentspec reads).
fn titles(report: &mut Report, body: &dyn ComponentInfo, schema: &JsonObject, at: &str) {
    let mut stack: Vec<(&Map<String, Value>, String)> = vec![(schema, at.to_owned())];
    while let Some((map, p)) = stack.pop() {
        if let Some(t) = map.get("title").and_then(Value::as_str)
            && t.contains(FORBIDDEN_IN_TITLES)
        {
            report.error(
                "property-title",
                body,
                token(&p, "title"),
                format!(
                    "the property title `{t}` contains one of . , {{ }} ' \" or a space or newline"
                ),
            );
        }
        for key in ["items", "additionalProperties"] {
            if let Some(Value::Object(inner)) = map.get(key) {
                stack.push((inner, token(&p, key)));
            }
        }
        let alternatives = map.get("anyOf").and_then(Value::as_array);
        for (i, alt) in alternatives.into_iter().flatten().enumerate() {
            if let Value::Object(alt) = alt {
                stack.push((alt, token(&token(&p, "anyOf"), &i.to_string())));
            }
        }
        let properties = map.get("properties").and_then(Value::as_object);
        for (k, v) in properties.into_iter().flatten() {
            if let Value::Object(v) = v {
                stack.push((v, token(&token(&p, "properties"), k)));
            }
        }
    }
}
