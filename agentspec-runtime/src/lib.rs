//! Runs Open Agent Spec documents in Rust.
//!
//! A [`Runtime`] holds what documents run with: the tools written in Rust (a
//! [`Toolbox`]), a host callback for ServerTools whose code lives elsewhere, the model
//! agents call (an [`llm::LlmClient`]), and limits.
//! [`Runtime::load`] compiles a document once, reporting at once every ServerTool without
//! an implementation and every component it cannot run. [`Loaded::start`] begins a
//! [`Session`], whose [`Session::run`] runs until the session finishes or needs the caller:
//! a user message, the results of client tools, or a decision on a call that requires
//! confirmation. The caller answers with [`Session::append_user_message`],
//! [`Session::append_tool_result`], [`Session::confirm`] or [`Session::reject`], and calls
//! `run` again. Between two calls the whole state is plain data: [`Session::save`] gives a
//! [`SavedSession`] (serde), which [`Loaded::resume`] continues, in another process too.
//!
//! ```
//! use agentspec_runtime::{Runtime, Status};
//! use agentspec_types::{Document, Toolbox, tool};
//!
//! /// Adds one.
//! #[tool]
//! fn inc(x: i64) -> i64 {
//!     x + 1
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/inc_twice.json");
//! let doc = Document::from_path(path)?; // Start(x) → inc → inc → End(x)
//! let runtime = Runtime::builder().toolbox(Toolbox::new().with(IncTool)?).build();
//! let loaded = runtime.load(&doc)?;
//! let mut session = loaded.start(serde_json::json!({"x": 1}))?;
//! let status = agentspec_types::tool::block_on(session.run())?;
//! let Status::Finished { outputs, .. } = status else { panic!("{status:?}") };
//! assert_eq!(outputs["x"], 3);
//! # Ok(())
//! # }
//! ```
//!
//! # What runs
//!
//! - Every node of the spec: StartNode, EndNode, ToolNode, BranchingNode, LlmNode,
//!   AgentNode, FlowNode, ApiNode, MapNode, ParallelMapNode, ParallelFlowNode,
//!   InputMessageNode, OutputMessageNode and CatchExceptionNode (nested flows and agents
//!   pause inside them too; the flows a MapNode or a parallel node runs cannot pause).
//! - Agents (Agent, SpecializedAgent) and groups of agents (Swarm, ManagerWorkers), at the
//!   root of the document or in an AgentNode, with ServerTools (Rust or the host's),
//!   ClientTools, RemoteTools, MCPTools and MCPToolBoxes (feature `mcp`), confirmations,
//!   `human_in_the_loop`, outputs and summarization transforms (caches in memory, or in
//!   PostgreSQL with feature `postgres`, over TLS as `sslmode` asks), against any
//!   [`llm::LlmClient`] ([`llm::ScriptedLlm`] answers from a script).
//! - Models behind an OpenAI-compatible chat-completions endpoint (OpenAiCompatibleConfig,
//!   VllmConfig, OllamaConfig, OpenAiConfig, GeminiConfig, a generic LlmConfig with a url):
//!   `openai::OpenAiClient` (feature `http`, on by default; https through rustls, feature
//!   `rustls`), with streaming, structured output, generation parameters, keys from the
//!   document's secrets, timeouts and retries. A config it cannot serve is a load error
//!   (`llm-unsupported`) naming the config.
//! - Not run, each refused at load naming it: remote agents (A2AAgent, OciAgent),
//!   BuiltinTools, OCI GenAI models, the OpenAI Responses API, and MCP transports with an
//!   `auth` (their credentials go in `sensitive_headers`).
//!
//! [`guide`] has the rest: every choice where the spec and wayflowcore part ways, groups of
//! agents, transforms, the JSON-lines protocol of `agentspec serve`, and the conformance
//! suite's results.
//!
//! # How a flow runs
//!
//! - A node runs with its inputs: the values data edges gave it (the last node to write one
//!   wins), else the property's `default`, cast to the property's type
//!   ([`template`] fills placeholders, casts follow Agent Spec's compatibility rules: a
//!   string reads as a boolean only when it is `"true"` or `"false"`). An input with neither
//!   is a `missing-input` error.
//! - A flow that leaves `data_flow_connections` out joins every output to every input of the
//!   same name. An empty list is no edges at all, as the spec says (wayflowcore treats it as
//!   left out).
//! - A node that takes a branch no control edge leaves from fails with `no-control-edge`
//!   (wayflowcore ends the flow quietly; the spec has no rule).
//! - A flow's output that the EndNode reached does not give takes the flow's default, as the
//!   spec says (wayflowcore first looks for an earlier node's output of that name).
//! - A ToolNode with one output gets the tool's whole return value; with several, the fields
//!   of the object it returns. A ToolNode's call that is rejected, or a tool that fails,
//!   fails the flow (`tool-rejected`, `tool-failed`), as in wayflowcore.
//! - An InputMessageNode appends its `message` (placeholders filled) as an agent message,
//!   then waits for the user; the user's message is its output. wayflowcore 26.3.1 drops
//!   the message; the spec appends it.
//! - An OutputMessageNode appends its message and goes on.
//! - An LlmNode sends its prompt (placeholders filled) to the model as one user message,
//!   without the conversation, and appends nothing to it. With one string output, the
//!   answer's text is that output; with other outputs, the request carries their JSON
//!   Schema ([`llm::ChatRequest::response_format`]) and the answer's JSON (the whole text, a
//!   fenced block, or its outermost braces) gives them: an object by key, another value the
//!   first output. An answer with no JSON fails with `llm-output`.
//! - A FlowNode runs its subflow in the same conversation and takes the branch named by the
//!   EndNode the subflow reached.
//! - An AgentNode runs its Agent with the node's inputs, in the flow's conversation; the
//!   agent's outputs are the node's. An agent with a human in the loop and no outputs never
//!   finishes, so neither does its node (as in wayflowcore).
//! - A session runs at most [`RuntimeBuilder::max_steps`] nodes.
//!
//! # How an agent runs
//!
//! - The model gets the system prompt (placeholders filled from the agent's inputs), the
//!   conversation, and the agent's tools, whose names, descriptions and argument schemas come
//!   from the document. At the start, with no user message yet, it gets the system prompt
//!   alone.
//! - The tools it calls are made one at a time, in order, and each result goes back to it.
//!   A call that requires confirmation waits for [`Session::confirm`] or
//!   [`Session::reject`]; a rejection, a tool that fails and a tool it does not have are
//!   told to the model as the call's result, and the agent goes on (as wayflowcore does).
//! - With a human in the loop, a text answer is for the user: the session returns
//!   [`Status::UserMessageRequest`]. Such an agent without outputs never finishes, as in
//!   wayflowcore.
//! - An agent with outputs gets one more tool, `submit_result` (wayflowcore's name), whose
//!   arguments are the outputs: a complete call finishes the session with them, cast to their
//!   types; an incomplete one is told what is missing. Without a human in the loop, a text
//!   answer is followed by a reminder to submit; without outputs either, it ends the session.
//! - An agent calls its model at most [`RuntimeBuilder::max_iterations`] times between two
//!   user messages; past it the session fails with `iteration-limit` (wayflowcore's cap is
//!   10 and gives the outputs' defaults: an error is easier to act on).
//!
//! # Tracing
//!
//! [`Session::run`] opens spans through `tracing`, named and filled as the OpenTelemetry
//! GenAI conventions say (`otel.name` holds the full name): `invoke_agent {name}` for an
//! agent's session (`gen_ai.operation.name`, `gen_ai.agent.name`), `workflow {name}` for a
//! flow's, `chat {model}` per model call (`gen_ai.request.model`), `execute_tool {name}` per
//! ServerTool call (`gen_ai.tool.name`, `gen_ai.tool.call.id`), and `node {name}` for the
//! work of each node (`agentspec.node.id`, `agentspec.node.type`). No field holds a secret:
//! neither a config's URL nor its key, nor a tool's arguments or result.
//!
//! # Saved sessions
//!
//! [`Session::save`] is taken between two runs, so at a pause or at the end: nothing is in
//! flight then. A process that dies during a run loses what that run did since the last
//! pause; resumed from the last save, the session runs that part again (a ServerTool called
//! in it is called again).
#![deny(missing_docs)]

