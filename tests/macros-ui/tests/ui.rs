//! `#[tool]` and `#[derive(Component)]` misuse: one compile-fail case per mistake, each with
//! its expected compiler output (refresh with `TRYBUILD=overwrite cargo test -p
//! agentspec-macros-ui-tests`). The compile-pass case is `tests/shadowed_prelude.rs`: with a
//! pass case among them, trybuild would *build* every case, one cargo run each, where it now
//! checks them all in one run.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/fail/*.rs");
    t.compile_fail("ui/component/*.rs");
}
