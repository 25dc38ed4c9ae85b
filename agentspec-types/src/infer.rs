//! What pyagentspec's constructors infer for a component built in code: the `inputs` and
//! `outputs` left unset (`null`), and the `branches` of a node left empty. Applied to an
//! expanded document (every component inline), children first, so that a flow sees what its
//! start node was given and an agent node what its agent was.
//!
//! The rules are pyagentspec 26.3.1's `_get_inferred_inputs`, `_get_inferred_outputs` and
//! `_get_inferred_branches`, for the component types below; a type without a rule here keeps
//! `null` (pyagentspec infers it when it loads the document), and a plugin component is left
//! as built.

use crate::syntax::view::{Kind, View};
use serde_json::{Map, Value, json};

/// Fills in, at any depth of `value`, what pyagentspec infers (on a stack grown as deep as
/// the value needs: an inlined document may be far deeper than its text).
pub(crate) fn infer(value: &mut Value) {
    stacker::maybe_grow(128 << 10, 4 << 20, || match value {
        Value::Object(map) => {
            for child in map.values_mut() {
                infer(child);
            }
            if map.get("component_type").is_some_and(Value::is_string) {
                infer_component(map);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(infer),
        _ => {}
    });
}

/// Whether a component of `value` leaves out what [`infer`] may fill in: `inputs` or
/// `outputs` unset (`null`), or no `branches` on a node other than an EndNode. One walk,
/// without recursion; false for what pyagentspec writes, which infers them when it builds.
pub(crate) fn leaves_out_inferred<'a>(value: impl View<'a>) -> bool {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        if value.is_object()
            && let Some(ty) = value.get("component_type").and_then(View::as_str)
            && value.get("component_plugin_name").is_none()
        {
            let unset = |key: &str| value.get(key).is_some_and(|v| v.kind() == Kind::Null);
            let no_branches = ty != "EndNode"
                && value
                    .get("branches")
                    .is_some_and(|b| b.kind() == Kind::Array && b.len() == 0);
            if unset("inputs") || unset("outputs") || no_branches {
                return true;
            }
        }
        stack.extend(value.children().map(|(_, c)| c));
    }
    false
}

fn infer_component(c: &mut Map<String, Value>) {
    if c.contains_key("component_plugin_name") {
        // a plugin's rules are its own (`#[component(io = …)]`): it is written as built
        return;
    }
    let ty = c["component_type"].as_str().unwrap_or_default().to_owned();
    if c.get("inputs").is_some_and(Value::is_null)
        && let Some(inputs) = inputs(&ty, c)
    {
        c.insert("inputs".into(), Value::Array(inputs));
    }
    if c.get("outputs").is_some_and(Value::is_null)
        && let Some(outputs) = outputs(&ty, c)
    {
        c.insert("outputs".into(), Value::Array(outputs));
    }
    if c.get("branches")
        .is_some_and(|b| b.as_array().is_some_and(Vec::is_empty))
        && let Some(mut branches) = branches(&ty, c)
    {
        branches.sort();
        branches.dedup();
        c.insert(
            "branches".into(),
            Value::Array(branches.into_iter().map(Value::String).collect()),
        );
    }
}

/// A string property with an optional description, keys in pyagentspec's order.
fn string_property(title: &str, description: Option<&str>) -> Value {
    match description {
        Some(d) => json!({"description": d, "title": title, "type": "string"}),
        None => json!({"title": title, "type": "string"}),
    }
}

/// `{{ name }}` placeholders in the strings (and object keys) of `values`, each once, in the
/// order they first appear, as string properties.
fn placeholder_properties(values: &[Option<&Value>]) -> Vec<Value> {
    let mut names: Vec<String> = Vec::new();
    for value in values.iter().flatten() {
        collect_placeholders(value, &mut names);
    }
    names.iter().map(|n| string_property(n, None)).collect()
}

