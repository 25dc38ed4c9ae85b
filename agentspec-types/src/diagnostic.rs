//! Diagnostics: every problem found in a document, with a stable code and its location.

use std::fmt;

pub(crate) mod suggest;

/// The longest message a diagnostic keeps, in bytes: a message that repeats what a document
/// holds (a name, a list of ids) is cut there, so that no input makes the report huge.
pub const MAX_MESSAGE: usize = 2_000;

/// `message`, cut at [`MAX_MESSAGE`] bytes (on a character boundary) with a note of how much.
fn capped(mut message: String) -> String {
    if message.len() > MAX_MESSAGE {
        let mut end = MAX_MESSAGE;
        while !message.is_char_boundary(end) {
            end -= 1;
        }
        let cut = message.len() - end;
        message.truncate(end);
        message.push_str(&format!("… ({cut} more bytes cut)"));
    }
    message
}

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
/// `line` and `column` are 1-based (columns count characters) and known together: both are
/// `None` when the diagnostic has no place in a source text (a document built in code, or
/// loaded from a `serde_json::Value`), until [`Diagnostic::locate`] finds it in one. They are
/// plain `Option<u32>` rather than `Option<NonZeroU32>` so that they compare with literals
/// (`d.line == Some(3)`); a located diagnostic never holds `Some(0)`.
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
    /// 1-based line in the source text; `None` when unknown.
    pub line: Option<u32>,
    /// 1-based column (in characters) in the source text; `None` when unknown.
    pub column: Option<u32>,
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
            message: capped(message.into()),
            pointer: pointer.into(),
            offset,
            line: None,
            column: None,
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
            self.line = Some(line);
            self.column = Some(column);
        }
    }
}

