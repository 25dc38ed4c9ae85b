//! Disaggregated components: a components file `{"$referenced_components": {id: body}}`
//! whose bodies are each written as their own root (with their own `agentspec_version`),
//! supplied when loading the main document that references them.

use std::path::Path as FsPath;

use indexmap::IndexMap;

use crate::check::Registry;
use crate::codec::{ComponentSet, Path};
use crate::diagnostic::{Diagnostic, LineIndex};
use crate::document::{Document, LoadError, Output, WriteOptions, decode_document, on_big_stack};
use crate::syntax::json::JsonWriter;
use crate::syntax::sink::Sink;
use crate::syntax::tree::Value;
use crate::syntax::value::ValueSink;
use crate::syntax::yaml::YamlWriter;
use crate::syntax::{Format, Source, parse_with_depth};

/// The components of a components file, by id, each with its own version.
#[derive(Debug, Clone, PartialEq)]
pub struct Components<C> {
    entries: IndexMap<String, Document<C>>,
    warnings: Vec<Diagnostic>,
}

impl<C> Default for Components<C> {
    fn default() -> Self {
        Components {
            entries: IndexMap::new(),
            warnings: Vec::new(),
        }
    }
}

impl<C: ComponentSet + Send + Sync> Components<C> {
    /// No components.
    pub fn new() -> Self {
        Components::default()
    }

    /// Loads a JSON components file.
    pub fn from_json_str(text: &str) -> Result<Self, LoadError> {
        Self::from_str_as(text, Format::Json)
    }

    /// Loads a YAML components file.
    pub fn from_yaml_str(text: &str) -> Result<Self, LoadError> {
        Self::from_str_as(text, Format::Yaml)
    }

