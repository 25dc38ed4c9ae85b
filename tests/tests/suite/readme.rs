//! The README's agent example is the program CI runs and pyagentspec loads
//! (`agentspec-types/examples/agent_in_code.rs`): the README shows it verbatim.

#[test]
fn the_readme_shows_the_example_pyagentspec_loads() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let example =
        std::fs::read_to_string(root.join("agentspec-types/examples/agent_in_code.rs")).unwrap();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let shown = example
        .split("// README begin\n")
        .nth(1)
        .and_then(|rest| rest.split("// README end").next())
        .expect("the example marks what the README shows");
    assert!(shown.contains("Agent::new"), "{shown}");
    assert!(
        readme.contains(&format!("```rust\n{shown}```")),
        "the README's agent example differs from examples/agent_in_code.rs"
    );
}
