//! Every document of the conformance corpus (`fixtures/generated`, written by pyagentspec
//! 26.3.1) loads and is written back with the same content and key order.

use agentspec_tests::{fixtures, same_layout};
use agentspec_types::{Document, Format, Output, WriteOptions};

/// Fidelity is checked with secret values written as read (default writing redacts them;
/// see `secrets.rs`).
fn all_values() -> WriteOptions {
    WriteOptions::new().include_secrets(true)
}
use serde_json::Value;

/// Documents that need what later issues bring, and the error they give until then.
fn expected_failure(name: &str) -> Option<&'static str> {
    if name.starts_with("plugin_") {
        Some("plugin-not-registered")
    } else if name.starts_with("disaggregated_") && name.ends_with("_main") {
        Some("unresolved-reference")
    } else if name.starts_with("disaggregated_") && name.ends_with("_components") {
        Some("missing-component-type")
    } else {
        None
    }
}

fn stem(path: &std::path::Path) -> String {
    path.file_stem().unwrap().to_string_lossy().into_owned()
}

#[test]
fn json_corpus_round_trips_with_key_order() {
    let mut passed = 0;
    let mut failures = Vec::new();
    for path in fixtures("generated", "json") {
        let name = stem(&path);
        if name.ends_with(".registry") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        match (Document::from_json_str(&text), expected_failure(&name)) {
            (Ok(doc), None) => {
                let written = doc.to_string_with(Output::JsonPretty, &all_values());
                let original: Value = serde_json::from_str(&text).unwrap();
                let again: Value = serde_json::from_str(&written).unwrap();
                match same_layout(&original, &again, "", true) {
                    Ok(()) => passed += 1,
                    Err(e) => failures.push(format!("{name}: {e}")),
                }
            }
            (Ok(_), Some(code)) => failures.push(format!(
                "{name}: loaded, expected {code} until its issue lands"
            )),
            (Err(e), Some(code)) if e.errors().all(|d| d.code == code) => passed += 1,
            (Err(e), _) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(passed, 51, "every JSON document of the corpus is checked");
}

#[test]
fn json_corpus_is_written_byte_for_byte_where_no_map_is_reordered() {
    let mut identical = 0;
    for path in fixtures("generated", "json") {
        let name = stem(&path);
        if name.ends_with(".registry") || expected_failure(&name).is_some() {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let written = Document::from_json_str(&text)
            .unwrap()
            .to_string_with(Output::JsonPretty, &all_values());
        if written == text {
            identical += 1;
        }
    }
    // pyagentspec orders `$referenced_components` entries by a hash; we keep the order read,
    // so the bytes are identical for every document.
    assert_eq!(identical, 45);
}

#[test]
fn yaml_corpus_round_trips_by_value() {
    let mut passed = 0;
    let mut failures = Vec::new();
    for path in fixtures("generated", "yaml") {
        let name = stem(&path);
        let text = std::fs::read_to_string(&path).unwrap();
        match (Document::from_yaml_str(&text), expected_failure(&name)) {
            (Ok(doc), None) => {
                let original = agentspec_types::syntax::value::node_to_value(
                    agentspec_types::syntax::yaml::parse_yaml(&text).unwrap(),
                );
                let written = doc.to_string_with(Output::Yaml, &all_values());
                let reread = Document::from_str_as(&written, Format::Yaml)
                    .map(|d| d.to_value_with(&all_values()));
                match reread {
                    // the same values in the same order (`==` on values ignores key order)
                    Ok(again) if same_layout(&original, &again, "", true).is_ok() => passed += 1,
                    Ok(again) => failures.push(format!(
                        "{name}: value differs: {:?}",
                        same_layout(&original, &again, "", false)
                    )),
                    Err(e) => {
                        failures.push(format!("{name}: written YAML does not load again: {e}"))
                    }
                }
            }
            (Ok(_), Some(code)) => failures.push(format!(
                "{name}: loaded, expected {code} until its issue lands"
            )),
            (Err(e), Some(code)) if e.errors().all(|d| d.code == code) => passed += 1,
            (Err(e), _) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(passed, 51, "every YAML document of the corpus is checked");
}

/// The documents pyagentspec 26.3.1 writes at its own version (`fixtures/generated-26_3_1`,
/// from `scripts/gen-corpus-26_3_1.py`), the components that are new in 26.3.1 among them,
/// load and are written back with the same content and key order.
#[test]
fn documents_written_at_26_3_1_round_trip() {
    let mut failures = Vec::new();
    let files = fixtures("generated-26_3_1", "json");
    for path in &files {
        let name = stem(path);
        let text = std::fs::read_to_string(path).unwrap();
        match Document::from_json_str(&text) {
            Ok(doc) => {
                assert_eq!(doc.agentspec_version().to_string(), "26.3.1", "{name}");
                let written = doc.to_string_with(Output::JsonPretty, &all_values());
                let original: Value = serde_json::from_str(&text).unwrap();
                let again: Value = serde_json::from_str(&written).unwrap();
                if let Err(e) = same_layout(&original, &again, "", true) {
                    failures.push(format!("{name}: {e}"));
                }
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(
        files.len(),
        50,
        "45 corpus documents again, and 5 new in 26.3.1"
    );
}