fn collect_placeholders(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => placeholders_in(s, out),
        Value::Array(items) => items.iter().for_each(|v| collect_placeholders(v, out)),
        Value::Object(map) => {
            for (k, v) in map {
                placeholders_in(k, out);
                collect_placeholders(v, out);
            }
        }
        _ => {}
    }
}

/// pyagentspec's `{{\s*(\w+)\s*}}`, scanned as its regex scans: a match ends where its `}}`
/// does; a failed attempt moves on by one character.
fn placeholders_in(text: &str, out: &mut Vec<String>) {
    let mut at = 0;
    while let Some(found) = text[at..].find("{{") {
        let start = at + found;
        let inner = text[start + 2..].trim_start();
        let name: String = inner
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let after = inner[name.len()..].trim_start();
        if !name.is_empty() && after.starts_with("}}") {
            if !out.contains(&name) {
                out.push(name);
            }
            at = text.len() - after.len() + 2;
        } else {
            at = start + 1;
        }
    }
}

/// The list under `key` of the component at `field` (inline, as in an expanded document).
fn list_of<'a>(c: &'a Map<String, Value>, field: &str, key: &str) -> Option<&'a Vec<Value>> {
    c.get(field)?.get(key)?.as_array()
}

fn copy_of(c: &Map<String, Value>, field: &str, key: &str) -> Vec<Value> {
    list_of(c, field, key).cloned().unwrap_or_default()
}

fn own(c: &Map<String, Value>, key: &str) -> Option<Vec<Value>> {
    c.get(key)?.as_array().filter(|l| !l.is_empty()).cloned()
}

/// The EndNodes among a flow's `nodes`.
fn end_nodes(flow: Option<&Map<String, Value>>) -> Vec<&Map<String, Value>> {
    let nodes = flow
        .and_then(|f| f.get("nodes"))
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    nodes
        .iter()
        .filter_map(Value::as_object)
        .filter(|n| n.get("component_type").and_then(Value::as_str) == Some("EndNode"))
        .collect()
}

fn title(property: &Value) -> Option<&str> {
    property.get("title")?.as_str()
}

fn inputs(ty: &str, c: &Map<String, Value>) -> Option<Vec<Value>> {
    Some(match ty {
        "Agent" => placeholder_properties(&[c.get("system_prompt")]),
        "LlmNode" => placeholder_properties(&[c.get("prompt_template")]),
        "InputMessageNode" | "OutputMessageNode" => placeholder_properties(&[c.get("message")]),
        "AgentSpecializationParameters" => {
            placeholder_properties(&[c.get("additional_instructions")])
        }
        "ApiNode" | "RemoteTool" => placeholder_properties(&[
            c.get("url"),
            c.get("http_method"),
            c.get("api_spec_uri"),
            c.get("data"),
            c.get("query_params"),
            c.get("headers"),
        ]),
        "StartNode" | "EndNode" => own(c, "outputs").unwrap_or_default(),
        "Flow" => copy_of(c, "start_node", "inputs"),
        "AgentNode" => copy_of(c, "agent", "inputs"),
        "ToolNode" => copy_of(c, "tool", "inputs"),
        "FlowNode" => copy_of(c, "subflow", "inputs"),
        "BranchingNode" => vec![string_property(
            "branching_mapping_key",
            Some("Next branch name in the flow"),
        )],
        // rules not ported: pyagentspec infers them when it loads the `null`
        "MapNode" | "ParallelMapNode" | "ParallelFlowNode" | "CatchExceptionNode"
        | "SpecializedAgent" => return None,
        _ => Vec::new(),
    })
}

