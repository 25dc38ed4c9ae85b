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
    /// The keys Agent Spec does not define that the component kept when it was read, with
    /// their values, in the order read.
    fn unknown_keys(&self) -> Option<&JsonObject> {
        None
    }
}

/// What may stand at a component position: a family of components, or one component type.
pub trait Tagged {
    /// The name used in messages: the family's name in Agent Spec (`Node`, `LlmConfig`), or
    /// the component type (`Agent`).
    const FAMILY: &'static str;
    /// The `component_type`s admitted.
    const MEMBERS: &'static [&'static str];
}

/// A name with its article, as it is said: `a Node`, `an Agent`, `an LlmConfig` (el-el-em),
/// `an MCPToolBox`, `an SSETransport`.
pub(crate) fn a(name: &str) -> String {
    let mut letters = name.trim_start_matches('`').chars();
    let (first, second) = (letters.next(), letters.next());
    let vowel_sound = match (first, second) {
        (Some('A' | 'E' | 'I' | 'O' | 'U' | 'a' | 'e' | 'i' | 'o' | 'u'), _) => true,
        // a letter said with a vowel sound, spelled out: an initialism (MCP, SSE, Llm)
        (Some('F' | 'H' | 'L' | 'M' | 'N' | 'R' | 'S' | 'X'), Some(next)) => {
            next.is_ascii_uppercase() || (first == Some('L') && next == 'l')
        }
        _ => false,
    };
    format!("{} {name}", if vowel_sound { "an" } else { "a" })
}

/// A list of names for a message: all of them, or the first dozen and how many more.
pub(crate) fn names(list: &[&str]) -> String {
    const SHOWN: usize = 12;
    if list.len() <= SHOWN {
        return list.join(", ");
    }
    format!(
        "{}, … and {} more",
        list[..SHOWN].join(", "),
        list.len() - SHOWN
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn messages_name_things_as_english_does() {
        assert_eq!(super::a("Node"), "a Node");
        assert_eq!(super::a("LlmConfig"), "an LlmConfig");
        assert_eq!(super::a("`A2AAgent`"), "an `A2AAgent`");
        assert_eq!(super::a("MCPToolBox"), "an MCPToolBox");
        assert_eq!(super::a("StartNode"), "a StartNode");
        assert_eq!(super::a("`StartNode`"), "a `StartNode`");
        let many: Vec<String> = (0..20).map(|i| format!("T{i}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        assert_eq!(super::names(&many[..2]), "T0, T1");
        assert!(super::names(&many).ends_with("T11, … and 8 more"));
    }
}
