//! A loaded document compiled once for execution: flows, nodes and tools by index, control
//! edges as `(node, branch) → node`, data edges as `(node, output) → (node, input)` (or
//! values met by name when a flow leaves `data_flow_connections` out), every tool resolved.
//! Every problem is found here and reported at once, before anything runs.

use std::collections::{HashMap, HashSet};

use agentspec_types::resolve::Resolved;
use agentspec_types::{
    Agent, AgentNode, AnyLlmConfig, ApiNode, BranchingNode, CatchExceptionNode, ClientTool,
    ClientTransport, Component, ComponentInfo, Diagnostic, Document, EndNode, Flow, FlowNode,
    InputMessageNode, JsonObject, LlmGenerationConfig, LlmNode, MCPTool, MCPToolBox,
    MCPToolBoxToolFilter, MCPToolSpec, MapNode, Node, OpenAIAPIType, Output, OutputMessageNode,
    ParallelFlowNode, ParallelMapNode, ReductionMethod, RefOr, RemoteTool, SSETransport,
    SSEmTLSTransport, Sensitive, ServerTool, StartNode, StdioTransport, StreamableHTTPTransport,
    StreamableHTTPmTLSTransport, Tool, ToolNode, WriteOptions,
};
use serde_json::Value;

use crate::http::{HttpCall, Retry};
use crate::llm::ModelInfo;
use crate::mcp::{FilterItem, McpServer, McpTls, McpTransport, ToolboxPlan};
use crate::props::{Digest, Prop, digest};
use crate::transform::{
    CachePlan, DatastorePlan, PgConfig, PgTls, SslMode, TransformKind, TransformPlan,
};

/// What a node does.
#[derive(Debug, Clone)]
pub(crate) enum NodeKind {
    Start,
    End {
        branch: String,
    },
    Tool {
        tool: usize,
    },
    Branching {
        mapping: Vec<(String, String)>,
    },
    OutputMessage {
        message: String,
    },
    InputMessage {
        message: Option<String>,
    },
    Flow {
        flow: usize,
    },
    Llm {
        prompt: String,
        model: Box<ModelInfo>,
    },
    Agent {
        agent: usize,
    },
    /// An ApiNode: the request `plan.http[call]`.
    Api {
        call: usize,
    },
    /// A MapNode or a ParallelMapNode: the subflow once per item.
    Map {
        flow: usize,
        parallel: bool,
        /// Each input of the node and the subflow input it feeds.
        inputs: Vec<(String, String)>,
        /// Each output of the node, the subflow output it collects and how.
        outputs: Vec<(String, String, ReductionMethod)>,
    },
    /// A ParallelFlowNode: every subflow at once.
    ParallelFlow {
        flows: Vec<usize>,
    },
    /// A CatchExceptionNode: the subflow in a frame of its own, whose failure the node
    /// catches.
    Catch {
        flow: usize,
    },
}

/// The name of the branch a CatchExceptionNode takes when its subflow fails.
pub(crate) const CAUGHT_BRANCH: &str = "caught_exception_branch";
/// The output that holds what failed.
pub(crate) const CAUGHT_INFO: &str = "caught_exception_info";

impl NodeKind {
    /// The node's component type.
    pub fn component_type(&self) -> &'static str {
        match self {
            NodeKind::Start => "StartNode",
            NodeKind::End { .. } => "EndNode",
            NodeKind::Tool { .. } => "ToolNode",
            NodeKind::Branching { .. } => "BranchingNode",
            NodeKind::OutputMessage { .. } => "OutputMessageNode",
            NodeKind::InputMessage { .. } => "InputMessageNode",
            NodeKind::Flow { .. } => "FlowNode",
            NodeKind::Llm { .. } => "LlmNode",
            NodeKind::Agent { .. } => "AgentNode",
            NodeKind::Api { .. } => "ApiNode",
            NodeKind::Map {
                parallel: false, ..
            } => "MapNode",
            NodeKind::Map { parallel: true, .. } => "ParallelMapNode",
            NodeKind::ParallelFlow { .. } => "ParallelFlowNode",
            NodeKind::Catch { .. } => "CatchExceptionNode",
        }
    }
}

/// One data edge leaving a node.
#[derive(Debug, Clone)]
pub(crate) struct Feed {
    pub output: String,
    pub node: usize,
    pub input: String,
}

#[derive(Debug, Clone)]
pub(crate) struct NodePlan {
    pub id: String,
    pub name: String,
    pub kind: NodeKind,
    pub inputs: Vec<Prop>,
    pub outputs: Vec<Prop>,
    /// The control edges leaving the node: branch, next node.
    pub next: Vec<(String, usize)>,
    /// The data edges leaving the node.
    pub feeds: Vec<Feed>,
    /// The node can run again in the same frame (it is on a cycle of control edges): what
    /// data edges gave it is kept after it runs, for the next time.
    pub again: bool,
}

impl NodePlan {
    pub fn next(&self, branch: &str) -> Option<usize> {
        self.next
            .iter()
            .find(|(b, _)| b == branch)
            .map(|(_, node)| *node)
    }
}

#[derive(Debug, Clone)]
pub(crate) struct FlowPlan {
    pub name: String,
    pub inputs: Vec<Prop>,
    pub outputs: Vec<Prop>,
    pub start: usize,
    pub nodes: Vec<NodePlan>,
    /// The data edges are left out (`data_flow_connections: null`): every output feeds every
    /// input of its name, so values meet by name in the frame rather than along edges
    /// (as many edges as pairs of nodes).
    pub by_name: bool,
}

/// Where a tool runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ToolPlace {
    /// A `ServerTool` in the runtime's toolbox.
    Toolbox,
    /// A `ServerTool` the host callback runs.
    Host,
    /// A `ClientTool`: the caller runs it.
    Client,
    /// A `RemoteTool`: the request `plan.http[call]`, made by the driver.
    Remote(usize),
    /// An `MCPTool`: the tool of its name on the server `plan.mcp[server]`.
    Mcp(usize),
}

#[derive(Debug, Clone)]
pub(crate) struct ToolPlan {
    pub name: String,
    pub description: String,
    pub inputs: Vec<Prop>,
    pub outputs: Vec<Prop>,
    pub place: ToolPlace,
    pub requires_confirmation: bool,
}

/// An agent: its prompt, its tools by index, and its model.
#[derive(Debug, Clone)]
pub(crate) struct AgentPlan {
    pub name: String,
    pub description: Option<String>,
    pub system_prompt: String,
    pub inputs: Vec<Prop>,
    pub outputs: Vec<Prop>,
    pub tools: Vec<usize>,
    /// Its MCPToolBoxes, whose tools are listed when it first calls its model.
    pub toolboxes: Vec<ToolboxPlan>,
    /// Its transforms, in order.
    pub transforms: Vec<TransformPlan>,
    pub human_in_the_loop: bool,
    pub model: ModelInfo,
}

/// How the members of a group of agents reach each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GroupKind {
    /// One agent (an Agent or a SpecializedAgent).
    Single,
    /// A Swarm: its members may send messages (`send`) or hand the conversation over
    /// (`handoff`) along its relationships.
    Swarm { send: bool, handoff: bool },
    /// A ManagerWorkers: the manager (member 0) sends messages to the workers.
    ManagerWorkers,
}