fn outputs(ty: &str, c: &Map<String, Value>) -> Option<Vec<Value>> {
    Some(match ty {
        "LlmNode" => vec![string_property(
            "generated_text",
            Some("Raw text generated by the LLM"),
        )],
        "InputMessageNode" => vec![string_property(
            "user_input",
            Some("Input provided by the user"),
        )],
        "ApiNode" => vec![json!({"title": "response"})],
        "StartNode" | "EndNode" => own(c, "inputs").unwrap_or_default(),
        "AgentNode" => copy_of(c, "agent", "outputs"),
        "ToolNode" => copy_of(c, "tool", "outputs"),
        "FlowNode" => copy_of(c, "subflow", "outputs"),
        "Flow" => {
            // the outputs every end node has, as the first end node to have each writes it
            let ends = end_nodes(Some(c));
            let mut out: Vec<Value> = Vec::new();
            for property in ends
                .iter()
                .filter_map(|e| e.get("outputs")?.as_array())
                .flatten()
            {
                let Some(t) = title(property) else { continue };
                let everywhere = ends.iter().all(|e| {
                    e.get("outputs")
                        .and_then(Value::as_array)
                        .is_some_and(|o| o.iter().any(|p| title(p) == Some(t)))
                });
                if everywhere && !out.iter().any(|p| title(p) == Some(t)) {
                    out.push(property.clone());
                }
            }
            out
        }
        "MapNode" | "ParallelMapNode" | "ParallelFlowNode" | "CatchExceptionNode"
        | "SpecializedAgent" => return None,
        _ => Vec::new(),
    })
}

fn branches(ty: &str, c: &Map<String, Value>) -> Option<Vec<String>> {
    let next = || vec!["next".to_owned()];
    Some(match ty {
        "EndNode" => return None,
        "BranchingNode" => {
            let mut b = vec!["default".to_owned()];
            if let Some(mapping) = c.get("mapping").and_then(Value::as_object) {
                b.extend(
                    mapping
                        .values()
                        .filter_map(Value::as_str)
                        .map(str::to_owned),
                );
            }
            b
        }
        "FlowNode" => {
            let ends: Vec<String> = end_nodes(c.get("subflow").and_then(Value::as_object))
                .iter()
                .map(|e| {
                    e.get("branch_name")
                        .and_then(Value::as_str)
                        .unwrap_or("next")
                        .to_owned()
                })
                .collect();
            if ends.is_empty() { next() } else { ends }
        }
        "CatchExceptionNode" => return None,
        _ => next(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        placeholders_in(text, &mut out);
        out
    }

    #[test]
    fn placeholders_are_pyagentspecs_word_names_once_in_order() {
        assert_eq!(
            names("{{b}} {{ a }} {{b}} {{a b}} {{}} {{ é_1 }}"),
            ["b", "a", "é_1"]
        );
        assert_eq!(names("{{ open"), Vec::<String>::new());
        // as the regex finds it, one character on
        assert_eq!(names("{{{x}}}"), ["x"]);
    }

    #[test]
    fn unset_io_and_empty_branches_are_filled_and_set_ones_kept() {
        let mut node = json!({"component_type": "LlmNode", "inputs": null, "outputs": null,
            "branches": [], "prompt_template": "Sum {{a}} and {{b}}"});
        infer(&mut node);
        assert_eq!(
            node["inputs"],
            json!([{"title": "a", "type": "string"}, {"title": "b", "type": "string"}])
        );
        assert_eq!(node["outputs"][0]["title"], "generated_text");
        assert_eq!(node["branches"], json!(["next"]));
        let mut given = json!({"component_type": "LlmNode", "inputs": [], "outputs": [{"title": "x"}],
            "branches": ["next"], "prompt_template": "{{a}}"});
        let before = given.clone();
        infer(&mut given);
        assert_eq!(given, before);
        // a type without a ported rule keeps null, for pyagentspec to infer on loading
        let mut map =
            json!({"component_type": "MapNode", "inputs": null, "outputs": null, "branches": []});
        infer(&mut map);
        assert_eq!(map["inputs"], Value::Null);
        assert_eq!(map["branches"], json!(["next"]));
    }
}
