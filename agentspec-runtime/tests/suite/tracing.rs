//! Spans: named by the OpenTelemetry GenAI conventions, and never holding a secret.

use std::sync::{Arc, Mutex};

use agentspec_runtime::Runtime;
use agentspec_runtime::llm::{ChatResponse, ScriptedLlm};
use agentspec_types::{Document, Toolbox};
use serde_json::json;
use tracing_core::field::{Field, Visit};
use tracing_core::span::{Attributes, Id, Record};
use tracing_core::{Dispatch, Event, Interest, Metadata, Subscriber};

use super::{IncTool, run};

/// A span's name and its fields (name, value as text).
type Span = (String, Vec<(String, String)>);

/// Keeps every span's name with its fields, and every field value written, as text.
#[derive(Default)]
struct Recorder {
    spans: Mutex<Vec<Span>>,
    values: Mutex<Vec<String>>,
}

struct Fields<'a>(&'a mut Vec<(String, String)>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.push((field.name().to_owned(), format!("{value:?}")));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.push((field.name().to_owned(), value.to_owned()));
    }
}

/// The subscriber: records into the shared [`Recorder`].
struct Recording(Arc<Recorder>);

impl Subscriber for Recording {
    // asked on every call: other tests run the same callsites at once, with no subscriber
    fn register_callsite(&self, _: &'static Metadata<'static>) -> Interest {
        Interest::sometimes()
    }
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, span: &Attributes<'_>) -> Id {
        let mut fields = Vec::new();
        span.record(&mut Fields(&mut fields));
        let mut values = self.0.values.lock().unwrap();
        values.extend(fields.iter().map(|(_, v)| v.clone()));
        let mut spans = self.0.spans.lock().unwrap();
        spans.push((span.metadata().name().to_owned(), fields));
        Id::from_u64(spans.len() as u64)
    }
    fn record(&self, _: &Id, values: &Record<'_>) {
        let mut fields = Vec::new();
        values.record(&mut Fields(&mut fields));
        self.0
            .values
            .lock()
            .unwrap()
            .extend(fields.into_iter().map(|(_, v)| v));
    }
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        let mut fields = Vec::new();
        event.record(&mut Fields(&mut fields));
        self.0
            .values
            .lock()
            .unwrap()
            .extend(fields.into_iter().map(|(_, v)| v));
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

/// Runs `f` with `recorder` recording its spans. The callsites' cached interest is rebuilt
/// first: a callsite another test reached with no subscriber is not left off.
fn record(recorder: &Arc<Recorder>, f: impl FnOnce()) {
    let dispatch = Dispatch::new(Recording(Arc::clone(recorder)));
    tracing_core::dispatcher::with_default(&dispatch, || {
        tracing_core::callsite::rebuild_interest_cache();
        f();
    });
}

#[test]
fn an_agents_spans_follow_the_genai_conventions_and_hold_no_secret() {
    // the calculator with an API key and a password in its URL, given in the document
    let path = format!(
        "{}/tests/fixtures/calculator.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    value["llm_config"]["api_key"] = json!("sk-very-secret");
    value["llm_config"]["url"] = json!("http://user:hunter2@127.0.0.1:5099");
    let doc = Document::from_value(&value).unwrap();
    let llm = Arc::new(ScriptedLlm::new([
        ChatResponse::call("c1", "inc", json!({"x": 1})),
        ChatResponse::text("Two."),
    ]));
    let loaded = Runtime::builder()
        .toolbox(Toolbox::new().with(IncTool).unwrap())
        .llm(Arc::clone(&llm))
        .build()
        .load(&doc)
        .unwrap();
    let mut session = loaded.start(json!({"user": "Ada"})).unwrap();
    let recorder = Arc::new(Recorder::default());
    record(&recorder, || {
        run(&mut session);
    });
    // the model did get the URL: the spans must not
    assert_eq!(
        llm.requests()[0].model.url.as_deref(),
        Some("http://user:hunter2@127.0.0.1:5099")
    );
    let spans = recorder.spans.lock().unwrap();
    let names: Vec<String> = spans
        .iter()
        .map(|(_, fields)| {
            fields
                .iter()
                .find(|(k, _)| k == "otel.name")
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        })
        .collect();
    assert_eq!(
        names,
        [
            "invoke_agent calculator",
            "chat scripted",
            "execute_tool inc",
            "chat scripted"
        ]
    );
    let (name, fields) = &spans[2];
    assert_eq!(name, "execute_tool");
    assert!(fields.contains(&("gen_ai.operation.name".into(), "execute_tool".into())));
    assert!(fields.contains(&("gen_ai.tool.call.id".into(), "c1".into())));
    for value in recorder.values.lock().unwrap().iter() {
        assert!(
            !value.contains("sk-very-secret") && !value.contains("hunter2"),
            "a span field holds a secret: {value}"
        );
    }
}

#[test]
fn a_flow_has_a_workflow_span_and_a_span_per_node_run() {
    let path = format!(
        "{}/tests/fixtures/inc_twice.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let doc = Document::from_path(path).unwrap();
    let loaded = Runtime::builder()
        .toolbox(Toolbox::new().with(IncTool).unwrap())
        .build()
        .load(&doc)
        .unwrap();
    let mut session = loaded.start(json!({"x": 1})).unwrap();
    let recorder = Arc::new(Recorder::default());
    record(&recorder, || {
        run(&mut session);
    });
    let spans = recorder.spans.lock().unwrap();
    let names: Vec<&str> = spans.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "workflow",
            "node",
            "node",
            "execute_tool",
            "node",
            "execute_tool",
            "node"
        ]
    );
    let types: Vec<&str> = spans
        .iter()
        .flat_map(|(_, f)| f.iter())
        .filter(|(k, _)| k == "agentspec.node.type")
        .map(|(_, v)| v.as_str())
        .collect();
    assert_eq!(types, ["StartNode", "ToolNode", "ToolNode", "EndNode"]);
}
