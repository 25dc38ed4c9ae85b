//! The decoding and encoding machinery the generated types are built on.
//!
//! Decoding reads the source [`tree`](crate::syntax::tree) and reports every problem it meets
//! into a [`Decoder`], with a stable code, the JSON pointer and the source offset; it goes
//! on after a problem, so one run reports all of them. Encoding streams a value into a
//! [`Sink`], writing each field that exists at the document's version.

use indexmap::IndexMap;

use crate::diagnostic::{Diagnostic, push_pointer_token};
use crate::model::component::{a, names};
use crate::syntax::sink::Sink;
use crate::syntax::tree::{Entry, Node, Value};
use crate::version::Version;

mod encode;
pub mod plugin;
mod primitives;
mod refs;
mod versions;

pub use crate::diagnostic::suggest::closest;
pub use crate::model::component::{ComponentInfo, Tagged};
pub use crate::model::encoder::{Encoder, Need};
pub use encode::gates;
pub use refs::SecretField;
pub use versions::NewerField;

/// Where a value stands in the document, as a chain of keys and indices; turned into a
/// JSON pointer only when a diagnostic needs it.
#[derive(Debug, Clone, Copy)]
pub struct Path<'a> {
    parent: Option<&'a Path<'a>>,
    segment: Segment<'a>,
}

#[derive(Debug, Clone, Copy)]
enum Segment<'a> {
    Root,
    Key(&'a str),
    Index(usize),
}

impl<'a> Path<'a> {
    /// The document root.
    pub const ROOT: Path<'static> = Path {
        parent: None,
        segment: Segment::Root,
    };

    /// The entry `key` of the object at this path.
    pub fn key(&'a self, key: &'a str) -> Path<'a> {
        Path {
            parent: Some(self),
            segment: Segment::Key(key),
        }
    }

    /// The item `index` of the array at this path.
    pub fn index(&'a self, index: usize) -> Path<'a> {
        Path {
            parent: Some(self),
            segment: Segment::Index(index),
        }
    }

    /// The JSON pointer of this path (`""` for the root).
    pub fn pointer(&self) -> String {
        let mut segments = Vec::new();
        let mut current = Some(self);
        while let Some(path) = current {
            segments.push(path.segment);
            current = path.parent;
        }
        let mut out = String::new();
        for segment in segments.iter().rev() {
            match segment {
                Segment::Root => {}
                Segment::Key(key) => push_pointer_token(&mut out, key),
                Segment::Index(i) => push_pointer_token(&mut out, &i.to_string()),
            }
        }
        out
    }
}

/// A field while its object is being read.
#[derive(Debug)]
pub enum Slot<T> {
    /// The key was not in the object.
    Absent,
    /// The key was there but its value was wrong (already reported).
    Failed,
    /// The decoded value.
    Present(T),
}

impl<T> Slot<T> {
    /// The value, or `default()` when the key was absent; `None` when it failed.
    pub fn or_else(self, default: impl FnOnce() -> T) -> Option<T> {
        match self {
            Slot::Absent => Some(default()),
            Slot::Failed => None,
            Slot::Present(v) => Some(v),
        }
    }
}

/// Reads a value of the source tree.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be read from an Agent Spec document",
    note = "the fields of components (and of plugin components) are `String`, `bool`, `i64`, `f64`, `Option`, `Vec`, `IndexMap<String, _>`, `JsonObject`, `serde_json::Value`, `RefOr<_>` and the generated types"
)]
pub trait Decode: Sized {
    /// Decodes `node`, reporting problems into `cx`; `None` when the value is unusable
    /// (at least one error was reported).
    fn decode(node: Node, cx: &mut Decoder, path: &Path<'_>) -> Option<Self>;
}

/// Writes a value into a [`Sink`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be written into an Agent Spec document",
    note = "the fields of components (and of plugin components) are `String`, `bool`, `i64`, `f64`, `Option`, `Vec`, `IndexMap<String, _>`, `JsonObject`, `serde_json::Value`, `RefOr<_>` and the generated types"
)]
pub trait Encode {
    /// Streams `self` into `sink`.
    fn encode(&self, sink: &mut dyn Sink, cx: &Encoder);
}

