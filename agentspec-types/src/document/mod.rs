//! Documents: a root component and its declared Agent Spec version, loaded from JSON or
//! YAML and written back in pyagentspec's layout.

use std::collections::HashMap;
use std::fmt;
use std::io::Read;
use std::path::Path as FsPath;

use indexmap::IndexMap;

use crate::check::{Origin, Registry};
use crate::codec::{ComponentInfo, ComponentSet, Encoder, Path};
use crate::diagnostic::Diagnostic;
use crate::layout;
use crate::syntax::json::JsonWriter;
use components::{Components, LoadOptions};

pub mod components;
pub(crate) mod decode;
mod versions;

use crate::syntax::sink::Sink;
use crate::syntax::tree::{Node, Value};
use crate::syntax::value::{ValueSink, value_to_numbered_node};
use crate::syntax::yaml::YamlWriter;
use crate::syntax::{Format, Source, depth_of, parse_with_depth};
use crate::version::Version;
use crate::walk::Visit;
pub(crate) use decode::decode_document;

/// Why a document could not be loaded: every error found (and the warnings beside them),
/// each with its code, pointer, line and column.
///
/// A file or reader that cannot be read is one `io-error` diagnostic, and the
/// [`std::io::Error`] behind it is the error's [`source`](std::error::Error::source).
#[derive(Debug, Clone)]
pub struct LoadError {
    /// The diagnostics, errors and warnings, in document order.
    pub diagnostics: Vec<Diagnostic>,
    /// What could not be read, for `source()` (shared: the error is `Clone`).
    io: Option<std::sync::Arc<std::io::Error>>,
}

impl LoadError {
    /// A load error made of `diagnostics`.
    pub(crate) fn new(diagnostics: Vec<Diagnostic>) -> Self {
        LoadError {
            diagnostics,
            io: None,
        }
    }

    /// `what` (`the document`, a path) could not be read.
    pub(crate) fn io(what: impl fmt::Display, error: std::io::Error) -> Self {
        let message = format!("cannot read {what}: {error}");
        LoadError {
            diagnostics: vec![Diagnostic::error("io-error", message, "", None)],
            io: Some(std::sync::Arc::new(error)),
        }
    }

    /// The errors only.
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| d.is_error())
    }
}

/// The source is the I/O error of a file or reader that could not be read.
impl std::error::Error for LoadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.io
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl From<layout::LayoutError> for LoadError {
    fn from(e: layout::LayoutError) -> Self {
        LoadError::new(vec![e.diagnostic()])
    }
}

/// A document that cannot be split as asked.
fn split_error(message: String) -> LoadError {
    LoadError::new(vec![Diagnostic::error("invalid-split", message, "", None)])
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
///
/// Two documents are equal when their content is: the same root and version, however each
/// was made (loaded from text, built in code, with or without warnings).
#[derive(Clone)]
pub struct Document<C> {
    root: C,
    version: Version,
    warnings: Vec<Diagnostic>,
    depth: usize,
    /// How it was loaded, for the operations that load it again (layout, split, join).
    reload: Reload,
    /// The text it was loaded from, until it is changed: validation locates its
    /// diagnostics in it.
    pub(crate) source: Option<std::sync::Arc<Loaded>>,
}

/// The content only (what equality compares), so that `assert_eq!` on two documents shows
/// what differs and not how each was loaded.
impl<C: fmt::Debug> fmt::Debug for Document<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Document")
            .field("agentspec_version", &self.version)
            .field("root", &self.root)
            .finish_non_exhaustive()
    }
}

impl<C: PartialEq> PartialEq for Document<C> {
    fn eq(&self, other: &Self) -> bool {
        self.root == other.root && self.version == other.version
    }
}

/// The text a document was loaded from: the text itself when the loader owned it (a file, a
/// reader); for a borrowed text, what validation found in it at load, located, or (another
/// component set than the bundled one) its length and fingerprint, to recognize it when the
/// document writes it again. No copy of a borrowed text is kept: a document stays smaller
/// than its text.
pub(crate) struct Loaded {
    pub format: Format,
    pub text: LoadedText,
    /// The text's length: what writing the document in its format again reserves.
    pub len: usize,
}

pub(crate) enum LoadedText {
    /// The text itself: a file's or a reader's, which the loader owns.
    Owned(String),
    /// What validation found (at the default levels), located while the borrowed text was at
    /// hand: a document of the bundled types loaded from a string.
    Validated(Vec<Diagnostic>),
    /// A document of another component set loaded from a string (validating it at load would
    /// decode it twice): its text is found again when the document writes it identically.
    Fingerprint { len: usize, hash: u64 },
}

