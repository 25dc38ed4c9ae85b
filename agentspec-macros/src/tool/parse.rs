//! `#[tool]`'s own small AST: the attribute's settings and one entry per argument, read
//! and checked from the syn nodes, every error collected with its span.

use proc_macro2::{Span, TokenStream};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{
    Error, Expr, FnArg, GenericArgument, Ident, ItemFn, LitBool, LitStr, Pat, Path, PathArguments,
    ReturnType, Type,
};

use crate::docs::{self, Text};

/// Collects errors so that one build reports every mistake of an item.
#[derive(Default)]
pub struct Errors(Option<Error>);

impl Errors {
    pub fn push(&mut self, error: Error) {
        match &mut self.0 {
            Some(e) => e.combine(error),
            None => self.0 = Some(error),
        }
    }
    pub fn at(&mut self, span: Span, message: impl std::fmt::Display) {
        self.push(Error::new(span, message));
    }
    pub fn finish(self) -> Result<(), Error> {
        self.0.map_or(Ok(()), Err)
    }
}

/// The settings of `#[tool(...)]`.
#[derive(Default)]
pub struct ToolAttr {
    pub name: Option<LitStr>,
    pub description: Option<LitStr>,
    pub requires_confirmation: bool,
    pub client: bool,
    pub output_title: Option<LitStr>,
    pub output_description: Option<LitStr>,
    pub output_span: Option<Span>,
    pub fields: Option<Span>,
    pub krate: Option<Path>,
}

const TOOL_KEYS: &str = "`name`, `description`, `requires_confirmation`, `client`, `output(title, description)`, \
     `outputs = fields`, `crate`";

/// Fills `slot` from a `key = value` setting, refusing a second one.
fn set<T>(slot: &mut Option<T>, value: T, meta: &syn::meta::ParseNestedMeta) -> syn::Result<()> {
    if slot.is_some() {
        return Err(meta.error(format!("duplicate `{}`", path_name(&meta.path))));
    }
    *slot = Some(value);
    Ok(())
}

fn path_name(path: &Path) -> String {
    path.get_ident()
        .map_or_else(|| "?".to_owned(), ToString::to_string)
}

/// Reads `#[tool(...)]`; every problem goes to `errors`.
pub fn tool_attr(args: TokenStream, errors: &mut Errors) -> ToolAttr {
    let mut attr = ToolAttr::default();
    let mut seen: Vec<String> = Vec::new();
    let parser = syn::meta::parser(|meta| {
        let key = path_name(&meta.path);
        if seen.contains(&key) {
            return Err(meta.error(format!("duplicate `{key}`")));
        }
        seen.push(key.clone());
        match key.as_str() {
            "name" => attr.name = Some(meta.value()?.parse()?),
            "description" => attr.description = Some(meta.value()?.parse()?),
            "requires_confirmation" => {
                attr.requires_confirmation = if meta.input.peek(syn::Token![=]) {
                    meta.value()?.parse::<LitBool>()?.value
                } else {
                    true
                };
            }
            "client" => attr.client = true,
            "crate" => {
                let lit: LitStr = meta.value()?.parse()?;
                attr.krate = Some(lit.parse()?);
            }
            "outputs" => {
                let value: Ident = meta.value()?.parse()?;
                if value != "fields" {
                    return Err(Error::new(
                        value.span(),
                        "expected `outputs = fields` (one output per field of the returned struct)",
                    ));
                }
                attr.fields = Some(value.span());
            }
            "output" => {
                attr.output_span = Some(meta.path.span());
                meta.parse_nested_meta(|inner| {
                    let slot = if inner.path.is_ident("title") {
                        &mut attr.output_title
                    } else if inner.path.is_ident("description") {
                        &mut attr.output_description
                    } else {
                        return Err(inner
                            .error("unknown `output` setting; expected `title` or `description`"));
                    };
                    let lit: LitStr = inner.value()?.parse()?;
                    set(slot, lit, &inner)
                })?;
            }
            _ => {
                return Err(meta.error(format!(
                    "unknown `tool` setting `{key}`; expected one of {TOOL_KEYS}"
                )));
            }
        }
        Ok(())
    });
    if let Err(e) = syn::parse::Parser::parse2(parser, args) {
        errors.push(e);
    }
    if let Some(name) = &attr.name {
        check_name(name, errors);
    }
    if let (Some(fields), Some(_)) = (attr.fields, attr.output_span) {
        errors.at(
            fields,
            "`outputs = fields` names each output after a field; it cannot be combined with `output(...)`",
        );
    }
    attr
}

