//! A [`Toolbox`] served as an MCP server (feature `mcp`), over stdio or streamable HTTP,
//! with [rmcp](https://docs.rs/rmcp), the official MCP Rust SDK.
//!
//! Agent Spec runtimes are not Rust: a `ServerTool` runs in the runtime's own process, so a
//! Rust function cannot be one. An `MCPTool` or `MCPToolBox` can: the runtime calls the
//! tool over MCP. [`McpServer`] answers those calls with the toolbox's functions, and
//! [`Toolbox::mcp_tools`] and [`Toolbox::mcp_toolbox`] write the components that name it.
//!
//! - **Listing.** Each tool is described as its Agent Spec description says: the same name
//!   and description, its inputs as the `inputSchema`, its outputs as the `outputSchema`
//!   ([`ToolSpec::mcp_input_schema`] has the mapping).
//! - **Calling.** A call runs the function with [`Toolbox::call`]. Arguments that do not
//!   fit, an error the function returns and a panic all come back as a tool error
//!   (`isError`), whose text names every problem with its JSON pointer; the server keeps
//!   serving. A tool the server does not have is a protocol error (`-32602`), as MCP asks.
//! - **Ending.** [`McpServer::serve_stdio`] returns at the end of its input, or on Ctrl-C
//!   or `SIGTERM`. [`HttpServer::run_until_signal`] stops accepting on a signal, ends the
//!   sessions and waits (up to five seconds) for open requests. Once a signal handler is
//!   installed it stays for the life of the process (Tokio's): after these return, Ctrl-C
//!   and `SIGTERM` no longer end the process by themselves.
//! - **Logs.** This module logs nothing, and the server writes nothing on stdout but the
//!   protocol. rmcp logs through `tracing`: at `debug` and finer it logs requests and
//!   results, arguments included, so keep `rmcp` at `info` or coarser where arguments may
//!   hold secrets.
//! - **Threads.** Tools run on the runtime's worker threads, one call per task: on a
//!   current-thread runtime, a slow synchronous tool holds up every other session. Use a
//!   multi-thread runtime, or make such a tool `async` and move its work to
//!   `tokio::task::spawn_blocking`.
//!
//! rmcp's types appear in this module's API ([`Tool`], [`CallToolResult`], `ErrorData`,
//! and the [`rmcp`] re-export): a major release of rmcp is a major release of this module.
//!
//! [`ServerToolsToMcp`] rewrites a document's `ServerTool`s as `MCPTool`s reached through
//! one transport (`agentspec to-mcp`): a document whose tools its runtime ran itself then
//! calls them on such a server.
//!
//! With the `mcp-client` feature, `ServerCheck` checks a document's `MCPTool`s and
//! `MCPToolBox`es against the servers they name (`agentspec check --mcp-servers`).
//!
//! ```no_run
//! use agentspec_types::mcp::{HttpOptions, McpServer};
//! use agentspec_types::tool::Toolbox;
//! use agentspec_types::tool;
//!
//! /// Adds two numbers.
//! #[tool]
//! fn add(a: f64, b: f64) -> f64 {
//!     a + b
//! }
//!
//! # async fn run() -> std::io::Result<()> {
//! let server = McpServer::new(Toolbox::new().with(AddTool).unwrap());
//! let http = server.bind_http(HttpOptions::new().with_port(8808)).await?;
//! eprintln!("serving on {}", http.url());
//! http.run_until_signal().await
//! # }
//! ```

use std::borrow::Cow;
use std::fmt::Write as _;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use hyper::body::Bytes;
use hyper::service::Service as _;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ContentBlock, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;
use tokio::net::TcpListener;

use crate::tool::{ToolError, ToolSpec, Toolbox};

mod convert;
pub use convert::{ConvertError, ConvertedTool, McpConversion, ServerToolsToMcp};
#[cfg(feature = "mcp-client")]
mod accepts;
#[cfg(feature = "mcp-client")]
mod check;
#[cfg(feature = "mcp-client")]
pub use check::{CheckedServer, ServerCheck, ServerReport};

/// The MCP Rust SDK this module is built on, for its types (the same version).
pub use rmcp;
pub use rmcp::model::{CallToolResult, Tool};
/// Stops [`McpServer::serve_io`] and an [`HttpServer`] when cancelled.
pub use tokio_util::sync::CancellationToken;

/// How long a stopping HTTP server waits for the requests under way.
const GRACE: Duration = Duration::from_secs(5);

/// A [`Toolbox`] as an MCP server: clone it freely (the toolbox is shared).
#[derive(Clone)]
pub struct McpServer {
    toolbox: Arc<Toolbox>,
    tools: Arc<[Tool]>,
    implementation: Implementation,
    instructions: Option<String>,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("name", &self.implementation.name)
            .field("tools", &self.toolbox)
            .finish()
    }
}

