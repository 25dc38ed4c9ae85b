//! The core: a session as a state machine with no I/O. [`Core::advance`] runs nodes until it
//! needs something only a driver or the caller can give (a ServerTool's result, a user
//! message, a client tool's result, a confirmation) and says so; the answers are fed back
//! with the `answer_*` methods. Its state is plain serde data, saved and resumed as it is.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::cast::cast;
use crate::llm::{ChatMessage, ChatRequest, ChatResponse};
use crate::plan::{CAUGHT_BRANCH, CAUGHT_INFO, NodeKind, NodePlan, Plan, Root, ToolPlace};
use crate::props::Prop;
use crate::state::{Callee, Child, ChildDone, Core, Frame, GroupRun, Limits, Need, State, Wait};
use crate::template::{render, value_text};
use crate::{Message, RunError, ToolRequest};

/// A saved state that does not fit the document's flows.
fn mismatch() -> RunError {
    RunError::new(
        "saved-session-mismatch",
        "the saved session does not fit the document's flows".to_owned(),
    )
}

fn err(code: &'static str, message: String, node: &NodePlan) -> RunError {
    RunError::new(code, message).at_node(&node.id)
}

/// The value of each property from `given`, else its default, cast to its type.
fn fill(
    props: &[Prop],
    given: &Map<String, Value>,
    what: &str,
    node: &NodePlan,
) -> Result<Map<String, Value>, RunError> {
    let mut out = Map::new();
    for prop in props {
        let value = match given.get(&prop.name).or_else(|| prop.default()) {
            Some(v) => v,
            None => {
                return Err(err(
                    if what == "input" {
                        "missing-input"
                    } else {
                        "missing-output"
                    },
                    format!(
                        "{what} `{}` of node `{}` has no value and no default",
                        prop.name, node.name
                    ),
                    node,
                ));
            }
        };
        let value = cast(value, &prop.schema).map_err(|e| {
            err(
                "cast-failed",
                format!("{what} `{}` of node `{}`: {e}", prop.name, node.name),
                node,
            )
        })?;
        out.insert(prop.name.clone(), value);
    }
    Ok(out)
}

impl Core {
    pub fn new(
        plan: Arc<Plan>,
        inputs: Map<String, Value>,
        limits: Limits,
    ) -> Result<Self, RunError> {
        let state = |frames, agent| State {
            frames,
            messages: Vec::new(),
            seen: 0,
            prefix: String::new(),
            next_id: 1,
            steps: 0,
            agent,
            finished: None,
            failed: None,
        };
        let root = match plan.root {
            Root::Flow(flow) => flow,
            Root::Agent(group) => {
                let run = GroupRun::new(&plan, group, inputs)?;
                return Ok(Core {
                    plan,
                    state: state(Vec::new(), Some(run)),
                    limits,
                    events: None,
                });
            }
        };
        let flow = &plan.flows[root];
        if let Some(unknown) = inputs
            .keys()
            .find(|k| !flow.inputs.iter().any(|p| &p.name == *k))
        {
            let names: Vec<String> = flow
                .inputs
                .iter()
                .map(|p| format!("`{}`", p.name))
                .collect();
            return Err(RunError::new(
                "unknown-input",
                format!(
                    "flow `{}` has no input `{unknown}`; its inputs: {}",
                    flow.name,
                    if names.is_empty() {
                        "none".to_owned()
                    } else {
                        names.join(", ")
                    }
                ),
            ));
        }
        let frame = Self::frame(&plan, root, inputs);
        Ok(Core {
            plan,
            state: state(vec![frame], None),
            limits,
            events: None,
        })
    }

    fn frame(plan: &Plan, flow: usize, inputs: Map<String, Value>) -> Frame {
        let f = &plan.flows[flow];
        let mut frame = Frame {
            flow,
            node: f.start,
            slots: BTreeMap::new(),
            named: Map::new(),
            wait: Wait::Nothing,
        };
        if f.by_name {
            frame.named = inputs;
        } else {
            frame.slots.insert(f.start, inputs);
        }
        frame
    }

