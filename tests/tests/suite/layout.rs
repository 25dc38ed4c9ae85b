//! pyagentspec's layout, computed from scratch: expanding every reference of a corpus
//! document and laying it out again gives back the original; split and join.

use agentspec_tests::{fixture, fixtures, same_layout};
use agentspec_types::{Component, Components, Document, Format, LoadOptions, Output, WriteOptions};
use serde_json::{Value, json};

fn all() -> WriteOptions {
    WriteOptions::new().include_secrets(true)
}

fn text(name: &str) -> String {
    std::fs::read_to_string(fixture(&format!("generated/{name}"))).unwrap()
}

#[test]
fn expanding_and_laying_out_again_gives_back_every_corpus_document() {
    let mut checked = 0;
    let mut shared = 0;
    for path in fixtures("generated", "json") {
        let Ok(doc) = Document::from_path(&path) else {
            continue;
        };
        let expanded = doc.expanded_with(&all());
        assert!(
            !expanded.to_string().contains("$referenced_components"),
            "{}",
            path.display()
        );
        let normalized = Document::from_value_normalized(&expanded)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let original: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        if let Err(e) = same_layout(&original, &normalized.to_value_with(&all()), "", true) {
            panic!("{}: {e}", path.display());
        }
        shared += usize::from(original.to_string().contains("$referenced_components"));
        checked += 1;
    }
    assert_eq!(checked, 45);
    assert_eq!(shared, 14, "documents with shared components");
}

#[test]
fn documents_built_in_code_share_by_id_and_get_fresh_ids() {
    let llm = json!({"component_type": "VllmConfig", "id": "llm", "name": "llm", "url": "u", "model_id": "m"});
    let node = |id: &str| json!({"component_type": "LlmNode", "id": id, "name": id, "llm_config": llm, "prompt_template": "hi"});
    let start = json!({"component_type": "StartNode", "id": "s", "name": "s"});
    let end = json!({"component_type": "EndNode", "name": "e"});
    let edge = |from: &Value, to: &Value| json!({"component_type": "ControlFlowEdge", "name": "c", "from_node": from, "to_node": to});
    let flow = json!({"component_type": "Flow", "id": "f", "name": "f", "start_node": start,
        "nodes": [start, node("a"), node("b"), end],
        "control_flow_connections": [edge(&start, &node("a")), edge(&node("a"), &node("b"))],
        "agentspec_version": "25.4.1"});
    let doc = Document::from_value_normalized(&flow).unwrap();
    let value = doc.to_value();
    let map = value["$referenced_components"].as_object().unwrap();
    let mut keys: Vec<&str> = map.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        ["a", "b", "llm", "s"],
        "used twice: referenced; `end` and the edges once: inline"
    );
    assert_eq!(value["nodes"][1], json!({"$component_ref": "a"}));
    assert_eq!(
        value["$referenced_components"]["a"]["llm_config"],
        json!({"$component_ref": "llm"})
    );
    let end_id = value["nodes"][3]["id"].as_str().unwrap();
    assert_eq!(end_id.len(), 36, "a fresh UUID: {end_id}");
    let different = json!({"component_type": "Flow", "id": "f", "name": "f", "start_node": start,
        "nodes": [start, {"component_type": "StartNode", "id": "s", "name": "other"}], "control_flow_connections": []});
    assert_eq!(
        Document::from_value_normalized(&different)
            .unwrap_err()
            .diagnostics[0]
            .code,
        "duplicate-id"
    );
}

