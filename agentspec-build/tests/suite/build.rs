//! The build-script API on broken input: every problem is an error that names the rule,
//! the file, the line and column and the JSON pointer; nothing panics.

use std::path::PathBuf;

use agentspec_build::{BuildError, Builder};

fn file(name: &str, text: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("agentspec-build-tests");
    std::fs::create_dir_all(&dir).expect("a folder");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("writes");
    path
}

const TOOL: &str = r#"{"component_type": "ServerTool", "id": "ID", "name": "NAME",
  "inputs": [{"title": "x", "type": "TYPE"}], "outputs": []}"#;

fn agent(tools: &[String]) -> String {
    format!(
        r#"{{
  "component_type": "Agent",
  "id": "a",
  "name": "a",
  "llm_config": {{"component_type": "VllmConfig", "id": "l", "name": "l", "url": "http://x", "model_id": "m"}},
  "system_prompt": "s",
  "tools": [{}],
  "agentspec_version": "25.4.1"
}}"#,
        tools.join(",\n")
    )
}

fn tool(id: &str, name: &str, ty: &str) -> String {
    TOOL.replace("ID", id)
        .replace("NAME", name)
        .replace("TYPE", ty)
}

#[test]
fn a_document_with_errors_fails_with_every_error_located() {
    let text = r#"{
  "component_type": "Agent",
  "id": "a",
  "name": "a",
  "llm_config": {"component_type": "VllmConfig", "id": "l", "name": "l", "url": "http://x"},
  "system_prompt": "s",
  "agentspec_version": "25.4.1",
  "tool": []
}"#;
    let path = file("broken.json", text);
    let error = Builder::new()
        .document(&path)
        .generate()
        .expect_err("refused");
    let BuildError::Document { diagnostics } = &error else {
        panic!("a document error: {error}")
    };
    let codes: Vec<&str> = diagnostics.iter().map(|d| d.diagnostic.code).collect();
    assert!(codes.contains(&"missing-field"), "{codes:?}");
    let shown = error.to_string();
    // as rustc prints its own: the code, the place, the line with a marker
    assert!(shown.contains("error[missing-field]: "), "{shown}");
    assert!(
        shown.contains(&format!("--> {}:5:", path.display())),
        "{shown}"
    );
    assert!(shown.contains("5 |   \"llm_config\""), "{shown}");
    assert!(shown.contains("= at /llm_config"), "{shown}");
    let errors = diagnostics
        .iter()
        .filter(|d| d.diagnostic.is_error())
        .count();
    let summary = format!(
        "error: the Agent Spec document {} has {errors} error",
        path.display()
    );
    assert!(shown.trim_end_matches('s').ends_with(&summary), "{shown}");
}

#[test]
fn a_source_line_holding_a_secret_is_not_shown() {
    let text = "component_type: OpenAiConfig\nid: o\nname: o\nmodel_id: m\napi_key: sk-very-secret\napi_type: 3\nagentspec_version: 26.1.0\n";
    let path = file("secret.yaml", text);
    let error = Builder::new()
        .document(&path)
        .generate()
        .expect_err("refused");
    assert!(!error.to_string().contains("sk-very-secret"), "{error}");
}

#[test]
fn two_different_tools_of_one_name_are_an_error_at_the_second() {
    let text = agent(&[
        tool("t1", "lookup", "string"),
        tool("t2", "lookup", "integer"),
    ]);
    let path = file("same_name.json", &text);
    let error = Builder::new()
        .document(&path)
        .generate()
        .expect_err("refused");
    let BuildError::Generate { located } = &error else {
        panic!("a generation error: {error}")
    };
    assert_eq!(located.diagnostic.code, "spec-first-unsupported");
    assert_eq!(located.diagnostic.pointer, "/tools/1");
    assert!(located.diagnostic.line.is_some());
    assert!(
        error
            .to_string()
            .contains("two ServerTools are named `lookup`"),
        "{error}"
    );
}

#[test]
fn the_same_tool_twice_and_names_that_collide_generate() {
    let text = agent(&[
        tool("t1", "lookup", "string"),
        tool("t2", "lookup", "string"),
        tool("t3", "Lookup", "integer"),
        tool("t4", "type", "boolean"),
    ]);
    let path = file("collide.json", &text);
    let generated = Builder::new()
        .document(&path)
        .generate()
        .expect("generates");
    let summary = &generated.documents[0];
    assert_eq!(summary.module, "collide");
    assert_eq!(summary.tools, ["lookup", "Lookup", "type"]);
    for module in ["pub mod lookup {", "pub mod lookup_2 {", "pub mod type_ {"] {
        assert!(generated.code.contains(module), "{module}");
    }
    assert_eq!(generated.read, [path]);
}

