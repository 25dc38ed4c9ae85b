//! [`OpenAiClient`]: one thin client of the OpenAI chat-completions API, for every config
//! that speaks it (feature `http`).
//!
//! - **Configs.** `OpenAiCompatibleConfig`, `VllmConfig` and `OllamaConfig` (their `url`),
//!   `OpenAiConfig` (`https://api.openai.com`), `GeminiConfig` (Google's OpenAI-compatible
//!   endpoint) and the generic `LlmConfig` when it has a `url` or its `api_provider` is one
//!   of those. Any other config (OCI, for now), and `api_type: responses`, is refused when
//!   the document is loaded ([`LlmClient::check`]), naming the config.
//! - **URLs** as the runtime semantics note has them: `host:port` gets `http://`, and
//!   `/v1/chat/completions` is added to the URL, or only `/chat/completions` when it ends in
//!   `/v1` already; a URL that ends in `/chat/completions` is used as it is.
//! - **Keys.** The config's `api_key` (a secret supplied at load), else `OPENAI_API_KEY` for
//!   `OpenAiConfig` and `GEMINI_API_KEY` for `GeminiConfig`; sent as a bearer token. A key
//!   that was left a placeholder is an error naming it.
//! - **The body.** The messages and tools in the API's shape; structured generation as
//!   `response_format: {type: json_schema}`; the generation parameters (`max_tokens`, sent
//!   as `max_completion_tokens` to OpenAI itself, `temperature`, `top_p`, and every other key
//!   verbatim).
//! - **Streaming** (server-sent events) when [`OpenAiClient::on_token`] is set: each piece of
//!   text is handed over as it comes, and tool calls are put together from their pieces.
//! - **Failures** the caller can act on: a timeout for every request, retries with backoff
//!   on connection failures, 408, 409, 429 and 5xx (`Retry-After` honoured, up to 30 s; the
//!   config's `retry_policy`, when it has one, sets the retries, the waits and the timeout), and
//!   an error with the status and the start of the body otherwise. An answer that is not
//!   the API's shape, or whose tool arguments are not a JSON object, is an error saying so.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::ToolRequest;
use crate::llm::{
    ChatMessage, ChatRequest, ChatResponse, LlmClient, LlmError, LlmFuture, ModelInfo,
};

/// Called with each piece of text a streamed answer brings.
pub type TokenSink = Arc<dyn Fn(&str) + Send + Sync>;

/// An OpenAI-compatible chat-completions client (see the module's documentation).
#[derive(Clone)]
pub struct OpenAiClient {
    http: reqwest::Client,
    url: Option<String>,
    retries: u32,
    backoff: Duration,
    on_token: Option<TokenSink>,
}

impl std::fmt::Debug for OpenAiClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiClient")
            .field("url", &self.url)
            .field("retries", &self.retries)
            .field("streams", &self.on_token.is_some())
            .finish_non_exhaustive()
    }
}

/// The request timeout [`OpenAiClient::new`] sets.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

impl OpenAiClient {
    /// A client with a 120 s timeout per request (10 s to connect) and two retries.
    pub fn new() -> Result<Self, LlmError> {
        Self::with_timeout(DEFAULT_TIMEOUT)
    }

    /// A client whose every request (the whole answer, streamed or not) must finish within
    /// `timeout`.
    pub fn with_timeout(timeout: Duration) -> Result<Self, LlmError> {
        let http = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout.min(Duration::from_secs(10)))
            .build()
            .map_err(|e| LlmError(format!("the HTTP client could not be built: {e}")))?;
        Ok(OpenAiClient {
            http,
            url: None,
            retries: 2,
            backoff: Duration::from_millis(500),
            on_token: None,
        })
    }

    /// Sends every request to `url` instead of the config's endpoint (`agentspec run
    /// --llm-url`); normalised as a config's `url` is.
    pub fn with_url(mut self, url: impl Into<String>) -> Self {
        self.url = Some(url.into());
        self
    }

    /// How many times a request that failed for a passing reason is sent again (2 unless
    /// set), the first after `backoff`, each next one after twice the wait before.
    pub fn with_retries(mut self, retries: u32, backoff: Duration) -> Self {
        self.retries = retries;
        self.backoff = backoff;
        self
    }

    /// Streams the answers, handing each piece of text to `sink` as it comes.
    pub fn on_token(mut self, sink: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.on_token = Some(Arc::new(sink));
        self
    }

    /// The URL a request for `model` goes to.
    pub fn endpoint(&self, model: &ModelInfo) -> Result<String, LlmError> {
        let base = match &self.url {
            Some(url) => url.clone(),
            None => base_url(model)?,
        };
        Ok(chat_completions_url(&base))
    }
}

