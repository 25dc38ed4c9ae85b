//! MCPTool and MCPToolBox: tools of an MCP server, reached with rmcp's client over
//! streamable HTTP or a child process's stdio (feature `mcp`).
//!
//! - A session per server, opened at the first call and kept by the [`crate::Runtime`] (its
//!   clones share it); a call that fails is made again on a new session, as the transport's
//!   `retry_policy` says (once, at once, without one).
//! - A `StdioTransport` starts its command only when the runtime allows the component type
//!   (`RuntimeBuilder::allow_component_type`): it is blocked by default, as pyagentspec's
//!   loaders block it. The command gets the document's `env` and `cwd`.
//! - An MCPToolBox's tools are listed when its agent first calls its model, filtered by its
//!   `tool_filter` (a name, or an `MCPToolSpec` whose description and inputs the model sees
//!   instead of the server's); a filtered tool the server does not have is an error.
//! - A result is the text of the server's answer (its text parts, joined by new lines), as
//!   the server wrote it; a ToolNode with several outputs takes them from the answer's
//!   structured content. An answer flagged as an error fails the call with its text.
//! - `session_parameters.read_timeout_seconds` bounds every request.

// The plan's types are the same in every build. Without the `mcp` feature a document with
// MCP tools is refused at load (`unsupported-component`, naming the feature), and what only
// the client reads is unused.
#![cfg_attr(not(feature = "mcp"), allow(dead_code))]

use serde_json::Value;

use crate::props::Prop;

/// How a server is reached.
#[derive(Debug, Clone)]
pub(crate) enum McpTransport {
    /// Streamable HTTP.
    Http {
        url: String,
        /// `headers` and `sensitive_headers` (secrets, never saved).
        headers: Vec<(String, String)>,
        tls: Option<McpTls>,
    },
    /// HTTP with SSE, the transport of MCP 2024-11-05.
    Sse {
        url: String,
        headers: Vec<(String, String)>,
        tls: Option<McpTls>,
    },
    Stdio {
        command: String,
        args: Vec<String>,
        env: Vec<(String, String)>,
        cwd: Option<String>,
    },
}

/// The files of an mTLS transport (paths, secrets: never saved nor shown): the client's key
/// and certificate, and the certificate authorities the server's certificate is checked
/// against, in place of the platform's.
#[derive(Clone)]
pub(crate) struct McpTls {
    pub key_file: String,
    pub cert_file: String,
    pub ca_file: String,
}

impl McpTls {
    fn files(&self) -> [&str; 3] {
        [&self.key_file, &self.cert_file, &self.ca_file]
    }
}

impl std::fmt::Debug for McpTls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("McpTls { .. }")
    }
}

/// A server the document's MCP tools use.
#[derive(Debug, Clone)]
pub(crate) struct McpServer {
    /// Its transport component's name, for messages.
    pub name: String,
    pub transport: McpTransport,
    /// Seconds a request may take.
    pub timeout: f64,
    /// How a failed request is tried again: on a new session, after a wait (the
    /// transport's `retry_policy`; else once, at once).
    pub retry: crate::http::Retry,
}

impl McpServer {
    /// What identifies the session to the server (two components reaching the same server
    /// share one).
    pub fn key(&self) -> String {
        match &self.transport {
            McpTransport::Http { url, headers, tls } => {
                format!(
                    "http {url} {headers:?} {:?}",
                    tls.as_ref().map(McpTls::files)
                )
            }
            McpTransport::Sse { url, headers, tls } => {
                format!(
                    "sse {url} {headers:?} {:?}",
                    tls.as_ref().map(McpTls::files)
                )
            }
            McpTransport::Stdio {
                command,
                args,
                env,
                cwd,
            } => format!("stdio {command} {args:?} {env:?} {cwd:?}"),
        }
    }
}

/// A tool of an MCPToolBox's filter: a name, or a spec whose description and inputs
/// replace the server's.
#[derive(Debug, Clone)]
pub(crate) enum FilterItem {
    Name(String),
    Spec {
        name: String,
        description: Option<String>,
        inputs: Vec<Prop>,
        requires_confirmation: bool,
    },
}

/// An MCPToolBox of an agent.
#[derive(Debug, Clone)]
pub(crate) struct ToolboxPlan {
    pub name: String,
    pub server: usize,
    pub filter: Option<Vec<FilterItem>>,
    pub requires_confirmation: bool,
}

/// A tool of a toolbox, as the server listed it and the filter shaped it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Listed {
    pub name: String,
    pub description: String,
    pub parameters: Value,
    /// The toolbox's server, by index in the plan.
    pub server: usize,
    pub requires_confirmation: bool,
}