/// The runtime in depth: loading, sessions and their pauses, agents and groups, tools,
/// transforms, models, the protocol of `agentspec serve`, tracing, and conformance.
pub mod guide {
    #![doc = include_str!("../docs/guide.md")]
}

mod agent;
mod cast;
mod core;
mod http;
mod join;
pub mod llm;
mod mcp;
#[cfg(feature = "http")]
pub mod openai;
#[cfg(feature = "postgres")]
mod pg;
mod plan;
mod props;
mod state;
pub mod template;
mod transform;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use agentspec_types::{Diagnostic, Document, Toolbox};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub use cast::CastError;

use crate::llm::LlmClient;
use crate::plan::{Available, Plan, Root, ToolPlace};
use crate::state::{Callee, Core, Limits, Need};

/// Who wrote a message of the conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The user.
    User,
    /// The agent or flow: text for the user, or tool calls.
    Agent,
    /// A tool's result.
    Tool,
}

/// A message of a session's conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// Its text (a tool's result as text: a string as it is, anything else as JSON,
    /// [`template::result_text`]).
    pub content: String,
    /// The tool calls it makes (an agent's message).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_requests: Vec<ToolRequest>,
    /// The call it answers (a tool's result).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_request_id: Option<String>,
}

impl Message {
    /// A message from the user.
    pub fn user(content: impl Into<String>) -> Self {
        Message {
            role: Role::User,
            content: content.into(),
            tool_requests: Vec::new(),
            tool_request_id: None,
        }
    }

    /// A message from the agent or flow to the user.
    pub fn agent(content: impl Into<String>) -> Self {
        Message {
            role: Role::Agent,
            ..Message::user(content)
        }
    }

    fn tool_requests(requests: Vec<ToolRequest>) -> Self {
        Message {
            tool_requests: requests,
            ..Message::agent("")
        }
    }

    fn tool_result(id: &str, content: &Value) -> Self {
        Message {
            role: Role::Tool,
            tool_request_id: Some(id.to_owned()),
            ..Message::user(template::result_text(content))
        }
    }
}

/// A tool call: the tool's name and the arguments, under an id the answer names.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolRequest {
    /// The id the result or the decision names.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments, an object keyed by input name.
    pub args: Value,
}