    /// A session of its own for a flow a MapNode, ParallelMapNode or ParallelFlowNode runs
    /// (the `index`th): it starts with the conversation so far, and may run the steps the
    /// session has left.
    pub fn child(&self, index: usize, child: Child) -> Core {
        let frame = Self::frame(&self.plan, child.flow, child.inputs);
        let state = State {
            frames: vec![frame],
            messages: self.state.messages.clone(),
            seen: self.state.messages.len(),
            prefix: format!("{}{}.{index}-", self.state.prefix, self.state.steps),
            next_id: 1,
            steps: 0,
            agent: None,
            finished: None,
            failed: None,
        };
        Core {
            plan: Arc::clone(&self.plan),
            state,
            limits: Limits {
                max_steps: self.limits.max_steps.saturating_sub(self.state.steps),
                ..self.limits
            },
            events: self.events.clone(),
        }
    }

    fn new_request(&mut self, name: &str, args: Value) -> ToolRequest {
        let id = format!("{}call-{}", self.state.prefix, self.state.next_id);
        self.state.next_id += 1;
        ToolRequest {
            id,
            name: name.to_owned(),
            args,
        }
    }

    /// Runs until the session needs an answer, or finishes. A failure is kept: the session
    /// fails with it again.
    pub fn advance(&mut self) -> Result<Need, RunError> {
        if let Some(e) = &self.state.failed {
            return Err(e.into());
        }
        if let Some(outputs) = &self.state.finished {
            return Ok(Need::Finished(outputs.clone()));
        }
        loop {
            match self.advance_inner() {
                Ok(need) => return Ok(need),
                // caught by a CatchExceptionNode: the flow goes on from it
                Err(e) => self.fail(e)?,
            }
        }
    }

    /// A failure: caught by the innermost CatchExceptionNode running the failed flow, which
    /// then takes its `caught_exception_branch` (`Ok`); else the session fails with it, and
    /// keeps failing with it.
    pub fn fail(&mut self, mut e: RunError) -> Result<(), RunError> {
        let plan = Arc::clone(&self.plan);
        let mut depth = self.state.frames.len();
        while catchable(e.code) && depth > 1 {
            depth -= 1;
            let parent = &self.state.frames[depth - 1];
            let node = &plan.flows[parent.flow].nodes[parent.node];
            if !matches!(node.kind, NodeKind::Catch { .. }) {
                continue;
            }
            self.state.frames.truncate(depth);
            let mut info = format!("{}: {}", e.code, e.message);
            if info.len() > 500 {
                let mut end = 500;
                while !info.is_char_boundary(end) {
                    end -= 1;
                }
                info.truncate(end);
                info.push('…');
            }
            let mut outputs = Map::new();
            outputs.insert(CAUGHT_INFO.to_owned(), Value::String(info));
            match self.complete(node, outputs, CAUGHT_BRANCH) {
                Ok(_) => return Ok(()),
                Err(again) => e = again,
            }
        }
        self.state.failed = Some((&e).into());
        Err(e)
    }

