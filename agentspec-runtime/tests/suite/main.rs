//! The runtime's tests, in one binary: flows and agents run end to end on documents
//! pyagentspec wrote (`tests/fixtures/generate.py`).

mod agents;
mod flows;
mod groups;
mod http;
mod nodes;
mod postgres;
mod tracing;

use agentspec_runtime::{Loaded, SavedSession, Session, Status};
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
