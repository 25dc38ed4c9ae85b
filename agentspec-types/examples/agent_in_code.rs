//! An agent built in code: two `#[tool]`s and an OpenAI-compatible LLM, written as the JSON
//! pyagentspec loads (the README's example; `scripts/oracle.sh` loads its output with
//! pyagentspec 26.3.1).
//!
//! `cargo run -p agentspec-types --features macros --example agent_in_code`

// README begin
use agentspec_types::tool::Toolbox;
use agentspec_types::{Agent, Document, OpenAiCompatibleConfig, tool};
use serde_json::json;

/// Adds two numbers.
#[tool]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

/// Multiplies two numbers.
#[tool]
fn multiply(a: f64, b: f64) -> f64 {
    a * b
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let toolbox = Toolbox::new().with(AddTool)?.with(MultiplyTool)?;
    let sum = toolbox.call_blocking("add", json!({"a": 2, "b": 40}))?;
    assert_eq!(sum, json!(42.0)); // called as an agent runtime calls it
    let llm = OpenAiCompatibleConfig::new("llm", "gpt-oss-120b", "http://localhost:8000/v1");
    let agent = Agent::new("calculator", llm, "Compute with the tools you have.")
        .with_id("calculator")
        .with_tools(toolbox.tools());
    println!("{}", Document::at_min_version(agent)?.to_json_pretty());
    Ok(())
}
// README end
