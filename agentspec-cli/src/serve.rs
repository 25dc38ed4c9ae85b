//! `agentspec serve`: the runtime for another program, over JSON lines on stdin and stdout.
//!
//! Each line is one JSON object. The host sends requests, `{"id", "method", "params"}`, and
//! gets one reply per request, `{"id", "result"}` or `{"id", "error": {"code", "message"}}`
//! (a load error adds `diagnostics`, each with its code, message, JSON pointer, line and
//! column). While a `run` is under way the runtime calls the host's ServerTools with its own
//! requests, `{"id": "tool-N", "method": "tool.call", "params": {"name", "args"}}`, and the
//! host answers each with `{"id": "tool-N", "result": …}` or `{"id": "tool-N", "error":
//! {"message": …}}`, in any order: several calls may be in flight at once. With
//! `"events": true` at load, notifications without an id, `{"method": "event", "params":
//! {…}}`, tell what happens as it happens. Requests are handled in order; a reply is written
//! once its request is done.
//!
//! The methods, and what they answer:
//! - `load {document, format?, host_tools?, values?, events?, check_models?, allow_stdio?}`:
//!   compiles the document (`allow_stdio: true` lets its MCP tools start their servers'
//!   commands)
//!   (`format` is `json` or `yaml`; by default JSON when the text starts with `{`).
//!   `host_tools` lists the ServerTools the host runs (a ServerTool neither here nor among
//!   them is a `missing-tool` load error), or is `true` for every one; `values` gives the
//!   values of the document's `$component_ref` placeholders (secrets); `check_models: false`
//!   loads a model config the client cannot serve, whose first call then fails with
//!   `llm-unsupported`. Answers `{component_type, name}`.
//! - `start {inputs?}`: a new session; answers `{session}`. The other methods take
//!   `session`, by default the last one started or resumed.
//! - `run {session?}`: runs to the next stop; answers `{status: "finished", outputs,
//!   messages}`, `{status: "user_message_request", messages}`, `{status: "tool_request",
//!   tool_requests}` or `{status: "tool_confirmation", tool_requests}`, where a tool request
//!   is `{id, name, args}` and a message `{role, content}`. A session that fails answers an
//!   error whose code is the runtime's (`tool-failed`, `llm-failed`, …).
//! - `append_user_message {text}`, `append_tool_result {tool_request_id, content}`,
//!   `confirm {tool_request_id, accept, reason?}`: answer `{}`.
//! - `save {session?}`: the session's state ([`SavedSession`]); `resume {saved}` continues
//!   one in a new session of the loaded document and answers `{session}`.
//! - `messages {session?}`: the whole conversation; `close {session}` ends a session.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use agentspec_runtime::openai::OpenAiClient;
use agentspec_runtime::{
    Event, HostFuture, HostTools, Loaded, Runtime, SavedSession, Session, Status,
};
use agentspec_types::{ComponentInfo, Diagnostic, Document, Format, LoadOptions, Values, locate};
use serde_json::{Map, Value, json};
use tokio::sync::{mpsc, oneshot};

/// Where replies, calls and events go: one line each, whole.
type Out = Arc<Mutex<Box<dyn Write + Send>>>;

/// The host's answers to the runtime's calls, by call id.
type Pending = Arc<Mutex<HashMap<String, oneshot::Sender<Result<Value, String>>>>>;

fn send(out: &Out, line: &Value) {
    let mut out = out.lock().unwrap_or_else(|e| e.into_inner());
    let mut text = line.to_string();
    text.push('\n');
    // a host that stopped reading ends the process's purpose: nothing to report to
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// An error reply's body.
fn error(code: &str, message: impl Into<String>) -> Value {
    json!({"code": code, "message": message.into()})
}

/// The ServerTools the host runs: each call is a `tool.call` request to it.
struct Host {
    out: Out,
    pending: Pending,
    next: AtomicU64,
    names: Option<Vec<String>>,
}

impl HostTools for Host {
    fn call(&self, name: &str, args: Value) -> HostFuture {
        let id = format!("tool-{}", self.next.fetch_add(1, Ordering::Relaxed) + 1);
        let (reply, answer) = oneshot::channel();
        self.pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id.clone(), reply);
        send(
            &self.out,
            &json!({"id": id, "method": "tool.call", "params": {"name": name, "args": args}}),
        );
        Box::pin(async move {
            answer
                .await
                .unwrap_or_else(|_| Err("the host closed its input before answering".to_owned()))
        })
    }

    fn names(&self) -> Option<Vec<String>> {
        self.names.clone()
    }
}

