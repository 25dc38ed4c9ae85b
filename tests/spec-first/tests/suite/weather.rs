//! The round trip: the weather example's `#[tool]`s write their document, the spec-first
//! code is generated from it, and its argument types accept exactly the JSON the tools
//! accept; `Toolbox::bind` passes by construction.

use agentspec_spec_first_tests::{weather, weather_tools};
use agentspec_types::Document;
use agentspec_types::tool::BoxError;
use serde_json::{Value, json};

#[test]
fn the_fixture_is_what_the_tools_write() {
    let written = weather::document().expect("builds").to_json_pretty();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/weather_tools.json");
    if std::env::var_os("AGENTSPEC_UPDATE_FIXTURES").is_some() {
        std::fs::write(path, &written).expect("writes");
    }
    let fixture = std::fs::read_to_string(path).expect("reads");
    assert_eq!(
        fixture.trim_end(),
        written.trim_end(),
        "the weather tools changed: rerun with AGENTSPEC_UPDATE_FIXTURES=1"
    );
}

/// The weather tools, implemented against the generated trait, as the example implements
/// them with `#[tool]`.
pub(crate) struct Weather;

impl weather_tools::Tools for Weather {
    async fn get_weather(
        &self,
        args: weather_tools::tools::get_weather::Args,
    ) -> Result<weather_tools::tools::get_weather::Output, BoxError> {
        use weather_tools::tools::get_weather::{ArgsUnit, Output, OutputUnit};
        let celsius = if args.city == "Zurich" { 21.0 } else { 15.0 };
        Ok(match args.unit {
            ArgsUnit::Celsius => Output {
                temperature: celsius,
                unit: OutputUnit::Celsius,
            },
            ArgsUnit::Fahrenheit => Output {
                temperature: celsius * 1.8 + 32.0,
                unit: OutputUnit::Fahrenheit,
            },
        })
    }

    async fn convert(&self, args: weather_tools::tools::convert::Args) -> Result<f64, BoxError> {
        Ok(args.amount * args.rate.unwrap_or(1.0))
    }
}

#[test]
fn bind_passes_by_construction() {
    let toolbox = weather_tools::toolbox(Weather).expect("registers");
    let bound = toolbox.bind(weather_tools::document()).expect("binds");
    let names: Vec<&str> = bound.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["get_weather", "convert"]);
    // the descriptions are the document's, as written
    let doc: Value = serde_json::from_str(weather_tools::JSON).expect("JSON");
    for (spec, tool) in toolbox.specs().zip(doc["tools"].as_array().expect("tools")) {
        assert_eq!(spec.name(), tool["name"]);
        assert_eq!(spec.description(), tool["description"].as_str());
        assert_eq!(Value::from(spec.inputs().to_vec()), tool["inputs"]);
        assert_eq!(Value::from(spec.outputs().to_vec()), tool["outputs"]);
    }
    assert_eq!(
        weather_tools::document().to_json_pretty(),
        Document::from_json_str(weather_tools::JSON)
            .expect("loads")
            .to_json_pretty()
    );
}

/// Arguments an agent runtime might send, good and bad.
fn cases() -> Vec<(&'static str, Value)> {
    vec![
        ("get_weather", json!({"city": "Zurich"})),
        (
            "get_weather",
            json!({"city": "Zurich", "unit": "fahrenheit"}),
        ),
        ("get_weather", json!({"city": "Bern", "unit": "celsius"})),
        ("get_weather", json!({"city": "Zurich", "unit": "kelvin"})),
        ("get_weather", json!({"city": 3})),
        ("get_weather", json!({})),
        ("get_weather", json!(null)),
        ("get_weather", json!([])),
        ("get_weather", json!({"city": "Zurich", "days": 3})),
        ("get_weather", json!({"city": null})),
        ("get_weather", json!({"city": "Zurich", "unit": null})),
        ("convert", json!({"amount": 10, "rate": 0.5})),
        ("convert", json!({"amount": 10.5})),
        ("convert", json!({"amount": 10, "rate": null})),
        ("convert", json!({"amount": "ten"})),
        ("convert", json!({"rate": 2})),
        ("convert", json!({"amount": 1e308, "rate": 2})),
        ("convert", json!({"amount": -4, "rate": "x"})),
        ("convert", json!({"amount": 1, "currency": "CHF"})),
        ("convert", json!("amount")),
    ]
}