    /// Loads a components file from disk (format from the extension, else sniffed).
    pub fn from_path(path: impl AsRef<FsPath>) -> Result<Self, LoadError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| LoadError::io(path.display(), e))?;
        Self::from_str_as(
            &text,
            Format::from_path(path).unwrap_or_else(|| Format::sniff(&text)),
        )
    }

    /// Loads a components file: an object whose only key is `$referenced_components`; each
    /// entry is loaded as a document of its own.
    pub fn from_str_as(text: &str, format: Format) -> Result<Self, LoadError> {
        let index = LineIndex::new(text);
        let locate = |diagnostics| index.locate_all(diagnostics);
        let (tree, depth, parsed) =
            parse_with_depth(text, format).map_err(|d| LoadError::new(locate(d)))?;
        let source = Source { text, format };
        let mut diagnostics = parsed;
        let mut out = Components::new();
        let Value::Object(root) = tree.value else {
            let found = tree.value.type_name();
            let message = format!(
                "a components file is an object `{{\"$referenced_components\": {{...}}}}`, found {found}"
            );
            let d = Diagnostic::error("invalid-type", message, "", Some(tree.offset as usize));
            return Err(LoadError::new(locate(vec![d])));
        };
        let mut map = None;
        for entry in root {
            if entry.key == "$referenced_components" {
                map = Some(entry.value);
            } else {
                let message = format!(
                    "a components file holds only `$referenced_components`; `{}` is not allowed beside it",
                    entry.key
                );
                let mut pointer = String::new();
                crate::diagnostic::push_pointer_token(&mut pointer, &entry.key);
                diagnostics.push(Diagnostic::error(
                    "unknown-field",
                    message,
                    pointer,
                    Some(entry.key_offset as usize),
                ));
            }
        }
        let Some(map) = map else {
            let d = Diagnostic::error(
                "missing-field",
                "a components file needs `$referenced_components`",
                "",
                Some(tree.offset as usize),
            );
            return Err(LoadError::new(locate(vec![d])));
        };
        let Value::Object(entries) = map.value else {
            let d = Diagnostic::error(
                "invalid-type",
                "`$referenced_components` is an object: id → component",
                "/$referenced_components",
                Some(map.offset as usize),
            );
            return Err(LoadError::new(locate(vec![d])));
        };
        for entry in entries {
            let (key, value) = (entry.key, entry.value);
            let run = || {
                let base = Path::ROOT;
                let map_path = base.key("$referenced_components");
                decode_document::<C>(
                    value,
                    crate::check::Origin::Text(source),
                    &map_path.key(&key),
                    &Registry::default(),
                )
            };
            let decoded = if depth > crate::document::DEEP {
                on_big_stack(depth, run)
            } else {
                run()
            };
            match decoded {
                Ok(mut doc) => {
                    doc.set_depth(depth);
                    diagnostics.extend(doc.take_warnings());
                    out.entries.insert(key.into(), doc);
                }
                Err(e) => diagnostics.extend(e.diagnostics),
            }
        }
        let diagnostics = locate(diagnostics);
        if diagnostics.iter().any(Diagnostic::is_error) {
            return Err(LoadError::new(diagnostics));
        }
        out.warnings = diagnostics;
        Ok(out)
    }

    /// The component stored under `id`, as the document it was loaded as.
    pub fn get(&self, id: &str) -> Option<&Document<C>> {
        self.entries.get(id)
    }

    /// The ids, in file order.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }

    /// How many components there are.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Adds (or replaces) the component stored under `id`.
    pub fn insert(&mut self, id: impl Into<String>, component: Document<C>) {
        self.entries.insert(id.into(), component);
    }

    /// Stores the component `from` under the id `to` instead (to match the references of a
    /// main document that names it differently). The order of the ids is kept.
    pub fn rename(&mut self, from: &str, to: &str) -> Result<(), RenameError> {
        if self.entries.contains_key(to) {
            return Err(RenameError::Taken(to.to_owned()));
        }
        let Some(index) = self.entries.get_index_of(from) else {
            return Err(RenameError::Missing {
                id: from.to_owned(),
                ids: self.ids().map(str::to_owned).collect(),
            });
        };
        let (_, doc) = self
            .entries
            .shift_remove_index(index)
            .expect("index just found");
        self.entries.shift_insert(index, to.to_owned(), doc);
        Ok(())
    }

    /// The warnings found while loading.
    pub fn warnings(&self) -> &[Diagnostic] {
        &self.warnings
    }

    pub(crate) fn registry(&self) -> Registry {
        Registry {
            types: self
                .entries
                .iter()
                .map(|(id, doc)| {
                    // plugins may stand in any family that admits them: no check by name
                    let root = doc.root();
                    let ty = if root.as_plugin().is_some() {
                        ""
                    } else {
                        root.component_type()
                    };
                    (id.clone(), ty.to_owned())
                })
                .collect(),
            values: None,
            keep_unknown: false,
            plugins: None,
        }
    }

    /// Streams the file: `{"$referenced_components": {id: body with its version}}`.
    pub fn write_with(&self, sink: &mut dyn Sink, options: &WriteOptions) {
        sink.begin_object();
        sink.key("$referenced_components");
        sink.begin_object();
        for (id, doc) in &self.entries {
            sink.key(id);
            doc.write_with(sink, options);
        }
        sink.end_object();
        sink.end_object();
    }

    fn write_into<S: Sink + Send>(&self, mut sink: S, options: &WriteOptions) -> S {
        let depth = self
            .entries
            .values()
            .map(Document::depth)
            .max()
            .unwrap_or(0)
            + 2;
        if depth > crate::document::DEEP {
            on_big_stack(depth, || {
                self.write_with(&mut sink, options);
                sink
            })
        } else {
            self.write_with(&mut sink, options);
            sink
        }
    }

    /// Pretty JSON, as pyagentspec writes it, secrets redacted.
    pub fn to_json_pretty(&self) -> String {
        self.to_string_with(Output::JsonPretty, &WriteOptions::new())
    }

    /// Block-style YAML, secrets redacted.
    pub fn to_yaml(&self) -> String {
        self.to_string_with(Output::Yaml, &WriteOptions::new())
    }

    /// The file as a `serde_json::Value`, secrets redacted.
    pub fn to_value(&self) -> serde_json::Value {
        self.write_into(ValueSink::new(), &WriteOptions::new())
            .finish()
    }

    /// Writes the file as `output` with `options`.
    pub fn to_string_with(&self, output: Output, options: &WriteOptions) -> String {
        match output {
            Output::JsonPretty => self.write_into(JsonWriter::pretty(), options).finish(),
            Output::JsonCompact => self.write_into(JsonWriter::compact(), options).finish(),
            Output::Yaml => self.write_into(YamlWriter::new(), options).finish(),
        }
    }
}

/// Why [`Components::rename`] could not rename a component.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RenameError {
    /// The new id is already used.
    #[error("there is already a component with id `{0}`")]
    Taken(String),
    /// No component has the old id.
    #[error("there is no component with id `{id}` (ids: {})", ids.join(", "))]
    Missing {
        /// The id asked for.
        id: String,
        /// The ids there are.
        ids: Vec<String>,
    },
}

/// Options for loading a document.
#[derive(Debug)]
pub struct LoadOptions<'a, C> {
    pub(crate) components: Option<&'a Components<C>>,
    pub(crate) values: Option<&'a Values>,
    pub(crate) keep_unknown: bool,
    pub(crate) plugins: Option<&'a crate::codec::plugin::PluginRegistry>,
    pub(crate) levels: Option<&'a crate::diagnostic::Levels>,
    pub(crate) validate_at_load: bool,
}

impl<C> Default for LoadOptions<'_, C> {
    fn default() -> Self {
        LoadOptions {
            components: None,
            values: None,
            keep_unknown: false,
            levels: None,
            plugins: None,
            validate_at_load: true,
        }
    }
}

impl<'a, C: ComponentSet + Send + Sync> LoadOptions<'a, C> {
    /// The defaults: nothing supplied.
    pub fn new() -> Self {
        LoadOptions::default()
    }

    /// Components the document references but does not hold (a components file).
    pub fn components(mut self, components: &'a Components<C>) -> Self {
        self.components = Some(components);
        self
    }

