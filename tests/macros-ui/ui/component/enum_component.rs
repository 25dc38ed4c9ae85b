#[derive(agentspec_types::Component, Clone, Debug, PartialEq)]
enum PluginChoice {
    A,
    B,
}

fn main() {}
