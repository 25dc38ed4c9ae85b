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
    let mut ids = Ids::default();
    for n in &nodes {
        let number = ids.number(n.c.id());
        ids.node[number] = Some(n.c);
        ids.listed.push(number);
    }
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
    if !ids.is_node(start_id) {
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
    let edges = control_edges(index, flow, pointer);
    // each node's branches once: a node may have thousands of edges
    let mut branch_sets: HashMap<usize, Branches> = HashMap::new();
    // the edges whose two ends resolve, by number (for reachability)
    let mut pairs = Vec::with_capacity(edges.len());
    for (edge, seen) in &edges {
        let edge_c = &seen.c;
        let (from_c, to_c) = (index.get(&edge.from_node), index.get(&edge.to_node));
        let from = from_c.map(|c| c.id()).unwrap_or_default();
        let to = to_c.map(|c| c.id()).unwrap_or_default();
        // numbered once each: an id that is not a node's gets a number with no node
        let (f, t) = (ids.number(from), ids.number(to));
        for (end, id, number) in [("from_node", from, f), ("to_node", to, t)] {
            if ids.node[number].is_none() {
                report.error(
                    "edge-node-not-in-flow",
                    *edge_c,
                    token(&seen.pointer(), end),
                    format!("`{id}` is not one of the flow's nodes"),
                );
            }
        }
        ids.outgoing[f] += 1;
        ids.incoming[t] += 1;
        if from_c.is_some() && to_c.is_some() {
            pairs.push((f, t));
        }
        if let (Some(branch), Some(source)) = (&edge.from_branch, ids.node[f]) {
            let known = branch_sets.entry(f).or_insert_with(|| Branches::of(source));
            // pyagentspec does not check it: an edge that can never fire, so a warning
            if !known.contains(branch) {
                let names = &known.names;
                let case = names
                    .iter()
                    .find(|b| b.eq_ignore_ascii_case(branch))
                    .map(|b| format!("; `{b}` differs only in case"))
                    .unwrap_or_default();
                report.warning(
                    "unknown-branch",
                    *edge_c,
                    token(&seen.pointer(), "from_branch"),
                    format!(
                        "`{branch}` is not a branch of `{from}` (branches: {names:?}){case}: the edge never fires"
                    ),
                );
            }
        }
    }
    if !start_id.is_empty() {
        let start = ids.number(start_id);
        if ids.outgoing[start] != 1 || ids.incoming[start] > 0 {
            report.error(
                "flow-start-node",
                body,
                token(pointer, "control_flow_connections"),
                "the StartNode has exactly one outgoing and no incoming control edge",
            );
        }
    }
    for end in &ends {
        let end_n = ids.number(end);
        if ids.incoming[end_n] == 0 {
            report.error(
                "flow-end-node",
                body,
                token(pointer, "control_flow_connections"),
                format!("the EndNode `{end}` has no incoming control edge"),
            );
        }
        if ids.outgoing[end_n] > 0 {
            report.error(
                "flow-end-node",
                body,
                token(pointer, "control_flow_connections"),
                format!("the EndNode `{end}` has an outgoing control edge"),
            );
        }
    }
    unreachable(report, body, pointer, &nodes, &mut ids, &pairs, start_id);
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
            let gives = |e: &dyn ComponentInfo| {
                io::own_or_other(e, "outputs")
                    .iter()
                    .any(|o| title_of(o) == title && same_type(o, output))
            };
            if ids.node_of(end).is_some_and(|e| !gives(e)) {
                let message = format!(
                    "the output `{title}` has no default, so every EndNode must output it, of its type; `{end}` does not"
                );
                report.error("flow-outputs", body, item(pointer, "outputs", i), message);
            }
        }
    }
}

