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
    // a template left out has no placeholders
    if let Some((field, text)) = template(body)
        && has(body, "inputs")
    {
        let expected = placeholders(text.unwrap_or_default());
        let written: BTreeSet<String> = titles(body, "inputs").into_iter().collect();
        if written != expected {
            let message = format!(
                "the inputs must be the placeholders of `{field}` {expected:?}, found {written:?}"
            );
            report.error("inputs-mismatch", body, token(pointer, "inputs"), message);
        }
    }
    if typed::<StartNode>(body).is_some() {
        mirrored(report, body, pointer, "startnode-io");
    } else if typed::<EndNode>(body).is_some() {
        mirrored(report, body, pointer, "endnode-io");
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
        // the output's `type` is `string` exactly: neither left out nor a list
        let ok = body.outputs().is_none_or(|o| {
            o.len() == 1 && o[0].get("type").and_then(Value::as_str) == Some("string")
        });
        if !ok {
            report.error(
                "outputs-mismatch",
                body,
                token(pointer, "outputs"),
                "an InputMessageNode has exactly one output, whose `type` is `string`",
            );
        }
    } else if typed::<LlmNode>(body).is_some() && body.outputs().is_some_and(<[_]>::is_empty) {
        report.error(
            "outputs-mismatch",
            body,
            token(pointer, "outputs"),
            "an LlmNode has at least one output (left out, it is `generated_text`)",
        );
    }
}

/// A StartNode's or EndNode's outputs are its inputs, property for property (title, type,
/// description, default), when both are written.
fn mirrored(report: &mut Report, body: &dyn ComponentInfo, pointer: &str, code: &'static str) {
    let (inputs, outputs) = (list(body, "inputs"), list(body, "outputs"));
    if !has(body, "inputs") || !has(body, "outputs") || inputs == outputs {
        return;
    }
    let ty = body.component_type();
    let (i, o) = (titles(body, "inputs"), titles(body, "outputs"));
    let message = if i == o {
        let differs = inputs.iter().zip(outputs).find(|(a, b)| a != b);
        let title = differs.map(|(a, _)| title_of(a)).unwrap_or_default();
        format!(
            "a {ty}'s outputs are its inputs, property for property: the output `{title}` differs from the input"
        )
    } else {
        format!("a {ty}'s outputs are its inputs {i:?}, found {o:?}")
    };
    report.error(code, body, token(pointer, "outputs"), message);
}

/// A StartNode's inputs or an EndNode's outputs (`key`) as pyagentspec reads them: as
/// written or, left out, the other list.
pub(super) fn own_or_other<'a>(c: &'a dyn ComponentInfo, key: &str) -> &'a [JsonObject] {
    let other = if key == "inputs" { "outputs" } else { "inputs" };
    list(c, if has(c, key) { key } else { other })
}

/// A flow's inputs as pyagentspec reads them: as written or, left out, its StartNode's.
pub(super) fn flow_inputs<'a>(index: &Index<'a>, c: &'a dyn ComponentInfo) -> &'a [JsonObject] {
    if has(c, "inputs") {
        return list(c, "inputs");
    }
    typed::<Flow>(c)
        .and_then(|f| index.get(&f.start_node))
        .map_or(&[], |start| own_or_other(start, "inputs"))
}

/// A flow's outputs as pyagentspec reads them: as written or, left out, those every EndNode
/// has (as the first EndNode writes them).
pub(super) fn flow_outputs<'a>(index: &Index<'a>, c: &'a dyn ComponentInfo) -> Vec<&'a JsonObject> {
    if has(c, "outputs") {
        return list(c, "outputs").iter().collect();
    }
    let Some(flow) = typed::<Flow>(c) else {
        return Vec::new();
    };
    let ends: Vec<&[JsonObject]> = flow
        .nodes
        .iter()
        .filter_map(|n| index.get(n))
        .filter(|n| typed::<EndNode>(*n).is_some())
        .map(|end| own_or_other(end, "outputs"))
        .collect();
    let in_every = |t: &str| ends.iter().all(|e| e.iter().any(|p| title_of(p) == t));
    let mut seen = HashSet::new();
    ends.iter()
        .flat_map(|e| e.iter())
        .filter(|p| in_every(title_of(p)) && seen.insert(title_of(p)))
        .collect()
}

