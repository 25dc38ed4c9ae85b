//! Semantic validation: the rules of the language that the schema cannot express (flow
//! structure, inputs and outputs, data edges, property schemas, component values), checked
//! on the written document — whose layout is the source's, so pointers point into the file.

use crate::diagnostic::{Diagnostic, push_pointer_token};
use crate::version::Version;
use serde_json::{Map, Value};
use std::collections::{BTreeSet, HashMap, HashSet};

mod flow;
mod nodes;
mod types;

use flow::{branches, flow, inferred_branches};
use nodes::{inferred_io, node, retry_policies, section_seven, values};
pub(crate) use types::castable;
pub(crate) use types::type_name;

/// A component of the document: its body and where it stands.
struct Seen<'a> {
    body: &'a Map<String, Value>,
    pointer: String,
}

/// The document's components and `$referenced_components` entries, for rules to look at.
struct Index<'a> {
    /// Every `$referenced_components` entry by key.
    entries: HashMap<&'a str, Seen<'a>>,
    /// Every component body, in document order.
    components: Vec<Seen<'a>>,
}

fn token(pointer: &str, t: &str) -> String {
    let mut p = pointer.to_owned();
    push_pointer_token(&mut p, t);
    p
}

impl<'a> Index<'a> {
    fn build(root: &'a Value) -> Index<'a> {
        let mut index = Index {
            entries: HashMap::new(),
            components: Vec::new(),
        };
        let mut stack: Vec<(&'a Value, String)> = vec![(root, String::new())];
        while let Some((value, pointer)) = stack.pop() {
            match value {
                Value::Object(map) => {
                    if map.get("component_type").is_some_and(Value::is_string) {
                        index.components.push(Seen {
                            body: map,
                            pointer: pointer.clone(),
                        });
                    }
                    if let Some(Value::Object(entries)) = map.get("$referenced_components") {
                        for (k, v) in entries {
                            if let Value::Object(body) = v {
                                let p = token(&token(&pointer, "$referenced_components"), k);
                                index
                                    .entries
                                    .entry(k.as_str())
                                    .or_insert(Seen { body, pointer: p });
                            }
                        }
                    }
                    for (k, v) in map.iter().rev() {
                        stack.push((v, token(&pointer, k)));
                    }
                }
                Value::Array(items) => {
                    for (i, v) in items.iter().enumerate().rev() {
                        stack.push((v, token(&pointer, &i.to_string())));
                    }
                }
                _ => {}
            }
        }
        index
    }

    /// The component at a position (following a reference), with the pointer of its body.
    fn resolve(&self, value: &'a Value, pointer: &str) -> Option<(&'a Map<String, Value>, String)> {
        let map = value.as_object()?;
        match map.get("$component_ref").and_then(Value::as_str) {
            Some(id) => self.entries.get(id).map(|s| (s.body, s.pointer.clone())),
            None => Some((map, pointer.to_owned())),
        }
    }
}

/// The items of the array at `key` (none when it is absent or not an array).
fn list<'v>(map: &'v Map<String, Value>, key: &str) -> impl Iterator<Item = &'v Value> {
    map.get(key).and_then(Value::as_array).into_iter().flatten()
}

/// A property's title (a property without one is named `property`).
fn title_of(property: &Value) -> &str {
    property
        .get("title")
        .and_then(Value::as_str)
        .unwrap_or("property")
}

fn str_of<'v>(map: &'v Map<String, Value>, key: &str) -> &'v str {
    map.get(key).and_then(Value::as_str).unwrap_or("")
}

fn describe(body: &Map<String, Value>) -> String {
    format!(
        "{} `{}` ({})",
        str_of(body, "component_type"),
        str_of(body, "name"),
        str_of(body, "id")
    )
}

/// The titles of a list of properties (`inputs`, `outputs`), in order.
fn titles(body: &Map<String, Value>, key: &str) -> Vec<String> {
    body.get(key)
        .and_then(Value::as_array)
        .map(|list| list.iter().map(|p| title_of(p).to_owned()).collect())
        .unwrap_or_default()
}

/// The property titled `title` (a property without a title is named `property`).
fn property<'v>(body: &'v Map<String, Value>, key: &str, title: &str) -> Option<&'v Value> {
    body.get(key)?
        .as_array()?
        .iter()
        .find(|p| title_of(p) == title)
}

/// `{{ name }}` placeholders of a template (names of `\w` characters), deduplicated.
pub(crate) fn placeholders(template: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        rest = &rest[start + 2..];
        let Some(end) = rest.find("}}") else { break };
        let name = rest[..end].trim();
        if !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            out.insert(name.to_owned());
        }
        rest = &rest[end + 2..];
    }
    out
}

/// Collects diagnostics with their rule and component.
struct Report {
    diagnostics: Vec<Diagnostic>,
}

impl Report {
    fn error(
        &mut self,
        code: &'static str,
        body: &Map<String, Value>,
        pointer: String,
        rule: impl std::fmt::Display,
    ) {
        self.diagnostics.push(Diagnostic::error(
            code,
            format!("{}: {rule}", describe(body)),
            pointer,
            None,
        ));
    }