impl Loaded {
    /// The text, when it can be had: kept, or written again identically.
    pub(crate) fn text<C: ComponentSet + Send + Sync>(
        &self,
        doc: &Document<C>,
    ) -> Option<std::borrow::Cow<'_, str>> {
        let (len, hash) = match &self.text {
            LoadedText::Owned(text) => return Some(std::borrow::Cow::Borrowed(text)),
            LoadedText::Validated(_) => return None,
            LoadedText::Fingerprint { len, hash } => (*len, *hash),
        };
        let all = WriteOptions::new().include_secrets(true);
        let outputs: &[Output] = match self.format {
            Format::Json => &[Output::JsonPretty, Output::JsonCompact],
            Format::Yaml => &[Output::Yaml],
        };
        outputs.iter().find_map(|output| {
            let text = doc.to_string_with(*output, &all);
            let content = text.trim_end();
            (content.len() == len && crate::syntax::fingerprint(content) == hash)
                .then_some(std::borrow::Cow::Owned(text))
        })
    }
}

/// The text is not printed: it may hold secrets.
impl fmt::Debug for Loaded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kept = matches!(self.text, LoadedText::Owned(_));
        f.debug_struct("Loaded")
            .field("format", &self.format)
            .field("kept", &kept)
            .finish()
    }
}

/// The load settings a document keeps for loading itself again: plugins and unknown types.
#[derive(Debug, Clone, Default)]
struct Reload {
    keep_unknown: bool,
    plugins: Option<crate::codec::plugin::PluginRegistry>,
}

/// How a document was loaded is not part of its value.
impl PartialEq for Reload {
    fn eq(&self, _other: &Self) -> bool {
        true
    }
}

impl Reload {
    /// Loads `value` with these settings.
    fn load<C: ComponentSet + Send>(
        &self,
        value: &serde_json::Value,
    ) -> Result<Document<C>, LoadError> {
        Self::load_with(value, &self.registry())
    }

    fn load_with<C: ComponentSet + Send>(
        value: &serde_json::Value,
        registry: &Registry,
    ) -> Result<Document<C>, LoadError> {
        let tree = value_to_numbered_node(value);
        let depth = depth_of(&tree);
        Document::decode(tree, depth, Origin::Value(value), registry)
    }

    fn registry(&self) -> Registry {
        Registry {
            keep_unknown: self.keep_unknown,
            plugins: self.plugins.clone(),
            ..Registry::default()
        }
    }
}

impl<C: ComponentSet + Send> Document<C> {
    /// A document for `root` (a component type, or any type that converts into the set's
    /// `C`), written at `version`, as it is: a component used at several places is written at
    /// each, and nothing is inferred. For what pyagentspec writes for a component built in
    /// code, use [`Document::at_min_version`].
    pub fn new(root: impl Into<C>, version: Version) -> Self {
        Document {
            root: root.into(),
            version,
            warnings: Vec::new(),
            depth: 0,
            reload: Reload::default(),
            source: None,
        }
    }

    /// Loads a JSON document.
    pub fn from_json_str(text: &str) -> Result<Self, LoadError>
    where
        C: 'static,
    {
        Self::from_str_as(text, Format::Json)
    }

    /// Loads a YAML document.
    pub fn from_yaml_str(text: &str) -> Result<Self, LoadError>
    where
        C: 'static,
    {
        Self::from_str_as(text, Format::Yaml)
    }

    /// Loads a document in `format`. Errors and warnings carry line and column.
    pub fn from_str_as(text: &str, format: Format) -> Result<Self, LoadError>
    where
        C: 'static,
    {
        Self::from_str_with(text, format, &LoadOptions::new())
    }

    /// Loads a document in `format` with components (and values) supplied from outside it.
    pub fn from_str_with(
        text: &str,
        format: Format,
        options: &LoadOptions<'_, C>,
    ) -> Result<Self, LoadError>
    where
        C: 'static,
    {
        options.leveled(Self::from_str_at_default_levels(
            text, format, options, false,
        ))
    }