/// Which API a config speaks, as far as this client is concerned.
enum Api {
    OpenAi,
    Gemini,
    Compatible,
}

fn api_of(model: &ModelInfo) -> Result<Api, LlmError> {
    if model
        .api_type
        .as_deref()
        .is_some_and(|t| t != "chat_completions")
    {
        return Err(LlmError(format!(
            "its api_type is `{}`; this client speaks the chat-completions API only",
            model.api_type.as_deref().unwrap_or_default()
        )));
    }
    match model.config_type.as_str() {
        "OpenAiConfig" => Ok(Api::OpenAi),
        "GeminiConfig" => Ok(Api::Gemini),
        "OpenAiCompatibleConfig" | "VllmConfig" | "OllamaConfig" => Ok(Api::Compatible),
        "LlmConfig" => match model.api_provider.as_deref() {
            Some("openai") if model.url.is_none() => Ok(Api::OpenAi),
            Some("gemini" | "google") if model.url.is_none() => Ok(Api::Gemini),
            _ if model.url.is_some() => Ok(Api::Compatible),
            other => Err(LlmError(format!(
                "a generic LlmConfig with no url and the api_provider {other:?}: give it a url, \
                 or use a config of its own type"
            ))),
        },
        other => Err(LlmError(format!(
            "{other} is not served by the OpenAI-compatible client (OpenAiCompatibleConfig, \
             VllmConfig, OllamaConfig, OpenAiConfig, GeminiConfig, LlmConfig with a url)"
        ))),
    }
}

/// The endpoint's base: the config's URL, or its provider's.
fn base_url(model: &ModelInfo) -> Result<String, LlmError> {
    match (api_of(model)?, &model.url) {
        (Api::OpenAi, None) => Ok("https://api.openai.com/v1".to_owned()),
        (Api::Gemini, None) => {
            Ok("https://generativelanguage.googleapis.com/v1beta/openai".to_owned())
        }
        (_, Some(url)) if !url.trim().is_empty() => Ok(url.trim().to_owned()),
        _ => Err(LlmError("the config has an empty url".to_owned())),
    }
}

/// The chat-completions URL for a config's `url`: `http://` when it names no scheme, and
/// `/v1/chat/completions` added (`/chat/completions` after a `/v1`, or after Gemini's
/// `/openai`); a URL that already names the endpoint stays as it is.
pub fn chat_completions_url(url: &str) -> String {
    let url = url.trim().trim_end_matches('/');
    let url = if url.contains("://") {
        url.to_owned()
    } else {
        format!("http://{url}")
    };
    if url.ends_with("/chat/completions") {
        url
    } else if url.ends_with("/v1") || url.ends_with("/openai") {
        format!("{url}/chat/completions")
    } else {
        format!("{url}/v1/chat/completions")
    }
}

/// The API key a request for `model` sends, if any.
fn api_key(model: &ModelInfo) -> Result<Option<String>, LlmError> {
    if let Some(key) = &model.api_key {
        let key = key.value().map_err(|e| LlmError(e.to_string()))?;
        return Ok(Some(key.clone()));
    }
    let variable = match api_of(model) {
        Ok(Api::OpenAi) => "OPENAI_API_KEY",
        Ok(Api::Gemini) => "GEMINI_API_KEY",
        _ => return Ok(None),
    };
    Ok(std::env::var(variable).ok().filter(|k| !k.is_empty()))
}

