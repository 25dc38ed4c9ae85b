//! Checking a document's MCP tools against their servers (feature `mcp-client`).
//!
//! Only when asked: a check starts the commands a `StdioTransport` names (and only with
//! [`ServerCheck::allow_stdio`]) and connects to the URLs a `StreamableHTTPTransport`
//! names. Each server is reached once, however many components name it; every problem is
//! reported at once, as a [`Diagnostic`] with the JSON pointer of the component or property
//! (locate them with [`crate::locate`]).
//!
//! | code | level | what |
//! |---|---|---|
//! | `mcp-tool-missing` | error | the document names a tool the server does not offer |
//! | `mcp-input-mismatch` | error | an input the server does not take, or whose values the server's `inputSchema` does not all accept; or a required input of the server the document does not declare |
//! | `mcp-output-mismatch` | error | outputs whose number differs from the server's, or that do not accept every value the server's `outputSchema` allows |
//! | `mcp-server-unreachable` | error | the server could not be started, reached, or asked for its tools in time |
//! | `mcp-stdio-refused` | error | a `StdioTransport`, while stdio commands are not allowed |
//! | `mcp-transport-unsupported` | warning | a transport this check does not speak (SSE, mTLS, a plugin; an `https` URL) |
//!
//! Properties are compared by what the server's JSON Schema accepts, not by the looser
//! rules a flow's data edges convert values under: the server validates a call's arguments
//! against its `inputSchema` and refuses what does not fit. Every value a document's input
//! admits must be one the server's property accepts, and every value the server's output
//! admits one the document's output accepts: types exactly (an `integer` fits a `number`,
//! nothing fits a `string` but a string), unions and `null`, `enum` and `const`, the
//! properties and `required` of objects, the items of arrays. A message names what each
//! side takes ("the input `query` of `search` is integer in the document but string on the
//! MCP server"), with the path inside the value where they differ deeper (`near.lat`,
//! `tags[]`). Bounds, lengths, patterns and formats are not compared.
//!
//! The server's outputs are read from its `outputSchema` as
//! [`ToolSpec::mcp_output_schema`](crate::tool::ToolSpec::mcp_output_schema) writes it; a
//! server without an `outputSchema` returns text, and its outputs are not checked.

use std::collections::HashMap;
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::Tool;
use serde_json::{Map, Value};

use crate::codec::ComponentSet;
use crate::diagnostic::{Diagnostic, push_pointer_token};
use crate::document::Document;

use super::accepts::{Misfit, MisfitKind, Schema, fits, shown_path};

type JsonObject = Map<String, Value>;

/// How to check a document's MCP tools against their servers.
#[derive(Debug, Clone)]
pub struct ServerCheck {
    allow_stdio: bool,
    timeout: Duration,
}

impl Default for ServerCheck {
    fn default() -> Self {
        Self::new()
    }
}

/// A server the check reached, or tried to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedServer {
    /// The transport component's id.
    pub transport: String,
    /// The command line or URL.
    pub endpoint: String,
    /// The tools it offers, by name; `None` when it was not reached.
    pub tools: Option<Vec<String>>,
}

/// What a check found.
#[derive(Debug, Clone, Default)]
pub struct ServerReport {
    /// Every server the document names, in document order.
    pub servers: Vec<CheckedServer>,
    /// Every problem: server by server, in the order the document first names them, and
    /// in document order for each server.
    pub diagnostics: Vec<Diagnostic>,
}

impl ServerReport {
    /// Whether any problem is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// An `MCPTool` or `MCPToolBox` of the document.
struct User<'a> {
    pointer: String,
    component: &'a JsonObject,
}

impl ServerCheck {
    /// Refuses stdio commands; gives each server ten seconds to start and list its tools.
    pub fn new() -> Self {
        ServerCheck {
            allow_stdio: false,
            timeout: Duration::from_secs(10),
        }
    }

    /// Starts the commands `StdioTransport`s name (they run with this process's rights).
    pub fn allow_stdio(mut self, allow: bool) -> Self {
        self.allow_stdio = allow;
        self
    }

