//! Inputs, outputs and branches: what each node type infers, compared with what is written.

#[allow(
    clippy::wildcard_imports,
    reason = "the rules share the module's helpers"
)]
use super::*;
use crate::{
    Agent, AgentNode, AgentSpecializationParameters, ApiNode, BranchingNode, CatchExceptionNode,
    EndNode, Flow, FlowNode, InputMessageNode, LlmNode, MapNode, OutputMessageNode,
    ParallelFlowNode, ParallelMapNode, RefOr, RemoteTool, SpecializedAgent, StartNode, ToolNode,
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