    fn advance_inner(&mut self) -> Result<Need, RunError> {
        if self.state.agent.is_some() {
            let need = self.advance_agent()?;
            if let Need::Finished(outputs) = &need {
                self.state.finished = Some(outputs.clone());
            }
            return Ok(need);
        }
        let plan = Arc::clone(&self.plan);
        loop {
            let depth = self.state.frames.len() - 1;
            let frame = &mut self.state.frames[depth];
            let node = &plan.flows[frame.flow].nodes[frame.node];
            let wait = std::mem::take(&mut frame.wait);
            match wait {
                Wait::Nothing => {
                    // the node's own work (a node that waits is entered again on resume)
                    let _span = tracing::info_span!(
                        "node",
                        otel.name = %format_args!("node {}", node.name),
                        agentspec.node.id = %node.id,
                        agentspec.node.type = node.kind.component_type(),
                    )
                    .entered();
                    if let Some(sink) = &self.events {
                        sink(crate::Event::NodeEntered {
                            id: &node.id,
                            name: &node.name,
                            node_type: node.kind.component_type(),
                        });
                    }
                    if let Some(need) = self.enter(node)? {
                        return Ok(need);
                    }
                }
                Wait::User { asked_at } => {
                    let answer = self.state.messages[asked_at.min(self.state.messages.len())..]
                        .iter()
                        .rev()
                        .find(|m| m.role == crate::Role::User)
                        .map(|m| m.content.clone());
                    let Some(answer) = answer else {
                        self.top().wait = Wait::User { asked_at };
                        return Ok(Need::User);
                    };
                    let name = node
                        .outputs
                        .first()
                        .map_or("user_input", |p| p.name.as_str());
                    let mut outputs = Map::new();
                    outputs.insert(name.to_owned(), Value::String(answer));
                    if let Some(need) = self.complete(node, outputs, "next")? {
                        return Ok(need);
                    }
                }
                Wait::Confirmation { request } => {
                    self.top().wait = Wait::Confirmation {
                        request: request.clone(),
                    };
                    return Ok(Need::Confirm(vec![request]));
                }
                Wait::Accepted { request } => {
                    let NodeKind::Tool { tool } = node.kind else {
                        return Err(mismatch());
                    };
                    return Ok(self.dispatch(tool, request));
                }
                Wait::Rejected { request, reason } => {
                    let mut message = format!("the call of tool `{}` was rejected", request.name);
                    if !reason.is_empty() {
                        message.push_str(": ");
                        message.push_str(&reason);
                    }
                    return Err(err("tool-rejected", message, node));
                }
                Wait::Client { request } => {
                    self.top().wait = Wait::Client {
                        request: request.clone(),
                    };
                    return Ok(Need::Client(vec![request]));
                }
                Wait::Server { request } => {
                    let NodeKind::Tool { tool } = node.kind else {
                        return Err(mismatch());
                    };
                    self.top().wait = Wait::Server {
                        request: request.clone(),
                    };
                    return Ok(Need::Call {
                        request,
                        tool: Callee::Tool(tool),
                    });
                }
                Wait::Result { value } => {
                    let NodeKind::Tool { tool } = node.kind else {
                        return Err(mismatch());
                    };
                    let outputs = tool_outputs(&plan.tools[tool].outputs, value, node)?;
                    if let Some(need) = self.complete(node, outputs, "next")? {
                        return Ok(need);
                    }
                }
                Wait::Model { request } => {
                    self.top().wait = Wait::Model {
                        request: request.clone(),
                    };
                    return Ok(Need::Model(request, None));
                }
                Wait::Agent { run } => {
                    self.top().wait = Wait::Agent { run };
                    match self.advance_agent()? {
                        Need::Finished(outputs) => {
                            self.top().wait = Wait::Nothing;
                            if let Some(need) = self.complete(node, outputs, "next")? {
                                return Ok(need);
                            }
                        }
                        need => return Ok(need),
                    }
                }
                Wait::Generated { outputs } => {
                    if let Some(need) = self.complete(node, outputs, "next")? {
                        return Ok(need);
                    }
                }
                Wait::Http { inputs } => {
                    let NodeKind::Api { call } = node.kind else {
                        return Err(mismatch());
                    };
                    self.top().wait = Wait::Http {
                        inputs: inputs.clone(),
                    };
                    return Ok(Need::Http { call, inputs });
                }
                // the flows it runs cannot pause, so nothing of theirs was kept: run it again
                Wait::Children => {
                    if let Some(need) = self.enter(node)? {
                        return Ok(need);
                    }
                }
                // a FlowNode's frame is never the top one (but in a state edited by hand)
                Wait::Subflow => return Err(mismatch()),
            }
        }
    }

    fn top(&mut self) -> &mut Frame {
        self.state.frames.last_mut().expect("a session has a frame")
    }

