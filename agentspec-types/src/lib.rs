//! Rust types for [Open Agent Spec](https://github.com/oracle/agent-spec) documents, and
//! loading, writing and checking them as pyagentspec does.
//!
//! The types are generated at build time from the published JSON Schemas (bundled in
//! `agentspec-codegen`): one struct per component type ([`Agent`], [`Flow`], [`VllmConfig`],
//! …), one enum per family of components ([`AnyLlmConfig`], [`Node`], [`Tool`], and
//! [`Component`](enum@Component) for any of them), [`RefOr`] wherever a component may be a
//! `{"$component_ref": id}` reference, [`Sensitive`] for secrets.
//!
//! ```toml
//! [dependencies]
//! agentspec-types = { version = "0.1", features = ["macros"] }
//! ```
//!
//! Features: `serde` (on by default: `Serialize` and `Deserialize`, see [`serialization`]),
//! `macros` (`#[tool]` and `#[derive(Component)]`), `schemars` (tool descriptions from Rust
//! types, which `macros` turns on).
//!
//! # Load, check and write a document
//!
//! ```
//! use agentspec_types::{Component, Document, RefOr};
//!
//! let text = r#"{
//!   "component_type": "Agent", "id": "a1", "name": "helper", "description": null,
//!   "metadata": {}, "inputs": [], "outputs": [],
//!   "llm_config": {"component_type": "VllmConfig", "id": "llm", "name": "vllm",
//!                  "description": null, "metadata": {}, "default_generation_parameters": null,
//!                  "url": "http://localhost:8000", "model_id": "llama"},
//!   "system_prompt": "You help.", "tools": [],
//!   "agentspec_version": "25.4.1"
//! }"#;
//! let doc = Document::from_json_str(text)?;
//! let Component::Agent(agent) = doc.root() else { panic!("an agent") };
//! assert_eq!(agent.system_prompt, "You help.");
//! assert!(matches!(agent.llm_config, RefOr::Inline(_)));
//! assert!(doc.validate().is_empty()); // the language's rules, each diagnostic located
//! let again = Document::from_json_str(&doc.to_json_pretty())?; // pyagentspec's layout
//! assert_eq!(again, doc);
//! # Ok::<(), agentspec_types::LoadError>(())
//! ```
//!
//! A document that does not load gives a [`LoadError`] whose [`Diagnostic`]s each carry a
//! stable code, the rule in Agent Spec's words, the JSON pointer, and the line and column.
//!
//! # Build a component in code
//!
//! Every component type has `new` with its required fields (its `id` a fresh UUID) and a
//! `with_<field>` method per field; a family member converts into its family and into a
//! [`RefOr`] of it. The types are `#[non_exhaustive]`: a release that adds a field adds a
//! method and breaks no code.
//!
//! ```
//! use agentspec_types::{Agent, Document, OpenAiCompatibleConfig, ServerTool};
//!
//! let llm = OpenAiCompatibleConfig::new("llm", "gpt-oss-120b", "http://localhost:8000/v1")
//!     .with_api_key("sk-…"); // a secret: written as a placeholder unless asked for
//! let agent = Agent::new("helper", llm, "You help.")
//!     .with_tools([ServerTool::new("lookup").with_description("Looks things up.")]);
//! let json = Document::at_min_version(agent)?.to_json_pretty();
//! assert!(json.contains(r#""component_type": "OpenAiCompatibleConfig""#));
//! # Ok::<(), agentspec_types::LoadError>(())
//! ```
//!
//! With the `macros` feature, `#[tool]` turns Rust functions into tools and
//! [`Toolbox::tools`](tool::Toolbox::tools) puts them into an agent ([`guide::tools`]);
//! `#[derive(Component)]` declares plugin components ([`guide::plugins`]).
//!
//! # Where to read on
//!
//! The [`guide`] has one page per subject: [`guide::documents`] (loading, writing, the table
//! of diagnostic codes, validation), [`guide::building`] (flows and agents in code),
//! [`guide::sharing`] (references, components files,
//! secrets), [`guide::versions`], [`guide::tools`], [`guide::plugins`], [`guide::codegen`]
//! (your own generated types), [`guide::cli`], [`guide::conformance`] and [`guide::limits`].
//!
//! # Layers
//!
//! The crate is built in layers; each uses only the layers below it (a test checks every
//! `use`):
//!
//! ```text
//!  mcp                         a Toolbox served over MCP (feature `mcp`)
//!  tool                        #[tool] functions as Agent Spec tools, Toolbox, binding
//!  validate · graph · resolve  rules, flow graphs, resolved references (on the typed document)
//!  serialization               serde for the types (feature `serde`)
//!  document (+ components)     loading and writing documents and components files
//!  check · layout              reference checks; pyagentspec's layout of shared components
//!  generated                   the component types, under #[derive(AgentSpec)]
//!  plugin · __private          plugin registry; what the derives expand to (hidden)
//!  codec                       decoding with located diagnostics, encoding at a version
//!  model                       RefOr, Sensitive, ComponentInfo, Walk, plugin components
//!  version                     Agent Spec versions
//!  syntax                      located JSON/YAML trees, readers and writers (knows no Agent Spec)
//!  diagnostic                  codes, pointers, lines and columns
//! ```
//!
//! The machinery the generated code and the derives need (the decoder, slots, paths,
//! sinks, trees and value conversions) is not part of the API: it lives in hidden modules
//! and may change in any release.
#![deny(missing_docs)]
// no `unsafe` here: CI fuzzes this crate without AddressSanitizer (see .ci/run)
#![forbid(unsafe_code)]

