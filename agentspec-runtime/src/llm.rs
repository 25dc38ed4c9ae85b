//! Models: what a session sends an LLM and what it reads back, the [`LlmClient`] trait a
//! model plugs in through, and [`ScriptedLlm`], a model that answers from a script (for
//! tests, and to try a document without a model).

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;

use agentspec_types::Sensitive;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::ToolRequest;

/// One message of a chat request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum ChatMessage {
    /// The system prompt.
    System {
        /// Its text.
        content: String,
    },
    /// A user message.
    User {
        /// Its text.
        content: String,
    },
    /// An earlier answer of the model: text, tool calls, or both.
    Assistant {
        /// Its text.
        content: String,
        /// The tools it called.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolRequest>,
    },
    /// A tool's result.
    Tool {
        /// The call it answers.
        tool_call_id: String,
        /// The result, as text.
        content: String,
    },
}

/// A tool as the model sees it: its name, description and the JSON Schema of its arguments
/// (an object whose properties are the tool's inputs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSchema {
    /// The tool's name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// The JSON Schema of its arguments.
    pub parameters: Value,
}

/// The model configuration a request is for, as the document gives it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ModelInfo {
    /// The config's component type (`OpenAiCompatibleConfig`, `VllmConfig`, …).
    pub config_type: String,
    /// The config's id.
    pub config_id: String,
    /// The config's name.
    #[serde(default)]
    pub name: String,
    /// The model id.
    pub model_id: String,
    /// The endpoint, when the config has one.
    pub url: Option<String>,
    /// The config's `api_type` (`chat_completions`, `responses`), when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_type: Option<String>,
    /// The generic `LlmConfig`'s `api_provider` (`openai`, `vllm`, `ollama`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_provider: Option<String>,
    /// The config's `default_generation_parameters` as a JSON object (`max_tokens`,
    /// `temperature`, `top_p` and any other key, as written); empty when it has none.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub generation: Map<String, Value>,
    /// The config's API key. Never serialized, and `Debug` never shows it; a placeholder
    /// that was not supplied stays one, and the client that needs it says so.
    #[serde(skip)]
    pub api_key: Option<Sensitive<String>>,
    /// The config's `retry_policy`, when it has one: a client retries as it says instead of
    /// as it would.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry: Option<RetrySettings>,
}

/// A `retry_policy` as a model client uses it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RetrySettings {
    /// Retries after the first attempt.
    pub retries: u32,
    /// Seconds before the first retry.
    pub initial_delay: f64,
    /// The most seconds between two attempts.
    pub max_delay: f64,
    /// How much each wait grows.
    pub backoff_factor: f64,
    /// Seconds an attempt may take, when the policy says.
    pub request_timeout: Option<f64>,
}

/// What a session asks a model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    /// The model.
    pub model: ModelInfo,
    /// The conversation, the system prompt first.
    pub messages: Vec<ChatMessage>,
    /// The tools it may call.
    pub tools: Vec<ToolSchema>,
    /// The JSON Schema the answer must follow, as a JSON object (an LlmNode with outputs
    /// other than one string: structured generation); `None` for free text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_format: Option<Value>,
}

/// A model's answer: text, tool calls, or both.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ChatResponse {
    /// The text.
    pub content: String,
    /// The tools it calls, in order (each `id` unique in the conversation).
    pub tool_calls: Vec<ToolRequest>,
}

impl ChatResponse {
    /// An answer in text.
    pub fn text(content: impl Into<String>) -> Self {
        ChatResponse {
            content: content.into(),
            tool_calls: Vec::new(),
        }
    }

    /// An answer that calls one tool.
    pub fn call(id: impl Into<String>, name: impl Into<String>, args: Value) -> Self {
        ChatResponse {
            content: String::new(),
            tool_calls: vec![ToolRequest {
                id: id.into(),
                name: name.into(),
                args,
            }],
        }
    }
}

/// Why a model gave no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct LlmError(pub String);

/// The future an [`LlmClient`] returns.
pub type LlmFuture = Pin<Box<dyn Future<Output = Result<ChatResponse, LlmError>> + Send>>;

/// A model: answers a chat request.
pub trait LlmClient: Send + Sync {
    /// The model's answer to `request`.
    fn chat(&self, request: ChatRequest) -> LlmFuture;

    /// Whether it can serve the model config `model` at all (its type, its API), asked for
    /// every config when a document is loaded: an error here is a load error naming the
    /// config (`llm-unsupported`), never a failure at the first call. Everything, by
    /// default.
    fn check(&self, model: &ModelInfo) -> Result<(), LlmError> {
        let _ = model;
        Ok(())
    }
}

/// A model that answers from a script, in order, and keeps every request it was sent.
/// Past the end of its script it fails with an error saying so.
#[derive(Debug, Default)]
pub struct ScriptedLlm {
    answers: Mutex<VecDeque<ChatResponse>>,
    requests: Mutex<Vec<ChatRequest>>,
}

impl ScriptedLlm {
    /// A model that gives `answers`, one per request.
    pub fn new(answers: impl IntoIterator<Item = ChatResponse>) -> Self {
        ScriptedLlm {
            answers: Mutex::new(answers.into_iter().collect()),
            requests: Mutex::new(Vec::new()),
        }
    }

    /// The requests it was sent so far.
    pub fn requests(&self) -> Vec<ChatRequest> {
        self.requests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

impl LlmClient for ScriptedLlm {
    fn chat(&self, request: ChatRequest) -> LlmFuture {
        self.requests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(request);
        let answer = self
            .answers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop_front()
            .ok_or_else(|| LlmError("the scripted model has no answer left".to_owned()));
        Box::pin(async move { answer })
    }
}

impl<T: LlmClient + ?Sized> LlmClient for std::sync::Arc<T> {
    fn chat(&self, request: ChatRequest) -> LlmFuture {
        (**self).chat(request)
    }

    fn check(&self, model: &ModelInfo) -> Result<(), LlmError> {
        (**self).check(model)
    }
}
