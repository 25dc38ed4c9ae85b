//! Decoding a document: its root version, its root component, and the checks of the whole.

use super::{Document, LoadError, Reload};
use crate::check::{Origin, Registry, check_references};
use crate::codec::{ComponentSet, Decoder, Path};
use crate::diagnostic::Diagnostic;
use crate::syntax::tree::{Entry, Node, Value};
use crate::version::Version;

/// Decodes the document `tree` (a root component with its `agentspec_version`), reporting
/// every problem.
pub(crate) fn decode_document<C: ComponentSet>(
    tree: Node,
    origin: Origin<'_>,
    base: &Path<'_>,
    registry: &Registry,
) -> Result<Document<C>, LoadError> {
    let (root, version, warnings) =
        decode_rooted::<C, C>(tree, origin, base, registry, |node, cx, path| {
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
    origin: Origin<'_>,
    base: &Path<'_>,
    registry: &Registry,
    decode_root: impl FnOnce(Node, &mut Decoder, &Path<'_>) -> Option<R>,
) -> Result<(R, Version, Vec<Diagnostic>), LoadError> {
    let mut cx = Decoder::new(C::TYPES, C::VERSIONS);
    cx.secret_fields = C::SECRET_FIELDS;
    cx.eager_pointers = matches!(origin, Origin::Unknown);
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
    if entries.iter().any(|e| e.key == "$component_ref") {
        entries = match root_reference(entries) {
            Ok((entries, id)) => {
                let message = format!(
                    "the root is a reference to `{id}` of its `$referenced_components`: read as that component, as pyagentspec reads it (and written at the root)"
                );
                cx.warning("root-reference", message, &root_path, offset);
                entries
            }
            Err(message) => {
                cx.error("unresolved-reference", message, &root_path, offset);
                Vec::new()
            }
        };
    }
    // an empty root is decoded too (its missing `component_type` is the error), unless a
    // root reference that names nothing left it empty (that error is reported)
    let root = if entries.is_empty() && cx.has_errors() {
        None
    } else {
        let node = Node {
            offset,
            value: Value::Object(entries),
        };
        decode_root(node, &mut cx, &root_path)
    };
    check_references(&mut cx, origin, registry);
    // A kept newer field (reported) raises the version the document is written at.
    let version = version.map(|v| cx.raised.map_or(v, |raised| raised.max(v)));
    let mut diagnostics = std::mem::take(&mut cx.diagnostics);
    diagnostics.sort_by_key(|d| (d.offset.unwrap_or(usize::MAX), !d.is_error()));
    if let Origin::Value(_) = origin {
        // offsets that number the value's parts, in document order: no place in any text
        for d in &mut diagnostics {
            d.offset = None;
        }
    }
    match (root, version) {
        (Some(root), Some(version)) if !diagnostics.iter().any(Diagnostic::is_error) => {
            Ok((root, version, diagnostics))
        }
        _ => Err(LoadError::new(diagnostics)),
    }
}

/// A root that is `{"$component_ref": id, "$referenced_components": {…}}`: the entries of the
/// component it names, the other components of the map moved into that component's own
/// `$referenced_components` (it may reference them). An error message when the reference
/// names no entry of the map.
fn root_reference(entries: Vec<Entry>) -> Result<(Vec<Entry>, String), String> {
    let mut id = None;
    let mut map = Vec::new();
    let mut others = Vec::new();
    for entry in entries {
        match (entry.key.as_str(), entry.value.value) {
            ("$component_ref", Value::Str(s)) => id = Some(s),
            ("$referenced_components", Value::Object(m)) => map = m,
            (_, value) => others.push(Entry {
                value: Node {
                    offset: entry.value.offset,
                    value,
                },
                ..entry
            }),
        }
    }
    let id = id.ok_or("the root's `$component_ref` is not a string")?;
    let position = map.iter().position(|e| e.key == id).ok_or_else(|| {
        format!(
            "the root is a reference to `{id}`, which its `$referenced_components` does not hold"
        )
    })?;
    let target = map.remove(position);
    let Value::Object(mut body) = target.value.value else {
        return Err(format!(
            "`{id}` of the root's `$referenced_components` is not a component"
        ));
    };
    if !map.is_empty() {
        match body.iter_mut().find(|e| e.key == "$referenced_components") {
            Some(Entry {
                value:
                    Node {
                        value: Value::Object(own),
                        ..
                    },
                ..
            }) => {
                for entry in map {
                    if !own.iter().any(|e| e.key == entry.key) {
                        own.push(entry);
                    }
                }
            }
            _ => body.push(Entry {
                key: "$referenced_components".into(),
                key_offset: target.key_offset,
                value: Node {
                    offset: target.value.offset,
                    value: Value::Object(map),
                },
            }),
        }
    }
    body.extend(others);
    Ok((body, id))
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
