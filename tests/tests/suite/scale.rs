//! Deep and large documents load and write in a debug build on the default 2 MiB test
//! thread, in JSON and YAML; past the documented limit they give a clear error.

use agentspec_tests::{linear_flow_document, nested_flows_document, same_layout, to_json};
use agentspec_types::{Component, Document};

fn depth(value: &serde_json::Value) -> usize {
    match value {
        serde_json::Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        serde_json::Value::Object(map) => 1 + map.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

#[test]
fn fifty_nested_flows_load_and_write_in_json_and_yaml() {
    let value = nested_flows_document(50);
    assert!(
        depth(&value) > 150,
        "deeper than serde_json's 128-level default"
    );
    let json = to_json(&value);
    let doc = Document::from_json_str(&json).unwrap();
    assert!(doc.to_json_pretty() == json, "written back unchanged");
    let yaml = doc.to_yaml();
    let again = Document::from_yaml_str(&yaml).unwrap();
    // the same values in the same order (`==` on values ignores key order)
    if let Err(e) = same_layout(&value, &again.to_value(), "", true) {
        panic!("YAML written and read back changed: {e}");
    }
}

#[test]
fn nesting_just_under_the_limit_loads() {
    // 330 flows: a JSON depth above 990, under the 1,024-level limit.
    let value = nested_flows_document(330);
    let levels = depth(&value);
    assert!(levels > 990 && levels <= 1024, "{levels}");
    // compact: indented, the text would grow with the square of the depth
    let json = serde_json::to_string(&value).unwrap();
    let doc = Document::from_json_str(&json).unwrap();
    assert!(
        doc.to_json_compact() == serde_json::to_string(&value).unwrap(),
        "written back unchanged"
    );
    let yaml = doc.to_yaml();
    assert!(Document::from_yaml_str(&yaml).is_ok());
}

#[test]
fn nesting_past_the_limit_is_a_clear_error() {
    let json = serde_json::to_string(&nested_flows_document(400)).unwrap();
    let err = Document::from_json_str(&json).unwrap_err();
    let d = &err.diagnostics[0];
    assert_eq!((d.code, err.diagnostics.len()), ("too-deep", 1));
    assert!(d.message.contains("1024"), "{}", d.message);
    assert!(d.line.is_some() && d.column.is_some(), "located: {d:?}");
}

#[test]
fn a_large_flow_keeps_every_node() {
    let value = linear_flow_document(2000);
    let doc = Document::from_json_str(&to_json(&value)).unwrap();
    let Component::Flow(flow) = doc.root() else {
        panic!("a flow")
    };
    assert_eq!(flow.nodes.len(), 2002);
    assert_eq!(flow.control_flow_connections.len(), 2001);
    if let Err(e) = same_layout(&value, &doc.to_value(), "", true) {
        panic!("written back changed: {e}");
    }
}
