//! Node and component rules: branches, inferred inputs and outputs, component values.

#[allow(
    clippy::wildcard_imports,
    reason = "the rules share the module's helpers"
)]
use super::*;

/// Node rules: branches, inputs and outputs inferred from templates and types.
pub(super) fn node(report: &mut Report, body: &Map<String, Value>, pointer: &str) {
    let ty = str_of(body, "component_type");
    // An empty list is an unset one: pyagentspec fills in the inferred branches.
    let mut written = branches(body);
    if !written.is_empty()
        && let Some(expected) = inferred_branches(body)
    {
        written.sort();
        if written != expected {
            report.error(
                "branches-mismatch",
                body,
                token(pointer, "branches"),
                format!("{ty} has the branches {expected:?}, not {written:?}"),
            );
        }
    }
    let template = match ty {
        "LlmNode" => Some("prompt_template"),
        "Agent" => Some("system_prompt"),
        "OutputMessageNode" | "InputMessageNode" => Some("message"),
        _ => None,
    };
    if let Some(field) = template
        && let Some(text) = body.get(field).and_then(Value::as_str)
        && body.get("inputs").is_some_and(Value::is_array)
    {
        let expected = placeholders(text);
        let written: BTreeSet<String> = titles(body, "inputs").into_iter().collect();
        if written != expected {
            let message = format!(
                "the inputs must be the placeholders of `{field}` {expected:?}, found {written:?}"
            );
            report.error("inputs-mismatch", body, token(pointer, "inputs"), message);
        }
    }
    match ty {
        "StartNode" => {
            let (i, o) = (titles(body, "inputs"), titles(body, "outputs"));
            if body.get("inputs").is_some_and(Value::is_array)
                && body.get("outputs").is_some_and(Value::is_array)
                && i != o
            {
                report.error(
                    "startnode-io",
                    body,
                    token(pointer, "outputs"),
                    format!("a StartNode's outputs are its inputs {i:?}, found {o:?}"),
                );
            }
        }
        "BranchingNode" => {
            let inputs: Vec<&Value> = list(body, "inputs").collect();
            let ok = !body.get("inputs").is_some_and(Value::is_array) || inputs.len() == 1;
            if !ok {
                report.error(
                    "inputs-mismatch",
                    body,
                    token(pointer, "inputs"),
                    format!(
                        "a BranchingNode has exactly one input (the key it branches on), found {}",
                        inputs.len()
                    ),
                );
            }
        }
        "InputMessageNode" => {
            let outputs = body.get("outputs").and_then(Value::as_array);
            let ok = outputs.is_none_or(|o| {
                o.len() == 1
                    && o[0]
                        .get("type")
                        .and_then(Value::as_str)
                        .is_none_or(|t| t == "string")
            });
            if !ok {
                report.error(
                    "outputs-mismatch",
                    body,
                    token(pointer, "outputs"),
                    "an InputMessageNode has exactly one string output",
                );
            }
        }
        _ => {}
    }
}

/// The titles of `key` (inputs or outputs) of the component at `position`, resolved.
pub(super) fn titles_of(
    index: &Index<'_>,
    body: &Map<String, Value>,
    field: &str,
    key: &str,
) -> Option<BTreeSet<String>> {
    let target = body.get(field).and_then(|v| index.resolve(v, ""))?.0;
    Some(titles(target, key).into_iter().collect())
}

/// Placeholders in every string of a value (keys of objects included).
pub(super) fn placeholders_in(value: &Value, out: &mut BTreeSet<String>) {
    match value {
        Value::String(s) => out.extend(placeholders(s)),
        Value::Array(items) => items.iter().for_each(|v| placeholders_in(v, out)),
        Value::Object(map) => map.iter().for_each(|(k, v)| {
            out.extend(placeholders(k));
            placeholders_in(v, out);
        }),
        _ => {}
    }
}

