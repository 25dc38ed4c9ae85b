//! Plugin components with no plugin registered: an error by default; with `keep_unknown`,
//! kept as raw components in their family's `Plugin` variant and written back unchanged.

use agentspec_tests::{dangling_refs, fixture, same_layout};
use agentspec_types::{Component, Document, Format, LoadOptions, Output, WriteOptions};
use serde_json::Value;

const PLUGIN_DOCS: [&str; 4] = [
    "plugin_flow_regex_node.json",
    "plugin_flow_regex_node.yaml",
    "plugin_custom_component_root.json",
    "plugin_custom_component_root.yaml",
];

fn load_with(
    name: &str,
    options: &LoadOptions<'_>,
) -> Result<Document, agentspec_types::LoadError> {
    let text = std::fs::read_to_string(fixture(&format!("generated/{name}"))).unwrap();
    let format = if name.ends_with(".json") {
        Format::Json
    } else {
        Format::Yaml
    };
    Document::from_str_with(&text, format, options)
}

fn load(name: &str, keep: bool) -> Result<Document, agentspec_types::LoadError> {
    load_with(name, &LoadOptions::new().keep_unknown(keep))
}

/// `doc` is written back as the corpus file `name`: byte for byte (JSON), by value (YAML).
fn assert_written_back(name: &str, doc: &Document) {
    let text = std::fs::read_to_string(fixture(&format!("generated/{name}"))).unwrap();
    if name.ends_with(".json") {
        let all = WriteOptions::new().include_secrets(true);
        assert_eq!(
            doc.to_string_with(Output::JsonPretty, &all),
            text,
            "{name}: byte for byte"
        );
    } else {
        let original: Value = agentspec_types::syntax::yaml::parse_yaml(&text)
            .map(agentspec_types::syntax::value::node_to_value)
            .unwrap();
        same_layout(&original, &doc.to_value(), "", true).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn kept_plugin_components_are_written_back_unchanged() {
    for name in PLUGIN_DOCS {
        let doc = load(name, true).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_written_back(name, &doc);
        let errors: Vec<_> = doc
            .validate()
            .into_iter()
            .filter(|d| d.severity == agentspec_types::Severity::Error)
            .map(|d| format!("{} at {}", d.code, d.pointer))
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:?}");
    }
}

#[test]
fn without_keep_unknown_a_plugin_component_is_an_error() {
    for name in PLUGIN_DOCS {
        let err = load(name, false).unwrap_err();
        let found: Vec<(&str, &str)> = err.errors().map(|d| (d.code, d.pointer.as_str())).collect();
        let expected = if name.starts_with("plugin_flow") {
            "/$referenced_components/pl_regex/component_type"
        } else {
            "/component_type"
        };
        assert_eq!(found, [("plugin-not-registered", expected)], "{name}");
    }
}

#[test]
fn a_kept_component_is_reachable_as_raw() {
    let doc = load("plugin_custom_component_root.json", true).unwrap();
    let Component::Plugin(plugin) = doc.root() else {
        panic!("the root is a plugin component")
    };
    let raw = plugin.raw().expect("no plugin registers it");
    assert_eq!(plugin.get().component_type(), "PluginWeatherService");
    assert_eq!(plugin.get().id(), "plugin_weather");
    assert_eq!(raw.plugin_name(), Some("PydanticComponentPlugin"));
    assert_eq!(raw.body()["endpoint"], "https://weather.example.com");

    let flow = load("plugin_flow_regex_node.json", true).unwrap();
    let Component::Flow(flow) = flow.root() else {
        panic!("a flow")
    };
    let regex = &flow.referenced_components["pl_regex"];
    assert!(agentspec_types::ComponentInfo::as_plugin(regex).is_some());
    assert_eq!(
        agentspec_types::ComponentInfo::component_type(regex),
        "PluginRegexNode"
    );
}

#[test]
fn keep_unknown_still_rejects_a_built_in_type_in_the_wrong_place() {
    let text = std::fs::read_to_string(fixture("generated/agent_simple_server_tool.json")).unwrap();
    let mut value: Value = serde_json::from_str(&text).unwrap();
    value["tools"][0]["component_type"] = "VllmConfig".into();
    let text = serde_json::to_string(&value).unwrap();
    let err = Document::from_str_with(&text, Format::Json, &LoadOptions::new().keep_unknown(true))
        .unwrap_err();
    let codes: Vec<&str> = err.errors().map(|d| d.code).collect();
    assert_eq!(codes, ["wrong-component-family"]);
}

use agentspec_tests::corpus_plugins::{PluginRegexNode, PluginWeatherService, registry};
use agentspec_types::plugin::PluginRegistry;

fn load_typed(name: &str) -> Result<Document, agentspec_types::LoadError> {
    let plugins = registry();
    load_with(name, &LoadOptions::new().plugins(&plugins))
}

#[test]
fn declared_plugin_types_load_and_write_back_exactly() {
    for name in PLUGIN_DOCS {
        let doc = load_typed(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_written_back(name, &doc);
    }
}

#[test]
fn typed_access_to_plugin_components() {
    let doc = load_typed("plugin_flow_regex_node.json").unwrap();
    let Component::Flow(flow) = doc.root() else {
        panic!("a flow")
    };
    let Component::Plugin(plugin) = &flow.referenced_components["pl_regex"] else {
        panic!("a plugin component")
    };
    let regex = plugin.downcast_ref::<PluginRegexNode>().expect("typed");
    assert_eq!(regex.regex_pattern, "<result>(.*)</result>");
    assert_eq!(regex.base.branches, ["next"]);

    let doc = load_typed("plugin_custom_component_root.json").unwrap();
    let Component::Plugin(plugin) = doc.root() else {
        panic!("a plugin root")
    };
    let weather = plugin.downcast_ref::<PluginWeatherService>().unwrap();
    assert_eq!(weather.units.as_deref(), Some("metric"));
    assert!(matches!(
        &weather.llm_config,
        agentspec_types::RefOr::Inline(agentspec_types::AnyLlmConfig::VllmConfig(c)) if c.url == "http://vllm.internal:8000"
    ));
}

/// Echoes its input: a plugin tool.
#[derive(agentspec_types::Component, Clone, Debug, PartialEq)]
#[component(extends = agentspec_types::Tool)]
pub struct PluginEchoTool {
    #[component(base)]
    pub base: agentspec_types::ToolFields,
    /// Times to repeat.
    #[component(default)]
    pub times: i64,
}

fn agent_with(tools: Value, referenced: Option<Value>) -> String {
    let text = std::fs::read_to_string(fixture("generated/agent_simple_server_tool.json")).unwrap();
    let mut value: Value = serde_json::from_str(&text).unwrap();
    value["tools"] = tools;
    if let Some(r) = referenced {
        let map = value.as_object_mut().unwrap();
        let version = map.remove("agentspec_version").unwrap();
        map.insert("$referenced_components".into(), r);
        map.insert("agentspec_version".into(), version);
    }
    serde_json::to_string_pretty(&value).unwrap() + "\n"
}

fn echo(id: &str) -> Value {
    serde_json::json!({
        "component_type": "PluginEchoTool", "id": id, "name": "echo", "description": null,
        "metadata": {}, "inputs": [], "outputs": [], "times": 2,
        "component_plugin_name": "agentspec-tests", "component_plugin_version": "0.1.0"
    })
}

fn with_echo(text: &str) -> Result<Document, agentspec_types::LoadError> {
    let plugins = PluginRegistry::new().with::<PluginEchoTool>().unwrap();
    Document::from_str_with(text, Format::Json, &LoadOptions::new().plugins(&plugins))
}

#[test]
fn plugin_tools_load_inline_and_by_reference_inside_built_in_fields() {
    let inline = agent_with(serde_json::json!([echo("e1")]), None);
    let doc = with_echo(&inline).unwrap();
    assert_eq!(
        doc.to_json_pretty(),
        inline,
        "written back exactly, plugin keys from the crate"
    );
    let Component::Agent(agent) = doc.root() else {
        panic!("an agent")
    };
    let agentspec_types::RefOr::Inline(agentspec_types::Tool::Plugin(tool)) = &agent.tools[0]
    else {
        panic!("an inline plugin tool")
    };
    assert_eq!(tool.downcast_ref::<PluginEchoTool>().unwrap().times, 2);

    let referenced = agent_with(
        serde_json::json!([{"$component_ref": "e2"}]),
        Some(serde_json::json!({"e2": echo("e2")})),
    );
    let doc = with_echo(&referenced).unwrap();
    assert_eq!(doc.to_json_pretty(), referenced);
}

#[test]
fn plugin_errors_name_the_rule() {
    let codes = |r: Result<Document, agentspec_types::LoadError>| -> Vec<(String, String)> {
        r.unwrap_err()
            .errors()
            .map(|d| (d.code.to_owned(), d.message.clone()))
            .collect()
    };
    // a plugin tool where a node is expected
    let text = std::fs::read_to_string(fixture("generated/plugin_flow_regex_node.json")).unwrap();
    let mut value: Value = serde_json::from_str(&text).unwrap();
    value["$referenced_components"]["pl_regex"] = echo("pl_regex");
    let found = codes(with_echo(&serde_json::to_string(&value).unwrap()));
    // one error per reference to it (start_node, nodes, 3 edge ends)
    assert_eq!(found.len(), 5, "{found:?}");
    for (code, message) in &found {
        assert_eq!(code, "wrong-component-family");
        assert!(
            message.starts_with(
                "`pl_regex` is a `PluginEchoTool`, which cannot stand where a Node is expected"
            ),
            "{message}"
        );
    }

    // unknown and missing fields of a plugin
    let mut bad = echo("e1");
    bad.as_object_mut().unwrap().remove("name");
    bad["colour"] = "red".into();
    let found = codes(with_echo(&agent_with(serde_json::json!([bad]), None)));
    let found: Vec<&str> = found.iter().map(|(c, _)| c.as_str()).collect();
    assert_eq!(found, ["missing-field", "unknown-field"]);

    // a type nobody registers: the message lists the registered plugins
    let mut other = echo("e1");
    other["component_type"] = "PluginOther".into();
    let found = codes(with_echo(&agent_with(serde_json::json!([other]), None)));
    assert_eq!(found[0].0, "plugin-not-registered");
    assert!(
        found[0].1.ends_with("registered plugins: PluginEchoTool"),
        "{}",
        found[0].1
    );
}

#[test]
fn a_component_type_is_registered_once() {
    let err = PluginRegistry::new()
        .with::<PluginEchoTool>()
        .unwrap()
        .with::<PluginEchoTool>()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "two plugin types are registered for the component type `PluginEchoTool`"
    );
}

#[test]
fn walks_visit_plugin_components_and_what_they_hold() {
    let doc = load_typed("plugin_custom_component_root.json").unwrap();
    let seen: Vec<(String, String)> = doc
        .components()
        .iter()
        .map(|c| (c.component_type().to_owned(), c.id().to_owned()))
        .collect();
    assert_eq!(
        seen,
        [
            (
                "PluginWeatherService".to_owned(),
                "plugin_weather".to_owned()
            ),
            ("VllmConfig".to_owned(), "llm_vllm".to_owned())
        ]
    );
    let flow = load_typed("plugin_flow_regex_node.json").unwrap();
    assert!(
        flow.components()
            .iter()
            .any(|c| c.id() == "pl_regex" && c.as_any().is::<PluginRegexNode>())
    );
    // laying the document out again (which loads it again, with its plugins) gives it back
    // (`$referenced_components` entries in any order, as pyagentspec)
    let original = flow.to_value();
    same_layout(&original, &flow.normalized().unwrap().to_value(), "", true).unwrap();
    let (main, parts) = flow.split(&[("pl_regex", None)]).unwrap();
    assert_eq!(parts.ids().collect::<Vec<_>>(), ["pl_regex"]);
    same_layout(&original, &main.join(&parts).unwrap().to_value(), "", true).unwrap();
}

#[test]
fn walks_visit_a_plugin_s_own_referenced_components() {
    let text =
        std::fs::read_to_string(fixture("generated/plugin_custom_component_root.json")).unwrap();
    let mut value: Value = serde_json::from_str(&text).unwrap();
    let map = value.as_object_mut().unwrap();
    let llm = map.insert(
        "llm_config".into(),
        serde_json::json!({"$component_ref": "llm_vllm"}),
    );
    let version = map.shift_remove("agentspec_version").unwrap();
    map.insert(
        "$referenced_components".into(),
        serde_json::json!({ "llm_vllm": llm.unwrap() }),
    );
    map.insert("agentspec_version".into(), version);
    let text = serde_json::to_string_pretty(&value).unwrap() + "\n";
    let plugins = registry();
    let doc = Document::from_str_with(&text, Format::Json, &LoadOptions::new().plugins(&plugins))
        .unwrap();
    let maps = doc.referenced_components();
    assert_eq!(maps.len(), 1);
    assert_eq!(maps[0].keys().collect::<Vec<_>>(), ["llm_vllm"]);
    let seen: Vec<&str> = doc.components().iter().map(|c| c.id()).collect();
    assert_eq!(seen, ["plugin_weather", "llm_vllm"]);
    assert_eq!(doc.to_json_pretty(), text);
}

#[test]
fn plugins_are_validated_against_the_io_their_hook_infers() {
    let doc = load_typed("plugin_flow_regex_node.json").unwrap();
    let errors: Vec<String> = doc
        .validate()
        .into_iter()
        .filter(|d| d.is_error())
        .map(|d| d.code.to_owned())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");

    let text = std::fs::read_to_string(fixture("generated/plugin_flow_regex_node.json")).unwrap();
    let mut value: Value = serde_json::from_str(&text).unwrap();
    value["$referenced_components"]["pl_regex"]["inputs"][0]["title"] = "input".into();
    value["$referenced_components"]["pl_regex"]["branches"] = serde_json::json!(["next", "other"]);
    let plugins = registry();
    let doc = Document::from_value_with(&value, &LoadOptions::new().plugins(&plugins)).unwrap();
    let found: Vec<(String, String, String)> = doc
        .validate()
        .into_iter()
        .filter(|d| d.is_error() && d.pointer.starts_with("/$referenced_components/pl_regex"))
        .map(|d| (d.code.to_owned(), d.pointer.clone(), d.message.clone()))
        .collect();
    assert_eq!(
        found,
        [
            (
                "inputs-mismatch".to_owned(),
                "/$referenced_components/pl_regex/inputs".to_owned(),
                "PluginRegexNode `regex` (pl_regex): the inputs of a PluginRegexNode are {\"text\"}, found {\"input\"}".to_owned()
            ),
            (
                "branches-mismatch".to_owned(),
                "/$referenced_components/pl_regex/branches".to_owned(),
                "PluginRegexNode `regex` (pl_regex): PluginRegexNode has the branches [\"next\"], not [\"next\", \"other\"]".to_owned()
            )
        ]
    );
}

#[test]
fn plugins_extend_the_published_schema() {
    let path = fixture("../../agentspec-codegen/schema/agentspec_json_spec_26_2_0.json");
    let mut schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    registry().extend_schema(&mut schema);
    let regex = &schema["$defs"]["BasePluginRegexNode"];
    assert_eq!(regex["title"], "PluginRegexNode");
    assert_eq!(
        regex["description"],
        "Extracts the first match of a regular expression."
    );
    let keys: Vec<&str> = regex["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "component_type",
            "id",
            "name",
            "description",
            "metadata",
            "inputs",
            "outputs",
            "branches",
            "$referenced_components",
            "regex_pattern",
            "component_plugin_name",
            "component_plugin_version"
        ]
    );
    assert_eq!(
        regex["properties"]["regex_pattern"],
        serde_json::json!({"type": "string", "description": "Regex applied to the input text."})
    );
    assert_eq!(
        regex["properties"]["component_type"],
        serde_json::json!({"const": "PluginRegexNode"})
    );
    assert_eq!(
        regex["required"],
        serde_json::json!(["component_type", "name", "regex_pattern"])
    );
    assert_eq!(regex["additionalProperties"], false);
    let weather = &schema["$defs"]["BasePluginWeatherService"];
    assert_eq!(
        weather["properties"]["llm_config"],
        serde_json::json!({"$ref": "#/$defs/LlmConfig"})
    );
    assert_eq!(
        weather["properties"]["units"],
        serde_json::json!({"anyOf": [{"type": "string"}, {"type": "null"}]})
    );
    let node_members = schema["$defs"]["BaseNode"]["anyOf"].as_array().unwrap();
    assert_eq!(
        node_members.last().unwrap(),
        &serde_json::json!({"$ref": "#/$defs/PluginRegexNode"})
    );
    let roots = schema["anyOf"].as_array().unwrap();
    assert!(roots.contains(&serde_json::json!({"$ref": "#/$defs/VersionedPluginWeatherService"})));
    let mut dangling = Vec::new();
    dangling_refs(&schema, &schema, &mut dangling);
    assert!(dangling.is_empty(), "{dangling:?}");
}

