//! Generates idiomatic Rust types from the published Agent Spec JSON Schemas.
//!
//! The library turns one or more schema files into a [`TokenStream`]:
//!
//! ```no_run
//! use agentspec_codegen::{Generator, Settings};
//!
//! let settings = Settings::new().schema_file("schema/agentspec_json_spec_26_1_2.json");
//! let tokens = Generator::new(settings).generate()?;
//! let code = agentspec_codegen::format(&tokens)?;
//! # Ok::<(), agentspec_codegen::Error>(())
//! ```
//!
//! The types come from the newest file; the other files say from which version each
//! component and field exists. Front-ends: [`build::generate_to_out_dir`] for build
//! scripts and the `agentspec-codegen` binary.
#![deny(missing_docs)]

pub mod build;
mod declared;
pub mod diff;
mod emit;
mod error;
pub mod model;
mod names;
mod read;
mod schema;

use std::path::{Path, PathBuf};

use proc_macro2::TokenStream;
use quote::quote;

pub use error::Error;

/// The schema files of the published releases, embedded: `(file name, contents)`.
pub const BUNDLED_SCHEMAS: &[(&str, &str)] = &include!(concat!(env!("OUT_DIR"), "/bundled.rs"));

/// What to generate from.
#[derive(Debug, Clone)]
pub struct Settings {
    schemas: Vec<(String, SchemaSource)>,
    /// The folders given to [`Settings::schema_dir`]: watched, so that a file added to one
    /// regenerates the types.
    dirs: Vec<PathBuf>,
    runtime: TokenStream,
}

#[derive(Debug, Clone)]
enum SchemaSource {
    Path(PathBuf),
    Text(String),
}

impl Default for Settings {
    fn default() -> Self {
        Settings::new()
    }
}

impl Settings {
    /// No schema yet; the runtime crate is `::agentspec_types`.
    pub fn new() -> Self {
        Settings {
            schemas: Vec::new(),
            dirs: Vec::new(),
            runtime: quote!(::agentspec_types),
        }
    }

    /// Adds a schema file read from disk when generating.
    pub fn schema_file(mut self, path: impl AsRef<Path>) -> Self {
        let path = path.as_ref().to_path_buf();
        self.schemas
            .push((path.display().to_string(), SchemaSource::Path(path)));
        self
    }

    /// Adds every `*.json` file of a folder (sorted by name), such as this package's
    /// `schema/` folder. A build script watches the folder itself, so a file added to it later
    /// regenerates the types (see [`Settings::watched_paths`]).
    pub fn schema_dir(mut self, dir: impl AsRef<Path>) -> Result<Self, Error> {
        let dir = dir.as_ref();
        self.dirs.push(dir.to_path_buf());
        let io = |source| Error::Io {
            path: dir.to_path_buf(),
            source,
        };
        let mut files = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(io)? {
            let path = entry.map_err(io)?.path();
            if path.extension().is_some_and(|e| e == "json") {
                files.push(path);
            }
        }
        files.sort();
        for file in files {
            self = self.schema_file(file);
        }
        Ok(self)
    }

    /// Adds a schema given as text; `name` is used in error messages.
    pub fn schema_text(mut self, name: impl Into<String>, text: impl Into<String>) -> Self {
        self.schemas
            .push((name.into(), SchemaSource::Text(text.into())));
        self
    }

    /// Adds every bundled published schema file.
    pub fn bundled_schemas(mut self) -> Self {
        for (name, text) in BUNDLED_SCHEMAS {
            self = self.schema_text(*name, *text);
        }
        self
    }

    /// The path by which generated code names the runtime crate (default
    /// `::agentspec_types`; `crate` when generating into the runtime crate itself).
    pub fn runtime_path(mut self, path: TokenStream) -> Self {
        self.runtime = path;
        self
    }

    /// The files on disk this generation reads.
    pub fn schema_paths(&self) -> impl Iterator<Item = &Path> {
        self.schemas.iter().filter_map(|(_, s)| match s {
            SchemaSource::Path(p) => Some(p.as_path()),
            SchemaSource::Text(_) => None,
        })
    }

    /// What a build script must watch (`cargo:rerun-if-changed`): the folders given to
    /// [`Settings::schema_dir`], so that a file added, removed or edited there is seen, then
    /// every file read.
    pub fn watched_paths(&self) -> impl Iterator<Item = &Path> {
        self.dirs
            .iter()
            .map(PathBuf::as_path)
            .chain(self.schema_paths())
    }
}

/// Turns schema files into Rust tokens.
///
/// The files are read and parsed once, on first use, and the [`model::Model`] built once:
/// every method after that works on the same model.
#[derive(Debug, Clone)]
pub struct Generator {
    settings: Settings,
    parsed: std::sync::OnceLock<std::sync::Arc<Parsed>>,
}

/// The files as parsed, and the model read from them.
struct Parsed {
    files: Vec<read::SchemaFile>,
    model: model::Model,
}

impl std::fmt::Debug for Parsed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.files.iter().map(|file| file.name.as_str()).collect();
        f.debug_struct("Parsed")
            .field("files", &names)
            .finish_non_exhaustive()
    }
}

