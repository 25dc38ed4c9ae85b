//! Enums: string enums, unions told apart by their JSON type, and families of components
//! tagged by `component_type` (with a `Plugin` variant), the set of every component among
//! them.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::ast::{Container, Family, StrVariant, Union};
use super::fields::Cx;

pub fn string_enum(c: &Container, variants: &[StrVariant], cx: &Cx<'_>) -> TokenStream {
    let (p, name) = (&cx.p, &c.ident);
    let name_str = name.to_string();
    let idents: Vec<&Ident> = variants.iter().map(|v| &v.ident).collect();
    let values: Vec<&str> = variants.iter().map(|v| v.value.as_str()).collect();
    let serde = super::structs::serde_impls(c, cx, "value");
    quote! {
        #serde
        impl #name {
            /// Every value, in schema order.
            pub const ALL: &'static [#name] = &[ #( #name::#idents ),* ];
            /// The JSON string of this value.
            pub fn as_str(self) -> &'static str { match self { #( #name::#idents => #values, )* } }
            /// The value for a JSON string.
            pub fn from_str_value(value: &str) -> ::core::option::Option<Self> {
                match value { #( #values => ::core::option::Option::Some(#name::#idents), )* _ => ::core::option::Option::None }
            }
        }
        #[automatically_derived]
        impl ::core::fmt::Display for #name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result { f.write_str(self.as_str()) }
        }
        #[automatically_derived]
        impl ::core::str::FromStr for #name {
            type Err = #p::UnknownValue;
            fn from_str(value: &str) -> ::core::result::Result<Self, Self::Err> {
                Self::from_str_value(value).ok_or_else(|| #p::UnknownValue {
                    value: ::std::string::ToString::to_string(value),
                    what: #name_str,
                    expected: &[ #( #values ),* ],
                })
            }
        }
        #[automatically_derived]
        impl #p::Decode for #name {
            fn decode(node: #p::Node, cx: &mut #p::Decoder, path: &#p::Path<'_>) -> ::core::option::Option<Self> {
                cx.decode_enum(node, path, #name_str, &[ #( #values ),* ], Self::from_str_value)
            }
        }
        #[automatically_derived]
        impl #p::Encode for #name {
            fn encode(&self, sink: &mut dyn #p::Sink, _cx: &#p::Encoder) { sink.str(self.as_str()) }
        }
        #[automatically_derived]
        impl<C> #p::Walk<C> for #name {
            const LEAF: bool = true;
            fn walk<'a>(&'a self, _f: &mut dyn FnMut(#p::Visit<'a, C>)) {}
            fn walk_at<'a>(&'a self, _at: &mut ::std::string::String, _f: &mut dyn FnMut(&str, #p::Visit<'a, C>)) {}
        }
        #[automatically_derived]
        impl #p::FieldSchema for #name {
            fn field_schema() -> #p::serde_json::Value {
                #p::serde_json::json!({ "type": "string", "enum": [ #( #values ),* ] })
            }
        }
        #[automatically_derived]
        impl<C> #p::FieldType<C> for #name {}
    }
}