/// A service: a plugin whose fields take every kind of type the generated types use, and
/// the integer widths `#[tool]` takes.
#[derive(agentspec_types::Component, Clone, Debug, PartialEq)]
#[component(plugin_name = "services", plugin_version = "1.0.0")]
pub struct PluginService {
    #[component(base)]
    pub base: agentspec_types::ComponentFields,
    /// The port it listens on.
    #[component(default = 8080)]
    pub port: u16,
    pub retries: Option<u8>,
    pub weight: i32,
    pub token: Option<agentspec_types::Sensitive<String>>,
    #[component(default)]
    pub labels: agentspec_types::IndexMap<String, String>,
    pub handoff: agentspec_types::HandoffMode,
    pub llm: Option<agentspec_types::RefOr<agentspec_types::AnyLlmConfig>>,
}

fn service(extra: Value) -> String {
    let mut value = serde_json::json!({
        "component_type": "PluginService", "id": "svc", "name": "svc", "description": null,
        "metadata": {}, "weight": -3, "token": "s3cret", "handoff": "optional",
        "component_plugin_name": "services", "component_plugin_version": "1.0.0",
        "agentspec_version": "25.4.1"
    });
    for (k, v) in extra.as_object().unwrap() {
        value[k] = v.clone();
    }
    serde_json::to_string(&value).unwrap()
}

