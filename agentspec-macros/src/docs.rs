//! Doc comments as descriptions, the schemars way: the `#[doc]` lines joined, one leading
//! space stripped from each, trimmed. Headed sections (`# Arguments`, `# Returns`, …) are
//! taken out of the description; `# Arguments` gives per-argument descriptions and
//! `# Returns` the output's.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{Attribute, Expr, ExprLit, Lit, Meta};

/// A description: known text, or an expression the compiler builds (`include_str!`).
#[derive(Clone)]
pub enum Text {
    Literal(String),
    Expr(TokenStream),
}

/// One `* name - text` entry of a `# Arguments` section.
pub struct ArgDoc {
    pub name: String,
    pub text: String,
    pub span: Span,
}

/// What the doc comments of an item say.
#[derive(Default)]
pub struct Docs {
    pub summary: Option<Text>,
    pub arguments: Vec<ArgDoc>,
    pub returns: Option<String>,
}

/// Takes the `#[doc]` attributes out of `attrs` and reads them.
pub fn take(attrs: &mut Vec<Attribute>) -> Docs {
    let mut lines: Vec<(String, Span)> = Vec::new();
    let mut exprs: Vec<TokenStream> = Vec::new();
    let mut literal = true;
    attrs.retain(|a| {
        let Meta::NameValue(nv) = &a.meta else {
            return true;
        };
        if !nv.path.is_ident("doc") {
            return true;
        }
        match &nv.value {
            Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) => {
                let v = s.value();
                for line in v.split('\n') {
                    lines.push((strip_one_space(line).to_owned(), s.span()));
                }
                exprs.push(quote!(#s));
            }
            other => {
                literal = false;
                exprs.push(quote!(#other));
            }
        }
        false
    });
    if !literal {
        let pieces = exprs.iter();
        return Docs {
            summary: Some(Text::Expr(quote!(::core::concat!(#(#pieces, "\n"),*)))),
            ..Docs::default()
        };
    }
    read(&lines)
}

fn strip_one_space(line: &str) -> &str {
    line.strip_prefix(' ').unwrap_or(line)
}

/// Reads lines: the text before the first `# ` heading is the summary.
fn read(lines: &[(String, Span)]) -> Docs {
    let mut docs = Docs::default();
    let mut summary = Vec::new();
    let mut section: Option<String> = None;
    let mut returns = Vec::new();
    for (line, span) in lines {
        if let Some(heading) = line.trim_start().strip_prefix("# ") {
            section = Some(heading.trim().to_ascii_lowercase());
            continue;
        }
        match section.as_deref() {
            None => summary.push(line.as_str()),
            Some("arguments" | "parameters" | "args") => argument_line(&mut docs, line, *span),
            Some("returns") => returns.push(line.as_str()),
            Some(_) => {}
        }
    }
    docs.summary = non_empty(&summary.join("\n")).map(Text::Literal);
    docs.returns = non_empty(&returns.join("\n"));
    docs
}

fn non_empty(text: &str) -> Option<String> {
    let t = text.trim();
    (!t.is_empty()).then(|| t.to_owned())
}

/// `* name - text`, `- `name`: text` and continuation lines.
fn argument_line(docs: &mut Docs, line: &str, span: Span) {
    let trimmed = line.trim();
    let bullet = trimmed
        .strip_prefix("* ")
        .or_else(|| trimmed.strip_prefix("- "));
    match bullet {
        Some(entry) => {
            let entry = entry.trim_start();
            let (name, rest) = match entry.strip_prefix('`') {
                Some(quoted) => match quoted.split_once('`') {
                    Some((n, rest)) => (n, rest),
                    None => (quoted, ""),
                },
                None => {
                    let end = entry
                        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .unwrap_or(entry.len());
                    entry.split_at(end)
                }
            };
            let rest = rest.trim_start();
            let text = rest
                .strip_prefix("- ")
                .or_else(|| rest.strip_prefix(':'))
                .or_else(|| rest.strip_prefix("– "))
                .unwrap_or(rest);
            docs.arguments.push(ArgDoc {
                name: name.to_owned(),
                text: text.trim().to_owned(),
                span,
            });
        }
        None if !trimmed.is_empty() => {
            if let Some(last) = docs.arguments.last_mut() {
                if !last.text.is_empty() {
                    last.text.push(' ');
                }
                last.text.push_str(trimmed);
            }
        }
        None => {}
    }
}

impl Text {
    /// The description as a `&str` expression.
    pub fn tokens(&self) -> TokenStream {
        match self {
            Text::Literal(s) => quote!(#s),
            Text::Expr(e) => quote!(#e.trim()),
        }
    }
}
