//! What every component has, whatever its type, and what may stand where a component is
//! expected.

use crate::JsonObject;
use crate::version::Version;

/// What every component has, whatever its type.
pub trait ComponentInfo: Sync {
    /// Its `component_type`.
    fn component_type(&self) -> &str;
    /// Its id (`""` for the rare type without one).
    fn id(&self) -> &str;
    /// Its name (`""` for the rare type without one).
    fn name(&self) -> &str;
    /// The component's own struct (not a family enum around it), to downcast:
    /// `c.as_any().downcast_ref::<LlmNode>()`.
    fn as_any(&self) -> &dyn std::any::Any;
    /// The first Agent Spec version that has this component type.
    fn since(&self) -> Version;
    /// The plugin component (a type the schemas do not define), when it is one.
    fn as_plugin(&self) -> Option<&super::plugin::Plugin> {
        None
    }
    /// Its `inputs` (JSON Schemas of properties), when it has them and they are set.
    fn inputs(&self) -> Option<&[JsonObject]> {
        None
    }
    /// Its `outputs`, when it has them and they are set.
    fn outputs(&self) -> Option<&[JsonObject]> {
        None
    }
    /// Its `branches` (nodes), when it has them.
    fn branches(&self) -> Option<&[String]> {
        None
    }
    /// The field written as `key`, to downcast to its Rust type
    /// (`c.field("retry_policy")?.downcast_ref::<Option<RetryPolicy>>()`); `None` when the
    /// component has no such field.
    fn field(&self, key: &str) -> Option<&dyn std::any::Any> {
        let _ = key;
        None
    }
}

/// What may stand at a component position: a family of components, or one component type.
pub trait Tagged {
    /// The name used in messages (`Node`, `AnyLlmConfig`, `Agent`).
    const FAMILY: &'static str;
    /// The `component_type`s admitted.
    const MEMBERS: &'static [&'static str];
}
