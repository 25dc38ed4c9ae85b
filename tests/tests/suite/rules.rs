//! One minimal document per validation rule that the corpus does not cover.

use agentspec_types::{Document, Format, locate};

/// The (code, pointer, line) of every error `validate` finds in a YAML document.
fn errors(yaml: &str) -> Vec<(&'static str, String, Option<u32>)> {
    let doc = Document::from_yaml_str(yaml).unwrap_or_else(|e| panic!("{e}"));
    let mut found = doc.validate();
    locate(&mut found, yaml, Format::Yaml);
    found
        .into_iter()
        .filter(|d| d.is_error())
        .map(|d| (d.code, d.pointer, d.line))
        .collect()
}

const TOOL: &str = "{component_type: ServerTool, id: t, name: t, inputs: [{title: city, type: string}], outputs: [{title: forecast, type: string}]}";

#[test]
fn a_tool_node_has_its_tools_inputs_and_outputs() {
    let ok = format!(
        "component_type: ToolNode\nid: n\nname: n\ntool: {TOOL}\ninputs: [{{title: city, type: string}}]\noutputs: [{{title: forecast, type: string}}]\nagentspec_version: 25.4.1\n"
    );
    assert!(errors(&ok).is_empty());
    let bad = ok.replace(
        "inputs: [{title: city, type: string}]\noutputs",
        "inputs: [{title: town, type: string}]\noutputs",
    );
    assert_eq!(
        errors(&bad),
        [("inputs-mismatch", "/inputs".to_owned(), Some(5))]
    );
}

#[test]
fn an_api_node_takes_its_inputs_from_placeholders() {
    let doc = "component_type: ApiNode\nid: a\nname: a\nurl: \"https://x/{{ city }}\"\nhttp_method: GET\n\
        data: {\"{{ key }}\": \"{{ value }}\"}\ninputs: [{title: city, type: string}, {title: key, type: string}]\nagentspec_version: 25.4.1\n";
    let found = errors(doc);
    assert_eq!(found.len(), 1);
    assert_eq!((found[0].0, found[0].2), ("inputs-mismatch", Some(7)));
}

#[test]
fn an_end_node_outputs_its_inputs() {
    let doc = "component_type: EndNode\nid: e\nname: e\ninputs: [{title: a, type: string}]\noutputs: [{title: b, type: string}]\nagentspec_version: 25.4.1\n";
    assert_eq!(
        errors(doc),
        [("endnode-io", "/outputs".to_owned(), Some(5))]
    );
}

#[test]
fn a_flow_node_has_the_branches_of_its_subflows_end_nodes() {
    let doc = "component_type: FlowNode\nid: fn\nname: fn\nbranches: [next, extra]\nsubflow:\n  component_type: Flow\n  id: f\n  name: f\n  \
        start_node: {$component_ref: s}\n  nodes: [{$component_ref: s}, {$component_ref: e}]\n  control_flow_connections:\n  \
        - {component_type: ControlFlowEdge, name: c, from_node: {$component_ref: s}, to_node: {$component_ref: e}}\n  \
        $referenced_components:\n    s: {component_type: StartNode, id: s, name: s}\n    e: {component_type: EndNode, id: e, name: e}\n\
        agentspec_version: 25.4.1\n";
    assert_eq!(
        errors(doc),
        [("branches-mismatch", "/branches".to_owned(), Some(4))]
    );
}

#[test]
fn a_map_node_iterates_its_subflows_inputs() {
    let doc = "component_type: MapNode\nid: m\nname: m\ninputs: [{title: city, type: string}]\nsubflow:\n  component_type: Flow\n  id: f\n  name: f\n  \
        inputs: [{title: city, type: string}]\n  start_node: {$component_ref: s}\n  nodes: [{$component_ref: s}, {$component_ref: e}]\n  \
        control_flow_connections:\n  - {component_type: ControlFlowEdge, name: c, from_node: {$component_ref: s}, to_node: {$component_ref: e}}\n  \
        $referenced_components:\n    s: {component_type: StartNode, id: s, name: s, inputs: [{title: city, type: string}], outputs: [{title: city, type: string}]}\n    \
        e: {component_type: EndNode, id: e, name: e}\nagentspec_version: 25.4.1\n";
    let found = errors(doc);
    assert_eq!(found, [("inputs-mismatch", "/inputs".to_owned(), Some(4))]);
    assert!(
        Document::from_yaml_str(doc).unwrap().validate()[0]
            .message
            .contains("iterated_city")
    );
}

