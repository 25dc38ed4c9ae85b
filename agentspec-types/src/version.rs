//! Agent Spec versions.

use std::fmt;

/// An Agent Spec version such as `26.1.2`, compared numerically.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    /// Year of the release (`26`).
    pub major: u16,
    /// Quarter of the release (`1`).
    pub minor: u16,
    /// Patch (`2`).
    pub patch: u16,
}

impl Version {
    /// A version no document declares. A field that exists "from `NEVER`" is one the
    /// reference SDK never writes: it is written only when it holds a non-default value.
    pub const NEVER: Version = Version::new(u16::MAX, u16::MAX, u16::MAX);

    /// `Version::new(26, 1, 2)` is `26.1.2`.
    pub const fn new(major: u16, minor: u16, patch: u16) -> Self {
        Version {
            major,
            minor,
            patch,
        }
    }

    /// Parses `MAJOR.MINOR.PATCH`; `None` for anything else.
    pub fn parse(text: &str) -> Option<Version> {
        let mut parts = text.split('.');
        let mut next = || {
            parts
                .next()
                .filter(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))?
                .parse()
                .ok()
        };
        let version = Version::new(next()?, next()?, next()?);
        parts.next().is_none().then_some(version)
    }
}

/// A text that is not a version (`MAJOR.MINOR.PATCH`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a version (expected MAJOR.MINOR.PATCH)")]
pub struct ParseVersionError(pub String);

/// `"26.1.2".parse::<Version>()`.
impl std::str::FromStr for Version {
    type Err = ParseVersionError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Version::parse(text).ok_or_else(|| ParseVersionError(text.to_owned()))
    }
}

/// The JSON Schema of every known version's documents, oldest first, generated from
/// `schema/` by `agentspec-codegen`.
const JSON_SCHEMAS: &[(&str, &str)] = &include!(concat!(env!("OUT_DIR"), "/json_schemas.rs"));

/// The JSON Schema (Draft 2020-12, pretty-printed) that validates the documents of
/// `version`: the schema file published with that version, repaired so that it accepts what
/// the reference SDK writes. Its root accepts each concrete component carrying
/// `agentspec_version: "<version>"` (the published roots reject every document that has
/// one), or a components file; a sensitive field also accepts the `{"$component_ref":
/// "<id>.<field>"}` placeholder it is written as; `component_type` is required; fields the
/// SDK writes at `version` but the file lacks come from the newer file that has them.
/// `None` for a version no schema file lists.
///
/// The schema checks shapes only: references, flow structure and the other rules of
/// [`Document::validate`](crate::Document::validate) are beyond it.
pub fn json_schema(version: Version) -> Option<&'static str> {
    let wanted = version.to_string();
    JSON_SCHEMAS
        .iter()
        .find(|(v, _)| *v == wanted)
        .map(|(_, text)| *text)
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn versions_parse_with_from_str() {
        assert_eq!("26.1.2".parse(), Ok(super::Version::new(26, 1, 2)));
        let err = "26.1".parse::<super::Version>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "`26.1` is not a version (expected MAJOR.MINOR.PATCH)"
        );
    }

    use super::*;

    #[test]
    fn versions_compare_numerically() {
        assert!(Version::parse("26.1.10").unwrap() > Version::parse("26.1.9").unwrap());
        assert_eq!(Version::parse("25.4.1"), Some(Version::new(25, 4, 1)));
        assert_eq!(Version::parse("25.4"), None);
        assert_eq!(Version::parse("25.4.1.0"), None);
        assert_eq!(Version::parse("25.4.x"), None);
        assert_eq!(Version::parse("+25.4.1"), None);
        assert_eq!(Version::new(26, 2, 0).to_string(), "26.2.0");
    }
}
