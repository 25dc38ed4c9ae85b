//! Documents: a root component and its declared Agent Spec version, loaded from JSON or
//! YAML and written back in pyagentspec's layout.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::io::Read;
use std::path::Path as FsPath;

use indexmap::IndexMap;

use crate::codec::{ComponentInfo, ComponentSet, Decoder, Encoder, Path};
use crate::components::{Components, LoadOptions};
use crate::diagnostic::{Diagnostic, LineIndex, push_pointer_token};
use crate::json::{JsonWriter, parse_json_with_depth};
use crate::layout;
use crate::sink::Sink;
use crate::tree::{Entry, Node, Value};
use crate::value::{ValueSink, value_to_node};
use crate::version::Version;
use crate::walk::Visit;
use crate::yaml::{YamlWriter, parse_yaml_with_depth};

/// The text format of a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// JSON.
    Json,
    /// YAML.
    Yaml,
}

impl Format {
    /// The format a file name says (`.json`, or `.yaml`/`.yml`).
    pub fn from_path(path: &FsPath) -> Option<Format> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "json" => Some(Format::Json),
            "yaml" | "yml" => Some(Format::Yaml),
            _ => None,
        }
    }

    /// Guesses from the text: JSON when it starts with `{` (after whitespace), else YAML.
    pub fn sniff(text: &str) -> Format {
        if text
            .trim_start_matches('\u{feff}')
            .trim_start()
            .starts_with('{')
        {
            Format::Json
        } else {
            Format::Yaml
        }
    }
}

/// Why a document could not be loaded: every error found (and the warnings beside them),
/// each with its code, pointer, line and column.
#[derive(Debug, Clone, thiserror::Error)]
pub struct LoadError {
    /// The diagnostics, errors and warnings, in document order.
    pub diagnostics: Vec<Diagnostic>,
}

impl LoadError {
    pub(crate) fn io(message: String) -> Self {
        LoadError {
            diagnostics: vec![Diagnostic::error("io-error", message, "", None)],
        }
    }

    /// The errors only.
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| d.is_error())
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let errors: Vec<&Diagnostic> = self.errors().collect();
        write!(
            f,
            "the document has {} error{}",
            errors.len(),
            if errors.len() == 1 { "" } else { "s" }
        )?;
        for d in errors {
            write!(f, "\n  {d}")?;
        }
        Ok(())
    }
}

/// Nesting depth from which decoding and writing run on a thread with a larger stack.
/// Below it they run on the caller's thread: a release build needs about 4 KiB of stack per
/// level of nesting (so 128 levels fit well within a 2 MiB thread), a debug build several
/// times more. Starting a thread costs about a millisecond, so shallow documents avoid it.
pub(crate) const DEEP: usize = if cfg!(debug_assertions) { 48 } else { 128 };

/// An Agent Spec document: its root component and the version it is written for.
#[derive(Debug, Clone, PartialEq)]
pub struct Document<C> {
    root: C,
    version: Version,
    warnings: Vec<Diagnostic>,
    depth: usize,
}

impl<C: ComponentSet + Send> Document<C> {
    /// A document for `root`, written at `version`.
    pub fn new(root: C, version: Version) -> Self {
        Document {
            root,
            version,
            warnings: Vec::new(),
            depth: 0,
        }
    }

    /// Loads a JSON document.
    pub fn from_json_str(text: &str) -> Result<Self, LoadError> {
        Self::from_str_as(text, Format::Json)
    }

    /// Loads a YAML document.
    pub fn from_yaml_str(text: &str) -> Result<Self, LoadError> {
        Self::from_str_as(text, Format::Yaml)
    }

    /// Loads a document in `format`. Errors and warnings carry line and column.
    pub fn from_str_as(text: &str, format: Format) -> Result<Self, LoadError> {
        Self::from_str_with(text, format, &LoadOptions::new())
    }

    /// Loads a document in `format` with components (and values) supplied from outside it.
    pub fn from_str_with(
        text: &str,
        format: Format,
        options: &LoadOptions<'_, C>,
    ) -> Result<Self, LoadError> {
        let index = LineIndex::new(text);
        let locate = |mut diagnostics: Vec<Diagnostic>| {
            for d in &mut diagnostics {
                d.locate(&index);
            }
            diagnostics
        };
        let (tree, depth) = parse_with_depth(text, format).map_err(|d| LoadError {
            diagnostics: locate(d),
        })?;
        let source = Source { text, format };
        match Self::decode(tree, depth, Some(source), &options.registry()) {
            Ok(mut doc) => {
                doc.warnings = locate(doc.warnings);
                Ok(doc)
            }
            Err(e) => Err(LoadError {
                diagnostics: locate(e.diagnostics),
            }),
        }
    }

