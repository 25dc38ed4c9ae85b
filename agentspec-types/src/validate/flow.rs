//! Flow rules: start and end nodes, edges, branches, data edges and their types, flow
//! inputs and outputs, reachability.

#[allow(
    clippy::wildcard_imports,
    reason = "the rules share the module's helpers"
)]
use super::*;
use crate::{BranchingNode, ControlFlowEdge, DataFlowEdge, EndNode, Flow, Node, StartNode};

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
pub(super) fn inferred_branches(c: &dyn ComponentInfo) -> Option<Vec<String>> {
    if let Some(b) = typed::<BranchingNode>(c) {
        let mut branches: BTreeSet<String> = b.mapping.values().cloned().collect();
        branches.insert("default".into());
        return Some(branches.into_iter().collect());
    }
    match c.component_type() {
        "EndNode" => Some(Vec::new()),
        "AgentNode" => None,
        t if SINGLE_BRANCH.contains(&t) => Some(vec!["next".into()]),
        _ => None,
    }
}

/// The branches of a node as written (what edges may name).
pub(super) fn branches(c: &dyn ComponentInfo) -> Vec<String> {
    c.branches().map(<[String]>::to_vec).unwrap_or_default()
}

/// The nodes of a flow, resolved, with their pointers.
fn flow_nodes<'a, 's>(index: &'s Index<'a>, flow: &'a Flow, pointer: &'s str) -> Vec<Seen<'a, 's>> {
    flow.nodes
        .iter()
        .enumerate()
        .filter_map(|(i, n)| index.resolve(n, pointer, "nodes", Some(i)))
        .collect()
}

/// The pointer of item `i` of the list `key` of the component at `pointer`.
fn item(pointer: &str, key: &str, i: usize) -> String {
    token(&token(pointer, key), &i.to_string())
}

/// The id of the node at a position (empty when it resolves to nothing).
fn id_at<'a>(index: &Index<'a>, position: &'a crate::RefOr<Node>) -> &'a str {
    index.get(position).map(|n| n.id()).unwrap_or_default()
}

/// The control edges of a flow, resolved, with their pointers.
fn control_edges<'a, 's>(
    index: &'s Index<'a>,
    flow: &'a Flow,
    pointer: &'s str,
) -> Vec<(&'a ControlFlowEdge, Seen<'a, 's>)> {
    flow.control_flow_connections
        .iter()
        .enumerate()
        .filter_map(|(i, e)| {
            let seen = index.resolve(e, pointer, "control_flow_connections", Some(i))?;
            typed::<ControlFlowEdge>(seen.c).map(|edge| (edge, seen))
        })
        .collect()
}