/// Where a session stopped after [`Session::run`].
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// The session finished.
    Finished {
        /// The outputs of the flow.
        outputs: Map<String, Value>,
        /// The messages for the user since the last stop.
        messages: Vec<Message>,
    },
    /// It waits for a user message ([`Session::append_user_message`]).
    UserMessageRequest {
        /// The messages for the user since the last stop.
        messages: Vec<Message>,
    },
    /// It waits for the results of client tools ([`Session::append_tool_result`]).
    ToolRequest(Vec<ToolRequest>),
    /// It waits for the caller to accept or reject these calls ([`Session::confirm`],
    /// [`Session::reject`]).
    ToolConfirmation(Vec<ToolRequest>),
}

/// A session that cannot go on, or an answer it cannot take. `code` is stable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct RunError {
    /// A stable code: `api-failed`, `llm-unsupported`, `cannot-pause`, `map-failed`, `missing-input`, `missing-output`, `cast-failed`, `unknown-input`,
    /// `no-control-edge`, `tool-failed`, `tool-rejected`, `tool-output-shape`,
    /// `step-limit`, `unexpected-answer`, `saved-session-mismatch`, `llm-failed`,
    /// `llm-output`, `iteration-limit`.
    pub code: &'static str,
    /// What happened, naming the node, the tool or the input.
    pub message: String,
    /// The id of the node it happened at, when one.
    pub node: Option<String>,
}

/// The codes of [`RunError`].
const CODES: [&str; 18] = [
    "api-failed",
    "llm-unsupported",
    "cannot-pause",
    "map-failed",
    "llm-failed",
    "llm-output",
    "iteration-limit",
    "missing-input",
    "missing-output",
    "cast-failed",
    "unknown-input",
    "no-control-edge",
    "tool-failed",
    "tool-rejected",
    "tool-output-shape",
    "step-limit",
    "unexpected-answer",
    "saved-session-mismatch",
];

/// A [`RunError`] as saved state holds it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct SavedError {
    code: String,
    message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    node: Option<String>,
}

impl From<&RunError> for SavedError {
    fn from(e: &RunError) -> Self {
        SavedError {
            code: e.code.to_owned(),
            message: e.message.clone(),
            node: e.node.clone(),
        }
    }
}

impl From<&SavedError> for RunError {
    fn from(e: &SavedError) -> Self {
        RunError {
            code: CODES
                .iter()
                .find(|c| **c == e.code)
                .copied()
                .unwrap_or("saved-session-mismatch"),
            message: e.message.clone(),
            node: e.node.clone(),
        }
    }
}

impl RunError {
    fn new(code: &'static str, message: String) -> Self {
        RunError {
            code,
            message,
            node: None,
        }
    }

    fn at_node(mut self, id: &str) -> Self {
        self.node = Some(id.to_owned());
        self
    }
}

/// The document could not be loaded for execution: every problem found, each with its
/// stable code and the JSON pointer of the component in the document. The codes:
/// `missing-tool` (a ServerTool with no implementation),
/// `unsupported-component`, `unresolved-reference`, `missing-llm` (the document calls a
/// model and the runtime has none), `llm-unsupported` (the runtime's model client cannot
/// serve a config, [`llm::LlmClient::check`]).
#[derive(Debug, Clone)]
pub struct LoadError {
    /// The problems, in the order found.
    pub diagnostics: Vec<Diagnostic>,
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, d) in self.diagnostics.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            let at = if d.pointer.is_empty() {
                "/"
            } else {
                &d.pointer
            };
            write!(f, "{}: {} (at {at})", d.code, d.message)?;
        }
        Ok(())
    }
}

impl std::error::Error for LoadError {}

/// The future a host callback returns: the tool's result, or why it failed.
pub type HostFuture = Pin<Box<dyn Future<Output = Result<Value, String>> + Send>>;

/// ServerTools whose code lives outside Rust (in the program embedding the runtime): called
/// with the tool's name and its arguments. Several calls may be in flight at once.
pub trait HostTools: Send + Sync {
    /// Runs the tool `name` with `args`.
    fn call(&self, name: &str, args: Value) -> HostFuture;

    /// The names of the tools the host runs, when it knows them: a ServerTool neither the
    /// toolbox nor this list has is then a `missing-tool` load error, instead of a call that
    /// fails when it is made. `None` (the default): the host takes every ServerTool.
    fn names(&self) -> Option<Vec<String>> {
        None
    }
}

impl<F> HostTools for F
where
    F: Fn(&str, Value) -> HostFuture + Send + Sync,
{
    fn call(&self, name: &str, args: Value) -> HostFuture {
        self(name, args)
    }
}

