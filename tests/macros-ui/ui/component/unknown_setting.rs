use agentspec_types::NodeFields;

#[derive(agentspec_types::Component, Clone, Debug, PartialEq)]
#[component(extend = agentspec_types::Node)]
struct PluginRegexNode {
    #[component(base)]
    base: NodeFields,
    regex_pattern: String,
}

fn main() {}
