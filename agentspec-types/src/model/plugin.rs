//! Plugin components as values: what a plugin component type provides, a plugin standing
//! where its family may stand, and a component of an unknown type kept as read.

use std::any::Any;

use crate::JsonObject;
use crate::model::encoder::Encoder;
use crate::model::walk::{ErasedVisit, Visit, Walk};
use crate::syntax::sink::Sink;
use crate::version::Version;

/// What a plugin component type provides to load, write and inspect it.
pub trait PluginComponent: Any + Send + Sync + std::fmt::Debug {
    /// Its `component_type`.
    fn component_type(&self) -> &str;
    /// Its id.
    fn id(&self) -> &str;
    /// Its name.
    fn name(&self) -> &str;
    /// The first Agent Spec version that has it (plugins: 25.4.1 unless they say).
    fn since(&self) -> Version {
        Version::new(25, 4, 1)
    }
    #[doc(hidden)]
    /// Writes every key of the component, `component_type` first, without the braces.
    fn encode_body(&self, sink: &mut dyn Sink, cx: &Encoder);
    #[doc(hidden)]
    /// A copy, boxed.
    fn clone_box(&self) -> Box<dyn PluginComponent>;
    #[doc(hidden)]
    /// Whether `other` is the same component.
    fn eq_dyn(&self, other: &dyn PluginComponent) -> bool;
    /// Itself, to downcast.
    fn as_any(&self) -> &dyn Any;
    #[doc(hidden)]
    /// Registers its type in the plugin registry given as `Any` (`#[derive(Component)]`
    /// does), so that a document built in code can be read again with the plugins it holds.
    fn register_type(&self) -> Option<fn(&mut dyn Any)> {
        None
    }
    #[doc(hidden)]
    /// Calls `f` for every component held in its fields, at any depth, and for every
    /// non-empty `$referenced_components` map before its entries (the maps' component set
    /// erased: a walk over a set of components sees the maps of that set).
    fn visit_components<'a>(&'a self, f: &mut dyn FnMut(ErasedVisit<'a>)) {
        let _ = f;
    }
    #[doc(hidden)]
    /// As [`visit_components`](PluginComponent::visit_components), with the JSON pointer of
    /// each in the written document; `at` is the component's pointer.
    fn visit_components_at<'a>(
        &'a self,
        at: &mut String,
        f: &mut dyn FnMut(&str, ErasedVisit<'a>),
    ) {
        let _ = (at, f);
    }
    /// Its `inputs`, when it has them (those of the family it extends).
    fn inputs(&self) -> Option<&[JsonObject]> {
        None
    }
    /// Its `outputs`, when it has them.
    fn outputs(&self) -> Option<&[JsonObject]> {
        None
    }
    /// Its `branches`, when it has them.
    fn branches(&self) -> Option<&[String]> {
        None
    }
    /// The field written as `key`, to downcast to its Rust type.
    fn field(&self, key: &str) -> Option<&dyn Any> {
        let _ = key;
        None
    }
    /// The inputs, outputs and branches its other fields imply, which validation checks
    /// the written ones against (`#[component(io = path)]`); nothing by default.
    fn inferred_io(&self) -> InferredIo {
        InferredIo::default()
    }
}

/// What a plugin component's fields imply about its inputs, outputs and branches (titles
/// and branch names); `None` checks nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InferredIo {
    /// The titles of its inputs.
    pub inputs: Option<Vec<String>>,
    /// The titles of its outputs.
    pub outputs: Option<Vec<String>>,
    /// Its branches (nodes).
    pub branches: Option<Vec<String>>,
}

/// A plugin component, standing where its family may stand.
#[derive(Debug)]
pub struct Plugin(Box<dyn PluginComponent>);

impl Plugin {
    /// Wraps a plugin component.
    pub fn new(component: impl PluginComponent) -> Self {
        Plugin(Box::new(component))
    }

    /// The component.
    pub fn get(&self) -> &dyn PluginComponent {
        &*self.0
    }

