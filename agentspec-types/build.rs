//! Generates the Agent Spec types from the published schema files in `../schema/`.

use std::path::PathBuf;

fn main() {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("../schema");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut settings = agentspec_codegen::Settings::new().runtime_path("crate".parse().unwrap());
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the workspace's schema/ folder")
        .map(|e| e.expect("readable schema/ entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    for file in files {
        settings = settings.schema_file(file);
    }
    if let Err(e) = agentspec_codegen::build::generate_to_out_dir(settings, "agentspec_types.rs") {
        panic!("generating the Agent Spec types failed: {e}");
    }
}