/// The agents a session or an AgentNode runs: one agent, a Swarm, or a ManagerWorkers.
#[derive(Debug, Clone)]
pub(crate) struct GroupPlan {
    pub name: String,
    pub kind: GroupKind,
    /// The members, by index in `plan.agents`: the first talks to the user first (the
    /// Swarm's `first_agent`, the group's manager).
    pub members: Vec<usize>,
    /// Who may message (or hand over to) whom: member indices, caller then recipient.
    pub relationships: Vec<(usize, usize)>,
    pub inputs: Vec<Prop>,
    /// A Swarm's or a ManagerWorkers' own outputs: the member talking with the user
    /// submits them in place of its own (wayflowcore's rule). Empty for one agent, and for
    /// a group that declares none (its member then submits its own).
    pub outputs: Vec<Prop>,
}

impl GroupPlan {
    /// The members `caller` may reach.
    pub fn recipients(&self, caller: usize) -> impl Iterator<Item = usize> + '_ {
        self.relationships
            .iter()
            .filter(move |(from, _)| *from == caller)
            .map(|(_, to)| *to)
    }
}

/// What a session runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Root {
    Flow(usize),
    /// A group of agents (one agent is a group of one), by index in `plan.groups`.
    Agent(usize),
}

/// A document compiled for execution.
#[derive(Debug)]
pub(crate) struct Plan {
    pub flows: Vec<FlowPlan>,
    pub agents: Vec<AgentPlan>,
    pub groups: Vec<GroupPlan>,
    pub tools: Vec<ToolPlan>,
    pub root: Root,
    /// The HTTP requests of the ApiNodes and RemoteTools.
    pub http: Vec<HttpCall>,
    /// The MCP servers of the MCPTools and MCPToolBoxes (none without the feature `mcp`,
    /// which refuses them at load).
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub mcp: Vec<McpServer>,
    /// The datastores of the transforms.
    pub datastores: Vec<DatastorePlan>,
    /// A digest of the document, which saved sessions name.
    pub digest: String,
    /// The API key of each model config that has one, by config id: a saved session keeps
    /// no secret, so a request read back from one gets its key here.
    pub api_keys: HashMap<String, Sensitive<String>>,
    /// The model configs the runtime's client cannot serve, by config id, with why, when
    /// the runtime checks them at the first call instead of at load
    /// (`RuntimeBuilder::check_models_at_load`).
    pub unserved: HashMap<String, String>,
}

/// What the planner needs to know of the runtime: which ServerTools it can run.
pub(crate) struct Available<'a> {
    pub toolbox: Vec<&'a str>,
    /// The host callback, when there is one: the names of its tools, when it gives them.
    pub host: Option<&'a Option<Vec<String>>>,
    pub llm: Option<&'a dyn crate::llm::LlmClient>,
    /// Whether a model config the client cannot serve is a load error (else a failure of
    /// the first call to it).
    pub check_models: bool,
    /// The component types a document may not hold.
    pub blocked: &'a std::collections::BTreeSet<String>,
}

/// The generation parameters as the JSON object a request carries.
fn generation_parameters(config: &LlmGenerationConfig) -> JsonObject {
    let mut out = JsonObject::new();
    if let Some(n) = config.max_tokens {
        out.insert("max_tokens".to_owned(), n.into());
    }
    for (key, value) in [("temperature", config.temperature), ("top_p", config.top_p)] {
        if let Some(x) = value.and_then(serde_json::Number::from_f64) {
            out.insert(key.to_owned(), Value::Number(x));
        }
    }
    for (key, value) in &config.extra {
        out.entry(key.clone()).or_insert_with(|| value.clone());
    }
    out
}

/// A config's `api_type`, as written.
fn api_type(value: &dyn std::any::Any) -> Option<String> {
    let written = |t: &OpenAIAPIType| match t {
        OpenAIAPIType::ChatCompletions => "chat_completions".to_owned(),
        OpenAIAPIType::Responses => "responses".to_owned(),
        other => format!("{other:?}"),
    };
    value
        .downcast_ref::<OpenAIAPIType>()
        .map(written)
        .or_else(|| {
            value
                .downcast_ref::<Option<OpenAIAPIType>>()?
                .as_ref()
                .map(written)
        })
}

/// Which nodes of a graph (`next[node]`: the nodes its edges go to) are on a cycle: those of
/// a strongly connected component of more than one node, or with an edge to themselves.
/// Tarjan's algorithm with a stack of its own, linear in nodes and edges at any depth.
fn on_cycles(next: &[Vec<usize>]) -> Vec<bool> {
    const UNSEEN: usize = usize::MAX;
    let n = next.len();
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut cycle = vec![false; n];
    let mut counter = 0;
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        // (node, how many of its edges were followed)
        let mut walk = vec![(root, 0)];
        index[root] = counter;
        low[root] = counter;
        counter += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (node, ref mut followed)) = walk.last_mut() {
            if let Some(&to) = next[node].get(*followed) {
                *followed += 1;
                if to >= n {
                    continue;
                }
                if to == node {
                    cycle[node] = true;
                }
                if index[to] == UNSEEN {
                    index[to] = counter;
                    low[to] = counter;
                    counter += 1;
                    stack.push(to);
                    on_stack[to] = true;
                    walk.push((to, 0));
                } else if on_stack[to] {
                    low[node] = low[node].min(index[to]);
                }
                continue;
            }
            walk.pop();
            if let Some(&(parent, _)) = walk.last() {
                low[parent] = low[parent].min(low[node]);
            }
            if low[node] == index[node] {
                let mut members = Vec::new();
                while let Some(member) = stack.pop() {
                    on_stack[member] = false;
                    members.push(member);
                    if member == node {
                        break;
                    }
                }
                if members.len() > 1 {
                    for member in members {
                        cycle[member] = true;
                    }
                }
            }
        }
    }
    cycle
}

struct Planner<'a> {
    resolved: &'a Resolved<'a>,
    available: &'a Available<'a>,
    flows: Vec<FlowPlan>,
    flow_ids: HashMap<String, usize>,
    agents: Vec<AgentPlan>,
    groups: Vec<GroupPlan>,
    /// The groups and agents planned, by component id.
    group_ids: HashMap<String, usize>,
    agent_ids: HashMap<String, usize>,
    tools: Vec<ToolPlan>,
    tool_ids: HashMap<String, usize>,
    http: Vec<HttpCall>,
    mcp: Vec<McpServer>,
    mcp_ids: HashMap<String, usize>,
    datastores: Vec<DatastorePlan>,
    datastore_ids: HashMap<String, usize>,
    problems: Vec<Diagnostic>,
    /// Whether an agent or a node calls a model.
    uses_llm: bool,
    /// The model configs the runtime's client was asked about.
    checked_models: HashSet<String>,
    api_keys: HashMap<String, Sensitive<String>>,
    unserved: HashMap<String, String>,
}

/// A problem of the component `id`. The plan reads pyagentspec's layout of the document,
/// whose pointers may differ from the document's: the pointer holds the id until
/// [`plan`] puts the component's pointer in the document loaded in its place.
fn problem(code: &'static str, message: String, id: &str) -> Diagnostic {
    Diagnostic::error(code, message, id, None)
}

