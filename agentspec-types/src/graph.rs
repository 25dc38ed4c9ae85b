//! The graph of a flow: nodes, control edges (with branches) and data edges, references
//! followed; queries over it (edges per node and branch, fan-in and fan-out, reachability,
//! end nodes, cycles with no way out) and drawings in Mermaid and Graphviz DOT, with nested
//! flows as subgraphs.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::sync::Arc;

use crate::model::component::ComponentInfo;
use crate::model::refs::RefOr;
use crate::model::walk::{Visit, Walk};
use crate::{Component, ControlFlowEdge, DataFlowEdge, Flow};

/// A node of a flow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphNode {
    /// The node's id.
    pub id: String,
    /// The node's name.
    pub name: String,
    /// The node's `component_type`.
    pub component_type: String,
    /// The node's branches, as written.
    pub branches: Vec<String>,
    /// The flow the node runs (FlowNode, MapNode, CatchExceptionNode, …), if any. A flow run
    /// by several nodes is built once and shared.
    pub subflow: Option<Arc<FlowGraph>>,
}

/// A control edge: `from` continues to `to` when it ends on `branch` (`None`: `next`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControlEdge {
    /// Source node id.
    pub from: String,
    /// The source's branch, when given.
    pub branch: Option<String>,
    /// Destination node id.
    pub to: String,
}

/// A data edge: `from.output` feeds `to.input`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataEdge {
    /// Source node id.
    pub from: String,
    /// The source's output title.
    pub output: String,
    /// Destination node id.
    pub to: String,
    /// The destination's input title.
    pub input: String,
}

/// The graph of one flow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowGraph {
    /// The flow's id.
    pub id: String,
    /// The flow's name.
    pub name: String,
    /// The nodes, in the flow's order.
    pub nodes: Vec<GraphNode>,
    /// The control edges, in order.
    pub control: Vec<ControlEdge>,
    /// The data edges, in order.
    pub data: Vec<DataEdge>,
    /// The start node's id.
    pub start: Option<String>,
}

/// Resolves references through every `$referenced_components` map of a document.
struct Refs<'a> {
    entries: HashMap<&'a str, &'a Component>,
}

impl<'a> Refs<'a> {
    fn new(root: &'a Component) -> Self {
        let mut maps = Vec::new();
        root.walk(&mut |visit| {
            if let Visit::Referenced(map) = visit {
                maps.push(map);
            }
        });
        let mut entries = HashMap::new();
        for map in maps {
            for (key, body) in map {
                entries.entry(key.as_str()).or_insert(body);
            }
        }
        Refs { entries }
    }

    /// The component at a position, as its own struct.
    fn get<T: ComponentInfo + 'static>(
        &self,
        position: &'a RefOr<T>,
    ) -> Option<&'a dyn ComponentInfo> {
        match position {
            RefOr::Inline(c) => Some(c),
            RefOr::Ref(r) => self
                .entries
                .get(r.id.as_str())
                .map(|c| *c as &dyn ComponentInfo),
        }
    }
}

/// The flow a node runs, if any: its `subflow` (FlowNode, MapNode, ParallelMapNode,
/// CatchExceptionNode, and plugins with one).
fn subflow_of(node: &dyn ComponentInfo) -> Option<&RefOr<Flow>> {
    node.field("subflow")?.downcast_ref::<RefOr<Flow>>()
}

impl FlowGraph {
    /// The graph of `flow`, whose references resolve in `root`'s `$referenced_components`.
    fn of_document(root: &Component) -> Option<FlowGraph> {
        let Component::Flow(flow) = root else {
            return None;
        };
        let refs = Refs::new(root);
        Some(Self::build(&refs, flow, 0, &mut HashMap::new()))
    }

