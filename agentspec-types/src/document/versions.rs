//! Versions of a document: the oldest that can hold it, and moving it to another one.

use super::{DEEP, Document, LoadError, on_big_stack};
use crate::codec::{ComponentSet, Encoder, Need};
use crate::diagnostic::Diagnostic;
use crate::syntax::sink::Sink;
use crate::syntax::value::ValueSink;
use crate::version::Version;

impl<C: ComponentSet + Send> Document<C> {
    /// A document for `root`, written at the oldest version that can hold it (as pyagentspec
    /// writes what is built in code); see [`Document::min_version`].
    pub fn at_min_version(root: impl Into<C>) -> Self
    where
        C: Sync,
    {
        let mut doc = Self::new(root, Version::new(0, 0, 0));
        doc.version = doc.min_version().0;
        doc
    }

    /// The document set to be written at `version`: an error naming what needs a newer
    /// version when `version` is too old for the content, or when it is not a known version.
    pub fn with_version(mut self, version: Version) -> Result<Self, LoadError>
    where
        C: Sync,
    {
        known_version::<C>(version)?;
        match self.min_version() {
            (min, Some(need)) if version < min => Err(too_old(version, min, need)),
            _ => {
                self.version = version;
                Ok(self)
            }
        }
    }

    /// The document set to be written at `version`, without the fields `version` does not
    /// have that hold a value: each one dropped is reported as a `dropped-field` warning at
    /// its pointer. Components and values newer than `version` cannot be dropped: an error
    /// names them, as [`with_version`](Document::with_version) does.
    pub fn with_version_dropping(
        mut self,
        version: Version,
    ) -> Result<(Self, Vec<Diagnostic>), LoadError>
    where
        C: Sync,
    {
        known_version::<C>(version)?;
        let (needs, dropped) = self.walk_needs(Encoder::dropping(version));
        if let Some(need) = newest(&needs) {
            return Err(too_old(version, need.version, need.clone()));
        }
        if dropped.is_empty() {
            self.version = version;
            return Ok((self, Vec::new()));
        }
        let report = dropped
            .iter()
            .map(|d| {
                Diagnostic::warning(
                    "dropped-field",
                    format!(
                        "`{}` is dropped: it exists from Agent Spec {}, and the document is written at {version}",
                        d.what, d.version
                    ),
                    d.pointer.clone().unwrap_or_default(),
                    None,
                )
            })
            .collect();
        let value = self
            .write_into_with(ValueSink::new(), Encoder::dropping(version))
            .finish();
        Ok((self.reload.load(&value)?, report))
    }

    /// The oldest Agent Spec version that can hold this document, and what decides it: the
    /// component type or the non-default field that needs the newest version (`None` when
    /// nothing needs more than the oldest known version).
    pub fn min_version(&self) -> (Version, Option<Need>)
    where
        C: Sync,
    {
        let oldest = C::VERSIONS.first().copied().unwrap_or(self.version);
        let (needs, _) = self.walk_needs(Encoder::new(oldest, true));
        match newest(&needs) {
            Some(n) => (n.version, Some(n.clone())),
            None => (oldest, None),
        }
    }

    /// Writes the document with `cx` into a sink that tracks pointers, and returns what
    /// needs a newer version than `cx.version`, and what `cx` dropped.
    fn walk_needs(&self, cx: Encoder) -> (Vec<Need>, Vec<Need>)
    where
        C: Sync,
    {
        let walk = move || {
            let mut sink = crate::syntax::sink::PathSink::new();
            sink.begin_object();
            self.root.encode_body(&mut sink, &cx);
            sink.end_object();
            (cx.needs.into_inner(), cx.dropped.into_inner())
        };
        if self.depth > DEEP {
            on_big_stack(self.depth, walk)
        } else {
            walk()
        }
    }
}

/// An error unless `version` is one the type set knows.
fn known_version<C: ComponentSet>(version: Version) -> Result<(), LoadError> {
    if C::VERSIONS.contains(&version) {
        return Ok(());
    }
    let known = C::VERSIONS
        .iter()
        .map(Version::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let d = Diagnostic::error(
        "unknown-version",
        format!("Agent Spec version {version} is not known (known: {known})"),
        "",
        None,
    );
    Err(LoadError::new(vec![d]))
}

/// The newest of `needs`; among equals, the first in the document.
fn newest(needs: &[Need]) -> Option<&Need> {
    needs.iter().fold(None::<&Need>, |best, n| match best {
        Some(b) if b.version >= n.version => Some(b),
        _ => Some(n),
    })
}

/// Writing at `version` is refused: `need` needs `min`.
fn too_old(version: Version, min: Version, need: Need) -> LoadError {
    let what = if need.field {
        format!("`{}` is set", need.what)
    } else {
        format!("it holds a `{}`", need.what)
    };
    let message = format!("cannot write at {version}: {what}, which needs {min}");
    LoadError::new(vec![Diagnostic::error(
        "version-too-old",
        message,
        need.pointer.unwrap_or_default(),
        None,
    )])
}
