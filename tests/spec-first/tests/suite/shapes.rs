//! Shapes of inputs and outputs: defaults, nullable and nested types, maps, no inputs or
//! outputs, several outputs, names that collide or are keywords, an agent's inputs.

use std::collections::HashMap;

use agentspec_spec_first_tests::shapes::{self, agents, tools};
use agentspec_types::tool::BoxError;
use serde_json::json;

struct Impl;

impl shapes::Tools for Impl {
    async fn lookup(&self, args: tools::lookup::Args) -> Result<Vec<String>, BoxError> {
        Ok(vec![format!("{} (limit {})", args.result, args.limit)])
    }

    async fn lookup_2(&self, args: tools::lookup_2::Args) -> Result<bool, BoxError> {
        Ok(args.result > 0)
    }

    async fn summarize(
        &self,
        args: tools::summarize::Args,
    ) -> Result<tools::summarize::Output, BoxError> {
        let titles: Vec<&str> = args.result.iter().map(|i| i.title.as_str()).collect();
        let summary = match args.style {
            Some(tools::summarize::ArgsStyle::Long) => titles.join(", and then "),
            _ => titles.join(", "),
        };
        Ok(tools::summarize::Output {
            summary,
            score: args.result.iter().filter_map(|i| i.score).reduce(f64::max),
        })
    }

    async fn type_(&self, _: tools::type_::Args) -> Result<(), BoxError> {
        Ok(())
    }

    async fn self_check(
        &self,
        args: tools::self_check::Args,
    ) -> Result<tools::self_check::Output, BoxError> {
        Ok(tools::self_check::Output {
            ok: args.options.get("mode").is_some_and(|m| m == "full"),
        })
    }
}

#[test]
fn every_shape_is_called_as_the_document_describes_it() {
    let toolbox = shapes::toolbox(Impl).expect("registers");
    toolbox.bind(shapes::document()).expect("binds");
    let names: Vec<&str> = toolbox.names().collect();
    assert_eq!(
        names,
        ["lookup", "Lookup", "summarize", "type", "self check"]
    );
    let call = |name: &str, args| toolbox.call_blocking(name, args);
    // a default fills in what is left out
    assert_eq!(
        call("lookup", json!({"result": "rust"})).unwrap(),
        json!(["rust (limit 10)"])
    );
    assert_eq!(
        call("lookup", json!({"result": "rust", "limit": 3})).unwrap(),
        json!(["rust (limit 3)"])
    );
    // two tools with an input `result` of two types
    assert_eq!(call("Lookup", json!({"result": 3})).unwrap(), json!(true));
    assert!(call("Lookup", json!({"result": "3"})).is_err());
    // nested objects, a nullable enum, several outputs (an object keyed by title)
    let items = json!([{"title": "a", "score": 0.5}, {"title": "b"}]);
    assert_eq!(
        call("summarize", json!({"result": items, "style": "long"})).unwrap(),
        json!({"summary": "a, and then b", "score": 0.5})
    );
    assert_eq!(
        call(
            "summarize",
            json!({"result": [{"title": "c"}], "style": null})
        )
        .unwrap(),
        json!({"summary": "c", "score": null})
    );
    let error = call("summarize", json!({"result": [{"score": 1}]})).unwrap_err();
    assert!(error.to_string().contains("/result/0"), "{error}");
    // no inputs, no outputs
    assert_eq!(call("type", json!({})).unwrap(), json!(null));
    assert!(call("type", json!({"x": 1})).is_err());
    // a map of strings, and one output that is an object
    assert_eq!(
        call("self check", json!({"options": {"mode": "full"}})).unwrap(),
        json!({"ok": true})
    );
}

#[test]
fn an_agents_inputs_are_built_in_rust() {
    let inputs = agents::shapes::Inputs {
        topic: "flows".into(),
        depth: 3,
    };
    assert_eq!(
        serde_json::to_value(&inputs).unwrap(),
        json!({"depth": 3, "topic": "flows"})
    );
    let read: agents::shapes::Inputs = serde_json::from_value(json!({"topic": "x"})).unwrap();
    assert_eq!(read.depth, 2, "the document's default");
    assert!(serde_json::from_value::<agents::shapes::Inputs>(json!({"depth": 1})).is_err());
    let outputs = agents::shapes::Outputs {
        answer: "42".into(),
    };
    assert_eq!(
        serde_json::to_value(outputs).unwrap(),
        json!({"answer": "42"})
    );
    assert_eq!(agents::shapes::NAME, "shapes");
    let _: HashMap<String, String> = tools::self_check::Args {
        options: HashMap::new(),
    }
    .options;
}
