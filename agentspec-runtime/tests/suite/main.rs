//! The runtime's tests, in one binary: flows and agents run end to end on documents
//! pyagentspec wrote (`tests/fixtures/generate.py`).

mod agents;
mod flows;
mod groups;
mod http;
mod mcp_remote;
mod nodes;
mod postgres;
mod tracing;

use agentspec_runtime::llm::ScriptedLlm;
use agentspec_runtime::{Loaded, Runtime, SavedSession, Session, Status};
use agentspec_types::{Document, tool};

/// Adds one.
#[tool]
fn inc(x: i64) -> i64 {
    x + 1
}

/// The fixture `name`.json.
fn doc(name: &str) -> Document {
    let path = format!("{}/tests/fixtures/{name}.json", env!("CARGO_MANIFEST_DIR"));
    Document::from_path(path).expect("the fixture loads")
}

/// A user's message to the agent of `doc`, run in a runtime with `llm` until it waits for
/// the next one: the requests the model got, as JSON, or what stopped it (`code: message`).
async fn answered(
    doc: &Document,
    llm: ScriptedLlm,
    message: &str,
) -> Result<Vec<serde_json::Value>, String> {
    let llm = std::sync::Arc::new(llm);
    let runtime = Runtime::builder().llm(std::sync::Arc::clone(&llm)).build();
    let mut session = runtime
        .load(doc)
        .map_err(|e| e.to_string())?
        .start(serde_json::json!({}))
        .map_err(|e| e.message)?;
    session.append_user_message(message);
    match session.run().await {
        Ok(Status::UserMessageRequest { .. }) => Ok(llm
            .requests()
            .iter()
            .map(|r| serde_json::to_value(r).expect("a request is JSON"))
            .collect()),
        Ok(other) => Err(format!("stopped at {other:?}")),
        Err(e) => Err(format!("{}: {}", e.code, e.message)),
    }
}

/// Runs the session to its next stop.
fn run(session: &mut Session) -> Status {
    agentspec_types::tool::block_on(session.run()).expect("runs")
}

/// Saves the session and resumes it in `fresh` (a runtime built anew), through JSON text:
/// what a second process does.
fn resumed_in(session: Session, fresh: Loaded) -> Session {
    let text = serde_json::to_string(&session.save()).unwrap();
    drop(session);
    let saved: SavedSession = serde_json::from_str(&text).unwrap();
    fresh.resume(saved).expect("resumes")
}
