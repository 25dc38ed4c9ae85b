//! A session's state, plain serde data saved and resumed as it is, and the [`Core`] that
//! holds it with the plan: the flow engine (`core`) and the agent loop (`agent`) both work
//! on it, and the driver reads what the core [`Need`]s next.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::llm::ChatRequest;
use crate::plan::Plan;
use crate::{Message, ToolRequest};

/// A running flow: the frame of the top flow, or of a subflow a FlowNode runs.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Frame {
    pub flow: usize,
    /// The node running or about to run.
    pub node: usize,
    /// The input values data edges gave each node so far, by node index (the last writer
    /// wins); only the nodes given something are there.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub slots: BTreeMap<usize, Map<String, Value>>,
    /// In a flow whose data edges are left out, every value written so far, by name: an
    /// output feeds every input of its name, so they meet in one place.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub named: Map<String, Value>,
    pub wait: Wait,
}

/// What the current node of a frame waits for.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(tag = "for", rename_all = "snake_case")]
pub(crate) enum Wait {
    /// Nothing: the node runs when the frame is advanced.
    #[default]
    Nothing,
    /// A user message appended after the conversation had `asked_at` messages.
    User { asked_at: usize },
    /// The caller's decision on a tool call that requires confirmation.
    Confirmation { request: ToolRequest },
    /// The caller accepted the call: it is made next.
    Accepted { request: ToolRequest },
    /// The caller refused the call.
    Rejected {
        request: ToolRequest,
        reason: String,
    },
    /// The result of a client tool, from the caller.
    Client { request: ToolRequest },
    /// The result of a ServerTool, from the driver.
    Server { request: ToolRequest },
    /// A tool's result, arrived.
    Result { value: Value },
    /// The subflow of this FlowNode, running in the next frame.
    Subflow,
    /// The model's answer to this LlmNode's request.
    Model { request: Box<ChatRequest> },
    /// The LlmNode's outputs, read from the model's answer.
    Generated { outputs: Map<String, Value> },
    /// The agent (or group of agents) of this AgentNode, running.
    Agent { run: Box<GroupRun> },
    /// The answer to this ApiNode's request, made by the driver with these inputs.
    Http { inputs: Map<String, Value> },
    /// The flows this MapNode, ParallelMapNode or ParallelFlowNode runs, run by the driver
    /// (they cannot pause: a session saved here runs the node again).
    Children,
}

/// The whole state of a session.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct State {
    pub frames: Vec<Frame>,
    pub messages: Vec<Message>,
    /// The number of messages the caller has seen (returned by an earlier `run`).
    pub seen: usize,
    /// What the ids of the tool requests start with: empty but for the flows a node runs
    /// on their own (MapNode, ParallelMapNode, ParallelFlowNode).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub prefix: String,
    /// The next tool request id.
    pub next_id: u64,
    /// Nodes run so far.
    pub steps: u64,
    /// The agent (or group of agents), when the session runs one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<GroupRun>,
    /// The outputs, once the session finished.
    pub finished: Option<Map<String, Value>>,
    /// The error the session failed with: it fails with it again.
    pub failed: Option<crate::SavedError>,
}

/// What the core needs to go on.
#[derive(Debug)]
pub(crate) enum Need {
    /// A call the driver makes (a ServerTool, a RemoteTool, an MCP tool): `answer_server`
    /// gives its result.
    Call { request: ToolRequest, tool: Callee },
    /// The tools of these MCPToolBoxes of the running agent (by index in its plan), listed
    /// by their servers (`answer_listed`).
    ListTools { agent: usize },
    /// A user message (`append_user_message`).
    User,
    /// The results of client tools (`answer_client`).
    Client(Vec<ToolRequest>),
    /// Decisions on tool calls (`confirm`, `reject`).
    Confirm(Vec<ToolRequest>),
    /// The model's answer to this request (`answer_model`), made by this agent (by index
    /// in the plan: its transforms reshape the request) or by an LlmNode (`None`).
    Model(Box<crate::llm::ChatRequest>, Option<usize>),
    /// The answer to the request `plan.http[call]` with these inputs (`answer_http`).
    Http {
        call: usize,
        inputs: Map<String, Value>,
    },
    /// The results of these flows, run to their end by the driver, at once when
    /// `parallel` (`answer_children`).
    Children { runs: Vec<Child>, parallel: bool },
    /// The session finished with these outputs.
    Finished(Map<String, Value>),
}

