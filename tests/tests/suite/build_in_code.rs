//! Components built in code: `new` takes the required fields and generates an id, the
//! `with_` methods set the rest, and the result is the document loaded from the same JSON.

use agentspec_types::{
    Agent, Component, ComponentInfo, ComponentRef, Document, LlmGenerationConfig,
    OpenAiCompatibleConfig, RefOr, Sensitive, Tool, Version, VllmConfig,
};
use serde_json::json;

#[test]
fn new_takes_the_required_fields_and_generates_distinct_ids() {
    let a = VllmConfig::new("vllm", "llama", "http://localhost:8000");
    let b = VllmConfig::new("vllm", "llama", "http://localhost:8000");
    assert_eq!((a.name.as_str(), a.model_id.as_str()), ("vllm", "llama"));
    assert_eq!(a.url, "http://localhost:8000");
    assert_eq!(a.id.len(), 36, "a UUID: {}", a.id);
    assert_ne!(a.id, b.id);
    // every other field at the default the loader gives a missing key
    assert_eq!(a.description, None);
    assert_eq!(a.metadata, Some(Default::default()));
    assert_eq!(a.default_generation_parameters, None);
}

#[test]
fn setters_convert_what_they_are_given() {
    let llm = OpenAiCompatibleConfig::new("llm", "gpt", "http://x")
        .with_id("llm")
        .with_description("the model")
        .with_api_key("sk-secret")
        .with_default_generation_parameters(LlmGenerationConfig::new().with_temperature(0.2));
    assert_eq!(llm.description.as_deref(), Some("the model"));
    assert_eq!(llm.api_key, Some(Sensitive::Value("sk-secret".to_owned())));
    assert_eq!(
        llm.default_generation_parameters
            .as_ref()
            .unwrap()
            .temperature,
        Some(0.2)
    );
    // a family member goes where the family is expected, inline or as a reference
    let agent = Agent::new("a", llm.clone(), "You help.").with_tools([
        RefOr::Ref(ComponentRef::new("shared_tool")),
        RefOr::to("another_shared_tool"),
        RefOr::from(Tool::from(agentspec_types::ServerTool::new("t"))),
    ]);
    assert!(matches!(&agent.llm_config, RefOr::Inline(c) if c.id() == "llm"));
    assert_eq!(agent.tools.len(), 3);
    assert!(agent.human_in_the_loop, "the schema's default");
}

#[test]
fn a_value_struct_without_required_fields_is_default() {
    assert_eq!(LlmGenerationConfig::new(), LlmGenerationConfig::default());
}

#[test]
fn a_document_built_in_code_equals_the_one_loaded_from_its_json() {
    let llm = VllmConfig::new("vllm", "llama", "http://localhost:8000").with_id("llm");
    let agent = Agent::new("helper", llm, "You help.").with_id("helper");
    let built = Document::new(agent, Version::new(25, 4, 1));
    let loaded = Document::from_json_str(&built.to_json_pretty()).unwrap();
    assert_eq!(built, loaded);
    let Component::Agent(agent) = loaded.root() else {
        panic!("an agent")
    };
    assert_eq!(agent.system_prompt, "You help.");
    assert_eq!(
        built.to_value()["llm_config"]["model_id"],
        json!("llama"),
        "written in pyagentspec's layout"
    );
}

#[test]
fn a_flow_built_in_code_is_laid_out_as_pyagentspec_lays_it_out() {
    use agentspec_types::{ControlFlowEdge, EndNode, Flow, Node, StartNode};
    let start = Node::from(StartNode::new("start").with_id("start"));
    let end = Node::from(EndNode::new("end").with_id("end"));
    let edge = ControlFlowEdge::new("go", start.clone(), end.clone()).with_id("go");
    let flow = Flow::new("f", start.clone(), [start, end], [edge]).with_id("f");
    let doc = Document::at_min_version(flow).unwrap();
    let value = doc.to_value();
    // written once, under the flow's $referenced_components, referenced everywhere else
    assert_eq!(value["nodes"][0], json!({"$component_ref": "start"}));
    assert_eq!(
        value["control_flow_connections"][0]["to_node"],
        json!({"$component_ref": "end"})
    );
    // the entries only: pyagentspec orders them by Python set iteration, which changes from
    // one of its runs to the next
    let shared: std::collections::BTreeSet<&String> = value["$referenced_components"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(shared, [&"end".to_owned(), &"start".to_owned()].into());
    assert_eq!(Document::from_value(&value).unwrap(), doc);
}

#[test]
fn two_different_components_with_one_id_are_an_error() {
    use agentspec_types::{ControlFlowEdge, EndNode, Flow, Node, StartNode};
    let start = Node::from(StartNode::new("start").with_id("n"));
    let end = Node::from(EndNode::new("end").with_id("n"));
    let edge = ControlFlowEdge::new("go", start.clone(), end.clone());
    let flow = Flow::new("f", start.clone(), [start, end], [edge]);
    let error = Document::at_min_version(flow).unwrap_err();
    assert!(
        error.diagnostics.iter().any(|d| d.code == "duplicate-id"),
        "{error}"
    );
}

#[test]
fn a_plugin_component_goes_where_its_family_goes() {
    use agentspec_tests::corpus_plugins::{PluginRegexNode, PluginWeatherService};
    use agentspec_types::{ControlFlowEdge, EndNode, Flow, Node, NodeFields, StartNode};
    let regex = PluginRegexNode {
        base: NodeFields::new("regex").with_id("regex"),
        regex_pattern: "[0-9]+".into(),
    };
    let start = Node::from(StartNode::new("start").with_id("start"));
    let node = Node::from(regex.clone());
    let end = Node::from(EndNode::new("end").with_id("end"));
    let edges = [
        ControlFlowEdge::new("a", start.clone(), node.clone()).with_id("a"),
        ControlFlowEdge::new("b", node.clone(), end.clone()).with_id("b"),
    ];
    let flow = Flow::new("f", start.clone(), [start, node, end], edges).with_id("f");
    // the plugin is shared by id, so the document is laid out and read again: with its type
    let doc = Document::at_min_version(flow).unwrap();
    let Component::Flow(flow) = doc.root() else {
        panic!("a flow")
    };
    let shared = &flow.referenced_components["regex"];
    let Component::Plugin(plugin) = shared else {
        panic!("the plugin, shared: {shared:?}")
    };
    assert_eq!(plugin.downcast_ref::<PluginRegexNode>(), Some(&regex));
    // any plugin is a component, and a document root
    let service = PluginWeatherService {
        base: agentspec_types::ComponentFields::new("weather").with_id("w"),
        endpoint: "http://weather".into(),
        units: None,
        llm_config: VllmConfig::new("vllm", "llama", "http://vllm").into(),
    };
    let doc = Document::at_min_version(service).unwrap();
    assert_eq!(doc.root().id(), "w");
    let _: RefOr<Node> = regex.into();
}
