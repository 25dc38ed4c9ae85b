//! `#[tool]`: descriptions inferred from signatures and docs, calls from JSON arguments,
//! the toolbox, and binding a document's server tools.

use agentspec_tests::tools::CountNodesTool;
use agentspec_types::schemars::JsonSchema;
use agentspec_types::tool::{RustTool, ToolKind, Toolbox};
use agentspec_types::{Document, tool};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[path = "tools/panics.rs"]
mod panics;

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(crate = "agentspec_types::schemars")]
#[serde(rename_all = "lowercase")]
enum Unit {
    Celsius,
    Fahrenheit,
}

/// A forecast.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[schemars(crate = "agentspec_types::schemars")]
struct Forecast {
    /// Temperature in the requested unit.
    temperature: f64,
    unit: Unit,
    days: u8,
}

#[derive(Debug, thiserror::Error)]
#[error("no weather for {0}")]
struct WeatherError(String);

/// Gets the weather forecast for a city.
#[tool]
async fn get_weather(
    /// Name of the city, e.g. "Zurich".
    city: &str,
    /// Temperature unit.
    #[arg(default = Unit::Celsius)]
    unit: Unit,
    days: Option<u8>,
) -> Result<Forecast, WeatherError> {
    if city == "Atlantis" {
        return Err(WeatherError(city.to_owned()));
    }
    Ok(Forecast {
        temperature: 21.5,
        unit,
        days: days.unwrap_or(1),
    })
}

fn spec_of(tool: &impl RustTool) -> Value {
    tool.spec().unwrap().document().to_value()
}

#[test]
fn describes_a_tool_from_its_signature_and_docs() {
    assert_eq!(
        spec_of(&GetWeatherTool),
        json!({
            "component_type": "ServerTool",
            "id": "get_weather",
            "name": "get_weather",
            "description": "Gets the weather forecast for a city.",
            "metadata": {},
            "inputs": [
                {"title": "city", "description": "Name of the city, e.g. \"Zurich\".", "type": "string"},
                {"title": "unit", "description": "Temperature unit.", "default": "celsius",
                 "type": "string", "enum": ["celsius", "fahrenheit"]},
                {"title": "days", "default": null,
                 "anyOf": [{"type": "integer", "minimum": 0, "maximum": 255}, {"type": "null"}]}
            ],
            "outputs": [
                {"title": "tool_output", "description": "A forecast.", "type": "object",
                 "properties": {
                     "temperature": {"description": "Temperature in the requested unit.", "type": "number"},
                     "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                     "days": {"type": "integer", "minimum": 0, "maximum": 255}
                 },
                 "required": ["temperature", "unit", "days"]}
            ],
            "agentspec_version": "25.4.1"
        })
    );
}

#[test]
fn calls_a_tool_from_json_arguments() {
    let out =
        agentspec_types::tool::block_on(GetWeatherTool.call(json!({"city": "Zurich", "days": 3})))
            .unwrap();
    assert_eq!(
        out,
        json!({"temperature": 21.5, "unit": "celsius", "days": 3})
    );
}

#[test]
fn reports_every_argument_problem_with_its_pointer() {
    let err = agentspec_types::tool::block_on(
        GetWeatherTool.call(json!({"unit": "kelvin", "days": "x", "extra": 1})),
    )
    .unwrap_err();
    assert_eq!(err.code(), "invalid-arguments");
    let agentspec_types::tool::ToolError::Arguments { tool, errors } = &err else {
        panic!("{err}")
    };
    assert_eq!(tool, "get_weather");
    let got: Vec<(&str, &str)> = errors
        .iter()
        .map(|e| (e.code, e.pointer.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("missing-argument", "/city"),
            ("invalid-argument", "/unit"),
            ("invalid-argument", "/days"),
            ("unknown-argument", "/extra"),
        ]
    );
    let serde_error = |e: &agentspec_types::tool::ArgumentError| {
        std::error::Error::source(e)
            .and_then(|s| s.downcast_ref::<serde_json::Error>())
            .map(ToString::to_string)
    };
    assert_eq!(
        serde_error(&errors[0]),
        None,
        "a missing argument has no source"
    );
    assert_eq!(
        serde_error(&errors[2]).as_deref(),
        Some("invalid type: string \"x\", expected u8"),
        "an invalid argument keeps serde's error"
    );
    assert_eq!(
        err.to_string(),
        "invalid arguments for tool `get_weather`: /city: the required argument `city` is missing \
         (missing-argument); /unit: unknown variant `kelvin`, expected `celsius` or `fahrenheit` \
         (invalid-argument); /days: invalid type: string \"x\", expected u8 (invalid-argument); \
         /extra: unknown argument `extra`; the inputs are `city`, `unit`, `days` (unknown-argument)"
    );
}

