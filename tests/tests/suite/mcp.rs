//! A `Toolbox` served over MCP (`agentspec_types::mcp`): each tool's MCP description agrees
//! with its Agent Spec one; calls run the functions, and bad arguments, errors and panics
//! come back as tool errors that name every problem; a session over a byte stream ends at
//! the end of its input; the HTTP server binds to loopback, answers 404 off its path and
//! stops. A document is checked against a live server by what the server's JSON Schemas
//! accept, and its `ServerTool`s become `MCPTool`s that reach the server. The MCP Python SDK
//! and wayflowcore drive the example server in `.ci/run` (scripts/mcp-e2e.sh).

use agentspec_types::mcp::{CancellationToken, HttpOptions, McpServer};
use agentspec_types::schemars::JsonSchema;
use agentspec_types::tool::Toolbox;
use agentspec_types::{Agent, Document, StreamableHTTPTransport, VllmConfig, tool};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// Says nothing.
#[tool]
fn noop() {}

/// Doubles a number.
#[tool(output(title = "doubled"))]
fn double(
    /// The number.
    x: f64,
    #[arg(default = 1)] times: u32,
) -> f64 {
    x * 2.0 * f64::from(times)
}

/// Where a city is.
#[derive(Serialize, JsonSchema)]
#[schemars(crate = "agentspec_types::schemars")]
struct Place {
    lat: f64,
    lon: f64,
}

/// Finds a city.
#[tool]
fn locate(city: String) -> Place {
    let _ = city;
    Place {
        lat: 47.4,
        lon: 8.5,
    }
}

/// Splits a name.
#[tool(outputs = fields)]
fn split(name: String) -> Place {
    Place {
        lat: name.len() as f64,
        lon: 0.0,
    }
}

/// One field that is an object.
#[derive(Serialize, JsonSchema)]
#[schemars(crate = "agentspec_types::schemars")]
struct Wrapped {
    place: Place,
}

/// One field of another type.
#[derive(Serialize, JsonSchema)]
#[schemars(crate = "agentspec_types::schemars")]
struct Count {
    n: u32,
}

/// An object whose one property is called `result`.
#[derive(Serialize, JsonSchema)]
#[schemars(crate = "agentspec_types::schemars")]
struct Outcome {
    result: f64,
}

/// Where, in a one-field struct.
#[tool(outputs = fields)]
fn wrapped() -> Wrapped {
    Wrapped {
        place: Place { lat: 1.0, lon: 2.0 },
    }
}

/// How many, in a one-field struct; `max` may be left out.
#[tool(outputs = fields)]
fn count(max: Option<u32>) -> Count {
    Count {
        n: max.unwrap_or(3),
    }
}

/// An outcome.
#[tool]
fn outcome() -> Outcome {
    Outcome { result: 0.5 }
}

/// Fails on request.
#[tool]
fn fragile(fail: bool) -> Result<String, std::io::Error> {
    if fail {
        return Err(std::io::Error::other("asked to fail"));
    }
    Ok("fine".to_owned())
}

/// Panics.
#[tool]
fn explode(city: String) -> u32 {
    panic!("no forecast for {city}")
}

fn server() -> McpServer {
    let toolbox = Toolbox::new()
        .with(NoopTool)
        .and_then(|t| t.with(DoubleTool))
        .and_then(|t| t.with(LocateTool))
        .and_then(|t| t.with(SplitTool))
        .and_then(|t| t.with(FragileTool))
        .and_then(|t| t.with(ExplodeTool))
        .and_then(|t| t.with(WrappedTool))
        .and_then(|t| t.with(CountTool))
        .and_then(|t| t.with(OutcomeTool))
        .unwrap();
    McpServer::new(toolbox)
}

fn tool<'a>(server: &'a McpServer, name: &str) -> &'a agentspec_types::mcp::Tool {
    server.tools().iter().find(|t| t.name == name).unwrap()
}

fn object(value: &Value) -> Value {
    value.clone()
}

#[test]
fn descriptions_agree_with_agent_spec() {
    let server = server();
    let names: Vec<&str> = server.tools().iter().map(|t| &*t.name).collect();
    assert_eq!(
        names,
        [
            "noop", "double", "locate", "split", "fragile", "explode", "wrapped", "count",
            "outcome"
        ]
    );
    for spec in server.toolbox().specs() {
        let listed = tool(&server, spec.name());
        assert_eq!(listed.description.as_deref(), spec.description());
        let properties = &listed.input_schema["properties"];
        for input in spec.inputs() {
            let title = input["title"].as_str().unwrap();
            assert_eq!(properties[title], Value::Object(input.clone()), "{title}");
        }
        assert_eq!(listed.input_schema["additionalProperties"], json!(false));
    }
    let double = tool(&server, "double");
    assert_eq!(double.input_schema["required"], json!(["x"]));
    // one output that is no object: wrapped in `result`
    assert_eq!(
        object(&Value::Object(
            (*double.output_schema.clone().unwrap()).clone()
        )),
        json!({
            "type": "object",
            "properties": {"result": {"title": "doubled", "type": "number"}},
            "required": ["result"]
        })
    );
    // one object output: its own schema
    let locate = tool(&server, "locate");
    let spec = server.toolbox().get("locate").unwrap().spec().unwrap();
    assert_eq!(**locate.output_schema.as_ref().unwrap(), spec.outputs()[0]);
    // several outputs: a `result` tuple
    let split = tool(&server, "split");
    let schema = split.output_schema.as_ref().unwrap();
    assert_eq!(
        schema["properties"]["result"]["prefixItems"],
        json!([{"title": "lat", "type": "number"}, {"title": "lon", "type": "number"}])
    );
    assert_eq!(schema["properties"]["result"]["minItems"], json!(2));
    // no output: no schema
    assert!(tool(&server, "noop").output_schema.is_none());
    // an `Option` input is not required
    assert_eq!(tool(&server, "count").input_schema["required"], json!([]));
}

