//! The README's build.rs recipe: types generated from the schema files in `schema/`.
fn main() {
    let settings = agentspec_codegen::Settings::new().schema_dir("schema").unwrap();
    let generator = agentspec_codegen::Generator::new(settings);
    agentspec_codegen::build::generate_to_out_dir(&generator, "agentspec.rs").unwrap();
}