    /// Loads `text`; unless the loader keeps the text (`kept`), a document of the bundled
    /// types is validated now, while the text is at hand to locate what validation finds.
    fn from_str_at_default_levels(
        text: &str,
        format: Format,
        options: &LoadOptions<'_, C>,
        kept: bool,
    ) -> Result<Self, LoadError>
    where
        C: 'static,
    {
        // lines are counted only as far as the last diagnostic, without a table of them
        let locate = |mut diagnostics: Vec<Diagnostic>| {
            let all = 0..diagnostics.len();
            crate::diagnostic::locate_by_sweep(text, &mut diagnostics, all);
            diagnostics
        };
        let (tree, depth, mut parsed) =
            parse_with_depth(text, format).map_err(|d| LoadError::new(locate(d)))?;
        let source = Source { text, format };
        match Self::decode(tree, depth, Origin::Text(source), &options.registry()) {
            Ok(mut doc) => {
                // the parser's warnings come first: they are about the text
                parsed.append(&mut doc.warnings);
                doc.warnings = locate(parsed);
                let loaded = if kept {
                    // the caller puts the text in its place
                    LoadedText::Validated(Vec::new())
                } else if let Some(bundled) = (&doc as &dyn std::any::Any)
                    .downcast_ref::<crate::Document>()
                    .filter(|_| options.validate_at_load)
                {
                    let mut found = bundled.validate_rules();
                    crate::document::locate(&mut found, text, format);
                    LoadedText::Validated(found)
                } else {
                    // trailing whitespace aside: it holds nothing to point at
                    LoadedText::Fingerprint {
                        len: text.trim_end().len(),
                        hash: crate::syntax::fingerprint(text.trim_end()),
                    }
                };
                doc.source = Some(std::sync::Arc::new(Loaded {
                    format,
                    text: loaded,
                    len: text.len(),
                }));
                Ok(doc)
            }
            Err(mut e) => {
                parsed.append(&mut e.diagnostics);
                e.diagnostics = locate(parsed);
                Err(e)
            }
        }
    }

    /// Loads a document from a reader.
    pub fn from_reader(mut reader: impl Read, format: Format) -> Result<Self, LoadError>
    where
        C: 'static,
    {
        let mut text = String::new();
        reader
            .read_to_string(&mut text)
            .map_err(|e| LoadError::io("the document", e))?;
        Self::from_string_with(text, format, &LoadOptions::new())
    }

    /// Loads a text given up to the document, with components (and values) supplied from
    /// outside it: the text is kept to locate what [`Document::validate`] finds later, so
    /// nothing is validated at load (as for a file or a reader, and unlike a borrowed string).
    /// What a program that validates only some of the documents it loads, or that holds the
    /// text anyway, should call.
    pub fn from_string_with(
        text: String,
        format: Format,
        options: &LoadOptions<'_, C>,
    ) -> Result<Self, LoadError>
    where
        C: 'static,
    {
        let mut doc = options.leveled(Self::from_str_at_default_levels(
            &text, format, options, true,
        ))?;
        doc.source = Some(std::sync::Arc::new(Loaded {
            format,
            len: text.len(),
            text: LoadedText::Owned(text),
        }));
        Ok(doc)
    }

    /// Loads a file; the format comes from its extension, else from its first character.
    pub fn from_path(path: impl AsRef<FsPath>) -> Result<Self, LoadError>
    where
        C: 'static,
    {
        Self::from_path_with(path, &LoadOptions::new())
    }