    /// Runs a node that was not started: `None` when it completed and the frame moved on.
    fn enter(&mut self, node: &NodePlan) -> Result<Option<Need>, RunError> {
        let inputs = {
            let frame = self.state.frames.last().expect("a session has a frame");
            let by_name = self.plan.flows[frame.flow].by_name;
            let given = if by_name {
                Some(&frame.named)
            } else {
                frame.slots.get(&frame.node)
            };
            fill(&node.inputs, given.unwrap_or(&Map::new()), "input", node)?
        };
        match &node.kind {
            NodeKind::Start => self.complete(node, inputs, "next"),
            NodeKind::End { branch } => self.finish_frame(inputs, branch.clone()),
            NodeKind::Tool { tool } => {
                let plan = Arc::clone(&self.plan);
                let spec = &plan.tools[*tool];
                let request = self.new_request(&spec.name, Value::Object(inputs));
                if spec.requires_confirmation {
                    self.top().wait = Wait::Confirmation {
                        request: request.clone(),
                    };
                    return Ok(Some(Need::Confirm(vec![request])));
                }
                Ok(Some(self.dispatch(*tool, request)))
            }
            NodeKind::Branching { mapping } => {
                let key = node
                    .inputs
                    .first()
                    .and_then(|p| inputs.get(&p.name))
                    .map(value_text)
                    .unwrap_or_default();
                let branch = mapping
                    .iter()
                    .find(|(k, _)| *k == key)
                    .map_or("default", |(_, b)| b.as_str())
                    .to_owned();
                self.complete(node, Map::new(), &branch)
            }
            NodeKind::OutputMessage { message } => {
                let text = render(message, |name| inputs.get(name));
                self.state.messages.push(Message::agent(text));
                self.complete(node, Map::new(), "next")
            }
            NodeKind::InputMessage { message } => {
                if let Some(message) = message {
                    let text = render(message, |name| inputs.get(name));
                    self.state.messages.push(Message::agent(text));
                }
                let asked_at = self.state.messages.len();
                self.top().wait = Wait::User { asked_at };
                Ok(Some(Need::User))
            }
            NodeKind::Agent { agent } => {
                let run = GroupRun::new(&self.plan, *agent, inputs).map_err(|e| RunError {
                    node: Some(node.id.clone()),
                    ..e
                })?;
                self.top().wait = Wait::Agent { run: Box::new(run) };
                Ok(None)
            }
            NodeKind::Llm { prompt, model } => {
                let prompt = render(prompt, |name| inputs.get(name));
                let response_format = (!single_string(&node.outputs))
                    .then(|| crate::props::parameters(&node.outputs));
                let request = ChatRequest {
                    model: (**model).clone(),
                    messages: vec![ChatMessage::User { content: prompt }],
                    tools: Vec::new(),
                    response_format,
                };
                self.top().wait = Wait::Model {
                    request: Box::new(request.clone()),
                };
                Ok(Some(Need::Model(Box::new(request), None)))
            }
            NodeKind::Api { call } => {
                self.top().wait = Wait::Http {
                    inputs: inputs.clone(),
                };
                Ok(Some(Need::Http {
                    call: *call,
                    inputs,
                }))
            }
            NodeKind::Flow { flow } | NodeKind::Catch { flow } => {
                let frame = Self::frame(&self.plan, *flow, inputs);
                self.top().wait = Wait::Subflow;
                self.state.frames.push(frame);
                Ok(None)
            }
            NodeKind::Map {
                flow,
                parallel,
                inputs: feeds,
                ..
            } => {
                let runs = map_runs(&self.plan, *flow, feeds, inputs, node)?;
                self.top().wait = Wait::Children;
                Ok(Some(Need::Children {
                    runs,
                    parallel: *parallel,
                }))
            }
            NodeKind::ParallelFlow { flows } => {
                let runs = flows
                    .iter()
                    .map(|&flow| Child {
                        flow,
                        inputs: self.plan.flows[flow]
                            .inputs
                            .iter()
                            .filter_map(|p| Some((p.name.clone(), inputs.get(&p.name)?.clone())))
                            .collect(),
                    })
                    .collect();
                self.top().wait = Wait::Children;
                Ok(Some(Need::Children {
                    runs,
                    parallel: true,
                }))
            }
        }
    }

    /// What the flows of a MapNode, ParallelMapNode or ParallelFlowNode gave, in the order
    /// they were asked for.
    pub fn answer_children(
        &mut self,
        results: Vec<Result<ChildDone, RunError>>,
    ) -> Result<(), RunError> {
        let plan = Arc::clone(&self.plan);
        let frame = self.top();
        if !matches!(frame.wait, Wait::Children) {
            return Err(RunError::new(
                "unexpected-answer",
                "no node is waiting for the flows it runs".to_owned(),
            ));
        }
        let node = &plan.flows[frame.flow].nodes[frame.node];
        let mut done = Vec::with_capacity(results.len());
        for result in results {
            match result {
                Ok(child) => done.push(child),
                Err(e) => {
                    let e = RunError {
                        message: format!("in a flow node `{}` runs: {}", node.name, e.message),
                        node: e.node.or_else(|| Some(node.id.clone())),
                        ..e
                    };
                    return self.fail(e);
                }
            }
        }
        for child in &mut done {
            self.state.steps += child.steps;
            self.state.messages.append(&mut child.messages);
        }
        let outputs = match &node.kind {
            NodeKind::Map { outputs, .. } => {
                let mut out = Map::new();
                for (name, from, how) in outputs {
                    let values: Vec<&Value> =
                        done.iter().filter_map(|c| c.outputs.get(from)).collect();
                    match reduce(&values, *how) {
                        Ok(Some(v)) => {
                            out.insert(name.clone(), v);
                        }
                        Ok(None) => {}
                        Err(problem) => {
                            let e = err(
                                "map-failed",
                                format!("output `{name}` of node `{}`: {problem}", node.name),
                                node,
                            );
                            return self.fail(e);
                        }
                    }
                }
                out
            }
            _ => {
                let mut out = Map::new();
                for child in done {
                    out.extend(child.outputs);
                }
                out
            }
        };
        self.top().wait = Wait::Generated { outputs };
        Ok(())
    }