impl<'a> Planner<'a> {
    fn flow(&mut self, flow: &'a Flow) -> usize {
        if let Some(&index) = self.flow_ids.get(&flow.id) {
            return index;
        }
        let index = self.flows.len();
        self.flow_ids.insert(flow.id.clone(), index);
        self.flows.push(FlowPlan {
            name: flow.name.clone(),
            inputs: Prop::all(flow.inputs.as_deref()),
            outputs: Prop::all(flow.outputs.as_deref()),
            start: 0,
            nodes: Vec::new(),
            by_name: flow.data_flow_connections.is_none(),
        });
        let mut nodes: Vec<&'a dyn ComponentInfo> = Vec::new();
        for position in &flow.nodes {
            match self.resolved.get(position) {
                Some(node) => nodes.push(node),
                None => self.problems.push(problem(
                    "unresolved-reference",
                    format!(
                        "a node of flow `{}` names a component that is not there",
                        flow.name
                    ),
                    &flow.id,
                )),
            }
        }
        // the nodes by where they are: an edge's end resolves to the very component, so
        // finding its node reads no id back from the document (at 10,000 nodes, a read
        // from memory per end)
        let at = |n: &dyn ComponentInfo| std::ptr::from_ref(n).cast::<()>() as usize;
        let by_place: foldhash::HashMap<usize, usize> =
            nodes.iter().enumerate().map(|(i, n)| (at(*n), i)).collect();
        let resolved = self.resolved;
        let index_of = |position: &'a RefOr<Node>| {
            resolved
                .get(position)
                .and_then(|n| by_place.get(&at(n)).copied())
        };
        let mut plans: Vec<NodePlan> = nodes.iter().map(|n| self.node(*n)).collect();
        let start = index_of(&flow.start_node).unwrap_or_else(|| {
            self.problems.push(problem(
                "unresolved-reference",
                format!(
                    "the start node of flow `{}` is not one of its nodes",
                    flow.name
                ),
                &flow.id,
            ));
            0
        });
        for edge in &flow.control_flow_connections {
            let Some(edge) = self
                .resolved
                .get_as::<agentspec_types::ControlFlowEdge, _>(edge)
            else {
                continue;
            };
            match (index_of(&edge.from_node), index_of(&edge.to_node)) {
                (Some(from), Some(to)) => {
                    let branch = edge
                        .from_branch
                        .clone()
                        .unwrap_or_else(|| "next".to_owned());
                    plans[from].next.push((branch, to));
                }
                _ => self.problems.push(problem(
                    "unresolved-reference",
                    format!(
                        "control edge `{}` joins nodes that are not in flow `{}`",
                        edge.name, flow.name
                    ),
                    &edge.id,
                )),
            }
        }
        // the data edges (when left out, values meet by name: `FlowPlan::by_name`)
        for edge in flow.data_flow_connections.iter().flatten() {
            let Some(edge) = self
                .resolved
                .get_as::<agentspec_types::DataFlowEdge, _>(edge)
            else {
                continue;
            };
            match (
                index_of(&edge.source_node),
                index_of(&edge.destination_node),
            ) {
                (Some(from), Some(to)) => plans[from].feeds.push(Feed {
                    output: edge.source_output.clone(),
                    node: to,
                    input: edge.destination_input.clone(),
                }),
                _ => self.problems.push(problem(
                    "unresolved-reference",
                    format!(
                        "data edge `{}` joins nodes that are not in flow `{}`",
                        edge.name, flow.name
                    ),
                    &edge.id,
                )),
            }
        }
        let next: Vec<Vec<usize>> = plans
            .iter()
            .map(|n| n.next.iter().map(|(_, to)| *to).collect())
            .collect();
        for (plan, again) in plans.iter_mut().zip(on_cycles(&next)) {
            plan.again = again;
        }
        let plan = &mut self.flows[index];
        plan.start = start;
        plan.nodes = plans;
        index
    }

    fn node(&mut self, node: &'a dyn ComponentInfo) -> NodePlan {
        let any = node.as_any();
        let kind = if any.is::<StartNode>() {
            Some(NodeKind::Start)
        } else if let Some(end) = any.downcast_ref::<EndNode>() {
            Some(NodeKind::End {
                branch: end.branch_name.clone(),
            })
        } else if let Some(tool_node) = any.downcast_ref::<ToolNode>() {
            self.tool(&tool_node.tool, node)
                .map(|tool| NodeKind::Tool { tool })
        } else if let Some(branching) = any.downcast_ref::<BranchingNode>() {
            Some(NodeKind::Branching {
                mapping: branching
                    .mapping
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            })
        } else if let Some(output) = any.downcast_ref::<OutputMessageNode>() {
            Some(NodeKind::OutputMessage {
                message: output.message.clone(),
            })
        } else if let Some(input) = any.downcast_ref::<InputMessageNode>() {
            Some(NodeKind::InputMessage {
                message: input.message.clone(),
            })
        } else if let Some(agent_node) = any.downcast_ref::<AgentNode>() {
            match self.resolved.get(&agent_node.agent) {
                Some(agentic) => self.group(agentic).map(|agent| NodeKind::Agent { agent }),
                None => {
                    self.problems.push(problem(
                        "unresolved-reference",
                        format!("the agent of node `{}` is not there", node.name()),
                        node.id(),
                    ));
                    None
                }
            }
        } else if let Some(api) = any.downcast_ref::<ApiNode>() {
            self.http_call(
                HttpParts {
                    name: &api.name,
                    id: &api.id,
                    url: &api.url,
                    method: &api.http_method,
                    data: &api.data,
                    query_params: &api.query_params,
                    headers: &api.headers,
                    sensitive_headers: &api.sensitive_headers,
                    url_allow_list: api.url_allow_list.as_ref(),
                    retry_policy: api.retry_policy.as_ref(),
                },
                "ApiNode",
            )
            .map(|call| NodeKind::Api { call })
        } else if let Some(map) = any.downcast_ref::<MapNode>() {
            self.map(node, &map.subflow, map.reducers.as_ref(), false)
        } else if let Some(map) = any.downcast_ref::<ParallelMapNode>() {
            self.map(node, &map.subflow, map.reducers.as_ref(), true)
        } else if let Some(parallel) = any.downcast_ref::<ParallelFlowNode>() {
            let flows: Vec<Option<usize>> = parallel
                .subflows
                .iter()
                .map(|subflow| self.subflow(subflow, node))
                .collect();
            let flows = flows.into_iter().collect::<Option<Vec<usize>>>();
            if let Some(flows) = &flows {
                self.parallel_flows(flows, node);
            }
            flows.map(|flows| NodeKind::ParallelFlow { flows })
        } else if let Some(catch) = any.downcast_ref::<CatchExceptionNode>() {
            self.subflow(&catch.subflow, node)
                .map(|flow| NodeKind::Catch { flow })
        } else if let Some(llm) = any.downcast_ref::<LlmNode>() {
            Some(NodeKind::Llm {
                prompt: llm.prompt_template.clone(),
                model: Box::new(self.model(&llm.llm_config, node)),
            })
        } else if let Some(flow_node) = any.downcast_ref::<FlowNode>() {
            match self.resolved.get_as::<Flow, _>(&flow_node.subflow) {
                Some(subflow) => Some(NodeKind::Flow {
                    flow: self.flow(subflow),
                }),
                None => {
                    self.problems.push(problem(
                        "unresolved-reference",
                        format!("the subflow of node `{}` is not there", node.name()),
                        node.id(),
                    ));
                    None
                }
            }
        } else {
            self.problems.push(problem(
                "unsupported-component",
                format!(
                    "node `{}` is a {}, which this runtime does not run yet",
                    node.name(),
                    node.component_type()
                ),
                node.id(),
            ));
            None
        };
        NodePlan {
            id: node.id().to_owned(),
            name: node.name().to_owned(),
            kind: kind.unwrap_or(NodeKind::Start),
            inputs: Prop::all(node.inputs()),
            outputs: Prop::all(node.outputs()),
            next: Vec::new(),
            feeds: Vec::new(),
            again: false,
        }
    }

    /// The subflow of a node, planned.
    fn subflow(&mut self, position: &'a RefOr<Flow>, node: &dyn ComponentInfo) -> Option<usize> {
        match self.resolved.get_as::<Flow, _>(position) {
            Some(subflow) => Some(self.flow(subflow)),
            None => {
                self.problems.push(problem(
                    "unresolved-reference",
                    format!("a subflow of node `{}` is not there", node.name()),
                    node.id(),
                ));
                None
            }
        }
    }

    /// The subflows of a ParallelFlowNode: no output of one may be another's (their outputs
    /// are merged), and an input they share has one type (one value feeds it). wayflowcore
    /// refuses both at load too; pyagentspec loads them.
    fn parallel_flows(&mut self, flows: &[usize], node: &dyn ComponentInfo) {
        let mut outputs: HashMap<&str, &str> = HashMap::new();
        let mut inputs: HashMap<&str, (&str, Option<&Value>)> = HashMap::new();
        let mut found = Vec::new();
        for &flow in flows {
            let plan = &self.flows[flow];
            for output in &plan.outputs {
                if let Some(first) = outputs.insert(&output.name, &plan.name) {
                    found.push(format!(
                        "subflows `{first}` and `{}` both give output `{}`",
                        plan.name, output.name
                    ));
                }
            }
            for input in &plan.inputs {
                let ty = input.schema.get("type");
                match inputs.get(input.name.as_str()) {
                    Some((first, first_ty)) if *first_ty != ty => found.push(format!(
                        "subflows `{first}` and `{}` take input `{}` with different types",
                        plan.name, input.name
                    )),
                    Some(_) => {}
                    None => {
                        inputs.insert(&input.name, (&plan.name, ty));
                    }
                }
            }
        }
        for message in found {
            self.problems.push(problem(
                "invalid-parallel-flow",
                format!("ParallelFlowNode `{}`: {message}", node.name()),
                node.id(),
            ));
        }
    }

    /// A MapNode or a ParallelMapNode: its inputs `iterated_x` feed the subflow's `x`, and
    /// its outputs `collected_y` collect the subflow's `y` (a name without the prefix feeds
    /// or collects the one of the same name).
    fn map(
        &mut self,
        node: &'a dyn ComponentInfo,
        subflow: &'a RefOr<Flow>,
        reducers: Option<&agentspec_types::IndexMap<String, ReductionMethod>>,
        parallel: bool,
    ) -> Option<NodeKind> {
        let flow = self.subflow(subflow, node)?;
        let plan = &self.flows[flow];
        let inner = |props: &[Prop], name: &str, prefix: &str| -> Option<String> {
            let stripped = name.strip_prefix(prefix).unwrap_or(name);
            [stripped, name]
                .into_iter()
                .find(|n| props.iter().any(|p| p.name == *n))
                .map(str::to_owned)
        };
        let mut inputs = Vec::new();
        for prop in Prop::all(node.inputs()) {
            match inner(&plan.inputs, &prop.name, "iterated_") {
                Some(to) => inputs.push((prop.name, to)),
                None => self.problems.push(problem(
                    "invalid-map",
                    format!(
                        "input `{}` of node `{}` feeds no input of its subflow `{}`",
                        prop.name,
                        node.name(),
                        plan.name
                    ),
                    node.id(),
                )),
            }
        }
        let mut outputs = Vec::new();
        for prop in Prop::all(node.outputs()) {
            match inner(&plan.outputs, &prop.name, "collected_") {
                Some(from) => {
                    let how = reducers
                        .and_then(|r| r.get(&from).or_else(|| r.get(&prop.name)))
                        .copied()
                        .unwrap_or(ReductionMethod::Append);
                    outputs.push((prop.name, from, how));
                }
                None => self.problems.push(problem(
                    "invalid-map",
                    format!(
                        "output `{}` of node `{}` collects no output of its subflow `{}`",
                        prop.name,
                        node.name(),
                        plan.name
                    ),
                    node.id(),
                )),
            }
        }
        Some(NodeKind::Map {
            flow,
            parallel,
            inputs,
            outputs,
        })
    }

    /// The agents an agentic component runs, as a group (by index in `plan.groups`).
    fn group(&mut self, component: &'a dyn ComponentInfo) -> Option<usize> {
        use agentspec_types::{HandoffMode, ManagerWorkers, SpecializedAgent, Swarm, SwarmHandoff};
        if let Some(&index) = self.group_ids.get(component.id()) {
            return Some(index);
        }
        let any = component.as_any();
        let (kind, members, relationships) = if any.is::<Agent>() || any.is::<SpecializedAgent>() {
            (
                GroupKind::Single,
                vec![self.member(component, component)?],
                Vec::new(),
            )
        } else if let Some(swarm) = any.downcast_ref::<Swarm>() {
            let (send, handoff) = match &swarm.handoff {
                SwarmHandoff::Bool(true) | SwarmHandoff::HandoffMode(HandoffMode::Optional) => {
                    (true, true)
                }
                SwarmHandoff::Bool(false) | SwarmHandoff::HandoffMode(HandoffMode::Never) => {
                    (true, false)
                }
                SwarmHandoff::HandoffMode(HandoffMode::Always) => (false, true),
                _ => (true, true),
            };
            let mut members = Vec::new();
            let mut index_of = |agent: usize| {
                members.iter().position(|m| *m == agent).unwrap_or_else(|| {
                    members.push(agent);
                    members.len() - 1
                })
            };
            let first = self.member_at(&swarm.first_agent, component)?;
            index_of(first);
            let mut relationships = Vec::new();
            for (caller, recipient) in &swarm.relationships {
                let (Some(caller), Some(recipient)) = (
                    self.member_at(caller, component),
                    self.member_at(recipient, component),
                ) else {
                    continue;
                };
                relationships.push((index_of(caller), index_of(recipient)));
            }
            (GroupKind::Swarm { send, handoff }, members, relationships)
        } else if let Some(group) = any.downcast_ref::<ManagerWorkers>() {
            let mut members = vec![self.member_at(&group.group_manager, component)?];
            for worker in &group.workers {
                if let Some(worker) = self.member_at(worker, component) {
                    members.push(worker);
                }
            }
            let relationships = (1..members.len()).map(|w| (0, w)).collect();
            (GroupKind::ManagerWorkers, members, relationships)
        } else {
            self.problems.push(problem(
                "unsupported-component",
                format!(
                    "`{}` is a {}: this runtime runs Agents, SpecializedAgents, Swarms and ManagerWorkers (remote agents are not run)",
                    component.name(),
                    component.component_type()
                ),
                component.id(),
            ));
            return None;
        };
        let single = kind == GroupKind::Single;
        self.groups.push(GroupPlan {
            name: component.name().to_owned(),
            kind,
            inputs: if single {
                self.agents[members[0]].inputs.clone()
            } else {
                Prop::all(component.inputs())
            },
            outputs: if single {
                Vec::new()
            } else {
                Prop::all(component.outputs())
            },
            members,
            relationships,
        });
        let index = self.groups.len() - 1;
        self.group_ids.insert(component.id().to_owned(), index);
        Some(index)
    }

    /// A member of a Swarm or a ManagerWorkers (`group`): an Agent or a SpecializedAgent.
    fn member_at(
        &mut self,
        position: &'a RefOr<agentspec_types::AgenticComponent>,
        group: &dyn ComponentInfo,
    ) -> Option<usize> {
        let Some(member) = self.resolved.get(position) else {
            self.problems.push(problem(
                "unresolved-reference",
                format!("a member of `{}` is not there", group.name()),
                group.id(),
            ));
            return None;
        };
        self.member(member, group)
    }

    /// An Agent or a SpecializedAgent, by index in `plan.agents`.
    fn member(
        &mut self,
        member: &'a dyn ComponentInfo,
        group: &dyn ComponentInfo,
    ) -> Option<usize> {
        use agentspec_types::{AgentSpecializationParameters, SpecializedAgent};
        if let Some(&index) = self.agent_ids.get(member.id()) {
            return Some(index);
        }
        let any = member.as_any();
        let index = if let Some(agent) = any.downcast_ref::<Agent>() {
            self.agent(agent)
        } else if let Some(special) = any.downcast_ref::<SpecializedAgent>() {
            let base = self.resolved.get_as::<Agent, _>(&special.agent)?;
            let base = self.agent(base);
            let parameters = self.resolved.get_as::<AgentSpecializationParameters, _>(
                &special.agent_specialization_parameters,
            )?;
            let mut plan = self.agents[base].clone();
            plan.name = special.name.clone();
            if special.description.is_some() {
                plan.description = special.description.clone();
            }
            if let Some(more) = &parameters.additional_instructions {
                plan.system_prompt = format!("{}\n\n{more}", plan.system_prompt);
            }
            for tool in parameters.additional_tools.iter().flatten() {
                if let Some(tool) = self.tool(tool, member)
                    && !plan.tools.contains(&tool)
                {
                    plan.tools.push(tool);
                }
            }
            if let Some(hitl) = parameters.human_in_the_loop {
                plan.human_in_the_loop = hitl;
            }
            let declared = Prop::all(special.inputs.as_deref());
            for input in declared
                .into_iter()
                .chain(Prop::all(parameters.inputs.as_deref()))
            {
                if !plan.inputs.iter().any(|p| p.name == input.name) {
                    plan.inputs.push(input);
                }
            }
            self.agents.push(plan);
            self.agents.len() - 1
        } else {
            self.problems.push(problem(
                "unsupported-component",
                format!(
                    "`{}` in `{}` is a {}: the members this runtime runs are Agents and SpecializedAgents",
                    member.name(),
                    group.name(),
                    member.component_type()
                ),
                member.id(),
            ));
            return None;
        };
        self.agent_ids.insert(member.id().to_owned(), index);
        Some(index)
    }

    fn agent(&mut self, agent: &'a Agent) -> usize {
        if let Some(&index) = self.agent_ids.get(&agent.id) {
            return index;
        }
        let tools = agent
            .tools
            .iter()
            .filter_map(|t| self.tool(t, agent))
            .collect();
        let mut toolboxes = Vec::new();
        for position in &agent.toolboxes {
            let Some(toolbox) = self.resolved.get(position) else {
                self.problems.push(problem(
                    "unresolved-reference",
                    format!("a toolbox of agent `{}` is not there", agent.name),
                    &agent.id,
                ));
                continue;
            };
            let Some(mcp) = toolbox.as_any().downcast_ref::<MCPToolBox>() else {
                self.problems.push(problem(
                    "unsupported-component",
                    format!(
                        "toolbox `{}` is a {}, which this runtime does not run",
                        toolbox.name(),
                        toolbox.component_type()
                    ),
                    toolbox.id(),
                ));
                continue;
            };
            let Some(server) = self.transport(&mcp.client_transport, toolbox) else {
                continue;
            };
            let filter = mcp.tool_filter.as_ref().map(|items| {
                items
                    .iter()
                    .filter_map(|item| match item {
                        MCPToolBoxToolFilter::String(name) => Some(FilterItem::Name(name.clone())),
                        MCPToolBoxToolFilter::MCPToolSpec(spec) => {
                            let spec = self.resolved.get_as::<MCPToolSpec, _>(spec)?;
                            Some(FilterItem::Spec {
                                name: spec.name.clone(),
                                description: spec.description.clone(),
                                inputs: Prop::all(spec.inputs.as_deref()),
                                requires_confirmation: spec.requires_confirmation,
                            })
                        }
                    })
                    .collect()
            });
            toolboxes.push(ToolboxPlan {
                name: mcp.name.clone(),
                server,
                filter,
                requires_confirmation: mcp.requires_confirmation,
            });
        }
        let transforms = agent
            .transforms
            .iter()
            .filter_map(|t| self.transform(t, agent))
            .collect();
        let model = self.model(&agent.llm_config, agent);
        self.agents.push(AgentPlan {
            name: agent.name.clone(),
            description: agent.description.clone(),
            system_prompt: agent.system_prompt.clone(),
            inputs: Prop::all(agent.inputs.as_deref()),
            outputs: Prop::all(agent.outputs.as_deref()),
            tools,
            toolboxes,
            transforms,
            human_in_the_loop: agent.human_in_the_loop,
            model,
        });
        self.agent_ids
            .insert(agent.id.clone(), self.agents.len() - 1);
        self.agents.len() - 1
    }

    /// The model an agent or an LlmNode (`owner`) calls.
    fn model(&mut self, position: &'a RefOr<AnyLlmConfig>, owner: &dyn ComponentInfo) -> ModelInfo {
        self.uses_llm = true;
        let Some(config) = self.resolved.get(position) else {
            self.problems.push(problem(
                "unresolved-reference",
                format!("the LLM config of `{}` is not there", owner.name()),
                owner.id(),
            ));
            return ModelInfo::default();
        };
        let text = |key: &str| {
            let value = config.field(key)?;
            value
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| value.downcast_ref::<Option<String>>().cloned().flatten())
        };
        let api_key = config.field("api_key").and_then(|value| {
            value
                .downcast_ref::<Option<Sensitive<String>>>()
                .cloned()
                .flatten()
                .or_else(|| value.downcast_ref::<Sensitive<String>>().cloned())
        });
        let generation = config
            .field("default_generation_parameters")
            .and_then(|v| v.downcast_ref::<Option<LlmGenerationConfig>>())
            .and_then(Option::as_ref)
            .map(generation_parameters)
            .unwrap_or_default();
        let info = ModelInfo {
            config_type: config.component_type().to_owned(),
            config_id: config.id().to_owned(),
            name: config.name().to_owned(),
            model_id: text("model_id").unwrap_or_default(),
            url: text("url"),
            api_type: config.field("api_type").and_then(api_type),
            api_provider: text("api_provider"),
            generation,
            api_key,
            retry: config
                .field("retry_policy")
                .and_then(|v| v.downcast_ref::<Option<agentspec_types::RetryPolicy>>())
                .and_then(Option::as_ref)
                .map(|p| {
                    let r = Retry::from_policy(Some(p));
                    crate::llm::RetrySettings {
                        retries: r.retries,
                        initial_delay: r.initial_delay,
                        max_delay: r.max_delay,
                        backoff_factor: r.factor,
                        request_timeout: p.request_timeout,
                    }
                }),
        };
        if let Some(key) = &info.api_key {
            self.api_keys.insert(info.config_id.clone(), key.clone());
        }
        if let Some(llm) = self.available.llm
            && self.checked_models.insert(info.config_id.clone())
            && let Err(e) = llm.check(&info)
        {
            if !self.available.check_models {
                self.unserved.insert(info.config_id.clone(), e.to_string());
                return info;
            }
            self.problems.push(problem(
                "llm-unsupported",
                format!("the LLM config `{}` cannot be served: {e}", info.name),
                &info.config_id,
            ));
        }
        info
    }

    fn tool(&mut self, position: &'a RefOr<Tool>, node: &dyn ComponentInfo) -> Option<usize> {
        let Some(tool) = self.resolved.get(position) else {
            self.problems.push(problem(
                "unresolved-reference",
                format!("the tool of node `{}` is not there", node.name()),
                node.id(),
            ));
            return None;
        };
        if let Some(&index) = self.tool_ids.get(tool.id()) {
            return Some(index);
        }
        let any = tool.as_any();
        let (place, requires_confirmation) = if let Some(server) = any.downcast_ref::<ServerTool>()
        {
            let place = if self.available.toolbox.contains(&server.name.as_str()) {
                ToolPlace::Toolbox
            } else if let Some(host) = self.available.host
                && host
                    .as_ref()
                    .is_none_or(|names| names.contains(&server.name))
            {
                ToolPlace::Host
            } else {
                let mut names = self.available.toolbox.clone();
                let host = self.available.host.and_then(Option::as_ref);
                names.extend(host.into_iter().flatten().map(String::as_str));
                names.sort_unstable();
                let list = if names.is_empty() {
                    "no tools".to_owned()
                } else {
                    names
                        .iter()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let message = match self.available.host {
                    None => format!(
                        "ServerTool `{}` has no implementation: the toolbox has {list}, and no host callback is set",
                        server.name
                    ),
                    Some(_) => format!(
                        "ServerTool `{}` has no implementation: the toolbox and the host have {list}",
                        server.name
                    ),
                };
                self.problems
                    .push(problem("missing-tool", message, &server.id));
                return None;
            };
            (place, server.requires_confirmation)
        } else if let Some(client) = any.downcast_ref::<ClientTool>() {
            (ToolPlace::Client, client.requires_confirmation)
        } else if let Some(mcp) = any.downcast_ref::<MCPTool>() {
            let server = self.transport(&mcp.client_transport, tool)?;
            (ToolPlace::Mcp(server), mcp.requires_confirmation)
        } else if let Some(remote) = any.downcast_ref::<RemoteTool>() {
            let call = self.http_call(
                HttpParts {
                    name: &remote.name,
                    id: &remote.id,
                    url: &remote.url,
                    method: &remote.http_method,
                    data: &remote.data,
                    query_params: &remote.query_params,
                    headers: &remote.headers,
                    sensitive_headers: &remote.sensitive_headers,
                    url_allow_list: remote.url_allow_list.as_ref(),
                    retry_policy: remote.retry_policy.as_ref(),
                },
                "RemoteTool",
            )?;
            (ToolPlace::Remote(call), remote.requires_confirmation)
        } else {
            self.problems.push(problem(
                "unsupported-component",
                format!(
                    "tool `{}` is a {}, which this runtime does not run yet",
                    tool.name(),
                    tool.component_type()
                ),
                tool.id(),
            ));
            return None;
        };
        let index = self.tools.len();
        self.tool_ids.insert(tool.id().to_owned(), index);
        let description = tool
            .field("description")
            .and_then(|d| d.downcast_ref::<Option<String>>())
            .cloned()
            .flatten()
            .unwrap_or_default();
        self.tools.push(ToolPlan {
            name: tool.name().to_owned(),
            description,
            inputs: Prop::all(tool.inputs()),
            outputs: Prop::all(tool.outputs()),
            place,
            requires_confirmation,
        });
        Some(index)
    }
}