/// Tool names: 1 to 64 ASCII letters, digits, `_` and `-` (what LLM providers accept).
pub fn check_name(name: &LitStr, errors: &mut Errors) {
    let value = name.value();
    let valid = !value.is_empty()
        && value.len() <= 64
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !valid {
        errors.at(
            name.span(),
            format!(
                "invalid tool name `{value}`: a tool name has 1 to 64 ASCII letters, digits, `_` or `-`"
            ),
        );
    }
}

/// How an argument is passed to the function from its owned, deserialized value.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Pass {
    Value,
    Ref,
    RefMut,
    /// `Option<&str>`, `Option<&[T]>`: `.as_deref()`.
    OptionDeref,
    /// `Option<&T>`: `.as_ref()`.
    OptionRef,
}

/// One argument of the function: one input of the tool.
pub struct Arg {
    pub ident: Ident,
    /// The type deserialized and described (references made owned).
    pub owned: Type,
    pub pass: Pass,
    /// An `Option` type: absent reads as `null`, `default: null`.
    pub optional: bool,
    pub title: String,
    pub description: Option<Text>,
    pub default: Option<Expr>,
    /// The argument is `&str` and its default a `&str` made owned.
    pub str_default: bool,
    /// `#[state]`: not an input, but the value the tool type holds (`owned` is its type),
    /// lent to every call.
    pub state: bool,
}

/// What the function returns.
pub enum Returns {
    Nothing,
    Plain(Type),
    Result(Type),
}

/// The settings of `#[arg(...)]`.
#[derive(Default)]
struct ArgAttr {
    rename: Option<LitStr>,
    description: Option<LitStr>,
    default: Option<Expr>,
}

/// Takes the `#[arg(...)]` attributes off an argument and reads them.
fn arg_attr(attrs: &mut Vec<syn::Attribute>, errors: &mut Errors) -> ArgAttr {
    let mut out = ArgAttr::default();
    attrs.retain(|attr| {
        if !attr.path().is_ident("arg") {
            return true;
        }
        let result = attr.parse_nested_meta(|meta| match path_name(&meta.path).as_str() {
            "rename" => set(&mut out.rename, meta.value()?.parse()?, &meta),
            "description" => set(&mut out.description, meta.value()?.parse()?, &meta),
            "default" => set(&mut out.default, meta.value()?.parse()?, &meta),
            key => Err(meta.error(format!(
                "unknown `arg` setting `{key}`; expected `rename`, `description` or `default`"
            ))),
        });
        if let Err(e) = result {
            errors.push(e);
        }
        false
    });
    out
}

