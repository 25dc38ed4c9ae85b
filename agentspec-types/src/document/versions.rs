//! Versions of a document: the oldest that can hold it, and moving it to another one.

use super::{DEEP, Document, LoadError, on_big_stack};
use crate::codec::{ComponentSet, Encoder, Need};
use crate::diagnostic::Diagnostic;
use crate::syntax::sink::Sink;
use crate::syntax::value::ValueSink;
use crate::version::Version;

impl<C: ComponentSet + Send> Document<C> {
    /// A document for `root`, built in code, as pyagentspec writes what is built in code:
    /// - at the oldest version that can hold it (see [`Document::min_version`]);
    /// - a component used at several places (copies with the same id) written once, under the
    ///   `$referenced_components` of the component that owns all its uses, and referenced
    ///   everywhere else;
    /// - the `inputs` and `outputs` left unset (`None`) and the `branches` of a node left empty
    ///   inferred as pyagentspec's constructors infer them: from prompt placeholders, a flow's
    ///   start and end nodes, a node's agent, tool or subflow (see `guide::limits` for the
    ///   few component types whose rules are not ported yet).
    ///
    /// An error when two different components have the same id (`duplicate-id`, as on
    /// loading).
    ///
    /// ```
    /// use agentspec_types::{ControlFlowEdge, Document, EndNode, Flow, Node, StartNode};
    /// use serde_json::json;
    ///
    /// let start = Node::from(StartNode::new("start").with_id("start"));
    /// let end = Node::from(EndNode::new("end").with_id("end"));
    /// // each node stands in `nodes` and in the edge: copies with the same id
    /// let edge = ControlFlowEdge::new("go", start.clone(), end.clone()).with_id("go");
    /// let flow = Flow::new("greet", start.clone(), [start, end], [edge]).with_id("greet");
    /// let doc = Document::at_min_version(flow)?;
    /// let value = doc.to_value();
    /// assert_eq!(value["start_node"], json!({"$component_ref": "start"}));
    /// assert_eq!(value["$referenced_components"]["start"]["component_type"], "StartNode");
    /// assert!(doc.validate().is_empty());
    /// assert_eq!(Document::from_value(&value)?, doc);
    /// # Ok::<(), agentspec_types::LoadError>(())
    /// ```
    pub fn at_min_version(root: impl Into<C>) -> Result<Self, LoadError>
    where
        C: Sync,
    {
        let newest = C::VERSIONS.last().copied().unwrap_or(Version::NEVER);
        let doc = Self::new(root, newest);
        let non_finite = doc.non_finite();
        if !non_finite.is_empty() {
            return Err(LoadError::new(non_finite));
        }
        let all = doc.to_value_with(&super::WriteOptions::new().include_secrets(true));
        // read back with the plugin types it holds, and keeping raw plugin components
        let mut plugins = crate::codec::plugin::PluginRegistry::new();
        for c in doc.components() {
            if let Some(register) = c.as_plugin().and_then(|p| p.get().register_type()) {
                register(&mut plugins);
            }
        }
        let reload = super::Reload {
            keep_unknown: true,
            plugins: Some(plugins),
        };
        let built = super::lay_out_with(&all, crate::infer::infer)?;
        let mut doc = reload.load(&built)?;
        doc.version = doc.min_version().0;
        Ok(doc)
    }

    /// [`Document::at_min_version`] for a root that shares nothing by id (a tool's
    /// description): no layout needed, so no error.
    pub(crate) fn at_own_min_version(root: C) -> Self
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
