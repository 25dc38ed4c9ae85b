//! Hostile shapes (issue 15): each is handled on a default 2 MiB thread of a debug build, in
//! bounded work, with a clear error where the input is refused.

use agentspec_tests::nested_flows_document;
use agentspec_types::Document;
use serde_json::{Value, json};

/// Runs `f` on a new thread with the default stack of spawned threads (2 MiB).
fn on_small_thread<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

/// Flows `f0 … f{n}`, each but the last running the next from one FlowNode, all in the root's
/// `$referenced_components`: a chain of references, shallow as written, deep once inlined.
fn reference_chain(n: usize) -> Value {
    let mut entries = serde_json::Map::new();
    let node = |ty: &str, id: &str, extra: Value| {
        let mut v = json!({"component_type": ty, "id": id, "name": id});
        v.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        v
    };
    for i in 0..=n {
        let (start, end, sub) = (format!("s{i}"), format!("e{i}"), format!("n{i}"));
        let mut ids = vec![start.clone()];
        if i < n {
            let next = json!({"subflow": {"$component_ref": format!("f{}", i + 1)}});
            entries.insert(sub.clone(), node("FlowNode", &sub, next));
            ids.push(sub);
        }
        ids.push(end.clone());
        entries.insert(start.clone(), node("StartNode", &start, json!({})));
        entries.insert(end.clone(), node("EndNode", &end, json!({})));
        let edges: Vec<Value> = ids
            .windows(2)
            .enumerate()
            .map(|(k, w)| {
                let id = format!("c{i}_{k}");
                let ends = json!({"from_node": {"$component_ref": w[0]}, "to_node": {"$component_ref": w[1]}});
                node("ControlFlowEdge", &id, ends)
            })
            .collect();
        let nodes: Vec<Value> = ids.iter().map(|id| json!({"$component_ref": id})).collect();
        let body = json!({"start_node": {"$component_ref": start}, "nodes": nodes, "control_flow_connections": edges});
        entries.insert(format!("f{i}"), node("Flow", &format!("f{i}"), body));
    }
    let mut root = entries.remove("f0").unwrap();
    root["$referenced_components"] = Value::Object(entries);
    root["agentspec_version"] = "26.1.0".into();
    root
}

#[test]
fn nested_documents_expand_and_lay_out_on_a_small_thread() {
    on_small_thread(|| {
        // 300 nested flows: about 900 levels, under the 1,024-level limit
        let doc = Document::from_value(&nested_flows_document(300)).unwrap();
        let expanded = doc.expanded();
        assert!(expanded.is_object());
        let normalized = doc.normalized().unwrap();
        assert_eq!(normalized.to_value(), doc.to_value());
        let (main, components) = doc.split(&[("shared_llm", None)]).unwrap();
        let joined = main.join(&components).unwrap();
        assert_eq!(joined.to_value(), doc.to_value());
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
        // 25,000: far past 1,024 levels once inlined; refused, not a stack overflow
        let doc = Document::from_value(&reference_chain(25_000)).unwrap();
        let err = doc.normalized().unwrap_err();
        assert_eq!(err.diagnostics[0].code, "too-deep");
        let err = doc.split(&[("f10", None)]).unwrap_err();
        assert_eq!(err.diagnostics[0].code, "too-deep");
        // a document it cannot inline is returned in its own layout
        assert_eq!(doc.expanded(), doc.to_value());
    });
}