    /// A tool call made: by the driver for a ServerTool, by the caller for a client tool.
    fn dispatch(&mut self, tool: usize, request: ToolRequest) -> Need {
        match self.plan.tools[tool].place {
            ToolPlace::Client => {
                self.state
                    .messages
                    .push(Message::tool_requests(vec![request.clone()]));
                self.top().wait = Wait::Client {
                    request: request.clone(),
                };
                Need::Client(vec![request])
            }
            ToolPlace::Toolbox | ToolPlace::Host | ToolPlace::Remote(_) | ToolPlace::Mcp(_) => {
                self.top().wait = Wait::Server {
                    request: request.clone(),
                };
                Need::Call {
                    request,
                    tool: Callee::Tool(tool),
                }
            }
        }
    }

    /// The node finished with `outputs` and took `branch`: its outputs go along its data
    /// edges, and the frame moves to the next node.
    fn complete(
        &mut self,
        node: &NodePlan,
        outputs: Map<String, Value>,
        branch: &str,
    ) -> Result<Option<Need>, RunError> {
        let outputs = fill(&node.outputs, &outputs, "output", node)?;
        self.state.steps += 1;
        if self.state.steps > self.limits.max_steps {
            return Err(err(
                "step-limit",
                format!(
                    "the session ran {} nodes, its limit (Runtime::max_steps)",
                    self.limits.max_steps
                ),
                node,
            ));
        }
        let flow = self.top().flow;
        let by_name = self.plan.flows[flow].by_name;
        let frame = self.top();
        if by_name {
            frame.named.extend(outputs);
        } else {
            if !node.again {
                // it does not run again in this frame: what it was given is spent
                let at = frame.node;
                frame.slots.remove(&at);
            }
            for feed in &node.feeds {
                if let Some(value) = outputs.get(&feed.output) {
                    frame
                        .slots
                        .entry(feed.node)
                        .or_default()
                        .insert(feed.input.clone(), value.clone());
                }
            }
        }
        let Some(next) = node.next(branch) else {
            return Err(err(
                "no-control-edge",
                format!(
                    "node `{}` took branch `{branch}`, which no control edge leaves from",
                    node.name
                ),
                node,
            ));
        };
        frame.node = next;
        frame.wait = Wait::Nothing;
        self.left(node, branch);
        Ok(None)
    }

    /// Tells the event sink that `node` was left through `branch`.
    fn left(&self, node: &NodePlan, branch: &str) {
        if let Some(sink) = &self.events {
            sink(crate::Event::NodeLeft {
                id: &node.id,
                name: &node.name,
                branch,
            });
        }
    }

    /// An EndNode was reached: the flow's outputs go to the FlowNode that ran it, or finish
    /// the session.
    fn finish_frame(
        &mut self,
        values: Map<String, Value>,
        branch: String,
    ) -> Result<Option<Need>, RunError> {
        let plan = Arc::clone(&self.plan);
        let frame = self.state.frames.pop().expect("a session has a frame");
        let flow = &plan.flows[frame.flow];
        let end = &flow.nodes[frame.node];
        self.left(end, &branch);
        let mut outputs = Map::new();
        for prop in &flow.outputs {
            let Some(value) = values.get(&prop.name).or_else(|| prop.default()) else {
                return Err(err(
                    "missing-output",
                    format!(
                        "flow `{}` ended at `{}`, which does not give its output `{}`, and the output has no default",
                        flow.name, end.name, prop.name
                    ),
                    end,
                ));
            };
            let value = cast(value, &prop.schema).map_err(|e| {
                err(
                    "cast-failed",
                    format!("output `{}` of flow `{}`: {e}", prop.name, flow.name),
                    end,
                )
            })?;
            outputs.insert(prop.name.clone(), value);
        }
        if self.state.frames.is_empty() {
            // the session is over: what the nodes were given is spent
            let mut frame = frame;
            frame.slots.clear();
            frame.named.clear();
            self.state.frames.push(frame);
            self.state.finished = Some(outputs.clone());
            return Ok(Some(Need::Finished(outputs)));
        }
        let parent = self.top();
        let node = &plan.flows[parent.flow].nodes[parent.node];
        if matches!(node.kind, NodeKind::Catch { .. }) {
            outputs.insert(CAUGHT_INFO.to_owned(), Value::Null);
        }
        self.complete(node, outputs, &branch)
    }