    /// How long each server has to start and list its tools.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Connects to every server the document's `MCPTool`s and `MCPToolBox`es name, and
    /// compares what they offer with what the document says. Needs a Tokio runtime.
    pub async fn check<C: ComponentSet + Send + Sync + 'static>(
        &self,
        doc: &Document<C>,
    ) -> ServerReport {
        let value = doc.to_value();
        let mut ids = HashMap::new();
        let mut users = Vec::new();
        collect(&value, &mut ids, &mut users);
        // the servers, in order of first use
        let mut order: Vec<String> = Vec::new();
        let mut by_server: HashMap<String, (Option<&JsonObject>, Vec<&User<'_>>)> = HashMap::new();
        for user in &users {
            let transport = match user.component.get("client_transport") {
                Some(Value::Object(t)) => match t.get("$component_ref").and_then(Value::as_str) {
                    Some(id) => ids.get(id).copied(),
                    None => Some(t),
                },
                _ => None,
            };
            let key = transport
                .and_then(|t| t.get("id"))
                .and_then(Value::as_str)
                .map_or_else(|| format!("#{}", user.pointer), str::to_owned);
            let entry = by_server.entry(key.clone()).or_insert_with(|| {
                order.push(key);
                (transport, Vec::new())
            });
            entry.1.push(user);
        }
        let mut report = ServerReport::default();
        for key in order {
            let (transport, users) = &by_server[&key];
            let at = format!("{}/client_transport", users[0].pointer);
            let Some(transport) = transport else {
                continue; // an unresolved reference: loading reports it
            };
            let (endpoint, listed) = self.list(transport, &at).await;
            report.servers.push(CheckedServer {
                transport: text(transport, "id").to_owned(),
                endpoint,
                tools: listed
                    .as_ref()
                    .ok()
                    .map(|tools| tools.iter().map(|t| t.name.to_string()).collect()),
            });
            match listed {
                Ok(tools) => {
                    for user in users {
                        compare(user, &tools, &ids, &mut report.diagnostics);
                    }
                }
                Err(diagnostic) => report.diagnostics.push(diagnostic),
            }
        }
        report
    }

    /// The endpoint as reports show it, and its tools or why they could not be listed.
    async fn list(
        &self,
        transport: &JsonObject,
        at: &str,
    ) -> (String, Result<Vec<Tool>, Diagnostic>) {
        match text(transport, "component_type") {
            "StdioTransport" => self.list_stdio(transport, at).await,
            "StreamableHTTPTransport" => self.list_http(transport, at).await,
            other => {
                let d = Diagnostic::warning(
                    "mcp-transport-unsupported",
                    format!(
                        "a `{other}` is not checked: the check speaks stdio and streamable HTTP"
                    ),
                    at,
                    None,
                );
                (other.to_owned(), Err(d))
            }
        }
    }

    /// Starts the command of a `StdioTransport` (when allowed) and lists its tools. The
    /// command gets the document's `env` over a small safe environment (as the MCP SDKs
    /// start servers), not this process's; it is killed if it outlives the check.
    async fn list_stdio(
        &self,
        transport: &JsonObject,
        at: &str,
    ) -> (String, Result<Vec<Tool>, Diagnostic>) {
        let program = text(transport, "command");
        let args: Vec<&str> = transport
            .get("args")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        // arguments may carry tokens: reports name the program only
        let endpoint = match args.len() {
            0 => program.to_owned(),
            1 => format!("{program} (with 1 argument)"),
            n => format!("{program} (with {n} arguments)"),
        };
        if !self.allow_stdio {
            let d = Diagnostic::error(
                "mcp-stdio-refused",
                format!(
                    "the StdioTransport would run {endpoint}; commands run only when allowed \
                     (`ServerCheck::allow_stdio`, `--allow-stdio`)"
                ),
                at,
                None,
            );
            return (endpoint, Err(d));
        }
        let mut command = tokio::process::Command::new(program);
        command.args(&args).env_clear().kill_on_drop(true);
        for key in SAFE_ENVIRONMENT {
            if let Some(value) = std::env::var_os(key) {
                command.env(key, value);
            }
        }
        if let Some(env) = transport.get("env").and_then(Value::as_object) {
            command.envs(env.iter().filter_map(|(k, v)| Some((k, v.as_str()?))));
        }
        if let Some(cwd) = transport.get("cwd").and_then(Value::as_str) {
            command.current_dir(cwd);
        }
        let listed = self
            .within(async {
                let (process, _) = rmcp::transport::TokioChildProcess::builder(command)
                    .stderr(std::process::Stdio::null())
                    .spawn()
                    .map_err(|e| format!("cannot start it: {e}"))?;
                ().serve(process).await.map_err(|e| reason(&e))
            })
            .await;
        let listed = self.tools_of(listed).await;
        let listed = listed.map_err(|why| unreachable(&format!("run as {endpoint}"), &why, at));
        (endpoint, listed)
    }

    /// Connects to the URL of a `StreamableHTTPTransport` (plain `http://`, with its
    /// `headers`) and lists its tools.
    async fn list_http(
        &self,
        transport: &JsonObject,
        at: &str,
    ) -> (String, Result<Vec<Tool>, Diagnostic>) {
        use rmcp::transport::StreamableHttpClientTransport;
        use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
        let url = text(transport, "url");
        let endpoint = shown_url(url);
        if !url.starts_with("http://") {
            let d = Diagnostic::warning(
                "mcp-transport-unsupported",
                format!("{endpoint} is not checked: the check speaks plain `http://` only"),
                at,
                None,
            );
            return (endpoint, Err(d));
        }
        let headers = transport
            .get("headers")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter_map(|(k, v)| {
                Some((
                    hyper::header::HeaderName::from_bytes(k.as_bytes()).ok()?,
                    hyper::header::HeaderValue::from_str(v.as_str()?).ok()?,
                ))
            })
            .collect();
        let config = StreamableHttpClientTransportConfig::with_uri(url).custom_headers(headers);
        let listed = self
            .within(async {
                let transport = StreamableHttpClientTransport::from_config(config);
                ().serve(transport).await.map_err(|e| reason(&e))
            })
            .await;
        let listed = self.tools_of(listed).await;
        // the HTTP client's errors name the URL with its query: shown as the report shows it
        let listed = listed.map_err(|why| {
            let why = without_credentials(&why, url);
            unreachable(&format!("at {endpoint}"), &why, at)
        });
        (endpoint, listed)
    }

    /// The tools of a session that started (within the timeout); the session then ends,
    /// given a moment to close cleanly.
    async fn tools_of<S>(
        &self,
        session: Result<rmcp::service::RunningService<rmcp::RoleClient, S>, String>,
    ) -> Result<Vec<Tool>, String>
    where
        S: rmcp::Service<rmcp::RoleClient>,
    {
        let client = session?;
        let tools = self
            .within(async { client.list_all_tools().await.map_err(|e| reason(&e)) })
            .await;
        let _ = tokio::time::timeout(Duration::from_secs(1), client.cancel()).await;
        tools
    }

    async fn within<T>(&self, work: impl Future<Output = Result<T, String>>) -> Result<T, String> {
        match tokio::time::timeout(self.timeout, work).await {
            Ok(result) => result,
            Err(_) => Err(format!("no answer within {:?}", self.timeout)),
        }
    }
}