/// A tool the server lists: its name, description and input schema.
#[derive(Debug, Clone)]
pub(crate) struct ServerTool {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
}

/// The tools of `toolbox` the agent gets, from what its server lists.
pub(crate) fn shape(toolbox: &ToolboxPlan, listed: &[ServerTool]) -> Result<Vec<Listed>, String> {
    let find = |name: &str| {
        listed.iter().find(|t| t.name == name).ok_or_else(|| {
            let names: Vec<&str> = listed.iter().map(|t| t.name.as_str()).collect();
            format!(
                "the tool_filter of MCPToolBox `{}` names `{name}`, which its server does not have (it has {})",
                toolbox.name,
                if names.is_empty() {
                    "no tools".to_owned()
                } else {
                    names.join(", ")
                }
            )
        })
    };
    let from_server = |t: &ServerTool| Listed {
        name: t.name.clone(),
        description: t.description.clone(),
        parameters: t.input_schema.clone(),
        server: toolbox.server,
        requires_confirmation: toolbox.requires_confirmation,
    };
    let Some(filter) = &toolbox.filter else {
        return Ok(listed.iter().map(from_server).collect());
    };
    filter
        .iter()
        .map(|item| match item {
            FilterItem::Name(name) => find(name).map(from_server),
            FilterItem::Spec {
                name,
                description,
                inputs,
                requires_confirmation,
            } => {
                let tool = find(name)?;
                Ok(Listed {
                    name: tool.name.clone(),
                    description: description
                        .clone()
                        .unwrap_or_else(|| tool.description.clone()),
                    parameters: if inputs.is_empty() {
                        tool.input_schema.clone()
                    } else {
                        crate::props::parameters(inputs)
                    },
                    server: toolbox.server,
                    requires_confirmation: *requires_confirmation || toolbox.requires_confirmation,
                })
            }
        })
        .collect()
}

/// The value of a tool's answer (`CallToolResult` as JSON): its text, or for `structured`
/// its structured content when it has some; an answer flagged as an error is `Err`.
pub(crate) fn answer_value(answer: &Value, structured: bool) -> Result<Value, String> {
    let texts: Vec<&str> = answer
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|c| c.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|c| c.get("text").and_then(Value::as_str))
        .collect();
    let text = texts.join("\n");
    if answer.get("isError").and_then(Value::as_bool) == Some(true) {
        return Err(if text.is_empty() {
            "the server flagged the call as failed".to_owned()
        } else {
            text
        });
    }
    let content = answer.get("structuredContent").filter(|v| !v.is_null());
    if (structured || texts.is_empty())
        && let Some(content) = content
    {
        return Ok(content.clone());
    }
    Ok(Value::String(text))
}

#[cfg(feature = "mcp")]
pub(crate) use pool::Pool;

#[cfg(feature = "mcp")]
mod sse;

#[cfg(feature = "mcp")]
mod pool {
    use std::collections::HashMap;
    use std::sync::Arc;
    use std::time::Duration;

    use rmcp::ServiceExt;
    use rmcp::model::CallToolRequestParams;
    use rmcp::service::{RoleClient, RunningService};
    use serde_json::Value;
    use tokio::sync::Mutex;

    use super::{McpServer, McpTls, McpTransport, ServerTool};

    type Client = Arc<RunningService<RoleClient, ()>>;

    /// The open sessions, by server.
    #[derive(Default)]
    pub(crate) struct Pool {
        sessions: Mutex<HashMap<String, Client>>,
    }

    async fn within<T>(
        seconds: f64,
        what: &str,
        work: impl Future<Output = Result<T, String>>,
    ) -> Result<T, String> {
        match tokio::time::timeout(Duration::from_secs_f64(seconds.max(0.001)), work).await {
            Ok(result) => result,
            Err(_) => Err(format!("{what}: no answer within {seconds} s")),
        }
    }

    /// An rmcp error with its causes, without the Rust type of the transport that rmcp's
    /// message names ("… Transport [rmcp::transport::worker::WorkerTransport<…>] error: …").
    fn reason(error: &dyn std::error::Error) -> String {
        let text = crate::error_chain(error);
        match text.rsplit_once("] error: ") {
            Some((_, rest)) => rest.to_owned(),
            None => text,
        }
    }

