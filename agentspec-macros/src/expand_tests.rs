//! Expansion snapshots: `expand/<name>.rs` holds a function with `#[tool]`, and
//! `expand/<name>.expanded.rs` what the attribute expands it to, formatted. Refresh with
//! `UPDATE_EXPAND=1 cargo test -p agentspec-macros`.

use std::path::Path;

fn expand_file(source: &str) -> String {
    let mut file: syn::File = syn::parse_str(source).expect("the input parses");
    let mut out = Vec::new();
    for item in file.items.drain(..) {
        let syn::Item::Fn(mut f) = item else {
            panic!("expand/ inputs hold functions only")
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
    assert_eq!(inputs.len(), 4, "{inputs:?}");
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
