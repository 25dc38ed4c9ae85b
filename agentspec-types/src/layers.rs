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

fn uses(dir: &Path, out: &mut Vec<(String, String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            uses(&path, out);
            continue;
        }
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let relative = path
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let module = relative
            .split('/')
            .next()
            .unwrap()
            .trim_end_matches(".rs")
            .to_owned();
        for line in std::fs::read_to_string(&path).unwrap().lines() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for (at, _) in line.match_indices("crate::") {
                let name: String = line[at + 7..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                let target = root_name(&name).to_owned();
                if !target.is_empty() && target != module {
                    out.push((relative.clone(), module.clone(), target));
                }
            }
        }
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
