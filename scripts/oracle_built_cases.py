"""The components of `agentspec-built` (tests/src/bin/agentspec-built.rs), built with
pyagentspec 26.3.1: each case's document as pyagentspec writes it."""

from pyagentspec.agent import Agent
from pyagentspec.flows.edges import ControlFlowEdge, DataFlowEdge
from pyagentspec.flows.flow import Flow
from pyagentspec.flows.nodes import (
    AgentNode, ApiNode, BranchingNode, EndNode, FlowNode, InputMessageNode, LlmNode,
    OutputMessageNode, StartNode, ToolNode,
)
from pyagentspec.llms import VllmConfig
from pyagentspec.property import StringProperty
from pyagentspec.tools import ServerTool


def llm():
    return VllmConfig(id="llm", name="vllm", model_id="llama", url="http://vllm:8000")


def linear_flow():
    start = StartNode(id="start", name="start", inputs=[StringProperty(title="topic")])
    write = LlmNode(id="write", name="write", llm_config=llm(), prompt_template="Write about {{topic}}.")
    end = EndNode(id="end", name="end", outputs=[StringProperty(title="generated_text")])
    return Flow(
        id="linear", name="linear", start_node=start, nodes=[start, write, end],
        control_flow_connections=[
            ControlFlowEdge(id="c1", name="c1", from_node=start, to_node=write),
            ControlFlowEdge(id="c2", name="c2", from_node=write, to_node=end),
        ],
        data_flow_connections=[
            DataFlowEdge(id="d1", name="d1", source_node=start, source_output="topic",
                         destination_node=write, destination_input="topic"),
            DataFlowEdge(id="d2", name="d2", source_node=write, source_output="generated_text",
                         destination_node=end, destination_input="generated_text"),
        ],
    )


def branching_flow():
    start = StartNode(id="b_start", name="start")
    branch = BranchingNode(id="route", name="route", mapping={"yes": "accepted", "no": "rejected"})
    accepted = EndNode(id="accepted", name="accepted", branch_name="accepted")
    rejected = EndNode(id="rejected", name="rejected", branch_name="rejected")
    fallback = EndNode(id="fallback", name="fallback")
    return Flow(
        id="branching", name="branching", start_node=start,
        nodes=[start, branch, accepted, rejected, fallback],
        control_flow_connections=[
            ControlFlowEdge(id="b0", name="b0", from_node=start, to_node=branch),
            ControlFlowEdge(id="b1", name="b1", from_node=branch, from_branch="accepted", to_node=accepted),
            ControlFlowEdge(id="b2", name="b2", from_node=branch, from_branch="rejected", to_node=rejected),
            ControlFlowEdge(id="b3", name="b3", from_node=branch, from_branch="default", to_node=fallback),
        ],
    )


def nodes_flow():
    agent = Agent(id="helper", name="helper", llm_config=llm(), system_prompt="Help {{user}}.")
    tool = ServerTool(id="lookup", name="lookup", inputs=[StringProperty(title="query")],
                      outputs=[StringProperty(title="result")])
    start = StartNode(id="n_start", name="start")
    nodes = [
        start,
        AgentNode(id="agent_node", name="run agent", agent=agent),
        ToolNode(id="tool_node", name="run tool", tool=tool),
        FlowNode(id="flow_node", name="run flow", subflow=branching_flow()),
        InputMessageNode(id="ask", name="ask", message="Which {{thing}}?"),
        OutputMessageNode(id="say", name="say", message="Found {{result}}."),
        ApiNode(id="call", name="call", url="https://api/{{city}}", http_method="GET",
                headers={"X-User": "{{user_id}}"}),
        EndNode(id="n_end", name="end"),
    ]
    edges = []
    for i, (a, b) in enumerate(zip(nodes, nodes[1:])):
        edges.append(ControlFlowEdge(id=f"e{i}", name=f"e{i}", from_node=a, to_node=b,
                                     from_branch="accepted" if i == 3 else None))
    return Flow(id="nodes", name="nodes", start_node=start, nodes=nodes, control_flow_connections=edges)


def agent():
    return Agent(id="a", name="helper", llm_config=llm(), system_prompt="Help {{user}} with {{task}}.")


CASES = {
    "linear_flow": linear_flow,
    "branching_flow": branching_flow,
    "nodes_flow": nodes_flow,
    "agent": agent,
}