/// The request's body.
fn body(request: &ChatRequest, stream: bool) -> Value {
    let messages: Vec<Value> = request.messages.iter().map(message).collect();
    let mut body = Map::new();
    body.insert("model".to_owned(), json!(request.model.model_id));
    body.insert("messages".to_owned(), Value::Array(messages));
    if !request.tools.is_empty() {
        let tools = request
            .tools
            .iter()
            .map(|t| {
                json!({"type": "function", "function": {
                    "name": t.name, "description": t.description, "parameters": t.parameters}})
            })
            .collect();
        body.insert("tools".to_owned(), Value::Array(tools));
    }
    if let Some(schema) = &request.response_format {
        body.insert(
            "response_format".to_owned(),
            json!({"type": "json_schema", "json_schema": {"name": "output", "schema": schema}}),
        );
    }
    let openai = request.model.config_type == "OpenAiConfig";
    for (key, value) in &request.model.generation {
        let key = match key.as_str() {
            "max_tokens" if openai => "max_completion_tokens",
            other => other,
        };
        body.entry(key.to_owned()).or_insert_with(|| value.clone());
    }
    if stream {
        body.insert("stream".to_owned(), Value::Bool(true));
    }
    Value::Object(body)
}

fn message(m: &ChatMessage) -> Value {
    match m {
        ChatMessage::System { content } => json!({"role": "system", "content": content}),
        ChatMessage::User { content } => json!({"role": "user", "content": content}),
        ChatMessage::Assistant {
            content,
            tool_calls,
        } => {
            let mut out = json!({"role": "assistant", "content": content});
            if !tool_calls.is_empty() {
                out["tool_calls"] = tool_calls
                    .iter()
                    .map(|c| {
                        json!({"id": c.id, "type": "function", "function": {
                            "name": c.name, "arguments": c.args.to_string()}})
                    })
                    .collect();
                if content.is_empty() {
                    out["content"] = Value::Null;
                }
            }
            out
        }
        ChatMessage::Tool {
            tool_call_id,
            content,
        } => json!({"role": "tool", "tool_call_id": tool_call_id, "content": content}),
    }
}

/// A tool call's arguments, from the JSON text the API gives (empty: no arguments).
fn arguments(name: &str, text: &str) -> Result<Value, LlmError> {
    if text.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(args)) => Ok(Value::Object(args)),
        Ok(other) => Err(LlmError(format!(
            "the model called `{name}` with arguments that are not a JSON object: {other}"
        ))),
        Err(e) => Err(LlmError(format!(
            "the model called `{name}` with arguments that are not JSON ({e}): {}",
            excerpt(text)
        ))),
    }
}