#[test]
fn retry_delays_are_ordered_and_summarization_thresholds_consistent() {
    let retry = "component_type: RemoteTool\nid: r\nname: r\nurl: https://x\nhttp_method: GET\n\
        retry_policy: {max_attempts: 2, initial_retry_delay: 4.0, max_retry_delay: 1.0}\nagentspec_version: 26.1.2\n";
    assert_eq!(
        errors(retry),
        [(
            "retry-policy",
            "/retry_policy/max_retry_delay".to_owned(),
            Some(6)
        )]
    );
    let summary = "component_type: ConversationSummarizationTransform\nid: c\nname: c\nllm: {component_type: VllmConfig, id: l, name: l, url: u, model_id: m}\n\
        max_num_messages: 5\nmin_num_messages: 10\nagentspec_version: 26.1.2\n";
    assert_eq!(
        errors(summary),
        [(
            "summarization-threshold",
            "/max_num_messages".to_owned(),
            Some(5)
        )]
    );
}

#[test]
fn the_manager_is_not_also_a_worker() {
    let doc = "component_type: ManagerWorkers\nid: mw\nname: mw\ngroup_manager: {$component_ref: boss}\nworkers: [{$component_ref: boss}]\n\
        $referenced_components:\n  boss: {component_type: Agent, id: boss, name: boss, system_prompt: hi,\n         llm_config: {component_type: VllmConfig, id: l, name: l, url: u, model_id: m}}\n\
        agentspec_version: 25.4.2\n";
    assert_eq!(
        errors(doc),
        [("cardinality", "/workers".to_owned(), Some(5))]
    );
}

#[test]
fn property_schemas_have_the_structure_of_json_schema() {
    let doc = "component_type: ServerTool\nid: t\nname: t\ninputs: [{title: list, type: array, items: 3, minItems: -1}]\nagentspec_version: 25.4.1\n";
    let found = errors(doc);
    let pointers: Vec<&str> = found.iter().map(|(_, p, _)| p.as_str()).collect();
    assert!(
        found
            .iter()
            .all(|(c, _, l)| *c == "property-schema" && *l == Some(4)),
        "{found:?}"
    );
    assert!(
        pointers.contains(&"/inputs/0/items") && pointers.contains(&"/inputs/0/minItems"),
        "{pointers:?}"
    );
}

#[test]
fn end_nodes_agree_on_the_type_of_an_output() {
    let doc = "component_type: Flow\nid: f\nname: f\nstart_node: {$component_ref: s}\n\
        nodes: [{$component_ref: s}, {$component_ref: b}, {$component_ref: e1}, {$component_ref: e2}]\n\
        control_flow_connections:\n- {component_type: ControlFlowEdge, name: c0, from_node: {$component_ref: s}, to_node: {$component_ref: b}}\n\
        - {component_type: ControlFlowEdge, name: c1, from_node: {$component_ref: b}, from_branch: x, to_node: {$component_ref: e1}}\n\
        - {component_type: ControlFlowEdge, name: c2, from_node: {$component_ref: b}, from_branch: default, to_node: {$component_ref: e2}}\n\
        $referenced_components:\n  s: {component_type: StartNode, id: s, name: s, inputs: [{title: k, type: string}], outputs: [{title: k, type: string}]}\n  \
        b: {component_type: BranchingNode, id: b, name: b, mapping: {a: x}, inputs: [{title: k, type: string}]}\n  \
        e1: {component_type: EndNode, id: e1, name: e1, outputs: [{title: r, type: string}]}\n  \
        e2: {component_type: EndNode, id: e2, name: e2, outputs: [{title: r, type: integer}]}\n\
        inputs: [{title: k, type: string}]\nagentspec_version: 25.4.1\n";
    let found = errors(doc);
    assert_eq!(
        found.iter().map(|(c, ..)| *c).collect::<Vec<_>>(),
        ["flow-outputs"],
        "{found:?}"
    );
}

