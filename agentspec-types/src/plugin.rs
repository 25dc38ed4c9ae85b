//! Plugin components: component types the schemas do not define, which a plugin adds
//! (pyagentspec writes them with `component_plugin_name` and `component_plugin_version`).
//!
//! Every family of components (`Node`, `Tool`, …, and `Component`) has a `Plugin` variant
//! holding a [`Plugin`]. With [`LoadOptions::keep_unknown`](crate::components::LoadOptions::keep_unknown),
//! a component whose type nobody defines is kept as a [`RawComponent`] and written back
//! unchanged; without it, it is an error (`plugin-not-registered` or
//! `unknown-component-type`).

use std::any::Any;

use crate::JsonObject;
use crate::codec::{Encode, Encoder};
use crate::sink::Sink;
use crate::version::Version;
use crate::walk::{Visit, Walk};

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
    /// Writes every key of the component, `component_type` first, without the braces.
    fn encode_body(&self, sink: &mut dyn Sink, cx: &Encoder);
    /// A copy, boxed.
    fn clone_box(&self) -> Box<dyn PluginComponent>;
    /// Whether `other` is the same component.
    fn eq_dyn(&self, other: &dyn PluginComponent) -> bool;
    /// Itself, to downcast.
    fn as_any(&self) -> &dyn Any;
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

/// Plugin components are leaves of a walk: what they hold is theirs.
impl<C> Walk<C> for Plugin {
    fn walk<'a>(&'a self, _f: &mut dyn FnMut(Visit<'a, C>)) {}
}

/// A component of a type nothing defines, kept as read: written back key for key.
#[derive(Debug, Clone, PartialEq)]
pub struct RawComponent {
    component_type: String,
    id: String,
    name: String,
    body: JsonObject,
}

impl RawComponent {
    /// A raw component of `body`, an object with a string `component_type`.
    pub fn new(body: JsonObject) -> Option<Self> {
        let text = |k: &str| body.get(k).and_then(serde_json::Value::as_str);
        Some(RawComponent {
            component_type: text("component_type")?.to_owned(),
            id: text("id").unwrap_or_default().to_owned(),
            name: text("name").unwrap_or_default().to_owned(),
            body,
        })
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
    fn id(&self) -> &str {
        &self.id
    }
    fn name(&self) -> &str {
        &self.name
    }
    fn encode_body(&self, sink: &mut dyn Sink, cx: &Encoder) {
        for (key, value) in &self.body {
            sink.key(key);
            value.encode(sink, cx);
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
