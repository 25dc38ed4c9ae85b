//! Semantic validation: the rules of the language that the schema cannot express (flow
//! structure, inputs and outputs, data edges, property schemas, component values), checked
//! on the written document — whose layout is the source's, so pointers point into the file.

use std::collections::{BTreeSet, HashMap, HashSet};

use serde_json::{Map, Value};

use crate::diagnostic::{Diagnostic, push_pointer_token};
use crate::version::Version;

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
        .map(|list| {
            list.iter()
                .map(|p| {
                    p.get("title")
                        .and_then(Value::as_str)
                        .unwrap_or("property")
                        .to_owned()
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The property titled `title` (a property without a title is named `property`).
fn property<'v>(body: &'v Map<String, Value>, key: &str, title: &str) -> Option<&'v Value> {
    body.get(key)?
        .as_array()?
        .iter()
        .find(|p| p.get("title").and_then(Value::as_str).unwrap_or("property") == title)
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

/// Validates a document written as a value (secrets may be placeholders); `since` gives the
/// first version of each component type, `version` the document's.
pub(crate) fn validate(
    document: &Value,
    version: Version,
    since: &HashMap<&str, Version>,
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
            _ => {
                node(&mut report, body, pointer);
                inferred_io(&mut report, &index, body, pointer);
            }
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

/// Nodes with one branch, `next`.
const SINGLE_BRANCH: [&str; 11] = [
    "StartNode",
    "LlmNode",
    "ToolNode",
    "ApiNode",
    "InputMessageNode",
    "OutputMessageNode",
    "MapNode",
    "ParallelMapNode",
    "ParallelFlowNode",
    "AgentNode",
    "BranchingNode",
];

/// The branches a node has, by its type (`None`: taken as declared).
fn inferred_branches(body: &Map<String, Value>) -> Option<Vec<String>> {
    match str_of(body, "component_type") {
        "EndNode" => Some(Vec::new()),
        "BranchingNode" => {
            let mut b: BTreeSet<String> = body
                .get("mapping")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
                .filter_map(|(_, v)| v.as_str().map(str::to_owned))
                .collect();
            b.insert("default".into());
            Some(b.into_iter().collect())
        }
        "AgentNode" => None,
        t if SINGLE_BRANCH.contains(&t) => Some(vec!["next".into()]),
        _ => None,
    }
}

/// The branches of a node as written (what edges may name).
fn branches(body: &Map<String, Value>) -> Vec<String> {
    body.get("branches")
        .and_then(Value::as_array)
        .map(|b| {
            b.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// Node rules: branches, inputs and outputs inferred from templates and types.
fn node(report: &mut Report, body: &Map<String, Value>, pointer: &str) {
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
fn titles_of(
    index: &Index<'_>,
    body: &Map<String, Value>,
    field: &str,
    key: &str,
) -> Option<BTreeSet<String>> {
    let target = body.get(field).and_then(|v| index.resolve(v, ""))?.0;
    Some(titles(target, key).into_iter().collect())
}

/// Placeholders in every string of a value (keys of objects included).
fn placeholders_in(value: &Value, out: &mut BTreeSet<String>) {
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
fn inferred_io(report: &mut Report, index: &Index<'_>, body: &Map<String, Value>, pointer: &str) {
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
            let subflows: Vec<&Map<String, Value>> = body
                .get("subflows")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
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
    for (key, expected) in [("inputs", inputs), ("outputs", outputs)] {
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
    // A declared input may be more specific than the one it stands for: it must convert to it.
    let target = match ty {
        "ToolNode" => body.get("tool"),
        "AgentNode" => body.get("agent"),
        "FlowNode" => body.get("subflow"),
        _ => None,
    };
    if let Some((target, _)) = target.and_then(|t| index.resolve(t, "")) {
        for (i, declared) in body
            .get("inputs")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            let title = declared
                .get("title")
                .and_then(Value::as_str)
                .unwrap_or("property");
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
        for n in subflow
            .get("nodes")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|n| index.resolve(n, ""))
        {
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
fn values(report: &mut Report, body: &Map<String, Value>, pointer: &str) {
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
fn cache_entity(transform: &str) -> Vec<(&'static str, &'static str)> {
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
fn section_seven(report: &mut Report, index: &Index<'_>, body: &Map<String, Value>, pointer: &str) {
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
            for (i, output) in body
                .get("outputs")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                if output.get("default").is_none() {
                    let title = output
                        .get("title")
                        .and_then(Value::as_str)
                        .unwrap_or("property");
                    report.error("catch-exception", body, token(&token(pointer, "outputs"), &i.to_string()), format!("the output `{title}` needs a default (it has none when the subflow fails)"));
                }
            }
            if let Some((subflow, _)) = body.get("subflow").and_then(|s| index.resolve(s, "")) {
                let nodes = subflow
                    .get("nodes")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|n| index.resolve(n, ""));
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
            for (flow, _) in body
                .get("subflows")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|f| index.resolve(f, ""))
            {
                for input in flow
                    .get("inputs")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let title = input
                        .get("title")
                        .and_then(Value::as_str)
                        .unwrap_or("property")
                        .to_owned();
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
fn manager_is_worker(body: &Map<String, Value>) -> bool {
    let key = |v: &Value| {
        v.get("$component_ref")
            .or_else(|| v.get("id"))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let manager = body.get("group_manager").and_then(key);
    manager.is_some()
        && body
            .get("workers")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .any(|w| key(w) == manager)
}

/// The retry policies of a component (any field holding one), checked for ordered delays.
fn retry_policies(report: &mut Report, body: &Map<String, Value>, pointer: &str) {
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

/// Flow rules: start and end nodes, edges inside the flow, branches, data edges and types,
/// flow inputs and outputs.
fn flow(report: &mut Report, index: &Index<'_>, body: &Map<String, Value>, pointer: &str) {
    let mut nodes: Vec<(&Map<String, Value>, String)> = Vec::new();
    for (i, n) in body
        .get("nodes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        if let Some(found) = index.resolve(n, &token(&token(pointer, "nodes"), &i.to_string())) {
            nodes.push(found);
        }
    }
    let id_of = |m: &Map<String, Value>| str_of(m, "id").to_owned();
    let ids: HashSet<String> = nodes.iter().map(|(n, _)| id_of(n)).collect();
    let starts: Vec<&(&Map<String, Value>, String)> = nodes
        .iter()
        .filter(|(n, _)| str_of(n, "component_type") == "StartNode")
        .collect();
    if starts.len() != 1 {
        report.error(
            "flow-start-node",
            body,
            token(pointer, "nodes"),
            format!(
                "a flow has exactly one StartNode in `nodes`, found {}",
                starts.len()
            ),
        );
    }
    let start = body
        .get("start_node")
        .and_then(|s| index.resolve(s, &token(pointer, "start_node")));
    let start_id = start.as_ref().map(|(s, _)| id_of(s)).unwrap_or_default();
    if !ids.contains(&start_id) {
        report.error(
            "flow-start-node",
            body,
            token(pointer, "start_node"),
            format!("`start_node` (`{start_id}`) is not one of the flow's nodes"),
        );
    }
    let ends: Vec<String> = nodes
        .iter()
        .filter(|(n, _)| str_of(n, "component_type") == "EndNode")
        .map(|(n, _)| id_of(n))
        .collect();
    if ends.is_empty() {
        report.error(
            "flow-end-node",
            body,
            token(pointer, "nodes"),
            "a flow has at least one EndNode",
        );
    }
    let by_id: HashMap<String, &Map<String, Value>> =
        nodes.iter().map(|(n, _)| (id_of(n), *n)).collect();
    let mut outgoing: HashMap<String, usize> = HashMap::new();
    let mut incoming: HashMap<String, usize> = HashMap::new();
    for (i, e) in body
        .get("control_flow_connections")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let at = token(&token(pointer, "control_flow_connections"), &i.to_string());
        let Some((edge, at)) = index.resolve(e, &at) else {
            continue;
        };
        let from = edge
            .get("from_node")
            .and_then(|n| index.resolve(n, ""))
            .map(|(n, _)| id_of(n))
            .unwrap_or_default();
        let to = edge
            .get("to_node")
            .and_then(|n| index.resolve(n, ""))
            .map(|(n, _)| id_of(n))
            .unwrap_or_default();
        for (end, id) in [("from_node", &from), ("to_node", &to)] {
            if !ids.contains(id) {
                report.error(
                    "edge-node-not-in-flow",
                    edge,
                    token(&at, end),
                    format!("`{id}` is not one of the flow's nodes"),
                );
            }
        }
        *outgoing.entry(from.clone()).or_default() += 1;
        *incoming.entry(to).or_default() += 1;
        if let (Some(branch), Some(source)) = (
            edge.get("from_branch").and_then(Value::as_str),
            by_id.get(&from),
        ) {
            let known = match branches(source) {
                // Branches left out are the node type's own.
                b if b.is_empty() => inferred_branches(source).unwrap_or_default(),
                b => b,
            };
            if !known.iter().any(|b| b == branch) {
                report.error(
                    "unknown-branch",
                    edge,
                    token(&at, "from_branch"),
                    format!("`{branch}` is not a branch of `{from}` (branches: {known:?})"),
                );
            }
        }
    }
    if !start_id.is_empty()
        && (outgoing.get(&start_id) != Some(&1) || incoming.contains_key(&start_id))
    {
        report.error(
            "flow-start-node",
            body,
            token(pointer, "control_flow_connections"),
            "the StartNode has exactly one outgoing and no incoming control edge",
        );
    }
    for end in &ends {
        if !incoming.contains_key(end) {
            report.error(
                "flow-end-node",
                body,
                token(pointer, "control_flow_connections"),
                format!("the EndNode `{end}` has no incoming control edge"),
            );
        }
        if outgoing.contains_key(end) {
            report.error(
                "flow-end-node",
                body,
                token(pointer, "control_flow_connections"),
                format!("the EndNode `{end}` has an outgoing control edge"),
            );
        }
    }
    unreachable(report, index, body, pointer, &nodes, &start_id);
    end_outputs_agree(report, body, pointer, &nodes);
    inputs_fed(report, index, body, &nodes);
    data_edges(report, index, body, pointer, &ids);
    if let Some((start, _)) = &start
        && body.get("inputs").is_some_and(Value::is_array)
    {
        let (f, s) = (titles(body, "inputs"), titles(start, "inputs"));
        if f.iter().collect::<BTreeSet<_>>() != s.iter().collect::<BTreeSet<_>>() {
            report.error(
                "flow-inputs",
                body,
                token(pointer, "inputs"),
                format!("the flow's inputs are its StartNode's {s:?}, found {f:?}"),
            );
        }
    }
    for (i, output) in body
        .get("outputs")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let title = output
            .get("title")
            .and_then(Value::as_str)
            .unwrap_or("property");
        if output.get("default").is_some() {
            continue;
        }
        for end in &ends {
            if by_id
                .get(end)
                .is_some_and(|e| property(e, "outputs", title).is_none())
            {
                let message = format!(
                    "the output `{title}` has no default, so every EndNode must output it; `{end}` does not"
                );
                report.error(
                    "flow-outputs",
                    body,
                    token(&token(pointer, "outputs"), &i.to_string()),
                    message,
                );
            }
        }
    }
}

/// EndNode outputs with one title have one type.
fn end_outputs_agree(
    report: &mut Report,
    body: &Map<String, Value>,
    pointer: &str,
    nodes: &[(&Map<String, Value>, String)],
) {
    let shape = |v: &Value| {
        v.as_object().map(|m| {
            m.iter()
                .filter(|(k, _)| !matches!(k.as_str(), "title" | "description" | "default"))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect::<Map<_, _>>()
        })
    };
    let mut first: HashMap<String, (Option<Map<String, Value>>, String)> = HashMap::new();
    for (node, _) in nodes
        .iter()
        .filter(|(n, _)| str_of(n, "component_type") == "EndNode")
    {
        for output in node
            .get("outputs")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let title = output
                .get("title")
                .and_then(Value::as_str)
                .unwrap_or("property")
                .to_owned();
            let this = shape(output);
            match first.get(&title) {
                Some((other, other_end)) if *other != this => {
                    let message = format!(
                        "the EndNodes `{other_end}` and `{}` give the output `{title}` different types",
                        str_of(node, "id")
                    );
                    report.error("flow-outputs", body, token(pointer, "nodes"), message);
                }
                Some(_) => {}
                None => {
                    first.insert(title, (this, str_of(node, "id").to_owned()));
                }
            }
        }
    }
}

/// Warns about inputs without default that no data edge feeds, when the flow has data edges;
/// an input named like one of the flow's inputs counts as provided by it.
fn inputs_fed(
    report: &mut Report,
    index: &Index<'_>,
    body: &Map<String, Value>,
    nodes: &[(&Map<String, Value>, String)],
) {
    let Some(edges) = body
        .get("data_flow_connections")
        .and_then(Value::as_array)
        .filter(|e| !e.is_empty())
    else {
        return;
    };
    let mut fed = HashSet::new();
    for e in edges {
        let Some((edge, _)) = index.resolve(e, "") else {
            continue;
        };
        let to = edge
            .get("destination_node")
            .and_then(|n| index.resolve(n, ""))
            .map(|(n, _)| str_of(n, "id").to_owned());
        fed.insert((
            to.unwrap_or_default(),
            str_of(edge, "destination_input").to_owned(),
        ));
    }
    let flow_inputs: HashSet<String> = titles(body, "inputs").into_iter().collect();
    for (node, node_pointer) in nodes {
        if str_of(node, "component_type") == "StartNode" {
            continue;
        }
        for (i, input) in node
            .get("inputs")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            let title = input
                .get("title")
                .and_then(Value::as_str)
                .unwrap_or("property");
            if input.get("default").is_none()
                && !flow_inputs.contains(title)
                && !fed.contains(&(str_of(node, "id").to_owned(), title.to_owned()))
            {
                let at = token(&token(node_pointer, "inputs"), &i.to_string());
                report.warning(
                    "input-not-fed",
                    node,
                    at,
                    format!("no data edge feeds the input `{title}`, which has no default"),
                );
            }
        }
    }
}

/// Warns about nodes no control edge path from the start node reaches.
fn unreachable(
    report: &mut Report,
    index: &Index<'_>,
    body: &Map<String, Value>,
    pointer: &str,
    nodes: &[(&Map<String, Value>, String)],
    start: &str,
) {
    let mut next: HashMap<String, Vec<String>> = HashMap::new();
    for e in body
        .get("control_flow_connections")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some((edge, _)) = index.resolve(e, "") else {
            continue;
        };
        let end = |k: &str| {
            edge.get(k)
                .and_then(|n| index.resolve(n, ""))
                .map(|(n, _)| str_of(n, "id").to_owned())
        };
        if let (Some(from), Some(to)) = (end("from_node"), end("to_node")) {
            next.entry(from).or_default().push(to);
        }
    }
    let mut reached = HashSet::from([start.to_owned()]);
    let mut queue = vec![start.to_owned()];
    while let Some(n) = queue.pop() {
        for m in next.get(&n).into_iter().flatten() {
            if reached.insert(m.clone()) {
                queue.push(m.clone());
            }
        }
    }
    // Nodes from which an EndNode can be reached, walking the edges backwards.
    let mut can_end: HashSet<String> = nodes
        .iter()
        .filter(|(n, _)| str_of(n, "component_type") == "EndNode")
        .map(|(n, _)| str_of(n, "id").to_owned())
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for (from, tos) in &next {
            if !can_end.contains(from) && tos.iter().any(|t| can_end.contains(t)) {
                can_end.insert(from.clone());
                changed = true;
            }
        }
    }
    for (i, (node, _)) in nodes.iter().enumerate() {
        let id = str_of(node, "id");
        if reached.contains(id) && !can_end.contains(id) && !can_end.is_empty() {
            let at = token(&token(pointer, "nodes"), &i.to_string());
            report.warning("no-path-to-end", body, at, format!("no EndNode can be reached from the node `{id}` (a dead end, or a cycle with no way out)"));
        }
    }
    for (i, (node, _)) in nodes.iter().enumerate() {
        let id = str_of(node, "id");
        if !start.is_empty() && !reached.contains(id) {
            let at = token(&token(pointer, "nodes"), &i.to_string());
            report.warning(
                "unreachable-node",
                body,
                at,
                format!("the node `{id}` cannot be reached from the start node"),
            );
        }
    }
}

fn data_edges(
    report: &mut Report,
    index: &Index<'_>,
    body: &Map<String, Value>,
    pointer: &str,
    ids: &HashSet<String>,
) {
    for (i, e) in body
        .get("data_flow_connections")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let at = token(&token(pointer, "data_flow_connections"), &i.to_string());
        let Some((edge, at)) = index.resolve(e, &at) else {
            continue;
        };
        let source = edge.get("source_node").and_then(|n| index.resolve(n, ""));
        let destination = edge
            .get("destination_node")
            .and_then(|n| index.resolve(n, ""));
        let (Some((source, _)), Some((destination, _))) = (source, destination) else {
            continue;
        };
        for (end, node) in [("source_node", source), ("destination_node", destination)] {
            let id = str_of(node, "id");
            if !ids.contains(id) {
                report.error(
                    "edge-node-not-in-flow",
                    edge,
                    token(&at, end),
                    format!("`{id}` is not one of the flow's nodes"),
                );
            }
        }
        let output = str_of(edge, "source_output");
        let input = str_of(edge, "destination_input");
        let from = property(source, "outputs", output);
        let to = property(destination, "inputs", input);
        if from.is_none() {
            report.error(
                "data-edge-output",
                edge,
                token(&at, "source_output"),
                format!("`{}` has no output `{output}`", str_of(source, "id")),
            );
        }
        if to.is_none() {
            report.error(
                "data-edge-input",
                edge,
                token(&at, "destination_input"),
                format!("`{}` has no input `{input}`", str_of(destination, "id")),
            );
        }
        if let (Some(a), Some(b)) = (from, to)
            && !castable(a, b)
        {
            report.error(
                "data-edge-type",
                edge,
                at.clone(),
                format!(
                    "the output `{output}` ({}) does not convert to the input `{input}` ({})",
                    type_name(a),
                    type_name(b)
                ),
            );
        }
    }
}

fn type_name(schema: &Value) -> String {
    match schema.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(other) => other.to_string(),
        None if schema.get("anyOf").is_some() => "a union".into(),
        None => "any".into(),
    }
}

/// Whether values of schema `a` convert to schema `b` (the language's conversion rules).
pub(crate) fn castable(a: &Value, b: &Value) -> bool {
    let strip = |v: &Value| {
        v.as_object().map(|m| {
            m.iter()
                .filter(|(k, _)| !matches!(k.as_str(), "title" | "description" | "default"))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect::<Map<_, _>>()
        })
    };
    if strip(a) == strip(b) {
        return true;
    }
    let alternatives = |v: &Value| -> Vec<Value> {
        match (v.get("anyOf").and_then(Value::as_array), v.get("type")) {
            (Some(alts), _) => alts.clone(),
            (None, Some(Value::Array(types))) => types
                .iter()
                .map(|t| serde_json::json!({ "type": t }))
                .collect(),
            _ => vec![v.clone()],
        }
    };
    let (aa, bb) = (alternatives(a), alternatives(b));
    if aa.len() > 1 || bb.len() > 1 {
        return aa.iter().all(|x| bb.iter().any(|y| castable(x, y)));
    }
    let tb = b.get("type").and_then(Value::as_str);
    let ta = a.get("type").and_then(Value::as_str);
    match (ta, tb) {
        (_, None) => true,
        (_, Some("string")) => true,
        (Some(x), Some(y))
            if ["number", "integer", "boolean"].contains(&x)
                && ["number", "integer", "boolean"].contains(&y) =>
        {
            true
        }
        (Some("array"), Some("array")) => match (a.get("items"), b.get("items")) {
            (Some(x), Some(y)) => castable(x, y),
            _ => true,
        },
        (Some("object"), Some("object")) => {
            let pa = a.get("properties").and_then(Value::as_object);
            b.get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
                .all(|(k, vb)| {
                    pa.and_then(|pa| pa.get(k))
                        .is_some_and(|va| castable(va, vb))
                })
        }
        (Some(x), Some(y)) => x == y,
        (None, Some(_)) => false,
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
