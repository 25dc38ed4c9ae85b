use agentspec_types::plugin::PluginRegistry;
use agentspec_types::ComponentFields;

// One mistake in the derive is one error: the type still implements the plugin traits, so
// registering it and reading its fields report nothing more.
#[derive(agentspec_types::Component, Clone, Debug, PartialEq)]
#[component(plugin_nam = "typo")]
struct PluginService {
    #[component(base)]
    base: ComponentFields,
    port: u16,
}

fn main() {
    let plugins = PluginRegistry::new().with::<PluginService>().unwrap();
    let _ = plugins.component_types().count();
}
