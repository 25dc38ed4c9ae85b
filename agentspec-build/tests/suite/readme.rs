//! The README's table "JSON Schema → Rust type" is what the generator makes: each row's
//! schema is an input of one tool, and the field generated for it has the row's type (and a
//! type of its own is the enum, struct or newtype the row says).

use std::path::PathBuf;

use quote::ToTokens;

/// One row of the table: the schema, the Rust type, the notes.
struct Row {
    schema: serde_json::Value,
    rust: String,
    notes: String,
}

fn rows() -> Vec<Row> {
    let readme = include_str!("../../README.md");
    let table = readme
        .split("## JSON Schema → Rust type")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("the README's section");
    let code = |cell: &str| -> String {
        let cell = cell.trim();
        cell.strip_prefix('`')
            .and_then(|c| c.strip_suffix('`'))
            .unwrap_or_else(|| panic!("a cell in backticks: {cell}"))
            .to_owned()
    };
    table
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split(" | ").collect();
            let [schema, rust, notes] = cells[..] else {
                panic!("three cells: {line}")
            };
            Row {
                schema: serde_json::from_str(&code(schema)).expect("the schema is JSON"),
                rust: code(rust),
                notes: notes.trim().to_owned(),
            }
        })
        .collect()
}

/// A type as the README writes it: `::std::option::Option<::std::string::String>` is
/// `Option<String>`, `::serde_json::Value` is `serde_json::Value`.
fn shown(ty: &syn::Type) -> String {
    let mut text: String = ty
        .to_token_stream()
        .to_string()
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    for module in ["string", "vec", "option", "num", "collections"] {
        text = text.replace(&format!("::std::{module}::"), "");
    }
    text.replace("::serde_json::", "serde_json::")
        .replace(',', ", ")
}

/// The struct or enum named `name` in `items`, at any depth.
fn find<'a>(items: &'a [syn::Item], name: &str) -> Option<&'a syn::Item> {
    items.iter().find_map(|item| match item {
        syn::Item::Struct(s) if s.ident == name => Some(item),
        syn::Item::Enum(e) if e.ident == name => Some(item),
        syn::Item::Mod(m) => m.content.as_ref().and_then(|(_, items)| find(items, name)),
        _ => None,
    })
}

#[test]
fn the_readme_table_gives_the_generated_types() {
    let rows = rows();
    assert!(rows.len() >= 25, "{} rows", rows.len());
    // one tool per row: titles may repeat (`place` three times)
    let tools: Vec<String> = rows
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let mut input = row.schema.clone();
            if input.get("title").is_none() {
                input["title"] = format!("row{i}").into();
            }
            format!(
                r#"{{"component_type": "ServerTool", "id": "t{i}", "name": "t{i}", "inputs": [{input}], "outputs": []}}"#
            )
        })
        .collect();
    let document = format!(
        r#"{{"component_type": "Agent", "id": "a", "name": "a", "system_prompt": "s",
  "llm_config": {{"component_type": "VllmConfig", "id": "l", "name": "l", "url": "http://x", "model_id": "m"}},
  "tools": [{}], "agentspec_version": "25.4.1"}}"#,
        tools.join(",\n")
    );
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("agentspec-build-readme");
    std::fs::create_dir_all(&dir).expect("a folder");
    let path = dir.join("table.json");
    std::fs::write(&path, document).expect("writes");
    let generated = agentspec_build::Builder::new()
        .document(&path)
        .generate()
        .unwrap_or_else(|e| panic!("{e}"));
    let file = syn::parse_file(&generated.code).expect("Rust");
    let syn::Item::Mod(module) = &file.items[0] else {
        panic!("one module")
    };
    let items = &module.content.as_ref().expect("inline").1;
    let Some(syn::Item::Mod(tools)) = items
        .iter()
        .find(|i| matches!(i, syn::Item::Mod(m) if m.ident == "tools"))
    else {
        panic!("a module `tools`")
    };
    let tools = &tools.content.as_ref().expect("inline").1;
    for (i, row) in rows.iter().enumerate() {
        let tool = format!("t{i}");
        let Some(syn::Item::Mod(tool)) = tools
            .iter()
            .find(|t| matches!(t, syn::Item::Mod(m) if m.ident == tool))
        else {
            panic!("a module `{tool}`")
        };
        let tool = &tool.content.as_ref().expect("inline").1;
        let Some(syn::Item::Struct(args)) = find(tool, "Args") else {
            panic!("{}: a struct `Args`", row.schema)
        };
        let field = args.fields.iter().next().expect("one field");
        assert_eq!(shown(&field.ty), row.rust, "{}", row.schema);
        // a type of its own is of the kind the notes name first
        if row.rust.starts_with("Args") {
            let kind = match find(tool, &row.rust) {
                Some(syn::Item::Enum(_)) => "enum",
                Some(syn::Item::Struct(s)) if matches!(s.fields, syn::Fields::Unnamed(_)) => {
                    "newtype"
                }
                Some(syn::Item::Struct(_)) => "struct",
                _ => panic!("{}: a type `{}`", row.schema, row.rust),
            };
            assert!(
                row.notes.starts_with(kind),
                "{}: a {kind}, not {}",
                row.schema,
                row.notes
            );
        }
    }
}
