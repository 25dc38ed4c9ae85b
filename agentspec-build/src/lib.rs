//! Spec-first Agent Spec: from an existing document to Rust the compiler checks.
//!
//! An agent designed in Agent Spec (often written by pyagentspec, in another team) has
//! `ServerTool`s that must be implemented somewhere. Called from a build script, this crate
//! loads and validates the document, then writes a Rust module with:
//!
//! - for each `ServerTool`, at any depth, a module `tools::<name>` holding its arguments
//!   struct `Args` and its output type `Output`, generated from the tool's input and output
//!   JSON Schemas by [typify](https://docs.rs/typify) (descriptions become doc comments,
//!   defaults serde defaults, nullable fields `Option`s);
//! - a trait `Tools` with one async method per tool, and `register` and `toolbox`, which put
//!   an implementation of it in a [`Toolbox`](agentspec_types::Toolbox) in one call.
//!   `Toolbox::bind` against the same document passes by construction. A call's arguments
//!   are checked against the inputs' JSON Schemas before the method runs, and every problem
//!   is reported at once, at any depth, each at its JSON pointer, in the error `#[tool]`
//!   tools give;
//! - for each `Flow` and each agent, a module `flows::<name>` or `agents::<name>` with
//!   `Inputs` and `Outputs` structs;
//! - `document()`: the document checked when the crate was built, loaded once at run time
//!   without validating it again.
//!
//! When the document changes (a tool added, an input renamed or retyped), the crate that
//! implements the trait stops compiling where it must change. A document with errors fails
//! the build with its diagnostics, each at `file:line:column`, and its warnings become
//! `cargo:warning`s.
//!
//! ```no_run
//! // build.rs: the body of its `main`
//! agentspec_build::Builder::new()
//!     .document("weather_agent.json")
//!     .emit("agent.rs");
//! ```
//!
//! ```ignore
//! // src/lib.rs: one module per document, named after its file
//! include!(concat!(env!("OUT_DIR"), "/agent.rs"));
//! use weather_agent::tools::get_weather;
//!
//! struct Weather;
//!
//! impl weather_agent::Tools for Weather {
//!     async fn get_weather(&self, args: get_weather::Args) -> Result<get_weather::Output, agentspec_types::tool::BoxError> {
//!         Ok(format!("sunny in {}", args.city))
//!     }
//! }
//!
//! let toolbox = weather_agent::toolbox(Weather)?;
//! ```
//!
//! The generated code needs, at run time, `agentspec-types`, `serde` (with its `derive`
//! feature) and `serde_json`; typify and this crate stay in the build graph. The package
//! README has the Rust type of each JSON Schema, how arguments are checked and the error
//! codes; `agentspec_types::guide::building` describes the whole workflow.

#![deny(missing_docs)]

mod generate;
mod names;
mod report;

use std::io::Write;
use std::path::{Path, PathBuf};

use agentspec_types::components::Components;
use agentspec_types::diagnostic::Levels;
use agentspec_types::plugin::PluginRegistry;
use agentspec_types::{Diagnostic, Document, Format, LoadOptions, locate};

pub use report::Located;

/// The package README's examples, compiled as doctests (the build script; the program that
/// includes the generated code is compiled and run by `tests/spec-first`).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// What goes wrong: a file that cannot be read, a document with errors, or a tool whose
/// schemas typify cannot turn into Rust.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// A file could not be read.
    #[error("error: cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The generated code could not be written.
    #[error("error: cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// `emit` ran outside a build script: `OUT_DIR` is not set.
    #[error("error: OUT_DIR is not set: `agentspec_build::Builder::emit` runs in a build script")]
    NoOutDir,
    /// The document does not load or does not validate; every error (and warning) found.
    #[error("{}", report::errors(diagnostics))]
    Document {
        /// Each diagnostic, with its file and source line.
        diagnostics: Vec<Located>,
    },
    /// A tool, flow or agent whose properties cannot become Rust types.
    #[error("{}", report::one(located))]
    Generate {
        /// Where, with the reason as its message (code `spec-first-unsupported`).
        located: Box<Located>,
    },
    /// No document was given.
    #[error("error: no Agent Spec document given to agentspec_build::Builder")]
    NoDocument,
}

