//! The JSON Schema of one version's documents: the published file of that version, with
//! the repairs that let it validate what pyagentspec writes (see the schema folder's README
//! for the defects).

use serde_json::{Map, Value, json};

use std::collections::BTreeSet;

use crate::error::Error;
use crate::model::{Model, Version};
use crate::read::{SchemaFile, version_table};

/// The definition the root `agentspec_version` of every `Versioned<X>` points at.
const ROOT_VERSION: &str = "RootAgentSpecVersion";

/// The schema of `version`'s documents, from the file published with it.
pub(crate) fn for_version(
    files: &[SchemaFile],
    model: &Model,
    version: Version,
) -> Result<Value, Error> {
    let (_, table) = version_table(files);
    let file = &files[*table.get(&version).ok_or(Error::NoSchema)?];
    let mut defs = file.defs.clone();
    let newest = files
        .iter()
        .max_by_key(|f| f.release())
        .ok_or(Error::NoSchema)?;
    add_missing_fields(&mut defs, files, model, version);
    accept_upgraded_values(&mut defs, &newest.defs, model);
    name_inline_bodies(&mut defs);
    repair_bodies(&mut defs, model);
    let roots = versioned_roots(&mut defs, version);
    let mut schema = Map::new();
    schema.insert(
        "$schema".into(),
        json!("https://json-schema.org/draft/2020-12/schema"),
    );
    schema.insert(
        "title".into(),
        json!(format!("Agent Spec {version} document")),
    );
    schema.insert(
        "description".into(),
        json!(format!(
            "A component written at Agent Spec {version} (with its root `agentspec_version`), or a components file. Derived from {} by agentspec-codegen.",
            file_name(&file.name)
        )),
    );
    schema.insert("anyOf".into(), Value::Array(roots));
    schema.insert("$defs".into(), Value::Object(defs));
    Ok(Value::Object(schema))
}

fn file_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// Fields pyagentspec writes at `version` that the file's body lacks (the files are
/// snapshots of earlier SDK builds): copied from the newest file that has them.
fn add_missing_fields(
    defs: &mut Map<String, Value>,
    files: &[SchemaFile],
    model: &Model,
    version: Version,
) {
    let mut copies: Vec<(Value, &SchemaFile)> = Vec::new();
    let mut by_release: Vec<&SchemaFile> = files.iter().collect();
    by_release.sort_by_key(|f| std::cmp::Reverse(f.release()));
    for component in model.components.values() {
        if component.since > version {
            continue;
        }
        let key = format!("Base{}", component.name);
        let Some(Value::Object(props)) = defs.get_mut(&key).and_then(|b| b.get_mut("properties"))
        else {
            continue;
        };
        for field in &component.fields {
            if field.written_since().is_none_or(|s| s > version)
                || props.contains_key(&field.json_name)
            {
                continue;
            }
            let found = by_release.iter().find_map(|f| {
                f.defs
                    .get(&key)
                    .and_then(|b| b.get("properties"))
                    .and_then(|p| p.get(&field.json_name))
                    .map(|p| (*f, p))
            });
            if let Some((file, property)) = found {
                props.insert(field.json_name.clone(), property.clone());
                copies.push((property.clone(), file));
            }
        }
    }
    for (property, file) in copies {
        copy_referenced(&property, &file.defs, defs);
    }
}

/// The definitions `value` refers to (`#/$defs/<name>`), copied from `from` into `defs`
/// where `defs` lacks them, with what they refer to in turn.
fn copy_referenced(value: &Value, from: &Map<String, Value>, defs: &mut Map<String, Value>) {
    match value {
        Value::Object(obj) => {
            if let Some(name) = obj
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/$defs/"))
                && !defs.contains_key(name)
                && let Some(def) = from.get(name)
            {
                defs.insert(name.to_owned(), def.clone());
                copy_referenced(def, from, defs);
            }
            obj.values().for_each(|v| copy_referenced(v, from, defs));
        }
        Value::Array(items) => items.iter().for_each(|v| copy_referenced(v, from, defs)),
        _ => {}
    }
}

/// A field holding a legacy value is written by the SDK in its new form at every version
/// (a boolean Swarm `handoff` becomes its mode string): the field also accepts the newest
/// file's schema.
fn accept_upgraded_values(
    defs: &mut Map<String, Value>,
    newest: &Map<String, Value>,
    model: &Model,
) {
    let mut copies = Vec::new();
    for component in model.components.values() {
        let key = format!("Base{}", component.name);
        for field in component.fields.iter().filter(|f| !f.upgrades.is_empty()) {
            let Some(current) = newest
                .get(&key)
                .and_then(|b| b.pointer(&format!("/properties/{}", field.json_name)))
            else {
                continue;
            };
            let Some(property) = defs
                .get_mut(&key)
                .and_then(|b| b.get_mut("properties"))
                .and_then(|p| p.get_mut(&field.json_name))
            else {
                continue;
            };
            if property != current {
                let original = property.take();
                *property = json!({"anyOf": [original, current]});
                copies.push(current.clone());
            }
        }
    }
    for current in copies {
        copy_referenced(&current, newest, defs);
    }
}