    /// The component as its own type, when it is a `T`.
    pub fn downcast_ref<T: PluginComponent>(&self) -> Option<&T> {
        self.0.as_any().downcast_ref::<T>()
    }

    /// The component as read, when no plugin registers its type.
    pub fn raw(&self) -> Option<&RawComponent> {
        self.downcast_ref::<RawComponent>()
    }
}

impl Clone for Plugin {
    fn clone(&self) -> Self {
        Plugin(self.0.clone_box())
    }
}

impl PartialEq for Plugin {
    fn eq(&self, other: &Self) -> bool {
        self.0.eq_dyn(&*other.0)
    }
}

impl crate::ComponentInfo for Plugin {
    fn component_type(&self) -> &str {
        self.0.component_type()
    }
    fn id(&self) -> &str {
        self.0.id()
    }
    fn name(&self) -> &str {
        self.0.name()
    }
    fn as_any(&self) -> &dyn Any {
        self.0.as_any()
    }
    fn since(&self) -> Version {
        self.0.since()
    }
    fn as_plugin(&self) -> Option<&Plugin> {
        Some(self)
    }
    fn inputs(&self) -> Option<&[JsonObject]> {
        self.0.inputs()
    }
    fn outputs(&self) -> Option<&[JsonObject]> {
        self.0.outputs()
    }
    fn branches(&self) -> Option<&[String]> {
        self.0.branches()
    }
    fn field(&self, key: &str) -> Option<&dyn Any> {
        self.0.field(key)
    }
}

/// A walk visits the plugin component, then the components its fields hold and their
/// `$referenced_components` maps (the maps of the set `C`: those a plugin of that set holds).
impl<C: 'static> Walk<C> for Plugin {
    fn walk<'a>(&'a self, f: &mut dyn FnMut(Visit<'a, C>)) {
        f(Visit::Component(self));
        self.0.visit_components(&mut |v| {
            if let Some(v) = v.of::<C>() {
                f(v);
            }
        });
    }
    fn walk_at<'a>(&'a self, at: &mut String, f: &mut dyn FnMut(&str, Visit<'a, C>)) {
        f(at, Visit::Component(self));
        self.0.visit_components_at(at, &mut |pointer, v| {
            if let Some(v) = v.of::<C>() {
                f(pointer, v);
            }
        });
    }
}

/// A component of a type nothing defines, kept as read: written back key for key.
///
/// In a component the loader kept (or one marked with [`RawComponent::with_secret_fields`]), a
/// key that is a sensitive field of a component Agent Spec defines (`api_key`, `password`,
/// `sslkey`, …) is treated as one here too: its value is masked in `Debug`, and written as a
/// `<id>.<key>` placeholder unless secrets are included (the keys pyagentspec writes in clear,
/// such as `client_id`, are written as read).
#[derive(Clone, PartialEq)]
pub struct RawComponent {
    component_type: String,
    id: String,
    name: String,
    body: JsonObject,
    /// `inputs`, `outputs` and `branches` as read, when they are lists of their kind.
    inputs: Option<Vec<JsonObject>>,
    outputs: Option<Vec<JsonObject>>,
    branches: Option<Vec<String>>,
    /// The keys of `body` that are sensitive, with whether each is written in clear.
    secrets: Vec<(String, bool)>,
}

impl std::fmt::Debug for RawComponent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        struct Body<'a>(&'a RawComponent);
        impl std::fmt::Debug for Body<'_> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                let mut map = f.debug_map();
                for (key, value) in &self.0.body {
                    if self.0.secret(key).is_some() && !is_placeholder(value) {
                        map.entry(key, &format_args!("\"***\""));
                    } else {
                        map.entry(key, value);
                    }
                }
                map.finish()
            }
        }
        f.debug_struct("RawComponent")
            .field("component_type", &self.component_type)
            .field("id", &self.id)
            .field("body", &Body(self))
            .finish_non_exhaustive()
    }
}

