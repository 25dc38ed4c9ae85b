//! `#[derive(Component)]`: a plugin component type from a struct with a
//! `#[component(base)]` field of the fields of the family it extends.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, Ident, LitStr, Path, Type};

use crate::tool::Errors;

/// Keys a plugin cannot use for its own fields: the writer owns them.
const RESERVED: &[&str] = &[
    "component_type",
    "component_plugin_name",
    "component_plugin_version",
    "$referenced_components",
    "agentspec_version",
    "$component_ref",
];

#[derive(Default)]
struct Settings {
    component_type: Option<LitStr>,
    plugin_name: Option<LitStr>,
    plugin_version: Option<LitStr>,
    extends: Option<Path>,
    io: Option<Path>,
    krate: Option<Path>,
}

/// One field of the plugin's own (not the base's).
struct Own {
    ident: Ident,
    ty: Type,
    key: String,
    /// Its doc comment, the description in its schema.
    doc: Option<String>,
    /// Absent reads as `Default::default()` (`Option` fields and `#[component(default)]`).
    default: bool,
}

fn set<T>(slot: &mut Option<T>, value: T, meta: &syn::meta::ParseNestedMeta) -> syn::Result<()> {
    if slot.is_some() {
        return Err(meta.error("duplicate setting"));
    }
    *slot = Some(value);
    Ok(())
}

fn settings(input: &DeriveInput, errors: &mut Errors) -> Settings {
    let mut out = Settings::default();
    for attr in input
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("component"))
    {
        let result = attr.parse_nested_meta(|meta| {
            let key = meta.path.get_ident().map(ToString::to_string);
            match key.as_deref() {
                Some("component_type") => {
                    set(&mut out.component_type, meta.value()?.parse()?, &meta)
                }
                Some("plugin_name") => set(&mut out.plugin_name, meta.value()?.parse()?, &meta),
                Some("plugin_version") => {
                    set(&mut out.plugin_version, meta.value()?.parse()?, &meta)
                }
                Some("extends") => set(&mut out.extends, meta.value()?.parse()?, &meta),
                Some("io") => set(&mut out.io, meta.value()?.parse()?, &meta),
                Some("crate") => {
                    let lit: LitStr = meta.value()?.parse()?;
                    set(&mut out.krate, lit.parse()?, &meta)
                }
                _ => Err(meta.error(
                    "unknown `component` setting; expected `extends`, `component_type`, \
                     `plugin_name`, `plugin_version`, `io` or `crate`",
                )),
            }
        });
        if let Err(e) = result {
            errors.push(e);
        }
    }
    out
}

/// Reads the fields: the base, and the plugin's own.
fn fields(input: &DeriveInput, errors: &mut Errors) -> (Option<(Ident, Type)>, Vec<Own>) {
    let named = match &input.data {
        Data::Struct(s) => match &s.fields {
            Fields::Named(named) => Some(named),
            _ => None,
        },
        _ => None,
    };
    let Some(named) = named else {
        errors.at(
            input.ident.span(),
            "`#[derive(Component)]` needs a struct with named fields (one of them the \
             `#[component(base)]` fields of the family it extends)",
        );
        return (None, Vec::new());
    };
    let mut base = None;
    let mut own = Vec::new();
    for field in &named.named {
        let Some(ident) = field.ident.clone() else {
            continue;
        };
        let (mut is_base, mut default, mut rename) = (false, false, None::<LitStr>);
        for attr in field
            .attrs
            .iter()
            .filter(|a| a.path().is_ident("component"))
        {
            let result = attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("base") {
                    is_base = true;
                    Ok(())
                } else if meta.path.is_ident("default") {
                    default = true;
                    Ok(())
                } else if meta.path.is_ident("rename") {
                    set(&mut rename, meta.value()?.parse()?, &meta)
                } else {
                    Err(meta.error(
                        "unknown `component` field setting; expected `base`, `default` or `rename`",
                    ))
                }
            });
            if let Err(e) = result {
                errors.push(e);
            }
        }
        if is_base {
            if base.is_some() {
                errors.at(ident.span(), "only one field can be `#[component(base)]`");
            }
            base = Some((ident, field.ty.clone()));
            continue;
        }
        let name = ident.to_string();
        let key = rename
            .as_ref()
            .map_or_else(|| name.trim_start_matches("r#").to_owned(), LitStr::value);
        if RESERVED.contains(&key.as_str()) {
            errors.at(
                ident.span(),
                format!("`{key}` is written by the runtime; a plugin field cannot use it"),
            );
        }
        if own.iter().any(|o: &Own| o.key == key) {
            errors.at(ident.span(), format!("two fields are written as `{key}`"));
        }
        let default = default || is_option(&field.ty);
        own.push(Own {
            ident,
            ty: field.ty.clone(),
            key,
            doc: literal_doc(&field.attrs),
            default,
        });
    }
    if base.is_none() {
        errors.at(
            input.ident.span(),
            "a plugin component needs a `#[component(base)]` field holding the fields of the \
             family it extends: `NodeFields` for a Node, `ToolFields` for a Tool, …, \
             `ComponentFields` for a component that extends no family",
        );
    }
    (base, own)
}

