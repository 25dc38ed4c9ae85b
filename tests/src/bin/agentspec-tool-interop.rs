//! Prints, as a JSON array of documents, the `ServerTool`s and `ClientTool`s that
//! `#[tool]` writes for a set of tools covering strings, numbers, enums, lists, maps,
//! nested structs, optional and defaulted arguments and several outputs.
//! `scripts/tool-interop.py` builds the same tools with pyagentspec and compares.

use std::collections::BTreeMap;

use agentspec_types::schemars::JsonSchema;
use agentspec_types::tool;
use agentspec_types::tool::RustTool;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, JsonSchema)]
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
    summary: String,
}

/// Gets the weather forecast for a city.
#[tool]
async fn get_weather(
    /// Name of the city, e.g. "Zurich".
    city: &str,
    /// Temperature unit.
    #[arg(default = Unit::Celsius)]
    unit: Unit,
    /// How many days ahead.
    days: Option<u8>,
) -> Result<Forecast, std::io::Error> {
    let _ = days;
    Ok(Forecast {
        temperature: 20.0,
        unit,
        summary: format!("sunny in {city}"),
    })
}

/// Adds two numbers.
///
/// # Arguments
/// * `a` - The first addend.
/// * `b` - The second addend.
///
/// # Returns
/// The sum.
#[tool(output(title = "sum"))]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

/// Keeps the first items of a list.
#[tool]
fn take_items(items: Vec<String>, #[arg(default = 10)] limit: i64, verbose: bool) -> Vec<String> {
    let _ = verbose;
    items.into_iter().take(limit as usize).collect()
}

/// The parts of a name.
#[derive(Serialize, JsonSchema)]
#[schemars(crate = "agentspec_types::schemars")]
struct Parts {
    /// Given name.
    first: String,
    /// Family name, if any.
    last: Option<String>,
    /// How many words the name has.
    words: u32,
}

/// Splits a full name.
#[tool(outputs = fields)]
fn split_name(full_name: String) -> Parts {
    let words: Vec<&str> = full_name.split_whitespace().collect();
    Parts {
        first: words.first().copied().unwrap_or_default().to_owned(),
        last: words.last().map(|s| (*s).to_owned()),
        words: words.len() as u32,
    }
}

/// Looks a query up with filters.
#[tool]
fn search(
    query: String,
    #[arg(description = "Field filters, by field name.")] filters: BTreeMap<String, String>,
) -> Vec<BTreeMap<String, String>> {
    let _ = (query, filters);
    Vec::new()
}

#[derive(Deserialize, JsonSchema)]
#[schemars(crate = "agentspec_types::schemars")]
#[serde(rename_all = "snake_case")]
enum Priority {
    Low,
    High,
}

/// Someone to invite.
#[derive(Deserialize, JsonSchema)]
#[schemars(crate = "agentspec_types::schemars")]
struct Person {
    name: String,
    email: Option<String>,
}

/// An event to create.
#[derive(Deserialize, JsonSchema)]
#[schemars(crate = "agentspec_types::schemars")]
struct Event {
    title: String,
    attendees: Vec<Person>,
    priority: Priority,
}

/// Creates a calendar event.
#[tool(requires_confirmation)]
fn create_event(event: Event) -> String {
    let high = matches!(event.priority, Priority::High);
    let names: Vec<String> = event
        .attendees
        .into_iter()
        .map(|p| format!("{} <{}>", p.name, p.email.unwrap_or_default()))
        .collect();
    format!("{} ({}, high: {high})", event.title, names.join(", "))
}

/// Asks the user to confirm an order.
#[tool(client, name = "confirm-order")]
fn confirm_order(order_id: i64, #[arg(default = 1.5)] ratio: f64) -> bool {
    order_id > 0 && ratio > 0.0
}

fn main() {
    let tools: [&dyn Fn() -> String; 7] = [
        &|| GetWeatherTool.spec().unwrap().document().to_json_pretty(),
        &|| AddTool.spec().unwrap().document().to_json_pretty(),
        &|| TakeItemsTool.spec().unwrap().document().to_json_pretty(),
        &|| SplitNameTool.spec().unwrap().document().to_json_pretty(),
        &|| SearchTool.spec().unwrap().document().to_json_pretty(),
        &|| CreateEventTool.spec().unwrap().document().to_json_pretty(),
        &|| ConfirmOrderTool.spec().unwrap().document().to_json_pretty(),
    ];
    let docs: Vec<String> = tools.iter().map(|f| f()).collect();
    println!("{}", serde_json::to_string(&docs).unwrap());
}
