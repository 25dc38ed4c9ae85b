//! Decoding a document: its root version, its root component, and the checks of the whole.

use super::{Document, LoadError, Reload};
use crate::check::{Registry, check_references};
use crate::codec::{ComponentSet, Decoder, Path};
use crate::diagnostic::Diagnostic;
use crate::syntax::Source;
use crate::syntax::tree::{Entry, Node, Value};
use crate::version::Version;

/// Decodes the document `tree` (a root component with its `agentspec_version`), reporting
/// every problem.
pub(crate) fn decode_document<C: ComponentSet>(
    tree: Node,
    source: Option<Source<'_>>,
    base: &Path<'_>,
    registry: &Registry,
) -> Result<Document<C>, LoadError> {
    let (root, version, warnings) =
        decode_rooted::<C, C>(tree, source, base, registry, |node, cx, path| {
            cx.decode_tagged(
                node,
                path,
                "component",
                C::TYPES,
                Some(C::plugin),
                |tag, entries, offset, cx, path| C::decode_body(tag, entries, offset, cx, path),
            )
        })?;
    Ok(Document {
        source: None,
        root,
        version,
        warnings,
        depth: 0,
        reload: Reload {
            keep_unknown: registry.keep_unknown,
            plugins: registry.plugins.clone(),
        },
    })
}

/// Decodes `tree` as a document of the set `C` whose root `decode_root` reads (the whole set,
/// or one component type or family of it): the root, the version it is written at, and the
/// warnings.
pub(crate) fn decode_rooted<C: ComponentSet, R>(
    tree: Node,
    source: Option<Source<'_>>,
    base: &Path<'_>,
    registry: &Registry,
    decode_root: impl FnOnce(Node, &mut Decoder, &Path<'_>) -> Option<R>,
) -> Result<(R, Version, Vec<Diagnostic>), LoadError> {
    let mut cx = Decoder::new(C::TYPES, C::VERSIONS);
    cx.eager_pointers = source.is_none();
    cx.values = registry.values.clone();
    cx.keep_unknown = registry.keep_unknown;
    if let Some(plugins) = &registry.plugins {
        cx.plugins = plugins.clone();
    }
    let root_path = *base;
    let offset = tree.offset;
    let Value::Object(mut entries) = tree.value else {
        let found = tree.value.type_name();
        let d = Diagnostic::error(
            "invalid-type",
            format!("a document is an object (a component), found {found}"),
            base.pointer(),
            Some(offset as usize),
        );
        return Err(LoadError::new(vec![d]));
    };
    let version = root_version::<C>(&mut entries, offset, &mut cx, base);
    cx.version = version;
    let root = if entries.iter().any(|e| e.key == "$component_ref") {
        cx.error("unsupported", "a document whose root is a `$component_ref` is not supported yet; put the component itself at the root", &root_path, offset);
        None
    } else {
        let node = Node {
            offset,
            value: Value::Object(entries),
        };
        decode_root(node, &mut cx, &root_path)
    };
    check_references(&mut cx, source, registry);
    // A kept newer field (reported) raises the version the document is written at.
    let version = version.map(|v| cx.raised.map_or(v, |raised| raised.max(v)));
    let mut diagnostics = std::mem::take(&mut cx.diagnostics);
    diagnostics.sort_by_key(|d| (d.offset.unwrap_or(usize::MAX), !d.is_error()));
    match (root, version) {
        (Some(root), Some(version)) if !diagnostics.iter().any(Diagnostic::is_error) => {
            Ok((root, version, diagnostics))
        }
        _ => Err(LoadError::new(diagnostics)),
    }
}

fn root_version<C: ComponentSet>(
    entries: &mut Vec<Entry>,
    offset: u32,
    cx: &mut Decoder,
    base: &Path<'_>,
) -> Option<Version> {
    let newest = *C::VERSIONS.last()?;
    let take = |entries: &mut Vec<Entry>, key: &str| {
        entries
            .iter()
            .position(|e| e.key == key)
            .map(|i| entries.remove(i))
    };
    let declared = take(entries, "agentspec_version");
    let legacy = take(entries, "air_version");
    let path = *base;
    let entry = match (declared, legacy) {
        (Some(entry), legacy) => {
            if let Some(legacy) = legacy {
                cx.warning(
                    "legacy-version-field",
                    "`air_version` beside `agentspec_version` is ignored",
                    &path.key("air_version"),
                    legacy.key_offset,
                );
            }
            entry
        }
        (None, Some(legacy)) => {
            cx.warning(
                "legacy-version-field",
                "`air_version` is the old name of `agentspec_version`; read as `agentspec_version`",
                &path.key("air_version"),
                legacy.key_offset,
            );
            legacy
        }
        (None, None) => {
            let message = format!(
                "the document declares no `agentspec_version`; read as the newest known version, {newest}"
            );
            cx.warning("missing-version", message, &path, offset);
            return Some(newest);
        }
    };
    let path = path.key(&entry.key);
    let Value::Str(text) = &entry.value.value else {
        cx.wrong_type("a version string", &entry.value, &path);
        return None;
    };
    let known = C::VERSIONS
        .iter()
        .map(Version::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    match Version::parse(text) {
        Some(v) if C::VERSIONS.contains(&v) => Some(v),
        Some(v) if v == Version::new(25, 4, 0) => {
            cx.warning(
                "legacy-version",
                "25.4.0 is the pre-release of 25.4.1; read as 25.4.1",
                &path,
                entry.value.offset,
            );
            Some(Version::new(25, 4, 1))
        }
        Some(_) => {
            cx.error(
                "unknown-version",
                format!("Agent Spec version {text} is not known (known: {known})"),
                &path,
                entry.value.offset,
            );
            None
        }
        None => {
            cx.error(
                "invalid-version",
                format!("`{text}` is not a version (expected MAJOR.MINOR.PATCH; known: {known})"),
                &path,
                entry.value.offset,
            );
            None
        }
    }
}