/// A doc comment's text (`None` when absent or built by a macro).
fn literal_doc(attrs: &[syn::Attribute]) -> Option<String> {
    match crate::docs::take(&mut attrs.to_vec()).summary {
        Some(crate::docs::Text::Literal(text)) => Some(text),
        _ => None,
    }
}

fn is_option(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Option"))
}

/// The derive's expansion, or its errors.
pub fn expand(input: TokenStream) -> TokenStream {
    let input: DeriveInput = match syn::parse2(input) {
        Ok(i) => i,
        Err(e) => return e.into_compile_error(),
    };
    let mut errors = Errors::default();
    if !input.generics.params.is_empty() {
        errors.at(
            input.generics.span(),
            "a plugin component cannot be generic: its `component_type` names one type",
        );
    }
    let settings = settings(&input, &mut errors);
    let (base, own) = fields(&input, &mut errors);
    if let Some(t) = &settings.component_type {
        let v = t.value();
        if v.is_empty() || v.chars().any(char::is_whitespace) {
            errors.at(
                t.span(),
                "a `component_type` is a non-empty name without spaces",
            );
        }
    }
    match (errors.finish(), base) {
        (Ok(()), Some(base)) => generate(&input, &settings, &base, &own),
        (Err(e), _) => e.into_compile_error(),
        (Ok(()), None) => syn::Error::new(Span::call_site(), "no base field").into_compile_error(),
    }
}

