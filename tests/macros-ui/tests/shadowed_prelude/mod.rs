//! Generated code keeps working when the caller's scope shadows prelude names: a module
//! whose scope shadows them, built with the workspace rather than by trybuild, so that
//! trybuild's project has compile-fail cases only and checks them in one cargo run.
#![allow(dead_code, non_camel_case_types)]

use agentspec_types::tool;

struct Result;
struct Ok;
struct Err;
struct Some;
struct None;
struct Option;
struct String;
struct Vec;
struct Box;
struct Send;
struct Future;
mod serde {}
mod serde_json {}
mod schemars {}
mod core {}
mod std {}

/// Repeats a word.
#[tool]
fn repeat(
    word: &str,
    #[arg(default = 2)] times: u32,
    sep: ::core::option::Option<&str>,
) -> ::core::result::Result<::std::string::String, ::std::io::Error> {
    ::core::result::Result::Ok(vec![word; times as usize].join(sep.unwrap_or(" ")))
}

/// A plugin component whose fields use absolute paths, as the caller's scope shadows the
/// prelude.
#[derive(agentspec_types::Component, Clone, Debug, PartialEq)]
struct PluginService {
    #[component(base)]
    base: agentspec_types::ComponentFields,
    /// The port.
    #[component(default = 8080)]
    port: u16,
    host: ::std::string::String,
    tags: ::std::vec::Vec<::std::string::String>,
    retries: ::core::option::Option<u8>,
}

/// Does nothing, asynchronously.
#[tool(client, requires_confirmation)]
async fn wait() {}

pub(crate) fn run() {
    let toolbox = agentspec_types::tool::Toolbox::new()
        .with(RepeatTool)
        .and_then(|t| t.with(WaitTool))
        .unwrap();
    let out = toolbox
        .call_blocking("repeat", ::serde_json::json!({"word": "hi"}))
        .unwrap();
    assert_eq!(out, ::serde_json::json!("hi hi"));
    let plugins = agentspec_types::plugin::PluginRegistry::new()
        .with::<PluginService>()
        .unwrap();
    let text = r#"{"component_type": "PluginService", "id": "s", "name": "s", "host": "h",
        "tags": [], "component_plugin_name": "p", "component_plugin_version": "1",
        "agentspec_version": "25.4.1"}"#;
    let doc = agentspec_types::Document::from_str_with(
        text,
        agentspec_types::Format::Json,
        &agentspec_types::LoadOptions::new().plugins(&plugins),
    )
    .unwrap();
    assert_eq!(doc.to_value()["port"], ::serde_json::json!(8080));
}