/// The fields of the HTTP transports of MCP that the plan reads.
struct McpHttpParts<'t> {
    /// HTTP with SSE (else streamable HTTP).
    sse: bool,
    url: &'t str,
    headers: &'t Option<agentspec_types::IndexMap<String, String>>,
    sensitive_headers: &'t Option<Sensitive<agentspec_types::IndexMap<String, String>>>,
    retry_policy: Option<&'t agentspec_types::RetryPolicy>,
    timeout: f64,
    /// It has an `auth`.
    auth: bool,
    /// mTLS: `key_file`, `cert_file` and `ca_file`.
    files: Option<[&'t Sensitive<String>; 3]>,
}

/// The fields of an ApiNode or a RemoteTool that make its request.
struct HttpParts<'a> {
    name: &'a str,
    id: &'a str,
    url: &'a str,
    method: &'a str,
    data: &'a Value,
    query_params: &'a JsonObject,
    headers: &'a JsonObject,
    sensitive_headers: &'a Sensitive<JsonObject>,
    url_allow_list: Option<&'a Vec<String>>,
    retry_policy: Option<&'a agentspec_types::RetryPolicy>,
}

impl<'a> Planner<'a> {
    /// A transform of the agent `owner`.
    fn transform(
        &mut self,
        position: &'a RefOr<agentspec_types::MessageTransform>,
        owner: &dyn ComponentInfo,
    ) -> Option<TransformPlan> {
        use agentspec_types::{ConversationSummarizationTransform, MessageSummarizationTransform};
        let Some(transform) = self.resolved.get(position) else {
            self.problems.push(problem(
                "unresolved-reference",
                format!("a transform of `{}` is not there", owner.name()),
                owner.id(),
            ));
            return None;
        };
        let count = |n: i64| usize::try_from(n.max(0)).unwrap_or(usize::MAX);
        let any = transform.as_any();
        let (llm, instructions, kind, cache) =
            if let Some(t) = any.downcast_ref::<MessageSummarizationTransform>() {
                (
                    &t.llm,
                    &t.summarization_instructions,
                    TransformKind::Message {
                        max_message_size: count(t.max_message_size),
                        template: t.summarized_message_template.clone(),
                    },
                    (
                        t.datastore.as_ref(),
                        &t.cache_collection_name,
                        t.max_cache_size,
                        t.max_cache_lifetime,
                    ),
                )
            } else if let Some(t) = any.downcast_ref::<ConversationSummarizationTransform>() {
                (
                    &t.llm,
                    &t.summarization_instructions,
                    TransformKind::Conversation {
                        max_num_messages: t.max_num_messages.map(count),
                        max_num_characters: t.max_num_characters.map(count),
                        min_num_messages: count(t.min_num_messages),
                        template: t.summarized_conversation_template.clone(),
                    },
                    (
                        t.datastore.as_ref(),
                        &t.cache_collection_name,
                        t.max_cache_size,
                        t.max_cache_lifetime,
                    ),
                )
            } else {
                self.problems.push(problem(
                    "unsupported-component",
                    format!(
                        "transform `{}` is a {}, which this runtime does not run",
                        transform.name(),
                        transform.component_type()
                    ),
                    transform.id(),
                ));
                return None;
            };
        let model = self.model(llm, transform);
        let (datastore, collection, max_size, lifetime) = cache;
        let datastore = match datastore {
            Some(d) => Some(self.datastore(d, transform)?),
            None => None,
        };
        if !collection
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
            || collection.is_empty()
        {
            self.problems.push(problem(
                "invalid-transform",
                format!(
                    "the cache_collection_name `{collection}` of transform `{}` is not a plain name (letters, digits and `_`)",
                    transform.name()
                ),
                transform.id(),
            ));
            return None;
        }
        Some(TransformPlan {
            name: transform.name().to_owned(),
            model,
            instructions: instructions.clone(),
            kind,
            cache: CachePlan {
                datastore,
                collection: collection.clone(),
                max_size: max_size.map(|n| u64::try_from(n.max(0)).unwrap_or(0)),
                lifetime: lifetime.map(|n| n as f64),
            },
        })
    }

