//! Three Rust tools served over MCP, and the Agent Spec agent that uses them.
//!
//! ```text
//! cargo run -p agentspec-types --features macros,mcp --example mcp_server -- stdio
//! cargo run -p agentspec-types --features macros,mcp --example mcp_server -- http [PORT]
//! cargo run -p agentspec-types --features macros,mcp --example mcp_server -- document URL
//! ```
//!
//! `stdio` serves one client on stdin and stdout; `http` serves streamable HTTP on
//! 127.0.0.1 and prints its URL on stdout; `document URL [LLM_URL]` prints an agent whose
//! tools are the `MCPTool`s of the server at `URL` (`stdio` for a `StdioTransport` that
//! starts this example), and `toolbox-document` the same agent with one `MCPToolBox`. With `MCP_EXAMPLE_CALLS=FILE`, each call appends its tool and arguments to FILE
//! as a JSON line (the end-to-end tests read it).

use agentspec_types::mcp::{HttpOptions, McpServer};
use agentspec_types::schemars::JsonSchema;
use agentspec_types::tool::Toolbox;
use agentspec_types::{
    Agent, ClientTransport, Document, OpenAiCompatibleConfig, StdioTransport,
    StreamableHTTPTransport, tool,
};
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema)]
#[schemars(crate = "agentspec_types::schemars")]
#[serde(rename_all = "lowercase")]
enum Unit {
    Celsius,
    Fahrenheit,
}

/// A forecast.
#[derive(Serialize, JsonSchema)]
#[schemars(crate = "agentspec_types::schemars")]
struct Forecast {
    /// Temperature in the requested unit.
    temperature: f64,
    unit: Unit,
}

/// Gets the weather forecast for a city.
#[tool]
async fn get_weather(
    /// Name of the city, e.g. "Zurich".
    city: &str,
    /// Temperature unit.
    #[arg(default = Unit::Celsius)]
    unit: Unit,
) -> Forecast {
    record("get_weather", json!({"city": city, "unit": unit}));
    let celsius = if city == "Zurich" { 21.0 } else { 15.0 };
    let temperature = match unit {
        Unit::Celsius => celsius,
        Unit::Fahrenheit => celsius * 1.8 + 32.0,
    };
    Forecast { temperature, unit }
}

/// Converts an amount of money.
///
/// # Arguments
/// * `amount` - The amount to convert.
/// * `rate` - Units of the target currency per unit of the source one.
#[tool(output(title = "converted"))]
fn convert(amount: f64, rate: f64) -> f64 {
    record("convert", json!({"amount": amount, "rate": rate}));
    amount * rate
}

/// Splits a bill evenly.
///
/// # Arguments
/// * `total` - The bill's total.
/// * `people` - How many share it; at least one.
#[tool(output(title = "share"))]
fn split_bill(total: f64, people: u32) -> Result<f64, std::io::Error> {
    record("split_bill", json!({"total": total, "people": people}));
    if people == 0 {
        return Err(std::io::Error::other("nobody to split the bill with"));
    }
    Ok(total / f64::from(people))
}

/// Appends a call to the file named by `MCP_EXAMPLE_CALLS`, if set.
fn record(tool: &str, arguments: serde_json::Value) {
    use std::io::Write;
    let Some(path) = std::env::var_os("MCP_EXAMPLE_CALLS") else {
        return;
    };
    let line = json!({"tool": tool, "arguments": arguments}).to_string();
    if let Ok(mut file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = writeln!(file, "{line}");
    }
}

fn toolbox() -> Toolbox {
    Toolbox::new()
        .with(GetWeatherTool)
        .and_then(|t| t.with(ConvertTool))
        .and_then(|t| t.with(SplitBillTool))
        .expect("the example's tools are described and named once")
}

/// The agent, with the tools reached at `url` (or over stdio by starting this example): one
/// `MCPTool` each, or one `MCPToolBox` for all.
fn document(
    url: &str,
    llm_url: &str,
    toolbox_component: bool,
) -> Result<Document, agentspec_types::LoadError> {
    let transport: ClientTransport = if url == "stdio" {
        let example = std::env::current_exe().map_or_else(
            |_| "mcp_server".to_owned(),
            |p| p.to_string_lossy().into_owned(),
        );
        StdioTransport::new("travel tools", example)
            .with_id("travel_tools")
            .with_args(["stdio"])
            .into()
    } else {
        StreamableHTTPTransport::new("travel tools", url)
            .with_id("travel_tools")
            .into()
    };
    let llm = OpenAiCompatibleConfig::new("llm", "scripted", llm_url).with_id("llm");
    let agent = Agent::new(
        "travel helper",
        llm,
        "You help travellers with the weather and with money.",
    )
    .with_id("travel_helper");
    let agent = if toolbox_component {
        agent.with_toolboxes([toolbox().mcp_toolbox("travel_toolbox", transport)])
    } else {
        agent.with_tools(toolbox().mcp_tools(transport))
    };
    Document::at_min_version(agent)
}

const USAGE: &str =
    "usage: mcp_server stdio | http [PORT] | (document | toolbox-document) (URL | stdio) [LLM_URL]";

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let server = McpServer::new(toolbox()).with_implementation("travel-tools", "0.1.0");
    match args.as_slice() {
        ["stdio"] => {
            server.serve_stdio().await?;
            // a read of stdin under way would hold the runtime (see `serve_stdio`)
            std::process::exit(0);
        }
        ["http", rest @ ..] => {
            let port = match rest {
                [] => 0,
                [port] => port.parse()?,
                _ => return Err("usage: mcp_server http [PORT]".into()),
            };
            let http = server.bind_http(HttpOptions::new().with_port(port)).await?;
            // the URL on stdout, for whoever started us
            println!("{}", http.url());
            http.run_until_signal().await?;
        }
        [which @ ("document" | "toolbox-document"), url, rest @ ..] => {
            let llm_url = rest.first().copied().unwrap_or("http://127.0.0.1:8000");
            let doc = document(url, llm_url, *which == "toolbox-document")?;
            print!("{}", doc.to_json_pretty());
        }
        _ => return Err(USAGE.into()),
    }
    Ok(())
}
