//! Generates the Agent Spec types from the published schema files in `../schema/`.

use std::path::PathBuf;

fn main() {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("../schema");
    // A schema file added to the folder is picked up too.
    println!("cargo:rerun-if-changed={}", dir.display());
    let settings = agentspec_codegen::Settings::new()
        .schema_dir(&dir)
        .and_then(|settings| {
            // one generator: the files are parsed once for the types and the JSON Schemas
            let generator = agentspec_codegen::Generator::new(settings);
            agentspec_codegen::build::generate_to_out_dir(&generator, "agentspec_types.rs")?;
            agentspec_codegen::build::json_schemas_to_out_dir(&generator, "json_schemas")
        });
    if let Err(e) = settings {
        panic!("generating the Agent Spec types failed: {e}");
    }
}
