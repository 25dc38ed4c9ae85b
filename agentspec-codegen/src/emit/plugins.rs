//! What plugin components build on: `<Family>Fields` (the base of a plugin that extends a
//! family) and `FieldSchema` for every generated type (a plugin's JSON Schema).

use proc_macro2::TokenStream;
use quote::quote;

use super::{Emitter, ident};
use crate::error::Error;
use crate::model::{Component, Field, Missing, Struct, Ty};

impl Emitter<'_> {
    /// `<Family>Fields`: the fields every member of a family has (same key and Rust type),
    /// for plugin components that extend the family.
    pub(super) fn family_fields(
        &self,
        family: &str,
        members: &[String],
    ) -> Result<TokenStream, Error> {
        let rt = &self.rt;
        let components: Vec<&Component> = members
            .iter()
            .filter_map(|m| self.model.components.get(m))
            .collect();
        let Some(first) = components.first() else {
            return Ok(TokenStream::new());
        };
        let fields: Vec<Field> = first
            .fields
            .iter()
            .filter(|f| f.constant.is_none())
            .filter(|f| {
                components.iter().all(|c| {
                    // what a missing key means may differ by member: the first's is kept
                    c.fields.iter().any(|g| {
                        g.json_name == f.json_name
                            && self.ty(&g.ty).to_string() == self.ty(&f.ty).to_string()
                    })
                })
            })
            .cloned()
            .map(|mut f| {
                // a base field exists from the first version any member has it
                let same = |g: &&Field| g.json_name == f.json_name;
                f.since = components
                    .iter()
                    .filter_map(|c| c.fields.iter().find(same).map(|g| g.since))
                    .min()
                    .unwrap_or(f.since);
                f
            })
            .collect();
        let name = format!("{family}Fields");
        let doc_text = format!(
            "The fields every `{family}` has, for a plugin component that extends it \
             (`#[component(base)]`)."
        );
        let strukt = Struct {
            name: name.clone(),
            doc: Some(doc_text),
            fields: fields.clone(),
            open: false,
        };
        let body = self.value_struct(&strukt)?;
        let known = self.fields(&name, &fields)?.known;
        // `$referenced_components` is written last, after a plugin's own fields
        let (referenced, regular): (Vec<Field>, Vec<Field>) = fields
            .iter()
            .cloned()
            .partition(|f| f.json_name == "$referenced_components");
        let encode = self.fields(&name, &regular)?.encode;
        let encode_referenced = self.fields(&name, &referenced)?.encode;
        let (ident_name, family_ident) = (ident(&name), ident(family));
        let text_field = |key: &str| {
            if fields
                .iter()
                .any(|f| f.json_name == key && f.ty == Ty::String)
            {
                let field = ident(key);
                quote!(&self.#field)
            } else {
                quote!("")
            }
        };
        let (id, display_name) = (text_field("id"), text_field("name"));
        let schema_keys: Vec<&String> = fields.iter().map(|f| &f.json_name).collect();
        let schema_types: Vec<TokenStream> = fields.iter().map(|f| self.ty(&f.ty)).collect();
        let required: Vec<&String> = fields
            .iter()
            .filter(|f| f.missing == Missing::Required)
            .map(|f| &f.json_name)
            .collect();
        let schema_name = self
            .model
            .families
            .get(family)
            .map_or(family, |f| f.schema_name.as_str());
        Ok(quote! {
            #body
            impl #rt::plugin::FamilyFields for #ident_name {
                type Family = #family_ident;
                const KEYS: &'static [&'static str] = &[ #( #known ),* ];
                const REQUIRED: &'static [&'static str] = &[ #( #required ),* ];
                const SCHEMA_NAME: &'static str = #schema_name;
                fn encode_fields(&self, sink: &mut dyn #rt::Sink, cx: &#rt::codec::Encoder) {
                    #( #encode )*
                }
                fn encode_referenced(&self, sink: &mut dyn #rt::Sink, cx: &#rt::codec::Encoder) {
                    let _ = (&sink, cx);
                    #( #encode_referenced )*
                }
                fn id(&self) -> &str { #id }
                fn name(&self) -> &str { #display_name }
                fn schema_properties(properties: &mut #rt::JsonObject) {
                    #( properties.insert(#schema_keys.into(), <#schema_types as #rt::plugin::FieldSchema>::field_schema()); )*
                }
            }
        })
    }

    /// `FieldSchema` for every generated type: components and families by reference to
    /// their definition in the published schema, value types inline.
    pub(super) fn field_schemas(&self) -> TokenStream {
        let rt = &self.rt;
        let by_ref = |rust: &str, def: &str| {
            let (name, pointer) = (ident(rust), format!("#/$defs/{def}"));
            quote! {
                impl #rt::plugin::FieldSchema for #name {
                    fn field_schema() -> #rt::serde_json::Value {
                        #rt::serde_json::json!({ "$ref": #pointer })
                    }
                }
            }
        };
        let mut out = TokenStream::new();
        for c in self.model.components.keys() {
            out.extend(by_ref(c, c));
        }
        for f in self.model.families.values() {
            out.extend(by_ref(&f.name, &f.schema_name));
        }
        for e in self.model.enums.values() {
            let (name, values) = (ident(&e.name), e.variants.iter().map(|(v, _)| v));
            out.extend(quote! {
                impl #rt::plugin::FieldSchema for #name {
                    fn field_schema() -> #rt::serde_json::Value {
                        #rt::serde_json::json!({ "type": "string", "enum": [ #( #values ),* ] })
                    }
                }
            });
        }
        for s in self.model.structs.values() {
            let name = ident(&s.name);
            let keys = s.fields.iter().map(|f| &f.json_name);
            let types = s.fields.iter().map(|f| self.ty(&f.ty));
            let extra = !s.open;
            out.extend(quote! {
                impl #rt::plugin::FieldSchema for #name {
                    fn field_schema() -> #rt::serde_json::Value {
                        let mut properties = #rt::serde_json::Map::new();
                        #( properties.insert(#keys.into(), <#types as #rt::plugin::FieldSchema>::field_schema()); )*
                        #rt::serde_json::json!({
                            "type": "object",
                            "properties": properties,
                            "additionalProperties": !#extra,
                        })
                    }
                }
            });
        }
        for u in self.model.unions.values() {
            let name = ident(&u.name);
            let types = u.variants.iter().map(|(_, ty)| self.ty(ty));
            out.extend(quote! {
                impl #rt::plugin::FieldSchema for #name {
                    fn field_schema() -> #rt::serde_json::Value {
                        #rt::serde_json::json!({ "anyOf": [ #( <#types as #rt::plugin::FieldSchema>::field_schema() ),* ] })
                    }
                }
            });
        }
        out.extend({
            // any component: the root's definition
            quote! {
                impl #rt::plugin::FieldSchema for Component {
                    fn field_schema() -> #rt::serde_json::Value {
                        #rt::serde_json::json!({ "$ref": "#" })
                    }
                }
            }
        });
        out
    }
}
