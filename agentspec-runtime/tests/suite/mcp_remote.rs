//! MCPTool and MCPToolBox over the remote transports the CTS does not reach: `SSETransport`
//! (HTTP with SSE, MCP 2024-11-05), and SSE and streamable HTTP over mTLS, against the MCP
//! Python SDK's servers that `scripts/mcp-e2e.sh` starts (CI runs it): their one tool, `add`.
//! Ignored without those servers.

use agentspec_runtime::Runtime;
use agentspec_runtime::llm::{ChatResponse, ScriptedLlm};
use agentspec_types::Document;
use serde_json::{Value, json};

use crate::answered;

/// What `scripts/mcp-e2e.sh` says of its servers.
fn var(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("${name} is not set: run scripts/mcp-e2e.sh"))
}

/// A transport of `kind` to `url`.
fn transport(kind: &str, url: &str) -> Value {
    json!({
        "component_type": kind, "id": "remote", "name": "adder", "description": null,
        "metadata": {}, "session_parameters": {"read_timeout_seconds": 10.0}, "url": url,
        "auth": null, "headers": {"X-Test": "remote"}, "sensitive_headers": null,
        "retry_policy": null
    })
}

/// An mTLS transport of `kind` to `url`, with the files `key`, `cert` and `ca` of the
/// folder the script made.
fn mtls(kind: &str, url: &str, [key, cert, ca]: [&str; 3]) -> Value {
    let dir = var("AGENTSPEC_MCP_TLS");
    let mut transport = transport(kind, url);
    for (field, file) in [("key_file", key), ("cert_file", cert), ("ca_file", ca)] {
        transport[field] = json!(format!("{dir}/{file}"));
    }
    transport
}

/// An agent with `add` over `transport`: as an MCPTool, or through an MCPToolBox.
fn agent(transport: Value, toolbox: bool) -> Document {
    let add = json!({
        "component_type": "MCPTool", "id": "add", "name": "add", "description": "Adds.",
        "metadata": {}, "requires_confirmation": false, "retry_policy": null,
        "inputs": [{"title": "a", "type": "integer"}, {"title": "b", "type": "integer"}],
        "outputs": [{"title": "result", "type": "integer"}], "client_transport": transport
    });
    let mcp_toolbox = json!({
        "component_type": "MCPToolBox", "id": "box", "name": "box", "description": null,
        "metadata": {}, "requires_confirmation": false, "retry_policy": null,
        "client_transport": transport, "tool_filter": null
    });
    let (tools, toolboxes) = if toolbox {
        (json!([]), json!([mcp_toolbox]))
    } else {
        (json!([add]), json!([]))
    };
    let model = json!({
        "component_type": "OpenAiCompatibleConfig", "id": "llm", "name": "llm",
        "description": null, "metadata": {}, "default_generation_parameters": null,
        "model_id": "scripted", "url": "http://127.0.0.1:5099"
    });
    let agent = json!({
        "component_type": "Agent", "id": "a", "name": "a", "description": null, "metadata": {},
        "inputs": [], "outputs": [], "llm_config": model, "system_prompt": "Add.",
        "tools": tools, "toolboxes": toolboxes, "human_in_the_loop": true, "transforms": [],
        "agentspec_version": "26.3.1"
    });
    Document::from_value(&agent).expect("the agent loads")
}

/// Asks the agent to add 2 and 3: the requests its model got, or the error.
async fn add_two_and_three(doc: &Document) -> Result<Vec<Value>, String> {
    let llm = ScriptedLlm::new([
        ChatResponse::call("c1", "add", json!({"a": 2, "b": 3})),
        ChatResponse::text("2 + 3 = 5"),
    ]);
    answered(doc, llm, "What is 2 + 3?").await
}

