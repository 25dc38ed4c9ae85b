use agentspec_types::ToolFields;

#[derive(agentspec_types::Component, Clone, Debug, PartialEq)]
#[component(extends = agentspec_types::Node)]
struct PluginRegexNode {
    #[component(base)]
    base: ToolFields,
    regex_pattern: String,
}

fn main() {}
