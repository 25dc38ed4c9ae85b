use agentspec_types::ComponentFields;

// A default is checked against its field's type, at the expression.
#[derive(agentspec_types::Component, Clone, Debug, PartialEq)]
struct PluginService {
    #[component(base)]
    base: ComponentFields,
    #[component(default = "8080")]
    port: u16,
}

fn main() {}
