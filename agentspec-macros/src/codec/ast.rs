//! The derive's own small AST: what a type says about its wire format, read from its
//! `#[agentspec(...)]` attributes (or, for a plugin, `#[component(...)]`), every mistake
//! collected with its span.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{
    Data, DeriveInput, Expr, Fields, GenericArgument, Ident, LitStr, Pat, Path, PathArguments, Type,
};

use crate::tool::Errors;

/// Which derive reads the type: `#[derive(AgentSpec)]` (`#[agentspec]` attributes, what the
/// generator emits) or `#[derive(Component)]` (`#[component]` attributes, a plugin).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Front {
    AgentSpec,
    Plugin,
}

impl Front {
    pub fn attr(self) -> &'static str {
        match self {
            Front::AgentSpec => "agentspec",
            Front::Plugin => "component",
        }
    }
}

/// An Agent Spec version, read at expansion time; `NEVER` for a field pyagentspec never
/// writes unless it holds something else than its default.
pub type Ver = (u16, u16, u16);
pub const NEVER: Ver = (u16::MAX, u16::MAX, u16::MAX);

/// Keys a plugin cannot use for its own fields: the writer owns them.
pub const RESERVED: &[&str] = &[
    "component_type",
    "component_plugin_name",
    "component_plugin_version",
    "$referenced_components",
    "agentspec_version",
    "$component_ref",
];

pub struct Container {
    pub ident: Ident,
    pub krate: Path,
    /// The component set walks report (`Component`).
    pub set: Path,
    pub doc: Option<String>,
    pub kind: Kind,
}

pub enum Kind {
    Component(Component),
    Value(ValueStruct),
    StrEnum(Vec<StrVariant>),
    Union(Union),
    Family(Family),
}

pub struct Component {
    pub component_type: String,
    pub since: Option<Ver>,
    pub constants: Vec<Constant>,
    pub fields: Vec<FieldAst>,
    /// The field that keeps the keys Agent Spec does not define (`#[agentspec(extra)]`):
    /// read with an `unknown-field` warning and written back.
    pub extra: Option<Ident>,
    pub plugin: Option<Box<Plugin>>,
}

/// What only a plugin has.
pub struct Plugin {
    pub base: (Ident, Type),
    pub plugin_name: Option<LitStr>,
    pub plugin_version: Option<LitStr>,
    pub extends: Option<Path>,
    pub io: Option<Path>,
}

pub struct ValueStruct {
    pub fields: Vec<FieldAst>,
    /// The field keeping keys the schema does not name.
    pub extra: Option<Ident>,
    /// `<Family>Fields`: the family, and its name in the published schema.
    pub fields_of: Option<(Path, String)>,
}

/// A key whose value the schema fixes: no Rust field, checked on load, written as is.
pub struct Constant {
    pub key: String,
    pub value: String,
    /// The key of the field it is written after (`None`: first).
    pub after: Option<String>,
    pub since: Option<Ver>,
}

pub struct FieldAst {
    pub ident: Ident,
    pub ty: Type,
    pub key: String,
    pub doc: Option<String>,
    pub id: bool,
    pub referenced: bool,
    pub sensitive: bool,
    /// A secret written as it is (pyagentspec does not redact it).
    pub clear: bool,
    pub informational: bool,
    pub skip_null: bool,
    pub since: Option<Ver>,
    pub default: Default,
    pub minimum: Option<(Expr, bool)>,
    pub gate: Option<Gate>,
    pub upgrades: Vec<Upgrade>,
}

pub enum Default {
    Required,
    /// `Default::default()`.
    Empty,
    /// A fresh unique id (a component's `id`).
    FreshId,
    Expr(Expr),
}

pub struct Gate {
    pub since: Ver,
    pub check: GateCheck,
    pub what: String,
}

pub enum GateCheck {
    Equals(String),
    Function(Ident),
}

pub struct Upgrade {
    pub from: Pat,
    pub to: Expr,
    pub message: String,
}

pub struct StrVariant {
    pub ident: Ident,
    pub value: String,
}

pub struct Union {
    pub variants: Vec<(Ident, Type, String)>,
    pub truthy: bool,
}