/// Flow rules: start and end nodes, edges inside the flow, branches, data edges and types,
/// flow inputs and outputs.
pub(super) fn flow<'a>(
    report: &mut Report,
    index: &Index<'a>,
    body: &'a dyn ComponentInfo,
    flow: &'a Flow,
    pointer: &str,
) {
    let nodes = flow_nodes(index, flow, pointer);
    let ids: HashSet<&str> = nodes.iter().map(|n| n.c.id()).collect();
    let starts = nodes
        .iter()
        .filter(|n| typed::<StartNode>(n.c).is_some())
        .count();
    if starts != 1 {
        report.error(
            "flow-start-node",
            body,
            token(pointer, "nodes"),
            format!("a flow has exactly one StartNode in `nodes`, found {starts}"),
        );
    }
    let start = index.resolve(&flow.start_node, pointer, "start_node", None);
    let start_id = start.as_ref().map(|s| s.c.id()).unwrap_or_default();
    if !ids.contains(start_id) {
        report.error(
            "flow-start-node",
            body,
            token(pointer, "start_node"),
            format!("`start_node` (`{start_id}`) is not one of the flow's nodes"),
        );
    }
    let ends: Vec<&str> = nodes
        .iter()
        .filter(|n| typed::<EndNode>(n.c).is_some())
        .map(|n| n.c.id())
        .collect();
    if ends.is_empty() {
        report.error(
            "flow-end-node",
            body,
            token(pointer, "nodes"),
            "a flow has at least one EndNode",
        );
    }
    let by_id: HashMap<&str, &dyn ComponentInfo> = nodes.iter().map(|n| (n.c.id(), n.c)).collect();
    let mut outgoing: HashMap<&str, usize> = HashMap::new();
    let mut incoming: HashMap<&str, usize> = HashMap::new();
    let edges = control_edges(index, flow, pointer);
    let mut branch_sets: HashMap<&str, (Vec<String>, HashSet<String>)> = HashMap::new();
    for (edge, seen) in &edges {
        let edge_c = &seen.c;
        let from = id_at(index, &edge.from_node);
        let to = id_at(index, &edge.to_node);
        for (end, id) in [("from_node", from), ("to_node", to)] {
            if !ids.contains(id) {
                report.error(
                    "edge-node-not-in-flow",
                    *edge_c,
                    token(&seen.pointer(), end),
                    format!("`{id}` is not one of the flow's nodes"),
                );
            }
        }
        *outgoing.entry(from).or_default() += 1;
        *incoming.entry(to).or_default() += 1;
        if let (Some(branch), Some(source)) = (&edge.from_branch, by_id.get(from)) {
            // each node's branches once, as a set: a node may have thousands of edges
            let (known, set) = branch_sets.entry(from).or_insert_with(|| {
                let known = match branches(*source) {
                    // Branches left out are the node type's own.
                    b if b.is_empty() => inferred_branches(*source).unwrap_or_default(),
                    b => b,
                };
                let set = known.iter().cloned().collect::<HashSet<String>>();
                (known, set)
            });
            // pyagentspec does not check it: an edge that can never fire, so a warning
            if !set.contains(branch) {
                let case = known
                    .iter()
                    .find(|b| b.eq_ignore_ascii_case(branch))
                    .map(|b| format!("; `{b}` differs only in case"))
                    .unwrap_or_default();
                report.warning(
                    "unknown-branch",
                    *edge_c,
                    token(&seen.pointer(), "from_branch"),
                    format!(
                        "`{branch}` is not a branch of `{from}` (branches: {known:?}){case}: the edge never fires"
                    ),
                );
            }
        }
    }
    if !start_id.is_empty()
        && (outgoing.get(start_id) != Some(&1) || incoming.contains_key(start_id))
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
    unreachable(report, index, body, flow, pointer, &nodes, start_id);
    end_outputs_agree(report, body, pointer, &nodes);
    inputs_fed(report, index, body, flow, &nodes);
    data_edges(report, index, flow, pointer, &ids);
    if let Some(start) = &start
        && has(body, "inputs")
    {
        let (f, s) = (titles(body, "inputs"), titles(start.c, "inputs"));
        if f.iter().collect::<BTreeSet<_>>() != s.iter().collect::<BTreeSet<_>>() {
            report.error(
                "flow-inputs",
                body,
                token(pointer, "inputs"),
                format!("the flow's inputs are its StartNode's {s:?}, found {f:?}"),
            );
        }
    }
    for (i, output) in list(body, "outputs").iter().enumerate() {
        let title = title_of(output);
        if output.get("default").is_some() {
            continue;
        }
        for end in &ends {
            if by_id
                .get(end)
                .is_some_and(|e| property(*e, "outputs", title).is_none())
            {
                let message = format!(
                    "the output `{title}` has no default, so every EndNode must output it; `{end}` does not"
                );
                report.error("flow-outputs", body, item(pointer, "outputs", i), message);
            }
        }
    }
}

/// EndNode outputs with one title have one type.
fn end_outputs_agree(
    report: &mut Report,
    body: &dyn ComponentInfo,
    pointer: &str,
    nodes: &[Seen<'_, '_>],
) {
    let shape = |m: &JsonObject| {
        m.iter()
            .filter(|(k, _)| !matches!(k.as_str(), "title" | "description" | "default"))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect::<Map<_, _>>()
    };
    let mut first: HashMap<String, (Map<String, Value>, String)> = HashMap::new();
    for node in nodes.iter().filter(|n| typed::<EndNode>(n.c).is_some()) {
        for output in list(node.c, "outputs") {
            let title = title_of(output).to_owned();
            let this = shape(output);
            match first.get(&title) {
                Some((other, other_end)) if *other != this => {
                    let message = format!(
                        "the EndNodes `{other_end}` and `{}` give the output `{title}` different types",
                        node.c.id()
                    );
                    report.error("flow-outputs", body, token(pointer, "nodes"), message);
                }
                Some(_) => {}
                None => {
                    first.insert(title, (this, node.c.id().to_owned()));
                }
            }
        }
    }
}

/// Warns about inputs without default that no data edge feeds, when the flow has data edges;
/// an input named like one of the flow's inputs counts as provided by it.
fn inputs_fed<'a>(
    report: &mut Report,
    index: &Index<'a>,
    body: &dyn ComponentInfo,
    flow: &'a Flow,
    nodes: &[Seen<'a, '_>],
) {
    let Some(edges) = flow
        .data_flow_connections
        .as_ref()
        .filter(|e| !e.is_empty())
    else {
        return;
    };
    let mut fed = HashSet::new();
    for e in edges {
        let Some(edge) = index.get(e).and_then(typed::<DataFlowEdge>) else {
            continue;
        };
        fed.insert((
            id_at(index, &edge.destination_node),
            edge.destination_input.as_str(),
        ));
    }
    let flow_inputs: HashSet<String> = titles(body, "inputs").into_iter().collect();
    for node in nodes {
        if typed::<StartNode>(node.c).is_some() {
            continue;
        }
        for (i, input) in list(node.c, "inputs").iter().enumerate() {
            let title = title_of(input);
            if input.get("default").is_none()
                && !flow_inputs.contains(title)
                && !fed.contains(&(node.c.id(), title))
            {
                let at = token(&token(&node.pointer(), "inputs"), &i.to_string());
                report.warning(
                    "input-not-fed",
                    node.c,
                    at,
                    format!("no data edge feeds the input `{title}`, which has no default"),
                );
            }
        }
    }
}

