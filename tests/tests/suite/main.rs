//! The workspace-level integration tests, in one binary: each file is a module (linking one
//! test binary instead of one per file is most of what `cargo test` spends here). Run one
//! file with `cargo test -p agentspec-tests --test suite roundtrip::`.

mod build_in_code;
mod codes;
mod disaggregated;
mod errors;
mod golden;
mod golden_compiles;
mod graph;
mod hostile;
mod layout;
mod mcp;
mod memory;
mod plugins;
mod readme;
mod references;
mod regenerate;
mod resolve;
mod roundtrip;
mod rules;
mod scale;
mod schema;
mod secrets;
mod serde;
mod tools;
mod validate;
mod versions;
mod walk;