/// The code generated for a set of documents.
#[derive(Debug, Clone)]
pub struct Generated {
    /// The Rust source: one module per document.
    pub code: String,
    /// Every file read, for `cargo:rerun-if-changed`.
    pub read: Vec<PathBuf>,
    /// The documents' warnings.
    pub warnings: Vec<Located>,
    /// What was generated for each document.
    pub documents: Vec<Summary>,
}

/// What was generated for one document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// The document.
    pub path: PathBuf,
    /// Its module.
    pub module: String,
    /// The names of its server tools (one each, with a module in `tools` and a trait method).
    pub tools: Vec<String>,
    /// The names of its flows.
    pub flows: Vec<String>,
    /// The names of its agents.
    pub agents: Vec<String>,
}

/// Generates Rust from Agent Spec documents; see the [crate] documentation.
#[derive(Debug, Clone, Default)]
pub struct Builder {
    documents: Vec<PathBuf>,
    components: Option<PathBuf>,
    keep_unknown: bool,
    levels: Levels,
    plugins: Option<PluginRegistry>,
}

impl Builder {
    /// A builder with no documents.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a document (JSON or YAML, by its extension, else by its first character). Its
    /// module is named after the file (`weather-agent.yaml`: `weather_agent`).
    pub fn document(mut self, path: impl AsRef<Path>) -> Self {
        self.documents.push(path.as_ref().to_owned());
        self
    }

    /// A components file (what `agentspec split` writes) the documents reference.
    pub fn components(mut self, path: impl AsRef<Path>) -> Self {
        self.components = Some(path.as_ref().to_owned());
        self
    }

    /// Keeps components of types nothing defines (plugin components) as raw components,
    /// instead of failing with `unknown-component-type`; `document()` then loads them the
    /// same way.
    pub fn keep_unknown(mut self, keep: bool) -> Self {
        self.keep_unknown = keep;
        self
    }

    /// The plugin component types the documents may hold (see `#[derive(Component)]`): the
    /// build checks their fields. The generated `load()` and `document()` cannot name the
    /// registry, so they keep plugin components as read; `load_with` takes options with it.
    pub fn plugins(mut self, plugins: PluginRegistry) -> Self {
        self.plugins = Some(plugins);
        self
    }

    /// Rule levels: a denied warning fails the build, an allowed one is not reported.
    pub fn levels(mut self, levels: Levels) -> Self {
        self.levels = levels;
        self
    }

    /// Loads, validates and generates, printing nothing.
    pub fn generate(&self) -> Result<Generated, BuildError> {
        self.generate_reading(&mut Vec::new())
    }

