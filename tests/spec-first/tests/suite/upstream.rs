//! Every upstream configuration agentspec checks (a superset of those pyagentspec 26.3.1
//! loads) generates spec-first code, and that code compiles: it is this crate's library.

use std::collections::HashSet;

use agentspec_spec_first_tests::{UPSTREAM_GENERATED, UPSTREAM_REFUSED};
use agentspec_types::components::Components;
use agentspec_types::{Document, LoadOptions};
use serde_json::Value;

const AGENTS: [&str; 8] = [
    "SpecializedAgent",
    "Agent",
    "OciAgent",
    "A2AAgent",
    "RemoteAgent",
    "Swarm",
    "ManagerWorkers",
    "OpenAiAgent",
];

/// The server tools (distinct names), flows and agents (distinct ids) of a document.
fn count(value: &Value) -> (usize, usize, usize) {
    let (mut tools, mut flows, mut agents) = (HashSet::new(), HashSet::new(), HashSet::new());
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(map) => {
                let id = map.get("id").cloned().unwrap_or_default();
                match map.get("component_type").and_then(Value::as_str) {
                    Some("ServerTool") => {
                        tools.insert(map["name"].clone());
                    }
                    Some("Flow") => {
                        flows.insert(id);
                    }
                    Some(t) if AGENTS.contains(&t) => {
                        agents.insert(id);
                    }
                    _ => {}
                }
                stack.extend(map.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    (tools.len(), flows.len(), agents.len())
}

#[test]
fn every_upstream_configuration_agentspec_checks_generates_code_that_compiles() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/");
    let mut totals = (0, 0, 0);
    let mut documents = 0;
    for line in UPSTREAM_GENERATED.lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        let [path, tools, flows, agents] = fields[..] else {
            panic!("a line of four fields: {line}")
        };
        // a JSON5 file is read as the JSON it becomes (in OUT_DIR), as the oracle reads it
        let path = if std::path::Path::new(path).is_absolute() {
            path.to_owned()
        } else {
            format!("{dir}{path}")
        };
        let components = if path.contains("howto_disaggregated_main_config") {
            Components::from_path(path.replace("main_config", "component_config")).expect("loads")
        } else {
            Components::new()
        };
        let text = std::fs::read_to_string(&path).expect("reads");
        let format = agentspec_types::Format::from_path(std::path::Path::new(&path))
            .expect("a known extension");
        let options = LoadOptions::new()
            .components(&components)
            .keep_unknown(path.contains("plugin_assistant"));
        let doc = Document::from_str_with(&text, format, &options).expect("loads");
        let expected = count(&doc.to_value());
        let generated = (
            tools.parse().expect("a count"),
            flows.parse().expect("a count"),
            agents.parse().expect("a count"),
        );
        assert_eq!(generated, expected, "{path}: tools, flows, agents");
        totals = (
            totals.0 + expected.0,
            totals.1 + expected.1,
            totals.2 + expected.2,
        );
        documents += 1;
    }
    eprintln!(
        "{documents} upstream configurations: {} server tools, {} flows, {} agents generated and compiled",
        totals.0, totals.1, totals.2
    );
    // the 74 pyagentspec 26.3.1 loads (scripts/upstream-oracle.py): 70 documents alone, the
    // disaggregated example (JSON and YAML) with its components file, and the plugin example
    // (JSON and YAML) with its plugin components kept
    assert_eq!(documents, 74);
    assert!(totals.0 > 0 && totals.1 > 0 && totals.2 > 0, "{totals:?}");
    // what agentspec refuses, pyagentspec refuses too: illustrative JSON5 fragments, older
    // or newer versions, components files read alone, broken references
    let refused: Vec<&str> = UPSTREAM_REFUSED.lines().collect();
    assert_eq!(refused.len(), 30, "{refused:#?}");
    for line in refused {
        let code = line.rsplit('\t').next().unwrap_or_default();
        assert!(
            [
                "syntax-error",
                "missing-component-type",
                "version-too-old",
                "unresolved-reference",
                "newer-value",
                "plugin-not-registered",
                "unknown-version",
                "duplicate-id",
            ]
            .contains(&code),
            "{line}"
        );
    }
}

#[test]
fn generated_documents_load_at_run_time_without_validating_again() {
    use agentspec_spec_first_tests::{disaggregated_json, weather_tools};
    assert_eq!(weather_tools::TOOLS, ["get_weather", "convert"]);
    assert_eq!(weather_tools::AGENTS, ["weather_tools"]);
    assert!(weather_tools::FLOWS.is_empty());
    let doc = weather_tools::document();
    assert!(std::ptr::eq(doc, weather_tools::document()), "loaded once");
    assert!(doc.validate().is_empty());
    // a document that references a components file embeds it
    let loaded = disaggregated_json::howto_disaggregated_main_config::load().expect("loads");
    assert!(!disaggregated_json::howto_disaggregated_main_config::COMPONENTS_JSON.is_empty());
    assert!(loaded.validate().iter().all(|d| !d.is_error()));
    // the plugin example: kept as read by load(), and by load_with as the caller says
    use agentspec_spec_first_tests::plugins::plugin_assistant;
    assert!(plugin_assistant::load().is_ok());
    assert!(plugin_assistant::load_with(&LoadOptions::new()).is_err());
    assert!(plugin_assistant::load_with(&LoadOptions::new().keep_unknown(true)).is_ok());
}
