//! Node and component rules: branches, inferred inputs and outputs, component values.

#[allow(
    clippy::wildcard_imports,
    reason = "the rules share the module's helpers"
)]
use super::*;
use crate::{
    Agent, AgentNode, AgentSpecializationParameters, ApiNode, BranchingNode, CatchExceptionNode,
    ConversationSummarizationTransform, EndNode, Flow, FlowNode, InMemoryCollectionDatastore,
    InputMessageNode, LlmNode, ManagerWorkers, MapNode, MessageSummarizationTransform,
    OracleDatabaseDatastore, OutputMessageNode, ParallelFlowNode, ParallelMapNode,
    PostgresDatabaseDatastore, RefOr, RemoteTool, RetryPolicy, SSETransport, SSEmTLSTransport,
    SpecializedAgent, StartNode, StreamableHTTPTransport, StreamableHTTPmTLSTransport, Swarm,
    ToolNode,
};

/// The template whose placeholders are a component's inputs: (field, text when set).
fn template(c: &dyn ComponentInfo) -> Option<(&'static str, Option<&str>)> {
    if let Some(n) = typed::<LlmNode>(c) {
        return Some(("prompt_template", Some(&n.prompt_template)));
    }
    if let Some(a) = typed::<Agent>(c) {
        return Some(("system_prompt", Some(&a.system_prompt)));
    }
    if let Some(n) = typed::<OutputMessageNode>(c) {
        return Some(("message", Some(&n.message)));
    }
    typed::<InputMessageNode>(c).map(|n| ("message", n.message.as_deref()))
}

