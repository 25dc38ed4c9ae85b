//! Emits Rust for the [`Model`]: plain types, the way one would write them by hand, under
//! `#[derive(AgentSpec)]`. Each type says *what* it is (its fields, and in `#[agentspec]`
//! attributes the key, the version it exists from, its default, value gates, legacy
//! upgrades); the derive in `agentspec-macros` says *how* it is read and written, once for
//! the generated types and plugins alike.

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;
use serde_json::Value;

use crate::error::Error;
use crate::model::{
    Component, Family, Field, Missing, Model, StrEnum, Struct, Ty, Union, Version, Written,
};

mod attrs;

pub(crate) struct Emitter<'a> {
    pub model: &'a Model,
    /// Path of the runtime crate (`::agentspec_types` unless told otherwise).
    pub rt: TokenStream,
}

fn ident(name: &str) -> Ident {
    if syn::parse_str::<Ident>(name).is_ok() {
        Ident::new(name, Span::call_site())
    } else {
        Ident::new_raw(name, Span::call_site())
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

/// Doc comment lines from a schema description (a Python docstring): its `>>>` examples
/// become `text` code blocks (rustdoc would run them as Rust doctests), bare URLs become
/// autolinks, and only what Markdown would misread is escaped (brackets, which rustdoc reads as
/// links, `<`, which it reads as HTML, and a `#` that would open a heading).
fn doc(text: Option<&str>) -> TokenStream {
    let Some(text) = text else {
        return TokenStream::new();
    };
    let mut lines: Vec<String> = Vec::new();
    let mut fence = Fence::None;
    for line in text.trim().lines() {
        let trimmed = line.trim();
        match fence {
            Fence::Source if trimmed.starts_with("```") => {
                fence = Fence::None;
                lines.push(" ```".to_owned());
                continue;
            }
            Fence::Source => {
                lines.push(format!(" {trimmed}"));
                continue;
            }
            Fence::Example if trimmed.is_empty() => {
                fence = Fence::None;
                lines.push(" ```".to_owned());
                lines.push(String::new());
                continue;
            }
            Fence::Example => {
                lines.push(format!(" {}", line.trim_end()));
                continue;
            }
            Fence::None => {}
        }
        if trimmed.starts_with("```") {
            fence = Fence::Source;
            lines.push(" ```text".to_owned());
        } else if trimmed.starts_with(">>>") {
            fence = Fence::Example;
            lines.push(" ```text".to_owned());
            lines.push(format!(" {}", line.trim_end()));
        } else {
            lines.push(format!(" {}", prose(trimmed)));
        }
    }
    if fence != Fence::None {
        lines.push(" ```".to_owned());
    }
    let lines = lines
        .iter()
        .map(|l| if l.is_empty() { "" } else { l.as_str() });
    quote! { #( #[doc = #lines] )* }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Fence {
    None,
    /// A fenced block of the docstring.
    Source,
    /// Python examples (`>>>`), up to a blank line.
    Example,
}

/// A line of prose, made safe for rustdoc's Markdown; code spans (`` `x` `` and RST's
/// ``` ``x`` ```) are kept as they are.
fn prose(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    let mut line_start = true;
    while let Some(open) = rest.find('`') {
        let ticks = rest[open..].len() - rest[open..].trim_start_matches('`').len();
        let fence = &rest[open..open + ticks];
        let Some(close) = rest[open + ticks..].find(fence) else {
            break;
        };
        out.push_str(&words(&rest[..open], line_start));
        let end = open + ticks + close + ticks;
        out.push_str(&rest[open..end]);
        rest = &rest[end..];
        line_start = false;
    }
    out.push_str(&words(rest, line_start));
    out
}

/// Prose outside code spans: bare URLs become autolinks, the rest is escaped.
fn words(text: &str, line_start: bool) -> String {
    let mut out = String::new();
    for (i, word) in text.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let url = word.find("http://").or_else(|| word.find("https://"));
        match url {
            Some(at) => {
                let end = word[at..]
                    .find(|c: char| c.is_whitespace() || matches!(c, ')' | ',' | '"' | '\''))
                    .map_or(word.len(), |e| at + e);
                let end = if word[at..end].ends_with('.') {
                    end - 1
                } else {
                    end
                };
                out.push_str(&escape(&word[..at], line_start && i == 0));
                out.push('<');
                out.push_str(&word[at..end]);
                out.push('>');
                out.push_str(&escape(&word[end..], false));
            }
            None => out.push_str(&escape(word, line_start && i == 0)),
        }
    }
    out
}

fn escape(text: &str, line_start: bool) -> String {
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        match c {
            '[' | ']' | '<' => {
                out.push('\\');
                out.push(c);
            }
            '#' if line_start && i == 0 => out.push_str("\\#"),
            c => out.push(c),
        }
    }
    out
}

impl Emitter<'_> {
    pub(crate) fn emit(&self) -> Result<TokenStream, Error> {
        let rt = &self.rt;
        let mut out = quote! {
            use #rt::plugin::Plugin;
            // an older or smaller set of schema files may leave some of these unused
            #[allow(unused_imports)]
            use #rt::{AgentSpec, IndexMap, JsonObject, RefOr, Sensitive, serde_json};
        };
        for e in self.model.enums.values() {
            out.extend(self.string_enum(e));
        }
        for s in self.model.structs.values() {
            out.extend(self.value_struct(s, None)?);
        }
        for u in self.model.unions.values() {
            out.extend(self.union(u));
        }
        for c in self.model.components.values() {
            out.extend(self.component(c)?);
        }
        for f in self.model.families.values() {
            out.extend(self.family(f));
            out.extend(self.family_fields(&f.name, &f.schema_name, &f.members)?);
        }
        out.extend(self.component_set());
        let all: Vec<String> = self.model.components.keys().cloned().collect();
        out.extend(self.family_fields("Component", "Component", &all)?);
        Ok(out)
    }

    /// `#[agentspec(crate = "...")]` when the runtime is not at its usual path.
    fn crate_setting(&self) -> Option<TokenStream> {
        let rt = self.rt.to_string().replace(' ', "");
        (rt != "::agentspec_types").then(|| quote!(crate = #rt))
    }

    fn ty(&self, ty: &Ty) -> TokenStream {
        match ty {
            Ty::String => quote!(String),
            Ty::Bool => quote!(bool),
            Ty::Int => quote!(i64),
            Ty::Float => quote!(f64),
            Ty::Json => quote!(serde_json::Value),
            Ty::JsonObject | Ty::Property => quote!(JsonObject),
            Ty::Option(inner) => {
                let inner = self.ty(inner);
                quote!(Option<#inner>)
            }
            Ty::Vec(inner) => {
                let inner = self.ty(inner);
                quote!(Vec<#inner>)
            }
            Ty::Map(inner) => {
                let inner = self.ty(inner);
                quote!(IndexMap<String, #inner>)
            }
            Ty::Pair(a, b) => {
                let (a, b) = (self.ty(a), self.ty(b));
                quote!((#a, #b))
            }
            Ty::Component(name) | Ty::Family(name) => {
                let name = ident(name);
                quote!(RefOr<#name>)
            }
            Ty::Struct(name) | Ty::Enum(name) | Ty::Union(name) => {
                let name = ident(name);
                quote!(#name)
            }
            Ty::Sensitive(inner) => {
                let inner = self.ty(inner);
                quote!(Sensitive<#inner>)
            }
            Ty::ReferencedComponents => quote!(IndexMap<String, Component>),
        }
    }

    /// A Rust expression for a JSON value of type `ty` (a default, a legacy value).
    pub(crate) fn value_expr(
        &self,
        ty: &Ty,
        value: &Value,
        owner: &str,
    ) -> Result<TokenStream, Error> {
        let bad = || Error::Unsupported {
            file: "(model)".into(),
            pointer: format!("/$defs/{owner}"),
            message: format!("no rule for the value {value} of a field of type {ty:?}"),
        };
        Ok(match (ty, value) {
            (Ty::Option(_), Value::Null) => quote!(None),
            (Ty::Option(inner), v) => {
                let inner = self.value_expr(inner, v, owner)?;
                quote!(Some(#inner))
            }
            (Ty::Sensitive(inner), v) => {
                let inner = self.value_expr(inner, v, owner)?;
                quote!(Sensitive::Value(#inner))
            }
            (Ty::String, Value::String(s)) => quote!(String::from(#s)),
            (Ty::Bool, Value::Bool(b)) => quote!(#b),
            (Ty::Int, Value::Number(n)) if n.is_i64() => {
                let n = Literal::i64_unsuffixed(n.as_i64().ok_or_else(bad)?);
                quote!(#n)
            }
            (Ty::Float, Value::Number(n)) => {
                let n = Literal::f64_unsuffixed(n.as_f64().ok_or_else(bad)?);
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
                let inner = self.value_expr(vty, v, owner)?;
                let (name, variant) = (ident(name), ident(variant));
                quote!(#name::#variant(#inner))
            }
            (Ty::Struct(name), Value::Object(map)) => {
                let s = &self.model.structs[name];
                let mut inits = Vec::new();
                for f in &s.fields {
                    let fname = ident(&f.rust_name);
                    let expr = match map.get(&f.json_name) {
                        Some(v) => self.value_expr(&f.ty, v, name)?,
                        None => self.missing_expr(f, name)?.ok_or_else(bad)?,
                    };
                    inits.push(quote!(#fname: #expr));
                }
                let extra = s.open.then(|| quote!(extra: Default::default(),));
                let name = ident(name);
                quote!(#name { #(#inits,)* #extra })
            }
            (Ty::Vec(_) | Ty::Map(_) | Ty::JsonObject | Ty::ReferencedComponents, v)
                if v.as_array().is_some_and(Vec::is_empty)
                    || v.as_object().is_some_and(|m| m.is_empty()) =>
            {
                quote!(Default::default())
            }
            (Ty::Json, Value::Null) => quote!(serde_json::Value::Null),
            (Ty::Json, Value::Object(map)) if map.is_empty() => {
                quote!(serde_json::Value::Object(Default::default()))
            }
            _ => return Err(bad()),
        })
    }

    /// A Rust pattern matching a JSON value of type `ty` (a legacy value to upgrade).
    fn value_pattern(&self, ty: &Ty, value: &Value, owner: &str) -> Result<TokenStream, Error> {
        match (ty, value) {
            (Ty::Bool | Ty::Int | Ty::Enum(_), _) => self.value_expr(ty, value, owner),
            (Ty::Option(inner), v) if !v.is_null() => {
                let inner = self.value_pattern(inner, v, owner)?;
                Ok(quote!(Some(#inner)))
            }
            (Ty::Union(name), v) => {
                let json = match v {
                    Value::Bool(_) => "boolean",
                    Value::Number(_) => "integer",
                    Value::String(_) => "string",
                    _ => "",
                };
                let (variant, vty) = self.model.unions[name]
                    .variants
                    .iter()
                    .find(|(_, t)| crate::read::json_type(t) == json)
                    .ok_or_else(|| self.no_pattern(ty, value, owner))?;
                let inner = self.value_pattern(vty, v, owner)?;
                let (name, variant) = (ident(name), ident(variant));
                Ok(quote!(#name::#variant(#inner)))
            }
            _ => Err(self.no_pattern(ty, value, owner)),
        }
    }

    fn no_pattern(&self, ty: &Ty, value: &Value, owner: &str) -> Error {
        Error::Unsupported {
            file: "(declared)".into(),
            pointer: format!("/$defs/{owner}"),
            message: format!("no rule for a legacy value {value} of type {ty:?} as a pattern"),
        }
    }

    /// The value of a missing field, or `None` when it is required.
    fn missing_expr(&self, f: &Field, owner: &str) -> Result<Option<TokenStream>, Error> {
        Ok(match &f.missing {
            Missing::Required => None,
            Missing::Default(v) => Some(self.value_expr(&f.ty, v, owner)?),
            Missing::Empty | Missing::FreshId => Some(quote!(Default::default())),
        })
    }

    fn string_enum(&self, e: &StrEnum) -> TokenStream {
        let name = ident(&e.name);
        let fallback = format!(
            "One of the values {}.",
            e.variants
                .iter()
                .map(|(value, _)| format!("`{value}`"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let docs = doc(Some(e.doc.as_deref().unwrap_or(&fallback)));
        let variants = e.variants.iter().map(|(value, variant)| {
            let (v, text) = (ident(variant), format!(" `{value}`"));
            let rename = (value != variant).then(|| quote!(#[agentspec(rename = #value)]));
            quote!(#[doc = #text] #rename #v)
        });
        let ord = e.is_version.then(|| quote!(PartialOrd, Ord,));
        let krate = self.crate_setting().map(|c| quote!(#[agentspec(#c)]));
        quote! {
            #docs
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, #ord AgentSpec)]
            #[non_exhaustive]
            #krate
            pub enum #name { #( #variants, )* }
        }
    }

    fn container(&self, settings: Vec<TokenStream>) -> TokenStream {
        let settings: Vec<TokenStream> = settings.into_iter().chain(self.crate_setting()).collect();
        if settings.is_empty() {
            TokenStream::new()
        } else {
            quote!(#[agentspec(#( #settings ),*)])
        }
    }

    /// A value struct, or (with `fields_of`) the `<Family>Fields` of a family.
    fn value_struct(
        &self,
        s: &Struct,
        fields_of: Option<(&str, &str)>,
    ) -> Result<TokenStream, Error> {
        let name = ident(&s.name);
        let fallback = format!("The `{}` object of Agent Spec.", s.name);
        let docs = doc(Some(s.doc.as_deref().unwrap_or(&fallback)));
        let fields = self.fields(&s.name, &s.fields)?;
        let extra = s.open.then(|| {
            quote! {
                /// Keys the schema does not name, kept in order and written back.
                #[agentspec(extra)]
                pub extra: JsonObject,
            }
        });
        let mut settings = Vec::new();
        if let Some((family, schema_name)) = fields_of {
            let family = ident(family);
            settings.push(quote!(fields_of = #family));
            if family != schema_name {
                settings.push(quote!(schema_name = #schema_name));
            }
        }
        let container = self.container(settings);
        Ok(quote! {
            #docs
            #[derive(Debug, Clone, PartialEq, AgentSpec)]
            #[non_exhaustive]
            #container
            pub struct #name { #( #fields )* #extra }
        })
    }

    fn union(&self, u: &Union) -> TokenStream {
        let name = ident(&u.name);
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
        let variants = u.variants.iter().map(|(v, t)| {
            let (v, ty, json) = (ident(v), self.ty(t), crate::read::json_type(t));
            let text = format!(" A JSON {json}.");
            quote!(#[doc = #text] #[agentspec(json = #json)] #v(#ty))
        });
        let mut settings = vec![quote!(union)];
        if sensitive_unions(self.model).contains(&u.name) {
            settings.push(quote!(truthy));
        }
        let container = self.container(settings);
        quote! {
            #docs
            #[derive(Debug, Clone, PartialEq, AgentSpec)]
            #container
            pub enum #name { #( #variants, )* }
        }
    }

    fn component(&self, c: &Component) -> Result<TokenStream, Error> {
        let name = ident(&c.name);
        let name_str = &c.name;
        let fallback = format!("The `{name_str}` component.");
        let docs = doc(Some(c.doc.as_deref().unwrap_or(&fallback)));
        let fields = self.fields(&c.name, &c.fields)?;
        let mut settings = vec![quote!(component = #name_str)];
        if c.since != Version(25, 4, 1) {
            let since = c.since.to_string();
            settings.push(quote!(since = #since));
        }
        settings.extend(self.constants(&c.fields));
        let container = self.container(settings);
        Ok(quote! {
            #docs
            #[derive(Debug, Clone, PartialEq, AgentSpec)]
            #[non_exhaustive]
            #container
            pub struct #name {
                #( #fields )*
                /// Keys Agent Spec does not define for this component, in the order read: loaded
                /// with an `unknown-field` warning (pyagentspec ignores them) and written back after
                /// the defined ones, unless writing drops them (`WriteOptions::drop_unknown`).
                #[agentspec(extra)]
                pub extra: JsonObject,
            }
        })
    }

    fn family_enum(
        &self,
        name: &str,
        schema_name: &str,
        doc_text: Option<&str>,
        members: &[String],
        versions: Option<&[Version]>,
    ) -> TokenStream {
        let ename = ident(name);
        let fallback = format!(
            "A component of the `{schema_name}` family: one of {}, or a plugin component.",
            members
                .iter()
                .map(|m| format!("`{m}`"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let docs = doc(Some(doc_text.unwrap_or(&fallback)));
        let variants = members.iter().map(|m| {
            let (v, text) = (ident(m), format!(" A `{m}`."));
            quote!(#[doc = #text] #v(Box<#v>))
        });
        let mut settings = vec![quote!(family = #schema_name)];
        if let Some(versions) = versions {
            let versions = versions.iter().map(ToString::to_string);
            settings.push(quote!(versions( #( #versions ),* )));
        }
        let container = self.container(settings);
        quote! {
            #docs
            #[derive(Debug, Clone, PartialEq, AgentSpec)]
            #[non_exhaustive]
            #container
            pub enum #ename {
                #( #variants, )*
                /// A plugin component: a type the schemas do not define.
                Plugin(Plugin),
            }
        }
    }

    fn family(&self, f: &Family) -> TokenStream {
        self.family_enum(&f.name, &f.schema_name, f.doc.as_deref(), &f.members, None)
    }

    /// `Component` (every concrete component: document roots and `$referenced_components`
    /// entries), with the version list.
    fn component_set(&self) -> TokenStream {
        let members: Vec<String> = self.model.components.keys().cloned().collect();
        self.family_enum(
            "Component",
            "Component",
            Some("Any concrete component: the root of a document, or an entry of `$referenced_components`."),
            &members,
            Some(&self.model.versions),
        )
    }

    /// `<Family>Fields`: the fields every member of a family has (same key and Rust type),
    /// for plugin components that extend the family.
    fn family_fields(
        &self,
        family: &str,
        schema_name: &str,
        members: &[String],
    ) -> Result<TokenStream, Error> {
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
                // a base field exists, and is written, from the first version any member has it
                let same = |g: &&Field| g.json_name == f.json_name;
                let members = || components.iter().filter_map(|c| c.fields.iter().find(same));
                f.since = members().map(|g| g.since).min().unwrap_or(f.since);
                f.written = match members().filter_map(Field::written_since).min() {
                    None => Some(Written::Never),
                    Some(v) if v == f.since => None,
                    Some(v) => Some(Written::From(v)),
                };
                f
            })
            .collect();
        let strukt = Struct {
            name: format!("{family}Fields"),
            doc: Some(format!(
                "The fields every `{family}` has: the base field of a plugin component that \
                 extends it."
            )),
            fields,
            open: false,
        };
        self.value_struct(&strukt, Some((family, schema_name)))
    }
}
