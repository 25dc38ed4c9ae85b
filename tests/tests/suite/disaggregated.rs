//! Disaggregated components: components files load and write back unchanged, and main
//! documents load with them supplied, as pyagentspec does.

use agentspec_tests::{fixture, same_layout};
use agentspec_types::{Components, Document, Format, LoadOptions};

const PAIRS: [(&str, &str); 2] = [
    ("disaggregated_main", "disaggregated_components"),
    ("disaggregated_flow_main", "disaggregated_flow_components"),
];

fn text(name: &str) -> String {
    std::fs::read_to_string(fixture(&format!("generated/{name}"))).unwrap()
}

#[test]
fn components_files_and_mains_round_trip() {
    for (main, components) in PAIRS {
        let components_json = text(&format!("{components}.json"));
        let supplied = Components::from_json_str(&components_json).unwrap();
        assert_eq!(supplied.to_json_pretty(), components_json, "{components}");
        let main_json = text(&format!("{main}.json"));
        let doc = Document::from_str_with(
            &main_json,
            Format::Json,
            &LoadOptions::new().components(&supplied),
        )
        .unwrap();
        assert_eq!(doc.to_json_pretty(), main_json, "{main}");

        let components_yaml = text(&format!("{components}.yaml"));
        let supplied = Components::from_yaml_str(&components_yaml).unwrap();
        let original = agentspec_types::syntax::value::node_to_value(
            agentspec_types::syntax::yaml::parse_yaml(&components_yaml).unwrap(),
        );
        // the same values in the same order (`==` on values ignores key order)
        if let Err(e) = same_layout(&original, &supplied.to_value(), "", true) {
            panic!("{components}.yaml: {e}");
        }
        let main_yaml = text(&format!("{main}.yaml"));
        let doc = Document::from_str_with(
            &main_yaml,
            Format::Yaml,
            &LoadOptions::new().components(&supplied),
        )
        .unwrap();
        let original = agentspec_types::syntax::value::node_to_value(
            agentspec_types::syntax::yaml::parse_yaml(&main_yaml).unwrap(),
        );
        if let Err(e) = same_layout(&original, &doc.to_value(), "", true) {
            panic!("{main}.yaml: {e}");
        }
    }
}

#[test]
fn each_component_keeps_its_own_version_and_id() {
    let supplied = Components::from_json_str(&text("disaggregated_components.json")).unwrap();
    let ids: Vec<&str> = supplied.ids().collect();
    assert_eq!(ids, ["shared_llm_config", "dis_tool"]);
    let llm = supplied.get("shared_llm_config").unwrap();
    assert_eq!(agentspec_types::ComponentInfo::id(llm.root()), "dis_llm");
    assert_eq!(llm.agentspec_version().to_string(), "25.4.1");
}

#[test]
fn missing_pieces_are_named() {
    let err = Document::from_json_str(&text("disaggregated_main.json")).unwrap_err();
    assert!(err.errors().all(|d| d.code == "unresolved-reference"));
    assert!(
        err.diagnostics[0]
            .message
            .contains("missing ids: dis_tool, shared_llm_config"),
        "{}",
        err.diagnostics[0].message
    );
}

#[test]
fn an_id_can_be_remapped_at_import() {
    let mut supplied = Components::from_json_str(&text("disaggregated_components.json")).unwrap();
    let main = text("disaggregated_main.json").replace("\"shared_llm_config\"", "\"prod_llm\"");
    assert!(
        Document::from_str_with(
            &main,
            Format::Json,
            &LoadOptions::new().components(&supplied)
        )
        .is_err()
    );
    supplied.rename("shared_llm_config", "prod_llm").unwrap();
    let doc = Document::from_str_with(
        &main,
        Format::Json,
        &LoadOptions::new().components(&supplied),
    )
    .unwrap();
    assert_eq!(doc.to_json_pretty(), main);
    let missing = supplied.rename("nope", "x").unwrap_err();
    assert!(
        matches!(&missing, agentspec_types::components::RenameError::Missing { id, .. } if id == "nope")
    );
    assert!(missing.to_string().contains("no component with id `nope`"));
    assert_eq!(
        supplied.rename("prod_llm", "dis_tool").unwrap_err(),
        agentspec_types::components::RenameError::Taken("dis_tool".into())
    );
}

#[test]
fn supplied_components_are_checked_against_the_family_and_for_clashes() {
    let supplied = Components::from_json_str(&text("disaggregated_components.json")).unwrap();
    let swapped = text("disaggregated_main.json").replace("\"shared_llm_config\"", "\"dis_tool\"");
    let err = Document::from_str_with(
        &swapped,
        Format::Json,
        &LoadOptions::new().components(&supplied),
    )
    .unwrap_err();
    let d = err.errors().next().unwrap();
    assert_eq!(
        (d.code, d.pointer.as_str(), d.line),
        ("wrong-component-family", "/llm_config", Some(9))
    );
    assert!(
        d.message
            .starts_with("`dis_tool` is a supplied `ClientTool`"),
        "{}",
        d.message
    );

    let mut clash = Components::new();
    clash.insert(
        "start",
        Document::from_json_str(&text("flow_basic_llm.json")).unwrap(),
    );
    let err = Document::from_str_with(
        &text("flow_basic_llm.json"),
        Format::Json,
        &LoadOptions::new().components(&clash),
    )
    .unwrap_err();
    assert!(
        err.errors()
            .any(|d| d.code == "duplicate-id" && d.pointer == "/$referenced_components/start"),
        "{err}"
    );
}

#[test]
fn a_components_file_holds_only_referenced_components() {
    let err = Components::from_json_str(
        r#"{"$referenced_components": {}, "agentspec_version": "25.4.1"}"#,
    )
    .unwrap_err();
    assert_eq!(
        (err.diagnostics[0].code, err.diagnostics[0].pointer.as_str()),
        ("unknown-field", "/agentspec_version")
    );
    let err = Components::from_json_str(&text("flow_basic_llm.json")).unwrap_err();
    assert!(err.errors().any(|d| d.code == "unknown-field"));
    let err = Components::from_json_str(
        r#"{"$referenced_components": {"x": {"component_type": "Nope", "name": "n"}}}"#,
    )
    .unwrap_err();
    let d = err.errors().next().unwrap();
    assert_eq!(
        (d.code, d.pointer.as_str()),
        (
            "unknown-component-type",
            "/$referenced_components/x/component_type"
        )
    );
}
