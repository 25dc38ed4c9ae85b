use agentspec_types::ComponentFields;

#[derive(agentspec_types::Component, Clone, Debug, PartialEq)]
struct PluginService {
    #[component(base)]
    base: ComponentFields,
    component_plugin_name: String,
}

fn main() {}
