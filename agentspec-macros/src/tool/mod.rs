//! `#[tool]`: parse the function and the attribute, check, then generate the tool type.

mod parse;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::{Ident, ItemFn, LitStr, Path};

use crate::docs::{self, Text};
pub(crate) use parse::Errors;
use parse::{Arg, Pass, Returns, ToolAttr};

/// The attribute's expansion: the function, unchanged but for our attributes and the
/// argument doc comments, and its tool type; or the errors beside the function, so that
/// one mistake does not turn every call of the function into another error.
pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut item: ItemFn = match syn::parse2(item.clone()) {
        Ok(item) => item,
        Err(_) => {
            let e = syn::Error::new(
                Span::call_site(),
                "`#[tool]` goes on a function (`fn` or `async fn`)",
            )
            .into_compile_error();
            return quote!(#e #item);
        }
    };
    let mut errors = Errors::default();
    let settings = parse::tool_attr(attr, &mut errors);
    parse::check_signature(&item, &mut errors);
    let fn_docs = {
        let mut attrs = item.attrs.clone();
        docs::take(&mut attrs)
    };
    let args = parse::args(&mut item, &fn_docs, &mut errors);
    let returns = parse::returns(&item.sig.output, &mut errors);
    if let Some(title) = &settings.output_title {
        parse::check_title(title, &mut errors);
    }
    if let (Returns::Nothing, Some(span)) = (&returns, settings.fields.or(settings.output_span)) {
        errors.at(
            span,
            "this function returns nothing, so the tool has no outputs to set",
        );
    }
    match errors.finish() {
        Ok(()) => {
            let tool = generate(&item, &settings, &fn_docs, &args, &returns);
            quote!(#item #tool)
        }
        Err(e) => {
            let e = e.into_compile_error();
            quote!(#e #item)
        }
    }
}

fn pascal(name: &str) -> String {
    name.split('_')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut c = p.chars();
            c.next().map_or_else(String::new, |f| {
                f.to_uppercase().chain(c).collect::<String>()
            })
        })
        .collect()
}

fn generate(
    item: &ItemFn,
    settings: &ToolAttr,
    fn_docs: &docs::Docs,
    args: &[Arg],
    returns: &Returns,
) -> TokenStream {
    let krate: Path = settings
        .krate
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(::agentspec_types));
    let fn_ident = &item.sig.ident;
    let fn_name = fn_ident.to_string();
    let fn_name = fn_name.strip_prefix("r#").unwrap_or(&fn_name).to_owned();
    let name = settings
        .name
        .as_ref()
        .map_or_else(|| fn_name.clone(), LitStr::value);
    let ty = format_ident!("{}Tool", pascal(&fn_name), span = fn_ident.span());
    let vis = &item.vis;
    let tool = quote!(#krate::tool);
    let private = quote!(#krate::tool::__private);
    let description = match (&settings.description, &fn_docs.summary) {
        (Some(lit), _) => quote!(::core::option::Option::Some(#lit)),
        (None, Some(text)) => {
            let t = text.tokens();
            quote!(::core::option::Option::Some(#t))
        }
        (None, None) => quote!(::core::option::Option::None),
    };
    let kind = if settings.client {
        quote!(#tool::ToolKind::Client)
    } else {
        quote!(#tool::ToolKind::Server)
    };
    let confirm = settings.requires_confirmation;
    let defaults: Vec<TokenStream> = args.iter().filter_map(default_fn).collect();
    let inputs = args.iter().filter(|a| !a.state).map(|a| input(a, &ty));
    let outputs = outputs(settings, fn_docs, returns);
    let call = call(item, args, returns, &private, &ty);
    let doc = format!(
        " The Agent Spec tool `{name}`, from [`{fn_name}`]: its description and a call from JSON \
         arguments (`RustTool`)."
    );
    let declaration = match args.iter().find(|a| a.state) {
        None => quote! {
            #[doc = #doc]
            #[derive(::core::clone::Clone, ::core::marker::Copy, ::core::fmt::Debug, ::core::default::Default)]
            #vis struct #ty;
        },
        Some(state) => {
            let state_ty = &state.owned;
            let debug = ty.to_string();
            quote! {
                #[doc = #doc]
                #[derive(::core::clone::Clone)]
                #vis struct #ty {
                    state: ::std::sync::Arc<#state_ty>,
                }

                impl #ty {
                    /// The tool, holding the state its function borrows on every call (a value,
                    /// or an `Arc` shared with other tools).
                    #vis fn new(state: impl ::core::convert::Into<::std::sync::Arc<#state_ty>>) -> Self {
                        #ty { state: state.into() }
                    }
                }

                impl ::core::fmt::Debug for #ty {
                    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                        f.debug_struct(#debug).finish_non_exhaustive()
                    }
                }
            }
        }
    };
    quote! {
        #declaration

        impl #ty {
            /// The tool's name.
            #vis const NAME: &'static str = #name;
            #(#defaults)*

            #[doc(hidden)]
            fn __spec() -> ::core::result::Result<&'static #tool::ToolSpec, &'static #tool::SpecError> {
                static SPEC: ::std::sync::OnceLock<::core::result::Result<#tool::ToolSpec, #tool::SpecError>> =
                    ::std::sync::OnceLock::new();
                SPEC.get_or_init(|| {
                    #tool::SpecBuilder::new(#ty::NAME, #kind)
                        .description(#description)
                        .requires_confirmation(#confirm)
                        #(#inputs)*
                        #outputs
                        .build()
                })
                .as_ref()
            }
        }

        #[automatically_derived]
        impl #tool::RustTool for #ty {
            fn spec(&self) -> ::core::result::Result<&'static #tool::ToolSpec, &'static #tool::SpecError> {
                #ty::__spec()
            }

            fn call(
                &self,
                args: #private::serde_json::Value,
            ) -> impl ::core::future::Future<Output = #tool::ToolResult> + ::core::marker::Send {
                #call
            }
        }
    }
}