/// Every structured result fits the tool's `outputSchema`, whatever the shape of its
/// outputs: checked value by value against the mapping.
#[tokio::test(flavor = "current_thread")]
async fn structured_results_fit_the_output_schemas() {
    let server = server();
    // one `fields` output that is an object: the value itself
    let result = server.call("wrapped", json!({})).await.unwrap();
    assert_eq!(
        result.structured_content,
        Some(json!({"lat": 1.0, "lon": 2.0}))
    );
    let schema = tool(&server, "wrapped").output_schema.clone().unwrap();
    assert_eq!(schema["title"], "place");
    // one `fields` output of another type: wrapped in `result`
    let result = server.call("count", json!({})).await.unwrap();
    assert_eq!(result.structured_content, Some(json!({"result": 3})));
    let schema = tool(&server, "count").output_schema.clone().unwrap();
    assert_eq!(schema["properties"]["result"]["title"], "n");
    // an object whose one property is `result` is not taken for a wrapper
    let result = server.call("outcome", json!({})).await.unwrap();
    assert_eq!(result.structured_content, Some(json!({"result": 0.5})));
}

#[tokio::test(flavor = "current_thread")]
async fn calls_run_the_functions() {
    let server = server();
    let result = server.call("double", json!({"x": 2.5})).await.unwrap();
    assert_eq!(result.is_error, Some(false));
    assert_eq!(result.structured_content, Some(json!({"result": 5.0})));
    assert_eq!(result.content[0].as_text().unwrap().text, "5.0");

    let result = server
        .call("locate", json!({"city": "Zurich"}))
        .await
        .unwrap();
    assert_eq!(
        result.structured_content,
        Some(json!({"lat": 47.4, "lon": 8.5}))
    );
    let result = server.call("split", json!({"name": "Ada"})).await.unwrap();
    assert_eq!(
        result.structured_content,
        Some(json!({"result": [3.0, 0.0]}))
    );
    assert_eq!(
        result.content[0].as_text().unwrap().text,
        r#"{"lat":3.0,"lon":0.0}"#
    );
    let result = server
        .call("fragile", json!({"fail": false}))
        .await
        .unwrap();
    assert_eq!(result.content[0].as_text().unwrap().text, "fine");
    assert_eq!(result.structured_content, Some(json!({"result": "fine"})));
    let result = server.call("noop", json!({})).await.unwrap();
    assert_eq!(result.structured_content, None);
}

fn error_text(result: &agentspec_types::mcp::CallToolResult) -> String {
    assert_eq!(result.is_error, Some(true), "{result:?}");
    result.content[0].as_text().unwrap().text.clone()
}

#[tokio::test(flavor = "current_thread")]
async fn failures_are_tool_errors_and_the_server_goes_on() {
    let server = server();
    let text = error_text(
        &server
            .call("double", json!({"x": "two", "times": -1, "y": 0}))
            .await
            .unwrap(),
    );
    assert!(
        text.starts_with("invalid arguments for tool `double` (3 problems):"),
        "{text}"
    );
    let lines: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[0].starts_with("/x: ") && lines[0].ends_with(" (invalid-argument)"));
    assert!(lines[1].starts_with("/times: ") && lines[1].ends_with(" (invalid-argument)"));
    assert_eq!(
        lines[2],
        "/y: unknown argument `y`; the inputs are `x`, `times` (unknown-argument)"
    );
    let text = error_text(&server.call("double", json!([1])).await.unwrap());
    assert!(
        text.ends_with(
            "\n(the arguments): the arguments must be an object keyed by input title, not an array (arguments-not-object)"
        ),
        "{text}"
    );

    let text = error_text(&server.call("fragile", json!({"fail": true})).await.unwrap());
    assert_eq!(text, "tool `fragile` failed: asked to fail (tool-failed)");

    let text = error_text(&server.call("explode", json!({"city": "Oz"})).await.unwrap());
    assert_eq!(
        text,
        "tool `explode` panicked: no forecast for Oz (tool-panicked)"
    );

    let unknown = server.call("nope", json!({})).await.unwrap_err();
    assert_eq!(unknown.code.0, -32602);
    assert!(unknown.message.contains("no tool named `nope`"));

    // still serving
    let result = server.call("double", json!({"x": 1})).await.unwrap();
    assert_eq!(result.structured_content, Some(json!({"result": 2.0})));
}