/// Node rules: branches, inputs and outputs inferred from templates and types.
pub(super) fn node(report: &mut Report, body: &dyn ComponentInfo, pointer: &str) {
    let ty = body.component_type();
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
    if let Some((field, Some(text))) = template(body)
        && has(body, "inputs")
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
    if typed::<StartNode>(body).is_some() {
        let (i, o) = (titles(body, "inputs"), titles(body, "outputs"));
        if has(body, "inputs") && has(body, "outputs") && i != o {
            report.error(
                "startnode-io",
                body,
                token(pointer, "outputs"),
                format!("a StartNode's outputs are its inputs {i:?}, found {o:?}"),
            );
        }
    } else if typed::<BranchingNode>(body).is_some() {
        let inputs = list(body, "inputs");
        if has(body, "inputs") && inputs.len() != 1 {
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
    } else if typed::<InputMessageNode>(body).is_some() {
        let ok = body.outputs().is_none_or(|o| {
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
}

/// The titles of the inputs or outputs (`key`) of the component at a position.
fn titles_of<T: ComponentInfo>(
    index: &Index<'_>,
    position: &RefOr<T>,
    key: &str,
) -> Option<BTreeSet<String>> {
    let target = index.get(position)?;
    Some(titles(target, key).into_iter().collect())
}

/// Placeholders in every string of a value (keys of objects included).
fn placeholders_in(value: &Value, out: &mut BTreeSet<String>) {
    match value {
        Value::String(s) => out.extend(placeholders(s)),
        Value::Array(items) => items.iter().for_each(|v| placeholders_in(v, out)),
        Value::Object(map) => placeholders_in_map(map, out),
        _ => {}
    }
}

fn placeholders_in_map(map: &JsonObject, out: &mut BTreeSet<String>) {
    for (k, v) in map {
        out.extend(placeholders(k));
        placeholders_in(v, out);
    }
}

/// The placeholders of an ApiNode's or RemoteTool's request.
fn request_placeholders(
    url: &str,
    method: &str,
    spec: Option<&str>,
    data: &Value,
    query: &JsonObject,
    headers: &JsonObject,
) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for text in [Some(url), Some(method), spec].into_iter().flatten() {
        found.extend(placeholders(text));
    }
    placeholders_in(data, &mut found);
    placeholders_in_map(query, &mut found);
    placeholders_in_map(headers, &mut found);
    found
}

type Io = (Option<BTreeSet<String>>, Option<BTreeSet<String>>);

/// The inputs and outputs a node runs a flow for: its subflow's.
fn subflow_io(index: &Index<'_>, subflow: &RefOr<Flow>) -> Io {
    (
        titles_of(index, subflow, "inputs"),
        titles_of(index, subflow, "outputs"),
    )
}

/// Inputs and outputs the node's type infers (titles, compared as sets with what is
/// written); `None` where it infers nothing.
fn expected_io(
    report: &mut Report,
    index: &Index<'_>,
    body: &dyn ComponentInfo,
    pointer: &str,
) -> Io {
    if let Some(n) = typed::<ToolNode>(body) {
        return (
            titles_of(index, &n.tool, "inputs"),
            titles_of(index, &n.tool, "outputs"),
        );
    }
    if let Some(n) = typed::<AgentNode>(body) {
        return (
            titles_of(index, &n.agent, "inputs"),
            titles_of(index, &n.agent, "outputs"),
        );
    }
    if let Some(n) = typed::<FlowNode>(body) {
        return subflow_io(index, &n.subflow);
    }
    let map = typed::<MapNode>(body)
        .map(|n| (&n.subflow, &n.reducers))
        .or_else(|| typed::<ParallelMapNode>(body).map(|n| (&n.subflow, &n.reducers)));
    if let Some((subflow, reducers)) = map {
        let inputs = titles_of(index, subflow, "inputs")
            .map(|t| t.into_iter().map(|x| format!("iterated_{x}")).collect());
        let outputs = reducers
            .as_ref()
            .map(|r| r.keys().map(|x| format!("collected_{x}")).collect());
        return (inputs, outputs);
    }
    if let Some(n) = typed::<CatchExceptionNode>(body) {
        let (inputs, outputs) = subflow_io(index, &n.subflow);
        let outputs = outputs.map(|mut t| {
            t.insert("caught_exception_info".into());
            t
        });
        return (inputs, outputs);
    }
    // ApiNode and RemoteTool have the same request fields
    macro_rules! request_of {
        ($t:ty) => {
            typed::<$t>(body).map(|n| {
                (
                    &n.url,
                    &n.http_method,
                    &n.api_spec_uri,
                    &n.data,
                    &n.query_params,
                    &n.headers,
                )
            })
        };
    }
    let request = request_of!(ApiNode).or_else(|| request_of!(RemoteTool));
    if let Some((url, method, spec, data, query, headers)) = request {
        let found = request_placeholders(url, method, spec.as_deref(), data, query, headers);
        return (Some(found), None);
    }
    if let Some(p) = typed::<AgentSpecializationParameters>(body) {
        return (p.additional_instructions.as_deref().map(placeholders), None);
    }
    if let Some(n) = typed::<ParallelFlowNode>(body) {
        let subflows: Vec<&dyn ComponentInfo> =
            n.subflows.iter().filter_map(|f| index.get(f)).collect();
        let inputs = subflows.iter().flat_map(|f| titles(*f, "inputs")).collect();
        let mut outputs = BTreeSet::new();
        for title in subflows.iter().flat_map(|f| titles(*f, "outputs")) {
            if !outputs.insert(title.clone()) {
                report.error(
                    "outputs-mismatch",
                    body,
                    token(pointer, "subflows"),
                    format!("two subflows have the output `{title}`"),
                );
            }
        }
        return (Some(inputs), Some(outputs));
    }
    if let Some(a) = typed::<SpecializedAgent>(body) {
        let params = &a.agent_specialization_parameters;
        let agent = titles_of(index, &a.agent, "inputs");
        let extra = titles_of(index, params, "inputs").unwrap_or_default();
        let outputs = titles_of(index, &a.agent, "outputs");
        let extra_out = titles_of(index, params, "outputs").unwrap_or_default();
        return (
            agent.map(|a| a.union(&extra).cloned().collect()),
            outputs.map(|o| o.union(&extra_out).cloned().collect()),
        );
    }
    if typed::<EndNode>(body).is_some() {
        let (i, o) = (titles(body, "inputs"), titles(body, "outputs"));
        if has(body, "inputs") && has(body, "outputs") && i != o {
            report.error(
                "endnode-io",
                body,
                token(pointer, "outputs"),
                format!("an EndNode's outputs are its inputs {i:?}, found {o:?}"),
            );
        }
    }
    (None, None)
}

/// The component a node runs, whose inputs its own declared inputs feed.
fn fed_target<'a>(index: &Index<'a>, body: &'a dyn ComponentInfo) -> Option<&'a dyn ComponentInfo> {
    if let Some(n) = typed::<ToolNode>(body) {
        return index.get(&n.tool);
    }
    if let Some(n) = typed::<AgentNode>(body) {
        return index.get(&n.agent);
    }
    typed::<FlowNode>(body).and_then(|n| index.get(&n.subflow))
}

/// Inputs and outputs the node's type infers (titles, compared as sets with what is
/// written); branches of nodes that run a flow.
pub(super) fn inferred_io<'a>(
    report: &mut Report,
    index: &Index<'a>,
    body: &'a dyn ComponentInfo,
    pointer: &str,
) {
    let (inputs, outputs) = expected_io(report, index, body, pointer);
    compare_io(
        report,
        body,
        pointer,
        [("inputs", inputs), ("outputs", outputs)],
    );
    // A declared input may be more specific than the one it stands for: it must convert to it.
    if let Some(target) = fed_target(index, body) {
        for (i, declared) in list(body, "inputs").iter().enumerate() {
            let title = title_of(declared);
            if let Some(inferred) = property(target, "inputs", title)
                && !castable_properties(declared, inferred)
            {
                let message = format!(
                    "the input `{title}` ({}) does not convert to the {} it feeds ({})",
                    property_type_name(declared),
                    target.component_type(),
                    property_type_name(inferred)
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
    let subflow = typed::<FlowNode>(body)
        .map(|n| (&n.subflow, false))
        .or_else(|| typed::<CatchExceptionNode>(body).map(|n| (&n.subflow, true)));
    if let Some((subflow, catches)) = subflow
        && let Some(subflow) = index.get(subflow).and_then(typed::<Flow>)
    {
        let mut expected: BTreeSet<String> = subflow
            .nodes
            .iter()
            .filter_map(|n| index.get(n).and_then(typed::<EndNode>))
            .map(|end| end.branch_name.clone())
            .collect();
        if catches {
            expected.insert("caught_exception_branch".into());
        }
        let written: BTreeSet<String> = branches(body).into_iter().collect();
        if !written.is_empty() && written != expected {
            let ty = body.component_type();
            report.error("branches-mismatch", body, token(pointer, "branches"), format!("a {ty} has the branches of its subflow's EndNodes {expected:?}, found {written:?}"));
        }
    }
}

/// The keys of a header map that are also sensitive headers.
fn headers_in_both<'h>(headers: Vec<&'h str>, sensitive: Vec<&str>) -> Vec<&'h str> {
    headers
        .into_iter()
        .filter(|k| sensitive.contains(k))
        .collect()
}

/// The keys of the (non-sensitive and sensitive) headers of a component that has both.
fn header_keys(body: &dyn ComponentInfo) -> Option<(Vec<&str>, Vec<&str>)> {
    fn keys<T>(m: &indexmap::IndexMap<String, T>) -> Vec<&str> {
        m.keys().map(String::as_str).collect()
    }
    fn object_keys(m: &JsonObject) -> Vec<&str> {
        m.keys().map(String::as_str).collect()
    }
    type Headers = Option<indexmap::IndexMap<String, String>>;
    type Secret = Option<crate::Sensitive<indexmap::IndexMap<String, String>>>;
    fn transport<'a>(
        headers: &'a Headers,
        sensitive: &'a Secret,
    ) -> Option<(Vec<&'a str>, Vec<&'a str>)> {
        match (headers, sensitive) {
            (Some(h), Some(crate::Sensitive::Value(s))) => Some((keys(h), keys(s))),
            _ => None,
        }
    }
    if let Some(n) = typed::<ApiNode>(body) {
        return n
            .sensitive_headers
            .value()
            .ok()
            .map(|s| (object_keys(&n.headers), object_keys(s)));
    }
    if let Some(n) = typed::<RemoteTool>(body) {
        return n
            .sensitive_headers
            .value()
            .ok()
            .map(|s| (object_keys(&n.headers), object_keys(s)));
    }
    if let Some(t) = typed::<SSETransport>(body) {
        return transport(&t.headers, &t.sensitive_headers);
    }
    if let Some(t) = typed::<SSEmTLSTransport>(body) {
        return transport(&t.headers, &t.sensitive_headers);
    }
    if let Some(t) = typed::<StreamableHTTPTransport>(body) {
        return transport(&t.headers, &t.sensitive_headers);
    }
    typed::<StreamableHTTPmTLSTransport>(body)
        .and_then(|t| transport(&t.headers, &t.sensitive_headers))
}

/// The entity schemas of a datastore.
fn datastore_schema(c: &dyn ComponentInfo) -> Option<&indexmap::IndexMap<String, JsonObject>> {
    if let Some(d) = typed::<InMemoryCollectionDatastore>(c) {
        return Some(&d.datastore_schema);
    }
    if let Some(d) = typed::<OracleDatabaseDatastore>(c) {
        return Some(&d.datastore_schema);
    }
    typed::<PostgresDatabaseDatastore>(c).map(|d| &d.datastore_schema)
}

/// Component values: thresholds, headers, datastore schemas, cardinalities.
pub(super) fn values(report: &mut Report, body: &dyn ComponentInfo, pointer: &str) {
    if let Some(m) = typed::<ManagerWorkers>(body) {
        if manager_is_worker(m) {
            report.error(
                "cardinality",
                body,
                token(pointer, "workers"),
                "the group manager cannot also be one of the workers",
            );
        } else if m.workers.is_empty() {
            report.error(
                "cardinality",
                body,
                token(pointer, "workers"),
                "a ManagerWorkers needs at least one worker",
            );
        }
    }
    if let Some(t) = typed::<ConversationSummarizationTransform>(body) {
        let (max, min) = (t.max_num_messages, t.min_num_messages);
        if let Some(max) = max
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
        let both = [t.max_num_messages, t.max_num_characters]
            .iter()
            .filter(|v| v.is_some())
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
    if let Some((headers, sensitive)) = header_keys(body) {
        for k in headers_in_both(headers, sensitive) {
            report.error(
                "header-in-both",
                body,
                token(&token(pointer, "sensitive_headers"), k),
                format!("the header `{k}` is in both `headers` and `sensitive_headers`"),
            );
        }
    }
    if let Some(schema) = datastore_schema(body) {
        for (k, v) in schema {
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
    if typed::<Swarm>(body).is_some_and(|s| s.relationships.is_empty()) {
        report.error(
            "cardinality",
            body,
            token(pointer, "relationships"),
            "a Swarm needs at least one relationship",
        );
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

/// A summarization transform's sizes, cache collection and datastore.
type Transform<'a> = (
    Vec<(&'static str, Option<i64>)>,
    &'a str,
    Option<&'a RefOr<crate::Datastore>>,
);

fn transform(c: &dyn ComponentInfo) -> Option<Transform<'_>> {
    if let Some(t) = typed::<MessageSummarizationTransform>(c) {
        let sizes = vec![
            ("max_message_size", Some(t.max_message_size)),
            ("max_cache_size", t.max_cache_size),
            ("max_cache_lifetime", t.max_cache_lifetime),
        ];
        return Some((sizes, &t.cache_collection_name, t.datastore.as_ref()));
    }
    typed::<ConversationSummarizationTransform>(c).map(|t| {
        let sizes = vec![
            ("max_cache_size", t.max_cache_size),
            ("max_cache_lifetime", t.max_cache_lifetime),
        ];
        (
            sizes,
            t.cache_collection_name.as_str(),
            t.datastore.as_ref(),
        )
    })
}

/// The rest of the reference semantics' section 7: transforms, CatchExceptionNode,
/// ParallelFlowNode.
pub(super) fn section_seven(
    report: &mut Report,
    index: &Index<'_>,
    body: &dyn ComponentInfo,
    pointer: &str,
) {
    let ty = body.component_type();
    if let Some((sizes, collection, datastore)) = transform(body) {
        for (key, n) in sizes {
            if let Some(n) = n
                && n <= 0
            {
                report.error(
                    "transform-value",
                    body,
                    token(pointer, key),
                    format!("`{key}` must be greater than 0, found {n}"),
                );
            }
        }
        if let Some(datastore) = datastore.and_then(|d| index.get(d)) {
            let entity = datastore_schema(datastore).and_then(|s| s.get(collection));
            let at = token(pointer, "datastore");
            match entity {
                None => report.error(
                    "transform-datastore",
                    body,
                    at,
                    format!(
                        "the datastore has no collection `{collection}` for the transform's cache"
                    ),
                ),
                Some(entity) => {
                    for (property, expected) in cache_entity(ty) {
                        let found = entity.get("properties").and_then(|p| p.get(property));
                        let expected_schema = serde_json::json!({ "type": expected });
                        if !found.is_some_and(|f| castable(&expected_schema, f)) {
                            let message = format!(
                                "the collection `{collection}` needs a property `{property}` of type {expected}"
                            );
                            report.error("transform-datastore", body, at.clone(), message);
                        }
                    }
                }
            }
        }
    }
    if let Some(n) = typed::<CatchExceptionNode>(body) {
        for (i, output) in list(body, "outputs").iter().enumerate() {
            if output.get("default").is_none() {
                let title = title_of(output);
                report.error(
                    "catch-exception",
                    body,
                    token(&token(pointer, "outputs"), &i.to_string()),
                    format!(
                        "the output `{title}` needs a default (it has none when the subflow fails)"
                    ),
                );
            }
        }
        if let Some(subflow) = index.get(&n.subflow) {
            let reserved_branch = typed::<Flow>(subflow).is_some_and(|f| {
                f.nodes
                    .iter()
                    .filter_map(|n| index.get(n).and_then(typed::<EndNode>))
                    .any(|end| end.branch_name == "caught_exception_branch")
            });
            let reserved_output = titles(subflow, "outputs")
                .iter()
                .any(|t| t == "caught_exception_info");
            if reserved_branch || reserved_output {
                report.error("catch-exception", body, token(pointer, "subflow"), "the subflow may not use the branch `caught_exception_branch` nor the output `caught_exception_info`");
            }
        }
    }
    if let Some(n) = typed::<ParallelFlowNode>(body) {
        let mut seen: HashMap<String, Value> = HashMap::new();
        for flow in n.subflows.iter().filter_map(|f| index.get(f)) {
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
}

/// Whether the manager of a ManagerWorkers is also listed as a worker (the same reference, or
/// the same inline component).
fn manager_is_worker(m: &ManagerWorkers) -> bool {
    let key = |v: &RefOr<crate::AgenticComponent>| match v {
        RefOr::Ref(r) => r.id.clone(),
        RefOr::Inline(c) => c.id().to_owned(),
    };
    let manager = key(&m.group_manager);
    m.workers.iter().any(|w| key(w) == manager)
}

/// The retry policy of a component (any field holding one), checked for ordered delays.
pub(super) fn retry_policies(report: &mut Report, body: &dyn ComponentInfo, pointer: &str) {
    let Some(field) = body.field("retry_policy") else {
        return;
    };
    let delays = if let Some(Some(policy)) = field.downcast_ref::<Option<RetryPolicy>>() {
        Some((policy.max_retry_delay, policy.initial_retry_delay))
    } else if let Some(Value::Object(policy)) = field.downcast_ref::<Value>() {
        // a component kept as read
        let number = |k: &str| policy.get(k).and_then(Value::as_f64);
        number("max_retry_delay").zip(number("initial_retry_delay"))
    } else {
        None
    };
    if let Some((max, initial)) = delays
        && max < initial
    {
        report.error(
            "retry-policy",
            body,
            token(&token(pointer, "retry_policy"), "max_retry_delay"),
            format!("`max_retry_delay` ({max}) cannot be below `initial_retry_delay` ({initial})"),
        );
    }
}

/// Reports declared inputs or outputs whose titles are not the `expected` ones.
fn compare_io(
    report: &mut Report,
    body: &dyn ComponentInfo,
    pointer: &str,
    lists: [(&str, Option<BTreeSet<String>>); 2],
) {
    let ty = body.component_type();
    for (key, expected) in lists {
        let Some(expected) = expected else { continue };
        if !has(body, key) {
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
    body: &dyn ComponentInfo,
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
        if body.branches().is_some() && written != expected {
            let ty = body.component_type();
            report.error(
                "branches-mismatch",
                body,
                token(pointer, "branches"),
                format!("{ty} has the branches {expected:?}, not {written:?}"),
            );
        }
    }
}