pub struct Family {
    pub schema_name: String,
    /// `(variant, component type)`; the `Plugin` variant is not listed.
    pub members: Vec<(Ident, Type)>,
    /// The versions, when this is the set of every component (the document root).
    pub versions: Option<Vec<Ver>>,
}

pub fn parse_version(lit: &LitStr) -> syn::Result<Ver> {
    let text = lit.value();
    let mut parts = text.split('.').map(|p| p.parse::<u16>().ok());
    let v = (|| Some((parts.next()??, parts.next()??, parts.next()??)))();
    match v {
        Some(v) if parts.next().is_none() => Ok(v),
        _ => Err(syn::Error::new(
            lit.span(),
            "a version is MAJOR.MINOR.PATCH (`\"25.4.1\"`)",
        )),
    }
}

fn set<T>(slot: &mut Option<T>, value: T, meta: &ParseNestedMeta) -> syn::Result<()> {
    if slot.is_some() {
        return Err(meta.error("duplicate setting"));
    }
    *slot = Some(value);
    Ok(())
}

fn flag(slot: &mut bool, meta: &ParseNestedMeta) -> syn::Result<()> {
    if *slot {
        return Err(meta.error("duplicate setting"));
    }
    *slot = true;
    Ok(())
}

/// Reads every `#[name(...)]` attribute with `f`, collecting its errors.
fn each_setting(
    attrs: &[syn::Attribute],
    name: &str,
    errors: &mut Errors,
    mut f: impl FnMut(ParseNestedMeta) -> syn::Result<()>,
) {
    for attr in attrs.iter().filter(|a| a.path().is_ident(name)) {
        if let Err(e) = attr.parse_nested_meta(&mut f) {
            errors.push(e);
        }
    }
}

fn key_of(meta: &ParseNestedMeta) -> String {
    meta.path
        .get_ident()
        .map(ToString::to_string)
        .unwrap_or_default()
}

/// A doc comment's text (`None` when absent or built by a macro).
pub fn literal_doc(attrs: &[syn::Attribute]) -> Option<String> {
    match crate::docs::take(&mut attrs.to_vec()).summary {
        Some(crate::docs::Text::Literal(text)) => Some(text),
        _ => None,
    }
}

/// Whether `ty` is `Option<_>` (such a field may be absent: it reads as `None`).
pub fn is_option(ty: &Type) -> bool {
    last_segment(ty).is_some_and(|s| s.ident == "Option")
}

fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(p) => p.path.segments.last(),
        _ => None,
    }
}

/// Whether `ty` is `Sensitive<_>` or `Option<Sensitive<_>>`.
fn is_sensitive(ty: &Type) -> bool {
    let Some(segment) = last_segment(ty) else {
        return false;
    };
    if segment.ident == "Sensitive" {
        return true;
    }
    match &segment.arguments {
        PathArguments::AngleBracketed(args) if segment.ident == "Option" => {
            matches!(args.args.first(), Some(GenericArgument::Type(inner)) if is_sensitive(inner))
        }
        _ => false,
    }
}

/// Reads the container: its settings, then its fields or variants.
pub fn parse(input: &DeriveInput, front: Front, errors: &mut Errors) -> Option<Container> {
    let settings = container_settings(input, front, errors);
    if !input.generics.params.is_empty() {
        errors.at(
            input.generics.span(),
            "an Agent Spec type cannot be generic: its `component_type` and fields name one type",
        );
    }
    let krate = settings
        .krate
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(::agentspec_types));
    let set = settings.set.clone().unwrap_or_else(|| match front {
        Front::Plugin => syn::parse_quote!(#krate::Component),
        Front::AgentSpec => syn::parse_quote!(Component),
    });
    let kind = match &input.data {
        Data::Struct(s) => {
            let Fields::Named(named) = &s.fields else {
                errors.at(
                    input.ident.span(),
                    match front {
                        Front::Plugin => {
                            "`#[derive(Component)]` needs a struct with named fields (one of them the \
                             `#[component(base)]` fields of the family it extends)"
                        }
                        Front::AgentSpec => "`#[derive(AgentSpec)]` needs named fields",
                    },
                );
                return None;
            };
            struct_kind(input, front, settings, named, errors)?
        }
        Data::Enum(e) if front == Front::AgentSpec => enum_kind(e, settings, errors)?,
        _ => {
            errors.at(
                input.ident.span(),
                "`#[derive(Component)]` needs a struct with named fields (one of them the \
                 `#[component(base)]` fields of the family it extends)",
            );
            return None;
        }
    };
    Some(Container {
        ident: input.ident.clone(),
        krate,
        set,
        doc: literal_doc(&input.attrs),
        kind,
    })
}