#[test]
fn a_declared_input_converts_to_what_it_feeds() {
    let tool =
        "{component_type: ServerTool, id: t, name: t, inputs: [{title: days, type: integer}]}";
    let doc = format!(
        "component_type: ToolNode\nid: n\nname: n\ntool: {tool}\ninputs: [{{title: days, type: string}}]\nagentspec_version: 25.4.1\n"
    );
    assert_eq!(
        errors(&doc),
        [("inputs-mismatch", "/inputs/0".to_owned(), Some(5))]
    );
    let narrower = doc.replace("type: string}]", "type: boolean}]");
    assert!(
        errors(&narrower).is_empty(),
        "a boolean converts to the tool's integer input"
    );
}

#[test]
fn parallel_flows_and_specialized_agents_infer_their_inputs() {
    let flow = |id: &str, input: &str, output: &str| {
        format!(
            "{{component_type: Flow, id: {id}, name: {id}, inputs: [{{title: {input}, type: string}}], outputs: [{{title: {output}, type: string}}], \
             start_node: {{component_type: StartNode, id: {id}s, name: s, inputs: [{{title: {input}, type: string}}], outputs: [{{title: {input}, type: string}}]}}, \
             nodes: [], control_flow_connections: []}}"
        )
    };
    let doc = format!(
        "component_type: ParallelFlowNode\nid: p\nname: p\nsubflows: [{}, {}]\ninputs: [{{title: a, type: string}}]\nagentspec_version: 25.4.2\n",
        flow("f1", "a", "x"),
        flow("f2", "b", "x")
    );
    let doc = Document::from_yaml_str(&doc).unwrap();
    let codes: Vec<&str> = doc
        .validate()
        .iter()
        .filter(|d| d.is_error() && d.pointer.starts_with("/inputs") || d.pointer == "/subflows")
        .map(|d| d.code)
        .collect();
    // written inputs are taken as written, as pyagentspec takes them (the subflows take a and b)
    assert_eq!(codes, ["outputs-mismatch"], "duplicate output `x`");
}

#[test]
fn a_branching_node_has_one_input() {
    let doc = "component_type: BranchingNode\nid: b\nname: b\nmapping: {yes: approved}\n\
        inputs: [{title: a, type: string}, {title: b, type: string}]\nagentspec_version: 25.4.1\n";
    assert_eq!(
        errors(doc),
        [("inputs-mismatch", "/inputs".to_owned(), Some(5))]
    );
}

// pyagentspec's validators (the comparison in the guide's conformance page): one document
// per rule it enforces on load, and per case where it reads more leniently than it seems.

use serde_json::{Value, json};

/// The (code, pointer) of every error `validate` finds in a document at 26.3.1.
fn errors_in(mut doc: Value) -> Vec<(&'static str, String)> {
    doc["agentspec_version"] = json!("26.3.1");
    let doc = Document::from_value(&doc).unwrap_or_else(|e| panic!("{e}"));
    doc.validate()
        .into_iter()
        .filter(|d| d.is_error())
        .map(|d| (d.code, d.pointer))
        .collect()
}

fn error(code: &'static str, pointer: &str) -> Vec<(&'static str, String)> {
    vec![(code, pointer.to_owned())]
}

fn string(title: &str) -> Value {
    json!({"title": title, "type": "string"})
}

/// A flow from a StartNode through `middle` to an EndNode, its nodes referenced.
fn flow_through(id: &str, start: Value, middle: &[Value], end: Value) -> Value {
    let mut nodes = vec![start];
    nodes.extend_from_slice(middle);
    nodes.push(end);
    let ids: Vec<String> = nodes
        .iter()
        .map(|n| n["id"].as_str().unwrap().to_owned())
        .collect();
    let edges: Vec<Value> = ids
        .windows(2)
        .map(|w| json!({"component_type": "ControlFlowEdge", "id": format!("{}-{}", w[0], w[1]),
            "name": "c", "from_node": {"$component_ref": w[0]}, "to_node": {"$component_ref": w[1]}}))
        .collect();
    let refs: serde_json::Map<String, Value> =
        ids.iter().cloned().zip(nodes.iter().cloned()).collect();
    json!({"component_type": "Flow", "id": id, "name": id,
        "start_node": {"$component_ref": ids[0]},
        "nodes": ids.iter().map(|i| json!({"$component_ref": i})).collect::<Vec<_>>(),
        "control_flow_connections": edges, "$referenced_components": refs})
}

