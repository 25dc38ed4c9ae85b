//! The resolved view: from an agent to its tools, from a flow to its nodes and edges, with
//! references followed, and every component listed once.

use std::collections::HashSet;

use agentspec_tests::fixture;
use agentspec_types::{Component, Components, Document, Format, LlmNode, LoadOptions, VllmConfig};

fn load(name: &str) -> Document {
    Document::from_path(fixture(&format!("generated/{name}"))).unwrap()
}

#[test]
fn walks_a_flow_through_its_references() {
    let doc = load("flow_basic_llm.json");
    let resolved = doc.resolve();
    let Component::Flow(flow) = doc.root() else {
        panic!("a flow")
    };
    let types: Vec<&str> = resolved
        .each(&flow.nodes)
        .map(|n| n.component_type())
        .collect();
    assert_eq!(types, ["StartNode", "LlmNode", "EndNode"]);
    let llm_node: &LlmNode = resolved
        .each(&flow.nodes)
        .find_map(|n| n.as_any().downcast_ref())
        .unwrap();
    let config: &VllmConfig = resolved.get_as(&llm_node.llm_config).unwrap();
    assert_eq!(config.model_id, "meta-llama/Llama-3.1-8B-Instruct");
    let edge = &flow.control_flow_connections[0];
    let edge = resolved
        .get(edge)
        .unwrap()
        .as_any()
        .downcast_ref::<agentspec_types::ControlFlowEdge>()
        .unwrap();
    assert_eq!(resolved.get(&edge.to_node).unwrap().id(), "llm_node");
    assert!(
        resolved.get_as::<LlmNode, _>(&flow.start_node).is_none(),
        "the start node is not an LlmNode"
    );
}

#[test]
fn walks_an_agent_to_its_tools_and_lists_every_component_once() {
    let doc = load("agent_all_tools.json");
    let resolved = doc.resolve();
    let Component::Agent(agent) = doc.root() else {
        panic!("an agent")
    };
    let tools: Vec<&str> = resolved
        .each(&agent.tools)
        .map(|t| t.component_type())
        .collect();
    assert_eq!(tools.len(), agent.tools.len());
    assert!(
        tools.contains(&"ServerTool") && tools.contains(&"RemoteTool"),
        "{tools:?}"
    );
    for name in [
        "flow_all_node_types.json",
        "flow_nested_reference_scoping.json",
        "agent_all_tools.json",
    ] {
        let doc = load(name);
        let resolved = doc.resolve();
        let ids: Vec<&str> = resolved.components().iter().map(|c| c.id()).collect();
        let unique: HashSet<&str> = ids.iter().copied().collect();
        assert_eq!(ids.len(), unique.len(), "{name}: each component once");
        assert_eq!(ids.len(), doc.components().len());
    }
}

#[test]
fn follows_references_into_supplied_components() {
    let components =
        Components::from_path(fixture("generated/disaggregated_components.json")).unwrap();
    let text = std::fs::read_to_string(fixture("generated/disaggregated_main.json")).unwrap();
    let doc = Document::from_str_with(
        &text,
        Format::Json,
        &LoadOptions::new().components(&components),
    )
    .unwrap();
    let resolved = doc.resolve_with(&components);
    let Component::Agent(agent) = doc.root() else {
        panic!("an agent")
    };
    assert_eq!(resolved.get(&agent.llm_config).unwrap().id(), "dis_llm");
    assert_eq!(
        resolved
            .each(&agent.tools)
            .map(|t| t.id())
            .collect::<Vec<_>>(),
        ["dis_tool"]
    );
    assert!(
        doc.resolve().get(&agent.llm_config).is_none(),
        "without the components file the reference stays open"
    );
}