/// Runs `agentspec serve` on `input` and `output` until the input ends: 0, or 2 when the
/// async runtime cannot start.
pub(crate) fn serve(
    input: Box<dyn BufRead + Send>,
    output: Box<dyn Write + Send>,
    err: &mut dyn Write,
) -> u8 {
    let Some(tokio) = crate::chat::async_runtime(err) else {
        return 2;
    };
    let out: Out = Arc::new(Mutex::new(output));
    let pending: Pending = Arc::default();
    let (requests, mut received) = mpsc::unbounded_channel::<Value>();
    // the reader: requests go to the loop, answers to the calls waiting for them, at once
    // (a run in progress waits for its calls' answers)
    let reader = {
        let out = Arc::clone(&out);
        let pending = Arc::clone(&pending);
        std::thread::spawn(move || read_lines(input, &out, &pending, &requests))
    };
    tokio.block_on(async {
        let mut server = Server {
            out: Arc::clone(&out),
            pending: Arc::clone(&pending),
            loaded: None,
            sessions: HashMap::new(),
            last: None,
            started: 0,
        };
        while let Some(request) = received.recv().await {
            server.handle(request).await;
        }
    });
    let _ = reader.join();
    0
}

fn read_lines(
    input: Box<dyn BufRead + Send>,
    out: &Out,
    pending: &Pending,
    requests: &mpsc::UnboundedSender<Value>,
) {
    for line in input.lines() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        let message: Value = match serde_json::from_str(&line) {
            Ok(Value::Object(m)) => Value::Object(m),
            Ok(_) => {
                send(
                    out,
                    &json!({"id": null, "error": error("invalid-request", "a line is one JSON object")}),
                );
                continue;
            }
            Err(e) => {
                send(
                    out,
                    &json!({"id": null, "error": error("parse-error", format!("a line is not JSON: {e}"))}),
                );
                continue;
            }
        };
        if message.get("method").is_some() {
            if requests.send(message).is_err() {
                break;
            }
            continue;
        }
        // an answer to one of the runtime's calls
        let id = match message.get("id") {
            Some(Value::String(id)) => id.clone(),
            _ => {
                send(
                    out,
                    &json!({"id": null, "error": error("invalid-request", "a line without a method answers a call, and names its id")}),
                );
                continue;
            }
        };
        let waiting = pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&id);
        let Some(waiting) = waiting else {
            send(
                out,
                &json!({"id": id, "error": error("unexpected-answer", format!("no call `{id}` is waiting for an answer"))}),
            );
            continue;
        };
        let answer = match (message.get("result"), message.get("error")) {
            (_, Some(e)) => Err(e
                .get("message")
                .and_then(Value::as_str)
                .map_or_else(|| e.to_string(), str::to_owned)),
            (Some(result), None) => Ok(result.clone()),
            (None, None) => Err("the host answered with neither a result nor an error".to_owned()),
        };
        let _ = waiting.send(answer);
    }
    // the input ended: the calls still waiting fail, and the loop ends with the channel
    pending.lock().unwrap_or_else(|e| e.into_inner()).clear();
}

struct Server {
    out: Out,
    pending: Pending,
    loaded: Option<Loaded>,
    sessions: HashMap<String, Session>,
    last: Option<String>,
    started: u64,
}

impl Server {
    async fn handle(&mut self, request: Value) {
        let id = request.get("id").cloned().unwrap_or(Value::Null);
        let method = request
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let params = match request.get("params") {
            Some(Value::Object(p)) => p.clone(),
            None | Some(Value::Null) => Map::new(),
            Some(_) => {
                self.reply(
                    id,
                    Err(error("invalid-params", "`params` is an object when given")),
                );
                return;
            }
        };
        let result = self.dispatch(&method, &params).await;
        self.reply(id, result);
    }

    fn reply(&self, id: Value, result: Result<Value, Value>) {
        let line = match result {
            Ok(result) => json!({"id": id, "result": result}),
            Err(error) => json!({"id": id, "error": error}),
        };
        send(&self.out, &line);
    }

