//! Versions: every corpus document was written by pyagentspec at its minimum version; it
//! writes at that version and every newer one, and an older one fails with the reason.

use agentspec_tests::fixtures;
use agentspec_types::{Component, Document, Version};

#[test]
fn every_corpus_document_declares_its_minimum_version() {
    let known: &[Version] = <Component as agentspec_types::codec::ComponentSet>::VERSIONS;
    let mut checked = 0;
    let mut refused = 0;
    for path in fixtures("generated", "json") {
        let Ok(doc) = Document::from_path(&path) else {
            continue;
        };
        let name = path.display().to_string();
        let declared = doc.agentspec_version();
        assert_eq!(doc.min_version().0, declared, "{name}");
        for &version in known {
            let attempt = doc.clone().with_version(version);
            if version >= declared {
                let written = attempt
                    .unwrap_or_else(|e| panic!("{name} at {version}: {e}"))
                    .to_json_pretty();
                let again = Document::from_json_str(&written)
                    .unwrap_or_else(|e| panic!("{name} at {version} reloads: {e}"));
                assert_eq!(again.agentspec_version(), version);
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
    assert_eq!(checked, 45);
    assert!(refused >= 25, "{refused}");
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
        let built = agentspec_types::Document::at_min_version(doc.root().clone());
        assert_eq!(built.agentspec_version().to_string(), expected, "{name}");
        assert_eq!(
            built.to_value(),
            doc.to_value(),
            "{name}: the same document"
        );
    }
}
