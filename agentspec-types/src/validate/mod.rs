//! Semantic validation: the rules of the language that the schema cannot express (flow
//! structure, inputs and outputs, data edges, property schemas, component values), checked
//! on the typed document. Each diagnostic points where the document writes what it is
//! about; a document loaded from text also gets line and column.

use crate::diagnostic::{Diagnostic, push_pointer_token};
use crate::model::component::ComponentInfo;
use crate::{Component, JsonObject};
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use serde_json::{Map, Value};
use std::collections::BTreeSet;

mod flow;
mod index;
mod nodes;
mod types;

use flow::{branches, flow, inferred_branches};
use index::{Index, Seen, has, list, typed};
use nodes::{inferred_io, node, retry_policies, section_seven, values};
pub(crate) use types::property_type_name;
pub(crate) use types::{castable, castable_properties};

fn token(pointer: &str, t: &str) -> String {
    let mut p = pointer.to_owned();
    push_pointer_token(&mut p, t);
    p
}

/// A property's title (a property without one is named `property`).
fn title_of(property: &JsonObject) -> &str {
    property
        .get("title")
        .and_then(Value::as_str)
        .unwrap_or("property")
}

fn describe(c: &dyn ComponentInfo) -> String {
    format!("{} `{}` ({})", c.component_type(), c.name(), c.id())
}

/// The titles of a component's inputs or outputs (`key`), in order.
fn titles(c: &dyn ComponentInfo, key: &str) -> Vec<String> {
    list(c, key)
        .iter()
        .map(|p| title_of(p).to_owned())
        .collect()
}

/// The property of a component's inputs or outputs (`key`) titled `title`.
fn property<'v>(c: &'v dyn ComponentInfo, key: &str, title: &str) -> Option<&'v JsonObject> {
    list(c, key).iter().find(|p| title_of(p) == title)
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
        c: &dyn ComponentInfo,
        pointer: String,
        rule: impl std::fmt::Display,
    ) {
        self.diagnostics.push(Diagnostic::error(
            code,
            format!("{}: {rule}", describe(c)),
            pointer,
            None,
        ));
    }

    fn warning(
        &mut self,
        code: &'static str,
        c: &dyn ComponentInfo,
        pointer: String,
        rule: impl std::fmt::Display,
    ) {
        self.diagnostics.push(Diagnostic::warning(
            code,
            format!("{}: {rule}", describe(c)),
            pointer,
            None,
        ));
    }
}

impl<C: crate::codec::ComponentSet + Send + Sync + 'static> crate::document::Document<C> {
    /// Checks the rules of the language the schema cannot express: flow structure, inputs
    /// and outputs, data edges and their types, property schemas, component values and
    /// version gates. Every problem is reported, each with a code, a message naming the
    /// rule and the component, and a pointer. A document loaded from text, and not changed
    /// since, gives each its line and column: a file's or a reader's text is kept to locate
    /// them, and a document of the bundled types loaded from a borrowed string was validated
    /// at load, while the text was at hand (this returns what was found then). A document of
    /// another component set loaded from a string locates them when it writes that text again
    /// (as it does what pyagentspec or this crate wrote); else [`locate`](crate::locate) adds
    /// them.
    ///
    /// The rules read the bundled component types; a document of another generated type set
    /// is checked as the bundled types read it (its load errors, if they cannot, are the
    /// diagnostics).
    pub fn validate(&self) -> Vec<Diagnostic> {
        self.validate_with(&crate::diagnostic::Levels::new())
    }

    /// [`Document::validate`](crate::document::Document::validate) with rule levels (`--deny` and `--allow` of `agentspec check`).
    pub fn validate_with(&self, levels: &crate::diagnostic::Levels) -> Vec<Diagnostic> {
        let mut found = self.validate_default();
        levels.apply(&mut found);
        found
    }

    fn validate_default(&self) -> Vec<Diagnostic> {
        if let Some(source) = &self.source
            && let crate::document::LoadedText::Validated(found) = &source.text
        {
            // validated at load, while the borrowed text was at hand
            return found.clone();
        }
        let bundled = match self.as_bundled() {
            Ok(doc) => doc,
            Err(e) => return e.diagnostics,
        };
        let mut diagnostics = validate(bundled.root(), bundled.agentspec_version());
        if self.source.is_none() {
            // built or changed in code: what no loader lets in
            diagnostics.splice(0..0, self.non_finite());
        }
        if let Some(source) = &self.source
            && !diagnostics.is_empty()
            && let Some(text) = source.text(self)
        {
            crate::document::locate(&mut diagnostics, &text, source.format);
        }
        diagnostics
    }
}

impl crate::Document {
    /// The rules' diagnostics, not located: what [`Document::validate`] finds, before it
    /// adds lines and columns.
    pub(crate) fn validate_rules(&self) -> Vec<Diagnostic> {
        validate(self.root(), self.agentspec_version())
    }
}

/// Validates the document whose root is `root`, declared at `version`.
fn validate(root: &Component, version: crate::Version) -> Vec<Diagnostic> {
    let kept = index::Kept::find(root);
    let index = Index::build(root, &kept);
    let mut report = Report {
        diagnostics: Vec::new(),
    };
    let (mut chain, mut pointer) = (Vec::new(), String::new());
    for (position, &(c, place)) in index.components.iter().enumerate() {
        // built for each component in turn, in one buffer, never kept: its length is the
        // component's depth
        index.pointer_into(place, &mut chain, &mut pointer);
        let pointer = pointer.as_str();
        let ty = c.component_type();
        let first = c.since();
        // what a component kept as read holds is the plugin's to date
        if first > version && !index.kept.contains(&position) {
            report.error(
                "version-too-old",
                c,
                token(pointer, "component_type"),
                format!("{ty} exists from Agent Spec {first}, and the document declares {version}"),
            );
        }
        for key in ["inputs", "outputs"] {
            properties(&mut report, c, pointer, key);
        }
        if let Some(flow_) = typed::<crate::Flow>(c) {
            flow(&mut report, &index, c, flow_, pointer);
        } else if let Some(plugin) = c.as_plugin() {
            nodes::plugin_io(&mut report, c, pointer, &plugin.get().inferred_io());
        } else {
            node(&mut report, c, pointer);
            inferred_io(&mut report, &index, c, pointer);
        }
        values(&mut report, c, pointer);
        retry_policies(&mut report, c, pointer);
        section_seven(&mut report, &index, c, pointer);
    }
    report.diagnostics
}

const JSON_TYPES: [&str; 7] = [
    "string", "number", "integer", "boolean", "array", "object", "null",
];

/// Property schemas: valid types, titles without forbidden characters, defaults of the type,
/// no two properties with one title.
fn properties(report: &mut Report, body: &dyn ComponentInfo, pointer: &str, key: &str) {
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
