//! `#[derive(AgentSpec)]` and `#[derive(Component)]`: the wire format of Agent Spec types,
//! from plain Rust types and their attributes. The generator emits built-in types with
//! `#[derive(AgentSpec)]`; a plugin component is the same derive read through its
//! `#[component(...)]` front. Parse ([`ast`]), then generate ([`fields`] for what every
//! struct shares, [`structs`], [`plugin`], [`enums`]).

use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;

use crate::tool::Errors;

pub mod ast;
mod builders;
mod enums;
mod fields;
mod plugin;
mod structs;

pub use ast::Front;

/// The derive's expansion, or its errors beside a fallback implementation.
pub fn expand(input: TokenStream, front: Front) -> TokenStream {
    let input: DeriveInput = match syn::parse2(input) {
        Ok(i) => i,
        Err(e) => return e.into_compile_error(),
    };
    let mut errors = Errors::default();
    let container = ast::parse(&input, front, &mut errors);
    match (errors.finish(), container) {
        (Ok(()), Some(c)) => generate(&c),
        (result, _) => {
            let error = result.err().unwrap_or_else(|| {
                syn::Error::new(ast::span_of(&input), "this type cannot be read")
            });
            let error = error.into_compile_error();
            let fallback = (front == Front::Plugin && matches!(input.data, syn::Data::Struct(_)))
                .then(|| {
                    let krate = crate_path(&input, front);
                    plugin::fallback(&krate, &input.ident)
                });
            quote!(#error #fallback)
        }
    }
}

/// The runtime's path, as the container says (for the fallback, read leniently).
fn crate_path(input: &DeriveInput, front: Front) -> syn::Path {
    let mut krate = syn::parse_quote!(::agentspec_types);
    for attr in input
        .attrs
        .iter()
        .filter(|a| a.path().is_ident(front.attr()))
    {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                let lit: syn::LitStr = meta.value()?.parse()?;
                krate = lit.parse()?;
            } else if meta.input.peek(syn::Token![=]) {
                let _: syn::Expr = meta.value()?.parse()?;
            } else if meta.input.peek(syn::token::Paren) {
                let _: proc_macro2::Group = meta.input.parse()?;
            }
            Ok(())
        });
    }
    krate
}

fn generate(c: &ast::Container) -> TokenStream {
    let krate = &c.krate;
    let cx = fields::Cx {
        p: quote!(#krate::__private),
        set: &c.set,
    };
    match &c.kind {
        ast::Kind::Component(comp) => structs::component(c, comp, &cx),
        ast::Kind::Value(v) => structs::value(c, v, &cx),
        ast::Kind::StrEnum(variants) => enums::string_enum(c, variants, &cx),
        ast::Kind::Union(u) => enums::union(c, u, &cx),
        ast::Kind::Family(f) => enums::family(c, f, &cx),
    }
}
