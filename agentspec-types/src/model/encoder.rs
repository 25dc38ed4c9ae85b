//! How a document is written: the version it is written at, and what needs a newer one.

use crate::diagnostic::push_pointer_token;
use crate::syntax::sink::Sink;
use crate::version::Version;

/// Controls how a document is written.
#[derive(Debug)]
pub struct Encoder {
    /// The version the document is written at: fields that do not exist at this version
    /// are left out when they hold their default value.
    pub version: Version,
    /// Write the values of sensitive fields instead of `<id>.<field>` placeholders.
    pub include_secrets: bool,
    /// What needs a newer version than `version`, found while writing.
    pub(crate) needs: std::cell::RefCell<Vec<Need>>,
    /// Leave out the fields `version` lacks even when they hold a value, recording them in
    /// `dropped` (only on explicit request: [`Document::with_version_dropping`]).
    ///
    /// [`Document::with_version_dropping`]: crate::Document::with_version_dropping
    pub(crate) drop_newer: bool,
    /// The fields left out by `drop_newer`.
    pub(crate) dropped: std::cell::RefCell<Vec<Need>>,
    /// Leave out the keys Agent Spec does not define that components kept when they were read
    /// (an explicit request: `WriteOptions::drop_unknown`).
    #[doc(hidden)]
    pub drop_unknown: bool,
}

/// Something a document holds that needs a version newer than the one it is written at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Need {
    /// The version it needs.
    pub version: Version,
    /// What it is: a component type (`Swarm`) or a field (`Agent.transforms`).
    pub what: &'static str,
    /// Whether it is a field holding a non-default value (else a component type).
    pub field: bool,
    /// Where it is, when the sink tracks it.
    pub pointer: Option<String>,
}

impl Encoder {
    /// An encoder writing at `version`.
    pub fn new(version: Version, include_secrets: bool) -> Self {
        Encoder {
            version,
            include_secrets,
            needs: Default::default(),
            drop_newer: false,
            dropped: Default::default(),
            drop_unknown: false,
        }
    }

    /// An encoder writing at `version` in `drop_newer` mode, secrets included (for writing
    /// a document again at an older version, dropping what that version lacks).
    pub(crate) fn dropping(version: Version) -> Self {
        Encoder {
            drop_newer: true,
            ..Encoder::new(version, true)
        }
    }

    /// Whether a field that exists from `since` is written at this version.
    pub fn writes(&self, since: Version) -> bool {
        self.version >= since
    }

    /// A field from `since` that the version lacks: written anyway when it holds a
    /// non-default value (never dropped silently), and recorded as needing `since`; in
    /// `drop_newer` mode, left out and recorded as dropped.
    pub fn forced(
        &self,
        since: Version,
        what: &'static str,
        sink: &dyn Sink,
        key: &str,
        non_default: bool,
    ) -> bool {
        if !non_default {
            return false;
        }
        let need = Need {
            version: since,
            what,
            field: true,
            pointer: field_pointer(sink, key),
        };
        if self.drop_newer {
            self.dropped.borrow_mut().push(need);
            false
        } else {
            self.needs.borrow_mut().push(need);
            true
        }
    }

    /// A value that needs `since` (a declared, value-dependent gate), recorded when it holds.
    /// It cannot be dropped: the field exists at the version, its value does not.
    pub fn value_gate(
        &self,
        since: Version,
        what: &'static str,
        sink: &dyn Sink,
        key: &str,
        holds: bool,
    ) {
        if holds && since > self.version {
            self.needs.borrow_mut().push(Need {
                version: since,
                what,
                field: true,
                pointer: field_pointer(sink, key),
            });
        }
    }

    /// A component type that exists from `since`, written here.
    pub fn component(&self, since: Version, what: &'static str, sink: &dyn Sink) {
        if since > self.version {
            self.needs.borrow_mut().push(Need {
                version: since,
                what,
                field: false,
                pointer: sink.pointer(),
            });
        }
    }
}

/// The pointer of the field `key` of the object `sink` is writing, when it tracks pointers.
fn field_pointer(sink: &dyn Sink, key: &str) -> Option<String> {
    sink.pointer().map(|mut p| {
        push_pointer_token(&mut p, key);
        p
    })
}