    /// The model's answer to an LlmNode: its outputs. The conversation is left as it is: an
    /// LlmNode's prompt and answer are not messages.
    pub(crate) fn answer_llm_node(&mut self, response: ChatResponse) -> Result<(), RunError> {
        let plan = Arc::clone(&self.plan);
        let frame = self.top();
        if !matches!(frame.wait, Wait::Model { .. }) {
            return Err(RunError::new(
                "unexpected-answer",
                "no node is waiting for its model".to_owned(),
            ));
        }
        let node = &plan.flows[frame.flow].nodes[frame.node];
        match generated(&node.outputs, &response.content) {
            Ok(outputs) => {
                frame.wait = Wait::Generated { outputs };
                Ok(())
            }
            Err(problem) => {
                let e = err(
                    "llm-output",
                    format!("the model's answer to node `{}` {problem}", node.name),
                    node,
                );
                self.fail(e)
            }
        }
    }

    /// The answer to an ApiNode's request (its status and body), or why there is none.
    pub fn answer_http(&mut self, answer: Result<(u16, String), String>) -> Result<(), RunError> {
        let plan = Arc::clone(&self.plan);
        let frame = self.top();
        if !matches!(frame.wait, Wait::Http { .. }) {
            return Err(RunError::new(
                "unexpected-answer",
                "no ApiNode is waiting for its answer".to_owned(),
            ));
        }
        let node = &plan.flows[frame.flow].nodes[frame.node];
        match answer {
            Ok((status, body)) => {
                frame.wait = Wait::Generated {
                    outputs: crate::http::outputs(&node.outputs, status, &body),
                };
                Ok(())
            }
            Err(message) => {
                let e = err(
                    "api-failed",
                    format!("the request of node `{}` failed: {message}", node.name),
                    node,
                );
                self.fail(e)
            }
        }
    }

    /// A ServerTool's result, from the driver.
    pub fn answer_server(
        &mut self,
        id: &str,
        result: Result<Value, String>,
    ) -> Result<(), RunError> {
        if self.agent_active() {
            return self.agent_result(id, result, false);
        }
        let plan = Arc::clone(&self.plan);
        let frame = self.top();
        let request = match &frame.wait {
            Wait::Server { request } if request.id == id => request.clone(),
            _ => {
                return Err(RunError::new(
                    "unexpected-answer",
                    format!("no ServerTool call `{id}` is waiting"),
                ));
            }
        };
        match result {
            Ok(value) => {
                frame.wait = Wait::Result { value };
                Ok(())
            }
            Err(message) => {
                let node = &plan.flows[frame.flow].nodes[frame.node];
                let e = err(
                    "tool-failed",
                    format!(
                        "tool `{}` of node `{}` failed: {message}",
                        request.name, node.name
                    ),
                    node,
                );
                self.fail(e)
            }
        }
    }

    /// The result of a client tool, from the caller.
    pub fn answer_client(&mut self, id: &str, content: Value) -> Result<(), RunError> {
        if self.agent_active() {
            return self.agent_result(id, Ok(content), true);
        }
        let frame = self.top();
        match &frame.wait {
            Wait::Client { request } if request.id == id => {
                frame.wait = Wait::Result {
                    value: content.clone(),
                };
                self.state.messages.push(Message::tool_result(id, &content));
                Ok(())
            }
            _ => Err(RunError::new(
                "unexpected-answer",
                format!("no client tool call `{id}` is waiting for a result"),
            )),
        }
    }

    /// The caller's decision on a call waiting for confirmation.
    pub fn decide(&mut self, id: &str, accept: bool, reason: String) -> Result<(), RunError> {
        if self.agent_active() {
            return self.agent_decide(id, accept, reason);
        }
        let frame = self.top();
        match std::mem::take(&mut frame.wait) {
            Wait::Confirmation { request } if request.id == id => {
                frame.wait = if accept {
                    Wait::Accepted { request }
                } else {
                    Wait::Rejected { request, reason }
                };
                Ok(())
            }
            other => {
                frame.wait = other;
                Err(RunError::new(
                    "unexpected-answer",
                    format!("no tool call `{id}` is waiting for a confirmation"),
                ))
            }
        }
    }

