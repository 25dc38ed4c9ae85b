//! Hostile shapes (issue 15): each is handled on a default 2 MiB thread of a debug build, in
//! bounded work, with a clear error where the input is refused.

use agentspec_tests::{nested_flows_document, reference_chain};
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
