//! Compile-fail and compile-pass cases of `#[tool]` and `#[derive(Component)]`, in
//! `tests/ui.rs`. The crate has no code of its own: it exists so that trybuild's project
//! builds only what the cases use.
