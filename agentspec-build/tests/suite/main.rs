//! The integration tests of agentspec-build, in one binary: each file is a module.

mod build;
mod readme;