    /// Loads a document from a reader.
    pub fn from_reader(mut reader: impl Read, format: Format) -> Result<Self, LoadError> {
        let mut text = String::new();
        reader
            .read_to_string(&mut text)
            .map_err(|e| LoadError::io(format!("cannot read the document: {e}")))?;
        Self::from_str_as(&text, format)
    }

    /// Loads a file; the format comes from its extension, else from its first character.
    pub fn from_path(path: impl AsRef<FsPath>) -> Result<Self, LoadError> {
        Self::from_path_with(path, &LoadOptions::new())
    }

    /// Loads a file with components (and values) supplied from outside it.
    pub fn from_path_with(
        path: impl AsRef<FsPath>,
        options: &LoadOptions<'_, C>,
    ) -> Result<Self, LoadError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .map_err(|e| LoadError::io(format!("cannot read {}: {e}", path.display())))?;
        Self::from_str_with(
            &text,
            Format::from_path(path).unwrap_or_else(|| Format::sniff(&text)),
            options,
        )
    }

    /// Loads a document from a `serde_json::Value` (diagnostics have no line and column).
    pub fn from_value(value: &serde_json::Value) -> Result<Self, LoadError> {
        Self::from_tree(value_to_node(value))
    }

    /// Loads a document from a `serde_json::Value` with components and values supplied.
    pub fn from_value_with(
        value: &serde_json::Value,
        options: &LoadOptions<'_, C>,
    ) -> Result<Self, LoadError> {
        let tree = value_to_node(value);
        let depth = depth_of(&tree);
        Self::decode(tree, depth, None, &options.registry())
    }

    /// Lays out a document given as a value in pyagentspec's way, then loads it: components
    /// without an id get a fresh one; a component (an object with `component_type` and `id`)
    /// used at one place is written inline, one used at several places (copies with the same
    /// id, which must be identical) is written as `{"$component_ref": id}` everywhere, its
    /// body once in the `$referenced_components` of the closest component all its uses pass
    /// through. Existing references and maps are expanded first; unused entries are kept at
    /// the root.
    pub fn from_value_normalized(value: &serde_json::Value) -> Result<Self, LoadError> {
        let mut value = value.clone();
        give_fresh_ids(&mut value);
        let (expanded, unused) = layout::expand(&value, &HashMap::new()).map_err(layout_error)?;
        let laid_out = layout::layout(&expanded, unused).map_err(layout_error)?;
        Self::from_value(&laid_out)
    }

    /// Decodes a parsed tree (diagnostics have no line and column: there is no text).
    pub fn from_tree(tree: Node) -> Result<Self, LoadError> {
        let depth = depth_of(&tree);
        Self::decode(tree, depth, None, &Registry::default())
    }

    /// Decodes a tree; deep trees are decoded on a thread with a large stack.
    fn decode(
        tree: Node,
        depth: usize,
        source: Option<Source<'_>>,
        registry: &Registry,
    ) -> Result<Self, LoadError> {
        let base = Path::ROOT;
        let result = if depth > DEEP {
            on_big_stack(depth, move || {
                decode_document(tree, source, &base, registry)
            })
        } else {
            decode_document(tree, source, &base, registry)
        };
        result.map(|mut doc| {
            doc.depth = depth;
            doc
        })
    }

    /// The document with its references resolved (the document loaded, so every reference
    /// names an entry of its `$referenced_components` maps).
    pub fn resolve(&self) -> crate::resolve::Resolved<'_>
    where
        C: Sync,
    {
        crate::resolve::Resolved::new(self, None)
    }

    /// The document with its references resolved, including those to supplied components.
    pub fn resolve_with<'a>(&'a self, components: &'a Components<C>) -> crate::resolve::Resolved<'a>
    where
        C: Sync,
    {
        crate::resolve::Resolved::new(self, Some(components))
    }

    /// The document with every reference replaced by (a copy of) the component it names
    /// and no `$referenced_components`: the same component appears at every place it is used.
    /// Secrets are redacted as on writing.
    pub fn expanded(&self) -> serde_json::Value
    where
        C: Sync,
    {
        self.expanded_with(&WriteOptions::new())
    }

    /// [`Document::expanded`] with write options (e.g. secrets included).
    pub fn expanded_with(&self, options: &WriteOptions) -> serde_json::Value
    where
        C: Sync,
    {
        let value = self.to_value_with(options);
        match layout::expand(&value, &HashMap::new()) {
            Ok((expanded, _)) => expanded,
            // A loaded document has no cycle; one built in code may: keep it as it is.
            Err(_) => value,
        }
    }

    /// The document in pyagentspec's layout (see [`Document::from_value_normalized`]): what
    /// to write for a document built in code, where sharing is expressed by equal ids.
    pub fn normalized(&self) -> Result<Self, LoadError>
    where
        C: Sync,
    {
        Self::from_value_normalized(&self.to_value_with(&WriteOptions::new().include_secrets(true)))
    }

    /// The main document and its components joined into one document (pyagentspec's layout).
    pub fn join(&self, components: &Components<C>) -> Result<Self, LoadError>
    where
        C: Sync,
    {
        let all = WriteOptions::new().include_secrets(true);
        let supplied: HashMap<String, serde_json::Value> = components
            .ids()
            .filter_map(|id| {
                let mut body = components.get(id)?.to_value_with(&all);
                if let serde_json::Value::Object(map) = &mut body {
                    map.shift_remove("agentspec_version");
                }
                Some((id.to_owned(), body))
            })
            .collect();
        let (expanded, unused) =
            layout::expand(&self.to_value_with(&all), &supplied).map_err(layout_error)?;
        let laid_out = layout::layout(&expanded, unused).map_err(layout_error)?;
        Self::from_value(&laid_out)
    }

    /// Disaggregates components: each `(id, key)` component is moved to a components file
    /// under `key` (or its own id), written as its own root at this document's version, and
    /// every use of it in the main document becomes `{"$component_ref": key}`.
    /// Splitting off the root, or an id the document does not have, is an error.
    pub fn split(&self, parts: &[(&str, Option<&str>)]) -> Result<(Self, Components<C>), LoadError>
    where
        C: Sync,
    {
        let all = WriteOptions::new().include_secrets(true);
        let expanded = self.expanded_with(&all);
        let root_id = self.root.id();
        let mut components = Components::new();
        let mut keys = HashMap::new();
        for &(id, key) in parts {
            let key = key.unwrap_or(id);
            if id == root_id {
                return Err(split_error(format!(
                    "`{id}` is the root of the document; only the components it uses can be split off"
                )));
            }
            let Some(body) = find_component(&expanded, id) else {
                return Err(split_error(format!(
                    "the document has no component with id `{id}`"
                )));
            };
            let mut body = layout::layout(body, Vec::new()).map_err(layout_error)?;
            if let serde_json::Value::Object(map) = &mut body {
                map.insert(
                    "agentspec_version".into(),
                    serde_json::Value::String(self.version.to_string()),
                );
            }
            components.insert(key, Self::from_value(&body)?);
            keys.insert(id.to_owned(), key.to_owned());
        }
        let main = replace_components(&expanded, &keys);
        let laid_out = layout::layout(&main, Vec::new()).map_err(layout_error)?;
        let main = Self::from_value_with(&laid_out, &LoadOptions::new().components(&components))?;
        Ok((main, components))
    }

    /// The root component.
    pub fn root(&self) -> &C {
        &self.root
    }

    /// The root component, to change it.
    pub fn root_mut(&mut self) -> &mut C {
        &mut self.root
    }

    /// The root component, taken out of the document.
    pub fn into_root(self) -> C {
        self.root
    }

    /// The Agent Spec version the document declares (legacy forms already upgraded:
    /// `25.4.0` reads as `25.4.1`).
    pub fn agentspec_version(&self) -> Version {
        self.version
    }

    /// Sets the version the document is written at.
    pub fn set_agentspec_version(&mut self, version: Version) {
        self.version = version;
    }

    /// Every component written inline in the document, at any depth (inside
    /// `$referenced_components` too), in document order, the root first.
    pub fn components(&self) -> Vec<&dyn ComponentInfo>
    where
        C: Sync,
    {
        let mut out = Vec::new();
        self.walk(|visit| {
            if let Visit::Component(c) = visit {
                out.push(c);
            }
        });
        out
    }

    /// Every non-empty `$referenced_components` map of the document, at any depth, in
    /// document order.
    pub fn referenced_components(&self) -> Vec<&IndexMap<String, C>>
    where
        C: Sync,
    {
        let mut out = Vec::new();
        self.walk(|visit| {
            if let Visit::Referenced(map) = visit {
                out.push(map);
            }
        });
        out
    }

    /// Walks the document (on a large stack when it is deep).
    fn walk<'a>(&'a self, mut f: impl FnMut(Visit<'a, C>) + Send)
    where
        C: Sync,
    {
        if self.depth > DEEP {
            on_big_stack(self.depth, || self.root.walk(&mut f));
        } else {
            self.root.walk(&mut f);
        }
    }

    pub(crate) fn depth(&self) -> usize {
        self.depth
    }

    pub(crate) fn set_depth(&mut self, depth: usize) {
        self.depth = depth;
    }

    pub(crate) fn take_warnings(&mut self) -> Vec<Diagnostic> {
        std::mem::take(&mut self.warnings)
    }

    /// The warnings found while loading.
    pub fn warnings(&self) -> &[Diagnostic] {
        &self.warnings
    }

    /// Streams the document into `sink`: the root's keys, then `agentspec_version`.
    /// Sensitive values are written as `<id>.<field>` placeholders.
    pub fn write(&self, sink: &mut dyn Sink) {
        self.write_with(sink, &WriteOptions::new());
    }

    /// Streams the document into `sink` with `options`.
    pub fn write_with(&self, sink: &mut dyn Sink, options: &WriteOptions) {
        let cx = Encoder {
            version: self.version,
            include_secrets: options.include_secrets,
        };
        sink.begin_object();
        self.root.encode_body(sink, &cx);
        sink.key("agentspec_version");
        sink.str(&self.version.to_string());
        sink.end_object();
    }

    fn write_into<S: Sink + Send>(&self, mut sink: S, options: &WriteOptions) -> S
    where
        C: Sync,
    {
        if self.depth > DEEP {
            on_big_stack(self.depth, || {
                self.write_with(&mut sink, options);
                sink
            })
        } else {
            self.write_with(&mut sink, options);
            sink
        }
    }

    /// Pretty JSON, byte for byte as pyagentspec writes it (`json.dumps(indent=2)`), secrets
    /// redacted.
    pub fn to_json_pretty(&self) -> String
    where
        C: Sync,
    {
        self.to_string_with(Output::JsonPretty, &WriteOptions::new())
    }

    /// Compact JSON on one line, secrets redacted.
    pub fn to_json_compact(&self) -> String
    where
        C: Sync,
    {
        self.to_string_with(Output::JsonCompact, &WriteOptions::new())
    }

    /// Block-style YAML, secrets redacted.
    pub fn to_yaml(&self) -> String
    where
        C: Sync,
    {
        self.to_string_with(Output::Yaml, &WriteOptions::new())
    }

    /// The document as a `serde_json::Value` (keys in written order), secrets redacted.
    pub fn to_value(&self) -> serde_json::Value
    where
        C: Sync,
    {
        self.to_value_with(&WriteOptions::new())
    }

    /// The document as a `serde_json::Value` with `options`.
    pub fn to_value_with(&self, options: &WriteOptions) -> serde_json::Value
    where
        C: Sync,
    {
        self.write_into(ValueSink::new(), options).finish()
    }

    /// Writes the document in `format` (pretty JSON for JSON), secrets redacted.
    pub fn to_string_as(&self, format: Format) -> String
    where
        C: Sync,
    {
        self.to_string_with(format.into(), &WriteOptions::new())
    }

    /// Writes the document as `output` with `options`.
    pub fn to_string_with(&self, output: Output, options: &WriteOptions) -> String
    where
        C: Sync,
    {
        match output {
            Output::JsonPretty => self.write_into(JsonWriter::pretty(), options).finish(),
            Output::JsonCompact => self.write_into(JsonWriter::compact(), options).finish(),
            Output::Yaml => self.write_into(YamlWriter::new(), options).finish(),
        }
    }
}

