//! Versions: every corpus document was written by pyagentspec at its minimum version; it
//! writes at that version and every newer one, and an older one fails with the reason.

use agentspec_tests::{corpus_plugins, fixture, fixtures};
use agentspec_types::{Component, Components, Document, LoadOptions, Version};

/// Every corpus document (JSON and YAML; plugin documents with their plugins, disaggregated
/// mains with their components), as loaded.
fn corpus() -> Vec<(String, Document)> {
    let plugins = corpus_plugins::registry();
    let mut files = fixtures("generated", "json");
    files.extend(fixtures("generated", "yaml"));
    let mut docs = Vec::new();
    for path in files {
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        let components_file = name.starts_with("disaggregated_") && name.contains("_components.");
        if name.ends_with(".registry.json") || components_file {
            continue; // values of redacted fields; components files (loaded with their mains)
        }
        let components = name.contains("_main.").then(|| {
            Components::from_path(path.with_file_name(name.replace("_main.", "_components.")))
                .unwrap()
        });
        let mut options = LoadOptions::new().plugins(&plugins);
        if let Some(components) = &components {
            options = options.components(components);
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let format = agentspec_types::Format::from_path(&path).unwrap();
        let doc = Document::from_str_with(&text, format, &options)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        docs.push((name, doc));
    }
    docs
}

#[test]
fn every_corpus_document_declares_its_minimum_version() {
    let known: &[Version] = <Component as agentspec_types::ComponentSet>::VERSIONS;
    let mut checked = 0;
    let mut refused = 0;
    for (name, doc) in corpus() {
        let declared = doc.agentspec_version();
        assert_eq!(doc.min_version().0, declared, "{name}");
        for &version in known {
            let attempt = doc.clone().with_version(version);
            if version >= declared {
                let written = attempt
                    .unwrap_or_else(|e| panic!("{name} at {version}: {e}"))
                    .to_value();
                assert_eq!(written["agentspec_version"], version.to_string(), "{name}");
            } else {
                let err = attempt
                    .err()
                    .unwrap_or_else(|| panic!("{name} at {version} must fail"));
                assert_eq!(err.diagnostics[0].code, "version-too-old");
                assert!(
                    err.diagnostics[0]
                        .message
                        .contains(&format!("which needs {declared}")),
                    "{}",
                    err.diagnostics[0].message
                );
                refused += 1;
            }
        }
        checked += 1;
    }
    // 48 documents at 25.4.1, 22 at 25.4.2 (one older version each), 28 at 26.1.2 (three).
    assert_eq!((checked, refused), (98, 106));
}

#[test]
fn a_newer_field_holding_a_value_that_changes_the_meaning_is_an_error() {
    let text = r#"
component_type: Agent
name: a
system_prompt: hi
llm_config: {component_type: VllmConfig, id: l, name: l, url: u, model_id: m, api_type: responses}
tools:
  - {component_type: ServerTool, name: t, id: t, requires_confirmation: true}
  - {component_type: ServerTool, name: u, id: u, requires_confirmation: false}
agentspec_version: 25.4.1
"#;
    let err = Document::from_yaml_str(text).unwrap_err();
    let found: Vec<(&str, &str, Option<u32>, Option<u32>)> = err
        .diagnostics
        .iter()
        .map(|d| (d.code, d.pointer.as_str(), d.line, d.column))
        .collect();
    assert_eq!(
        found,
        [
            ("newer-value", "/llm_config/api_type", Some(5), Some(79)),
            (
                "newer-value",
                "/tools/0/requires_confirmation",
                Some(7),
                Some(50)
            ),
            (
                "newer-field",
                "/tools/1/requires_confirmation",
                Some(8),
                Some(50)
            ),
        ]
    );
    assert_eq!(
        err.diagnostics[1].message,
        "`ServerTool.requires_confirmation` exists from Agent Spec 25.4.2 and the document declares 25.4.1: a 25.4.1 reader ignores it, and its value changes the meaning; declare 25.4.2 or later, or remove it"
    );
    // Declared at the version that has them, they load.
    let doc = Document::from_yaml_str(&text.replace("25.4.1", "25.4.2")).unwrap();
    assert!(doc.warnings().is_empty());
}

#[test]
fn a_value_newer_than_the_document_is_an_error() {
    let text = std::fs::read_to_string(fixture("generated/llm_ocigenai_api_key.json")).unwrap();
    let mut value: serde_json::Value = serde_json::from_str(&text).unwrap();
    value["provider"] = "XAI".into();
    let err = Document::from_value(&value).unwrap_err();
    let found: Vec<(&str, &str)> = err.errors().map(|d| (d.code, d.pointer.as_str())).collect();
    assert_eq!(found, [("newer-value", "/provider")]);
    assert_eq!(
        err.diagnostics[0].message,
        format!(
            "`OciGenAiConfig.provider` set to `XAI` exists from Agent Spec 26.1.2 and the document declares {}; declare 26.1.2 or later, or change it",
            value["agentspec_version"].as_str().unwrap()
        )
    );
    value["agentspec_version"] = "26.1.2".into();
    Document::from_value(&value).unwrap();
}

#[test]
fn the_fields_of_a_component_newer_than_the_document_are_not_reported_one_by_one() {
    let err = Document::from_path(fixture("negative/swarm_declared_as_25_4_1.json")).unwrap_err();
    let swarm: Vec<(&str, &str, Option<u32>)> = err
        .diagnostics
        .iter()
        .filter(|d| !d.pointer.starts_with("/$referenced_components"))
        .map(|d| (d.code, d.pointer.as_str(), d.line))
        .collect();
    assert_eq!(swarm, [("version-too-old", "/component_type", Some(2))]);
    assert_eq!(
        err.diagnostics[0].message,
        "Swarm exists from Agent Spec 25.4.2, and the document declares 25.4.1; declare 25.4.2 or later"
    );
}

#[test]
fn a_kept_newer_field_is_written_at_its_version_or_dropped_on_request() {
    let path = fixture("edge-cases/newer_field_in_older_version_dropped_on_reserialize.json");
    let doc = Document::from_path(&path).unwrap();
    let warnings: Vec<(&str, &str)> = doc
        .warnings()
        .iter()
        .map(|d| (d.code, d.pointer.as_str()))
        .collect();
    let llm = "/$referenced_components/llm_node/llm_config";
    assert_eq!(
        warnings,
        [
            ("newer-field", format!("{llm}/provider").as_str()),
            ("newer-field", format!("{llm}/api_key").as_str())
        ]
    );
    // Kept, never dropped silently: written at the version that has it.
    assert_eq!(doc.agentspec_version(), Version::new(26, 1, 2));
    let written = doc.to_value();
    assert_eq!(written["agentspec_version"], "26.1.2");
    assert_eq!(
        written.pointer("/$referenced_components/llm_node/llm_config/provider"),
        Some(&serde_json::json!("meta"))
    );
    // At the declared version: an error, or dropped on request with a report.
    let old = Version::new(25, 4, 1);
    let err = doc.clone().with_version(old).unwrap_err();
    assert_eq!(
        err.diagnostics[0].message,
        "cannot write at 25.4.1: `VllmConfig.provider` is set, which needs 26.1.2"
    );
    let (dropped, report) = doc.with_version_dropping(old).unwrap();
    let report: Vec<(&str, &str, &str)> = report
        .iter()
        .map(|d| (d.code, d.pointer.as_str(), d.message.as_str()))
        .collect();
    let pointer = format!("{llm}/provider");
    assert_eq!(
        report,
        [(
            "dropped-field",
            pointer.as_str(),
            "`VllmConfig.provider` is dropped: it exists from Agent Spec 26.1.2, and the document is written at 25.4.1"
        )]
    );
    assert_eq!(dropped.agentspec_version(), old);
    let written = dropped.to_value();
    assert_eq!(written["agentspec_version"], "25.4.1");
    assert!(written.pointer(&pointer).is_none());
    assert!(
        Document::from_value(&written)
            .unwrap()
            .warnings()
            .is_empty()
    );
}

#[test]
fn components_and_values_cannot_be_dropped() {
    let doc = Document::from_path(fixture("generated/swarm.json")).unwrap();
    let err = doc
        .with_version_dropping(Version::new(25, 4, 1))
        .unwrap_err();
    assert_eq!(
        err.diagnostics[0].message,
        "cannot write at 25.4.1: it holds a `Swarm`, which needs 25.4.2"
    );
    // A value newer than the version (structured LlmNode outputs) is not a field to drop.
    let doc = Document::from_path(fixture(
        "generated/flow_typed_properties_structured_llm.json",
    ))
    .unwrap();
    let err = doc
        .with_version_dropping(Version::new(25, 4, 1))
        .unwrap_err();
    assert_eq!(
        (err.diagnostics[0].code, err.diagnostics[0].pointer.as_str()),
        ("version-too-old", "/$referenced_components/pp_llm/outputs")
    );
    let doc = Document::from_path(fixture("generated/agent_simple_server_tool.json")).unwrap();
    let (same, report) = doc
        .clone()
        .with_version_dropping(Version::new(26, 1, 2))
        .unwrap();
    assert!(report.is_empty());
    assert_eq!(same.agentspec_version(), Version::new(26, 1, 2));
    assert_eq!(
        doc.with_version_dropping(Version::new(20, 1, 1))
            .unwrap_err()
            .diagnostics[0]
            .code,
        "unknown-version"
    );
}

#[test]
fn explains_what_needs_the_version() {
    let path = agentspec_tests::fixture("generated/agent_with_summarization_transforms.json");
    let (version, need) = Document::from_path(path).unwrap().min_version();
    let need = need.unwrap();
    assert_eq!(
        (version, need.what, need.pointer.as_deref()),
        (
            Version::new(26, 1, 2),
            "Agent.transforms",
            Some("/transforms")
        )
    );
}

#[test]
fn a_boolean_swarm_handoff_is_upgraded_to_its_mode() {
    let path = agentspec_tests::fixture("codes/legacy-value.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let doc = agentspec_types::Document::from_json_str(&text).unwrap();
    let warnings: Vec<(&str, &str)> = doc
        .warnings()
        .iter()
        .map(|d| (d.code, d.pointer.as_str()))
        .collect();
    assert_eq!(warnings, [("legacy-value", "/handoff")]);
    assert_eq!(doc.to_value()["handoff"], "optional");
    let never = text.replace("\"handoff\": true", "\"handoff\": false");
    let doc = agentspec_types::Document::from_json_str(&never).unwrap();
    assert_eq!(doc.to_value()["handoff"], "never");
    // written as pyagentspec writes it: the corpus document with its mode string
    let corpus = std::fs::read_to_string(agentspec_tests::fixture("generated/swarm.json")).unwrap();
    assert_eq!(
        doc.to_json_pretty(),
        corpus.replace("\"handoff\": \"always\"", "\"handoff\": \"never\"")
    );
}

#[test]
fn documents_built_in_code_are_written_at_their_minimum_version() {
    for (name, expected) in [
        ("generated/swarm.json", "25.4.2"),
        ("generated/agent_simple_server_tool.json", "25.4.1"),
    ] {
        let doc = agentspec_types::Document::from_path(agentspec_tests::fixture(name)).unwrap();
        let built = agentspec_types::Document::at_min_version(doc.root().clone()).unwrap();
        assert_eq!(built.agentspec_version().to_string(), expected, "{name}");
        assert_eq!(
            built.to_value(),
            doc.to_value(),
            "{name}: the same document"
        );
    }
}

#[test]
fn generated_enums_parse_their_json_strings() {
    use agentspec_types::{HandoffMode, UnknownValue};
    assert_eq!("optional".parse::<HandoffMode>(), Ok(HandoffMode::Optional));
    let err: UnknownValue = "sometimes".parse::<HandoffMode>().unwrap_err();
    assert_eq!(err.value, "sometimes");
    assert!(
        err.to_string()
            .starts_with("\"sometimes\" is not a valid HandoffMode (expected one of \""),
        "{err}"
    );
    for mode in HandoffMode::ALL {
        assert_eq!(mode.as_str().parse::<HandoffMode>(), Ok(*mode));
    }
}