    /// A datastore, by index in `plan.datastores`.
    fn datastore(
        &mut self,
        position: &'a RefOr<agentspec_types::Datastore>,
        owner: &dyn ComponentInfo,
    ) -> Option<usize> {
        use agentspec_types::{
            InMemoryCollectionDatastore, PostgresDatabaseDatastore,
            TlsPostgresDatabaseConnectionConfig, TlsPostgresDatabaseConnectionConfigSslmode as Ssl,
        };
        let Some(datastore) = self.resolved.get(position) else {
            self.problems.push(problem(
                "unresolved-reference",
                format!("the datastore of `{}` is not there", owner.name()),
                owner.id(),
            ));
            return None;
        };
        if let Some(&index) = self.datastore_ids.get(datastore.id()) {
            return Some(index);
        }
        let any = datastore.as_any();
        let plan = if any.is::<InMemoryCollectionDatastore>() {
            DatastorePlan::Memory {
                id: datastore.id().to_owned(),
            }
        } else if let Some(pg) = any.downcast_ref::<PostgresDatabaseDatastore>() {
            if !cfg!(feature = "postgres") {
                self.problems.push(problem(
                    "unsupported-component",
                    format!(
                        "datastore `{}` is a PostgresDatabaseDatastore, and this runtime was built without PostgreSQL (agentspec-runtime's feature `postgres`)",
                        pg.name
                    ),
                    &pg.id,
                ));
                return None;
            }
            let config = self
                .resolved
                .get_as::<TlsPostgresDatabaseConnectionConfig, _>(&pg.connection_config)?;
            let secret = |value: &Sensitive<String>, field: &str| match value.value() {
                Ok(v) => Ok(v.clone()),
                Err(missing) => Err(problem(
                    "missing-secret",
                    format!("the {field} of `{}`: {missing}", config.name),
                    &config.id,
                )),
            };
            let key = config
                .sslkey
                .as_ref()
                .map(|key| secret(key, "sslkey"))
                .transpose();
            let (user, password, key) = match (
                secret(&config.user, "user"),
                secret(&config.password, "password"),
                key,
            ) {
                (Ok(u), Ok(p), Ok(k)) => (u, p, k),
                (u, p, k) => {
                    self.problems.extend(u.err());
                    self.problems.extend(p.err());
                    self.problems.extend(k.err());
                    return None;
                }
            };
            let Some((host, port, dbname)) = PgConfig::parse_url(&config.url) else {
                self.problems.push(problem(
                    "invalid-datastore",
                    format!(
                        "the url of `{}` is not `host[:port][/database]`",
                        config.name
                    ),
                    &config.id,
                ));
                return None;
            };
            DatastorePlan::Postgres(Box::new(PgConfig {
                name: pg.name.clone(),
                host,
                port,
                dbname: dbname.unwrap_or_else(|| user.clone()),
                user,
                password,
                tls: PgTls {
                    mode: match config.sslmode {
                        Ssl::Disable => SslMode::Disable,
                        Ssl::Allow => SslMode::Allow,
                        Ssl::Prefer => SslMode::Prefer,
                        Ssl::Require => SslMode::Require,
                        Ssl::VerifyCa => SslMode::VerifyCa,
                        // a mode a later Agent Spec adds: checked as strictly as any
                        _ => SslMode::VerifyFull,
                    },
                    rootcert: config.sslrootcert.clone(),
                    cert: config.sslcert.clone(),
                    key,
                    crl: config.sslcrl.clone(),
                },
            }))
        } else {
            self.problems.push(problem(
                "unsupported-component",
                format!(
                    "datastore `{}` is a {}, which this runtime does not reach",
                    datastore.name(),
                    datastore.component_type()
                ),
                datastore.id(),
            ));
            return None;
        };
        self.datastores.push(plan);
        self.datastore_ids
            .insert(datastore.id().to_owned(), self.datastores.len() - 1);
        Some(self.datastores.len() - 1)
    }

