//! The spec-first tests, in one binary: each file is a module.

mod arguments;
mod readme;
mod shapes;
mod upstream;
mod weather;
