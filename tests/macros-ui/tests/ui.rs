//! `#[tool]` and `#[derive(Component)]` misuse: one compile-fail case per mistake, each with
//! its expected compiler output (refresh with `TRYBUILD=overwrite cargo test -p
//! agentspec-macros-ui-tests`). The compile-pass case is the module `shadowed_prelude`,
//! compiled with this test: with a pass case among them, trybuild would *build* every case,
//! one cargo run each, where it now checks them all in one run.

mod shadowed_prelude;

#[test]
fn generated_code_works_where_prelude_names_are_shadowed() {
    shadowed_prelude::run();
}

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/fail/*.rs");
    t.compile_fail("ui/component/*.rs");
}
