//! Helpers shared by the workspace tests and the benchmark: the conformance fixtures and
//! generators of large and deeply nested documents.

use std::path::{Path, PathBuf};

use agentspec_types::{Diagnostic, Document, Format, locate};

use serde_json::{Value, json};

/// The workspace README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;

/// The plugin types of the conformance corpus, declared in Rust.
pub mod corpus_plugins {
    use agentspec_types::{AnyLlmConfig, ComponentFields, NodeFields, RefOr};

    /// Extracts the first match of a regular expression.
    #[derive(agentspec_types::Component, Clone, Debug, PartialEq)]
    #[component(
        extends = agentspec_types::Node,
        plugin_name = "PydanticComponentPlugin",
        plugin_version = "26.3.1",
        io = regex_io
    )]
    pub struct PluginRegexNode {
        #[component(base)]
        pub base: NodeFields,
        /// Regex applied to the input text.
        pub regex_pattern: String,
    }

    /// A regex node reads `text` and writes `output`, then goes on along `next`.
    fn regex_io(_node: &PluginRegexNode) -> agentspec_types::plugin::InferredIo {
        agentspec_types::plugin::InferredIo {
            inputs: Some(vec!["text".into()]),
            outputs: Some(vec!["output".into()]),
            branches: Some(vec!["next".into()]),
        }
    }

    /// A weather service: a component that extends no family.
    #[derive(agentspec_types::Component, Clone, Debug, PartialEq)]
    #[component(plugin_name = "PydanticComponentPlugin", plugin_version = "26.3.1")]
    pub struct PluginWeatherService {
        #[component(base)]
        pub base: ComponentFields,
        pub endpoint: String,
        pub units: Option<String>,
        pub llm_config: RefOr<AnyLlmConfig>,
    }

    /// A registry of both.
    pub fn registry() -> agentspec_types::plugin::PluginRegistry {
        agentspec_types::plugin::PluginRegistry::new()
            .with::<PluginRegexNode>()
            .and_then(|r| r.with::<PluginWeatherService>())
            .expect("two distinct plugin types")
    }
}

/// Every `$ref` of `value` names a definition `schema` has.
pub fn dangling_refs(value: &Value, schema: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(r)) = map.get("$ref") {
                let ok = r == "#"
                    || r.strip_prefix("#/$defs/")
                        .is_some_and(|d| schema["$defs"].get(d).is_some());
                if !ok {
                    out.push(r.clone());
                }
            }
            map.values().for_each(|v| dangling_refs(v, schema, out));
        }
        Value::Array(items) => items.iter().for_each(|v| dangling_refs(v, schema, out)),
        _ => {}
    }
}

/// `tests/fixtures/<relative>`.
pub fn fixture(relative: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(relative)
}

