//! The spec-first tests, in one binary: each file is a module.

mod arguments;
mod shapes;
mod ui;
mod upstream;
mod weather;
