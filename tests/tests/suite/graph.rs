//! The graph of a flow: queries and drawings.

use agentspec_tests::{fixture, subflow_bomb};
use agentspec_types::Document;

fn graph(name: &str) -> agentspec_types::graph::FlowGraph {
    Document::from_path(fixture(&format!("generated/{name}")))
        .unwrap()
        .graph()
        .unwrap()
}

#[test]
fn answers_questions_about_a_branching_flow() {
    let g = graph("flow_branching.json");
    let start = g.start.clone().unwrap();
    assert_eq!(g.node(&start).unwrap().component_type, "StartNode");
    let route = g
        .nodes
        .iter()
        .find(|n| n.component_type == "BranchingNode")
        .unwrap()
        .id
        .clone();
    let approved: Vec<&str> = g
        .outgoing_on(&route, "APPROVED")
        .map(|e| e.to.as_str())
        .collect();
    assert_eq!(approved.len(), 1);
    assert_eq!(
        g.node(approved[0]).unwrap().component_type,
        "OutputMessageNode"
    );
    assert_eq!(g.fan_out(), [route.as_str()]);
    assert!(g.fan_in().is_empty());
    assert_eq!(g.end_nodes().len(), 3);
    assert_eq!(g.reachable().len(), g.nodes.len());
    assert!(g.dead_ends().is_empty());
    assert_eq!(g.incoming(&route).count(), 1);
    assert_eq!(
        g.data_in(&route)
            .map(|e| e.input.as_str())
            .collect::<Vec<_>>(),
        ["user_choice"]
    );
    let mermaid = g.to_mermaid();
    assert!(mermaid.starts_with("flowchart TD\n"));
    assert!(
        mermaid.contains(r#"-->|"APPROVED"|"#) && mermaid.contains(r#"-->|"default"|"#),
        "{mermaid}"
    );
}

#[test]
fn finds_cycles_with_no_way_out_and_draws_nested_flows() {
    let yaml = r#"
component_type: Flow
name: loop
start_node: {$component_ref: s}
nodes: [{$component_ref: s}, {$component_ref: a}, {$component_ref: b}, {$component_ref: e}]
control_flow_connections:
- {component_type: ControlFlowEdge, name: c1, from_node: {$component_ref: s}, to_node: {$component_ref: a}}
- {component_type: ControlFlowEdge, name: c2, from_node: {$component_ref: a}, to_node: {$component_ref: b}}
- {component_type: ControlFlowEdge, name: c3, from_node: {$component_ref: b}, to_node: {$component_ref: a}}
$referenced_components:
  s: {component_type: StartNode, id: s, name: s}
  a: {component_type: OutputMessageNode, id: a, name: a, message: hi}
  b: {component_type: OutputMessageNode, id: b, name: b, message: ho}
  e: {component_type: EndNode, id: e, name: e}
agentspec_version: 25.4.1
"#;
    let doc = Document::from_yaml_str(yaml).unwrap();
    let g = doc.graph().unwrap();
    let mut dead = g.dead_ends();
    dead.sort_unstable();
    assert_eq!(dead, ["a", "b", "s"]);
    let warnings: Vec<&str> = doc.validate().iter().map(|d| d.code).collect();
    assert!(
        warnings.contains(&"no-path-to-end") && warnings.contains(&"unreachable-node"),
        "{warnings:?}"
    );
    let nested = graph("flow_all_node_types.json");
    let with_subflow = nested.nodes.iter().filter(|n| n.subflow.is_some()).count();
    assert!(with_subflow >= 3, "{with_subflow}");
    let dot = nested.to_dot();
    assert!(
        dot.starts_with("digraph flow {") && dot.contains("subgraph cluster_"),
        "{dot}"
    );
    assert_eq!(
        dot.matches("subgraph cluster_").count(),
        nested.to_mermaid().matches("subgraph ").count()
    );
}

#[test]
fn a_subflow_used_many_times_is_built_and_drawn_once() {
    let depth = 24;
    let doc = Document::from_value(&subflow_bomb(depth)).unwrap();
    let g = doc.graph().unwrap();
    // the two FlowNodes of a flow share one graph of their subflow
    let (a, b) = (&g.nodes[1], &g.nodes[2]);
    assert!(std::sync::Arc::ptr_eq(
        a.subflow.as_ref().unwrap(),
        b.subflow.as_ref().unwrap()
    ));
    // each flow drawn once: one subgraph per level, not 2^24
    let mermaid = g.to_mermaid();
    assert_eq!(mermaid.matches("subgraph").count(), depth);
    assert!(mermaid.len() < 100 * 1024, "{}", mermaid.len());
    let dot = g.to_dot();
    assert_eq!(dot.matches("subgraph cluster_").count(), depth);
    assert_eq!(dot.matches("lhead=cluster_").count(), depth);
}

#[test]
fn queries_over_many_nodes_walk_the_edges_once() {
    // a chain of 20,000 nodes: reachable and dead_ends are linear walks
    let mut g = agentspec_types::graph::FlowGraph {
        id: "f".into(),
        name: "f".into(),
        nodes: Vec::new(),
        control: Vec::new(),
        data: Vec::new(),
        start: Some("n0".into()),
    };
    let n = 20_000;
    for i in 0..n {
        g.nodes.push(agentspec_types::graph::GraphNode {
            id: format!("n{i}"),
            name: format!("n{i}"),
            component_type: if i + 1 == n { "EndNode" } else { "LlmNode" }.into(),
            branches: Vec::new(),
            subflow: None,
        });
        if i > 0 {
            g.control.push(agentspec_types::graph::ControlEdge {
                from: format!("n{}", i - 1),
                branch: None,
                to: format!("n{i}"),
            });
        }
    }
    assert_eq!(g.reachable().len(), n);
    assert!(g.dead_ends().is_empty());
    assert!(g.fan_in().is_empty() && g.fan_out().is_empty());
}
