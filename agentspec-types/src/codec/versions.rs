//! Version checks while a document is read: components, fields and values newer than the
//! version it declares.

use super::{Decoder, Path};
use crate::version::Version;

/// A field that exists only from a newer version than the first, as generated decoders
/// describe it to [`Decoder::newer_field`].
#[derive(Debug, Clone, Copy)]
pub struct NewerField {
    /// The first version that has it.
    pub since: Version,
    /// `Component.field`, for messages.
    pub what: &'static str,
    /// Whether the reference SDK reads it in older documents without raising their version
    /// (the declared table's informational fields).
    pub informational: bool,
}

impl Decoder {
    /// A field that exists only from `field.since`, read at `at` from a document that
    /// declares an older version. When `changed` (it holds something other than its
    /// default), a reader of the declared version would ignore a value that changes the
    /// meaning: an error (`newer-value`), unless the field is `informational` (the reference
    /// SDK reads it in older documents, and only drops it): then a warning, and the document
    /// is written at `since`. A default value is a warning, and is left out when written.
    pub fn newer_field(
        &mut self,
        field: &NewerField,
        key_offset: u32,
        at: &Path<'_>,
        changed: impl FnOnce() -> bool,
    ) {
        let NewerField {
            since,
            what,
            informational,
        } = *field;
        let Some(version) = self
            .version
            .filter(|v| since > *v && since != Version::NEVER)
        else {
            return;
        };
        match (changed(), informational) {
            (true, false) => self.error(
                "newer-value",
                format!(
                    "`{what}` exists from Agent Spec {since} and the document declares {version}: a {version} reader ignores it, and its value changes the meaning; declare {since} or later, or remove it"
                ),
                at,
                key_offset,
            ),
            (true, true) => {
                self.raised = self.raised.max(Some(since));
                self.warning(
                    "newer-field",
                    format!(
                        "`{what}` exists from Agent Spec {since} and the document declares {version}: kept, so the document is written at {since} (writing it at {version} drops it only when asked, with a report)"
                    ),
                    at,
                    key_offset,
                );
            }
            (false, _) => self.warning(
                "newer-field",
                format!(
                    "`{what}` exists from Agent Spec {since} and the document declares {version}: it holds its default, and is left out when written at {version}"
                ),
                at,
                key_offset,
            ),
        }
    }

    /// A component type that exists from `since`, read from a document that declares an
    /// older version: an error (`version-too-old`).
    pub fn newer_component(
        &mut self,
        since: Version,
        what: &str,
        key_offset: u32,
        path: &Path<'_>,
    ) {
        if let Some(version) = self.version
            && since > version
        {
            self.error(
                "version-too-old",
                format!(
                    "{what} exists from Agent Spec {since}, and the document declares {version}; declare {since} or later"
                ),
                &path.key("component_type"),
                key_offset,
            );
        }
    }

    /// A value that exists from `since` (a declared, value-dependent gate such as
    /// `provider: XAI`), read from a document that declares an older version: an error
    /// (`newer-value`) when `holds`.
    pub fn gated_value(
        &mut self,
        since: Version,
        what: &str,
        key_offset: u32,
        path: &Path<'_>,
        key: &str,
        holds: impl FnOnce() -> bool,
    ) {
        if let Some(version) = self.version
            && since > version
            && holds()
        {
            self.error(
                "newer-value",
                format!(
                    "{what} exists from Agent Spec {since} and the document declares {version}; declare {since} or later, or change it"
                ),
                &path.key(key),
                key_offset,
            );
        }
    }
}