fn layout_error(e: layout::LayoutError) -> LoadError {
    let d = match e {
        layout::LayoutError::Conflict(id) => Diagnostic::error(
            "duplicate-id",
            format!("two different components have the id `{id}`; an id names one component"),
            "",
            None,
        ),
        layout::LayoutError::Cycle(id) => Diagnostic::error(
            "reference-cycle",
            format!("the component `{id}` contains a reference to itself"),
            "",
            None,
        ),
    };
    LoadError {
        diagnostics: vec![d],
    }
}

fn split_error(message: String) -> LoadError {
    LoadError {
        diagnostics: vec![Diagnostic::error("invalid-split", message, "", None)],
    }
}

/// Gives a fresh id to every component (an object with a `component_type`) without one.
fn give_fresh_ids(value: &mut serde_json::Value) {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            serde_json::Value::Object(map) => {
                let is_component = map
                    .get("component_type")
                    .is_some_and(serde_json::Value::is_string);
                let has_id = map
                    .get("id")
                    .and_then(serde_json::Value::as_str)
                    .is_some_and(|id| !id.is_empty());
                if is_component && !has_id {
                    map.insert(
                        "id".into(),
                        serde_json::Value::String(crate::codec::fresh_id()),
                    );
                }
                stack.extend(map.values_mut());
            }
            serde_json::Value::Array(items) => stack.extend(items.iter_mut()),
            _ => {}
        }
    }
}

