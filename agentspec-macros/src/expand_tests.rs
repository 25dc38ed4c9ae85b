//! Expansion snapshots: `expand/<name>.rs` holds a function with `#[tool]`, or a type with
//! `#[derive(AgentSpec)]` or `#[derive(Component)]`, and `expand/<name>.expanded.rs` what
//! the macro expands it to, formatted. Refresh with
//! `UPDATE_EXPAND=1 cargo test -p agentspec-macros`.

use std::path::Path;

fn expand_file(source: &str) -> String {
    let mut file: syn::File = syn::parse_str(source).expect("the input parses");
    let mut out = Vec::new();
    for item in file.items.drain(..) {
        let derive = |attrs: &[syn::Attribute]| {
            attrs.iter().find_map(|a| {
                let text = quote::ToTokens::to_token_stream(a).to_string();
                if !a.path().is_ident("derive") {
                    None
                } else if text.contains("AgentSpec") {
                    Some(crate::codec::Front::AgentSpec)
                } else if text.contains("Component") {
                    Some(crate::codec::Front::Plugin)
                } else {
                    None
                }
            })
        };
        match item {
            syn::Item::Struct(s) => {
                let front = derive(&s.attrs).expect("the struct derives AgentSpec or Component");
                out.push(crate::codec::expand(quote::quote!(#s), front));
                continue;
            }
            syn::Item::Enum(e) => {
                let front = derive(&e.attrs).expect("the enum derives AgentSpec");
                out.push(crate::codec::expand(quote::quote!(#e), front));
                continue;
            }
            _ => {}
        }
        let syn::Item::Fn(mut f) = item else {
            panic!("expand/ inputs hold functions and derived types only")
        };
        let at = f
            .attrs
            .iter()
            .position(|a| a.path().is_ident("tool"))
            .expect("the function has #[tool]");
        let attr = f.attrs.remove(at);
        let args = match attr.meta {
            syn::Meta::Path(_) => proc_macro2::TokenStream::new(),
            syn::Meta::List(list) => list.tokens,
            syn::Meta::NameValue(_) => panic!("#[tool = ..] is not a form"),
        };
        out.push(crate::tool::expand(args, quote::quote!(#f)));
    }
    let tokens = quote::quote!(#(#out)*);
    prettyplease::unparse(&syn::parse2(tokens).expect("the expansion parses"))
}

#[test]
fn expansions_match_their_snapshots() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("expand");
    let mut inputs: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.to_string_lossy().ends_with(".expanded.rs"))
        .collect();
    inputs.sort();
    assert_eq!(inputs.len(), 6, "{inputs:?}");
    let mut stale = Vec::new();
    for input in inputs {
        let expanded = expand_file(&std::fs::read_to_string(&input).unwrap());
        let snapshot = input.with_extension("expanded.rs");
        if std::env::var_os("UPDATE_EXPAND").is_some() {
            std::fs::write(&snapshot, &expanded).unwrap();
        } else if std::fs::read_to_string(&snapshot).ok().as_deref() != Some(expanded.as_str()) {
            stale.push(snapshot.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "expansions changed: {stale:?}; review, then run \
         `UPDATE_EXPAND=1 cargo test -p agentspec-macros` to refresh"
    );
}