fn start_node(id: &str, inputs: &[Value]) -> Value {
    json!({"component_type": "StartNode", "id": id, "name": id, "inputs": inputs, "outputs": inputs})
}

fn end_node(id: &str, outputs: &[Value]) -> Value {
    json!({"component_type": "EndNode", "id": id, "name": id, "inputs": outputs, "outputs": outputs})
}

/// A flow whose EndNode outputs `outputs`, the flow's own outputs left out.
fn subflow(id: &str, outputs: &[Value]) -> Value {
    let (s, e) = (format!("{id}-s"), format!("{id}-e"));
    flow_through(id, start_node(&s, &[]), &[], end_node(&e, outputs))
}

/// A flow running `node` between its StartNode and EndNode.
fn around(node: Value) -> Value {
    flow_through("outer", start_node("s", &[]), &[node], end_node("e", &[]))
}

#[test]
fn a_dbms_vector_chain_config_authenticates_with_a_credential_or_the_local_host() {
    let config = json!({"component_type": "DbmsVectorChainLlmConfig", "id": "d", "name": "d",
        "model_id": "command-r", "provider": "cohere", "url": "https://api.cohere.ai/v1/chat"});
    let with = |extra: Value| {
        let mut c = config.clone();
        c.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        errors_in(c)
    };
    assert_eq!(errors_in(config.clone()), error("dbms-credential", ""));
    // a connection is no credential
    let connection = json!({"connection_config": {"component_type": "TlsOracleDatabaseConnectionConfig",
        "id": "db", "name": "db", "user": "scott", "password": "tiger", "dsn": "db"}});
    assert_eq!(with(connection), error("dbms-credential", ""));
    assert!(with(json!({"credential_name": "COHERE"})).is_empty());
    assert!(with(json!({"provider": "ollama", "host": "local"})).is_empty());
    assert_eq!(
        with(json!({"provider": "openai", "host": "local", "credential_name": "C"})),
        error("dbms-credential", "/credential_name")
    );
    assert_eq!(
        with(json!({"host": "local"})),
        error("dbms-credential", "/host")
    );
    assert_eq!(
        with(json!({"provider": "OpenAI", "host": "local"})),
        error("dbms-credential", "/host")
    );
    for field in ["api_key", "api_type", "api_provider"] {
        let found = with(json!({"credential_name": "C", field: "x"}));
        assert_eq!(found, error("dbms-credential", &format!("/{field}")));
    }
    assert!(with(json!({"credential_name": "C", "api_key": null})).is_empty());
    assert_eq!(
        with(json!({"credential_name": "C", "model_id": ""})),
        error("invalid-length", "/model_id")
    );
    assert_eq!(
        with(json!({"credential_name": ""})),
        error("invalid-length", "/credential_name")
    );
    assert_eq!(
        with(json!({"credential_name": "C", "host": "remote"})),
        error("invalid-value", "/host")
    );
}

#[test]
fn start_and_end_nodes_give_their_inputs_property_for_property() {
    let typed = [json!({"title": "x", "type": "integer"})];
    let start = json!({"component_type": "StartNode", "id": "s", "name": "s",
        "inputs": [string("x")], "outputs": typed});
    assert_eq!(errors_in(start), error("startnode-io", "/outputs"));
    let described = [json!({"title": "x", "type": "string", "description": "d"})];
    let end = json!({"component_type": "EndNode", "id": "e", "name": "e",
        "inputs": [string("x")], "outputs": described});
    assert_eq!(errors_in(end), error("endnode-io", "/outputs"));
    let reordered = json!({"component_type": "StartNode", "id": "s", "name": "s",
        "inputs": [string("x"), string("y")], "outputs": [string("y"), string("x")]});
    assert_eq!(errors_in(reordered), error("startnode-io", "/outputs"));
}