/// Warns about nodes no control edge path from the start node reaches.
fn unreachable<'a>(
    report: &mut Report,
    index: &Index<'a>,
    body: &dyn ComponentInfo,
    flow: &'a Flow,
    pointer: &str,
    nodes: &[Seen<'a, '_>],
    start: &'a str,
) {
    let mut next: HashMap<&str, Vec<&str>> = HashMap::new();
    let mut previous: HashMap<&str, Vec<&str>> = HashMap::new();
    for e in &flow.control_flow_connections {
        let Some(edge) = index.get(e).and_then(typed::<ControlFlowEdge>) else {
            continue;
        };
        let (from, to) = (index.get(&edge.from_node), index.get(&edge.to_node));
        if let (Some(from), Some(to)) = (from, to) {
            next.entry(from.id()).or_default().push(to.id());
            previous.entry(to.id()).or_default().push(from.id());
        }
    }
    let mut reached: HashSet<&str> = std::iter::once(start).collect();
    let mut queue = vec![start];
    while let Some(n) = queue.pop() {
        for &m in next.get(n).into_iter().flatten() {
            if reached.insert(m) {
                queue.push(m);
            }
        }
    }
    // Nodes from which an EndNode can be reached, walking the edges backwards.
    let mut can_end: HashSet<&str> = nodes
        .iter()
        .filter(|n| typed::<EndNode>(n.c).is_some())
        .map(|n| n.c.id())
        .collect();
    // one backward walk from the EndNodes: linear in the edges
    let mut queue: Vec<&str> = can_end.iter().copied().collect();
    while let Some(n) = queue.pop() {
        for &m in previous.get(n).into_iter().flatten() {
            if can_end.insert(m) {
                queue.push(m);
            }
        }
    }
    for (i, node) in nodes.iter().enumerate() {
        let id = node.c.id();
        if reached.contains(id) && !can_end.contains(id) && !can_end.is_empty() {
            let at = item(pointer, "nodes", i);
            report.warning("no-path-to-end", body, at, format!("no EndNode can be reached from the node `{id}` (a dead end, or a cycle with no way out)"));
        }
    }
    for (i, node) in nodes.iter().enumerate() {
        let id = node.c.id();
        if !start.is_empty() && !reached.contains(id) {
            let at = item(pointer, "nodes", i);
            report.warning(
                "unreachable-node",
                body,
                at,
                format!("the node `{id}` cannot be reached from the start node"),
            );
        }
    }
}

fn data_edges<'a>(
    report: &mut Report,
    index: &Index<'a>,
    flow: &'a Flow,
    pointer: &str,
    ids: &HashSet<&str>,
) {
    for (i, e) in flow.data_flow_connections.iter().flatten().enumerate() {
        let Some(seen) = index.resolve(e, pointer, "data_flow_connections", Some(i)) else {
            continue;
        };
        let edge_c = seen.c;
        let Some(edge) = typed::<DataFlowEdge>(edge_c) else {
            continue;
        };
        let (Some(source), Some(destination)) = (
            index.get(&edge.source_node),
            index.get(&edge.destination_node),
        ) else {
            continue;
        };
        for (end, node) in [("source_node", source), ("destination_node", destination)] {
            let id = node.id();
            if !ids.contains(id) {
                report.error(
                    "edge-node-not-in-flow",
                    edge_c,
                    token(&seen.pointer(), end),
                    format!("`{id}` is not one of the flow's nodes"),
                );
            }
        }
        let output = edge.source_output.as_str();
        let input = edge.destination_input.as_str();
        let from = property(source, "outputs", output);
        let to = property(destination, "inputs", input);
        if from.is_none() {
            report.error(
                "data-edge-output",
                edge_c,
                token(&seen.pointer(), "source_output"),
                format!("`{}` has no output `{output}`", source.id()),
            );
        }
        if to.is_none() {
            report.error(
                "data-edge-input",
                edge_c,
                token(&seen.pointer(), "destination_input"),
                format!("`{}` has no input `{input}`", destination.id()),
            );
        }
        if let (Some(a), Some(b)) = (from, to) {
            let (a, b) = (schema_value(a), schema_value(b));
            if !castable(&a, &b) {
                report.error(
                    "data-edge-type",
                    edge_c,
                    seen.pointer(),
                    format!(
                        "the output `{output}` ({}) does not convert to the input `{input}` ({})",
                        type_name(&a),
                        type_name(&b)
                    ),
                );
            }
        }
    }
}