#[test]
fn keeps_the_functions_error() {
    let err = agentspec_types::tool::block_on(GetWeatherTool.call(json!({"city": "Atlantis"})))
        .unwrap_err();
    assert_eq!(err.code(), "tool-failed");
    assert_eq!(
        err.to_string(),
        "tool `get_weather` failed: no weather for Atlantis"
    );
    let source = std::error::Error::source(&err).unwrap();
    assert_eq!(source.downcast_ref::<WeatherError>().unwrap().0, "Atlantis");
}

/// A value serde cannot write as JSON.
#[derive(JsonSchema)]
#[schemars(crate = "agentspec_types::schemars")]
struct Unwritable;

impl Serialize for Unwritable {
    fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom("this value has no JSON form"))
    }
}

/// Returns what cannot be written.
#[tool]
fn unwritable() -> Unwritable {
    Unwritable
}

#[test]
fn an_unwritable_result_keeps_serdes_error() {
    let err = agentspec_types::tool::block_on(UnwritableTool.call(Value::Null)).unwrap_err();
    assert_eq!(err.code(), "invalid-output");
    assert_eq!(
        err.to_string(),
        "tool `unwritable` returned a value that cannot be written as JSON: this value has no JSON form"
    );
    let source = std::error::Error::source(&err).unwrap();
    assert_eq!(
        source
            .downcast_ref::<serde_json::Error>()
            .unwrap()
            .to_string(),
        "this value has no JSON form"
    );
}

#[test]
fn an_unwritable_default_keeps_serdes_error() {
    let err = agentspec_types::tool::SpecBuilder::new("t", ToolKind::Server)
        .input_default::<Unwritable>("x", None, &Unwritable)
        .build()
        .unwrap_err();
    assert_eq!(
        (err.code, err.pointer.as_str()),
        ("invalid-default", "/inputs/0")
    );
    let source = std::error::Error::source(&err).unwrap();
    assert!(source.downcast_ref::<serde_json::Error>().is_some());
}

#[test]
fn toolbox_calls_by_name_and_lists_what_it_has() {
    let toolbox = Toolbox::new().with(GetWeatherTool).unwrap();
    let out = toolbox
        .call_blocking("get_weather", json!({"city": "Bern", "unit": "fahrenheit"}))
        .unwrap();
    assert_eq!(out["unit"], "fahrenheit");
    let err = toolbox.call_blocking("get_wether", json!({})).unwrap_err();
    assert_eq!(err.code(), "unknown-tool");
    assert_eq!(
        err.to_string(),
        "no tool named `get_wether`; registered: `get_weather`"
    );
    let err = Toolbox::new()
        .with(GetWeatherTool)
        .unwrap()
        .with(GetWeatherTool)
        .unwrap_err();
    assert_eq!(err.code(), "duplicate-tool");
    assert_eq!(GetWeatherTool.spec().unwrap().kind(), ToolKind::Server);
}

/// Adds two numbers.
///
/// # Arguments
/// * `a` - The first number.
/// * b: The second
///   number.
///
/// # Returns
/// Their sum.
#[tool(name = "add-numbers")]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// The parts of a name.
#[derive(Serialize, JsonSchema)]
#[schemars(crate = "agentspec_types::schemars")]
struct Parts {
    /// Given name.
    first: String,
    last: Option<String>,
}

/// Splits a full name.
#[tool(outputs = fields, requires_confirmation)]
fn split_name(#[arg(rename = "full_name")] name: String) -> Parts {
    let mut words = name.splitn(2, ' ');
    Parts {
        first: words.next().unwrap_or_default().to_owned(),
        last: words.next().map(str::to_owned),
    }
}

/// Greets someone.
#[tool(client, output(title = "greeting", description = "The greeting."))]
fn greet(
    #[arg(default = "world")] who: &str,
    #[arg(description = "Punctuation to end with.")] mark: Option<&str>,
) -> String {
    format!("Hello, {who}{}", mark.unwrap_or("!"))
}