    /// An HTTP transport planned, or `None` with the problem noted.
    fn http_transport(
        &mut self,
        parts: &McpHttpParts<'_>,
        transport: &dyn ComponentInfo,
    ) -> Option<McpTransport> {
        if parts.auth {
            // connecting without it would send what the server refuses, or worse, accepts
            self.problems.push(problem(
                "unsupported-component",
                format!(
                    "`{}` has an `auth`, which this runtime does not speak yet: give its credentials in `sensitive_headers`",
                    transport.name()
                ),
                transport.id(),
            ));
            return None;
        }
        let headers = self.transport_headers(parts.headers, parts.sensitive_headers, transport)?;
        let tls = match parts.files {
            None => None,
            Some(files) => {
                let mut paths = Vec::with_capacity(3);
                for (file, field) in files.into_iter().zip(["key_file", "cert_file", "ca_file"]) {
                    match file.value() {
                        Ok(path) => paths.push(path.clone()),
                        Err(missing) => self.problems.push(problem(
                            "missing-secret",
                            format!("the {field} of `{}`: {missing}", transport.name()),
                            transport.id(),
                        )),
                    }
                }
                let [key_file, cert_file, ca_file] = <[String; 3]>::try_from(paths).ok()?;
                Some(McpTls {
                    key_file,
                    cert_file,
                    ca_file,
                })
            }
        };
        let url = parts.url.to_owned();
        Some(if parts.sse {
            McpTransport::Sse { url, headers, tls }
        } else {
            McpTransport::Http { url, headers, tls }
        })
    }