/// The set of every concrete component type of one generated type set: the document root.
/// It is implemented by the `Component` enum the generator emits
/// (`#[agentspec(family = "Component", versions(...))]`); its hidden methods are the wire format.
pub trait ComponentSet: ComponentInfo + crate::model::walk::Walk<Self> + Sized {
    /// Every Agent Spec version the schema files list, in order.
    const VERSIONS: &'static [Version];
    /// Every `component_type` of the set.
    const TYPES: &'static [&'static str];
    /// The sensitive fields of each member, as `(key, written in clear)`: what a component
    /// kept as read (a plugin nothing defines) masks and redacts under the same keys.
    #[doc(hidden)]
    const SECRET_FIELDS: &'static [&'static [(&'static str, bool)]] = &[];
    /// Reads the body of an object whose `component_type` is `tag` (`None` with no
    /// diagnostic when `tag` is not a member).
    #[doc(hidden)]
    fn decode_body(
        tag: &str,
        entries: Vec<Entry>,
        offset: u32,
        cx: &mut Decoder,
        path: &Path<'_>,
    ) -> Option<Self>;
    /// Writes the keys of the component, without the enclosing braces.
    #[doc(hidden)]
    fn encode_body(&self, sink: &mut dyn Sink, cx: &Encoder);
    /// A plugin component as a member of the set.
    fn plugin(component: crate::model::plugin::Plugin) -> Self;
}

/// A fresh unique component id (a random UUID), for components that have none.
pub fn fresh_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// A `{"$component_ref": id}` seen while decoding. Its pointer is computed only when
/// needed (from the source text when there is one).
#[derive(Debug, Clone)]
pub(crate) struct SeenRef {
    pub id: String,
    /// Offset of the reference object.
    pub offset: u32,
    pub pointer: Option<String>,
    /// The `$referenced_components` entry whose body holds the reference (`None`: outside
    /// every entry).
    pub owner: Option<usize>,
    /// What may stand where the reference stands.
    pub family: &'static str,
    pub members: &'static [&'static str],
}

/// An entry of a `$referenced_components` map.
#[derive(Debug, Clone)]
pub(crate) struct MapEntry {
    pub key: String,
    pub key_offset: u32,
    pub pointer: Option<String>,
    /// The `component_type` of its body (`""` when the body failed to decode).
    pub component_type: String,
    /// Whether the body is a plugin component.
    pub plugin: bool,
}

/// A component body seen while decoding.
#[derive(Debug, Clone)]
pub(crate) struct SeenComponent {
    pub id: String,
    pub offset: u32,
    pub pointer: Option<String>,
}

