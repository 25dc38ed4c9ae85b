//! Component rules: values, headers, datastores, summarization transforms, retry policies,
//! CatchExceptionNode and ParallelFlowNode.

#[allow(
    clippy::wildcard_imports,
    reason = "the rules share the module's helpers"
)]
use super::*;
use crate::{
    ApiNode, CatchExceptionNode, ConversationSummarizationTransform, EndNode, Flow,
    InMemoryCollectionDatastore, ManagerWorkers, MessageSummarizationTransform,
    OracleDatabaseDatastore, ParallelFlowNode, PostgresDatabaseDatastore, RefOr, RemoteTool,
    RetryPolicy, SSETransport, SSEmTLSTransport, StreamableHTTPTransport,
    StreamableHTTPmTLSTransport, Swarm,
};

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
        catch_exception(report, index, body, n, pointer);
    }
    if let Some(n) = typed::<ParallelFlowNode>(body)
        && !has(body, "inputs")
    {
        // left out, the inputs are the subflows': one title, one type
        let mut seen: HashMap<&str, &JsonObject> = HashMap::new();
        for flow in n.subflows.iter().filter_map(|f| index.get(f)) {
            for input in io::flow_inputs(index, flow) {
                let title = title_of(input);
                if seen
                    .get(title)
                    .is_some_and(|first| !same_type(first, input))
                {
                    report.error(
                        "inputs-mismatch",
                        body,
                        token(pointer, "subflows"),
                        format!("the subflows take the input `{title}` with different types"),
                    );
                }
                seen.entry(title).or_insert(input);
            }
        }
    }
}

/// A CatchExceptionNode's outputs have defaults (its subflow's, when it declares none), and
/// its subflow leaves the reserved branch and output alone.
fn catch_exception(
    report: &mut Report,
    index: &Index<'_>,
    body: &dyn ComponentInfo,
    n: &CatchExceptionNode,
    pointer: &str,
) {
    let subflow = index.get(&n.subflow);
    let subflow_outputs = subflow
        .map(|f| io::flow_outputs(index, f))
        .unwrap_or_default();
    if has(body, "outputs") {
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
    } else {
        for output in subflow_outputs
            .iter()
            .filter(|o| o.get("default").is_none())
        {
            let title = title_of(output);
            report.error(
                "catch-exception",
                body,
                token(pointer, "subflow"),
                format!("the subflow's output `{title}` needs a default: the node, which declares no outputs, gives its subflow's, and it has none when the subflow fails"),
            );
        }
    }
    let reserved_branch = subflow.and_then(typed::<Flow>).is_some_and(|f| {
        f.nodes
            .iter()
            .filter_map(|n| index.get(n).and_then(typed::<EndNode>))
            .any(|end| end.branch_name == "caught_exception_branch")
    });
    let reserved_output = subflow_outputs
        .iter()
        .any(|o| title_of(o) == "caught_exception_info");
    if reserved_branch || reserved_output {
        report.error("catch-exception", body, token(pointer, "subflow"), "the subflow may not use the branch `caught_exception_branch` nor the output `caught_exception_info`");
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
