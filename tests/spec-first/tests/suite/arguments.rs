//! A spec-first tool's arguments are checked against the document's JSON Schemas before its
//! method runs: every problem of a call is reported at once, at any depth, each at its JSON
//! pointer, in the error `#[tool]` tools give; unknown keys are refused wherever the schema
//! does not allow other properties.

use agentspec_spec_first_tests::{trips, weather, weather_tools};
use agentspec_types::tool::{BoxError, ToolError, Toolbox};
use serde_json::{Value, json};

use crate::weather::Weather;

struct Planner;

impl trips::Tools for Planner {
    async fn plan_trip(&self, args: trips::tools::plan_trip::Args) -> Result<String, BoxError> {
        let stops: Vec<String> = args
            .stops
            .iter()
            .map(|s| format!("{} ({})", s.city, s.nights))
            .collect();
        Ok(format!(
            "{} visits {} for {}, {:?}, seat {:?}, limits {:?}, contact {:?}",
            args.traveller.name.as_str(),
            stops.join(", "),
            args.budget,
            args.mode,
            args.preferences.and_then(|p| p.seat),
            args.limits,
            args.contact.map(|c| c.phone),
        ))
    }
}

fn toolbox() -> Toolbox {
    trips::toolbox(Planner).expect("registers")
}

/// Each problem of a refused call: its code and pointer.
fn problems(toolbox: &Toolbox, tool: &str, args: Value) -> Vec<(&'static str, String)> {
    match toolbox.call_blocking(tool, args) {
        Err(ToolError::Arguments { errors, .. }) => {
            errors.into_iter().map(|e| (e.code, e.pointer)).collect()
        }
        other => panic!("{tool}: refused arguments, not {other:?}"),
    }
}