    /// The graph of `flow`; `built` holds the graph of every flow built so far (by address),
    /// so that a flow run by many nodes is built once: linear in the document, where building
    /// it at every use would be exponential in the nesting of shared subflows.
    fn build(
        refs: &Refs<'_>,
        flow: &Flow,
        depth: usize,
        built: &mut HashMap<*const Flow, Arc<FlowGraph>>,
    ) -> FlowGraph {
        let id_at = |position: &RefOr<crate::Node>| {
            refs.get(position)
                .map(|n| n.id().to_owned())
                .unwrap_or_default()
        };
        let mut nodes = Vec::with_capacity(flow.nodes.len());
        for n in flow.nodes.iter().filter_map(|n| refs.get(n)) {
            // Nested flows are followed to a depth far beyond real documents.
            let sub = (depth < 64)
                .then(|| subflow_of(n).and_then(|s| refs.get(s)))
                .flatten()
                .and_then(|s| s.as_any().downcast_ref::<Flow>());
            let subflow = sub.map(|s| match built.get(&std::ptr::from_ref(s)) {
                Some(graph) => Arc::clone(graph),
                None => {
                    let graph = Arc::new(Self::build(refs, s, depth + 1, built));
                    built.insert(std::ptr::from_ref(s), Arc::clone(&graph));
                    graph
                }
            });
            nodes.push(GraphNode {
                id: n.id().to_owned(),
                name: n.name().to_owned(),
                component_type: n.component_type().to_owned(),
                branches: n.branches().map(<[String]>::to_vec).unwrap_or_default(),
                subflow,
            });
        }
        let control = flow
            .control_flow_connections
            .iter()
            .filter_map(|e| refs.get(e))
            .filter_map(|e| e.as_any().downcast_ref::<ControlFlowEdge>())
            .map(|e| ControlEdge {
                from: id_at(&e.from_node),
                branch: e.from_branch.clone(),
                to: id_at(&e.to_node),
            })
            .collect();
        let data = flow
            .data_flow_connections
            .iter()
            .flatten()
            .filter_map(|e| refs.get(e))
            .filter_map(|e| e.as_any().downcast_ref::<DataFlowEdge>())
            .map(|e| DataEdge {
                from: id_at(&e.source_node),
                output: e.source_output.clone(),
                to: id_at(&e.destination_node),
                input: e.destination_input.clone(),
            })
            .collect();
        let start = refs.get(&flow.start_node).map(|s| s.id().to_owned());
        FlowGraph {
            id: flow.id.clone(),
            name: flow.name.clone(),
            nodes,
            control,
            data,
            start,
        }
    }

    /// The node with `id`.
    pub fn node(&self, id: &str) -> Option<&GraphNode> {
        self.nodes.iter().find(|n| n.id == id)
    }

    /// Control edges leaving `id`.
    pub fn outgoing<'a>(&'a self, id: &'a str) -> impl Iterator<Item = &'a ControlEdge> {
        self.control.iter().filter(move |e| e.from == id)
    }