/// The files of a fixtures folder with the given extension, sorted by name.
pub fn fixtures(folder: &str, extension: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixture(folder))
        .unwrap_or_else(|e| panic!("fixtures/{folder}: {e}"))
        .map(|e| e.expect("readable fixture entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == extension))
        .collect();
    files.sort();
    files
}

fn base(component_type: &str, id: &str, name: &str) -> serde_json::Map<String, Value> {
    let mut m = serde_json::Map::new();
    m.insert("component_type".into(), json!(component_type));
    m.insert("id".into(), json!(id));
    m.insert("name".into(), json!(name));
    m.insert("description".into(), Value::Null);
    m.insert("metadata".into(), json!({}));
    m
}

fn with(mut m: serde_json::Map<String, Value>, fields: Value) -> Value {
    if let Value::Object(fields) = fields {
        m.extend(fields);
    }
    Value::Object(m)
}

fn string_property(title: &str) -> Value {
    json!({"title": title, "type": "string"})
}

fn reference(id: &str) -> Value {
    json!({"$component_ref": id})
}

fn llm_config() -> Value {
    with(
        base("VllmConfig", "shared_llm", "vllm"),
        json!({"model_id": "meta-llama/Llama-3.1-8B-Instruct", "url": "http://vllm.internal:8000",
               "default_generation_parameters": {"max_tokens": 512, "temperature": 0.2, "top_p": 0.9}}),
    )
}

fn control_edge(id: &str, from: &str, to: &str) -> Value {
    with(
        base("ControlFlowEdge", id, id),
        json!({"from_node": reference(from), "from_branch": null, "to_node": reference(to)}),
    )
}

fn data_edge(id: &str, from: &str, output: &str, to: &str, input: &str) -> Value {
    with(
        base("DataFlowEdge", id, id),
        json!({"source_node": reference(from), "source_output": output, "destination_node": reference(to), "destination_input": input}),
    )
}

/// A flow `start → llm_1 → … → llm_n → end` whose LLM nodes pass `text` along and share
/// one LLM config, with control and data edges, in pyagentspec's 25.4.1 layout.
pub fn linear_flow(n: usize) -> Value {
    flow_with_nodes("linear", n, None)
}

fn flow_with_nodes(id: &str, n: usize, inner: Option<Value>) -> Value {
    let start = with(
        base("StartNode", &format!("{id}_start"), "start"),
        json!({"inputs": [string_property("text")], "outputs": [string_property("text")], "branches": ["next"]}),
    );
    let end = with(
        base("EndNode", &format!("{id}_end"), "end"),
        json!({"inputs": [string_property("text")], "outputs": [string_property("text")], "branches": [], "branch_name": "next"}),
    );
    let mut nodes = vec![start];
    let mut ids = vec![format!("{id}_start")];
    for i in 1..=n {
        let node_id = format!("{id}_llm_{i}");
        nodes.push(with(
            base("LlmNode", &node_id, &format!("step {i}")),
            json!({"inputs": [string_property("text")], "outputs": [string_property("text")], "branches": ["next"],
                   "llm_config": reference("shared_llm"), "prompt_template": "Improve this text: {{ text }}"}),
        ));
        ids.push(node_id);
    }
    if let Some(subflow) = inner {
        let node_id = format!("{id}_sub");
        // the nested flow is moved in, not copied: `json!` would serialize it again at
        // every level, quadratic in the depth
        let mut node = with(
            base("FlowNode", &node_id, "nested"),
            json!({"inputs": [string_property("text")], "outputs": [string_property("text")], "branches": ["next"]}),
        );
        node.as_object_mut()
            .expect("a node is an object")
            .insert("subflow".into(), subflow);
        nodes.push(node);
        ids.push(node_id);
    }
    nodes.push(end);
    ids.push(format!("{id}_end"));
    let control: Vec<Value> = ids
        .windows(2)
        .enumerate()
        .map(|(i, w)| control_edge(&format!("{id}_c{i}"), &w[0], &w[1]))
        .collect();
    let data: Vec<Value> = ids
        .windows(2)
        .enumerate()
        .map(|(i, w)| data_edge(&format!("{id}_d{i}"), &w[0], "text", &w[1], "text"))
        .collect();
    // As pyagentspec lays flows out: every node is referenced, its body in the flow's map.
    let refs: Vec<Value> = ids.iter().map(|n| reference(n)).collect();
    let bodies: serde_json::Map<String, Value> = ids.iter().cloned().zip(nodes).collect();
    let mut flow = with(
        base("Flow", id, id),
        json!({"inputs": [string_property("text")], "outputs": [string_property("text")], "start_node": reference(&format!("{id}_start")),
               "nodes": refs, "control_flow_connections": control, "data_flow_connections": data}),
    );
    flow.as_object_mut()
        .expect("a flow is an object")
        .insert("$referenced_components".into(), Value::Object(bodies));
    flow
}

/// Adds the shared LLM config to the root's `$referenced_components`, and the version.
fn document(mut root: Value, version: &str) -> Value {
    let map = root.as_object_mut().expect("components are objects");
    let referenced = map
        .entry("$referenced_components")
        .or_insert_with(|| json!({}));
    referenced
        .as_object_mut()
        .expect("a map")
        .insert("shared_llm".into(), llm_config());
    map.insert("agentspec_version".into(), json!(version));
    root
}

/// The linear flow of `n` LLM nodes as a complete document.
pub fn linear_flow_document(n: usize) -> Value {
    document(linear_flow(n), "25.4.1")
}

/// A flow `start → tool_1 → … → tool_n → end` whose ToolNodes each call the one ServerTool
/// `inc` (input `x: integer`, output `x: integer`), with a control and a data edge per hop,
/// in pyagentspec's layout: the runtime's benchmark (wayflowcore's baseline times the same
/// shape, `agentspec-cts/wayflow-baseline/gen_chain.py`).
pub fn tool_chain_document(n: usize) -> Value {
    let x = || json!({"title": "x", "type": "integer"});
    let inc = with(
        base("ServerTool", "inc", "inc"),
        json!({"inputs": [x()], "outputs": [x()], "requires_confirmation": false}),
    );
    let mut ids = vec!["start".to_owned()];
    let mut bodies = serde_json::Map::new();
    bodies.insert(
        "start".into(),
        with(
            base("StartNode", "start", "start"),
            json!({"inputs": [x()], "outputs": [x()], "branches": ["next"]}),
        ),
    );
    for i in 1..=n {
        let id = format!("tool_{i}");
        bodies.insert(
            id.clone(),
            with(
                base("ToolNode", &id, &id),
                json!({"inputs": [x()], "outputs": [x()], "branches": ["next"], "tool": reference("inc")}),
            ),
        );
        ids.push(id);
    }
    bodies.insert(
        "end".into(),
        with(
            base("EndNode", "end", "end"),
            json!({"inputs": [x()], "outputs": [x()], "branches": [], "branch_name": "next"}),
        ),
    );
    ids.push("end".into());
    bodies.insert("inc".into(), inc);
    let control: Vec<Value> = ids
        .windows(2)
        .enumerate()
        .map(|(i, w)| control_edge(&format!("c{i}"), &w[0], &w[1]))
        .collect();
    let data: Vec<Value> = ids
        .windows(2)
        .enumerate()
        .map(|(i, w)| data_edge(&format!("d{i}"), &w[0], "x", &w[1], "x"))
        .collect();
    let refs: Vec<Value> = ids.iter().map(|id| reference(id)).collect();
    let mut flow = with(
        base("Flow", "chain", "chain"),
        json!({"inputs": [x()], "outputs": [x()], "start_node": reference("start"), "nodes": refs,
               "control_flow_connections": control, "data_flow_connections": data}),
    );
    let map = flow.as_object_mut().expect("a flow is an object");
    map.insert("$referenced_components".into(), Value::Object(bodies));
    map.insert("agentspec_version".into(), json!("25.4.1"));
    flow
}

/// An agent with `n` server tools, each with two typed inputs and one output.
pub fn agent_with_tools_document(n: usize) -> Value {
    let tools: Vec<Value> = (0..n)
        .map(|i| {
            with(
                base("ServerTool", &format!("tool_{i}"), &format!("tool_{i}")),
                json!({"inputs": [{"description": "The city", "title": "city", "type": "string"}, {"title": "days", "type": "integer", "default": 3}],
                       "outputs": [string_property("forecast")]}),
            )
        })
        .collect();
    let agent = with(
        base("Agent", "agent", "assistant"),
        json!({"inputs": [], "outputs": [], "llm_config": reference("shared_llm"), "system_prompt": "You help with the weather.", "tools": tools}),
    );
    document(agent, "25.4.1")
}

/// `depth` flows nested inside each other through FlowNodes, each with one LLM node.
pub fn nested_flows_document(depth: usize) -> Value {
    let mut flow = flow_with_nodes("f0", 1, None);
    for level in 1..depth {
        flow = flow_with_nodes(&format!("f{level}"), 1, Some(flow));
    }
    document(flow, "25.4.1")
}

/// `depth` flows nested inside each other through FlowNodes, the innermost with `n` LLM
/// nodes (deep and wide: every component of the innermost flow is `depth` levels down).
pub fn deep_wide_document(depth: usize, n: usize) -> Value {
    let mut flow = flow_with_nodes("f0", n, None);
    for level in 1..depth {
        flow = flow_with_nodes(&format!("f{level}"), 1, Some(flow));
    }
    document(flow, "25.4.1")
}

/// A flow whose one BranchingNode has `branches` branches, each to an EndNode of its own (wide
/// fan-out), in pyagentspec's layout.
pub fn fan_out_flow_document(branches: usize) -> Value {
    let start = with(
        base("StartNode", "start", "start"),
        json!({"inputs": [string_property("branching_mapping_key")], "outputs": [string_property("branching_mapping_key")], "branches": ["next"]}),
    );
    let mapping: serde_json::Map<String, Value> = (0..branches)
        .map(|i| (format!("k{i}"), json!(format!("b{i}"))))
        .collect();
    let mut names: Vec<String> = (0..branches).map(|i| format!("b{i}")).collect();
    names.push("default".into());
    names.sort();
    let route = with(
        base("BranchingNode", "route", "route"),
        json!({"inputs": [{"description": "Next branch name in the flow", "title": "branching_mapping_key", "type": "string"}],
               "outputs": [], "branches": names, "mapping": mapping}),
    );
    let mut ids = vec!["start".to_owned(), "route".to_owned()];
    let mut nodes = vec![start, route];
    let mut control = vec![control_edge("c_start", "start", "route")];
    for i in 0..=branches {
        let (end, branch) = if i == branches {
            ("end_default".to_owned(), "default".to_owned())
        } else {
            (format!("end_{i}"), format!("b{i}"))
        };
        nodes.push(with(
            base("EndNode", &end, &end),
            json!({"inputs": [], "outputs": [], "branches": [], "branch_name": "next"}),
        ));
        let mut edge = control_edge(&format!("c_{i}"), "route", &end);
        edge["from_branch"] = json!(branch);
        control.push(edge);
        ids.push(end);
    }
    let refs: Vec<Value> = ids.iter().map(|n| reference(n)).collect();
    let bodies: serde_json::Map<String, Value> = ids.iter().cloned().zip(nodes).collect();
    let data = vec![data_edge(
        "d_key",
        "start",
        "branching_mapping_key",
        "route",
        "branching_mapping_key",
    )];
    let flow = with(
        base("Flow", "fan_out", "fan out"),
        json!({"inputs": [string_property("branching_mapping_key")], "outputs": [], "start_node": reference("start"),
               "nodes": refs, "control_flow_connections": control, "data_flow_connections": data, "$referenced_components": bodies}),
    );
    document(flow, "25.4.1")
}

/// The linear flow of `n` LLM nodes with `extra` more data edges between its nodes (many
/// edges: each LLM node feeds the `text` of the next ones again).
pub fn dense_flow_document(n: usize, extra: usize) -> Value {
    let mut flow = linear_flow(n);
    let data = flow["data_flow_connections"]
        .as_array_mut()
        .expect("data edges");
    for k in 0..extra {
        let from = 1 + k % n;
        let to = 1 + (from + 1 + k / n) % n;
        data.push(data_edge(
            &format!("extra_{k}"),
            &format!("linear_llm_{from}"),
            "text",
            &format!("linear_llm_{to}"),
            "text",
        ));
    }
    document(flow, "25.4.1")
}

/// Pretty JSON as pyagentspec writes it.
pub fn to_json(value: &Value) -> String {
    serde_json::to_string_pretty(value).expect("a Value serializes") + "\n"
}

/// Same value and same key order, except the entry order inside `$referenced_components`
/// maps (pyagentspec orders those by a hash). `ordered` is false inside such a map.
pub fn same_layout(a: &Value, b: &Value, pointer: &str, ordered: bool) -> Result<(), String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let kx: Vec<&String> = x.keys().collect();
            let ky: Vec<&String> = y.keys().collect();
            let same_keys = if ordered {
                kx == ky
            } else {
                x.len() == y.len() && kx.iter().all(|k| y.contains_key(*k))
            };
            if !same_keys {
                return Err(format!("{pointer}: keys {kx:?} were written as {ky:?}"));
            }
            for (k, v) in x {
                same_layout(
                    v,
                    &y[k],
                    &format!("{pointer}/{k}"),
                    k != "$referenced_components",
                )?;
            }
            Ok(())
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .try_for_each(|(i, (v, w))| same_layout(v, w, &format!("{pointer}/{i}"), true)),
        _ if a == b => Ok(()),
        _ => Err(format!("{pointer}: {a} was written as {b}")),
    }
}