/// Inputs and outputs the node's type infers (titles, compared as sets with what is
/// written); branches of nodes that run a flow.
pub(super) fn inferred_io(
    report: &mut Report,
    index: &Index<'_>,
    body: &Map<String, Value>,
    pointer: &str,
) {
    let ty = str_of(body, "component_type");
    let subflow_titles = |key: &str| titles_of(index, body, "subflow", key);
    let (inputs, outputs): (Option<BTreeSet<String>>, Option<BTreeSet<String>>) = match ty {
        "ToolNode" => (
            titles_of(index, body, "tool", "inputs"),
            titles_of(index, body, "tool", "outputs"),
        ),
        "AgentNode" => (
            titles_of(index, body, "agent", "inputs"),
            titles_of(index, body, "agent", "outputs"),
        ),
        "FlowNode" => (subflow_titles("inputs"), subflow_titles("outputs")),
        "MapNode" | "ParallelMapNode" => {
            let inputs = subflow_titles("inputs")
                .map(|t| t.into_iter().map(|x| format!("iterated_{x}")).collect());
            let outputs = body
                .get("reducers")
                .and_then(Value::as_object)
                .map(|r| r.keys().map(|x| format!("collected_{x}")).collect());
            (inputs, outputs)
        }
        "CatchExceptionNode" => {
            let outputs = subflow_titles("outputs").map(|mut t| {
                t.insert("caught_exception_info".into());
                t
            });
            (subflow_titles("inputs"), outputs)
        }
        "ApiNode" | "RemoteTool" => {
            let mut found = BTreeSet::new();
            for key in [
                "url",
                "http_method",
                "api_spec_uri",
                "data",
                "query_params",
                "headers",
            ] {
                if let Some(v) = body.get(key) {
                    placeholders_in(v, &mut found);
                }
            }
            (Some(found), None)
        }
        "AgentSpecializationParameters" => (
            body.get("additional_instructions")
                .and_then(Value::as_str)
                .map(placeholders),
            None,
        ),
        "ParallelFlowNode" => {
            let subflows: Vec<&Map<String, Value>> = list(body, "subflows")
                .filter_map(|f| index.resolve(f, ""))
                .map(|(f, _)| f)
                .collect();
            let inputs = subflows.iter().flat_map(|f| titles(f, "inputs")).collect();
            let mut outputs = BTreeSet::new();
            for title in subflows.iter().flat_map(|f| titles(f, "outputs")) {
                if !outputs.insert(title.clone()) {
                    report.error(
                        "outputs-mismatch",
                        body,
                        token(pointer, "subflows"),
                        format!("two subflows have the output `{title}`"),
                    );
                }
            }
            (Some(inputs), Some(outputs))
        }
        "SpecializedAgent" => {
            let agent = titles_of(index, body, "agent", "inputs");
            let extra = titles_of(index, body, "agent_specialization_parameters", "inputs")
                .unwrap_or_default();
            let outputs = titles_of(index, body, "agent", "outputs");
            let extra_out = titles_of(index, body, "agent_specialization_parameters", "outputs")
                .unwrap_or_default();
            (
                agent.map(|a| a.union(&extra).cloned().collect()),
                outputs.map(|o| o.union(&extra_out).cloned().collect()),
            )
        }
        "EndNode" => {
            let (i, o) = (titles(body, "inputs"), titles(body, "outputs"));
            if body.get("inputs").is_some_and(Value::is_array)
                && body.get("outputs").is_some_and(Value::is_array)
                && i != o
            {
                report.error(
                    "endnode-io",
                    body,
                    token(pointer, "outputs"),
                    format!("an EndNode's outputs are its inputs {i:?}, found {o:?}"),
                );
            }
            (None, None)
        }
        _ => (None, None),
    };
    compare_io(
        report,
        body,
        pointer,
        [("inputs", inputs), ("outputs", outputs)],
    );
    // A declared input may be more specific than the one it stands for: it must convert to it.
    let target = match ty {
        "ToolNode" => body.get("tool"),
        "AgentNode" => body.get("agent"),
        "FlowNode" => body.get("subflow"),
        _ => None,
    };
    if let Some((target, _)) = target.and_then(|t| index.resolve(t, "")) {
        for (i, declared) in list(body, "inputs").enumerate() {
            let title = title_of(declared);
            if let Some(inferred) = property(target, "inputs", title)
                && !castable(declared, inferred)
            {
                let message = format!(
                    "the input `{title}` ({}) does not convert to the {} it feeds ({})",
                    type_name(declared),
                    str_of(target, "component_type"),
                    type_name(inferred)
                );
                report.error(
                    "inputs-mismatch",
                    body,
                    token(&token(pointer, "inputs"), &i.to_string()),
                    message,
                );
            }
        }
    }
    if matches!(ty, "FlowNode" | "CatchExceptionNode")
        && let Some((subflow, _)) = body.get("subflow").and_then(|v| index.resolve(v, ""))
    {
        let mut expected: BTreeSet<String> = BTreeSet::new();
        for n in list(subflow, "nodes").filter_map(|n| index.resolve(n, "")) {
            if str_of(n.0, "component_type") == "EndNode" {
                expected.insert(
                    n.0.get("branch_name")
                        .and_then(Value::as_str)
                        .unwrap_or("next")
                        .to_owned(),
                );
            }
        }
        if ty == "CatchExceptionNode" {
            expected.insert("caught_exception_branch".into());
        }
        let written: BTreeSet<String> = branches(body).into_iter().collect();
        if !written.is_empty() && written != expected {
            report.error("branches-mismatch", body, token(pointer, "branches"), format!("a {ty} has the branches of its subflow's EndNodes {expected:?}, found {written:?}"));
        }
    }
}