    /// Checks that a resumed state fits the plan: its indices are in it, each frame but the
    /// last runs a FlowNode, and each wait is one its node can have.
    pub fn check(&self) -> Result<(), RunError> {
        if self.state.seen > self.state.messages.len() {
            return Err(mismatch());
        }
        match (&self.state.agent, self.plan.root) {
            (Some(run), Root::Agent(group)) => {
                return if run.group == group && self.state.frames.is_empty() {
                    Ok(())
                } else {
                    Err(mismatch())
                };
            }
            (None, Root::Flow(_)) => {}
            _ => return Err(mismatch()),
        }
        let last = self
            .state
            .frames
            .len()
            .checked_sub(1)
            .ok_or_else(mismatch)?;
        for (i, frame) in self.state.frames.iter().enumerate() {
            let flow = self.plan.flows.get(frame.flow).ok_or_else(mismatch)?;
            let node = flow.nodes.get(frame.node).ok_or_else(mismatch)?;
            if frame.slots.keys().any(|&at| at >= flow.nodes.len()) {
                return Err(mismatch());
            }
            let fits = match (&frame.wait, &node.kind) {
                (Wait::Subflow, NodeKind::Flow { .. } | NodeKind::Catch { .. }) => i < last,
                (Wait::Subflow, _) => false,
                (_, _) if i < last => false,
                (Wait::Nothing, _) => true,
                (Wait::User { .. }, NodeKind::InputMessage { .. }) => true,
                (Wait::User { .. }, _) => false,
                (Wait::Model { .. } | Wait::Generated { .. }, NodeKind::Llm { .. }) => true,
                (Wait::Http { .. } | Wait::Generated { .. }, NodeKind::Api { .. }) => true,
                (
                    Wait::Children | Wait::Generated { .. },
                    NodeKind::Map { .. } | NodeKind::ParallelFlow { .. },
                ) => true,
                (Wait::Children, _) => false,
                (Wait::Model { .. } | Wait::Generated { .. } | Wait::Http { .. }, _) => false,
                (Wait::Agent { .. }, NodeKind::Agent { .. }) => true,
                (Wait::Agent { .. }, _) => false,
                (_, NodeKind::Tool { .. }) => true,
                _ => false,
            };
            if !fits {
                return Err(mismatch());
            }
        }
        if self.state.seen > self.state.messages.len() {
            return Err(mismatch());
        }
        Ok(())
    }
}

/// Whether the outputs are one string: an LlmNode then gives the model's text as it is.
fn single_string(outputs: &[Prop]) -> bool {
    matches!(outputs, [one] if one.schema.get("type").and_then(Value::as_str) == Some("string"))
}

/// The JSON value in a model's answer: the whole text, or inside a fenced block, or from
/// its first `{` to its last `}`.
fn json_in(text: &str) -> Option<Value> {
    let text = text.trim();
    if let Ok(v) = serde_json::from_str(text) {
        return Some(v);
    }
    if let Some(start) = text.find("```") {
        let body = &text[start + 3..];
        let body = body.strip_prefix("json").unwrap_or(body);
        if let Some(end) = body.find("```")
            && let Ok(v) = serde_json::from_str(body[..end].trim())
        {
            return Some(v);
        }
    }
    let (start, end) = (text.find('{')?, text.rfind('}')?);
    serde_json::from_str(text.get(start..=end)?).ok()
}

/// An LlmNode's outputs from the model's answer: the text for one string output, else the
/// JSON it holds: an object gives the outputs of its keys (one object-typed output takes it
/// whole), another value the first output.
fn generated(outputs: &[Prop], text: &str) -> Result<Map<String, Value>, String> {
    let mut out = Map::new();
    let Some(first) = outputs.first() else {
        return Ok(out);
    };
    if single_string(outputs) {
        out.insert(first.name.clone(), Value::String(text.to_owned()));
        return Ok(out);
    }
    let Some(value) = json_in(text) else {
        return Err(format!(
            "holds no JSON value: {}",
            crate::short_json(&Value::String(text.to_owned()))
        ));
    };
    let whole =
        outputs.len() == 1 && first.schema.get("type").and_then(Value::as_str) == Some("object");
    match value {
        Value::Object(fields) if !whole => {
            for prop in outputs {
                if let Some(v) = fields.get(&prop.name) {
                    out.insert(prop.name.clone(), v.clone());
                }
            }
        }
        other => {
            out.insert(first.name.clone(), other);
        }
    }
    Ok(out)
}

