//! The OpenAI-compatible client against a local server that speaks the API: the requests it
//! sends (endpoint, body, key), whole and streamed answers, retries, and the failures a
//! caller can act on.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agentspec_runtime::openai::OpenAiClient;
use agentspec_runtime::{Message, Runtime, Status};
use agentspec_types::{Document, Toolbox};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::IncTool;

/// One answer of the server.
pub(crate) struct Reply {
    pub status: u16,
    pub content_type: &'static str,
    pub headers: &'static str,
    pub body: String,
}

fn completion(message: Value) -> Reply {
    Reply {
        status: 200,
        content_type: "application/json",
        headers: "",
        body: json!({"id": "x", "object": "chat.completion",
                     "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]})
        .to_string(),
    }
}

pub(crate) fn error(status: u16, headers: &'static str, body: &str) -> Reply {
    Reply {
        status,
        content_type: "application/json",
        headers,
        body: body.to_owned(),
    }
}

/// A request the server read: its path, its head (lower case) and its body (JSON, else
/// its text).
#[derive(Debug, Clone)]
pub(crate) struct Seen {
    pub path: String,
    pub headers: String,
    pub body: Value,
}

/// A server on a free port that answers each request with the next reply, in order.
pub(crate) async fn server(replies: Vec<Reply>) -> (SocketAddr, Arc<Mutex<Vec<Seen>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    tokio::spawn(async move {
        for reply in replies {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            let mut data = Vec::new();
            let mut buf = [0u8; 4096];
            let head_end = loop {
                let n = socket.read(&mut buf).await.unwrap();
                assert!(n > 0, "the client closed before its request ended");
                data.extend_from_slice(&buf[..n]);
                if let Some(at) = data.windows(4).position(|w| w == b"\r\n\r\n") {
                    break at + 4;
                }
            };
            let head = String::from_utf8_lossy(&data[..head_end]).to_lowercase();
            let length: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .map_or(0, |v| v.trim().parse().unwrap());
            while data.len() < head_end + length {
                let n = socket.read(&mut buf).await.unwrap();
                data.extend_from_slice(&buf[..n]);
            }
            let path = head
                .split_whitespace()
                .nth(1)
                .unwrap_or_default()
                .to_owned();
            let bytes = &data[head_end..head_end + length];
            let body = serde_json::from_slice(bytes)
                .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(bytes).into_owned()));
            log.lock().unwrap().push(Seen {
                path,
                headers: head,
                body,
            });
            let answer = format!(
                "HTTP/1.1 {} X\r\ncontent-type: {}\r\ncontent-length: {}\r\nconnection: close\r\n{}\r\n{}",
                reply.status,
                reply.content_type,
                reply.body.len(),
                reply.headers,
                reply.body
            );
            socket.write_all(answer.as_bytes()).await.unwrap();
            socket.shutdown().await.ok();
        }
    });
    (addr, seen)
}

/// The calculator agent (fixture), its model config pointed at `url`.
fn calculator(url: &str, api_type: &str) -> Document {
    let path = format!(
        "{}/tests/fixtures/calculator.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(path)
        .unwrap()
        .replace("http://127.0.0.1:5099", url)
        .replace("\"chat_completions\"", &format!("\"{api_type}\""));
    Document::from_json_str(&text).unwrap()
}

fn texts(messages: &[Message]) -> Vec<&str> {
    messages.iter().map(|m| m.content.as_str()).collect()
}

fn runtime(client: OpenAiClient) -> Runtime {
    Runtime::builder()
        .toolbox(Toolbox::new().with(IncTool).unwrap())
        .llm(client)
        .build()
}

#[tokio::test]
async fn an_agent_calls_a_tool_through_an_openai_compatible_server() {
    let (addr, seen) = server(vec![
        completion(json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "inc", "arguments": "{\"x\": 41}"}}
        ]})),
        completion(json!({"role": "assistant", "content": "It is 42."})),
    ])
    .await;
    // no scheme, as a config may give it: http:// and /v1/chat/completions are added; the
    // key is the document's own (a secret supplied when loading, usually)
    let text = calculator(&addr.to_string(), "chat_completions")
        .to_json_pretty()
        .replace("\"api_key\": null", "\"api_key\": \"sk-test\"");
    let doc = Document::from_json_str(&text).unwrap();
    let loaded = runtime(OpenAiClient::new().unwrap()).load(&doc).unwrap();
    let mut session = loaded.start(json!({"user": "Ada"})).unwrap();
    let Status::UserMessageRequest { messages } = session.run().await.unwrap() else {
        panic!("an answer for the user")
    };
    assert_eq!(texts(&messages), ["It is 42."]);
    let saved = serde_json::to_string(&session.save()).unwrap();
    assert!(
        !saved.contains("sk-test"),
        "a saved session keeps no secret"
    );

    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2);
    assert!(seen.iter().all(|s| s.path == "/v1/chat/completions"));
    assert!(seen[0].headers.contains("authorization: bearer sk-test"));
    let first = &seen[0].body;
    assert_eq!(first["model"], "scripted");
    assert!(first.get("stream").is_none());
    assert_eq!(first["messages"][0]["role"], "system");
    assert!(
        first["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("You help Ada count")
    );
    let tools: Vec<&str> = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(tools, ["inc", "read_screen"]);
    assert_eq!(
        first["tools"][0]["function"]["parameters"]["properties"]["x"]["type"],
        "integer"
    );
    // the second request carries the call and its result
    let messages = seen[1].body["messages"].as_array().unwrap();
    let call = &messages[messages.len() - 2];
    assert_eq!(call["tool_calls"][0]["function"]["name"], "inc");
    let result = &messages[messages.len() - 1];
    assert_eq!(
        (result["role"].as_str(), result["tool_call_id"].as_str()),
        (Some("tool"), Some("c1"))
    );
    assert!(result["content"].as_str().unwrap().contains("42"));
}

