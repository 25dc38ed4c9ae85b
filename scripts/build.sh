# Sourced by the scripts that run the workspace's programs (`agentspec`, the examples, the
# test crate's binaries): builds them as `cargo test --workspace` does, every target with one
# feature set, so that after the test suite (as in .ci/run) nothing compiles again, and a
# script run alone builds what the test suite would. The programs are then in target/debug.
cargo build --workspace --all-targets --locked --quiet