/// Sends one JSON-RPC message as a line.
async fn send(to: &mut (impl AsyncWriteExt + Unpin), message: Value) {
    let mut line = message.to_string();
    line.push('\n');
    to.write_all(line.as_bytes()).await.unwrap();
}

#[tokio::test(flavor = "current_thread")]
async fn a_session_over_a_byte_stream_ends_with_its_input() {
    let (client, server_side) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server_side);
    let serving =
        tokio::spawn(server().serve_io((server_read, server_write), CancellationToken::new()));
    let (client_read, mut client_write) = tokio::io::split(client);
    let mut lines = BufReader::new(client_read).lines();
    let mut next = async || -> Value {
        serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap()
    };

    send(
        &mut client_write,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"}}}),
    )
    .await;
    let init = next().await;
    assert_eq!(init["result"]["serverInfo"]["name"], "agentspec-toolbox");
    assert!(init["result"]["capabilities"]["tools"].is_object());
    send(
        &mut client_write,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    send(
        &mut client_write,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    )
    .await;
    let list = next().await;
    assert_eq!(list["result"]["tools"].as_array().unwrap().len(), 9);
    assert_eq!(
        list["result"]["tools"][1]["inputSchema"]["required"],
        json!(["x"])
    );
    send(
        &mut client_write,
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
               "params": {"name": "double", "arguments": {"x": 21}}}),
    )
    .await;
    let call = next().await;
    assert_eq!(call["result"]["structuredContent"], json!({"result": 42.0}));
    send(
        &mut client_write,
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
               "params": {"name": "explode", "arguments": {"city": "Oz"}}}),
    )
    .await;
    let call = next().await;
    assert_eq!(call["result"]["isError"], json!(true));
    // end of input: the session ends, cleanly
    client_write.shutdown().await.unwrap();
    drop(client_write);
    serving.await.unwrap().unwrap();
}

