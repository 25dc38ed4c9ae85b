//! Rust functions as Agent Spec tools: describe them, use them in an agent written as Agent
//! Spec YAML, bind the agent's server tools to them, and call them from the JSON arguments
//! an agent runtime sends.
//!
//! `cargo run -p agentspec-types --features macros --example weather_tools`

use agentspec_types::schemars::JsonSchema;
use agentspec_types::tool::{RustTool, Toolbox};
use agentspec_types::{Document, tool};
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(Clone, Copy, Serialize, Deserialize, JsonSchema)]
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
) -> Result<Forecast, std::io::Error> {
    let celsius = if city == "Zurich" { 21.0 } else { 15.0 };
    let temperature = match unit {
        Unit::Celsius => celsius,
        Unit::Fahrenheit => celsius * 1.8 + 32.0,
    };
    Ok(Forecast { temperature, unit })
}

/// Converts an amount of money.
///
/// # Arguments
/// * `amount` - The amount to convert.
/// * `rate` - Units of the target currency per unit of the source one.
#[tool(output(title = "converted"))]
fn convert(amount: f64, rate: Option<f64>) -> f64 {
    amount * rate.unwrap_or(1.0)
}

const AGENT: &str = r#"
component_type: Agent
id: travel_agent
name: Travel helper
description: null
metadata: {}
inputs: []
outputs: []
llm_config:
  component_type: VllmConfig
  id: llm
  name: llama
  description: null
  metadata: {}
  default_generation_parameters: null
  url: http://localhost:8000
  model_id: meta-llama/Llama-3.1-8B-Instruct
system_prompt: You help travellers with the weather and with money.
tools:
- component_type: ServerTool
  id: weather
  name: get_weather
  description: Gets the weather forecast for a city.
  metadata: {}
  inputs:
  - {title: city, type: string}
  - {title: unit, default: celsius, type: string, enum: [celsius, fahrenheit]}
  outputs:
  - {title: tool_output, type: object}
- component_type: ServerTool
  id: money
  name: convert
  description: Converts an amount of money.
  metadata: {}
  inputs:
  - {title: amount, type: number}
  - {title: rate, type: number}
  outputs:
  - {title: converted, type: number}
agentspec_version: 25.4.1
"#;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The tools, by name.
    let toolbox = Toolbox::new().with(GetWeatherTool)?.with(ConvertTool)?;

    // What #[tool] writes for a function: a ServerTool document.
    println!("{}", GetWeatherTool.spec()?.document().to_json_pretty());

    // An agent that uses them: every server tool must be registered, with the inputs and
    // outputs the document declares.
    let agent = Document::from_yaml_str(AGENT)?;
    for bound in toolbox.bind(&agent)? {
        println!(
            "{} at {} -> the Rust tool `{}`",
            bound.id, bound.pointer, bound.name
        );
    }

    // What an agent runtime sends, and what it gets back.
    let forecast = toolbox.call_blocking("get_weather", json!({"city": "Zurich"}))?;
    assert_eq!(forecast, json!({"temperature": 21.0, "unit": "celsius"}));
    let converted = toolbox.call_blocking("convert", json!({"amount": 10.0, "rate": 0.5}))?;
    assert_eq!(converted, json!(5.0));

    // Bad arguments are reported, each with its JSON pointer, never a panic.
    let error = toolbox
        .call_blocking("get_weather", json!({"unit": "kelvin"}))
        .unwrap_err();
    println!("{error}");
    Ok(())
}