#[test]
fn nodes_that_output_nothing_declare_no_outputs() {
    let llm = json!({"component_type": "VllmConfig", "id": "l", "name": "l", "model_id": "m", "url": "http://x"});
    let nodes = [
        json!({"component_type": "BranchingNode", "id": "n", "name": "n", "mapping": {}, "outputs": [string("o")]}),
        json!({"component_type": "OutputMessageNode", "id": "n", "name": "n", "message": "hi", "outputs": [string("o")]}),
        // none left out is `generated_text`; none written is none at all
        json!({"component_type": "LlmNode", "id": "n", "name": "n", "llm_config": llm, "prompt_template": "hi", "outputs": []}),
        json!({"component_type": "InputMessageNode", "id": "n", "name": "n", "outputs": [{"title": "o"}]}),
        json!({"component_type": "InputMessageNode", "id": "n", "name": "n", "outputs": [{"title": "o", "type": ["string"]}]}),
    ];
    for node in nodes {
        let ty = node["component_type"].clone();
        let found = errors_in(around(node));
        assert_eq!(
            found,
            error("outputs-mismatch", "/$referenced_components/n/outputs"),
            "{ty}"
        );
    }
    let parameters = json!({"component_type": "AgentSpecializationParameters", "id": "p", "name": "p",
        "additional_instructions": "x", "outputs": [string("o")]});
    assert_eq!(errors_in(parameters), error("outputs-mismatch", "/outputs"));
}

#[test]
fn a_catch_exception_node_without_outputs_needs_defaults_in_its_subflows_outputs() {
    let catch = |outputs: &[Value]| json!({"component_type": "CatchExceptionNode", "id": "n", "name": "n", "subflow": subflow("sub", outputs)});
    assert_eq!(
        errors_in(around(catch(&[string("o")]))),
        error("catch-exception", "/$referenced_components/n/subflow")
    );
    let with_default = json!({"title": "o", "type": "string", "default": "none"});
    assert!(errors_in(around(catch(&[with_default]))).is_empty());
}

#[test]
fn a_map_node_collects_the_subflow_outputs_its_reducers_name() {
    let collected =
        |t: &str| json!({"title": format!("collected_{t}"), "type": "array", "items": string(t)});
    let map = |reducers: Value, outputs: &[Value]| {
        let mut node = json!({"component_type": "MapNode", "id": "n", "name": "n",
            "subflow": subflow("sub", &[string("o"), string("p")]), "outputs": outputs});
        if !reducers.is_null() {
            node["reducers"] = reducers;
        }
        errors_in(around(node))
    };
    // left out, the reducers collect every output
    assert!(map(Value::Null, &[collected("o"), collected("p")]).is_empty());
    let mismatch = error("outputs-mismatch", "/$referenced_components/n/outputs");
    assert_eq!(map(Value::Null, &[collected("o")]), mismatch);
    assert!(map(json!({"o": "append"}), &[collected("o")]).is_empty());
    // a reducer of no output of the subflow collects nothing
    assert!(map(json!({"o": "append", "zz": "append"}), &[collected("o")]).is_empty());
    assert_eq!(
        map(
            json!({"o": "append", "zz": "append"}),
            &[collected("o"), collected("zz")]
        ),
        mismatch
    );
}

#[test]
fn inputs_and_outputs_left_out_are_the_ones_pyagentspec_infers() {
    // the subflow writes neither inputs nor outputs: its StartNode's and its EndNode's
    let inner = flow_through(
        "sub",
        start_node("sub-s", &[string("x")]),
        &[],
        end_node("sub-e", &[string("y")]),
    );
    let node = json!({"component_type": "FlowNode", "id": "n", "name": "n", "subflow": inner,
        "inputs": [string("x")], "outputs": [string("y")]});
    let found = errors_in(around(node));
    assert!(
        found.iter().all(|(c, _)| !c.ends_with("-mismatch")),
        "{found:?}"
    );
    let llm = json!({"component_type": "VllmConfig", "id": "l", "name": "l", "model_id": "m", "url": "http://x"});
    let agent = json!({"component_type": "Agent", "id": "a", "name": "a", "llm_config": llm, "system_prompt": "hi {{x}}"});
    let node = json!({"component_type": "AgentNode", "id": "n", "name": "n", "agent": agent, "inputs": [string("x")]});
    let found = errors_in(around(node));
    assert!(
        found.iter().all(|(c, _)| !c.ends_with("-mismatch")),
        "{found:?}"
    );
    // an InputMessageNode without message has no inputs; `{{{ a }}` holds `a`
    let node = json!({"component_type": "InputMessageNode", "id": "n", "name": "n", "inputs": [string("a")]});
    assert_eq!(
        errors_in(around(node)),
        error("inputs-mismatch", "/$referenced_components/n/inputs")
    );
    let node = json!({"component_type": "LlmNode", "id": "n", "name": "n", "llm_config": llm,
        "prompt_template": "{{{ a }} and {{ b {{ c }}", "inputs": [string("a"), string("c")]});
    let found = errors_in(around(node));
    assert!(
        found.iter().all(|(c, _)| *c != "inputs-mismatch"),
        "{found:?}"
    );
}

