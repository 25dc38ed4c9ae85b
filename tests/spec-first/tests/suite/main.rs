//! The spec-first tests, in one binary: each file is a module.

mod arguments;
mod readme;
mod shapes;
mod ui;
mod upstream;
mod weather;
