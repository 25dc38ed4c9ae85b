//! Plugin components: component types the schemas do not define, which a plugin adds
//! (pyagentspec writes them with `component_plugin_name` and `component_plugin_version`).
//!
//! Every family of components (`Node`, `Tool`, …, and `Component`) has a `Plugin` variant
//! holding a [`Plugin`]. A type declared with `#[derive(Component)]` (feature `macros`)
//! implements [`PluginType`]; registered in a [`PluginRegistry`] passed to the loader
//! ([`LoadOptions::plugins`](crate::components::LoadOptions::plugins)), it loads wherever
//! the family it extends may stand. With
//! [`LoadOptions::keep_unknown`](crate::components::LoadOptions::keep_unknown), a component
//! whose type nothing defines is kept as a [`RawComponent`] and written back unchanged;
//! without it, it is an error (`plugin-not-registered` or `unknown-component-type`).

pub use crate::codec::plugin::{
    DuplicatePlugin, FamilyFields, FieldSchema, PluginRegistry, PluginType,
};
pub use crate::model::plugin::{InferredIo, Plugin, PluginComponent, RawComponent};
