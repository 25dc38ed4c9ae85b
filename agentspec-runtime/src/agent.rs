//! The agent loop, in the core (no I/O): the model is asked, the tools it calls are made one
//! at a time in order, their results go back to it, until it answers the user (a human in
//! the loop), submits the agent's outputs, or, with no human in the loop and no outputs,
//! answers in text.
//!
//! A Swarm or a ManagerWorkers runs its members with the same loop: one member is the
//! user's contact (the main agent, on the session's conversation); a member that sends a
//! message to another opens (or goes on with) a private thread with it, where the
//! recipient's text answer goes back to the caller as the call's result; a Swarm's main
//! agent may hand the conversation over, the recipient becoming the main agent. One agent
//! is a group of one.
//!
//! Names the model sees that the spec does not give are wayflowcore's, so that prompts and
//! test doubles written for the reference runtime carry over: the tool an agent with outputs
//! calls to finish is `submit_result`, its arguments the outputs; a member of a group sends
//! with `send_message(recipient, message)` and hands over with
//! `handoff_conversation(recipient)`.

use std::collections::VecDeque;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::cast::cast;
use crate::llm::{ChatMessage, ChatRequest, ChatResponse, ToolSchema};
use crate::plan::{AgentPlan, GroupKind, GroupPlan, Plan, ToolPlace};
use crate::props::{Prop, parameters};
use crate::state::{AgentRun, AgentWait, Callee, Core, Delegation, GroupRun, Need, Thread, Wait};
use crate::template::render;
use crate::{Message, Role, RunError, ToolRequest};

/// The name of the tool an agent with outputs finishes with.
pub(crate) const SUBMIT: &str = "submit_result";
/// The tool a member of a group sends a message to another with.
pub(crate) const SEND: &str = "send_message";
/// The tool a Swarm's main agent hands the conversation over with.
pub(crate) const HANDOFF: &str = "handoff_conversation";

impl AgentRun {
    pub fn new(
        plan: &AgentPlan,
        agent: usize,
        given: Map<String, Value>,
    ) -> Result<Self, RunError> {
        let mut inputs = Map::new();
        for prop in &plan.inputs {
            let Some(value) = given.get(&prop.name).or_else(|| prop.default()) else {
                return Err(RunError::new(
                    "missing-input",
                    format!(
                        "input `{}` of the agent has no value and no default",
                        prop.name
                    ),
                ));
            };
            let value = cast(value, &prop.schema).map_err(|e| {
                RunError::new(
                    "cast-failed",
                    format!("input `{}` of the agent: {e}", prop.name),
                )
            })?;
            inputs.insert(prop.name.clone(), value);
        }
        if let Some(unknown) = given
            .keys()
            .find(|k| !plan.inputs.iter().any(|p| &p.name == *k))
        {
            return Err(RunError::new(
                "unknown-input",
                format!("the agent has no input `{unknown}`"),
            ));
        }
        Ok(AgentRun {
            agent,
            inputs,
            calls: 0,
            pending: VecDeque::new(),
            remind: false,
            listed: None,
            done: None,
            wait: AgentWait::Model,
        })
    }
}

impl GroupRun {
    /// The group `group` of the plan, started with `given` inputs: each member gets the
    /// ones it declares.
    pub fn new(
        plan: &crate::plan::Plan,
        group: usize,
        given: Map<String, Value>,
    ) -> Result<Self, RunError> {
        let spec = &plan.groups[group];
        let mut runs = Vec::with_capacity(spec.members.len());
        if spec.kind == GroupKind::Single {
            runs.push(AgentRun::new(
                &plan.agents[spec.members[0]],
                spec.members[0],
                given,
            )?);
        } else {
            let declared = |name: &str| {
                spec.inputs.iter().any(|p| p.name == name)
                    || spec
                        .members
                        .iter()
                        .any(|&m| plan.agents[m].inputs.iter().any(|p| p.name == name))
            };
            if let Some(unknown) = given.keys().find(|k| !declared(k)) {
                return Err(RunError::new(
                    "unknown-input",
                    format!("`{}` has no input `{unknown}`", spec.name),
                ));
            }
            for &member in &spec.members {
                let agent = &plan.agents[member];
                let mine = given
                    .iter()
                    .filter(|(k, _)| agent.inputs.iter().any(|p| &p.name == *k))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                runs.push(AgentRun::new(agent, member, mine)?);
            }
        }
        Ok(GroupRun {
            group,
            main: 0,
            runs,
            threads: Vec::new(),
            stack: Vec::new(),
        })
    }