fn owned(expected: &[(&'static str, &str)]) -> Vec<(&'static str, String)> {
    expected
        .iter()
        .map(|(c, p)| (*c, (*p).to_owned()))
        .collect()
}

/// A valid call, which the cases below break.
fn valid() -> Value {
    json!({
        "traveller": {"name": "Ada", "age": 36},
        "stops": [{"city": "Bern", "nights": 2, "tags": ["old town"]}],
    })
}

#[test]
fn a_valid_call_reaches_the_method_with_defaults_filled_in() {
    let got = toolbox().call_blocking("plan_trip", valid()).expect("runs");
    assert_eq!(
        got,
        json!("Ada visits Bern (2) for 1000, Fast, seat None, limits {}, contact None")
    );
}

#[test]
fn several_invalid_values_are_reported_at_once() {
    let args = json!({
        "traveller": {"name": "", "age": 200},
        "stops": [{"city": "Bern", "nights": 0}],
        "budget": 12.25,
        "mode": "slow",
        "limits": {"days": 0},
    });
    assert_eq!(
        problems(&toolbox(), "plan_trip", args),
        owned(&[
            ("invalid-argument", "/traveller/name"),
            ("invalid-argument", "/traveller/age"),
            ("invalid-argument", "/stops/0/nights"),
            ("invalid-argument", "/budget"),
            ("invalid-argument", "/mode"),
            ("invalid-argument", "/limits/days"),
        ])
    );
}

#[test]
fn one_error_lists_every_problem_as_tool_errors_do() {
    let error = toolbox()
        .call_blocking(
            "plan_trip",
            json!({"traveller": {"name": 7, "nick": "A"}, "stops": [], "mode": "slow", "when": 1}),
        )
        .expect_err("refused");
    assert_eq!(error.code(), "invalid-arguments");
    assert_eq!(
        error.to_string(),
        "invalid arguments for tool `plan_trip`: \
         /traveller/name: expected a string, got the number 7 (invalid-argument); \
         /traveller/nick: unknown property `nick`; the properties are `name`, `age` (unknown-argument); \
         /stops: expected at least 1 item, got 0 (invalid-argument); \
         /mode: expected one of \"fast\", \"cheap\", got the string \"slow\" (invalid-argument); \
         /when: unknown argument `when`; the inputs are `traveller`, `stops`, `budget`, `mode`, \
         `preferences`, `limits`, `contact` (unknown-argument)"
    );
}

#[test]
fn an_unknown_key_in_a_closed_nested_object_is_refused() {
    let mut args = valid();
    args["traveller"]["nickname"] = json!("A");
    args["stops"][0]["hotel"] = json!("Bellevue");
    args["contact"] = json!({"phone": "+41", "fax": "+41"});
    assert_eq!(
        problems(&toolbox(), "plan_trip", args),
        owned(&[
            ("unknown-argument", "/traveller/nickname"),
            ("unknown-argument", "/stops/0/hotel"),
            ("unknown-argument", "/contact/fax"),
        ])
    );
}

#[test]
fn an_unknown_key_in_an_open_object_is_allowed_as_the_schema_says() {
    // `preferences` has no `additionalProperties`: JSON Schema allows other keys
    let mut args = valid();
    args["preferences"] = json!({"seat": "aisle", "meal": "vegetarian"});
    let got = toolbox().call_blocking("plan_trip", args).expect("runs");
    assert!(
        got.as_str().is_some_and(|s| s.contains("seat Some(Aisle)")),
        "{got}"
    );
}

#[test]
fn a_missing_nested_key_is_reported_with_the_missing_arguments() {
    let args = json!({"traveller": {"age": 3}, "budget": 10, "contact": {}});
    assert_eq!(
        problems(&toolbox(), "plan_trip", args),
        owned(&[
            ("missing-argument", "/traveller/name"),
            ("missing-argument", "/stops"),
            ("missing-argument", "/contact/phone"),
        ])
    );
}

#[test]
fn every_item_of_an_array_of_objects_is_checked() {
    let mut args = valid();
    args["stops"] = json!([
        {"city": "Bern", "nights": 1},
        {"city": 5, "nights": 1},
        {"nights": -1, "x": 1},
        "Geneva",
        {"city": "Basel", "nights": 1, "tags": ["a", "b", "a"]},
    ]);
    assert_eq!(
        problems(&toolbox(), "plan_trip", args),
        owned(&[
            ("invalid-argument", "/stops/1/city"),
            ("missing-argument", "/stops/2/city"),
            ("invalid-argument", "/stops/2/nights"),
            ("unknown-argument", "/stops/2/x"),
            ("invalid-argument", "/stops/3"),
            ("invalid-argument", "/stops/4/tags/2"),
        ])
    );
}

#[test]
fn arguments_that_are_not_an_object_are_one_error() {
    assert_eq!(
        problems(&toolbox(), "plan_trip", json!([1])),
        owned(&[("arguments-not-object", "")])
    );
    // no arguments at all: every required one is missing
    assert_eq!(
        problems(&toolbox(), "plan_trip", Value::Null),
        owned(&[
            ("missing-argument", "/traveller"),
            ("missing-argument", "/stops"),
        ])
    );
}

#[test]
fn a_generated_tool_and_its_tool_twin_report_the_same_problems() {
    let rust_first = weather::toolbox().expect("registers");
    let spec_first = weather_tools::toolbox(Weather).expect("registers");
    for args in [
        json!({"city": 3, "unit": "kelvin"}),
        json!({"unit": "kelvin", "days": 1}),
        json!({"city": null, "unit": null, "x": 1, "y": 2}),
    ] {
        assert_eq!(
            problems(&spec_first, "get_weather", args.clone()),
            problems(&rust_first, "get_weather", args.clone()),
            "{args}"
        );
    }
    for args in [
        json!({"amount": "ten", "rate": "x"}),
        json!({"rate": 2, "currency": "CHF"}),
    ] {
        assert_eq!(
            problems(&spec_first, "convert", args.clone()),
            problems(&rust_first, "convert", args.clone()),
            "{args}"
        );
    }
}