/// Component values: thresholds, headers, datastore schemas, cardinalities.
pub(super) fn values(report: &mut Report, body: &Map<String, Value>, pointer: &str) {
    match str_of(body, "component_type") {
        "ManagerWorkers" if manager_is_worker(body) => {
            report.error(
                "cardinality",
                body,
                token(pointer, "workers"),
                "the group manager cannot also be one of the workers",
            );
        }
        "ConversationSummarizationTransform" => {
            let number = |k: &str| body.get(k).and_then(Value::as_f64);
            if let (Some(max), Some(min)) = (number("max_num_messages"), number("min_num_messages"))
                && max <= min
            {
                report.error(
                    "summarization-threshold",
                    body,
                    token(pointer, "max_num_messages"),
                    format!(
                        "`max_num_messages` ({max}) must be greater than `min_num_messages` ({min})"
                    ),
                );
            }
            let both = ["max_num_messages", "max_num_characters"]
                .iter()
                .filter(|k| body.get(**k).is_some_and(|v| !v.is_null()))
                .count();
            if both != 1 {
                report.error(
                    "summarization-threshold",
                    body,
                    pointer.to_owned(),
                    "exactly one of `max_num_messages` and `max_num_characters` is set",
                );
            }
        }
        "ApiNode"
        | "RemoteTool"
        | "SSETransport"
        | "SSEmTLSTransport"
        | "StreamableHTTPTransport"
        | "StreamableHTTPmTLSTransport" => {
            let headers = body.get("headers").and_then(Value::as_object);
            let sensitive = body.get("sensitive_headers").and_then(Value::as_object);
            if let (Some(h), Some(s)) = (headers, sensitive) {
                for k in h.keys().filter(|k| s.contains_key(*k)) {
                    report.error(
                        "header-in-both",
                        body,
                        token(&token(pointer, "sensitive_headers"), k),
                        format!("the header `{k}` is in both `headers` and `sensitive_headers`"),
                    );
                }
            }
        }
        "InMemoryCollectionDatastore" | "OracleDatabaseDatastore" | "PostgresDatabaseDatastore" => {
            for (k, v) in body
                .get("datastore_schema")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                let object = v.get("type").and_then(Value::as_str) == Some("object")
                    && v.get("properties").is_some_and(Value::is_object);
                if !object {
                    report.error(
                        "datastore-schema",
                        body,
                        token(&token(pointer, "datastore_schema"), k),
                        format!("the entity `{k}` must be an object schema with `properties`"),
                    );
                }
            }
        }
        "ManagerWorkers" => {
            let workers = body
                .get("workers")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            if workers == 0 {
                report.error(
                    "cardinality",
                    body,
                    token(pointer, "workers"),
                    "a ManagerWorkers needs at least one worker",
                );
            }
        }
        "Swarm"
            if body
                .get("relationships")
                .and_then(Value::as_array)
                .is_none_or(Vec::is_empty) =>
        {
            report.error(
                "cardinality",
                body,
                token(pointer, "relationships"),
                "a Swarm needs at least one relationship",
            );
        }
        _ => {}
    }
}