#[test]
fn join_then_split_gives_back_both_disaggregated_pairs() {
    let cases = [
        (
            "disaggregated_main",
            "disaggregated_components",
            vec![("dis_llm", Some("shared_llm_config")), ("dis_tool", None)],
        ),
        (
            "disaggregated_flow_main",
            "disaggregated_flow_components",
            vec![("shared_llm", Some("external_llm"))],
        ),
    ];
    for (main, components, parts) in cases {
        let supplied = Components::from_json_str(&text(&format!("{components}.json"))).unwrap();
        let options = LoadOptions::new().components(&supplied);
        let doc = Document::from_str_with(&text(&format!("{main}.json")), Format::Json, &options)
            .unwrap();
        let joined = doc.join(&supplied).unwrap();
        assert!(
            !joined.to_json_pretty().contains("shared_llm_config"),
            "{main}"
        );
        let (main_again, components_again) = joined.split(&parts).unwrap();
        let original: Value = serde_json::from_str(&text(&format!("{main}.json"))).unwrap();
        same_layout(&original, &main_again.to_value_with(&all()), "", true)
            .unwrap_or_else(|e| panic!("{main}: {e}"));
        let original: Value = serde_json::from_str(&text(&format!("{components}.json"))).unwrap();
        let written: Value =
            serde_json::from_str(&components_again.to_string_with(Output::JsonPretty, &all()))
                .unwrap();
        same_layout(&original, &written, "", true).unwrap_or_else(|e| panic!("{components}: {e}"));
    }
}

#[test]
fn splitting_off_the_root_or_an_unknown_id_is_an_error() {
    let doc = Document::from_json_str(&text("agent_simple_server_tool.json")).unwrap();
    let Component::Agent(agent) = doc.root() else {
        panic!("an agent")
    };
    let err = doc.split(&[(agent.id.as_str(), None)]).unwrap_err();
    assert_eq!(err.diagnostics[0].code, "invalid-split");
    assert!(err.diagnostics[0].message.contains("is the root"));
    let err = doc.split(&[("nope", None)]).unwrap_err();
    assert_eq!(
        err.diagnostics[0].message,
        "the document has no component with id `nope`"
    );
    let (main, parts) = doc.split(&[("llm_vllm", Some("prod_llm"))]).unwrap();
    assert!(
        main.to_json_pretty()
            .contains("\"llm_config\": {\n    \"$component_ref\": \"prod_llm\"\n  }")
    );
    assert_eq!(parts.ids().collect::<Vec<_>>(), ["prod_llm"]);
}

/// Every document of the corpora that loads, as read and laid out again in every other way
/// (expanded, its ids renamed, its shared components moved): whether it is what pyagentspec
/// writes already (`is_as_pyagentspec_writes`, from its skeleton alone) agrees with laying
/// out a whole second document (`as_pyagentspec_writes`), the reference.
#[test]
fn the_skeleton_knows_what_the_whole_layout_knows() {
    let mut as_written = 0;
    let mut relaid = 0;
    for folder in [
        "generated",
        "generated-26_3_1",
        "edge-cases",
        "negative",
        "codes",
    ] {
        for ext in ["json", "yaml"] {
            for path in fixtures(folder, ext) {
                let Ok(doc) = Document::from_path(&path) else {
                    continue;
                };
                let expanded = Document::from_value(&doc.expanded_with(&all())).ok();
                for (how, doc) in [("as read", Some(doc)), ("expanded", expanded)] {
                    let Some(doc) = doc else { continue };
                    let reference = doc.as_pyagentspec_writes().is_ok_and(|w| w == doc);
                    assert_eq!(
                        doc.is_as_pyagentspec_writes(),
                        reference,
                        "{} ({how})",
                        path.display()
                    );
                    if reference {
                        as_written += 1;
                    } else {
                        relaid += 1;
                    }
                }
            }
        }
    }
    // both answers are exercised, on the counts of the corpora as committed
    assert_eq!((as_written, relaid), (292, 20));
}

