//! The tools of the weather example (`agentspec-types/examples/weather_tools.rs`), the
//! Rust-first side of the round trip: their document is `fixtures/weather_tools.json`, and
//! the spec-first code generated from it is `crate::weather_tools`.

use agentspec_types::schemars::JsonSchema;
use agentspec_types::tool::{ToolError, Toolbox};
use agentspec_types::{Agent, Document, OpenAiCompatibleConfig, tool};
use serde::{Deserialize, Serialize};

/// A temperature unit.
#[derive(Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[schemars(crate = "agentspec_types::schemars")]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    Celsius,
    Fahrenheit,
}

/// A forecast.
#[derive(Serialize, JsonSchema)]
#[schemars(crate = "agentspec_types::schemars")]
pub struct Forecast {
    /// Temperature in the requested unit.
    pub temperature: f64,
    pub unit: Unit,
}

/// Gets the weather forecast for a city.
#[tool]
pub async fn get_weather(
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
pub fn convert(amount: f64, rate: Option<f64>) -> f64 {
    amount * rate.unwrap_or(1.0)
}

/// The two tools, by name.
pub fn toolbox() -> Result<Toolbox, ToolError> {
    Toolbox::new().with(GetWeatherTool)?.with(ConvertTool)
}

/// An agent with the two tools, as `fixtures/weather_tools.json` holds it.
pub fn document() -> Result<Document, Box<dyn std::error::Error>> {
    let llm = OpenAiCompatibleConfig::new("llm", "gpt-oss-120b", "http://localhost:8000/v1")
        .with_id("llm");
    let agent = Agent::new(
        "weather_tools",
        llm,
        "Help travellers with weather and money.",
    )
    .with_id("weather_tools")
    .with_tools(toolbox()?.tools());
    Ok(Document::at_min_version(agent)?)
}