/// Forgets everything.
#[tool]
fn reset() {}

#[test]
fn takes_descriptions_from_the_arguments_list_and_returns_section() {
    let spec = AddTool.spec().unwrap();
    assert_eq!(AddTool::NAME, "add-numbers");
    assert_eq!(spec.description(), Some("Adds two numbers."));
    assert_eq!(
        Value::Array(spec.inputs().iter().cloned().map(Value::Object).collect()),
        json!([
            {"title": "a", "description": "The first number.", "type": "integer"},
            {"title": "b", "description": "The second number.", "type": "integer"}
        ])
    );
    assert_eq!(
        Value::Object(spec.outputs()[0].clone()),
        json!({"title": "tool_output", "description": "Their sum.", "type": "integer"})
    );
    let out = agentspec_types::tool::block_on(AddTool.call(json!({"a": 2, "b": 40})));
    assert_eq!(out.unwrap(), json!(42));
}

#[test]
fn one_output_per_field_returns_an_object_keyed_by_title() {
    let spec = SplitNameTool.spec().unwrap();
    assert!(spec.requires_confirmation());
    assert_eq!(spec.input_titles().collect::<Vec<_>>(), ["full_name"]);
    assert_eq!(
        Value::Array(spec.outputs().iter().cloned().map(Value::Object).collect()),
        json!([
            {"title": "first", "description": "Given name.", "type": "string"},
            {"title": "last", "anyOf": [{"type": "string"}, {"type": "null"}]}
        ])
    );
    let out =
        agentspec_types::tool::block_on(SplitNameTool.call(json!({"full_name": "Ada Lovelace"})));
    assert_eq!(out.unwrap(), json!({"first": "Ada", "last": "Lovelace"}));
    // requires_confirmation: true needs 25.4.2, so the document is written at that version
    assert_eq!(spec.document().agentspec_version().to_string(), "25.4.2");
}

#[test]
fn client_tools_borrowed_arguments_and_str_defaults() {
    let spec = GreetTool.spec().unwrap();
    assert_eq!(spec.kind(), ToolKind::Client);
    assert_eq!(
        Value::Array(spec.inputs().iter().cloned().map(Value::Object).collect()),
        json!([
            {"title": "who", "default": "world", "type": "string"},
            {"title": "mark", "description": "Punctuation to end with.", "default": null,
             "anyOf": [{"type": "string"}, {"type": "null"}]}
        ])
    );
    assert_eq!(spec.document().to_value()["component_type"], "ClientTool");
    let call = |args| agentspec_types::tool::block_on(GreetTool.call(args)).unwrap();
    assert_eq!(call(json!({})), json!("Hello, world!"));
    assert_eq!(
        call(json!({"who": "Ada", "mark": "?"})),
        json!("Hello, Ada?")
    );
    assert_eq!(
        Value::Object(spec.outputs()[0].clone()),
        json!({"title": "greeting", "description": "The greeting.", "type": "string"})
    );
}

#[test]
fn a_tool_without_arguments_or_result() {
    let spec = ResetTool.spec().unwrap();
    assert!(spec.inputs().is_empty() && spec.outputs().is_empty());
    let call = |args| agentspec_types::tool::block_on(ResetTool.call(args));
    assert_eq!(call(Value::Null).unwrap(), Value::Null);
    assert_eq!(call(json!({})).unwrap(), Value::Null);
    let err = call(json!({"x": 1})).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid arguments for tool `reset`: /x: unknown argument `x`; the tool takes no arguments (unknown-argument)"
    );
    let err = call(json!([1])).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid arguments for tool `reset`: : the arguments must be an object keyed by input title, not an array (arguments-not-object)"
    );
}