    /// Values of the sensitive fields the document holds as `<id>.<field>` placeholders.
    /// Once values are supplied, a placeholder without a value is an error (a warning when
    /// none are supplied).
    pub fn values(mut self, values: &'a Values) -> Self {
        self.values = Some(values);
        self
    }

    pub(crate) fn registry(&self) -> Registry {
        let mut registry = self
            .components
            .map(Components::registry)
            .unwrap_or_default();
        registry.values = self.values.map(|v| v.0.clone());
        registry.keep_unknown = self.keep_unknown;
        registry.plugins = self.plugins.cloned();
        registry
    }

    /// The plugin component types the document may hold (see `#[derive(Component)]`).
    pub fn plugins(mut self, plugins: &'a crate::codec::plugin::PluginRegistry) -> Self {
        self.plugins = Some(plugins);
        self
    }

    /// Keeps a component whose type nothing defines (a plugin component with no plugin
    /// registered) as a [`RawComponent`](crate::plugin::RawComponent) in the family's
    /// `Plugin` variant, written back unchanged, instead of failing with
    /// `plugin-not-registered` or `unknown-component-type`. A built-in type in the wrong
    /// place is still an error.
    pub fn keep_unknown(mut self, keep: bool) -> Self {
        self.keep_unknown = keep;
        self
    }

    /// Whether a document of the bundled types loaded from a borrowed string is validated at
    /// load (the default), so that [`Document::validate`](crate::Document::validate) can
    /// locate what it finds in the text. `false` saves that work (about half a load) for a
    /// program that does not validate the document, such as a formatter; `validate()` then
    /// locates only what the document writes back identically.
    pub fn validate_at_load(mut self, validate: bool) -> Self {
        self.validate_at_load = validate;
        self
    }

    /// Rule levels for the diagnostics of loading: a denied warning fails the load, an allowed
    /// one is not reported (see [`Levels`](crate::diagnostic::Levels)).
    pub fn levels(mut self, levels: &'a crate::diagnostic::Levels) -> Self {
        self.levels = Some(levels);
        self
    }

    /// A loaded document, or its error, with the levels applied to its warnings.
    pub(crate) fn leveled(
        &self,
        loaded: Result<Document<C>, LoadError>,
    ) -> Result<Document<C>, LoadError> {
        let Some(levels) = self.levels else {
            return loaded;
        };
        let mut doc = loaded.map_err(|mut e| {
            levels.apply(&mut e.diagnostics);
            e
        })?;
        let mut warnings = std::mem::take(&mut doc.warnings);
        levels.apply(&mut warnings);
        if warnings.iter().any(Diagnostic::is_error) {
            return Err(LoadError::new(warnings));
        }
        doc.warnings = warnings;
        Ok(doc)
    }
}

/// Values of sensitive fields, by placeholder `"<component id>.<field>"`: a values file is a
/// JSON or YAML object of them (pyagentspec's `components_registry` of plain values).
/// `Debug` shows the placeholders, never the values.
#[derive(Clone, Default, PartialEq)]
pub struct Values(serde_json::Map<String, serde_json::Value>);

impl std::fmt::Debug for Values {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.0.keys()).finish()
    }
}

impl Values {
    /// No values.
    pub fn new() -> Self {
        Values::default()
    }

    /// Reads a values file (a JSON or YAML object).
    pub fn from_str_as(text: &str, format: Format) -> Result<Self, LoadError> {
        let index = LineIndex::new(text);
        let located = |mut d: Diagnostic| {
            d.locate(&index);
            LoadError::new(vec![d])
        };
        let (tree, ..) = parse_with_depth(text, format).map_err(|mut d| located(d.remove(0)))?;
        let offset = tree.offset;
        match crate::syntax::value::node_to_value(tree) {
            serde_json::Value::Object(map) => Ok(Values(map)),
            other => {
                let found = match other {
                    serde_json::Value::Array(_) => "array",
                    serde_json::Value::String(_) => "string",
                    _ => "scalar",
                };
                let message = format!(
                    "a values file is an object of `\"<component id>.<field>\": value`, found {found}"
                );
                Err(located(Diagnostic::error(
                    "invalid-type",
                    message,
                    "",
                    Some(offset as usize),
                )))
            }
        }
    }

    /// Reads a values file from disk (format from the extension, else sniffed).
    pub fn from_path(path: impl AsRef<FsPath>) -> Result<Self, LoadError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| LoadError::io(path.display(), e))?;
        Self::from_str_as(
            &text,
            Format::from_path(path).unwrap_or_else(|| Format::sniff(&text)),
        )
    }

    /// Sets the value of `placeholder` (`"<component id>.<field>"`).
    pub fn insert(&mut self, placeholder: impl Into<String>, value: serde_json::Value) {
        self.0.insert(placeholder.into(), value);
    }

    /// The placeholders that have a value.
    pub fn placeholders(&self) -> impl Iterator<Item = &str> {
        self.0.keys().map(String::as_str)
    }
}
