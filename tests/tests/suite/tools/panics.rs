//! A tool that panics ends its call with `ToolError::Panicked`, from `Toolbox::call` and
//! `Toolbox::call_blocking` alike; a tool that needs Tokio fails without its runtime, with an
//! error instead of a panic, and works inside it.

use std::future::Future;
use std::pin::Pin;
use std::sync::OnceLock;
use std::task::{Context, Poll};

use agentspec_types::tool;
use agentspec_types::tool::{SpecError, ToolError, ToolKind, ToolResult, ToolSpec, Toolbox};
use serde_json::{Value, json};

/// Panics with a formatted message (a `String` payload), or with a payload that is no string.
#[tool]
fn explode(city: String) -> u32 {
    if city == "Atlantis" {
        std::panic::panic_any(7_u8);
    }
    panic!("no forecast for {city}")
}

/// Pending once (waking itself), then ready.
struct YieldOnce(bool);

impl Future for YieldOnce {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            return Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

/// Panics with a literal message (a `&str` payload) on its second poll.
#[tool]
async fn explode_later() -> u32 {
    YieldOnce(false).await;
    panic!("gave up")
}

/// A hand-written tool whose `call` panics before it returns a future.
struct PanicsEarly;

impl agentspec_types::tool::RustTool for PanicsEarly {
    fn spec(&self) -> Result<&'static ToolSpec, &'static SpecError> {
        static SPEC: OnceLock<ToolSpec> = OnceLock::new();
        Ok(SPEC.get_or_init(|| ToolSpec::new("panics_early", ToolKind::Server)))
    }

    fn call(&self, args: Value) -> impl Future<Output = ToolResult> + Send {
        assert!(!args.is_null(), "no arguments to start from");
        async move { Ok(args) }
    }
}

/// Sleeps on Tokio's timer.
#[tool]
async fn nap(ms: u64) -> u64 {
    tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
    ms
}

/// The tool and message of a `Panicked` error.
fn panicked(result: ToolResult) -> (String, String) {
    match result {
        Err(ToolError::Panicked { tool, message }) => (tool, message),
        other => panic!("expected a panicked call, got {other:?}"),
    }
}

fn pair(tool: &str, message: &str) -> (String, String) {
    (tool.to_owned(), message.to_owned())
}

fn toolbox() -> Toolbox {
    Toolbox::new()
        .with(ExplodeTool)
        .unwrap()
        .with(ExplodeLaterTool)
        .unwrap()
        .with(PanicsEarly)
        .unwrap()
}

#[test]
fn a_panicking_tool_is_an_error_from_call_blocking() {
    let toolbox = toolbox();
    let err = toolbox
        .call_blocking("explode", json!({"city": "Bern"}))
        .unwrap_err();
    assert_eq!(err.code(), "tool-panicked");
    assert_eq!(
        err.to_string(),
        "tool `explode` panicked: no forecast for Bern"
    );
    assert_eq!(
        panicked(toolbox.call_blocking("explode", json!({"city": "Atlantis"}))),
        pair("explode", "a panic without a message")
    );
    assert_eq!(
        panicked(toolbox.call_blocking("explode_later", Value::Null)),
        pair("explode_later", "gave up")
    );
    assert_eq!(
        panicked(toolbox.call_blocking("panics_early", Value::Null)),
        pair("panics_early", "no arguments to start from")
    );
    // the toolbox is still usable
    assert_eq!(
        toolbox
            .call_blocking("panics_early", json!({"a": 1}))
            .unwrap(),
        json!({"a": 1})
    );
    assert_eq!(
        toolbox
            .call_blocking("explode", json!({"city": 3}))
            .unwrap_err()
            .code(),
        "invalid-arguments"
    );
}

#[test]
fn a_panicking_tool_is_an_error_from_call_in_a_runtime() {
    let toolbox = toolbox();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    assert_eq!(
        panicked(runtime.block_on(toolbox.call("explode", json!({"city": "Bern"})))),
        pair("explode", "no forecast for Bern")
    );
    assert_eq!(
        panicked(runtime.block_on(toolbox.call("explode_later", Value::Null))),
        pair("explode_later", "gave up")
    );
    assert_eq!(
        panicked(runtime.block_on(toolbox.call("panics_early", Value::Null))),
        pair("panics_early", "no arguments to start from")
    );
}

#[test]
fn a_tool_that_needs_tokio_is_an_error_without_a_runtime_and_works_in_one() {
    let toolbox = Toolbox::new().with(NapTool).unwrap();
    let (tool, message) = panicked(toolbox.call_blocking("nap", json!({"ms": 1})));
    assert_eq!(tool, "nap");
    assert!(
        message.contains("must be called from the context of a Tokio 1.x runtime"),
        "{message}"
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    assert_eq!(
        runtime
            .block_on(toolbox.call("nap", json!({"ms": 1})))
            .unwrap(),
        json!(1)
    );
}
