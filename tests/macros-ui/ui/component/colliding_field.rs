use agentspec_types::NodeFields;

#[derive(agentspec_types::Component, Clone, Debug, PartialEq)]
struct PluginRegexNode {
    #[component(base)]
    base: NodeFields,
    branches: Vec<String>,
}

fn main() {}