/// `LINE:COLUMN: error[CODE]: message (at /pointer)`; without the `LINE:COLUMN: ` when
/// the position is unknown.
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let (Some(line), Some(column)) = (self.line, self.column) {
            write!(f, "{line}:{column}: ")?;
        }
        write!(
            f,
            "{}[{}]: {}",
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
        self.locate_each(&mut diagnostics);
        diagnostics
    }

    /// Fills the line and column of every diagnostic that has an offset, in one pass over
    /// the text in the order of their offsets: many diagnostics on one long line (a
    /// minified document) cost the line's length once, not once each.
    pub fn locate_each(&self, diagnostics: &mut [Diagnostic]) {
        self.locate_some(diagnostics, 0..diagnostics.len());
    }

    /// [`LineIndex::locate_each`] for the diagnostics at `which` only.
    pub(crate) fn locate_some(
        &self,
        diagnostics: &mut [Diagnostic],
        which: impl IntoIterator<Item = usize>,
    ) {
        let order = by_offset(self.text.len(), diagnostics, which);
        // the last position counted: its line, byte offset and column
        let mut cursor: Option<(usize, usize, usize)> = None;
        for (offset, i) in order {
            let line = self.line_starts.partition_point(|&start| start <= offset) - 1;
            let mut end = offset;
            while !self.text.is_char_boundary(end) {
                end -= 1;
            }
            let (from, column) = match cursor {
                Some((l, byte, column)) if l == line && byte <= end => (byte, column),
                _ => (self.line_starts[line], 1),
            };
            let column = column + self.text[from..end].chars().count();
            cursor = Some((line, end, column));
            diagnostics[i].line = Some(line as u32 + 1);
            diagnostics[i].column = Some(column as u32);
        }
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

/// The diagnostics at `which` that have an offset (clamped to `len`), by offset: (offset,
/// index).
fn by_offset(
    len: usize,
    diagnostics: &[Diagnostic],
    which: impl IntoIterator<Item = usize>,
) -> Vec<(usize, usize)> {
    let mut order: Vec<(usize, usize)> = which
        .into_iter()
        .filter_map(|i| {
            let offset = diagnostics.get(i)?.offset?;
            Some((offset.min(len), i))
        })
        .collect();
    order.sort_unstable();
    order
}

/// Fills the line and column of the diagnostics at `which` that have an offset into `text`,
/// as [`LineIndex::locate_each`] does, without indexing the text's lines: one forward sweep
/// up to the last offset, which counts line breaks as it goes. A document loaded with a
/// warning or two (the usual case) costs no table of line starts, which at 10,000 nodes
/// is megabytes written and read back once.
pub(crate) fn locate_by_sweep(
    text: &str,
    diagnostics: &mut [Diagnostic],
    which: impl IntoIterator<Item = usize>,
) {
    let order = by_offset(text.len(), diagnostics, which);
    let bytes = text.as_bytes();
    // the line reached (0-based), where the sweep stands, and the column there
    let (mut line, mut at, mut column) = (0usize, 0usize, 1usize);
    for (offset, i) in order {
        let mut end = offset;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        // no line break is inside a character: the breaks before `end` are those before
        // `offset`
        let passed = &bytes[at..end];
        let breaks = count_breaks(passed);
        if breaks > 0 {
            line += breaks;
            let start = at
                + passed
                    .iter()
                    .rposition(|&b| b == b'\n')
                    .map_or(0, |p| p + 1);
            column = 1 + text[start..end].chars().count();
        } else {
            column += text[at..end].chars().count();
        }
        at = end;
        diagnostics[i].line = Some(line as u32 + 1);
        diagnostics[i].column = Some(column as u32);
    }
}

/// The line breaks in `bytes`, counted 64 bytes at a time into a byte (what compilers turn
/// into vector instructions; a count per byte is five instructions a byte).
fn count_breaks(bytes: &[u8]) -> usize {
    let mut chunks = bytes.chunks_exact(64);
    let mut n = 0;
    for chunk in &mut chunks {
        n += usize::from(chunk.iter().fold(0u8, |k, &b| k + u8::from(b == b'\n')));
    }
    n + chunks.remainder().iter().filter(|&&b| b == b'\n').count()
}

/// Appends one reference token to a JSON pointer, escaping `~` and `/` (RFC 6901).
pub fn push_pointer_token(pointer: &mut String, token: &str) {
    pointer.push('/');
    // most tokens need no escape: copied whole
    let mut rest = token;
    while let Some(i) = rest.find(['~', '/']) {
        pointer.push_str(&rest[..i]);
        pointer.push_str(if rest.as_bytes()[i] == b'~' {
            "~0"
        } else {
            "~1"
        });
        rest = &rest[i + 1..];
    }
    pointer.push_str(rest);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unlocated_diagnostics_have_no_position_and_display_none() {
        let d = Diagnostic::error("unknown-field", "no field `x`", "/x", None);
        assert_eq!((d.line, d.column), (None, None));
        assert_eq!(d.to_string(), "error[unknown-field]: no field `x` (at /x)");
    }

    #[test]
    fn locating_many_at_once_agrees_with_locating_each() {
        let text = "{\"é\": 1, \"a\": [1, 2], \"𝄞\": 3,\n  \"b\": 4, \"ç\": 5}";
        let index = LineIndex::new(text);
        // out of order, two at one offset, one inside a character, one past the end
        let offsets = [40, 2, 25, 9, 9, 3, 1000, 0];
        let mut many: Vec<Diagnostic> = offsets
            .iter()
            .map(|&o| Diagnostic::error("x", "x", "", Some(o)))
            .collect();
        many.push(Diagnostic::error("x", "x", "", None));
        index.locate_each(&mut many);
        for (d, &o) in many.iter().zip(&offsets) {
            let (line, column) = index.line_column(o);
            assert_eq!((d.line, d.column), (Some(line), Some(column)), "offset {o}");
        }
        assert_eq!((many[8].line, many[8].column), (None, None));
    }

    #[test]
    fn a_sweep_places_diagnostics_as_the_index_does() {
        // longer than the 64 bytes counted at a time, with breaks on both sides of a chunk's end
        let text =
            &"{\n\"é\": 1,\r\n  \"a\": [1, 2],\n\n\"𝄞\": 3,\n  \"b\": 4, \"ç\": 5}\n".repeat(5);
        let index = LineIndex::new(text);
        // every offset, twice over and out of order, inside characters and past the end
        let offsets: Vec<usize> = (0..text.len() + 3).rev().chain(0..text.len()).collect();
        let mut swept: Vec<Diagnostic> = offsets
            .iter()
            .map(|&o| Diagnostic::error("x", "x", "", Some(o)))
            .collect();
        swept.push(Diagnostic::error("x", "x", "", None));
        let all = 0..swept.len();
        locate_by_sweep(text, &mut swept, all);
        for (d, &o) in swept.iter().zip(&offsets) {
            let (line, column) = index.line_column(o);
            assert_eq!((d.line, d.column), (Some(line), Some(column)), "offset {o}");
        }
        assert_eq!(
            (swept.last().unwrap().line, swept[offsets.len()].column),
            (None, None)
        );
        // only those asked for
        let mut some = vec![Diagnostic::error("x", "x", "", Some(5)); 2];
        locate_by_sweep(text, &mut some, [1]);
        assert_eq!((some[0].line, some[1].line), (None, Some(2)));
    }

    #[test]
    fn located_diagnostics_display_line_and_column() {
        let text = "{\n  \"x\": 1,\n  \"é\": 2\n}";
        let index = LineIndex::new(text);
        let offset = text.find('2').unwrap();
        let mut d = Diagnostic::warning("unknown-field", "no field `é`", "/é", Some(offset));
        d.locate(&index);
        assert_eq!((d.line, d.column), (Some(3), Some(8)));
        assert_eq!(
            d.to_string(),
            "3:8: warning[unknown-field]: no field `é` (at /é)"
        );
    }

    #[test]
    fn a_message_is_cut_at_its_cap_on_a_character_boundary() {
        let huge = format!("unknown `{}`", "é".repeat(50_000));
        let d = Diagnostic::error("unknown-component-type", huge, "", None);
        assert!(d.message.len() < MAX_MESSAGE + 40, "{}", d.message.len());
        assert!(
            d.message.ends_with("more bytes cut)"),
            "{}",
            &d.message[1990..]
        );
        let short = Diagnostic::warning("unknown-field", "short", "", None);
        assert_eq!(short.message, "short");
    }

    #[test]
    fn locating_without_an_offset_keeps_the_position_unknown() {
        let index = LineIndex::new("{}");
        let mut d = Diagnostic::error("missing-field", "no `name`", "", None);
        d.locate(&index);
        assert_eq!((d.line, d.column), (None, None));
        assert_eq!(d.to_string(), "error[missing-field]: no `name` (at /)");
    }
}

/// Every diagnostic code with its default level, in the order of the table in
/// [`guide::documents`](crate::guide::documents) (a test keeps the two equal).
/// `missing-secret` is a warning by default and an error once secret values are supplied.
pub const CODES: &[(&str, Severity)] = &[
    ("syntax-error", Severity::Error),
    ("duplicate-key", Severity::Error),
    ("imprecise-integer", Severity::Warning),
    ("non-finite-number", Severity::Error),
    ("too-deep", Severity::Error),
    ("too-large", Severity::Error),
    ("io-error", Severity::Error),
    ("invalid-type", Severity::Error),
    ("invalid-value", Severity::Error),
    ("out-of-range", Severity::Error),
    ("invalid-length", Severity::Error),
    ("missing-field", Severity::Error),
    ("unknown-field", Severity::Warning),
    ("missing-component-type", Severity::Error),
    ("unknown-component-type", Severity::Error),
    ("wrong-component-family", Severity::Error),
    ("plugin-not-registered", Severity::Error),
    ("unresolved-reference", Severity::Error),
    ("duplicate-id", Severity::Error),
    ("reference-cycle", Severity::Error),
    ("unknown-version", Severity::Error),
    ("invalid-version", Severity::Error),
    ("root-reference", Severity::Warning),
    ("invalid-split", Severity::Error),
    ("version-too-old", Severity::Error),
    ("newer-value", Severity::Error),
    ("flow-start-node", Severity::Error),
    ("flow-end-node", Severity::Error),
    ("edge-node-not-in-flow", Severity::Error),
    ("unknown-branch", Severity::Warning),
    ("branches-mismatch", Severity::Error),
    ("inputs-mismatch", Severity::Error),
    ("outputs-mismatch", Severity::Error),
    ("startnode-io", Severity::Error),
    ("endnode-io", Severity::Error),
    ("data-edge-output", Severity::Error),
    ("data-edge-input", Severity::Error),
    ("data-edge-type", Severity::Error),
    ("flow-inputs", Severity::Error),
    ("flow-outputs", Severity::Error),
    ("property-title", Severity::Error),
    ("property-schema", Severity::Error),
    ("property-default", Severity::Error),
    ("duplicate-property", Severity::Error),
    ("header-in-both", Severity::Error),
    ("datastore-schema", Severity::Error),
    ("summarization-threshold", Severity::Error),
    ("transform-value", Severity::Error),
    ("transform-datastore", Severity::Error),
    ("catch-exception", Severity::Error),
    ("retry-policy", Severity::Error),
    ("cardinality", Severity::Error),
    ("dbms-credential", Severity::Error),
    ("missing-secret", Severity::Warning),
    ("missing-version", Severity::Warning),
    ("legacy-version", Severity::Warning),
    ("legacy-version-field", Severity::Warning),
    ("nested-version", Severity::Warning),
    ("reference-extra-key", Severity::Warning),
    ("newer-field", Severity::Warning),
    ("dropped-field", Severity::Warning),
    ("legacy-value", Severity::Warning),
    ("unused-component", Severity::Warning),
    ("property-without-title", Severity::Warning),
    ("unreachable-node", Severity::Warning),
    ("input-not-fed", Severity::Warning),
    ("no-path-to-end", Severity::Warning),
];

/// The default level of `code`, or `None` for a code that does not exist.
pub fn default_level(code: &str) -> Option<Severity> {
    CODES.iter().find(|(c, _)| *c == code).map(|(_, s)| *s)
}

/// A code given to [`Levels`] that cannot take effect: no such code exists (with the nearest
/// existing one, when one is near), or the code is an error, which cannot be allowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LevelError {
    /// The code as given.
    pub code: String,
    /// What is wrong with it, in a sentence.
    pub message: String,
}

