//! The procedural macros of the Open Agent Spec toolkit: `#[tool]`, which turns a Rust
//! function into an Agent Spec tool, and `#[derive(Component)]`, which declares a plugin
//! component type. Use them through `agentspec-types` with its `macros`
//! feature, which also holds the runtime they expand to.
#![deny(missing_docs)]

use proc_macro::TokenStream;

mod codec;
mod docs;
#[cfg(test)]
mod expand_tests;
mod tool;

/// Makes an Agent Spec tool of a function: a type `<Name>Tool` implementing
/// `agentspec_types::tool::RustTool`, whose description (a `ServerTool` or `ClientTool`)
/// is inferred from the signature and doc comments, and which calls the function from a
/// JSON object of arguments. The type is a unit struct, or, when one argument is marked
/// `#[state]` (`#[state] db: &Database`), a struct holding an `Arc` of that state, built with
/// `<Name>Tool::new(state)`. See the `agentspec_types::tool` module and the README.
///
/// Mistakes in the attribute or the signature are compile errors. A description that only
/// the types' JSON Schemas can refuse is not: a recursive argument type (its schema needs a
/// `$ref`, which no Agent Spec property can hold) is reported at run time, when the tool is
/// described: `RustTool::spec` returns the `SpecError` (code `recursive-type`, naming the
/// tool, the argument and its type), and `Toolbox::with` / `Toolbox::register` fail with it,
/// so such a tool never enters a toolbox. The macro adds nothing to the crate but the tool
/// type and its impls (no hidden `#[test]`).
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    tool::expand(attr.into(), item.into()).into()
}

/// Declares a plugin component type: a struct with a `#[component(base)]` field holding the
/// fields of the family it extends (`NodeFields`, `ToolFields`, …, `ComponentFields`) and
/// fields of its own. It implements `agentspec_types::plugin::PluginType`; register it in a
/// `PluginRegistry` passed to the loader. See the `agentspec_types::plugin` module.
#[proc_macro_derive(Component, attributes(component))]
pub fn derive_component(input: TokenStream) -> TokenStream {
    codec::expand(input.into(), codec::Front::Plugin).into()
}

/// The wire format of an Agent Spec type, from its fields and `#[agentspec(...)]`
/// attributes: decoding with located diagnostics, pyagentspec's layout at every version,
/// walks and JSON Schema. The generated types are declared with it (see their source); a
/// plugin component uses the same derive through `#[derive(Component)]`.
#[proc_macro_derive(AgentSpec, attributes(agentspec))]
pub fn derive_agentspec(input: TokenStream) -> TokenStream {
    codec::expand(input.into(), codec::Front::AgentSpec).into()
}
