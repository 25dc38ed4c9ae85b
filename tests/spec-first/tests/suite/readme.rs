//! agentspec-build's README: its program, compiled against the code generated from the
//! document it shows, runs as a user's would (its MCP `main` is compiled only).

mod example {
    include!(concat!(env!("OUT_DIR"), "/readme_example.rs"));

    #[test]
    fn the_readme_example_runs() {
        main().expect("runs");
    }
}
