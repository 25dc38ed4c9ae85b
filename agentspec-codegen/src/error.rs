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
    /// The tokens given to [`format`](crate::format) do not parse as a Rust file (for
    /// generated tokens, a generator bug); syn's error is the source.
    #[error("the tokens do not parse as a Rust file: {0}")]
    Format(#[source] syn::Error),
}
