//! `#[tool]` and `#[derive(Component)]` misuse: one compile-fail case per mistake, each with
//! its expected compiler output (refresh with `TRYBUILD=overwrite cargo test -p
//! agentspec-macros-ui-tests`), and a compile-pass case whose scope shadows the prelude names generated code uses.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/fail/*.rs");
    t.compile_fail("ui/component/*.rs");
    t.pass("ui/pass/*.rs");
}