#[tokio::test]
async fn a_streamed_answer_arrives_piece_by_piece() {
    let events = [
        json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": "It "}}]}),
        json!({"choices": [{"index": 0, "delta": {"content": "is 42."}}]}),
    ];
    let mut body: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
    body.push_str("data: [DONE]\n\n");
    let (addr, seen) = server(vec![Reply {
        status: 200,
        content_type: "text/event-stream",
        headers: "",
        body,
    }])
    .await;
    let tokens = Arc::new(Mutex::new(Vec::<String>::new()));
    let sink = Arc::clone(&tokens);
    let client = OpenAiClient::new()
        .unwrap()
        .on_token(move |t| sink.lock().unwrap().push(t.to_owned()));
    let doc = calculator(&format!("http://{addr}/v1"), "chat_completions");
    let mut session = runtime(client)
        .load(&doc)
        .unwrap()
        .start(json!({"user": "Ada"}))
        .unwrap();
    let Status::UserMessageRequest { messages } = session.run().await.unwrap() else {
        panic!("an answer for the user")
    };
    assert_eq!(texts(&messages), ["It is 42."]);
    assert_eq!(*tokens.lock().unwrap(), ["It ", "is 42."]);
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen[0].path, "/v1/chat/completions");
    assert_eq!(seen[0].body["stream"], true);
    assert!(
        !seen[0].headers.contains("authorization"),
        "no key, no header"
    );
}

#[tokio::test]
async fn passing_failures_are_retried_and_the_others_reported() {
    let (addr, seen) = server(vec![
        error(503, "retry-after: 0\r\n", r#"{"error": "busy"}"#),
        completion(json!({"role": "assistant", "content": "Back."})),
        error(400, "", r#"{"error": {"message": "bad model"}}"#),
    ])
    .await;
    let client = OpenAiClient::new()
        .unwrap()
        .with_retries(2, Duration::from_millis(10));
    let doc = calculator(&format!("http://{addr}"), "chat_completions");
    let loaded = runtime(client).load(&doc).unwrap();
    let mut session = loaded.start(json!({"user": "Ada"})).unwrap();
    let Status::UserMessageRequest { messages } = session.run().await.unwrap() else {
        panic!("an answer after the retry")
    };
    assert_eq!(texts(&messages), ["Back."]);
    assert_eq!(seen.lock().unwrap().len(), 2);

    // a 400 is not sent again: the error names the status and what the server said
    session.append_user_message("again");
    let e = session.run().await.unwrap_err();
    assert_eq!(e.code, "llm-failed");
    assert!(e.to_string().contains("400"), "{e}");
    assert!(e.to_string().contains("bad model"), "{e}");
    assert_eq!(seen.lock().unwrap().len(), 3);
}

#[tokio::test]
async fn a_server_that_is_down_is_an_error_not_a_hang() {
    let addr = {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        listener.local_addr().unwrap()
    };
    let client = OpenAiClient::new()
        .unwrap()
        .with_retries(1, Duration::from_millis(10));
    let doc = calculator(&format!("http://{addr}"), "chat_completions");
    let mut session = runtime(client)
        .load(&doc)
        .unwrap()
        .start(json!({"user": "Ada"}))
        .unwrap();
    let e = session.run().await.unwrap_err();
    assert_eq!(e.code, "llm-failed");
    assert!(e.to_string().contains("could not be reached"), "{e}");
    assert!(e.to_string().contains("after 2 attempts"), "{e}");
}

#[test]
fn a_config_the_client_cannot_serve_is_a_load_error_naming_it() {
    let doc = calculator("http://127.0.0.1:9", "responses");
    let e = runtime(OpenAiClient::new().unwrap())
        .load(&doc)
        .err()
        .expect("refused");
    let d = &e.diagnostics[0];
    assert_eq!(d.code, "llm-unsupported");
    assert!(d.message.contains("the LLM config `llm`"), "{}", d.message);
    assert!(
        d.message.contains("api_type is `responses`"),
        "{}",
        d.message
    );
    assert_eq!(d.pointer, "/llm_config");
}

#[tokio::test]
async fn the_configs_retry_policy_sets_the_retries() {
    let (addr, seen) = server(vec![
        error(503, "", r#"{"error": "busy"}"#),
        error(503, "", r#"{"error": "still busy"}"#),
    ])
    .await;
    // the client would retry twice; the config says not at all
    let client = OpenAiClient::new()
        .unwrap()
        .with_retries(2, Duration::from_millis(10));
    let mut value = calculator(&format!("http://{addr}"), "chat_completions").to_value();
    value["llm_config"]["retry_policy"] = json!({"max_attempts": 0, "initial_retry_delay": 0.01});
    value["agentspec_version"] = json!("26.1.2");
    let doc = Document::from_value(&value).unwrap();
    let loaded = runtime(client).load(&doc).unwrap();
    let mut session = loaded.start(json!({"user": "Ada"})).unwrap();
    let e = session.run().await.unwrap_err();
    assert!(
        e.message.contains("503") && e.message.contains("busy"),
        "{e}"
    );
    assert_eq!(seen.lock().unwrap().len(), 1, "no retry");
}
