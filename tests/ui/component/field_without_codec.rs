use agentspec_types::ComponentFields;

#[derive(agentspec_types::Component, Clone, Debug, PartialEq)]
struct PluginService {
    #[component(base)]
    base: ComponentFields,
    port: u16,
}

fn main() {}