impl fmt::Display for LevelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for LevelError {}

/// Rule levels, as clippy and ruff have them: every code has a default level (its severity,
/// listed in [`guide::documents`](crate::guide::documents)); `deny` raises a code's warnings to
/// errors (`"warnings"` stands for every warning), `allow` silences a code's warnings. An error
/// stays an error: it is what pyagentspec rejects, or what cannot be represented.
///
/// ```
/// use agentspec_types::diagnostic::{Diagnostic, Levels, Severity};
///
/// let mut found = vec![
///     Diagnostic::warning("unknown-branch", "the edge never fires", "/control_flow_connections/0", None),
///     Diagnostic::warning("missing-version", "read as the newest version", "", None),
/// ];
/// Levels::new().deny("unknown-branch").allow("missing-version").apply(&mut found);
/// assert_eq!(found.len(), 1);
/// assert_eq!((found[0].code, found[0].severity), ("unknown-branch", Severity::Error));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Levels {
    deny: std::collections::BTreeSet<String>,
    allow: std::collections::BTreeSet<String>,
}

impl Levels {
    /// Every code at its default level.
    pub fn new() -> Self {
        Levels::default()
    }

    /// Raises the warnings of `code` to errors (`"warnings"`: every warning not allowed).
    pub fn deny(mut self, code: impl Into<String>) -> Self {
        self.deny.insert(code.into());
        self
    }