/// Reads the arguments of `item`, taking our attributes and doc comments off them.
pub fn args(item: &mut ItemFn, fn_docs: &docs::Docs, errors: &mut Errors) -> Vec<Arg> {
    let mut args = Vec::new();
    for input in &mut item.sig.inputs {
        let typed = match input {
            FnArg::Receiver(r) => {
                errors.at(
                    r.span(),
                    "`#[tool]` goes on a free function, not a method: a tool has no `self`; \
                     take the state as a `#[state] name: &T` argument instead",
                );
                continue;
            }
            FnArg::Typed(t) => t,
        };
        let Pat::Ident(pat) = &*typed.pat else {
            errors.at(
                typed.pat.span(),
                "a tool argument must be a plain name (it becomes the input's title)",
            );
            continue;
        };
        let ident = pat.ident.clone();
        if let Some(at) = typed.attrs.iter().position(|a| a.path().is_ident("state")) {
            let attr = typed.attrs.remove(at);
            if let Some(owned) = state_arg(&attr, typed, errors) {
                if let Some(first) = args.iter().find(|a: &&Arg| a.state) {
                    errors.at(
                        ident.span(),
                        format!(
                            "`{}` is already the tool's state; a tool has one `#[state]` argument \
                             (put what it needs in one struct)",
                            first.ident
                        ),
                    );
                }
                args.push(Arg {
                    ident,
                    owned,
                    pass: Pass::Ref,
                    optional: false,
                    title: String::new(),
                    description: None,
                    default: None,
                    str_default: false,
                    state: true,
                });
            }
            continue;
        }
        let docs = docs::take(&mut typed.attrs);
        let ArgAttr {
            rename,
            description: attr_description,
            default,
        } = arg_attr(&mut typed.attrs, errors);
        let name = ident.to_string();
        let name = name.strip_prefix("r#").unwrap_or(&name).to_owned();
        let title = match &rename {
            Some(lit) => {
                check_title(lit, errors);
                lit.value()
            }
            None => name.clone(),
        };
        let from_list = fn_docs.arguments.iter().find(|d| d.name == name);
        let description = match (docs.summary, from_list, &attr_description) {
            (Some(doc), None, None) => Some(doc),
            (None, Some(entry), None) => Some(Text::Literal(entry.text.clone())),
            (None, None, Some(lit)) => Some(Text::Literal(lit.value())),
            (None, None, None) => None,
            (_, _, _) => {
                errors.at(
                    ident.span(),
                    format!(
                        "`{name}` is described twice (by a doc comment, the `# Arguments` list \
                         or `#[arg(description)]`); keep one"
                    ),
                );
                None
            }
        };
        let (owned, pass, optional) = owned_type(&typed.ty, errors);
        let str_default = pass == Pass::Ref && is_str(&typed.ty);
        args.push(Arg {
            ident,
            owned,
            pass,
            optional,
            title,
            description,
            default,
            str_default,
            state: false,
        });
    }
    for entry in &fn_docs.arguments {
        if !args.iter().any(|a| {
            let n = a.ident.to_string();
            n.strip_prefix("r#").unwrap_or(&n) == entry.name
        }) {
            errors.at(
                entry.span,
                format!(
                    "the `# Arguments` list describes `{}`, which is not an argument of this function",
                    entry.name
                ),
            );
        }
    }
    for (i, a) in args.iter().enumerate() {
        if !a.state && args[..i].iter().any(|b| !b.state && b.title == a.title) {
            errors.at(
                a.ident.span(),
                format!("two arguments have the input title `{}`", a.title),
            );
        }
    }
    args
}

/// The state argument `#[state] name: &T`: its type `T`, or `None` with the errors reported.
/// It takes no settings and no other attribute of ours, and is borrowed, shared by every call.
fn state_arg(attr: &syn::Attribute, typed: &mut syn::PatType, errors: &mut Errors) -> Option<Type> {
    if !matches!(attr.meta, syn::Meta::Path(_)) {
        errors.at(attr.meta.span(), "`#[state]` takes no settings");
    }
    docs::take(&mut typed.attrs);
    typed.attrs.retain(|a| {
        if !a.path().is_ident("arg") {
            return true;
        }
        errors.at(
            a.meta.span(),
            "a `#[state]` argument is not an input of the tool: `#[arg(...)]` does not apply to it",
        );
        false
    });
    match &*typed.ty {
        Type::Reference(r) if r.mutability.is_none() => {
            let mut owned = (*r.elem).clone();
            Statics.visit_type_mut(&mut owned);
            Some(owned)
        }
        other => {
            errors.at(
                other.span(),
                "the state is shared by every call of the tool: take it as `&T` (the tool type \
                 holds an `Arc<T>`)",
            );
            None
        }
    }
}

/// Property titles may not hold `. , { } ' "`, spaces or newlines.
pub fn check_title(lit: &LitStr, errors: &mut Errors) {
    let value = lit.value();
    if value.is_empty() || value.contains(['.', ',', '{', '}', ' ', '\n', '\'', '"']) {
        errors.at(
            lit.span(),
            format!(
                "invalid input title `{value}`: titles may not be empty or hold . , {{ }} ' \" spaces or newlines"
            ),
        );
    }
}

fn is_str(ty: &Type) -> bool {
    match ty {
        Type::Reference(r) => matches!(&*r.elem, Type::Path(p) if p.path.is_ident("str")),
        _ => false,
    }
}

/// Replaces every lifetime with `'static`, so that the owned type deserializes on its own.
struct Statics;
impl VisitMut for Statics {
    fn visit_lifetime_mut(&mut self, lifetime: &mut syn::Lifetime) {
        *lifetime = syn::Lifetime::new("'static", lifetime.span());
    }
}

