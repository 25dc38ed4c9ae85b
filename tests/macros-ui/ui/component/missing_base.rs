#[derive(agentspec_types::Component, Clone, Debug, PartialEq)]
#[component(extends = agentspec_types::Node)]
struct PluginRegexNode {
    regex_pattern: String,
}

fn main() {}
