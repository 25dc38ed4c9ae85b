//! The front-end for build scripts.

use std::path::{Path, PathBuf};

use crate::{Error, Generator};

/// Generates the types of `generator`, formats them and writes them to
/// `$OUT_DIR/<file_name>` (only when the content changed), printing a
/// `cargo:rerun-if-changed=` line for each folder and file of [`Settings::watched_paths`]:
/// a schema file added to a watched folder regenerates the types. Returns the written path.
///
/// [`Settings::watched_paths`]: crate::Settings::watched_paths
///
/// ```no_run
/// // build.rs
/// let settings = agentspec_codegen::Settings::new()
///     .schema_file("schema/agentspec_json_spec_26_1_2.json");
/// let generator = agentspec_codegen::Generator::new(settings);
/// agentspec_codegen::build::generate_to_out_dir(&generator, "agentspec.rs").unwrap();
/// // lib.rs: include!(concat!(env!("OUT_DIR"), "/agentspec.rs"));
/// ```
pub fn generate_to_out_dir(generator: &Generator, file_name: &str) -> Result<PathBuf, Error> {
    let out_dir = out_dir()?;
    watch(generator);
    let code = crate::format(&generator.generate()?)?;
    let target = out_dir.join(file_name);
    write_if_changed(&target, &code)?;
    Ok(target)
}

/// Writes `contents` to `path` unless the file already holds exactly that.
pub fn write_if_changed(path: &Path, contents: &str) -> Result<(), Error> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == contents) {
        return Ok(());
    }
    std::fs::write(path, contents).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Writes the JSON Schema of every version's documents (see [`Generator::json_schema`]) to
/// `$OUT_DIR/<stem>_<version>.json`, pretty-printed, and `$OUT_DIR/<stem>.rs`: an array
/// expression of `(version, schema text)` pairs, oldest first, to `include!`. Returns the
/// path of the `.rs` file.
///
/// ```no_run
/// // build.rs
/// let settings = agentspec_codegen::Settings::new().bundled_schemas();
/// let generator = agentspec_codegen::Generator::new(settings);
/// agentspec_codegen::build::json_schemas_to_out_dir(&generator, "schemas").unwrap();
/// // lib.rs: const SCHEMAS: &[(&str, &str)] = &include!(concat!(env!("OUT_DIR"), "/schemas.rs"));
/// ```
pub fn json_schemas_to_out_dir(generator: &Generator, stem: &str) -> Result<PathBuf, Error> {
    let out_dir = out_dir()?;
    watch(generator);
    let mut index = String::from("[\n");
    for (version, schema) in generator.json_schemas()? {
        let file = out_dir.join(format!(
            "{stem}_{}_{}_{}.json",
            version.0, version.1, version.2
        ));
        let text = serde_json::to_string_pretty(&schema).expect("a JSON value always serializes");
        write_if_changed(&file, &text)?;
        index.push_str(&format!(
            "    ({:?}, include_str!({:?})),\n",
            version.to_string(),
            file.display().to_string()
        ));
    }
    index.push(']');
    let target = out_dir.join(format!("{stem}.rs"));
    write_if_changed(&target, &index)?;
    Ok(target)
}

/// Prints the `cargo:rerun-if-changed=` lines of a generation; with none, Cargo would rerun
/// the build script on any change in the package.
fn watch(generator: &Generator) {
    for path in generator.settings().watched_paths() {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}

fn out_dir() -> Result<PathBuf, Error> {
    std::env::var_os("OUT_DIR")
        .map(PathBuf::from)
        .ok_or_else(|| Error::Io {
            path: PathBuf::from("$OUT_DIR"),
            source: std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "OUT_DIR is not set: call this from a build script",
            ),
        })
}