/// The first component with `id` in an expanded document.
fn find_component<'a>(value: &'a serde_json::Value, id: &str) -> Option<&'a serde_json::Value> {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            serde_json::Value::Object(map) => {
                if map.get("component_type").is_some()
                    && map.get("id").and_then(serde_json::Value::as_str) == Some(id)
                {
                    return Some(v);
                }
                stack.extend(map.values());
            }
            serde_json::Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    None
}

/// Replaces every component whose id is a key of `keys` by a reference to its new key.
fn replace_components(
    value: &serde_json::Value,
    keys: &HashMap<String, String>,
) -> serde_json::Value {
    match value {
        serde_json::Value::Object(map) => {
            if map.get("component_type").is_some()
                && let Some(key) = map
                    .get("id")
                    .and_then(serde_json::Value::as_str)
                    .and_then(|id| keys.get(id))
            {
                return serde_json::json!({ "$component_ref": key });
            }
            serde_json::Value::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), replace_components(v, keys)))
                    .collect(),
            )
        }
        serde_json::Value::Array(items) => {
            serde_json::Value::Array(items.iter().map(|v| replace_components(v, keys)).collect())
        }
        other => other.clone(),
    }
}

/// A text output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// Pretty JSON, as pyagentspec writes it.
    JsonPretty,
    /// JSON on one line.
    JsonCompact,
    /// Block-style YAML.
    Yaml,
}