    /// [`Builder::generate`], recording every file it reads in `read`, even when it fails.
    fn generate_reading(&self, read: &mut Vec<PathBuf>) -> Result<Generated, BuildError> {
        if self.documents.is_empty() {
            return Err(BuildError::NoDocument);
        }
        let components_text = match &self.components {
            Some(path) => {
                read.push(path.clone());
                Some(read_text(path)?)
            }
            None => None,
        };
        let components = match (&self.components, &components_text) {
            (Some(path), Some((text, format))) => Components::from_str_as(text, *format)
                .map_err(|e| document_error(path, text, e.diagnostics))?,
            _ => Components::new(),
        };
        let mut warnings = Vec::new();
        let mut modules = Vec::new();
        let mut documents = Vec::new();
        let mut module_names = names::Names::default();
        for path in &self.documents {
            read.push(path.clone());
            let (text, format) = read_text(path)?;
            let mut options = LoadOptions::new()
                .components(&components)
                .keep_unknown(self.keep_unknown)
                .levels(&self.levels);
            if let Some(plugins) = &self.plugins {
                options = options.plugins(plugins);
            }
            let doc = Document::from_str_with(&text, format, &options)
                .map_err(|e| document_error(path, &text, e.diagnostics))?;
            let mut found = doc.validate_with(&self.levels);
            locate(&mut found, &text, format);
            let mut all = doc.warnings().to_vec();
            all.extend(found);
            all.sort_by_key(|d| (d.line, d.column));
            if all.iter().any(Diagnostic::is_error) {
                return Err(document_error(path, &text, all));
            }
            warnings.extend(Located::all(path, &text, all));
            let stem = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let module = generate::Module {
                ident: module_names.unique(&stem),
                path,
                text: &text,
                doc: &doc,
                components: components_text
                    .as_ref()
                    .map(|_| components.to_json_pretty()),
                components_set: components_text.as_ref().map(|_| &components),
                keep_unknown: self.keep_unknown || self.plugins.is_some(),
            };
            let (tokens, summary) = generate::module(&module)?;
            modules.push(tokens);
            documents.push(summary);
        }
        let file = quote::quote! { #(#modules)* };
        let code = generate::pretty(file).map_err(|message| BuildError::Generate {
            located: Box::new(Located::generated(&self.documents[0], message)),
        })?;
        Ok(Generated {
            code: format!(
                "// Generated by agentspec-build from Agent Spec documents. Do not edit.\n\n{code}"
            ),
            read: read.clone(),
            warnings,
            documents,
        })
    }

    /// Writes the code to `path`, unless it already holds it (so that its users are not
    /// rebuilt for nothing).
    pub fn write(&self, path: impl AsRef<Path>) -> Result<Generated, BuildError> {
        let generated = self.generate()?;
        write_if_changed(path.as_ref(), &generated.code)?;
        Ok(generated)
    }

    /// For build scripts: generates into `$OUT_DIR/<file_name>`, prints
    /// `cargo:rerun-if-changed` for every file read and a `cargo:warning` for each warning;
    /// on an error, prints every diagnostic as rustc does and ends the build script with
    /// exit code 1, which fails the build.
    pub fn emit(&self, file_name: &str) {
        let out_dir = std::env::var_os("OUT_DIR").map(PathBuf::from);
        let result = self.emit_to(out_dir.as_deref(), file_name, &mut std::io::stdout().lock());
        if let Err(error) = result {
            eprintln!("{error}");
            std::process::exit(1);
        }
    }

    /// [`Builder::emit`] without ending the process: generates into `out_dir/<file_name>`
    /// (`None`: `$OUT_DIR` is not set, an error) and writes cargo's instructions
    /// (`cargo:rerun-if-changed=…`, `cargo:warning=…`) to `instructions`, even when it fails.
    pub fn emit_to(
        &self,
        out_dir: Option<&Path>,
        file_name: &str,
        instructions: &mut dyn Write,
    ) -> Result<Generated, BuildError> {
        let mut read = Vec::new();
        let result = self.generate_reading(&mut read);
        // a failed write of an instruction cannot be reported anywhere better
        for path in &read {
            let _ = writeln!(instructions, "cargo:rerun-if-changed={}", path.display());
        }
        let generated = result?;
        for warning in &generated.warnings {
            let _ = writeln!(instructions, "cargo:warning={}", warning.one_line());
        }
        let out = out_dir.ok_or(BuildError::NoOutDir)?;
        write_if_changed(&out.join(file_name), &generated.code)?;
        Ok(generated)
    }
}

fn read_text(path: &Path) -> Result<(String, Format), BuildError> {
    let text = std::fs::read_to_string(path).map_err(|source| BuildError::Io {
        path: path.to_owned(),
        source,
    })?;
    let format = Format::from_path(path).unwrap_or_else(|| Format::sniff(&text));
    Ok((text, format))
}

fn document_error(path: &Path, text: &str, diagnostics: Vec<Diagnostic>) -> BuildError {
    BuildError::Document {
        diagnostics: Located::all(path, text, diagnostics),
    }
}

fn write_if_changed(path: &Path, code: &str) -> Result<(), BuildError> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == code) {
        return Ok(());
    }
    std::fs::write(path, code).map_err(|source| BuildError::Write {
        path: path.to_owned(),
        source,
    })
}
