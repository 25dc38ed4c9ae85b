//! Diagnostics printed as rustc prints its own: `error[code]: message`, then
//! `--> file:line:column` and the source line with a marker.

use std::fmt;
use std::path::{Path, PathBuf};

use agentspec_types::Diagnostic;
use agentspec_types::diagnostic::LineIndex;

/// A diagnostic with the file it is about and its source line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// The file.
    pub path: PathBuf,
    /// The diagnostic (code, message, JSON pointer, line and column).
    pub diagnostic: Diagnostic,
    /// The source line it points at, when it has a line.
    pub line_text: Option<String>,
}

impl Located {
    pub(crate) fn new(path: &Path, text: &str, diagnostic: Diagnostic) -> Self {
        Self::all(path, text, vec![diagnostic])
            .pop()
            .expect("one diagnostic in, one out")
    }

    /// Each of `diagnostics` of the document at `path` (its lines counted once).
    pub(crate) fn all(path: &Path, text: &str, diagnostics: Vec<Diagnostic>) -> Vec<Self> {
        let index = LineIndex::new(text);
        diagnostics
            .into_iter()
            .map(|d| Self::with_index(path, &index, d))
            .collect()
    }

    fn with_index(path: &Path, index: &LineIndex<'_>, diagnostic: Diagnostic) -> Self {
        let line_text = diagnostic
            .line
            .map(|line| index.line_text(line).to_owned())
            .filter(|line| !holds_secret(line) && !points_into_secret(&diagnostic.pointer));
        Located {
            path: path.to_owned(),
            diagnostic,
            line_text,
        }
    }

    /// A problem of the generator itself about the document at `path`.
    pub(crate) fn generated(path: &Path, message: String) -> Self {
        Located {
            path: path.to_owned(),
            diagnostic: Diagnostic::error("spec-first-unsupported", message, "", None),
            line_text: None,
        }
    }

    /// `file:line:col: warning[code]: message (at /pointer)`, for `cargo:warning`.
    pub fn one_line(&self) -> String {
        let d = &self.diagnostic;
        let mut out = format!("{}", self.path.display());
        if let (Some(line), Some(column)) = (d.line, d.column) {
            out.push_str(&format!(":{line}:{column}"));
        }
        out.push_str(&format!(
            ": {}[{}]: {}",
            d.severity.as_str(),
            d.code,
            d.message
        ));
        if !d.pointer.is_empty() {
            out.push_str(&format!(" (at {})", d.pointer));
        }
        out.replace('\n', " ")
    }
}

impl fmt::Display for Located {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = &self.diagnostic;
        writeln!(f, "{}[{}]: {}", d.severity.as_str(), d.code, d.message)?;
        let (line, column) = (d.line.unwrap_or(0), d.column.unwrap_or(0));
        let number = line.to_string();
        let pad = " ".repeat(number.len());
        match (d.line, d.column) {
            (Some(_), Some(_)) => {
                writeln!(f, "{pad}--> {}:{line}:{column}", self.path.display())?;
            }
            _ => writeln!(f, "{pad}--> {}", self.path.display())?,
        }
        if let Some(text) = &self.line_text {
            let shown: String = text
                .chars()
                .map(|c| if c == '\t' { ' ' } else { c })
                .collect();
            let marker = " ".repeat((column as usize).saturating_sub(1));
            writeln!(f, "{pad} |")?;
            writeln!(f, "{number} | {shown}")?;
            writeln!(f, "{pad} | {marker}^")?;
        }
        if !d.pointer.is_empty() {
            writeln!(f, "{pad} = at {}", d.pointer)?;
        }
        Ok(())
    }
}

/// Whether a source line names a sensitive field (an API key, a password, …): its excerpt
/// is left out of the build's output, which build logs keep.
fn holds_secret(line: &str) -> bool {
    use agentspec_types::ComponentSet;
    agentspec_types::Component::SECRET_FIELDS
        .iter()
        .flat_map(|fields| fields.iter())
        .any(|(key, _)| line.contains(key))
}

/// Whether a pointer goes through a sensitive field or `sensitive_headers`, whose entries
/// sit on lines of their own.
fn points_into_secret(pointer: &str) -> bool {
    use agentspec_types::ComponentSet;
    pointer.split('/').any(|token| {
        token.starts_with("sensitive")
            || agentspec_types::Component::SECRET_FIELDS
                .iter()
                .flat_map(|fields| fields.iter())
                .any(|(key, _)| token == *key)
    })
}

/// Every diagnostic, errors first, then a summary line.
pub(crate) fn errors(all: &[Located]) -> String {
    let mut out = String::new();
    let mut ordered: Vec<&Located> = all.iter().filter(|l| l.diagnostic.is_error()).collect();
    let count = ordered.len();
    ordered.extend(all.iter().filter(|l| !l.diagnostic.is_error()));
    for located in ordered {
        out.push_str(&located.to_string());
        out.push('\n');
    }
    let file = all
        .first()
        .map(|l| l.path.display().to_string())
        .unwrap_or_default();
    out.push_str(&format!(
        "error: the Agent Spec document {file} has {count} error{}",
        if count == 1 { "" } else { "s" }
    ));
    out
}

/// One diagnostic.
pub(crate) fn one(located: &Located) -> String {
    located.to_string()
}