fn generate(
    input: &DeriveInput,
    settings: &Settings,
    base: &(Ident, Type),
    own: &[Own],
) -> TokenStream {
    let krate = settings
        .krate
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(::agentspec_types));
    let name = &input.ident;
    let name_str = name.to_string();
    let component_type = settings
        .component_type
        .as_ref()
        .map_or(name_str.clone(), LitStr::value);
    let plugin_name = settings
        .plugin_name
        .as_ref()
        .map_or_else(|| quote!(::core::env!("CARGO_PKG_NAME")), |l| quote!(#l));
    let plugin_version = settings
        .plugin_version
        .as_ref()
        .map_or_else(|| quote!(::core::env!("CARGO_PKG_VERSION")), |l| quote!(#l));
    let (base_ident, base_ty) = base;
    let fields_trait = quote!(#krate::plugin::FamilyFields);
    let extends_check = settings.extends.as_ref().map(|family| {
        quote! {
            const _: () = {
                fn extends<B: #fields_trait<Family = #family>>() {}
                let _: fn() = extends::<#base_ty>;
            };
        }
    });
    let keys: Vec<&str> = own.iter().map(|o| o.key.as_str()).collect();
    let collisions = own.iter().map(|o| {
        let key = &o.key;
        let message = format!(
            "the field `{key}` of `{name_str}` collides with a field of its base: a plugin may only add fields"
        );
        quote_spanned! {o.ident.span()=>
            const _: () = ::core::assert!(!#krate::plugin::has_key(<#base_ty as #fields_trait>::KEYS, #key), #message);
        }
    });
    let slots = own.iter().map(|o| {
        let (slot, ty) = (format_ident!("slot_{}", o.ident), &o.ty);
        quote!(let mut #slot: #krate::codec::Slot<#ty> = #krate::codec::Slot::Absent;)
    });
    let arms = own.iter().map(|o| {
        let (slot, key) = (format_ident!("slot_{}", o.ident), &o.key);
        let field =
            quote_spanned!(o.ty.span()=> cx.field(&mut #slot, entry.value, &path.key(#key)));
        quote!(#key => #field,)
    });
    let finish = own.iter().map(|o| {
        let (slot, ident, key) = (format_ident!("slot_{}", o.ident), &o.ident, &o.key);
        if o.default {
            quote!(let #ident = #slot.or_else(::core::default::Default::default);)
        } else {
            quote!(let #ident = cx.required(#slot, #key, #component_type, offset, path);)
        }
    });
    let idents: Vec<&Ident> = own.iter().map(|o| &o.ident).collect();
    let io = settings.io.as_ref().map(|path| {
        quote! {
            fn inferred_io(&self) -> #krate::plugin::InferredIo {
                #path(self)
            }
        }
    });
    let visits = own.iter().map(|o| {
        let ident = &o.ident;
        quote_spanned!(o.ty.span()=> #krate::plugin::visit_field(&self.#ident, f);)
    });
    let encode = own.iter().map(|o| {
        let (ident, key) = (&o.ident, &o.key);
        let encode =
            quote_spanned!(o.ty.span()=> #krate::codec::Encode::encode(&self.#ident, sink, cx));
        quote! {
            sink.key(#key);
            #encode;
        }
    });
    let type_doc =
        literal_doc(&input.attrs).map(|d| quote!(schema.insert("description".into(), #d.into());));
    let own_schemas = own.iter().map(|o| {
        let (ty, key) = (&o.ty, &o.key);
        let doc = o.doc.as_ref().map(|d| quote!(if let #krate::serde_json::Value::Object(m) = &mut field { m.insert("description".into(), #d.into()); }));
        quote! {
            let mut field = <#ty as #krate::plugin::FieldSchema>::field_schema();
            #doc
            properties.insert(#key.into(), field);
        }
    });
    let own_required = own.iter().filter(|o| !o.default).map(|o| &o.key);
    quote! {
        #extends_check
        #( #collisions )*

        #[automatically_derived]
        impl #krate::plugin::PluginType for #name {
            const COMPONENT_TYPE: &'static str = #component_type;
            const PLUGIN_NAME: &'static str = #plugin_name;
            const PLUGIN_VERSION: &'static str = #plugin_version;
            fn family_schema_name() -> &'static str {
                <#base_ty as #fields_trait>::SCHEMA_NAME
            }
            fn json_schema() -> #krate::serde_json::Value {
                let mut properties = #krate::JsonObject::new();
                properties.insert(
                    "component_type".into(),
                    #krate::serde_json::json!({ "const": #component_type }),
                );
                <#base_ty as #fields_trait>::schema_properties(&mut properties);
                #( #own_schemas )*
                for key in ["component_plugin_name", "component_plugin_version"] {
                    properties.insert(key.into(), #krate::serde_json::json!({ "type": "string" }));
                }
                let mut required: ::std::vec::Vec<&str> = ::std::vec!["component_type"];
                required.extend_from_slice(<#base_ty as #fields_trait>::REQUIRED);
                required.extend_from_slice(&[#( #own_required ),*]);
                let mut schema = #krate::JsonObject::new();
                schema.insert("title".into(), #component_type.into());
                #type_doc
                schema.insert("type".into(), "object".into());
                schema.insert("properties".into(), #krate::serde_json::Value::Object(properties));
                schema.insert("required".into(), required.into());
                schema.insert("additionalProperties".into(), false.into());
                #krate::serde_json::Value::Object(schema)
            }
            fn extends() -> &'static [&'static str] {
                <<#base_ty as #fields_trait>::Family as #krate::codec::Tagged>::MEMBERS
            }
            fn decode_body(
                entries: ::std::vec::Vec<#krate::tree::Entry>,
                offset: u32,
                cx: &mut #krate::codec::Decoder,
                path: &#krate::codec::Path<'_>,
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
                                .chain([#( #keys ),*])
                                .collect();
                            cx.unknown_field(&entry, #component_type, &known, path);
                        }
                    }
                }
                let base_node = #krate::tree::Node {
                    offset,
                    value: #krate::tree::Value::Object(base_entries),
                };
                let #base_ident = <#base_ty as #krate::codec::Decode>::decode(base_node, cx, path);
                #( #finish )*
                let component = #name { #base_ident: #base_ident?, #( #idents: #idents?, )* };
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
            fn encode_body(&self, sink: &mut dyn #krate::Sink, cx: &#krate::codec::Encoder) {
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
            fn as_any(&self) -> &dyn ::core::any::Any {
                self
            }
            #io
            fn visit_components<'a>(&'a self, f: &mut dyn FnMut(#krate::walk::Visit<'a, #krate::Component>)) {
                #krate::plugin::visit_field(&self.#base_ident, f);
                #( #visits )*
            }
        }
    }
}
