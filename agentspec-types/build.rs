//! Generates the Agent Spec types from the published schema files bundled in
//! `agentspec-codegen` (its `schema/` folder), so this package needs no file outside itself.

fn main() {
    // the schemas are inside agentspec-codegen, which Cargo watches as a dependency
    println!("cargo:rerun-if-changed=build.rs");
    // one generator: the files are parsed once for the types and the JSON Schemas
    let generator =
        agentspec_codegen::Generator::new(agentspec_codegen::Settings::new().bundled_schemas());
    let generated = agentspec_codegen::build::generate_to_out_dir(&generator, "agentspec_types.rs")
        .and_then(|_| {
            agentspec_codegen::build::json_schemas_to_out_dir(&generator, "json_schemas")
        });
    if let Err(e) = generated {
        panic!("generating the Agent Spec types failed: {e}");
    }
}