    /// An HTTP transport's `headers` and `sensitive_headers` (secrets, never saved), or
    /// `None` with the problem noted when the secrets are missing.
    fn transport_headers(
        &mut self,
        headers: &Option<agentspec_types::IndexMap<String, String>>,
        sensitive: &Option<Sensitive<agentspec_types::IndexMap<String, String>>>,
        transport: &dyn ComponentInfo,
    ) -> Option<Vec<(String, String)>> {
        let mut all: Vec<(String, String)> = headers
            .iter()
            .flatten()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if let Some(sensitive) = sensitive {
            match sensitive.value() {
                Ok(map) => all.extend(map.iter().map(|(k, v)| (k.clone(), v.clone()))),
                Err(missing) => {
                    self.problems.push(problem(
                        "missing-secret",
                        format!("the sensitive_headers of `{}`: {missing}", transport.name()),
                        transport.id(),
                    ));
                    return None;
                }
            }
        }
        Some(all)
    }

    /// The MCP server of an MCPTool or an MCPToolBox (`owner`), by index in `plan.mcp`.
    fn transport(
        &mut self,
        position: &'a RefOr<ClientTransport>,
        owner: &dyn ComponentInfo,
    ) -> Option<usize> {
        let Some(transport) = self.resolved.get(position) else {
            self.problems.push(problem(
                "unresolved-reference",
                format!("the client_transport of `{}` is not there", owner.name()),
                owner.id(),
            ));
            return None;
        };
        if let Some(&index) = self.mcp_ids.get(transport.id()) {
            return Some(index);
        }
        if !cfg!(feature = "mcp") {
            self.problems.push(problem(
                "unsupported-component",
                format!(
                    "`{}` reaches an MCP server, and this runtime was built without MCP (agentspec-runtime's feature `mcp`)",
                    owner.name()
                ),
                owner.id(),
            ));
            return None;
        }
        let any = transport.as_any();
        let mut retry = Retry {
            retries: 1,
            initial_delay: 0.0,
            ..Retry::default()
        };
        // the four HTTP transports: streamable or SSE, each with or without mTLS (the same
        // fields, in four structs)
        macro_rules! parts {
            ($t:expr, $sse:expr, $files:expr) => {
                McpHttpParts {
                    sse: $sse,
                    url: &$t.url,
                    headers: &$t.headers,
                    sensitive_headers: &$t.sensitive_headers,
                    retry_policy: $t.retry_policy.as_ref(),
                    timeout: $t.session_parameters.read_timeout_seconds,
                    auth: $t.auth.is_some(),
                    files: $files,
                }
            };
        }
        let http = if let Some(t) = any.downcast_ref::<StreamableHTTPTransport>() {
            Some(parts!(t, false, None))
        } else if let Some(t) = any.downcast_ref::<SSETransport>() {
            Some(parts!(t, true, None))
        } else if let Some(t) = any.downcast_ref::<StreamableHTTPmTLSTransport>() {
            Some(parts!(
                t,
                false,
                Some([&t.key_file, &t.cert_file, &t.ca_file])
            ))
        } else {
            any.downcast_ref::<SSEmTLSTransport>()
                .map(|t| parts!(t, true, Some([&t.key_file, &t.cert_file, &t.ca_file])))
        };
        let (transport_kind, timeout) = if let Some(parts) = http {
            if let Some(policy) = parts.retry_policy {
                retry = Retry::from_policy(Some(policy));
            }
            (self.http_transport(&parts, transport)?, parts.timeout)
        } else if let Some(stdio) = any.downcast_ref::<StdioTransport>() {
            (
                McpTransport::Stdio {
                    command: stdio.command.clone(),
                    args: stdio.args.clone(),
                    env: stdio
                        .env
                        .iter()
                        .flatten()
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect(),
                    cwd: stdio.cwd.clone(),
                },
                stdio.session_parameters.read_timeout_seconds,
            )
        } else {
            self.problems.push(problem(
                "unsupported-component",
                format!(
                    "`{}` is a {}: this runtime reaches MCP servers over streamable HTTP, HTTP with SSE (each with or without mTLS) and stdio",
                    transport.name(),
                    transport.component_type()
                ),
                transport.id(),
            ));
            return None;
        };
        self.mcp.push(McpServer {
            name: transport.name().to_owned(),
            transport: transport_kind,
            timeout: if timeout > 0.0 { timeout } else { 60.0 },
            retry,
        });
        self.mcp_ids
            .insert(transport.id().to_owned(), self.mcp.len() - 1);
        Some(self.mcp.len() - 1)
    }