#[derive(Default)]
struct Settings {
    component: Option<LitStr>,
    since: Option<Ver>,
    constants: Vec<Constant>,
    fields_of: Option<Path>,
    schema_name: Option<LitStr>,
    family: Option<LitStr>,
    union: bool,
    truthy: bool,
    versions: Option<Vec<Ver>>,
    krate: Option<Path>,
    set: Option<Path>,
    plugin_name: Option<LitStr>,
    plugin_version: Option<LitStr>,
    extends: Option<Path>,
    io: Option<Path>,
}

fn container_settings(input: &DeriveInput, front: Front, errors: &mut Errors) -> Settings {
    let mut out = Settings::default();
    each_setting(&input.attrs, front.attr(), errors, |meta| {
        let key = key_of(&meta);
        match (front, key.as_str()) {
            (Front::AgentSpec, "component") | (Front::Plugin, "component_type") => {
                set(&mut out.component, meta.value()?.parse()?, &meta)
            }
            (Front::AgentSpec, "since") => {
                let v = parse_version(&meta.value()?.parse()?)?;
                set(&mut out.since, v, &meta)
            }
            (Front::AgentSpec, "constant") => {
                out.constants.push(constant(&meta)?);
                Ok(())
            }
            (Front::AgentSpec, "fields_of") => {
                set(&mut out.fields_of, meta.value()?.parse()?, &meta)
            }
            (Front::AgentSpec, "schema_name") => {
                set(&mut out.schema_name, meta.value()?.parse()?, &meta)
            }
            (Front::AgentSpec, "family") => set(&mut out.family, meta.value()?.parse()?, &meta),
            (Front::AgentSpec, "union") => flag(&mut out.union, &meta),
            (Front::AgentSpec, "truthy") => flag(&mut out.truthy, &meta),
            (Front::AgentSpec, "versions") => {
                let content;
                syn::parenthesized!(content in meta.input);
                let lits = syn::punctuated::Punctuated::<LitStr, syn::Token![,]>::parse_terminated(
                    &content,
                )?;
                let versions = lits
                    .iter()
                    .map(parse_version)
                    .collect::<syn::Result<Vec<_>>>()?;
                set(&mut out.versions, versions, &meta)
            }
            (Front::AgentSpec, "set") => set(&mut out.set, meta.value()?.parse()?, &meta),
            (Front::Plugin, "plugin_name") => {
                set(&mut out.plugin_name, meta.value()?.parse()?, &meta)
            }
            (Front::Plugin, "plugin_version") => {
                set(&mut out.plugin_version, meta.value()?.parse()?, &meta)
            }
            (Front::Plugin, "extends") => set(&mut out.extends, meta.value()?.parse()?, &meta),
            (Front::Plugin, "io") => set(&mut out.io, meta.value()?.parse()?, &meta),
            (_, "crate") => {
                let lit: LitStr = meta.value()?.parse()?;
                set(&mut out.krate, lit.parse()?, &meta)
            }
            (Front::Plugin, _) => Err(meta.error(
                "unknown `component` setting; expected `extends`, `component_type`, \
                     `plugin_name`, `plugin_version`, `io` or `crate`",
            )),
            (Front::AgentSpec, _) => Err(meta.error(
                "unknown `agentspec` setting; expected `component`, `since`, `constant`, \
                     `fields_of`, `schema_name`, `family`, `union`, `truthy`, `versions`, `set` \
                     or `crate`",
            )),
        }
    });
    out
}