#[test]
fn the_generated_arguments_accept_exactly_what_the_tools_accept() {
    let rust_first = weather::toolbox().expect("registers");
    let spec_first = weather_tools::toolbox(Weather).expect("registers");
    let (mut accepted, mut refused) = (0, 0);
    for (tool, args) in cases() {
        let expected = rust_first.call_blocking(tool, args.clone());
        let got = spec_first.call_blocking(tool, args.clone());
        match (&expected, &got) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a, b, "{tool}({args}): the same result");
                accepted += 1;
            }
            (Err(a), Err(b)) => {
                assert_eq!(a.code(), b.code(), "{tool}({args}): {a} / {b}");
                refused += 1;
            }
            _ => panic!("{tool}({args}): #[tool] gives {expected:?}, the generated tool {got:?}"),
        }
    }
    assert_eq!((accepted, refused), (7, 13));
}

#[test]
fn argument_errors_name_their_pointer() {
    let spec_first = weather_tools::toolbox(Weather).expect("registers");
    let error = spec_first
        .call_blocking("get_weather", json!({"unit": "kelvin", "days": 1}))
        .expect_err("refused");
    let message = error.to_string();
    assert!(message.contains("/city"), "{message}");
    assert!(message.contains("missing-argument"), "{message}");
    assert!(message.contains("/days"), "{message}");
    assert!(message.contains("unknown-argument"), "{message}");
    let error = spec_first
        .call_blocking("get_weather", json!({"city": "Zurich", "unit": "kelvin"}))
        .expect_err("refused");
    let message = error.to_string();
    assert!(message.contains("/unit"), "{message}");
    assert!(message.contains("invalid-argument"), "{message}");
}

#[test]
fn a_failing_tool_is_an_execution_error() {
    struct Failing;
    impl weather_tools::Tools for Failing {
        async fn get_weather(
            &self,
            _: weather_tools::tools::get_weather::Args,
        ) -> Result<weather_tools::tools::get_weather::Output, BoxError> {
            Err("no forecast today".into())
        }
        async fn convert(&self, _: weather_tools::tools::convert::Args) -> Result<f64, BoxError> {
            Err(std::io::Error::other("no rates").into())
        }
    }
    let toolbox = weather_tools::toolbox(Failing).expect("registers");
    let error = toolbox
        .call_blocking("convert", json!({"amount": 1}))
        .expect_err("fails");
    assert_eq!(error.code(), "tool-failed");
    assert!(error.to_string().contains("no rates"));
}

/// The tools' properties without their descriptions.
fn without_descriptions(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| *k != "description")
                .map(|(k, v)| (k.clone(), without_descriptions(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_descriptions).collect()),
        other => other.clone(),
    }
}

#[test]
fn the_readme_shows_these_tools() {
    let readme = include_str!("../../../../README.md");
    let section = readme
        .split("## Spec-first")
        .nth(1)
        .and_then(|s| s.split("```yaml\n").nth(1))
        .and_then(|s| s.split("```").next())
        .expect("the README's spec-first document");
    let agent = format!(
        "component_type: Agent\nid: a\nname: a\nsystem_prompt: s\nagentspec_version: 25.4.1\n\
         llm_config: {{component_type: VllmConfig, id: l, name: l, url: 'http://x', model_id: m}}\n{section}"
    );
    let shown = Document::from_yaml_str(&agent).expect("loads").to_value();
    let fixture: Value = serde_json::from_str(weather_tools::JSON).expect("JSON");
    for (shown, tool) in shown["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .zip(fixture["tools"].as_array().expect("tools"))
    {
        assert_eq!(shown["name"], tool["name"]);
        for key in ["inputs", "outputs"] {
            assert_eq!(
                without_descriptions(&shown[key]),
                without_descriptions(&tool[key]),
                "{key} of {}",
                tool["name"]
            );
        }
    }
}