/// What happens in a session as it runs, for a UI or a log ([`RuntimeBuilder::on_event`]).
/// The pieces of a model's answer come from the model client as they stream
/// (`openai::OpenAiClient::on_token`); these come from the runtime.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Event<'a> {
    /// A model answered: its text and the tools it calls (client tools among them).
    ModelAnswered(&'a llm::ChatResponse),
    /// A ServerTool call starts.
    ToolStarted(&'a ToolRequest),
    /// A ServerTool call ended, with its result or the reason it failed.
    ToolFinished {
        /// The call.
        request: &'a ToolRequest,
        /// What it gave.
        result: Result<&'a Value, &'a str>,
    },
    /// A flow's node starts (once: a node resumed after a pause is not entered again).
    NodeEntered {
        /// The node's id.
        id: &'a str,
        /// Its name.
        name: &'a str,
        /// Its component type (`ToolNode`, …).
        node_type: &'static str,
    },
    /// A node is done and the flow goes on through `branch` (an EndNode: the flow ends
    /// through it).
    NodeLeft {
        /// The node's id.
        id: &'a str,
        /// Its name.
        name: &'a str,
        /// The branch taken.
        branch: &'a str,
    },
}

/// Receives a session's [`Event`]s.
pub type EventSink = Arc<dyn Fn(Event<'_>) + Send + Sync>;

/// What documents run with. Cheap to clone.
#[derive(Clone)]
pub struct Runtime {
    /// The HTTP client of the ApiNodes and RemoteTools, built when first needed.
    #[cfg(feature = "http")]
    http: Arc<std::sync::OnceLock<Result<reqwest::Client, String>>>,
    /// The sessions with the MCP servers, opened when first needed.
    #[cfg(feature = "mcp")]
    mcp: Arc<mcp::Pool>,
    /// The component types a document may not hold.
    blocked: Arc<std::collections::BTreeSet<String>>,
    /// The transforms' summaries kept in memory.
    memory: Arc<transform::Memory>,
    /// The connections to the PostgreSQL datastores.
    #[cfg(feature = "postgres")]
    postgres: Arc<pg::Postgres>,
    toolbox: Arc<Toolbox>,
    host: Option<Arc<dyn HostTools>>,
    llm: Option<Arc<dyn LlmClient>>,
    on_event: Option<EventSink>,
    limits: Limits,
}

/// Builds a [`Runtime`].
pub struct RuntimeBuilder {
    runtime: Runtime,
}

impl RuntimeBuilder {
    /// The tools written in Rust: a ServerTool runs the toolbox's tool of its name.
    pub fn toolbox(mut self, toolbox: Toolbox) -> Self {
        self.runtime.toolbox = Arc::new(toolbox);
        self
    }

    /// The callback that runs the ServerTools the toolbox does not have.
    pub fn host_tools(mut self, host: impl HostTools + 'static) -> Self {
        self.runtime.host = Some(Arc::new(host));
        self
    }

    /// The model agents call (every LLM config of the document is served by it; the
    /// config is in each [`llm::ChatRequest`]).
    pub fn llm(mut self, llm: impl LlmClient + 'static) -> Self {
        self.runtime.llm = Some(Arc::new(llm));
        self
    }

    /// Hands every [`Event`] of the sessions to `sink`, as it happens (synchronously: a
    /// sink that blocks holds the session up).
    pub fn on_event(mut self, sink: impl Fn(Event<'_>) + Send + Sync + 'static) -> Self {
        self.runtime.on_event = Some(Arc::new(sink));
        self
    }

    /// The most model calls an agent makes between two user messages (default 20): past
    /// it, the session fails with `iteration-limit`.
    pub fn max_iterations(mut self, calls: u32) -> Self {
        self.runtime.limits.max_iterations = calls;
        self
    }

    /// The most nodes a session runs (default 10,000): a flow that loops forever fails with
    /// `step-limit` instead of running on.
    pub fn max_steps(mut self, steps: u64) -> Self {
        self.runtime.limits.max_steps = steps;
        self
    }

    /// The most flows a ParallelMapNode or a ParallelFlowNode runs at once (default 16;
    /// at least 1). Their results keep the order of the items or of the subflows.
    pub fn parallelism(mut self, flows: usize) -> Self {
        self.runtime.limits.parallelism = flows.max(1);
        self
    }

    /// Lets documents hold components of type `component_type`, which the runtime blocks
    /// by default: `StdioTransport`, whose MCP server is a command the runtime would start
    /// (blocked unless allowed, as pyagentspec's loaders do).
    pub fn allow_component_type(mut self, component_type: &str) -> Self {
        Arc::make_mut(&mut self.runtime.blocked).remove(component_type);
        self
    }

    /// Refuses documents that hold a component of type `component_type` (a
    /// `blocked-component` load error naming each).
    pub fn block_component_type(mut self, component_type: &str) -> Self {
        Arc::make_mut(&mut self.runtime.blocked).insert(component_type.to_owned());
        self
    }

    /// Whether [`Runtime::load`] refuses a document with a model config the model client
    /// cannot serve ([`llm::LlmClient::check`]; the default), or loads it, the first call to
    /// that model then failing with `llm-unsupported`. For hosts whose loading must not
    /// depend on the models (upstream's conformance suite loads OCI configs it never runs).
    pub fn check_models_at_load(mut self, check: bool) -> Self {
        self.runtime.limits.check_models = check;
        self
    }

    /// The runtime.
    pub fn build(self) -> Runtime {
        self.runtime
    }
}

impl Runtime {
    /// A runtime with no tools, no host callback and the default limits.
    pub fn builder() -> RuntimeBuilder {
        RuntimeBuilder {
            runtime: Runtime {
                #[cfg(feature = "http")]
                http: Arc::default(),
                #[cfg(feature = "mcp")]
                mcp: Arc::default(),
                blocked: Arc::new(["StdioTransport".to_owned()].into()),
                memory: Arc::default(),
                #[cfg(feature = "postgres")]
                postgres: Arc::default(),
                toolbox: Arc::new(Toolbox::new()),
                host: None,
                llm: None,
                on_event: None,
                limits: Limits {
                    max_steps: 10_000,
                    max_iterations: 20,
                    parallelism: 16,
                    check_models: true,
                },
            },
        }
    }

    /// Compiles `doc` for execution. Every problem is reported at once: a ServerTool with
    /// no implementation (naming the tools the toolbox has), a component this runtime does
    /// not run, a reference to nothing.
    pub fn load(&self, doc: &Document) -> Result<Loaded, LoadError> {
        let host_names = self.host.as_ref().map(|host| host.names());
        let available = Available {
            toolbox: self.toolbox.names().collect(),
            host: host_names.as_ref(),
            llm: self.llm.as_deref(),
            check_models: self.limits.check_models,
            blocked: &self.blocked,
        };
        let plan = plan::plan(doc, &available).map_err(|diagnostics| LoadError { diagnostics })?;
        Ok(Loaded {
            plan: Arc::new(plan),
            runtime: self.clone(),
        })
    }
}

/// A document compiled for execution: sessions start and resume from it.
#[derive(Clone)]
pub struct Loaded {
    plan: Arc<Plan>,
    runtime: Runtime,
}

impl Loaded {
    /// A new session, with the flow's inputs (an object keyed by input name; `null` for
    /// none). An input the flow does not have is an `unknown-input` error.
    pub fn start(&self, inputs: Value) -> Result<Session, RunError> {
        let inputs = match inputs {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            other => {
                return Err(RunError::new(
                    "unknown-input",
                    format!(
                        "the inputs are an object keyed by input name, not {}",
                        short_json(&other)
                    ),
                ));
            }
        };
        let mut core = Core::new(Arc::clone(&self.plan), inputs, self.runtime.limits)?;
        core.events = self.runtime.on_event.clone();
        Ok(Session {
            core,
            runtime: self.runtime.clone(),
        })
    }

    /// The session saved by [`Session::save`], to go on from where it stopped. Refused with
    /// `saved-session-mismatch` when it was saved in another format or from another document.
    pub fn resume(&self, saved: SavedSession) -> Result<Session, RunError> {
        if saved.format != SavedSession::FORMAT {
            return Err(RunError::new(
                "saved-session-mismatch",
                format!(
                    "the session was saved in format {}; this runtime reads format {}",
                    saved.format,
                    SavedSession::FORMAT
                ),
            ));
        }
        let named_by = |digest: &str| digest.split(':').next().unwrap_or_default().to_owned();
        if named_by(&saved.document) != crate::props::DIGEST {
            return Err(RunError::new(
                "saved-session-mismatch",
                format!(
                    "the session names its document by a digest this runtime does not make ({}, where this one makes {}): it was saved by another version of agentspec-runtime",
                    named_by(&saved.document),
                    crate::props::DIGEST
                ),
            ));
        }
        if saved.document != self.plan.digest {
            return Err(RunError::new(
                "saved-session-mismatch",
                format!(
                    "the session was saved from another document (digest {}, this one {})",
                    saved.document, self.plan.digest
                ),
            ));
        }
        let state = serde_json::from_value(saved.state).map_err(|e| {
            RunError::new(
                "saved-session-mismatch",
                format!("the saved state does not read: {e}"),
            )
        })?;
        let core = Core {
            plan: Arc::clone(&self.plan),
            state,
            limits: self.runtime.limits,
            events: self.runtime.on_event.clone(),
        };
        core.check()?;
        Ok(Session {
            core,
            runtime: self.runtime.clone(),
        })
    }
}

/// A session's state, saved between two runs: plain, versioned data naming the document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedSession {
    /// The format of `state` ([`SavedSession::FORMAT`]).
    pub format: u32,
    /// The digest of the document the session runs (in pyagentspec's layout, secrets
    /// left out): a session resumes only with the same document.
    pub document: String,
    /// The state: frames, data, conversation, what it waits for.
    pub state: Value,
}

impl SavedSession {
    /// The format this runtime writes and reads.
    pub const FORMAT: u32 = 3;
}

/// A running flow. See the crate's documentation.
pub struct Session {
    core: Core,
    runtime: Runtime,
}

impl Session {
    /// Runs until the session finishes or needs the caller. ServerTools are called on the
    /// way (the toolbox's, or the host callback's). A failure (a tool that fails, an input
    /// with no value) is an error, and the session keeps failing with it.
    pub async fn run(&mut self) -> Result<Status, RunError> {
        use tracing::Instrument;
        let span = match self.core.plan.root {
            Root::Agent(group) => {
                let name = &self.core.plan.groups[group].name;
                tracing::info_span!(
                    "invoke_agent",
                    otel.name = %format_args!("invoke_agent {name}"),
                    gen_ai.operation.name = "invoke_agent",
                    gen_ai.agent.name = %name,
                )
            }
            Root::Flow(flow) => {
                let name = &self.core.plan.flows[flow].name;
                tracing::info_span!(
                    "workflow",
                    otel.name = %format_args!("workflow {name}"),
                    agentspec.flow.name = %name,
                )
            }
        };
        self.run_steps().instrument(span).await
    }

    async fn run_steps(&mut self) -> Result<Status, RunError> {
        Ok(match drive(&mut self.core, &self.runtime).await? {
            Stop::User => Status::UserMessageRequest {
                messages: self.new_messages(),
            },
            Stop::Client(requests) => Status::ToolRequest(requests),
            Stop::Confirm(requests) => Status::ToolConfirmation(requests),
            Stop::Finished(outputs) => Status::Finished {
                outputs,
                messages: self.new_messages(),
            },
        })
    }

    /// The agent messages appended since the caller last saw the conversation.
    fn new_messages(&mut self) -> Vec<Message> {
        let state = &mut self.core.state;
        let new = state.messages[state.seen..]
            .iter()
            .filter(|m| m.role == Role::Agent && m.tool_requests.is_empty())
            .cloned()
            .collect();
        state.seen = state.messages.len();
        new
    }

    /// Appends the user's message: what an InputMessageNode waits for.
    pub fn append_user_message(&mut self, text: impl Into<String>) {
        self.core.state.messages.push(Message::user(text));
    }

    /// The result of the client tool call `id` (from [`Status::ToolRequest`]).
    pub fn append_tool_result(&mut self, id: &str, content: Value) -> Result<(), RunError> {
        self.core.answer_client(id, content)
    }

    /// Accepts the call `id` (from [`Status::ToolConfirmation`]): it is made on the next run.
    pub fn confirm(&mut self, id: &str) -> Result<(), RunError> {
        self.core.decide(id, true, String::new())
    }

    /// Rejects the call `id`, with a reason (may be empty). In a flow, a ToolNode whose call
    /// is rejected fails the flow with `tool-rejected`.
    pub fn reject(&mut self, id: &str, reason: impl Into<String>) -> Result<(), RunError> {
        self.core.decide(id, false, reason.into())
    }

    /// The whole conversation so far.
    pub fn messages(&self) -> &[Message] {
        &self.core.state.messages
    }

    /// The session's state as plain data, to resume with [`Loaded::resume`].
    pub fn save(&self) -> SavedSession {
        SavedSession {
            format: SavedSession::FORMAT,
            document: self.core.plan.digest.clone(),
            state: serde_json::to_value(&self.core.state).expect("the state is plain data"),
        }
    }
}

/// Where [`drive`] stopped: the session needs the caller, or finished.
enum Stop {
    User,
    Client(Vec<ToolRequest>),
    Confirm(Vec<ToolRequest>),
    Finished(Map<String, Value>),
}

type Driven<'a> = Pin<Box<dyn Future<Output = Result<Stop, RunError>> + Send + 'a>>;

/// Runs `core` until it needs the caller or finishes: the driver around the core, making
/// the tool calls, model calls and requests it asks for, and running the flows a node runs
/// on their own (at once for the parallel nodes).
fn drive<'a>(core: &'a mut Core, runtime: &'a Runtime) -> Driven<'a> {
    Box::pin(async move {
        use tracing::Instrument;
        loop {
            match core.advance()? {
                Need::ListTools { agent } => {
                    let listed = list_tools(core, runtime, agent).await;
                    core.answer_listed(listed)?;
                }
                Need::Call { request, tool } => {
                    // the arguments and the result are left out: they may hold secrets
                    let span = tracing::info_span!(
                        "execute_tool",
                        otel.name = %format_args!("execute_tool {}", request.name),
                        gen_ai.operation.name = "execute_tool",
                        gen_ai.tool.name = %request.name,
                        gen_ai.tool.call.id = %request.id,
                    );
                    runtime.emit(Event::ToolStarted(&request));
                    let result = call(core, runtime, tool, &request).instrument(span).await;
                    runtime.emit(Event::ToolFinished {
                        request: &request,
                        result: result.as_ref().map_err(String::as_str),
                    });
                    core.answer_server(&request.id, result)?;
                }
                Need::User => return Ok(Stop::User),
                Need::Model(mut request, agent) => {
                    if let Some(why) = core.plan.unserved.get(&request.model.config_id) {
                        let e = RunError::new(
                            "llm-unsupported",
                            format!(
                                "the LLM config `{}` cannot be served: {why}",
                                request.model.name
                            ),
                        );
                        core.fail(e)?;
                        continue;
                    }
                    if request.model.api_key.is_none() {
                        let keys = &core.plan.api_keys;
                        request.model.api_key = keys.get(&request.model.config_id).cloned();
                    }
                    // the model's id only: the config's URL and key may hold secrets
                    let span = tracing::info_span!(
                        "chat",
                        otel.name = %format_args!("chat {}", request.model.model_id),
                        gen_ai.operation.name = "chat",
                        gen_ai.request.model = %request.model.model_id,
                    );
                    let transformed = match agent {
                        Some(agent) => transformed(core, runtime, agent, &mut request).await,
                        None => Ok(()),
                    };
                    let answer = match (transformed, &runtime.llm) {
                        (Err(e), _) => Err(e),
                        (Ok(()), Some(llm)) => llm.chat(*request).instrument(span).await,
                        (Ok(()), None) => Err(llm::LlmError("the runtime has no model".to_owned())),
                    };
                    match answer {
                        Ok(response) => {
                            runtime.emit(Event::ModelAnswered(&response));
                            core.answer_model(response)?
                        }
                        Err(e) => core.fail(RunError::new(
                            "llm-failed",
                            format!("the model failed: {e}"),
                        ))?,
                    }
                }
                Need::Http { call, inputs } => {
                    let spec = &core.plan.http[call];
                    let span = tracing::info_span!(
                        "http",
                        otel.name = %format_args!("http {}", spec.name),
                        http.request.method = %spec.method,
                    );
                    let answer = http_call(&core.plan, runtime, call, &inputs)
                        .instrument(span)
                        .await;
                    core.answer_http(answer)?;
                }
                Need::Children { runs, parallel } => {
                    let mut children: Vec<Core> = runs
                        .into_iter()
                        .enumerate()
                        .map(|(i, run)| core.child(i, run))
                        .collect();
                    let limit = if parallel {
                        runtime.limits.parallelism
                    } else {
                        1
                    };
                    let stops = join::bounded(
                        children.iter_mut().map(|child| drive(child, runtime)),
                        limit,
                    )
                    .await;
                    let results = stops
                        .into_iter()
                        .zip(children)
                        .map(|(stop, child)| finished_child(stop, child))
                        .collect();
                    core.answer_children(results)?;
                }
                Need::Client(requests) => return Ok(Stop::Client(requests)),
                Need::Confirm(requests) => return Ok(Stop::Confirm(requests)),
                Need::Finished(outputs) => return Ok(Stop::Finished(outputs)),
            }
        }
    })
}

/// What a flow run by a node gave, or why it gave nothing: such a flow cannot wait for the
/// caller.
fn finished_child(stop: Result<Stop, RunError>, child: Core) -> Result<state::ChildDone, RunError> {
    let waits_for = match stop? {
        Stop::Finished(outputs) => {
            let base = child.state.seen;
            let mut messages = child.state.messages;
            return Ok(state::ChildDone {
                outputs,
                messages: messages.split_off(base.min(messages.len())),
                steps: child.state.steps,
            });
        }
        Stop::User => "a user message",
        Stop::Client(_) => "the result of a client tool",
        Stop::Confirm(_) => "a confirmation",
    };
    Err(RunError::new(
        "cannot-pause",
        format!(
            "the flow waits for {waits_for}, and a flow that a MapNode, ParallelMapNode or ParallelFlowNode runs cannot pause"
        ),
    ))
}

/// `request` reshaped by the transforms of the agent `agent`: the summaries come from the
/// cache, else from the transform's model (and go to the cache).
async fn transformed(
    core: &Core,
    runtime: &Runtime,
    agent: usize,
    request: &mut llm::ChatRequest,
) -> Result<(), llm::LlmError> {
    for plan in &core.plan.agents[agent].transforms {
        let mut summaries = Vec::new();
        for needed in transform::needed(plan, request) {
            let cached = cache_get(core, runtime, plan, &needed.key).await?;
            let summary = match cached {
                Some(summary) => summary,
                None => {
                    let mut summary_request = needed.request;
                    if summary_request.model.api_key.is_none() {
                        let keys = &core.plan.api_keys;
                        summary_request.model.api_key =
                            keys.get(&summary_request.model.config_id).cloned();
                    }
                    let llm = runtime
                        .llm
                        .as_ref()
                        .ok_or_else(|| llm::LlmError("the runtime has no model".to_owned()))?;
                    let summary = llm
                        .chat(summary_request)
                        .await
                        .map_err(|e| llm::LlmError(format!("transform `{}`: {}", plan.name, e.0)))?
                        .content;
                    let now = transform::now();
                    let entry = transform::Entry {
                        content: summary.clone(),
                        created_at: now,
                        last_used_at: now,
                        prefix_size: needed.prefix_size,
                    };
                    cache_put(core, runtime, plan, needed.key, entry).await?;
                    summary
                }
            };
            summaries.push(summary);
        }
        transform::apply(plan, request, &summaries);
    }
    Ok(())
}

/// The name the runtime's memory keeps a transform's cache under.
fn memory_name(core: &Core, plan: &transform::TransformPlan) -> Option<String> {
    match plan.cache.datastore.map(|d| &core.plan.datastores[d]) {
        None => Some(format!("transform {}", plan.name)),
        Some(transform::DatastorePlan::Memory { id }) => Some(id.clone()),
        Some(transform::DatastorePlan::Postgres(_)) => None,
    }
}

async fn cache_get(
    core: &Core,
    runtime: &Runtime,
    plan: &transform::TransformPlan,
    key: &str,
) -> Result<Option<String>, llm::LlmError> {
    if let Some(store) = memory_name(core, plan) {
        return Ok(runtime.memory.get(&store, &plan.cache, key));
    }
    #[cfg(feature = "postgres")]
    if let Some(transform::DatastorePlan::Postgres(pg)) =
        plan.cache.datastore.map(|d| &core.plan.datastores[d])
    {
        return runtime
            .postgres
            .get(pg, &plan.cache, key)
            .await
            .map_err(llm::LlmError);
    }
    Ok(None)
}

async fn cache_put(
    core: &Core,
    runtime: &Runtime,
    plan: &transform::TransformPlan,
    key: String,
    entry: transform::Entry,
) -> Result<(), llm::LlmError> {
    if let Some(store) = memory_name(core, plan) {
        runtime.memory.put(&store, &plan.cache, key, entry);
        return Ok(());
    }
    #[cfg(feature = "postgres")]
    if let Some(transform::DatastorePlan::Postgres(pg)) =
        plan.cache.datastore.map(|d| &core.plan.datastores[d])
    {
        return runtime
            .postgres
            .put(pg, &plan.cache, key, entry)
            .await
            .map_err(llm::LlmError);
    }
    Ok(())
}

/// The tools the MCPToolBoxes of the agent `agent` give it.
async fn list_tools(
    core: &Core,
    runtime: &Runtime,
    agent: usize,
) -> Result<Vec<mcp::Listed>, String> {
    #[cfg(feature = "mcp")]
    {
        let mut all = Vec::new();
        for toolbox in &core.plan.agents[agent].toolboxes {
            let listed = runtime.mcp.list(&core.plan.mcp[toolbox.server]).await?;
            all.extend(mcp::shape(toolbox, &listed)?);
        }
        Ok(all)
    }
    #[cfg(not(feature = "mcp"))]
    {
        let _ = runtime;
        match core.plan.agents[agent].toolboxes.first() {
            Some(toolbox) => Err(format!(
                "MCPToolBox `{}`: this runtime was built without MCP",
                toolbox.name
            )),
            None => Ok(Vec::new()),
        }
    }
}

/// Calls `name` on the MCP server `server`: the answer's text, or its structured content
/// when `structured`.
async fn mcp_call(
    core: &Core,
    runtime: &Runtime,
    server: usize,
    name: &str,
    args: &Value,
    structured: bool,
) -> Result<Value, String> {
    #[cfg(feature = "mcp")]
    {
        let answer = runtime.mcp.call(&core.plan.mcp[server], name, args).await?;
        mcp::answer_value(&answer, structured)
    }
    #[cfg(not(feature = "mcp"))]
    {
        let _ = (core, runtime, server, args, structured);
        Err(format!(
            "MCP tool `{name}`: this runtime was built without MCP"
        ))
    }
}

/// Runs a ServerTool, a RemoteTool or an MCP tool.
async fn call(
    core: &Core,
    runtime: &Runtime,
    tool: Callee,
    request: &ToolRequest,
) -> Result<Value, String> {
    let tool = match tool {
        Callee::Listed(server) => {
            return mcp_call(core, runtime, server, &request.name, &request.args, false).await;
        }
        Callee::Tool(tool) => tool,
    };
    match core.plan.tools[tool].place {
        ToolPlace::Mcp(server) => {
            // an agent reads the text; a ToolNode with several outputs the structured content
            let structured = !core.agent_active() && core.plan.tools[tool].outputs.len() > 1;
            mcp_call(
                core,
                runtime,
                server,
                &request.name,
                &request.args,
                structured,
            )
            .await
        }
        ToolPlace::Toolbox => runtime
            .toolbox
            .call(&request.name, request.args.clone())
            .await
            .map_err(|e| e.to_string()),
        ToolPlace::Host => match &runtime.host {
            Some(host) => host.call(&request.name, request.args.clone()).await,
            None => Err(format!("no host callback runs `{}`", request.name)),
        },
        ToolPlace::Remote(call) => {
            let inputs = request.args.as_object().cloned().unwrap_or_default();
            let (status, body) = http_call(&core.plan, runtime, call, &inputs).await?;
            if core.agent_active() {
                // an agent reads the body as it came
                return Ok(Value::String(body));
            }
            let outputs = &core.plan.tools[tool].outputs;
            let mut values = http::outputs(outputs, status, &body);
            Ok(match outputs.as_slice() {
                [one] => values.remove(&one.name).unwrap_or(Value::Null),
                _ => Value::Object(values),
            })
        }
        ToolPlace::Client => unreachable!("the caller runs client tools"),
    }
}

/// Makes the request `plan.http[call]` with `inputs`: its status and body.
async fn http_call(
    plan: &Plan,
    runtime: &Runtime,
    call: usize,
    inputs: &Map<String, Value>,
) -> Result<(u16, String), String> {
    let spec = &plan.http[call];
    let filled = spec.fill(inputs)?;
    #[cfg(feature = "http")]
    {
        let client = runtime
            .http
            .get_or_init(|| {
                reqwest::Client::builder()
                    .build()
                    .map_err(|e| format!("the HTTP client could not be built: {e}"))
            })
            .clone()?;
        http::send(&client, spec, filled).await
    }
    #[cfg(not(feature = "http"))]
    {
        let _ = (filled, runtime);
        Err("this runtime was built without HTTP (feature `http`)".to_owned())
    }
}

impl Runtime {
    fn emit(&self, event: Event<'_>) {
        if let Some(sink) = &self.on_event {
            sink(event);
        }
    }
}

/// An error with its causes, each once: a client's own message often says only what it was
/// doing ("error sending request", "error performing TLS handshake"), and its causes why.
#[cfg(feature = "http")]
pub(crate) fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(e) = cause {
        let next = e.to_string();
        if !text.contains(&next) {
            text.push_str(": ");
            text.push_str(&next);
        }
        cause = e.source();
    }
    text
}

/// A value as short JSON text, for messages.
pub(crate) fn short_json(value: &Value) -> String {
    let mut text = value.to_string();
    if text.len() > 80 {
        let mut end = 77;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push('…');
    }
    text
}