    async fn dispatch(
        &mut self,
        method: &str,
        params: &Map<String, Value>,
    ) -> Result<Value, Value> {
        match method {
            "load" => self.load(params),
            "start" => {
                let loaded = self.loaded()?;
                let inputs = params.get("inputs").cloned().unwrap_or(Value::Null);
                let session = loaded.start(inputs).map_err(run_error)?;
                Ok(self.keep(session))
            }
            "resume" => {
                let loaded = self.loaded()?;
                let saved: SavedSession =
                    serde_json::from_value(params.get("saved").cloned().unwrap_or(Value::Null))
                        .map_err(|e| {
                            error(
                                "invalid-params",
                                format!("`saved` is not a saved session: {e}"),
                            )
                        })?;
                let session = loaded.resume(saved).map_err(run_error)?;
                Ok(self.keep(session))
            }
            "run" => {
                let session = self.session(params)?;
                let status = session.run().await.map_err(run_error)?;
                Ok(status_json(status))
            }
            "append_user_message" => {
                let text = text_param(params, "text")?;
                self.session(params)?.append_user_message(text);
                Ok(json!({}))
            }
            "append_tool_result" => {
                let id = text_param(params, "tool_request_id")?;
                let content = params.get("content").cloned().unwrap_or(Value::Null);
                self.session(params)?
                    .append_tool_result(&id, content)
                    .map_err(run_error)?;
                Ok(json!({}))
            }
            "confirm" => {
                let id = text_param(params, "tool_request_id")?;
                let Some(accept) = params.get("accept").and_then(Value::as_bool) else {
                    return Err(error(
                        "invalid-params",
                        "`accept` is true (the call is made) or false (it is not)",
                    ));
                };
                let reason = params
                    .get("reason")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                let session = self.session(params)?;
                if accept {
                    session.confirm(&id)
                } else {
                    session.reject(&id, reason)
                }
                .map_err(run_error)?;
                Ok(json!({}))
            }
            "save" => {
                let saved = self.session(params)?.save();
                serde_json::to_value(saved).map_err(|e| error("internal", e.to_string()))
            }
            "messages" => {
                let messages = self.session(params)?.messages();
                serde_json::to_value(messages).map_err(|e| error("internal", e.to_string()))
            }
            "close" => {
                let name = text_param(params, "session")?;
                if self.sessions.remove(&name).is_none() {
                    return Err(error("unknown-session", format!("no session `{name}`")));
                }
                if self.last.as_deref() == Some(&name) {
                    self.last = None;
                }
                Ok(json!({}))
            }
            other => Err(error(
                "unknown-method",
                format!(
                    "no method `{other}`: the methods are load, start, resume, run, append_user_message, append_tool_result, confirm, save, messages and close"
                ),
            )),
        }
    }

    fn loaded(&self) -> Result<&Loaded, Value> {
        self.loaded
            .as_ref()
            .ok_or_else(|| error("not-loaded", "no document is loaded: call `load` first"))
    }

    fn keep(&mut self, session: Session) -> Value {
        self.started += 1;
        let name = format!("s{}", self.started);
        self.sessions.insert(name.clone(), session);
        self.last = Some(name.clone());
        json!({"session": name})
    }

    fn session(&mut self, params: &Map<String, Value>) -> Result<&mut Session, Value> {
        let name = match params.get("session") {
            Some(Value::String(name)) => name.clone(),
            None | Some(Value::Null) => self
                .last
                .clone()
                .ok_or_else(|| error("unknown-session", "no session is started: call `start`"))?,
            Some(other) => {
                return Err(error(
                    "invalid-params",
                    format!("`session` is a session's name, not {other}"),
                ));
            }
        };
        self.sessions
            .get_mut(&name)
            .ok_or_else(|| error("unknown-session", format!("no session `{name}`")))
    }