    /// The member whose turn it is: the recipient of the last message sent, else the main
    /// agent.
    pub fn active(&self) -> usize {
        self.stack.last().map_or(self.main, |d| d.recipient)
    }
}

impl Core {
    /// The group running: the session's, or the one of the AgentNode running.
    pub(crate) fn group(&self) -> Option<&GroupRun> {
        if let Some(run) = &self.state.agent {
            return Some(run);
        }
        match &self.state.frames.last()?.wait {
            Wait::Agent { run } => Some(run),
            _ => None,
        }
    }

    fn group_mut(&mut self) -> Option<&mut GroupRun> {
        if let Some(run) = &mut self.state.agent {
            return Some(run);
        }
        match &mut self.state.frames.last_mut()?.wait {
            Wait::Agent { run } => Some(run),
            _ => None,
        }
    }

    /// The agent whose turn it is.
    fn active(&self) -> Option<&AgentRun> {
        let group = self.group()?;
        group.runs.get(group.active())
    }

    fn active_mut(&mut self) -> Option<&mut AgentRun> {
        let group = self.group_mut()?;
        let active = group.active();
        group.runs.get_mut(active)
    }

    /// The conversation of the agent whose turn it is: its private thread with the member
    /// that messaged it, else the session's.
    fn conversation(&self) -> &[Message] {
        match self
            .group()
            .and_then(|g| g.stack.last().map(|d| &g.threads[d.thread]))
        {
            Some(thread) => &thread.messages,
            None => &self.state.messages,
        }
    }

    fn conversation_mut(&mut self) -> &mut Vec<Message> {
        let thread = self.group().and_then(|g| g.stack.last().map(|d| d.thread));
        match (thread, &mut self.state.agent) {
            (Some(thread), Some(group)) => &mut group.threads[thread].messages,
            (Some(thread), None) => match self.state.frames.last_mut().map(|f| &mut f.wait) {
                Some(Wait::Agent { run }) => &mut run.threads[thread].messages,
                _ => &mut self.state.messages,
            },
            (None, _) => &mut self.state.messages,
        }
    }

    /// Whether an agent is running (and answers go to it).
    pub(crate) fn agent_active(&self) -> bool {
        self.active().is_some()
    }

    fn run_mut(&mut self) -> &mut AgentRun {
        self.active_mut().expect("an agent is running")
    }