#[tokio::test(flavor = "current_thread")]
async fn the_http_server_listens_on_loopback_and_stops() {
    let http = server().bind_http(HttpOptions::new()).await.unwrap();
    assert!(http.local_addr().ip().is_loopback());
    assert_eq!(http.url(), format!("http://{}/mcp", http.local_addr()));
    let mut stream = tokio::net::TcpStream::connect(http.local_addr())
        .await
        .unwrap();
    stream
        .write_all(b"GET /elsewhere HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut response = String::new();
    tokio::io::AsyncReadExt::read_to_string(&mut stream, &mut response)
        .await
        .unwrap();
    assert!(response.starts_with("HTTP/1.1 404"), "{response}");
    let addr = http.local_addr();
    http.shutdown().await.unwrap();
    assert!(tokio::net::TcpStream::connect(addr).await.is_err());
}

/// The status line of a POST of an `initialize` request with `headers`.
async fn status_of(addr: std::net::SocketAddr, path: &str, headers: &str) -> String {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"}}})
    .to_string();
    let request = format!(
        "POST {path} HTTP/1.1\r\n{headers}Content-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut lines = BufReader::new(stream).lines();
    lines.next_line().await.unwrap().unwrap()
}

#[tokio::test(flavor = "current_thread")]
async fn foreign_hosts_and_origins_are_refused() {
    let http = server()
        .bind_http(
            HttpOptions::new()
                .with_path("tools")
                .with_allowed_host("tools.example")
                .with_allowed_origin("https://app.example:443"),
        )
        .await
        .unwrap();
    let addr = http.local_addr();
    assert!(http.url().ends_with("/tools"), "{}", http.url());
    let ok = |line: String| assert!(line.starts_with("HTTP/1.1 200"), "{line}");
    let refused = |line: String| assert!(line.starts_with("HTTP/1.1 403"), "{line}");
    ok(status_of(addr, "/tools", "Host: 127.0.0.1\r\n").await);
    ok(status_of(addr, "/tools", "Host: tools.example\r\n").await);
    // DNS rebinding: a name that resolves to loopback, but is not one
    refused(status_of(addr, "/tools", "Host: evil.example\r\n").await);
    // a browser page of another origin
    refused(
        status_of(
            addr,
            "/tools",
            "Host: 127.0.0.1\r\nOrigin: https://evil.example\r\n",
        )
        .await,
    );
    ok(status_of(
        addr,
        "/tools",
        "Host: 127.0.0.1\r\nOrigin: https://app.example:443\r\n",
    )
    .await);
    ok(status_of(
        addr,
        "/tools",
        "Host: 127.0.0.1\r\nOrigin: http://localhost:3000\r\n",
    )
    .await);
    assert!(
        status_of(addr, "/mcp", "Host: 127.0.0.1\r\n")
            .await
            .starts_with("HTTP/1.1 404")
    );
    // dropped without shutdown: it stops too
    drop(http);
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert!(tokio::net::TcpStream::connect(addr).await.is_err());
}

#[test]
fn the_toolbox_writes_mcp_tools_and_an_mcp_toolbox() {
    let server = server();
    let transport =
        StreamableHTTPTransport::new("tools", "http://127.0.0.1:8808/mcp").with_id("tools");
    let llm = VllmConfig::new("vllm", "llama", "http://localhost:8000").with_id("llm");
    let agent = Agent::new("a", llm, "You help.")
        .with_id("a")
        .with_tools(server.toolbox().mcp_tools(transport.clone()))
        .with_toolboxes([server.toolbox().mcp_toolbox("all", transport)]);
    let json = Document::at_min_version(agent).unwrap().to_json_pretty();
    let back = Document::from_json_str(&json).unwrap();
    assert_eq!(back.to_json_pretty(), json);
    let value: Value = serde_json::from_str(&json).unwrap();
    let tools = value["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 9);
    assert_eq!(tools[1]["component_type"], "MCPTool");
    assert_eq!(tools[1]["name"], "double");
    // the transport is written once, then referenced
    for tool in tools {
        assert_eq!(tool["client_transport"], json!({"$component_ref": "tools"}));
    }
    assert_eq!(
        value["$referenced_components"]["tools"]["component_type"],
        "StreamableHTTPTransport"
    );
    let toolbox = &value["toolboxes"][0];
    assert_eq!(toolbox["component_type"], "MCPToolBox");
    assert_eq!(
        toolbox["tool_filter"],
        json!([
            "noop", "double", "locate", "split", "fragile", "explode", "wrapped", "count",
            "outcome"
        ])
    );
}

/// A document that disagrees with the server in every way the check reports.
fn mismatched(url: &str) -> String {
    let server = server();
    let transport = StreamableHTTPTransport::new("tools", url).with_id("tools");
    let llm = VllmConfig::new("vllm", "llama", "http://localhost:8000").with_id("llm");
    let agent = Agent::new("a", llm, "You help.")
        .with_id("a")
        .with_tools(server.toolbox().mcp_tools(transport.clone()))
        .with_toolboxes([server.toolbox().mcp_toolbox("all", transport)]);
    let mut doc: Value =
        serde_json::from_str(&Document::at_min_version(agent).unwrap().to_json_pretty()).unwrap();
    let tools = doc["tools"].as_array_mut().unwrap();
    // noop: renamed, so the server lacks it
    tools[0]["name"] = json!("noop2");
    // double: `x` an array (no array converts to a number), an input the server lacks, and
    // its output an object (a number does not convert to one)
    tools[1]["inputs"][0]["type"] = json!("array");
    tools[1]["inputs"][0]["items"] = json!({"type": "number"});
    tools[1]["inputs"]
        .as_array_mut()
        .unwrap()
        .push(json!({"title": "precision", "type": "integer"}));
    tools[1]["outputs"][0] = json!({"title": "doubled", "type": "object"});
    // locate: its required input `city` left out
    tools[2]["inputs"] = json!([]);
    // split: one output where the server has two
    tools[3]["outputs"].as_array_mut().unwrap().pop();
    // the toolbox: a tool the server lacks
    doc["toolboxes"][0]["tool_filter"] = json!(["double", "explode2"]);
    doc.to_string()
}

#[tokio::test(flavor = "current_thread")]
async fn a_document_is_checked_against_its_server() {
    use agentspec_types::mcp::ServerCheck;
    let http = server().bind_http(HttpOptions::new()).await.unwrap();
    let text = mismatched(&http.url());
    let doc = Document::from_json_str(&text).unwrap();
    let report = ServerCheck::new().check(&doc).await;
    assert_eq!(report.servers.len(), 1);
    assert_eq!(report.servers[0].endpoint, http.url());
    assert_eq!(
        report.servers[0].tools.as_deref().unwrap(),
        [
            "noop", "double", "locate", "split", "fragile", "explode", "wrapped", "count",
            "outcome"
        ]
    );
    let found: Vec<(&str, &str)> = report
        .diagnostics
        .iter()
        .map(|d| (d.code, d.pointer.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            ("mcp-tool-missing", "/tools/0"),
            ("mcp-input-mismatch", "/tools/1/inputs/0"),
            ("mcp-input-mismatch", "/tools/1/inputs/2"),
            ("mcp-output-mismatch", "/tools/1/outputs/0"),
            ("mcp-input-mismatch", "/tools/2/inputs"),
            ("mcp-output-mismatch", "/tools/3/outputs"),
            ("mcp-tool-missing", "/toolboxes/0/tool_filter/1"),
        ],
        "{:#?}",
        report.diagnostics
    );
    let messages: Vec<&str> = report
        .diagnostics
        .iter()
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(
        messages[1],
        "the input `x` of `double` is array in the document but number on the MCP server"
    );
    assert_eq!(
        messages[4],
        "the MCP server's tool `locate` requires the input `city`, which the document does not declare"
    );
    assert!(report.has_errors());
    // located like any diagnostic
    let mut located = report.diagnostics.clone();
    agentspec_types::locate(&mut located, &text, agentspec_types::Format::Json);
    assert!(
        located
            .iter()
            .all(|d| d.line.is_some() && d.column.is_some())
    );

    // the document as the toolbox writes it agrees with the server
    let server = server();
    let transport = StreamableHTTPTransport::new("tools", http.url()).with_id("tools");
    let llm = VllmConfig::new("vllm", "llama", "http://localhost:8000").with_id("llm");
    let agent = Agent::new("a", llm, "You help.")
        .with_tools(server.toolbox().mcp_tools(transport.clone()))
        .with_toolboxes([server.toolbox().mcp_toolbox("all", transport)]);
    let report = ServerCheck::new()
        .check(&Document::at_min_version(agent).unwrap())
        .await;
    assert!(report.diagnostics.is_empty(), "{:#?}", report.diagnostics);
    http.shutdown().await.unwrap();
}

#[tokio::test(flavor = "current_thread")]
async fn commands_run_only_when_allowed_and_unreachable_servers_are_reported() {
    use agentspec_types::mcp::ServerCheck;
    use agentspec_types::{SSETransport, StdioTransport};
    use std::time::Duration;
    let toolbox = Toolbox::new().with(DoubleTool).unwrap();
    let llm = VllmConfig::new("vllm", "llama", "http://localhost:8000").with_id("llm");
    // nothing listens on port 1 of loopback
    let closed =
        StreamableHTTPTransport::new("closed", "http://ada:hunter2@127.0.0.1:1/mcp?token=s3cret")
            .with_id("closed_http");
    let agent = Agent::new("a", llm, "You help.")
        .with_tools(
            toolbox.mcp_tools(StdioTransport::new("local", "no-such-command-xyz").with_id("local")),
        )
        .with_toolboxes([
            toolbox.mcp_toolbox(
                "far",
                SSETransport::new("far", "http://127.0.0.1:2/sse").with_id("far_sse"),
            ),
            toolbox.mcp_toolbox("closed", closed),
            toolbox.mcp_toolbox(
                "tls",
                StreamableHTTPTransport::new("tls", "https://example.invalid/mcp")
                    .with_id("tls_http"),
            ),
        ]);
    let doc = Document::at_min_version(agent).unwrap();
    let check = ServerCheck::new().timeout(Duration::from_secs(5));
    let found = |report: &agentspec_types::mcp::ServerReport| -> Vec<(String, String)> {
        report
            .diagnostics
            .iter()
            .map(|d| {
                (
                    format!("{}:{}", d.severity.as_str(), d.code),
                    d.pointer.clone(),
                )
            })
            .collect()
    };
    let report = check.check(&doc).await;
    assert_eq!(
        found(&report),
        [
            (
                "error:mcp-stdio-refused".to_owned(),
                "/tools/0/client_transport".to_owned()
            ),
            (
                "warning:mcp-transport-unsupported".to_owned(),
                "/toolboxes/0/client_transport".to_owned()
            ),
            (
                "error:mcp-server-unreachable".to_owned(),
                "/toolboxes/1/client_transport".to_owned()
            ),
            (
                "warning:mcp-transport-unsupported".to_owned(),
                "/toolboxes/2/client_transport".to_owned()
            ),
        ]
    );
    assert!(
        report.diagnostics[0]
            .message
            .contains("would run no-such-command-xyz;")
    );
    // no credentials of a URL in a report
    let unreachable = &report.diagnostics[2].message;
    assert!(
        unreachable.starts_with(
            "the MCP server at http://127.0.0.1:1/mcp (credentials hidden) could not be asked"
        ),
        "{unreachable}"
    );
    assert!(
        !unreachable.contains("hunter2") && !unreachable.contains("s3cret"),
        "{unreachable}"
    );
    assert_eq!(
        report.servers[2].endpoint,
        "http://127.0.0.1:1/mcp (credentials hidden)"
    );
    let report = check.allow_stdio(true).check(&doc).await;
    assert_eq!(report.diagnostics[0].code, "mcp-server-unreachable");
    assert!(
        report.diagnostics[0].message.contains("cannot start it"),
        "{}",
        report.diagnostics[0].message
    );
    assert_eq!(report.servers[0].tools, None);
}

/// A temperature unit.
#[derive(Deserialize, JsonSchema)]
#[schemars(crate = "agentspec_types::schemars")]
#[serde(rename_all = "lowercase")]
enum Unit {
    Celsius,
    Fahrenheit,
}

/// A point to search near.
#[derive(Deserialize, JsonSchema)]
#[schemars(crate = "agentspec_types::schemars")]
struct Near {
    lat: f64,
    lon: f64,
}

/// Searches; `limit` may be null.
#[tool(output(title = "hits"))]
fn search(query: String, limit: Option<u32>, unit: Unit, near: Near, tags: Vec<String>) -> u32 {
    let _ = (query, unit, near.lat, near.lon, tags);
    limit.unwrap_or(0)
}

/// What `ServerCheck` reports for the agent whose `MCPTool`s are `search`, `double` and
/// `count` of a live server, once `edit` has changed it: `(code, pointer, message)`.
async fn checked(edit: impl FnOnce(&mut Value)) -> Vec<(String, String, String)> {
    use agentspec_types::mcp::ServerCheck;
    let toolbox = Toolbox::new()
        .with(SearchTool)
        .and_then(|t| t.with(DoubleTool))
        .and_then(|t| t.with(CountTool))
        .unwrap();
    let server = McpServer::new(toolbox);
    let http = server.clone().bind_http(HttpOptions::new()).await.unwrap();
    let toolbox = server.toolbox();
    let transport = StreamableHTTPTransport::new("tools", http.url()).with_id("tools");
    let llm = VllmConfig::new("vllm", "llama", "http://localhost:8000").with_id("llm");
    let agent = Agent::new("a", llm, "You help.")
        .with_id("a")
        .with_tools(toolbox.mcp_tools(transport));
    let mut doc = Document::at_min_version(agent).unwrap().to_value();
    edit(&mut doc);
    let doc = Document::from_value(&doc).unwrap();
    let report = ServerCheck::new().check(&doc).await;
    http.shutdown().await.unwrap();
    report
        .diagnostics
        .into_iter()
        .map(|d| (d.code.to_owned(), d.pointer, d.message))
        .collect()
}

fn found(code: &str, pointer: &str, message: &str) -> Vec<(String, String, String)> {
    vec![(code.to_owned(), pointer.to_owned(), message.to_owned())]
}

#[tokio::test(flavor = "current_thread")]
async fn the_document_as_the_toolbox_writes_it_fits_the_server() {
    assert_eq!(checked(|_| {}).await, []);
}

#[tokio::test(flavor = "current_thread")]
async fn an_integer_input_does_not_fit_a_string() {
    let report = checked(|doc| doc["tools"][0]["inputs"][0]["type"] = json!("integer")).await;
    assert_eq!(
        report,
        found(
            "mcp-input-mismatch",
            "/tools/0/inputs/0",
            "the input `query` of `search` is integer in the document but string on the MCP server"
        )
    );
}

#[tokio::test(flavor = "current_thread")]
async fn a_boolean_output_does_not_fit_an_integer() {
    let report = checked(|doc| doc["tools"][2]["outputs"][0]["type"] = json!("boolean")).await;
    assert_eq!(
        report,
        found(
            "mcp-output-mismatch",
            "/tools/2/outputs/0",
            "the output `n` of `count` is boolean in the document but integer on the MCP server"
        )
    );
}

/// An integer input fits the server's number; the server's integer output fits the
/// document's number. The other way round, a number is not an integer.
#[tokio::test(flavor = "current_thread")]
async fn integers_fit_numbers_but_not_the_other_way_round() {
    let widened = checked(|doc| {
        doc["tools"][1]["inputs"][0]["type"] = json!("integer");
        doc["tools"][2]["outputs"][0] = json!({"title": "n", "type": "number"});
    })
    .await;
    assert_eq!(widened, []);
    let report = checked(|doc| doc["tools"][1]["outputs"][0]["type"] = json!("integer")).await;
    assert_eq!(
        report,
        found(
            "mcp-output-mismatch",
            "/tools/1/outputs/0",
            "the output `doubled` of `double` is integer in the document but number on the MCP server"
        )
    );
}

#[tokio::test(flavor = "current_thread")]
async fn a_required_input_left_out_is_reported_at_the_inputs() {
    let report = checked(|doc| {
        doc["tools"][0]["inputs"].as_array_mut().unwrap().remove(0);
    })
    .await;
    assert_eq!(
        report,
        found(
            "mcp-input-mismatch",
            "/tools/0/inputs",
            "the MCP server's tool `search` requires the input `query`, which the document does not declare"
        )
    );
}

/// `limit` is `integer or null` on the server: an integer fits it, a string does not; the
/// server's `x` takes no null.
#[tokio::test(flavor = "current_thread")]
async fn null_fits_only_where_the_server_takes_it() {
    let narrower =
        checked(|doc| doc["tools"][0]["inputs"][1] = json!({"title": "limit", "type": "integer"}))
            .await;
    assert_eq!(narrower, []);
    let report = checked(|doc| {
        doc["tools"][0]["inputs"][1] = json!({"title": "limit", "type": "string"});
        doc["tools"][1]["inputs"][0] =
            json!({"title": "x", "anyOf": [{"type": "number"}, {"type": "null"}]});
    })
    .await;
    assert_eq!(
        report,
        [
            (
                "mcp-input-mismatch".to_owned(),
                "/tools/0/inputs/1".to_owned(),
                "the input `limit` of `search` is string in the document but integer or null on the MCP server".to_owned()
            ),
            (
                "mcp-input-mismatch".to_owned(),
                "/tools/1/inputs/0".to_owned(),
                "the input `x` of `double` is number or null in the document but number on the MCP server".to_owned()
            ),
        ]
    );
}

#[tokio::test(flavor = "current_thread")]
async fn enums_fit_when_every_value_is_the_servers() {
    let some =
        checked(|doc| doc["tools"][0]["inputs"][2] = json!({"title": "unit", "enum": ["celsius"]}))
            .await;
    assert_eq!(some, []);
    let any_string =
        checked(|doc| doc["tools"][0]["inputs"][2] = json!({"title": "unit", "type": "string"}))
            .await;
    assert_eq!(
        any_string,
        found(
            "mcp-input-mismatch",
            "/tools/0/inputs/2",
            r#"the input `unit` of `search` is string in the document but one of "celsius", "fahrenheit" on the MCP server"#
        )
    );
    let other = checked(|doc| {
        doc["tools"][0]["inputs"][2] =
            json!({"title": "unit", "type": "string", "enum": ["celsius", "kelvin"]});
    })
    .await;
    assert_eq!(
        other,
        found(
            "mcp-input-mismatch",
            "/tools/0/inputs/2",
            r#"the input `unit` of `search` is one of "celsius", "kelvin" in the document but one of "celsius", "fahrenheit" on the MCP server"#
        )
    );
}

/// Inside an object or array, the message names the path to where they differ.
#[tokio::test(flavor = "current_thread")]
async fn nested_objects_and_arrays_are_compared_property_by_property() {
    let near = |properties: Value, required: Value| json!({"title": "near", "type": "object", "properties": properties, "required": required});
    let report = checked(|doc| {
        doc["tools"][0]["inputs"][3] = near(json!({"lat": {"type": "number"}}), json!(["lat"]));
    })
    .await;
    assert_eq!(
        report,
        found(
            "mcp-input-mismatch",
            "/tools/0/inputs/3",
            "the input `near` of `search`: `lon` is required on the MCP server but not in the document"
        )
    );
    let report = checked(|doc| {
        doc["tools"][0]["inputs"][3] = near(
            json!({"lat": {"type": "string"}, "lon": {"type": "number"}}),
            json!(["lat", "lon"]),
        );
        doc["tools"][0]["inputs"][4] =
            json!({"title": "tags", "type": "array", "items": {"type": "integer"}});
    })
    .await;
    assert_eq!(
        report,
        [
            (
                "mcp-input-mismatch".to_owned(),
                "/tools/0/inputs/3".to_owned(),
                "the input `near.lat` of `search` is string in the document but number on the MCP server".to_owned()
            ),
            (
                "mcp-input-mismatch".to_owned(),
                "/tools/0/inputs/4".to_owned(),
                "the input `tags[]` of `search` is integer in the document but string on the MCP server".to_owned()
            ),
        ]
    );
}

/// An agent whose tools are every tool of the test server as `ServerTool`s (their ids are
/// their names), beside an LLM and a `ClientTool`.
fn agent_with_server_tools() -> Agent {
    let llm = VllmConfig::new("vllm", "llama", "http://localhost:8000").with_id("llm");
    let mut tools: Vec<agentspec_types::Tool> = server().toolbox().tools().collect();
    tools.push(
        agentspec_types::ClientTool::new("ask")
            .with_id("ask")
            .into(),
    );
    Agent::new("a", llm, "You help.")
        .with_id("a")
        .with_tools(tools)
}

/// Every `ServerTool` becomes the `MCPTool` the toolbox writes for the server; the transport
/// is written once, in the agent's `$referenced_components`; the rest is as it was. The
/// result loads, validates and agrees with the live server.
#[tokio::test(flavor = "current_thread")]
async fn server_tools_become_mcp_tools_sharing_one_transport() {
    use agentspec_types::mcp::{ServerCheck, ServerToolsToMcp};
    let http = server().bind_http(HttpOptions::new()).await.unwrap();
    let transport = StreamableHTTPTransport::new("tools", http.url()).with_id("tools");
    let before = Document::at_min_version(agent_with_server_tools()).unwrap();
    let converted = ServerToolsToMcp::new(transport.clone())
        .apply(&before)
        .unwrap();
    let ids: Vec<&str> = converted.tools.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "noop", "double", "locate", "split", "fragile", "explode", "wrapped", "count",
            "outcome"
        ]
    );
    assert_eq!(converted.tools[1].pointer, "/tools/1");
    let after = converted.document.to_value();
    let tools = after["tools"].as_array().unwrap();
    for tool in &tools[..9] {
        assert_eq!(tool["component_type"], "MCPTool");
        assert_eq!(tool["client_transport"], json!({"$component_ref": "tools"}));
    }
    assert_eq!(tools[9]["component_type"], "ClientTool");
    assert_eq!(
        after["$referenced_components"]["tools"]["url"],
        json!(http.url())
    );
    // what the toolbox writes for the server
    let llm = VllmConfig::new("vllm", "llama", "http://localhost:8000").with_id("llm");
    let mut written: Vec<agentspec_types::Tool> = server().toolbox().mcp_tools(transport);
    written.push(
        agentspec_types::ClientTool::new("ask")
            .with_id("ask")
            .into(),
    );
    let agent = Agent::new("a", llm, "You help.")
        .with_id("a")
        .with_tools(written);
    let expected = Document::at_min_version(agent).unwrap();
    assert_eq!(after, expected.to_value());
    // everything but the tools and the shared transport is as it was
    let mut rest = after.clone();
    let mut was = before.to_value();
    for doc in [&mut rest, &mut was] {
        let map = doc.as_object_mut().unwrap();
        map.shift_remove("tools");
        map.shift_remove("$referenced_components");
    }
    assert_eq!(rest, was);
    assert!(converted.document.validate().is_empty());
    let report = ServerCheck::new().check(&converted.document).await;
    assert!(report.diagnostics.is_empty(), "{:#?}", report.diagnostics);
    http.shutdown().await.unwrap();
}

/// One tool: the transport is written inline in it, as pyagentspec writes a component used
/// once. A `ServerTool` shared by reference stays shared: its body changes, not its uses.
#[test]
fn one_tool_takes_the_transport_inline_and_shared_tools_stay_shared() {
    use agentspec_types::StdioTransport;
    use agentspec_types::mcp::ServerToolsToMcp;
    let stdio = StdioTransport::new("calculator", "calculator-mcp")
        .with_id("calc")
        .with_args(["--quiet"]);
    let agent = Document::at_min_version(agent_with_server_tools()).unwrap();
    let converted = ServerToolsToMcp::new(stdio.clone())
        .tool("double")
        .apply(&agent)
        .unwrap();
    let value = converted.document.to_value();
    assert_eq!(value["tools"][0]["component_type"], "ServerTool");
    let double = &value["tools"][1];
    assert_eq!(double["component_type"], "MCPTool");
    assert_eq!(
        double["client_transport"]["component_type"],
        "StdioTransport"
    );
    assert_eq!(double["client_transport"]["args"], json!(["--quiet"]));
    assert!(value.get("$referenced_components").is_none());

    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/generated/flow_reused_components.json"
    );
    let flow = Document::from_path(path).unwrap();
    let converted = ServerToolsToMcp::new(stdio).apply(&flow).unwrap();
    assert_eq!(
        converted.tools[0].pointer,
        "/$referenced_components/shared_tool"
    );
    let value = converted.document.to_value();
    let shared = &value["$referenced_components"]["shared_tool"];
    assert_eq!(shared["component_type"], "MCPTool");
    assert_eq!(shared["id"], "shared_tool");
    assert_eq!(shared["client_transport"]["id"], "calc");
    assert_eq!(
        value["$referenced_components"]["r_tool"]["tool"],
        json!({"$component_ref": "shared_tool"})
    );
    assert_eq!(value["agentspec_version"], "25.4.1");
    assert!(converted.document.validate().is_empty());
}