/// The start of a text, for an error message.
fn excerpt(text: &str) -> String {
    const MAX: usize = 300;
    match text.char_indices().nth(MAX) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// The tool calls of a message or of a streamed delta, with their positions.
fn calls_in(message: &Value) -> impl Iterator<Item = (usize, &Value)> {
    message
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
}

/// A call's id: the one the model gave, else one made from its position.
fn call_id(given: Option<&str>, position: usize) -> String {
    given.map_or_else(|| format!("call_{position}"), str::to_owned)
}

/// A whole (not streamed) answer.
fn parse_answer(text: &str) -> Result<ChatResponse, LlmError> {
    let shape = |what: &str| {
        LlmError(format!(
            "the answer is not a chat completion ({what}): {}",
            excerpt(text)
        ))
    };
    let value: Value = serde_json::from_str(text).map_err(|_| shape("not JSON"))?;
    let message = value
        .pointer("/choices/0/message")
        .ok_or_else(|| shape("no choices[0].message"))?;
    let content = message
        .get("content")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let mut tool_calls = Vec::new();
    for (i, call) in calls_in(message) {
        let name = call
            .pointer("/function/name")
            .and_then(Value::as_str)
            .ok_or_else(|| shape("a tool call with no function name"))?;
        let args = match call.pointer("/function/arguments") {
            Some(Value::String(text)) => arguments(name, text)?,
            // some servers send the object itself
            Some(Value::Object(args)) => Value::Object(args.clone()),
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(other) => arguments(name, &other.to_string())?,
        };
        let id = call_id(call.get("id").and_then(Value::as_str), i);
        tool_calls.push(ToolRequest {
            id,
            name: name.to_owned(),
            args,
        });
    }
    Ok(ChatResponse {
        content,
        tool_calls,
    })
}

/// Puts a streamed answer together from its server-sent events.
#[derive(Default)]
struct Stream {
    /// Bytes of a line not ended yet.
    pending: Vec<u8>,
    content: String,
    /// Tool calls by index: id, name, arguments so far.
    calls: Vec<(String, String, String)>,
    done: bool,
}

impl Stream {
    fn feed(&mut self, bytes: &[u8], on_token: &TokenSink) -> Result<(), LlmError> {
        self.pending.extend_from_slice(bytes);
        while let Some(end) = self.pending.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=end).collect();
            let line = String::from_utf8_lossy(&line);
            self.line(line.trim_end_matches(['\r', '\n']), on_token)?;
        }
        Ok(())
    }

    fn line(&mut self, line: &str, on_token: &TokenSink) -> Result<(), LlmError> {
        let Some(data) = line.strip_prefix("data:") else {
            // comments, `event:` and `id:` lines, and the blank line between events
            return Ok(());
        };
        let data = data.trim();
        if data == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        let event: Value = serde_json::from_str(data)
            .map_err(|_| LlmError(format!("a streamed event is not JSON: {}", excerpt(data))))?;
        if let Some(message) = event.pointer("/error/message").and_then(Value::as_str) {
            return Err(LlmError(format!("the server reported: {message}")));
        }
        let Some(delta) = event.pointer("/choices/0/delta") else {
            return Ok(());
        };
        if let Some(text) = delta.get("content").and_then(Value::as_str)
            && !text.is_empty()
        {
            self.content.push_str(text);
            on_token(text);
        }
        for (position, call) in calls_in(delta) {
            let index = call
                .get("index")
                .and_then(Value::as_u64)
                .map_or(position, |i| i as usize);
            if index > self.calls.len() + 64 {
                return Err(LlmError(format!(
                    "a streamed tool call has the index {index}, past those seen"
                )));
            }
            if self.calls.len() <= index {
                self.calls.resize(index + 1, Default::default());
            }
            let slot = &mut self.calls[index];
            if let Some(id) = call.get("id").and_then(Value::as_str) {
                slot.0 = id.to_owned();
            }
            if let Some(name) = call.pointer("/function/name").and_then(Value::as_str) {
                slot.1.push_str(name);
            }
            if let Some(args) = call.pointer("/function/arguments").and_then(Value::as_str) {
                slot.2.push_str(args);
            }
        }
        Ok(())
    }

    fn finish(mut self, on_token: &TokenSink) -> Result<ChatResponse, LlmError> {
        if !self.pending.is_empty() {
            let line = String::from_utf8_lossy(&std::mem::take(&mut self.pending)).into_owned();
            self.line(line.trim_end(), on_token)?;
        }
        let mut tool_calls = Vec::new();
        for (i, (id, name, args)) in self.calls.into_iter().enumerate() {
            if name.is_empty() {
                return Err(LlmError(
                    "a streamed tool call came with no function name".to_owned(),
                ));
            }
            let args = arguments(&name, &args)?;
            let id = call_id(Some(id.as_str()).filter(|id| !id.is_empty()), i);
            tool_calls.push(ToolRequest { id, name, args });
        }
        Ok(ChatResponse {
            content: self.content,
            tool_calls,
        })
    }
}

/// Whether a status is worth sending the request again for.
fn passing(status: reqwest::StatusCode) -> bool {
    matches!(status.as_u16(), 408 | 409 | 429) || status.is_server_error()
}