impl McpServer {
    /// A server for `toolbox`, named `agentspec-toolbox` at this crate's version (see
    /// [`McpServer::with_implementation`]).
    pub fn new(toolbox: impl Into<Arc<Toolbox>>) -> Self {
        let toolbox = toolbox.into();
        let tools = toolbox.specs().map(mcp_tool).collect();
        McpServer {
            toolbox,
            tools,
            implementation: Implementation::new("agentspec-toolbox", env!("CARGO_PKG_VERSION")),
            instructions: None,
        }
    }

    /// Names the server (its `serverInfo`) and its version.
    pub fn with_implementation(
        mut self,
        name: impl Into<String>,
        version: impl Into<String>,
    ) -> Self {
        self.implementation = Implementation::new(name, version);
        self
    }

    /// Instructions for the client, sent when a session starts.
    pub fn with_instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// The tools as the server lists them, in registration order.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// The toolbox served.
    pub fn toolbox(&self) -> &Toolbox {
        &self.toolbox
    }

    /// Calls a tool as a client's `tools/call` does: the result, or the tool error, as
    /// the server sends it. An unknown tool is an `Err` (a protocol error).
    pub async fn call(&self, name: &str, arguments: Value) -> Result<CallToolResult, ErrorData> {
        let Some(spec) = self.toolbox.get(name).and_then(|t| t.spec().ok()) else {
            let available: Vec<&str> = self.toolbox.names().collect();
            return Err(ErrorData::invalid_params(
                format!(
                    "no tool named `{name}`; this server has: {}",
                    available.join(", ")
                ),
                None,
            ));
        };
        Ok(match self.toolbox.call(name, arguments).await {
            Ok(value) => success(spec, value),
            Err(error) => failure(&error),
        })
    }

    /// Serves one client over this process's stdin and stdout, until the input ends or
    /// the process gets Ctrl-C or `SIGTERM`. Nothing else may write to stdout meanwhile.
    ///
    /// On Linux, when stdin and stdout are both pipes (as most MCP clients start servers),
    /// stdin is read on Tokio's reactor. Otherwise (another platform, a socket pair, a
    /// terminal) Tokio reads it on a blocking thread, and a read under way cannot be
    /// cancelled: after a signal this returns, but dropping the runtime waits for that read
    /// to end. A server that must stop at once ends the process after this returns
    /// ([`std::process::exit`]), as the `mcp_server` example does.
    pub async fn serve_stdio(self) -> Result<(), ServeError> {
        let cancel = CancellationToken::new();
        let on_signal = cancel.clone();
        let watcher = tokio::spawn(async move {
            shutdown_signal().await;
            on_signal.cancel();
        });
        // on the reactor when stdin and stdout are pipes on Linux, so a signal ends a pending
        // read; else Tokio's blocking handles (see above)
        let served = self
            .serve_io(rmcp::transport::io::stdio_pipes(), cancel)
            .await;
        watcher.abort();
        served
    }

    /// Serves one client over a pair of byte streams (a pipe, a socket), until the input
    /// ends or `cancel` is cancelled.
    pub async fn serve_io<R, W>(
        self,
        (read, write): (R, W),
        cancel: CancellationToken,
    ) -> Result<(), ServeError>
    where
        R: tokio::io::AsyncRead + Send + Unpin + 'static,
        W: tokio::io::AsyncWrite + Send + Unpin + 'static,
    {
        use rmcp::service::ServerInitializeError;
        let running = match rmcp::service::serve_server_with_ct(self, (read, write), cancel).await {
            Ok(running) => running,
            // the input ended (or the server was stopped) before a session began
            Err(ServerInitializeError::ConnectionClosed(_) | ServerInitializeError::Cancelled) => {
                return Ok(());
            }
            Err(e) => return Err(ServeError::Initialize(initialize_failure(&e))),
        };
        running.waiting().await.map_err(ServeError::Task)?;
        Ok(())
    }

