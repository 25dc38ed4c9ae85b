#[derive(agentspec_types::Component, Clone, Debug, PartialEq)]
struct PluginRegexNode(agentspec_types::NodeFields, String);

fn main() {}