/// `constant(key = "k", value = "v", after = "field", since = "x.y.z" | unwritten)`.
fn constant(meta: &ParseNestedMeta) -> syn::Result<Constant> {
    let (mut key, mut value, mut after, mut since) = (None, None, None, None);
    meta.parse_nested_meta(|inner| match key_of(&inner).as_str() {
        "key" => set(&mut key, inner.value()?.parse::<LitStr>()?.value(), &inner),
        "value" => set(
            &mut value,
            inner.value()?.parse::<LitStr>()?.value(),
            &inner,
        ),
        "after" => set(
            &mut after,
            inner.value()?.parse::<LitStr>()?.value(),
            &inner,
        ),
        "since" => {
            let v = parse_version(&inner.value()?.parse()?)?;
            set(&mut since, v, &inner)
        }
        "unwritten" => set(&mut since, NEVER, &inner),
        _ => Err(inner.error(
            "unknown `constant` setting; expected `key`, `value`, `after`, `since` or `unwritten`",
        )),
    })?;
    match (key, value) {
        (Some(key), Some(value)) => Ok(Constant {
            key,
            value,
            after,
            since,
        }),
        _ => Err(meta.error("a `constant` needs a `key` and a `value`")),
    }
}

fn struct_kind(
    input: &DeriveInput,
    front: Front,
    settings: Settings,
    named: &syn::FieldsNamed,
    errors: &mut Errors,
) -> Option<Kind> {
    let mut fields = Vec::new();
    let mut base = None;
    let mut extra = None;
    for field in &named.named {
        let ident = field.ident.clone()?;
        let parsed = field_attrs(field, front, errors);
        if parsed.base {
            if base.is_some() {
                errors.at(ident.span(), "only one field can be `#[component(base)]`");
            }
            base = Some((ident, field.ty.clone()));
            continue;
        }
        if parsed.extra {
            extra = Some(ident);
            continue;
        }
        let name = ident.to_string();
        let key = parsed
            .rename
            .unwrap_or_else(|| name.trim_start_matches("r#").to_owned());
        if front == Front::Plugin && RESERVED.contains(&key.as_str()) {
            errors.at(
                ident.span(),
                format!("`{key}` is written by the runtime; a plugin field cannot use it"),
            );
        }
        if fields.iter().any(|o: &FieldAst| o.key == key) {
            errors.at(ident.span(), format!("two fields are written as `{key}`"));
        }
        let default = match parsed.default {
            Some(d) => d,
            None if parsed.id => Default::FreshId,
            None if parsed.referenced || is_option(&field.ty) => Default::Empty,
            None => Default::Required,
        };
        fields.push(FieldAst {
            sensitive: parsed.sensitive || is_sensitive(&field.ty),
            ident,
            ty: field.ty.clone(),
            key,
            doc: literal_doc(&field.attrs),
            id: parsed.id,
            referenced: parsed.referenced,
            informational: parsed.informational,
            skip_null: parsed.skip_null,
            clear: parsed.clear,
            since: parsed.since,
            default,
            minimum: parsed.minimum,
            gate: parsed.gate,
            upgrades: parsed.upgrades,
        });
    }
    let component = settings
        .component
        .as_ref()
        .map(LitStr::value)
        .or_else(|| (front == Front::Plugin).then(|| input.ident.to_string()));
    if let (Some(t), Some(lit)) = (&component, &settings.component)
        && (t.is_empty() || t.chars().any(char::is_whitespace))
    {
        errors.at(
            lit.span(),
            "a `component_type` is a non-empty name without spaces",
        );
    }
    match (front, component) {
        (Front::Plugin, Some(component_type)) => {
            let Some(base) = base else {
                errors.at(
                    input.ident.span(),
                    "a plugin component needs a `#[component(base)]` field holding the fields of \
                     the family it extends: `NodeFields` for a Node, `ToolFields` for a Tool, …, \
                     `ComponentFields` for a component that extends no family",
                );
                return None;
            };
            Some(Kind::Component(Component {
                component_type,
                since: None,
                constants: Vec::new(),
                fields,
                extra: None,
                plugin: Some(Box::new(Plugin {
                    base,
                    plugin_name: settings.plugin_name,
                    plugin_version: settings.plugin_version,
                    extends: settings.extends,
                    io: settings.io,
                })),
            }))
        }
        (_, Some(component_type)) => Some(Kind::Component(Component {
            component_type,
            since: settings.since,
            constants: settings.constants,
            fields,
            extra,
            plugin: None,
        })),
        (_, None) => {
            let fields_of = settings.fields_of.map(|family| {
                let name = settings.schema_name.as_ref().map_or_else(
                    || {
                        family
                            .segments
                            .last()
                            .map(|s| s.ident.to_string())
                            .unwrap_or_default()
                    },
                    LitStr::value,
                );
                (family, name)
            });
            Some(Kind::Value(ValueStruct {
                fields,
                extra,
                fields_of,
            }))
        }
    }
}