impl From<Format> for Output {
    fn from(format: Format) -> Self {
        match format {
            Format::Json => Output::JsonPretty,
            Format::Yaml => Output::Yaml,
        }
    }
}

/// How a document is written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WriteOptions {
    include_secrets: bool,
}

impl WriteOptions {
    /// The defaults: sensitive values are written as `<id>.<field>` placeholders.
    pub fn new() -> Self {
        WriteOptions::default()
    }

    /// Writes the real values of sensitive fields (an explicit opt-in: the output then
    /// holds secrets).
    pub fn include_secrets(mut self, include: bool) -> Self {
        self.include_secrets = include;
        self
    }
}

/// The source text a tree was parsed from, to locate diagnostics found after decoding.
#[derive(Clone, Copy)]
pub(crate) struct Source<'a> {
    pub text: &'a str,
    pub format: Format,
}

/// Parses `text` in `format`, with the deepest nesting.
pub(crate) fn parse_with_depth(
    text: &str,
    format: Format,
) -> Result<(Node, usize), Vec<Diagnostic>> {
    match format {
        Format::Json => parse_json_with_depth(text),
        Format::Yaml => parse_yaml_with_depth(text),
    }
}

/// The nesting depth of a tree, without recursion.
pub(crate) fn depth_of(tree: &Node) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(tree, 1)];
    while let Some((node, depth)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Node>> = match &node.value {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(entries) => Box::new(entries.iter().map(|e| &e.value)),
            _ => continue,
        };
        deepest = deepest.max(depth);
        stack.extend(children.map(|n| (n, depth + 1)));
    }
    deepest
}

/// Runs `f` on a scoped thread whose stack fits `depth` levels of nesting, even in a debug
/// build.
pub(crate) fn on_big_stack<T: Send>(depth: usize, f: impl FnOnce() -> T + Send) -> T {
    let stack = (16 << 20) + depth * (96 << 10);
    std::thread::scope(|scope| {
        match std::thread::Builder::new()
            .stack_size(stack)
            .spawn_scoped(scope, f)
        {
            Ok(handle) => handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(e) => panic!("cannot start a thread to handle a deep document: {e}"),
        }
    })
}