/// A flow branching to two EndNodes, `x` of each given, and the flow's `outputs`.
fn two_ends(x1: Value, x2: Value, outputs: &[Value]) -> Value {
    let branching = json!({"component_type": "BranchingNode", "id": "b", "name": "b",
        "mapping": {"a": "a"}, "inputs": [string("k")]});
    let mut flow = flow_through(
        "f",
        start_node("s", &[string("k")]),
        &[branching],
        end_node("e1", &[x1]),
    );
    flow["nodes"]
        .as_array_mut()
        .unwrap()
        .push(json!({"$component_ref": "e2"}));
    flow["$referenced_components"]["e2"] = end_node("e2", &[x2]);
    let edges = flow["control_flow_connections"].as_array_mut().unwrap();
    edges[1]["from_branch"] = json!("a");
    edges.push(json!({"component_type": "ControlFlowEdge", "id": "b-e2", "name": "c", "from_branch": "default",
        "from_node": {"$component_ref": "b"}, "to_node": {"$component_ref": "e2"}}));
    flow["inputs"] = json!([string("k")]);
    flow["outputs"] = json!(outputs);
    flow
}

#[test]
fn end_node_outputs_of_one_title_have_one_type_annotations_aside() {
    let enumerated = json!({"title": "x", "type": "string", "enum": ["a"], "description": "d"});
    assert!(errors_in(two_ends(enumerated, string("x"), &[])).is_empty());
    let list = |items: &str| json!({"title": "x", "type": "array", "items": {"type": items}});
    let differ = errors_in(two_ends(list("string"), list("integer"), &[]));
    assert_eq!(differ, error("flow-outputs", "/nodes"));
    // a flow output without default: in every EndNode, of its type
    let integer = json!({"title": "x", "type": "integer"});
    let found = errors_in(two_ends(string("x"), string("x"), &[integer]));
    assert_eq!(
        found,
        [
            ("flow-outputs", "/outputs/0".to_owned()),
            ("flow-outputs", "/outputs/0".to_owned())
        ]
    );
}

#[test]
fn parallel_subflows_inputs_of_one_title_have_one_type() {
    let taking = |id: &str, input: Value| {
        let mut f = flow_through(
            id,
            start_node(&format!("{id}-s"), std::slice::from_ref(&input)),
            &[],
            end_node(&format!("{id}-e"), &[]),
        );
        f["inputs"] = json!([input]);
        f
    };
    let list = |items: &str| json!({"title": "x", "type": "array", "items": {"type": items}});
    let node = |inputs: Option<Value>| {
        let mut n = json!({"component_type": "ParallelFlowNode", "id": "n", "name": "n",
            "subflows": [taking("a", list("string")), taking("b", list("integer"))]});
        if let Some(inputs) = inputs {
            n["inputs"] = inputs;
        }
        errors_in(around(n))
    };
    assert_eq!(
        node(None),
        error("inputs-mismatch", "/$referenced_components/n/subflows")
    );
    // written inputs are taken as written
    let found = node(Some(json!([list("string")])));
    assert!(
        found.iter().all(|(c, _)| *c != "inputs-mismatch"),
        "{found:?}"
    );
}

