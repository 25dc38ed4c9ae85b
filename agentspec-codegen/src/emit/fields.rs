//! The fields of a component or value struct: declarations, decoding arms with their
//! version checks, encoding with version gates, and walks.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{Emitter, doc, ident, is_sensitive, may_hold_components, version_tokens};
use crate::error::Error;
use crate::model::{Field, Ty};

impl Emitter<'_> {
    /// Field declarations, the decoding match arms, the construction and the encoding.
    pub(super) fn fields(&self, owner: &str, fields: &[Field]) -> Result<FieldCode, Error> {
        let rt = &self.rt;
        let mut code = FieldCode::default();
        // A field as old as its component (or value struct) needs no check of its own: the
        // component's is enough.
        let owner_since = self
            .model
            .components
            .get(owner)
            .map(|c| c.since)
            .or_else(|| fields.iter().map(|f| f.since).min())
            .unwrap_or(self.model.versions[0]);
        for f in fields {
            let json = f.json_name.as_str();
            if let Some(constant) = &f.constant {
                code.arms.push(
                    quote! { #json => cx.constant(entry.value, #constant, &path.key(#json)), },
                );
                let write = quote! { sink.key(#json); sink.str(#constant); };
                code.encode.push(if f.since > self.model.versions[0] {
                    let since = version_tokens(rt, f.since);
                    quote! { if cx.writes(#since) { #write } }
                } else {
                    write
                });
                code.known.push(json.to_owned());
                continue;
            }
            let name = ident(&f.rust_name);
            let slot = format_ident!("slot_{}", f.rust_name);
            let ty = self.ty(&f.ty);
            let docs = doc(f.doc.as_deref());
            code.decls.push(quote! { #docs pub #name: #ty, });
            code.slots
                .push(quote! { let mut #slot: #rt::codec::Slot<#ty> = #rt::codec::Slot::Absent; });
            let decode = match f.minimum {
                _ if f.ty == Ty::ReferencedComponents => {
                    quote! { cx.referenced(&mut #slot, entry.value, &path.key(#json)) }
                }
                Some((min, inclusive)) => {
                    quote! { cx.field_min(&mut #slot, entry.value, &path.key(#json), #min, #inclusive) }
                }
                None => quote! { cx.field(&mut #slot, entry.value, &path.key(#json)) },
            };
            // After the value is read: is it newer than the document declares?
            let mut checks = TokenStream::new();
            if f.since > owner_since {
                let since = version_tokens(rt, f.since);
                let what = format!("{owner}.{json}");
                let changed = match self.missing_expr(f, owner)? {
                    Some(default) => quote! {
                        || matches!(&#slot, #rt::codec::Slot::Present(value) if { let default: #ty = #default; *value != default })
                    },
                    None => quote! { || matches!(&#slot, #rt::codec::Slot::Present(_)) },
                };
                let informational = crate::declared::informational(owner, json);
                checks.extend(quote! {
                    cx.newer_field(&#rt::codec::NewerField { since: #since, what: #what, informational: #informational }, entry.key_offset, &path.key(#json), #changed);
                });
            }
            if let Some((gate_version, gate, described)) = crate::declared::value_gate(owner, json)
            {
                let holds = gate_check(rt, &gate, &quote!(value));
                let since = version_tokens(rt, gate_version);
                let what = format!("`{owner}.{json}` {described}");
                checks.extend(quote! {
                    cx.gated_value(#since, #what, entry.key_offset, path, #json, || matches!(&#slot, #rt::codec::Slot::Present(value) if #holds));
                });
            }
            if checks.is_empty() {
                code.arms.push(quote! { #json => #decode, });
            } else {
                code.arms.push(quote! { #json => { #decode; #checks } });
            }
            code.known.push(json.to_owned());
            let value = match self.missing_expr(f, owner)? {
                None => quote! { cx.required(#slot, #json, #owner, offset, path) },
                Some(expr) => quote! { #slot.or_else(|| #expr) },
            };
            code.finish.push(quote! { let #name = #value; });
            code.names.push(name.clone());
            if matches!(f.ty, Ty::ReferencedComponents) {
                code.walk.push(quote! {
                    if !self.#name.is_empty() { f(#rt::walk::Visit::Referenced(&self.#name)); }
                    #rt::walk::Walk::<Component>::walk(&self.#name, f);
                });
            } else if may_hold_components(self.model, &f.ty) {
                code.walk
                    .push(quote! { #rt::walk::Walk::<Component>::walk(&self.#name, f); });
            }
            let since = version_tokens(rt, f.since);
            let write = if is_sensitive(&f.ty) {
                let owner_id = if fields.iter().any(|f| f.json_name == "id") {
                    quote!(&self.id)
                } else {
                    quote!("")
                };
                quote! { sink.key(#json); #rt::SecretField::encode_secret(&self.#name, #owner_id, #json, sink, cx); }
            } else {
                quote! { sink.key(#json); #rt::codec::Encode::encode(&self.#name, sink, cx); }
            };
            if let Some((gate_version, gate, _)) = crate::declared::value_gate(owner, json) {
                let check = gate_check(rt, &gate, &quote!(&self.#name));
                let gate_version = version_tokens(rt, gate_version);
                let what = format!("{owner}.{json}");
                code.gates
                    .push(quote! { cx.value_gate(#gate_version, #what, sink, #json, #check); });
            }
            code.encode.push(if f.skip_null {
                quote! { if let ::std::option::Option::Some(value) = &self.#name { sink.key(#json); #rt::codec::Encode::encode(value, sink, cx); } }
            } else if matches!(f.ty, Ty::ReferencedComponents) {
                quote! { if !self.#name.is_empty() { #write } }
            } else {
                match self.missing_expr(f, owner)? {
                    Some(default) if f.since > self.model.versions[0] => {
                        let what = format!("{owner}.{json}");
                        quote! { if cx.writes(#since) || cx.forced(#since, #what, sink, #json, { let default: #ty = #default; self.#name != default }) { #write } }
                    }
                    _ => write,
                }
            });
        }
        Ok(code)
    }
}

/// The code of a list of fields, by where it goes.
#[derive(Default)]
pub(super) struct FieldCode {
    pub(super) decls: Vec<TokenStream>,
    pub(super) slots: Vec<TokenStream>,
    pub(super) arms: Vec<TokenStream>,
    pub(super) finish: Vec<TokenStream>,
    pub(super) names: Vec<proc_macro2::Ident>,
    pub(super) encode: Vec<TokenStream>,
    pub(super) known: Vec<String>,
    pub(super) walk: Vec<TokenStream>,
    pub(super) gates: Vec<TokenStream>,
}

/// The check of a declared value gate over `value` (a reference to the field's value).
fn gate_check(rt: &TokenStream, gate: &crate::declared::Gate, value: &TokenStream) -> TokenStream {
    match gate {
        crate::declared::Gate::Equals(expected) => {
            quote! { #rt::codec::gates::holds(#value, #expected) }
        }
        crate::declared::Gate::Check(function) => {
            let function = format_ident!("{}", function);
            quote! { #rt::codec::gates::#function(#value) }
        }
    }
}