    fn load(&mut self, params: &Map<String, Value>) -> Result<Value, Value> {
        let text = text_param(params, "document")?;
        let format = match params.get("format").and_then(Value::as_str) {
            Some("json") => Format::Json,
            Some("yaml") => Format::Yaml,
            None if text.trim_start().starts_with('{') => Format::Json,
            None => Format::Yaml,
            Some(other) => {
                return Err(error(
                    "invalid-params",
                    format!("`format` is `json` or `yaml`, not `{other}`"),
                ));
            }
        };
        let mut values = Values::new();
        if let Some(given) = params.get("values") {
            let Value::Object(given) = given else {
                return Err(error(
                    "invalid-params",
                    "`values` is an object keyed by placeholder",
                ));
            };
            for (placeholder, value) in given {
                values.insert(placeholder.clone(), value.clone());
            }
        }
        let doc = Document::from_str_with(&text, format, &LoadOptions::new().values(&values))
            .map_err(|e| load_error(e.diagnostics))?;
        let names = match params.get("host_tools") {
            None | Some(Value::Null) => None,
            Some(Value::Bool(true)) => Some(None),
            Some(Value::Array(names)) => Some(Some(
                names
                    .iter()
                    .map(|n| n.as_str().map(str::to_owned))
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| {
                        error("invalid-params", "`host_tools` lists the tools' names")
                    })?,
            )),
            Some(_) => {
                return Err(error(
                    "invalid-params",
                    "`host_tools` lists the tools' names, or is true for every ServerTool",
                ));
            }
        };
        let events = params.get("events").and_then(Value::as_bool) == Some(true);
        let check_models = params.get("check_models").and_then(Value::as_bool) != Some(false);
        let mut client = OpenAiClient::new().map_err(|e| error("llm-failed", e.to_string()))?;
        let mut builder = Runtime::builder().check_models_at_load(check_models);
        if params.get("allow_stdio").and_then(Value::as_bool) == Some(true) {
            builder = builder.allow_component_type("StdioTransport");
        }
        if events {
            let tokens = Arc::clone(&self.out);
            client = client.on_token(move |text| {
                send(
                    &tokens,
                    &json!({"method": "event", "params": {"type": "token", "text": text}}),
                );
            });
            let out = Arc::clone(&self.out);
            builder = builder.on_event(move |event| {
                if let Some(params) = event_json(&event) {
                    send(&out, &json!({"method": "event", "params": params}));
                }
            });
        }
        builder = builder.llm(client);
        if let Some(names) = names {
            builder = builder.host_tools(Host {
                out: Arc::clone(&self.out),
                pending: Arc::clone(&self.pending),
                next: AtomicU64::new(0),
                names,
            });
        }
        let loaded = builder.build().load(&doc).map_err(|e| {
            let mut diagnostics = e.diagnostics;
            locate(&mut diagnostics, &text, format);
            load_error(diagnostics)
        })?;
        let root = doc.root();
        let answer = json!({"component_type": root.component_type(), "name": root.name()});
        self.loaded = Some(loaded);
        Ok(answer)
    }
}

fn text_param(params: &Map<String, Value>, name: &str) -> Result<String, Value> {
    match params.get(name) {
        Some(Value::String(text)) => Ok(text.clone()),
        _ => Err(error("invalid-params", format!("`{name}` is a string"))),
    }
}

fn run_error(e: agentspec_runtime::RunError) -> Value {
    let mut body = error(e.code, e.message);
    if let Some(node) = e.node {
        body["node"] = Value::String(node);
    }
    body
}

fn load_error(diagnostics: Vec<Diagnostic>) -> Value {
    let errors: Vec<&Diagnostic> = diagnostics.iter().filter(|d| d.is_error()).collect();
    let message = errors
        .iter()
        .map(|d| format!("{}: {}", d.code, d.message))
        .collect::<Vec<_>>()
        .join("; ");
    let listed: Vec<Value> = errors
        .iter()
        .map(|d| {
            json!({
                "code": d.code,
                "message": d.message,
                "pointer": d.pointer,
                "line": d.line,
                "column": d.column,
            })
        })
        .collect();
    json!({"code": "load-failed", "message": message, "diagnostics": listed})
}

fn status_json(status: Status) -> Value {
    let requests = |requests: Vec<agentspec_runtime::ToolRequest>| {
        serde_json::to_value(requests).unwrap_or(Value::Null)
    };
    let messages = |messages: Vec<agentspec_runtime::Message>| {
        serde_json::to_value(messages).unwrap_or(Value::Null)
    };
    match status {
        Status::Finished {
            outputs,
            messages: m,
        } => {
            json!({"status": "finished", "outputs": outputs, "messages": messages(m)})
        }
        Status::UserMessageRequest { messages: m } => {
            json!({"status": "user_message_request", "messages": messages(m)})
        }
        Status::ToolRequest(r) => json!({"status": "tool_request", "tool_requests": requests(r)}),
        Status::ToolConfirmation(r) => {
            json!({"status": "tool_confirmation", "tool_requests": requests(r)})
        }
    }
}

fn event_json(event: &Event<'_>) -> Option<Value> {
    Some(match event {
        Event::ModelAnswered(answer) => json!({
            "type": "model_answered",
            "content": answer.content,
            "tool_calls": answer.tool_calls,
        }),
        Event::ToolStarted(request) => json!({"type": "tool_started", "request": request}),
        Event::ToolFinished { request, result } => match result {
            Ok(value) => json!({"type": "tool_finished", "request": request, "result": value}),
            Err(reason) => json!({"type": "tool_finished", "request": request, "error": reason}),
        },
        Event::NodeEntered {
            id,
            name,
            node_type,
        } => json!({"type": "node_entered", "id": id, "name": name, "node_type": node_type}),
        Event::NodeLeft { id, name, branch } => {
            json!({"type": "node_left", "id": id, "name": name, "branch": branch})
        }
        _ => return None,
    })
}