/// The tool a call is made to.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Callee {
    /// A tool of the plan, by index.
    Tool(usize),
    /// A tool an MCPToolBox listed, on the server `plan.mcp[server]`.
    Listed(usize),
}

/// A flow a MapNode, ParallelMapNode or ParallelFlowNode runs.
#[derive(Debug)]
pub(crate) struct Child {
    pub flow: usize,
    pub inputs: Map<String, Value>,
}

/// What a flow run by a node gave: its outputs and the messages it appended.
#[derive(Debug)]
pub(crate) struct ChildDone {
    pub outputs: Map<String, Value>,
    pub messages: Vec<Message>,
    pub steps: u64,
}

/// The limits a session runs under.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub max_steps: u64,
    pub max_iterations: u32,
    /// The most flows a parallel node runs at once.
    pub parallelism: usize,
    /// Whether a model config the client cannot serve is a load error.
    pub check_models: bool,
}

pub(crate) struct Core {
    pub plan: Arc<Plan>,
    pub state: State,
    pub limits: Limits,
    /// Where the nodes entered and left are told (`RuntimeBuilder::on_event`).
    pub events: Option<crate::EventSink>,
}

/// A running group of agents (one agent is a group of one).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct GroupRun {
    /// The group, by index in the plan.
    pub group: usize,
    /// The member talking with the user.
    pub main: usize,
    /// Each member's loop, by member index.
    pub runs: Vec<AgentRun>,
    /// The private threads between members, each between a caller and a recipient.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub threads: Vec<Thread>,
    /// The messages sent and not answered yet, the last one's recipient having the turn.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stack: Vec<Delegation>,
}

/// The messages between two members of a group.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Thread {
    pub caller: usize,
    pub recipient: usize,
    pub messages: Vec<Message>,
}

/// A message a member sent another, waiting for its answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Delegation {
    pub caller: usize,
    pub recipient: usize,
    /// The `send_message` call, answered with the recipient's answer.
    pub request: ToolRequest,
    /// The thread, by index.
    pub thread: usize,
}

/// A running agent.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct AgentRun {
    pub agent: usize,
    /// The values of its inputs (its prompt's placeholders).
    pub inputs: Map<String, Value>,
    /// Model calls since the last user message.
    pub calls: u32,
    /// The tool calls of the model's last answer not made yet.
    pub pending: VecDeque<ToolRequest>,
    /// The next model call reminds the model that no user is there to answer.
    #[serde(default)]
    pub remind: bool,
    /// The tools its MCPToolBoxes listed, once they were asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listed: Option<Vec<crate::mcp::Listed>>,
    /// The outputs the agent finished with, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub done: Option<Map<String, Value>>,
    pub wait: AgentWait,
}

/// What the agent waits for.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(tag = "for", rename_all = "snake_case")]
pub(crate) enum AgentWait {
    /// Nothing: the pending calls are made, then the model is asked.
    #[default]
    Nothing,
    /// The model's answer.
    Model,
    /// A user message after the conversation had `asked_at` messages.
    User { asked_at: usize },
    /// The caller's decision on a call.
    Confirmation { request: ToolRequest },
    /// An accepted call, made next.
    Accepted { request: ToolRequest },
    /// A client tool's result.
    Client { request: ToolRequest },
    /// A ServerTool's result.
    Server { request: ToolRequest },
}
