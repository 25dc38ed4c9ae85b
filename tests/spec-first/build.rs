//! Generates the spec-first code of the weather tools' document (its changed version, the
//! fixture `weather_tools_v2.json`, is built by `scripts/spec-first-user.sh`, which checks that
//! an implementation of the first fails to compile against it), and of every upstream configuration that `agentspec check`
//! passes, into one file; the upstream configurations read as `scripts/upstream-oracle.py`
//! reads them: JSON5 with its comments and trailing commas removed, the disaggregated
//! example with its components file, the plugin example with its plugin components kept;
//! and the examples of agentspec-build's README.

use std::path::{Path, PathBuf};

fn main() {
    let upstream = Path::new("../fixtures/upstream");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    let json5_dir = out.join("json5");
    std::fs::create_dir_all(&json5_dir).expect("a folder");
    let mut plugins: Vec<PathBuf> = Vec::new();
    let mut documents: Vec<PathBuf> = Vec::new();
    let mut refused: Vec<String> = Vec::new();
    for folder in ["examples", "tests", "tests/invalid"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(upstream.join(folder))
            .expect("the upstream fixtures")
            .map(|e| e.expect("a folder entry").path())
            .filter(|p| {
                matches!(
                    p.extension().and_then(|e| e.to_str()),
                    Some("json" | "yaml" | "json5")
                )
            })
            .collect();
        files.sort();
        for file in files {
            println!("cargo:rerun-if-changed={}", file.display());
            if file.ends_with("examples/plugin_assistant.json")
                || file.ends_with("examples/plugin_assistant.yaml")
            {
                plugins.push(file);
                continue;
            }
            // JSON5 as the oracle reads it: the same text as JSON
            let file = if file.extension().is_some_and(|e| e == "json5") {
                let text = std::fs::read_to_string(&file).expect("reads");
                let stem = file
                    .file_stem()
                    .expect("a name")
                    .to_string_lossy()
                    .into_owned();
                let json = json5_dir.join(format!("{stem}.json"));
                std::fs::write(&json, strip_json5(&text)).expect("writes");
                json
            } else {
                file
            };
            // one at a time first: a document agentspec refuses is left out (and listed)
            match agentspec_build::Builder::new().document(&file).generate() {
                Ok(_) => documents.push(file),
                Err(agentspec_build::BuildError::Document { diagnostics }) => {
                    let first = diagnostics
                        .iter()
                        .find(|d| d.diagnostic.is_error())
                        .map(|d| d.diagnostic.code)
                        .unwrap_or_default();
                    refused.push(format!("{}\t{first}", file.display()));
                }
                // a document agentspec checks whose code cannot be generated fails the build
                Err(e) => panic!("{e}"),
            }
        }
    }
    let mut builder = agentspec_build::Builder::new()
        .document("fixtures/weather_tools.json")
        .document("fixtures/shapes.json")
        .document("fixtures/trips.json");
    for d in &documents {
        builder = builder.document(d);
    }
    // `write`, not `emit`: the upstream documents' warnings would flood every build
    let generated = builder
        .write(out.join("spec_first.rs"))
        .unwrap_or_else(|e| panic!("{e}"));
    for read in &generated.read {
        println!("cargo:rerun-if-changed={}", read.display());
    }
    let mut summaries = generated.documents;
    // the disaggregated example: a main document and the components file it references
    for (format, file) in [
        ("json", "spec_first_disaggregated_json.rs"),
        ("yaml", "spec_first_disaggregated_yaml.rs"),
    ] {
        let main = upstream.join(format!("examples/howto_disaggregated_main_config.{format}"));
        let components = upstream.join(format!(
            "examples/howto_disaggregated_component_config.{format}"
        ));
        let generated = agentspec_build::Builder::new()
            .document(&main)
            .components(&components)
            .write(out.join(file))
            .unwrap_or_else(|e| panic!("{e}"));
        for read in &generated.read {
            println!("cargo:rerun-if-changed={}", read.display());
        }
        summaries.extend(generated.documents);
    }
    // the plugin example: its plugin components kept as read (no plugin is registered here)
    let mut builder = agentspec_build::Builder::new().keep_unknown(true);
    for plugin in &plugins {
        builder = builder.document(plugin);
    }
    let generated = builder
        .write(out.join("spec_first_plugins.rs"))
        .unwrap_or_else(|e| panic!("{e}"));
    summaries.extend(generated.documents);
    // each upstream document with how many tools, flows and agents it generated
    let listed: Vec<String> = summaries
        .iter()
        .filter(|s| s.path.starts_with(upstream) || s.path.starts_with(&json5_dir))
        .map(|s| {
            format!(
                "{}\t{}\t{}\t{}",
                s.path.display(),
                s.tools.len(),
                s.flows.len(),
                s.agents.len()
            )
        })
        .collect();
    std::fs::write(out.join("upstream_generated.txt"), listed.join("\n")).expect("writes");
    std::fs::write(out.join("upstream_refused.txt"), refused.join("\n")).expect("writes");
    readme_examples(&out);
}