    /// Control edges leaving `id` on `branch` (`next` also matches edges without a branch).
    pub fn outgoing_on<'a>(
        &'a self,
        id: &'a str,
        branch: &'a str,
    ) -> impl Iterator<Item = &'a ControlEdge> {
        self.outgoing(id)
            .filter(move |e| e.branch.as_deref().unwrap_or("next") == branch)
    }

    /// Control edges arriving at `id`.
    pub fn incoming<'a>(&'a self, id: &'a str) -> impl Iterator<Item = &'a ControlEdge> {
        self.control.iter().filter(move |e| e.to == id)
    }

    /// Data edges into `id`.
    pub fn data_in<'a>(&'a self, id: &'a str) -> impl Iterator<Item = &'a DataEdge> {
        self.data.iter().filter(move |e| e.to == id)
    }

    /// Data edges out of `id`.
    pub fn data_out<'a>(&'a self, id: &'a str) -> impl Iterator<Item = &'a DataEdge> {
        self.data.iter().filter(move |e| e.from == id)
    }

    /// Nodes with more than one incoming control edge.
    pub fn fan_in(&self) -> Vec<&str> {
        self.more_than_one(self.control.iter().map(|e| e.to.as_str()))
    }

    /// Nodes with more than one outgoing control edge.
    pub fn fan_out(&self) -> Vec<&str> {
        self.more_than_one(self.control.iter().map(|e| e.from.as_str()))
    }

    /// The nodes, in order, that `ends` names more than once (one pass over the edges).
    fn more_than_one<'a>(&'a self, ends: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
        let mut count: HashMap<&str, usize> = HashMap::new();
        for end in ends {
            *count.entry(end).or_default() += 1;
        }
        self.nodes
            .iter()
            .map(|n| n.id.as_str())
            .filter(|id| count.get(id).is_some_and(|c| *c > 1))
            .collect()
    }

    /// The control edges by source (`forward`) or by destination, built once per query.
    fn adjacency(&self, forward: bool) -> HashMap<&str, Vec<&str>> {
        let mut next: HashMap<&str, Vec<&str>> = HashMap::new();
        for e in &self.control {
            let (a, b) = if forward {
                (&e.from, &e.to)
            } else {
                (&e.to, &e.from)
            };
            next.entry(a.as_str()).or_default().push(b.as_str());
        }
        next
    }

    /// The EndNodes.
    pub fn end_nodes(&self) -> Vec<&str> {
        self.nodes
            .iter()
            .filter(|n| n.component_type == "EndNode")
            .map(|n| n.id.as_str())
            .collect()
    }

    /// The nodes reachable from the start node through control edges (the start included).
    pub fn reachable(&self) -> HashSet<&str> {
        let next = self.adjacency(true);
        let mut seen = HashSet::new();
        let mut stack: Vec<&str> = self.start.iter().map(String::as_str).collect();
        while let Some(n) = stack.pop() {
            if seen.insert(n) {
                stack.extend(next.get(n).into_iter().flatten());
            }
        }
        seen
    }

    /// Nodes from which no EndNode can be reached: dead ends, and cycles with no way out.
    pub fn dead_ends(&self) -> Vec<&str> {
        // one backward walk from the EndNodes: linear in the edges
        let previous = self.adjacency(false);
        let mut can_end: HashSet<&str> = self.end_nodes().into_iter().collect();
        let mut stack: Vec<&str> = can_end.iter().copied().collect();
        while let Some(n) = stack.pop() {
            for &m in previous.get(n).into_iter().flatten() {
                if can_end.insert(m) {
                    stack.push(m);
                }
            }
        }
        self.nodes
            .iter()
            .map(|n| n.id.as_str())
            .filter(|id| !can_end.contains(id))
            .collect()
    }

    /// A Mermaid flowchart (`flowchart TD`); nested flows are subgraphs, branches label edges.
    pub fn to_mermaid(&self) -> String {
        let mut out = String::from("flowchart TD\n");
        let mut ids = Ids::default();
        self.mermaid_body(&mut out, &mut ids, "", 1);
        out
    }

    fn mermaid_body(&self, out: &mut String, ids: &mut Ids, scope: &str, level: usize) {
        let pad = "    ".repeat(level);
        for n in &self.nodes {
            let key = ids.get(scope, &n.id);
            let label = escape(&format!("{}<br/>{}", n.name, n.component_type));
            let _ = match n.component_type.as_str() {
                "StartNode" | "EndNode" => writeln!(out, "{pad}{key}([\"{label}\"])"),
                "BranchingNode" => writeln!(out, "{pad}{key}{{\"{label}\"}}"),
                _ => writeln!(out, "{pad}{key}[\"{label}\"]"),
            };
            if let Some(sub) = &n.subflow {
                // a flow run by several nodes is drawn once; the others point at it
                if let Some((first, _)) = ids.drawn.get(&Arc::as_ptr(sub)) {
                    let _ = writeln!(out, "{pad}{key} -.-> {first}_flow");
                    continue;
                }
                let first_node = ids.peek(&format!("{scope}/{}", n.id), sub);
                ids.drawn
                    .insert(Arc::as_ptr(sub), (key.clone(), first_node));
                let sub_scope = format!("{scope}/{}", n.id);
                let _ = writeln!(
                    out,
                    "{pad}subgraph {}_flow [\"{}\"]",
                    key,
                    escape(&sub.name)
                );
                sub.mermaid_body(out, ids, &sub_scope, level + 1);
                let _ = writeln!(out, "{pad}end");
                let _ = writeln!(out, "{pad}{key} -.-> {key}_flow");
            }
        }
        for e in &self.control {
            let (from, to) = (ids.get(scope, &e.from), ids.get(scope, &e.to));
            let _ = match &e.branch {
                Some(b) => writeln!(out, "{pad}{from} -->|\"{}\"| {to}", escape(b)),
                None => writeln!(out, "{pad}{from} --> {to}"),
            };
        }
        for e in &self.data {
            let (from, to) = (ids.get(scope, &e.from), ids.get(scope, &e.to));
            let _ = writeln!(
                out,
                "{pad}{from} -.->|\"{} → {}\"| {to}",
                escape(&e.output),
                escape(&e.input)
            );
        }
    }

    /// A Graphviz DOT digraph; nested flows are clusters, branches label edges.
    pub fn to_dot(&self) -> String {
        let mut out = String::from("digraph flow {\n    rankdir=TB;\n    compound=true;\n");
        let mut ids = Ids::default();
        self.dot_body(&mut out, &mut ids, "", 1);
        out.push_str("}\n");
        out
    }

    fn dot_body(&self, out: &mut String, ids: &mut Ids, scope: &str, level: usize) {
        let pad = "    ".repeat(level);
        for n in &self.nodes {
            let key = ids.get(scope, &n.id);
            let shape = match n.component_type.as_str() {
                "StartNode" | "EndNode" => "oval",
                "BranchingNode" => "diamond",
                _ => "box",
            };
            let _ = writeln!(
                out,
                "{pad}{key} [label=\"{}\\n{}\", shape={shape}];",
                dot_escape(&n.name),
                n.component_type
            );
            if let Some(sub) = &n.subflow {
                // a flow run by several nodes is drawn once; the others point at its cluster
                if let Some((first, first_node)) = ids.drawn.get(&Arc::as_ptr(sub)) {
                    if let Some(target) = first_node {
                        let _ = writeln!(
                            out,
                            "{pad}{key} -> {target} [lhead=cluster_{first}, style=dotted];"
                        );
                    }
                    continue;
                }
                let sub_scope = format!("{scope}/{}", n.id);
                let first_node = ids.peek(&sub_scope, sub);
                ids.drawn
                    .insert(Arc::as_ptr(sub), (key.clone(), first_node));
                let _ = writeln!(
                    out,
                    "{pad}subgraph cluster_{key} {{\n{pad}    label=\"{}\";",
                    dot_escape(&sub.name)
                );
                sub.dot_body(out, ids, &sub_scope, level + 1);
                let _ = writeln!(out, "{pad}}}");
            }
        }
        for e in &self.control {
            let (from, to) = (ids.get(scope, &e.from), ids.get(scope, &e.to));
            let label = e
                .branch
                .as_deref()
                .map(|b| format!(" [label=\"{}\"]", dot_escape(b)))
                .unwrap_or_default();
            let _ = writeln!(out, "{pad}{from} -> {to}{label};");
        }
        for e in &self.data {
            let (from, to) = (ids.get(scope, &e.from), ids.get(scope, &e.to));
            let _ = writeln!(
                out,
                "{pad}{from} -> {to} [style=dashed, label=\"{} → {}\"];",
                dot_escape(&e.output),
                dot_escape(&e.input)
            );
        }
    }
}

