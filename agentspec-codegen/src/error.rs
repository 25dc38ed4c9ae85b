//! Generation errors.

use std::path::PathBuf;

/// Why generation failed. Every schema problem names the file and the JSON pointer of the
/// shape that has no rule.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A schema file could not be read.
    #[error("cannot read schema file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A schema file is not valid JSON.
    #[error("{file}: not valid JSON: {source}")]
    Json {
        /// The file.
        file: String,
        /// The parse error.
        source: serde_json::Error,
    },
    /// A shape of the schema that the generator has no rule for.
    #[error("{file}: no rule for the schema at {pointer}: {message}")]
    Unsupported {
        /// The file.
        file: String,
        /// JSON pointer of the shape inside the file.
        pointer: String,
        /// What is wrong.
        message: String,
    },
    /// No schema file was given.
    #[error("no schema file given")]
    NoSchema,
    /// The generated tokens did not parse as Rust (a generator bug).
    #[error("generated code does not parse: {0}")]
    Format(String),
}