fn load_service(text: &str) -> Result<Document, agentspec_types::LoadError> {
    let plugins = PluginRegistry::new().with::<PluginService>().unwrap();
    Document::from_str_with(text, Format::Json, &LoadOptions::new().plugins(&plugins))
}

#[test]
fn plugin_fields_take_defaults_integer_widths_secrets_and_generated_types() {
    let doc = load_service(&service(serde_json::json!({"retries": 3}))).unwrap();
    let Component::Plugin(p) = doc.root() else {
        panic!("a plugin root")
    };
    let svc = p.downcast_ref::<PluginService>().unwrap();
    assert_eq!(svc.port, 8080, "`default = expr` when absent");
    assert_eq!((svc.retries, svc.weight), (Some(3), -3));
    assert_eq!(svc.handoff, agentspec_types::HandoffMode::Optional);
    assert_eq!(svc.token.as_ref().unwrap().value().unwrap(), "s3cret");
    let written = doc.to_value();
    assert_eq!(written["port"], 8080);
    assert_eq!(
        written["token"],
        serde_json::json!({"$component_ref": "svc.token"}),
        "a secret is redacted on write, as built-ins' are"
    );
    let all = doc.to_value_with(&WriteOptions::new().include_secrets(true));
    assert_eq!(all["token"], "s3cret");
    assert_eq!(all["labels"], serde_json::json!({}));
    let schema = <PluginService as agentspec_types::plugin::PluginType>::json_schema();
    assert_eq!(
        schema["properties"]["port"],
        serde_json::json!({"type": "integer", "minimum": 0, "maximum": 65535, "description": "The port it listens on."})
    );
}