    /// Listens for streamable HTTP on `options`' address (loopback by default); serve with
    /// [`HttpServer::run_until_signal`] or stop with [`HttpServer::shutdown`].
    pub async fn bind_http(self, options: HttpOptions) -> std::io::Result<HttpServer> {
        let listener = TcpListener::bind(options.addr).await?;
        let local_addr = listener.local_addr()?;
        let cancel = CancellationToken::new();
        let mut allowed_hosts = vec![
            "localhost".to_owned(),
            "127.0.0.1".to_owned(),
            "::1".to_owned(),
        ];
        allowed_hosts.extend(options.allowed_hosts);
        let mut allowed_origins = vec![
            "http://localhost:*".to_owned(),
            "http://127.0.0.1:*".to_owned(),
            "http://[::1]:*".to_owned(),
        ];
        allowed_origins.extend(options.allowed_origins);
        let config = StreamableHttpServerConfig::default()
            .with_cancellation_token(cancel.child_token())
            .with_allowed_hosts(allowed_hosts)
            .with_allowed_origins(allowed_origins);
        let server = self;
        let service = StreamableHttpService::new(
            move || Ok(server.clone()),
            Arc::new(LocalSessionManager::default()),
            config,
        );
        let task = tokio::spawn(accept(
            listener,
            TowerToHyperService::new(service),
            options.path.clone(),
            cancel.clone(),
        ));
        Ok(HttpServer {
            local_addr,
            path: options.path,
            _stop_on_drop: cancel.clone().drop_guard(),
            cancel,
            task,
        })
    }
}

/// Where an HTTP server listens.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    addr: SocketAddr,
    path: String,
    allowed_hosts: Vec<String>,
    allowed_origins: Vec<String>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self::new()
    }
}

impl HttpOptions {
    /// `127.0.0.1`, a port the system picks, path `/mcp`.
    pub fn new() -> Self {
        HttpOptions {
            addr: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            path: "/mcp".to_owned(),
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
        }
    }

    /// Listens on `port` (of the same address).
    pub fn with_port(mut self, port: u16) -> Self {
        self.addr.set_port(port);
        self
    }

    /// Listens on `addr`. An address other than loopback exposes the tools to the network:
    /// requests must then also name a host given to [`HttpOptions::with_allowed_host`] (the
    /// server rejects other `Host` headers, against DNS rebinding).
    pub fn with_addr(mut self, addr: SocketAddr) -> Self {
        self.addr = addr;
        self
    }

    /// Serves MCP at `path` (default `/mcp`; a leading `/` is added if missing); other
    /// paths answer 404.
    pub fn with_path(mut self, path: impl Into<String>) -> Self {
        let path = path.into();
        self.path = if path.starts_with('/') {
            path
        } else {
            format!("/{path}")
        };
        self
    }

    /// Accepts requests whose `Host` is `host` (a name, or `name:port`), besides loopback.
    pub fn with_allowed_host(mut self, host: impl Into<String>) -> Self {
        self.allowed_hosts.push(host.into());
        self
    }

    /// Accepts browser requests whose `Origin` is `origin` (`https://app.example.com:443`,
    /// `:*` for any port), besides loopback ones. Requests without an `Origin` (most MCP
    /// clients) are not affected; a browser page of any other origin is refused, as MCP
    /// asks of servers.
    pub fn with_allowed_origin(mut self, origin: impl Into<String>) -> Self {
        self.allowed_origins.push(origin.into());
        self
    }
}

