//! Compile-fail cases of `#[tool]` and `#[derive(Component)]`, run by trybuild in
//! `tests/ui.rs`, and a compile-pass case, `tests/shadowed_prelude/mod.rs`, compiled with
//! it. The crate has no code of its own: it exists so that trybuild's project builds only
//! what the cases use.
