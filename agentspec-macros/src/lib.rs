//! The procedural macros of the Open Agent Spec toolkit: `#[tool]`, which turns a Rust
//! function into an Agent Spec tool. Use them through `agentspec-types` with its `macros`
//! feature, which also holds the runtime they expand to.
#![deny(missing_docs)]

use proc_macro::TokenStream;

mod docs;
#[cfg(test)]
mod expand_tests;
mod tool;

/// Makes an Agent Spec tool of a function: a unit type `<Name>Tool` implementing
/// `agentspec_types::tool::RustTool`, whose description (a `ServerTool` or `ClientTool`)
/// is inferred from the signature and doc comments, and which calls the function from a
/// JSON object of arguments. See the `agentspec_types::tool` module and the README.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    tool::expand(attr.into(), item.into()).into()
}
