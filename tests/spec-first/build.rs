//! Generates the spec-first code of the weather tools' document (and of its changed version,
//! for the trybuild case), and of every upstream configuration that `agentspec check`
//! passes, into one file.

use std::path::{Path, PathBuf};

fn main() {
    let upstream = Path::new("../fixtures/upstream");
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
        .document("fixtures/weather_tools_v2.json")
        .document("fixtures/shapes.json");
    for d in &documents {
        builder = builder.document(d);
    }
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
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
    // each upstream document with how many tools, flows and agents it generated
    let listed: Vec<String> = summaries
        .iter()
        .filter(|s| s.path.starts_with(upstream))
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
}