/// Loads a file (format from its extension), then validates it: every diagnostic, located.
pub fn diagnostics_of(path: &Path) -> Vec<Diagnostic> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let format = Format::from_path(path).expect("a .json or .yaml file");
    match Document::from_str_as(&text, format) {
        Ok(doc) => {
            let mut found = doc.validate();
            locate(&mut found, &text, format);
            doc.warnings().iter().cloned().chain(found).collect()
        }
        Err(e) => e.diagnostics,
    }
}

/// A tool that cannot be described, for `tests/tools.rs` to check the error (in a library
/// with unit tests of its own: `#[tool]` adds none that would fail).
pub mod tools {
    use agentspec_types::schemars::JsonSchema;

    /// A recursive type, which no Agent Spec property can describe.
    #[derive(serde::Deserialize, JsonSchema)]
    #[schemars(crate = "agentspec_types::schemars")]
    pub struct Tree {
        /// The subtrees.
        pub children: Vec<Tree>,
    }

    /// Counts the nodes of a tree.
    #[agentspec_types::tool]
    pub fn count_nodes(tree: Tree) -> usize {
        1 + tree.children.len()
    }
}

/// Flows `f0 … f{n}`, each but the last running the next from one FlowNode, all in the root's
/// `$referenced_components`: a chain of references, shallow as written, deep once inlined.
pub fn reference_chain(n: usize) -> Value {
    let mut entries = serde_json::Map::new();
    let node = |ty: &str, id: &str, extra: Value| {
        let mut v = json!({"component_type": ty, "id": id, "name": id});
        v.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        v
    };
    for i in 0..=n {
        let (start, end, sub) = (format!("s{i}"), format!("e{i}"), format!("n{i}"));
        let mut ids = vec![start.clone()];
        if i < n {
            let next = json!({"subflow": {"$component_ref": format!("f{}", i + 1)}});
            entries.insert(sub.clone(), node("FlowNode", &sub, next));
            ids.push(sub);
        }
        ids.push(end.clone());
        entries.insert(start.clone(), node("StartNode", &start, json!({})));
        entries.insert(end.clone(), node("EndNode", &end, json!({})));
        let edges: Vec<Value> = ids
            .windows(2)
            .enumerate()
            .map(|(k, w)| {
                let id = format!("c{i}_{k}");
                let ends = json!({"from_node": {"$component_ref": w[0]}, "to_node": {"$component_ref": w[1]}});
                node("ControlFlowEdge", &id, ends)
            })
            .collect();
        let nodes: Vec<Value> = ids.iter().map(|id| json!({"$component_ref": id})).collect();
        let body = json!({"start_node": {"$component_ref": start}, "nodes": nodes, "control_flow_connections": edges});
        entries.insert(format!("f{i}"), node("Flow", &format!("f{i}"), body));
    }
    let mut root = entries.remove("f0").unwrap();
    root["$referenced_components"] = Value::Object(entries);
    root["agentspec_version"] = "26.1.0".into();
    root
}

