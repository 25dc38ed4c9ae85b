//! `$component_ref` resolution: one namespace of ids for the whole document, every problem
//! reported at once with code, pointer, line and column.

use agentspec_tests::fixture;
use agentspec_types::{Diagnostic, Document};

fn problems(yaml: &str) -> Vec<(&'static str, String, Option<u32>)> {
    let diagnostics: Vec<Diagnostic> = match Document::from_yaml_str(yaml) {
        Ok(doc) => doc.warnings().to_vec(),
        Err(e) => e.diagnostics,
    };
    diagnostics
        .into_iter()
        .map(|d| (d.code, d.pointer, d.line))
        .collect()
}

const LLM: &str = "{component_type: VllmConfig, id: llm, name: llm, url: u, model_id: m}";

fn agent(llm_ref: &str, referenced: &str) -> String {
    format!(
        "component_type: Agent\nid: a\nname: a\nsystem_prompt: hi\nllm_config: {{$component_ref: {llm_ref}}}\n\
         $referenced_components:\n{referenced}\nagentspec_version: 25.4.1\n"
    )
}

#[test]
fn resolves_references_to_any_map_of_the_document() {
    let doc = Document::from_yaml_str(&agent("llm", &format!("  llm: {LLM}"))).unwrap();
    assert!(doc.warnings().is_empty(), "{:?}", doc.warnings());
}

#[test]
fn lists_every_missing_id() {
    let text = agent(
        "nope",
        "  other: {component_type: ServerTool, id: other, name: t}",
    );
    let err = Document::from_yaml_str(&text).unwrap_err();
    let errors: Vec<&Diagnostic> = err.errors().collect();
    assert_eq!(
        (errors[0].code, errors[0].pointer.as_str(), errors[0].line),
        ("unresolved-reference", "/llm_config", Some(5))
    );
    assert!(
        errors[0].message.contains("missing ids: nope"),
        "{}",
        errors[0].message
    );
    // An inline component's id is not a reference target (as in pyagentspec).
    let inline = "component_type: SpecializedAgent\nid: s\nname: s\nagent: {$component_ref: a}\n\
        agent_specialization_parameters: {component_type: AgentSpecializationParameters, id: p, name: p}\n\
        agentspec_version: 25.4.2\n";
    assert_eq!(problems(inline)[0].0, "unresolved-reference");
}

#[test]
fn reports_a_reference_to_the_wrong_family() {
    let text = agent(
        "start",
        "  start: {component_type: StartNode, id: start, name: start}",
    );
    let found = problems(&text);
    assert_eq!(
        found[0],
        ("wrong-component-family", "/llm_config".to_owned(), Some(5))
    );
    let err = Document::from_yaml_str(&text).unwrap_err();
    assert!(err.diagnostics[0].message.starts_with(
        "`start` is a `StartNode`, which cannot stand where an LlmConfig is expected"
    ));
}

#[test]
fn reports_an_id_defined_in_two_maps() {
    let text = "component_type: Flow\nid: f\nname: f\nstart_node: {$component_ref: s}\nnodes: [{$component_ref: s}, {$component_ref: sub}]\n\
         control_flow_connections: []\n$referenced_components:\n  s: {component_type: StartNode, id: s, name: s}\n  \
         sub:\n    component_type: FlowNode\n    id: sub\n    name: sub\n    subflow:\n      component_type: Flow\n      id: inner\n      name: inner\n      \
         start_node: {$component_ref: s}\n      nodes: [{$component_ref: s}]\n      control_flow_connections: []\n      \
         $referenced_components:\n        s: {component_type: StartNode, id: s2, name: s}\nagentspec_version: 25.4.1\n";
    let found = problems(text);
    assert!(
        found.contains(&(
            "duplicate-id",
            "/$referenced_components/sub/subflow/$referenced_components/s".to_owned(),
            Some(21)
        )),
        "{found:?}"
    );
    assert_eq!(found.len(), 1, "{found:?}");
}

