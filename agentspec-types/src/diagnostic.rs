//! Diagnostics: every problem found in a document, with a stable code and its location.

use std::fmt;

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The document is rejected.
    Error,
    /// The document loads, but something deserves attention.
    Warning,
}

impl Severity {
    /// `"error"` or `"warning"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// One problem in a document: what rule is broken, and where.
///
/// `line` and `column` are 1-based (columns count characters); both are 0 when the
/// diagnostic has no source text (a document built in code).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// Stable, kebab-case code such as `unknown-field`; see [`guide::documents`](crate::guide::documents) for the list.
    pub code: &'static str,
    /// Human-readable message naming the broken rule.
    pub message: String,
    /// JSON pointer (RFC 6901) of the offending value; `""` is the whole document.
    pub pointer: String,
    /// Byte offset of the offending value in the source text, when known.
    pub offset: Option<usize>,
    /// 1-based line in the source text, 0 when unknown.
    pub line: u32,
    /// 1-based column (in characters) in the source text, 0 when unknown.
    pub column: u32,
}

impl Diagnostic {
    /// An error at `offset` (line and column are filled in by [`Diagnostic::locate`]).
    pub fn error(
        code: &'static str,
        message: impl Into<String>,
        pointer: impl Into<String>,
        offset: Option<usize>,
    ) -> Self {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            pointer: pointer.into(),
            offset,
            line: 0,
            column: 0,
        }
    }

    /// A warning at `offset` (line and column are filled in by [`Diagnostic::locate`]).
    pub fn warning(
        code: &'static str,
        message: impl Into<String>,
        pointer: impl Into<String>,
        offset: Option<usize>,
    ) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, message, pointer, offset)
        }
    }

    /// Whether this diagnostic is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Fills `line` and `column` from `offset` and the source text.
    pub fn locate(&mut self, index: &LineIndex) {
        if let Some(offset) = self.offset {
            let (line, column) = index.line_column(offset);
            self.line = line;
            self.column = column;
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: {}[{}]: {}",
            self.line,
            self.column,
            self.severity.as_str(),
            self.code,
            self.message
        )?;
        write!(
            f,
            " (at {})",
            if self.pointer.is_empty() {
                "/"
            } else {
                &self.pointer
            }
        )
    }
}

/// Maps byte offsets of a source text to 1-based lines and columns.
#[derive(Debug, Clone)]
pub struct LineIndex<'a> {
    text: &'a str,
    line_starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    /// Indexes the line starts of `text`.
    pub fn new(text: &'a str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex { text, line_starts }
    }

    /// The 1-based line and column (in characters) of `offset`; an offset past the end
    /// is clamped to the end of the text.
    pub fn line_column(&self, offset: usize) -> (u32, u32) {
        let offset = offset.min(self.text.len());
        let line = self.line_starts.partition_point(|&start| start <= offset) - 1;
        let start = self.line_starts[line];
        let mut end = offset;
        while !self.text.is_char_boundary(end) {
            end -= 1;
        }
        let column = self.text[start..end].chars().count() + 1;
        (line as u32 + 1, column as u32)
    }

    /// Fills the line and column of every diagnostic that has an offset.
    pub fn locate_all(&self, mut diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
        for d in &mut diagnostics {
            d.locate(self);
        }
        diagnostics
    }

    /// The text of 1-based `line`, without its line break.
    pub fn line_text(&self, line: u32) -> &'a str {
        let Some(&start) = self.line_starts.get(line.saturating_sub(1) as usize) else {
            return "";
        };
        let end = self
            .line_starts
            .get(line as usize)
            .map_or(self.text.len(), |&e| e);
        self.text[start..end].trim_end_matches(['\n', '\r'])
    }
}

/// Appends one reference token to a JSON pointer, escaping `~` and `/` (RFC 6901).
pub fn push_pointer_token(pointer: &mut String, token: &str) {
    pointer.push('/');
    for c in token.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}