    /// The headers a transport sends with each request.
    fn header_map(
        headers: &[(String, String)],
        what: &str,
    ) -> Result<reqwest::header::HeaderMap, String> {
        let mut map = reqwest::header::HeaderMap::new();
        for (k, v) in headers {
            let name = reqwest::header::HeaderName::from_bytes(k.as_bytes())
                .map_err(|_| format!("{what}: `{k}` is not a header name"))?;
            let value = reqwest::header::HeaderValue::from_str(v)
                .map_err(|_| format!("{what}: the value of header `{k}` is not valid"))?;
            map.insert(name, value);
        }
        Ok(map)
    }

    /// The HTTP client of a transport with mTLS: the client's identity, and only the given
    /// certificate authorities. The files' paths stay out of messages: they are secrets.
    #[cfg(feature = "rustls")]
    fn mtls_client(tls: &McpTls, what: &str) -> Result<reqwest::Client, String> {
        let read = |path: &str, field: &str| {
            std::fs::read(path).map_err(|e| format!("{what}: its {field} could not be read: {e}"))
        };
        let mut identity = read(&tls.cert_file, "cert_file")?;
        identity.push(b'\n');
        identity.extend(read(&tls.key_file, "key_file")?);
        let identity = reqwest::Identity::from_pem(&identity).map_err(|e| {
            format!("{what}: its cert_file and key_file make no client identity: {e}")
        })?;
        let authorities = reqwest::Certificate::from_pem_bundle(&read(&tls.ca_file, "ca_file")?)
            .map_err(|e| format!("{what}: its ca_file: {e}"))?;
        if authorities.is_empty() {
            return Err(format!("{what}: its ca_file holds no PEM certificate"));
        }
        reqwest::Client::builder()
            .tls_certs_only(authorities)
            .identity(identity)
            .build()
            .map_err(|e| format!("{what}: {e}"))
    }

    #[cfg(not(feature = "rustls"))]
    fn mtls_client(_: &McpTls, what: &str) -> Result<reqwest::Client, String> {
        Err(format!(
            "{what}: mTLS needs TLS, and this runtime was built without it (agentspec-runtime's feature `rustls`)"
        ))
    }