#[test]
fn rejects_a_recursive_argument_type_when_registered() {
    let err = Toolbox::new().with(CountNodesTool).unwrap_err();
    assert_eq!(err.code(), "recursive-type");
    assert_eq!(
        err.to_string(),
        "cannot describe tool `count_nodes`: `agentspec_tests::tools::Tree`, the type of `tree`, \
         is recursive, so its schema needs `$ref`, which Agent Spec properties cannot hold; use a \
         non-recursive type (for example `serde_json::Value` for the recursive part) \
         (at /inputs/0/properties/children/items; recursive-type)"
    );
    let agentspec_types::tool::ToolError::Spec(spec) = &err else {
        panic!("{err}")
    };
    assert_eq!(
        Err(spec),
        CountNodesTool.spec(),
        "the description fails the same way"
    );
    let mut toolbox = Toolbox::new();
    assert_eq!(
        toolbox.register(CountNodesTool).unwrap_err().code(),
        "recursive-type"
    );
    assert!(toolbox.is_empty(), "the tool is not added");
    let err = agentspec_types::tool::block_on(agentspec_types::tool::DynTool::call_boxed(
        &CountNodesTool,
        json!({"tree": {"children": []}}),
    ));
    assert_eq!(err.unwrap(), json!(1), "the function stays callable");
}

/// The tool's component as written in a document.
fn component(tool: &impl RustTool) -> Value {
    let mut value = spec_of(tool);
    value.as_object_mut().unwrap().remove("agentspec_version");
    value
}

fn agent_with_tools(tools: Value) -> Document {
    let text = std::fs::read_to_string(agentspec_tests::fixture(
        "generated/agent_simple_server_tool.json",
    ))
    .unwrap();
    let mut value: Value = serde_json::from_str(&text).unwrap();
    value["tools"] = tools;
    Document::from_value(&value).unwrap()
}

fn three_tools() -> Toolbox {
    Toolbox::new()
        .with(GetWeatherTool)
        .and_then(|t| t.with(AddTool))
        .and_then(|t| t.with(GreetTool))
        .unwrap()
}

#[test]
fn binds_a_documents_server_tools_to_registered_tools() {
    let toolbox = three_tools();
    let weather = component(&GetWeatherTool);
    let greet = component(&GreetTool);
    let doc = agent_with_tools(json!([weather, greet]));
    let bound = toolbox.bind(&doc).unwrap();
    assert_eq!(bound.len(), 1, "client tools are not bound");
    assert_eq!(
        (
            bound[0].id.as_str(),
            bound[0].name.as_str(),
            bound[0].pointer.as_str()
        ),
        ("get_weather", "get_weather", "/tools/0")
    );
}

#[test]
fn reports_every_missing_tool_and_mismatch_at_once() {
    let toolbox = three_tools();
    let text = std::fs::read_to_string(agentspec_tests::fixture(
        "generated/agent_simple_server_tool.json",
    ))
    .unwrap();
    let corpus_weather = serde_json::from_str::<Value>(&text).unwrap()["tools"][0].clone();
    let mut greet = component(&GreetTool);
    greet["component_type"] = json!("ServerTool");
    let doc = agent_with_tools(json!([
        corpus_weather,
        {"component_type": "ServerTool", "id": "t2", "name": "add-numbers", "description": null,
         "metadata": {},
         "inputs": [{"title": "a", "type": "string"}, {"title": "c", "type": "integer"}],
         "outputs": [{"title": "tool_output", "type": "integer"}]},
        {"component_type": "ServerTool", "id": "t3", "name": "lookup", "description": null,
         "metadata": {}, "inputs": [], "outputs": []},
        greet
    ]));
    let err = toolbox.bind(&doc).unwrap_err();
    assert_eq!(
        err.to_string(),
        "7 problem(s) binding the document's server tools:
  /tools/0/outputs/0: the document's output `forecast` is not one of the function's (output-mismatch)
  /tools/0/outputs: the function's output `tool_output` is not declared by the document (output-mismatch)
  /tools/1/inputs/0: the input `a` is string in the document but integer in Rust (input-mismatch)
  /tools/1/inputs/1: the document's input `c` is not one of the function's (input-mismatch)
  /tools/1/inputs: the function's input `b` is not declared by the document (input-mismatch)
  /tools/2: the server tool `lookup` has no registered Rust tool (tool-not-registered)
  /tools/3: `greet` is a server tool here but registered as a client tool (tool-kind-mismatch)
registered tools: `get_weather`, `add-numbers`, `greet`"
    );
}

/// A future that is pending until another thread wakes it.
struct FromThread(Option<std::sync::mpsc::Receiver<u32>>);