pub(crate) fn decode_document<C: ComponentSet>(
    tree: Node,
    source: Option<Source<'_>>,
    base: &Path<'_>,
    registry: &Registry,
) -> Result<Document<C>, LoadError> {
    let mut cx = Decoder::new(C::TYPES, C::VERSIONS);
    cx.eager_pointers = source.is_none();
    cx.values = registry.values.clone();
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
        return Err(LoadError {
            diagnostics: vec![d],
        });
    };
    let version = root_version::<C>(&mut entries, offset, &mut cx, base);
    let root = if entries.iter().any(|e| e.key == "$component_ref") {
        cx.error("unsupported", "a document whose root is a `$component_ref` is not supported yet; put the component itself at the root", &root_path, offset);
        None
    } else {
        let node = Node {
            offset,
            value: Value::Object(entries),
        };
        cx.decode_tagged(
            node,
            &root_path,
            "component",
            C::TYPES,
            |tag, entries, offset, cx, path| C::decode_body(tag, entries, offset, cx, path),
        )
    };
    check_references(&mut cx, source, registry);
    let mut diagnostics = std::mem::take(&mut cx.diagnostics);
    diagnostics.sort_by_key(|d| (d.offset.unwrap_or(usize::MAX), !d.is_error()));
    match (root, version) {
        (Some(root), Some(version)) if !diagnostics.iter().any(Diagnostic::is_error) => {
            Ok(Document {
                root,
                version,
                warnings: diagnostics,
                depth: 0,
            })
        }
        _ => Err(LoadError { diagnostics }),
    }
}

/// Takes `agentspec_version` (or the legacy `air_version`) out of the root's entries.
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

/// Components supplied from outside the document (a components file), by id.
#[derive(Debug, Default)]
pub(crate) struct Registry {
    pub types: HashMap<String, &'static str>,
    /// Values of sensitive fields by placeholder, when supplied.
    pub values: Option<serde_json::Map<String, serde_json::Value>>,
}

/// The `$referenced_components` checks, all reported at once: ids defined twice,
/// references to nothing, to the wrong family or in a cycle, and entries nobody uses.
fn check_references(cx: &mut Decoder, source: Option<Source<'_>>, registry: &Registry) {
    let mut found = Vec::new();
    let mut need_pointers: Vec<u32> = Vec::new();
    let mut need_keys: Vec<u32> = Vec::new();
    let mut keys: HashMap<&str, usize> = HashMap::new();
    for (i, entry) in cx.entries.iter().enumerate() {
        if let Some(first) = keys.insert(entry.key.as_str(), i) {
            keys.insert(entry.key.as_str(), first);
            found.push(Found::DuplicateKey { entry: i, first });
            need_keys.extend([entry.key_offset, cx.entries[first].key_offset]);
        }
    }
    let mut ids: HashMap<&str, usize> = HashMap::new();
    for (i, c) in cx.components.iter().enumerate() {
        if c.id.is_empty() {
            continue;
        }
        if let Some(&first) = ids.get(c.id.as_str()) {
            found.push(Found::DuplicateComponent {
                component: i,
                first,
            });
            need_pointers.extend([c.offset, cx.components[first].offset]);
        } else {
            ids.insert(c.id.as_str(), i);
        }
    }
    let mut used = vec![false; cx.entries.len()];
    let mut edges: Vec<Vec<(usize, usize)>> = vec![Vec::new(); cx.entries.len()];
    for (i, entry) in cx.entries.iter().enumerate() {
        if registry.types.contains_key(entry.key.as_str()) {
            found.push(Found::AlsoSupplied(i));
            need_keys.push(entry.key_offset);
        }
    }
    for (r, reference) in cx.references.iter().enumerate() {
        match keys.get(reference.id.as_str()) {
            None => match registry.types.get(reference.id.as_str()) {
                None => found.push(Found::Unresolved(r)),
                Some(ty) if !reference.members.contains(ty) => {
                    found.push(Found::WrongSupplied(r, ty))
                }
                Some(_) => continue,
            },
            Some(&target) => {
                used[target] = true;
                let ty = cx.entries[target].component_type;
                if !ty.is_empty() && !reference.members.contains(&ty) {
                    found.push(Found::WrongFamily(r, target));
                }
                if let Some(owner) = reference.owner {
                    edges[owner].push((target, r));
                }
                continue;
            }
        }
        need_pointers.push(reference.offset);
    }
    for (r, reference) in cx.references.iter().enumerate() {
        if found
            .iter()
            .any(|f| matches!(f, Found::WrongFamily(x, _) | Found::WrongSupplied(x, _) if *x == r))
        {
            need_pointers.push(reference.offset);
        }
    }
    for cycle in cycles(&edges) {
        need_pointers.push(cx.references[cycle.closing_ref].offset);
        found.push(Found::Cycle(cycle));
    }
    for (i, secret) in cx.secrets.iter().enumerate() {
        if !secret.supplied {
            found.push(Found::MissingSecret {
                secret: i,
                values_given: registry.values.is_some(),
            });
            need_pointers.push(secret.offset);
        }
    }
    let duplicates: HashSet<usize> = found
        .iter()
        .filter_map(|f| {
            if let Found::DuplicateKey { entry, .. } = f {
                Some(*entry)
            } else {
                None
            }
        })
        .collect();
    for (i, used) in used.iter().enumerate() {
        if !used && !duplicates.contains(&i) {
            found.push(Found::Unused(i));
            need_keys.push(cx.entries[i].key_offset);
        }
    }
    if found.is_empty() {
        return;
    }
    let pointers = match source {
        Some(source) => pointers_at(
            source,
            need_pointers.into_iter().collect(),
            need_keys.into_iter().collect(),
        ),
        None => Pointers::default(),
    };
    let missing: Vec<&str> = {
        let mut ids: Vec<&str> = found
            .iter()
            .filter_map(|f| {
                if let Found::Unresolved(r) = f {
                    Some(cx.references[*r].id.as_str())
                } else {
                    None
                }
            })
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    };
    let mut out = Vec::new();
    for f in &found {
        out.push(f.diagnostic(cx, &pointers, &missing));
    }
    cx.diagnostics.extend(out);
}