    /// Silences the warnings of `code` (an error cannot be allowed).
    pub fn allow(mut self, code: impl Into<String>) -> Self {
        self.allow.insert(code.into());
        self
    }

    /// Every code given to [`Levels::deny`] or [`Levels::allow`] that cannot take effect: one
    /// that does not exist (`"warnings"` aside), or an error given to `allow`. A caller
    /// that takes codes from its user (the CLI's `--deny` and `--allow`) reports these;
    /// [`Levels::apply`] ignores them.
    ///
    /// ```
    /// use agentspec_types::diagnostic::Levels;
    ///
    /// let levels = Levels::new().deny("unknown-feild").allow("syntax-error");
    /// let problems: Vec<String> = levels.problems().iter().map(|p| p.to_string()).collect();
    /// assert_eq!(problems, [
    ///     "`syntax-error` is an error, and errors cannot be allowed",
    ///     "there is no diagnostic code `unknown-feild`; did you mean `unknown-field`?",
    /// ]);
    /// ```
    pub fn problems(&self) -> Vec<LevelError> {
        let mut out = Vec::new();
        for code in self.allow.iter().chain(&self.deny) {
            let allowed = self.allow.contains(code);
            let message = match default_level(code) {
                Some(Severity::Error) if allowed => {
                    format!("`{code}` is an error, and errors cannot be allowed")
                }
                Some(_) => continue,
                None if code == "warnings" && !allowed => continue,
                None => {
                    let codes = CODES.iter().map(|(c, _)| *c);
                    match suggest::closest(code, codes) {
                        Some(c) => {
                            format!("there is no diagnostic code `{code}`; did you mean `{c}`?")
                        }
                        None => format!("there is no diagnostic code `{code}`"),
                    }
                }
            };
            out.push(LevelError {
                code: code.clone(),
                message,
            });
        }
        out
    }

    /// Whether every code is at its default level.
    pub fn is_default(&self) -> bool {
        self.deny.is_empty() && self.allow.is_empty()
    }

    /// Applies the levels to `diagnostics`: allowed warnings are removed, denied ones become
    /// errors (their message says so).
    pub fn apply(&self, diagnostics: &mut Vec<Diagnostic>) {
        if self.is_default() {
            return;
        }
        diagnostics.retain(|d| d.is_error() || !self.allow.contains(d.code));
        let all = self.deny.contains("warnings");
        for d in diagnostics.iter_mut() {
            if !d.is_error() && (all || self.deny.contains(d.code)) {
                d.severity = Severity::Error;
                d.message.push_str(" (denied)");
            }
        }
    }
}