/// The examples of agentspec-build's README, as a user's crate holds them: the document it
/// shows is generated into `agent.rs`, as its build script does, and its program (with the
/// MCP `main` in a module of its own) is written to `readme_example.rs`, which the tests
/// compile and run.
fn readme_examples(out: &Path) {
    let path = Path::new("../../agentspec-build/README.md");
    println!("cargo:rerun-if-changed={}", path.display());
    let readme = std::fs::read_to_string(path).expect("agentspec-build's README");
    // the code blocks, each without its fence's line
    let block = |first_line: &str| -> &str {
        readme
            .split("```")
            .skip(1)
            .step_by(2)
            .filter_map(|b| b.split_once('\n').map(|(_, body)| body))
            .find(|body| body.starts_with(first_line))
            .unwrap_or_else(|| panic!("the README has a block starting with `{first_line}`"))
    };
    let dir = out.join("readme");
    std::fs::create_dir_all(&dir).expect("a folder");
    let document = dir.join("weather_agent.yaml");
    std::fs::write(&document, block("# weather_agent.yaml\n")).expect("writes");
    agentspec_build::Builder::new()
        .document(&document)
        .write(out.join("agent.rs"))
        .unwrap_or_else(|e| panic!("{e}"));
    let program = format!(
        "{}\n/// The README's MCP `main`, compiled only.\n#[allow(dead_code)]\nmod served {{\n    use super::*;\n\n{}}}\n",
        block("// src/main.rs\n"),
        block("// src/main.rs, serving the tools over MCP\n"),
    );
    std::fs::write(out.join("readme_example.rs"), program).expect("writes");
}

/// JSON5 as upstream writes it, as JSON: `//` and `/* */` comments, and commas before a
/// closing bracket, removed outside strings (what `scripts/upstream-oracle.py` does).
fn strip_json5(text: &str) -> String {
    let mut out = String::new();
    let mut plain = String::new();
    let mut chars = text.char_indices().peekable();
    let flush = |plain: &mut String, out: &mut String| {
        let mut kept = String::new();
        let pieces: Vec<char> = plain.chars().collect();
        for (i, c) in pieces.iter().enumerate() {
            if *c == ',' {
                let next = pieces[i + 1..].iter().find(|c| !c.is_whitespace());
                if matches!(next, Some('}' | ']')) {
                    continue;
                }
            }
            kept.push(*c);
        }
        out.push_str(&kept);
        plain.clear();
    };
    while let Some((i, c)) = chars.next() {
        if c == '"' {
            flush(&mut plain, &mut out);
            out.push('"');
            while let Some((_, c)) = chars.next() {
                out.push(c);
                if c == '\\' {
                    if let Some((_, escaped)) = chars.next() {
                        out.push(escaped);
                    }
                } else if c == '"' {
                    break;
                }
            }
        } else if text[i..].starts_with("//") {
            while chars.next_if(|(_, c)| *c != '\n').is_some() {}
        } else if text[i..].starts_with("/*") {
            chars.next();
            while let Some((j, _)) = chars.next() {
                if text[j..].starts_with("*/") {
                    chars.next();
                    break;
                }
            }
        } else {
            plain.push(c);
        }
    }
    flush(&mut plain, &mut out);
    out
}
