//! Documents built in code, one JSON document per line as `{"case": name, "document": …}`:
//! `scripts/oracle_built.py` builds the same components with pyagentspec 26.3.1 and checks
//! that it writes the same documents (what its constructors infer included).

use agentspec_types::{
    Agent, AgentNode, ApiNode, BranchingNode, ControlFlowEdge, DataFlowEdge, Document, EndNode,
    Flow, FlowNode, InputMessageNode, JsonObject, LlmNode, Node, OutputMessageNode, ServerTool,
    StartNode, ToolNode, VllmConfig,
};
use serde_json::json;

fn string(title: &str) -> JsonObject {
    let mut p = JsonObject::new();
    p.insert("title".into(), title.into());
    p.insert("type".into(), "string".into());
    p
}

fn llm() -> VllmConfig {
    VllmConfig::new("vllm", "llama", "http://vllm:8000").with_id("llm")
}

/// StartNode → LlmNode → EndNode, with data edges: the flow's inputs and outputs, the
/// node's placeholders and output, and the branches are inferred.
fn linear_flow() -> Flow {
    let start = Node::from(
        StartNode::new("start")
            .with_id("start")
            .with_inputs([string("topic")]),
    );
    let write = Node::from(LlmNode::new("write", llm(), "Write about {{topic}}.").with_id("write"));
    let end = Node::from(
        EndNode::new("end")
            .with_id("end")
            .with_outputs([string("generated_text")]),
    );
    Flow::new(
        "linear",
        start.clone(),
        [start.clone(), write.clone(), end.clone()],
        [
            ControlFlowEdge::new("c1", start.clone(), write.clone()).with_id("c1"),
            ControlFlowEdge::new("c2", write.clone(), end.clone()).with_id("c2"),
        ],
    )
    .with_id("linear")
    .with_data_flow_connections([
        DataFlowEdge::new("d1", start, "topic", write.clone(), "topic").with_id("d1"),
        DataFlowEdge::new("d2", write, "generated_text", end, "generated_text").with_id("d2"),
    ])
}

/// A BranchingNode's branches from its mapping, and a FlowNode's from its subflow's ends.
fn branching_flow() -> Flow {
    let start = Node::from(StartNode::new("start").with_id("b_start"));
    let branch = Node::from(
        BranchingNode::new(
            "route",
            [
                ("yes".to_owned(), "accepted".to_owned()),
                ("no".to_owned(), "rejected".to_owned()),
            ],
        )
        .with_id("route"),
    );
    let accepted = Node::from(
        EndNode::new("accepted")
            .with_id("accepted")
            .with_branch_name("accepted"),
    );
    let rejected = Node::from(
        EndNode::new("rejected")
            .with_id("rejected")
            .with_branch_name("rejected"),
    );
    let fallback = Node::from(EndNode::new("fallback").with_id("fallback"));
    Flow::new(
        "branching",
        start.clone(),
        [
            start.clone(),
            branch.clone(),
            accepted.clone(),
            rejected.clone(),
            fallback.clone(),
        ],
        [
            ControlFlowEdge::new("b0", start, branch.clone()).with_id("b0"),
            ControlFlowEdge::new("b1", branch.clone(), accepted)
                .with_id("b1")
                .with_from_branch("accepted"),
            ControlFlowEdge::new("b2", branch.clone(), rejected)
                .with_id("b2")
                .with_from_branch("rejected"),
            ControlFlowEdge::new("b3", branch, fallback)
                .with_id("b3")
                .with_from_branch("default"),
        ],
    )
    .with_id("branching")
}

/// A flow running an agent, a tool, a subflow, messages and an API call.
fn nodes_flow() -> Flow {
    let agent = Agent::new("helper", llm(), "Help {{user}}.").with_id("helper");
    let tool = ServerTool::new("lookup")
        .with_id("lookup")
        .with_inputs([string("query")])
        .with_outputs([string("result")]);
    let start = Node::from(StartNode::new("start").with_id("n_start"));
    let nodes = [
        start.clone(),
        Node::from(AgentNode::new("run agent", agent).with_id("agent_node")),
        Node::from(ToolNode::new("run tool", tool).with_id("tool_node")),
        Node::from(FlowNode::new("run flow", branching_flow()).with_id("flow_node")),
        Node::from(
            InputMessageNode::new("ask")
                .with_id("ask")
                .with_message("Which {{thing}}?"),
        ),
        Node::from(OutputMessageNode::new("say", "Found {{result}}.").with_id("say")),
        Node::from(
            ApiNode::new("call", "https://api/{{city}}", "GET")
                .with_id("call")
                .with_headers(
                    json!({"X-User": "{{user_id}}"})
                        .as_object()
                        .unwrap()
                        .clone(),
                ),
        ),
        Node::from(EndNode::new("end").with_id("n_end")),
    ];
    let edges: Vec<ControlFlowEdge> = nodes
        .windows(2)
        .enumerate()
        .map(|(i, pair)| {
            let edge = ControlFlowEdge::new(format!("e{i}"), pair[0].clone(), pair[1].clone())
                .with_id(format!("e{i}"));
            // the FlowNode's branches are its subflow's end nodes
            if i == 3 {
                edge.with_from_branch("accepted")
            } else {
                edge
            }
        })
        .collect();
    Flow::new("nodes", start, nodes, edges).with_id("nodes")
}

fn main() -> Result<(), agentspec_types::LoadError> {
    let cases: [(&str, agentspec_types::Component); 4] = [
        ("linear_flow", linear_flow().into()),
        ("branching_flow", branching_flow().into()),
        ("nodes_flow", nodes_flow().into()),
        (
            "agent",
            Agent::new("helper", llm(), "Help {{user}} with {{task}}.")
                .with_id("a")
                .into(),
        ),
    ];
    for (case, root) in cases {
        let document = Document::at_min_version(root)?.to_value();
        println!("{}", json!({"case": case, "document": document}));
    }
    Ok(())
}