#[test]
fn property_schemas_follow_json_schemas_meta_schema() {
    let tool = |input: Value| json!({"component_type": "ServerTool", "id": "t", "name": "t", "inputs": [input]});
    let cases = [
        (
            json!({"title": "x", "type": "array", "uniqueItems": "yes"}),
            "/inputs/0/uniqueItems",
        ),
        (
            json!({"title": "x", "type": "object", "required": ["a", "a"]}),
            "/inputs/0/required",
        ),
        (json!({"title": "x", "type": []}), "/inputs/0/type"),
        (
            json!({"title": "x", "type": ["string", "string"]}),
            "/inputs/0/type",
        ),
        (
            json!({"title": "x", "type": "string", "$comment": 3}),
            "/inputs/0/$comment",
        ),
        (
            json!({"title": "x", "type": "string", "readOnly": "no"}),
            "/inputs/0/readOnly",
        ),
        (
            json!({"title": "x", "type": "string", "examples": "a"}),
            "/inputs/0/examples",
        ),
        (
            json!({"title": "x", "type": "number", "multipleOf": 0}),
            "/inputs/0/multipleOf",
        ),
        (
            json!({"title": "x", "type": "string", "$anchor": "1a"}),
            "/inputs/0/$anchor",
        ),
        (
            json!({"title": "x", "type": "object", "propertyNames": 3}),
            "/inputs/0/propertyNames",
        ),
        (
            json!({"title": "x", "type": "object", "dependentRequired": {"a": [1]}}),
            "/inputs/0/dependentRequired",
        ),
        (
            json!({"title": "x", "type": "object", "properties": {"a": {"minLength": -1}}}),
            "/inputs/0/properties/a/minLength",
        ),
        (
            json!({"title": "x", "type": "object", "$defs": {"a": {"maxContains": 1.5}}}),
            "/inputs/0/$defs/a/maxContains",
        ),
    ];
    for (input, pointer) in cases {
        assert_eq!(
            errors_in(tool(input.clone())),
            error("property-schema", pointer),
            "{input}"
        );
    }
    let fine = json!({"title": "x", "type": "string", "enum": [], "minLength": 1.0, "$id": "https://x/s#"});
    assert!(errors_in(tool(fine)).is_empty());
}

#[test]
fn property_titles_are_checked_where_pyagentspec_reads_them() {
    let tool = |input: Value| json!({"component_type": "ServerTool", "id": "t", "name": "t", "inputs": [input]});
    let spaced = json!({"title": "x", "type": "object", "additionalProperties": {"title": "a b", "type": "string"}});
    assert_eq!(
        errors_in(tool(spaced)),
        error("property-title", "/inputs/0/additionalProperties/title")
    );
    assert_eq!(
        errors_in(tool(json!({"title": "", "type": "string"}))),
        error("property-title", "/inputs/0/title")
    );
    // an empty title inside the property is no property's title
    let nested = json!({"title": "x", "type": "object", "properties": {"a": {"title": "", "type": "string"}}});
    assert!(errors_in(tool(nested)).is_empty());
}

#[test]
fn a_default_fits_its_property_all_the_way_down() {
    let tool = |input: Value| json!({"component_type": "ServerTool", "id": "t", "name": "t", "inputs": [input]});
    let unfit = [
        json!({"title": "x", "anyOf": [{"type": "integer"}, {"type": "null"}], "default": "a"}),
        json!({"title": "x", "type": "array", "items": {"type": "integer"}, "default": ["a"]}),
        json!({"title": "x", "type": "object", "properties": {"a": {"type": "string"}}, "default": {}}),
        json!({"title": "x", "type": "object", "additionalProperties": false, "default": {"b": 1}}),
        json!({"title": "x", "type": "object", "additionalProperties": {"type": "integer"}, "default": {"b": "s"}}),
    ];
    for input in unfit {
        assert_eq!(
            errors_in(tool(input.clone())),
            error("property-default", "/inputs/0/default"),
            "{input}"
        );
    }
    let fit = [
        json!({"title": "x", "anyOf": [{"type": "integer"}, {"type": "null"}], "default": null}),
        json!({"title": "x", "type": "object", "properties": {"a": {"type": "string", "default": "d"}}, "default": {}}),
        // a default inside the property is read only through the property's own
        json!({"title": "x", "type": "object", "properties": {"a": {"type": "integer", "default": "s"}}}),
    ];
    for input in fit {
        assert!(errors_in(tool(input.clone())).is_empty(), "{input}");
    }
}