/// The variables a started server gets from this process (the rest of its environment may
/// hold secrets meant for this process only).
const SAFE_ENVIRONMENT: &[&str] = &[
    "HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "TMPDIR",
];

fn unreachable(endpoint: &str, why: &str, at: &str) -> Diagnostic {
    Diagnostic::error(
        "mcp-server-unreachable",
        format!("the MCP server {endpoint} could not be asked for its tools: {why}"),
        at,
        None,
    )
}

/// `text` with every form of `url` (as given, and without its user and password) written as
/// [`shown_url`] writes it.
fn without_credentials(text: &str, url: &str) -> String {
    let shown = shown_url(url);
    let shown = shown.trim_end_matches(" (credentials hidden)");
    let mut text = text.replace(url, shown);
    if let Some((scheme, rest)) = url.split_once("://")
        && let Some((_, host_on)) = rest.split_once('@')
    {
        text = text.replace(&format!("{scheme}://{host_on}"), shown);
    }
    text
}

/// A URL as reports show it: without a user and password, a query or a fragment, which
/// may carry credentials.
fn shown_url(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let cut = rest.find(['?', '#']).unwrap_or(rest.len());
    let (kept, dropped) = rest.split_at(cut);
    let (authority, path) = kept.split_at(kept.find('/').unwrap_or(kept.len()));
    let host = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    let hidden = if !dropped.is_empty() || host.len() < authority.len() {
        " (credentials hidden)"
    } else {
        ""
    };
    let scheme = if scheme.is_empty() {
        String::new()
    } else {
        format!("{scheme}://")
    };
    format!("{scheme}{host}{path}{hidden}")
}

/// An rmcp error as a reason, without the transport's Rust type rmcp names in it.
fn reason(error: &dyn std::fmt::Display) -> String {
    let text = error.to_string();
    match text.rsplit_once("] error: ") {
        Some((_, rest)) => rest.to_owned(),
        None => text,
    }
}