/// Lists and calls `add` over `transport`, as an MCPTool and through an MCPToolBox.
async fn adds_over(transport: &Value) {
    for toolbox in [false, true] {
        let requests = add_two_and_three(&agent(transport.clone(), toolbox))
            .await
            .expect("runs");
        assert_eq!(requests.len(), 2, "toolbox: {toolbox}");
        // the tool is offered (through the toolbox, as the server lists it)
        let tools: Vec<&str> = requests[0]["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .filter_map(|t| t["name"].as_str())
            .collect();
        assert_eq!(tools, ["add"], "toolbox: {toolbox}");
        // and its result, computed by the server, reaches the model
        let told = &requests[1]["messages"][3];
        assert_eq!(
            told,
            &json!({"role": "tool", "tool_call_id": "c1", "content": "5"}),
            "toolbox: {toolbox}"
        );
    }
}

/// What the model is told when the call of `add` over `transport` fails.
async fn failure_over(transport: Value) -> String {
    let requests = add_two_and_three(&agent(transport, false))
        .await
        .expect("runs");
    let told = &requests[1]["messages"][3];
    assert_eq!(told["role"], "tool");
    told["content"].as_str().expect("text").to_owned()
}

#[tokio::test]
#[ignore = "needs the MCP server over SSE that scripts/mcp-e2e.sh starts"]
async fn mcp_tools_are_listed_and_called_over_sse() {
    let url = var("AGENTSPEC_MCP_SSE_URL");
    adds_over(&transport("SSETransport", &url)).await;
    // a URL with no event stream behind it fails the call, and the model is told what the
    // server answered
    let wrong = format!("{}-not-here", url.trim_end_matches('/'));
    assert_eq!(
        failure_over(transport("SSETransport", &wrong)).await,
        format!(
            "The tool failed: MCP server `adder` at {wrong} answered 404 Not Found to the request for its event stream"
        )
    );
}

#[tokio::test]
#[ignore = "needs the MCP servers over mTLS that scripts/mcp-e2e.sh starts"]
async fn mcp_tools_are_listed_and_called_over_mtls() {
    let ours = ["client.key", "client.crt", "ca.crt"];
    for (kind, url) in [
        ("SSEmTLSTransport", var("AGENTSPEC_MCP_MTLS_SSE_URL")),
        (
            "StreamableHTTPmTLSTransport",
            var("AGENTSPEC_MCP_MTLS_HTTP_URL"),
        ),
    ] {
        adds_over(&mtls(kind, &url, ours)).await;
        // the server's certificate is checked against ca_file alone, and the server refuses
        // a client whose certificate its authority did not sign (rmcp's streamable HTTP
        // client drops the cause; the SSE transport, the runtime's own, keeps it)
        let reached =
            format!("The tool failed: MCP server `adder` at {url} could not be reached: ");
        let other_authority = ["client.key", "client.crt", "other-ca.crt"];
        let told = failure_over(mtls(kind, &url, other_authority)).await;
        assert!(told.starts_with(&reached), "{kind}: {told}");
        if kind == "SSEmTLSTransport" {
            assert!(
                told.ends_with("invalid peer certificate: UnknownIssuer"),
                "{told}"
            );
        }
        let stranger = ["stranger.key", "stranger.crt", "ca.crt"];
        let told = failure_over(mtls(kind, &url, stranger)).await;
        assert!(told.starts_with(&reached), "{kind}: {told}");
        // a file that is not there is named by its field, never by its path (a secret)
        let told = failure_over(mtls(kind, &url, ["missing.key", "client.crt", "ca.crt"])).await;
        assert!(
            told.starts_with(
                "The tool failed: MCP server `adder`: its key_file could not be read: "
            ),
            "{kind}: {told}"
        );
        assert!(!told.contains("missing.key"), "{kind}: {told}");
    }
}

#[test]
fn a_transport_with_an_auth_is_refused_at_load() {
    let mut with_auth = transport("StreamableHTTPTransport", "http://127.0.0.1:5099/mcp");
    with_auth["auth"] = json!({
        "component_type": "OAuthConfig", "id": "oauth", "name": "oauth", "description": null,
        "metadata": {}, "issuer": "https://auth.example.com", "endpoints": null,
        "redirect_uri": "http://127.0.0.1:5098/callback", "scopes": null, "scope_policy": null,
        "pkce": null, "resource": null,
        "client": {"component_type": "OAuthClientConfig", "id": "client", "name": "client",
            "description": null, "metadata": {}, "type": "pre_registered",
            "client_id": "agentspec", "client_secret": null}
    });
    let doc = agent(with_auth, false);
    let error = Runtime::builder()
        .llm(ScriptedLlm::new([]))
        .build()
        .load(&doc)
        .err()
        .expect("refused");
    let problems: Vec<_> = error
        .diagnostics
        .iter()
        .map(|d| (d.code, d.message.as_str(), d.pointer.as_str()))
        .collect();
    assert_eq!(
        problems,
        [(
            "unsupported-component",
            "`adder` has an `auth`, which this runtime does not speak yet: give its credentials in `sensitive_headers`",
            "/tools/0/client_transport"
        )]
    );
}