pub fn union(c: &Container, u: &Union, cx: &Cx<'_>) -> TokenStream {
    let (p, set, name) = (&cx.p, cx.set, &c.ident);
    let name_str = name.to_string();
    let variants: Vec<&Ident> = u.variants.iter().map(|(v, _, _)| v).collect();
    let tys: Vec<&syn::Type> = u.variants.iter().map(|(_, t, _)| t).collect();
    let json: Vec<&str> = u.variants.iter().map(|(_, _, j)| j.as_str()).collect();
    let arms = variants.iter().zip(&json).map(|(v, j)| {
        let test = match *j {
            "string" => quote!(#p::TreeValue::Str(_)),
            "boolean" => quote!(#p::TreeValue::Bool(_)),
            "integer" => quote!(#p::TreeValue::Int(_) | #p::TreeValue::UInt(_)),
            "number" => {
                quote!(#p::TreeValue::Int(_) | #p::TreeValue::UInt(_) | #p::TreeValue::Float(_))
            }
            "array" => quote!(#p::TreeValue::Array(_)),
            _ => quote!(#p::TreeValue::Object(_)),
        };
        quote! { #test => #p::Decode::decode(node, cx, path).map(#name::#v), }
    });
    let truthy = u.truthy.then(|| {
        quote! {
            #[automatically_derived]
            impl #p::Truthy for #name {
                fn truthy(&self) -> bool { match self { #( #name::#variants(value) => #p::Truthy::truthy(value), )* } }
            }
        }
    });
    let serde = super::structs::serde_impls(c, cx, "value");
    quote! {
        #serde
        #[automatically_derived]
        impl #p::Decode for #name {
            fn decode(node: #p::Node, cx: &mut #p::Decoder, path: &#p::Path<'_>) -> ::core::option::Option<Self> {
                match &node.value {
                    #( #arms )*
                    other => {
                        let found = other.type_name();
                        cx.error("invalid-type", ::std::format!("{} must be one of: {}; found {found}", #name_str, [ #( #json ),* ].join(", ")), path, node.offset);
                        ::core::option::Option::None
                    }
                }
            }
        }
        #[automatically_derived]
        impl #p::Encode for #name {
            fn encode(&self, sink: &mut dyn #p::Sink, cx: &#p::Encoder) {
                match self { #( #name::#variants(value) => #p::Encode::encode(value, sink, cx), )* }
            }
        }
        #[automatically_derived]
        impl #p::Walk<#set> for #name {
            const LEAF: bool = true #( && <#tys as #p::Walk<#set>>::LEAF )*;
            fn walk<'a>(&'a self, f: &mut dyn FnMut(#p::Visit<'a, #set>)) {
                match self { #( #name::#variants(value) => #p::Walk::<#set>::walk(value, f), )* }
            }
            fn walk_at<'a>(&'a self, at: &mut ::std::string::String, f: &mut dyn FnMut(&str, #p::Visit<'a, #set>)) {
                match self { #( #name::#variants(value) => #p::Walk::<#set>::walk_at(value, at, f), )* }
            }
        }
        #[automatically_derived]
        impl #p::FieldSchema for #name {
            fn field_schema() -> #p::serde_json::Value {
                #p::serde_json::json!({ "anyOf": [ #( <#tys as #p::FieldSchema>::field_schema() ),* ] })
            }
        }
        #[automatically_derived]
        impl #p::FieldType<#set> for #name {}
        #truthy
    }
}

pub fn family(c: &Container, f: &Family, cx: &Cx<'_>) -> TokenStream {
    let (p, set, ename) = (&cx.p, cx.set, &c.ident);
    let variants: Vec<&Ident> = f.members.iter().map(|(v, _)| v).collect();
    let member_strs: Vec<String> = variants.iter().map(ToString::to_string).collect();
    let schema_name = f.schema_name.as_str();
    let schema = if f.versions.is_some() {
        "#".to_owned()
    } else {
        format!("#/$defs/{}", f.schema_name)
    };
    // a family's member is a member of the set
    let into_set = f.versions.is_none().then(|| {
        quote! {
            #[automatically_derived]
            impl ::core::convert::From<#ename> for #set {
                fn from(component: #ename) -> Self {
                    match component {
                        #( #ename::#variants(c) => #set::#variants(c), )*
                        #ename::Plugin(p) => #set::Plugin(p),
                    }
                }
            }
        }
    });
    let set_impl = f.versions.as_ref().map(|versions| {
        let versions = versions.iter().map(|v| cx.version(*v));
        quote! {
            #[automatically_derived]
            impl #p::ComponentSet for #ename {
                const VERSIONS: &'static [#p::Version] = &[ #( #versions ),* ];
                const TYPES: &'static [&'static str] = #ename::MEMBERS;
                const SECRET_FIELDS: &'static [&'static [(&'static str, bool)]] = &[ #( #variants::SECRET_FIELDS ),* ];
                fn decode_body(tag: &str, entries: ::std::vec::Vec<#p::Entry>, offset: u32, cx: &mut #p::Decoder, path: &#p::Path<'_>) -> ::core::option::Option<Self> {
                    #ename::decode_body(tag, entries, offset, cx, path)
                }
                fn encode_body(&self, sink: &mut dyn #p::Sink, cx: &#p::Encoder) { #ename::encode_body(self, sink, cx) }
                fn plugin(component: #p::Plugin) -> Self { #ename::Plugin(component) }
            }
        }
    });
    let serde = super::structs::serde_impls(c, cx, "component");
    quote! {
        #serde
        impl #ename {
            /// The `component_type` values this family admits.
            pub const MEMBERS: &'static [&'static str] = &[ #( #member_strs ),* ];
            #[doc(hidden)]
            pub fn decode_body(tag: &str, entries: ::std::vec::Vec<#p::Entry>, offset: u32, cx: &mut #p::Decoder, path: &#p::Path<'_>) -> ::core::option::Option<Self> {
                match tag {
                    #( #member_strs => #variants::decode_body(entries, offset, cx, path).map(|c| #ename::#variants(::std::boxed::Box::new(c))), )*
                    _ => ::core::option::Option::None,
                }
            }
            #[doc(hidden)]
            pub fn encode_body(&self, sink: &mut dyn #p::Sink, cx: &#p::Encoder) {
                match self { #( #ename::#variants(c) => c.encode_body(sink, cx), )* #ename::Plugin(p) => p.get().encode_body(sink, cx), }
            }
        }
        #[automatically_derived]
        impl #p::Tagged for #ename {
            const FAMILY: &'static str = #schema_name;
            const MEMBERS: &'static [&'static str] = #ename::MEMBERS;
        }
        #[automatically_derived]
        impl #p::ComponentInfo for #ename {
            fn component_type(&self) -> &str { match self { #( #ename::#variants(c) => #p::ComponentInfo::component_type(&**c), )* #ename::Plugin(p) => p.get().component_type(), } }
            fn id(&self) -> &str { match self { #( #ename::#variants(c) => #p::ComponentInfo::id(&**c), )* #ename::Plugin(p) => p.get().id(), } }
            fn name(&self) -> &str { match self { #( #ename::#variants(c) => #p::ComponentInfo::name(&**c), )* #ename::Plugin(p) => p.get().name(), } }
            fn as_any(&self) -> &dyn ::core::any::Any { match self { #( #ename::#variants(c) => #p::ComponentInfo::as_any(&**c), )* #ename::Plugin(p) => p.get().as_any(), } }
            fn since(&self) -> #p::Version { match self { #( #ename::#variants(c) => #p::ComponentInfo::since(&**c), )* #ename::Plugin(p) => p.get().since(), } }
            fn as_plugin(&self) -> ::core::option::Option<&#p::Plugin> { match self { #ename::Plugin(p) => ::core::option::Option::Some(p), _ => ::core::option::Option::None } }
            fn inputs(&self) -> ::core::option::Option<&[#p::JsonObject]> { match self { #( #ename::#variants(c) => #p::ComponentInfo::inputs(&**c), )* #ename::Plugin(p) => #p::ComponentInfo::inputs(p), } }
            fn outputs(&self) -> ::core::option::Option<&[#p::JsonObject]> { match self { #( #ename::#variants(c) => #p::ComponentInfo::outputs(&**c), )* #ename::Plugin(p) => #p::ComponentInfo::outputs(p), } }
            fn branches(&self) -> ::core::option::Option<&[::std::string::String]> { match self { #( #ename::#variants(c) => #p::ComponentInfo::branches(&**c), )* #ename::Plugin(p) => #p::ComponentInfo::branches(p), } }
            fn field(&self, key: &str) -> ::core::option::Option<&dyn ::core::any::Any> { match self { #( #ename::#variants(c) => #p::ComponentInfo::field(&**c, key), )* #ename::Plugin(p) => #p::ComponentInfo::field(p, key), } }
            fn unknown_keys(&self) -> ::core::option::Option<&#p::JsonObject> { match self { #( #ename::#variants(c) => #p::ComponentInfo::unknown_keys(&**c), )* #ename::Plugin(p) => #p::ComponentInfo::unknown_keys(p), } }
        }
        #into_set
        #[automatically_derived]
        impl ::core::convert::From<#p::Plugin> for #ename {
            fn from(component: #p::Plugin) -> Self { #ename::Plugin(component) }
        }
        #(
            #[automatically_derived]
            impl ::core::convert::From<#variants> for #ename {
                fn from(component: #variants) -> Self { #ename::#variants(::std::boxed::Box::new(component)) }
            }
            #[automatically_derived]
            impl ::core::convert::From<#variants> for #p::RefOr<#ename> {
                fn from(component: #variants) -> Self { #p::RefOr::Inline(#ename::#variants(::std::boxed::Box::new(component))) }
            }
        )*
        #[automatically_derived]
        impl #p::Decode for #ename {
            fn decode(node: #p::Node, cx: &mut #p::Decoder, path: &#p::Path<'_>) -> ::core::option::Option<Self> {
                cx.decode_tagged(node, path, #schema_name, Self::MEMBERS, ::core::option::Option::Some(#ename::Plugin), |tag, entries, offset, cx, path| #ename::decode_body(tag, entries, offset, cx, path))
            }
        }
        #[automatically_derived]
        impl #p::Encode for #ename {
            fn encode(&self, sink: &mut dyn #p::Sink, cx: &#p::Encoder) {
                sink.begin_object();
                self.encode_body(sink, cx);
                sink.end_object();
            }
        }
        #[automatically_derived]
        impl #p::Walk<#set> for #ename {
            fn walk<'a>(&'a self, f: &mut dyn FnMut(#p::Visit<'a, #set>)) {
                match self { #( #ename::#variants(c) => #p::Walk::<#set>::walk(&**c, f), )* #ename::Plugin(p) => #p::Walk::<#set>::walk(p, f), }
            }
            fn walk_at<'a>(&'a self, at: &mut ::std::string::String, f: &mut dyn FnMut(&str, #p::Visit<'a, #set>)) {
                match self { #( #ename::#variants(c) => #p::Walk::<#set>::walk_at(&**c, at, f), )* #ename::Plugin(p) => #p::Walk::<#set>::walk_at(p, at, f), }
            }
        }
        #[automatically_derived]
        impl #p::FieldSchema for #ename {
            fn field_schema() -> #p::serde_json::Value {
                #p::serde_json::json!({ "$ref": #schema })
            }
        }
        #[automatically_derived]
        impl #p::FieldType<#set> for #ename {}
        #set_impl
    }
}
