//! Property schemas: valid types, titles without forbidden characters, defaults of the type,
//! no two properties of a list with one title.

#[allow(
    clippy::wildcard_imports,
    reason = "the rules share the module's helpers"
)]
use super::*;

const JSON_TYPES: [&str; 7] = [
    "string", "number", "integer", "boolean", "array", "object", "null",
];

/// Property schemas: valid types, titles without forbidden characters, defaults of the type,
/// no two properties with one title.
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
            None => report.warning(
                "property-without-title",
                body,
                at.clone(),
                "a property needs a `title`; it is named `property`",
            ),
            _ => {}
        }
        schema_rules(report, body, schema, &at);
    }
}

/// The structure JSON Schema gives its keywords: what each must hold.
fn keyword_problem(key: &str, value: &Value) -> Option<&'static str> {
    let schema = |v: &Value| v.is_object() || v.is_boolean();
    let non_negative = |v: &Value| v.as_u64().is_some();
    let ok = match key {
        "items" | "not" | "contains" | "if" | "then" | "else" => schema(value),
        "properties" | "patternProperties" | "$defs" | "definitions" => {
            value.as_object().is_some_and(|m| m.values().all(schema))
        }
        "additionalProperties" | "unevaluatedProperties" => schema(value),
        "anyOf" | "oneOf" | "allOf" | "prefixItems" => value
            .as_array()
            .is_some_and(|a| !a.is_empty() && a.iter().all(schema)),
        "required" => value
            .as_array()
            .is_some_and(|a| a.iter().all(Value::is_string)),
        "enum" => value.is_array(),
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => {
            value.is_number()
        }
        "minLength" | "maxLength" | "minItems" | "maxItems" | "minProperties" | "maxProperties" => {
            non_negative(value)
        }
        "title" | "description" | "pattern" | "format" | "$ref" => value.is_string(),
        _ => true,
    };
    (!ok).then_some(match key {
        "items"
        | "not"
        | "contains"
        | "if"
        | "then"
        | "else"
        | "additionalProperties"
        | "unevaluatedProperties" => "a schema (object or boolean)",
        "properties" | "patternProperties" | "$defs" | "definitions" => "an object of schemas",
        "anyOf" | "oneOf" | "allOf" | "prefixItems" => "a non-empty array of schemas",
        "required" => "an array of strings",
        "enum" => "an array",
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => {
            "a number"
        }
        "title" | "description" | "pattern" | "format" | "$ref" => "a string",
        _ => "a non-negative integer",
    })
}

fn schema_rules(report: &mut Report, body: &dyn ComponentInfo, schema: &JsonObject, at: &str) {
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
        if let Some(title) = map.get("title") {
            match title.as_str() {
                Some("") => report.error("property-title", body, token(&p, "title"), "a property title cannot be empty"),
                Some(t) if t.contains(['.', ',', '{', '}', ' ', '\n', '\'', '"']) => report.error(
                    "property-title",
                    body,
                    token(&p, "title"),
                    format!("the property title `{t}` contains one of . , {{ }} ' \" or a space or newline"),
                ),
                _ => {}
            }
        }
        let types: Vec<&str> = match map.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        for t in &types {
            if !JSON_TYPES.contains(t) {
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
        }
        if let Some(default) = map.get("default")
            && !types.is_empty()
            && !types.iter().any(|t| default_fits(t, default))
        {
            report.error(
                "property-default",
                body,
                token(&p, "default"),
                format!("the default {default} is not a {}", types.join(" or ")),
            );
        }
        if let Some(Value::Object(items)) = map.get("items") {
            stack.push((items, token(&p, "items")));
        }
        for key in ["anyOf", "oneOf", "allOf"] {
            for (i, alt) in map
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                if let Value::Object(alt) = alt {
                    stack.push((alt, token(&token(&p, key), &i.to_string())));
                }
            }
        }
        for (k, v) in map
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            if let Value::Object(v) = v {
                stack.push((v, token(&token(&p, "properties"), k)));
            }
        }
    }
}

/// Numbers and booleans convert to each other; a string default must be a string.
fn default_fits(ty: &str, default: &Value) -> bool {
    match ty {
        "null" => default.is_null(),
        "number" | "integer" | "boolean" => default.is_number() || default.is_boolean(),
        "string" => default.is_string(),
        "array" => default.is_array(),
        "object" => default.is_object(),
        _ => true,
    }
}