impl std::future::Future for FromThread {
    type Output = u32;
    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<u32> {
        if let Some(Ok(v)) = self.0.as_ref().map(std::sync::mpsc::Receiver::try_recv) {
            return std::task::Poll::Ready(v);
        }
        let (tx, rx) = std::sync::mpsc::channel();
        self.0 = Some(rx);
        let waker = cx.waker().clone();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(5));
            tx.send(7).unwrap();
            waker.wake();
        });
        std::task::Poll::Pending
    }
}

/// Waits for a value computed on another thread.
#[tool]
async fn wait_for_value(add: u32) -> u32 {
    FromThread(None).await + add
}

#[test]
fn call_blocking_waits_for_a_tool_that_is_woken_from_another_thread() {
    let toolbox = Toolbox::new().with(WaitForValueTool).unwrap();
    assert_eq!(
        toolbox
            .call_blocking("wait_for_value", json!({"add": 35}))
            .unwrap(),
        json!(42)
    );
}

mod schemas {
    use agentspec_types::schemars::JsonSchema;
    use agentspec_types::tool::{Contract, property};
    use serde::Deserialize;
    use serde_json::{Value, json};

    fn of<T: JsonSchema>() -> Value {
        Value::Object(property::<T>("x", Contract::Deserialize).unwrap())
    }

    /// A documented choice.
    #[derive(Deserialize, JsonSchema)]
    #[schemars(crate = "agentspec_types::schemars")]
    #[allow(dead_code, reason = "only described")]
    enum Documented {
        /// The first.
        A,
        /// The second.
        B,
    }

    #[derive(Deserialize, JsonSchema)]
    #[schemars(crate = "agentspec_types::schemars")]
    #[serde(tag = "kind")]
    #[allow(dead_code, reason = "only described")]
    enum Shape {
        Circle { r: f64 },
        Square { side: u16 },
    }

    #[derive(Deserialize, JsonSchema)]
    #[schemars(crate = "agentspec_types::schemars")]
    #[allow(dead_code, reason = "only described")]
    struct Titled {
        #[schemars(title = "bad title")]
        field: String,
    }

    #[test]
    fn one_of_is_written_as_any_of() {
        assert_eq!(
            of::<Documented>(),
            json!({"title": "x", "description": "A documented choice.", "anyOf": [
                {"description": "The first.", "type": "string", "const": "A"},
                {"description": "The second.", "type": "string", "const": "B"}
            ]})
        );
        assert_eq!(
            of::<Shape>(),
            json!({"title": "x", "anyOf": [
                {"type": "object", "properties": {"kind": {"type": "string", "const": "Circle"},
                 "r": {"type": "number"}}, "required": ["kind", "r"]},
                {"type": "object", "properties": {"kind": {"type": "string", "const": "Square"},
                 "side": {"type": "integer", "minimum": 0, "maximum": 65535}},
                 "required": ["kind", "side"]}
            ]})
        );
    }

    #[test]
    fn nullable_enums_and_any_values() {
        assert_eq!(
            of::<Option<Documented>>(),
            json!({"title": "x", "anyOf": [
                {"anyOf": [
                    {"description": "The first.", "type": "string", "const": "A"},
                    {"description": "The second.", "type": "string", "const": "B"}
                ], "description": "A documented choice."},
                {"type": "null"}
            ]})
        );
        assert_eq!(of::<Value>(), json!({"title": "x"}));
        assert_eq!(
            of::<(i32, String)>(),
            json!({"title": "x", "type": "array", "prefixItems": [{"type": "integer"},
                   {"type": "string"}], "minItems": 2, "maxItems": 2})
        );
    }

    /// Written under one key, read under another: its default cannot match its schema.
    #[derive(serde::Serialize, Deserialize, JsonSchema)]
    #[schemars(crate = "agentspec_types::schemars")]
    struct Renamed {
        #[serde(rename(serialize = "written", deserialize = "read"))]
        value: u8,
    }

    #[test]
    fn rejects_a_default_its_schema_does_not_accept() {
        let err =
            agentspec_types::tool::SpecBuilder::new("t", agentspec_types::tool::ToolKind::Server)
                .input_default::<Renamed>("r", None, &Renamed { value: 1 })
                .build()
                .unwrap_err();
        assert_eq!(
            (err.code, err.pointer.as_str()),
            ("invalid-default", "/inputs/0")
        );
        assert_eq!(
            err.to_string(),
            "cannot describe tool `t`: the default {\"written\":1} of `r` does not match its \
             schema (at /inputs/0; invalid-default)"
        );
    }