// The derives name this crate `::agentspec_types`, here as in a user's crate.
extern crate self as agentspec_types;

#[doc(hidden)]
pub mod __private;
mod check;
#[doc(hidden)]
pub mod codec;
pub mod diagnostic;
pub mod document;
pub use document::components;
pub mod graph;
pub mod guide;
mod infer;
#[cfg(test)]
mod layers;
mod layout;
#[cfg(feature = "mcp")]
pub mod mcp;
mod model;
pub mod plugin;
pub mod resolve;
#[cfg(feature = "serde")]
pub mod serialization;
#[doc(hidden)]
pub mod syntax;
pub mod tool;
mod validate;
pub mod version;
pub use model::walk;

pub use codec::ComponentSet;
pub use diagnostic::{Diagnostic, Severity};
pub use document::{Checked, LoadError, Output, WriteOptions, Written, locate};
pub use model::component::ComponentInfo;
pub use syntax::Format;

/// A components file of the types generated from the bundled schemas.
pub type Components = components::Components<Component>;

pub use components::Values;

/// Options for loading a document of the bundled types.
pub type LoadOptions<'a> = components::LoadOptions<'a, Component>;
#[doc(hidden)]
pub use codec::SecretField;
pub use indexmap::IndexMap;
#[doc(hidden)]
pub use model::refs::Truthy;
pub use model::refs::{ComponentRef, MissingSecret, RefOr, Sensitive, UnknownValue};
pub use serde_json;

/// The wire format of the generated types (see `agentspec_macros::AgentSpec`).
#[doc(hidden)]
pub use agentspec_macros::AgentSpec;
#[cfg(feature = "macros")]
pub use agentspec_macros::{Component, tool};
#[cfg(feature = "schemars")]
pub use schemars;
pub use serde;
#[doc(hidden)]
pub use syntax::sink::Sink;
pub use tool::{RustTool, ToolSpec, Toolbox};
pub use version::{ParseVersionError, Version};

/// A free-form JSON object (metadata, JSON Schemas of inputs and outputs), keys in order.
pub type JsonObject = serde_json::Map<String, serde_json::Value>;

/// Without the `serde` feature, generated types implement neither `Serialize` nor
/// `Deserialize` (see the `serialization` module for what the feature adds).
#[cfg(not(feature = "serde"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __impl_serde {
    ($($anything:tt)*) => {};
}

/// The generated types (also re-exported at the crate root).
#[allow(clippy::all, reason = "generated code")]
pub mod generated {
    include!(concat!(env!("OUT_DIR"), "/agentspec_types.rs"));
}

pub use generated::*;

/// The package README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// A document of the types generated from the bundled schemas.
pub type Document = document::Document<Component>;
