//! Plugin components (`#[derive(Component)]`): the base's fields (decoded by the family's
//! `<Family>Fields`), then the plugin's own, with the same field code as built-ins.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use super::ast::{Component, Container, Plugin};
use super::fields::{Cx, FieldCode, fields};

pub fn plugin(c: &Container, comp: &Component, plugin: &Plugin, cx: &Cx<'_>) -> TokenStream {
    let (p, krate, name) = (&cx.p, &c.krate, &c.ident);
    let component_type = comp.component_type.as_str();
    let plugin_name = plugin
        .plugin_name
        .as_ref()
        .map_or_else(|| quote!(::core::env!("CARGO_PKG_NAME")), |l| quote!(#l));
    let plugin_version = plugin
        .plugin_version
        .as_ref()
        .map_or_else(|| quote!(::core::env!("CARGO_PKG_VERSION")), |l| quote!(#l));
    let (base_ident, base_ty) = &plugin.base;
    let fields_trait = quote!(#p::FamilyFields);
    // it converts into its family (`Component` when it extends none) and a `RefOr` of it
    let family = plugin
        .extends
        .as_ref()
        .map_or_else(|| quote!(#krate::Component), |f| quote!(#f));
    let family_from = quote! {
        #[automatically_derived]
        impl ::core::convert::From<#name> for #family {
            fn from(component: #name) -> Self {
                #family::Plugin(#p::Plugin::new(component))
            }
        }
        #[automatically_derived]
        impl ::core::convert::From<#name> for #p::RefOr<#family> {
            fn from(component: #name) -> Self {
                #p::RefOr::Inline(#family::Plugin(#p::Plugin::new(component)))
            }
        }
    };
    let extends_check = plugin.extends.as_ref().map(|family| {
        quote! {
            const _: () = {
                fn extends<B: #fields_trait<Family = #family>>() {}
                let _: fn() = extends::<#base_ty>;
            };
        }
    });
    let collisions = comp.fields.iter().map(|o| {
        let key = &o.key;
        let message = format!(
            "the field `{key}` of `{component_type}` collides with a field of its base: a plugin may only add fields"
        );
        quote_spanned! {o.ident.span()=>
            const _: () = ::core::assert!(!#p::has_key(<#base_ty as #fields_trait>::KEYS, #key), #message);
        }
    });
    let owner_id = quote!(#fields_trait::id(&self.#base_ident));
    let own_keys: Vec<&String> = comp.fields.iter().map(|o| &o.key).collect();
    let own_idents: Vec<&syn::Ident> = comp.fields.iter().map(|o| &o.ident).collect();
    let FieldCode {
        slots,
        arms,
        finish,
        names,
        locals,
        encode,
        known,
        walk,
        walk_at,
        schema,
        required,
        defaults,
        ..
    } = fields(cx, component_type, None, &comp.fields, &[], &owner_id, true);
    let io = plugin.io.as_ref().map(|path| {
        quote! {
            fn inferred_io(&self) -> #krate::plugin::InferredIo {
                #path(self)
            }
        }
    });
    let type_doc = c
        .doc
        .as_ref()
        .map(|d| quote!(schema.insert("description".into(), #d.into());));
    let defaults_impl = super::fields::defaults_impl(name, &defaults);
    quote! {
        #extends_check
        #family_from
        #( #collisions )*
        #defaults_impl

        #[automatically_derived]
        impl #krate::plugin::PluginType for #name {
            const COMPONENT_TYPE: &'static str = #component_type;
            const PLUGIN_NAME: &'static str = #plugin_name;
            const PLUGIN_VERSION: &'static str = #plugin_version;
            fn family_schema_name() -> &'static str {
                <#base_ty as #fields_trait>::SCHEMA_NAME
            }
            fn json_schema() -> #p::serde_json::Value {
                let mut properties = #p::JsonObject::new();
                properties.insert(
                    "component_type".into(),
                    #p::serde_json::json!({ "const": #component_type }),
                );
                <#base_ty as #fields_trait>::schema_properties(&mut properties);
                #( #schema )*
                for key in ["component_plugin_name", "component_plugin_version"] {
                    properties.insert(key.into(), #p::serde_json::json!({ "type": "string" }));
                }
                let mut required: ::std::vec::Vec<&str> = ::std::vec!["component_type"];
                required.extend_from_slice(<#base_ty as #fields_trait>::REQUIRED);
                required.extend_from_slice(&[#( #required ),*]);
                let mut schema = #p::JsonObject::new();
                schema.insert("title".into(), #component_type.into());
                #type_doc
                schema.insert("type".into(), "object".into());
                schema.insert("properties".into(), #p::serde_json::Value::Object(properties));
                schema.insert("required".into(), required.into());
                schema.insert("additionalProperties".into(), false.into());
                #p::serde_json::Value::Object(schema)
            }
            fn extends() -> &'static [&'static str] {
                <<#base_ty as #fields_trait>::Family as #p::Tagged>::MEMBERS
            }
            fn decode_body(
                entries: ::std::vec::Vec<#p::Entry>,
                offset: u32,
                cx: &mut #p::Decoder,
                path: &#p::Path<'_>,
            ) -> ::core::option::Option<Self> {
                let mut base_entries = ::std::vec::Vec::new();
                #( #slots )*
                for entry in entries {
                    match entry.key.as_str() {
                        "component_type" | "component_plugin_name" | "component_plugin_version" => {}
                        #( #arms )*
                        "agentspec_version" => cx.nested_version(entry, path),
                        key if <#base_ty as #fields_trait>::KEYS.contains(&key) => base_entries.push(entry),
                        _ => {
                            let known: ::std::vec::Vec<&str> = <#base_ty as #fields_trait>::KEYS
                                .iter()
                                .copied()
                                .chain([#( #known ),*])
                                .collect();
                            cx.unknown_field(&entry, #component_type, &known, path);
                        }
                    }
                }
                let base_node = #p::Node {
                    offset,
                    value: #p::TreeValue::Object(base_entries),
                };
                let __base = <#base_ty as #p::Decode>::decode(base_node, cx, path);
                #( #finish )*
                let component = #name { #base_ident: __base?, #( #names: #locals?, )* };
                cx.define(#fields_trait::id(&component.#base_ident), offset, path);
                ::core::option::Option::Some(component)
            }
        }

        #[automatically_derived]
        impl #krate::plugin::PluginComponent for #name {
            fn component_type(&self) -> &str {
                <Self as #krate::plugin::PluginType>::COMPONENT_TYPE
            }
            fn id(&self) -> &str {
                #fields_trait::id(&self.#base_ident)
            }
            fn name(&self) -> &str {
                #fields_trait::name(&self.#base_ident)
            }
            fn inputs(&self) -> ::core::option::Option<&[#p::JsonObject]> {
                #fields_trait::inputs(&self.#base_ident)
            }
            fn outputs(&self) -> ::core::option::Option<&[#p::JsonObject]> {
                #fields_trait::outputs(&self.#base_ident)
            }
            fn branches(&self) -> ::core::option::Option<&[::std::string::String]> {
                #fields_trait::branches(&self.#base_ident)
            }
            fn field(&self, key: &str) -> ::core::option::Option<&dyn ::core::any::Any> {
                match key {
                    #( #own_keys => ::core::option::Option::Some(&self.#own_idents), )*
                    _ => #fields_trait::field(&self.#base_ident, key),
                }
            }
            fn encode_body(&self, sink: &mut dyn #p::Sink, cx: &#p::Encoder) {
                sink.key("component_type");
                sink.str(<Self as #krate::plugin::PluginType>::COMPONENT_TYPE);
                #fields_trait::encode_fields(&self.#base_ident, sink, cx);
                #( #encode )*
                sink.key("component_plugin_name");
                sink.str(<Self as #krate::plugin::PluginType>::PLUGIN_NAME);
                sink.key("component_plugin_version");
                sink.str(<Self as #krate::plugin::PluginType>::PLUGIN_VERSION);
                #fields_trait::encode_referenced(&self.#base_ident, sink, cx);
            }
            fn clone_box(&self) -> ::std::boxed::Box<dyn #krate::plugin::PluginComponent> {
                ::std::boxed::Box::new(::core::clone::Clone::clone(self))
            }
            fn eq_dyn(&self, other: &dyn #krate::plugin::PluginComponent) -> bool {
                other.as_any().downcast_ref::<Self>() == ::core::option::Option::Some(self)
            }
            fn register_type(&self) -> ::core::option::Option<fn(&mut dyn ::core::any::Any)> {
                ::core::option::Option::Some(#p::register_plugin::<Self>)
            }
            fn as_any(&self) -> &dyn ::core::any::Any {
                self
            }
            #io
            fn visit_components<'a>(&'a self, f: &mut dyn FnMut(#p::ErasedVisit<'a>)) {
                let f = &mut |v: #p::Visit<'a, #krate::Component>| f(v.erase());
                #p::Walk::<#krate::Component>::walk(&self.#base_ident, f);
                #( #walk )*
            }
            fn visit_components_at<'a>(&'a self, at: &mut ::std::string::String, f: &mut dyn FnMut(&str, #p::ErasedVisit<'a>)) {
                let f = &mut |pointer: &str, v: #p::Visit<'a, #krate::Component>| f(pointer, v.erase());
                #p::Walk::<#krate::Component>::walk_at(&self.#base_ident, at, f);
                #( #walk_at )*
            }
        }
    }
}

/// What a plugin that could not be read still implements, so that one mistake does not
/// cascade into errors at every use of the type.
pub fn fallback(krate: &syn::Path, name: &syn::Ident) -> TokenStream {
    let p = quote!(#krate::__private);
    quote! {
        #[automatically_derived]
        impl #krate::plugin::PluginType for #name {
            const COMPONENT_TYPE: &'static str = "";
            const PLUGIN_NAME: &'static str = "";
            const PLUGIN_VERSION: &'static str = "";
            fn family_schema_name() -> &'static str { ::core::unreachable!() }
            fn json_schema() -> #p::serde_json::Value { ::core::unreachable!() }
            fn extends() -> &'static [&'static str] { ::core::unreachable!() }
            fn decode_body(_: ::std::vec::Vec<#p::Entry>, _: u32, _: &mut #p::Decoder, _: &#p::Path<'_>) -> ::core::option::Option<Self> { ::core::unreachable!() }
        }
        #[automatically_derived]
        impl #krate::plugin::PluginComponent for #name {
            fn component_type(&self) -> &str { ::core::unreachable!() }
            fn id(&self) -> &str { ::core::unreachable!() }
            fn name(&self) -> &str { ::core::unreachable!() }
            fn encode_body(&self, _: &mut dyn #p::Sink, _: &#p::Encoder) { ::core::unreachable!() }
            fn clone_box(&self) -> ::std::boxed::Box<dyn #krate::plugin::PluginComponent> { ::core::unreachable!() }
            fn eq_dyn(&self, _: &dyn #krate::plugin::PluginComponent) -> bool { ::core::unreachable!() }
            fn as_any(&self) -> &dyn ::core::any::Any { ::core::unreachable!() }
        }
    }
}