/// One reference problem, before it is worded.
enum Found {
    DuplicateKey {
        entry: usize,
        first: usize,
    },
    DuplicateComponent {
        component: usize,
        first: usize,
    },
    Unresolved(usize),
    WrongFamily(usize, usize),
    /// A reference to a supplied component of the wrong family.
    WrongSupplied(usize, &'static str),
    /// A `$referenced_components` key that the supplied components define too.
    AlsoSupplied(usize),
    /// A sensitive field whose value was not supplied.
    MissingSecret {
        secret: usize,
        values_given: bool,
    },
    Cycle(Cycle),
    Unused(usize),
}

impl Found {
    fn diagnostic(&self, cx: &Decoder, pointers: &Pointers, missing: &[&str]) -> Diagnostic {
        let at = |pointer: &Option<String>, offset: u32| {
            pointer
                .clone()
                .or_else(|| pointers.values.get(&offset).cloned())
                .unwrap_or_default()
        };
        let entry_at = |i: usize| {
            let e = &cx.entries[i];
            e.pointer
                .clone()
                .or_else(|| pointers.keys.get(&e.key_offset).cloned())
                .unwrap_or_default()
        };
        let reference_at = |r: usize| at(&cx.references[r].pointer, cx.references[r].offset);
        match self {
            Found::DuplicateKey { entry, first } => {
                let e = &cx.entries[*entry];
                let message = format!(
                    "the id `{}` is defined in two `$referenced_components` maps (also at {}); an id names one component",
                    e.key,
                    entry_at(*first)
                );
                Diagnostic::error(
                    "duplicate-id",
                    message,
                    entry_at(*entry),
                    Some(e.key_offset as usize),
                )
            }
            Found::DuplicateComponent { component, first } => {
                let (c, other) = (&cx.components[*component], &cx.components[*first]);
                let message = format!(
                    "two components have the id `{}` (the other at {}); ids must be unique",
                    c.id,
                    at(&other.pointer, other.offset)
                );
                Diagnostic::error(
                    "duplicate-id",
                    message,
                    at(&c.pointer, c.offset),
                    Some(c.offset as usize),
                )
            }
            Found::Unresolved(r) => {
                let reference = &cx.references[*r];
                let message = format!(
                    "no component with id `{}` is defined in any `$referenced_components` map of this document or in the supplied components (missing ids: {})",
                    reference.id,
                    missing.join(", ")
                );
                Diagnostic::error(
                    "unresolved-reference",
                    message,
                    reference_at(*r),
                    Some(reference.offset as usize),
                )
            }
            Found::WrongFamily(r, target) => {
                let reference = &cx.references[*r];
                let ty = cx.entries[*target].component_type;
                let message = format!(
                    "`{}` is a `{ty}`, which cannot stand where a {} is expected (expected one of: {})",
                    reference.id,
                    reference.family,
                    reference.members.join(", ")
                );
                Diagnostic::error(
                    "wrong-component-family",
                    message,
                    reference_at(*r),
                    Some(reference.offset as usize),
                )
            }
            Found::WrongSupplied(r, ty) => {
                let reference = &cx.references[*r];
                let message = format!(
                    "`{}` is a supplied `{ty}`, which cannot stand where a {} is expected (expected one of: {})",
                    reference.id,
                    reference.family,
                    reference.members.join(", ")
                );
                Diagnostic::error(
                    "wrong-component-family",
                    message,
                    reference_at(*r),
                    Some(reference.offset as usize),
                )
            }
            Found::AlsoSupplied(i) => {
                let e = &cx.entries[*i];
                let message = format!(
                    "the id `{}` is defined in this document and in the supplied components; an id names one component",
                    e.key
                );
                Diagnostic::error(
                    "duplicate-id",
                    message,
                    entry_at(*i),
                    Some(e.key_offset as usize),
                )
            }
            Found::MissingSecret {
                secret,
                values_given,
            } => {
                let s = &cx.secrets[*secret];
                let pointer = at(&s.pointer, s.offset);
                if *values_given {
                    let message = format!(
                        "the supplied values have no value for the secret `{}`",
                        s.placeholder
                    );
                    Diagnostic::error("missing-secret", message, pointer, Some(s.offset as usize))
                } else {
                    let message = format!(
                        "the secret `{}` is a placeholder: supply its value to use it",
                        s.placeholder
                    );
                    Diagnostic::warning("missing-secret", message, pointer, Some(s.offset as usize))
                }
            }
            Found::Cycle(cycle) => {
                let path: Vec<&str> = cycle
                    .entries
                    .iter()
                    .map(|&e| cx.entries[e].key.as_str())
                    .collect();
                let message = format!(
                    "reference cycle: {} → {}; a component cannot contain itself",
                    path.join(" → "),
                    path[0]
                );
                let reference = &cx.references[cycle.closing_ref];
                Diagnostic::error(
                    "reference-cycle",
                    message,
                    reference_at(cycle.closing_ref),
                    Some(reference.offset as usize),
                )
            }
            Found::Unused(i) => {
                let e = &cx.entries[*i];
                let message = format!(
                    "the component `{}` of `$referenced_components` is not referenced anywhere; it is kept when the document is written",
                    e.key
                );
                Diagnostic::warning(
                    "unused-component",
                    message,
                    entry_at(*i),
                    Some(e.key_offset as usize),
                )
            }
        }
    }
}

/// A cycle of `$referenced_components` entries, and the reference that closes it.
struct Cycle {
    entries: Vec<usize>,
    closing_ref: usize,
}

/// Every cycle of the graph `edges` (entry → (target entry, reference)), found by an
/// iterative depth-first search; each cycle is reported once, from the entry first reached.
fn cycles(edges: &[Vec<(usize, usize)>]) -> Vec<Cycle> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    let mut mark = vec![Mark::New; edges.len()];
    let mut found = Vec::new();
    for start in 0..edges.len() {
        if mark[start] != Mark::New {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        mark[start] = Mark::Open;
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if let Some(&(target, reference)) = edges[node].get(*next) {
                *next += 1;
                match mark[target] {
                    Mark::New => {
                        mark[target] = Mark::Open;
                        stack.push((target, 0));
                    }
                    Mark::Open => {
                        let from = stack.iter().position(|&(n, _)| n == target).unwrap_or(0);
                        found.push(Cycle {
                            entries: stack[from..].iter().map(|&(n, _)| n).collect(),
                            closing_ref: reference,
                        });
                    }
                    Mark::Done => {}
                }
            } else {
                mark[node] = Mark::Done;
                stack.pop();
            }
        }
    }
    found
}