#[derive(Default)]
struct FieldAttrs {
    base: bool,
    extra: bool,
    id: bool,
    referenced: bool,
    sensitive: bool,
    informational: bool,
    skip_null: bool,
    clear: bool,
    rename: Option<String>,
    since: Option<Ver>,
    default: Option<Default>,
    minimum: Option<(Expr, bool)>,
    gate: Option<Gate>,
    upgrades: Vec<Upgrade>,
}

fn field_attrs(field: &syn::Field, front: Front, errors: &mut Errors) -> FieldAttrs {
    let mut out = FieldAttrs::default();
    each_setting(&field.attrs, front.attr(), errors, |meta| {
        let key = key_of(&meta);
        match (front, key.as_str()) {
                (Front::Plugin, "base") => flag(&mut out.base, &meta),
                (_, "default") => {
                    let value = if meta.input.peek(syn::Token![=]) {
                        Default::Expr(meta.value()?.parse()?)
                    } else {
                        Default::Empty
                    };
                    set(&mut out.default, value, &meta)
                }
                (_, "rename") => {
                    let lit: LitStr = meta.value()?.parse()?;
                    set(&mut out.rename, lit.value(), &meta)
                }
                (_, "sensitive") => flag(&mut out.sensitive, &meta),
                (Front::AgentSpec, "required") => set(&mut out.default, Default::Required, &meta),
                (Front::AgentSpec, "extra") => flag(&mut out.extra, &meta),
                (Front::AgentSpec, "id") => flag(&mut out.id, &meta),
                (Front::AgentSpec, "referenced") => {
                    set(&mut out.rename, "$referenced_components".into(), &meta)?;
                    flag(&mut out.referenced, &meta)
                }
                (Front::AgentSpec, "informational") => flag(&mut out.informational, &meta),
                (Front::AgentSpec, "skip_null") => flag(&mut out.skip_null, &meta),
                (Front::AgentSpec, "clear") => flag(&mut out.clear, &meta),
                (Front::AgentSpec, "since") => {
                    let v = parse_version(&meta.value()?.parse()?)?;
                    set(&mut out.since, v, &meta)
                }
                (Front::AgentSpec, "unwritten") => set(&mut out.since, NEVER, &meta),
                (Front::AgentSpec, "minimum") => {
                    set(&mut out.minimum, (meta.value()?.parse()?, true), &meta)
                }
                (Front::AgentSpec, "exclusive_minimum") => {
                    set(&mut out.minimum, (meta.value()?.parse()?, false), &meta)
                }
                (Front::AgentSpec, "gate") => {
                    let gate = gate(&meta)?;
                    set(&mut out.gate, gate, &meta)
                }
                (Front::AgentSpec, "upgrade") => {
                    out.upgrades.push(upgrade(&meta)?);
                    Ok(())
                }
                (Front::Plugin, _) => Err(meta.error(
                    "unknown `component` field setting; expected `base`, `default`, \
                     `default = expr`, `rename` or `sensitive`",
                )),
                (Front::AgentSpec, _) => Err(meta.error(
                    "unknown `agentspec` field setting; expected `id`, `referenced`, `extra`, \
                     `required`, `rename`, `since`, `unwritten`, `default`, `sensitive`, `informational`, \
                     `skip_null`, `clear`, `minimum`, `exclusive_minimum`, `gate` or `upgrade`",
                )),
            }
    });
    out
}

