//! Structs: built-in components (tagged by `component_type`), plugin components (a base of
//! their family's fields, then their own) and value structs (`<Family>Fields` among them).

use proc_macro2::TokenStream;
use quote::quote;

use super::ast::{Component, Container, Default, FieldAst, ValueStruct};
use super::fields::{Cx, FieldCode, fields};

/// The `id` and `name` of a struct's fields, as expressions over `self` (`""` without).
fn id_and_name(fields: &[FieldAst]) -> (TokenStream, TokenStream) {
    let id = fields.iter().find(|f| f.id).map_or(quote!(""), |f| {
        let i = &f.ident;
        quote!(&self.#i)
    });
    let name = fields
        .iter()
        .find(|f| f.key == "name")
        .map_or(quote!(""), |f| {
            let i = &f.ident;
            quote!(&self.#i)
        });
    (id, name)
}

/// `inputs`, `outputs` and `branches`, for the fields of those keys.
fn list_methods(p: &TokenStream, fields: &[FieldAst]) -> TokenStream {
    let mut out = TokenStream::new();
    for (key, item) in [
        ("inputs", quote!(#p::JsonObject)),
        ("outputs", quote!(#p::JsonObject)),
        ("branches", quote!(::std::string::String)),
    ] {
        if let Some(f) = fields.iter().find(|f| f.key == key) {
            let (method, ident) = (
                syn::Ident::new(key, proc_macro2::Span::call_site()),
                &f.ident,
            );
            out.extend(quote! {
                fn #method(&self) -> ::core::option::Option<&[#item]> {
                    #p::AsList::as_list(&self.#ident)
                }
            });
        }
    }
    out
}

/// `field(key)`: each field by its JSON key, as `Any`.
fn field_method(fields: &[FieldAst]) -> TokenStream {
    let keys = fields.iter().map(|f| &f.key);
    let idents = fields.iter().map(|f| &f.ident);
    quote! {
        fn field(&self, key: &str) -> ::core::option::Option<&dyn ::core::any::Any> {
            match key {
                #( #keys => ::core::option::Option::Some(&self.#idents), )*
                _ => ::core::option::Option::None,
            }
        }
    }
}

/// `Serialize` and `Deserialize` (with the runtime's `serde` feature) of a `component` (a
/// component type or family) or a `value`.
pub fn serde_impls(c: &Container, cx: &Cx<'_>, kind: &str) -> TokenStream {
    let (krate, set, name) = (&c.krate, cx.set, &c.ident);
    let kind = syn::Ident::new(kind, proc_macro2::Span::call_site());
    quote!(#krate::__impl_serde!(#kind, #set, #name);)
}

/// The traits every type of the set implements the same way.
fn field_type_impl(cx: &Cx<'_>, name: &syn::Ident) -> TokenStream {
    let (p, set) = (&cx.p, cx.set);
    quote! {
        #[automatically_derived]
        impl #p::FieldType<#set> for #name {}
    }
}

pub fn component(c: &Container, comp: &Component, cx: &Cx<'_>) -> TokenStream {
    if let Some(plugin) = &comp.plugin {
        return super::plugin::plugin(c, comp, plugin, cx);
    }
    let (p, set, name) = (&cx.p, cx.set, &c.ident);
    let ct = comp.component_type.as_str();
    let (id, display_name) = id_and_name(&comp.fields);
    let FieldCode {
        slots,
        arms,
        finish,
        upgrades,
        names,
        locals,
        encode,
        encode_referenced,
        known,
        walk,
        walk_at,
        gates,
        defaults,
        ..
    } = fields(
        cx,
        ct,
        comp.since,
        &comp.fields,
        &comp.constants,
        &id,
        false,
    );
    let since = cx.version(comp.since.unwrap_or((25, 4, 1)));
    let pointer = format!("#/$defs/{ct}");
    let lists = list_methods(p, &comp.fields);
    let field = field_method(&comp.fields);
    let field_type = field_type_impl(cx, name);
    let builders = super::builders::builders(p, name, &comp.fields, comp.extra.as_ref());
    let unknown_keys = comp.extra.as_ref().map(|extra| {
        quote! {
            fn unknown_keys(&self) -> ::core::option::Option<&#p::JsonObject> {
                ::core::option::Option::Some(&self.#extra)
            }
        }
    });
    let serde = serde_impls(c, cx, "component");
    // keys Agent Spec does not define: kept with a warning and written back (when the
    // component has a place for them), else an error
    let (extra_let, extra_arm, extra_init, extra_encode) = match &comp.extra {
        Some(extra) => (
            quote! { let mut #extra = #p::JsonObject::new(); },
            quote! { _ => {
                cx.unknown_field_kept(&entry, #ct, Self::FIELDS, path);
                #extra.insert(entry.key.into(), #p::node_to_value(entry.value));
            } },
            quote! { #extra, },
            quote! { if !cx.drop_unknown {
                for (key, value) in &self.#extra { sink.key(key); #p::write_value(value, sink); }
            } },
        ),
        None => (
            TokenStream::new(),
            quote! { _ => cx.unknown_field(&entry, #ct, Self::FIELDS, path), },
            TokenStream::new(),
            TokenStream::new(),
        ),
    };
    // (key, written in clear) of each sensitive field
    let secrets = comp.fields.iter().filter(|f| f.sensitive).map(|f| {
        let (key, clear) = (f.key.as_str(), f.clear);
        quote! { (#key, #clear) }
    });
    quote! {
        #builders
        #serde
        impl #name {
            #[doc(hidden)]
            pub const SECRET_FIELDS: &'static [(&'static str, bool)] = &[ #( #secrets ),* ];
            /// The `component_type` of this component.
            pub const COMPONENT_TYPE: &'static str = #ct;
            /// The first Agent Spec version that has this component.
            pub const SINCE: #p::Version = #since;
            /// The JSON keys this component reads, in write order.
            pub const FIELDS: &'static [&'static str] = &[ #( #known ),* ];
            #( #defaults )*
            #[doc(hidden)]
            pub fn decode_body(entries: ::std::vec::Vec<#p::Entry>, offset: u32, cx: &mut #p::Decoder, path: &#p::Path<'_>) -> ::core::option::Option<Self> {
                #( #slots )*
                #extra_let
                for entry in entries {
                    match entry.key.as_str() {
                        "component_type" => cx.newer_component(Self::SINCE, #ct, entry.key_offset, path),
                        #( #arms )*
                        "agentspec_version" => cx.nested_version(entry, path),
                        #extra_arm
                    }
                }
                #( #finish )*
                #( #upgrades )*
                let component = #name { #( #names: #locals?, )* #extra_init };
                cx.define(#p::ComponentInfo::id(&component), offset, path);
                ::core::option::Option::Some(component)
            }
            #[doc(hidden)]
            pub fn encode_body(&self, sink: &mut dyn #p::Sink, cx: &#p::Encoder) {
                cx.component(Self::SINCE, #ct, sink);
                #( #gates )*
                sink.key("component_type");
                sink.str(#ct);
                #( #encode )*
                #extra_encode
                #( #encode_referenced )*
            }
        }
        #[automatically_derived]
        impl #p::Tagged for #name {
            const FAMILY: &'static str = #ct;
            const MEMBERS: &'static [&'static str] = &[#ct];
        }
        #[automatically_derived]
        impl #p::ComponentInfo for #name {
            fn component_type(&self) -> &'static str { #ct }
            fn id(&self) -> &str { #id }
            fn name(&self) -> &str { #display_name }
            fn as_any(&self) -> &dyn ::core::any::Any { self }
            fn since(&self) -> #p::Version { Self::SINCE }
            #lists
            #field
            #unknown_keys
        }
        #[automatically_derived]
        impl #p::Decode for #name {
            fn decode(node: #p::Node, cx: &mut #p::Decoder, path: &#p::Path<'_>) -> ::core::option::Option<Self> {
                cx.decode_tagged(node, path, #ct, &[#ct], ::core::option::Option::None, |_, entries, offset, cx, path| #name::decode_body(entries, offset, cx, path))
            }
        }
        #[automatically_derived]
        impl #p::Encode for #name {
            fn encode(&self, sink: &mut dyn #p::Sink, cx: &#p::Encoder) {
                sink.begin_object();
                self.encode_body(sink, cx);
                sink.end_object();
            }
        }
        #[automatically_derived]
        impl #p::Walk<#set> for #name {
            fn walk<'a>(&'a self, f: &mut dyn FnMut(#p::Visit<'a, #set>)) {
                f(#p::Visit::Component(self));
                #( #walk )*
            }
            fn walk_at<'a>(&'a self, at: &mut ::std::string::String, f: &mut dyn FnMut(&str, #p::Visit<'a, #set>)) {
                f(at, #p::Visit::Component(self));
                #( #walk_at )*
            }
        }
        #[automatically_derived]
        impl #p::FieldSchema for #name {
            fn field_schema() -> #p::serde_json::Value {
                #p::serde_json::json!({ "$ref": #pointer })
            }
        }
        #field_type
    }
}

pub fn value(c: &Container, v: &ValueStruct, cx: &Cx<'_>) -> TokenStream {
    let (p, set, name) = (&cx.p, cx.set, &c.ident);
    let name_str = name.to_string();
    // A field as old as its struct needs no check of its own.
    let owner_since = v
        .fields
        .iter()
        .map(|f| f.since.unwrap_or((0, 0, 0)))
        .min()
        .filter(|v| *v != (0, 0, 0));
    let (id, display_name) = id_and_name(&v.fields);
    let FieldCode {
        slots,
        arms,
        finish,
        names,
        locals,
        encode,
        encode_referenced,
        known,
        walk,
        walk_at,
        schema,
        required,
        defaults,
        ..
    } = fields(cx, &name_str, owner_since, &v.fields, &[], &id, false);
    let (extra_arm, extra_init, extra_encode, extra_let) = match &v.extra {
        Some(extra) => (
            quote! { _ => { #extra.insert(entry.key.into(), #p::node_to_value(entry.value)); } },
            quote! { #extra, },
            quote! { for (key, value) in &self.#extra { sink.key(key); #p::write_value(value, sink); } },
            quote! { let mut #extra = #p::JsonObject::new(); },
        ),
        None => (
            quote! { _ => cx.unknown_field(&entry, #name_str, &[ #( #known ),* ], path), },
            TokenStream::new(),
            TokenStream::new(),
            TokenStream::new(),
        ),
    };
    let offset_name = if required.is_empty() {
        quote!(_offset)
    } else {
        quote!(offset)
    };
    let default_impl = required.is_empty().then(|| {
        let inits = v.fields.iter().map(|f| {
            let ident = &f.ident;
            let expr = match &f.default {
                Default::Expr(_) => {
                    let function = super::fields::default_fn(f);
                    quote!(Self::#function())
                }
                Default::FreshId => quote!(#p::fresh_id()),
                _ => quote!(::core::default::Default::default()),
            };
            quote!(#ident: #expr)
        });
        let extra = v
            .extra
            .as_ref()
            .map(|e| quote!(#e: ::core::default::Default::default(),));
        quote! {
            #[automatically_derived]
            impl ::core::default::Default for #name {
                /// Every field at its default.
                fn default() -> Self { #name { #( #inits, )* #extra } }
            }
        }
    });
    let open = v.extra.is_some();
    let lists = list_methods(p, &v.fields);
    let field = field_method(&v.fields);
    let family_fields = v.fields_of.as_ref().map(|(family, schema_name)| {
        quote! {
            #[automatically_derived]
            impl #p::FamilyFields for #name {
                type Family = #family;
                const KEYS: &'static [&'static str] = &[ #( #known ),* ];
                const REQUIRED: &'static [&'static str] = &[ #( #required ),* ];
                const SCHEMA_NAME: &'static str = #schema_name;
                fn encode_fields(&self, sink: &mut dyn #p::Sink, cx: &#p::Encoder) {
                    #( #encode )*
                }
                fn encode_referenced(&self, sink: &mut dyn #p::Sink, cx: &#p::Encoder) {
                    let _ = (&sink, cx);
                    #( #encode_referenced )*
                }
                fn id(&self) -> &str { #id }
                fn name(&self) -> &str { #display_name }
                fn schema_properties(properties: &mut #p::JsonObject) {
                    #( #schema )*
                }
                #lists
                #field
            }
        }
    });
    let schema_inline = if v.fields_of.is_some() {
        TokenStream::new()
    } else {
        let schema = fields(cx, &name_str, owner_since, &v.fields, &[], &id, false).schema;
        quote! {
            #[automatically_derived]
            impl #p::FieldSchema for #name {
                fn field_schema() -> #p::serde_json::Value {
                    let mut properties = #p::JsonObject::new();
                    #( #schema )*
                    #p::serde_json::json!({
                        "type": "object",
                        "properties": properties,
                        "additionalProperties": #open,
                    })
                }
            }
        }
    };
    let field_type = if v.fields_of.is_some() {
        TokenStream::new()
    } else {
        field_type_impl(cx, name)
    };
    let defaults_impl = super::fields::defaults_impl(name, &defaults);
    let builders = super::builders::builders(p, name, &v.fields, v.extra.as_ref());
    let serde = serde_impls(c, cx, "value");
    quote! {
        #defaults_impl
        #builders
        #serde
        #default_impl
        #[automatically_derived]
        impl #p::Decode for #name {
            fn decode(node: #p::Node, cx: &mut #p::Decoder, path: &#p::Path<'_>) -> ::core::option::Option<Self> {
                let (entries, #offset_name) = cx.object(node, path, #name_str)?;
                #( #slots )*
                #extra_let
                for entry in entries {
                    match entry.key.as_str() { #( #arms )* #extra_arm }
                }
                #( #finish )*
                ::core::option::Option::Some(#name { #( #names: #locals?, )* #extra_init })
            }
        }
        #[automatically_derived]
        impl #p::Encode for #name {
            fn encode(&self, sink: &mut dyn #p::Sink, cx: &#p::Encoder) {
                sink.begin_object();
                #( #encode )*
                #( #encode_referenced )*
                #extra_encode
                sink.end_object();
            }
        }
        #[automatically_derived]
        impl #p::Walk<#set> for #name {
            fn walk<'a>(&'a self, f: &mut dyn FnMut(#p::Visit<'a, #set>)) {
                let _ = &f;
                #( #walk )*
            }
            fn walk_at<'a>(&'a self, at: &mut ::std::string::String, f: &mut dyn FnMut(&str, #p::Visit<'a, #set>)) {
                let _ = (&at, &f);
                #( #walk_at )*
            }
        }
        #schema_inline
        #field_type
        #family_fields
    }
}
