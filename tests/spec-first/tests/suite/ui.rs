//! An implementation that no longer matches its changed document fails to compile, at the
//! places that must change.

#[test]
fn a_stale_implementation_fails_to_compile() {
    trybuild::TestCases::new().compile_fail("ui/*.rs");
}