#[test]
fn a_tool_or_transport_id_that_does_not_fit_is_refused() {
    use agentspec_types::mcp::{ConvertError, ServerToolsToMcp};
    let agent = Document::at_min_version(agent_with_server_tools()).unwrap();
    let transport =
        |id: &str| StreamableHTTPTransport::new("t", "http://127.0.0.1:1/mcp").with_id(id);
    let misspelt = ServerToolsToMcp::new(transport("t"))
        .tool("doubel")
        .apply(&agent)
        .unwrap_err();
    assert!(matches!(misspelt, ConvertError::UnknownTool { .. }));
    assert_eq!(
        misspelt.to_string(),
        "the document has no `ServerTool` named `doubel` (did you mean `double`?); its `ServerTool`s are `noop`, `double`, `locate`, `split`, `fragile`, `explode`, `wrapped`, `count`, `outcome`"
    );
    // a `ClientTool` is not a `ServerTool`
    let client = ServerToolsToMcp::new(transport("t"))
        .tool("ask")
        .apply(&agent);
    assert!(matches!(client, Err(ConvertError::UnknownTool { .. })));
    let taken = ServerToolsToMcp::new(transport("llm"))
        .apply(&agent)
        .unwrap_err();
    assert_eq!(
        taken.to_string(),
        "the document already has a component with id `llm`: give the transport another id"
    );
    let llm = VllmConfig::new("vllm", "llama", "http://localhost:8000");
    let none = Document::at_min_version(Agent::new("a", llm, "You help.")).unwrap();
    assert!(matches!(
        ServerToolsToMcp::new(transport("t")).apply(&none),
        Err(ConvertError::NoServerTool)
    ));
}