#[test]
fn plugin_integer_fields_report_values_out_of_their_range() {
    let err =
        load_service(&service(serde_json::json!({"port": 70000, "retries": -1}))).unwrap_err();
    let found: Vec<(&str, &str, &str)> = err
        .errors()
        .map(|d| (d.code, d.pointer.as_str(), d.message.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            (
                "out-of-range",
                "/port",
                "70000 is out of range: must be from 0 to 65535"
            ),
            (
                "out-of-range",
                "/retries",
                "-1 is out of range: must be from 0 to 255"
            ),
        ]
    );
}

/// A plugin whose field names are those the derive's code uses for its own locals.
#[derive(agentspec_types::Component, Clone, Debug, PartialEq)]
#[component(plugin_name = "files", plugin_version = "1.0.0")]
pub struct PluginFileReader {
    #[component(base)]
    pub base: agentspec_types::ComponentFields,
    pub path: String,
    pub offset: u64,
    pub cx: Option<String>,
    pub entries: Vec<String>,
    pub entry: Option<String>,
    pub f: Option<i64>,
    pub at: Option<String>,
    pub sink: Option<String>,
    pub value: Option<String>,
    pub component: Option<String>,
    pub key: Option<String>,
}

#[test]
fn plugin_field_names_do_not_clash_with_the_derive_s_own() {
    let text = r#"{"component_type": "PluginFileReader", "id": "r", "name": "r", "description": null,
        "metadata": {}, "path": "/tmp/x", "offset": 3, "cx": "c", "entries": ["a"], "entry": "e",
        "f": 1, "at": "t", "sink": "s", "value": "v", "component": "k", "key": "y",
        "component_plugin_name": "files", "component_plugin_version": "1.0.0",
        "agentspec_version": "25.4.1"}"#;
    let plugins = PluginRegistry::new().with::<PluginFileReader>().unwrap();
    let options = LoadOptions::new().plugins(&plugins);
    let doc = Document::from_str_with(text, Format::Json, &options).unwrap();
    let Component::Plugin(p) = doc.root() else {
        panic!("a plugin root")
    };
    let reader = p.downcast_ref::<PluginFileReader>().unwrap();
    assert_eq!((reader.path.as_str(), reader.offset), ("/tmp/x", 3));
    let written: Value = serde_json::from_str(&doc.to_json_pretty()).unwrap();
    let original: Value = serde_json::from_str(text).unwrap();
    assert_eq!(written, original);
    let missing = text.replace(r#""path": "/tmp/x", "#, "");
    let err = Document::from_str_with(&missing, Format::Json, &options).unwrap_err();
    let codes: Vec<(&str, &str)> = err.errors().map(|d| (d.code, d.pointer.as_str())).collect();
    assert_eq!(codes, [("missing-field", "")]);
}