/// A concrete component with subclasses appears inline in the `anyOf` of its `Base<X>`,
/// titled `X` but without `component_type`: the body gets its `component_type`.
fn name_inline_bodies(defs: &mut Map<String, Value>) {
    fn visit(value: &mut Value, bases: &[String]) {
        match value {
            Value::Object(obj) => {
                let title = obj.get("title").and_then(Value::as_str).map(str::to_owned);
                if let (Some(title), Some(Value::Object(props))) =
                    (title, obj.get_mut("properties"))
                    && !props.contains_key("component_type")
                    && bases.contains(&title)
                {
                    props.insert("component_type".into(), json!({"const": title}));
                }
                obj.values_mut().for_each(|v| visit(v, bases));
            }
            Value::Array(items) => items.iter_mut().for_each(|v| visit(v, bases)),
            _ => {}
        }
    }
    let bases: Vec<String> = defs
        .iter()
        .filter(|(_, def)| def.get("x-abstract-component") == Some(&Value::Bool(false)))
        .filter_map(|(key, _)| key.strip_prefix("Base").map(str::to_owned))
        .collect();
    for def in defs.values_mut() {
        visit(def, &bases);
    }
}

/// In every object body of the definitions: `component_type` becomes required, and a
/// sensitive field also accepts the reference that stands for its redacted value.
fn repair_bodies(defs: &mut Map<String, Value>, model: &Model) {
    // (owner, key) of every sensitive field
    let sensitive: BTreeSet<(&str, &str)> = model
        .components
        .values()
        .map(|c| (&c.name, &c.fields))
        .chain(model.structs.values().map(|s| (&s.name, &s.fields)))
        .flat_map(|(owner, fields)| {
            fields
                .iter()
                .filter(|f| f.is_sensitive())
                .map(move |f| (owner.as_str(), f.json_name.as_str()))
        })
        .collect();
    fn visit(value: &mut Value, sensitive: &BTreeSet<(&str, &str)>) {
        match value {
            Value::Object(obj) => {
                let title = obj
                    .get("title")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .unwrap_or_default();
                if let Some(Value::Object(props)) = obj.get_mut("properties") {
                    for (key, property) in props.iter_mut() {
                        if sensitive.contains(&(title.as_str(), key.as_str())) {
                            let original = property.take();
                            *property = json!({"anyOf": [
                                original,
                                {"$ref": "#/$defs/ComponentReference"}
                            ]});
                        }
                    }
                    let typed = props
                        .get("component_type")
                        .is_some_and(|c| c.get("const").is_some());
                    if typed {
                        let required = obj.entry("required").or_insert_with(|| json!([]));
                        if let Value::Array(required) = required
                            && !required.iter().any(|r| r == "component_type")
                        {
                            required.insert(0, json!("component_type"));
                        }
                    }
                }
                for child in obj.values_mut() {
                    visit(child, sensitive);
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|v| visit(v, sensitive)),
            _ => {}
        }
    }
    for def in defs.values_mut() {
        visit(def, &sensitive);
    }
}

/// Replaces the published `Versioned<X>` roots (which reject their own
/// `agentspec_version`) with each concrete body plus a required `agentspec_version` equal
/// to `version`, gathered in `VersionedComponent`, and returns the root's `anyOf`: a
/// versioned component, or a components file (whose components are versioned too).
fn versioned_roots(defs: &mut Map<String, Value>, version: Version) -> Vec<Value> {
    defs.retain(|key, _| !key.starts_with("Versioned"));
    let typed = |body: &Value, name: &str| {
        body.pointer("/properties/component_type/const")
            .and_then(Value::as_str)
            == Some(name)
    };
    let concrete: Vec<(String, Value)> = defs
        .iter()
        .filter_map(|(key, def)| {
            let name = key.strip_prefix("Base")?;
            if typed(def, name) {
                return Some((name.to_owned(), def.clone()));
            }
            // A concrete component with subclasses: its own body is one of the members.
            let members = def.get("anyOf")?.as_array()?;
            let body = members.iter().find(|m| typed(m, name))?;
            Some((name.to_owned(), body.clone()))
        })
        .collect();
    let mut roots = Vec::new();
    for (name, mut body) in concrete {
        body["properties"]["agentspec_version"] =
            json!({"$ref": format!("#/$defs/{ROOT_VERSION}")});
        if let Value::Array(required) = &mut body["required"] {
            required.push(json!("agentspec_version"));
        }
        defs.insert(format!("Versioned{name}"), body);
        roots.push(json!({"$ref": format!("#/$defs/Versioned{name}")}));
    }
    defs.insert(
        ROOT_VERSION.into(),
        json!({"title": "AgentSpecVersion", "type": "string", "const": version.to_string()}),
    );
    // Each component of a components file is written as a document root.
    defs.insert(
        "ComponentsFile".into(),
        json!({
            "title": "ComponentsFile",
            "description": "Components kept apart from the documents that reference them (disaggregated components), each with its `agentspec_version`.",
            "type": "object",
            "properties": {"$referenced_components": {
                "type": "object",
                "additionalProperties": {"$ref": "#/$defs/VersionedComponent"}
            }},
            "required": ["$referenced_components"],
            "additionalProperties": false
        }),
    );
    defs.insert("VersionedComponent".into(), json!({"anyOf": roots}));
    vec![
        json!({"$ref": "#/$defs/VersionedComponent"}),
        json!({"$ref": "#/$defs/ComponentsFile"}),
    ]
}