/// `gate(since = "x.y.z", equals = "VALUE" | check = function, what = "...")`.
fn gate(meta: &ParseNestedMeta) -> syn::Result<Gate> {
    let (mut since, mut check, mut what) = (None, None, None);
    meta.parse_nested_meta(|inner| match key_of(&inner).as_str() {
        "since" => {
            let v = parse_version(&inner.value()?.parse()?)?;
            set(&mut since, v, &inner)
        }
        "equals" => {
            let lit: LitStr = inner.value()?.parse()?;
            set(&mut check, GateCheck::Equals(lit.value()), &inner)
        }
        "check" => set(
            &mut check,
            GateCheck::Function(inner.value()?.parse()?),
            &inner,
        ),
        "what" => set(&mut what, inner.value()?.parse::<LitStr>()?.value(), &inner),
        _ => {
            Err(inner
                .error("unknown `gate` setting; expected `since`, `equals`, `check` or `what`"))
        }
    })?;
    match (since, check, what) {
        (Some(since), Some(check), Some(what)) => Ok(Gate { since, check, what }),
        _ => Err(meta.error("a `gate` needs `since`, `equals` or `check`, and `what`")),
    }
}

/// `upgrade(from = PATTERN, to = EXPR, message = "...")`.
fn upgrade(meta: &ParseNestedMeta) -> syn::Result<Upgrade> {
    let (mut from, mut to, mut message) = (None, None, None);
    meta.parse_nested_meta(|inner| match key_of(&inner).as_str() {
        "from" => set(&mut from, Pat::parse_single(inner.value()?)?, &inner),
        "to" => set(&mut to, inner.value()?.parse()?, &inner),
        "message" => set(
            &mut message,
            inner.value()?.parse::<LitStr>()?.value(),
            &inner,
        ),
        _ => Err(inner.error("unknown `upgrade` setting; expected `from`, `to` or `message`")),
    })?;
    match (from, to, message) {
        (Some(from), Some(to), Some(message)) => Ok(Upgrade { from, to, message }),
        _ => Err(meta.error("an `upgrade` needs `from`, `to` and `message`")),
    }
}

fn enum_kind(e: &syn::DataEnum, settings: Settings, errors: &mut Errors) -> Option<Kind> {
    if let Some(family) = settings.family {
        let mut members = Vec::new();
        for v in &e.variants {
            if v.ident == "Plugin" {
                continue;
            }
            match single_type(&v.fields) {
                Some(ty) => members.push((v.ident.clone(), ty)),
                None => errors.at(
                    v.ident.span(),
                    "a family's variants hold one component each (`Agent(Box<Agent>)`)",
                ),
            }
        }
        return Some(Kind::Family(Family {
            schema_name: family.value(),
            members,
            versions: settings.versions,
        }));
    }
    if settings.union {
        let mut variants = Vec::new();
        for v in &e.variants {
            let mut json = None::<String>;
            each_setting(&v.attrs, "agentspec", errors, |meta| {
                match key_of(&meta).as_str() {
                    "json" => set(&mut json, meta.value()?.parse::<LitStr>()?.value(), &meta),
                    _ => Err(meta.error("unknown union variant setting; expected `json`")),
                }
            });
            match (single_type(&v.fields), json) {
                (Some(ty), Some(json)) => variants.push((v.ident.clone(), ty, json)),
                _ => errors.at(
                    v.ident.span(),
                    "a union's variants hold one value each, with its JSON type \
                     (`#[agentspec(json = \"string\")]`)",
                ),
            }
        }
        return Some(Kind::Union(Union {
            variants,
            truthy: settings.truthy,
        }));
    }
    let mut variants = Vec::new();
    for v in &e.variants {
        if !matches!(v.fields, Fields::Unit) {
            errors.at(
                v.ident.span(),
                "a string enum has unit variants; a union says `#[agentspec(union)]`, a family \
                 `#[agentspec(family = \"Name\")]`",
            );
            continue;
        }
        let mut value = None::<String>;
        each_setting(&v.attrs, "agentspec", errors, |meta| {
            match key_of(&meta).as_str() {
                "rename" => set(&mut value, meta.value()?.parse::<LitStr>()?.value(), &meta),
                _ => Err(meta.error("unknown enum variant setting; expected `rename`")),
            }
        });
        variants.push(StrVariant {
            value: value.unwrap_or_else(|| v.ident.to_string()),
            ident: v.ident.clone(),
        });
    }
    Some(Kind::StrEnum(variants))
}

fn single_type(fields: &Fields) -> Option<Type> {
    match fields {
        Fields::Unnamed(u) if u.unnamed.len() == 1 => Some(u.unnamed[0].ty.clone()),
        _ => None,
    }
}

/// The span to blame for the container.
pub fn span_of(input: &DeriveInput) -> Span {
    input.ident.span()
}
