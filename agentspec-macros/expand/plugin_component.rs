/// A plugin node: the same derive, through its `#[component]` front.
#[derive(agentspec_types::Component, Clone, Debug, PartialEq)]
#[component(extends = agentspec_types::Node, plugin_name = "regex-nodes", plugin_version = "1.0.0")]
struct PluginRegexNode {
    #[component(base)]
    base: NodeFields,
    /// Regex applied to the input text.
    regex_pattern: String,
    #[component(default = 8080)]
    port: u16,
}