/// Every component with an id (for references), and every `MCPTool` and `MCPToolBox`, in
/// document order (with a stack of its own: a document may be as deep as loading allows).
fn collect<'a>(
    root: &'a Value,
    ids: &mut HashMap<&'a str, &'a JsonObject>,
    users: &mut Vec<User<'a>>,
) {
    let mut stack: Vec<(&Value, String)> = vec![(root, String::new())];
    while let Some((value, pointer)) = stack.pop() {
        match value {
            Value::Object(map) => {
                if let (Some(id), Some(_)) = (
                    map.get("id").and_then(Value::as_str),
                    map.get("component_type"),
                ) {
                    ids.entry(id).or_insert(map);
                }
                for (k, child) in map.iter().rev() {
                    let mut p = pointer.clone();
                    push_pointer_token(&mut p, k);
                    stack.push((child, p));
                }
                if matches!(
                    map.get("component_type").and_then(Value::as_str),
                    Some("MCPTool" | "MCPToolBox")
                ) {
                    users.push(User {
                        pointer,
                        component: map,
                    });
                }
            }
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate().rev() {
                    stack.push((child, format!("{pointer}/{i}")));
                }
            }
            _ => {}
        }
    }
}

/// The pointer of the field `key` of the component at `pointer`, or the component's when
/// the field is not written (a pointer must point at something to be located).
fn field_pointer(component: &JsonObject, pointer: &str, key: &str) -> String {
    if component.contains_key(key) {
        format!("{pointer}/{key}")
    } else {
        pointer.to_owned()
    }
}

fn text<'a>(map: &'a JsonObject, key: &str) -> &'a str {
    map.get(key).and_then(Value::as_str).unwrap_or("")
}

fn title(property: &JsonObject) -> &str {
    text(property, "title")
}

/// Compares one `MCPTool` or `MCPToolBox` with the server's tools.
fn compare(
    user: &User<'_>,
    tools: &[Tool],
    ids: &HashMap<&str, &JsonObject>,
    out: &mut Vec<Diagnostic>,
) {
    let c = user.component;
    if text(c, "component_type") == "MCPTool" {
        compare_tool(c, &user.pointer, tools, out);
        return;
    }
    let Some(filter) = c.get("tool_filter").and_then(Value::as_array) else {
        return; // every tool the server offers
    };
    for (i, entry) in filter.iter().enumerate() {
        let pointer = format!("{}/tool_filter/{i}", user.pointer);
        match entry {
            Value::String(name) if !tools.iter().any(|t| t.name == name.as_str()) => {
                out.push(missing(name, &pointer, tools));
            }
            Value::Object(spec) => {
                let spec = match spec.get("$component_ref").and_then(Value::as_str) {
                    Some(id) => match ids.get(id) {
                        Some(spec) => spec,
                        None => continue,
                    },
                    None => spec,
                };
                compare_tool(spec, &pointer, tools, out);
            }
            _ => {}
        }
    }
}

fn missing(name: &str, pointer: &str, tools: &[Tool]) -> Diagnostic {
    let offered: Vec<String> = tools.iter().map(|t| format!("`{}`", t.name)).collect();
    Diagnostic::error(
        "mcp-tool-missing",
        format!(
            "the MCP server offers no tool `{name}`; it offers {}",
            if offered.is_empty() {
                "none".to_owned()
            } else {
                offered.join(", ")
            }
        ),
        pointer,
        None,
    )
}

/// Compares a tool's description (an `MCPTool` or `MCPToolSpec`) with the server's.
fn compare_tool(c: &JsonObject, pointer: &str, tools: &[Tool], out: &mut Vec<Diagnostic>) {
    let name = text(c, "name");
    let Some(tool) = tools.iter().find(|t| t.name == name) else {
        out.push(missing(name, pointer, tools));
        return;
    };
    let declared = |key: &str| -> Vec<(String, &JsonObject)> {
        c.get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
            .filter_map(|(i, p)| Some((format!("{pointer}/{key}/{i}"), p.as_object()?)))
            .collect()
    };
    let inputs = declared("inputs");
    compare_inputs(tool, &inputs, &field_pointer(c, pointer, "inputs"), out);
    // outputs: what the server returns is what the document says the tool returns
    let Some(schema) = &tool.output_schema else {
        return; // text results: nothing to compare
    };
    let theirs = server_outputs(schema);
    let outputs = declared("outputs");
    if outputs.len() != theirs.len() {
        out.push(Diagnostic::error(
            "mcp-output-mismatch",
            format!(
                "the document gives `{name}` {} output(s), the MCP server {}",
                outputs.len(),
                theirs.len()
            ),
            field_pointer(c, pointer, "outputs"),
            None,
        ));
        return;
    }
    let root = Value::Object((**schema).clone());
    for ((p, mine), server) in outputs.iter().zip(&theirs) {
        let ours = Value::Object((*mine).clone());
        let server = Value::Object((*server).clone());
        if let Err(misfit) = fits(Schema::new(&server, &root), Schema::new(&ours, &ours)) {
            out.push(Diagnostic::error(
                "mcp-output-mismatch",
                misfit_message(&misfit, Side::Output, title(mine), name),
                p.clone(),
                None,
            ));
        }
    }
}

