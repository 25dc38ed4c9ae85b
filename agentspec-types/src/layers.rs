//! The layers of this crate, checked: each module uses only the modules of lower layers
//! (the crate documentation draws them). A `use` that points up fails this test, so the
//! layering cannot erode.

use std::path::Path;

/// Top-level modules by layer, lowest first. Names re-exported at the crate root count as
/// the module that defines them.
const LAYERS: &[&[&str]] = &[
    &["diagnostic"],
    &["syntax"],
    &["version"],
    &["model"],
    &["codec"],
    &["plugin", "__private"],
    &["generated"],
    &["check", "layout", "infer"],
    &["document"],
    &["resolve", "validate", "graph", "serialization"],
    &["tool"],
    &["mcp"],
];

/// What a name at the crate root (`crate::X`) stands for.
fn root_name(name: &str) -> &str {
    match name {
        "JsonObject" | "IndexMap" | "serde_json" | "serde" | "AgentSpec" => "",
        "RefOr" | "Sensitive" | "ComponentRef" | "MissingSecret" | "Truthy" | "ComponentInfo"
        | "walk" => "model",
        "SecretField" => "codec",
        "Document" | "WriteOptions" | "LoadError" | "Output" | "locate" | "Values"
        | "LoadOptions" | "Components" | "components" => "document",
        "Format" | "Sink" => "syntax",
        "Version" => "version",
        "Diagnostic" | "Severity" => "diagnostic",
        "Toolbox" | "RustTool" | "ToolSpec" => "tool",
        n if n.starts_with(char::is_uppercase) => "generated",
        n => n,
    }
}

fn layer(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// Every path into the crate that a source file names, read with syn: `use` trees (grouped
/// `use crate::{a, b::C}` too), paths in code and types, `super::` and `self::` paths resolved
/// against the file's module, and `crate::` paths inside macro calls (whose tokens syn does
/// not parse). Each is `(file, its top-level module, the top-level module it reaches)`.
fn uses(dir: &Path, out: &mut Vec<(String, String, String)>) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![dir.to_path_buf()];
    while let Some(path) = files.pop() {
        if path.is_dir() {
            for entry in std::fs::read_dir(&path).unwrap() {
                files.push(entry.unwrap().path());
            }
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let relative = path
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let file = syn::parse_file(&std::fs::read_to_string(&path).unwrap())
            .unwrap_or_else(|e| panic!("{relative}: {e}"));
        let mut reader = Reader {
            module: module_path(&relative),
            reached: Vec::new(),
        };
        syn::visit::Visit::visit_file(&mut reader, &file);
        let module = reader
            .module
            .first()
            .cloned()
            .unwrap_or_else(|| "lib".into());
        for target in reader.reached {
            let target = root_name(&target).to_owned();
            if !target.is_empty() && target != module {
                out.push((relative.clone(), module.clone(), target));
            }
        }
    }
}

/// The module path of a file under `src/`: `validate/flow.rs` is `validate::flow`,
/// `validate/mod.rs` is `validate`, `lib.rs` the crate root.
fn module_path(relative: &str) -> Vec<String> {
    let mut parts: Vec<String> = relative
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_owned)
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// Collects the first name below the crate root of every path into the crate.
struct Reader {
    /// The module being read (an inline `mod` adds to it).
    module: Vec<String>,
    reached: Vec<String>,
}

impl Reader {
    /// A path's first segments as written: where it leads from the crate root, if it does.
    fn path(&mut self, segments: &[String]) {
        let Some(first) = segments.first() else {
            return;
        };
        let absolute: Vec<String> = match first.as_str() {
            "crate" => segments[1..].to_vec(),
            "self" => self.module.iter().chain(&segments[1..]).cloned().collect(),
            "super" => {
                let ups = segments.iter().take_while(|s| *s == "super").count();
                let base = self.module.len().saturating_sub(ups);
                self.module[..base]
                    .iter()
                    .chain(&segments[ups..])
                    .cloned()
                    .collect()
            }
            // an extern crate, a local name or a prelude name
            _ => return,
        };
        if let Some(top) = absolute.first() {
            self.reached.push(top.clone());
        }
    }

    fn use_tree(&mut self, tree: &syn::UseTree, prefix: &mut Vec<String>) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(&p.tree, prefix);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                prefix.push(n.ident.to_string());
                self.path(prefix);
                prefix.pop();
            }
            syn::UseTree::Rename(r) => {
                prefix.push(r.ident.to_string());
                self.path(prefix);
                prefix.pop();
            }
            syn::UseTree::Glob(_) => self.path(prefix),
            syn::UseTree::Group(g) => {
                for item in &g.items {
                    self.use_tree(item, prefix);
                }
            }
        }
    }

    /// `crate :: name` in a macro call's tokens, at any depth of groups.
    fn tokens(&mut self, tokens: proc_macro2::TokenStream) {
        let tokens: Vec<proc_macro2::TokenTree> = tokens.into_iter().collect();
        for (i, token) in tokens.iter().enumerate() {
            match token {
                proc_macro2::TokenTree::Group(g) => self.tokens(g.stream()),
                proc_macro2::TokenTree::Ident(id) if id == "crate" => {
                    if let [
                        proc_macro2::TokenTree::Punct(a),
                        proc_macro2::TokenTree::Punct(b),
                        proc_macro2::TokenTree::Ident(name),
                        ..,
                    ] = &tokens[i + 1..]
                        && a.as_char() == ':'
                        && b.as_char() == ':'
                    {
                        self.reached.push(name.to_string());
                    }
                }
                _ => {}
            }
        }
    }
}

