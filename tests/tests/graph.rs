//! The graph of a flow: queries and drawings.

use agentspec_tests::fixture;
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
