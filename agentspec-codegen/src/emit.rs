//! Emits Rust tokens for the [`Model`].
//!
//! Every type gets plain `#[derive(Debug, Clone, PartialEq)]` data and its own `Decode`
//! and `Encode` impls against the runtime's `codec` module (no serde derives: documents
//! keep pyagentspec's key order, version-dependent fields and located errors).

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};
use serde_json::Value;

use crate::error::Error;
use crate::model::{Component, Family, Field, Missing, Model, StrEnum, Struct, Ty, Union, Version};

mod fields;
mod plugins;

use fields::FieldCode;

pub(crate) struct Emitter<'a> {
    pub model: &'a Model,
    /// Path of the runtime crate (`::agentspec_types`, or `crate` inside it).
    pub rt: TokenStream,
}

fn ident(name: &str) -> Ident {
    if syn::parse_str::<Ident>(name).is_ok() {
        Ident::new(name, Span::call_site())
    } else {
        Ident::new_raw(name, Span::call_site())
    }
}

/// Whether values of `ty` may hold components (and so are walked).
fn may_hold_components(model: &Model, ty: &Ty) -> bool {
    match ty {
        Ty::Component(_) | Ty::Family(_) | Ty::ReferencedComponents => true,
        Ty::Option(t) | Ty::Vec(t) | Ty::Map(t) | Ty::Sensitive(t) => may_hold_components(model, t),
        Ty::Pair(a, b) => may_hold_components(model, a) || may_hold_components(model, b),
        Ty::Union(name) => model.unions[name]
            .variants
            .iter()
            .any(|(_, t)| may_hold_components(model, t)),
        Ty::Struct(name) => model.structs[name]
            .fields
            .iter()
            .any(|f| may_hold_components(model, &f.ty)),
        _ => false,
    }
}

/// Whether a field holds a secret (`Sensitive<T>` or `Option<Sensitive<T>>`).
fn is_sensitive(ty: &Ty) -> bool {
    match ty {
        Ty::Sensitive(_) => true,
        Ty::Option(inner) => is_sensitive(inner),
        _ => false,
    }
}

/// Unions that stand inside a secret: they need to say whether they are empty.
fn sensitive_unions(model: &Model) -> std::collections::BTreeSet<String> {
    fn visit(ty: &Ty, inside: bool, out: &mut std::collections::BTreeSet<String>) {
        match ty {
            Ty::Sensitive(inner) => visit(inner, true, out),
            Ty::Option(inner) | Ty::Vec(inner) | Ty::Map(inner) => visit(inner, inside, out),
            Ty::Union(name) if inside => {
                out.insert(name.clone());
            }
            _ => {}
        }
    }
    let mut out = std::collections::BTreeSet::new();
    for f in model
        .components
        .values()
        .flat_map(|c| &c.fields)
        .chain(model.structs.values().flat_map(|s| &s.fields))
    {
        visit(&f.ty, false, &mut out);
    }
    out
}