/// `write_checked` (what `agentspec fmt` uses) finds in its one pass what the three calls it
/// stands for find, in every output and with secrets written or left out.
#[test]
fn one_checked_writing_is_the_writing_the_layout_check_and_the_secrets_found() {
    let (mut checked, mut laid_out, mut with_placeholders) = (0, 0, 0);
    for folder in ["generated", "generated-26_3_1", "edge-cases", "codes"] {
        for ext in ["json", "yaml"] {
            for path in fixtures(folder, ext) {
                let Ok(doc) = Document::from_path(&path) else {
                    continue;
                };
                for options in [WriteOptions::new(), all()] {
                    for output in [Output::JsonPretty, Output::JsonCompact, Output::Yaml] {
                        let written = doc.write_checked(output, &options);
                        let at = format!("{} ({output:?})", path.display());
                        assert!(written.text == doc.to_string_with(output, &options), "{at}");
                        assert_eq!(
                            written.is_as_pyagentspec_writes,
                            doc.is_as_pyagentspec_writes(),
                            "{at}"
                        );
                        assert_eq!(written.redacted_secrets, doc.redacted_secrets(&options));
                        // and in pieces, never held whole
                        let mut pieces = String::new();
                        let found = doc.write_checked_to(output, &options, |p| pieces.push_str(p));
                        assert!(pieces == written.text, "{at}: in pieces");
                        assert_eq!(
                            (found.is_as_pyagentspec_writes, found.redacted_secrets),
                            (
                                written.is_as_pyagentspec_writes,
                                written.redacted_secrets.clone()
                            ),
                            "{at}: in pieces"
                        );
                        checked += 1;
                        laid_out += usize::from(written.is_as_pyagentspec_writes);
                        with_placeholders += usize::from(!written.redacted_secrets.is_empty());
                    }
                }
            }
        }
    }
    // both answers of the layout check, and placeholders, are exercised, on the counts of
    // the corpora as committed
    assert_eq!((checked, laid_out, with_placeholders), (1044, 996, 15));
}

/// A large document is handed on in many pieces, which together are its text.
#[test]
fn a_large_document_is_written_in_pieces_that_make_its_text() {
    let doc = Document::from_value(&agentspec_tests::linear_flow_document(300)).unwrap();
    for output in [Output::JsonPretty, Output::JsonCompact, Output::Yaml] {
        let mut pieces: Vec<String> = Vec::new();
        let found = doc.write_checked_to(output, &WriteOptions::new(), |p| {
            pieces.push(p.to_owned());
        });
        let written = doc.write_checked(output, &WriteOptions::new());
        assert_eq!(pieces.concat(), written.text, "{output:?}");
        assert_eq!(
            found.is_as_pyagentspec_writes,
            written.is_as_pyagentspec_writes
        );
        if output == Output::Yaml {
            assert_eq!(pieces.len(), 1);
        } else {
            // pieces of about 16 KiB: none much larger, all but the last at least that
            let sizes: Vec<usize> = pieces.iter().map(String::len).collect();
            assert!(
                sizes.len() > 10,
                "{output:?}: {} bytes in {sizes:?}",
                written.text.len()
            );
            let (last, full) = sizes.split_last().unwrap();
            assert!(
                full.iter().all(|&n| (16 * 1024..17 * 1024).contains(&n)),
                "{sizes:?}"
            );
            assert!(*last < 17 * 1024);
        }
    }
}

/// The secrets writing leaves out, found in one pass (`redacted_secrets`), are where the
/// document written without them differs from the document written with them.
#[test]
fn redacted_secrets_are_where_the_two_writings_differ() {
    fn differ(a: &Value, b: &Value, at: &mut String, out: &mut Vec<String>) {
        match (a, b) {
            (Value::Object(x), Value::Object(y)) if x.keys().eq(y.keys()) => {
                for (k, v) in x {
                    let len = at.len();
                    at.push('/');
                    at.push_str(&k.replace('~', "~0").replace('/', "~1"));
                    differ(v, &y[k], at, out);
                    at.truncate(len);
                }
            }
            (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
                for (i, (v, w)) in x.iter().zip(y).enumerate() {
                    let len = at.len();
                    at.push_str(&format!("/{i}"));
                    differ(v, w, at, out);
                    at.truncate(len);
                }
            }
            _ if a != b => out.push(at.clone()),
            _ => {}
        }
    }
    let mut with_secrets = 0;
    for folder in ["generated", "generated-26_3_1", "edge-cases"] {
        for path in fixtures(folder, "json") {
            let Ok(doc) = Document::from_path(&path) else {
                continue;
            };
            let redacted = WriteOptions::new();
            let mut expected = Vec::new();
            differ(
                &doc.to_value_with(&redacted),
                &doc.to_value_with(&all()),
                &mut String::new(),
                &mut expected,
            );
            assert_eq!(
                doc.redacted_secrets(&redacted),
                expected,
                "{}",
                path.display()
            );
            assert!(doc.redacted_secrets(&all()).is_empty());
            with_secrets += usize::from(!expected.is_empty());
        }
    }
    assert_eq!(with_secrets, 2);
}