    #[test]
    fn rejects_a_nested_title_the_language_forbids() {
        let err = property::<Titled>("x", Contract::Deserialize).unwrap_err();
        assert_eq!(
            (err.code, err.pointer.as_str()),
            ("invalid-title", "/properties/field/title")
        );
    }
}

/// Sorts numbers and labels them.
#[tool]
fn sort_numbers(
    numbers: &mut Vec<i64>,
    skip: &[i64],
    r#type: Option<&str>,
    label: &String,
) -> (String, Vec<i64>) {
    numbers.retain(|n| !skip.contains(n));
    numbers.sort_unstable();
    (
        format!("{label}:{}", r#type.unwrap_or("asc")),
        numbers.clone(),
    )
}

#[test]
fn mutable_slice_raw_and_reference_arguments() {
    let spec = SortNumbersTool.spec().unwrap();
    assert_eq!(
        spec.input_titles().collect::<Vec<_>>(),
        ["numbers", "skip", "type", "label"]
    );
    let out = agentspec_types::tool::block_on(
        SortNumbersTool.call(json!({"numbers": [3, 1, 2, 5], "skip": [5], "label": "n"})),
    )
    .unwrap();
    assert_eq!(out, json!(["n:asc", [1, 2, 3]]));
}

/// An inventory shared by the tools that read and change it.
#[derive(Default)]
struct Inventory {
    stock: std::sync::Mutex<std::collections::BTreeMap<String, u32>>,
}

/// Adds items to the stock and returns how many there are now.
#[tool(output(title = "in_stock"))]
async fn restock(
    /// The inventory (the tool's state, not an input).
    #[state]
    inventory: &Inventory,
    /// The item.
    item: &str,
    #[arg(default = 1)] count: u32,
) -> u32 {
    let mut stock = inventory.stock.lock().unwrap();
    let total = stock.entry(item.to_owned()).or_default();
    *total += count;
    *total
}

/// How many of an item are in stock.
#[tool]
fn in_stock(item: String, #[state] inventory: &Inventory) -> u32 {
    inventory
        .stock
        .lock()
        .unwrap()
        .get(&item)
        .copied()
        .unwrap_or(0)
}

#[test]
fn stateful_tools_share_what_they_borrow() {
    let inventory = std::sync::Arc::new(Inventory::default());
    let restock = RestockTool::new(std::sync::Arc::clone(&inventory));
    // The state is not an input: the description is the same as without it.
    assert_eq!(
        spec_of(&restock),
        json!({
            "component_type": "ServerTool", "id": "restock", "name": "restock",
            "description": "Adds items to the stock and returns how many there are now.",
            "metadata": {},
            "inputs": [
                {"title": "item", "description": "The item.", "type": "string"},
                {"title": "count", "default": 1, "type": "integer", "minimum": 0}
            ],
            "outputs": [{"title": "in_stock", "type": "integer", "minimum": 0}],
            "agentspec_version": "25.4.1"
        })
    );
    let toolbox = Toolbox::new()
        .with(restock.clone())
        .and_then(|t| t.with(InStockTool::new(std::sync::Arc::clone(&inventory))))
        .unwrap();
    let call = |name: &str, args: Value| toolbox.call_blocking(name, args).unwrap();
    assert_eq!(call("restock", json!({"item": "apple", "count": 3})), 3);
    assert_eq!(call("restock", json!({"item": "apple"})), 4);
    assert_eq!(call("in_stock", json!({"item": "apple"})), 4);
    assert_eq!(inventory.stock.lock().unwrap()["apple"], 4);
    // Its name is not an argument.
    let err = toolbox
        .call_blocking("in_stock", json!({"item": "pear", "inventory": {}}))
        .unwrap_err();
    assert_eq!(err.code(), "invalid-arguments");
    assert!(
        err.to_string()
            .contains("/inventory: unknown argument `inventory`; the inputs are `item`"),
        "{err}"
    );
    // A tool holding a value of its own, and its debug form.
    let own = InStockTool::new(Inventory::default());
    assert_eq!(
        agentspec_types::tool::block_on(own.call(json!({"item": "apple"}))).unwrap(),
        0
    );
    assert_eq!(format!("{own:?}"), "InStockTool { .. }");
}
