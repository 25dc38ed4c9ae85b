use agentspec_types::ComponentFields;

// A field type the wire format does not know is one error at the field, listing what is.
#[derive(agentspec_types::Component, Clone, Debug, PartialEq)]
struct PluginService {
    #[component(base)]
    base: ComponentFields,
    port: u16,
    timeout: std::time::Duration,
}

fn main() {}
