//! Generated code keeps working when the caller's scope shadows prelude names.
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

/// Does nothing, asynchronously.
#[tool(client, requires_confirmation)]
async fn wait() {}

fn main() {
    let toolbox = agentspec_types::tool::Toolbox::new()
        .with(RepeatTool)
        .and_then(|t| t.with(WaitTool))
        .unwrap();
    let out = toolbox
        .call_blocking("repeat", ::serde_json::json!({"word": "hi"}))
        .unwrap();
    assert_eq!(out, ::serde_json::json!("hi hi"));
}
