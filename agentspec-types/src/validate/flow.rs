//! Flow rules: start and end nodes, edges, branches, data edges and their types, flow
//! inputs and outputs, reachability.

#[allow(
    clippy::wildcard_imports,
    reason = "the rules share the module's helpers"
)]
use super::*;

/// Nodes with one branch, `next`.
pub(super) const SINGLE_BRANCH: [&str; 11] = [
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
pub(super) fn inferred_branches(body: &Map<String, Value>) -> Option<Vec<String>> {
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
pub(super) fn branches(body: &Map<String, Value>) -> Vec<String> {
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

/// Flow rules: start and end nodes, edges inside the flow, branches, data edges and types,
/// flow inputs and outputs.
pub(super) fn flow(
    report: &mut Report,
    index: &Index<'_>,
    body: &Map<String, Value>,
    pointer: &str,
) {
    let mut nodes: Vec<(&Map<String, Value>, String)> = Vec::new();
    for (i, n) in list(body, "nodes").enumerate() {
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
    for (i, e) in list(body, "control_flow_connections").enumerate() {
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
    for (i, output) in list(body, "outputs").enumerate() {
        let title = title_of(output);
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
pub(super) fn end_outputs_agree(
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
        for output in list(node, "outputs") {
            let title = title_of(output).to_owned();
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
pub(super) fn inputs_fed(
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
        for (i, input) in list(node, "inputs").enumerate() {
            let title = title_of(input);
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
pub(super) fn unreachable(
    report: &mut Report,
    index: &Index<'_>,
    body: &Map<String, Value>,
    pointer: &str,
    nodes: &[(&Map<String, Value>, String)],
    start: &str,
) {
    let mut next: HashMap<String, Vec<String>> = HashMap::new();
    for e in list(body, "control_flow_connections") {
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

pub(super) fn data_edges(
    report: &mut Report,
    index: &Index<'_>,
    body: &Map<String, Value>,
    pointer: &str,
    ids: &HashSet<String>,
) {
    for (i, e) in list(body, "data_flow_connections").enumerate() {
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