#[test]
fn what_cannot_be_read_is_an_error() {
    let missing = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("no-such-document.json");
    let error = Builder::new()
        .document(&missing)
        .generate()
        .expect_err("refused");
    assert!(matches!(error, BuildError::Io { .. }), "{error}");
    assert!(
        error.to_string().contains("no-such-document.json"),
        "{error}"
    );
    let error = Builder::new().generate().expect_err("refused");
    assert!(matches!(error, BuildError::NoDocument), "{error}");
    let path = file(
        "not_a_schema.json",
        &agent(&[tool("t", "t", "no-such-type")]),
    );
    // pyagentspec does not check the JSON Schemas of properties; typify does
    match Builder::new().document(&path).generate() {
        Err(BuildError::Generate { located }) => {
            assert_eq!(located.diagnostic.pointer, "/tools/0");
        }
        Err(BuildError::Document { diagnostics }) => {
            assert!(diagnostics.iter().any(|d| d.diagnostic.is_error()));
        }
        other => panic!("refused: {other:?}"),
    }
}

#[test]
fn emit_prints_cargo_instructions_and_writes_the_module() {
    let text = agent(&[tool("t1", "lookup", "string")]).replace(
        "\"system_prompt\": \"s\",",
        "\"system_prompt\": \"s\",\n  \"unknown_key\": 1,",
    );
    let path = file("emitted.json", &text);
    let out_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("agentspec-build-out");
    std::fs::create_dir_all(&out_dir).expect("a folder");
    let mut instructions = Vec::new();
    let generated = Builder::new()
        .document(&path)
        .emit_to(Some(&out_dir), "agent.rs", &mut instructions)
        .expect("generates");
    let instructions = String::from_utf8(instructions).expect("UTF-8");
    let mut lines = instructions.lines();
    assert_eq!(
        lines.next(),
        Some(format!("cargo:rerun-if-changed={}", path.display()).as_str())
    );
    let warning = lines.next().expect("a warning");
    assert!(
        warning.starts_with(&format!(
            "cargo:warning={}:7:3: warning[unknown-field]: ",
            path.display()
        )),
        "{warning}"
    );
    let written = std::fs::read_to_string(out_dir.join("agent.rs")).expect("written");
    assert_eq!(written, generated.code);
    // without OUT_DIR: an error, and the instructions still name the file read
    let mut instructions = Vec::new();
    let error = Builder::new()
        .document(&path)
        .emit_to(None, "agent.rs", &mut instructions)
        .expect_err("no OUT_DIR");
    assert!(error.to_string().contains("OUT_DIR"), "{error}");
    assert!(
        String::from_utf8(instructions)
            .expect("UTF-8")
            .contains("rerun-if-changed")
    );
}

#[test]
fn an_entry_of_sensitive_headers_is_not_shown() {
    let text = r#"{
  "component_type": "RemoteTool",
  "id": "r",
  "name": "r",
  "url": "http://x",
  "http_method": "GET",
  "headers": {"Authorization": "x"},
  "sensitive_headers": {
    "Authorization": "Bearer sk-live-secret"
  },
  "agentspec_version": "26.1.0"
}"#;
    let path = file("headers.json", text);
    let shown = match Builder::new().document(&path).generate() {
        Ok(generated) => generated.warnings.iter().map(ToString::to_string).collect(),
        Err(error) => error.to_string(),
    };
    assert!(!shown.contains("sk-live-secret"), "{shown}");
}

#[test]
fn schemas_typify_cannot_read_are_errors_at_their_tool() {
    for (schema, expected) in [
        (
            r##"{"title": "x", "$ref": "#/$defs/I", "$defs": {"I": {"type": "string"}}}"##,
            "`$ref`",
        ),
        (r#"{"title": "x", "not": {"type": "string"}}"#, "`not`"),
        (
            r#"{"title": "x", "type": "object", "properties": {"a-b": {"type": "string"}, "a_b": {"type": "string"}}}"#,
            "`a_b`",
        ),
    ] {
        let tool = format!(
            r#"{{"component_type": "ServerTool", "id": "t", "name": "t", "inputs": [{schema}], "outputs": []}}"#
        );
        let path = file("unsupported.json", &agent(&[tool]));
        let error = Builder::new().document(&path).generate().expect_err(schema);
        let BuildError::Generate { located } = &error else {
            panic!("a generation error: {error}")
        };
        assert_eq!(located.diagnostic.pointer, "/tools/0", "{error}");
        assert!(error.to_string().contains(expected), "{error}");
    }
    // two inputs of one title
    let tool = r#"{"component_type": "ServerTool", "id": "t", "name": "t",
      "inputs": [{"title": "x", "type": "string"}, {"title": "x", "type": "integer"}], "outputs": []}"#;
    let path = file("same_title.json", &agent(&[tool.to_owned()]));
    match Builder::new().document(&path).generate() {
        Err(BuildError::Generate { located }) => {
            assert!(
                located
                    .diagnostic
                    .message
                    .contains("two properties are titled `x`")
            );
        }
        Err(BuildError::Document { diagnostics }) => {
            assert!(diagnostics.iter().any(|d| d.diagnostic.is_error()));
        }
        other => panic!("two inputs titled `x` are refused: {other:?}"),
    }
}