/// The cache entity a summarization transform needs in its datastore.
pub(super) fn cache_entity(transform: &str) -> Vec<(&'static str, &'static str)> {
    let mut entity = vec![
        ("cache_key", "string"),
        ("cache_content", "string"),
        ("created_at", "number"),
        ("last_used_at", "number"),
    ];
    if transform == "ConversationSummarizationTransform" {
        entity.push(("prefix_size", "integer"));
    }
    entity
}

/// The rest of the reference semantics' section 7: transforms, CatchExceptionNode,
/// ParallelFlowNode.
pub(super) fn section_seven(
    report: &mut Report,
    index: &Index<'_>,
    body: &Map<String, Value>,
    pointer: &str,
) {
    let ty = str_of(body, "component_type");
    match ty {
        "MessageSummarizationTransform" | "ConversationSummarizationTransform" => {
            for key in ["max_message_size", "max_cache_size", "max_cache_lifetime"] {
                if let Some(n) = body.get(key).and_then(Value::as_f64)
                    && n <= 0.0
                {
                    report.error(
                        "transform-value",
                        body,
                        token(pointer, key),
                        format!("`{key}` must be greater than 0, found {n}"),
                    );
                }
            }
            let collection = body.get("cache_collection_name").and_then(Value::as_str);
            let datastore = body.get("datastore").and_then(|d| index.resolve(d, ""));
            if let (Some(collection), Some((datastore, _))) = (collection, datastore) {
                let entity = datastore
                    .get("datastore_schema")
                    .and_then(|s| s.get(collection));
                let at = token(pointer, "datastore");
                match entity {
                    None => report.error("transform-datastore", body, at, format!("the datastore has no collection `{collection}` for the transform's cache")),
                    Some(entity) => {
                        for (property, expected) in cache_entity(ty) {
                            let found = entity.get("properties").and_then(|p| p.get(property));
                            let expected_schema = serde_json::json!({ "type": expected });
                            if !found.is_some_and(|f| castable(&expected_schema, f)) {
                                let message = format!("the collection `{collection}` needs a property `{property}` of type {expected}");
                                report.error("transform-datastore", body, at.clone(), message);
                            }
                        }
                    }
                }
            }
        }
        "CatchExceptionNode" => {
            for (i, output) in list(body, "outputs").enumerate() {
                if output.get("default").is_none() {
                    let title = title_of(output);
                    report.error("catch-exception", body, token(&token(pointer, "outputs"), &i.to_string()), format!("the output `{title}` needs a default (it has none when the subflow fails)"));
                }
            }
            if let Some((subflow, _)) = body.get("subflow").and_then(|s| index.resolve(s, "")) {
                let nodes = list(subflow, "nodes").filter_map(|n| index.resolve(n, ""));
                let reserved_branch = nodes
                    .filter(|(n, _)| str_of(n, "component_type") == "EndNode")
                    .any(|(n, _)| str_of(n, "branch_name") == "caught_exception_branch");
                let reserved_output = titles(subflow, "outputs")
                    .iter()
                    .any(|t| t == "caught_exception_info");
                if reserved_branch || reserved_output {
                    report.error("catch-exception", body, token(pointer, "subflow"), "the subflow may not use the branch `caught_exception_branch` nor the output `caught_exception_info`");
                }
            }
        }
        "ParallelFlowNode" => {
            let mut seen: HashMap<String, Value> = HashMap::new();
            for (flow, _) in list(body, "subflows").filter_map(|f| index.resolve(f, "")) {
                for input in list(flow, "inputs") {
                    let title = title_of(input).to_owned();
                    let kind = input.get("type").cloned().unwrap_or(Value::Null);
                    if seen.get(&title).is_some_and(|k| *k != kind) {
                        report.error(
                            "inputs-mismatch",
                            body,
                            token(pointer, "subflows"),
                            format!("the subflows take the input `{title}` with different types"),
                        );
                    }
                    seen.entry(title).or_insert(kind);
                }
            }
        }
        _ => {}
    }
}