/// Whether `value` is a `{"$component_ref": …}` placeholder.
fn is_placeholder(value: &serde_json::Value) -> bool {
    value
        .as_object()
        .is_some_and(|m| m.len() == 1 && m.contains_key("$component_ref"))
}

impl RawComponent {
    /// A raw component of `body`, an object with a string `component_type`.
    pub fn new(body: JsonObject) -> Option<Self> {
        let text = |k: &str| body.get(k).and_then(serde_json::Value::as_str);
        let properties = |k: &str| -> Option<Vec<JsonObject>> {
            body.get(k)?
                .as_array()?
                .iter()
                .map(|p| p.as_object().cloned())
                .collect()
        };
        let branches = body.get("branches").and_then(|b| {
            b.as_array()?
                .iter()
                .map(|b| b.as_str().map(str::to_owned))
                .collect()
        });
        Some(RawComponent {
            component_type: text("component_type")?.to_owned(),
            id: text("id").unwrap_or_default().to_owned(),
            name: text("name").unwrap_or_default().to_owned(),
            inputs: properties("inputs"),
            outputs: properties("outputs"),
            branches,
            body,
            secrets: Vec::new(),
        })
    }

    /// Marks the keys of the body that are sensitive fields of some member of a component set
    /// (`ComponentSet::SECRET_FIELDS`, as `(key, written in clear)`).
    #[must_use]
    pub fn with_secret_fields(mut self, fields: &[&[(&str, bool)]]) -> Self {
        self.secrets = self
            .body
            .keys()
            .filter_map(|key| {
                let mut found = fields
                    .iter()
                    .flat_map(|f| f.iter())
                    .filter(|(k, _)| k == key);
                let first = found.next()?;
                // redacted when any component that has the key redacts it
                let clear = first.1 && found.all(|(_, clear)| *clear);
                Some((key.clone(), clear))
            })
            .collect();
        self
    }

    /// Whether `key` is sensitive: `Some(written in clear)`.
    fn secret(&self, key: &str) -> Option<bool> {
        self.secrets.iter().find(|(k, _)| k == key).map(|(_, c)| *c)
    }

    /// Every key as read, in order.
    pub fn body(&self) -> &JsonObject {
        &self.body
    }

    /// Its `component_plugin_name`, when it has one.
    pub fn plugin_name(&self) -> Option<&str> {
        self.body
            .get("component_plugin_name")
            .and_then(serde_json::Value::as_str)
    }
}

impl PluginComponent for RawComponent {
    fn component_type(&self) -> &str {
        &self.component_type
    }
    fn inputs(&self) -> Option<&[JsonObject]> {
        self.inputs.as_deref()
    }
    fn outputs(&self) -> Option<&[JsonObject]> {
        self.outputs.as_deref()
    }
    fn branches(&self) -> Option<&[String]> {
        self.branches.as_deref()
    }
    /// A key as read: a `serde_json::Value`.
    fn field(&self, key: &str) -> Option<&dyn Any> {
        self.body.get(key).map(|v| v as &dyn Any)
    }
    fn id(&self) -> &str {
        &self.id
    }
    fn name(&self) -> &str {
        &self.name
    }
    fn encode_body(&self, sink: &mut dyn Sink, cx: &Encoder) {
        for (key, value) in &self.body {
            sink.key(key);
            let redacted = !cx.include_secrets
                && self.secret(key) == Some(false)
                && !value.is_null()
                && !is_placeholder(value);
            if redacted {
                let placeholder =
                    serde_json::json!({ "$component_ref": format!("{}.{key}", self.id) });
                crate::syntax::value::write_value(&placeholder, sink);
            } else {
                crate::syntax::value::write_value(value, sink);
            }
        }
    }
    fn clone_box(&self) -> Box<dyn PluginComponent> {
        Box::new(self.clone())
    }
    fn eq_dyn(&self, other: &dyn PluginComponent) -> bool {
        other.as_any().downcast_ref::<Self>() == Some(self)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