#[test]
fn nested_titles_never_merge_two_types() {
    // typify names a type after its title, and takes two types of one name for one: a
    // nested `output` and a joined name (`foo` + `bar`, `foo_bar`) must stay apart
    let tool = r#"{"component_type": "ServerTool", "id": "t", "name": "t",
      "inputs": [
        {"title": "config", "type": "object", "properties": {"output": {"title": "output", "type": "object", "properties": {"fmt": {"type": "string"}}}}},
        {"title": "foo_bar", "type": "string", "enum": ["a"]},
        {"title": "foo", "type": "object", "properties": {"bar": {"type": "string", "enum": ["b"]}}}
      ],
      "outputs": [{"title": "n", "type": "number"}]}"#;
    let path = file("nested_titles.json", &agent(&[tool.to_owned()]));
    let generated = Builder::new()
        .document(&path)
        .generate()
        .expect("generates");
    let code = &generated.code;
    assert!(code.contains("pub type Output = f64;"), "{code}");
    assert!(code.contains("pub struct ArgsConfigOutput"), "{code}");
    assert!(code.contains("pub enum ArgsFooBar "), "{code}");
    assert!(code.contains("pub enum ArgsFooBar2 "), "{code}");
}

#[test]
fn the_tools_of_a_components_file_are_generated() {
    let components = file(
        "components.json",
        &format!(
            r#"{{"$referenced_components": {{"the_tool": {}}}}}"#,
            tool("t1", "lookup", "string")
                .strip_suffix('}')
                .map(|t| format!(r#"{t}, "agentspec_version": "25.4.1"}}"#))
                .expect("an object")
        ),
    );
    let main = file(
        "main_with_components.json",
        &agent(&[r#"{"$component_ref": "the_tool"}"#.to_owned()]),
    );
    let generated = Builder::new()
        .document(&main)
        .components(&components)
        .generate()
        .expect("generates");
    assert_eq!(generated.documents[0].tools, ["lookup"]);
    assert!(generated.code.contains("pub const COMPONENTS_JSON"));
    assert_eq!(generated.read, [components, main]);
}

/// A service the runtime knows.
#[derive(agentspec_types::Component, Clone, Debug, PartialEq)]
#[component(plugin_name = "services", plugin_version = "1.0.0")]
struct PluginService {
    #[component(base)]
    base: agentspec_types::ComponentFields,
    /// The port it listens on.
    #[component(default = 8080)]
    port: u16,
}

#[test]
fn plugin_components_are_checked_with_the_registry_given() {
    use agentspec_types::plugin::PluginRegistry;
    let text = "component_type: PluginService\nid: s\nname: svc\n\
                component_plugin_name: services\ncomponent_plugin_version: 1.0.0\n\
                port: 8081\nagentspec_version: 25.4.1\n";
    let path = file("plugin.yaml", text);
    let error = Builder::new()
        .document(&path)
        .generate()
        .expect_err("no plugin");
    assert!(
        error.to_string().contains("plugin-not-registered"),
        "{error}"
    );
    let plugins = PluginRegistry::new()
        .with::<PluginService>()
        .expect("registers");
    let generated = Builder::new()
        .document(&path)
        .plugins(plugins.clone())
        .generate()
        .expect("generates");
    // at run time, the registry is the caller's: load() keeps the component as read
    assert!(generated.code.contains(".keep_unknown(true)"));
    assert!(generated.code.contains("pub fn load_with("));
    // a field of the wrong type is an error at build time
    let path = file("plugin_bad.yaml", &text.replace("8081", "'not a port'"));
    let error = Builder::new()
        .document(&path)
        .plugins(plugins)
        .generate()
        .expect_err("a bad port");
    assert!(error.to_string().contains("plugin_bad.yaml:6:"), "{error}");
}
