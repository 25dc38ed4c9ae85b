//! Hostile shapes (issue 15): each is handled on a default 2 MiB thread of a debug build, in
//! bounded work, with a clear error where the input is refused.

use agentspec_tests::{nested_flows_document, reference_chain, same_layout};
use agentspec_types::Document;

/// Runs `f` on a new thread with the default stack of spawned threads (2 MiB).
fn on_small_thread<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

#[test]
fn nested_documents_expand_and_lay_out_on_a_small_thread() {
    on_small_thread(|| {
        // 300 nested flows: about 900 levels, under the 1,024-level limit
        let doc = Document::from_value(&nested_flows_document(300)).unwrap();
        let expanded = doc.expanded();
        assert!(expanded.is_object());
        // the same values and keys in the same order, but for the order of the entries of a
        // `$referenced_components` map, which pyagentspec's layout does not fix
        let normalized = doc.normalized().unwrap();
        same_layout(&doc.to_value(), &normalized.to_value(), "", true).unwrap();
        let (main, components) = doc.split(&[("shared_llm", None)]).unwrap();
        let joined = main.join(&components).unwrap();
        same_layout(&doc.to_value(), &joined.to_value(), "", true).unwrap();
    });
}

#[test]
fn a_chain_of_references_inlines_within_the_depth_limit_or_says_too_deep() {
    on_small_thread(|| {
        // 100 flows, each referencing the next: about 500 levels once inlined
        let doc = Document::from_value(&reference_chain(100)).unwrap();
        assert!(doc.normalized().is_ok());
        let (main, components) = doc.split(&[("f50", None)]).unwrap();
        let joined = main.join(&components).unwrap();
        assert_eq!(
            joined.normalized().unwrap().to_value(),
            doc.normalized().unwrap().to_value()
        );
        // 5,000: about 25,000 levels once inlined, far past the 1,024-level limit, and past
        // what a recursion without the limit would fit in the thread's 2 MiB; refused, not a
        // stack overflow
        let doc = Document::from_value(&reference_chain(5_000)).unwrap();
        let err = doc.normalized().unwrap_err();
        assert_eq!(err.diagnostics[0].code, "too-deep");
        let err = doc.split(&[("f10", None)]).unwrap_err();
        assert_eq!(err.diagnostics[0].code, "too-deep");
        // a document it cannot inline is returned in its own layout
        assert_eq!(doc.expanded(), doc.to_value());
    });
}

#[test]
fn a_nan_built_in_code_is_reported_and_written_as_null_never_as_invalid_json() {
    use agentspec_types::{LlmGenerationConfig, OpenAiCompatibleConfig, Version};
    let llm = OpenAiCompatibleConfig::new("llm", "model", "http://localhost:8000/v1")
        .with_id("llm")
        .with_default_generation_parameters(
            LlmGenerationConfig::new()
                .with_temperature(f64::NAN)
                .with_top_p(f64::INFINITY),
        );
    // building the document in pyagentspec's layout refuses it, naming each place
    let err = Document::at_min_version(llm.clone()).unwrap_err();
    let found: Vec<_> = err
        .diagnostics
        .iter()
        .map(|d| (d.code, d.pointer.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            (
                "non-finite-number",
                "/default_generation_parameters/temperature"
            ),
            ("non-finite-number", "/default_generation_parameters/top_p"),
        ]
    );
    // a document made as it is: validation reports them, the writers write valid JSON
    let doc = Document::new(llm, Version::new(26, 1, 0));
    let reported: Vec<_> = doc
        .validate()
        .into_iter()
        .filter(|d| d.code == "non-finite-number")
        .map(|d| d.pointer)
        .collect();
    assert_eq!(
        reported,
        [
            "/default_generation_parameters/temperature",
            "/default_generation_parameters/top_p"
        ]
    );
    let json = doc.to_json_pretty();
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        value["default_generation_parameters"],
        serde_json::json!({"temperature": null, "top_p": null})
    );
    assert!(doc.to_yaml().contains("temperature: null"));
    // and what it wrote loads
    assert!(Document::from_json_str(&json).is_ok());
    assert!(Document::from_yaml_str(&doc.to_yaml()).is_ok());
}

/// The pointer of the object whose `id` is `id` (the first in document order).
fn pointer_of(value: &serde_json::Value, id: &str, at: &str) -> Option<String> {
    match value {
        serde_json::Value::Object(map) => {
            if map.get("id").and_then(|v| v.as_str()) == Some(id) {
                return Some(at.to_owned());
            }
            map.iter().find_map(|(k, v)| {
                let token = k.replace('~', "~0").replace('/', "~1");
                pointer_of(v, id, &format!("{at}/{token}"))
            })
        }
        serde_json::Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, v)| pointer_of(v, id, &format!("{at}/{i}"))),
        _ => None,
    }
}

#[test]
fn components_deep_down_are_reported_at_their_pointers() {
    on_small_thread(|| {
        // 60 nested flows: the innermost flow's edges and nodes sit about 180 levels down
        let mut value = agentspec_tests::deep_wide_document(60, 3);
        let edge = pointer_of(&value, "f0_d0", "").unwrap();
        let node = pointer_of(&value, "f0_llm_1", "").unwrap();
        assert!(edge.len() > 1000 && node.contains("/$referenced_components/f0_llm_1"));
        *value.pointer_mut(&format!("{edge}/source_output")).unwrap() = "nope".into();
        *value.pointer_mut(&format!("{node}/inputs/0/type")).unwrap() = "strin".into();
        let text = agentspec_tests::to_json(&value);
        for doc in [
            Document::from_json_str(&text).unwrap(),
            Document::from_value(&value).unwrap(),
        ] {
            let found: Vec<(&str, String)> = doc
                .validate()
                .into_iter()
                .map(|d| (d.code, d.pointer))
                .collect();
            assert_eq!(
                found,
                [
                    ("data-edge-output", format!("{edge}/source_output")),
                    ("property-schema", format!("{node}/inputs/0/type")),
                ]
            );
        }
    });
}

/// "Did you mean" on a huge unknown `component_type` (the 50 MB took 97 s): no
/// suggestion is searched for a word that long, and the message stays short.
#[test]
fn a_huge_unknown_component_type_is_refused_quickly_with_a_short_message() {
    let name = "Agent".repeat(2_000_000); // 10 MB
    let text = format!(
        "{{\"component_type\": \"{name}\", \"id\": \"a\", \"name\": \"a\", \"agentspec_version\": \"26.1.0\"}}"
    );
    let err = Document::from_json_str(&text).unwrap_err();
    let errors: Vec<_> = err.errors().collect();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].pointer, "/component_type");
    // cut at 2,000 bytes, saying how much was cut
    let message = &errors[0].message;
    assert!(message.len() < 2_100, "{}", message.len());
    assert!(
        message.ends_with("more bytes cut)"),
        "{}",
        &message[1_990..]
    );
}