    /// The outputs the agent whose turn it is finishes with: its own, but for the member of
    /// a Swarm or a ManagerWorkers talking with the user, who submits the group's (when the
    /// group declares any). A Swarm member answering another in a private thread has none
    /// (its answer is its text, as in wayflowcore); a ManagerWorkers' worker keeps its own.
    fn outputs<'p>(&self, plan: &'p Plan, agent: usize) -> &'p [Prop] {
        if let Some(group) = self.group() {
            let plan_group = &plan.groups[group.group];
            if group.stack.is_empty() {
                if !plan_group.outputs.is_empty() {
                    return &plan_group.outputs;
                }
            } else if matches!(plan_group.kind, GroupKind::Swarm { .. }) {
                return &[];
            }
        }
        &plan.agents[agent].outputs
    }

    /// The request for the model: the system prompt, the conversation, the tools.
    fn chat_request(&self, plan: &AgentPlan, run: &AgentRun) -> ChatRequest {
        let mut messages = vec![ChatMessage::System {
            content: render(&plan.system_prompt, |name| run.inputs.get(name)),
        }];
        for m in self.conversation() {
            messages.push(match m.role {
                Role::User => ChatMessage::User {
                    content: m.content.clone(),
                },
                Role::Agent => ChatMessage::Assistant {
                    content: m.content.clone(),
                    tool_calls: m.tool_requests.clone(),
                },
                Role::Tool => ChatMessage::Tool {
                    tool_call_id: m.tool_request_id.clone().unwrap_or_default(),
                    content: m.content.clone(),
                },
            });
        }
        if run.remind {
            messages.push(ChatMessage::User {
                content: format!(
                    "No user will answer. Finish by calling `{SUBMIT}` with the outputs."
                ),
            });
        }
        let mut tools: Vec<ToolSchema> = plan
            .tools
            .iter()
            .map(|&t| {
                let tool = &self.plan.tools[t];
                ToolSchema {
                    name: tool.name.clone(),
                    description: tool.description.clone(),
                    parameters: parameters(&tool.inputs),
                }
            })
            .collect();
        for listed in run.listed.iter().flatten() {
            tools.push(ToolSchema {
                name: listed.name.clone(),
                description: listed.description.clone(),
                parameters: listed.parameters.clone(),
            });
        }
        if let Some(group) = self.group() {
            tools.extend(self.group_tools(&self.plan.groups[group.group], group.active()));
        }
        let outputs = self.outputs(&self.plan, run.agent);
        if !outputs.is_empty() {
            tools.push(ToolSchema {
                name: SUBMIT.to_owned(),
                description: "Finishes the task with its outputs.".to_owned(),
                parameters: parameters(outputs),
            });
        }
        ChatRequest {
            model: plan.model.clone(),
            messages,
            tools,
            response_format: None,
        }
    }

    /// The tools a member of a group reaches the others with.
    fn group_tools(&self, group: &GroupPlan, member: usize) -> Vec<ToolSchema> {
        let recipients: Vec<usize> = group.recipients(member).collect();
        if recipients.is_empty() {
            return Vec::new();
        }
        let names: Vec<Value> = recipients
            .iter()
            .map(|&r| Value::String(self.plan.agents[group.members[r]].name.clone()))
            .collect();
        let who: Vec<String> = recipients
            .iter()
            .map(|&r| {
                let agent = &self.plan.agents[group.members[r]];
                match &agent.description {
                    Some(d) if !d.is_empty() => format!("{} ({d})", agent.name),
                    _ => agent.name.clone(),
                }
            })
            .collect();
        let (send, handoff) = match group.kind {
            GroupKind::Single => (false, false),
            GroupKind::Swarm { send, handoff } => (send, handoff),
            GroupKind::ManagerWorkers => (true, false),
        };
        let mut tools = Vec::new();
        if send {
            tools.push(ToolSchema {
                name: SEND.to_owned(),
                description: format!(
                    "Sends a message to another agent and returns its answer. You can reach: {}.",
                    who.join("; ")
                ),
                parameters: json!({
                    "type": "object",
                    "properties": {
                        "recipient": {"type": "string", "enum": names},
                        "message": {"type": "string"},
                    },
                    "required": ["recipient", "message"],
                }),
            });
        }
        if handoff {
            tools.push(ToolSchema {
                name: HANDOFF.to_owned(),
                description: format!(
                    "Hands the conversation with the user over to another agent, who answers from then on. You can hand over to: {}.",
                    who.join("; ")
                ),
                parameters: json!({
                    "type": "object",
                    "properties": {"recipient": {"type": "string", "enum": names}},
                    "required": ["recipient"],
                }),
            });
        }
        tools
    }

    /// A call of `send_message` or `handoff_conversation` by the active member: `None`
    /// when the call is no such call (the agent has no group, or the group gives it no
    /// such tool).
    fn group_call(&mut self, request: &ToolRequest) -> Option<()> {
        let plan = Arc::clone(&self.plan);
        let group = self.group()?;
        let spec = &plan.groups[group.group];
        let caller = group.active();
        let tools = self.group_tools(spec, caller);
        if !tools.iter().any(|t| t.name == request.name) {
            return None;
        }
        let name = request.args.get("recipient").and_then(Value::as_str);
        let recipient = spec
            .recipients(caller)
            .find(|&r| Some(plan.agents[spec.members[r]].name.as_str()) == name);
        let refuse = |core: &mut Core, text: String| {
            core.conversation_mut()
                .push(Message::tool_result(&request.id, &Value::String(text)));
        };
        let Some(recipient) = recipient else {
            let names: Vec<&str> = spec
                .recipients(caller)
                .map(|r| plan.agents[spec.members[r]].name.as_str())
                .collect();
            refuse(
                self,
                format!(
                    "No agent named `{}` can be reached: the recipients are {}.",
                    name.unwrap_or_default(),
                    names.join(", ")
                ),
            );
            return Some(());
        };
        let group = self.group().expect("a group runs");
        if request.name == HANDOFF {
            if !group.stack.is_empty() || caller != group.main {
                refuse(
                    self,
                    "Only the agent talking with the user can hand the conversation over; answer the agent that wrote to you instead.".to_owned(),
                );
                return Some(());
            }
            let to = plan.agents[spec.members[recipient]].name.clone();
            let group = self.group_mut().expect("a group runs");
            let dropped: Vec<ToolRequest> = group.runs[caller].pending.drain(..).collect();
            group.main = recipient;
            let next = &mut group.runs[recipient];
            next.wait = AgentWait::Model;
            next.calls = 0;
            let messages = self.conversation_mut();
            messages.push(Message::tool_result(
                &request.id,
                &Value::String(format!("The conversation is now with {to}.")),
            ));
            for d in dropped {
                messages.push(Message::tool_result(
                    &d.id,
                    &Value::String("Not made: the conversation was handed over.".to_owned()),
                ));
            }
            return Some(());
        }
        // send_message: the recipient answers in its thread with the caller
        if recipient == group.main && group.stack.is_empty()
            || group.stack.iter().any(|d| d.caller == recipient)
        {
            refuse(
                self,
                "That agent is waiting for your answer: reply to it in text instead.".to_owned(),
            );
            return Some(());
        }
        let text = request
            .args
            .get("message")
            .map(crate::template::value_text)
            .unwrap_or_default();
        let group = self.group_mut().expect("a group runs");
        let thread = match group
            .threads
            .iter()
            .position(|t| t.caller == caller && t.recipient == recipient)
        {
            Some(t) => t,
            None => {
                group.threads.push(Thread {
                    caller,
                    recipient,
                    messages: Vec::new(),
                });
                group.threads.len() - 1
            }
        };
        group.threads[thread].messages.push(Message::user(text));
        group.stack.push(Delegation {
            caller,
            recipient,
            request: request.clone(),
            thread,
        });
        let next = &mut group.runs[recipient];
        next.wait = AgentWait::Model;
        next.calls = 0;
        Some(())
    }

    /// Runs the active agent until it needs an answer, or finishes
    /// ([`Need::Finished`] with its outputs: the caller finishes the session, or the
    /// AgentNode).
    pub(crate) fn advance_agent(&mut self) -> Result<Need, RunError> {
        let plan = Arc::clone(&self.plan);
        let max_iterations = self.limits.max_iterations;
        loop {
            let run = self.run_mut();
            if let Some(outputs) = run.done.take() {
                return Ok(Need::Finished(outputs));
            }
            let agent_index = run.agent;
            let agent = &plan.agents[agent_index];
            match std::mem::take(&mut run.wait) {
                AgentWait::Model => {
                    if run.calls >= max_iterations {
                        return Err(RunError::new(
                            "iteration-limit",
                            format!(
                                "the agent called its model {} times without finishing (RuntimeBuilder::max_iterations)",
                                run.calls
                            ),
                        ));
                    }
                    run.wait = AgentWait::Model;
                    if !agent.toolboxes.is_empty() && run.listed.is_none() {
                        return Ok(Need::ListTools { agent: run.agent });
                    }
                    let run = self.active().expect("an agent is running");
                    let request = Box::new(self.chat_request(agent, run));
                    return Ok(Need::Model(request, Some(run.agent)));
                }
                AgentWait::User { asked_at } => {
                    let answered = self.state.messages[asked_at.min(self.state.messages.len())..]
                        .iter()
                        .any(|m| m.role == Role::User);
                    let run = self.run_mut();
                    if answered {
                        run.calls = 0;
                        run.wait = AgentWait::Model;
                    } else {
                        run.wait = AgentWait::User { asked_at };
                        return Ok(Need::User);
                    }
                }
                AgentWait::Confirmation { request } => {
                    run.wait = AgentWait::Confirmation {
                        request: request.clone(),
                    };
                    return Ok(Need::Confirm(vec![request]));
                }
                AgentWait::Accepted { request } => return self.agent_dispatch(request),
                AgentWait::Client { request } => {
                    run.wait = AgentWait::Client {
                        request: request.clone(),
                    };
                    return Ok(Need::Client(vec![request]));
                }
                AgentWait::Server { request } => return self.agent_dispatch(request),
                AgentWait::Nothing => {
                    let Some(request) = run.pending.pop_front() else {
                        run.wait = AgentWait::Model;
                        continue;
                    };
                    if self.group_call(&request).is_some() {
                        continue;
                    }
                    let outputs = self.outputs(&plan, agent_index);
                    if request.name == SUBMIT && !outputs.is_empty() {
                        match submitted(outputs, &request.args) {
                            Ok(outputs) => {
                                let group = self.group_mut().expect("a group runs");
                                let Some(done) = group.stack.pop() else {
                                    return Ok(Need::Finished(outputs));
                                };
                                // a member that was written to answers with its outputs
                                group.runs[done.recipient].wait = AgentWait::Model;
                                group.runs[done.recipient].pending.clear();
                                self.conversation_mut().push(Message::tool_result(
                                    &done.request.id,
                                    &Value::Object(outputs),
                                ));
                                continue;
                            }
                            Err(problem) => {
                                self.conversation_mut().push(Message::tool_result(
                                    &request.id,
                                    &Value::String(problem),
                                ));
                                continue;
                            }
                        }
                    }
                    let Some((_, confirm)) = self.agent_callee(agent, &request.name) else {
                        let run = self.active().expect("an agent is running");
                        let mut names: Vec<&str> = agent
                            .tools
                            .iter()
                            .map(|&t| plan.tools[t].name.as_str())
                            .chain(run.listed.iter().flatten().map(|l| l.name.as_str()))
                            .collect();
                        if !outputs.is_empty() {
                            names.push(SUBMIT);
                        }
                        let text = if names.is_empty() {
                            format!(
                                "There is no tool named `{}`, and no tool to call: answer in text.",
                                request.name
                            )
                        } else {
                            format!(
                                "There is no tool named `{}`. The tools are: {}.",
                                request.name,
                                names.join(", ")
                            )
                        };
                        self.conversation_mut()
                            .push(Message::tool_result(&request.id, &Value::String(text)));
                        continue;
                    };
                    if confirm {
                        self.run_mut().wait = AgentWait::Confirmation {
                            request: request.clone(),
                        };
                        return Ok(Need::Confirm(vec![request]));
                    }
                    return self.agent_dispatch(request);
                }
            }
        }
    }

    /// The index of the agent's tool named `name`.
    fn agent_tool(&self, agent: &AgentPlan, name: &str) -> Option<usize> {
        agent
            .tools
            .iter()
            .copied()
            .find(|&t| self.plan.tools[t].name == name)
    }

    /// The tool of the agent (its own or one its toolboxes listed) named `name`, and
    /// whether a call of it requires confirmation.
    fn agent_callee(&self, agent: &AgentPlan, name: &str) -> Option<(Callee, bool)> {
        if let Some(tool) = self.agent_tool(agent, name) {
            return Some((
                Callee::Tool(tool),
                self.plan.tools[tool].requires_confirmation,
            ));
        }
        let run = self.active()?;
        let listed = run.listed.iter().flatten().find(|l| l.name == name)?;
        Some((Callee::Listed(listed.server), listed.requires_confirmation))
    }

    /// The tools the agent's toolboxes listed (or why they could not be).
    pub(crate) fn answer_listed(
        &mut self,
        listed: Result<Vec<crate::mcp::Listed>, String>,
    ) -> Result<(), RunError> {
        match listed {
            Ok(listed) => {
                let run = self.run_mut();
                run.listed = Some(listed);
                Ok(())
            }
            Err(message) => self.fail(RunError::new("tool-failed", message)),
        }
    }

    fn agent_dispatch(&mut self, request: ToolRequest) -> Result<Need, RunError> {
        let plan = Arc::clone(&self.plan);
        let agent = &plan.agents[self.run_mut().agent];
        let Some((callee, _)) = self.agent_callee(agent, &request.name) else {
            return Err(RunError::new(
                "saved-session-mismatch",
                "the saved session does not fit the document's agent".to_owned(),
            ));
        };
        let tool = match callee {
            Callee::Tool(tool) => tool,
            Callee::Listed(_) => {
                self.run_mut().wait = AgentWait::Server {
                    request: request.clone(),
                };
                return Ok(Need::Call {
                    request,
                    tool: callee,
                });
            }
        };
        Ok(match plan.tools[tool].place {
            ToolPlace::Client => {
                self.run_mut().wait = AgentWait::Client {
                    request: request.clone(),
                };
                Need::Client(vec![request])
            }
            ToolPlace::Toolbox | ToolPlace::Host | ToolPlace::Remote(_) | ToolPlace::Mcp(_) => {
                self.run_mut().wait = AgentWait::Server {
                    request: request.clone(),
                };
                Need::Call {
                    request,
                    tool: Callee::Tool(tool),
                }
            }
        })
    }

    /// The model's answer, from the driver.
    pub(crate) fn answer_model(&mut self, response: ChatResponse) -> Result<(), RunError> {
        if !self.agent_active() {
            return self.answer_llm_node(response);
        }
        let plan = Arc::clone(&self.plan);
        let run = self.run_mut();
        if !matches!(run.wait, AgentWait::Model) {
            return Err(RunError::new(
                "unexpected-answer",
                "the agent is not waiting for its model".to_owned(),
            ));
        }
        let agent = &plan.agents[run.agent];
        run.calls += 1;
        run.remind = false;
        let text_only = response.tool_calls.is_empty();
        run.pending = response.tool_calls.iter().cloned().collect();
        run.wait = AgentWait::Nothing;
        let text = response.content.clone();
        self.conversation_mut().push(Message {
            role: Role::Agent,
            content: response.content,
            tool_requests: response.tool_calls,
            tool_request_id: None,
        });
        if text_only {
            let group = self.group().expect("an agent runs in a group");
            let single = plan.groups[group.group].kind == GroupKind::Single;
            if !group.stack.is_empty() {
                // a member that was written to answers: back to the one that wrote
                let group = self.group_mut().expect("a group runs");
                let done = group.stack.pop().expect("a message was sent");
                group.runs[done.recipient].wait = AgentWait::Model;
                self.conversation_mut()
                    .push(Message::tool_result(&done.request.id, &Value::String(text)));
                return Ok(());
            }
            let asked_at = self.state.messages.len();
            if agent.human_in_the_loop || !single {
                // a text answer is for the user: the agent waits for the reply
                self.run_mut().wait = AgentWait::User { asked_at };
            } else if agent.outputs.is_empty() {
                // no one to answer and nothing to submit: the answer is the end
                self.run_mut().done = Some(Map::new());
            } else {
                self.run_mut().remind = true;
                self.run_mut().wait = AgentWait::Model;
            }
        }
        Ok(())
    }

    /// A tool's result (`Err`: it failed) for the agent: it goes back to the model.
    pub(crate) fn agent_result(
        &mut self,
        id: &str,
        result: Result<Value, String>,
        client: bool,
    ) -> Result<(), RunError> {
        let run = self.run_mut();
        let waiting = match &run.wait {
            AgentWait::Server { request } if !client => request.id == id,
            AgentWait::Client { request } if client => request.id == id,
            _ => false,
        };
        if !waiting {
            return Err(RunError::new(
                "unexpected-answer",
                format!("no tool call `{id}` is waiting for a result"),
            ));
        }
        run.wait = AgentWait::Nothing;
        let content = match result {
            Ok(value) => value,
            Err(message) => Value::String(format!("The tool failed: {message}")),
        };
        self.conversation_mut()
            .push(Message::tool_result(id, &content));
        Ok(())
    }

    /// The caller's decision on the agent's call waiting for confirmation.
    pub(crate) fn agent_decide(
        &mut self,
        id: &str,
        accept: bool,
        reason: String,
    ) -> Result<(), RunError> {
        let run = self.run_mut();
        match std::mem::take(&mut run.wait) {
            AgentWait::Confirmation { request } if request.id == id => {
                if accept {
                    run.wait = AgentWait::Accepted { request };
                } else {
                    let mut text = format!("The user rejected the call of `{}`.", request.name);
                    if !reason.is_empty() {
                        text.push_str(" Reason: ");
                        text.push_str(&reason);
                    }
                    self.conversation_mut()
                        .push(Message::tool_result(id, &Value::String(text)));
                }
                Ok(())
            }
            other => {
                run.wait = other;
                Err(RunError::new(
                    "unexpected-answer",
                    format!("no tool call `{id}` is waiting for a confirmation"),
                ))
            }
        }
    }
}

/// The agent's outputs from `submit_result`'s arguments, or what is wrong with them (told
/// to the model, which tries again).
fn submitted(outputs: &[Prop], args: &Value) -> Result<Map<String, Value>, String> {
    let given = args.as_object().cloned().unwrap_or_default();
    let mut out = Map::new();
    let mut problems = Vec::new();
    for prop in outputs {
        match given.get(&prop.name).or_else(|| prop.default()) {
            Some(value) => match cast(value, &prop.schema) {
                Ok(v) => {
                    out.insert(prop.name.clone(), v);
                }
                Err(e) => problems.push(format!("`{}`: {e}", prop.name)),
            },
            None => problems.push(format!("`{}` is missing", prop.name)),
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(format!(
            "The outputs were not accepted: {}.",
            problems.join("; ")
        ))
    }
}
