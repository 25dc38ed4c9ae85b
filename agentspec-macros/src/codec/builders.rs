//! Building a component or value struct in code: `new` takes the required fields (an `id`
//! is generated), every other field starts at its default, and a `with_<field>` method per
//! field sets it. The types are `#[non_exhaustive]`, so a schema release that adds an optional
//! field adds a method and breaks no caller.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{GenericArgument, Ident, PathArguments, Type};

use super::ast::{Default, FieldAst};

/// `new` and the `with_` methods of a struct with `fields` (and an open map of extra keys,
/// `extra`, which starts empty).
pub fn builders(
    p: &TokenStream,
    name: &Ident,
    fields: &[FieldAst],
    extra: Option<&Ident>,
) -> TokenStream {
    let name_str = name.to_string();
    let article = if name_str.starts_with(['A', 'E', 'I', 'O', 'U']) {
        "An"
    } else {
        "A"
    };
    let what = format!("{article} `{name_str}`");
    let mut params = Vec::new();
    let mut inits = Vec::new();
    let mut setters = Vec::new();
    let mut required_keys = Vec::new();
    for f in fields.iter().filter(|f| !f.referenced) {
        let ident = &f.ident;
        let arg = shape(&f.ty, p);
        match &f.default {
            Default::Required => {
                let (ty, value) = (&arg.param, &arg.wrap);
                params.push(quote!(#ident: #ty));
                inits.push(quote!(#ident: { let value = #ident; #value }));
                required_keys.push(format!("`{}`", f.key));
            }
            Default::Empty => inits.push(quote!(#ident: ::core::default::Default::default())),
            Default::FreshId => inits.push(quote!(#ident: #p::fresh_id())),
            Default::Expr(_) => {
                let function = super::fields::default_fn(f);
                inits.push(quote!(#ident: Self::#function()));
            }
        }
        let setter = format_ident!("with_{}", ident.to_string().trim_start_matches("r#"));
        let (ty, value) = (&arg.param, &arg.set);
        let doc = format!(
            "Sets `{}`{}",
            f.key,
            f.doc
                .as_deref()
                .and_then(|d| d.lines().next())
                .filter(|d| !d.trim().is_empty())
                .map(|d| format!(": {}", d.trim()))
                .unwrap_or_else(|| ".".to_owned())
        );
        setters.push(quote! {
            #[doc = #doc]
            #[must_use]
            pub fn #setter(mut self, value: #ty) -> Self {
                self.#ident = #value;
                self
            }
        });
    }
    for f in fields.iter().filter(|f| f.referenced) {
        let ident = &f.ident;
        inits.push(quote!(#ident: ::core::default::Default::default()));
    }
    if let Some(extra) = extra {
        inits.push(quote!(#extra: ::core::default::Default::default()));
    }
    let id_note = if fields.iter().any(|f| matches!(f.default, Default::FreshId)) {
        " The `id` is a fresh UUID (set another with `with_id`)."
    } else {
        ""
    };
    let new_doc = if required_keys.is_empty() {
        format!("{what} with every field at its default.{id_note}")
    } else {
        format!(
            "{what} with its required fields ({}); every other field at its default.{id_note}",
            required_keys.join(", ")
        )
    };
    quote! {
        impl #name {
            #[doc = #new_doc]
            #[allow(clippy::new_without_default, reason = "a component's `new` generates an id")]
            pub fn new( #( #params ),* ) -> Self {
                #name { #( #inits, )* }
            }
            #( #setters )*
        }
    }
}

/// How a field of type `ty` is given: the parameter type, and the expressions (over `value`)
/// that turn it into the field for `new` and for a setter.
struct Arg {
    param: TokenStream,
    wrap: TokenStream,
    set: TokenStream,
}

fn shape(ty: &Type, p: &TokenStream) -> Arg {
    if let Some(inner) = argument(ty, "Option") {
        // an optional field is set to a value
        let inner = shape(inner, p);
        let (param, wrap) = (inner.param, inner.wrap);
        let set = quote!(::core::option::Option::Some(#wrap));
        return Arg {
            param,
            wrap: set.clone(),
            set,
        };
    }
    if let Some(item) = argument(ty, "Vec") {
        let wrap = quote!(value.into_iter().map(::core::convert::Into::into).collect());
        return Arg {
            param: quote!(impl ::core::iter::IntoIterator<Item = impl ::core::convert::Into<#item>>),
            wrap: wrap.clone(),
            set: wrap,
        };
    }
    if let Some(inner) = argument(ty, "Sensitive") {
        // a secret is given as its value
        let wrap = quote!(#p::Sensitive::Value(::core::convert::Into::into(value)));
        return Arg {
            param: quote!(impl ::core::convert::Into<#inner>),
            wrap: wrap.clone(),
            set: wrap,
        };
    }
    let wrap = quote!(::core::convert::Into::into(value));
    Arg {
        param: quote!(impl ::core::convert::Into<#ty>),
        wrap: wrap.clone(),
        set: wrap,
    }
}

/// The type argument of `ty` when it is `<wrapper><T>`.
fn argument<'a>(ty: &'a Type, wrapper: &str) -> Option<&'a Type> {
    let Type::Path(path) = ty else { return None };
    let segment = path.path.segments.last()?;
    if segment.ident != wrapper {
        return None;
    }
    match &segment.arguments {
        PathArguments::AngleBracketed(args) => match args.args.first() {
            Some(GenericArgument::Type(inner)) if args.args.len() == 1 => Some(inner),
            _ => None,
        },
        _ => None,
    }
}
