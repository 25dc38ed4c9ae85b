//! The fields of a struct, with their `#[agentspec(...)]` attributes, and a component's
//! `constant(...)` settings.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::{Emitter, doc, ident};
use crate::error::Error;
use crate::model::{Field, GateCheck, Missing, Ty};

impl Emitter<'_> {
    /// The attribute of a field's version (`since = "..."`, `unwritten`), when it is newer
    /// than the oldest version.
    fn since_setting(&self, f: &Field) -> Option<TokenStream> {
        let Some(since) = f.written_since() else {
            return Some(quote!(unwritten));
        };
        if since <= self.model.versions[0] {
            return None;
        }
        let since = since.to_string();
        Some(quote!(since = #since))
    }

    /// The declarations of `fields` of `owner` (constants are settings of the component).
    pub(super) fn fields(&self, owner: &str, fields: &[Field]) -> Result<Vec<TokenStream>, Error> {
        let mut out = Vec::new();
        for f in fields.iter().filter(|f| f.constant.is_none()) {
            let json = f.json_name.as_str();
            let is_option = matches!(f.ty, Ty::Option(_));
            let mut settings = Vec::new();
            if f.ty == Ty::ReferencedComponents {
                settings.push(quote!(referenced));
            } else if f.rust_name != json {
                settings.push(quote!(rename = #json));
            }
            if f.missing == Missing::FreshId {
                settings.push(quote!(id));
            }
            if let Some(since) = self.since_setting(f) {
                settings.push(since);
                if f.informational {
                    settings.push(quote!(informational));
                }
            }
            match &f.missing {
                Missing::Required if is_option => settings.push(quote!(required)),
                Missing::Empty if !is_option && f.ty != Ty::ReferencedComponents => {
                    settings.push(quote!(default))
                }
                Missing::Default(serde_json::Value::Null) if is_option => {}
                Missing::Default(v) => {
                    let expr = self.value_expr(&f.ty, v, owner)?;
                    if expr.to_string() == quote!(Default::default()).to_string() {
                        settings.push(quote!(default));
                    } else {
                        settings.push(quote!(default = #expr));
                    }
                }
                _ => {}
            }
            if f.skip_null {
                settings.push(quote!(skip_null));
            }
            if f.written_in_clear {
                settings.push(quote!(clear));
            }
            if let Some((min, inclusive)) = f.minimum {
                let min = Literal::f64_unsuffixed(min);
                settings.push(if inclusive {
                    quote!(minimum = #min)
                } else {
                    quote!(exclusive_minimum = #min)
                });
            }
            if let Some(gate) = &f.gate {
                let (since, what) = (gate.since.to_string(), &gate.what);
                let check = match &gate.check {
                    GateCheck::Equals(value) => quote!(equals = #value),
                    GateCheck::Function(function) => {
                        let function = ident(function);
                        quote!(check = #function)
                    }
                };
                settings.push(quote!(gate(since = #since, #check, what = #what)));
            }
            for u in &f.upgrades {
                let from = self.value_pattern(&f.ty, &u.from, owner)?;
                let to = self.value_expr(&f.ty, &u.to, owner)?;
                let message = &u.message;
                settings.push(quote!(upgrade(from = #from, to = #to, message = #message)));
            }
            let attr = (!settings.is_empty()).then(|| quote!(#[agentspec(#( #settings ),*)]));
            let text = self.field_doc(owner, f);
            let (docs, name, ty) = (doc(Some(&text)), ident(&f.rust_name), self.ty(&f.ty));
            out.push(quote! { #docs #attr pub #name: #ty, });
        }
        Ok(out)
    }

    /// A field's documentation: the schema's description (or, for the fields every component
    /// has, what they are), then what the schema files say of it: since which version it
    /// exists, its default, whether it is required or a secret.
    fn field_doc(&self, owner: &str, f: &Field) -> String {
        let key = f.json_name.as_str();
        let mut text = match (&f.doc, key) {
            (Some(d), _) => d.trim().to_owned(),
            (None, _) if f.ty == Ty::ReferencedComponents => {
                "The components shared inside this one, written under `$referenced_components`."
                    .to_owned()
            }
            (None, "id") => "A unique identifier of the component.".to_owned(),
            (None, "name") => "The name of the component.".to_owned(),
            (None, "description") => "A description of the component.".to_owned(),
            (None, "metadata") => "Free-form metadata, kept and written as given.".to_owned(),
            (None, "inputs") => {
                "The inputs, as JSON Schema properties (each with its `title`).".to_owned()
            }
            (None, "outputs") => {
                "The outputs, as JSON Schema properties (each with its `title`).".to_owned()
            }
            (None, _) => format!("The `{key}` of the `{owner}`."),
        };
        let mut facts = Vec::new();
        if f.missing == Missing::Required {
            facts.push("Required.".to_owned());
        }
        if let Missing::Default(v) = &f.missing
            && !v.is_null()
        {
            facts.push(format!("Default: `{v}`."));
        }
        if f.missing == Missing::FreshId {
            facts.push("A fresh UUID when not given.".to_owned());
        }
        if let Some(since) = f.written_since()
            && since > self.model.versions[0]
        {
            facts.push(format!("Since Agent Spec {since}."));
        }
        if f.is_sensitive() && f.written_in_clear {
            facts.push(
                "A secret, masked in `Debug`; written as it is, as pyagentspec writes it."
                    .to_owned(),
            );
        } else if f.is_sensitive() {
            facts.push(
                "A secret: written as a `<id>.<field>` placeholder unless secrets are included."
                    .to_owned(),
            );
        }
        if !facts.is_empty() {
            text.push_str("\n\n");
            text.push_str(&facts.join(" "));
        }
        text
    }

    /// `constant(key = "...", value = "...", after = "...")` for each fixed key of a
    /// component, placed after the field it follows.
    pub(super) fn constants(&self, fields: &[Field]) -> Vec<TokenStream> {
        let mut out = Vec::new();
        let mut previous: Option<&str> = None;
        for f in fields {
            let Some(value) = &f.constant else {
                previous = Some(&f.json_name);
                continue;
            };
            let key = &f.json_name;
            let after = previous.map(|p| quote!(, after = #p));
            let since = self.since_setting(f).map(|s| quote!(, #s));
            out.push(quote!(constant(key = #key, value = #value #after #since)));
        }
        out
    }
}
