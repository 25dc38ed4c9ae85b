//! The fields of a struct, with their `#[agentspec(...)]` attributes, and a component's
//! `constant(...)` settings.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::{Emitter, doc, ident};
use crate::error::Error;
use crate::model::{Field, Missing, Ty, Version};

impl Emitter<'_> {
    /// The attribute of a field's version (`since = "..."`, `unwritten`), when it is newer
    /// than the oldest version.
    fn since_setting(&self, since: Version) -> Option<TokenStream> {
        if since <= self.model.versions[0] {
            return None;
        }
        if since == crate::declared::NEVER {
            return Some(quote!(unwritten));
        }
        let since = since.to_string();
        Some(quote!(since = #since))
    }

    /// The declarations of `fields` of `owner` (constants are settings of the component).
    pub(super) fn fields(
        &self,
        owner: &str,
        fields: &[Field],
        owner_since: Option<Version>,
    ) -> Result<Vec<TokenStream>, Error> {
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
            let since = self.since_setting(f.since);
            if let Some(since) = &since {
                settings.push(since.clone());
                if crate::declared::informational(owner, json)
                    && owner_since.is_none_or(|o| f.since > o)
                {
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
            if let Some((min, inclusive)) = f.minimum {
                let min = Literal::f64_unsuffixed(min);
                settings.push(if inclusive {
                    quote!(minimum = #min)
                } else {
                    quote!(exclusive_minimum = #min)
                });
            }
            if let Some((since, gate, what)) = crate::declared::value_gate(owner, json) {
                let since = since.to_string();
                let check = match gate {
                    crate::declared::Gate::Equals(value) => quote!(equals = #value),
                    crate::declared::Gate::Check(function) => {
                        let function = ident(function);
                        quote!(check = #function)
                    }
                };
                settings.push(quote!(gate(since = #since, #check, what = #what)));
            }
            for u in crate::declared::legacy_upgrades(owner)
                .iter()
                .filter(|u| u.field == f.rust_name)
            {
                let bad = |what: &str| {
                    Error::Format(format!(
                        "the declared upgrade of {owner}.{} has a bad {what}",
                        u.field
                    ))
                };
                let from: syn::Pat = syn::parse::Parser::parse_str(syn::Pat::parse_single, u.from)
                    .map_err(|_| bad("pattern"))?;
                let to: syn::Expr = syn::parse_str(u.to).map_err(|_| bad("expression"))?;
                let message = u.message;
                settings.push(quote!(upgrade(from = #from, to = #to, message = #message)));
            }
            let attr = (!settings.is_empty()).then(|| quote!(#[agentspec(#( #settings ),*)]));
            let (docs, name, ty) = (doc(f.doc.as_deref()), ident(&f.rust_name), self.ty(&f.ty));
            out.push(quote! { #docs #attr pub #name: #ty, });
        }
        Ok(out)
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
            let since = self.since_setting(f.since).map(|s| quote!(, #s));
            out.push(quote!(constant(key = #key, value = #value #after #since)));
        }
        out
    }
}