impl OpenAiClient {
    async fn send(&self, request: ChatRequest) -> Result<ChatResponse, LlmError> {
        let url = self.endpoint(&request.model)?;
        let key = api_key(&request.model)?;
        let body = body(&request, self.on_token.is_some()).to_string();
        // the config's retry_policy, else the client's own
        let (retries, mut wait, factor, max_wait) = match &request.model.retry {
            Some(r) => (
                r.retries,
                Duration::from_secs_f64(r.initial_delay.max(0.0)),
                r.backoff_factor.max(1.0),
                Duration::from_secs_f64(r.max_delay.max(0.0)),
            ),
            None => (self.retries, self.backoff, 2.0, Duration::from_secs(30)),
        };
        let timeout = request
            .model
            .retry
            .and_then(|r| r.request_timeout)
            .filter(|t| *t > 0.0)
            .map(Duration::from_secs_f64);
        let mut attempt = 0;
        loop {
            attempt += 1;
            let mut builder = self
                .http
                .post(&url)
                .header("content-type", "application/json")
                .body(body.clone());
            if let Some(timeout) = timeout {
                builder = builder.timeout(timeout);
            }
            if let Some(key) = &key {
                builder = builder.bearer_auth(key);
            }
            let failure = match builder.send().await {
                Ok(response) if response.status().is_success() => {
                    return self.read(response).await;
                }
                Ok(response) => {
                    let status = response.status();
                    let after = response
                        .headers()
                        .get("retry-after")
                        .and_then(|v| v.to_str().ok())
                        .and_then(|v| v.trim().parse::<u64>().ok())
                        .map(|s| Duration::from_secs(s.min(30)));
                    let text = response.text().await.unwrap_or_default();
                    let error =
                        LlmError(format!("{url} answered {status}: {}", excerpt(text.trim())));
                    if !passing(status) {
                        return Err(error);
                    }
                    (error, after)
                }
                Err(e) if e.is_timeout() => {
                    return Err(LlmError(format!("{url} did not answer in time: {e}")));
                }
                Err(e) => (
                    LlmError(format!(
                        "{url} could not be reached: {}",
                        crate::error_chain(&e)
                    )),
                    None,
                ),
            };
            let (error, after) = failure;
            if attempt > retries {
                return Err(if retries == 0 {
                    error
                } else {
                    LlmError(format!("{} (after {attempt} attempts)", error.0))
                });
            }
            tokio::time::sleep(after.unwrap_or(wait)).await;
            wait = wait.mul_f64(factor).min(max_wait);
        }
    }

    async fn read(&self, mut response: reqwest::Response) -> Result<ChatResponse, LlmError> {
        let failed = |e: reqwest::Error| LlmError(format!("the answer broke off: {e}"));
        let Some(on_token) = &self.on_token else {
            let text = response.text().await.map_err(failed)?;
            return parse_answer(&text);
        };
        let is_stream = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        if !is_stream {
            // a server that ignores `stream`: the whole answer at once
            let text = response.text().await.map_err(failed)?;
            let answer = parse_answer(&text)?;
            if !answer.content.is_empty() {
                on_token(&answer.content);
            }
            return Ok(answer);
        }
        let mut stream = Stream::default();
        while let Some(chunk) = response.chunk().await.map_err(failed)? {
            stream.feed(&chunk, on_token)?;
            if stream.done {
                break;
            }
        }
        stream.finish(on_token)
    }
}

impl LlmClient for OpenAiClient {
    fn chat(&self, request: ChatRequest) -> LlmFuture {
        let client = self.clone();
        Box::pin(async move { client.send(request).await })
    }

