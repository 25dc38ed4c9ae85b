//! The front-end for build scripts.

use std::path::{Path, PathBuf};

use crate::{Error, Generator, Settings};

/// Generates the types for `settings`, formats them and writes them to
/// `$OUT_DIR/<file_name>` (only when the content changed), printing one
/// `cargo:rerun-if-changed=` line per schema file read. Returns the written path.
///
/// ```no_run
/// // build.rs
/// let settings = agentspec_codegen::Settings::new()
///     .schema_file("schema/agentspec_json_spec_26_1_2.json");
/// agentspec_codegen::build::generate_to_out_dir(settings, "agentspec.rs").unwrap();
/// // lib.rs: include!(concat!(env!("OUT_DIR"), "/agentspec.rs"));
/// ```
pub fn generate_to_out_dir(settings: Settings, file_name: &str) -> Result<PathBuf, Error> {
    let out_dir = std::env::var_os("OUT_DIR")
        .map(PathBuf::from)
        .ok_or_else(|| Error::Io {
            path: PathBuf::from("$OUT_DIR"),
            source: std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "OUT_DIR is not set: call this from a build script",
            ),
        })?;
    for path in settings.schema_paths() {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    let code = crate::format(&Generator::new(settings).generate()?)?;
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