/// A tool's return value as its outputs: none, the whole value for one, the fields of an
/// object for several.
fn tool_outputs(
    outputs: &[Prop],
    value: Value,
    node: &NodePlan,
) -> Result<Map<String, Value>, RunError> {
    let mut out = Map::new();
    match outputs {
        [] => {}
        [one] => {
            out.insert(one.name.clone(), value);
        }
        several => {
            let Value::Object(mut fields) = value else {
                return Err(err(
                    "tool-output-shape",
                    format!(
                        "the tool of node `{}` has {} outputs, so it must return an object with them; it returned {}",
                        node.name,
                        several.len(),
                        crate::short_json(&value)
                    ),
                    node,
                ));
            };
            for prop in several {
                if let Some(v) = fields.remove(&prop.name) {
                    out.insert(prop.name.clone(), v);
                }
            }
        }
    }
    Ok(out)
}

/// The failures a CatchExceptionNode catches: what went wrong in the flow it runs, not a
/// limit of the session, nor a saved state that does not fit.
fn catchable(code: &str) -> bool {
    !matches!(
        code,
        "step-limit" | "saved-session-mismatch" | "unexpected-answer"
    )
}

/// The runs of a MapNode: an input given a list (of the subflow input's items) is iterated,
/// any other value is given to every run; lists iterated together have one length. With no
/// list, the subflow runs once.
fn map_runs(
    plan: &Plan,
    flow: usize,
    feeds: &[(String, String)],
    inputs: Map<String, Value>,
    node: &NodePlan,
) -> Result<Vec<Child>, RunError> {
    let subflow = &plan.flows[flow];
    let mut iterated: Vec<(&str, &Vec<Value>)> = Vec::new();
    let mut fixed = Map::new();
    for (from, to) in feeds {
        let Some(value) = inputs.get(from) else {
            continue;
        };
        let item_is_list = subflow
            .inputs
            .iter()
            .find(|p| p.name == *to)
            .and_then(|p| p.schema.get("type"))
            .and_then(Value::as_str)
            == Some("array");
        match value {
            Value::Array(items) if !item_is_list || items.iter().all(Value::is_array) => {
                iterated.push((to, items));
            }
            other => {
                fixed.insert(to.clone(), other.clone());
            }
        }
    }
    let count = iterated.first().map_or(1, |(_, items)| items.len());
    if let Some((name, items)) = iterated.iter().find(|(_, items)| items.len() != count) {
        return Err(err(
            "map-failed",
            format!(
                "node `{}` iterates lists of different lengths: {count} items, and {} for `{name}`",
                node.name,
                items.len()
            ),
            node,
        ));
    }
    Ok((0..count)
        .map(|i| {
            let mut inputs = fixed.clone();
            for (name, items) in &iterated {
                inputs.insert((*name).to_owned(), items[i].clone());
            }
            Child { flow, inputs }
        })
        .collect())
}

/// Reduces the values a MapNode collected: `None` when there is nothing to give (the
/// output's default then applies).
fn reduce(
    values: &[&Value],
    how: agentspec_types::ReductionMethod,
) -> Result<Option<Value>, String> {
    use agentspec_types::ReductionMethod as R;
    if matches!(how, R::Append) {
        return Ok(Some(Value::Array(
            values.iter().map(|v| (*v).clone()).collect(),
        )));
    }
    let mut numbers = Vec::with_capacity(values.len());
    for v in values {
        match v {
            Value::Number(n) => numbers.push(n),
            other => {
                return Err(format!(
                    "{how:?} reduces numbers, and a run gave {}",
                    crate::short_json(other)
                ));
            }
        }
    }
    let ints: Option<Vec<i64>> = numbers.iter().map(|n| n.as_i64()).collect();
    let floats: Vec<f64> = numbers.iter().filter_map(|n| n.as_f64()).collect();
    let value = match (how, &ints) {
        (R::Sum, Some(ints)) => Value::from(ints.iter().sum::<i64>()),
        (R::Sum, None) => Value::from(floats.iter().sum::<f64>()),
        _ if floats.is_empty() => return Ok(None),
        (R::Max, Some(ints)) => Value::from(*ints.iter().max().expect("not empty")),
        (R::Min, Some(ints)) => Value::from(*ints.iter().min().expect("not empty")),
        (R::Max, None) => Value::from(floats.iter().copied().fold(f64::MIN, f64::max)),
        (R::Min, None) => Value::from(floats.iter().copied().fold(f64::MAX, f64::min)),
        _ => Value::from(floats.iter().sum::<f64>() / floats.len() as f64),
    };
    Ok(Some(value))
}