/// The titles of a component's inputs or outputs (`key`) as pyagentspec reads them: as
/// written or, left out, the ones it infers (a flow's from its StartNode and EndNodes, an
/// agent's from its prompt, a remote tool's from its request).
fn effective_titles(index: &Index<'_>, c: &dyn ComponentInfo, key: &str) -> BTreeSet<String> {
    let of = |l: &[JsonObject]| l.iter().map(|p| title_of(p).to_owned()).collect();
    if has(c, key) {
        return of(list(c, key));
    }
    if typed::<Flow>(c).is_some() {
        return match key {
            "inputs" => of(flow_inputs(index, c)),
            _ => flow_outputs(index, c)
                .into_iter()
                .map(|p| title_of(p).to_owned())
                .collect(),
        };
    }
    if let Some(a) = typed::<SpecializedAgent>(c) {
        let mut found = titles_of(index, &a.agent, key).unwrap_or_default();
        found.extend(titles_of(index, &a.agent_specialization_parameters, key).unwrap_or_default());
        return found;
    }
    if key == "inputs" {
        if let Some((_, Some(text))) = template(c) {
            return placeholders(text);
        }
        if let Some(p) = typed::<AgentSpecializationParameters>(c) {
            return p
                .additional_instructions
                .as_deref()
                .map(placeholders)
                .unwrap_or_default();
        }
        if let Some(found) = request_inputs(c) {
            return found;
        }
    }
    BTreeSet::new()
}

/// The titles of the inputs or outputs (`key`) of the component at a position, as
/// pyagentspec reads them.
fn titles_of<T: ComponentInfo>(
    index: &Index<'_>,
    position: &RefOr<T>,
    key: &str,
) -> Option<BTreeSet<String>> {
    let target = index.get(position)?;
    Some(effective_titles(index, target, key))
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

/// The placeholders of an ApiNode's or RemoteTool's request: its inputs.
fn request_inputs(body: &dyn ComponentInfo) -> Option<BTreeSet<String>> {
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
    let (url, method, spec, data, query, headers) =
        request_of!(ApiNode).or_else(|| request_of!(RemoteTool))?;
    let mut found = BTreeSet::new();
    for text in [Some(url.as_str()), Some(method.as_str()), spec.as_deref()]
        .into_iter()
        .flatten()
    {
        found.extend(placeholders(text));
    }
    placeholders_in(data, &mut found);
    placeholders_in_map(query, &mut found);
    placeholders_in_map(headers, &mut found);
    Some(found)
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
        // each subflow output a reducer collects: every one when `reducers` is left out
        let outputs = titles_of(index, subflow, "outputs").map(|t| {
            t.into_iter()
                .filter(|x| reducers.as_ref().is_none_or(|r| r.contains_key(x)))
                .map(|x| format!("collected_{x}"))
                .collect()
        });
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
    if let Some(found) = request_inputs(body) {
        return (Some(found), None);
    }
    // nodes and parameters that output nothing
    if typed::<BranchingNode>(body).is_some() || typed::<OutputMessageNode>(body).is_some() {
        return (None, Some(BTreeSet::new()));
    }
    if let Some(p) = typed::<AgentSpecializationParameters>(body) {
        let inputs = placeholders(p.additional_instructions.as_deref().unwrap_or_default());
        return (Some(inputs), Some(BTreeSet::new()));
    }
    if let Some(n) = typed::<ParallelFlowNode>(body) {
        // written inputs and outputs are taken as written; left out, they are the subflows'
        // own, and no two subflows may give one output
        if !has(body, "outputs") {
            let mut outputs = BTreeSet::new();
            let subflows = n.subflows.iter().filter_map(|f| index.get(f));
            for title in subflows.flat_map(|f| effective_titles(index, f, "outputs")) {
                if !outputs.insert(title.clone()) {
                    report.error(
                        "outputs-mismatch",
                        body,
                        token(pointer, "subflows"),
                        format!("two subflows have the output `{title}`"),
                    );
                }
            }
        }
        return (None, None);
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
