//! The code of a list of fields, by where it goes: decoding (slots, match arms with their
//! version checks, construction, legacy upgrades), encoding (with version gates), walks and
//! JSON Schema. Built-in components, value structs and plugins all use it: the wire format
//! of a field has this one implementation.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::ast::{Constant, Default, FieldAst, GateCheck, NEVER, Ver};

/// Where the code goes: the runtime's hidden module and the component set of walks.
pub struct Cx<'a> {
    /// `::agentspec_types::__private`.
    pub p: TokenStream,
    pub set: &'a syn::Path,
}

impl Cx<'_> {
    pub fn version(&self, v: Ver) -> TokenStream {
        let p = &self.p;
        if v == NEVER {
            return quote!(#p::Version::NEVER);
        }
        let (a, b, c) = v;
        quote!(#p::Version::new(#a, #b, #c))
    }

    /// `<T as FieldType<Set>>`, spanned at the field's type: a type that cannot be a field
    /// is one error there, however many times the field is used.
    pub fn field_type(&self, ty: &syn::Type) -> TokenStream {
        let (p, set) = (&self.p, self.set);
        quote_spanned!(ty.span()=> <#ty as #p::FieldType<#set>>)
    }
}

#[derive(Default)]
pub struct FieldCode {
    pub slots: Vec<TokenStream>,
    pub arms: Vec<TokenStream>,
    pub finish: Vec<TokenStream>,
    pub upgrades: Vec<TokenStream>,
    pub names: Vec<Ident>,
    /// The local holding each field's value once read (`field_<name>`: the caller's field
    /// names cannot shadow the decoder's `cx`, `path` or `offset`).
    pub locals: Vec<Ident>,
    /// Encoding, without `$referenced_components`.
    pub encode: Vec<TokenStream>,
    /// Encoding of `$referenced_components` (written last).
    pub encode_referenced: Vec<TokenStream>,
    pub known: Vec<String>,
    pub walk: Vec<TokenStream>,
    /// Walking with pointers (`at`: the object's pointer).
    pub walk_at: Vec<TokenStream>,
    pub gates: Vec<TokenStream>,
    /// `properties.insert(key, schema)` per field.
    pub schema: Vec<TokenStream>,
    pub required: Vec<String>,
    /// The associated functions of `default = expr` fields (for an inherent impl).
    pub defaults: Vec<TokenStream>,
}

/// The value a field holds when its key is absent, or `None` when it is required.
fn default_expr(cx: &Cx<'_>, f: &FieldAst) -> Option<TokenStream> {
    let p = &cx.p;
    match &f.default {
        Default::Required => None,
        Default::Empty => Some(quote!(::core::default::Default::default())),
        Default::FreshId => Some(quote!(#p::fresh_id())),
        Default::Expr(_) => {
            let function = default_fn(f);
            Some(quote!(Self::#function()))
        }
    }
}

/// The associated function that gives a field's `default = expr`: the expression is checked
/// against the field's type, and sees none of the derive's locals.
pub fn default_fn(f: &FieldAst) -> Ident {
    format_ident!(
        "__agentspec_default_{}",
        f.ident.to_string().trim_start_matches("r#")
    )
}

/// The code of `fields` (and `constants`) of `owner`, whose own version is `owner_since`
/// (`None`: the oldest). `owner_id` is the expression of the owner's id, for the
/// placeholders of secrets; `docs` puts doc comments in the schemas.
pub fn fields(
    cx: &Cx<'_>,
    owner: &str,
    owner_since: Option<Ver>,
    fields: &[FieldAst],
    constants: &[Constant],
    owner_id: &TokenStream,
    docs: bool,
) -> FieldCode {
    let p = &cx.p;
    let mut code = FieldCode::default();
    for c in constants.iter().filter(|c| c.after.is_none()) {
        constant(cx, c, &mut code);
    }
    for f in fields {
        let (ident, ty, key) = (&f.ident, &f.ty, f.key.as_str());
        let slot = format_ident!("slot_{}", ident.to_string().trim_start_matches("r#"));
        let local = format_ident!("field_{}", ident.to_string().trim_start_matches("r#"));
        let field = cx.field_type(ty);
        code.slots
            .push(quote! { let mut #slot: #p::Slot<#ty> = #p::Slot::Absent; });
        let decode = if f.referenced {
            quote! { cx.referenced(&mut #slot, entry.value, &path.key(#key)) }
        } else if let Some((min, inclusive)) = &f.minimum {
            quote! {{
                let at = entry.value.offset;
                #slot = #field::read(entry.value, cx, &path.key(#key));
                cx.minimum(&mut #slot, at, &path.key(#key), #min as f64, #inclusive)
            }}
        } else {
            quote! { #slot = #field::read(entry.value, cx, &path.key(#key)) }
        };
        let default = default_expr(cx, f);
        if let Default::Expr(e) = &f.default {
            let function = default_fn(f);
            code.defaults.push(quote_spanned! {e.span()=>
                #[doc(hidden)]
                #[allow(non_snake_case, clippy::all)]
                fn #function() -> #ty { #e }
            });
        }
        let mut checks = TokenStream::new();
        if let Some(since) = f.since
            && since != NEVER
            && Some(since) > owner_since
        {
            let since_tokens = cx.version(since);
            let what = format!("{owner}.{key}");
            let changed = match &default {
                Some(default) => quote! {
                    || matches!(&#slot, #p::Slot::Present(value) if { let default: #ty = #default; *value != default })
                },
                None => quote! { || matches!(&#slot, #p::Slot::Present(_)) },
            };
            let informational = f.informational;
            checks.extend(quote! {
                cx.newer_field(&#p::NewerField { since: #since_tokens, what: #what, informational: #informational }, entry.key_offset, &path.key(#key), #changed);
            });
        }
        if let Some(gate) = &f.gate {
            let holds = gate_check(p, &gate.check, &quote!(value));
            let since = cx.version(gate.since);
            let what = format!("`{owner}.{key}` {}", gate.what);
            checks.extend(quote! {
                cx.gated_value(#since, #what, entry.key_offset, path, #key, || matches!(&#slot, #p::Slot::Present(value) if #holds));
            });
            let check = gate_check(p, &gate.check, &quote!(&self.#ident));
            let what = format!("{owner}.{key}");
            code.gates
                .push(quote! { cx.value_gate(#since, #what, sink, #key, #check); });
        }
        code.arms.push(if checks.is_empty() {
            quote! { #key => #decode, }
        } else {
            quote! { #key => { #decode; #checks } }
        });
        code.known.push(key.to_owned());
        code.finish.push(match &default {
            None => quote! { let #local = cx.required(#slot, #key, #owner, offset, path); },
            Some(expr) => quote! { let #local = #slot.or_else(|| #expr); },
        });
        for u in &f.upgrades {
            let (from, to, message) = (&u.from, &u.to, &u.message);
            code.upgrades.push(quote! {
                let #local = match #local {
                    ::core::option::Option::Some(#from) => {
                        cx.warning("legacy-value", #message, &path.key(#key), offset);
                        ::core::option::Option::Some(#to)
                    }
                    other => other,
                };
            });
        }
        code.names.push(ident.clone());
        code.locals.push(local);
        if f.referenced {
            code.walk.push(quote! {
                if !self.#ident.is_empty() { f(#p::Visit::Referenced(&self.#ident)); }
            });
        }
        code.walk
            .push(quote! { #field::walk_field(&self.#ident, f); });
        let referenced_at = f.referenced.then(|| {
            quote! {
                if !self.#ident.is_empty() {
                    let len = at.len();
                    #p::push_pointer_token(at, #key);
                    f(at, #p::Visit::Referenced(&self.#ident));
                    at.truncate(len);
                }
            }
        });
        code.walk_at.push(quote! {
            #referenced_at
            #field::walk_field_at(&self.#ident, #key, at, f);
        });
        let write = if f.sensitive && !f.clear {
            quote! { sink.key(#key); #p::SecretField::encode_secret(&self.#ident, #owner_id, #key, sink, cx); }
        } else {
            quote! { sink.key(#key); #field::write(&self.#ident, sink, cx); }
        };
        let encode = if f.skip_null {
            quote! { if let ::core::option::Option::Some(value) = &self.#ident { sink.key(#key); #p::Encode::encode(value, sink, cx); } }
        } else if f.referenced {
            quote! { if !self.#ident.is_empty() { #write } }
        } else {
            match (f.since, &default, &f.default) {
                (Some(since), Some(default), d) if !matches!(d, Default::FreshId) => {
                    let since = cx.version(since);
                    let what = format!("{owner}.{key}");
                    quote! { if cx.writes(#since) || cx.forced(#since, #what, sink, #key, { let default: #ty = #default; self.#ident != default }) { #write } }
                }
                _ => write,
            }
        };
        if f.referenced {
            code.encode_referenced.push(encode);
        } else {
            code.encode.push(encode);
        }
        let doc = f.doc.as_ref().filter(|_| docs).map(|d| {
            quote!(if let #p::serde_json::Value::Object(m) = &mut schema { m.insert("description".into(), #d.into()); })
        });
        code.schema.push(quote! {
            properties.insert(#key.into(), {
                #[allow(unused_mut)]
                let mut schema = #field::schema();
                #doc
                schema
            });
        });
        if matches!(f.default, Default::Required) {
            code.required.push(key.to_owned());
        }
        for c in constants.iter().filter(|c| c.after.as_deref() == Some(key)) {
            constant(cx, c, &mut code);
        }
    }
    code
}

fn constant(cx: &Cx<'_>, c: &Constant, code: &mut FieldCode) {
    let (key, value) = (c.key.as_str(), c.value.as_str());
    code.arms
        .push(quote! { #key => cx.constant(entry.value, #value, &path.key(#key)), });
    let write = quote! { sink.key(#key); sink.str(#value); };
    code.encode.push(match c.since {
        Some(since) => {
            let since = cx.version(since);
            quote! { if cx.writes(#since) { #write } }
        }
        None => write,
    });
    code.known.push(key.to_owned());
}

/// The check of a value gate over `value` (a reference to the field's value).
fn gate_check(p: &TokenStream, check: &GateCheck, value: &TokenStream) -> TokenStream {
    match check {
        GateCheck::Equals(expected) => quote! { #p::gates::holds(#value, #expected) },
        GateCheck::Function(function) => quote! { #p::gates::#function(#value) },
    }
}

/// The inherent impl holding the `default = expr` functions of a type (none without them).
pub fn defaults_impl(name: &Ident, defaults: &[TokenStream]) -> Option<TokenStream> {
    (!defaults.is_empty()).then(|| {
        quote! {
            #[automatically_derived]
            impl #name { #( #defaults )* }
        }
    })
}