/// Flows `f0 … f{depth}`: each but the last runs the next one from two FlowNodes, all in the
/// root's `$referenced_components` (the subflow bomb: 2^depth uses of the innermost flow).
pub fn subflow_bomb(depth: usize) -> serde_json::Value {
    use serde_json::json;
    let node = |ty: &str, id: String, extra: serde_json::Value| {
        let mut n = json!({"component_type": ty, "id": id, "name": id});
        n.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        n
    };
    let edge = |id: String, from: &str, to: &str| {
        node(
            "ControlFlowEdge",
            id,
            json!({"from_node": {"$component_ref": from}, "to_node": {"$component_ref": to}}),
        )
    };
    let mut entries = serde_json::Map::new();
    for i in 0..=depth {
        let (start, end) = (format!("s{i}"), format!("e{i}"));
        let mut ids = vec![start.clone()];
        if i < depth {
            for side in ["a", "b"] {
                let id = format!("{side}{i}");
                let sub = json!({"subflow": {"$component_ref": format!("f{}", i + 1)}});
                entries.insert(id.clone(), node("FlowNode", id.clone(), sub));
                ids.push(id);
            }
        }
        ids.push(end.clone());
        entries.insert(start.clone(), node("StartNode", start.clone(), json!({})));
        entries.insert(end.clone(), node("EndNode", end.clone(), json!({})));
        let edges: Vec<_> = ids
            .windows(2)
            .enumerate()
            .map(|(k, w)| edge(format!("c{i}_{k}"), &w[0], &w[1]))
            .collect();
        let nodes: Vec<_> = ids.iter().map(|id| json!({"$component_ref": id})).collect();
        let flow = node(
            "Flow",
            format!("f{i}"),
            json!({"start_node": {"$component_ref": start}, "nodes": nodes, "control_flow_connections": edges}),
        );
        entries.insert(format!("f{i}"), flow);
    }
    let mut root = entries.remove("f0").unwrap();
    root["$referenced_components"] = serde_json::Value::Object(entries);
    root["agentspec_version"] = "26.1.0".into();
    root
}