#[test]
fn reports_a_reference_cycle_as_a_path_of_ids() {
    let text = "component_type: ManagerWorkers\nid: mw\nname: mw\ngroup_manager: {$component_ref: x}\nworkers: [{$component_ref: y}]\n\
        $referenced_components:\n  x: {component_type: SpecializedAgent, id: x, name: x, agent: {$component_ref: y},\n      \
        agent_specialization_parameters: {component_type: AgentSpecializationParameters, id: p, name: p}}\n  \
        y: {component_type: Swarm, id: y, name: y, first_agent: {$component_ref: x}, relationships: []}\n\
        agentspec_version: 25.4.2\n";
    let err = Document::from_yaml_str(text).unwrap_err();
    let cycle: Vec<&Diagnostic> = err
        .errors()
        .filter(|d| d.code == "reference-cycle")
        .collect();
    assert_eq!(cycle.len(), 1, "{err}");
    assert!(
        cycle[0].message.starts_with("reference cycle: x → y → x")
            || cycle[0].message.starts_with("reference cycle: y → x → y"),
        "{}",
        cycle[0].message
    );
    assert!(cycle[0].line.is_some(), "located: {:?}", cycle[0]);
}

#[test]
fn warns_about_unused_components_and_keeps_them() {
    let path = fixture("edge-cases/unused_referenced_component.json");
    let doc = Document::from_path(&path).unwrap();
    assert_eq!(doc.warnings()[0].code, "unused-component");
    assert!(doc.to_json_pretty().contains("\"unused_component\": {"));
}

#[test]
fn corpus_reference_cases_follow_the_conformance_table() {
    let rejected = [
        (
            "negative/dangling_component_ref.json",
            "unresolved-reference",
        ),
        (
            "negative/referenced_component_missing_body.json",
            "unresolved-reference",
        ),
        (
            "negative/only_referenced_components_loaded_as_component.json",
            "missing-component-type",
        ),
        (
            "edge-cases/two_inline_components_with_same_id.json",
            "duplicate-id",
        ),
        (
            "edge-cases/managerworkers_manager_copy_inlined_as_worker.json",
            "duplicate-id",
        ),
    ];
    for (file, code) in rejected {
        let err = Document::from_path(fixture(file)).unwrap_err();
        let codes: Vec<&str> = err.errors().map(|d| d.code).collect();
        assert!(
            !codes.is_empty() && codes.iter().all(|c| *c == code),
            "{file}: {codes:?}"
        );
    }
    for file in [
        "edge-cases/reference_body_at_lower_level_than_needed.json",
        "edge-cases/reference_to_id_defined_in_sibling_nested_scope.json",
    ] {
        let doc = Document::from_path(fixture(file)).unwrap();
        assert!(doc.warnings().is_empty(), "{file}: {:?}", doc.warnings());
    }
    let doc =
        Document::from_path(fixture("edge-cases/component_ref_with_sibling_keys.json")).unwrap();
    assert_eq!(doc.warnings()[0].code, "reference-extra-key");
}

/// The diagnostics of a document loaded from a `serde_json::Value` are those of its text, at
/// the same pointers, found after the fact as from the text (the decoder keeps no pointer per
/// component), with no place in any text.
#[test]
fn a_document_loaded_from_a_value_reports_what_its_text_reports_at_the_same_pointers() {
    let key = |d: &Diagnostic| (d.code, d.pointer.clone(), d.severity);
    let mut compared = 0;
    for path in agentspec_tests::fixtures("negative", "json") {
        let text = std::fs::read_to_string(&path).unwrap();
        // what serde_json reads differently from the text: duplicate keys, non-JSON numbers
        let Ok(value) = serde_json::from_str::<serde_json::Value>(&text) else {
            continue;
        };
        let of = |r: Result<Document, agentspec_types::LoadError>| match r {
            Ok(doc) => doc.warnings().to_vec(),
            Err(e) => e.diagnostics,
        };
        let from_text = of(Document::from_json_str(&text));
        if from_text.iter().any(|d| d.code == "duplicate-key") {
            continue;
        }
        let from_value = of(Document::from_value(&value));
        let name = path.display();
        assert_eq!(
            from_value.iter().map(key).collect::<Vec<_>>(),
            from_text.iter().map(key).collect::<Vec<_>>(),
            "{name}"
        );
        assert!(
            from_value
                .iter()
                .all(|d| d.offset.is_none() && d.line.is_none()),
            "{name}"
        );
        compared += 1;
    }
    // every negative document serde_json reads without a duplicate key: one that drops out
    // fails here
    assert_eq!(compared, 47, "negative documents compared");
}
