//! The snapshot compiles as a user's crate would compile it (against `agentspec_types`
//! through absolute paths), and loads and writes a document.

#[allow(dead_code, missing_docs, clippy::all, reason = "generated code")]
mod snapshot {
    include!("../../golden/agentspec_types.rs");
}

use agentspec_types::document::Document;

#[test]
fn snapshot_types_load_and_write_a_document() {
    let path = agentspec_tests::fixture("generated/flow_basic_llm.json");
    let text = std::fs::read_to_string(path).unwrap();
    let doc: Document<snapshot::Component> = Document::from_json_str(&text).unwrap();
    let snapshot::Component::Flow(flow) = doc.root() else {
        panic!("the root is a Flow")
    };
    assert_eq!(flow.nodes.len(), 3);
    assert_eq!(doc.to_json_pretty(), text);
}