    /// Loads a file with components (and values) supplied from outside it.
    pub fn from_path_with(
        path: impl AsRef<FsPath>,
        options: &LoadOptions<'_, C>,
    ) -> Result<Self, LoadError>
    where
        C: 'static,
    {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| LoadError::io(path.display(), e))?;
        let format = Format::from_path(path).unwrap_or_else(|| Format::sniff(&text));
        Self::from_string_with(text, format, options)
    }

    /// Loads a document from a `serde_json::Value` (diagnostics have no line and column).
    pub fn from_value(value: &serde_json::Value) -> Result<Self, LoadError> {
        Reload::load_with(value, &Registry::default())
    }

    /// Loads a document from a `serde_json::Value` with components and values supplied.
    pub fn from_value_with(
        value: &serde_json::Value,
        options: &LoadOptions<'_, C>,
    ) -> Result<Self, LoadError> {
        options.leveled(Self::from_value_at_default_levels(value, options))
    }

    fn from_value_at_default_levels(
        value: &serde_json::Value,
        options: &LoadOptions<'_, C>,
    ) -> Result<Self, LoadError> {
        Reload::load_with(value, &options.registry())
    }

    /// Lays out a document given as a value in pyagentspec's way, then loads it: components
    /// without an id get a fresh one; a component (an object with `component_type` and `id`)
    /// used at one place is written inline, one used at several places (copies with the same
    /// id, which must be identical) is written as `{"$component_ref": id}` everywhere, its
    /// body once in the `$referenced_components` of the closest component all its uses pass
    /// through. Existing references and maps are expanded first; unused entries are kept at
    /// the root.
    pub fn from_value_normalized(value: &serde_json::Value) -> Result<Self, LoadError> {
        Self::normalize_with(value.clone(), &Reload::default())
    }

    fn normalize_with(value: serde_json::Value, reload: &Reload) -> Result<Self, LoadError> {
        reload.load(&lay_out(value)?)
    }

    /// Decodes a parsed tree (diagnostics have no line and column: there is no text).
    pub fn from_tree(tree: Node) -> Result<Self, LoadError> {
        let depth = depth_of(&tree);
        Self::decode(tree, depth, Origin::Unknown, &Registry::default())
    }

    /// Decodes a tree; deep trees are decoded on a thread with a large stack.
    fn decode(
        tree: Node,
        depth: usize,
        origin: Origin<'_>,
        registry: &Registry,
    ) -> Result<Self, LoadError> {
        let base = Path::ROOT;
        let result = if depth > DEEP {
            on_big_stack(depth, move || {
                decode_document(tree, origin, &base, registry)
            })
        } else {
            decode_document(tree, origin, &base, registry)
        };
        result.map(|mut doc| {
            doc.depth = depth;
            doc
        })
    }

    /// The document with every reference replaced by (a copy of) the component it names
    /// and no `$referenced_components`: the same component appears at every place it is used.
    /// Secrets are redacted as on writing.
    ///
    /// When the copies would make more than ten times the document's values (and more than
    /// two million: shared components referencing shared components, many times over), the
    /// document is returned in its own layout, references kept; `split` and `join` report
    /// `too-large` there.
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
        let all = self.to_value_with(&WriteOptions::new().include_secrets(true));
        Self::normalize_with(all, &self.reload)
    }

    /// What pyagentspec 26.3.1 writes for this document once it has loaded it: the
    /// document in its layout ([`Document::normalized`]), with the `inputs` and `outputs` it
    /// leaves unset (`null`) and the empty `branches` of its nodes inferred as pyagentspec
    /// infers them on loading (the rules of [`Document::at_min_version`], which leave
    /// `null` where they have none). `agentspec fmt` writes this.
    ///
    /// Inferring reads every component inline, so a document whose shared components would
    /// make more than ten times its values once inlined is refused (`too-large`), as
    /// [`Document::expanded`] stops; its layout alone is then [`Document::normalized`].
    pub fn as_pyagentspec_writes(&self) -> Result<Self, LoadError>
    where
        C: Sync,
    {
        let all = self.to_value_with(&WriteOptions::new().include_secrets(true));
        if !crate::infer::leaves_out_inferred(&all) {
            // nothing to infer: the layout alone, which needs no inlining
            return Self::normalize_with(all, &self.reload);
        }
        let relaid = lay_out_with(&all, crate::infer::infer)?;
        self.reload.load(&relaid)
    }

    /// Whether the document is what pyagentspec 26.3.1 writes for it already: in its layout,
    /// with nothing left to infer, so that [`Document::as_pyagentspec_writes`] would give back
    /// a document equal to this one (up to the order of maps, which it keeps). A document
    /// pyagentspec wrote is. Linear in the document and much lighter than a layout: only the
    /// document's skeleton is built (its components, references and unset inputs and
    /// outputs), never a second document.
    pub fn is_as_pyagentspec_writes(&self) -> bool
    where
        C: Sync,
    {
        let all = WriteOptions::new().include_secrets(true);
        let sink = crate::syntax::skeleton::SkeletonSink::for_text(self.loaded_text_len());
        let skeleton = self.write_into(sink, &all).finish();
        skeleton_is_laid_out(&skeleton)
    }

    /// Writes the document as [`Document::to_string_with`] does and, in the same pass over
    /// it, finds what [`Document::is_as_pyagentspec_writes`] and
    /// [`Document::redacted_secrets`] would: one walk where the three take three (what
    /// `agentspec fmt` does with a document pyagentspec wrote).
    pub fn write_checked(&self, output: Output, options: &WriteOptions) -> Written
    where
        C: Sync,
    {
        let capacity = self.loaded_len(output);
        let (text, checked) = match output {
            Output::JsonPretty => {
                let writer = JsonWriter::pretty().with_capacity(capacity);
                let (w, checked) = self.write_and_check(writer, options);
                (w.finish(), checked)
            }
            Output::JsonCompact => {
                let writer = JsonWriter::compact().with_capacity(capacity);
                let (w, checked) = self.write_and_check(writer, options);
                (w.finish(), checked)
            }
            Output::Yaml => {
                let writer = YamlWriter::new().with_capacity(capacity);
                let (w, checked) = self.write_and_check(writer, options);
                (w.finish(), checked)
            }
        };
        Written {
            text,
            is_as_pyagentspec_writes: checked.is_as_pyagentspec_writes,
            redacted_secrets: checked.redacted_secrets,
        }
    }

    /// As [`Document::write_checked`], with the text handed to `out` in pieces as it is
    /// written (together, in order, the text `write_checked` gives) rather than held whole:
    /// for a digest or a file, a large document is never in memory twice. JSON comes in
    /// pieces of about 16 KiB, YAML in one.
    ///
    /// ```
    /// use agentspec_types::{Document, Output, WriteOptions};
    /// let doc = Document::from_json_str(
    ///     r#"{"component_type": "ServerTool", "id": "inc", "name": "inc",
    ///         "description": null, "metadata": {}, "inputs": [], "outputs": [],
    ///         "requires_confirmation": false, "agentspec_version": "26.1.0"}"#,
    /// )?;
    /// let mut text = String::new();
    /// let checked = doc.write_checked_to(Output::JsonCompact, &WriteOptions::new(), |piece| {
    ///     text.push_str(piece)
    /// });
    /// assert_eq!(text, doc.to_json_compact());
    /// assert!(checked.is_as_pyagentspec_writes);
    /// # Ok::<(), agentspec_types::LoadError>(())
    /// ```
    pub fn write_checked_to(
        &self,
        output: Output,
        options: &WriteOptions,
        mut out: impl FnMut(&str),
    ) -> Checked
    where
        C: Sync,
    {
        use crate::syntax::json::JsonPieces;
        let writer = match output {
            Output::JsonPretty => JsonWriter::pretty(),
            Output::JsonCompact => JsonWriter::compact(),
            Output::Yaml => {
                let writer = YamlWriter::new().with_capacity(self.loaded_len(output));
                let (w, checked) = self.write_and_check(writer, options);
                out(&w.finish());
                return checked;
            }
        };
        let (pieces, checked) = self.write_and_check(JsonPieces::new(writer, &mut out), options);
        pieces.finish();
        checked
    }

    /// Writes the document into `sink` and, in the same pass, finds whether it is laid out
    /// and where secrets were left out.
    fn write_and_check<S: Sink>(&self, sink: S, options: &WriteOptions) -> (S, Checked)
    where
        C: Sync,
    {
        use crate::syntax::sink::{FindSink, Tee};
        use crate::syntax::skeleton::SkeletonSink;
        let found = Tee(
            SkeletonSink::for_text(self.loaded_text_len()),
            FindSink::redacted(),
        );
        let Tee(sink, Tee(skeleton, redacted)) = self.write_into(Tee(sink, found), options);
        let checked = Checked {
            is_as_pyagentspec_writes: skeleton_is_laid_out(&skeleton.finish()),
            redacted_secrets: if options.include_secrets {
                Vec::new()
            } else {
                redacted.found
            },
        };
        (sink, checked)
    }

    /// The JSON pointers of the secrets that writing with `options` leaves out (written as
    /// `{"$component_ref": "<id>.<field>"}` placeholders), in document order: none when the
    /// options include secrets. One pass over the document, which is not written.
    pub fn redacted_secrets(&self, options: &WriteOptions) -> Vec<String>
    where
        C: Sync,
    {
        if options.include_secrets {
            return Vec::new();
        }
        self.write_into(crate::syntax::sink::FindSink::redacted(), options)
            .found
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
        let value = self.to_value_with(&all);
        let laid_out = layout::lay_out(&value, &value, &supplied, &HashMap::new(), true)?;
        self.reload.load(&laid_out)
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
        let value = self.to_value_with(&all);
        let (no_components, no_cut) = (HashMap::new(), HashMap::new());
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
            let Some(body) = layout::find_component(&value, id) else {
                return Err(split_error(format!(
                    "the document has no component with id `{id}`"
                )));
            };
            let mut body = layout::lay_out(body, &value, &no_components, &no_cut, false)?;
            if let serde_json::Value::Object(map) = &mut body {
                map.insert(
                    "agentspec_version".into(),
                    serde_json::Value::String(self.version.to_string()),
                );
            }
            components.insert(key, self.reload.load(&body)?);
            keys.insert(id.to_owned(), key.to_owned());
        }
        let laid_out = layout::lay_out(&value, &value, &no_components, &keys, false)?;
        let registry = Registry {
            types: components.registry().types,
            ..self.reload.registry()
        };
        let main = Reload::load_with(&laid_out, &registry)?;
        Ok((main, components))
    }

    /// This document as the bundled types read it: itself when it is of them, else loaded
    /// again from its value, with the plugins it was loaded with.
    pub(crate) fn as_bundled(&self) -> Result<std::borrow::Cow<'_, crate::Document>, LoadError>
    where
        C: Sync + 'static,
    {
        if let Some(doc) = (self as &dyn std::any::Any).downcast_ref::<crate::Document>() {
            return Ok(std::borrow::Cow::Borrowed(doc));
        }
        let value = self.to_value_with(&WriteOptions::new().include_secrets(true));
        self.reload.load(&value).map(std::borrow::Cow::Owned)
    }

    /// The root component.
    pub fn root(&self) -> &C {
        &self.root
    }

    /// The root component, to change it (the document then no longer locates diagnostics
    /// in the text it was loaded from).
    pub fn root_mut(&mut self) -> &mut C {
        self.source = None;
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

    /// Sets the version the document is written at (what validation found at load is then
    /// found again; a kept text still locates it).
    pub fn set_agentspec_version(&mut self, version: Version) {
        self.version = version;
        if self
            .source
            .as_ref()
            .is_some_and(|s| !matches!(s.text, LoadedText::Owned(_)))
        {
            self.source = None;
        }
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

    /// Every component written inline in the document, as [`Document::components`] gives
    /// them, each with its JSON pointer in the document as written (to report a problem of a
    /// component where it stands).
    pub fn components_at(&self) -> Vec<(String, &dyn ComponentInfo)>
    where
        C: Sync,
    {
        let mut out = Vec::new();
        self.walk_at(|at, visit| {
            if let Visit::Component(c) = visit {
                out.push((at.to_owned(), c));
            }
        });
        out
    }

    /// The keys Agent Spec does not define that components kept when the document was read,
    /// as JSON pointers, in document order (what [`WriteOptions::drop_unknown`] leaves out).
    pub fn unknown_keys(&self) -> Vec<String>
    where
        C: Sync,
    {
        let mut out = Vec::new();
        self.walk_at(|at, visit| {
            if let Visit::Component(c) = visit
                && let Some(keys) = c.unknown_keys()
            {
                for key in keys.keys() {
                    let mut pointer = at.to_owned();
                    crate::diagnostic::push_pointer_token(&mut pointer, key);
                    out.push(pointer);
                }
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

    /// [`Document::components`] and [`Document::referenced_components`] in one walk.
    pub(crate) fn components_and_referenced(
        &self,
    ) -> (Vec<&dyn ComponentInfo>, Vec<&IndexMap<String, C>>)
    where
        C: Sync,
    {
        let (mut components, mut referenced) = (Vec::new(), Vec::new());
        self.walk(|visit| match visit {
            Visit::Component(c) => components.push(c),
            Visit::Referenced(map) => referenced.push(map),
        });
        (components, referenced)
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

    /// Walks the document with each visit's JSON pointer (on a large stack when it is deep).
    fn walk_at<'a>(&'a self, mut f: impl FnMut(&str, Visit<'a, C>) + Send)
    where
        C: Sync,
    {
        let mut at = String::new();
        if self.depth > DEEP {
            on_big_stack(self.depth, || self.root.walk_at(&mut at, &mut f));
        } else {
            self.root.walk_at(&mut at, &mut f);
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
    #[doc(hidden)]
    pub fn write(&self, sink: &mut dyn Sink) {
        self.write_with(sink, &WriteOptions::new());
    }

    /// Streams the document into `sink` with `options`.
    #[doc(hidden)]
    pub fn write_with(&self, sink: &mut dyn Sink, options: &WriteOptions) {
        self.encode(sink, &options.encoder(self.version));
    }

    /// A `non-finite-number` error for every NaN or infinity the document holds: only a
    /// document built or changed in code can (the loaders refuse them), and its writers
    /// write `null` there, as JSON has no such numbers.
    pub(crate) fn non_finite(&self) -> Vec<Diagnostic>
    where
        C: Sync,
    {
        let sink = self.write_into(
            crate::syntax::sink::FindSink::non_finite(),
            &WriteOptions::new(),
        );
        sink.found
            .into_iter()
            .map(|pointer| {
                let message = "NaN and infinities are not numbers JSON can hold: this value is \
                               written as null (set a finite number, or leave the field unset)";
                Diagnostic::error("non-finite-number", message, pointer, None)
            })
            .collect()
    }

    /// Writes the root object at `cx.version`.
    fn encode(&self, sink: &mut dyn Sink, cx: &Encoder) {
        sink.begin_object();
        self.root.encode_body(sink, cx);
        sink.key("agentspec_version");
        sink.str(&cx.version.to_string());
        sink.end_object();
    }

    fn write_into<S: Sink>(&self, sink: S, options: &WriteOptions) -> S
    where
        C: Sync,
    {
        self.write_into_with(sink, options.encoder(self.version))
    }

    fn write_into_with<S: Sink>(&self, mut sink: S, cx: Encoder) -> S
    where
        C: Sync,
    {
        if self.depth > DEEP {
            on_big_stack(self.depth, move || {
                self.encode(&mut sink, &cx);
                sink
            })
        } else {
            self.encode(&mut sink, &cx);
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

    /// The length of the text the document was loaded from, in any format (0: none).
    fn loaded_text_len(&self) -> usize {
        self.source.as_ref().map_or(0, |s| s.len)
    }

    /// Room for the text loaded in the same format as `output`, which is what is written
    /// most often.
    fn loaded_len(&self, output: Output) -> usize {
        self.source
            .as_ref()
            .filter(|s| (s.format == Format::Yaml) == (output == Output::Yaml))
            .map_or(0, |s| s.len + 1)
    }

    /// Writes the document as `output` with `options`.
    pub fn to_string_with(&self, output: Output, options: &WriteOptions) -> String
    where
        C: Sync,
    {
        let loaded = self.loaded_len(output);
        match output {
            Output::JsonPretty => self
                .write_into(JsonWriter::pretty().with_capacity(loaded), options)
                .finish(),
            Output::JsonCompact => self
                .write_into(JsonWriter::compact().with_capacity(loaded), options)
                .finish(),
            Output::Yaml => self
                .write_into(YamlWriter::new().with_capacity(loaded), options)
                .finish(),
        }
    }
}

/// Fills the offset, line and column of diagnostics that have only a pointer (those of
/// [`Document::validate`]) from the source text the document was loaded from.
///
/// The text is parsed again only when some diagnostic lacks an offset. The work is linear in
/// the text and the pointers: the pointers are gathered into a trie, which is walked once
/// beside the tree. A pointer that leads past the tree is placed at its deepest existing
/// value.
pub fn locate(diagnostics: &mut [Diagnostic], text: &str, format: Format) {
    if diagnostics.iter().all(|d| d.offset.is_some()) {
        return;
    }
    let Ok((tree, ..)) = parse_with_depth(text, format) else {
        return;
    };
    // the trie of unescaped pointer tokens; each trie node lists the diagnostics ending there
    struct Step {
        children: std::collections::HashMap<String, usize>,
        ends: Vec<usize>,
    }
    let mut trie = vec![Step {
        children: Default::default(),
        ends: Vec::new(),
    }];
    for (i, d) in diagnostics.iter().enumerate() {
        if d.offset.is_some() {
            continue;
        }
        let mut at = 0;
        for token in d.pointer.split('/').skip(1) {
            let token = token.replace("~1", "/").replace("~0", "~");
            at = match trie[at].children.get(&token) {
                Some(&next) => next,
                None => {
                    trie.push(Step {
                        children: Default::default(),
                        ends: Vec::new(),
                    });
                    let next = trie.len() - 1;
                    trie[at].children.insert(token, next);
                    next
                }
            };
        }
        trie[at].ends.push(i);
    }
    let mut offsets: Vec<(usize, u32)> = Vec::new();
    let mut stack = vec![(&tree, 0usize, tree.offset)];
    while let Some((node, step, offset)) = stack.pop() {
        offsets.extend(trie[step].ends.iter().map(|&i| (i, offset)));
        let children = &trie[step].children;
        if children.is_empty() {
            continue;
        }
        let mut found = std::collections::HashSet::new();
        match &node.value {
            Value::Object(entries) => {
                for e in entries.iter() {
                    if let Some(&next) = children.get(e.key.as_str())
                        && found.insert(next)
                    {
                        stack.push((&e.value, next, e.key_offset));
                    }
                }
            }
            Value::Array(items) => {
                for (token, &next) in children {
                    if let Some(item) = token.parse::<usize>().ok().and_then(|i| items.get(i)) {
                        found.insert(next);
                        stack.push((item, next, item.offset));
                    }
                }
            }
            _ => {}
        }
        // the pointers that go past the tree stop here
        let mut lost: Vec<usize> = children
            .values()
            .copied()
            .filter(|n| !found.contains(n))
            .collect();
        while let Some(n) = lost.pop() {
            offsets.extend(trie[n].ends.iter().map(|&i| (i, offset)));
            lost.extend(trie[n].children.values().copied());
        }
    }
    for &(i, offset) in &offsets {
        diagnostics[i].offset = Some(offset as usize);
    }
    crate::diagnostic::locate_by_sweep(text, diagnostics, offsets.into_iter().map(|(i, _)| i));
}

/// Whether a skeleton ([`crate::syntax::skeleton::SkeletonSink`]) is what pyagentspec's
/// layout gives, with nothing left to infer.
fn skeleton_is_laid_out(skeleton: &crate::syntax::skeleton::Skeleton) -> bool {
    if !skeleton.complete() {
        // not seen whole: the layout decides
        return false;
    }
    if skeleton.lacks_an_id() {
        // the layout gives it a fresh one
        return false;
    }
    let skeleton = skeleton.root();
    if crate::infer::leaves_out_inferred(skeleton) {
        return false;
    }
    // what the layout would give, up to the order of maps (as documents compare)
    layout::is_laid_out(skeleton)
}

/// A document written, with what was found while writing it ([`Document::write_checked`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Written {
    /// The text, as [`Document::to_string_with`] writes it.
    pub text: String,
    /// Whether the document is in pyagentspec's layout already
    /// ([`Document::is_as_pyagentspec_writes`]).
    pub is_as_pyagentspec_writes: bool,
    /// The pointers of the secrets written as placeholders
    /// ([`Document::redacted_secrets`]): none when the options include secrets.
    pub redacted_secrets: Vec<String>,
}

/// What [`Document::write_checked_to`] finds while it writes a document.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Checked {
    /// Whether the document is in pyagentspec's layout already
    /// ([`Document::is_as_pyagentspec_writes`]).
    pub is_as_pyagentspec_writes: bool,
    /// The pointers of the secrets written as placeholders
    /// ([`Document::redacted_secrets`]): none when the options include secrets.
    pub redacted_secrets: Vec<String>,
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
    drop_unknown: bool,
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

    /// Leaves out the keys Agent Spec does not define that components kept when they were
    /// read (written back by default, so that nothing read is lost; pyagentspec drops them).
    /// [`Document::unknown_keys`] lists them.
    pub fn drop_unknown(mut self, drop: bool) -> Self {
        self.drop_unknown = drop;
        self
    }

    /// Whether the values of sensitive fields are written.
    pub fn includes_secrets(&self) -> bool {
        self.include_secrets
    }

    /// Whether the keys Agent Spec does not define are left out.
    pub fn drops_unknown(&self) -> bool {
        self.drop_unknown
    }

    /// The encoder writing at `version` with these options.
    pub(crate) fn encoder(&self, version: Version) -> Encoder {
        let mut cx = Encoder::new(version, self.include_secrets);
        cx.drop_unknown = self.drop_unknown;
        cx
    }
}

/// `value` (a document or component written with its secrets) in pyagentspec's layout:
/// every component has an id, and one used at several places (copies with the same id) is
/// written once, under the `$referenced_components` of the component that owns all its uses,
/// and referenced elsewhere.
pub(crate) fn lay_out(mut value: serde_json::Value) -> Result<serde_json::Value, LoadError> {
    layout::give_fresh_ids(&mut value);
    Ok(layout::lay_out(
        &value,
        &value,
        &HashMap::new(),
        &HashMap::new(),
        true,
    )?)
}

/// [`lay_out`], with `edit` applied to the expanded tree (every component inline) first.
pub(crate) fn lay_out_with(
    value: &serde_json::Value,
    edit: impl FnOnce(&mut serde_json::Value),
) -> Result<serde_json::Value, LoadError> {
    let mut value = value.clone();
    layout::give_fresh_ids(&mut value);
    let (mut expanded, unused) = layout::expand(&value, &HashMap::new())?;
    edit(&mut expanded);
    let mut laid_out = layout::lay_out(
        &expanded,
        &expanded,
        &HashMap::new(),
        &HashMap::new(),
        false,
    )?;
    layout::keep_entries(&mut laid_out, unused);
    Ok(laid_out)
}

/// Runs `f` with a stack that fits `depth` levels of nesting, even in a debug build: on the
/// caller's own thread, with a new stack segment (stacker) when less than that is left. The
/// segment is reserved, and only the pages used are committed.
pub(crate) fn on_big_stack<T>(depth: usize, f: impl FnOnce() -> T) -> T {
    let stack = (16 << 20) + depth * (96 << 10);
    stacker::maybe_grow(stack, stack, f)
}