/// Doc comment lines, made safe for rustdoc: Python docstrings use indentation and `>>>`
/// examples that rustdoc would read as Rust doctests, and brackets it would read as links.
fn doc(text: Option<&str>) -> TokenStream {
    let Some(text) = text else {
        return TokenStream::new();
    };
    let mut in_fence = false;
    let lines = text.trim().lines().map(|line| {
        let line = line.trim();
        if line.starts_with("```") {
            in_fence = !in_fence;
            return if in_fence {
                " ```text".to_owned()
            } else {
                " ```".to_owned()
            };
        }
        if in_fence {
            return format!(" {line}");
        }
        let mut out = String::from(" ");
        for c in line.chars() {
            match c {
                '[' | ']' | '<' | '>' | '*' | '_' | '#' => {
                    out.push('\\');
                    out.push(c);
                }
                c => out.push(c),
            }
        }
        if out.contains("http://") || out.contains("https://") {
            out = out
                .replace("https://", "https\\://")
                .replace("http://", "http\\://");
        }
        out
    });
    let lines: Vec<String> = lines.collect();
    quote! { #( #[doc = #lines] )* }
}

fn version_tokens(rt: &TokenStream, v: Version) -> TokenStream {
    if v == crate::declared::NEVER {
        return quote! { #rt::Version::NEVER };
    }
    let (a, b, c) = (v.0, v.1, v.2);
    quote! { #rt::Version::new(#a, #b, #c) }
}

impl Emitter<'_> {
    pub(crate) fn emit(&self) -> Result<TokenStream, Error> {
        let mut out = TokenStream::new();
        for e in self.model.enums.values() {
            out.extend(self.string_enum(e));
        }
        for s in self.model.structs.values() {
            out.extend(self.value_struct(s)?);
        }
        for u in self.model.unions.values() {
            out.extend(self.union(u));
        }
        for c in self.model.components.values() {
            out.extend(self.component(c)?);
        }
        for f in self.model.families.values() {
            out.extend(self.family(f));
            out.extend(self.family_fields(&f.name, &f.members)?);
        }
        out.extend(self.component_set());
        let all: Vec<String> = self.model.components.keys().cloned().collect();
        out.extend(self.family_fields("Component", &all)?);
        out.extend(self.field_schemas());
        Ok(out)
    }

    /// The declared legacy upgrades of `c`'s fields, applied after decoding (each with a
    /// `legacy-value` warning).
    fn upgrades(&self, c: &Component) -> Result<Vec<TokenStream>, Error> {
        let mut out = Vec::new();
        for u in crate::declared::legacy_upgrades(&c.name) {
            if !c.fields.iter().any(|f| f.rust_name == u.field) {
                continue;
            }
            let parse_error = |what: &str| {
                Error::Format(format!(
                    "the declared upgrade of {}.{} has a bad {what}",
                    c.name, u.field
                ))
            };
            let from: syn::Pat = syn::parse::Parser::parse_str(syn::Pat::parse_single, u.from)
                .map_err(|_| parse_error("pattern"))?;
            let to: syn::Expr = syn::parse_str(u.to).map_err(|_| parse_error("expression"))?;
            let (field, key, message) = (ident(u.field), u.field, u.message);
            out.push(quote! {
                let #field = match #field {
                    ::std::option::Option::Some(#from) => {
                        cx.warning("legacy-value", #message, &path.key(#key), offset);
                        ::std::option::Option::Some(#to)
                    }
                    other => other,
                };
            });
        }
        Ok(out)
    }

    fn ty(&self, ty: &Ty) -> TokenStream {
        let rt = &self.rt;
        match ty {
            Ty::String => quote!(::std::string::String),
            Ty::Bool => quote!(bool),
            Ty::Int => quote!(i64),
            Ty::Float => quote!(f64),
            Ty::Json => quote!(#rt::serde_json::Value),
            Ty::JsonObject | Ty::Property => quote!(#rt::JsonObject),
            Ty::Option(inner) => {
                let inner = self.ty(inner);
                quote!(::std::option::Option<#inner>)
            }
            Ty::Vec(inner) => {
                let inner = self.ty(inner);
                quote!(::std::vec::Vec<#inner>)
            }
            Ty::Map(inner) => {
                let inner = self.ty(inner);
                quote!(#rt::IndexMap<::std::string::String, #inner>)
            }
            Ty::Pair(a, b) => {
                let (a, b) = (self.ty(a), self.ty(b));
                quote!((#a, #b))
            }
            Ty::Component(name) | Ty::Family(name) => {
                let name = ident(name);
                quote!(#rt::RefOr<#name>)
            }
            Ty::Struct(name) | Ty::Enum(name) | Ty::Union(name) => {
                let name = ident(name);
                quote!(#name)
            }
            Ty::Sensitive(inner) => {
                let inner = self.ty(inner);
                quote!(#rt::Sensitive<#inner>)
            }
            Ty::ReferencedComponents => quote!(#rt::IndexMap<::std::string::String, Component>),
        }
    }

    /// A Rust expression for a JSON default value of type `ty`.
    fn default_expr(&self, ty: &Ty, value: &Value, owner: &str) -> Result<TokenStream, Error> {
        let bad = || Error::Unsupported {
            file: "(model)".into(),
            pointer: format!("/$defs/{owner}"),
            message: format!("no rule for the default value {value} of a field of type {ty:?}"),
        };
        Ok(match (ty, value) {
            (Ty::Option(_), Value::Null) => quote!(::std::option::Option::None),
            (Ty::Option(inner), v) => {
                let inner = self.default_expr(inner, v, owner)?;
                quote!(::std::option::Option::Some(#inner))
            }
            (Ty::Sensitive(inner), v) => {
                let rt = &self.rt;
                let inner = self.default_expr(inner, v, owner)?;
                quote!(#rt::Sensitive::Value(#inner))
            }
            (Ty::String, Value::String(s)) => quote!(::std::string::String::from(#s)),
            (Ty::Bool, Value::Bool(b)) => quote!(#b),
            (Ty::Int, Value::Number(n)) if n.is_i64() => {
                let n = Literal::i64_suffixed(n.as_i64().ok_or_else(bad)?);
                quote!(#n)
            }
            (Ty::Float, Value::Number(n)) => {
                let n = Literal::f64_suffixed(n.as_f64().ok_or_else(bad)?);
                quote!(#n)
            }
            (Ty::Enum(name), Value::String(s)) => {
                let e = &self.model.enums[name];
                let (_, variant) = e.variants.iter().find(|(v, _)| v == s).ok_or_else(bad)?;
                let (name, variant) = (ident(name), ident(variant));
                quote!(#name::#variant)
            }
            (Ty::Union(name), v) => {
                let u = &self.model.unions[name];
                let json = match v {
                    Value::String(_) => "string",
                    Value::Bool(_) => "boolean",
                    Value::Array(_) => "array",
                    Value::Object(_) => "object",
                    _ => return Err(bad()),
                };
                let (variant, vty) = u
                    .variants
                    .iter()
                    .find(|(_, t)| crate::read::json_type(t) == json)
                    .ok_or_else(bad)?;
                let inner = self.default_expr(vty, v, owner)?;
                let (name, variant) = (ident(name), ident(variant));
                quote!(#name::#variant(#inner))
            }
            (Ty::Struct(name), Value::Object(map)) => {
                let s = &self.model.structs[name];
                let mut inits = Vec::new();
                for f in &s.fields {
                    let fname = ident(&f.rust_name);
                    let expr = match map.get(&f.json_name) {
                        Some(v) => self.default_expr(&f.ty, v, name)?,
                        None => self.missing_expr(f, name)?.ok_or_else(bad)?,
                    };
                    inits.push(quote!(#fname: #expr));
                }
                let extra = s
                    .open
                    .then(|| quote!(extra: ::core::default::Default::default(),));
                let name = ident(name);
                quote!(#name { #(#inits,)* #extra })
            }
            (Ty::Vec(_) | Ty::Map(_) | Ty::JsonObject | Ty::ReferencedComponents, v)
                if v.as_array().is_some_and(Vec::is_empty)
                    || v.as_object().is_some_and(|m| m.is_empty()) =>
            {
                quote!(::core::default::Default::default())
            }
            (Ty::Json, Value::Null) => {
                let rt = &self.rt;
                quote!(#rt::serde_json::Value::Null)
            }
            (Ty::Json, Value::Object(map)) if map.is_empty() => {
                let rt = &self.rt;
                quote!(#rt::serde_json::Value::Object(::core::default::Default::default()))
            }
            _ => return Err(bad()),
        })
    }

    /// The value of a missing field, or `None` when it is required.
    fn missing_expr(&self, f: &Field, owner: &str) -> Result<Option<TokenStream>, Error> {
        Ok(match &f.missing {
            Missing::Required => None,
            Missing::Default(v) => Some(self.default_expr(&f.ty, v, owner)?),
            Missing::Empty => Some(quote!(::core::default::Default::default())),
            Missing::FreshId => {
                let rt = &self.rt;
                Some(quote!(#rt::codec::fresh_id()))
            }
        })
    }

    fn string_enum(&self, e: &StrEnum) -> TokenStream {
        let rt = &self.rt;
        let name = ident(&e.name);
        let docs = doc(e.doc.as_deref());
        let variants: Vec<Ident> = e.variants.iter().map(|(_, v)| ident(v)).collect();
        let values: Vec<&str> = e.variants.iter().map(|(s, _)| s.as_str()).collect();
        let variant_docs = values.iter().map(|v| format!(" `{v}`"));
        let name_str = &e.name;
        let ord = e.is_version.then(|| quote!(PartialOrd, Ord,));
        quote! {
            #docs
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, #ord)]
            pub enum #name { #( #[doc = #variant_docs] #variants, )* }
            impl #name {
                /// Every value, in schema order.
                pub const ALL: &'static [#name] = &[ #( #name::#variants ),* ];
                /// The JSON string of this value.
                pub fn as_str(self) -> &'static str { match self { #( #name::#variants => #values, )* } }
                /// The value for a JSON string.
                pub fn from_str_value(value: &str) -> ::std::option::Option<Self> {
                    match value { #( #values => ::std::option::Option::Some(#name::#variants), )* _ => ::std::option::Option::None }
                }
            }
            impl ::std::fmt::Display for #name {
                fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result { f.write_str(self.as_str()) }
            }
            impl #rt::codec::Decode for #name {
                fn decode(node: #rt::tree::Node, cx: &mut #rt::codec::Decoder, path: &#rt::codec::Path<'_>) -> ::std::option::Option<Self> {
                    cx.decode_enum(node, path, #name_str, &[ #( #values ),* ], Self::from_str_value)
                }
            }
            impl<C> #rt::walk::Walk<C> for #name {
                fn walk<'a>(&'a self, _f: &mut dyn FnMut(#rt::walk::Visit<'a, C>)) {}
            }
            impl #rt::codec::Encode for #name {
                fn encode(&self, sink: &mut dyn #rt::Sink, _cx: &#rt::codec::Encoder) { sink.str(self.as_str()) }
            }
        }
    }

    fn value_struct(&self, s: &Struct) -> Result<TokenStream, Error> {
        let rt = &self.rt;
        let name = ident(&s.name);
        let name_str = &s.name;
        let docs = doc(s.doc.as_deref());
        let FieldCode {
            decls,
            slots,
            arms,
            finish,
            names,
            encode,
            known,
            walk,
            gates: _,
        } = self.fields(&s.name, &s.fields)?;
        let (extra_decl, extra_arm, extra_init, extra_encode) = if s.open {
            (
                quote! { /// Keys the schema does not name, kept in order and written back.
                pub extra: #rt::JsonObject, },
                quote! { _ => { extra.insert(entry.key, #rt::value::node_to_value(entry.value)); } },
                quote! { extra, },
                quote! { for (key, value) in &self.extra { sink.key(key); #rt::value::write_value(value, sink); } },
            )
        } else {
            let arm =
                quote! { _ => cx.unknown_field(&entry, #name_str, &[ #( #known ),* ], path), };
            (
                TokenStream::new(),
                arm,
                TokenStream::new(),
                TokenStream::new(),
            )
        };
        let extra_let = s
            .open
            .then(|| quote! { let mut extra = #rt::JsonObject::new(); });
        let offset_name = if s.fields.iter().any(|f| f.missing == Missing::Required) {
            format_ident!("offset")
        } else {
            format_ident!("_offset")
        };
        let default_impl = if s.fields.iter().all(|f| f.missing != Missing::Required) {
            let mut inits = Vec::new();
            for f in &s.fields {
                let fname = ident(&f.rust_name);
                let expr = self.missing_expr(f, &s.name)?;
                inits.push(quote!(#fname: #expr));
            }
            let extra = s
                .open
                .then(|| quote!(extra: ::core::default::Default::default(),));
            quote! {
                impl ::core::default::Default for #name {
                    /// Every field at its schema default.
                    fn default() -> Self { #name { #( #inits, )* #extra } }
                }
            }
        } else {
            TokenStream::new()
        };
        Ok(quote! {
            #docs
            #[derive(Debug, Clone, PartialEq)]
            pub struct #name { #( #decls )* #extra_decl }
            #default_impl
            impl #rt::codec::Decode for #name {
                fn decode(node: #rt::tree::Node, cx: &mut #rt::codec::Decoder, path: &#rt::codec::Path<'_>) -> ::std::option::Option<Self> {
                    let (entries, #offset_name) = cx.object(node, path, #name_str)?;
                    #( #slots )*
                    #extra_let
                    for entry in entries {
                        match entry.key.as_str() { #( #arms )* #extra_arm }
                    }
                    #( #finish )*
                    ::std::option::Option::Some(#name { #( #names: #names?, )* #extra_init })
                }
            }
            impl #rt::codec::Encode for #name {
                fn encode(&self, sink: &mut dyn #rt::Sink, cx: &#rt::codec::Encoder) {
                    sink.begin_object();
                    #( #encode )*
                    #extra_encode
                    sink.end_object();
                }
            }
            impl #rt::walk::Walk<Component> for #name {
                fn walk<'a>(&'a self, f: &mut dyn FnMut(#rt::walk::Visit<'a, Component>)) {
                    let _ = &f;
                    #( #walk )*
                }
            }
        })
    }

    fn union(&self, u: &Union) -> TokenStream {
        let rt = &self.rt;
        let name = ident(&u.name);
        let truthy = sensitive_unions(self.model).contains(&u.name).then(|| {
            let variants = u.variants.iter().map(|(v, _)| ident(v));
            quote! {
                impl #rt::Truthy for #name {
                    fn truthy(&self) -> bool { match self { #( #name::#variants(value) => #rt::Truthy::truthy(value), )* } }
                }
            }
        });
        let name_str = &u.name;
        let docs = match &u.doc {
            Some(d) => doc(Some(d)),
            None => {
                let line = format!(
                    " One of: {}.",
                    u.variants
                        .iter()
                        .map(|(v, t)| format!("{v} (JSON {})", crate::read::json_type(t)))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                quote!(#[doc = #line])
            }
        };
        let variants: Vec<Ident> = u.variants.iter().map(|(v, _)| ident(v)).collect();
        let tys: Vec<TokenStream> = u.variants.iter().map(|(_, t)| self.ty(t)).collect();
        let json: Vec<&str> = u
            .variants
            .iter()
            .map(|(_, t)| crate::read::json_type(t))
            .collect();
        let vdocs = json.iter().map(|j| format!(" A JSON {j}."));
        let arms = variants.iter().zip(&json).map(|(v, j)| {
            let test = match *j {
                "string" => quote!(#rt::tree::Value::Str(_)),
                "boolean" => quote!(#rt::tree::Value::Bool(_)),
                "integer" => quote!(#rt::tree::Value::Int(_) | #rt::tree::Value::UInt(_)),
                "number" => quote!(#rt::tree::Value::Int(_) | #rt::tree::Value::UInt(_) | #rt::tree::Value::Float(_)),
                "array" => quote!(#rt::tree::Value::Array(_)),
                _ => quote!(#rt::tree::Value::Object(_)),
            };
            quote! { #test => #rt::codec::Decode::decode(node, cx, path).map(#name::#v), }
        });
        quote! {
            #docs
            #[derive(Debug, Clone, PartialEq)]
            pub enum #name { #( #[doc = #vdocs] #variants(#tys), )* }
            impl #rt::codec::Decode for #name {
                fn decode(node: #rt::tree::Node, cx: &mut #rt::codec::Decoder, path: &#rt::codec::Path<'_>) -> ::std::option::Option<Self> {
                    match &node.value {
                        #( #arms )*
                        other => {
                            let found = other.type_name();
                            cx.error("invalid-type", ::std::format!("{} must be one of: {}; found {found}", #name_str, [ #( #json ),* ].join(", ")), path, node.offset);
                            ::std::option::Option::None
                        }
                    }
                }
            }
            impl #rt::codec::Encode for #name {
                fn encode(&self, sink: &mut dyn #rt::Sink, cx: &#rt::codec::Encoder) {
                    match self { #( #name::#variants(value) => #rt::codec::Encode::encode(value, sink, cx), )* }
                }
            }
            impl #rt::walk::Walk<Component> for #name {
                fn walk<'a>(&'a self, f: &mut dyn FnMut(#rt::walk::Visit<'a, Component>)) {
                    match self { #( #name::#variants(value) => #rt::walk::Walk::<Component>::walk(value, f), )* }
                }
            }
            #truthy
        }
    }

    fn component(&self, c: &Component) -> Result<TokenStream, Error> {
        let rt = &self.rt;
        let name = ident(&c.name);
        let name_str = &c.name;
        let docs = doc(c.doc.as_deref());
        let upgrades = self.upgrades(c)?;
        let FieldCode {
            decls,
            slots,
            arms,
            finish,
            names,
            encode,
            known,
            walk,
            gates,
        } = self.fields(&c.name, &c.fields)?;
        let since = version_tokens(rt, c.since);
        let has_id = c.fields.iter().any(|f| f.json_name == "id");
        let has_name = c.fields.iter().any(|f| f.json_name == "name");
        let id = if has_id { quote!(&self.id) } else { quote!("") };
        let display_name = if has_name {
            quote!(&self.name)
        } else {
            quote!("")
        };
        Ok(quote! {
            #docs
            #[derive(Debug, Clone, PartialEq)]
            pub struct #name { #( #decls )* }
            impl #name {
                /// The `component_type` of this component.
                pub const COMPONENT_TYPE: &'static str = #name_str;
                /// The first Agent Spec version that has this component.
                pub const SINCE: #rt::Version = #since;
                /// The JSON keys this component reads, in write order.
                pub const FIELDS: &'static [&'static str] = &[ #( #known ),* ];
                /// Reads the body of an object whose `component_type` was already checked.
                pub fn decode_body(entries: ::std::vec::Vec<#rt::tree::Entry>, offset: u32, cx: &mut #rt::codec::Decoder, path: &#rt::codec::Path<'_>) -> ::std::option::Option<Self> {
                    #( #slots )*
                    for entry in entries {
                        match entry.key.as_str() {
                            "component_type" => cx.newer_component(Self::SINCE, #name_str, entry.key_offset, path),
                            #( #arms )*
                            "agentspec_version" => cx.nested_version(entry, path),
                            _ => cx.unknown_field(&entry, #name_str, Self::FIELDS, path),
                        }
                    }
                    #( #finish )*
                    #( #upgrades )*
                    let component = #name { #( #names: #names?, )* };
                    cx.define(#rt::codec::ComponentInfo::id(&component), offset, path);
                    ::std::option::Option::Some(component)
                }
                /// Writes the keys of this component (without the enclosing braces).
                pub fn encode_body(&self, sink: &mut dyn #rt::Sink, cx: &#rt::codec::Encoder) {
                    cx.component(Self::SINCE, #name_str, sink);
                    #( #gates )*
                    sink.key("component_type");
                    sink.str(#name_str);
                    #( #encode )*
                }
            }
            impl #rt::codec::Tagged for #name {
                const FAMILY: &'static str = #name_str;
                const MEMBERS: &'static [&'static str] = &[#name_str];
            }
            impl #rt::codec::ComponentInfo for #name {
                fn component_type(&self) -> &'static str { #name_str }
                fn id(&self) -> &str { #id }
                fn name(&self) -> &str { #display_name }
                fn as_any(&self) -> &dyn ::std::any::Any { self }
                fn since(&self) -> #rt::Version { Self::SINCE }
            }
            impl #rt::codec::Decode for #name {
                fn decode(node: #rt::tree::Node, cx: &mut #rt::codec::Decoder, path: &#rt::codec::Path<'_>) -> ::std::option::Option<Self> {
                    cx.decode_tagged(node, path, #name_str, &[#name_str], ::std::option::Option::None, |_, entries, offset, cx, path| #name::decode_body(entries, offset, cx, path))
                }
            }
            impl #rt::codec::Encode for #name {
                fn encode(&self, sink: &mut dyn #rt::Sink, cx: &#rt::codec::Encoder) {
                    sink.begin_object();
                    self.encode_body(sink, cx);
                    sink.end_object();
                }
            }
            impl #rt::walk::Walk<Component> for #name {
                fn walk<'a>(&'a self, f: &mut dyn FnMut(#rt::walk::Visit<'a, Component>)) {
                    f(#rt::walk::Visit::Component(self));
                    #( #walk )*
                }
            }
        })
    }

    fn family_enum(&self, name: &str, doc_text: Option<&str>, members: &[String]) -> TokenStream {
        let rt = &self.rt;
        let ename = ident(name);
        let docs = doc(doc_text);
        let variants: Vec<Ident> = members.iter().map(|m| ident(m)).collect();
        let member_strs: Vec<&str> = members.iter().map(String::as_str).collect();
        let vdocs = members.iter().map(|m| format!(" A `{m}`."));
        quote! {
            #docs
            #[derive(Debug, Clone, PartialEq)]
            pub enum #ename {
                #( #[doc = #vdocs] #variants(::std::boxed::Box<#variants>), )*
                /// A plugin component: a type the schemas do not define.
                Plugin(#rt::plugin::Plugin),
            }
            impl #ename {
                /// The `component_type` values this family admits.
                pub const MEMBERS: &'static [&'static str] = &[ #( #member_strs ),* ];
                /// Reads the body of an object whose `component_type` is `tag`.
                pub fn decode_body(tag: &str, entries: ::std::vec::Vec<#rt::tree::Entry>, offset: u32, cx: &mut #rt::codec::Decoder, path: &#rt::codec::Path<'_>) -> ::std::option::Option<Self> {
                    match tag {
                        #( #member_strs => #variants::decode_body(entries, offset, cx, path).map(|c| #ename::#variants(::std::boxed::Box::new(c))), )*
                        _ => ::std::option::Option::None,
                    }
                }
                /// Writes the keys of this component (without the enclosing braces).
                pub fn encode_body(&self, sink: &mut dyn #rt::Sink, cx: &#rt::codec::Encoder) {
                    match self { #( #ename::#variants(c) => c.encode_body(sink, cx), )* #ename::Plugin(p) => p.get().encode_body(sink, cx), }
                }
            }
            impl #rt::codec::Tagged for #ename {
                const FAMILY: &'static str = #name;
                const MEMBERS: &'static [&'static str] = #ename::MEMBERS;
            }
            impl #rt::codec::ComponentInfo for #ename {
                fn component_type(&self) -> &str { match self { #( #ename::#variants(c) => c.component_type(), )* #ename::Plugin(p) => p.get().component_type(), } }
                fn id(&self) -> &str { match self { #( #ename::#variants(c) => #rt::codec::ComponentInfo::id(&**c), )* #ename::Plugin(p) => p.get().id(), } }
                fn name(&self) -> &str { match self { #( #ename::#variants(c) => #rt::codec::ComponentInfo::name(&**c), )* #ename::Plugin(p) => p.get().name(), } }
                fn as_any(&self) -> &dyn ::std::any::Any { match self { #( #ename::#variants(c) => #rt::codec::ComponentInfo::as_any(&**c), )* #ename::Plugin(p) => p.get().as_any(), } }
                fn since(&self) -> #rt::Version { match self { #( #ename::#variants(c) => #rt::codec::ComponentInfo::since(&**c), )* #ename::Plugin(p) => p.get().since(), } }
                fn as_plugin(&self) -> ::std::option::Option<&#rt::plugin::Plugin> { match self { #ename::Plugin(p) => ::std::option::Option::Some(p), _ => ::std::option::Option::None } }
            }
            impl ::std::convert::From<#rt::plugin::Plugin> for #ename {
                fn from(component: #rt::plugin::Plugin) -> Self { #ename::Plugin(component) }
            }
            #(
                impl ::std::convert::From<#variants> for #ename {
                    fn from(component: #variants) -> Self { #ename::#variants(::std::boxed::Box::new(component)) }
                }
            )*
            impl #rt::codec::Decode for #ename {
                fn decode(node: #rt::tree::Node, cx: &mut #rt::codec::Decoder, path: &#rt::codec::Path<'_>) -> ::std::option::Option<Self> {
                    cx.decode_tagged(node, path, #name, Self::MEMBERS, ::std::option::Option::Some(#ename::Plugin), |tag, entries, offset, cx, path| #ename::decode_body(tag, entries, offset, cx, path))
                }
            }
            impl #rt::codec::Encode for #ename {
                fn encode(&self, sink: &mut dyn #rt::Sink, cx: &#rt::codec::Encoder) {
                    sink.begin_object();
                    self.encode_body(sink, cx);
                    sink.end_object();
                }
            }
            impl #rt::walk::Walk<Component> for #ename {
                fn walk<'a>(&'a self, f: &mut dyn FnMut(#rt::walk::Visit<'a, Component>)) {
                    match self { #( #ename::#variants(c) => #rt::walk::Walk::<Component>::walk(&**c, f), )* #ename::Plugin(p) => #rt::walk::Walk::<Component>::walk(p, f), }
                }
            }
        }
    }

    fn family(&self, f: &Family) -> TokenStream {
        self.family_enum(&f.name, f.doc.as_deref(), &f.members)
    }

    /// `Component` (every concrete component: document roots and `$referenced_components`
    /// entries) and the version list.
    fn component_set(&self) -> TokenStream {
        let rt = &self.rt;
        let members: Vec<String> = self.model.components.keys().cloned().collect();
        let all = self.family_enum("Component", Some("Any concrete component: the root of a document, or an entry of `$referenced_components`."), &members);
        let versions = self.model.versions.iter().map(|v| version_tokens(rt, *v));
        quote! {
            #all
            impl #rt::codec::ComponentSet for Component {
                const VERSIONS: &'static [#rt::Version] = &[ #( #versions ),* ];
                const TYPES: &'static [&'static str] = Component::MEMBERS;
                fn decode_body(tag: &str, entries: ::std::vec::Vec<#rt::tree::Entry>, offset: u32, cx: &mut #rt::codec::Decoder, path: &#rt::codec::Path<'_>) -> ::std::option::Option<Self> {
                    Component::decode_body(tag, entries, offset, cx, path)
                }
                fn encode_body(&self, sink: &mut dyn #rt::Sink, cx: &#rt::codec::Encoder) { Component::encode_body(self, sink, cx) }
                fn plugin(component: #rt::plugin::Plugin) -> Self { Component::Plugin(component) }
            }
        }
    }
}
