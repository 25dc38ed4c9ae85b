#[derive(agentspec_types::Component, Clone, Debug, PartialEq)]
struct PluginService {
    #[component(base)]
    base: String,
    endpoint: String,
}

fn main() {}
