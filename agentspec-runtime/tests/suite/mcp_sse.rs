//! MCPTool and MCPToolBox over `SSETransport` (HTTP with SSE, MCP 2024-11-05), against the MCP
//! Python SDK's server that `scripts/mcp-e2e.sh` starts (CI runs it): its one tool, `add`.
//! Ignored without that server.

use agentspec_runtime::llm::{ChatResponse, ScriptedLlm};
use agentspec_types::Document;
use serde_json::{Value, json};

use crate::answered;

/// The server's event stream, from `scripts/mcp-e2e.sh`.
fn url() -> String {
    std::env::var("AGENTSPEC_MCP_SSE_URL")
        .expect("$AGENTSPEC_MCP_SSE_URL is not set: run scripts/mcp-e2e.sh")
}

/// An agent with `add` over SSE at `url`: as an MCPTool, or through an MCPToolBox.
fn agent(url: &str, toolbox: bool) -> Document {
    let transport = json!({
        "component_type": "SSETransport", "id": "sse", "name": "adder", "description": null,
        "metadata": {}, "session_parameters": {"read_timeout_seconds": 10.0}, "url": url,
        "auth": null, "headers": {"X-Test": "sse"}, "sensitive_headers": null,
        "retry_policy": null
    });
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

#[tokio::test]
#[ignore = "needs the MCP server over SSE that scripts/mcp-e2e.sh starts"]
async fn mcp_tools_are_listed_and_called_over_sse() {
    let url = url();
    for toolbox in [false, true] {
        let requests = add_two_and_three(&agent(&url, toolbox))
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
    // a URL with no event stream behind it fails the call, and the model is told what the
    // server answered
    let wrong = format!("{}-not-here", url.trim_end_matches('/'));
    let requests = add_two_and_three(&agent(&wrong, false))
        .await
        .expect("runs");
    let told = &requests[1]["messages"][3];
    assert_eq!(told["role"], "tool");
    assert_eq!(
        told["content"],
        format!(
            "The tool failed: MCP server `adder` at {wrong} answered 404 Not Found to the request for its event stream"
        )
    );
}