/// The owned version of an argument type, how to pass it, and whether it is an `Option`.
fn owned_type(ty: &Type, errors: &mut Errors) -> (Type, Pass, bool) {
    if let Type::ImplTrait(t) = ty {
        errors.at(
            t.span(),
            "`impl Trait` arguments make the function generic; a tool needs concrete argument types",
        );
    }
    let (mut owned, pass) = match ty {
        Type::Reference(r) => {
            let pass = if r.mutability.is_some() {
                Pass::RefMut
            } else {
                Pass::Ref
            };
            (deref_owned(&r.elem), pass)
        }
        other => match option_inner(other) {
            Some(Type::Reference(r)) => {
                let inner = deref_owned(&r.elem);
                let pass = if matches!(&*r.elem, Type::Slice(_))
                    || matches!(&*r.elem, Type::Path(p) if p.path.is_ident("str"))
                {
                    Pass::OptionDeref
                } else {
                    Pass::OptionRef
                };
                (syn::parse_quote!(::core::option::Option<#inner>), pass)
            }
            _ => (other.clone(), Pass::Value),
        },
    };
    Statics.visit_type_mut(&mut owned);
    let optional = option_inner(&owned).is_some();
    (owned, pass, optional)
}

/// `str` → `String`, `[T]` → `Vec<T>`, `T` → `T`.
fn deref_owned(elem: &Type) -> Type {
    match elem {
        Type::Path(p) if p.path.is_ident("str") => {
            syn::parse_quote!(::std::string::String)
        }
        Type::Slice(s) => {
            let inner = &s.elem;
            syn::parse_quote!(::std::vec::Vec<#inner>)
        }
        other => other.clone(),
    }
}

/// `T` of `Option<T>` (by the last path segment's name).
fn option_inner(ty: &Type) -> Option<&Type> {
    generic_of(ty, "Option")
}

fn generic_of<'a>(ty: &'a Type, name: &str) -> Option<&'a Type> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if last.ident != name {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first()? {
        GenericArgument::Type(t) => Some(t),
        _ => None,
    }
}

/// What the function returns: nothing, `T`, or `Result<T, _>` (any type whose last path
/// segment is `Result`, such as `anyhow::Result<T>` or `io::Result<T>`).
pub fn returns(output: &ReturnType, errors: &mut Errors) -> Returns {
    let ty = match output {
        ReturnType::Default => return Returns::Nothing,
        ReturnType::Type(_, ty) => &**ty,
    };
    if let Type::ImplTrait(t) = ty {
        errors.at(
            t.span(),
            "a tool must return a concrete type (its output schema comes from it), not `impl Trait`",
        );
        return Returns::Nothing;
    }
    if matches!(ty, Type::Tuple(t) if t.elems.is_empty()) {
        return Returns::Nothing;
    }
    match generic_of(ty, "Result") {
        Some(Type::Tuple(t)) if t.elems.is_empty() => Returns::Result(ty_unit()),
        Some(inner) => Returns::Result(inner.clone()),
        None => Returns::Plain(ty.clone()),
    }
}

fn ty_unit() -> Type {
    syn::parse_quote!(())
}

/// Refuses what a tool cannot be: generic, `unsafe`, `extern`, `const`, variadic.
pub fn check_signature(item: &ItemFn, errors: &mut Errors) {
    let sig = &item.sig;
    if let Some(param) = sig
        .generics
        .params
        .iter()
        .find(|p| !matches!(p, syn::GenericParam::Lifetime(_)))
    {
        errors.at(
            param.span(),
            "a tool cannot be generic: its input and output schemas need concrete types",
        );
    }
    if let Some(w) = &sig.generics.where_clause {
        errors.at(w.span(), "a tool cannot have a `where` clause");
    }
    if let syn::Safety::Unsafe(u) = &sig.safety {
        errors.at(
            u.span(),
            "a tool cannot be `unsafe`: it is called from JSON",
        );
    }
    if let Some(abi) = &sig.abi {
        errors.at(abi.span(), "a tool cannot have an `extern` ABI");
    }
    if let Some(c) = &sig.constness {
        errors.at(c.span(), "a tool cannot be a `const fn`");
    }
    if let Some(v) = &sig.variadic {
        errors.at(v.span(), "a tool cannot be variadic");
    }
}