impl<'ast> syn::visit::Visit<'ast> for Reader {
    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        self.use_tree(&item.tree, &mut Vec::new());
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        self.path(&segments);
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.tokens(mac.tokens.clone());
        syn::visit::visit_macro(self, mac);
    }

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        self.module.push(item.ident.to_string());
        syn::visit::visit_item_mod(self, item);
        self.module.pop();
    }
}

/// The uses that do not point to a lower layer.
fn upward(found: Vec<(String, String, String)>) -> Vec<String> {
    let mut upward = Vec::new();
    for (file, module, target) in found {
        if matches!(module.as_str(), "lib" | "layers") {
            continue;
        }
        let (Some(from), Some(to)) = (layer(&module), layer(&target)) else {
            upward.push(format!("{file}: `{module}` or `{target}` has no layer"));
            continue;
        };
        if to >= from {
            upward.push(format!(
                "{file}: `{module}` (layer {from}) uses `{target}` (layer {to})"
            ));
        }
    }
    upward.sort();
    upward.dedup();
    upward
}

#[test]
fn every_module_uses_only_lower_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    uses(&src, &mut found);
    let upward = upward(found);
    assert!(upward.is_empty(), "{}", upward.join("\n"));
}

#[test]
fn an_upward_use_is_reported() {
    let found = vec![
        (
            "syntax/yaml.rs".into(),
            "syntax".into(),
            root_name("Document").into(),
        ),
        ("tool/mod.rs".into(), "tool".into(), "validate".into()),
        ("check.rs".into(), "check".into(), "layout".into()),
    ];
    assert_eq!(
        upward(found),
        [
            "check.rs: `check` (layer 7) uses `layout` (layer 7)",
            "syntax/yaml.rs: `syntax` (layer 1) uses `document` (layer 8)",
        ]
    );
}

#[test]
fn grouped_imports_super_paths_and_macros_are_read() {
    let file = syn::parse_file(
        "use crate::{diagnostic::Diagnostic, document::{Document, locate}};\n\
         use super::super::graph::FlowGraph;\n\
         fn f() { let _ = format!(\"{}\", crate::tool::x()); }",
    )
    .unwrap();
    let mut reader = Reader {
        module: module_path("validate/flow.rs"),
        reached: Vec::new(),
    };
    syn::visit::Visit::visit_file(&mut reader, &file);
    assert_eq!(
        reader.reached,
        ["diagnostic", "document", "document", "graph", "tool"]
    );
}
