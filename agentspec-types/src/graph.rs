//! The graph of a flow: nodes, control edges (with branches) and data edges, references
//! followed; queries over it (edges per node and branch, fan-in and fan-out, reachability,
//! end nodes, cycles with no way out) and drawings in Mermaid and Graphviz DOT, with nested
//! flows as subgraphs.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;

use serde_json::{Map, Value};

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
    /// The flow the node runs (FlowNode, MapNode, CatchExceptionNode, …), if any.
    pub subflow: Option<Box<FlowGraph>>,
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

/// Resolves `{"$component_ref": id}` through every `$referenced_components` map.
struct Refs<'a> {
    entries: HashMap<&'a str, &'a Map<String, Value>>,
}

impl<'a> Refs<'a> {
    fn new(root: &'a Value) -> Self {
        let mut entries = HashMap::new();
        let mut stack = vec![root];
        while let Some(v) = stack.pop() {
            match v {
                Value::Object(map) => {
                    if let Some(Value::Object(rc)) = map.get("$referenced_components") {
                        for (k, body) in rc {
                            if let Value::Object(b) = body {
                                entries.entry(k.as_str()).or_insert(b);
                            }
                        }
                    }
                    stack.extend(map.values());
                }
                Value::Array(items) => stack.extend(items),
                _ => {}
            }
        }
        Refs { entries }
    }

    fn get(&self, value: &'a Value) -> Option<&'a Map<String, Value>> {
        let map = value.as_object()?;
        match map.get("$component_ref").and_then(Value::as_str) {
            Some(id) => self.entries.get(id).copied(),
            None => Some(map),
        }
    }
}

fn text(map: &Map<String, Value>, key: &str) -> String {
    map.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

impl FlowGraph {
    /// The graph of a flow written as a value (the root of `document` when it is a Flow).
    pub fn from_value(document: &Value) -> Option<FlowGraph> {
        let refs = Refs::new(document);
        let root = refs.get(document)?;
        (text(root, "component_type") == "Flow").then(|| Self::build(&refs, root, 0))
    }

    fn build(refs: &Refs<'_>, flow: &Map<String, Value>, depth: usize) -> FlowGraph {
        let list = |key: &str| {
            flow.get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|v| refs.get(v))
        };
        let id_at = |m: &Map<String, Value>, key: &str| {
            m.get(key)
                .and_then(|v| refs.get(v))
                .map(|n| text(n, "id"))
                .unwrap_or_default()
        };
        let nodes = list("nodes")
            .map(|n| GraphNode {
                id: text(n, "id"),
                name: text(n, "name"),
                component_type: text(n, "component_type"),
                branches: n
                    .get("branches")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect(),
                // Nested flows are followed to a depth far beyond real documents.
                subflow: (depth < 64)
                    .then(|| n.get("subflow").and_then(|s| refs.get(s)))
                    .flatten()
                    .filter(|s| text(s, "component_type") == "Flow")
                    .map(|s| Box::new(Self::build(refs, s, depth + 1))),
            })
            .collect();
        let control = list("control_flow_connections")
            .map(|e| ControlEdge {
                from: id_at(e, "from_node"),
                branch: e
                    .get("from_branch")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                to: id_at(e, "to_node"),
            })
            .collect();
        let data = list("data_flow_connections")
            .map(|e| DataEdge {
                from: id_at(e, "source_node"),
                output: text(e, "source_output"),
                to: id_at(e, "destination_node"),
                input: text(e, "destination_input"),
            })
            .collect();
        let start = flow
            .get("start_node")
            .and_then(|s| refs.get(s))
            .map(|s| text(s, "id"));
        FlowGraph {
            id: text(flow, "id"),
            name: text(flow, "name"),
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
        self.nodes
            .iter()
            .filter(|n| self.incoming(&n.id).count() > 1)
            .map(|n| n.id.as_str())
            .collect()
    }

    /// Nodes with more than one outgoing control edge.
    pub fn fan_out(&self) -> Vec<&str> {
        self.nodes
            .iter()
            .filter(|n| self.outgoing(&n.id).count() > 1)
            .map(|n| n.id.as_str())
            .collect()
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
        let mut seen = HashSet::new();
        let mut stack: Vec<&str> = self.start.iter().map(String::as_str).collect();
        while let Some(n) = stack.pop() {
            if seen.insert(n) {
                stack.extend(self.outgoing(n).map(|e| e.to.as_str()));
            }
        }
        seen
    }

    /// Nodes from which no EndNode can be reached: dead ends, and cycles with no way out.
    pub fn dead_ends(&self) -> Vec<&str> {
        let mut can_end: HashSet<&str> = self.end_nodes().into_iter().collect();
        let mut changed = true;
        while changed {
            changed = false;
            for e in &self.control {
                if can_end.contains(e.to.as_str()) && can_end.insert(e.from.as_str()) {
                    changed = true;
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
        let mut out = String::from("digraph flow {\n    rankdir=TB;\n");
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
                let _ = writeln!(
                    out,
                    "{pad}subgraph cluster_{key} {{\n{pad}    label=\"{}\";",
                    dot_escape(&sub.name)
                );
                sub.dot_body(out, ids, &format!("{scope}/{}", n.id), level + 1);
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

/// Short, unique, drawing-safe names for node ids (per nesting scope).
#[derive(Default)]
struct Ids {
    names: BTreeMap<(String, String), String>,
}

impl Ids {
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

impl<C: crate::codec::ComponentSet + Send + Sync> crate::document::Document<C> {
    /// The graph of the root flow (`None` when the root is not a Flow), nested flows included.
    pub fn graph(&self) -> Option<FlowGraph> {
        FlowGraph::from_value(&self.to_value())
    }
}