    fn check(&self, model: &ModelInfo) -> Result<(), LlmError> {
        if self.url.is_some() {
            // every config goes to the one endpoint given: only the API must be this one
            if model
                .api_type
                .as_deref()
                .is_some_and(|t| t != "chat_completions")
            {
                return api_of(model).map(|_| ());
            }
            return Ok(());
        }
        base_url(model).map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_normalised() {
        for (given, expected) in [
            (
                "localhost:8000",
                "http://localhost:8000/v1/chat/completions",
            ),
            (
                "http://localhost:8000/",
                "http://localhost:8000/v1/chat/completions",
            ),
            ("http://h:1/v1", "http://h:1/v1/chat/completions"),
            ("https://h/v1/", "https://h/v1/chat/completions"),
            (
                "https://h/v1/chat/completions",
                "https://h/v1/chat/completions",
            ),
            ("https://h/api", "https://h/api/v1/chat/completions"),
            (
                "https://generativelanguage.googleapis.com/v1beta/openai",
                "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions",
            ),
        ] {
            assert_eq!(chat_completions_url(given), expected, "{given}");
        }
    }

    fn model(config_type: &str, url: Option<&str>) -> ModelInfo {
        ModelInfo {
            config_type: config_type.to_owned(),
            model_id: "m".to_owned(),
            url: url.map(str::to_owned),
            ..ModelInfo::default()
        }
    }

    #[test]
    fn configs_it_cannot_serve_are_refused_by_name() {
        let client = OpenAiClient::new().unwrap();
        assert!(client.check(&model("VllmConfig", Some("h:1"))).is_ok());
        assert!(client.check(&model("OpenAiConfig", None)).is_ok());
        let oci = client.check(&model("OciGenAiConfig", None)).unwrap_err();
        assert!(oci.0.contains("OciGenAiConfig is not served"), "{oci}");
        let mut responses = model("OpenAiCompatibleConfig", Some("h:1"));
        responses.api_type = Some("responses".to_owned());
        let e = client.check(&responses).unwrap_err();
        assert!(e.0.contains("api_type is `responses`"), "{e}");
        let generic = client.check(&model("LlmConfig", None)).unwrap_err();
        assert!(generic.0.contains("give it a url"), "{generic}");
        assert_eq!(
            client.endpoint(&model("OpenAiConfig", None)).unwrap(),
            "https://api.openai.com/v1/chat/completions"
        );
    }

    #[test]
    fn the_body_has_the_apis_shape() {
        let mut m = model("OpenAiConfig", None);
        m.generation.insert("max_tokens".into(), json!(5));
        m.generation.insert("temperature".into(), json!(0.5));
        m.generation.insert("seed".into(), json!(7));
        let request = ChatRequest {
            model: m,
            messages: vec![
                ChatMessage::System {
                    content: "s".into(),
                },
                ChatMessage::Assistant {
                    content: String::new(),
                    tool_calls: vec![ToolRequest {
                        id: "c1".into(),
                        name: "add".into(),
                        args: json!({"a": 1}),
                    }],
                },
                ChatMessage::Tool {
                    tool_call_id: "c1".into(),
                    content: "2".into(),
                },
            ],
            tools: Vec::new(),
            response_format: Some(json!({"type": "object"})),
        };
        assert_eq!(
            body(&request, true),
            json!({
                "model": "m",
                "messages": [
                    {"role": "system", "content": "s"},
                    {"role": "assistant", "content": null, "tool_calls": [
                        {"id": "c1", "type": "function",
                         "function": {"name": "add", "arguments": "{\"a\":1}"}}]},
                    {"role": "tool", "tool_call_id": "c1", "content": "2"}
                ],
                "response_format": {"type": "json_schema",
                                    "json_schema": {"name": "output", "schema": {"type": "object"}}},
                "max_completion_tokens": 5, "temperature": 0.5, "seed": 7,
                "stream": true
            })
        );
    }

    #[test]
    fn answers_that_are_not_the_apis_shape_are_errors() {
        let e = parse_answer("<html>").unwrap_err();
        assert!(e.0.contains("not JSON"), "{e}");
        let e = parse_answer(r#"{"choices": []}"#).unwrap_err();
        assert!(e.0.contains("no choices[0].message"), "{e}");
        let e = parse_answer(
            r#"{"choices": [{"message": {"tool_calls": [{"function": {"name": "f", "arguments": "{oops"}}]}}]}"#,
        )
        .unwrap_err();
        assert!(
            e.0.contains("called `f` with arguments that are not JSON"),
            "{e}"
        );
        let ok = parse_answer(
            r#"{"choices": [{"message": {"content": null, "tool_calls": [{"id": "x", "function": {"name": "f", "arguments": ""}}]}}]}"#,
        )
        .unwrap();
        assert_eq!(ok.tool_calls[0].args, json!({}));
        assert_eq!(ok.tool_calls[0].id, "x");
    }

    #[test]
    fn streamed_pieces_make_the_answer() {
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink: TokenSink = {
            let seen = seen.clone();
            Arc::new(move |t: &str| seen.lock().unwrap().push(t.to_owned()))
        };
        let mut s = Stream::default();
        let events = concat!(
            ": keep-alive\n\n",
            "data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"content\":\"lo\"}}]}\r\n\r\n",
            "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"name\":\"add\",\"arguments\":\"{\\\"a\\\"\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\": 2}\"}}]}}]}\n\n",
            "data: [DONE]\n\n"
        );
        // fed in awkward pieces: a line may arrive in several chunks
        for piece in events.as_bytes().chunks(7) {
            s.feed(piece, &sink).unwrap();
        }
        assert!(s.done);
        let answer = s.finish(&sink).unwrap();
        assert_eq!(answer.content, "Hello");
        assert_eq!(answer.tool_calls[0].args, json!({"a": 2}));
        assert_eq!(*seen.lock().unwrap(), ["Hel", "lo"]);
    }
}