    /// The request of an ApiNode or a RemoteTool (`kind`), by index in `plan.http`.
    fn http_call(&mut self, parts: HttpParts<'_>, kind: &str) -> Option<usize> {
        if !cfg!(feature = "http") {
            self.problems.push(problem(
                "unsupported-component",
                format!(
                    "{kind} `{}` makes HTTP requests, and this runtime was built without them (agentspec-runtime's feature `http`)",
                    parts.name
                ),
                parts.id,
            ));
            return None;
        }
        let sensitive_headers = match parts.sensitive_headers.value() {
            Ok(headers) => headers.clone(),
            Err(missing) => {
                self.problems.push(problem(
                    "missing-secret",
                    format!(
                        "the sensitive_headers of {kind} `{}`: {missing}",
                        parts.name
                    ),
                    parts.id,
                ));
                return None;
            }
        };
        if let Some(both) = sensitive_headers
            .keys()
            .find(|k| parts.headers.keys().any(|h| h.eq_ignore_ascii_case(k)))
        {
            self.problems.push(problem(
                "invalid-http-call",
                format!(
                    "{kind} `{}` has header `{both}` in both headers and sensitive_headers",
                    parts.name
                ),
                parts.id,
            ));
            return None;
        }
        self.http.push(HttpCall {
            name: parts.name.to_owned(),
            url: parts.url.to_owned(),
            method: parts.method.to_owned(),
            data: parts.data.clone(),
            query_params: parts.query_params.clone(),
            headers: parts.headers.clone(),
            sensitive_headers,
            url_allow_list: parts.url_allow_list.cloned(),
            retry: Retry::from_policy(parts.retry_policy),
        });
        Some(self.http.len() - 1)
    }
}

/// Compiles `doc` (pyagentspec's layout of it, with what it leaves out inferred).
pub(crate) fn plan(doc: &Document, available: &Available<'_>) -> Result<Plan, Vec<Diagnostic>> {
    // what pyagentspec wrote has what it infers filled in already: read as it is (and the
    // text the digest is of is written in the same walk that finds so, and digested piece
    // by piece as it is written, never held whole)
    let mut pieces = Digest::new();
    let checked = doc.write_checked_to(Output::JsonCompact, &WriteOptions::new(), |piece| {
        pieces.update(piece);
    });
    let relaid;
    let (laid_out, digest) = if checked.is_as_pyagentspec_writes {
        (doc, pieces.finish())
    } else {
        relaid = doc.as_pyagentspec_writes().map_err(|e| e.diagnostics)?;
        (&relaid, digest(&relaid.to_json_compact()))
    };
    let resolved = laid_out.resolve();
    let mut planner = Planner {
        resolved: &resolved,
        available,
        flows: Vec::new(),
        flow_ids: HashMap::new(),
        agents: Vec::new(),
        groups: Vec::new(),
        group_ids: HashMap::new(),
        agent_ids: HashMap::new(),
        tools: Vec::new(),
        tool_ids: HashMap::new(),
        http: Vec::new(),
        mcp: Vec::new(),
        mcp_ids: HashMap::new(),
        datastores: Vec::new(),
        datastore_ids: HashMap::new(),
        problems: Vec::new(),
        uses_llm: false,
        checked_models: HashSet::new(),
        api_keys: HashMap::new(),
        unserved: HashMap::new(),
    };
    for &component in resolved.components() {
        if available.blocked.contains(component.component_type()) {
            planner.problems.push(problem(
                "blocked-component",
                format!(
                    "`{}` is a {}, which this runtime is not allowed to run (RuntimeBuilder::allow_component_type)",
                    component.name(),
                    component.component_type()
                ),
                component.id(),
            ));
        }
    }
    let root = match laid_out.root() {
        Component::Flow(flow) => Root::Flow(planner.flow(flow)),
        Component::Agent(_)
        | Component::Swarm(_)
        | Component::ManagerWorkers(_)
        | Component::SpecializedAgent(_) => {
            let root: &dyn ComponentInfo = laid_out.root();
            Root::Agent(planner.group(root).unwrap_or(0))
        }
        other => {
            planner.problems.push(problem(
                "unsupported-component",
                format!(
                    "the document's root is a {}; this runtime runs flows and agents so far",
                    other.component_type()
                ),
                other.id(),
            ));
            Root::Flow(0)
        }
    };
    if planner.uses_llm && available.llm.is_none() {
        planner.problems.push(problem(
            "missing-llm",
            "the document calls a model (an agent or an LlmNode), and the runtime has none (RuntimeBuilder::llm)"
                .to_owned(),
            laid_out.root().id(),
        ));
    }
    if !planner.problems.is_empty() {
        let mut at: HashMap<&str, String> = HashMap::new();
        for (pointer, component) in doc.components_at() {
            at.entry(component.id()).or_insert(pointer);
        }
        let mut problems = planner.problems;
        for d in &mut problems {
            d.pointer = at.get(d.pointer.as_str()).cloned().unwrap_or_default();
        }
        return Err(problems);
    }
    Ok(Plan {
        flows: planner.flows,
        agents: planner.agents,
        groups: planner.groups,
        tools: planner.tools,
        root,
        http: planner.http,
        mcp: planner.mcp,
        datastores: planner.datastores,
        digest,
        api_keys: planner.api_keys,
        unserved: planner.unserved,
    })
}

#[cfg(test)]
mod tests {
    use super::on_cycles;

    #[test]
    fn the_nodes_on_a_cycle_are_found_at_any_depth() {
        // 0 → 1 → 2 → 1 (a loop), 2 → 3 → 3 (a self-loop), 4 → 5: a chain
        let next = vec![
            vec![1],
            vec![2],
            vec![1, 3],
            vec![3],
            vec![5],
            vec![],
            vec![99],
        ];
        assert_eq!(
            on_cycles(&next),
            [false, true, true, true, false, false, false]
        );
        // a chain of 100,000 nodes needs no deep call stack, and a ring of them is one cycle
        let n = 100_000;
        let mut chain: Vec<Vec<usize>> = (1..n).map(|to| vec![to]).collect();
        chain.push(vec![]);
        assert!(on_cycles(&chain).iter().all(|on| !on));
        chain[n - 1] = vec![0];
        assert!(on_cycles(&chain).iter().all(|on| *on));
    }
}