impl From<Settings> for Generator {
    fn from(settings: Settings) -> Self {
        Generator::new(settings)
    }
}

impl Generator {
    /// A generator for these settings.
    pub fn new(settings: Settings) -> Self {
        Generator {
            settings,
            parsed: std::sync::OnceLock::new(),
        }
    }

    /// Its settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The files and the model, parsed on first use.
    fn parsed(&self) -> Result<&Parsed, Error> {
        if let Some(parsed) = self.parsed.get() {
            return Ok(parsed);
        }
        let files = self.files()?;
        let model = read::read(&files)?;
        let parsed = self
            .parsed
            .get_or_init(|| std::sync::Arc::new(Parsed { files, model }));
        Ok(parsed)
    }

    /// The intermediate [`model::Model`] of the schema files: every fact the emitter uses,
    /// the declared table's included.
    pub fn model(&self) -> Result<model::Model, Error> {
        Ok(self.parsed()?.model.clone())
    }

    /// The entries of the declared table that match no field of these files
    /// (`Component.field`): a schema release that renamed or removed a field the table
    /// names. Empty for the bundled files.
    pub fn unmatched_declared(&self) -> Result<Vec<String>, Error> {
        Ok(declared::unmatched(&self.parsed()?.model))
    }

    /// The JSON Schema of the documents of every version the files list, oldest first: the
    /// published file of that version, repaired so that it validates what pyagentspec writes
    /// (see [`json_schema`](Generator::json_schema)).
    pub fn json_schemas(&self) -> Result<Vec<(model::Version, serde_json::Value)>, Error> {
        let Parsed { files, model } = self.parsed()?;
        model
            .versions
            .iter()
            .map(|v| Ok((*v, schema::for_version(files, model, *v)?)))
            .collect()
    }

    /// The JSON Schema of the documents of `version`: the oldest published file that lists
    /// `version`, repaired where it cannot validate real documents. The root accepts each
    /// concrete component with its `agentspec_version` (the published `Versioned<X>` roots
    /// reject it), or a components file; sensitive fields also accept their
    /// `{"$component_ref": "<id>.<field>"}` placeholder; `component_type` is required;
    /// fields pyagentspec writes at `version` but the file lacks are copied from the file
    /// that has them. `None` when no file lists `version`.
    pub fn json_schema(&self, version: model::Version) -> Result<Option<serde_json::Value>, Error> {
        let Parsed { files, model } = self.parsed()?;
        if !model.versions.contains(&version) {
            return Ok(None);
        }
        schema::for_version(files, model, version).map(Some)
    }

    fn files(&self) -> Result<Vec<read::SchemaFile>, Error> {
        let mut files: Vec<read::SchemaFile> = Vec::new();
        let mut seen: Vec<String> = Vec::new();
        for (name, source) in &self.settings.schemas {
            let text = match source {
                SchemaSource::Path(p) => {
                    std::fs::read_to_string(p).map_err(|source| Error::Io {
                        path: p.clone(),
                        source,
                    })?
                }
                SchemaSource::Text(t) => t.clone(),
            };
            // Identical files (26_1_2 and 26_2_0 are the same bytes) count once.
            if seen.contains(&text) {
                continue;
            }
            files.push(read::SchemaFile::parse(name, &text)?);
            seen.push(text);
        }
        if files.is_empty() {
            return Err(Error::NoSchema);
        }
        Ok(files)
    }

    /// Generates the types. The output is deterministic: the same schema bytes give the
    /// same tokens, whatever the order of the files.
    pub fn generate(&self) -> Result<TokenStream, Error> {
        emit::Emitter {
            model: &self.parsed()?.model,
            rt: self.settings.runtime.clone(),
        }
        .emit()
    }
}

/// Formats generated tokens as Rust source with an `@generated` header.
pub fn format(tokens: &TokenStream) -> Result<String, Error> {
    let file: syn::File = syn::parse2(tokens.clone()).map_err(Error::Format)?;
    let body = prettyplease::unparse(&file);
    Ok(format!(
        "// @generated by agentspec-codegen {} from the published Agent Spec JSON Schemas. Do not edit.\n\n{body}",
        env!("CARGO_PKG_VERSION")
    ))
}

#[cfg(test)]
mod tests {
    #[test]
    fn format_rejects_tokens_that_are_not_a_file_keeping_syns_error() {
        let err = super::format(&quote::quote!(struct)).unwrap_err();
        assert!(matches!(err, super::Error::Format(_)), "{err:?}");
        let source = std::error::Error::source(&err).expect("syn's error is the source");
        assert!(source.downcast_ref::<syn::Error>().is_some());
        assert_eq!(
            err.to_string(),
            format!("the tokens do not parse as a Rust file: {source}")
        );
    }

    #[test]
    fn an_unreadable_schema_file_keeps_the_io_error() {
        let missing = std::path::Path::new("/no/such/schema.json");
        let err = super::Generator::new(super::Settings::new().schema_file(missing))
            .generate()
            .unwrap_err();
        let source = std::error::Error::source(&err).expect("the I/O error is the source");
        let io = source.downcast_ref::<std::io::Error>().unwrap();
        assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
    }
}