/// Short, unique, drawing-safe names for node ids (per nesting scope), and the subflows
/// drawn so far: (the key of the node that drew it, the key of its first node).
#[derive(Default)]
struct Ids {
    names: BTreeMap<(String, String), String>,
    drawn: HashMap<*const FlowGraph, (String, Option<String>)>,
}

impl Ids {
    /// The key the first node of `sub`, drawn in `scope`, gets.
    fn peek(&mut self, scope: &str, sub: &FlowGraph) -> Option<String> {
        sub.nodes.first().map(|n| self.get(scope, &n.id))
    }

    fn get(&mut self, scope: &str, id: &str) -> String {
        let n = self.names.len();
        self.names
            .entry((scope.to_owned(), id.to_owned()))
            .or_insert_with(|| format!("n{n}"))
            .clone()
    }
}

fn escape(s: &str) -> String {
    s.replace('"', "#quot;")
}

fn dot_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

impl<C: crate::codec::ComponentSet + Send + Sync + 'static> crate::document::Document<C> {
    /// The graph of the root flow (`None` when the root is not a Flow), nested flows included.
    /// A document of another generated type set is read as the bundled types read it
    /// (`None` when they cannot).
    pub fn graph(&self) -> Option<FlowGraph> {
        FlowGraph::of_document(self.as_bundled().ok()?.root())
    }
}