    async fn connect(server: &McpServer) -> Result<Client, String> {
        let what = format!("MCP server `{}`", server.name);
        let client = match &server.transport {
            McpTransport::Http { url, headers, tls } => {
                use rmcp::transport::StreamableHttpClientTransport;
                use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
                let map: HashMap<_, _> = header_map(headers, &what)?
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                let config =
                    StreamableHttpClientTransportConfig::with_uri(url.as_str()).custom_headers(map);
                let transport = match tls {
                    None => StreamableHttpClientTransport::from_config(config),
                    Some(tls) => {
                        StreamableHttpClientTransport::with_client(mtls_client(tls, &what)?, config)
                    }
                };
                within(server.timeout, &what, async {
                    ().serve(transport).await.map_err(|e| {
                        format!("{what} at {url} could not be reached: {}", reason(&e))
                    })
                })
                .await?
            }
            McpTransport::Sse { url, headers, tls } => {
                let map = header_map(headers, &what)?;
                let http = match tls {
                    None => reqwest::Client::new(),
                    Some(tls) => mtls_client(tls, &what)?,
                };
                within(server.timeout, &what, async {
                    let transport = super::sse::connect(http, url, map, &what).await?;
                    ().serve(transport).await.map_err(|e| {
                        format!("{what} at {url} did not start a session: {}", reason(&e))
                    })
                })
                .await?
            }
            McpTransport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                let mut process = tokio::process::Command::new(command);
                process.args(args).kill_on_drop(true);
                process.envs(env.iter().map(|(k, v)| (k, v)));
                if let Some(cwd) = cwd {
                    process.current_dir(cwd);
                }
                let (child, _) = rmcp::transport::TokioChildProcess::builder(process)
                    .stderr(std::process::Stdio::null())
                    .spawn()
                    .map_err(|e| format!("{what}: `{command}` could not be started: {e}"))?;
                within(server.timeout, &what, async {
                    ().serve(child).await.map_err(|e| {
                        format!(
                            "{what} (`{command}`) did not start a session: {}",
                            reason(&e)
                        )
                    })
                })
                .await?
            }
        };
        Ok(Arc::new(client))
    }

    impl Pool {
        async fn session(&self, server: &McpServer, fresh: bool) -> Result<Client, String> {
            let key = server.key();
            let mut sessions = self.sessions.lock().await;
            if !fresh && let Some(client) = sessions.get(&key) {
                return Ok(Arc::clone(client));
            }
            let client = connect(server).await?;
            sessions.insert(key, Arc::clone(&client));
            Ok(client)
        }

        /// Calls the tool `name`: the server's answer (`CallToolResult`) as JSON.
        pub async fn call(
            &self,
            server: &McpServer,
            name: &str,
            args: &Value,
        ) -> Result<Value, String> {
            let what = format!("MCP tool `{name}` of `{}`", server.name);
            let arguments = match args {
                Value::Object(map) => map.clone(),
                Value::Null => serde_json::Map::new(),
                other => return Err(format!("{what}: the arguments are not an object: {other}")),
            };
            let mut fresh = false;
            let mut attempt = 0u32;
            let mut wait = server.retry.initial_delay;
            loop {
                attempt += 1;
                let client = self.session(server, fresh).await?;
                let params =
                    CallToolRequestParams::new(name.to_owned()).with_arguments(arguments.clone());
                let answer = within(server.timeout, &what, async {
                    client.call_tool(params).await.map_err(|e| e.to_string())
                })
                .await;
                match answer {
                    Ok(result) => {
                        return serde_json::to_value(result).map_err(|e| format!("{what}: {e}"));
                    }
                    // the session may have broken: again on a new one
                    Err(_) if attempt <= server.retry.retries => {
                        if attempt > 1 || fresh {
                            tokio::time::sleep(Duration::from_secs_f64(
                                wait.min(server.retry.max_delay),
                            ))
                            .await;
                            wait *= server.retry.factor;
                        }
                        fresh = true;
                    }
                    Err(e) => {
                        return Err(if attempt > 1 {
                            format!("{what} failed (after {attempt} attempts): {e}")
                        } else {
                            format!("{what} failed: {e}")
                        });
                    }
                }
            }
        }

        /// The tools the server lists.
        pub async fn list(&self, server: &McpServer) -> Result<Vec<ServerTool>, String> {
            let what = format!("MCP server `{}`", server.name);
            let mut fresh = false;
            loop {
                let client = self.session(server, fresh).await?;
                let listed = within(server.timeout, &what, async {
                    client.list_all_tools().await.map_err(|e| e.to_string())
                })
                .await;
                match listed {
                    Ok(tools) => {
                        return Ok(tools
                            .into_iter()
                            .map(|t| ServerTool {
                                name: t.name.to_string(),
                                description: t
                                    .description
                                    .map(|d| d.to_string())
                                    .unwrap_or_default(),
                                input_schema: Value::Object((*t.input_schema).clone()),
                            })
                            .collect());
                    }
                    Err(_) if !fresh => fresh = true,
                    Err(e) => return Err(format!("{what}: its tools could not be listed: {e}")),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn answers_give_their_text_or_structured_content() {
        let answer = json!({"content": [{"type": "text", "text": "{\n  \"a\": 1\n}"}],
                            "structuredContent": {"a": 1}, "isError": false});
        assert_eq!(
            answer_value(&answer, false).unwrap(),
            json!("{\n  \"a\": 1\n}")
        );
        assert_eq!(answer_value(&answer, true).unwrap(), json!({"a": 1}));
        let two = json!({"content": [{"type": "text", "text": "a"}, {"type": "image"}, {"type": "text", "text": "b"}]});
        assert_eq!(answer_value(&two, false).unwrap(), json!("a\nb"));
        let failed =
            json!({"content": [{"type": "text", "text": "no such person"}], "isError": true});
        assert_eq!(answer_value(&failed, false).unwrap_err(), "no such person");
    }

    #[test]
    fn a_filter_keeps_its_tools_and_names_the_missing_ones() {
        let tools = vec![
            ServerTool {
                name: "a".into(),
                description: "A.".into(),
                input_schema: json!({"type": "object"}),
            },
            ServerTool {
                name: "b".into(),
                description: "B.".into(),
                input_schema: json!({"type": "object"}),
            },
        ];
        let mut toolbox = ToolboxPlan {
            name: "box".into(),
            server: 0,
            filter: None,
            requires_confirmation: false,
        };
        assert_eq!(shape(&toolbox, &tools).unwrap().len(), 2);
        toolbox.filter = Some(vec![FilterItem::Spec {
            name: "b".into(),
            description: Some("Mine.".into()),
            inputs: Vec::new(),
            requires_confirmation: true,
        }]);
        let shaped = shape(&toolbox, &tools).unwrap();
        assert_eq!(shaped.len(), 1);
        assert_eq!(shaped[0].description, "Mine.");
        assert!(shaped[0].requires_confirmation);
        toolbox.filter = Some(vec![FilterItem::Name("c".into())]);
        let e = shape(&toolbox, &tools).unwrap_err();
        assert!(e.contains("`c`") && e.contains("a, b"), "{e}");
    }
}