/// Whether the manager of a ManagerWorkers is also listed as a worker (the same reference, or
/// the same inline component).
pub(super) fn manager_is_worker(body: &Map<String, Value>) -> bool {
    let key = |v: &Value| {
        v.get("$component_ref")
            .or_else(|| v.get("id"))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let manager = body.get("group_manager").and_then(key);
    manager.is_some() && list(body, "workers").any(|w| key(w) == manager)
}

/// The retry policies of a component (any field holding one), checked for ordered delays.
pub(super) fn retry_policies(report: &mut Report, body: &Map<String, Value>, pointer: &str) {
    if let Some(policy) = body.get("retry_policy").and_then(Value::as_object) {
        let number = |k: &str| policy.get(k).and_then(Value::as_f64);
        if let (Some(max), Some(initial)) =
            (number("max_retry_delay"), number("initial_retry_delay"))
            && max < initial
        {
            report.error(
                "retry-policy",
                body,
                token(&token(pointer, "retry_policy"), "max_retry_delay"),
                format!(
                    "`max_retry_delay` ({max}) cannot be below `initial_retry_delay` ({initial})"
                ),
            );
        }
    }
}

/// Reports declared inputs or outputs whose titles are not the `expected` ones.
fn compare_io(
    report: &mut Report,
    body: &Map<String, Value>,
    pointer: &str,
    lists: [(&str, Option<BTreeSet<String>>); 2],
) {
    let ty = str_of(body, "component_type");
    for (key, expected) in lists {
        let Some(expected) = expected else { continue };
        if !body.get(key).is_some_and(Value::is_array) {
            continue;
        }
        let written: BTreeSet<String> = titles(body, key).into_iter().collect();
        if written != expected {
            let code = if key == "inputs" {
                "inputs-mismatch"
            } else {
                "outputs-mismatch"
            };
            report.error(
                code,
                body,
                token(pointer, key),
                format!("the {key} of a {ty} are {expected:?}, found {written:?}"),
            );
        }
    }
}

/// A plugin component's rules: the inputs, outputs and branches its hook infers.
pub(super) fn plugin_io(
    report: &mut Report,
    body: &Map<String, Value>,
    pointer: &str,
    io: &crate::model::plugin::InferredIo,
) {
    let set = |v: &Option<Vec<String>>| v.as_ref().map(|v| v.iter().cloned().collect());
    compare_io(
        report,
        body,
        pointer,
        [("inputs", set(&io.inputs)), ("outputs", set(&io.outputs))],
    );
    if let Some(expected) = &io.branches {
        let (mut written, mut expected) = (branches(body), expected.clone());
        written.sort();
        expected.sort();
        if body.get("branches").is_some_and(Value::is_array) && written != expected {
            let ty = str_of(body, "component_type");
            report.error(
                "branches-mismatch",
                body,
                token(pointer, "branches"),
                format!("{ty} has the branches {expected:?}, not {written:?}"),
            );
        }
    }
}