    fn warning(
        &mut self,
        code: &'static str,
        body: &Map<String, Value>,
        pointer: String,
        rule: impl std::fmt::Display,
    ) {
        self.diagnostics.push(Diagnostic::warning(
            code,
            format!("{}: {rule}", describe(body)),
            pointer,
            None,
        ));
    }
}

impl<C: crate::codec::ComponentSet + Send + Sync> crate::document::Document<C> {
    /// Checks the rules of the language the schema cannot express: flow structure, inputs
    /// and outputs, data edges and their types, property schemas, component values and
    /// version gates. Every problem is reported, each with a code, a message naming the
    /// rule and the component, and a pointer; a document loaded from text (and not changed
    /// since) also gives each its line and column.
    pub fn validate(&self) -> Vec<Diagnostic> {
        let value = self.to_value_with(&crate::WriteOptions::new().include_secrets(true));
        let components = self.components();
        let since: HashMap<&str, Version> = components
            .iter()
            .map(|c| (c.component_type(), c.since()))
            .collect();
        let plugins: HashMap<&str, crate::model::plugin::InferredIo> = components
            .iter()
            .filter_map(|c| c.as_plugin())
            .map(|p| (p.get().id(), p.get().inferred_io()))
            .collect();
        let mut diagnostics = validate(&value, self.agentspec_version(), &since, &plugins);
        if let Some(source) = &self.source
            && !diagnostics.is_empty()
        {
            crate::document::locate(&mut diagnostics, &source.text, source.format);
        }
        diagnostics
    }
}

/// Validates a document written as a value (secrets may be placeholders); `since` gives the
/// first version of each component type, `version` the document's.
pub(crate) fn validate(
    document: &Value,
    version: Version,
    since: &HashMap<&str, Version>,
    plugins: &HashMap<&str, crate::model::plugin::InferredIo>,
) -> Vec<Diagnostic> {
    let index = Index::build(document);
    let mut report = Report {
        diagnostics: Vec::new(),
    };
    for seen in &index.components {
        let (body, pointer) = (seen.body, seen.pointer.as_str());
        let ty = str_of(body, "component_type");
        if let Some(&first) = since.get(ty)
            && first > version
        {
            report.error(
                "version-too-old",
                body,
                token(pointer, "component_type"),
                format!("{ty} exists from Agent Spec {first}, and the document declares {version}"),
            );
        }
        for list in ["inputs", "outputs"] {
            properties(&mut report, body, pointer, list);
        }
        match ty {
            "Flow" => flow(&mut report, &index, body, pointer),
            _ => match plugins.get(str_of(body, "id")) {
                Some(io) if body.contains_key("component_plugin_name") => {
                    nodes::plugin_io(&mut report, body, pointer, io);
                }
                _ => {
                    node(&mut report, body, pointer);
                    inferred_io(&mut report, &index, body, pointer);
                }
            },
        }
        values(&mut report, body, pointer);
        retry_policies(&mut report, body, pointer);
        section_seven(&mut report, &index, body, pointer);
    }
    report.diagnostics
}

const JSON_TYPES: [&str; 7] = [
    "string", "number", "integer", "boolean", "array", "object", "null",
];

/// Property schemas: valid types, titles without forbidden characters, defaults of the type,
/// no two properties with one title.
fn properties(report: &mut Report, body: &Map<String, Value>, pointer: &str, list: &str) {
    let Some(items) = body.get(list).and_then(Value::as_array) else {
        return;
    };
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

fn schema_rules(report: &mut Report, body: &Map<String, Value>, schema: &Value, at: &str) {
    let mut stack = vec![(schema, at.to_owned())];
    while let Some((s, p)) = stack.pop() {
        let Some(map) = s.as_object() else { continue };
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
        if let Some(items) = map.get("items") {
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
                stack.push((alt, token(&token(&p, key), &i.to_string())));
            }
        }
        for (k, v) in map
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            stack.push((v, token(&token(&p, "properties"), k)));
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn finds_placeholders() {
        let found = placeholders("Hi {{ name }}, {{city}} and {{ a.b }} {{ bad-name }} {{name}}");
        assert_eq!(found.into_iter().collect::<Vec<_>>(), ["city", "name"]);
    }

    #[test]
    fn converts_types_as_the_language_says() {
        let s = json!({"type": "string"});
        let i = json!({"type": "integer"});
        let b = json!({"type": "boolean"});
        let list = json!({"type": "array", "items": {"type": "integer"}});
        assert!(castable(&list, &s), "everything converts to string");
        assert!(castable(&i, &b) && castable(&b, &i));
        assert!(!castable(&s, &i));
        assert!(castable(
            &json!({"anyOf": [i, b]}),
            &json!({"type": "number"})
        ));
        assert!(!castable(
            &json!({"anyOf": [i, s]}),
            &json!({"type": "number"})
        ));
        assert!(castable(
            &json!({"type": "object", "properties": {"x": i}}),
            &json!({"type": "object", "properties": {"x": s}})
        ));
        assert!(!castable(
            &json!({"type": "object", "properties": {}}),
            &json!({"type": "object", "properties": {"x": s}})
        ));
    }
}