/// Compares the inputs a document declares (with their pointers) with the tool's
/// `inputSchema`: each is a property the server takes, of values it accepts, and every
/// property the server requires is declared (else reported at `inputs_at`).
fn compare_inputs(
    tool: &Tool,
    inputs: &[(String, &JsonObject)],
    inputs_at: &str,
    out: &mut Vec<Diagnostic>,
) {
    let name = &*tool.name;
    let root = Value::Object((*tool.input_schema).clone());
    let properties: Vec<(&str, &Value)> = root
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.as_str(), v))
        .collect();
    let mismatch = |pointer: String, message: String| {
        Diagnostic::error("mcp-input-mismatch", message, pointer, None)
    };
    for (p, input) in inputs {
        let t = title(input);
        let Some((_, theirs)) = properties.iter().find(|(k, _)| *k == t) else {
            let names: Vec<String> = properties.iter().map(|(k, _)| format!("`{k}`")).collect();
            let takes = if names.is_empty() {
                "it takes none".to_owned()
            } else {
                names.join(", ")
            };
            out.push(mismatch(
                p.clone(),
                format!("the input `{t}` of `{name}` is not one the MCP server takes ({takes})"),
            ));
            continue;
        };
        // what the document passes is what the server accepts
        let ours = Value::Object((*input).clone());
        if let Err(misfit) = fits(Schema::new(&ours, &ours), Schema::new(theirs, &root)) {
            out.push(mismatch(
                p.clone(),
                misfit_message(&misfit, Side::Input, t, name),
            ));
        }
    }
    let required = root
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str);
    for r in required {
        if !inputs.iter().any(|(_, d)| title(d) == r) {
            out.push(mismatch(
                inputs_at.to_owned(),
                format!("the MCP server's tool `{name}` requires the input `{r}`, which the document does not declare"),
            ));
        }
    }
}

/// Which of a tool's properties a misfit is in: for an input the document's schema is the
/// narrower one (its values must fit the server's), for an output the server's is.
#[derive(Clone, Copy)]
enum Side {
    Input,
    Output,
}

/// The message of a misfit between the property `title` of the tool `tool` and the
/// server's: which values the server's schema takes, and the document's.
fn misfit_message(misfit: &Misfit, side: Side, title: &str, tool: &str) -> String {
    const DOCUMENT: &str = "in the document";
    const SERVER: &str = "on the MCP server";
    let (kind, narrower, wider) = match side {
        Side::Input => ("input", DOCUMENT, SERVER),
        Side::Output => ("output", SERVER, DOCUMENT),
    };
    let at = format!(
        "the {kind} `{title}{}` of `{tool}`",
        shown_path(&misfit.path)
    );
    match &misfit.kind {
        MisfitKind::Values {
            narrower: n,
            wider: w,
        } => {
            let (ours, theirs) = match side {
                Side::Input => (n, w),
                Side::Output => (w, n),
            };
            format!("{at} is {ours} in the document but {theirs} on the MCP server")
        }
        MisfitKind::Required(key) => {
            format!("{at}: `{key}` is required {wider} but not {narrower}")
        }
        MisfitKind::Extra(key) => {
            format!("{at} may have `{key}` {narrower} but not {wider}")
        }
    }
}

/// A server's outputs, read back from its `outputSchema` (the inverse of
/// `ToolSpec::mcp_output_schema`): a wrapper is an object without a title whose one
/// property, required, is `result`.
fn server_outputs(schema: &JsonObject) -> Vec<&JsonObject> {
    let properties = schema.get("properties").and_then(Value::as_object);
    let wrapper = !schema.contains_key("title")
        && schema.get("required") == Some(&Value::from(vec!["result"]))
        && properties.is_some_and(|p| p.len() == 1);
    let result = properties
        .and_then(|p| p.get("result"))
        .and_then(Value::as_object);
    match result {
        Some(result) if wrapper => match result.get("prefixItems").and_then(Value::as_array) {
            Some(items) => items.iter().filter_map(Value::as_object).collect(),
            None => vec![result],
        },
        _ => vec![schema],
    }
}