/// A listening streamable-HTTP MCP server, serving in the background until it is shut down
/// or dropped.
#[derive(Debug)]
pub struct HttpServer {
    local_addr: SocketAddr,
    path: String,
    cancel: CancellationToken,
    /// Stops the server when this is dropped without [`HttpServer::shutdown`].
    _stop_on_drop: tokio_util::sync::DropGuard,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl HttpServer {
    /// The address it listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The URL a client connects to (`http://127.0.0.1:8808/mcp`): what a
    /// `StreamableHTTPTransport` names.
    pub fn url(&self) -> String {
        format!("http://{}{}", self.local_addr, self.path)
    }

    /// A token that stops the server when cancelled, for another task.
    pub fn cancellation_token(&self) -> CancellationToken {
        self.cancel.clone()
    }

    /// Serves until Ctrl-C or `SIGTERM` (or the token is cancelled), then stops as
    /// [`HttpServer::shutdown`] does.
    pub async fn run_until_signal(self) -> std::io::Result<()> {
        tokio::select! {
            () = shutdown_signal() => {}
            () = self.cancel.cancelled() => {}
        }
        self.shutdown().await
    }

    /// Stops accepting, ends the MCP sessions, and waits up to five seconds for the
    /// requests under way.
    pub async fn shutdown(self) -> std::io::Result<()> {
        self.cancel.cancel();
        let HttpServer { task, .. } = self;
        match task.await {
            Ok(result) => result,
            Err(e) => Err(std::io::Error::other(e)),
        }
    }
}

/// Why serving stopped with an error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The client's first messages were not an MCP session's start (the reason names what
    /// went wrong, never the content of the client's messages).
    #[error("the MCP session could not start: {0}")]
    Initialize(String),
    /// The task serving the session failed.
    #[error("the MCP session ended abnormally")]
    Task(#[source] tokio::task::JoinError),
}

/// Why a session could not start, without the client's message (it may hold arguments).
fn initialize_failure(error: &rmcp::service::ServerInitializeError) -> String {
    use rmcp::service::ServerInitializeError as E;
    match error {
        E::ExpectedInitializeRequest(_) => "the first message was not `initialize`".to_owned(),
        E::UnexpectedInitializeResponse(_) => "an unexpected answer to `initialize`".to_owned(),
        E::InitializeFailed(e) => format!("`initialize` failed: {}", e.message),
        other => other.to_string(),
    }
}

/// Resolves on Ctrl-C, or on `SIGTERM` on Unix.
pub async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

type McpHttp = TowerToHyperService<StreamableHttpService<McpServer, LocalSessionManager>>;

/// Accepts connections until `cancel`, then waits for the open ones (up to [`GRACE`]).
async fn accept(
    listener: TcpListener,
    service: McpHttp,
    path: String,
    cancel: CancellationToken,
) -> std::io::Result<()> {
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let path: Arc<str> = path.into();
    loop {
        let stream = tokio::select! {
            () = cancel.cancelled() => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                // a connection that failed before it was accepted (reset, too many open
                // files): the listener itself is fine; a pause keeps a lasting cause from
                // turning this loop into a busy one
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
        };
        let (service, path) = (service.clone(), path.clone());
        let route = hyper::service::service_fn(move |request: hyper::Request<_>| {
            let service = service.clone();
            let found = request.uri().path() == &*path;
            async move {
                if !found {
                    return Ok::<_, std::convert::Infallible>(not_found());
                }
                let ends_session = request.method() == hyper::Method::DELETE;
                let Ok(mut response) = service.call(request).await;
                // rmcp accepts a session's end with 202; the MCP Python SDK expects 200
                // and warns about anything else
                if ends_session && response.status() == hyper::StatusCode::ACCEPTED {
                    *response.status_mut() = hyper::StatusCode::OK;
                }
                Ok(response)
            }
        });
        let connection = hyper::server::conn::http1::Builder::new()
            .serve_connection(TokioIo::new(stream), route);
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            // a client that goes away mid-request is not the server's error
            let _ = connection.await;
        });
    }
    drop(listener);
    let _ = tokio::time::timeout(GRACE, graceful.shutdown()).await;
    Ok(())
}

fn not_found()
-> hyper::Response<http_body_util::combinators::BoxBody<Bytes, std::convert::Infallible>> {
    use http_body_util::BodyExt;
    let body = http_body_util::Full::new(Bytes::from_static(b"not an MCP endpoint\n")).boxed();
    let mut response = hyper::Response::new(body);
    *response.status_mut() = hyper::StatusCode::NOT_FOUND;
    response
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(self.implementation.clone());
        if let Some(instructions) = &self.instructions {
            info = info.with_instructions(instructions.clone());
        }
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.to_vec()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        self.call(&request.name, arguments).await.map(Into::into)
    }
}

/// A tool's MCP description, from its Agent Spec one.
fn mcp_tool(spec: &ToolSpec) -> Tool {
    let description = spec.description().map(|d| Cow::Owned(d.to_owned()));
    let mut tool = Tool::new_with_raw(
        spec.name().to_owned(),
        description,
        Arc::new(spec.mcp_input_schema()),
    );
    if let Some(output) = spec.mcp_output_schema() {
        tool = tool.with_raw_output_schema(Arc::new(output));
    }
    tool
}

/// The result of a call that returned `value`: its text (a string as itself, anything else
/// as JSON) and, when the tool has outputs, its structured form.
fn success(spec: &ToolSpec, value: Value) -> CallToolResult {
    let text = match &value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = spec.mcp_structured_result(value);
    result
}

/// The tool error for a call that failed: its message, then one line per bad argument, as
/// `ArgumentError` writes it (`/days: … (invalid-argument)`).
fn failure(error: &ToolError) -> CallToolResult {
    let mut text = String::new();
    match error {
        ToolError::Arguments { tool, errors } => {
            let _ = write!(
                text,
                "invalid arguments for tool `{tool}` ({} problem{}):",
                errors.len(),
                if errors.len() == 1 { "" } else { "s" }
            );
            for e in errors {
                if e.pointer.is_empty() {
                    let _ = write!(text, "\n(the arguments): {} ({})", e.reason, e.code);
                } else {
                    let _ = write!(text, "\n{e}");
                }
            }
        }
        other => {
            let _ = write!(text, "{other} ({})", other.code());
        }
    }
    CallToolResult::error(vec![ContentBlock::text(text)])
}
