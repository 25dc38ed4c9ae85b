//! The reference, page by page: what the README only sketches. Every example is a doctest.

/// Loading, writing, diagnostics and their codes, validation.
pub mod documents {
    #![doc = include_str!("../docs/guide/documents.md")]
}

/// Building components and documents in code: constructors, setters, shared components,
/// inference.
pub mod building {
    #![doc = include_str!("../docs/guide/building.md")]
}

/// Plugin components with `#[derive(Component)]`.
pub mod plugins {
    #![doc = include_str!("../docs/guide/plugins.md")]
}

/// Shared components, references, components files and secrets.
pub mod sharing {
    #![doc = include_str!("../docs/guide/sharing.md")]
}

/// Agent Spec versions, gates and the JSON Schema of each version.
pub mod versions {
    #![doc = include_str!("../docs/guide/versions.md")]
}

/// Tools from Rust functions with `#[tool]`, and the `Toolbox`.
pub mod tools {
    #![doc = include_str!("../docs/guide/tools.md")]
}

/// The `agentspec` command.
pub mod cli {
    #![doc = include_str!("../docs/guide/cli.md")]
}

/// Generating the types, how the generator reads the schemas, the declared table.
pub mod codegen {
    #![doc = include_str!("../docs/guide/codegen.md")]
}

/// What is checked against pyagentspec, and the benchmark.
pub mod conformance {
    #![doc = include_str!("../docs/guide/conformance.md")]
}

/// What does not work yet.
pub mod limits {
    #![doc = include_str!("../docs/guide/limits.md")]
}
