//! The agent loop, in the core (no I/O): the model is asked, the tools it calls are made one
//! at a time in order, their results go back to it, until it answers the user (a human in
//! the loop), submits the agent's outputs, or, with no human in the loop and no outputs,
//! answers in text.
//!
//! Names the model sees that the spec does not give are wayflowcore's, so that prompts and
//! test doubles written for the reference runtime carry over: the tool an agent with outputs
//! calls to finish is `submit_result`, its arguments the outputs.

use std::collections::VecDeque;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::cast::cast;
use crate::llm::{ChatMessage, ChatRequest, ChatResponse, ToolSchema};
use crate::plan::{AgentPlan, Prop, ToolPlace};
use crate::state::{AgentRun, AgentWait, Callee, Core, Need, Wait};
use crate::template::render;
use crate::{Message, Role, RunError, ToolRequest};

/// The name of the tool an agent with outputs finishes with.
pub(crate) const SUBMIT: &str = "submit_result";

/// The JSON Schema of arguments whose properties are `props`.
pub(crate) fn parameters(props: &[Prop]) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for p in props {
        let mut schema = p.schema.clone();
        schema.remove("title");
        properties.insert(p.name.clone(), Value::Object(schema));
        if p.default().is_none() {
            required.push(Value::String(p.name.clone()));
        }
    }
    json!({"type": "object", "properties": properties, "required": required})
}

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

impl Core {
    /// The agent running: the session's, or the one of the AgentNode running.
    fn active(&self) -> Option<&AgentRun> {
        if let Some(run) = &self.state.agent {
            return Some(run);
        }
        match &self.state.frames.last()?.wait {
            Wait::Agent { run } => Some(run),
            _ => None,
        }
    }

    fn active_mut(&mut self) -> Option<&mut AgentRun> {
        if let Some(run) = &mut self.state.agent {
            return Some(run);
        }
        match &mut self.state.frames.last_mut()?.wait {
            Wait::Agent { run } => Some(run),
            _ => None,
        }
    }

    /// Whether an agent is running (and answers go to it).
    pub(crate) fn agent_active(&self) -> bool {
        self.active().is_some()
    }

    fn run_mut(&mut self) -> &mut AgentRun {
        self.active_mut().expect("an agent is running")
    }

    /// The request for the model: the system prompt, the conversation, the tools.
    fn chat_request(&self, plan: &AgentPlan, run: &AgentRun) -> ChatRequest {
        let mut messages = vec![ChatMessage::System {
            content: render(&plan.system_prompt, |name| run.inputs.get(name)),
        }];
        for m in &self.state.messages {
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
        if !plan.outputs.is_empty() {
            tools.push(ToolSchema {
                name: SUBMIT.to_owned(),
                description: "Finishes the task with its outputs.".to_owned(),
                parameters: parameters(&plan.outputs),
            });
        }
        ChatRequest {
            model: plan.model.clone(),
            messages,
            tools,
            response_format: None,
        }
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
            let agent = &plan.agents[run.agent];
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
                    if request.name == SUBMIT && !agent.outputs.is_empty() {
                        match submitted(&agent.outputs, &request.args) {
                            Ok(outputs) => return Ok(Need::Finished(outputs)),
                            Err(problem) => {
                                self.state.messages.push(Message::tool_result(
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
                        if !agent.outputs.is_empty() {
                            names.push(SUBMIT);
                        }
                        let text = format!(
                            "There is no tool named `{}`. The tools are: {}.",
                            request.name,
                            names.join(", ")
                        );
                        self.state
                            .messages
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
        self.state.messages.push(Message {
            role: Role::Agent,
            content: response.content,
            tool_requests: response.tool_calls,
            tool_request_id: None,
        });
        if text_only {
            let asked_at = self.state.messages.len();
            if agent.human_in_the_loop {
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
        self.state.messages.push(Message::tool_result(id, &content));
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
                    self.state
                        .messages
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