fn default_name(arg: &Arg) -> Ident {
    format_ident!("__default_{}", arg.ident)
}

/// `fn __default_<arg>() -> T { <expr> }`: one place the default is type-checked, used by
/// the schema and by the call.
fn default_fn(arg: &Arg) -> Option<TokenStream> {
    let expr = arg.default.as_ref()?;
    let name = default_name(arg);
    let owned = &arg.owned;
    let body = if arg.str_default {
        quote_spanned!(syn::spanned::Spanned::span(expr)=> <str as ::std::borrow::ToOwned>::to_owned(#expr))
    } else {
        quote!(#expr)
    };
    Some(quote! {
        #[doc(hidden)]
        #[allow(non_snake_case, reason = "named after the argument, which may use capitals")]
        fn #name() -> #owned {
            #body
        }
    })
}

fn text_tokens(text: Option<&Text>) -> TokenStream {
    match text {
        Some(t) => {
            let t = t.tokens();
            quote!(::core::option::Option::Some(#t))
        }
        None => quote!(::core::option::Option::None),
    }
}

fn input(arg: &Arg, ty: &Ident) -> TokenStream {
    let title = &arg.title;
    let owned = &arg.owned;
    let description = text_tokens(arg.description.as_ref());
    if arg.default.is_some() {
        let d = default_name(arg);
        quote!(.input_default::<#owned>(#title, #description, &#ty::#d()))
    } else if arg.optional {
        quote!(.input_optional::<#owned>(#title, #description))
    } else {
        quote!(.input::<#owned>(#title, #description))
    }
}

fn outputs(settings: &ToolAttr, fn_docs: &docs::Docs, returns: &Returns) -> TokenStream {
    let ty = match returns {
        Returns::Nothing => return TokenStream::new(),
        Returns::Plain(t) | Returns::Result(t) => t,
    };
    if matches!(ty, syn::Type::Tuple(t) if t.elems.is_empty()) {
        return TokenStream::new();
    }
    if settings.fields.is_some() {
        return quote!(.output_fields::<#ty>());
    }
    let title = settings
        .output_title
        .as_ref()
        .map_or_else(|| "tool_output".to_owned(), LitStr::value);
    let description = match (&settings.output_description, &fn_docs.returns) {
        (Some(lit), _) => quote!(::core::option::Option::Some(#lit)),
        (None, Some(text)) => quote!(::core::option::Option::Some(#text)),
        (None, None) => quote!(::core::option::Option::None),
    };
    quote!(.output::<#ty>(#title, #description))
}

/// The body of `call`: read every argument (all problems reported together), call the
/// function, turn its result into JSON.
fn call(
    item: &ItemFn,
    args: &[Arg],
    returns: &Returns,
    private: &TokenStream,
    ty: &Ident,
) -> TokenStream {
    let inputs: Vec<&Arg> = args.iter().filter(|a| !a.state).collect();
    let vars: Vec<Ident> = (0..inputs.len())
        .map(|i| format_ident!("__arg{}", i))
        .collect();
    let reads = inputs.iter().zip(&vars).map(|(a, v)| {
        let (title, owned) = (&a.title, &a.owned);
        if a.default.is_some() {
            let d = default_name(a);
            quote!(let #v = __args.or_else::<#owned>(#title, #ty::#d);)
        } else if a.optional {
            quote!(let #v = __args.optional::<#owned>(#title);)
        } else {
            quote!(let #v = __args.required::<#owned>(#title);)
        }
    });
    let titles = inputs.iter().map(|a| &a.title);
    let mut input_vars = vars.iter();
    let passed = args.iter().map(|a| {
        if a.state {
            return quote!(&*__state);
        }
        let v = input_vars.next().expect("one variable per input");
        match a.pass {
            Pass::Value => quote!(#v),
            Pass::Ref => quote!(&#v),
            Pass::RefMut => quote!(&mut #v),
            Pass::OptionDeref => quote!(#v.as_deref()),
            Pass::OptionRef => quote!(#v.as_ref()),
        }
    });
    let muts = inputs.iter().map(|a| {
        if a.pass == Pass::RefMut {
            quote!(mut)
        } else {
            quote!()
        }
    });
    let fn_ident = &item.sig.ident;
    let await_ = item.sig.asyncness.map(|_| quote!(.await));
    let invoke = quote_spanned!(fn_ident.span()=> #fn_ident(#(#passed),*) #await_);
    let finish = match returns {
        Returns::Nothing => quote!({
            let () = #invoke;
            ::core::result::Result::Ok(#private::serde_json::Value::Null)
        }),
        Returns::Plain(_) => quote!(#private::output(#ty::NAME, &#invoke)),
        Returns::Result(_) => quote!(match #invoke {
            ::core::result::Result::Ok(value) => #private::output(#ty::NAME, &value),
            ::core::result::Result::Err(error) => ::core::result::Result::Err(#private::execution(#ty::NAME, error)),
        }),
    };
    let oks = vars.iter().map(|v| quote!(::core::result::Result::Ok(#v)));
    let vars2 = vars.iter();
    let vars3 = vars.iter();
    let errs = vars.iter().map(|v| quote!(#v.err()));
    // The state is shared: the future holds its own `Arc`, not a borrow of the tool.
    let state = args
        .iter()
        .any(|a| a.state)
        .then(|| quote!(let __state = ::std::sync::Arc::clone(&self.state);));
    quote! {
        #state
        async move {
            let mut __args = match #private::Arguments::new(#ty::NAME, args) {
                ::core::result::Result::Ok(a) => a,
                ::core::result::Result::Err(e) => return ::core::result::Result::Err(e),
            };
            #(#reads)*
            let __rest = __args.finish(&[#(#titles),*]);
            #[allow(unused_parens, reason = "one input makes a parenthesized pattern")]
            let (#(#muts #vars2),*) = match (#(#vars3,)* __rest) {
                (#(#oks,)* ::core::result::Result::Ok(())) => (#(#vars),*),
                (#(#vars,)* __rest) => {
                    return ::core::result::Result::Err(#private::fail(#ty::NAME, [#(#errs),*], __rest));
                }
            };
            #finish
        }
    }
}