#[test]
fn components_inside_a_component_kept_as_read_are_validated() {
    let text = std::fs::read_to_string(fixture("generated/plugin_flow_regex_node.json")).unwrap();
    let mut value: Value = serde_json::from_str(&text).unwrap();
    // the kept plugin node holds a built-in LlmNode whose branches are wrong
    let llm = value["$referenced_components"]["pl_llm"].clone();
    let mut inner = llm.clone();
    inner["id"] = "inner_llm".into();
    inner["branches"] = serde_json::json!(["next", "other"]);
    value["$referenced_components"]["pl_regex"]["helper"] = inner;
    let doc = Document::from_str_with(
        &serde_json::to_string_pretty(&value).unwrap(),
        Format::Json,
        &LoadOptions::new().keep_unknown(true),
    )
    .unwrap();
    let diagnostics = doc.validate();
    let found: Vec<(&str, &str)> = diagnostics
        .iter()
        .filter(|d| d.severity == agentspec_types::Severity::Error)
        .map(|d| (d.code, d.pointer.as_str()))
        .collect();
    assert_eq!(
        found,
        [(
            "branches-mismatch",
            "/$referenced_components/pl_regex/helper/branches"
        )]
    );
    assert!(
        diagnostics[0].line.is_some(),
        "located: {:?}",
        diagnostics[0]
    );
}