/// EndNode outputs with one title have one type (the outputs of an EndNode that leaves them
/// out are its inputs).
fn end_outputs_agree(
    report: &mut Report,
    body: &dyn ComponentInfo,
    pointer: &str,
    nodes: &[Seen<'_, '_>],
) {
    let mut first: HashMap<&str, (&JsonObject, &str)> = HashMap::new();
    for node in nodes.iter().filter(|n| typed::<EndNode>(n.c).is_some()) {
        for output in io::own_or_other(node.c, "outputs") {
            let title = title_of(output);
            match first.get(title) {
                Some((other, other_end)) if !same_type(other, output) => {
                    let message = format!(
                        "the EndNodes `{other_end}` and `{}` give the output `{title}` different types",
                        node.c.id()
                    );
                    report.error("flow-outputs", body, token(pointer, "nodes"), message);
                }
                Some(_) => {}
                None => {
                    first.insert(title, (output, node.c.id()));
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

/// Warns about nodes no control edge path from the start node reaches, and about nodes from
/// which no EndNode can be reached. `pairs` are the control edges whose two ends resolve.
fn unreachable<'a>(
    report: &mut Report,
    body: &dyn ComponentInfo,
    pointer: &str,
    nodes: &[Seen<'a, '_>],
    ids: &mut Ids<'a>,
    pairs: &[(usize, usize)],
    start: &'a str,
) {
    let start_n = ids.number(start);
    let count = ids.node.len();
    let next = Adjacency::new(count, pairs.iter().copied());
    let previous = Adjacency::new(count, pairs.iter().map(|&(f, t)| (t, f)));
    let mut reached = vec![false; count];
    reached[start_n] = true;
    let mut queue = vec![start_n];
    while let Some(n) = queue.pop() {
        for &m in next.of(n) {
            if !std::mem::replace(&mut reached[m], true) {
                queue.push(m);
            }
        }
    }
    // Nodes from which an EndNode can be reached, walking the edges backwards.
    let mut can_end = vec![false; count];
    let mut queue: Vec<usize> = Vec::new();
    for (_, &number) in nodes
        .iter()
        .zip(&ids.listed)
        .filter(|(n, _)| typed::<EndNode>(n.c).is_some())
    {
        if !std::mem::replace(&mut can_end[number], true) {
            queue.push(number);
        }
    }
    let any_end = !queue.is_empty();
    // one backward walk from the EndNodes: linear in the edges
    while let Some(n) = queue.pop() {
        for &m in previous.of(n) {
            if !std::mem::replace(&mut can_end[m], true) {
                queue.push(m);
            }
        }
    }
    for (i, (node, &n)) in nodes.iter().zip(&ids.listed).enumerate() {
        if reached[n] && !can_end[n] && any_end {
            let id = node.c.id();
            let at = item(pointer, "nodes", i);
            report.warning("no-path-to-end", body, at, format!("no EndNode can be reached from the node `{id}` (a dead end, or a cycle with no way out)"));
        }
    }
    for (i, (node, &n)) in nodes.iter().zip(&ids.listed).enumerate() {
        if !start.is_empty() && !reached[n] {
            let id = node.c.id();
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

/// The ids a flow's rules meet (its nodes', and those its control edges name), each with a
/// number: the rules count and walk with numbers, so that each id is hashed once per use
/// (at 10,000 nodes, a hash reads the id's text back from memory).
#[derive(Default)]
struct Ids<'a> {
    numbers: HashMap<&'a str, usize>,
    /// The number of each of the flow's nodes, in the order of `nodes`.
    listed: Vec<usize>,
    /// The flow's node with each id (the last one listed, when two share it).
    node: Vec<Option<&'a dyn ComponentInfo>>,
    /// The control edges out of and into each id.
    outgoing: Vec<usize>,
    incoming: Vec<usize>,
}

impl<'a> Ids<'a> {
    /// The number of `id`, given it when it has none yet.
    fn number(&mut self, id: &'a str) -> usize {
        let next = self.node.len();
        let number = *self.numbers.entry(id).or_insert(next);
        if number == next {
            self.node.push(None);
            self.outgoing.push(0);
            self.incoming.push(0);
        }
        number
    }

    /// The flow's node with this id.
    fn node_of(&self, id: &str) -> Option<&'a dyn ComponentInfo> {
        self.numbers.get(id).and_then(|&n| self.node[n])
    }

    /// Whether one of the flow's nodes has this id.
    fn is_node(&self, id: &str) -> bool {
        self.node_of(id).is_some()
    }
}

/// Edges by their source, in one list (each source's targets in edge order).
struct Adjacency {
    starts: Vec<usize>,
    targets: Vec<usize>,
}

impl Adjacency {
    fn new(count: usize, edges: impl Iterator<Item = (usize, usize)> + Clone) -> Adjacency {
        let mut starts = vec![0; count + 1];
        for (from, _) in edges.clone() {
            starts[from + 1] += 1;
        }
        for i in 0..count {
            starts[i + 1] += starts[i];
        }
        let mut fill = starts.clone();
        let mut targets = vec![0; starts[count]];
        for (from, to) in edges {
            targets[fill[from]] = to;
            fill[from] += 1;
        }
        Adjacency { starts, targets }
    }

    fn of(&self, n: usize) -> &[usize] {
        &self.targets[self.starts[n]..self.starts[n + 1]]
    }
}

/// A node's branches, as edges may name them: the ones it declares, or its type's own.
struct Branches {
    names: Vec<String>,
    /// The names as a set, when there are many (a BranchingNode may have thousands).
    set: Option<HashSet<String>>,
}

impl Branches {
    fn of(source: &dyn ComponentInfo) -> Branches {
        let names = match branches(source) {
            // Branches left out are the node type's own.
            b if b.is_empty() => inferred_branches(source).unwrap_or_default(),
            b => b,
        };
        let set = (names.len() > 16).then(|| names.iter().cloned().collect());
        Branches { names, set }
    }

    fn contains(&self, branch: &str) -> bool {
        match &self.set {
            Some(set) => set.contains(branch),
            None => self.names.iter().any(|b| b == branch),
        }
    }
}

fn data_edges<'a>(
    report: &mut Report,
    index: &Index<'a>,
    flow: &'a Flow,
    pointer: &str,
    ids: &Ids<'_>,
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
            if !ids.is_node(id) {
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
        if let (Some(a), Some(b)) = (from, to)
            && !castable_properties(a, b)
        {
            report.error(
                "data-edge-type",
                edge_c,
                seen.pointer(),
                format!(
                    "the output `{output}` ({}) does not convert to the input `{input}` ({})",
                    property_type_name(a),
                    property_type_name(b)
                ),
            );
        }
    }
}