/// Collects diagnostics, component ids and references while a document is decoded.
#[derive(Debug, Default)]
pub struct Decoder {
    pub(crate) diagnostics: Vec<Diagnostic>,
    pub(crate) components: Vec<SeenComponent>,
    pub(crate) entries: Vec<MapEntry>,
    pub(crate) references: Vec<SeenRef>,
    /// The `$referenced_components` entries being decoded, innermost last.
    owners: Vec<usize>,
    /// Known `component_type`s of every family (for messages).
    pub(crate) all_types: &'static [&'static str],
    /// The sensitive fields of the set's members ([`ComponentSet::SECRET_FIELDS`]), given to
    /// the components kept as read.
    pub(crate) secret_fields: &'static [&'static [(&'static str, bool)]],
    /// Record the JSON pointer of every reference as it is read (when there is no source
    /// text to find it in later).
    pub(crate) eager_pointers: bool,
    /// The known Agent Spec versions.
    pub(crate) versions: &'static [Version],
    /// The version the document declares, once read.
    pub(crate) version: Option<Version>,
    /// Values of sensitive fields, by placeholder (`<id>.<field>`), when supplied.
    pub(crate) values: Option<serde_json::Map<String, serde_json::Value>>,
    /// Placeholders read: (placeholder, offset of the placeholder object, pointer, supplied).
    pub(crate) secrets: Vec<SeenSecret>,
    /// Keep components of unknown types as [`RawComponent`](crate::model::plugin::RawComponent)s.
    pub(crate) keep_unknown: bool,
    /// Registered plugin component types.
    pub(crate) plugins: plugin::PluginRegistry,
    /// The newest version a kept newer field needs, when the declared version is older: the
    /// document is written at it.
    pub(crate) raised: Option<Version>,
}

/// A `{"$component_ref": "<id>.<field>"}` placeholder of a sensitive field.
#[derive(Debug, Clone)]
pub(crate) struct SeenSecret {
    pub placeholder: String,
    pub offset: u32,
    pub pointer: Option<String>,
    pub supplied: bool,
}

/// `"25.4.1, 25.4.2"`.
pub(crate) fn list(versions: &[Version]) -> String {
    versions
        .iter()
        .map(Version::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

impl Decoder {
    /// Whether the `$referenced_components` entry `index` may stand where one of `members`
    /// is expected: a built-in by its type, a registered plugin by the family it extends, a
    /// plugin kept as read anywhere.
    pub(crate) fn entry_admitted(&self, index: usize, members: &[&str]) -> bool {
        let entry = &self.entries[index];
        if !entry.plugin {
            return members.contains(&entry.component_type.as_str());
        }
        self.plugins
            .types
            .get(entry.component_type.as_str())
            .is_none_or(|registered| registered.admitted(members))
    }

    /// A decoder that knows the `component_type`s and versions of its type set.
    pub fn new(all_types: &'static [&'static str], versions: &'static [Version]) -> Self {
        Decoder {
            all_types,
            versions,
            ..Decoder::default()
        }
    }

    /// Reports an error at `offset`.
    pub fn error(
        &mut self,
        code: &'static str,
        message: impl Into<String>,
        path: &Path<'_>,
        offset: u32,
    ) {
        self.diagnostics.push(Diagnostic::error(
            code,
            message,
            path.pointer(),
            Some(offset as usize),
        ));
    }

    /// Reports a warning at `offset`.
    pub fn warning(
        &mut self,
        code: &'static str,
        message: impl Into<String>,
        path: &Path<'_>,
        offset: u32,
    ) {
        self.diagnostics.push(Diagnostic::warning(
            code,
            message,
            path.pointer(),
            Some(offset as usize),
        ));
    }

    /// Whether an error was reported.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// Reports a value of the wrong JSON type.
    pub fn wrong_type(&mut self, expected: &str, node: &Node, path: &Path<'_>) {
        let found = node.value.type_name();
        self.error(
            "invalid-type",
            format!("expected {expected}, found {found}"),
            path,
            node.offset,
        );
    }

    /// The entries of an object, or an `invalid-type` error naming `what`.
    pub fn object(&mut self, node: Node, path: &Path<'_>, what: &str) -> Option<(Vec<Entry>, u32)> {
        match node.value {
            Value::Object(entries) => Some((entries, node.offset)),
            _ => {
                self.wrong_type(&format!("an object ({what})"), &node, path);
                None
            }
        }
    }

    /// Decodes the value of one field into its slot.
    pub fn field<T: Decode>(&mut self, slot: &mut Slot<T>, node: Node, path: &Path<'_>) {
        *slot = match T::decode(node, self, path) {
            Some(v) => Slot::Present(v),
            None => Slot::Failed,
        };
    }

    /// Checks the schema's lower bound of a numeric field read at `offset`.
    pub fn minimum<T: AsNumber>(
        &mut self,
        slot: &mut Slot<T>,
        offset: u32,
        path: &Path<'_>,
        minimum: f64,
        inclusive: bool,
    ) {
        if let Slot::Present(v) = slot
            && let Some(n) = v.as_number()
            && (n < minimum || (!inclusive && n == minimum))
        {
            let rule = if inclusive {
                "at least"
            } else {
                "greater than"
            };
            self.error(
                "out-of-range",
                format!("must be {rule} {minimum}, found {n}"),
                path,
                offset,
            );
            *slot = Slot::Failed;
        }
    }

    /// The value of a required field, or a `missing-field` error.
    pub fn required<T>(
        &mut self,
        slot: Slot<T>,
        field: &str,
        owner: &str,
        offset: u32,
        path: &Path<'_>,
    ) -> Option<T> {
        match slot {
            Slot::Present(v) => Some(v),
            Slot::Failed => None,
            Slot::Absent => {
                self.error(
                    "missing-field",
                    format!("{owner} requires the field `{field}`"),
                    path,
                    offset,
                );
                None
            }
        }
    }

    /// Checks a field whose value the schema fixes (`const`).
    pub fn constant(&mut self, node: Node, expected: &str, path: &Path<'_>) {
        match &node.value {
            Value::Str(s) if s == expected => {}
            Value::Str(s) => self.error(
                "invalid-value",
                format!("must be \"{expected}\", found \"{s}\""),
                path,
                node.offset,
            ),
            _ => self.wrong_type(&format!("the string \"{expected}\""), &node, path),
        }
    }

    /// Reports a key that the component or value does not have.
    pub fn unknown_field(&mut self, entry: &Entry, owner: &str, known: &[&str], path: &Path<'_>) {
        let hint = closest(&entry.key, known.iter().copied())
            .map(|k| format!("; did you mean `{k}`?"))
            .unwrap_or_default();
        let message = format!("{owner} has no field `{}`{hint}", entry.key);
        self.error(
            "unknown-field",
            message,
            &path.key(&entry.key),
            entry.key_offset,
        );
    }

    /// A key Agent Spec does not define, which the component keeps: a warning (pyagentspec
    /// ignores such keys; the component writes them back).
    pub fn unknown_field_kept(
        &mut self,
        entry: &Entry,
        owner: &str,
        known: &[&str],
        path: &Path<'_>,
    ) {
        // pyagentspec reads its hidden version fields from a document (and rejects what they
        // then say): they are no unknown keys to keep
        if matches!(
            entry.key.as_str(),
            "min_agentspec_version" | "max_agentspec_version"
        ) {
            return self.unknown_field(entry, owner, known, path);
        }
        let hint = closest(&entry.key, known.iter().copied())
            .map(|k| format!("; did you mean `{k}`?"))
            .unwrap_or_default();
        let message = format!(
            "{owner} has no field `{}`{hint}; kept and written back (pyagentspec ignores it)",
            entry.key
        );
        self.warning(
            "unknown-field",
            message,
            &path.key(&entry.key),
            entry.key_offset,
        );
    }

    /// An `agentspec_version` inside a nested component: checked, then ignored with a
    /// warning (only the root's version counts).
    pub fn nested_version(&mut self, entry: Entry, path: &Path<'_>) {
        let path = path.key("agentspec_version");
        let known = |v: Version| self.versions.contains(&v) || v == Version::new(25, 4, 0);
        match &entry.value.value {
            Value::Str(s) if Version::parse(s).is_some_and(known) => self.warning(
                "nested-version",
                "`agentspec_version` only counts at the document root; this one is ignored",
                &path,
                entry.key_offset,
            ),
            // pyagentspec ignores whatever stands there: so do we, with a warning
            Value::Str(s) if Version::parse(s).is_some() => self.warning(
                "nested-version",
                format!(
                    "`agentspec_version` only counts at the document root; this one ({s}) is not a known version (known: {}) and is ignored",
                    list(self.versions)
                ),
                &path,
                entry.value.offset,
            ),
            Value::Str(s) => self.warning(
                "nested-version",
                format!(
                    "`agentspec_version` only counts at the document root; this one (`{s}`) is not even a version (MAJOR.MINOR.PATCH) and is ignored"
                ),
                &path,
                entry.value.offset,
            ),
            _ => self.warning(
                "nested-version",
                format!(
                    "`agentspec_version` only counts at the document root; this one is {} where a version string belongs, and is ignored",
                    entry.value.value.type_name()
                ),
                &path,
                entry.value.offset,
            ),
        }
    }

    /// Decodes a `$referenced_components` map: its keys are the ids references name.
    pub fn referenced<C: Decode + ComponentInfo>(
        &mut self,
        slot: &mut Slot<IndexMap<String, C>>,
        node: Node,
        path: &Path<'_>,
    ) {
        let Value::Object(entries) = node.value else {
            self.wrong_type(
                "an object (`$referenced_components`: id → component)",
                &node,
                path,
            );
            *slot = Slot::Failed;
            return;
        };
        let mut map = IndexMap::with_capacity(entries.len());
        let mut ok = true;
        for entry in entries {
            let entry_path = path.key(&entry.key);
            let index = self.entries.len();
            let pointer = self.eager_pointers.then(|| entry_path.pointer());
            self.entries.push(MapEntry {
                key: entry.key.as_str().to_owned(),
                key_offset: entry.key_offset,
                pointer,
                component_type: String::new(),
                plugin: false,
            });
            self.owners.push(index);
            let body = C::decode(entry.value, self, &entry_path);
            self.owners.pop();
            match body {
                Some(component) => {
                    self.entries[index].component_type = component.component_type().to_owned();
                    self.entries[index].plugin = component.as_plugin().is_some();
                    map.insert(entry.key.into(), component);
                }
                None => ok = false,
            }
        }
        *slot = if ok { Slot::Present(map) } else { Slot::Failed };
    }

    /// Looks up the value of a secret placeholder read at `offset` (and records it).
    pub(crate) fn secret(
        &mut self,
        placeholder: &str,
        offset: u32,
        path: &Path<'_>,
    ) -> Option<serde_json::Value> {
        let value = self
            .values
            .as_ref()
            .and_then(|v| v.get(placeholder))
            .cloned();
        let pointer = self.eager_pointers.then(|| path.pointer());
        self.secrets.push(SeenSecret {
            placeholder: placeholder.to_owned(),
            offset,
            pointer,
            supplied: value.is_some(),
        });
        value
    }

    /// Records a reference read at `offset` where a `T` is expected.
    pub(crate) fn reference<T: Tagged>(&mut self, id: String, offset: u32, path: &Path<'_>) {
        let pointer = self.eager_pointers.then(|| path.pointer());
        let owner = self.owners.last().copied();
        self.references.push(SeenRef {
            id,
            offset,
            pointer,
            owner,
            family: T::FAMILY,
            members: T::MEMBERS,
        });
    }

    /// Records a component body read at `offset`.
    pub fn define(&mut self, id: &str, offset: u32, path: &Path<'_>) {
        let pointer = self.eager_pointers.then(|| path.pointer());
        self.components.push(SeenComponent {
            id: id.to_owned(),
            offset,
            pointer,
        });
    }

    /// Reads a string enum.
    pub fn decode_enum<T>(
        &mut self,
        node: Node,
        path: &Path<'_>,
        what: &str,
        values: &[&str],
        parse: fn(&str) -> Option<T>,
    ) -> Option<T> {
        match &node.value {
            Value::Str(s) => match parse(s) {
                Some(v) => Some(v),
                None => {
                    let hint = closest(s, values.iter().copied())
                        .map(|k| format!("; did you mean \"{k}\"?"))
                        .unwrap_or_default();
                    let list = values
                        .iter()
                        .map(|v| format!("\"{v}\""))
                        .collect::<Vec<_>>()
                        .join(", ");
                    self.error(
                        "invalid-value",
                        format!("\"{s}\" is not a valid {what} (expected one of {list}){hint}"),
                        path,
                        node.offset,
                    );
                    None
                }
            },
            _ => {
                self.wrong_type(&format!("a string ({what})"), &node, path);
                None
            }
        }
    }

    /// Reads a component object of one family: checks `component_type` against the
    /// family's `members`, then decodes the body with `body`.
    pub fn decode_tagged<T>(
        &mut self,
        node: Node,
        path: &Path<'_>,
        family: &str,
        members: &[&str],
        plugin: Option<fn(crate::model::plugin::Plugin) -> T>,
        body: impl FnOnce(&str, Vec<Entry>, u32, &mut Decoder, &Path<'_>) -> Option<T>,
    ) -> Option<T> {
        let (entries, offset) = self.object(node, path, family)?;
        let tag = match entries.iter().find(|e| e.key == "component_type") {
            None => {
                let family = a(family);
                let message = if entries.iter().any(|e| e.key == "$referenced_components") {
                    format!(
                        "{family} needs a `component_type`; an object with only `$referenced_components` is a components file, not a component"
                    )
                } else {
                    format!("{family} needs a `component_type`")
                };
                self.error("missing-component-type", message, path, offset);
                return None;
            }
            Some(entry) => match &entry.value.value {
                Value::Str(s) => (s.clone(), entry.value.offset),
                _ => {
                    let (value, path) = (entry.value.clone(), path.key("component_type"));
                    self.wrong_type("a string (component_type)", &value, &path);
                    return None;
                }
            },
        };
        let (tag, tag_offset) = tag;
        if !members.contains(&tag.as_str()) {
            if let Some(wrap) = plugin {
                if let Some(registered) = self.plugins.types.get(tag.as_str()).copied() {
                    if registered.admitted(members) {
                        return (registered.decode)(entries, offset, self, path).map(wrap);
                    }
                    let message = format!(
                        "the plugin component `{tag}` ({}) cannot stand where {} is expected",
                        registered.rust_type,
                        a(family)
                    );
                    self.error(
                        "wrong-component-family",
                        message,
                        &path.key("component_type"),
                        tag_offset,
                    );
                    return None;
                }
                if self.keep_unknown && !self.all_types.contains(&tag.as_str()) {
                    return self.raw(entries, offset, path).map(wrap);
                }
            }
            self.report_unknown_type(&tag, tag_offset, &entries, family, members, path);
            return None;
        }
        body(&tag, entries, offset, self, path)
    }

    /// A component of an unknown type, kept as read.
    fn raw(
        &mut self,
        entries: Vec<Entry>,
        offset: u32,
        path: &Path<'_>,
    ) -> Option<crate::model::plugin::Plugin> {
        if let Some(id) = entries.iter().find(|e| e.key == "id")
            && let Value::Str(id) = &id.value.value
        {
            let id = id.clone();
            self.define(&id, offset, path);
        }
        let node = Node {
            offset,
            value: Value::Object(entries),
        };
        let body = serde_json::Map::decode(node, self, path)?;
        crate::model::plugin::RawComponent::new(body)
            .map(|raw| raw.with_secret_fields(self.secret_fields))
            .map(crate::model::plugin::Plugin::new)
    }

    fn report_unknown_type(
        &mut self,
        tag: &str,
        offset: u32,
        entries: &[Entry],
        family: &str,
        members: &[&str],
        path: &Path<'_>,
    ) {
        let path = path.key("component_type");
        let mut list = names(members);
        let family = a(family);
        if !self.plugins.types.is_empty() {
            let registered: Vec<&str> = self.plugins.component_types().collect();
            list = format!("{list}; registered plugins: {}", registered.join(", "));
        }
        if let Some(plugin) = entries.iter().find(|e| e.key == "component_plugin_name") {
            let name = match &plugin.value.value {
                Value::Str(s) => s.as_str(),
                _ => "?",
            };
            let message = format!(
                "`{tag}` is a plugin component (plugin `{name}`) and no plugin registers it (load with `keep_unknown` / `--keep-unknown` to keep it as read); {family} is one of: {list}"
            );
            self.error("plugin-not-registered", message, &path, offset);
        } else if self.all_types.contains(&tag) {
            self.error(
                "wrong-component-family",
                format!(
                    "{} cannot stand where {family} is expected; expected one of: {list}",
                    a(&format!("`{tag}`"))
                ),
                &path,
                offset,
            );
        } else {
            let hint = closest(
                tag,
                members
                    .iter()
                    .copied()
                    .chain(self.all_types.iter().copied()),
            )
            .map(|k| format!("did you mean `{k}`? "))
            .unwrap_or_default();
            let message =
                format!("unknown component_type `{tag}`; {hint}{family} is one of: {list}");
            self.error("unknown-component-type", message, &path, offset);
        }
    }
}

/// Numbers whose schema bounds are checked on load.
pub trait AsNumber {
    /// The value as a number, when there is one.
    fn as_number(&self) -> Option<f64>;
}

impl AsNumber for i64 {
    fn as_number(&self) -> Option<f64> {
        Some(*self as f64)
    }
}

impl AsNumber for f64 {
    fn as_number(&self) -> Option<f64> {
        Some(*self)
    }
}

impl<T: AsNumber> AsNumber for Option<T> {
    fn as_number(&self) -> Option<f64> {
        self.as_ref().and_then(T::as_number)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointer_escapes_tokens() {
        let root = Path::ROOT;
        let a = root.key("a/b");
        let b = a.index(3);
        let c = b.key("m~n");
        assert_eq!(c.pointer(), "/a~1b/3/m~0n");
        assert_eq!(Path::ROOT.pointer(), "");
    }
}