#[test]
fn a_kept_plugin_treats_the_keys_of_sensitive_fields_as_secrets() {
    let text = r#"{
  "component_type": "AcmeLlmConfig",
  "id": "acme",
  "name": "acme",
  "api_key": "sk-raw-plugin-secret",
  "client_id": "app-7",
  "region": "eu",
  "agentspec_version": "26.1.0"
}"#;
    let doc = Document::from_str_with(text, Format::Json, &LoadOptions::new().keep_unknown(true))
        .unwrap();
    // masked in Debug
    let debug = format!("{doc:?}");
    assert!(!debug.contains("sk-raw-plugin-secret"), "{debug}");
    assert!(debug.contains("region"), "{debug}");
    // written as a placeholder by default; `client_id`, which pyagentspec writes in clear,
    // as read; everything with secrets included
    let written: Value = serde_json::from_str(&doc.to_json_pretty()).unwrap();
    assert_eq!(
        written["api_key"],
        serde_json::json!({"$component_ref": "acme.api_key"})
    );
    assert_eq!(written["client_id"], "app-7");
    assert_eq!(written["region"], "eu");
    let all: Value = serde_json::from_str(&doc.to_string_with(
        Output::JsonPretty,
        &WriteOptions::new().include_secrets(true),
    ))
    .unwrap();
    assert_eq!(all["api_key"], "sk-raw-plugin-secret");
}