/// JSON pointers found by offset: of values (components, reference objects) and of object
/// entries by their key's offset. (In YAML a block mapping starts where its first key does,
/// so the two are kept apart.)
#[derive(Default)]
struct Pointers {
    values: HashMap<u32, String>,
    keys: HashMap<u32, String>,
}

/// Reads the source text again to find the pointers of the values at `values` and of the
/// entries whose keys are at `keys` (done only when there is a problem to report).
fn pointers_at(source: Source<'_>, values: HashSet<u32>, keys: HashSet<u32>) -> Pointers {
    let tree = match source.format {
        Format::Json => parse_json_with_depth(source.text),
        Format::Yaml => parse_yaml_with_depth(source.text),
    };
    let mut found = Pointers::default();
    let Ok((tree, _)) = tree else { return found };
    let mut stack: Vec<(&Node, String)> = vec![(&tree, String::new())];
    while let Some((node, pointer)) = stack.pop() {
        if values.contains(&node.offset) {
            found
                .values
                .entry(node.offset)
                .or_insert_with(|| pointer.clone());
        }
        match &node.value {
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    let mut p = pointer.clone();
                    push_pointer_token(&mut p, &i.to_string());
                    stack.push((item, p));
                }
            }
            Value::Object(entries) => {
                for entry in entries {
                    let mut p = pointer.clone();
                    push_pointer_token(&mut p, &entry.key);
                    if keys.contains(&entry.key_offset) {
                        found.keys.insert(entry.key_offset, p.clone());
                    }
                    stack.push((&entry.value, p));
                }
            }
            _ => {}
        }
    }
    found
}
